"""The web page in the player's language, in Debian's Chromium on a phone (375 × 812): the browser's
language decides, the page's picker changes it and the device remembers it; the result, the cells
to check and the score read in that language.

``CARTOGRAPHERS_SCREENSHOTS=1`` also saves the result in each language as
``docs/screenshots/phone-result-<language>.png``.
"""

from __future__ import annotations

import json
import re

import pytest

from scoring.seasons import score_season
from scoring.sheet import Sheet
from tests.test_web_page import (  # noqa: F401  (fixtures: browser, server, sample_photo)
    CHROMIUM,
    DEFAULT_CARDS,
    ROOT,
    VIEWPORTS,
    browser,
    choose_cards,
    sample_photo,
    server,
)
from tests.test_web_player import save, tiny_png, upload, written_reading

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')"
)
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian's chromium is not installed (.ci/run installs it)"
)

#: Per language: the browser locale, and words the page must show after reading the sample photo.
EXPECTED = {
    "uk": ("uk-UA", "Підрахунок для Картографів", "Прочитано сторону A.", "Вартовий Ліс", "комір"),
    "es": ("es-ES", "Puntuador de Cartographers", "Lado A leído.", "Bosque Centinela", "casill"),
    "pt_BR": ("pt-BR", "Placar de Cartógrafos", "Lado A lido.", "Bosque Sentinela", "espaço"),
    "en": ("en-US", "Cartographers scorer", "Read side A.", "Sentinel Wood", "cell"),
}
#: The side read, over the map: its name as the rulebooks call it.
MAP_SIDE = {
    "uk": "сторона A · Дикі землі",
    "es": "lado A · Selva",
    "pt_BR": "lado A · Ermos",
    "en": "side A · Wilderness",
}


def open_page(browser, server, locale: str):
    context = browser.new_context(viewport=VIEWPORTS["phone"], locale=locale)
    pg = context.new_page()
    pg.viewport_name = "phone"
    pg.goto(server + "/")
    pg.wait_for_selector("body.ready")
    return context, pg


def read_sample(pg, sample_photo) -> None:
    choose_cards(pg)
    pg.set_input_files("#photo", str(sample_photo))
    pg.wait_for_selector("#overlay polygon", timeout=90_000)
    pg.wait_for_function(
        "document.querySelector('#total').textContent.trim() !== '–' "
        "&& !document.body.classList.contains('busy')",
        timeout=30_000,
    )


@pytest.mark.parametrize("language", sorted(EXPECTED))
def test_a_sample_photo_read_in_the_browsers_language(browser, server, sample_photo, language):
    locale, title, read, sentinel, cells = EXPECTED[language]
    context, pg = open_page(browser, server, locale)
    try:
        assert pg.locator("h1").inner_text() == title
        assert pg.locator("html").get_attribute("lang") == language.replace("_", "-")
        read_sample(pg, sample_photo)
        status = pg.locator("#status").inner_text()
        assert status.startswith(read)
        assert cells in status  # the cells to check, counted in words of this language
        # the reader's warning listing them, in this language too, is left to the map's marks
        assert not re.search(r"\b[A-K](1[01]|[1-9]) [A-K](1[01]|[1-9])\b", status), status
        assert pg.locator("#edict-A option:checked").inner_text() == sentinel
        assert pg.locator("#map-side").inner_text() == MAP_SIDE[language]
        assert sentinel in pg.locator("#score-rows").inner_text()
        if pg.locator("#check-cells").is_visible():
            assert cells in pg.locator("#check-cells").inner_text().lower()
        if language != "en":
            assert "Sentinel Wood" not in pg.locator("body").inner_text()
            assert "Score" not in pg.locator("#score-panel").inner_text()
        save(pg, f"result-{language}")
    finally:
        context.close()


def test_the_language_picker_changes_the_page_and_is_remembered(browser, server):
    context, pg = open_page(browser, server, "en-US")
    try:
        assert pg.locator("#score-title").inner_text() == "Score"
        pg.select_option("#language", "uk")
        pg.wait_for_function("() => document.documentElement.lang === 'uk'")
        assert pg.locator("#score-title").inner_text() == "Рахунок"
        choose_cards(pg, DEFAULT_CARDS)
        assert pg.locator("#edict-A option:checked").inner_text() == "Вартовий Ліс"
        pg.reload()
        pg.wait_for_selector("body.ready")
        assert pg.locator("#score-title").inner_text() == "Рахунок"  # kept on this device
        assert pg.locator("#language").input_value() == "uk"
        pg.select_option("#language", "en")
        pg.wait_for_function("() => document.documentElement.lang === 'en'")
        assert pg.locator("#score-title").inner_text() == "Score"
    finally:
        context.close()


def test_a_failed_upload_gets_its_tip_in_the_browsers_language(browser, server):
    context, pg = open_page(browser, server, "uk-UA")
    try:
        pg.set_input_files(
            "#photo", files=[{"name": "notes.txt", "mimeType": "text/plain", "buffer": b"hello"}]
        )
        pg.wait_for_selector("#status.error", timeout=30_000)
        assert pg.locator("#status").inner_text().startswith("Цей файл не є фото")
        assert "Подробиці:" in pg.locator("#status-detail").inner_text()
    finally:
        context.close()


def test_the_game_page_in_the_browsers_language(browser, server):
    context = browser.new_context(viewport=VIEWPORTS["phone"], locale="uk-UA")
    pg = context.new_page()
    try:
        pg.goto(server + "/static/game.html")
        pg.wait_for_selector("body.ready")
        assert pg.locator("h1").inner_text() == "Вести партію"
        assert pg.locator("#status").inner_text() == "Відкрийте партію або створіть нову."
        assert pg.locator("label[for=edict-A]").inner_text() == "Указ A"
        assert "Вартовий Ліс" in pg.locator("#edict-A").inner_text()
        assert pg.locator("#season option[value=winter]").inner_text() == "Зима"
        body = {"players": ["Ana", "Ben"], "side": "B", "cards": DEFAULT_CARDS}
        game = pg.request.post(server + "/v1/games", data=body).json()["id"]
        pg.goto(server + f"/static/game.html?id={game}")
        pg.wait_for_selector("body.ready")
        assert pg.locator("#game-label").inner_text() == f"({game}, сторона B)"
        assert pg.locator("#status").inner_text().startswith(f"Партія {game}: укази A Вартовий Ліс")
    finally:
        context.close()


def test_written_checks_in_ukrainian_mark_the_number_they_are_about(browser, server):
    """The checks come in the player's language, so the page finds the winter edict a check is
    about from the numbers, not from the words."""
    sheet = Sheet.from_json(json.loads((ROOT / "samples" / "typical-a.json").read_text()))
    winter = score_season(sheet, DEFAULT_CARDS, "winter")
    stars = [e.result.stars for e in winter.edicts]
    box = {"coins": winter.coins, "monsters": winter.monster_penalty, "total": winter.total + 2}
    seasons = [{"season": "winter", "edicts": [stars[0], stars[1] + 2], **box}]  # edict A off
    context, pg = open_page(browser, server, "uk-UA")
    try:
        pg.route(
            "**/v1/read", lambda route: route.fulfill(json=written_reading(sheet, seasons, None))
        )
        choose_cards(pg)
        upload(pg, "sheet.png", tiny_png())
        pg.wait_for_selector('#written-table input[data-written="winter.edict2"].off')
        assert pg.locator("#written-table input.off").count() == 1
        said = pg.locator("#written-checks li").all_inner_texts()
        assert said == [f"зима: указ A (Вартовий Ліс) дає {stars[1]} на цій мапі, записано "
                        f"{stars[1] + 2}"]  # fmt: skip
    finally:
        context.close()
