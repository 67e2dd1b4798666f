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
from vision.grid.profiles import likeness_margin_at, mountain_separation
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
    return _onto_alike_mountains(image, fit, tuning)


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
    return moved if likeness_margin_at(image, moved.intersections) >= LIKENESS_SURE_MARGIN else fit


def _unrefined_if_better(image: np.ndarray, found: Candidate, fit: GridFit) -> GridFit:
    """An unrefined outline's finished fit, or the outline as it was when the finish moved its
    mountains off whole cells (the faint lines it snaps to were lost to the refinement too)."""
    pts = lattice_points(found.homography)
    if mountain_separation(image, fit.intersections) >= mountain_separation(image, pts):
        return fit
    doubt = np.full_like(fit.crossing_doubt, UNREFINED_DOUBT_U)
    return GridFit(pts, found.homography, fit.lattice_score, 0.0, doubt)
