"""What the rules and the reader say, in the player's language: the validator's reasons, the
reader's warnings and the written-score checks translated with their numbers and game words, the
English byte for byte as before, the commands speaking ``--lang``, the service ``Accept-Language``
with the same codes, and the messages surviving the batch journal and the games database."""

from __future__ import annotations

import json
import pickle
import re
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from api.batch_journal import Journal, read_journal
from api.batch_sheet import BatchOptions
from api.catalogs import template
from api.cli import main
from api.i18n import speaking
from api.messages import localised, say
from scoring.legality.seasons_level import check_changes
from scoring.message import Joined, Message, Number, Word, from_data, msg, msg_n, to_data
from scoring.seasons import check_setup
from scoring.sheet import Sheet
from scoring.terrain import Terrain
from scoring.written import WrittenScores
from scoring.written_checks import check_written
from tests.test_batch_http import client  # noqa: F401  (the service on its own store)
from tests.test_games import new_game, record, send
from vision.reader import written_warnings

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_JSON = ROOT / "samples" / "typical-a.json"
SAMPLE_PHOTO = ROOT / "samples" / "typical-a.jpg"
FOUR = ["sentinel-wood", "canal-lake", "wildholds", "borderlands"]
MONSTER_SHEET = Sheet.blank("A").with_cells({(0, 0): Terrain.MONSTER}, coins=3)  # A1: a monster


def season_sum_check() -> Message:
    """spring: 7 + 4 + 0 − 2 is 9, written 13 (blank coins counted as 0)."""
    written = WrittenScores.from_json(
        {"seasons_written": [{"season": "spring", "edicts": [7, 4], "monsters": 2, "total": 13}]}
    )
    return check_written(written, MONSTER_SHEET, None)[0].message


def winter_edict_check() -> Message:
    """winter: edict D (Borderlands) scores … on this map, written 9."""
    written = WrittenScores.from_json(
        {"seasons_written": [{"season": "winter", "edicts": [9, None]}]}
    )
    checks = check_written(written, MONSTER_SHEET, FOUR)
    return next(c.message for c in checks if c.code == "winter-edicts")


def changed_cell_reason() -> Message:
    """The validator's reason for a cell drawn in spring and changed by summer."""
    spring = Sheet.blank("A").with_cells({(0, 0): Terrain.FOREST}, coins=2)
    summer = Sheet.blank("A").with_cells({(0, 0): Terrain.WATER}, coins=2)
    return check_changes([spring, summer], [0, 1])[0].message


def coins_down_reason() -> Message:
    spring = Sheet.blank("A").with_cells({}, coins=2)
    return check_changes([spring, Sheet.blank("A")], [0, 1])[0].message


def unsure_numbers_warning(n: int) -> Message:
    """The reader's warning for ``n`` written numbers read unsurely."""
    parts = [f"{s}.{p}" for s in ("spring", "summer", "fall") for p in ("edict1", "coins", "total")]
    confidence = {name: 0.5 for name in parts[:n]}
    return written_warnings(WrittenScores(WrittenScores.blank().seasons, None, confidence))[0]


def coin_track_warning(coins: int) -> Message:
    return Sheet.blank("A").with_cells({}, coins=coins).warnings[0]


def setup_warning() -> Message:
    return check_setup(["sentinel-wood", "greenbough", "wildholds", "borderlands"])[0]


MESSAGES = {
    "season sum": season_sum_check,
    "winter edict": winter_edict_check,
    "changed cell": changed_cell_reason,
    "coins down": coins_down_reason,
    "3 unsure numbers": lambda: unsure_numbers_warning(3),
    "5 unsure numbers": lambda: unsure_numbers_warning(5),
    "21 coins": lambda: coin_track_warning(21),
    "22 coins": lambda: coin_track_warning(22),
    "setup": setup_warning,
}


@pytest.mark.parametrize(
    ("made", "english"),
    [
        ("season sum", "spring: 7 + 4 + 0 − 2 is 9, written 13 (blank coins counted as 0)"),
        ("winter edict", "winter: edict D (Borderlands) scores 0 on this map, written 9"),
        ("changed cell", "drawn by the end of spring and changed by the end of summer: A1 "
         "(forest → water)"),
        ("coins down", "coins went down from 2 (spring) to 0 (summer)"),
        ("3 unsure numbers", "3 written numbers may be misread: spring.edict1 spring.coins "
         "spring.total"),
        ("21 coins", "21 coins is more than the 14 the printed track holds"),
        ("setup", "Sentinel Wood and Greenbough are both forest cards: a game's setup takes one "
         "card of each kind (forest, farm and water, village, placement)"),
    ],
)  # fmt: skip
def test_english_is_the_text_it_always_was(made: str, english: str) -> None:
    message = MESSAGES[made]()
    assert isinstance(message, Message) and message == english
    assert say(message) == english and type(say(message)) is str
    assert json.dumps({"m": message}) == json.dumps({"m": english})


@pytest.mark.parametrize(
    ("made", "language", "words"),
    [
        ("season sum", "uk", "весна: 7 + 4 + 0 − 2 = 9, записано 13 (порожнє поле монет"),
        ("season sum", "es", "primavera: 7 + 4 + 0 − 2 da 9, escrito 13 (monedas en blanco"),
        ("season sum", "pt_BR", "primavera: 7 + 4 + 0 − 2 dá 9, escrito 13 (moedas em branco"),
        ("winter edict", "uk", "зима: указ D (Прикордоння) дає 0 на цій мапі, записано 9"),
        ("winter edict", "es", "invierno: el edicto D (Tierras Fronterizas) da 0"),
        ("winter edict", "pt_BR", "inverno: o decreto D (Terras Fronteiriças) vale 0"),
        ("changed cell", "uk", "«весна» і змінено до кінця сезону «літо»: A1 (ліс → вода)"),
        ("changed cell", "es", "dibujado antes del final de primavera y cambiado antes del final "
         "de verano: A1 (bosque → agua)"),
        ("changed cell", "pt_BR", "até o fim de verão: A1 (floresta → água)"),
        ("coins down", "uk", "монет поменшало з 2 (весна) до 0 (літо)"),
        ("coins down", "es", "las monedas bajaron de 2 (primavera) a 0 (verano)"),
        ("3 unsure numbers", "uk", "3 записані числа могли бути прочитані хибно: spring.edict1"),
        ("5 unsure numbers", "uk", "5 записаних чисел могли бути прочитані хибно"),
        ("3 unsure numbers", "pt_BR", "3 números escritos podem ter sido mal lidos"),
        ("21 coins", "uk", "21 монета — це більше, ніж 14"),
        ("22 coins", "uk", "22 монети — це більше, ніж 14"),
        ("21 coins", "es", "21 monedas son más de las 14 que caben en la pista impresa"),
        ("setup", "uk", "Вартовий Ліс і Зелене Гілля — карти типу «ліс»: для партії беруть по "
         "одній карті кожного типу (ліс, ферма й вода, село, розташування)"),
        ("setup", "es", "Bosque Centinela y Ramaverde son cartas de bosque"),
        ("setup", "pt_BR", "Bosque Sentinela e Ramoverde são cartas de floresta"),
    ],
)  # fmt: skip
def test_messages_in_the_players_language(made: str, language: str, words: str) -> None:
    message = MESSAGES[made]()
    with speaking(language):
        said = say(message)
    assert words in said, said
    assert str(message) != said  # the message itself stays English


@pytest.mark.parametrize(
    ("count", "language", "forms"),
    [
        (1, "uk", "1 комірка для перевірки"),
        (3, "uk", "3 комірки для перевірки"),
        (11, "uk", "11 комірок для перевірки"),
        (21, "uk", "21 комірка для перевірки"),
        (1, "es", "1 casilla por comprobar"),
        (2, "pt_BR", "2 espaços para verificar"),
        (1, "en", "1 cell to check"),
        (2, "en", "2 cells to check"),
    ],
)
def test_counts_take_the_languages_plural_forms(count: int, language: str, forms: str) -> None:
    message = msg_n("{n} cell to check: {cells}", "{n} cells to check: {cells}", count, cells="A1")
    with speaking(language):
        assert say(message) == f"{forms}: A1"


def test_a_message_survives_pickling_json_storage_and_copying() -> None:
    message = season_sum_check()
    nested = {"rows": [{"checks": [{"message": message}], "n": 3}], "plain": "text"}
    for back in (
        pickle.loads(pickle.dumps(nested)),
        from_data(json.loads(json.dumps(to_data(nested)))),
    ):
        again = back["rows"][0]["checks"][0]["message"]
        assert (
            isinstance(again, Message) and again == message and again.template == message.template
        )
        assert back["plain"] == "text" and back["rows"][0]["n"] == 3
        with speaking("uk"):
            assert localised(back) == localised(nested)
    with pytest.raises(AttributeError):
        message.template = "changed"  # type: ignore[misc]
    assert from_data(["older rows hold plain strings"]) == ["older rows hold plain strings"]
    words = Joined([Word("season", "fall"), Word("terrain", "wasteland")], " / ")
    assert words == "fall / wasteland" and pickle.loads(pickle.dumps(words)) == words
    with speaking("uk"):
        assert say(words) == "осінь / розлом"


def test_the_catalog_finds_the_messages_of_the_rules_and_the_reader() -> None:
    where = {m.id: {path for path, _ in m.locations} for m in template() if m.id}
    assert "scoring/legality/sheet_level.py" in where["the search ran past its time limit"]
    assert "vision/reader.py" in where["photo looks blurred: hold still or focus on the sheet"]
    singular = "{n} cell to check: {cells}", "{n} cells to check: {cells}"
    assert "vision/reader.py" in where[singular]


def test_a_broken_translation_falls_back_to_english(monkeypatch) -> None:
    import api.messages

    class Broken:
        def gettext(self, text: str) -> str:
            return "{nowhere}"

    monkeypatch.setattr(api.messages, "catalog", lambda language: Broken())
    with speaking("uk"):
        assert say(msg("photo looks blurred: hold still or focus on the sheet")).startswith("photo")


# ---- the command line ----------------------------------------------------------------------------
def run(capsys, *argv) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    out = capsys.readouterr()
    return status, out.out, out.err


@pytest.fixture
def impossible_sheet(tmp_path: Path) -> Path:
    """A blank side-A sheet claiming three coins: no drawing can give them."""
    path = tmp_path / "three-coins.json"
    path.write_text(json.dumps(Sheet.blank("A").with_cells({}, coins=3).to_json()))
    return path


@pytest.mark.parametrize(
    ("lang", "lines"),
    [
        ("es", ["Este mapa no pudo dibujarse en una partida real.", "Comprobado:", "Por qué:",
                "  - 3 monedas: 3 más de las que explican las formas con moneda que caben y 0 "
                "montañas rodeadas"]),
        ("uk", ["Цю мапу не могли намалювати в реальній партії.", "Чому:",
                "  - 3 монети: на 3 більше, ніж пояснюють фігури з монетою, що вміщаються, та 0 "
                "оточених гір"]),
        ("en", ["This map could not have been drawn in a real game.", "Checked:", "Why:",
                "  - 3 coins: 3 more than the coin shapes that fit and 0 surrounded mountains "
                "explain"]),
    ],
)  # fmt: skip
def test_validate_speaks_the_language_asked(capsys, impossible_sheet, lang, lines) -> None:
    status, out, _ = run(capsys, "validate", impossible_sheet, "--lang", lang)
    assert status == 1
    for line in lines:
        assert line in out.splitlines(), out
    status, out, _ = run(capsys, "validate", impossible_sheet, "--json", "--lang", lang)
    reasons = [r["message"] for r in json.loads(out)["reasons"]]
    assert "3 coins: 3 more than the coin shapes that fit and 0 surrounded mountains explain" in (
        reasons
    )  # JSON for scripts: English whatever the language


def test_batch_summary_in_ukrainian(capsys, tmp_path: Path) -> None:
    folder = tmp_path / "table"
    folder.mkdir()
    shutil.copy(SAMPLE_JSON, folder / "ana.json")
    shutil.copy(ROOT / "samples" / "typical-a.txt", folder / "ben.txt")
    (folder / "notes.md").write_text("# table 3\n")
    out_file = tmp_path / "results.csv"
    status, out, _ = run(
        capsys, "batch", folder, "--cards", ",".join(FOUR), "--out", out_file, "--no-progress",
        "--lang", "uk",
    )  # fmt: skip
    assert status == 0
    lines = out.splitlines()
    assert lines[0].startswith("2 аркуші: підраховано 2, не вдалося 0, пропущено 1"), lines[0]
    assert re.search(r"пропущено 1 \(\d+,\d с\); результати в ", lines[0]), lines[0]
    assert lines[2].split() == ["місце", "файл", "разом", "монстри", "допустимість", "перевірити"]
    assert re.search(r"^\s+1\s+ana\.json\s+20\s+-24\s+допустимий", out, re.M), out
    assert "  notes.md: не фото й не файл аркуша" in lines
    assert out_file.read_text().splitlines()[0].startswith("file,status,place,total")


def test_game_text_in_spanish(capsys, tmp_path: Path) -> None:
    rec = record(2, "A", 21)
    db = tmp_path / "games.sqlite3"
    cards = ",".join(rec.cards)
    _, game, _ = run(capsys, "game", "create", "--db", db, "--players", "Ana,Ben", "--side", "A",
                     "--cards", cards)  # fmt: skip
    sheet = tmp_path / "ana-spring.json"
    sheet.write_text(json.dumps(rec.season_sheets[0][0].to_json()))
    status, out, _ = run(
        capsys, "game", "upload", "--db", db, game.strip(), "Ana", "spring", sheet, "--lang", "es"
    )
    assert status == 0 and out.startswith("Ana primavera: ") and "legalidad legal" in out, out
    _, out, _ = run(capsys, "game", "standings", "--db", db, game.strip(), "--lang", "es")
    assert out.startswith("tras primavera (aún faltan hojas):"), out
    assert "(estrellas perdidas por monstruos:" in out
    _, out, _ = run(capsys, "game", "show", "--db", db, game.strip(), "--lang", "uk")
    assert "сторона A, укази A " in out and "аркуші подано: весна" in out


def test_read_in_ukrainian(capsys) -> None:
    status, out, _ = run(capsys, "read", SAMPLE_PHOTO, "--lang", "uk")
    assert status == 0
    assert "сумнівні комірки" in out and "легенда: T ліс" in out
    check = [line for line in out.splitlines() if "для перевірки:" in line]
    assert len(check) == 1 and re.fullmatch(
        r"попередження: \d+ комір(ка|ки|ок) для перевірки:( [A-K](?:[1-9]|1[01])){1,12}"
        r"( і ще \d+)?",
        check[0],
    ), check


# ---- the service -------------------------------------------------------------------------------


def test_validate_reasons_in_the_asked_language(client) -> None:
    spring = Sheet.blank("A").with_cells({(0, 0): Terrain.FOREST}, coins=2).to_json()
    summer = Sheet.blank("A").with_cells({(0, 0): Terrain.WATER}, coins=1).to_json()
    body = {"sheet": summer, "previous": spring}
    english = client.post("/v1/validate", json=body)
    spoken = client.post("/v1/validate", json=body, headers={"Accept-Language": "uk"})
    assert spoken.headers["content-language"] == "uk" and english.status_code == 200
    e, s = english.json(), spoken.json()
    assert (e["verdict"], e["level"]) == (s["verdict"], s["level"]) == ("illegal", "seasons")
    assert [r["cells"] for r in e["reasons"]] == [r["cells"] for r in s["reasons"]]
    said = [r["message"] for r in s["reasons"]]
    assert "монет поменшало з 2 (весна) до 1 (літо)" in said
    assert "coins went down from 2 (spring) to 1 (summer)" in [r["message"] for r in e["reasons"]]


@pytest.mark.parametrize(
    ("header", "season_sum"),
    [
        ("es-ES,es;q=0.9", "primavera: 7 + 4 + 0 − 2 da 9, escrito 13"),
        ("uk", "весна: 7 + 4 + 0 − 2 = 9, записано 13"),
        ("pt-BR", "primavera: 7 + 4 + 0 − 2 dá 9, escrito 13"),
        (None, "spring: 7 + 4 + 0 − 2 is 9, written 13"),
    ],
)
def test_written_checks_in_the_asked_language_with_the_same_codes(client, header, season_sum):
    body = {
        "sheet": MONSTER_SHEET.to_json(),
        "cards": FOUR,
        "seasons_written": [
            {"season": "spring", "edicts": [7, 4], "monsters": 2, "total": 13},
            {"season": "winter", "edicts": [9, None]},
        ],
    }
    english = client.post("/v1/check-written", json=body).json()
    headers = {"Accept-Language": header} if header else {}
    spoken = client.post("/v1/check-written", json=body, headers=headers).json()
    assert [c["code"] for c in spoken["checks"]] == [c["code"] for c in english["checks"]]
    assert [c["season"] for c in spoken["checks"]] == [c["season"] for c in english["checks"]]
    assert spoken["checks"][0]["message"].startswith(season_sum)
    assert set(spoken) == set(english)


def test_score_map_warnings_in_portuguese(client) -> None:
    sheet = Sheet.blank("A").with_cells({}, coins=22).to_json()
    body = {"sheet": sheet, "cards": ["sentinel-wood", "greenbough", "wildholds", "borderlands"]}
    spoken = client.post("/v1/score-map", json=body, headers={"Accept-Language": "pt-BR"})
    assert spoken.headers["content-language"] == "pt-BR"
    warnings = spoken.json()["warnings"]
    assert warnings[0] == "22 moedas são mais do que as 14 que a trilha impressa comporta"
    assert warnings[1].startswith("Bosque Sentinela e Ramoverde são cartas de floresta")


def test_game_warnings_and_rejections_in_the_asked_language(client) -> None:
    rec = record(4, "A", 7)
    game = new_game(client, rec)
    noted = {**rec.season_sheets[0][0].to_json(), "note": "table 3"}
    r = client.post(
        f"/v1/games/{game}/players/P1/seasons/spring",
        data={"sheet": json.dumps(noted)},
        headers={"Accept-Language": "uk"},
    )
    assert r.status_code == 201 and r.json()["checks"]["warnings"] == [
        "невідомі поля пропущено: note"
    ]
    url = f"/v1/games/{game}/players/P1/seasons/spring"  # read back from the database
    assert client.get(url, headers={"Accept-Language": "es"}).json()["checks"]["warnings"] == [
        "campos desconocidos ignorados: note"
    ]
    assert client.get(url).json()["checks"]["warnings"] == ["ignored unknown fields: note"]
    erased = rec.season_sheets[0][1].with_cells({sorted(rec.season_sheets[0][0].drawn_cells())[0]:
                                                 Terrain.EMPTY})  # fmt: skip
    r = send(client, game, "P1", "summer", erased)
    r_uk = client.post(
        f"/v1/games/{game}/players/P1/seasons/summer",
        data={"sheet": json.dumps(erased.to_json())},
        headers={"Accept-Language": "uk"},
    )
    assert r.status_code == r_uk.status_code == 422
    assert r.json()["code"] == r_uk.json()["code"] == "sheet-rejected"
    assert "at the end of spring" in r.json()["reasons"][0]["message"]
    assert "наприкінці сезону «весна»" in r_uk.json()["reasons"][0]["message"]


def test_batch_results_in_the_asked_language(client, tmp_path: Path) -> None:
    noted = {**json.loads(SAMPLE_JSON.read_text()), "note": "x"}
    files = [("ana.json", json.dumps(noted).encode()), ("notes.md", b"# table")]
    r = client.post(
        "/v1/batch", files=[("photos", f) for f in files], data={"cards": ",".join(FOUR)}
    )
    job = r.json()["id"]
    for _ in range(600):
        if client.get(f"/v1/batch/{job}").json()["status"] in ("done", "failed"):
            break
    headers = {"Accept-Language": "es"}
    sheets = client.get(f"/v1/batch/{job}", headers=headers).json()["results"]["sheets"]
    assert sheets[0]["warnings"][0] == "campos desconocidos ignorados: note"
    assert client.get(f"/v1/batch/{job}").json()["results"]["sheets"][0]["warnings"][0] == (
        "ignored unknown fields: note"
    )
    csv_text = client.get(f"/v1/batch/{job}?format=csv", headers=headers).text
    assert csv_text.startswith("file,status,place") and "campos desconocidos ignorados" in csv_text


def test_the_journal_keeps_the_messages(tmp_path: Path) -> None:
    options = BatchOptions(tuple(FOUR))
    journal = Journal(tmp_path / "r.csv.journal.jsonl", options)
    journal.add("0" * 64, {"file": "a.json", "status": "ok", "warnings": [coin_track_warning(21)]})
    journal.close()
    row = read_journal(tmp_path / "r.csv.journal.jsonl", options)["a.json"]["result"]
    assert isinstance(row["warnings"][0], Message)
    with speaking("uk"):
        assert say(row["warnings"][0]).startswith("21 монета")


# ---- numbers in the player's locale -------------------------------------------------------------
def reader_warnings(glare: float, sure: float) -> list[Message]:
    """The reader's warnings for a photo whose cell area is ``glare`` white and whose coin count
    is ``sure`` certain (the photo itself stood in for by what the warnings look at)."""
    import numpy as np

    from vision.reader import _warnings

    cells = np.zeros((100, 100, 3), np.uint8)
    cells[: int(round(glare * 100))] = 255  # that share of the rows saturated white
    upright = SimpleNamespace(cell_size_px=lambda: 40.0)
    orientation = SimpleNamespace(
        mountains_unclear=False, may_be_shifted=False, upside_down_doubt=False
    )
    coins = SimpleNamespace(count=3, confidence=sure)
    return _warnings(SimpleNamespace(scale=1.0), upright, cells, orientation, [], coins)


@pytest.mark.parametrize(
    ("language", "glare", "coins"),
    [
        ("en", "glare on 23% of the map: tilt", "coin count 3 is uncertain (57% sure)"),
        ("es", "reflejo en el 23\xa0% del mapa", "(57\xa0% de certeza)"),
        ("pt_BR", "reflexo em 23% do mapa", "(57% de certeza)"),
        ("uk", "відблиск на 23% мапи", "(впевненість 57%)"),
    ],
)
def test_the_readers_percents_in_the_players_locale(language: str, glare: str, coins: str) -> None:
    warnings = reader_warnings(0.23, 0.57)
    assert "glare on 23% of the map: tilt the sheet away from the light" in warnings  # English
    assert any(w.startswith("coin count 3 is uncertain (57% sure)") for w in warnings)
    with speaking(language):
        said = [say(w) for w in warnings]
    assert any(glare in s for s in said), said
    assert any(coins in s for s in said), said
    stored = json.loads(json.dumps(to_data(warnings)))
    for back in (pickle.loads(pickle.dumps(warnings)), from_data(stored)):
        with speaking(language):
            assert [say(w) for w in back] == said  # kept by the journal and the database


@pytest.mark.parametrize(
    ("number", "language", "said"),
    [
        (Number(0.834, "percent"), "en", "83%"),
        (Number(0.834, "percent"), "es", "83\xa0%"),
        (Number(0.05, "percent"), "uk", "5%"),
        (Number(0.98), "en", "0.98"),
        (Number(0.98), "pt_BR", "0,98"),
        (Number(12.25, "decimal", 1), "uk", "12,2"),
        (Number(1234.5, "decimal", 1), "es", "1234,5"),
        (Number(1234.5, "decimal", 1), "en", "1234.5"),
    ],
)
def test_numbers_are_written_the_players_way(number: Number, language: str, said: str) -> None:
    with speaking(language):
        assert say(number) == said
    english = (
        f"{number.value:.0%}" if number.style == "percent" else f"{number.value:.{number.digits}f}"
    )
    assert str(number) == english and json.dumps([number]) == json.dumps([english])


@pytest.mark.parametrize(
    ("lang", "pattern"),
    [
        ("en", r"^coins \d+ \(confidence \d\.\d\d\)$"),
        ("es", r"^monedas \d+ \(confianza \d,\d\d\)$"),
        ("uk", r"^монети \d+ \(впевненість \d,\d\d\)$"),
    ],
)
def test_read_writes_the_coin_confidence_the_players_way(capsys, lang: str, pattern: str) -> None:
    status, out, _ = run(capsys, "read", SAMPLE_PHOTO, "--lang", lang)
    assert status == 0 and re.search(pattern, out, re.M), out


@pytest.mark.parametrize(
    ("lang", "pattern"),
    [("en", r"\(\d+\.\d\d s\)$"), ("uk", r"\(\d+,\d\d с\)$"), ("pt_BR", r"\(\d+,\d\d s\)$")],
)
def test_validate_writes_its_seconds_the_players_way(capsys, impossible_sheet, lang, pattern):
    status, out, _ = run(capsys, "validate", impossible_sheet, "--lang", lang)
    timed = [line for line in out.splitlines() if line.startswith("  ") and "(" in line]
    assert timed and all(re.search(pattern, line) for line in timed), out
