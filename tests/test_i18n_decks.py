"""The explore and ambush cards in the player's language: every card named in every catalog, the
names taken in any language wherever a player types one (``game reveal``, ``game create``, the
games routes), the cards said by name in ``game``, ``simulate`` and the validator's reasons, the
English text as it always was (slugs), and the JSON keeping the slugs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from api.cli import main
from api.i18n import LANGUAGES, speaking
from api.messages import localised, say
from api.words import card_name, deck_slug_any
from scoring.cards import CARDS, CardError
from scoring.decks import AMBUSH, DECK_CARDS, EXPLORE
from scoring.sheet import Sheet
from scoring.terrain import Terrain
from scoring.validate import validate
from tests.test_games import client, db_url, record  # noqa: F401 (fixtures)

TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]
REVEAL_SEED = (
    3,
    "A",
    4,
)  # a three-player game whose spring holds Fishing Village, Homestead, Hamlet


def run(capsys, *argv) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    out = capsys.readouterr()
    return status, out.out, out.err


@pytest.mark.parametrize("language", list(LANGUAGES))
@pytest.mark.parametrize("slug", list(DECK_CARDS))
def test_every_deck_card_is_named_in_every_language(language: str, slug: str) -> None:
    with speaking(language):
        name = card_name(slug)
    assert name != slug and name.strip() == name
    if language != "en":
        assert name != DECK_CARDS[slug].name, f"{language}: {slug} is not translated"
    assert deck_slug_any(name) == slug
    assert deck_slug_any(name.upper()) == slug
    assert deck_slug_any(f"  {name.lower()} ") == slug


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_card_names_are_distinct_within_a_language(language: str) -> None:
    with speaking(language):
        names = [card_name(slug) for slug in [*CARDS, *DECK_CARDS]]
    assert len(set(names)) == len(names), names


@pytest.mark.parametrize(
    ("language", "slug", "name"),
    [
        ("pt_BR", "rift-lands", "Fenda Planar"),  # the Portuguese rulebook's name
        ("pt_BR", "hamlet", "Vilarejo"),
        ("pt_BR", "goblin-attack", "Ataque dos Goblins"),
        ("es", "rift-lands", "Tierras de la Grieta"),
        ("es", "temple-ruins", "Ruinas del Templo"),
        ("es", "bugbear-assault", "Asalto de Osgos"),
        ("uk", "hamlet", "Хутір"),
        ("uk", "outpost-ruins", "Руїни Аванпосту"),
        ("uk", "kobold-onslaught", "Навала Кобольдів"),
        ("en", "treetop-village", "Treetop Village"),
    ],
)
def test_deck_card_names(language: str, slug: str, name: str) -> None:
    with speaking(language):
        assert card_name(slug) == name


@pytest.mark.parametrize(
    ("typed", "slug"),
    [
        ("hamlet", "hamlet"),
        ("Rift-Lands", "rift-lands"),
        ("the Great River", "great-river"),
        ("o grande rio", "great-river"),
        ("pantanos", "marshlands"),  # Spanish, and Portuguese without its accent
        ("EMBESTIDA DE KOBOLDS", "kobold-onslaught"),
        ("  розколоті   землі ", "rift-lands"),
        ("руины храму", None),
        ("Sentinel Wood", None),  # a scoring card is not an explore card
    ],
)
def test_deck_cards_typed_in_any_language(typed: str, slug: str | None) -> None:
    if slug is None:
        with pytest.raises(CardError):
            deck_slug_any(typed)
    else:
        assert deck_slug_any(typed) == slug


@pytest.mark.parametrize(
    ("language", "hint"),
    [
        ("uk", "невідома карта дослідження чи засідки 'vilareijo': можливо, ви мали на увазі "
         "Хутір?"),
        ("es", "carta de explorar o de emboscada desconocida 'vilareijo': ¿quisiste decir "
         "Caserío?"),
        ("en", "unknown explore or ambush card 'vilareijo': did you mean Hamlet?"),
    ],
)  # fmt: skip
def test_a_misspelt_deck_card_gets_did_you_mean_in_the_players_language(language, hint) -> None:
    with speaking(language), pytest.raises(CardError) as refused:
        deck_slug_any("vilareijo")
    assert str(refused.value) == hint


# ---- the command line ----------------------------------------------------------------------------
@pytest.fixture
def game(capsys, tmp_path: Path) -> tuple[Path, str]:
    """A game created with its scoring cards named in three languages."""
    db = tmp_path / "games.sqlite3"
    cards = "bosque centinela,Lago do Canal,Велике Місто,los calderos"
    status, out, err = run(capsys, "game", "create", "--db", db, "--players", "Ana,Ben",
                           "--side", "A", "--cards", cards)  # fmt: skip
    assert status == 0, err
    return db, out.strip()


def test_game_keeps_slugs_for_cards_named_in_any_language(capsys, game) -> None:
    db, game_id = game
    _, out, _ = run(capsys, "game", "show", "--db", db, game_id, "--json")
    assert json.loads(out)["cards"] == ["sentinel-wood", "canal-lake", "great-city", "cauldrons"]


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "spring: hamlet, great-river, goblin-attack, rift-lands, temple-ruins"),
        ("uk", "весна: Хутір, Велика Ріка, Напад Гоблінів, Розколоті Землі, Руїни Храму"),
        ("es", "primavera: Caserío, Gran Río, Ataque de Goblins, Tierras de la Grieta, Ruinas del "
         "Templo"),
        ("pt_BR", "primavera: Vilarejo, Grande Rio, Ataque dos Goblins, Fenda Planar, Ruínas do "
         "Templo"),
    ],
)  # fmt: skip
def test_game_reveal_takes_names_in_any_language_and_says_them_in_the_players(
    capsys, game, lang: str, said: str
) -> None:
    db, game_id = game
    typed = "Vilarejo,the great river,НАПАД ГОБЛІНІВ,tierras de la grieta,temple-ruins"
    status, out, err = run(capsys, "game", "reveal", "--db", db, game_id, "spring", typed,
                           "--lang", lang)  # fmt: skip
    assert status == 0, err
    assert out.strip() == said
    _, out, _ = run(capsys, "game", "show", "--db", db, game_id, "--json")
    assert json.loads(out)["revealed"]["spring"] == [
        "hamlet", "great-river", "goblin-attack", "rift-lands", "temple-ruins"
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("uk", "невідома карта дослідження чи засідки 'dragon': карти: Велика Ріка, Орні Землі"),
        ("en", "spring: unknown explore or ambush card 'dragon': the cards are Great River"),
    ],
)
def test_game_reveal_refuses_an_unknown_card(capsys, game, lang: str, words: str) -> None:
    db, game_id = game
    status, _, err = run(capsys, "game", "reveal", "--db", db, game_id, "spring", "hamlet,dragon",
                         "--lang", lang)  # fmt: skip
    assert status == 2 and "bad-log" in err and words in err, err


def _old_simulate_text(rec) -> str:
    """The English text `simulate` printed before it spoke other languages, line for line."""
    edicts = ", ".join(f"{e}: {c}" for e, c in zip("ABCD", rec.cards))
    lines = [
        f"{rec.players} player(s), side {rec.side}, seed {rec.seed}, {rec.strategy} — {edicts}"
    ]
    lines += [f"  {s['season']:<7} {' '.join(s['cards'])}" for s in rec.seasons]
    lines += [f"  {st.place}. {st.player} {st.total} stars (monsters cost {st.monster_stars_lost})"
              for st in rec.ranking]  # fmt: skip
    if rec.solo is not None:
        lines.append(f"  solo rating {rec.solo.rating}: {rec.solo.title}")
    text = "".join(f"{line}\n" for line in lines)
    return text + "".join(f"\nP{p + 1}\n{s.to_text()}" for p, s in enumerate(rec.final_sheets))


@pytest.mark.parametrize("players", [1, 2])
def test_simulate_in_english_is_the_text_it_always_was(capsys, players: int) -> None:
    from scoring.simulator import simulate

    status, out, _ = run(capsys, "simulate", "--players", players, "--seed", 3, "--lang", "en")
    assert status == 0 and out == _old_simulate_text(simulate(players, "A", 3))


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("uk", ["2 гравці, сторона A, зерно 3", "  весна   Руїни Аванпосту, Руїни Храму, ",
                "Штурм Багбірів", " зірок (монстри коштують "]),
        ("es", ["2 jugadores, lado A, semilla 3", "  primavera  Ruinas del Puesto Avanzado, ",
                "Asalto de Osgos", " estrellas (los monstruos cuestan "]),
        ("pt_BR", ["2 jogadores, lado A, semente 3", "  primavera  Ruínas do Posto Avançado, ",
                   "Investida dos Bugbears", " estrelas (monstros custam "]),
    ],
)  # fmt: skip
def test_simulate_speaks_the_players_language(capsys, lang: str, words: list[str]) -> None:
    status, out, _ = run(capsys, "simulate", "--players", 2, "--seed", 3, "--lang", lang)
    assert status == 0
    for w in words:
        assert w in out, out
    assert not any(slug in out for slug in ("outpost-ruins", "bugbear-assault", "hamlet"))


@pytest.mark.parametrize(
    ("lang", "title"),
    [("uk", "рейтинг одиночної гри 30: Легендарний Картограф"),
     ("es", "valoración en solitario 30: Cartógrafo Legendario"),
     ("en", "solo rating 30: Legendary Cartographer")],
)  # fmt: skip
def test_simulate_names_the_solo_title_in_the_players_language(capsys, lang, title) -> None:
    _, out, _ = run(capsys, "simulate", "--players", 1, "--seed", 3, "--lang", lang)
    assert f"  {title}\n" in out


# ---- the validator's reasons and the games routes -----------------------------------------------
def _villages_erased(sheet: Sheet) -> Sheet:
    """The sheet with its villages rubbed out: the cards that drew them are left undrawn."""
    villages = {c: Terrain.EMPTY for c, t in sheet.drawn_cells().items() if t is Terrain.VILLAGE}
    return sheet.with_cells(villages)


@pytest.fixture(scope="module")
def spring_without_villages():
    rec = record(*REVEAL_SEED)
    log = {**rec.card_log, "seasons": rec.card_log["seasons"][:1]}
    return rec, _villages_erased(rec.season_sheets[0][0]), log


@pytest.mark.parametrize(
    ("language", "reason"),
    [
        ("en", "hamlet: 1 revealed turn with no drawing left on the sheet"),
        ("uk", "Хутір: 1 раунд із цією картою не залишив малюнка на аркуші"),
        ("es", "Caserío: 1 turno en que se reveló sin dejar dibujo en la hoja"),
        ("pt_BR", "Vilarejo: 1 turno em que foi revelada sem deixar desenho na folha"),
    ],
)
def test_the_validators_reasons_name_the_cards_in_the_players_language(
    spring_without_villages, language: str, reason: str
) -> None:
    _rec, sheet, log = spring_without_villages
    verdict = validate(sheet, log=log, time_limit=20)
    assert verdict.status == "illegal"
    reasons = [r.message for r in verdict.reasons]
    assert "hamlet: 1 revealed turn with no drawing left on the sheet" in reasons  # English: slugs
    with speaking(language):
        assert reason in [say(r) for r in reasons]
        assert reason in [r["message"] for r in localised(verdict.to_json())["reasons"]]


def test_a_rejected_upload_names_the_cards_in_the_asked_language(
    client,  # noqa: F811 (fixture)
    spring_without_villages,
) -> None:
    rec, sheet, _log = spring_without_villages
    spring = rec.card_log["seasons"][0]["cards"]
    body = {
        "players": ["P1", "P2", "P3"],
        "side": rec.side,
        "cards": rec.cards,
        "revealed": {"spring": [deck_name("es", s) for s in spring]},  # named in Spanish
    }
    assert "Caserío" in body["revealed"]["spring"]
    r = client.post("/v1/games", json=body)
    assert r.status_code == 201, r.text
    assert r.json()["revealed"]["spring"] == spring  # kept as slugs
    game = r.json()["id"]
    url = f"/v1/games/{game}/players/P1/seasons/spring"
    data = {"sheet": json.dumps(sheet.to_json())}
    english = client.post(url, data=data)
    spoken = client.post(url, data=data, headers={"Accept-Language": "uk"})
    assert english.status_code == spoken.status_code == 422
    assert english.json()["code"] == spoken.json()["code"] == "sheet-rejected"
    said = [r["message"] for r in spoken.json()["reasons"]]
    assert "Хутір: 1 раунд із цією картою не залишив малюнка на аркуші" in said
    assert "hamlet: 1 revealed turn with no drawing left on the sheet" in [
        r["message"] for r in english.json()["reasons"]
    ]


def deck_name(language: str, slug: str) -> str:
    with speaking(language):
        return card_name(slug)


def test_the_catalogs_hold_every_deck_card_under_its_own_context() -> None:
    from api.catalogs import vocabulary

    words = set(vocabulary())
    assert {("explore card", c.name) for c in EXPLORE.values()} <= words
    assert {("ambush card", c.name) for c in AMBUSH.values()} <= words
