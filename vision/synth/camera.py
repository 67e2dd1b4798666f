"""A phone camera over a sheet lying on a table: pose, lens and the paper's bend, with exact truth.

World frame: the table is ``z = 0`` and its x/y are the sheet's grid units; z points *into* the
table (x right, y down, z away: right-handed, so photos are never mirrored). A sheet point
``(x_u, y_u)`` lies at ``(x_u, y_u, −bend(x_u, y_u))``: the paper bows and curls up towards the
camera. The camera is a pinhole with radial lens distortion (Brown's ``k1``, ``k2``).

* :meth:`Camera.sheet_to_photo` is closed-form: it gives the truth (grid corners, intersections).
* :meth:`Camera.photo_to_sheet` inverts it numerically (undistort, then intersect the ray with the
  bent paper by fixed-point iteration); the photo is warped with it, so the picture and the truth
  come from one model.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from vision.layout import GEOMETRY

SHEET_CENTRE = np.array(
    [(GEOMETRY.sheet.x0 + GEOMETRY.sheet.x1) / 2, (GEOMETRY.sheet.y0 + GEOMETRY.sheet.y1) / 2]
)


@dataclass(frozen=True)
class Bend:
    """Height of the paper above the table (units): a bow, a curled edge and a crease."""

    bow: float = 0.0  # height of the bow's middle (u)
    bow_axis: float = 0.0  # direction (radians) across which the sheet bows
    curl: float = 0.0  # height the curled edge reaches (u)
    curl_axis: float = 0.0  # direction (radians) towards the curled edge
    curl_start: float = 0.7  # fraction of the half-sheet where the curl begins
    fold: float = 0.0  # height of a crease ridge (u): the sheet was folded once and opened again
    fold_axis: float = 0.0  # direction (radians) across the crease
    fold_offset: float = 0.0  # crease position from the sheet's centre along that direction (u)

    def height(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Paper height above the table at sheet points (units)."""
        dx, dy = x - SHEET_CENTRE[0], y - SHEET_CENTRE[1]
        half = 0.5 * np.hypot(
            GEOMETRY.sheet.width * np.cos(self.bow_axis),
            GEOMETRY.sheet.height * np.sin(self.bow_axis),
        )
        t = (dx * np.cos(self.bow_axis) + dy * np.sin(self.bow_axis)) / half
        z = self.bow * np.clip(1 - t * t, 0, None)
        if self.curl:
            half_c = 0.5 * np.hypot(
                GEOMETRY.sheet.width * np.cos(self.curl_axis),
                GEOMETRY.sheet.height * np.sin(self.curl_axis),
            )
            tc = (dx * np.cos(self.curl_axis) + dy * np.sin(self.curl_axis)) / half_c
            ramp = np.clip(
                (tc - self.curl_start) / (1 - self.curl_start), 0, 1
            )  # flat beyond the edge
            z = z + self.curl * ramp * ramp
        if self.fold:
            d = dx * np.cos(self.fold_axis) + dy * np.sin(self.fold_axis) - self.fold_offset
            z = z + self.fold * np.clip(1 - np.abs(d) / 2.0, 0, None)  # a tent 4 u wide
        return z


@dataclass(frozen=True)
class Camera:
    """Pinhole camera with radial distortion looking at the table."""

    width: int
    height: int
    focal: float  # pixels
    cx: float
    cy: float
    rotation: np.ndarray  # 3×3, world → camera
    centre: np.ndarray  # camera position in world units
    k1: float = 0.0
    k2: float = 0.0
    bend: Bend = Bend()

    # ---- forward: sheet → photo (closed form, the truth) --------------------------------
    def sheet_to_photo(self, x_u, y_u) -> np.ndarray:
        """Photo pixel coordinates (…×2) of sheet points given in grid units."""
        x_u, y_u = np.asarray(x_u, float), np.asarray(y_u, float)
        world = np.stack([x_u, y_u, -self.bend.height(x_u, y_u)], axis=-1)
        cam = (world - self.centre) @ self.rotation.T
        xn, yn = cam[..., 0] / cam[..., 2], cam[..., 1] / cam[..., 2]
        r2 = xn * xn + yn * yn
        d = 1 + self.k1 * r2 + self.k2 * r2 * r2
        return np.stack([self.cx + self.focal * xn * d, self.cy + self.focal * yn * d], axis=-1)

    # ---- inverse: photo → sheet (numerical, used to warp the picture) --------------------
    def undistort(
        self, qx: np.ndarray, qy: np.ndarray, steps: int = 8
    ) -> tuple[np.ndarray, np.ndarray]:
        """Normalised ideal image coordinates of distorted photo pixels."""
        xd, yd = (qx - self.cx) / self.focal, (qy - self.cy) / self.focal
        xn, yn = xd, yd
        for _ in range(steps):
            r2 = xn * xn + yn * yn
            d = 1 + self.k1 * r2 + self.k2 * r2 * r2
            xn, yn = xd / d, yd / d
        return xn, yn

    def photo_to_sheet(self, qx, qy, steps: int = 24) -> tuple[np.ndarray, np.ndarray]:
        """Sheet grid units seen at photo pixels (NaN where the ray misses the table)."""
        xn, yn = self.undistort(np.asarray(qx, float), np.asarray(qy, float))
        rays = np.stack([xn, yn, np.ones_like(xn)], axis=-1) @ self.rotation  # camera → world
        z = np.zeros(xn.shape)
        for k in range(steps):  # damped fixed point: where along the ray is the paper's height
            t = (z - self.centre[2]) / rays[..., 2]
            x = self.centre[0] + t * rays[..., 0]
            y = self.centre[1] + t * rays[..., 1]
            z = -self.bend.height(x, y) if k < 2 else 0.5 * z - 0.5 * self.bend.height(x, y)
        bad = rays[..., 2] <= 0
        return np.where(bad, np.nan, x), np.where(bad, np.nan, y)

    def local_scale(self) -> float:
        """Largest photo pixels per grid unit anywhere on the sheet."""
        g = GEOMETRY.sheet
        xs, ys = np.meshgrid(np.linspace(g.x0, g.x1, 9), np.linspace(g.y0, g.y1, 12))
        p = self.sheet_to_photo(xs, ys)
        px = self.sheet_to_photo(xs + 0.01, ys)
        py = self.sheet_to_photo(xs, ys + 0.01)
        return float(
            max(np.linalg.norm(px - p, axis=-1).max(), np.linalg.norm(py - p, axis=-1).max()) / 0.01
        )


def _keep_outline() -> tuple[np.ndarray, np.ndarray]:
    """Points around the part of the sheet a photo must show (units): labels to season boxes."""
    t = np.linspace(0, 1, 9)
    x0, x1, y0, y1 = -0.8, 11.8, -0.5, 14.6
    xs = np.concatenate([x0 + (x1 - x0) * t, np.full(9, x1), x1 - (x1 - x0) * t, np.full(9, x0)])
    ys = np.concatenate([np.full(9, y0), y0 + (y1 - y0) * t, np.full(9, y1), y1 - (y1 - y0) * t])
    return xs, ys


KEEP_IN_VIEW = _keep_outline()


def look_at(centre: np.ndarray, target: np.ndarray, roll: float) -> np.ndarray:
    """World → camera rotation for a camera at ``centre``
    looking at ``target``, rolled by ``roll``."""
    forward = target - centre
    forward = forward / np.linalg.norm(forward)
    helper = np.array([0.0, -1.0, 0.0]) if abs(forward[1]) < 0.9 else np.array([1.0, 0.0, 0.0])
    right = np.cross(forward, helper)
    right /= np.linalg.norm(right)
    down = np.cross(forward, right)
    base = np.stack([right, down, forward])  # rows: camera x (right), y (down), z (forward)
    c, s = np.cos(roll), np.sin(roll)
    spin = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    return spin @ base


def place_camera(
    width: int,
    height: int,
    *,
    tilt: float,
    azimuth: float,
    roll: float,
    hfov: float,
    fill: float,
    offset: tuple[float, float],
    k1: float,
    k2: float,
    bend: Bend,
) -> Camera:
    """A camera whose photo shows the sheet tilted by ``tilt``, filling ``fill`` of the frame.

    ``offset`` (each −1…1) slides the sheet towards the frame's edges as far as keeps the whole
    readable part (labels, cell area, coin track, season boxes) in view; if that part does not fit
    at ``fill``, the camera steps back until it does.
    """
    focal = width / 2 / np.tan(hfov / 2)
    target = np.array([SHEET_CENTRE[0], SHEET_CENTRE[1], 0.0])
    direction = np.array(
        [np.sin(tilt) * np.cos(azimuth), np.sin(tilt) * np.sin(azimuth), np.cos(tilt)]
    )
    g = GEOMETRY.sheet
    corners_x = np.array([g.x0, g.x1, g.x1, g.x0])
    corners_y = np.array([g.y0, g.y0, g.y1, g.y1])
    dist = focal * max(g.width, g.height) / (fill * min(width, height))
    cam = None
    for _ in range(4):  # a few rounds: size in the photo is nearly ∝ 1 / distance
        centre = target - direction * dist
        cam = Camera(
            width,
            height,
            focal,
            width / 2,
            height / 2,
            look_at(centre, target, roll),
            centre,
            k1,
            k2,
            bend,
        )
        p = cam.sheet_to_photo(corners_x, corners_y)
        span = max(
            (p[:, 0].max() - p[:, 0].min()) / width, (p[:, 1].max() - p[:, 1].min()) / height
        )
        dist *= span / fill
    return _keep_in_view(cam, target, direction, dist, offset)


def _keep_in_view(
    cam: Camera,
    target: np.ndarray,
    direction: np.ndarray,
    dist: float,
    offset: tuple[float, float],
) -> Camera:
    """``cam`` (``dist`` from ``target`` along ``direction``) stepped back until the readable part
    (labels, grid, coins, season boxes) fits, then slid so the sheet sits off-centre by ``offset``.
    """
    width, height = cam.width, cam.height
    kx, ky = KEEP_IN_VIEW
    for _ in range(40):
        keep = cam.sheet_to_photo(kx, ky)
        lo, hi = keep.min(axis=0), keep.max(axis=0)
        if hi[0] - lo[0] <= 0.96 * width and hi[1] - lo[1] <= 0.96 * height:
            break
        dist *= 1.05
        cam = replace(cam, centre=target - direction * dist)
    # slide the principal point (the whole picture moves rigidly) so the sheet sits off-centre
    room = (np.array([width, height]) * 0.96 - (hi - lo)) / 2
    shift = np.array([width, height]) / 2 - (lo + hi) / 2 + np.asarray(offset) * room
    return replace(cam, cx=width / 2 + shift[0], cy=height / 2 + shift[1])
