"""Reading a writing cell's number whole, beside reading it character by character.

The character reader (:mod:`vision.seasons`) first finds the ink's pieces, and a faint pencil
stroke broken by the paper's grain, or two digits joined by a stroke, is lost before any
classifier sees it. A convolutional network over the whole cell sees every stroke at once, as a
picture (:func:`cell_picture`: the cell's ink without its printed borders, ``CELL_SIDE`` ×
``CELL_SIDE``), with which cell it is (the part and the season: the edict cells print their
edict's letter) and how dark its ink is. It answers in four groups (:data:`HEADS`): the number's
layout (:data:`LAYOUTS`: blank, one to three digits, with or without a minus sign), then each
digit from the right. :func:`number_candidates` turns that into the numbers the cell may hold.
"""

from __future__ import annotations

import cv2
import numpy as np

from scoring.written import PARTS, SEASON_NAMES

CELL_SIDE = 32  # the cell's picture, px a side
#: a number as it is written: blank, one to three digits, each with or without a minus sign
LAYOUTS = ("", "d", "dd", "ddd", "-d", "-dd", "-ddd")
MAX_DIGITS = 3
HEADS = (len(LAYOUTS),) + (10,) * MAX_DIGITS  # the network's softmax groups
CELL_PARTS = (*PARTS, "final")
#: the numbers beside the picture: the part, the ink's darkness four ways, and the season
N_CELL_NUMBERS = len(CELL_PARTS) + len(SEASON_NAMES) + 4
N_CELL_INPUTS = CELL_SIDE * CELL_SIDE + N_CELL_NUMBERS
PEAK_FLOOR = 0.04  # darkness the picture is scaled by at least (a blank cell's grain stays faint)
PICTURE_SMOOTH_PX = 0.7  # the ink is smoothed this much before it is shrunk
DIGIT_CHOICES = 3  # each digit's likeliest values tried by :func:`number_candidates`
IGNORED = -100  # a training label that does not count (a digit the number does not have)


def cell_picture(ink: np.ndarray, key: str, line: float, grain: float) -> np.ndarray:
    """The network's input row of one writing cell: its ink (``ink``: darkness without the
    printed borders, :func:`vision.seasons.remove_borders`) scaled by its darkest ink and shrunk
    to ``CELL_SIDE`` × ``CELL_SIDE``, row by row; then the cell's part (one-hot); its darkest ink
    as it is, against the printed lines' darkness ``line`` and against the paper's grain
    ``grain``, and ``line`` itself; and the cell's season (one-hot).

    >>> row = cell_picture(np.zeros((40, 50), np.float32), "summer.coins", 0.3, 0.02)
    >>> row.shape == (N_CELL_INPUTS,), float(row[: CELL_SIDE * CELL_SIDE].max())
    (True, 0.0)
    """
    smooth = cv2.GaussianBlur(ink, (0, 0), PICTURE_SMOOTH_PX) if ink.size else ink
    peak = float(np.percentile(smooth, 99.5)) if smooth.size else 0.0
    scale = max(peak, PEAK_FLOOR)
    if smooth.size:
        picture = cv2.resize(
            np.clip(smooth / scale, 0.0, 1.5), (CELL_SIDE, CELL_SIDE), interpolation=cv2.INTER_AREA
        )
    else:
        picture = np.zeros((CELL_SIDE, CELL_SIDE), np.float32)
    season, _, part = key.rpartition(".")
    part = part if season else "final"
    parts = [float(part == p) for p in CELL_PARTS]
    darkness = [peak, peak / max(line, 1e-3), grain / scale, line]
    seasons = [float(season == s) for s in SEASON_NAMES]
    return np.concatenate([picture.ravel(), parts, darkness, seasons]).astype(np.float32)


def number_labels(text: str) -> np.ndarray:
    """The network's training labels of a written number ``text`` ("" for blank, "-12", "7"):
    its layout, then each digit from the right (``IGNORED`` where it has none).

    >>> number_labels("-12").tolist(), number_labels("").tolist()
    ([5, 2, 1, -100], [0, -100, -100, -100])
    """
    digits = text.lstrip("-")
    sign = "-" if text.startswith("-") else ""
    labels = np.full(1 + MAX_DIGITS, IGNORED, np.int64)
    labels[0] = LAYOUTS.index(sign + "d" * len(digits)) if digits else 0
    for k, ch in enumerate(reversed(digits)):
        labels[1 + k] = int(ch)
    return labels


def _digit_choices(digit: list[np.ndarray]) -> list[tuple[list[int], list[float]]]:
    """For 1, 2 and 3 digits: every number whose digits are each among their ``DIGIT_CHOICES``
    likeliest, no leading zero, and the product of its digits' probabilities, in the order of
    ``itertools.product`` over the digits from the right."""
    ranked = [np.argsort(-d)[:DIGIT_CHOICES] for d in digit]
    out = []
    values, joint = np.zeros(1, np.int64), np.ones(1, np.float32)
    for k in range(len(digit)):
        values = (values[:, None] + ranked[k][None, :] * 10**k).reshape(-1)
        joint = (joint[:, None] * digit[k][ranked[k]][None, :]).reshape(-1)
        # "07" is not written (the k-th digit varies fastest); a single "0" is
        keep = np.tile(ranked[k] != 0, len(values) // len(ranked[k])) | (k == 0)
        out.append((values[keep].tolist(), joint[keep].tolist()))
    return out


def number_candidates(probs: np.ndarray, signed: bool) -> dict[int | None, float]:
    """The numbers a cell may hold, {number (``None``: blank): probability}, from one row of the
    network's output (:data:`HEADS` softmax groups): each layout times its digits' probabilities,
    each digit among its ``DIGIT_CHOICES`` likeliest, no leading zero. A minus sign makes the
    number negative in a signed cell (a total; a monster penalty); elsewhere a minus is not a
    reading. The probabilities are scaled to sum to 1; a number of probability 0 is left out.

    >>> row = np.zeros(sum(HEADS)); row[1] = 1.0; row[7 + 4] = 0.9; row[7 + 9] = 0.1
    >>> {v: round(p, 2) for v, p in number_candidates(row, signed=False).items()}
    {4: 0.9, 9: 0.1}
    """
    layout = probs[: len(LAYOUTS)]
    digit = [probs[len(LAYOUTS) + 10 * k : len(LAYOUTS) + 10 * (k + 1)] for k in range(MAX_DIGITS)]
    choices = _digit_choices(digit)
    out: dict[int | None, float] = {}
    for index, form in enumerate(LAYOUTS):
        negative, n = form.startswith("-"), form.count("d")
        if negative and not signed:
            continue
        if n == 0:
            out[None] = out.get(None, 0.0) + float(layout[index])
            continue
        values, joint = choices[n - 1]
        sign, weight = (-1 if negative else 1), float(layout[index])
        for value, p in zip(values, joint):
            out[sign * value] = out.get(sign * value, 0.0) + weight * p
    total = sum(out.values())
    return {v: p / total for v, p in out.items() if p > 0} if total > 0 else {None: 1.0}
