"""The coin model's features: each coin's look, its style-free evidence and the mountain coins.

Each coin is judged against the track itself (:mod:`vision.coins.appearance`), by evidence that
does not depend on the marking style (:mod:`vision.coins.style_free`), and against the printed
coins of the mountain cells (:mod:`vision.coins.mountain`); ``coin_features`` puts the three side
by side, in ``COIN_FEATURE_NAMES`` order.
"""

from __future__ import annotations

import numpy as np

from vision.coins.appearance import APPEARANCE_FEATURE_NAMES, appearance_features
from vision.coins.mountain import (
    MOUNTAIN_FEATURE_NAMES,
    MountainCoins,
    mountain_coins,
    mountain_features,
)
from vision.coins.style_free import (
    STYLE_FREE_DESCRIPTOR_NAMES,
    STYLE_FREE_FEATURE_NAMES,
    _style_free_descriptors,
    style_free_comparison,
)
from vision.coins.track import COIN_PX, coin_strip
from vision.coins.windows import coin_windows
from vision.features import PaperModel
from vision.grid import GridFit

COIN_FEATURE_NAMES: list[str] = (
    APPEARANCE_FEATURE_NAMES + STYLE_FREE_FEATURE_NAMES + MOUNTAIN_FEATURE_NAMES
)
#: the column of each coin's ``reliability`` among the style-free features
RELIABILITY_COLUMN = len(APPEARANCE_FEATURE_NAMES) + STYLE_FREE_DESCRIPTOR_NAMES.index(
    "reliability"
)


def coin_features(
    strip_bgr: np.ndarray,
    px: int,
    paper: PaperModel | None = None,
    mountains: MountainCoins | None = None,
    windows=None,
) -> np.ndarray:
    """(14, F) the coin model's features: :func:`appearance_features` plus style-free,
    glare-scaled evidence (``STYLE_FREE_FEATURE_NAMES``).

    The extra measures (:func:`_style_free_descriptors`, each scaled by the print's own contrast
    beside the coin) are compared with the track's last three coins, with its median, and as
    z-scores against the three coins most like the printed coin (clearest rim and inner ring,
    among those that can show a mark), so a coin is judged against the track's own unmarked coins
    under the same light, whatever the marking style — also when 11–13 coins are marked and the
    last three are not all blank. ``unlike_unmarked`` folds those z-scores into one number per
    coin, with its monotone envelopes along the track and its best split
    (:func:`style_free_comparison`). The first ``len(APPEARANCE_FEATURE_NAMES)`` columns are
    :func:`appearance_features` unchanged; the last are :func:`mountain_features` (each coin
    against the printed mountain coins of the photo, NaN without ``mountains``). ``windows``:
    :func:`coin_windows` of this strip, when the caller already has them.
    """
    windows = windows or coin_windows(strip_bgr, px)  # the rims found once for every measure
    base = appearance_features(strip_bgr, px, paper, windows)
    e = _style_free_descriptors(strip_bgr, px, windows).astype(np.float64)
    return np.concatenate(
        [
            base,
            style_free_comparison(e),
            mountain_features(strip_bgr, px, mountains, windows),
        ],
        axis=1,
    ).astype(np.float32)


def coin_track_features(
    image: np.ndarray,
    upright: GridFit,
    paper: PaperModel,
    side: str,
    px: int = COIN_PX,
    to_photo=None,
) -> np.ndarray:
    """(14, F) :func:`coin_features` of the curl-following strip (through ``to_photo``, default
    :func:`coin_track_mapping`), with ``side``'s printed mountain coins (:func:`mountain_coins`)
    as the reference for an unmarked coin (the count needs :func:`coin_reliability` of these
    features)."""
    strip = coin_strip(image, upright, px, to_photo)
    return coin_features(strip, px, paper, mountain_coins(image, upright, side, paper))


def coin_reliability(features: np.ndarray) -> np.ndarray:
    """(14,) how much each coin can show (0 = washed out by glare or clipped: no evidence), from
    :func:`coin_track_features`."""
    return np.asarray(features, dtype=np.float64)[:, RELIABILITY_COLUMN]
