"""Reading the coin track: how many of the 14 printed coins are filled.

Coins are filled in order along the track (game-reference.md, "Coin track"), so the count is the
``k`` that best explains every coin's filled probability: the first ``k`` filled, the rest not.
The posterior over ``k`` gives the count's confidence.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.features import COIN_STRIP, PaperModel, coin_features
from vision.grid import GridFit, PX, warp_canonical


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
