"""The coin track's step: where along the track the coins stop looking alike.

Coins are filled in order, so a track with ``k`` coins marked is two runs of alike coins, the
first ``k`` and the rest. Whatever the printing and the pen, the count is where the track's look
steps from one run to the other. ``step_evidence`` scores every count by how much better two runs
explain the 14 coins' looks than one (a change-point test), without any training; the count adds it
to the coin model's evidence (``STEP_WEIGHT``), which knows our own printings best.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.coins.windows import coin_windows

#: each coin's look: its inside (within 0.8 coin radii) against the band just outside its rim
#: (1.25–1.6 radii), so light falling off along the track does not make a step
INSIDE_RADII = 0.8
BAND_RADII = (1.25, 1.6)
STEP_DESCRIPTOR_NAMES = ("L", "a", "b", "L_spread", "L_dark")
#: the least spread each look is assumed to have per coin (squared CIELAB units, 8-bit scale):
#: a step smaller than print and photo noise is not taken for a mark
STEP_FLOOR = np.array([4.0, 1.0, 1.0, 1.0, 4.0])
#: the step's share of the count's evidence beside the coin model's (tempered) log-likelihood.
#: Chosen on our own printings, as coins exact with the shipped model at 0 / 0.1 / 0.2 / 0.3: the
#: art families (80 photos) 90.0 / 95.0 / 93.8 / 93.8 %, the look-alike (299) 94.6 / 94.3 / 95.0 /
#: 94.6 % (the 379 together best at 0.2); the publisher's sheets (316) at the same weights: colour
#: 67.9 / 69.8 / 71.7 / 71.7 %, printer-friendly 91.7 / 91.1 / 91.1 / 87.9 % (all counted without
#: the coins' reliability and the sheet's bound).
STEP_WEIGHT = 0.2


def step_descriptors(strip_bgr: np.ndarray, px: int, windows=None) -> np.ndarray:
    """(14, 5) each coin's look against the band beside it (``STEP_DESCRIPTOR_NAMES``): its
    inside's mean L*, a*, b* less the band's median, the spread of its L*, and its darkest fifth's
    L* less the band's. ``windows``: :func:`coin_windows` of this strip, when the caller already
    has them."""
    lab = cv2.cvtColor(strip_bgr, cv2.COLOR_BGR2LAB).astype(np.float32)
    centres, _, _, dist, cut = windows or coin_windows(strip_bgr, px)
    inside = dist < INSIDE_RADII
    band = (dist > BAND_RADII[0]) & (dist < BAND_RADII[1])
    out = []
    for cx, cy in centres:
        w = cut(lab, cx, cy)
        coin, beside = w[inside], np.median(w[band], axis=0)
        out.append(
            [
                *(coin.mean(axis=0) - beside),
                coin[:, 0].std(),
                np.percentile(coin[:, 0], 20) - beside[0],
            ]
        )
    return np.asarray(out, dtype=np.float64)


def step_log_likelihood(looks: np.ndarray, floor: np.ndarray = STEP_FLOOR) -> np.ndarray:
    """(n + 1,) for each count ``k``, the log-likelihood ratio of "the first ``k`` coins alike and
    the rest alike" against "all alike" (Gaussian runs, each look its own variance, at least
    ``floor``), less the two runs' price for their extra means (BIC: half a log of ``n`` per look,
    :func:`step_price`); 0 for ``k`` = 0 and ``n``, which make no step. Why the price: the best of
    13 splits of alike coins always explains them a little better than one run, so without it a
    track whose coins all look alike leans towards a step somewhere.

    >>> looks = np.array([[9.0], [9.0], [9.0], [0.0], [0.0], [0.0]])
    >>> int(np.argmax(step_log_likelihood(looks, np.array([1.0]))))
    3
    """
    x = np.asarray(looks, dtype=np.float64)
    n = len(x)
    spread = floor * n
    one_run = ((x - x.mean(axis=0)) ** 2).sum(axis=0) + spread
    out = np.zeros(n + 1)
    for k in range(1, n):
        a, b = x[:k], x[k:]
        two_runs = ((a - a.mean(axis=0)) ** 2).sum(axis=0) + ((b - b.mean(axis=0)) ** 2).sum(axis=0)
        out[k] = 0.5 * n * float(np.log(one_run / (two_runs + spread)).sum())
    out[1:n] -= step_price(n, x.shape[1])
    return out


# The price, measured with the shipped model on the same readings (counts exact without → with it):
# the publisher's sheets 265 → 268 of 315 (colour 119 → 120, printer-friendly 146 → 148), the
# look-alike 286 of 299 and the art families 75 of 80 either way; right counts warned about 64 → 64,
# 33 → 31 and 6 → 5, wrong ones left unwarned 2, 0 and 0 either way. It is the criterion's own
# value, not a tuned one.
def step_price(n: int, looks: int) -> float:
    """The Bayesian information criterion's price of a step among ``n`` coins described by
    ``looks`` numbers each: two runs have ``looks`` more means than one, each worth half a log of
    the ``n`` coins they are fitted on.

    >>> round(step_price(14, 5), 2)
    6.6
    """
    return 0.5 * looks * float(np.log(n))


def step_evidence(
    strip_bgr: np.ndarray, px: int, weight: float = STEP_WEIGHT, windows=None
) -> np.ndarray:
    """(15,) the step's evidence for each count 0…14 (:func:`step_log_likelihood` of
    :func:`step_descriptors`, times ``weight``), to add to the count's log-likelihood."""
    return weight * step_log_likelihood(step_descriptors(strip_bgr, px, windows))
