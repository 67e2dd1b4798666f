"""When the printed mountain glyph alone settles side, turn and shift — and when it must not."""

from __future__ import annotations

import numpy as np
import pytest

from tests.test_vision_grid import _true_turn, warped_sheet
from vision import grid, orient


def washed_cells(side: str, quarter_turns: int, seed: int) -> tuple[np.ndarray, int]:
    """The found cell area of a warped render with glare over it (every pixel lifted towards white,
    so no mountain is "dark"), and the quarter turns that make it upright."""
    photo, truth = warped_sheet(side, quarter_turns, seed=seed)
    fit = grid.fit_grid(photo)
    assert fit is not None
    cells = grid.sample_cells(photo, fit)
    return (cells.astype(np.float32) * 0.4 + 150).astype(np.uint8), _true_turn(fit, truth)


@pytest.mark.parametrize("side, quarter_turns", [("A", 1), ("B", 2)])
def test_a_clear_glyph_settles_washed_out_mountains(side: str, quarter_turns: int) -> None:
    """Dev photos read right were flagged whole because their mountains looked washed out
    (50700028, 036, 078, ...): the glyph is sure there, so the sheet is not in doubt."""
    washed, k_true = washed_cells(side, quarter_turns, seed=200 + quarter_turns)
    dark = orient.mountain_darkness(washed, grid.PX)
    decided, _ = orient.decide_orientation(dark, None, [0.0] * 4, washed)
    assert (decided.side, decided.quarter_turns) == (side, k_true)
    assert (
        decided.separation < orient.MIN_SEPARATION and decided.shift_margin <= 0
    )  # darkness alone doubts
    assert decided.glyph_sure
    assert not decided.mountains_unclear and not decided.may_be_shifted and not decided.in_doubt


@pytest.mark.parametrize("dr, dc", [(0, 1), (-1, 0), (1, -1)])
def test_a_one_cell_shift_is_never_settled_by_the_glyph(dr: int, dc: int) -> None:
    """A grid placed a cell off sees the true mountains on a shifted layout: the glyph must not
    vouch for it, so the sheet stays flagged whole — and it tells the true side, turn and shift
    (under glare such grids were read as the other side: 8 of 9 photos a cell off)."""
    washed, k_true = washed_cells("A", 0, seed=210)
    px = grid.PX
    upright = np.rot90(washed, k_true)
    shifted = np.roll(upright, (dr * px, dc * px), axis=(0, 1))
    ncc = orient.glyph_correlations(shifted, px)
    assert not orient.glyph_sure(ncc, "A", 0)
    assert orient.glyph_sure(orient.glyph_correlations(upright, px), "A", 0)
    dark = orient.mountain_darkness(shifted, px)
    decided, _ = orient.decide_orientation(dark, None, [0.0] * 4, shifted)
    assert not decided.glyph_sure and decided.in_doubt and decided.may_be_shifted
    assert (decided.side, decided.quarter_turns, decided.glyph_shift) == ("A", 0, (dr, dc))
    assert orient.glyph_shift(orient.glyph_correlations(upright, px)) is None


def test_a_stated_wrong_side_is_not_settled_by_the_glyph() -> None:
    """The user says B, the glyph shows A's mountains: the reading of side B is not made sure."""
    washed, _ = washed_cells("A", 3, seed=220)
    decided, _ = orient.decide_orientation(
        orient.mountain_darkness(washed, grid.PX), "B", [0.0] * 4, washed
    )
    assert decided.side == "B" and not decided.glyph_sure and decided.in_doubt
