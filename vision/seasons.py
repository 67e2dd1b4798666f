"""Reading the numbers written in the four season boxes and the final-total shield.

Where the writing cells are and their ink (darkness less the print all four boxes share) is
:mod:`vision.season_boxes`. In each writing cell:

1. print: straight runs along the cell's printed borders are removed; printed letters and icons
   fall under the cell's ink threshold, a share of its darkest ink, whenever something is
   written; in a blank cell what is left of them is known to the classifier as print
   (``noise``), from every printing it was trained on;
2. blobs: connected ink by hysteresis, pieces of one character (one above the other) merged;
3. each blob classified (:mod:`vision.digits`) whole, or — when it looks like several characters
   or is unsure — cut where that reads surest: a digit, a minus sign, print/noise, or a
   crossed-out number, which is dropped with the characters under it;
4. the number: an optional leading minus and one to three digits, left to right, with a
   confidence (the least sure character's probability); a cell whose blobs are all print is
   blank (``None``);
5. the box's own sum weighs the confidences (:func:`arithmetic_confidence`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from scoring.written import SEASON_NAMES, WrittenScores, WrittenSeason
from vision.digits import (
    CLASSES,
    MANY,
    N_FEATURES,
    NOISE,
    SCRIBBLE,
    DigitModel,
    patch_features,
)
from vision.season_boxes import (
    BOX_PX,
    LINE_BAND_U,
    paper_grain,
    sample_strip,
    strip_cells,
)

LINE_RUN_U = 0.32  # a straight run this long along a border is print, not writing
EDGE_U = 0.05  # ink this close to a cell's edge belongs to the border
INK_FLOOR = 0.07  # darkness (share of the paper's brightness) that can be ink at all
INK_SHARE = 0.3  # ink threshold: this share of the cell's darkest ink…
LINE_SHARE = 0.12  # …and this share of the printed lines' darkness
WEAK_SHARE = 0.65  # a blob takes in joined ink this share as dark as its threshold
SPLIT_MANY = 0.3  # a blob is cut when it is "several characters" this surely…
SPLIT_UNSURE = 0.6  # …or no single reading is this sure
CUT_COST = 0.2  # a cut through a blob must make its pieces this much surer (mean log p)
#: a wide blob read as a crossed-out number is read as two characters instead when one cut gives
#: two this sure (mean log p): two touching digits ("10", "36") look scribbled to the classifier
SCRIBBLE_CUT_SURE = 0.9
EDGE_CAP_U = 0.3  # distances from the cell's edges are counted up to this
MIN_BLOB_U2 = 0.0012  # blobs smaller than this (u²) are specks
MIN_SEED_PX = 2  # a blob needs this many pixels above the threshold
FLAG_BELOW = 0.96  # numbers read less surely than this are flagged for checking
ADDS_UP_CONFIDENCE = 0.97  # at least this sure of a box whose numbers add up…
DOES_NOT_ADD_UP = 0.85  # …at most this sure of one whose numbers do not


@dataclass(frozen=True)
class Blob:
    """One connected piece of ink in a cell: its box (px of the cell) and density crop."""

    x0: int
    y0: int
    x1: int
    y1: int
    ink: np.ndarray
    frame: tuple[int, int] = (0, 0)  # (height, width) of the cell it was found in

    def edge_u(self, px: int) -> float:
        """How far the blob keeps from the cell's edges, in u (a border's remnant hugs one)."""
        h, w = self.frame
        return min(self.x0, self.y0, w - self.x1, h - self.y1, EDGE_CAP_U * px) / px

    @property
    def width(self) -> int:
        return self.x1 - self.x0

    @property
    def height(self) -> int:
        return self.y1 - self.y0


@dataclass(frozen=True)
class CellRead:
    """A cell's number (``None`` when blank) and the confidence of that reading."""

    value: int | None
    confidence: float
    text: str = ""


def remove_borders(d: np.ndarray, px: int) -> np.ndarray:
    """The cell's darkness without its printed borders: straight runs near the cell's edges, and
    everything within ``EDGE_U`` of them; the band around the cell is dropped."""
    band, run = int(round(LINE_BAND_U * px)), max(3, int(round(LINE_RUN_U * px)))
    on = (d > INK_FLOOR).astype(np.uint8)
    horiz = cv2.morphologyEx(on, cv2.MORPH_OPEN, np.ones((1, run), np.uint8))
    vert = cv2.morphologyEx(on, cv2.MORPH_OPEN, np.ones((run, 1), np.uint8))
    near = np.zeros_like(on)
    e = band + int(round(EDGE_U * px))
    near[: 2 * band + 1], near[-2 * band - 1 :] = 1, 1
    near_v = np.zeros_like(on)
    near_v[:, : 2 * band + 1], near_v[:, -2 * band - 1 :] = 1, 1
    lines = cv2.dilate((horiz & near) | (vert & near_v), np.ones((3, 3), np.uint8))
    out = np.where(lines > 0, 0.0, d).astype(np.float32)
    return out[e:-e, e:-e]


def find_blobs(d: np.ndarray, px: int, line: float = 0.0, grain: float | None = None) -> list[Blob]:
    """Connected ink, pieces of one character merged; left to right.

    Hysteresis: ink above the cell's threshold seeds a blob, which takes in the fainter ink
    joined to it (down to ``WEAK_SHARE`` of it), so a pencil stroke broken by the paper's grain
    stays whole. The threshold: ``INK_SHARE`` of the cell's darkest ink, and at least
    ``INK_FLOOR``, the paper's own grain (``grain``, else ``NOISE_MADS`` deviations above the
    cell's median: :func:`paper_grain`) and ``LINE_SHARE`` of the printed lines' darkness
    ``line``."""
    if d.size == 0:
        return []
    d = cv2.GaussianBlur(d, (0, 0), 0.7)
    grain = paper_grain(d) if grain is None else grain
    peak = float(np.percentile(d, 99.7))
    high = max(INK_FLOOR, grain, LINE_SHARE * line, INK_SHARE * peak)
    if peak < high:
        return []
    low = max(WEAK_SHARE * high, 0.6 * grain)
    weak = cv2.morphologyEx((d > low).astype(np.uint8), cv2.MORPH_CLOSE, np.ones((2, 2)))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(weak, connectivity=8)
    seeded = np.bincount(labels[d > high], minlength=n) >= MIN_SEED_PX
    boxes = [
        [int(x), int(y), int(x + w), int(y + h)]
        for i, (x, y, w, h, area) in enumerate(stats)
        if i > 0 and seeded[i] and area >= MIN_BLOB_U2 * px * px
    ]
    keep = np.zeros(n, bool)
    keep[1:] = seeded[1:]
    mask = keep[labels]
    blobs = []
    for x0, y0, x1, y1 in _merge_columns(boxes):
        ink = np.where(mask[y0:y1, x0:x1], d[y0:y1, x0:x1], 0.0).astype(np.float32)
        blobs.append(Blob(x0, y0, x1, y1, ink, d.shape))
    return sorted(blobs, key=lambda b: b.x0)


def _merge_columns(boxes: list[list[int]]) -> list[list[int]]:
    """Merge boxes of one character's pieces (a 5's flag, a stroke broken by the paper's grain):
    one lies mostly within the other's columns (60 % of the narrower one's width) and they
    nearly touch vertically."""
    merged = True
    while merged:
        merged = False
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                a, b = boxes[i], boxes[j]
                overlap = min(a[2], b[2]) - max(a[0], b[0])
                gap_y = max(a[1], b[1]) - min(a[3], b[3])
                if overlap >= 0.6 * min(a[2] - a[0], b[2] - b[0]) and gap_y <= 3:
                    boxes[i] = [min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])]
                    del boxes[j]
                    merged = True
                    break
            if merged:
                break
    return boxes


def _cut(blob: Blob, cuts: list[int]) -> list[Blob]:
    """``blob`` cut at the given columns (px of the blob), each piece trimmed to its ink."""
    pieces = []
    for a, z in zip([0] + cuts, cuts + [blob.width]):
        ink = blob.ink[:, a:z]
        rows = np.flatnonzero(ink.max(axis=1) > 0)
        if len(rows) == 0 or z - a < 2:
            continue
        y0, y1 = int(rows[0]), int(rows[-1]) + 1
        pieces.append(
            Blob(blob.x0 + a, blob.y0 + y0, blob.x0 + z, blob.y0 + y1, ink[y0:y1], blob.frame)
        )
    return pieces


def best_reading(blob: Blob, model: DigitModel, px: int) -> tuple[list[Blob], np.ndarray]:
    """The way to read ``blob`` the classifier is surest of: whole (a character, print or a
    crossing-out), or — when the classifier sees several characters or is unsure — cut into two
    or three (touching digits, a minus sign joined to its number). Scored by the geometric mean
    of each piece's most probable class; each cut costs ``CUT_COST``. Every column is tried as a
    single cut; pairs of the best cuts too. A wide blob read surely as crossed out is cut in two
    when both pieces read as characters at least ``SCRIBBLE_CUT_SURE`` (:func:`_touching_pair`)."""
    whole = model.probabilities(blob_features([blob], px))
    if blob.width < 0.5 * blob.height or blob.width < 6:
        return [blob], whole
    sure_whole = whole[0, MANY] < SPLIT_MANY and whole[0, :MANY].max() >= SPLIT_UNSURE
    scribbled = whole[0, :MANY].argmax() == SCRIBBLE and blob.width >= 0.9 * blob.height
    if sure_whole and not scribbled:
        return [blob], whole
    singles = _single_cuts(blob, model, px)
    best, best_probs = ([blob], whole) if sure_whole else _best_cut(blob, model, px, singles, whole)
    if len(best) == 1 and scribbled:
        return _touching_pair(singles) or (best, best_probs)
    return best, best_probs


def _single_cuts(
    blob: Blob, model: DigitModel, px: int
) -> list[tuple[int, list[Blob], np.ndarray]]:
    """Every cut of ``blob`` at one column into two pieces: (column, pieces, their
    probabilities)."""
    out = []
    for c in range(2, blob.width - 2):
        pieces = _cut(blob, [c])
        if len(pieces) == 2:
            out.append((c, pieces, model.probabilities(blob_features(pieces, px))))
    return out


def _best_cut(
    blob: Blob, model: DigitModel, px: int, singles: list, whole: np.ndarray
) -> tuple[list[Blob], np.ndarray]:
    """:func:`best_reading`'s search: the whole blob, every single cut (``singles``), then pairs
    of the best ones, each kept when it scores above the best so far."""
    best, best_probs = [blob], whole
    best_score = float(np.log(whole[0, :MANY].max() + 1e-6))
    scored = []
    for c, pieces, probs in singles:
        score = _score(probs)
        scored.append((score, c))
        if score > best_score:
            best, best_probs, best_score = pieces, probs, score
    if blob.width >= 1.1 * blob.height:
        top = [c for _, c in sorted(scored, reverse=True)[:5]]
        for a, z in ((a, z) for a in top for z in top if z - a >= 3):
            pieces = _cut(blob, [a, z])
            probs = model.probabilities(blob_features(pieces, px))
            if len(pieces) == 3 and _score(probs) > best_score:
                best, best_probs, best_score = pieces, probs, _score(probs)
    return best, best_probs


def _touching_pair(singles: list) -> tuple[list[Blob], np.ndarray] | None:
    """Of the single cuts (:func:`_single_cuts`), the one whose two pieces read surest as
    characters, when they read at least ``SCRIBBLE_CUT_SURE`` so (mean log p); else None."""
    best = None
    for _, pieces, probs in singles:
        score = _sureness(probs)
        if score >= np.log(SCRIBBLE_CUT_SURE) and (best is None or score > best[0]):
            best = (score, pieces, probs)
    return None if best is None else (best[1], best[2])


def _sureness(probs: np.ndarray) -> float:
    """How surely pieces are characters: the mean log of each one's most probable character."""
    return float(np.log(probs[:, :NOISE].max(axis=1) + 1e-6).mean())


def _score(probs: np.ndarray) -> float:
    """How surely cut pieces are characters, less the cost of the cuts."""
    return _sureness(probs) - CUT_COST * (len(probs) - 1)


def blob_features(blobs: list[Blob], px: int) -> np.ndarray:
    """The classifier's feature rows of ``blobs``: :func:`vision.digits.patch_features` and the
    blob's distance from the cell's edges."""
    if not blobs:
        return np.zeros((0, N_FEATURES), np.float32)
    return np.array([np.append(patch_features(b.ink, px), b.edge_u(px)) for b in blobs], np.float32)


def _covers(a: Blob, b: Blob) -> bool:
    """Whether blob ``a`` (a crossing-out) lies over most of blob ``b``."""
    ox = min(a.x1, b.x1) - max(a.x0, b.x0)
    oy = min(a.y1, b.y1) - max(a.y0, b.y0)
    return ox > 0.5 * b.width and oy > 0.5 * b.height


def number_from_blobs(blobs: list[Blob], probs: np.ndarray, signed: bool) -> CellRead:
    """The number the classified blobs spell (see the module's docstring, step 5)."""
    if not blobs:
        return CellRead(None, 1.0)
    labels = probs[:, :MANY].argmax(axis=1)
    scribbles = [b for b, k in zip(blobs, labels) if k == SCRIBBLE]
    keep, sure = [], 1.0
    for b, k, p in zip(blobs, labels, probs):
        if k in (NOISE, SCRIBBLE):
            sure = min(sure, float(p[NOISE] + p[SCRIBBLE]))
            continue
        if any(_covers(s, b) for s in scribbles):
            continue
        keep.append((b, int(k), float(p[k] / max(1e-6, 1.0 - p[MANY]))))
    if not keep:
        return CellRead(None, sure)
    keep = _one_row(keep)
    text = "".join(CLASSES[k] for _, k, _ in keep)
    sure = min([sure] + [p for _, _, p in keep])
    digits = text.lstrip("-")
    if not digits or "-" in digits or len(digits) > 3 or len(text) - len(digits) > 1:
        return CellRead(None, 0.0, text)
    value = int(digits)
    if text.startswith("-"):
        value = -value if signed else value
    return CellRead(value, sure, text)


def _one_row(keep: list[tuple[Blob, int, float]]) -> list[tuple[Blob, int, float]]:
    """The characters of one line: where the kept blobs stand in two rows (a number rewritten
    above one not recognised as crossed out), the lower, later row."""
    ys = np.array([(b.y0 + b.y1) / 2 for b, _, _ in keep])
    hs = np.array([b.height for b, _, _ in keep])
    if len(keep) < 2 or ys.max() - ys.min() < 0.8 * float(np.median(hs)):
        return keep
    cut = (ys.max() + ys.min()) / 2
    return [item for item, y in zip(keep, ys) if y >= cut]


def read_cell(
    d: np.ndarray,
    px: int,
    model: DigitModel,
    signed: bool,
    line: float = 0.0,
    grain: float | None = None,
) -> CellRead:
    """One writing cell's number from its darkness (with the border band)."""
    blobs, rows = [], []
    for blob in find_blobs(remove_borders(d, px), px, line, grain):
        pieces, probs = best_reading(blob, model, px)
        blobs += pieces
        rows.append(probs)
    probs = np.concatenate(rows) if rows else np.zeros((0, len(CLASSES)), np.float32)
    return number_from_blobs(blobs, probs, signed)


def read_written(
    image: np.ndarray, to_photo: Callable[..., np.ndarray], model: DigitModel, px: int = BOX_PX
) -> WrittenScores:
    """Every season box's five numbers and the final total, with a confidence for each."""
    return read_strip(sample_strip(image, to_photo, px), model, px)


def read_strip(strip: np.ndarray, model: DigitModel, px: int = BOX_PX) -> WrittenScores:
    """:func:`read_written` on the box strip already sampled (:func:`sample_strip`)."""
    cells, line, grain = strip_cells(strip, px)
    values: dict[str, int | None] = {}
    confidence: dict[str, float] = {}
    for key, d in cells.items():
        signed = key.endswith(".total") or key.endswith(".monsters")
        read = read_cell(d, px, model, signed, line, grain)
        value = read.value
        if key.endswith(".monsters") and value is not None:
            value = abs(value)
        values[key], confidence[key] = value, round(read.confidence, 4)
    seasons = tuple(
        WrittenSeason(
            name,
            (values[f"{name}.edict1"], values[f"{name}.edict2"]),
            values[f"{name}.coins"],
            values[f"{name}.monsters"],
            values[f"{name}.total"],
        )
        for name in SEASON_NAMES
    )
    return WrittenScores(
        seasons, values["final"], arithmetic_confidence(seasons, values["final"], confidence)
    )


def arithmetic_confidence(
    seasons: tuple[WrittenSeason, ...], final: int | None, confidence: dict[str, float]
) -> dict[str, float]:
    """Confidences weighed by the box's own sum: a season whose parts add up to its written
    total (and a final total that is the sum of the four) was very likely read right; one that
    does not holds a misread or the player's slip, and its numbers are flagged for checking."""
    out = dict(confidence)
    groups = []
    for s in seasons:
        n = s.numbers()
        if n["total"] is None or s.is_blank():
            continue
        parts = (n["edict1"] or 0) + (n["edict2"] or 0) + (n["coins"] or 0) - (n["monsters"] or 0)
        groups.append(([f"{s.season}.{p}" for p in n], parts == n["total"]))
    totals = [s.total for s in seasons]
    if final is not None:
        adds_up = all(t is not None for t in totals) and sum(totals) == final
        groups.append(([f"{s.season}.total" for s in seasons] + ["final"], adds_up))
    for keys, adds_up in groups:
        for k in keys:
            out[k] = max(out[k], ADDS_UP_CONFIDENCE) if adds_up else min(out[k], DOES_NOT_ADD_UP)
    return {k: round(v, 4) for k, v in out.items()}


def unsure_numbers(written: WrittenScores) -> list[str]:
    """The cells read less surely than ``FLAG_BELOW``, in reading order."""
    return [k for k, c in written.confidence.items() if c < FLAG_BELOW]
