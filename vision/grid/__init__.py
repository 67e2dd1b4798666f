"""Finding the printed 11 × 11 grid in a photo, rectifying it, and following curled paper.

The stages, in the order a photo meets them (docs/printed-sheet.md, "Layout"):

1. Outlines (:mod:`vision.grid.quads`, :mod:`vision.grid.segments`): quadrilaterals of the dark
   printed frame, of merged contours and the paper, and of the photo's long straight segments,
   each as u → photo homographies.
2. Pre-check and checks (:mod:`vision.grid.profiles`): an outline re-anchored on the dashed lines'
   profile; a refined lattice's line score and its five printed mountains.
3. Candidates (:mod:`vision.grid.candidates`): each hypothesis refined locally and checked; the
   user's sheet chosen among those that pass.
4. Search (:mod:`vision.grid.search`): the passes of :data:`GRID_PASSES`, cheapest first, ending
   with the rescues of refused lattices, on thin lines and by the mountains' likeness
   (:mod:`vision.grid.rescue`, :mod:`vision.grid.linefit`).
5. Finish (:mod:`vision.grid.finish`): the 144 crossings snapped at full resolution and made a
   smooth field (:mod:`vision.grid.snap`), each with a doubt, corrected where in doubt.

Coordinates: photo points are (x, y) pixels of the decoded image; canonical points are grid
units ``u`` (origin top-left of the cell area, vision.layout). The tuning of every stage is a
:class:`GridTuning`; the lattice's geometry and sampling live in :mod:`vision.lattice` and are
importable here too.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vision.grid.candidates import Candidate
from vision.grid.finish import cells_away, finish_grid, shifted_fit
from vision.grid.profiles import (
    STRIPS_BEYOND,
    crossed_strips,
    likeness_margin_at,
    likeness_settles,
    mountain_separation,
)
from vision.grid.quads import order_corners
from vision.grid.search import GRID_PASSES, GridPass, find_lattice
from vision.grid.snap import DOUBT_U
from vision.grid.tuning import SHIPPED, GridTuning
from vision.lattice import (
    PX,
    DegenerateFit,
    GridFit,
    cell_side_px,
    homography_from_intersections,
    ideal_intersections,
    lattice_points,
    line_image,
    sample_cells,
    warp_canonical,
)
from vision.layout import GRID
from vision.orient import LIKENESS_SURE_MARGIN

__all__ = [
    "DOUBT_U",
    "UNREFINED_DOUBT_U",
    "GRID_PASSES",
    "PX",
    "DegenerateFit",
    "GridFit",
    "GridTuning",
    "cell_side_px",
    "fit_grid",
    "homography_from_intersections",
    "ideal_intersections",
    "line_image",
    "order_corners",
    "sample_cells",
    "shifted_fit",
    "warp_canonical",
]


#: how far an unrefined outline's crossings may be from the printed ones (raw frame outlines of
#: steep, bowed photos lay 0.15–0.3 u off): every cell's sampling is in doubt
UNREFINED_DOUBT_U = 0.3


def fit_grid(
    image: np.ndarray, tuning: GridTuning = SHIPPED, passes: Sequence[GridPass] = GRID_PASSES
) -> GridFit | None:
    """Find, check and refine the grid in a decoded photo; ``None`` when there is none."""
    found = find_lattice(image, tuning, passes)
    if found is None:
        return None
    try:
        fit = finish_grid(image, found.homography, found.disp, found.score, tuning)
    except DegenerateFit:  # the finished crossings span no plane: that was no sheet's grid
        return None
    if not found.refined:
        fit = _unrefined_if_better(image, found, fit)
    fit = _onto_crossed_strips(image, fit, tuning)
    return _onto_alike_mountains(image, fit, tuning)


def _edge_move(strips: np.ndarray, tuning: GridTuning, beyond: int = STRIPS_BEYOND) -> int:
    """How many cells along one axis the lattice moves (0 when it stays): when some strip inside
    it is crossed by no printed line, the smallest move that leaves every strip inside crossed and
    takes in only strips crossed clearly (``strips``: one axis of
    :func:`vision.grid.profiles.crossed_strips`, strips −beyond … 10 + beyond).

    >>> margin_first = np.array([0.0, 0.0, 0.05] + [1.0] * 10 + [0.9, 0.0])  # strip 0 is margin
    >>> _edge_move(margin_first, SHIPPED), _edge_move(margin_first[::-1], SHIPPED)
    (1, -1)
    """
    empty, crossed = tuning.finish.edge_empty, tuning.finish.edge_crossed
    inside = slice(beyond, beyond + GRID)
    if strips[inside].min() >= empty:
        return 0
    for move in (m for step in range(1, beyond + 1) for m in (step, -step)):
        moved = slice(beyond + move, beyond + move + GRID)
        taken = slice(inside.stop, moved.stop) if move > 0 else slice(moved.start, inside.start)
        if strips[moved].min() >= empty and strips[taken].min() >= crossed:
            return move
    return 0


def _onto_crossed_strips(image: np.ndarray, fit: GridFit, tuning: GridTuning) -> GridFit:
    """``fit``, or the lattice a cell or two over when strips of cells inside it are crossed by no
    printed line and the strips beyond the opposite edge are: a printer-friendly sheet's page
    frame and coin-track box run parallel to the grid a cell or so outside it and pass the line
    check as its last lines, the margin between as its last cells."""
    cols, rows = (_edge_move(s, tuning) for s in crossed_strips(image, fit.homography))
    if (rows, cols) == (0, 0):
        return fit
    try:
        moved = shifted_fit(image, fit, rows, cols, tuning)
    except DegenerateFit:
        return fit
    inside = crossed_strips(image, moved.homography)[:, STRIPS_BEYOND : STRIPS_BEYOND + GRID]
    return moved if inside[:, [0, -1]].min() >= tuning.finish.edge_crossed else fit


def _onto_alike_mountains(image: np.ndarray, fit: GridFit, tuning: GridTuning) -> GridFit:
    """``fit``, or the lattice a cell away from it on which the five mountains look alike, when
    its own mountains say nothing by darkness (line art on white) and look more alike a cell
    away: a printer-friendly sheet's solid lines pass the line check on a lattice a cell off just
    as well as on the right one."""
    if mountain_separation(image, fit.intersections) > 0:
        return fit
    if likeness_margin_at(image, fit.intersections) >= 0:
        return fit
    margin, rows, cols = max(
        (likeness_margin_at(image, lattice_points(fit.homography @ cells_away(r, c))), r, c)
        for r in (-1, 0, 1)
        for c in (-1, 0, 1)
        if (r, c) != (0, 0)
    )
    if margin < LIKENESS_SURE_MARGIN:
        return fit
    try:
        moved = shifted_fit(image, fit, rows, cols, tuning)
    except DegenerateFit:
        return fit
    return moved if likeness_settles(image, moved.intersections) else fit


def _unrefined_if_better(image: np.ndarray, found: Candidate, fit: GridFit) -> GridFit:
    """An unrefined outline's finished fit, or the outline as it was when the finish moved its
    mountains off whole cells (the faint lines it snaps to were lost to the refinement too)."""
    pts = lattice_points(found.homography)
    if mountain_separation(image, fit.intersections) >= mountain_separation(image, pts):
        return fit
    doubt = np.full_like(fit.crossing_doubt, UNREFINED_DOUBT_U)
    return GridFit(pts, found.homography, fit.lattice_score, 0.0, doubt)
