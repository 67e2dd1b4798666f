"""Training: one photometrically changed copy of every training strip.

Training photos rarely put a shadow edge or a glare band across the track itself, so every
training strip is also seen under other light (``relight_strip``): the coin model then does not
learn "the left part of the track is darker" as "filled".
"""

from __future__ import annotations

import numpy as np

from vision.coins.evidence import coin_features
from vision.coins.mountain import mountain_coins
from vision.coins.track import COIN_PX, coin_strip
from vision.features import PaperModel
from vision.grid import GridFit

#: white balance of the light, per channel (indoor lamps against daylight)
AUGMENT_GAIN = (0.85, 1.15)
#: the light along the track: a slope from end to end (each end 0.55–1.1 of the light) or the edge
#: of a shadow (the phone's or a hand's) that darkens one side to 0.45–0.85 over 0.02–0.25 of the
#: track
AUGMENT_SLOPE = (0.55, 1.1)
AUGMENT_SHADOW_DEPTH = (0.45, 0.85)
AUGMENT_SHADOW_WIDTH = (0.02, 0.25)
#: a glare veil on 40 % of the copies: a band 0.08–0.4 of the track wide adding 60–220 grey
#: levels, clipped
AUGMENT_GLARE_SHARE = 0.4
AUGMENT_GLARE_WIDTH = (0.08, 0.4)
AUGMENT_GLARE_LEVEL = (60.0, 220.0)
AUGMENT_GAMMA = (0.75, 1.3)  # the camera's tone curve


def relight_strip(strip_bgr: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The coin strip under other light: white balance, a light slope or a shadow edge along the
    track (or neither), sometimes a clipped glare veil, and a tone curve.

    Training photos rarely put a shadow edge or a glare band across the 10 u of the track itself,
    and the marked coins are the first ones, so without this the coin model can learn "the left
    part of the track is darker" as "filled". The marks themselves are left as drawn: this teaches
    light, not style.
    """
    img = strip_bgr.astype(np.float32)
    x = np.linspace(0.0, 1.0, img.shape[1], dtype=np.float32)[None, :, None]
    gains = rng.uniform(*AUGMENT_GAIN, 3).astype(np.float32)
    kind = int(rng.integers(3))
    if kind == 0:
        a, b = rng.uniform(*AUGMENT_SLOPE, 2)
        light = a + (b - a) * x
    elif kind == 1:
        edge, width, depth = (
            rng.uniform(0.1, 0.9),
            rng.uniform(*AUGMENT_SHADOW_WIDTH),
            rng.uniform(*AUGMENT_SHADOW_DEPTH),
        )
        s = 1 / (1 + np.exp(-(x - edge) / width))
        light = 1 - (1 - depth) * (s if rng.random() < 0.5 else 1 - s)
    else:
        light = np.ones_like(x)
    img = img * gains * light
    if rng.random() < AUGMENT_GLARE_SHARE:
        centre, width, level = (
            rng.uniform(0, 1),
            rng.uniform(*AUGMENT_GLARE_WIDTH),
            rng.uniform(*AUGMENT_GLARE_LEVEL),
        )
        img = img + level * np.exp(-0.5 * ((x - centre) / width) ** 2)
    img = 255.0 * (np.clip(img, 0, 255) / 255.0) ** rng.uniform(*AUGMENT_GAMMA)
    return np.clip(img, 0, 255).astype(np.uint8)


def coin_training_features(
    image: np.ndarray,
    upright: GridFit,
    paper: PaperModel,
    side: str,
    rng: np.random.Generator,
    px: int = COIN_PX,
) -> tuple[np.ndarray, np.ndarray]:
    """(:func:`coin_track_features`, the same features of the strip under other light
    (:func:`relight_strip`)) for one training photo; both copies carry the photo's labels.

    Coin models fitted on 650 training-like photos with and without the copies: dev photos (575
    found, seeds 507…/508…, mean of three random starts) coins exact 536 -> 541, glare photos
    45 -> 49 of 60, marker family 129 -> 131 of 149; untouched photos (197 found, seeds
    50902000–199) 182 -> 185.
    """
    strip = coin_strip(image, upright, px)
    # the relit copy keeps the photo's mountain coins: the light on the track then differs from
    # theirs
    mountains = mountain_coins(image, upright, side, paper)
    return coin_features(strip, px, paper, mountains), coin_features(
        relight_strip(strip, rng), px, paper, mountains
    )
