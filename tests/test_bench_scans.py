"""The benchmark on other printings (``bench-vision --art DIR``): preparing scans, drawing them into
photos, and the figures per printing. Our own rendered sheets stand in for a scan here; the
publisher's files are used only where ``CARTOGRAPHERS_ART`` names a folder holding them."""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.bench_scans import flat_grid_corners, prepare_scans, printed_side, run_scan_benchmark
from vision.synth import render_sheet
from vision.synth.pages import scanned_sheet

PX_PER_U = 40


def page_of_two(side: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A landscape page with two of our ``side`` sheets
    side by side, and the left one's true corners."""
    sheet = render_sheet(side, px_per_u=PX_PER_U, rng=np.random.default_rng(seed))
    img = np.where(sheet.alpha[..., None] > 127, sheet.image, 255).astype(np.uint8)
    h, w = img.shape[:2]
    page = np.full((h + 40, 2 * w + 80, 3), 255, np.uint8)
    page[20 : 20 + h, 20 : 20 + w] = img
    page[20 : 20 + h, w + 60 : 2 * w + 60] = img
    x0, y0 = sheet.to_px(0.0, 0.0)
    corners = np.array([[0, 0], [11, 0], [11, 11], [0, 11]], float) * PX_PER_U + [x0 + 20, y0 + 20]
    return page, corners


@pytest.fixture(scope="module")
def art(tmp_path_factory) -> tuple[Path, np.ndarray]:
    folder = tmp_path_factory.mktemp("art")
    for side, seed in (("A", 1), ("B", 2)):
        page, corners = page_of_two(side, seed)
        cv2.imwrite(str(folder / f"page-{side}.png"), page)
    return folder, corners


def test_every_sheet_of_every_page_is_found_with_its_side_and_printing(art) -> None:
    folder, corners = art
    sheets = prepare_scans(folder, log=lambda _: None)
    assert sorted(s["side"] for s in sheets) == ["A", "A", "B", "B"]
    assert {s["printing"] for s in sheets} == {"colour"}
    left_a = next(s for s in sheets if s["side"] == "A" and s["file"].endswith("-0.png"))
    assert np.abs(np.array(left_a["corners_px"]) - corners).max() < 0.1 * PX_PER_U
    assert (folder / ".scans" / "scans.json").exists()  # prepared once, then reused
    assert prepare_scans(folder, log=lambda _: None) == sheets


def test_solid_lines_are_located_on_a_flat_scan() -> None:
    """Twelve solid lines each way (the printer-friendly
    sheet's kind), with longer page lines around."""
    page = np.full((900, 700, 3), 255, np.uint8)
    cv2.rectangle(
        page, (10, 10), (690, 890), (0, 0, 0), 2
    )  # a page border: long lines, not the grid's
    for i in range(12):
        cv2.line(page, (100 + 45 * i, 200), (100 + 45 * i, 695), (30, 30, 30), 2)
        cv2.line(page, (100, 200 + 45 * i), (595, 200 + 45 * i), (30, 30, 30), 2)
    corners = flat_grid_corners(page)
    assert corners is not None
    assert np.abs(corners - [[100, 200], [595, 200], [595, 695], [100, 695]]).max() <= 1.0


@pytest.mark.parametrize("side", ["A", "B"])
def test_a_scan_redrawn_keeps_its_grid_where_the_layout_puts_it(side) -> None:
    page, corners = page_of_two(side, 3)
    scan = scanned_sheet(page, corners, side, "ours")
    assert printed_side(page, corners) == side
    drawn = scan.render(side, 20.0, "print", np.random.default_rng(0))
    # the cell area's corners land where the layout says, at the new resolution
    for x_u, y_u in ((0, 0), (11, 11)):
        x, y = (int(round(v)) for v in drawn.to_px(x_u + 0.5, y_u - 0.5 if y_u else y_u + 0.5))
        assert drawn.alpha[y, x] == 255
    assert drawn.image.shape[1] == round(12.9 * 20)
    with pytest.raises(ValueError, match="shows side"):
        scan.render("B" if side == "A" else "A", 20.0, "print", np.random.default_rng(0))


def test_the_benchmark_photographs_and_reads_each_printing(art, tmp_path) -> None:
    folder, _ = art
    res = run_scan_benchmark(
        folder, 2, seed=3, workers=1, log=lambda _: None, photo_dir=str(tmp_path)
    )
    assert res["groups"]["all"]["all"]["photos"] == 2
    assert set(res["groups"]["printing and side"]) <= {"colour A", "colour B"}
    by_mark = res["groups"]["printing and coin mark"]  # each photo in the group of its coin marks
    assert sum(row["photos"] for row in by_mark.values()) == 2
    assert {p["coin_mark"] for p in res["photos"]} == {k.split(", ")[1] for k in by_mark}
    found = [p for p in res["photos"] if p.get("side")]
    assert found and all(p["side"] == p["true_side"] for p in found)  # our own printing reads right


ART = os.environ.get("CARTOGRAPHERS_ART")


@pytest.mark.skipif(
    not ART or not Path(ART).is_dir(), reason="CARTOGRAPHERS_ART names no folder of printed sheets"
)
def test_the_publishers_sheets_are_prepared_both_printings_and_sides() -> None:
    sheets = prepare_scans(ART, log=lambda _: None)
    kinds = {(s["printing"], s["side"]) for s in sheets}
    assert kinds == {
        ("colour", "A"),
        ("colour", "B"),
        ("printer-friendly", "A"),
        ("printer-friendly", "B"),
    }


def found_photo(**figures) -> dict:
    """One benchmark result of a photo read on the right side, the grid in place, ``figures``
    replacing its cells and coins."""
    return {
        "side": "A",
        "true_side": "A",
        "grid_median_error_u": 0.0,
        "grid_error_u": 0.0,
        "cells": [("empty", "empty", False, 1.0)],
        "coins": 0,
        "true_coins": 0,
        "score_exact": [True],
        **figures,
    }


def test_the_tally_splits_the_ruins_cells_from_the_rest() -> None:
    """The ruins figure counts only the ruins cells; the rest of the cells keep theirs."""
    from vision.bench import Tally

    tally = Tally()
    cells = [("empty", "empty", False, 1.0)] * 90 + [("empty", "farm", True, 0.4)] * 10
    # four of the six ruins among the ten wrong cells
    tally.add(found_photo(cells=cells, ruins_cells=(6, 2)))
    row = tally.row()
    assert row["cell_accuracy"] == pytest.approx(0.90)
    assert row["ruins_accuracy"] == pytest.approx(2 / 6)
    assert row["other_cell_accuracy"] == pytest.approx(88 / 94)


@pytest.mark.parametrize("count,confidence,flagged", [(3, 0.95, 0.0), (3, 0.5, 1.0), (2, 0.5, 0.0)])
def test_a_wrong_coin_count_is_counted_flagged_only_when_warned_about(
    count, confidence, flagged
) -> None:
    from vision.bench import Tally

    tally = Tally()
    tally.add(found_photo(coins=count, true_coins=2, coin_confidence=confidence))
    assert tally.row()["wrong_coins_flagged"] == flagged
    assert tally.row()["coins_exact"] == (count == 2)
