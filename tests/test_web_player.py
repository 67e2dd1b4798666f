"""The web page from a player's side, in Debian's Chromium at a phone's (375 × 812) and a desktop's
(1280 × 800) size: each test guards one friction players met.

- a failed upload must not leave the previous sheet's map, score or photo on screen, and says
  what to do next in a player's words, per error code;
- the cells the reader was unsure of are marked on the map grid itself (over the terrain icon),
  and "Check N cells" walks through them with a counter that goes down;
- no score until the four edict cards are chosen; the choice is remembered on the device;
- card names as printed, never slugs, on the main page and on the game page.

``CARTOGRAPHERS_SCREENSHOTS=1`` also saves every state (start, reading, result, picker, error,
game) as ``docs/screenshots/{phone,desktop}-<state>.png``; any other value is a docs folder whose
``screenshots/`` subfolder gets them.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from scoring.cards import CARDS
from scoring.report import score_report
from scoring.sheet import Sheet
from scoring.terrain import Terrain
from tests.test_web_page import (  # noqa: F401  (fixtures: browser, server, page, sample_photo)
    CHROMIUM,
    DEFAULT_CARDS,
    ROOT,
    VIEWPORTS,
    browser,
    choose_cards,
    correct_cell,
    page,
    sample_photo,
    server,
    wait_for_total,
)

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')"
)
Image = pytest.importorskip("PIL.Image")
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian's chromium is not installed (.ci/run installs it)"
)

BAD_RED = (179, 38, 30)  # --bad in app.css: the mark of a cell to check
SLUGS_NOT_NAMES = sorted(
    s for s, c in CARDS.items() if s != c.name
)  # every slug differs from its name


def screenshot_dir() -> Path | None:
    value = os.environ.get("CARTOGRAPHERS_SCREENSHOTS")
    if not value:
        return None
    out = ROOT / "docs" / "screenshots" if value == "1" else Path(value) / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    return out


def save(pg, state: str, full_page: bool = True) -> None:
    """Save the page as ``<viewport>-<state>.png`` (256
    colours: a few hundred kB at most) when asked to."""
    out = screenshot_dir()
    if out is None:
        return
    pg.wait_for_timeout(150)
    png = pg.screenshot(full_page=full_page, animations="disabled", caret="hide")
    image = (
        Image.open(io.BytesIO(png))
        .convert("RGB")
        .quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    )
    image.save(out / f"{pg.viewport_name}-{state}.png", optimize=True)


def assert_fits(pg) -> None:
    """Nothing wider than the screen; an open picker entirely on screen."""
    width = VIEWPORTS[pg.viewport_name]["width"]
    assert pg.evaluate("document.documentElement.scrollWidth") <= width
    if pg.locator("#picker").is_visible():
        box = pg.locator("#picker").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width
        assert box["y"] >= 0 and box["y"] + box["height"] <= VIEWPORTS[pg.viewport_name]["height"]


def visible_text(pg) -> str:
    return pg.evaluate("document.body.innerText")


def assert_no_slugs(pg) -> None:
    text = visible_text(pg)
    shown = [s for s in SLUGS_NOT_NAMES if s in text]
    assert shown == [], f"card slugs on screen: {shown}"


def assert_no_sheet_on_screen(pg) -> None:
    """No map, photo, score or verdict of an earlier sheet."""
    for panel in ("#map-panel", "#photo-panel", "#legal-panel", "#score-table", "#check-bar"):
        assert pg.locator(panel).is_hidden(), f"{panel} still shown"
    assert pg.locator("#map .cell").count() == 0
    assert pg.locator("#overlay polygon").count() == 0
    assert pg.locator("#total").inner_text().strip() == "–"


def tiny_png(width: int = 32, height: int = 32) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), (240, 230, 210)).save(buf, "PNG")
    return buf.getvalue()


def upload(pg, name: str, data: bytes, mime: str = "image/png") -> None:
    pg.set_input_files("#photo", files=[{"name": name, "mimeType": mime, "buffer": data}])


def fake_reading(sheet: Sheet, unsure: list[tuple[int, int]]) -> dict:
    """A /v1/read answer for ``sheet`` with ``unsure`` cells (no photo grid: the map only)."""
    j = sheet.to_json()
    return {
        "side": j["side"],
        "cells": j["cells"],
        "coins": j["coins"],
        "confidence": [[0.99] * 11] * 11,
        "coin_confidence": 0.99,
        "coin_probabilities": [],
        "coin_centres": [],
        "low_confidence_cells": [list(c) for c in unsure],
        "warnings": [f"{len(unsure)} cells to check"],
        "grid_corners": [],
        "cell_outlines": [],
        "photo_size": [32, 32],
        "orientation": 0,
        "seconds": 0.1,
    }


def red_edge_fraction(png: bytes) -> float:
    """The share of a cell's edge pixels (3 px deep) that are the to-check red."""
    img = Image.open(io.BytesIO(png)).convert("RGB")
    w, h = img.size
    px = img.load()
    edge = [(x, y) for x in range(w) for y in range(h) if min(x, y, w - 1 - x, h - 1 - y) < 3]
    near = sum(1 for p in edge if sum(abs(a - b) for a, b in zip(px[p], BAD_RED)) < 60)
    return near / len(edge)


def cell_sel(r: int, c: int) -> str:
    return f'#map .cell[data-r="{r}"][data-c="{c}"]'


# ---- a failed upload clears the previous result and says what to do ------------------------------
def test_a_failed_upload_clears_the_previous_result(page, tmp_path):
    choose_cards(page)
    page.click("#blank-a")
    correct_cell(page, (0, 0), "forest")
    wait_for_total(
        page,
        score_report(
            Sheet.blank("A").with_cells({(0, 0): Terrain.FOREST}), DEFAULT_CARDS, "spring"
        )["total"],
    )
    assert page.locator("#map-panel").is_visible()

    upload(page, "notes.txt", b"not a photo", "text/plain")
    page.wait_for_selector("#status.error")
    assert_no_sheet_on_screen(page)
    status = page.locator("#status").inner_text()
    assert "not a photo" in status and "JPEG or PNG" in status
    assert (
        "The score appears here once your sheet is read"
        in page.locator("#score-needs").inner_text()
    )
    assert_fits(page)

    upload(
        page, "thumb.png", tiny_png()
    )  # the reader's no-grid, for a photo too small to hold a map
    page.wait_for_selector("#status.error:has-text('too small')")
    assert "32 × 32 pixels" in page.locator("#status").inner_text()
    upload(page, "empty.jpg", b"", "image/jpeg")
    page.wait_for_selector("#status.error:has-text('empty')")
    assert_no_sheet_on_screen(page)


@pytest.mark.parametrize("page", ["phone"], indirect=True)
def test_each_error_code_gets_a_players_tip(page):
    """Every code /v1/read can answer has its own advice
    (the answers are stubbed: the words are the point)."""
    tips = {
        "no-grid": "No map grid found: photograph the whole sheet from above, flat, in even "
        "light, without glare, "
        "with the coin track in the frame.",
        "unreadable-photo": "retake it from straight above",
        "wrong-side": "other side of the sheet",
        "not-an-image": "not a photo",
        "empty-file": "That file is empty",
        "heic-unsupported": "HEIC",
        "too-many-pixels": "more pixels than this server accepts",
        "too-large": "too large for this server",
        "timeout": "took too long",
        "reader-unavailable": "start from a blank sheet",
        "internal-error": "report it with the code 0123abcd",
        # no tip of its own: the fallback
        "invalid-request": "The photo could not be read. Try again",
    }
    answer: dict = {}
    page.route(
        "**/v1/read",
        lambda route: route.fulfill(
            status=answer["status"],
            content_type="application/json",
            body=json.dumps(answer["body"]),
        ),
    )
    for code, tip in tips.items():
        answer.update(
            status=422,
            body={
                "code": code,
                "message": f"what the service says about {code}",
                **({"error_id": "0123abcd"} if code == "internal-error" else {}),
            },
        )
        upload(page, f"{code}.jpg", tiny_png())
        page.wait_for_selector(f"#status-detail:has-text('about {code}')")
        assert tip in page.locator("#status").inner_text(), code
        assert page.locator("#status.error").count() == 1
    page.unroute("**/v1/read")
    page.route("**/v1/read", lambda route: route.abort())  # the server went away
    upload(page, "offline.jpg", tiny_png())
    page.wait_for_selector("#status.error:has-text('could not be reached')")


# ---- cells to check: marked on the map, and a walkthrough ----------------------------------------
def test_unsure_cells_are_marked_on_the_map_and_checked_in_turn(page):
    sheet = Sheet.blank("A").with_cells(
        {
            (0, 0): Terrain.FOREST,
            (2, 2): Terrain.FOREST,
            (4, 7): Terrain.VILLAGE,
            (8, 7): Terrain.FARM,
        },
        coins=2,
    )
    unsure = [(8, 7), (2, 2), (1, 3), (4, 7)]  # B4 is a printed mountain: nothing to check there
    page.route("**/v1/read", lambda route: route.fulfill(json=fake_reading(sheet, unsure)))
    choose_cards(page)
    upload(page, "sheet.png", tiny_png())
    page.wait_for_selector("#map .cell")

    # Marked on the grid itself, over the terrain icon: C3
    # (forest, unsure) is ringed in red, A1 (forest) is not.
    marked = {
        (int(e.get_attribute("data-r")), int(e.get_attribute("data-c")))
        for e in page.locator("#map .cell.unsure").all()
    }
    assert marked == {(2, 2), (4, 7), (8, 7)}
    assert "to check" in page.locator(cell_sel(2, 2)).get_attribute("aria-label")
    assert red_edge_fraction(page.locator(cell_sel(2, 2)).screenshot()) > 0.5
    assert red_edge_fraction(page.locator(cell_sel(0, 0)).screenshot()) < 0.1
    assert page.locator("#check-count").inner_text() == "3"
    assert page.locator("#check-cells").inner_text() == "Check 3 cells"

    page.click("#check-cells")  # C3, E8, I8 in reading order
    page.wait_for_selector("#picker:not([hidden])")
    assert "C3" in page.locator("#picker-title").inner_text()
    assert page.locator(cell_sel(2, 2)).get_attribute("class").split().count("picking") == 1
    assert page.locator("#picker-count").inner_text() == "3 cells left to check"
    assert_fits(page)

    page.click("#picker-next")  # C3 is right as read
    assert "E8" in page.locator("#picker-title").inner_text()
    assert page.locator("#check-count").inner_text() == "2"
    assert "unsure" not in page.locator(cell_sel(2, 2)).get_attribute("class")

    page.click('#picker .pick[data-terrain="water"]')  # E8 was water, not a village
    page.wait_for_selector(f'{cell_sel(4, 7)}[data-terrain="water"]')
    assert "I8" in page.locator("#picker-title").inner_text()
    assert page.locator("#picker-count").inner_text() == "1 cell left to check"
    wait_for_total(
        page,
        score_report(sheet.with_cells({(4, 7): Terrain.WATER}), DEFAULT_CARDS, "spring")["total"],
    )

    page.click("#picker-done")  # stop for now: I8 stays marked
    assert page.locator("#picker").is_hidden()
    assert page.locator("#check-cells").inner_text() == "Check 1 cell"
    assert page.locator("#map .cell.unsure").count() == 1

    page.click(cell_sel(8, 7))  # tapping the cell itself and keeping its terrain confirms it too
    page.click('#picker .pick[data-terrain="farm"]')
    assert page.locator("#map .cell.unsure").count() == 0
    assert page.locator("#check-cells").is_hidden()
    assert "All 3 unsure cells checked" in page.locator("#check-text").inner_text()


# ---- no score until the four edicts are chosen; the choice is remembered -------------------------
def test_no_score_until_the_four_edicts_are_chosen(page):
    for edict in "ABCD":
        assert page.locator(f"#edict-{edict}").input_value() == ""
        assert page.locator(f"#edict-{edict} option:checked").inner_text() == "choose a card"
    needs = page.locator("#score-needs")
    assert needs.inner_text() == "Choose the four edict cards to see the score."
    page.click("#blank-a")
    page.wait_for_selector("#map .cell")
    for edict, slug in zip("ABC", DEFAULT_CARDS):
        page.select_option(f"#edict-{edict}", slug)
        assert (
            needs.is_visible()
            and "Choose the four edict cards to see the score" in needs.inner_text()
        )
        assert page.locator("#score-table").is_hidden()
        assert page.locator("#total").inner_text().strip() == "–"
    assert "edict D still to choose" in needs.inner_text()
    assert not [u for u in page.requested if "/v1/score-map" in u]  # nothing was scored yet
    page.select_option("#edict-D", DEFAULT_CARDS[0])  # the same card twice cannot be a setup
    page.wait_for_selector("#score-needs:has-text('chosen twice')")
    assert "Sentinel Wood is chosen twice" in needs.inner_text()
    assert page.locator("#score-table").is_hidden()
    page.select_option("#edict-D", DEFAULT_CARDS[3])
    wait_for_total(page, score_report(Sheet.blank("A"), DEFAULT_CARDS, "spring")["total"])
    assert needs.is_hidden() and page.locator("#score-table").is_visible()


def test_the_chosen_edicts_are_restored_after_a_reload(page):
    cards = ["treetower", "golden-granary", "great-city", "cauldrons"]
    choose_cards(page, cards)
    page.select_option("#season", "fall")
    page.reload()
    page.wait_for_selector("body.ready")
    assert [page.locator(f"#edict-{e}").input_value() for e in "ABCD"] == cards
    assert page.locator("#season").input_value() == "fall"
    page.click("#blank-b")
    wait_for_total(page, score_report(Sheet.blank("B"), cards, "fall")["total"])
    assert "The Golden Granary" in page.locator("#score-rows").inner_text()


# ---- names, not slugs ------------------------------------------------------------------------
def test_card_names_not_slugs_on_the_main_page(page):
    names = {c.name for c in CARDS.values()}
    options = page.locator("#edict-A option").all_inner_texts()
    assert set(options) == names | {"choose a card"} and len(options) == 17
    cards = ["sentinel-wood", "golden-granary", "shieldgate", "broken-road"]
    choose_cards(page, cards)
    page.select_option("#season", "")  # all four seasons: every card's row counts
    page.click("#blank-a")
    correct_cell(page, (0, 0), "forest")
    page.wait_for_selector("#score-rows tr[data-row='golden-granary']")
    rows = page.locator("#score-rows").inner_text()
    for slug in cards:
        assert CARDS[slug].name in rows
    page.click("tr[data-row='broken-road']")
    assert page.locator("#evidence h3").inner_text() == "The Broken Road"
    assert_no_slugs(page)


def test_game_page_shows_card_names(page, server):
    cards = ["stoneside-forest", "golden-granary", "greengold-plains", "lost-barony"]
    page.goto(server + "/static/game.html")
    page.wait_for_selector("body.ready")
    for edict in "ABCD":  # every card can lie under any edict; none is chosen for the player
        assert page.locator(f"#edict-{edict}").input_value() == ""
        assert page.locator(f"#edict-{edict} option").count() == 17
    page.fill("#name", f"Table {page.viewport_name}")
    page.fill("#players", "Ana\nBen\nCaz")
    choose_cards(page, cards)
    page.click("#create button[type=submit]")
    page.wait_for_selector("#status.ok")
    status = page.locator("#status").inner_text()
    assert all(CARDS[s].name in status for s in cards), status
    page.select_option("#player", "Ana")
    page.set_input_files("#sheet-file", str(ROOT / "samples" / "typical-a.json"))
    page.wait_for_selector("#upload-status.ok", timeout=30_000)
    result = page.locator("#upload-status").inner_text()
    assert "Stoneside Forest" in result and "The Golden Granary" in result
    page.wait_for_selector("#standings table")
    assert_no_slugs(page)
    assert_fits(page)
    save(page, "game")


# ---- every state with the real reader, at both sizes ---------------------------------------------
def test_every_state_with_a_real_photo(page, server, sample_photo):
    """start → reading → result → checking a cell → a failed upload; each fits the screen."""
    assert_fits(page)
    save(page, "start")

    held = []
    page.route("**/v1/read", lambda route: held.append(route))
    choose_cards(page)
    page.set_input_files("#photo", str(sample_photo))
    page.wait_for_selector("body.reading")
    for _ in range(100):  # the held request reaches the route handler
        if held:
            break
        page.wait_for_timeout(20)
    assert held, "the photo upload never reached /v1/read"
    assert page.locator("#reading-progress").is_visible()
    assert "Reading typical-a.jpg" in page.locator("#status").inner_text()
    assert_no_sheet_on_screen(page)
    assert_fits(page)
    save(page, "reading")
    held[0].continue_()
    page.unroute("**/v1/read")

    page.wait_for_selector("#overlay polygon", timeout=90_000)
    page.wait_for_function(
        "document.querySelector('#total').textContent.trim() !== '–' "
        "&& !document.body.classList.contains('busy')",
        timeout=30_000,
    )
    assert page.locator("#reading-progress").is_hidden()
    assert_fits(page)
    save(page, "result")

    if page.locator("#check-cells").is_visible():
        page.click("#check-cells")
    else:  # this reading had no unsure cell: the picker of an ordinary cell
        page.click("#map .cell:not([disabled])")
    page.wait_for_selector("#picker:not([hidden])")
    assert page.locator("#map .cell.picking").count() == 1
    assert page.locator("#overlay polygon.picking").count() == 1  # the same cell on the photo
    assert page.locator("#picker-photo svg.closeup").count() in (0, 1)
    assert_fits(page)
    save(page, "picker", full_page=False)
    page.keyboard.press("Escape")

    # A photo without a sheet: the reader's real no-grid; the earlier photo's result must go.
    buf = io.BytesIO()
    Image.new("RGB", (640, 480), (200, 190, 170)).save(buf, "JPEG")
    upload(page, "table.jpg", buf.getvalue(), "image/jpeg")
    page.wait_for_selector("#status.error", timeout=60_000)
    assert (
        page.locator("#status")
        .inner_text()
        .startswith("No map grid found: photograph the whole sheet from above")
    )
    assert_no_sheet_on_screen(page)
    assert [
        page.locator(f"#edict-{e}").input_value() for e in "ABCD"
    ] == DEFAULT_CARDS  # the choice stays
    assert_fits(page)
    save(page, "error")


def test_reading_api_is_what_the_page_stubs():
    """The stubbed /v1/read answers above have the keys of the real one (api.schemas.Reading)."""
    from api.schemas import Reading

    required = {name for name, f in Reading.model_fields.items() if f.is_required()}
    assert required <= set(fake_reading(Sheet.blank("A"), [(0, 0)]))


# ---- the numbers written on the sheet: checked, marked, corrected by tap ------------------------
def written_reading(sheet: Sheet, seasons: list[dict], final: int | None) -> dict:
    """A /v1/read answer carrying written numbers, as the reader gives them."""
    from api.written_view import written_fields
    from scoring.written import WrittenScores

    read = WrittenScores.from_json({"seasons_written": seasons, "final_total_written": final})
    numbers = WrittenScores(read.seasons, read.final_total, {"fall.coins": 0.55, "final": 0.97})
    return {**fake_reading(sheet, []), **written_fields(numbers, sheet, None)}


def test_a_written_mistake_is_marked_and_clears_when_corrected(page):
    from scoring.seasons import score_season
    from scoring.written import WrittenScores
    from scoring.written_checks import check_written

    sheet = Sheet.from_json(json.loads((ROOT / "samples" / "typical-a.json").read_text()))
    winter = score_season(sheet, DEFAULT_CARDS, "winter")
    seasons = [
        {
            "season": "spring",
            "edicts": [4, 1],
            "coins": 2,
            "monsters": 3,
            "total": 4,
        },  # 4 + 1 + 2 − 3
        {"season": "summer", "edicts": [2, 3], "coins": 3, "monsters": 4, "total": 4},
        {"season": "fall", "edicts": [5, 0], "coins": 4, "monsters": 6, "total": 3},
        {
            "season": "winter",
            "edicts": [e.result.stars for e in winter.edicts],
            "coins": winter.coins,
            "monsters": winter.monster_penalty,
            "total": winter.total,
        },
    ]
    final = sum(s["total"] for s in seasons)
    seasons[0]["edicts"] = [6, 1]  # the player's slip: spring's first edict says 6, the sum used 4
    expected = check_written(
        WrittenScores.from_json({"seasons_written": seasons, "final_total_written": final}),
        sheet,
        DEFAULT_CARDS,
    )
    assert [c.code for c in expected] == ["season-sum"]

    page.route(
        "**/v1/read", lambda route: route.fulfill(json=written_reading(sheet, seasons, final))
    )
    choose_cards(page)
    upload(page, "sheet.png", tiny_png())
    page.wait_for_selector("#written-panel:not([hidden])")
    spring_total = page.locator('#written-table input[data-written="spring.total"]')
    page.wait_for_selector('#written-table input[data-written="spring.total"].off')
    assert page.locator("#written-checks li").all_inner_texts() == [expected[0].message]
    assert page.locator("#written-table input.off").count() == 1
    assert spring_total.input_value() == "4"
    assert page.locator('#written-table input[data-written="final"]').input_value() == str(final)
    ours = page.locator("#winter-on-map td").all_inner_texts()  # winter on the map, beside it
    assert ours[-1] == str(winter.total)
    assert page.locator("#checked-total").inner_text() == str(final)  # winter written = the map's
    fall_coins = page.locator('#written-table input[data-written="fall.coins"]')
    assert page.locator("#written-table input.unsure").count() == 1  # read at 0.55
    assert "unsure" in fall_coins.get_attribute("class")
    assert "hard to read" in page.locator("#written-verdict").inner_text()
    assert_fits(page)
    save(page, "written-check")
    fall_coins.fill("4")  # confirmed by the player: no longer dashed
    fall_coins.press("Tab")
    page.wait_for_selector("#written-table input.unsure", state="detached")

    first_edict = page.locator('#written-table input[data-written="spring.edict1"]')
    first_edict.fill("4")  # tap the number, type what the sheet really says
    first_edict.press("Tab")
    page.wait_for_selector("#written-checks li", state="detached")
    assert page.locator("#written-table input.off").count() == 0
    assert "add up" in page.locator("#written-verdict").inner_text()

    first_edict.fill("9")  # and a new slip is found again, through the service
    first_edict.press("Tab")
    page.wait_for_selector('#written-table input[data-written="spring.total"].off')
    assert "4 + " not in page.locator("#written-checks").inner_text()
    assert "9 + 1 + 2 − 3 is 9, written 4" in page.locator("#written-checks").inner_text()


@pytest.mark.parametrize("page", ["phone"], indirect=True)
def test_written_numbers_typed_on_a_blank_sheet_are_checked_without_cards(page):
    page.click("#blank-b")  # no cards chosen: the checks that need none
    page.wait_for_selector("#written-panel:not([hidden])")
    assert "Nothing written yet" in page.locator("#written-verdict").inner_text()
    for part, value in (("edict1", "3"), ("edict2", "2"), ("coins", "1"), ("total", "7")):
        box = page.locator(f'#written-table input[data-written="summer.{part}"]')
        box.fill(value)
        box.press("Tab")
    page.wait_for_selector('#written-table input[data-written="summer.total"].off')
    texts = page.locator("#written-checks li").all_inner_texts()
    assert texts[0] == "summer: 3 + 2 + 1 − 0 is 6, written 7 (blank monsters counted as 0)"
    # a blank side B has no coins: one coin written in summer is more than the map ever had
    assert "summer: 1 coin written, more than the 0 on the map at the game's end" in texts[1]
    assert page.locator("#checked-total").inner_text() == "–"  # no cards: winter unknown
    assert page.locator("#winter-on-map").is_hidden()
    assert_fits(page)
