"""Whether a placement is the printed lattice: line profiles and the five mountains.

:func:`lattice_fit` re-anchors a raw outline on the dashed lines (the cheap pre-check);
:func:`lattice_score` and :func:`thin_line_score` judge refined crossings by the median line
profile; :func:`mountain_separation`, :func:`glyph_settles` and :func:`likeness_settles` ask the
printed mountains (vision.orient) whether the lattice is placed on whole cells.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from scoring.sides import SIDES
from vision.lattice import PX, black_hat, line_image, rectify_cell_area, warp_canonical
from vision.layout import GRID
from vision.orient import (
    best_likeness_margin,
    best_separation,
    glyph_correlations,
    glyph_sure,
    mountain_darkness,
    mountains_alike,
)

LATTICE_PX = 16  # canonical pixels per unit when checking a candidate lattice
THIN_PX = 48  # canonical pixels per unit of the thin-line check (symbol-heavy sheets)
THIN_KERNEL_U = 0.1  # black-hat width there: 0.03 u printed lines pass, thick marker strokes cancel
THIN_ON_U = 0.06  # a line's darkness: the profile's maximum within this of where the crossings say


@dataclass(frozen=True)
class LatticeFit:
    """An outline re-anchored on the dashed lines: its u → photo homography and raw contrast."""

    homography: np.ndarray
    contrast: float


def median(a: np.ndarray, axis: int) -> np.ndarray:
    """``np.median(a, axis)`` for arrays without NaN, by one sort: the same numbers, 4–6 × faster on
    the many short or medium rows the lattice checks take medians of (np.median selects row by row).

    >>> a = np.array([[3.0, 1.0, 2.0, 9.0], [4.0, 4.0, 0.0, 1.0]])
    >>> bool(np.array_equal(median(a, 1), np.median(a, 1))), median(a, 1).tolist()
    (True, [2.5, 2.5])
    """
    s = np.moveaxis(np.sort(a, axis=axis), axis, -1)
    n = s.shape[-1]
    return s[..., n // 2] if n % 2 else (s[..., n // 2 - 1] + s[..., n // 2]) / 2


def _unit_steps(x: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Where positions ``x`` fall among ``n`` samples one pixel apart: (left sample, fraction)."""
    j = np.clip(np.floor(x).astype(np.intp), 0, n - 2)
    return j, x - j


def _interp_at(values: np.ndarray, j: np.ndarray, frac: np.ndarray) -> np.ndarray:
    """``np.interp(x, arange(len(values)), values)`` for ``x`` inside [0, len − 1], given
    ``_unit_steps(x, len(values))``: the same numbers at a fraction of the time (no search)."""
    v = values.astype(np.float64)
    return (v[j + 1] - v[j]) * frac + v[j]


@functools.lru_cache(maxsize=8)
def _profile_hypotheses(px: int, margin: float, n: int) -> tuple[np.ndarray, ...]:
    """The (spacing, offset) pairs :func:`_profile_fit` tries on a profile of ``n`` samples, each
    with where it puts the 10 inner lines and the 11 mid-cells (:func:`_unit_steps`) and whether
    they all fall inside the profile. The same for every candidate of a size, so built once."""
    spacing, offset = np.meshgrid(
        np.linspace(0.92, 1.08, 65), np.linspace(-0.55, 0.55, 89), indexing="ij"
    )
    k = np.arange(1, GRID)
    lines = (margin + offset[..., None] + spacing[..., None] * k) * px - 0.5
    mids = (margin + offset[..., None] + spacing[..., None] * (np.arange(GRID) + 0.5)) * px - 0.5
    valid = (lines.min(axis=-1) >= 0) & (mids.max(axis=-1) <= n - 1)
    out = (spacing, offset, *_unit_steps(lines, n), *_unit_steps(mids, n), valid)
    for arr in out:
        arr.setflags(write=False)
    return out


def _profile_fit(profile: np.ndarray, px: int, margin: float) -> tuple[float, float, float]:
    """Best (offset u, spacing u, contrast) for 12 lines in a 1-D darkness profile.

    The profile is smoothed to about 0.1 u so a one-pixel line is found between pixel steps.
    """
    sigma = max(0.8, 0.08 * px)
    smooth = cv2.GaussianBlur(profile.astype(np.float32).reshape(1, -1), (0, 0), sigma).ravel()
    spacing, offset, j_on, f_on, j_off, f_off, valid = _profile_hypotheses(px, margin, len(profile))
    on = _interp_at(smooth, j_on, f_on)
    off = _interp_at(smooth, j_off, f_off)
    # medians: one frame line or a dark drawn stroke cannot make a wrong spacing win
    contrast = (median(on, -1) + 1.0) / (median(off, -1) + 1.0)
    contrast = np.where(valid, contrast, 0.0)
    a, b = np.unravel_index(int(np.argmax(contrast)), contrast.shape)
    return float(offset[a, b]), float(spacing[a, b]), float(contrast[a, b])


def line_profiles(
    gray_small: np.ndarray, homography: np.ndarray, margin: float
) -> tuple[np.ndarray, np.ndarray]:
    """The printed lines' darkness across x and across y (median black-hat profiles, at
    ``LATTICE_PX`` per u) of the cell area placed by ``homography`` (u → image) and ``margin`` u
    around it. Medians, not means: a line crosses every row, drawn marks and mountains only a
    few."""
    px = LATTICE_PX
    canon = warp_canonical(
        gray_small, homography, px, -margin, -margin, GRID + margin, GRID + margin
    )
    lines = black_hat(canon, px // 3).astype(np.float32)
    inner = slice(int((margin + 0.3) * px), int((margin + GRID - 0.3) * px))
    return median(lines[inner, :], 0), median(lines[:, inner], 1)


def lattice_fit(gray_small: np.ndarray, quad_to_u: np.ndarray) -> LatticeFit:
    """Re-anchor a candidate on the dashed lines: the corrected u → photo homography.

    ``quad_to_u`` maps canonical u → photo px assuming the quad is the cell area. The dashed
    lines' median profiles along x and y give the offset and spacing of the 10 inner lines (this
    corrects a quad that followed the outer edge of the frame band); the contrast is a cheap
    pre-check, the real lattice check is :func:`lattice_score` after local refinement.
    """
    margin = 0.8
    col_profile, row_profile = line_profiles(gray_small, quad_to_u, margin)
    ox, sx, cx = _profile_fit(col_profile, LATTICE_PX, margin)
    oy, sy, cy = _profile_fit(row_profile, LATTICE_PX, margin)
    fix = np.array([[sx, 0, ox], [0, sy, oy], [0, 0, 1.0]])  # true u → assumed u
    return LatticeFit(quad_to_u @ fix, min(cx, cy))


#: the cell area's border line counts as shown when its median darkness along the side is at least
#: this share of the median inner line's: the border is printed at least as dark as the cell lines
#: (a frame band on the colour sheet, a solid border on the printer-friendly one); a lattice a
#: cell over puts that side on the bare margin beyond the border (docs/printed-sheet.md)
FRAME_SHOWN_SHARE = 0.5


def frame_shown(gray_small: np.ndarray, homography: np.ndarray) -> bool:
    """Whether all four outer lines of a placed lattice (u → image ``homography``) lie on a printed
    line: the frame's inner line, not the margin beyond it.

    On printer-friendly sheets a lattice one cell over passes the line check as well as the right
    one (every inner line lies on a solid line) and the mountains, line art, say nothing; only its
    one side beyond the frame shows it. Each outer line's darkness is the maximum of
    :func:`line_profiles` within 0.1 u of it.
    """
    margin, px = 0.5, LATTICE_PX
    near = np.arange(-int(0.1 * px), int(0.1 * px) + 1)
    at = (margin + np.arange(GRID + 1)) * px - 0.5  # each line's place in the profiles
    window = np.round(at[:, None] + near[None, :]).astype(int)
    for profile in line_profiles(gray_small, homography, margin):
        dark = profile[np.clip(window, 0, len(profile) - 1)].max(axis=1)
        if min(dark[0], dark[-1]) < FRAME_SHOWN_SHARE * float(np.median(dark[1:-1])):
            return False
    return True


def _profile_score(on: np.ndarray, off: np.ndarray) -> float:
    """(line / mid-cell contrast) × (share of the 10 inner lines darker than both neighbouring
    mid-cells by half the median difference), from the profile at the lines and mid-cells."""
    step = 0.5 * (np.median(on) - np.median(off))
    if step <= 0:
        return 0.0
    standing = ((on - off[:-1] > step) & (on - off[1:] > step)).sum()
    contrast = (np.median(on) + 1.0) / (np.median(off) + 1.0)
    return float(contrast * standing / (GRID - 1))


def lattice_score(image: np.ndarray, intersections: np.ndarray, px: int = LATTICE_PX) -> float:
    """How surely the refined crossings sit on an 11 × 11 lattice of printed lines.

    On the cell area rectified through the crossings, the median black-hat profile must peak at
    every inner line: score = (line / mid-cell contrast) × (share of the 10 inner lines standing
    out of both neighbouring mid-cells), the smaller of the two axes
    (``AcceptTuning.min_line_contrast`` passes).
    """
    canon = rectify_cell_area(line_image(image), intersections, px)
    lines = black_hat(canon, px // 3).astype(np.float32)
    scores = []
    for profile in (median(lines, 0), median(lines, 1)):
        smooth = cv2.GaussianBlur(profile.astype(np.float32).reshape(1, -1), (0, 0), 0.8).ravel()
        xs = np.arange(len(smooth))
        on = np.interp(np.arange(1, GRID) * px - 0.5, xs, smooth)
        off = np.interp((np.arange(GRID) + 0.5) * px - 0.5, xs, smooth)
        scores.append(_profile_score(on, off))
    return min(scores)


def thin_line_score(image: np.ndarray, intersections: np.ndarray, px: int = THIN_PX) -> float:
    """:func:`lattice_score` on a thin-line image: for sheets crowded with marker symbols.

    At ``LATTICE_PX`` the 0.03 u dashed lines are half a pixel and the black-hat keeps the thick
    marker strokes too, whose medians then drown the lines (symbols sit in the cells' middles).
    Rectified at ``px`` pixels per unit from the full photo with a ``THIN_KERNEL_U`` black-hat,
    only strokes thinner than a tenth of a cell remain; each line's darkness is the profile's
    maximum within ``THIN_ON_U`` (snaps drift a little on these sheets). Same score formula.
    """
    canon = rectify_cell_area(line_image(image), intersections, px)
    lines = black_hat(canon, int(THIN_KERNEL_U * px)).astype(np.float32)
    near = np.arange(-int(THIN_ON_U * px), int(THIN_ON_U * px) + 1)
    scores = []
    for profile in (median(lines, 0), median(lines, 1)):
        smooth = cv2.GaussianBlur(
            profile.astype(np.float32).reshape(1, -1), (0, 0), 0.03 * px
        ).ravel()
        xs = np.arange(len(smooth))
        at = np.clip(np.arange(1, GRID)[:, None] * px + near[None, :], 0, len(smooth) - 1)
        on = smooth[at].max(axis=1)
        off = np.interp((np.arange(GRID) + 0.5) * px - 0.5, xs, smooth)
        scores.append(_profile_score(on, off))
    return min(scores)


STRIP_PX = 24  # canonical pixels per unit when measuring the lines that cross each strip of cells
STRIP_ON_U = 0.25  # a crossing line is looked for this far either side of where the lattice says
STRIPS_BEYOND = 2  # strips measured beyond each edge of the lattice


def crossed_strips(
    image: np.ndarray, homography: np.ndarray, beyond: int = STRIPS_BEYOND, px: int = STRIP_PX
) -> np.ndarray:
    """How strongly printed lines cross each strip of cells: the lattice's 11 and ``beyond`` more
    past each edge, (2, 11 + 2 · beyond) for the columns −beyond … 10 + beyond, then the rows, each
    relative to the median of the inner 11.

    A strip's strength is the median, over its 12 crossing lines, of the thin-line darkness at the
    line (its maximum within ``STRIP_ON_U``) above the darkness around it. Inside the printed grid
    every strip is crossed; the margin outside it is not, even where a page frame or a box runs
    parallel to the grid and passes as one of its lines. Measured through the homography alone
    (the strips past the edges have no crossings to follow).
    """
    lo, hi = -beyond - 1.5, GRID + beyond + 1.5
    canon = line_image(warp_canonical(image, homography, px, lo, lo, hi, hi))  # small first
    thin = black_hat(canon, int(0.2 * px)).astype(np.float32)
    on = int(STRIP_ON_U * px)
    around = on + px // 3
    at = ((np.arange(GRID + 1) - lo) * px).astype(int)  # the crossing lines 0 … 11
    starts = ((np.arange(-beyond, GRID + beyond) + 0.2 - lo) * px).astype(int)
    width = int(0.8 * px) - int(0.2 * px)
    strengths = []
    for lines in (thin, thin.T):  # lines[y, x]: strips along x, crossed by the lines y = k
        sums = np.cumsum(np.pad(lines, ((0, 0), (1, 0))), axis=1)
        profiles = (sums[:, starts + width] - sums[:, starts]).T / width  # (strip, y)
        peaks = sliding_window_view(profiles, 2 * on, axis=1)[:, at - on].max(axis=2)
        bases = median(sliding_window_view(profiles, 2 * around, axis=1)[:, at - around], 2)
        strengths.append(median(peaks - bases, 1))
    strengths = np.array(strengths, dtype=np.float64)
    inner = median(strengths[:, beyond : beyond + GRID], 1)[:, None]
    return strengths / np.maximum(inner, 1e-6)


def mountain_separation(image: np.ndarray, intersections: np.ndarray) -> float:
    """How cleanly some side's five printed mountains sit on whole cells of this lattice
    (vision.orient)."""
    px = LATTICE_PX
    cells = rectify_cell_area(image, intersections, px)
    return best_separation(mountain_darkness(cells, px))


def glyph_settles(image: np.ndarray, intersections: np.ndarray) -> bool:
    """Whether the printed mountain glyph alone settles some side and turn on this lattice and
    rules out its one-cell shifts (:func:`vision.orient.glyph_sure`)."""
    px = LATTICE_PX
    cells = rectify_cell_area(image, intersections, px)
    ncc = glyph_correlations(cells, px)
    return any(glyph_sure(ncc, side, k) for side in SIDES for k in range(4))


def likeness_settles(image: np.ndarray, intersections: np.ndarray) -> bool:
    """Whether the five mountains of some side and turn look alike on this lattice, clearly more
    than any other layout's and any one-cell shift's (:func:`vision.orient.likeness_sure`): the
    check for printings whose mountains are not dark (line art on white)."""
    return mountains_alike(rectify_cell_area(image, intersections, PX), PX)


def likeness_margin_at(image: np.ndarray, intersections: np.ndarray) -> float:
    """How much more alike the five mountains of the best side and turn look on this lattice than
    any other layout's or any one-cell shift's (:func:`vision.orient.best_likeness_margin`)."""
    return best_likeness_margin(rectify_cell_area(image, intersections, PX), PX)


def share_inside(intersections: np.ndarray, shape: tuple[int, ...]) -> float:
    """The share of the 121 cells (their centres) of a (12, 12, 2) crossing grid inside an image
    of ``shape`` (below: the 6 columns whose centres are at x = 0 … 50 of 11).

    >>> grid = np.stack(np.meshgrid(np.arange(12.0) * 10 - 55, np.arange(12.0) * 10), axis=-1)
    >>> share_inside(grid, (200, 200))
    0.5454545454545454
    """
    p = intersections
    centres = (p[:-1, :-1] + p[:-1, 1:] + p[1:, 1:] + p[1:, :-1]) / 4
    h, w = shape[:2]
    inside = (
        (centres[..., 0] >= 0)
        & (centres[..., 0] < w)
        & (centres[..., 1] >= 0)
        & (centres[..., 1] < h)
    )
    return float(inside.mean())
