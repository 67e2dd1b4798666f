"""The web page in a real browser: Playwright drives Debian's Chromium against ``cartographers
serve`` on 127.0.0.1, at a phone's and a desktop's size.

Expected scores are computed with ``scoring`` (and the photo's with the real reader), never
written in. ``tests/test_web_player.py`` walks every state of the page and, with
``CARTOGRAPHERS_SCREENSHOTS=1``, saves each under ``docs/screenshots/``.

The page's edict pickers start empty: each test chooses its four cards (:func:`choose_cards`).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from scoring.cards import CARDS
from scoring.report import score_report
from scoring.sheet import Sheet
from scoring.terrain import Terrain
from scoring.validate import validate
from vision import read_photo

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ROOT = Path(__file__).resolve().parents[1]
VIEWPORTS = {"phone": {"width": 375, "height": 812}, "desktop": {"width": 1280, "height": 800}}
DEFAULT_CARDS = [
    "sentinel-wood",
    "canal-lake",
    "wildholds",
    "borderlands",
]  # the cards most tests choose

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')"
)
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian's chromium is not installed (.ci/run installs it)"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """``cartographers serve`` on a free port of 127.0.0.1,
    for this module's tests (games in a fresh database)."""
    port = free_port()
    database = tmp_path_factory.mktemp("games") / "games.sqlite3"
    env = {**os.environ, "CARTOGRAPHERS_DATABASE_URL": f"sqlite:///{database}"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "api.cli",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        else:
            pytest.fail("cartographers serve did not answer /health within 20 s")
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(params=sorted(VIEWPORTS))
def page(request, browser, server):
    """A fresh page at one viewport size that records every URL it asks for."""
    context = browser.new_context(viewport=VIEWPORTS[request.param])
    pg = context.new_page()
    pg.requested = []
    pg.on("request", lambda r: pg.requested.append(r.url))
    pg.viewport_name = request.param
    pg.goto(server + "/")
    pg.wait_for_selector("body.ready")
    yield pg
    context.close()


def total_text(pg) -> str:
    return pg.locator("#total").inner_text().strip()


def wait_for_total(pg, expected: int) -> None:
    pg.wait_for_function(
        "t => document.querySelector('#total').textContent.trim() === String(t) "
        "&& !document.body.classList.contains('busy')",
        arg=expected,
        timeout=30_000,
    )


def choose_cards(pg, cards=DEFAULT_CARDS) -> None:
    """Choose the four edict cards (A, B, C, D) in the page's pickers."""
    for edict, slug in zip("ABCD", cards):
        pg.select_option(f"#edict-{edict}", slug)


def correct_cell(pg, cell: tuple[int, int], terrain: str) -> None:
    pg.click(f'#map .cell[data-r="{cell[0]}"][data-c="{cell[1]}"]')
    pg.click(f'#picker .pick[data-terrain="{terrain}"]')
    pg.wait_for_selector(
        f'#map .cell[data-r="{cell[0]}"][data-c="{cell[1]}"][data-terrain="{terrain}"]'
    )


def test_blank_sheet_then_a_correction_updates_the_score(page, server):
    choose_cards(page)
    page.click("#blank-a")
    page.wait_for_selector("#map .cell")
    assert page.locator("#map .cell").count() == 121
    blank = Sheet.blank("A")
    wait_for_total(page, score_report(blank, DEFAULT_CARDS, "spring")["total"])
    corrected = blank.with_cells({(0, 0): Terrain.FOREST, (0, 1): Terrain.FOREST})
    correct_cell(page, (0, 0), "forest")
    correct_cell(page, (0, 1), "forest")
    expected = score_report(corrected, DEFAULT_CARDS, "spring")
    wait_for_total(page, expected["total"])
    stars = page.locator('tr[data-row="sentinel-wood"] td.num').inner_text()
    assert int(stars) == expected["cards"]["sentinel-wood"]
    verdict = validate(corrected, time_limit=5.0).to_json()["verdict"]
    page.wait_for_selector(f"#verdict.{verdict}", timeout=30_000)


def test_selecting_a_card_row_lights_its_evidence_cells(page):
    choose_cards(page)
    page.click("#blank-b")
    page.wait_for_selector("#map .cell")
    sheet = Sheet.blank("B").with_cells(
        {(0, 0): Terrain.FOREST, (0, 5): Terrain.FOREST, (3, 3): Terrain.FOREST}
    )
    for cell in ((0, 0), (0, 5), (3, 3)):
        correct_cell(page, cell, "forest")
    wait_for_total(page, score_report(sheet, DEFAULT_CARDS, "spring")["total"])
    page.click('tr[data-row="sentinel-wood"]')
    evidence = score_report(sheet, DEFAULT_CARDS)["evidence"]["sentinel-wood"]
    lit = {
        (int(e.get_attribute("data-r")), int(e.get_attribute("data-c")))
        for e in page.locator("#map .cell.lit").all()
    }
    assert lit == {tuple(c) for e in evidence for c in e["cells"]}
    assert page.locator("#evidence li").count() == len(evidence)
    page.click('tr[data-row="sentinel-wood"]')  # a second tap clears the highlight
    assert page.locator("#map .cell.lit").count() == 0


def test_season_and_cards_change_the_score(page):
    page.click("#blank-a")
    page.wait_for_selector("#map .cell")
    for cell in ((1, 2), (1, 4), (0, 3), (2, 3)):  # four farms around the B4 mountain
        correct_cell(page, cell, "farm")
    sheet = Sheet.blank("A").with_cells({c: Terrain.FARM for c in ((1, 2), (1, 4), (0, 3), (2, 3))})
    cards = ["greenbough", "mages-valley", "wildholds", "borderlands"]
    choose_cards(page, cards)
    page.select_option("#season", "summer")
    wait_for_total(page, score_report(sheet, cards, "summer")["total"])
    assert CARDS["mages-valley"].name in page.locator("#score-rows").inner_text()


def test_page_fits_the_screen_is_labelled_and_stays_local(page, server):
    page.click("#blank-a")
    page.wait_for_selector("#map .cell")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= VIEWPORTS[page.viewport_name]["width"]
    unnamed = page.evaluate("""() => [...document.querySelectorAll(
            'button, select, input, [role=gridcell]')]
        .filter(e => !(e.getAttribute('aria-label') || e.labels?.length || e.textContent.trim()))
        .map(e => e.outerHTML.slice(0, 80))""")
    assert unnamed == []
    box = page.locator('#map .cell[data-r="5"][data-c="0"]').bounding_box()
    assert box["width"] >= 24  # a fingertip can hit a cell at 375 px
    assert all(
        url.startswith(server) or url.startswith(("data:", "blob:")) for url in page.requested
    )


def test_a_file_that_is_not_a_photo_is_explained(page, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("not a photo")
    page.set_input_files("#photo", str(notes))
    page.wait_for_selector("#status.error")
    assert "not a photo" in page.locator("#status").inner_text()
    assert "JPEG" in page.locator("#status").inner_text()
    assert (
        "not an image" in page.locator("#status-detail").inner_text()
    )  # the service's own words, below
    assert page.locator("#map-panel").is_hidden()


# ---- with a photo: the real reader ------------------------------------------------------------
@pytest.fixture(scope="module")
def sample_photo() -> Path:
    """The sample phone photo of a filled-in side A sheet."""
    return ROOT / "samples" / "typical-a.jpg"


def test_photo_is_read_drawn_scored_and_corrected(page, server, sample_photo):
    path = sample_photo
    reading = read_photo(path.read_bytes())
    choose_cards(page)
    page.set_input_files("#photo", str(path))
    page.wait_for_selector("#overlay polygon", timeout=90_000)
    assert page.locator("#overlay polygon").count() == 121
    assert page.locator("#overlay image").count() == 1  # the photo itself, under the grid
    assert page.locator("#map .cell").count() == 121
    assert (
        page.locator("#overlay circle.coin-ring").count() == 14
    )  # where the reader looked for the coins
    assert page.locator("#overlay circle.coin-ring.counted").count() == min(reading.coins, 14)
    expected = score_report(reading.sheet, DEFAULT_CARDS, "spring")
    wait_for_total(page, expected["total"])

    # Correct the first empty edge cell to forest: Sentinel Wood gains exactly one star.
    cell = next(
        (r, c)
        for r in range(11)
        for c in range(11)
        if (r in (0, 10) or c in (0, 10)) and reading.sheet.cells[r][c] is Terrain.EMPTY
    )
    corrected = reading.sheet.with_cells({cell: Terrain.FOREST})
    after = score_report(corrected, DEFAULT_CARDS, "spring")
    assert after["cards"]["sentinel-wood"] == expected["cards"]["sentinel-wood"] + 1
    correct_cell(page, cell, "forest")
    wait_for_total(page, after["total"])
    assert page.locator(f'#overlay polygon[data-r="{cell[0]}"][data-c="{cell[1]}"]').count() == 1

    page.click('tr[data-row="sentinel-wood"]')
