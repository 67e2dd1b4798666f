"""Finding the printed 11 × 11 grid in a photo, rectifying it, and following curled paper.

Three steps, each checkable on its own (sheet-reference.md, "Layout"):

1. :func:`find_grid` — quadrilateral candidates from the dark printed frame (adaptive threshold →
   contours → 4-gon fits), each checked to really be an 11 × 11 lattice by the periodic profile of
   the dashed cell lines (:func:`lattice_fit`); the fit also corrects a quad that followed the outer
   edge of the frame band instead of the cell area.
2. :func:`refine_intersections` — the 12 × 12 printed line crossings, each snapped locally to the
   nearest line crossing, regularised against its neighbours (a snap may move at most
   ``MAX_SNAP_U``; outliers are replaced by their neighbours' median) so the map follows curl.
3. :func:`sample_cells` — the canonical top-down cell area, ``PX`` pixels per grid unit, sampled
   through the bilinear interpolation of the snapped crossings (a piecewise grid remap).

Coordinates: photo points are (x, y) pixels of the decoded image; canonical points are grid
units ``u`` (origin top-left of the cell area, layout.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.layout import GRID

PX = 32  # canonical pixels per grid unit for the cell area
FIND_LONG_SIDE = 1000  # candidate search runs on the photo shrunk to this long side
LATTICE_PX = 16  # canonical pixels per unit when checking a candidate lattice
MIN_LINE_CONTRAST = 1.35  # dashed-line profile at lines / between lines, both axes
MAX_SNAP_U = 0.3  # a crossing moves at most this far from the global homography's guess
LINES = GRID + 1  # 12 printed lines each way
LOCAL_RESIDUAL_U = 0.04  # a snap may differ this much from the smooth curl surface
MIN_STANDING_LINES = 9  # of the 10 inner lines each way, in the lattice check


@dataclass
class GridFit:
    """The found grid: crossings in photo pixels, and how sure we are it is a lattice."""

    intersections: np.ndarray  # (12, 12, 2) photo (x, y); [i, j] is line row i, line column j
    homography: np.ndarray  # 3×3, canonical u → photo px (least squares over the crossings)
    lattice_score: float  # line / between-line profile ratio (≥ MIN_LINE_CONTRAST)
    snap_residual_u: float  # median |local snap| after regularisation, in u

    @property
    def corners(self) -> np.ndarray:
        """TL, TR, BR, BL corners of the cell area in photo pixels."""
        p = self.intersections
        return np.array([p[0, 0], p[0, -1], p[-1, -1], p[-1, 0]], dtype=np.float64)

    def rotated(self, quarter_turns: int) -> "GridFit":
        """The same fit with the grid turned ``quarter_turns`` × 90° counter-clockwise in u."""
        pts = np.rot90(self.intersections, quarter_turns, axes=(0, 1)).copy()
        return GridFit(pts, homography_from_intersections(pts), self.lattice_score, self.snap_residual_u)

    def cell_outlines(self) -> np.ndarray:
        """(11, 11, 4, 2) photo corners of every cell: TL, TR, BR, BL."""
        p = self.intersections
        return np.stack([p[:-1, :-1], p[:-1, 1:], p[1:, 1:], p[1:, :-1]], axis=2)

    def cell_size_px(self) -> float:
        """Median cell side in photo pixels."""
        p = self.intersections
        dx = np.linalg.norm(np.diff(p, axis=1), axis=2)
        dy = np.linalg.norm(np.diff(p, axis=0), axis=2)
        return float(np.median(np.concatenate([dx.ravel(), dy.ravel()])))


def ideal_intersections() -> np.ndarray:
    """(12, 12, 2) canonical crossings in u: [i, j] = (x=j, y=i)."""
    j, i = np.meshgrid(np.arange(LINES, dtype=np.float64), np.arange(LINES, dtype=np.float64))
    return np.stack([j, i], axis=2)


def homography_from_intersections(pts: np.ndarray) -> np.ndarray:
    """Least-squares homography canonical u → photo px through all 144 crossings."""
    h, _ = cv2.findHomography(ideal_intersections().reshape(-1, 2), pts.reshape(-1, 2).astype(np.float64), 0)
    return h


def line_image(bgr: np.ndarray) -> np.ndarray:
    """Darkest channel, so gold (side A) and blue-grey (side B) lines both stand out, as float32."""
    return bgr.min(axis=2).astype(np.float32)


def black_hat(gray: np.ndarray, width_px: int) -> np.ndarray:
    """Thin dark structures (narrower than ``width_px``) as positive values; wide dark areas cancel."""
    k = max(3, int(width_px) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    return cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT, kernel)


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
    h, w = gray.shape
    area_min = 0.004 * h * w
    block = max(15, (max(h, w) // 40) | 1)
    found: list[tuple[float, np.ndarray]] = []
    for c in (6, 12):
        mask = cv2.adaptiveThreshold(gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, c)
        mask = cv2.dilate(mask, np.ones((3, 3), np.uint8))
        contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
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
    found.sort(key=lambda t: -t[0])
    unique: list[np.ndarray] = []
    for _, q in found:
        side = np.sqrt(max(cv2.contourArea(q.astype(np.float32)), 1.0))
        if all(np.abs(q - u).max() > 0.03 * side for u in unique):
            unique.append(q)
        if len(unique) >= max_candidates:
            break
    return unique


def _plausible_quad(quad: np.ndarray) -> bool:
    """Convex, no side much shorter than the others (tilts up to ~60°)."""
    if not cv2.isContourConvex(quad.astype(np.float32).reshape(-1, 1, 2)):
        return False
    sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    return sides.min() > 0.3 * sides.max() and sides.min() > 20


# ---- lattice check -------------------------------------------------------------------------
def warp_canonical(image: np.ndarray, homography: np.ndarray, px: int, x0: float, y0: float,
                   x1: float, y1: float) -> np.ndarray:
    """The canonical region [x0, x1] × [y0, y1] (u) at ``px`` pixels per u, via a u → photo homography."""
    scale = np.array([[1.0 / px, 0, x0 + 0.5 / px], [0, 1.0 / px, y0 + 0.5 / px], [0, 0, 1]])
    m = homography @ scale  # canonical pixel → photo pixel
    size = (int(round((x1 - x0) * px)), int(round((y1 - y0) * px)))
    return cv2.warpPerspective(image, m, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)


def _profile_fit(profile: np.ndarray, px: int, margin: float) -> tuple[float, float, float, int]:
    """Best (offset u, spacing u, contrast, lines standing out) for 12 lines in a 1-D darkness profile.

    The profile is smoothed to about 0.1 u so a one-pixel line is found between pixel steps. A
    line "stands out" when it is darker than both neighbouring mid-cells by half the mean
    line/mid-cell difference; a real lattice has all 10 inner lines standing out.
    """
    n = len(profile)
    xs = np.arange(n, dtype=np.float64)
    sigma = max(0.8, 0.06 * px)
    smooth = cv2.GaussianBlur(profile.astype(np.float32).reshape(1, -1), (0, 0), sigma).ravel()
    spacing, offset = np.meshgrid(np.linspace(0.93, 1.07, 57), np.linspace(-0.45, 0.45, 73), indexing="ij")
    k = np.arange(1, GRID)
    lines = (margin + offset[..., None] + spacing[..., None] * k) * px - 0.5
    mids = (margin + offset[..., None] + spacing[..., None] * (np.arange(GRID) + 0.5)) * px - 0.5
    on = np.interp(lines, xs, smooth)
    off = np.interp(mids, xs, smooth)
    # medians: one frame line or a dark drawn stroke cannot make a wrong spacing win
    contrast = (np.median(on, axis=-1) + 1.0) / (np.median(off, axis=-1) + 1.0)
    valid = (lines.min(axis=-1) >= 0) & (mids.max(axis=-1) <= n - 1)
    contrast = np.where(valid, contrast, 0.0)
    a, b = np.unravel_index(int(np.argmax(contrast)), contrast.shape)
    on_b, off_b = on[a, b], off[a, b]
    step = 0.5 * (np.median(on_b) - np.median(off_b))
    standing = int(((on_b - off_b[:-1] > step) & (on_b - off_b[1:] > step)).sum())
    return float(offset[a, b]), float(spacing[a, b]), float(contrast[a, b]), standing


def lattice_fit(gray_small: np.ndarray, quad_to_u: np.ndarray) -> tuple[np.ndarray, float]:
    """Check a candidate and correct it to the lattice: (corrected u → photo homography, contrast).

    ``quad_to_u`` maps canonical u → photo px assuming the quad is the cell area. The dashed
    lines' profiles along x and y must show 10 inner lines a unit apart (contrast ≥
    ``MIN_LINE_CONTRAST``); offset and spacing found there re-anchor the grid.
    """
    margin = 0.7
    px = LATTICE_PX
    canon = warp_canonical(gray_small, quad_to_u, px, -margin, -margin, GRID + margin, GRID + margin)
    lines = black_hat(canon, px // 3)
    inner = slice(int((margin + 0.3) * px), int((margin + GRID - 0.3) * px))
    # medians, not means: a line crosses every row, drawn marks and mountains only a few
    col_profile = np.median(lines[inner, :], axis=0)
    row_profile = np.median(lines[:, inner], axis=1)
    ox, sx, cx, nx = _profile_fit(col_profile, px, margin)
    oy, sy, cy, ny = _profile_fit(row_profile, px, margin)
    fix = np.array([[sx, 0, ox], [0, sy, oy], [0, 0, 1.0]])  # true u → assumed u
    contrast = min(cx, cy) if min(nx, ny) >= MIN_STANDING_LINES else 0.0
    return quad_to_u @ fix, contrast


def _quad_homography(quad: np.ndarray) -> np.ndarray:
    """Canonical u → photo px mapping the cell-area corners onto ``quad`` (TL, TR, BR, BL)."""
    src = np.array([[0, 0], [GRID, 0], [GRID, GRID], [0, GRID]], dtype=np.float32)
    return cv2.getPerspectiveTransform(src, quad.astype(np.float32))


def find_grid(image: np.ndarray) -> tuple[np.ndarray, float] | None:
    """A u → photo-pixel homography for the best 11 × 11 lattice in ``image`` and its contrast.

    ``None`` when no candidate passes the lattice check.
    """
    h, w = image.shape[:2]
    shrink = min(1.0, FIND_LONG_SIDE / max(h, w))
    small = cv2.resize(image, (int(w * shrink), int(h * shrink)), interpolation=cv2.INTER_AREA) if shrink < 1 else image
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    darkest = line_image(small)
    best: tuple[float, np.ndarray, float] | None = None
    for quad in quad_candidates(gray):
        hom, contrast = lattice_fit(darkest, _quad_homography(quad))
        for _ in range(2):  # re-fit once the grid is re-anchored (a quad off the frame band)
            if contrast < MIN_LINE_CONTRAST:
                break
            hom2, contrast2 = lattice_fit(darkest, hom)
            if contrast2 < contrast:
                break
            hom, contrast = hom2, contrast2
        if contrast < MIN_LINE_CONTRAST:
            continue
        corners = cv2.perspectiveTransform(
            np.array([[[0, 0], [GRID, 0], [GRID, GRID], [0, GRID]]], np.float64), hom)[0]
        area = cv2.contourArea(corners.astype(np.float32))
        rank = area * min(contrast, 3.0)
        if best is None or rank > best[0]:
            best = (rank, hom, contrast)
    if best is None:
        return None
    to_full = np.diag([1.0 / shrink, 1.0 / shrink, 1.0])
    return to_full @ best[1], best[2]


# ---- 2. local refinement -------------------------------------------------------------------
def _peak(profile: np.ndarray) -> float:
    """Sub-pixel position of the profile's maximum (parabola through the top three)."""
    k = int(np.argmax(profile))
    if 0 < k < len(profile) - 1:
        a, b, c = profile[k - 1], profile[k], profile[k + 1]
        den = a - 2 * b + c
        if den < 0:
            return k + 0.5 * (a - c) / den
    return float(k)


def refine_intersections(image: np.ndarray, homography: np.ndarray, px: int = PX) -> tuple[np.ndarray, float]:
    """Snap the 144 crossings to the printed lines near where ``homography`` puts them.

    Returns (12, 12, 2) photo points and the median snap in u. Each crossing is moved along x by
    the peak of the vertical line's profile and along y by the horizontal line's, within
    ``MAX_SNAP_U``; the snaps are then made a smooth field (:func:`_smoothed`).
    """
    margin = 0.6
    canon = warp_canonical(line_image(image), homography, px, -margin, -margin, GRID + margin, GRID + margin)
    lines = black_hat(canon, px // 3)
    search = int(MAX_SNAP_U * px)
    arm = int(0.42 * px)
    gap = int(0.08 * px)
    disp = np.zeros((LINES, LINES, 2))
    strength = np.zeros((LINES, LINES, 2))
    for i in range(LINES):
        for j in range(LINES):
            cx = int(round((margin + j) * px))
            cy = int(round((margin + i) * px))
            strip_v = np.concatenate([lines[cy - arm:cy - gap, cx - search:cx + search + 1],
                                      lines[cy + gap:cy + arm, cx - search:cx + search + 1]])
            strip_h = np.concatenate([lines[cy - search:cy + search + 1, cx - arm:cx - gap],
                                      lines[cy - search:cy + search + 1, cx + gap:cx + arm]], axis=1)
            for k, profile in ((0, strip_v.mean(axis=0)), (1, strip_h.mean(axis=1))):
                disp[i, j, k] = (_peak(profile) - search) / px
                strength[i, j, k] = profile.max() - np.median(profile)
    disp = _smoothed(disp, strength)
    pts_u = ideal_intersections() + disp
    pts = cv2.perspectiveTransform(pts_u.reshape(1, -1, 2), homography)[0].reshape(LINES, LINES, 2)
    return pts, float(np.median(np.linalg.norm(disp, axis=2)))


def _surface_terms(i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Cubic surface terms in crossing indices scaled to about ±1 (10 terms)."""
    y = (i - 5.5) / 5.5
    x = (j - 5.5) / 5.5
    return np.stack([np.ones_like(x), x, y, x * x, x * y, y * y, x ** 3, x * x * y, x * y * y, y ** 3], axis=-1)


def _smoothed(disp: np.ndarray, strength: np.ndarray) -> np.ndarray:
    """Snaps → a smooth curl field: robust weighted cubic fit over the inner crossings, plus
    small local residuals (≤ ``LOCAL_RESIDUAL_U``) where a snap agrees with the surface.

    The frame is a double band with ticks and mountains carry line-like drawings, so single snaps
    can jump; paper curl is smooth over the sheet. The outer ring (the frame) is taken from the
    surface alone.
    """
    ii, jj = np.mgrid[0:LINES, 0:LINES].astype(np.float64)
    terms = _surface_terms(ii, jj)
    inner = np.zeros((LINES, LINES), bool)
    inner[1:-1, 1:-1] = True
    out = np.empty_like(disp)
    for k in range(2):
        w = np.where(inner, np.clip(strength[..., k], 0, None), 0.0)
        coef = np.zeros(terms.shape[-1])
        for _ in range(4):
            sw = np.sqrt(w[inner])
            coef, *_ = np.linalg.lstsq(terms[inner] * sw[:, None], disp[..., k][inner] * sw, rcond=None)
            res = disp[..., k] - terms @ coef
            w_next = np.where(inner & (np.abs(res) < 0.06), np.clip(strength[..., k], 0, None), 0.0)
            if (w_next > 0).sum() < 30:
                break
            w = w_next
        surface = terms @ coef
        res = disp[..., k] - surface
        keep = inner & (np.abs(res) < LOCAL_RESIDUAL_U)
        out[..., k] = surface + np.where(keep, res, 0.0)
    return np.clip(out, -MAX_SNAP_U, MAX_SNAP_U)


def fit_grid(image: np.ndarray) -> GridFit | None:
    """Find, check and refine the grid in a decoded photo; ``None`` when there is none."""
    found = find_grid(image)
    if found is None:
        return None
    hom, contrast = found
    pts, residual = refine_intersections(image, hom)
    hom = homography_from_intersections(pts)
    pts, residual = refine_intersections(image, hom)
    return GridFit(pts, homography_from_intersections(pts), contrast, residual)


# ---- 3. sampling -----------------------------------------------------------------------------
def cell_area_maps(intersections: np.ndarray, px: int = PX) -> tuple[np.ndarray, np.ndarray]:
    """Remap tables (map_x, map_y) for the canonical 11 × 11 cell area at ``px`` per unit."""
    n = GRID * px
    u = (np.arange(n, dtype=np.float64) + 0.5) / px
    i0 = np.minimum(np.floor(u).astype(int), GRID - 1)
    f = u - i0
    p = intersections
    # bilinear in both directions: rows (y) then columns (x)
    fy = f[:, None, None]
    fx = f[None, :, None]
    top = p[i0][:, i0] * (1 - fx) + p[i0][:, i0 + 1] * fx
    bottom = p[i0 + 1][:, i0] * (1 - fx) + p[i0 + 1][:, i0 + 1] * fx
    grid = top * (1 - fy) + bottom * fy
    return grid[..., 0].astype(np.float32), grid[..., 1].astype(np.float32)


def sample_cells(image: np.ndarray, fit: GridFit, px: int = PX) -> np.ndarray:
    """The canonical top-down cell area, (11·px, 11·px, 3), following the snapped crossings."""
    mx, my = cell_area_maps(fit.intersections, px)
    return cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
