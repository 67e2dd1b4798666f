"""The coin count from each coin's filled probability, and how sure it is.

Coins are filled in order along the track (docs/rules.md, "Coin track"), so the count is the
``k`` that best explains every coin's filled probability: the first ``k`` filled, the rest not.
The posterior over ``k`` gives the count's confidence.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from vision.layout import GEOMETRY


@dataclass(frozen=True)
class CoinReading:
    """The coin count, its confidence, and each coin's filled probability (track order)."""

    count: int
    confidence: float
    filled_probability: tuple[float, ...]


#: the coins' evidence is not independent (neighbours share the light, the hand and the track they
#: are compared with), so the count's log-likelihood is tempered: about two coins count as one
#: witness. The counts stay the same; more of the wrong ones fall under the flag threshold.
COUNT_TEMPERATURE = 0.5


#: The coin model, fitted on our own printing, takes an unmarked coin of another printing for a
#: marked one far more often than the reverse (most wrong counts on other printings are too high),
#: so every coin's odds of being filled are divided by e^FILLED_PRIOR_LOG_ODDS before counting.
#: Measured with the shipped model on the same readings (coins exact at 1.0 / 2.0 / 2.5): the
#: publisher's sheets 76.9 / 81.1 / 81.1 % (320 photos, wrong counts flagged 100 / 100 / 98 %), our
#: art families 90.0 / 91.2 / 87.5 % (80 photos), the look-alike 95.0 / 95.0 / 95.3 % (300).
FILLED_PRIOR_LOG_ODDS = 2.0

#: The track's step (vision.coins.step) sees the same pixels as the coin model, so with it the
#: count's log-likelihood is tempered once more (the count stays; only the confidence changes).
#: Chosen on our own printings, as wrong counts left unwarned / right counts warned with the step
#: at 1.0 / 0.7 / 0.5: the look-alike (299 photos) 3 / 15, 1 / 27, 1 / 49; the art families (80)
#: 0 / 4, 0 / 12, 0 / 16. On the publisher's sheets (316): 11 / 54, 3 / 77, 1 / 110 (without the
#: step 4 / 103).
STEP_TEMPERATURE = 0.7


def discount_filled(p_filled: np.ndarray, log_odds: float = FILLED_PRIOR_LOG_ODDS) -> np.ndarray:
    """Each coin's filled probability with its odds divided by ``e ** log_odds``.

    >>> discount_filled(np.array([0.5, 0.9]), np.log(9)).round(3).tolist()
    [0.1, 0.5]
    """
    p = np.clip(np.asarray(p_filled, dtype=np.float64), 1e-6, 1 - 1e-6)
    return 1.0 / (1.0 + np.exp(log_odds - np.log(p / (1 - p))))


def count_from_probabilities(
    p_filled: np.ndarray,
    reliability: np.ndarray | None = None,
    temperature: float = COUNT_TEMPERATURE,
    most: int | None = None,
    step: np.ndarray | None = None,
) -> CoinReading:
    """Most likely count ``k`` (first ``k`` coins filled) and its posterior probability.

    ``reliability`` (per coin, 0–1; :func:`coin_reliability` of the coin features) weighs each
    coin's evidence: a coin washed out by glare or clipped to white shows neither a mark nor its
    absence, so with weight 0 it does not vote and the count is decided by the coins around it
    (its confidence then covers both readings of the washed-out stretch). Without it every coin
    counts fully. ``temperature`` scales the log-likelihood (the count is the same; only the
    confidence changes). ``most``: the largest count the sheet allows (:func:`most_coins`); the
    posterior is taken over ``0..most`` only. ``step``: more evidence for each count 0…14, added
    to the log-likelihood (:func:`vision.coins.step.step_evidence`), the sum then tempered by
    ``STEP_TEMPERATURE``.
    """
    p = np.clip(np.asarray(p_filled, dtype=np.float64), 1e-4, 1 - 1e-4)
    w = (
        np.ones_like(p)
        if reliability is None
        else np.clip(np.asarray(reliability, dtype=np.float64), 0.0, 1.0)
    )
    log_on, log_off = temperature * w * np.log(p), temperature * w * np.log(1 - p)
    n = len(p) if most is None else min(len(p), max(most, 0))
    loglik = np.array([log_on[:k].sum() + log_off[k:].sum() for k in range(n + 1)])
    if step is not None:  # the count moves; the confidence is tempered once more
        loglik = STEP_TEMPERATURE * (loglik + np.asarray(step, dtype=np.float64)[: n + 1])
    post = np.exp(loglik - loglik.max())
    post /= post.sum()
    k = int(np.argmax(post))
    return CoinReading(k, float(post[k]), tuple(float(v) for v in p))


def most_coins(drawn_off_ruins: int) -> int:
    """The most coins a sheet can hold with ``drawn_off_ruins`` drawn cells (as read) outside its
    ruins cells: none when there is no such cell, otherwise the whole track.

    A coin is earned only by drawing (docs/rules.md, "Coin track"): a shape printed with a coin
    covers 2 or 3 cells, and no two ruins of either side touch, not even at a corner, so it always
    covers a cell off the ruins; a mountain's four neighbours include at most two ruins. So a sheet
    whose only marks are on its ruins holds no coin, and ruins glyphs of an unfamiliar printing read
    as drawn cannot make an empty track count. The game never has more coins than drawn cells, but
    the generator puts up to 3 coins on sheets of a single shape, so only the bare sheet is bounded.

    >>> most_coins(0), most_coins(1)
    (0, 14)
    """
    return GEOMETRY.coin_count if drawn_off_ruins > 0 else 0


#: A coin count less sure than this is warned about ("coin count … is uncertain"); the web page
#: asks the player to check the coins under the same value.
COIN_UNSURE_BELOW = 0.8


#: A track marked all along gives the same evidence as an empty one: every coin is judged against
#: the track's own last and most print-like coins, and a full track has no unmarked coin left to
#: compare with, so it can read as 0, sure. The strip alone cannot tell them apart (neither a
#: full-vs-empty test on the print nor more full tracks in training did without misreading empty
#: ones); the sheet can: 14 coins take most of a game, so a read of 0 on a well-filled map is
#: doubted.
FULL_TRACK_MIN_DRAWN = 40  # drawn cells (read, not empty) from which a 0 may be a full track
FULL_TRACK_DOUBT = 0.25  # the share of its confidence it loses then (enough to flag it)


def doubt_empty_track(reading: CoinReading, drawn_cells: int) -> CoinReading:
    """``reading`` with its confidence lowered when it says 0 coins on a sheet with at least
    ``FULL_TRACK_MIN_DRAWN`` drawn cells: a full track may look like an empty one (the count
    stays)."""
    if reading.count != 0 or drawn_cells < FULL_TRACK_MIN_DRAWN:
        return reading
    return replace(reading, confidence=reading.confidence * (1.0 - FULL_TRACK_DOUBT))
