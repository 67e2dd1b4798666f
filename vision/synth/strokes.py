"""Hand-drawn strokes: a tile of the sheet to draw on, and the wobbly, pressure-varying pencil
line drawn on it."""

from __future__ import annotations

import cv2
import numpy as np

from vision.layout import Box
from vision.synth.paper import RenderedSheet
from vision.synth.pens import Hand


class Tile:
    """A float drawing surface covering a box (units) of the sheet, drawn with wobbly strokes."""

    def __init__(self, rendered: RenderedSheet, box: Box):
        s = rendered.px_per_u
        x0, y0 = rendered.to_px(box.x0, box.y0)
        self.x0, self.y0 = int(np.floor(x0)), int(np.floor(y0))
        h, w = rendered.image.shape[:2]
        self.x0, self.y0 = max(0, self.x0), max(0, self.y0)
        x1, y1 = rendered.to_px(box.x1, box.y1)
        self.x1, self.y1 = min(w, int(np.ceil(x1)) + 1), min(h, int(np.ceil(y1)) + 1)
        self.ink = np.zeros((self.y1 - self.y0, self.x1 - self.x0), np.float32)
        self.r = rendered
        self.s = s

    def blank_copy(self) -> Tile:
        """An empty tile over the same box."""
        other = object.__new__(Tile)
        other.__dict__.update(self.__dict__)
        other.ink = np.zeros_like(self.ink)
        return other

    def px(self, xy: np.ndarray) -> np.ndarray:
        """Units → fixed-point pixels of this tile."""
        x, y = self.r.to_px(xy[:, 0], xy[:, 1])
        return np.round(np.stack([(x - self.x0) * 16, (y - self.y0) * 16], axis=1)).astype(np.int32)

    def stroke(
        self,
        xy,
        rng: np.random.Generator,
        hand: Hand,
        pressure: float | None = None,
        width_u: float | None = None,
        wobble: float = 1.0,
    ) -> None:
        """A pencil stroke through points ``xy`` (units) with wobble and varying pressure."""
        pts = wobbly(np.asarray(xy, float), rng, hand.wobble_u * wobble)
        p = hand.pressure if pressure is None else pressure
        width = (width_u or hand.width_u) * rng.uniform(0.8, 1.25) * self.s
        pix = self.px(pts)
        n = len(pix)
        taper = np.minimum(
            1.0, np.minimum(np.arange(n), np.arange(n)[::-1]) / max(1.0, 0.15 * n) + 0.35
        )
        press = np.clip(p * (1 + 0.25 * smooth_1d(n, rng)) * taper, 0.05, 1.0)
        widths = np.maximum(1, np.round(width * (0.6 + 0.4 * press / max(p, 0.05)))).astype(
            int
        )  # press harder, wider
        pts, press, widths = (
            pix.tolist(),
            press.tolist(),
            widths.tolist(),
        )  # plain ints: 3× less call overhead
        for k in range(n - 1):
            cv2.line(self.ink, pts[k], pts[k + 1], press[k], widths[k], cv2.LINE_AA, 4)

    def fill(self, xy, value: float) -> None:
        """A filled polygon of density ``value``."""
        cv2.fillPoly(self.ink, [self.px(np.asarray(xy, float))], float(value), cv2.LINE_AA, 4)

    def merge(self, layer: np.ndarray, mask: np.ndarray | None = None) -> None:
        """Lay this tile's strokes onto a full layer (darkest wins), and mark them in ``mask``."""
        region = layer[self.y0 : self.y1, self.x0 : self.x1]
        np.maximum(region, self.ink, out=region)
        if mask is not None:
            m = mask[self.y0 : self.y1, self.x0 : self.x1]
            m[self.ink > 0.08] = 255


def smooth_1d(n: int, rng: np.random.Generator) -> np.ndarray:
    """A smooth random sequence of ``n`` values around 0, about ±1."""
    knots = rng.standard_normal(max(2, n // 6 + 2))
    return np.interp(_linspace(len(knots) - 1, n), np.arange(len(knots)), knots)


def _linspace(stop: float, n: int) -> np.ndarray:
    """``np.linspace(0, stop, n)``, bit for bit, without
    its overhead (called ~10⁶ times per training run)."""
    if n < 2:
        return np.linspace(0, stop, n)
    ts = np.arange(n, dtype=np.float64) * (stop / (n - 1))
    ts[-1] = stop
    return ts


def wobbly(xy: np.ndarray, rng: np.random.Generator, amp: float) -> np.ndarray:
    """Resample a polyline every ~0.04 u and push it sideways by a smooth random amount."""
    seg = np.linalg.norm(np.diff(xy, axis=0), axis=1)
    total = float(seg.sum())
    if total < 1e-6:
        return xy
    t = np.concatenate([[0], np.cumsum(seg)])
    n = max(2, int(total / 0.04) + 1)
    ts = _linspace(total, n)
    pts = np.stack([np.interp(ts, t, xy[:, 0]), np.interp(ts, t, xy[:, 1])], axis=1)
    d = np.gradient(pts, axis=0)
    normal = np.stack([-d[:, 1], d[:, 0]], axis=1)
    normal /= np.linalg.norm(normal, axis=1, keepdims=True) + 1e-9
    return pts + normal * (amp * smooth_1d(n, rng))[:, None]
