"""Reading the coin track: how many of the 14 printed coins are filled.

Coins are filled in order along the track (docs/rules.md, "Coin track"), so the count is the
``k`` that best explains every coin's filled probability: the first ``k`` filled, the rest not.
The posterior over ``k`` gives the count's confidence (:mod:`vision.coins.count`).

The stages, in the order a photo meets them:

1. The track's place (:mod:`vision.coins.track`): the strip is sampled at 64 px/u following the
   paper's curl below the grid (``_curl_model``: the bottom crossing rows' departure from the
   homography, extrapolated), then snapped onto the printed band and coin rims
   (``refine_track``, never further than half a coin spacing, so it cannot slip by a coin).
2. Each coin's window (:mod:`vision.coins.windows`): each coin is re-centred on its printed rim.
3. Its look (:mod:`vision.coins.appearance`): each coin is judged against the track itself — its
   last coins (unmarked unless the count is 12–14), its first coin, its neighbours, and the best
   "first k differ from the rest" split — because a mark is easiest to see next to an unmarked
   coin under the same light (``appearance_features``).
4. Style-free evidence (:mod:`vision.coins.style_free`): measures beside each coin, each scaled
   by the coin's own print contrast so glare or a dim photo leaves it unchanged, judged against
   the track's most print-like coins, and how much each coin can show at all
   (``coin_reliability``: a washed-out coin does not vote in the count).
5. The mountain coins (:mod:`vision.coins.mountain`): the printed coins of the mountain cells,
   never drawn on, as what an unmarked coin looks like in this photo — also when the track has no
   unmarked coin left (``mountain_coins``, ``mountain_features``).
6. The model's features (:mod:`vision.coins.evidence`): the three side by side
   (``coin_features``, ``coin_track_features``), and the count (:mod:`vision.coins.count`).
7. The track's step (:mod:`vision.coins.step`): where along the track the coins stop looking
   alike, a change-point test needing no training, added to the model's evidence for each count.

Training also sees every strip under other light (:mod:`vision.coins.relight`).
"""

from __future__ import annotations

from vision.coins.appearance import (
    APPEARANCE_FEATURE_NAMES,
    CONTEXT_NAMES,
    DESCRIPTOR_CONTEXT,
    DESCRIPTOR_NAMES,
    RANGE_DESCRIPTORS,
    SPLIT_DESCRIPTORS,
    appearance_features,
)
from vision.coins.count import (
    COIN_UNSURE_BELOW,
    COUNT_TEMPERATURE,
    FILLED_PRIOR_LOG_ODDS,
    FULL_TRACK_DOUBT,
    FULL_TRACK_MIN_DRAWN,
    STEP_TEMPERATURE,
    CoinReading,
    count_from_probabilities,
    discount_filled,
    doubt_empty_track,
    most_coins,
)
from vision.coins.evidence import (
    COIN_FEATURE_NAMES,
    RELIABILITY_COLUMN,
    coin_features,
    coin_reliability,
    coin_track_features,
)
from vision.coins.mountain import (
    CENTRE_DESCRIPTOR_NAMES,
    MOUNTAIN_CENTRE_U,
    MOUNTAIN_COIN_RADIUS_U,
    MOUNTAIN_COIN_U,
    MOUNTAIN_DARKNESS_SCALE,
    MOUNTAIN_FEATURE_NAMES,
    MOUNTAIN_OFFSET,
    MOUNTAIN_PX,
    MOUNTAIN_REACH_U,
    MOUNTAIN_REFERENCE_COINS,
    TRACK_CENTRE_U,
    MountainCoins,
    mountain_coins,
    mountain_features,
)
from vision.coins.relight import (
    AUGMENT_GAIN,
    AUGMENT_GAMMA,
    AUGMENT_GLARE_LEVEL,
    AUGMENT_GLARE_SHARE,
    AUGMENT_GLARE_WIDTH,
    AUGMENT_SHADOW_DEPTH,
    AUGMENT_SHADOW_WIDTH,
    AUGMENT_SLOPE,
    coin_training_features,
    relight_strip,
)
from vision.coins.step import (
    STEP_DESCRIPTOR_NAMES,
    STEP_FLOOR,
    STEP_WEIGHT,
    step_descriptors,
    step_evidence,
    step_log_likelihood,
    step_price,
)
from vision.coins.style_free import (
    COMPARED_DESCRIPTORS,
    STYLE_FREE_DESCRIPTOR_NAMES,
    STYLE_FREE_FEATURE_NAMES,
    style_free_comparison,
)
from vision.coins.track import (
    COIN_PX,
    COIN_STRIP,
    CURL_DEGREE,
    CURL_ROWS,
    REFINE_ALONG_U,
    REFINE_PX,
    REFINE_REACH_U,
    SECTION_REACH_U,
    SECTIONS_U,
    _curl_model,
    coin_centres_px,
    coin_strip,
    coin_track_mapping,
    refine_track,
    track_match,
)
from vision.coins.windows import RECENTRE_U, coin_windows

__all__ = [
    "APPEARANCE_FEATURE_NAMES",
    "AUGMENT_GAIN",
    "AUGMENT_GAMMA",
    "AUGMENT_GLARE_LEVEL",
    "AUGMENT_GLARE_SHARE",
    "AUGMENT_GLARE_WIDTH",
    "AUGMENT_SHADOW_DEPTH",
    "AUGMENT_SHADOW_WIDTH",
    "AUGMENT_SLOPE",
    "CENTRE_DESCRIPTOR_NAMES",
    "COIN_FEATURE_NAMES",
    "COIN_PX",
    "COIN_STRIP",
    "COIN_UNSURE_BELOW",
    "COMPARED_DESCRIPTORS",
    "CONTEXT_NAMES",
    "COUNT_TEMPERATURE",
    "CURL_DEGREE",
    "CURL_ROWS",
    "DESCRIPTOR_CONTEXT",
    "DESCRIPTOR_NAMES",
    "FILLED_PRIOR_LOG_ODDS",
    "FULL_TRACK_DOUBT",
    "FULL_TRACK_MIN_DRAWN",
    "STEP_TEMPERATURE",
    "MOUNTAIN_CENTRE_U",
    "MOUNTAIN_COIN_RADIUS_U",
    "MOUNTAIN_COIN_U",
    "MOUNTAIN_DARKNESS_SCALE",
    "MOUNTAIN_FEATURE_NAMES",
    "MOUNTAIN_OFFSET",
    "MOUNTAIN_PX",
    "MOUNTAIN_REACH_U",
    "MOUNTAIN_REFERENCE_COINS",
    "RANGE_DESCRIPTORS",
    "RECENTRE_U",
    "REFINE_ALONG_U",
    "REFINE_PX",
    "REFINE_REACH_U",
    "RELIABILITY_COLUMN",
    "SECTIONS_U",
    "SECTION_REACH_U",
    "SPLIT_DESCRIPTORS",
    "STYLE_FREE_DESCRIPTOR_NAMES",
    "STYLE_FREE_FEATURE_NAMES",
    "TRACK_CENTRE_U",
    "CoinReading",
    "MountainCoins",
    "_curl_model",
    "appearance_features",
    "coin_centres_px",
    "coin_features",
    "coin_reliability",
    "coin_strip",
    "coin_track_features",
    "coin_track_mapping",
    "coin_windows",
    "coin_training_features",
    "count_from_probabilities",
    "discount_filled",
    "doubt_empty_track",
    "most_coins",
    "mountain_coins",
    "mountain_features",
    "refine_track",
    "relight_strip",
    "style_free_comparison",
    "track_match",
    "STEP_DESCRIPTOR_NAMES",
    "STEP_FLOOR",
    "STEP_WEIGHT",
    "step_descriptors",
    "step_evidence",
    "step_log_likelihood",
    "step_price",
]
