"""Finding the printed 11 × 11 grid in a photo, rectifying it, and following curled paper.

Three steps, each checkable on its own (docs/printed-sheet.md, "Layout"):

1. :func:`find_grid` — quadrilateral candidates from the dark printed frame (adaptive threshold →
   contours → 4-gon and side-line fits), re-anchored on the periodic profile of the dashed cell
   lines (:func:`lattice_fit`, which also corrects a quad that followed the outer edge of the frame
   band), refined locally (re-anchoring the homography on the snapped crossings between passes),
   and only then checked to really be an 11 × 11 lattice (:func:`lattice_score`, and the printed
   mountains, :func:`_accepted`): lens distortion and bowed paper bend lines too much for a check
   through one homography. Only when that finds nothing: outline fallbacks
   (:func:`_fallback_hypotheses`) and quads from the photo's long straight segments
   (:func:`_segment_quad_sets`, the frame's sides when no contour outlines it).
2. :func:`refine_intersections` — the 12 × 12 printed line crossings, each snapped locally to the
   nearest line crossing, then made a smooth field (a robust coarse-to-fine surface — plane,
   quadratic, cubic — plus small local residuals) so the map follows curl without jumping to a
   drawn stroke. Each crossing gets a doubt (:func:`crossing_doubt`); where some are in doubt,
   the crossings are snapped again from a homography through the sure ones (:func:`_reanchored`).
3. :func:`sample_cells` — the canonical top-down cell area, ``PX`` pixels per grid unit, sampled
   through the bilinear interpolation of the snapped crossings (a piecewise grid remap).

Coordinates: photo points are (x, y) pixels of the decoded image; canonical points are grid
units ``u`` (origin top-left of the cell area, layout.py).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from itertools import combinations

import cv2
import numpy as np

from scoring.sides import SIDES
# The lattice's geometry lives in vision.lattice (vision.orient builds on it too); its names stay importable here.
from vision.lattice import (LINES, PX, DegenerateFit, GridFit, area_corners, black_hat, cell_area_maps,  # noqa: F401
                            cell_side_px, homography_from_intersections, ideal_intersections, invert_homography,
                            lattice_points, line_image, rectify_cell_area, sample_cells, warp_canonical)
from vision.layout import GEOMETRY, GRID
from vision.orient import (LIKENESS_SURE_MARGIN, best_likeness_margin, best_separation, glyph_correlations, glyph_sure,
                           mountain_darkness)

FIND_LONG_SIDE = 1000  # candidate search runs on the photo shrunk to this long side
FIND_LONG_SIDE_RETRY = 1800  # …and once more at this size when nothing was found
LATTICE_PX = 16  # canonical pixels per unit when checking a candidate lattice
MIN_LINE_CONTRAST = 1.2  # line/between-line profile ratio × share of lines standing out, both axes
MAX_DISPLACEMENT_U = 0.7  # a crossing moves at most this far from the global homography's guess
WEAK_LINE_CONTRAST = 0.8  # a lattice this faint (thick marker strokes) needs the mountains to confirm it
MOUNTAIN_CONFIRMS = 0.25  # mountain separation (vision.orient) that confirms a faint lattice
FAINT_LINE_CONTRAST = 0.2  # lines drowned in colour shading: accepted only when …
MOUNTAINS_CARRY = 0.3  # … the five mountains separate at least this clearly
PRECHECK_CONTRAST = 1.1  # global line/mid-cell profile ratio a candidate needs to be refined
#: second-source outlines refined per fallback search, best pre-check first: each costs 3–4 refinements (a no-grid
#: photo runs both searches); 4 lost a photo whose grid came from its 5th–8th outline
FALLBACK_REFINED = 8
_FW = GEOMETRY.frame_width  # the frame band's outer line runs at −0.2 and 11.2 u
_K = GRID / (GRID + 2 * _FW)
#: true u → the u a quad on the frame's outer line assumes it is (its corners at 0 and 11)
FRAME_OUTER_TO_CELLS = np.array([[_K, 0, _FW * _K], [0, _K, _FW * _K], [0, 0, 1.0]])
LOCAL_RESIDUAL_U = 0.04  # a snap may differ this much from the smooth curl surface
REANCHOR_SEARCH_U = (0.3, 0.2)  # searches after re-anchoring the homography on the snapped crossings


# ---- 1. candidates -------------------------------------------------------------------------
def order_corners(quad: np.ndarray) -> np.ndarray:
    """Four points ordered clockwise (in image coordinates) starting nearest the top-left."""
    q = np.asarray(quad, dtype=np.float64).reshape(4, 2)
    centre = q.mean(axis=0)
    angles = np.arctan2(q[:, 1] - centre[1], q[:, 0] - centre[0])
    q = q[np.argsort(angles)]  # clockwise on screen (y down)
    start = int(np.argmin(q.sum(axis=1)))
    return np.roll(q, -start, axis=0)


def quad_candidates(gray: np.ndarray, max_candidates: int = 12) -> list[np.ndarray]:
    """Convex 4-gons in ``gray`` outlined by dark structure, largest first."""
    area_min = _min_contour_area(gray)
    found: list[tuple[float, np.ndarray]] = []
    for contours in _dark_contours(gray):
        for cnt in contours:
            area = cv2.contourArea(cnt)
            if area < area_min:
                continue
            hull = cv2.convexHull(cnt)
            peri = cv2.arcLength(hull, True)
            for eps in (0.02, 0.04, 0.07):
                approx = cv2.approxPolyDP(hull, eps * peri, True)
                if len(approx) == 4:
                    break
            else:
                continue
            quad = order_corners(approx.reshape(4, 2))
            if _plausible_quad(quad):
                found.append((cv2.contourArea(quad.astype(np.float32)), quad))
                fitted = _side_line_corners(cnt.reshape(-1, 2).astype(np.float64), quad)
                if fitted is not None and _plausible_quad(fitted):
                    found.append((cv2.contourArea(fitted.astype(np.float32)), fitted))
    found.sort(key=lambda t: -t[0])
    unique: list[np.ndarray] = []
    for _, q in found:
        if _is_new_quad(q, unique):
            unique.append(q)
        if len(unique) >= max_candidates:
            break
    return unique


def _min_contour_area(gray: np.ndarray) -> float:
    """The smallest dark contour (px²) worth outlining a sheet: 0.4 % of the photo."""
    h, w = gray.shape
    return 0.004 * h * w


def _dark_contours(gray: np.ndarray):
    """The contours of dark structure (mean-adaptive threshold, dilated), one list per threshold offset (6, 12)."""
    h, w = gray.shape
    block = max(15, (max(h, w) // 40) | 1)
    for c in (6, 12):
        mask = cv2.adaptiveThreshold(gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, c)
        mask = cv2.dilate(mask, np.ones((3, 3), np.uint8))
        yield cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)[0]


def _is_new_quad(quad: np.ndarray, seen: list[np.ndarray]) -> bool:
    """No quad in ``seen`` has all corners within 3 % of ``quad``'s side."""
    side = np.sqrt(max(cv2.contourArea(quad.astype(np.float32)), 1.0))
    return all(np.abs(quad - q).max() > 0.03 * side for q in seen)


def _side_line_corners(points: np.ndarray, quad: np.ndarray) -> np.ndarray | None:
    """Corners from straight lines fitted to the middle of each side of a contour.

    A bowed sheet or lens distortion curves the frame; the hull's extreme points then sit off
    the lattice, while lines through each side's middle half average the curve out.
    """
    lines = []
    for k in range(4):
        a, b = quad[k], quad[(k + 1) % 4]
        ab = b - a
        length = np.linalg.norm(ab)
        t = (points - a) @ ab / (length ** 2)
        normal = np.array([-ab[1], ab[0]]) / length
        dist = np.abs((points - a) @ normal)
        near = (t > 0.2) & (t < 0.8) & (dist < 0.06 * length)
        if near.sum() < 5:
            return None
        vx, vy, x0, y0 = cv2.fitLine(points[near].astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0], float), np.array([vx, vy], float)))
    corners = []
    for k in range(4):
        (p1, d1), (p2, d2) = lines[k - 1], lines[k]
        m = np.array([d1, -d2]).T
        if abs(np.linalg.det(m)) < 1e-6:
            return None
        s, _ = np.linalg.solve(m, p2 - p1)
        corners.append(p1 + s * d1)
    return np.array(corners)


def _plausible_quad(quad: np.ndarray) -> bool:
    """Convex, no side much shorter than the others (tilts up to ~60°)."""
    if not cv2.isContourConvex(quad.astype(np.float32).reshape(-1, 1, 2)):
        return False
    sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    return sides.min() > 0.3 * sides.max() and sides.min() > 20


def _fallback_hypotheses(gray: np.ndarray) -> list[list[np.ndarray]]:
    """u → image homographies from outlines the frame-quad search leaves out.

    (a) Corner choice: a frame contour merged with a label, a finger or the coin track simplifies
    to 5 or 6 corners; every plausible 4 of them is tried as the cell area and as the frame
    band's outer line. (b) The paper's outline: the sheet is the bright region around the grid,
    its box in u is ``GEOMETRY.sheet``; its long sides are the sheet's height, and each of the
    four corner orders is tried (the pre-check and the mountains decide, a half turn included).
    """
    h, w = gray.shape
    area_min = _min_contour_area(gray)
    out: list[list[np.ndarray]] = []
    seen: list[np.ndarray] = []
    for contours in _dark_contours(gray):
        for cnt in sorted(contours, key=cv2.contourArea, reverse=True)[:20]:
            if cv2.contourArea(cnt) < 4 * area_min:
                break
            hull = cv2.convexHull(cnt)
            peri = cv2.arcLength(hull, True)
            for eps in (0.01, 0.02, 0.04):
                approx = cv2.approxPolyDP(hull, eps * peri, True).reshape(-1, 2)
                if 5 <= len(approx) <= 6:
                    for idx in combinations(range(len(approx)), 4):
                        quad = order_corners(approx[list(idx)])
                        if _plausible_quad(quad) and _is_new_quad(quad, seen):
                            seen.append(quad)
                            as_cells = _quad_homography(quad)
                            out.append([as_cells, as_cells @ FRAME_OUTER_TO_CELLS])
    # the paper: bright against the table
    _, bright = cv2.threshold(cv2.GaussianBlur(gray, (5, 5), 0), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    bright = cv2.morphologyEx(bright, cv2.MORPH_CLOSE, np.ones((15, 15), np.uint8))
    contours, _ = cv2.findContours(bright, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    sheet = GEOMETRY.sheet
    box = np.array([[sheet.x0, sheet.y0], [sheet.x1, sheet.y0], [sheet.x1, sheet.y1], [sheet.x0, sheet.y1]], np.float32)
    for cnt in sorted(contours, key=cv2.contourArea, reverse=True)[:3]:
        if cv2.contourArea(cnt) < 0.05 * h * w:
            break
        hull = cv2.convexHull(cnt)
        peri = cv2.arcLength(hull, True)
        for eps in (0.02, 0.04, 0.07):
            approx = cv2.approxPolyDP(hull, eps * peri, True).reshape(-1, 2)
            if len(approx) == 4:
                quad = order_corners(approx)
                if _plausible_quad(quad):
                    for k in range(4):
                        turned = np.roll(quad, -k, axis=0).astype(np.float32)
                        out.append([cv2.getPerspectiveTransform(box, turned)])
                break
    return out


SEGMENT_MIN_LENGTH = 0.04  # of the long side: a frame side's straight segment (the dashed lines' are shorter)
SEGMENT_LINES = 6  # strongest merged lines per direction whose pairs make quads
SEGMENT_QUADS = 16  # quads (by the length of their four lines) pre-checked
#: tried last, only when nothing else passes at that size: quads that use the 7th or 8th longest line of a direction
#: (a frame side the coin track's and the season boxes' longer sides outrank: fresh photo 51400183),
#: the best SEGMENT_LATE_QUADS by length pre-checked and SEGMENT_LATE_REFINED of them refined (not added to the
#: rescue's candidates). Mixed in with the usual quads they pushed dev 7's 50700140 out of the refined ones.
SEGMENT_LINES_LATE = 8
SEGMENT_LATE_QUADS = 8
SEGMENT_LATE_REFINED = 2
#: a segment quad's lattice this clear (a wrong long line, e.g. the coin track's, gives a lattice a cell
#: off with a score of 1.3) needs the mountains to show only a little (SEGMENT_MOUNTAINS), not clearly
SEGMENT_CLEAR_LINES = 2.0
SEGMENT_MOUNTAINS = 0.03


def _segment_quad_sets(gray: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Quads from the long straight segments (the third source: no clean outline needed).

    When the frame's outline merges with the sheet's content (symbols touching the frame band)
    or the paper runs out of the photo, no contour gives the frame, but its four sides are still
    the longest straight segments (LSD) of the sheet. Segments longer than ``SEGMENT_MIN_LENGTH``
    are split into the dominant direction (±22°) and the one across it, merged into lines
    (within 3° and 0.6 % of the long side), and every pair of the ``SEGMENT_LINES`` longest
    lines of one direction is intersected with every pair of the other; plausible quads of at
    least 1.6 % of the photo are returned, longest lines first. Second, the late quads: those
    that use a line ranked ``SEGMENT_LINES`` + 1 … ``SEGMENT_LINES_LATE`` in its direction
    (``SEGMENT_LATE_QUADS`` of them, longest first).
    """
    h, w = gray.shape
    detected = cv2.createLineSegmentDetector(cv2.LSD_REFINE_STD).detect(gray)[0]
    if detected is None:
        return [], []
    segs = detected.reshape(-1, 4).astype(np.float64)
    d = segs[:, 2:] - segs[:, :2]
    length = np.hypot(d[:, 0], d[:, 1])
    keep = length > SEGMENT_MIN_LENGTH * max(h, w)
    segs, d, length = segs[keep], d[keep], length[keep]
    if len(segs) < 4:
        return [], []
    ang = np.degrees(np.arctan2(d[:, 1], d[:, 0])) % 180
    hist = np.zeros(180)
    np.add.at(hist, ang.astype(int) % 180, length)
    hist = np.convolve(np.r_[hist[-5:], hist, hist[:5]], np.ones(11), "valid")
    main = float(np.argmax(hist))
    lines = []
    for direction in (main, (main + 90) % 180):
        family = np.nonzero(np.abs((ang - direction + 90) % 180 - 90) < 22)[0]
        merged: list[list] = []  # [unit normal, distance from origin, total length]
        for i in family[np.argsort(-length[family])]:
            normal = np.array([-d[i, 1], d[i, 0]]) / length[i]
            mid = segs[i, :2] + d[i] / 2
            for m in merged:
                if abs(normal @ m[0]) > np.cos(np.radians(3)) and abs(m[0] @ mid - m[1]) < 0.006 * max(h, w):
                    m[2] += length[i]
                    break
            else:
                merged.append([normal, float(normal @ mid), float(length[i])])
        merged.sort(key=lambda m: -m[2])
        lines.append(merged[:SEGMENT_LINES_LATE])

    def cross(a, b):
        m = np.array([a[0], b[0]])
        return None if abs(np.linalg.det(m)) < 1e-6 else np.linalg.solve(m, [a[1], b[1]])

    crossing = [[cross(a, b) for b in lines[1]] for a in lines[0]]  # each pair of lines once, not per quad
    out, late = [], []
    for (i1, a1), (i2, a2) in combinations(enumerate(lines[0]), 2):
        for (j1, b1), (j2, b2) in combinations(enumerate(lines[1]), 2):
            pts = [crossing[i1][j1], crossing[i1][j2], crossing[i2][j2], crossing[i2][j1]]
            if any(p is None for p in pts):
                continue
            quad = order_corners(np.array(pts))
            if not _plausible_quad(quad) or cv2.contourArea(quad.astype(np.float32)) < 0.016 * h * w:
                continue
            if (quad[:, 0] < -0.1 * w).any() or (quad[:, 0] > 1.1 * w).any() or (quad[:, 1] < -0.1 * h).any() \
                    or (quad[:, 1] > 1.1 * h).any():
                continue
            (late if max(i2, j2) >= SEGMENT_LINES else out).append((a1[2] + a2[2] + b1[2] + b2[2], quad))
    out.sort(key=lambda t: -t[0])
    late.sort(key=lambda t: -t[0])
    return [q for _, q in out[:SEGMENT_QUADS]], [q for _, q in late[:SEGMENT_LATE_QUADS]]


# ---- lattice check -------------------------------------------------------------------------
def _median(a: np.ndarray, axis: int) -> np.ndarray:
    """``np.median(a, axis)`` for arrays without NaN, by one sort: the same numbers, 4–6 × faster on the many
    short or medium rows the lattice checks take medians of (np.median selects row by row).

    >>> a = np.array([[3.0, 1.0, 2.0, 9.0], [4.0, 4.0, 0.0, 1.0]])
    >>> bool(np.array_equal(_median(a, 1), np.median(a, 1))), _median(a, 1).tolist()
    (True, [2.5, 2.5])
    """
    s = np.moveaxis(np.sort(a, axis=axis), axis, -1)
    n = s.shape[-1]
    return s[..., n // 2] if n % 2 else (s[..., n // 2 - 1] + s[..., n // 2]) / 2


def _unit_steps(x: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Where positions ``x`` fall among ``n`` samples one pixel apart: (left sample, fraction past it)."""
    j = np.clip(np.floor(x).astype(np.intp), 0, n - 2)
    return j, x - j


def _interp_at(values: np.ndarray, j: np.ndarray, frac: np.ndarray) -> np.ndarray:
    """``np.interp(x, arange(len(values)), values)`` for ``x`` inside [0, len − 1], given
    ``_unit_steps(x, len(values))``: the same numbers at a fraction of the time (no interval search)."""
    v = values.astype(np.float64)
    return (v[j + 1] - v[j]) * frac + v[j]


@functools.lru_cache(maxsize=8)
def _profile_hypotheses(px: int, margin: float, n: int) -> tuple[np.ndarray, ...]:
    """The (spacing, offset) pairs :func:`_profile_fit` tries on a profile of ``n`` samples, each with
    where it puts the 10 inner lines and the 11 mid-cells (:func:`_unit_steps`) and whether they all
    fall inside the profile. The same for every candidate of a size, so built once."""
    spacing, offset = np.meshgrid(np.linspace(0.92, 1.08, 65), np.linspace(-0.55, 0.55, 89), indexing="ij")
    k = np.arange(1, GRID)
    lines = (margin + offset[..., None] + spacing[..., None] * k) * px - 0.5
    mids = (margin + offset[..., None] + spacing[..., None] * (np.arange(GRID) + 0.5)) * px - 0.5
    valid = (lines.min(axis=-1) >= 0) & (mids.max(axis=-1) <= n - 1)
    out = (spacing, offset, *_unit_steps(lines, n), *_unit_steps(mids, n), valid)
    for arr in out:
        arr.setflags(write=False)
    return out


def _profile_fit(profile: np.ndarray, px: int, margin: float) -> tuple[float, float, float, int]:
    """Best (offset u, spacing u, contrast, lines standing out) for 12 lines in a 1-D darkness profile.

    The profile is smoothed to about 0.1 u so a one-pixel line is found between pixel steps. A
    line "stands out" when it is darker than both neighbouring mid-cells by half the mean
    line/mid-cell difference; a real lattice has all 10 inner lines standing out.
    """
    sigma = max(0.8, 0.08 * px)
    smooth = cv2.GaussianBlur(profile.astype(np.float32).reshape(1, -1), (0, 0), sigma).ravel()
    spacing, offset, j_on, f_on, j_off, f_off, valid = _profile_hypotheses(px, margin, len(profile))
    on = _interp_at(smooth, j_on, f_on)
    off = _interp_at(smooth, j_off, f_off)
    # medians: one frame line or a dark drawn stroke cannot make a wrong spacing win
    contrast = (_median(on, -1) + 1.0) / (_median(off, -1) + 1.0)
    contrast = np.where(valid, contrast, 0.0)
    a, b = np.unravel_index(int(np.argmax(contrast)), contrast.shape)
    on_b, off_b = on[a, b], off[a, b]
    step = 0.5 * (np.median(on_b) - np.median(off_b))
    standing = int(((on_b - off_b[:-1] > step) & (on_b - off_b[1:] > step)).sum())
    return float(offset[a, b]), float(spacing[a, b]), float(contrast[a, b]), standing


def lattice_fit(gray_small: np.ndarray, quad_to_u: np.ndarray) -> tuple[np.ndarray, float]:
    """Re-anchor a candidate on the dashed lines: (corrected u → photo homography, raw contrast).

    ``quad_to_u`` maps canonical u → photo px assuming the quad is the cell area. The dashed
    lines' median profiles along x and y give the offset and spacing of the 10 inner lines (this
    corrects a quad that followed the outer edge of the frame band); the contrast is a cheap
    pre-check, the real lattice check is :func:`lattice_score` after local refinement.
    """
    margin = 0.8
    px = LATTICE_PX
    canon = warp_canonical(gray_small, quad_to_u, px, -margin, -margin, GRID + margin, GRID + margin)
    lines = black_hat(canon, px // 3).astype(np.float32)
    inner = slice(int((margin + 0.3) * px), int((margin + GRID - 0.3) * px))
    # medians, not means: a line crosses every row, drawn marks and mountains only a few
    col_profile = _median(lines[inner, :], 0)
    row_profile = _median(lines[:, inner], 1)
    ox, sx, cx, _ = _profile_fit(col_profile, px, margin)
    oy, sy, cy, _ = _profile_fit(row_profile, px, margin)
    fix = np.array([[sx, 0, ox], [0, sy, oy], [0, 0, 1.0]])  # true u → assumed u
    return quad_to_u @ fix, min(cx, cy)


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
    out of both neighbouring mid-cells), the smaller of the two axes. ≥ ``MIN_LINE_CONTRAST`` passes.
    """
    canon = rectify_cell_area(line_image(image), intersections, px)
    lines = black_hat(canon, px // 3).astype(np.float32)
    scores = []
    for profile in (_median(lines, 0), _median(lines, 1)):
        smooth = cv2.GaussianBlur(profile.astype(np.float32).reshape(1, -1), (0, 0), 0.8).ravel()
        xs = np.arange(len(smooth))
        on = np.interp(np.arange(1, GRID) * px - 0.5, xs, smooth)
        off = np.interp((np.arange(GRID) + 0.5) * px - 0.5, xs, smooth)
        scores.append(_profile_score(on, off))
    return min(scores)


THIN_PX = 48  # canonical pixels per unit of the thin-line check (the rescue of symbol-heavy sheets)
THIN_KERNEL_U = 0.1  # black-hat width there: the 0.03 u printed lines pass, thick marker strokes cancel
THIN_ON_U = 0.06  # a line's darkness: the profile's maximum within this of where the crossings put it
THIN_MAX_RESCUED = 12  # best thin-line candidates whose mountains are then checked
#: distinct failed candidates the rescue refines again, the best this many by each of two rankings
#: (:func:`_most_promising`): bounds a no-grid photo's time (each costs a thin-line refinement and score; a
#: photo reached the rescue with up to 96 failed candidates, 45–87 of them distinct, and took 9–17 s)
THIN_MAX_LATTICES = 8
#: a promising candidate is refined again on thin lines only when it already shows them this clearly, as it is or
#: re-fitted to the strips (:func:`_rescued`): every rescue won by a refinement on the dev and benchmark photos
#: started at 0.92 or more, while on table photos without a sheet no candidate reached 0.66
THIN_REFINE_FROM = 0.75


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
    for profile in (_median(lines, 0), _median(lines, 1)):
        smooth = cv2.GaussianBlur(profile.astype(np.float32).reshape(1, -1), (0, 0), 0.03 * px).ravel()
        xs = np.arange(len(smooth))
        on = smooth[np.clip(np.arange(1, GRID)[:, None] * px + near[None, :], 0, len(smooth) - 1)].max(axis=1)
        off = np.interp((np.arange(GRID) + 0.5) * px - 0.5, xs, smooth)
        scores.append(_profile_score(on, off))
    return min(scores)


def _mountain_separation(image: np.ndarray, intersections: np.ndarray) -> float:
    """How cleanly some side's five printed mountains sit on whole cells of this lattice (vision.orient)."""

    px = LATTICE_PX
    cells = rectify_cell_area(image, intersections, px)
    return best_separation(mountain_darkness(cells, px))


def _quad_homography(quad: np.ndarray) -> np.ndarray:
    """Canonical u → photo px mapping the cell-area corners onto ``quad`` (TL, TR, BR, BL)."""
    src = np.array([[0, 0], [GRID, 0], [GRID, GRID], [0, GRID]], dtype=np.float32)
    return cv2.getPerspectiveTransform(src, quad.astype(np.float32))


def _share_inside(intersections: np.ndarray, shape: tuple[int, ...]) -> float:
    """The share of the 121 cells (their centres) of a (12, 12, 2) crossing grid inside an image of ``shape``
    (below: the 6 columns whose centres are at x = 0 … 50 of 11).

    >>> _share_inside(np.stack(np.meshgrid(np.arange(12.0) * 10 - 55, np.arange(12.0) * 10), axis=-1), (200, 200))
    0.5454545454545454
    """
    p = intersections
    centres = (p[:-1, :-1] + p[:-1, 1:] + p[1:, 1:] + p[1:, :-1]) / 4
    h, w = shape[:2]
    inside = (centres[..., 0] >= 0) & (centres[..., 0] < w) & (centres[..., 1] >= 0) & (centres[..., 1] < h)
    return float(inside.mean())


@dataclass
class _Candidate:
    homography: np.ndarray  # u → image px (the searched image's: the shrunk photo's in find_grid)
    disp: np.ndarray  # (12, 12, 2) u, local corrections on top of it
    score: float
    separation: float  # mountain separation (vision.orient)
    corners: np.ndarray  # (4, 2) image px of the refined cell area
    inside: float = 1.0  # share of its cells inside the photo (:func:`_share_inside`)

    @property
    def area(self) -> float:
        return float(cv2.contourArea(self.corners.astype(np.float32)))

    @property
    def shown_area(self) -> float:
        """The part of the cell area inside the photo, px²."""
        return self.area * self.inside

    @property
    def rank(self) -> float:
        """Which sheet: lattice area inside the photo × (lattice score + 2 × mountain separation).

        A sheet cut off by the photo's edge counts only what shows: the crossings beyond the frame are
        extrapolated, and can be neither checked nor read.
        """
        return self.shown_area * (min(self.score, 2.0) + 2 * max(self.separation, 0.0))

    def scaled(self, factor: float) -> "_Candidate":
        """The same candidate in a photo ``factor`` times larger (homography and corners)."""
        to_large = np.diag([factor, factor, 1.0])
        return replace(self, homography=to_large @ self.homography, corners=self.corners * factor)

    @property
    def quality(self) -> float:
        """Which placement of one sheet: the uncapped lattice score + 2 × mountain separation."""
        return self.score + 2 * self.separation

    def overlaps(self, other: "_Candidate") -> bool:
        """Both candidates place the same sheet (each one's centre inside the other's cell area)."""
        a = self.corners.astype(np.float32).reshape(-1, 1, 2)
        b = other.corners.astype(np.float32).reshape(-1, 1, 2)
        ca = tuple(float(v) for v in self.corners.mean(axis=0))
        cb = tuple(float(v) for v in other.corners.mean(axis=0))
        return cv2.pointPolygonTest(a, cb, False) > 0 and cv2.pointPolygonTest(b, ca, False) > 0


def _accepted(score: float, separation: float) -> bool:
    """The explicit lattice checks: printed lines, and the five mountains on whole cells.

    A clear lattice (``MIN_LINE_CONTRAST``) needs the mountains not to contradict it; a faint one
    (thick marker strokes) needs them to confirm it; lines drowned in colour shading or washed out
    (``FAINT_LINE_CONTRAST``) are accepted only when the mountains stand out clearly.
    """
    if separation < 0:
        return False  # the five mountains must be the darkest cells: no lattice off by a cell
    if score >= MIN_LINE_CONTRAST:
        return True
    if score >= WEAK_LINE_CONTRAST:
        return separation >= MOUNTAIN_CONFIRMS
    return score >= FAINT_LINE_CONTRAST and separation >= MOUNTAINS_CARRY


def _choose(passing: list[_Candidate]) -> _Candidate | None:
    """The user's sheet (largest rank), placed by its best-quality candidate.

    Hypotheses from one quad (cell area, frame outer line, re-anchored) overlap; one with a
    corner a cell too far out has the larger area but fewer lines on the lattice, so among
    candidates of the same sheet the quality decides, not the area.
    """
    if not passing:
        return None
    sheet = max(passing, key=lambda c: c.rank)
    same = [c for c in passing if c is sheet or c.overlaps(sheet)]
    return max(same, key=lambda c: c.quality)


def _refine_coarse_to_fine(darkest: np.ndarray, hom: np.ndarray, px: int = LATTICE_PX * 2,
                           kernel_u: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Snap a candidate's crossings, re-anchoring the homography on them between passes.

    A quad with one corner off (curl, a finger on the frame) puts that corner's crossings beyond
    any local search; the crossings found elsewhere give a better homography, so each pass
    reaches further into the bent corner. Returns (homography, crossings, displacement field).
    ``px`` and ``kernel_u`` (the snaps' black-hat width, :func:`_snap_crossings`): the thin-line
    refinement of the rescue (:func:`_thin_line_rescue`).
    """
    pts, disp, _, _ = _refine_detail(darkest, hom, px, None, 0.4, ring=False, kernel_u=kernel_u)
    for search in REANCHOR_SEARCH_U:
        try:
            hom = homography_from_intersections(pts)
        except DegenerateFit:  # snaps collapsed onto a line: keep the last lattice, let the checks judge it
            break
        prior = cv2.perspectiveTransform(pts.reshape(1, -1, 2), np.linalg.inv(hom))[0].reshape(LINES, LINES, 2)
        pts, disp, _, _ = _refine_detail(darkest, hom, px, prior - ideal_intersections(), search, ring=False,
                                         kernel_u=kernel_u)
    return hom, pts, disp


def _cannot_win(quad: np.ndarray, best: _Candidate) -> bool:
    """Whether checking ``quad`` can be skipped once ``best`` passed clearly (saves time only).

    A quad around the same sheet would only re-place it, and ``best`` is already a clear lattice
    with clear mountains; a different sheet under 0.4 of its area inside the photo cannot outrank it
    (its rank factor is at most 2 + 2 × 1, ``best``'s at least 1.2 + 2 × 0.3). Anything else is checked.
    """
    if best.score < MIN_LINE_CONTRAST or best.separation < MOUNTAINS_CARRY:
        return False
    centre = tuple(float(v) for v in quad.mean(axis=0))
    if cv2.pointPolygonTest(best.corners.astype(np.float32).reshape(-1, 1, 2), centre, False) > 0:
        return True
    return cv2.contourArea(quad.astype(np.float32)) < 0.4 * best.shown_area


def _check_hypotheses(small: np.ndarray, darkest: np.ndarray, hypotheses: list[np.ndarray],
                      strict: bool = False, rejected: list | None = None,
                      clear_lines: float = np.inf) -> list[_Candidate]:
    """Refine each u → small-image homography locally and keep those passing :func:`_accepted`.

    ``strict`` (the fallback sources, whose outlines are further from the grid): the mountains
    must confirm the lattice clearly (separation ≥ ``MOUNTAINS_CARRY``) whatever its line score,
    and the lines must not be faint; a wrong outline refined into a lattice stretched over a few
    cells can still show lines. A lattice at least ``clear_lines`` clear (the segment source,
    whose quads lie on the frame's own sides) passes strict with the mountains showing at least
    ``SEGMENT_MOUNTAINS`` (and never contradicting it).
    """
    out = []
    for hom in hypotheses:
        hom, pts, disp = _refine_coarse_to_fine(darkest, hom)
        score = lattice_score(darkest, pts)
        separation = _mountain_separation(small, pts) if score >= FAINT_LINE_CONTRAST else None
        if separation is None or not (_darkness_passes(score, separation, strict, clear_lines)
                                      or _likeness_passes(small, pts, score, strict)):
            if rejected is not None:  # for the thin-line rescue (fit_grid), judged only if nothing passes
                rejected.append((hom, pts, disp, strict))
            continue
        out.append(_Candidate(hom, disp, score, separation, area_corners(pts), _share_inside(pts, small.shape)))
    return out


def _darkness_passes(score: float, separation: float, strict: bool, clear_lines: float) -> bool:
    """The line score and the mountains' darkness pass :func:`_check_hypotheses`'s checks."""
    if not _accepted(score, separation):
        return False
    if not strict:
        return True
    return (separation >= MOUNTAINS_CARRY and score >= WEAK_LINE_CONTRAST) \
        or (score >= clear_lines and separation >= SEGMENT_MOUNTAINS)


def _likeness_passes(image: np.ndarray, pts: np.ndarray, score: float, strict: bool) -> bool:
    """Lines clear enough (a strict source's: ``MIN_LINE_CONTRAST``) and the mountains' likeness settling
    the layout (:func:`_likeness_settles`): a printing whose mountains are not dark."""
    return score >= (MIN_LINE_CONTRAST if strict else WEAK_LINE_CONTRAST) and _likeness_settles(image, pts)


def find_grid(image: np.ndarray, max_refined: int = 8, long_side: int = FIND_LONG_SIDE,
              fallback: bool = False, rejected: list | None = None) -> tuple[np.ndarray, np.ndarray, float] | None:
    """The best 11 × 11 lattice in ``image``: (u → photo homography, displacement field u, score).

    Works on the photo shrunk to ``long_side``: quad candidates → lattice re-anchoring
    (cheap pre-check) → local refinement of the best few → :func:`lattice_score` and the
    mountains (:func:`_accepted`). ``None`` when no candidate passes. A lattice whose darkest
    cells are not some side's five mountains is refused whatever its score: the coin track and
    season boxes next to the grid look like a lattice one or two cells off. Among passing
    candidates the largest inside the photo wins (the user's sheet, not one lying beside it), placed
    by the best of its overlapping candidates (:func:`_choose`). Refined candidates that fail the checks
    are appended to ``rejected`` (full-photo homography, crossings and displacement, strict) if given.
    """
    best = _search(image, max_refined, long_side, fallback, rejected)
    return None if best is None else (best.homography, best.disp, best.score)


def _search(image: np.ndarray, max_refined: int = 8, long_side: int = FIND_LONG_SIDE,
            fallback: bool = False, rejected: list | None = None) -> _Candidate | None:
    """:func:`find_grid`'s search, its choice in full-photo pixels (for ranking against other searches)."""
    h, w = image.shape[:2]
    shrink = min(1.0, long_side / max(h, w))
    small = cv2.resize(image, (int(w * shrink), int(h * shrink)), interpolation=cv2.INTER_AREA) if shrink < 1 else image
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    darkest = line_image(small)
    pre: list[tuple[float, np.ndarray, list[np.ndarray]]] = []
    here: list = []
    for quad in ([] if fallback else quad_candidates(gray)):
        as_cells = _quad_homography(quad)
        hom, contrast = lattice_fit(darkest, as_cells)
        if contrast >= PRECHECK_CONTRAST:
            # the quad may be the cell area, the frame band's outer line, or only near the lattice
            pre.append((contrast, quad, [as_cells, as_cells @ FRAME_OUTER_TO_CELLS, hom]))
    pre.sort(key=lambda t: -t[0])
    passing: list[_Candidate] = []
    for _, quad, hypotheses in pre[:max_refined]:
        if passing and _cannot_win(quad, _choose(passing)):
            continue
        passing += _check_hypotheses(small, darkest, hypotheses, rejected=here)
    if fallback:
        # the second source, tried only when the frame quads gave nothing at either size
        usual, late = _segment_quad_sets(gray)
        sources = [(h, np.inf) for h in _fallback_hypotheses(gray)]
        sources += [(_segment_hypotheses(q), SEGMENT_CLEAR_LINES) for q in usual]
        for _, hypotheses, clear in _prechecked(darkest, sources)[:FALLBACK_REFINED]:
            passing += _check_hypotheses(small, darkest, hypotheses, strict=True, rejected=here, clear_lines=clear)
        if not passing:  # a frame side outranked by longer lines: last, on a small budget of its own
            for _, hypotheses, clear in _prechecked(darkest, [(_segment_hypotheses(q), SEGMENT_CLEAR_LINES)
                                                              for q in late])[:SEGMENT_LATE_REFINED]:
                passing += _check_hypotheses(small, darkest, hypotheses, strict=True, clear_lines=clear)
    to_full = np.diag([1.0 / shrink, 1.0 / shrink, 1.0])
    if rejected is not None:
        rejected += [(to_full @ hom, pts / shrink, disp, strict) for hom, pts, disp, strict in here]
    best = _choose(passing)
    return None if best is None else best.scaled(1.0 / shrink)


def _segment_hypotheses(quad: np.ndarray) -> list[np.ndarray]:
    """A segment quad as the cell area and as the frame band's outer line."""
    as_cells = _quad_homography(quad)
    return [as_cells, as_cells @ FRAME_OUTER_TO_CELLS]


def _prechecked(darkest: np.ndarray, sources: list[tuple[list[np.ndarray], float]]) -> list[tuple]:
    """(contrast, hypotheses + the re-anchored one, clear) of the sources whose first hypothesis passes the
    pre-check (:func:`lattice_fit`), best contrast first."""
    out = []
    for hypotheses, clear in sources:
        hom, contrast = lattice_fit(darkest, hypotheses[0])
        if contrast >= PRECHECK_CONTRAST:
            out.append((contrast, hypotheses + [hom], clear))
    return sorted(out, key=lambda t: -t[0])


# ---- 2. local refinement -------------------------------------------------------------------
def _peaks(profiles: np.ndarray) -> np.ndarray:
    """Sub-pixel maximum of each row of ``profiles`` (parabola through the top three)."""
    n = profiles.shape[1]
    k = np.argmax(profiles, axis=1)
    kc = np.clip(k, 1, n - 2)
    idx = np.arange(len(profiles))
    a, b, c = profiles[idx, kc - 1], profiles[idx, kc], profiles[idx, kc + 1]
    den = a - 2 * b + c
    inside = (k == kc) & (den < 0)
    offset = np.where(inside, 0.5 * (a - c) / np.where(den < 0, den, -1.0), 0.0)
    return k + offset


def refine_intersections(image: np.ndarray, homography: np.ndarray, px: int = PX, prior: np.ndarray | None = None,
                         search_u: float = 0.3, ring: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Snap the 144 crossings to the printed lines near where ``homography`` (+ ``prior``) puts them.

    Returns (12, 12, 2) photo points and the displacement field in u. Each crossing is moved
    along x by the peak of the vertical line's profile and along y by the horizontal line's,
    searching ``search_u`` around the prior; the outer ring is snapped to the frame band
    (:func:`_snap_crossings`); the snaps are then made a smooth field (:func:`_smoothed`).
    """
    pts, disp, _, _ = _refine_detail(image, homography, px, prior, search_u, ring)
    return pts, disp


def _refine_detail(image: np.ndarray, homography: np.ndarray, px: int, prior: np.ndarray | None,
                   search_u: float, ring: bool = True,
                   kernel_u: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`refine_intersections` plus the raw snaps (u) and their strengths (``kernel_u``: see
    :func:`_snap_crossings`)."""
    snapped, strength = _snap_crossings(image, homography, px, prior, search_u, ring, kernel_u)
    disp = _smoothed(snapped, strength, ring)
    return lattice_points(homography, disp), disp, snapped, strength


def _snap_crossings(image: np.ndarray, homography: np.ndarray, px: int, prior: np.ndarray | None,
                    search_u: float, ring: bool = True, kernel_u: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Raw snaps (12, 12, 2) in u (displacement from the ideal crossing) and their strengths.

    Inner crossings: the peak of each line's black-hat profile across it, averaged along both
    arms of the line. The outer ring sits on the frame band (docs/printed-sheet.md: a thin line on
    the cell area's border and a thicker one ``GEOMETRY.frame_width`` outside it, ticks between):
    the coordinate across the frame is where both band lines fit (the inner one's peak is the
    snap, the outer one only tells which of the two it is), and the coordinate along the frame
    comes from the dashed line's inward arm only (the ticks between the band lines are not lines
    of the lattice). Without ``ring`` the outer ring is snapped like the inner crossings (the
    candidate search, which takes the ring from the surface and needs the time). The black-hat is a
    third of a cell wide, or ``kernel_u`` (the thin-line refinement, :func:`_thin_line_rescue`).
    """
    margin = 1.2
    canon = warp_canonical(line_image(image), homography, px, -margin, -margin, GRID + margin, GRID + margin)
    lines = black_hat(canon, px // 3 if kernel_u is None else int(kernel_u * px)).astype(np.float32)
    prior = np.zeros((LINES, LINES, 2)) if prior is None else prior
    search = int(search_u * px)
    band = int(round(GEOMETRY.frame_width * px))
    extra = band + 2 if ring else 0
    arm = int(0.42 * px)
    gap = int(0.08 * px)
    ideal = ideal_intersections()
    # canonical pixel X has its centre at u = (X + 0.5) / px − margin
    cx = np.round((margin + ideal[..., 0] + prior[..., 0]) * px - 0.5).astype(int).ravel()
    cy = np.round((margin + ideal[..., 1] + prior[..., 1]) * px - 0.5).astype(int).ravel()
    h, w = lines.shape
    across = np.arange(-search - extra, search + extra + 1)
    half = np.arange(gap, arm)
    both = np.concatenate([-half[::-1] - 1, half])  # both arms: the negative one first
    snapped = np.zeros((LINES, LINES, 2))
    strength = np.zeros((LINES, LINES, 2))
    row_index, col_index = np.divmod(np.arange(LINES * LINES), LINES)  # of each ravelled crossing
    window_d = np.arange(extra, extra + 2 * search + 1)  # the searched offsets within a profile
    for k in range(2):
        if k == 0:  # vertical line near each crossing: rows along it, columns across it → profile over x
            rows = np.clip(cy[:, None, None] + both[None, :, None], 0, h - 1)
            cols = np.clip(cx[:, None, None] + across[None, None, :], 0, w - 1)
        else:
            rows = np.clip(cy[:, None, None] + across[None, None, :], 0, h - 1)
            cols = np.clip(cx[:, None, None] + both[None, :, None], 0, w - 1)
        samples = lines[rows, cols]
        prof = samples.mean(axis=1)
        centre = (cx, cy)[k]
        # which arm to average: both inside; only the inward one on the ring rows/columns along the frame
        along_index, across_index = (row_index, col_index) if k == 0 else (col_index, row_index)
        if ring:
            neg, pos = samples[:, :len(half)].mean(axis=1), samples[:, len(half):].mean(axis=1)
            prof = np.where((along_index == 0)[:, None], pos, prof)
            prof = np.where((along_index == GRID)[:, None], neg, prof)
        inner = prof[:, window_d]
        peak = _peaks(inner)
        value = inner.max(axis=1)
        # frame lines (x of columns 0 and 11, y of rows 0 and 11): the inner band line with the outer one beside it
        for edge, outward in (((0, -1), (GRID, 1)) if ring else ()):
            sel = across_index == edge
            p = prof[sel]
            pair_score = np.minimum(p[:, window_d], p[:, window_d + outward * band])
            best = window_d[np.argmax(pair_score, axis=1)]
            lo = np.clip(best - 2, 0, p.shape[1] - 5)
            window = np.take_along_axis(p, lo[:, None] + np.arange(5)[None, :], axis=1)
            peak[sel] = lo - extra + _peaks(window)
            value[sel] = pair_score.max(axis=1)
        snapped[..., k] = ((centre - search + peak + 0.5) / px - margin - ideal[..., k].ravel()).reshape(LINES, LINES)
        strength[..., k] = (value - _median(inner, 1)).reshape(LINES, LINES)
    return snapped, strength


def _surface_terms(i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Cubic surface terms in crossing indices scaled to about ±1 (10 terms)."""
    y = (i - 5.5) / 5.5
    x = (j - 5.5) / 5.5
    return np.stack([np.ones_like(x), x, y, x * x, x * y, y * y, x ** 3, x * x * y, x * y * y, y ** 3], axis=-1)


def _robust_surface(values: np.ndarray, strength: np.ndarray, terms: np.ndarray) -> np.ndarray:
    """Coefficients of a weighted surface through ``values`` that noisy snaps cannot bend.

    Coarse to fine: first a plane (3 terms) by iteratively reweighted least squares (L1-like, so
    a good share of the snaps may sit on a drawn stroke or the wrong frame line), then quadratic
    and cubic terms, each fitted only on the snaps that agree with the previous, coarser surface;
    a finer surface is used only when enough snaps support it. (One cubic fit through all snaps
    let faint lines under colour shading or marker symbols bend the outer columns by half a cell.)
    """
    s = np.clip(strength, 0, None)
    coef = np.zeros(terms.shape[-1])
    if s.sum() <= 0:
        return coef
    w = s.copy()
    for _ in range(6):  # plane, IRLS
        sw = np.sqrt(w)
        coef[:3], *_ = np.linalg.lstsq(terms[:, :3] * sw[:, None], values * sw, rcond=None)
        w = s / np.maximum(np.abs(values - terms @ coef), 0.03)
    for n_terms, tol in ((6, 0.15), (10, 0.08), (10, 0.06), (10, 0.06)):
        w = np.where(np.abs(values - terms @ coef) < tol, s, 0.0)
        if (w > 0).sum() < 3 * n_terms:
            break
        sw = np.sqrt(w)
        fine = np.zeros_like(coef)
        fine[:n_terms], *_ = np.linalg.lstsq(terms[:, :n_terms] * sw[:, None], values * sw, rcond=None)
        coef = fine
    return coef


def _smoothed(disp: np.ndarray, strength: np.ndarray, ring: bool = True) -> np.ndarray:
    """Snaps → a smooth curl field: a robust coarse-to-fine surface (:func:`_robust_surface`)
    through the inner crossings, plus small local residuals (≤ ``LOCAL_RESIDUAL_U``) where a snap
    agrees with the surface; the outer ring follows the frame band (:func:`_ring_correction`).

    The frame is a double band with ticks and mountains carry line-like drawings, so single snaps
    can jump; paper curl is smooth over the sheet. The surface alone, extrapolated to the outer
    ring, misses a bowed or distorted frame by up to half a cell.
    """
    ii, jj = np.mgrid[0:LINES, 0:LINES].astype(np.float64)
    terms = _surface_terms(ii, jj)
    inner = np.zeros((LINES, LINES), bool)
    inner[1:-1, 1:-1] = True
    out = np.empty_like(disp)
    for k in range(2):
        surface = terms @ _robust_surface(disp[..., k][inner], strength[..., k][inner], terms[inner])
        res = disp[..., k] - surface
        keep = inner & (np.abs(res) < LOCAL_RESIDUAL_U)
        out[..., k] = surface + np.where(keep, res, 0.0)
        if ring:
            out[..., k] += _ring_correction(res, strength[..., k], k)
    return np.clip(out, -MAX_DISPLACEMENT_U, MAX_DISPLACEMENT_U)


RING_MIN_AGREEING = 7  # of a side's 12 snaps, within RING_AGREE_U of its smooth fit, to move that side
RING_AGREE_U = 0.05
RING_MAX_U = 0.35  # the ring moves at most this far from the surface's extrapolation
RING_LOCAL_U = 0.2  # a strong frame snap may differ this much from its side's smooth fit (a curled corner)
FINAL_PASSES = 2


def _ring_correction(res: np.ndarray, strength: np.ndarray, k: int) -> np.ndarray:
    """(12, 12) correction of coordinate ``k`` on the outer ring, zero inside.

    ``res`` = snap − surface. Along each side of the ring a robust quadratic through the 12
    snaps' residuals (a finger or glare may hide a few) plus local residuals where a snap agrees;
    a side with too few agreeing snaps keeps the surface. The corners take coordinate ``k`` from
    the side across which it is measured (the frame line, not the dashed line's end).
    """
    out = np.zeros((LINES, LINES))
    t = (np.arange(LINES) - 5.5) / 5.5
    terms = np.stack([np.ones_like(t), t, t * t], axis=1)
    # sides along which coordinate k runs (dashed lines' inward arms) first, the frame lines last
    along = [(0, slice(None)), (GRID, slice(None))]  # rows 0 and 11
    frame = [(slice(None), 0), (slice(None), GRID)]  # columns 0 and 11
    if k == 1:
        along, frame = [(b, a) for a, b in along], [(b, a) for a, b in frame]
    for side in along + frame:
        r, s = res[side], np.clip(strength[side], 0, None)
        if s.sum() <= 0:
            continue
        w = s.copy()
        coef = np.zeros(3)
        for n_terms in (1, 1, 1, 2, 2, 3, 3, 3):  # IRLS, coarse to fine
            sw = np.sqrt(w)
            coef = np.zeros(3)
            coef[:n_terms], *_ = np.linalg.lstsq(terms[:, :n_terms] * sw[:, None], r * sw, rcond=None)
            w = s / np.maximum(np.abs(r - terms @ coef), 0.02)
        fit = terms @ coef
        agree = np.abs(r - fit) < RING_AGREE_U
        if agree.sum() < RING_MIN_AGREEING or np.abs(fit).max() > RING_MAX_U:
            continue
        strong = (s >= 0.5 * np.median(s[s > 0])) & (side in frame)
        local = np.where(np.abs(r - fit) < np.where(strong, RING_LOCAL_U, LOCAL_RESIDUAL_U), r - fit, 0.0)
        out[side] = fit + local
    return out


def _thin_line_rescue(image: np.ndarray, rejected: list) -> tuple[np.ndarray, np.ndarray, float] | None:
    """(u → photo homography, displacement u, thin-line score) of :func:`_rescued`, or ``None``."""
    best = _rescued(image, rejected)
    return None if best is None else (best.homography, best.disp, best.score)


def _rescued(image: np.ndarray, rejected: list) -> _Candidate | None:
    """The best rejected candidate whose lattice stands out on thin lines (:func:`thin_line_score`).

    Sheets crowded with marker symbols fail :func:`lattice_score`, and their thick strokes pull
    the candidates' snaps up to half a cell off; this runs only when every search found nothing.
    The most promising distinct rejected candidates (:func:`_most_promising`; the others cost a
    no-grid photo seconds) are judged, each also refined again on thin lines only (snaps on a
    ``THIN_KERNEL_U`` black-hat at ``THIN_PX``, :func:`_refine_coarse_to_fine`) and re-fitted as a whole
    to the thin lines measured in strips (:func:`_thin_line_fit`, which strokes pull off less). The same checks
    apply with the thin-line score in place of the line score (:func:`_accepted`: mountains never
    darker elsewhere, i.e. no lattice off by a cell; a weak lattice, under ``MIN_LINE_CONTRAST``,
    needs them to confirm it), but no faint one (under ``WEAK_LINE_CONTRAST``) is rescued, and the
    fallback sources still need the mountains to confirm clearly. Glare that washes the mountains'
    darkness out (no cell darker than another: separation 0) leaves their printed glyph: a lattice
    on which the glyph alone settles side, turn and shift (:func:`_glyph_settles`) needs no darkness,
    and without darkness nothing else will do.
    """
    passing: list[_Candidate] = []
    pre = []
    darkest = line_image(image)
    for hom, pts, disp, strict in _most_promising(image, darkest, rejected):
        shown = thin_line_score(darkest, pts)
        pre.append((shown, hom, pts, disp, strict))
        fitted = _thin_line_fit(darkest, hom)
        if fitted is not None:
            pts_fit = lattice_points(fitted)
            pre.append((thin_line_score(darkest, pts_fit), fitted, pts_fit, np.zeros_like(disp), strict))
            shown = max(shown, pre[-1][0])
        if shown >= THIN_REFINE_FROM:  # no lines in sight: a refinement would not find any (and costs the time)
            hom, pts, disp = _refine_coarse_to_fine(darkest, hom, THIN_PX, THIN_KERNEL_U)
            pre.append((thin_line_score(darkest, pts), hom, pts, disp, strict))
    pre.sort(key=lambda t: -t[0])
    for score, hom, pts, disp, strict in pre[:THIN_MAX_RESCUED]:
        if score < WEAK_LINE_CONTRAST:
            break
        separation = _mountain_separation(image, pts)
        # all cells equally light (separation 0) says nothing about a one-cell shift: the glyph must
        darkness_ok = separation > 0 and _accepted(score, separation) and not (strict and separation < MOUNTAINS_CARRY)
        if not darkness_ok and not _glyph_settles(image, pts) and not _likeness_settles(image, pts):
            continue
        passing.append(_Candidate(hom, disp, score, max(separation, 0.0), area_corners(pts),
                                  _share_inside(pts, image.shape)))
    return _choose(passing)


LINE_FIT_SEARCH_U = (0.45, 0.3, 0.2, 0.15)  # each pass looks for every line this far from where the last put it
LINE_FIT_STRIPS = 4  # each line is measured in this many strips along it (a homography bends no line)
LINE_FIT_OUTLIER_U = 0.12  # a strip's line further than this from the fitted lattice is left out of the next fit
LINE_FIT_MARGIN_U = 0.6  # rectified around the cell area, so a line near it is searched on both sides
#: share of the strip measurements a pass must keep on its fitted lattice: a candidate on the sheet's lines
#: kept 0.72–0.91 after the first pass on dev photos, most of the wrong ones 0.3–0.65 (they stop there: time)
LINE_FIT_MIN_KEPT = 0.65
LINE_FIT_MIN_PER_AXIS = 6  # strip measurements each axis must keep for a line fit (its 3 terms, twice over)


def _thin_line_fit(darkest: np.ndarray, homography: np.ndarray) -> np.ndarray | None:
    """A candidate's u → photo homography re-fitted to the thin printed lines (the rescue).

    Local snaps average a crossing's arms, half a cell, and thick marker strokes pull them off
    (:func:`_thin_line_rescue`); here each inner line is measured as the peak of a thin-line
    profile (a ``THIN_KERNEL_U`` black-hat at ``THIN_PX``) median over a quarter of its length
    (``LINE_FIT_STRIPS``), where strokes in the cells' middles cancel. Every measurement says
    "this point lies on line i", a linear constraint on the homography (:func:`_lines_homography`);
    the passes narrow the search (``LINE_FIT_SEARCH_U``). ``None`` when a pass keeps under
    ``LINE_FIT_MIN_KEPT`` of its measurements (no lattice of lines there).
    """
    m = LINE_FIT_MARGIN_U
    for search_u in LINE_FIT_SEARCH_U:
        canon = warp_canonical(darkest, homography, THIN_PX, -m, -m, GRID + m, GRID + m)
        lines = black_hat(canon, int(THIN_KERNEL_U * THIN_PX)).astype(np.float32)
        correction, kept = _lines_homography(_line_measures(lines, search_u))
        undo = invert_homography(correction)
        if undo is None or kept < LINE_FIT_MIN_KEPT:
            return None
        homography = homography @ undo
    return homography


def _line_measures(lines: np.ndarray, search_u: float) -> np.ndarray:
    """(axis, position u across the line, position u along it, line index, prominence) of each inner
    line's profile peak within ``search_u`` in each strip of a thin-line image rectified at ``THIN_PX``
    with a ``LINE_FIT_MARGIN_U`` margin (axis 0: the lines of constant x)."""
    px, m = THIN_PX, LINE_FIT_MARGIN_U
    edges = np.linspace(m * px, (m + GRID) * px, LINE_FIT_STRIPS + 1).astype(int)
    near = np.arange(-int(search_u * px), int(search_u * px) + 1)
    index = np.arange(1, GRID)
    out = []
    for axis in (0, 1):
        for lo, hi in zip(edges[:-1], edges[1:]):
            # every other pixel along the line: as good a median in half the time
            median = _median(lines[lo:hi:2, :], 0) if axis == 0 else _median(lines[:, lo:hi:2], 1)
            profile = cv2.GaussianBlur(median.reshape(1, -1), (0, 0), 0.03 * px).ravel()
            centres = np.round((m + index) * px - 0.5).astype(int)
            window = profile[np.clip(centres[:, None] + near[None, :], 0, len(profile) - 1)]
            peak = _peaks(window)
            inside = (peak > 0) & (peak < len(near) - 1)  # a maximum on the window's edge is no line
            across = (centres + near[0] + peak + 0.5) / px - m
            along = (lo + hi) / 2 / px - m
            prominence = window.max(axis=1) - np.median(profile)
            for i in np.nonzero(inside & (prominence > 0))[0]:
                out.append((axis, across[i], along, index[i], prominence[i]))
    return np.array(out).reshape(-1, 5)


def _lines_homography(measures: np.ndarray) -> tuple[np.ndarray | None, float]:
    """The homography u → u putting each measured point on its line (weighted least squares on the
    linear constraints x' = i or y' = j, centred and scaled to ±1; strips further than
    ``LINE_FIT_OUTLIER_U`` from the fit are dropped twice), and the share of measurements within that
    of the final fit. ``None`` with fewer than ``LINE_FIT_MIN_PER_AXIS`` kept on either axis (each axis
    fixes its own three terms: lines of one axis alone leave the other's free), or a rank-deficient system.

    >>> lines = [(a, p, q, i, 1.0) for a in (0, 1) for i in range(1, 11) for q in (1.5, 4.5, 7.5)
    ...          for p in [float(i)]]
    >>> h, kept = _lines_homography(np.array(lines))
    >>> bool(np.allclose(h / h[2, 2], np.eye(3), atol=1e-9)), kept
    (True, 1.0)
    >>> _lines_homography(np.array([m for m in lines if m[0] == 0]))  # one axis only: no fit
    (None, 0.0)
    """
    axis, across, along, index, weight = measures.T if len(measures) else np.zeros((5, 0))
    c = GRID / 2
    x = np.where(axis == 0, across, along) / c - 1
    y = np.where(axis == 0, along, across) / c - 1
    t = index / c - 1
    one, zero = np.ones_like(x), np.zeros_like(x)
    vertical = axis[:, None] == 0
    a = np.where(vertical, np.stack([x, y, one, zero, zero, zero, -t * x, -t * y], 1),
                 np.stack([zero, zero, zero, x, y, one, -t * x, -t * y], 1))
    keep = np.ones(len(t), bool)
    for _ in range(3):
        if min((keep & (axis == 0)).sum(), (keep & (axis == 1)).sum()) < LINE_FIT_MIN_PER_AXIS:
            return None, 0.0
        sw = np.sqrt(weight[keep])
        h, _, rank, _ = np.linalg.lstsq(a[keep] * sw[:, None], t[keep] * sw, rcond=None)
        if rank < a.shape[1]:
            return None, 0.0
        keep = np.abs(a @ h - t) * c < LINE_FIT_OUTLIER_U
    norm = np.array([[1 / c, 0, -1], [0, 1 / c, -1], [0, 0, 1.0]])
    return np.linalg.inv(norm) @ np.append(h, 1.0).reshape(3, 3) @ norm, float(keep.mean())


def _most_promising(image: np.ndarray, darkest: np.ndarray, rejected: list) -> list[tuple]:
    """The distinct failed candidates (hom, crossings, displacement, strict) that came closest: the
    ``THIN_MAX_LATTICES`` best on thin lines at half the resolution (:func:`thin_line_score` at
    ``THIN_PX // 2``, a quarter of the pixels) and the ``THIN_MAX_LATTICES`` best by lattice score + 2 ×
    mountain separation (lines hidden under strokes, but the mountains on their cells, not contradicted);
    ``darkest`` is the photo's :func:`line_image`."""
    distinct: list[np.ndarray] = []
    rows = []
    for hom, pts, disp, strict in rejected:
        corners = area_corners(pts)
        if _is_new_quad(corners, distinct):
            distinct.append(corners)
            near = lattice_score(darkest, pts) + 2 * _mountain_separation(image, pts)
            rows.append((thin_line_score(darkest, pts, THIN_PX // 2), near, (hom, pts, disp, strict)))
    by_thin = sorted(range(len(rows)), key=lambda k: -rows[k][0])[:THIN_MAX_LATTICES]
    by_lattice = sorted(range(len(rows)), key=lambda k: -rows[k][1])[:THIN_MAX_LATTICES]
    return [rows[k][2] for k in dict.fromkeys(by_thin + by_lattice)]


def _glyph_settles(image: np.ndarray, intersections: np.ndarray) -> bool:
    """Whether the printed mountain glyph alone settles some side and turn on this lattice and rules
    out its one-cell shifts (:func:`vision.orient.glyph_sure`)."""

    px = LATTICE_PX
    cells = rectify_cell_area(image, intersections, px)
    ncc = glyph_correlations(cells, px)
    return any(glyph_sure(ncc, side, k) for side in SIDES for k in range(4))


def _likeness_settles(image: np.ndarray, intersections: np.ndarray) -> bool:
    """Whether the five mountains of some side and turn look alike on this lattice, clearly more than
    any other layout's and any one-cell shift's (:func:`vision.orient.likeness_sure`): the check
    for printings whose mountains are not dark (line art on white)."""

    cells = rectify_cell_area(image, intersections, PX)
    return best_likeness_margin(cells, PX) >= LIKENESS_SURE_MARGIN


def fit_grid(image: np.ndarray) -> GridFit | None:
    """Find, check and refine the grid in a decoded photo; ``None`` when there is none.

    The search runs at ``FIND_LONG_SIDE`` first and, if nothing is found, once more at
    ``FIND_LONG_SIDE_RETRY`` (a sheet small in the frame has cells of a dozen pixels at the first).
    """
    found = _find(image)
    if found is None:
        return None
    try:
        return _finish(image, found)
    except DegenerateFit:  # the finished crossings span no plane: that was no sheet's grid
        return None


def _find(image: np.ndarray) -> tuple[np.ndarray, np.ndarray, float] | None:
    """The searches of :func:`fit_grid`, fastest first: (u → photo homography, displacement u, score).

    When a lattice is found, failed lattices apart from it that could outrank it (:func:`_rivals`: the
    user's marker-filled sheet failing beside a blank one lying next to it) get the thin-line rescue
    too, and the rank decides.
    """
    rejected: list = []
    found = _search(image, rejected=rejected)
    if found is None and max(image.shape[:2]) > FIND_LONG_SIDE:
        found = _search(image, long_side=FIND_LONG_SIDE_RETRY, rejected=rejected)
    if found is None:  # the slower second source, only now: the common path stays as fast
        found = _search(image, fallback=True, rejected=rejected)
    if found is None and max(image.shape[:2]) > FIND_LONG_SIDE:
        found = _search(image, long_side=FIND_LONG_SIDE_RETRY, fallback=True, rejected=rejected)
    if found is None:  # last: the refined candidates that failed, judged on thin lines only
        found = _rescued(image, rejected)
    elif rivals := _rivals(found, rejected, image.shape):
        rescued = _rescued(image, rivals)
        if rescued is not None and rescued.rank > found.rank:
            found = rescued
    return None if found is None else (found.homography, found.disp, found.score)


#: a failed lattice apart from the found one is rescued when its area inside the photo × this could outrank
#: the found one (a rescued rank factor is its thin-line score, capped at 2, + 2 × mountain separation, which
#: is small on the sheets that fail the usual check): 2 kept every result of 3 on 95 photos, with 40 % fewer rescues
RIVAL_FACTOR = 2.0


def _rivals(found: _Candidate, rejected: list, shape: tuple[int, ...]) -> list:
    """The failed candidates (as in ``rejected``: full-photo homography, crossings, displacement, strict) of
    another sheet than ``found`` (neither's centre inside the other's cell area) that could outrank it."""
    outline = found.corners.astype(np.float32).reshape(-1, 1, 2)
    centre = tuple(float(v) for v in found.corners.mean(axis=0))
    out = []
    for entry in rejected:
        corners = area_corners(entry[1])
        shown = cv2.contourArea(corners.astype(np.float32)) * _share_inside(entry[1], shape)
        if shown * RIVAL_FACTOR <= found.rank:
            continue
        mid = tuple(float(v) for v in corners.mean(axis=0))
        if cv2.pointPolygonTest(outline, mid, False) <= 0 \
                and cv2.pointPolygonTest(corners.astype(np.float32).reshape(-1, 1, 2), centre, False) <= 0:
            out.append(entry)
    return out


def _finish(image: np.ndarray, found: tuple[np.ndarray, np.ndarray, float]) -> GridFit:
    """The final refinement at ``PX`` of a found lattice, and each crossing's doubt.

    Where a patch of crossings disagrees with its snaps (:func:`crossing_doubt` over ``DOUBT_U``:
    the found homography is off there by more than the final search reaches, e.g. a corner
    stretched by curl or a finger), the homography is re-anchored on the crossings in no doubt
    and the crossings are snapped again from it (:func:`_reanchored`; on fewer of them only when
    that fails: :func:`_sure_tiers`); where some are still
    doubted, a side the lattice overshot by a line is pulled in (:func:`_side_pulled`) or the
    lattice is refitted on thin lines (:func:`_thin_refit`; :func:`_locally_corrected`).
    """
    hom, disp, score = found
    darkest = line_image(image)
    for _ in range(FINAL_PASSES):  # a second pass reaches a frame corner the first one bent towards
        pts, disp, snapped, strength = _refine_detail(darkest, hom, PX, disp, 0.15)
    doubt = crossing_doubt(snapped, strength, disp)
    if (doubt > DOUBT_U).any():
        found_score = functools.cache(lambda: lattice_score(darkest, pts))  # once for all tries, only if needed
        for tier in _sure_tiers(doubt):
            tries = [_unless_degenerate(_reanchored, image, darkest, pts, doubt, sure_u, found_score)
                     for sure_u in tier]
            tries = [t for t in tries if t is not None]
            if tries:
                pts, disp, doubt = min(tries, key=lambda t: (t[2] > DOUBT_U).sum())
                break
        if (doubt > DOUBT_U).any():
            pts, disp, doubt = _unless_degenerate(_locally_corrected, image, darkest, pts, disp, doubt) \
                or (pts, disp, doubt)
    residual = float(np.median(np.linalg.norm(disp, axis=2)))
    return GridFit(pts, homography_from_intersections(pts), score, residual, doubt)


def _unless_degenerate(correction, *args):
    """``correction(*args)``, or ``None`` (no correction) when its evidence cannot define a fit."""
    try:
        return correction(*args)
    except DegenerateFit:
        return None


def shifted_fit(image: np.ndarray, fit: GridFit, rows: int, cols: int) -> GridFit:
    """The lattice ``rows``, ``cols`` cells away from ``fit`` (in its own u frame), snapped and
    finished like a found one: for a grid the printed glyph shows was placed a cell off
    (vision.orient.glyph_shift; under glare the darkness checks missed it). The new edge's crossings
    start from the homography's extrapolation, hence the wider first search."""
    move = np.array([[1.0, 0.0, cols], [0.0, 1.0, rows], [0.0, 0.0, 1.0]])
    hom = fit.homography @ move
    _, disp = refine_intersections(line_image(image), hom, search_u=0.3)
    return _finish(image, (hom, disp, fit.lattice_score))


SURE_U = (0.04, 0.05, 0.07)  # crossings under this doubt re-anchor the homography (each tried) …
MIN_SURE = 48  # … when there are at least this many of them; when none of those is kept …
#: … with this many (the rest of the sheet slid a line or more off: a bowed sheet's rows onto a gingham cloth's
#: stripes, a stain on curled paper; 17-45 sure crossings there, all within 0.07 u)
MIN_SURE_FEW = 16
SURE_SPAN = 3  # the sure crossings must cover this many rows and columns (a homography through one line is none)
SURE_MOVE_U = 0.1  # … and none of them may move further (a wrong re-anchoring drags some 0.25 u)
REANCHOR_KEEPS_SCORE = 1.0  # the re-anchored lattice's line score must keep this share of the first one's


def _sure_tiers(doubt: np.ndarray) -> list[list[float]]:
    """The ``SURE_U`` thresholds to re-anchor on, in two tiers tried in turn: those with ``MIN_SURE``
    crossings in no doubt or more, then those with ``MIN_SURE_FEW`` or more (a homography through a
    third of the sheet is kept only when the one through half of it is not)."""
    counts = [int((doubt < sure_u).sum()) for sure_u in SURE_U]
    return [[u for u, n in zip(SURE_U, counts) if n >= MIN_SURE],
            [u for u, n in zip(SURE_U, counts) if MIN_SURE_FEW <= n < MIN_SURE]]


def _reanchored(image: np.ndarray, darkest: np.ndarray, pts: np.ndarray, doubt: np.ndarray, sure_u: float,
                found_score: Callable[[], float]):
    """Snap again from a homography through the crossings in no doubt (under ``sure_u``); ``None``
    unless it is better: fewer doubted crossings, the sure ones not moved, the lattice not weaker
    than ``found_score()`` (``pts``'s line score) and the mountains not contradicting it; through
    fewer than ``MIN_SURE`` crossings, its thin-line score (:func:`thin_line_score`) not lower either."""
    sure = doubt < sure_u
    rows, cols = np.nonzero(sure)
    if sure.sum() < MIN_SURE_FEW or min(len(set(rows)), len(set(cols))) < SURE_SPAN:
        return None
    ideal = ideal_intersections()
    hom, _ = cv2.findHomography(ideal[sure].reshape(-1, 2), pts[sure].reshape(-1, 2).astype(np.float64), 0)
    inv = invert_homography(hom)
    if inv is None:
        return None
    prior = cv2.perspectiveTransform(pts.reshape(1, -1, 2), inv)[0].reshape(LINES, LINES, 2) - ideal
    prior[~sure] = 0.0  # where in doubt: the homography's own guess
    disp = prior
    for search in (0.3, 0.15):
        new_pts, disp, snapped, strength = _refine_detail(darkest, hom, PX, disp, search)
    new_doubt = crossing_doubt(snapped, strength, disp)
    if (new_doubt > DOUBT_U).sum() >= (doubt > DOUBT_U).sum():
        return None
    moved = np.linalg.norm(cv2.perspectiveTransform(new_pts.reshape(1, -1, 2), inv)[0].reshape(LINES, LINES, 2)
                           - prior - ideal, axis=2)
    if moved[sure].max() > SURE_MOVE_U:
        return None
    if (lattice_score(darkest, new_pts) < REANCHOR_KEEPS_SCORE * found_score()
            or _mountain_separation(image, new_pts) < 0):
        return None
    if sure.sum() < MIN_SURE and thin_line_score(darkest, new_pts) < thin_line_score(darkest, pts):
        return None  # through a third of the sheet: its thin lines must agree too (strokes fool the line score)
    return new_pts, disp, new_doubt


def _locally_corrected(image: np.ndarray, darkest: np.ndarray, pts: np.ndarray, disp: np.ndarray,
                       doubt: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(crossings, displacement, doubt) after the side pull (:func:`_side_pulled`) and the thin-line
    refit (:func:`_thin_refit`, when ``THIN_REFIT_DOUBTED`` crossings or more are in doubt), each
    tried on the lattice in doubt. When both are kept, the one whose mountains separate more
    clearly wins (a refit that stretched the lattice a line over one side fits the thin lines as
    well as the pulled one, but its mountains straddle cells); a pulled lattice still in doubt is
    refitted once more."""
    pulled = _side_pulled(image, darkest, pts, doubt)
    refit = _thin_refit(image, darkest, pts, doubt) if (doubt > DOUBT_U).sum() >= THIN_REFIT_DOUBTED else None
    if pulled is not None and refit is not None:
        if _mountain_separation(image, refit[0]) > _mountain_separation(image, pulled[0]):
            return refit
    elif refit is not None:
        return refit
    if pulled is None:
        return pts, disp, doubt
    if (pulled[2] > DOUBT_U).sum() < THIN_REFIT_DOUBTED:
        return pulled
    again = _thin_refit(image, darkest, pulled[0], pulled[2])
    return pulled if again is None else again


THIN_REFIT_DOUBTED = 12  # the thin-line refit is tried on this many doubted crossings (one stroke's snap: ≤ 9) …
THIN_REFIT_GAIN = 1.5  # … and kept when its thin-line score beats the fit's by this factor …
THIN_REFIT_MOUNTAINS = 0.05  # … and its mountains separate at most this much less clearly (a cell off: < 0)


def _thin_refit(image: np.ndarray, darkest: np.ndarray, pts: np.ndarray,
                doubt: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The lattice refitted on thin lines only, if it fits them clearly better.

    Thick marker strokes, a stain or a fold can hold a patch of snaps half a cell off, or one line
    off, and the smooth field then follows them over a whole part of the sheet. Two refits that the
    strokes pull off less, from the homography through the crossings: its crossings snapped on a
    ``THIN_KERNEL_U`` black-hat (±0.3 u, then ±0.15 u twice), and the homography re-fitted to whole
    thin lines measured in strips (:func:`_thin_line_fit`), then snapped as usual (±0.15 u). The one
    with the better thin-line score (:func:`thin_line_score`) is kept when it beats the fit's by
    ``THIN_REFIT_GAIN``, with no more doubted crossings and its mountains separating about as
    clearly (``THIN_REFIT_MOUNTAINS``; its doubt and line score alone are no proof: under marker
    symbols a lattice off by half a cell scores as well). Returns (crossings, displacement, doubt) or ``None``.
    """
    hom = homography_from_intersections(pts)
    disp = cv2.perspectiveTransform(pts.reshape(1, -1, 2), np.linalg.inv(hom))[0].reshape(LINES, LINES, 2)
    disp -= ideal_intersections()
    for search in (0.3, 0.15, 0.15):
        new_pts, disp, snapped, strength = _refine_detail(darkest, hom, PX, disp, search, kernel_u=THIN_KERNEL_U)
    refits = [(new_pts, disp, crossing_doubt(snapped, strength, disp))]
    fitted = _thin_line_fit(darkest, hom)
    if fitted is not None:
        disp = np.zeros((LINES, LINES, 2))
        for _ in range(FINAL_PASSES):
            new_pts, disp, snapped, strength = _refine_detail(darkest, fitted, PX, disp, 0.15)
        refits.append((new_pts, disp, crossing_doubt(snapped, strength, disp)))
    score, best = max(((thin_line_score(darkest, r[0]), r) for r in refits), key=lambda t: t[0])
    if (score < THIN_REFIT_GAIN * thin_line_score(darkest, pts)
            or (best[2] > DOUBT_U).sum() > (doubt > DOUBT_U).sum()
            or _mountain_separation(image, best[0]) < _mountain_separation(image, pts) - THIN_REFIT_MOUNTAINS):
        return None
    return best


SIDE_PULL_U = 1.0  # a side hypothesis moves that side's ring this far inward (one line: the lattice overshot it) …
SIDE_PULL_LINES = 5  # … tapering to nothing this many lines inside
SIDE_PULL_GAIN = 1.3  # … and is kept only when its thin-line score beats the fit's by this factor, …
SIDE_PULL_GAIN_CONFIRMED = (1.15, 1.3)  # … or by this one with the lattice score beating the fit's by this one
SIDE_PULL_NEAR = 0.8  # a side is tried only when a crossing pulled this share of the way or more is doubted


def _side_pulls() -> list[tuple[int, np.ndarray]]:
    """The hypotheses of :func:`_side_pulled`: (coordinate, (12, 12) pull in u) for each side pulled
    in along its whole length or towards one of its two corners (a curled corner)."""
    taper = np.clip(1 - np.arange(LINES) / SIDE_PULL_LINES, 0, None) * SIDE_PULL_U
    ramp = np.arange(LINES) / GRID
    pulls = []
    for inward, sign in ((taper, 1.0), (taper[::-1], -1.0)):  # the side at index 0 is pulled towards +u
        for along in (np.ones(LINES), ramp, ramp[::-1]):
            pulls.append((1, sign * inward[:, None] * along[None, :]))  # a first or last row moves in y
            pulls.append((0, sign * inward[None, :] * along[:, None]))  # a first or last column in x
    return pulls


def _side_pulled(image: np.ndarray, darkest: np.ndarray, pts: np.ndarray,
                 doubt: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The lattice with one side pulled in by a line, if it fits the printed lines clearly better.

    Curled, bowed or folded paper bends most at its border; where the found lattice stretches an
    extra line over the last few columns (or rows) of one side, the outer ring ends on the table
    beyond the frame and every snap there lands on the neighbouring printed line, so the snaps agree
    with the wrong field. Each side (or one half of it) with a doubted crossing within its outer two
    lines (pulled ``SIDE_PULL_NEAR`` of the way or more) is tried pulled in by ``SIDE_PULL_U``,
    tapering over ``SIDE_PULL_LINES`` lines (:func:`_side_pulls`), and snapped again (±0.3 u, then
    ±0.15 u). The best is kept when its thin-line score (:func:`thin_line_score`: marker strokes do
    not count) beats the fit's by ``SIDE_PULL_GAIN`` — or by the first of ``SIDE_PULL_GAIN_CONFIRMED``
    with its lattice score (:func:`lattice_score`) beating the fit's by the second (a
    bowed sheet on gingham, whose table stripes beyond the frame the thin lines half believe) — and
    its mountains separate no less clearly (:func:`_mountain_separation`; its doubt is no test: the
    overshot lattice's snaps agree with it as well).
    Returns (crossings, displacement, doubt) or ``None``.
    """
    pulls = [(axis, pull) for axis, pull in _side_pulls()
             if ((doubt > DOUBT_U) & (np.abs(pull) >= SIDE_PULL_NEAR * SIDE_PULL_U)).any()]
    if not pulls:
        return None
    hom = homography_from_intersections(pts)
    field = cv2.perspectiveTransform(pts.reshape(1, -1, 2), np.linalg.inv(hom))[0].reshape(LINES, LINES, 2)
    field -= ideal_intersections()
    thin_gain, lattice_gain = SIDE_PULL_GAIN_CONFIRMED
    fit_thin = thin_line_score(darkest, pts)
    best, best_score = None, thin_gain * fit_thin
    for axis, pull in pulls:
        prior = field.copy()
        prior[..., axis] += pull
        for search in (0.3, 0.15):
            new_pts, prior, snapped, strength = _refine_detail(darkest, hom, PX, prior, search)
        score = thin_line_score(darkest, new_pts)
        if score > best_score:
            best, best_score = (new_pts, prior, crossing_doubt(snapped, strength, prior)), score
    if best is None or _mountain_separation(image, best[0]) < _mountain_separation(image, pts):
        return None
    if best_score <= SIDE_PULL_GAIN * fit_thin and lattice_score(darkest, best[0]) <= lattice_gain * lattice_score(darkest, pts):
        return None
    return best


DOUBT_U = 0.12  # a crossing whose doubt is above this may be more than 0.15 u off (dev: see docs/reader.md)
DOUBT_WEAK_U = 0.1  # doubt added for a crossing whose snaps are as weak as none


def crossing_doubt(snapped: np.ndarray, strength: np.ndarray, disp: np.ndarray) -> np.ndarray:
    """(12, 12) u: how far each final crossing may be from the printed one.

    The mean over each crossing's 3 × 3 neighbourhood of (the larger axis's |raw snap − final
    crossing|, plus ``DOUBT_WEAK_U`` × how much weaker than the median inner snap its snaps are).
    One snap off is a drawn stroke the smooth field rightly ignored; a patch of snaps off, or with
    no line to snap to, is where the field may be wrong (a finger, curl, a stretched corner).
    """
    s = np.clip(strength, 0, None)
    median = np.median(s[1:-1, 1:-1].reshape(-1, 2), axis=0)
    weak = (1 - np.clip(s / np.maximum(median, 1e-6), 0, 1)).max(axis=2)
    local = np.abs(snapped - disp).max(axis=2) + DOUBT_WEAK_U * weak
    return cv2.blur(local.astype(np.float32), (3, 3), borderType=cv2.BORDER_REFLECT).astype(np.float64)


