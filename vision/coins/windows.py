"""Each coin of the strip found on its printed rim, and the square window around it.

What is left of the track's placement error is taken up coin by coin: each coin is re-centred on
its printed rim and inner ring (``_recentre``), and every per-coin measure is taken in a window
around that centre (``coin_windows``).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.coins.track import COIN_STRIP, _line_response
from vision.layout import GEOMETRY

RECENTRE_U = 0.12  # each coin's printed rim is looked for this far around where the strip puts it


def _rim_template(px: int, half: int) -> np.ndarray:
    """A coin's printed rim and inner ring as thin blurred lines, centred in a (2·half+1)² float
    image."""
    ring = np.zeros((2 * half + 1, 2 * half + 1), np.float32)
    cv2.circle(
        ring,
        (half, half),
        int(round(GEOMETRY.coin_radius * px)),
        1.0,
        max(1, px // 32),
        cv2.LINE_AA,
    )
    cv2.circle(
        ring,
        (half, half),
        int(round(GEOMETRY.coin_radius * 0.62 * px)),
        1.0,
        max(1, px // 48),
        cv2.LINE_AA,
    )
    return cv2.GaussianBlur(ring, (0, 0), px / 64)


def _recentre(
    strip_bgr: np.ndarray, px: int, centres: list[tuple[float, float]]
) -> list[tuple[float, float]]:
    """Each coin centre moved onto its printed rim and inner ring (what is left of the placement
    error).

    Shifts are found per coin within ±RECENTRE_U, then replaced by the median of the coin and its
    neighbours' shifts (a heavily marked coin alone does not drag its centre).
    """
    g = GEOMETRY
    resp = _line_response(strip_bgr, px)
    # only the inside of the band: its printed outline would pull the end coins (and any coin)
    # onto it
    x0, _, y0, _ = COIN_STRIP
    b, m = g.coin_band, 0.06
    us = x0 + (np.arange(resp.shape[1]) + 0.5) / px
    vs = y0 + (np.arange(resp.shape[0]) + 0.5) / px
    resp = resp * (
        ((vs > b.y0 + m) & (vs < b.y1 - m))[:, None] & ((us > b.x0 + m) & (us < b.x1 - m))[None, :]
    )
    reach = max(1, int(round(RECENTRE_U * px)))
    half = int(round(g.coin_radius * 1.3 * px))
    size = 2 * half + 1
    ring = _rim_template(px, half)
    shifts = []
    for cx, cy in centres:
        x0, y0 = int(round(cx)) - half - reach, int(round(cy)) - half - reach
        win = np.zeros((size + 2 * reach, size + 2 * reach), np.float32)
        ys, xs = (
            slice(max(0, y0), min(resp.shape[0], y0 + win.shape[0])),
            slice(max(0, x0), min(resp.shape[1], x0 + win.shape[1])),
        )
        win[ys.start - y0 : ys.stop - y0, xs.start - x0 : xs.stop - x0] = resp[ys, xs]
        s = cv2.matchTemplate(win, ring, cv2.TM_CCORR)
        iy, ix = np.unravel_index(int(np.argmax(s)), s.shape)
        shifts.append((ix - reach + (int(round(cx)) - cx), iy - reach + (int(round(cy)) - cy)))
    sh = np.array(shifts, dtype=np.float64)
    sm = np.array([np.median(sh[max(0, i - 1) : i + 2], axis=0) for i in range(len(sh))])
    return [(cx + dx, cy + dy) for (cx, cy), (dx, dy) in zip(centres, sm)]


def coin_windows(strip_bgr: np.ndarray, px: int):
    """The 14 coins re-centred on their rims, and a square window of ±0.36 u around each:
    (centres in strip px, window offsets yy and xx in px, distance from the centre in coin radii,
    ``cut(a, cx, cy)`` → the window of image ``a`` around one centre)."""
    g = GEOMETRY
    x0, _, y0, _ = COIN_STRIP
    half = int(round(0.36 * px))
    centres = _recentre(
        strip_bgr,
        px,
        [
            ((cx - x0) * px - 0.5, (cy - y0) * px - 0.5)
            for cx, cy in (g.coin_centre(i) for i in range(g.coin_count))
        ],
    )
    yy, xx = np.mgrid[-half : half + 1, -half : half + 1].astype(np.float32)
    dist = np.hypot(xx, yy) / (g.coin_radius * px)

    def cut(a: np.ndarray, cx: float, cy: float) -> np.ndarray:
        m = np.float32([[1, 0, cx - half], [0, 1, cy - half]])
        return cv2.warpAffine(
            a,
            m,
            (2 * half + 1, 2 * half + 1),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        )

    return centres, yy, xx, dist, cut
