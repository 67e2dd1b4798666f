"""Reading the coin track: how many of the 14 printed coins are filled.

Coins are filled in order along the track (game-reference.md, "Coin track"), so the count is the
``k`` that best explains every coin's filled probability: the first ``k`` filled, the rest not.
The posterior over ``k`` gives the count's confidence.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.features import REFERENCE_PAPER_BGR, PaperModel, _ink_measures, _lab
from vision.grid import GridFit, PX, warp_canonical
from vision.layout import GEOMETRY

COIN_STRIP = (0.9, 11.4, 12.0, 12.9)  # x0, x1, y0, y1 in u: the coin track with a little margin


def coin_features(strip_bgr: np.ndarray, px: int, paper: PaperModel) -> np.ndarray:
    """(14, F) features of each printed coin in the canonical coin strip, each also relative to the track median."""
    x0, _, y0, _ = COIN_STRIP
    ref = paper.at(np.array(GEOMETRY.coin_y - 0.5), np.array(5.0)).astype(np.float32)
    lab = _lab(strip_bgr.astype(np.float32) / 255.0 / ref * REFERENCE_PAPER_BGR)
    strokes = cv2.morphologyEx(lab[..., 0], cv2.MORPH_BLACKHAT,
                               cv2.getStructuringElement(cv2.MORPH_RECT, (px // 4 | 1, px // 4 | 1)))
    h, w = lab.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    u = (xx + 0.5) / px + x0
    v = (yy + 0.5) / px + y0
    rows = []
    for i in range(GEOMETRY.coin_count):
        cx, cy = GEOMETRY.coin_centre(i)
        dist = np.hypot(u - cx, v - cy)
        disc = dist <= GEOMETRY.coin_radius * 0.9
        ring = (dist > GEOMETRY.coin_radius * 1.2) & (dist < GEOMETRY.coin_radius * 1.8)
        d_feats = [f[0] for f in _ink_measures(lab[disc][None], strokes[disc][None])]
        r_feats = [f[0] for f in _ink_measures(lab[ring][None], strokes[ring][None])]
        rows.append(d_feats + [d - r for d, r in zip(d_feats[:10], r_feats[:10])])
    arr = np.array(rows, dtype=np.float32)
    return np.concatenate([arr, arr - np.median(arr, axis=0, keepdims=True)], axis=1)


@dataclass(frozen=True)
class CoinReading:
    """The coin count, its confidence, and each coin's filled probability (track order)."""

    count: int
    confidence: float
    filled_probability: tuple[float, ...]


def coin_strip(image: np.ndarray, upright: GridFit, px: int = PX) -> np.ndarray:
    """The canonical strip holding the coin track, from the upright grid's homography."""
    x0, x1, y0, y1 = COIN_STRIP
    return warp_canonical(image, upright.homography, px, x0, y0, x1, y1)


def count_from_probabilities(p_filled: np.ndarray) -> CoinReading:
    """Most likely count ``k`` (first ``k`` coins filled) and its posterior probability."""
    p = np.clip(np.asarray(p_filled, dtype=np.float64), 1e-4, 1 - 1e-4)
    log_on, log_off = np.log(p), np.log(1 - p)
    n = len(p)
    loglik = np.array([log_on[:k].sum() + log_off[k:].sum() for k in range(n + 1)])
    post = np.exp(loglik - loglik.max())
    post /= post.sum()
    k = int(np.argmax(post))
    return CoinReading(k, float(post[k]), tuple(float(v) for v in p))


def coin_track_features(image: np.ndarray, upright: GridFit, paper: PaperModel, px: int = PX) -> np.ndarray:
    """(14, F) coin features for the upright grid."""
    return coin_features(coin_strip(image, upright, px), px, paper)
