"""The printed lattice's geometry: the fitted grid (:class:`GridFit`), homographies between grid
units and photo pixels, and sampling the cell area through the 144 crossings.

The pieces every stage of the reader shares: :mod:`vision.grid` finds and refines the lattice,
:mod:`vision.orient` decides its side and turn, the features and the coins sample through it.
Coordinates: photo points are (x, y) pixels of the decoded image; canonical points are grid
units ``u`` (origin top-left of the cell area, :mod:`vision.layout`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.layout import GRID

PX = 32  # canonical pixels per grid unit for the cell area
LINES = GRID + 1  # 12 printed lines each way


@dataclass
class GridFit:
    """The found grid: crossings in photo pixels, and how sure we are it is a lattice."""

    intersections: np.ndarray  # (12, 12, 2) photo (x, y); [i, j] is line row i, line column j
    homography: np.ndarray  # 3×3, canonical u → photo px (least squares over the crossings)
    lattice_score: float  # line / between-line profile ratio (≥ AcceptTuning.min_line_contrast)
    snap_residual_u: float  # median |local snap| after regularisation, in u
    #: (12, 12) u, [i, j] as ``intersections``: how far each final crossing may be from the true one
    #: (:func:`crossing_doubt`); crossings above ``DOUBT_U`` are the ones to distrust
    crossing_doubt: np.ndarray = field(default_factory=lambda: np.zeros((LINES, LINES)))

    @property
    def corners(self) -> np.ndarray:
        """TL, TR, BR, BL corners of the cell area in photo pixels."""
        return area_corners(self.intersections)

    def rotated(self, quarter_turns: int) -> GridFit:
        """The same fit with the grid turned ``quarter_turns`` × 90° counter-clockwise in u."""
        pts = np.rot90(self.intersections, quarter_turns, axes=(0, 1)).copy()
        doubt = np.rot90(self.crossing_doubt, quarter_turns, axes=(0, 1)).copy()
        return GridFit(
            pts, homography_from_intersections(pts), self.lattice_score, self.snap_residual_u, doubt
        )

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


def cell_side_px(intersections: np.ndarray) -> float:
    """Median cell side along the rows of a 12 × 12 crossing grid, in its pixels: the unit ``u`` of
    the benchmark's grid errors, the training jitter and the mountain coins' radius.
    (``GridFit.cell_size_px`` takes both axes; the two differ by a tilt's foreshortening, and the
    coin features were fitted with this.)

    >>> cell_side_px(np.stack(np.meshgrid(np.arange(12.0) * 40, np.arange(12.0) * 30), axis=-1))
    40.0
    """
    return float(
        np.median(np.linalg.norm(np.diff(np.asarray(intersections, float), axis=1), axis=2))
    )


def area_corners(intersections: np.ndarray) -> np.ndarray:
    """TL, TR, BR, BL corners of the cell area: the outer crossings of (12, 12, 2)
    ``intersections``."""
    p = intersections
    return np.array([p[0, 0], p[0, -1], p[-1, -1], p[-1, 0]], dtype=np.float64)


def ideal_intersections() -> np.ndarray:
    """(12, 12, 2) canonical crossings in u: [i, j] = (x=j, y=i)."""
    j, i = np.meshgrid(np.arange(LINES, dtype=np.float64), np.arange(LINES, dtype=np.float64))
    return np.stack([j, i], axis=2)


def lattice_points(homography: np.ndarray, disp: np.ndarray | float = 0.0) -> np.ndarray:
    """(12, 12, 2) photo px of the crossings a u → photo ``homography`` puts the lattice at, each
    displaced first by ``disp`` (u).

    >>> lattice_points(np.diag([10.0, 10.0, 1.0]))[1, 2].tolist()
    [20.0, 10.0]
    """
    pts_u = ideal_intersections() + disp
    return cv2.perspectiveTransform(pts_u.reshape(1, -1, 2), homography)[0].reshape(LINES, LINES, 2)


def homography_from_intersections(pts: np.ndarray) -> np.ndarray:
    """Least-squares homography canonical u → photo px through all 144 crossings.

    Raises :class:`DegenerateFit` when the crossings do not span a plane (all on one line, or not
    finite): no homography maps the lattice there.
    """
    h, _ = cv2.findHomography(
        ideal_intersections().reshape(-1, 2), pts.reshape(-1, 2).astype(np.float64), 0
    )
    if h is None or invert_homography(h) is None:
        raise DegenerateFit("the crossings do not span a plane")
    return h


class DegenerateFit(ValueError):
    """A measured fit with too little or too one-sided evidence to define a homography: the search
    drops the candidate and moves on (never an answer to the user)."""


#: a homography whose condition number passes this maps
#: a plane onto (nearly) a line: not a view of a sheet
MAX_HOMOGRAPHY_CONDITION = 1e12


def invert_homography(h: np.ndarray | None) -> np.ndarray | None:
    """The inverse of a 3 × 3 homography, or ``None`` when it has none worth the name (missing,
    not finite, or singular to working precision).

    >>> invert_homography(np.diag([2.0, 2.0, 1.0])).tolist()
    [[0.5, 0.0, 0.0], [0.0, 0.5, 0.0], [0.0, 0.0, 1.0]]
    >>> invert_homography(np.array([[1.0, 2, 0], [2, 4, 0], [0, 0, 1]])) is None
    True
    """
    if h is None or h.shape != (3, 3) or not np.isfinite(h).all():
        return None
    if np.linalg.cond(h) > MAX_HOMOGRAPHY_CONDITION:
        return None
    return np.linalg.inv(h)


def line_image(bgr: np.ndarray) -> np.ndarray:
    """Darkest channel, so gold (side A) and blue-grey (side B) lines both stand out (uint8).

    A single-channel image is returned as it is, so callers may pass either.
    """
    if bgr.ndim == 2:
        return bgr
    b, g, r = cv2.split(bgr)
    return cv2.min(cv2.min(b, g), r)


def black_hat(gray: np.ndarray, width_px: int) -> np.ndarray:
    """Thin dark structures (narrower than ``width_px``)
    as positive values; wide dark areas cancel."""
    k = max(3, int(width_px) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    return cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT, kernel)


def warp_canonical(
    image: np.ndarray, homography: np.ndarray, px: int, x0: float, y0: float, x1: float, y1: float
) -> np.ndarray:
    """The canonical region [x0, x1] × [y0, y1] (u) at
    ``px`` pixels per u, via a u → photo homography."""
    scale = np.array([[1.0 / px, 0, x0 + 0.5 / px], [0, 1.0 / px, y0 + 0.5 / px], [0, 0, 1]])
    m = homography @ scale  # canonical pixel → photo pixel
    size = (int(round((x1 - x0) * px)), int(round((y1 - y0) * px)))
    return cv2.warpPerspective(
        image,
        m,
        size,
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )


def cell_area_maps(intersections: np.ndarray, px: int = PX) -> tuple[np.ndarray, np.ndarray]:
    """Remap tables (map_x, map_y) for the canonical 11 × 11 cell area at ``px`` per unit.

    Bilinear between the crossings, one axis at a time: each of the 12 crossing columns is first
    interpolated down the rows, then each output row across them (the same values as interpolating
    every pixel from its four crossings, at a third of the time; the grid search calls this ~100
    times, and no BLAS product is used, which slows to a crawl when its threads share a busy
    machine).
    """
    n = GRID * px
    u = (np.arange(n, dtype=np.float64) + 0.5) / px
    i0 = np.minimum(np.floor(u).astype(int), GRID - 1)
    f = u - i0
    g = 1 - f
    maps = []
    for k in range(2):
        q = np.asarray(intersections, dtype=np.float64)[..., k]
        rows = q[i0] * g[:, None] + q[i0 + 1] * f[:, None]  # (n, 12): down the rows first
        maps.append((rows[:, i0] * g + rows[:, i0 + 1] * f).astype(np.float32))
    return maps[0], maps[1]


def rectify_cell_area(image: np.ndarray, intersections: np.ndarray, px: int = PX) -> np.ndarray:
    """The 11 × 11 cell area of ``image`` (any channels)
    at ``px`` per unit, following the crossings."""
    mx, my = cell_area_maps(intersections, px)
    return cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def sample_cells(image: np.ndarray, fit: GridFit, px: int = PX) -> np.ndarray:
    """The canonical top-down cell area, (11·px, 11·px, 3), following the snapped crossings."""
    return rectify_cell_area(image, fit.intersections, px)
