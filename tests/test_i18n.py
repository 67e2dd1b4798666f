"""The players' languages: every message translated in every catalog with the same placeholders,
plural forms right, card names accepted in any language, and the command line and the service
answering in the language asked for."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel import Locale
from babel.messages.pofile import read_po
from fastapi.testclient import TestClient

from api.catalogs import TEMPLATE, template
from api.cli import main
from api.i18n import DOMAIN, LANGUAGES, LOCALES, _n, from_environment, negotiate, speaking
from api.service import create_app
from api.settings import Settings
from api.words import card_name, card_slug_any
from scoring.cards import CARDS, CardError

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_JSON = ROOT / "samples" / "typical-a.json"
TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]
PLACEHOLDER = re.compile(r"\{(\w*)\}")


def _key(message) -> tuple:
    return (message.context, message.id)


def _catalog(language: str):
    with (LOCALES / language / "LC_MESSAGES" / f"{DOMAIN}.po").open("rb") as f:
        return read_po(f, locale=language)


def test_the_template_holds_every_message_the_code_says() -> None:
    with TEMPLATE.open("rb") as f:
        committed = {_key(m) for m in read_po(f) if m.id}
    current = {_key(m) for m in template() if m.id}
    assert current - committed == set(), "run `python -m api.catalogs update`"
    assert committed - current == set(), "run `python -m api.catalogs update`"


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_message_is_translated_with_the_same_placeholders(language: str) -> None:
    catalog = _catalog(language)
    with TEMPLATE.open("rb") as f:
        wanted = {_key(m): m for m in read_po(f) if m.id}
    have = {_key(m): m for m in catalog if m.id}
    assert set(wanted) - set(have) == set()
    forms = Locale.parse(language).plural_form
    for key, message in have.items():
        assert not message.fuzzy, key
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if isinstance(message.id, tuple):
            assert len(strings) == catalog.num_plurals, (key, forms)
        for text in strings:
            assert text.strip(), f"{language}: {key} is not translated"
            assert set(PLACEHOLDER.findall(text)) == set(PLACEHOLDER.findall(ids[-1])), (key, text)


@pytest.mark.parametrize(
    ("language", "n", "words"),
    [
        ("uk", 1, "1 монета"),
        ("uk", 3, "3 монети"),
        ("uk", 5, "5 монет"),
        ("uk", 11, "11 монет"),
        ("uk", 21, "21 монета"),
        ("uk", 22, "22 монети"),
        ("es", 1, "1 moneda"),
        ("es", 0, "0 monedas"),
        ("pt_BR", 0, "0 moeda"),
        ("pt_BR", 2, "2 moedas"),
        ("en", 1, "1 coin"),
        ("en", 14, "14 coins"),
    ],
)
def test_plural_forms(language: str, n: int, words: str) -> None:
    with speaking(language):
        assert _n("{n} coin", "{n} coins", n, n=n) == words


@pytest.mark.parametrize(
    ("header", "language"),
    [
        ("uk-UA,uk;q=0.9,en;q=0.5", "uk"),
        ("pt-BR", "pt_BR"),
        ("pt-PT,pt;q=0.8", "pt_BR"),
        ("es-MX", "es"),
        ("fr-FR,es;q=0.5", "es"),
        ("de-DE", "en"),
        ("en-GB,uk;q=0.9", "en"),
        ("es;q=0,uk", "uk"),
        ("", "en"),
        ("garbage;;q=x", "en"),
    ],
)
def test_accept_language_negotiation(header: str, language: str) -> None:
    assert negotiate(header) == language


@pytest.mark.parametrize(
    ("environ", "language"),
    [
        ({"LANG": "pt_BR.UTF-8"}, "pt_BR"),
        ({"LANG": "C.UTF-8", "LC_MESSAGES": "uk_UA.UTF-8"}, "uk"),
        ({"LANGUAGE": "es:en", "LANG": "pt_BR.UTF-8"}, "es"),
        ({"LANG": "C"}, "en"),
        ({}, "en"),
    ],
)
def test_language_from_the_environment(environ: dict, language: str) -> None:
    assert from_environment(environ) == language


@pytest.mark.parametrize("language", list(LANGUAGES))
@pytest.mark.parametrize("slug", list(CARDS))
def test_every_card_name_in_every_language_names_its_card(language: str, slug: str) -> None:
    with speaking(language):
        name = card_name(slug)
    assert card_slug_any(name) == slug
    assert card_slug_any(name.upper()) == slug


@pytest.mark.parametrize(
    ("typed", "slug"),
    [
        ("planicies verde ouro", "greengold-plains"),
        ("LAGO DEL CANAL", "canal-lake"),
        ("caldeiroes", "cauldrons"),
        ("  велике   місто ", "great-city"),
        ("golden granary", "golden-granary"),
    ],
)
def test_accents_case_and_articles_are_forgiven(typed: str, slug: str) -> None:
    assert card_slug_any(typed) == slug


def test_did_you_mean_in_the_players_language() -> None:
    with speaking("uk"), pytest.raises(CardError, match="можливо, ви мали на увазі Вартовий Ліс"):
        card_slug_any("bosque sentinella")
    with speaking("es"), pytest.raises(CardError, match="quisiste decir Bosque Centinela"):
        card_slug_any("bosque sentinella")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_score_map_in_spanish(capsys) -> None:
    status, out, _ = run(capsys, "score-map", SAMPLE_JSON, "--cards", "all", "--lang", "es")
    assert status == 0
    assert "clave: T bosque  V aldea" in out
    assert "Bosque Centinela" in out and "Sentinel Wood" not in out
    assert "penalización de monstruos" in out


def test_score_map_speaks_the_shells_language(capsys, monkeypatch) -> None:
    monkeypatch.setenv("LANG", "pt_BR.UTF-8")
    status, out, _ = run(capsys, "score-map", SAMPLE_JSON, "--cards", "all")
    assert status == 0
    assert "legenda: T floresta" in out and "Bosque Sentinela" in out
    monkeypatch.setenv("LANG", "C.UTF-8")
    status, out, _ = run(capsys, "score-map", SAMPLE_JSON, "--cards", "all")
    assert "key: T forest" in out and "Sentinel Wood" in out


def test_cards_named_in_another_language_score_in_this_one(capsys) -> None:
    four = "bosque centinela,Lago do Canal,Велике Місто,los calderos"
    status, out, _ = run(capsys, "score-map", SAMPLE_JSON, "--cards", four, "--lang", "uk")
    assert status == 0
    assert "Вартовий Ліс" in out and "Казани" in out and "зима" in out


def test_an_unknown_language_is_one_line_and_status_2(capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["score-map", str(SAMPLE_JSON), "--cards", "all", "--lang", "klingon"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "no catalog for 'klingon'" in err and "pt_BR" in err


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(Settings()))


@pytest.mark.parametrize(
    ("header", "sentinel", "winter"),
    [
        ("uk", "Вартовий Ліс", "зима"),
        ("es-ES,es;q=0.9", "Bosque Centinela", "invierno"),
        ("pt-BR", "Bosque Sentinela", "inverno"),
        (None, "Sentinel Wood", "winter"),
    ],
)
def test_cards_route_names_cards_in_the_asked_language(client, header, sentinel, winter) -> None:
    headers = {"Accept-Language": header} if header else {}
    body = client.get("/v1/cards", headers=headers).json()
    cards = {c["slug"]: c for c in body["cards"]}
    assert cards["sentinel-wood"]["name"] == sentinel
    assert body["seasons"][3]["name"] == "winter"  # the stable token stays
    assert body["seasons"][3]["title"] == winter
    with speaking(body["language"]):
        assert cards["cauldrons"]["rule"] != CARDS["cauldrons"].rule or header is None


@pytest.mark.parametrize(
    ("query", "header", "language", "score"),
    [
        ("?lang=uk", None, "uk", "Рахунок"),
        ("", "es-AR,es;q=0.9", "es", "Puntuación"),
        ("?lang=pt-BR", "uk", "pt_BR", "Pontuação"),
        ("?lang=xx", "de", "en", "Score"),
    ],
)
def test_the_page_catalog(client, query, header, language, score) -> None:
    headers = {"Accept-Language": header} if header else {}
    answer = client.get(f"/v1/messages{query}", headers=headers)
    body = answer.json()
    assert answer.status_code == 200 and body["language"] == language
    assert body["messages"]["Score"] == score
    assert set(body["languages"]) == set(LANGUAGES)
    forms = body["plurals"]["{n} cell"]
    with speaking(language):
        for n in (1, 2, 5, 11, 21, 104):
            index = body["plural_index"][n if n < 200 else 100 + n % 100]
            assert forms[index].format(n=n) == _n("{n} cell", "{n} cells", n, n=n)


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ("uk", "Невідомі, повторені або не всі карти підрахунку"),
        ("es-ES", "Cartas de puntuación desconocidas, repetidas o insuficientes"),
        ("pt-BR", "Cartas de pontuação desconhecidas, repetidas ou insuficientes"),
    ],
)
def test_error_messages_in_the_asked_language_with_the_same_code(client, header, message) -> None:
    sheet = {"side": "A", "cells": [["empty"] * 11 for _ in range(11)], "coins": 0}
    sheet["cells"][1][3] = sheet["cells"][2][8] = sheet["cells"][5][5] = "mountain"
    sheet["cells"][8][2] = sheet["cells"][9][7] = "mountain"
    body = {"sheet": sheet, "cards": ["sentinel-wood", "nonsense", "wildholds", "borderlands"]}
    english = client.post("/v1/score-map", json=body)
    spoken = client.post("/v1/score-map", json=body, headers={"Accept-Language": header})
    assert english.status_code == spoken.status_code == 422
    assert english.json()["code"] == spoken.json()["code"] == "bad-cards"
    assert spoken.json()["message"] == message
    assert spoken.json()["detail"] == english.json()["message"]
    assert "detail" not in english.json()


def test_an_unknown_route_answers_in_the_asked_language(client) -> None:
    answer = client.get("/v1/nowhere", headers={"Accept-Language": "uk"})
    assert answer.status_code == 404
    assert answer.json() == {
        "code": "not-found",
        "message": "Такого маршруту немає",
        "detail": "no such route: GET /v1/nowhere",
    }
