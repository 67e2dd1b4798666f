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
   blank (``None``); beside it, the other numbers the cell may hold (:func:`cell_candidates`);
5. the boxes' arithmetic chooses among them (:func:`decode_boxes`), and a box that still does
   not add up has its numbers flagged (:func:`arithmetic_confidence`).
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial

import cv2
import numpy as np

from scoring.written import PARTS, SEASON_NAMES, WrittenScores, WrittenSeason
from vision.cell_numbers import cell_picture, number_candidates
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
    INK_SMOOTH_PX,
    LINE_BAND_U,
    cells_in_boxes,
    fit_boxes,
    paper_grain,
    sample_strip,
)

BORDER_SPAN = 0.75  # a straight run along a border this share of the cell's side is print
BORDER_RUN_U = 0.85  # an upright straight run this long anywhere in a cell is print
EDGE_U = 0.05  # ink this close to a cell's edge belongs to the border
INK_FLOOR = 0.07  # darkness (share of the paper's brightness) that can be ink at all
INK_SHARE = 0.3  # ink threshold: this share of the cell's darkest ink…
LINE_SHARE = 0.12  # …and this share of the printed lines' darkness
WEAK_SHARE = 0.65  # a blob takes in joined ink this share as dark as its threshold
SPLIT_MANY = 0.3  # a blob is cut when it is "several characters" this surely…
SPLIT_UNSURE = 0.6  # …or no single reading is this sure
CUT_COST = 0.2  # a cut through a blob must make its pieces this much surer (mean log p)
#: a blob at least this wide for its height is tried cut even when it reads surely whole: one
#: handwritten digit is narrower than tall, two touching ones ("14") seldom are. Measured on the
#: cached box strips of both benchmarks, numbers exact at no such rule / 0.8 / 1.0 / 1.2: ours
#: 86.79 / 86.98 / 87.01 / 86.90 %, the publisher's 59.94 / 60.02 / 59.99 / 59.94 %
WIDE_CUT = 1.0
#: a wide blob read as a crossed-out number is read as two characters instead when one cut gives
#: two this sure (mean log p): two touching digits ("10", "36") look scribbled to the classifier
SCRIBBLE_CUT_SURE = 0.9
EDGE_CAP_U = 0.3  # distances from the cell's edges are counted up to this
MIN_BLOB_U2 = 0.0012  # blobs smaller than this (u²) are specks
MIN_SEED_PX = 4  # a blob needs this many pixels above the threshold
NARROWEST_CUT_PX = 9  # a blob narrower than this is never cut (0.125 u)
CUT_MARGIN_PX = 3  # a cut leaves at least this many columns on either side
CUT_STEP_PX = 2  # single cuts are tried every this many columns (neighbours cut alike)
FLAG_BELOW = 0.96  # numbers read less surely than this are flagged for checking
DOES_NOT_ADD_UP = 0.85  # at most this sure of a box whose numbers do not add up
ALTERNATIVES = 3  # each character's most probable readings the arithmetic may choose among…
CANDIDATES = 5  # …and each cell's most probable numbers
CANDIDATE_FLOOR = 1e-3  # a number this much less probable than the cell's best is not one
#: a blob read the other way (whole when it was cut, cut when it was read whole) offers its numbers
#: this much less probable: the arithmetic may prefer "18" to a touching pair read as "8"
OTHER_CUT_WEIGHT = 0.1
VALLEY_CUTS = 4
#: the odds that a box does not add up (the player slipped): a reading that adds up is taken
#: over a likelier one that does not when it is no more than 1 / SLIP_ODDS times less probable
SLIP_ODDS = 0.08
#: a choice with numbers in a season's parts but none in its total, or a final total but no
#: total in a season, weighs this much less: a box is filled in at the season's end, all of it,
#: and the final after winter (a printed letter read as "0" in an empty box)
OPEN_BOX_ODDS = 0.01
#: the whole-cell network's share of a cell's candidate numbers (the character reader has the rest)
WHOLE_CELL_WEIGHT = 0.7
#: a cell the whole-cell networks read less surely than ``WHOLE_CELL_SURE`` (their likeliest
#: number's probability) is read again moved ``WHOLE_CELL_SHIFT_U`` left, right, up and down, and
#: the five readings are averaged: a box's fit may sit a few hundredths of a unit off, and a
#: number near the cell's edge or over a printed letter is cut and scaled differently at each
#: place. On the cached box strips, numbers exact ours / the publisher's: read once 96.76 /
#: 84.22 %, now 97.10 / 85.46 % (docs/reader.md has the other shifts and thresholds measured)
WHOLE_CELL_SHIFT_U = 0.04
WHOLE_CELL_SURE = 0.99


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
    #: the numbers the cell may hold, most probable first, with their probabilities
    candidates: tuple[tuple[int | None, float], ...] = ()


def remove_borders(d: np.ndarray, px: int) -> np.ndarray:
    """The cell's darkness without its printed borders: straight runs near the cell's edges
    spanning ``BORDER_SPAN`` of its side (a written "1" beside a border is shorter), upright
    runs at least ``BORDER_RUN_U`` long anywhere (a box a little narrower than where it was
    looked for: no written character is that tall), and everything within ``EDGE_U`` of them;
    the band around the cell is dropped."""
    band = int(round(LINE_BAND_U * px))
    h, w = d.shape
    on = (d > INK_FLOOR).astype(np.uint8)
    # a border a little tilted steps sideways: runs are looked for a pixel either side
    wide_v = cv2.dilate(on, np.ones((1, 3), np.uint8))
    wide_h = cv2.dilate(on, np.ones((3, 1), np.uint8))
    run_v, run_h = max(3, int(BORDER_SPAN * h)), max(3, int(BORDER_SPAN * w))
    vert = cv2.morphologyEx(wide_v, cv2.MORPH_OPEN, np.ones((run_v, 1), np.uint8)) & on
    horiz = cv2.morphologyEx(wide_h, cv2.MORPH_OPEN, np.ones((1, run_h), np.uint8)) & on
    run_long = max(3, int(BORDER_RUN_U * px))
    long_v = cv2.morphologyEx(wide_v, cv2.MORPH_OPEN, np.ones((run_long, 1), np.uint8)) & on
    near = np.zeros_like(on)
    e = band + int(round(EDGE_U * px))
    reach = 2 * band + 1
    near[:reach], near[-reach:] = 1, 1
    near_v = np.zeros_like(on)
    near_v[:, :reach], near_v[:, -reach:] = 1, 1
    lines = cv2.dilate((horiz & near) | (vert & near_v) | long_v, np.ones((3, 3), np.uint8))
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
    d = cv2.GaussianBlur(d, (0, 0), INK_SMOOTH_PX)
    grain = paper_grain(d) if grain is None else grain
    peak = float(np.percentile(d, 99.7))
    high = max(INK_FLOOR, grain, LINE_SHARE * line, INK_SHARE * peak)
    if peak < high:
        return []
    low = max(WEAK_SHARE * high, 0.6 * grain)
    weak = cv2.morphologyEx((d > low).astype(np.uint8), cv2.MORPH_CLOSE, np.ones((3, 3)))
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
    crossing-out), or — when the classifier sees several characters, is unsure, or the blob is
    at least ``WIDE_CUT`` as wide as tall — cut into two or three (touching digits, a minus sign
    joined to its number). Scored by the geometric mean of each piece's most probable class;
    each cut costs ``CUT_COST``. Every column is tried as a single cut; pairs of the best cuts
    too. A wide blob read surely as crossed out is cut in two when both pieces read as
    characters at least ``SCRIBBLE_CUT_SURE`` (:func:`_touching_pair`)."""
    return best_readings([blob], model, px)[0]


def best_readings(
    blobs: list[Blob], model: DigitModel, px: int, wholes: list[np.ndarray] | None = None
) -> list[tuple[list[Blob], np.ndarray]]:
    """:func:`best_reading` of every blob, the classifier called once per stage for all of them
    (its cost is mostly per call, not per row). ``wholes``: each blob's probabilities read whole,
    when the caller already has them."""
    if wholes is None:
        wholes = _probabilities_of([[b] for b in blobs], model, px)
    searched = [i for i, b in enumerate(blobs) if _may_be_cut(b, wholes[i])]
    cuts = [_single_cut_pieces(blobs[i]) for i in searched]
    cut_probs = _probabilities_of([[p for _, pieces in c for p in pieces] for c in cuts], model, px)
    singles = {
        i: [(c, pieces, probs[2 * k : 2 * k + 2]) for k, (c, pieces) in enumerate(found)]
        for i, found, probs in zip(searched, cuts, cut_probs)
    }
    unsure = [i for i in searched if not _sure_whole(blobs[i], wholes[i])]
    pairs = [_pair_cut_pieces(blobs[i], singles[i]) for i in unsure]
    pair_probs = _probabilities_of([[b for p in found for b in p] for found in pairs], model, px)
    best_cut = {
        i: _best_cut(blobs[i], wholes[i], singles[i], found, probs)
        for i, found, probs in zip(unsure, pairs, pair_probs)
    }
    out = []
    for i, (blob, whole) in enumerate(zip(blobs, wholes)):
        best, best_probs = best_cut.get(i, ([blob], whole))
        if i in singles and len(best) == 1 and _scribbled(blob, whole):
            best, best_probs = _touching_pair(singles[i]) or (best, best_probs)
        out.append((best, best_probs))
    return out


def _probabilities_of(groups: list[list[Blob]], model: DigitModel, px: int) -> list[np.ndarray]:
    """Each group's blobs' class probabilities, from one classifier call for every group."""
    flat = [b for g in groups for b in g]
    if not flat:
        return [np.zeros((0, len(CLASSES)), np.float32) for _ in groups]
    probs = model.probabilities(blob_features(flat, px))
    return np.split(probs, np.cumsum([len(g) for g in groups])[:-1])


def _sure_whole(blob: Blob, whole: np.ndarray) -> bool:
    """The classifier reads ``blob`` whole as one character, surely, and it is not too wide."""
    return bool(
        whole[0, MANY] < SPLIT_MANY
        and whole[0, :MANY].max() >= SPLIT_UNSURE
        and blob.width < WIDE_CUT * blob.height
    )


def _scribbled(blob: Blob, whole: np.ndarray) -> bool:
    """The classifier reads ``blob`` whole as crossed out, and it is at least about square."""
    return bool(whole[0, :MANY].argmax() == SCRIBBLE and blob.width >= 0.9 * blob.height)


def _may_be_cut(blob: Blob, whole: np.ndarray) -> bool:
    """Whether cuts of ``blob`` are tried: wide enough, and unsure or crossed out whole."""
    if blob.width < 0.5 * blob.height or blob.width < NARROWEST_CUT_PX:
        return False
    return not _sure_whole(blob, whole) or _scribbled(blob, whole)


def _single_cut_pieces(blob: Blob) -> list[tuple[int, list[Blob]]]:
    """Every cut of ``blob`` at one column into two pieces: (column, pieces)."""
    columns = range(CUT_MARGIN_PX, blob.width - CUT_MARGIN_PX, CUT_STEP_PX)
    return [(c, pieces) for c in columns if len(pieces := _cut(blob, [c])) == 2]


def _pair_cut_pieces(blob: Blob, singles: list) -> list[list[Blob]]:
    """Cuts of a blob at least 1.1 times as wide as tall at two of the five best single cuts
    (:func:`_single_cut_pieces` with their probabilities) into three pieces."""
    if blob.width < 1.1 * blob.height:
        return []
    top = [c for _, c in sorted(((_score(probs), c) for c, _, probs in singles), reverse=True)[:5]]
    return [p for a in top for z in top if z - a >= 3 and len(p := _cut(blob, [a, z])) == 3]


def _best_cut(
    blob: Blob,
    whole: np.ndarray,
    singles: list,
    pairs: list[list[Blob]],
    pair_probs: np.ndarray,
) -> tuple[list[Blob], np.ndarray]:
    """:func:`best_reading`'s search: the whole blob, every single cut (``singles``: column,
    pieces, probabilities), then the pairs of the best ones (``pairs``, their pieces' rows
    ``pair_probs`` end to end), each kept when it scores above the best so far."""
    best, best_probs = [blob], whole
    best_score = float(np.log(whole[0, :MANY].max() + 1e-6))
    for _, pieces, probs in singles:
        if (score := _score(probs)) > best_score:
            best, best_probs, best_score = pieces, probs, score
    for k, pieces in enumerate(pairs):
        if _score(pair_probs[3 * k : 3 * k + 3]) > best_score:
            best, best_probs = pieces, pair_probs[3 * k : 3 * k + 3]
            best_score = _score(best_probs)
    return best, best_probs


def _touching_pair(singles: list) -> tuple[list[Blob], np.ndarray] | None:
    """Of the single cuts (column, pieces, their probabilities), the one whose two pieces read
    surest as characters, when they read at least ``SCRIBBLE_CUT_SURE`` so (mean log p); else
    None."""
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
    """The number the classified blobs spell (see the module's docstring, step 4); the other
    numbers they may spell are :func:`read_ink`'s."""
    if not blobs:
        return CellRead(None, 1.0)
    labels = probs[:, :MANY].argmax(axis=1)
    sure = 1.0
    for k, p in zip(labels, probs):
        if k in (NOISE, SCRIBBLE):
            sure = min(sure, float(p[NOISE] + p[SCRIBBLE]))
    value, text, keep = _spell(blobs, labels, signed)
    if not keep:
        return CellRead(None, sure)
    sure = min([sure] + [float(probs[i, k] / max(1e-6, 1.0 - probs[i, MANY])) for i, k in keep])
    if value is _UNREADABLE:
        return CellRead(None, 0.0, text)
    return CellRead(value, sure, text)


_UNREADABLE = object()  # the characters spell no number ("--", four digits)


def _spell(blobs: list[Blob], labels, signed: bool) -> tuple:
    """(number, text, kept characters as (blob index, class)) that blobs read as ``labels``
    spell: print and crossings-out dropped with what they cover, one row kept; the number is
    ``None`` when nothing is left and ``_UNREADABLE`` when the text is no number."""
    scribbles = [b for b, k in zip(blobs, labels) if k == SCRIBBLE]
    keep = [
        (b, int(k), i)
        for i, (b, k) in enumerate(zip(blobs, labels))
        if k not in (NOISE, SCRIBBLE) and not any(_covers(s, b) for s in scribbles)
    ]
    if not keep:
        return None, "", []
    keep = _one_row(keep)
    text = "".join(CLASSES[k] for _, k, _ in keep)
    kept = [(i, k) for _, k, i in keep]
    digits = text.lstrip("-")
    if not digits or "-" in digits or len(digits) > 3 or len(text) - len(digits) > 1:
        return _UNREADABLE, text, kept
    value = int(digits)
    if text.startswith("-"):
        value = -value if signed else value
    return value, text, kept


def cell_candidates(
    blobs: list[Blob], probs: np.ndarray, signed: bool
) -> tuple[tuple[int | None, float], ...]:
    """The numbers ``blobs`` may spell, most probable first, with their probabilities: every
    blob read as one of its ``ALTERNATIVES`` likeliest characters (a digit, a minus, print or a
    crossing-out), each reading's probability the product of its characters', summed by number.

    >>> b = [Blob(0, 0, 8, 16, np.ones((16, 8), np.float32), (30, 60))]
    >>> p = np.zeros((1, len(CLASSES)), np.float32); p[0, 7], p[0, 1] = 0.7, 0.3
    >>> [(v, round(q, 2)) for v, q in cell_candidates(b, p, signed=False)]
    [(7, 0.7), (1, 0.3)]
    """
    if not blobs:
        return ((None, 1.0),)
    p = (probs[:, :MANY] / np.maximum(1e-6, 1.0 - probs[:, MANY : MANY + 1])).tolist()
    top = 1 if len(blobs) > 5 else ALTERNATIVES
    options = []
    for row in p:  # each blob's likeliest characters, those next to impossible left out
        ranked = sorted(range(len(row)), key=lambda k: -row[k])[:top]
        options.append([(k, row[k]) for k in ranked if row[k] >= CANDIDATE_FLOOR * row[ranked[0]]])
    total: dict = {}
    for choice in itertools.product(*options):
        value, _, _ = _spell(blobs, [k for k, _ in choice], signed)
        if value is _UNREADABLE:
            continue
        total[value] = total.get(value, 0.0) + math.prod(q for _, q in choice)
    return _likeliest(total)


def _likeliest(total: dict) -> tuple[tuple[int | None, float], ...]:
    """The ``CANDIDATES`` likeliest of {number: probability}, most probable first, none
    ``CANDIDATE_FLOOR`` times less probable than the best (``()`` when there is none)."""
    ranked = sorted(total.items(), key=lambda vq: -vq[1])
    if not ranked:
        return ()
    best = ranked[0][1]
    return tuple((v, q) for v, q in ranked[:CANDIDATES] if q >= CANDIDATE_FLOOR * best)


def _one_row(keep: list[tuple]) -> list[tuple]:
    """The characters of one line: where the kept blobs stand in two rows (a number rewritten
    above one not recognised as crossed out), the lower, later row."""
    if len(keep) < 2:
        return keep
    ys = [(b.y0 + b.y1) / 2 for b, _, _ in keep]
    if max(ys) - min(ys) < 0.8 * statistics.median(b.height for b, _, _ in keep):
        return keep
    cut = (max(ys) + min(ys)) / 2
    return [item for item, y in zip(keep, ys) if y >= cut]


def read_ink(
    ink: np.ndarray,
    px: int,
    model: DigitModel,
    signed: bool,
    line: float = 0.0,
    grain: float | None = None,
) -> CellRead:
    """One writing cell's number from its ink, its printed borders already removed
    (:func:`remove_borders`)."""
    return read_inks([ink], [signed], px, model, line, grain)[0]


def read_inks(
    inks: list[np.ndarray],
    signed: list[bool],
    px: int,
    model: DigitModel,
    line: float = 0.0,
    grain: float | None = None,
) -> list[CellRead]:
    """:func:`read_ink` of every cell (``signed``: whether each may hold a minus sign), the
    classifier called once per stage for the blobs of all of them."""
    found = [find_blobs(ink, px, line, grain) for ink in inks]
    blobs = [b for cell in found for b in cell]
    wholes = _probabilities_of([[b] for b in blobs], model, px)
    readings = best_readings(blobs, model, px, wholes)
    others = _other_readings(blobs, wholes, [pieces for pieces, _ in readings], model, px)
    out, at = [], 0
    for cell, sign in zip(found, signed):
        mine = range(at, at + len(cell))
        at += len(cell)
        pieces = [b for i in mine for b in readings[i][0]]
        rows = [readings[i][1] for i in mine]
        probs = np.concatenate(rows) if rows else np.zeros((0, len(CLASSES)), np.float32)
        ways = [[(readings[i][0], readings[i][1], 1.0)] + others[i] for i in mine]
        out.append(replace(number_from_blobs(pieces, probs, sign), candidates=_merge(ways, sign)))
    return out


def _other_readings(
    blobs: list[Blob],
    wholes: list[np.ndarray],
    pieces: list[list[Blob]],
    model: DigitModel,
    px: int,
) -> list[list]:
    """Each blob read the other way, weighed ``OTHER_CUT_WEIGHT``: whole (``wholes``) when it was
    cut into ``pieces``, else cut in two where the pieces read surest, among the ``VALLEY_CUTS``
    columns of least ink in its middle half (touching characters join at a thin bridge)."""
    valleys = [_valley_cuts(b) if len(p) == 1 else [] for b, p in zip(blobs, pieces)]
    probs = _probabilities_of([[b for c in cuts for b in c] for cuts in valleys], model, px)
    out = []
    for blob, whole, mine, cuts, p in zip(blobs, wholes, pieces, valleys, probs):
        if len(mine) > 1:
            out.append([([blob], whole, OTHER_CUT_WEIGHT)])
        elif cuts:
            best = max(range(len(cuts)), key=lambda i: _sureness(p[2 * i : 2 * i + 2]))
            out.append([(cuts[best], p[2 * best : 2 * best + 2], OTHER_CUT_WEIGHT)])
        else:
            out.append([])
    return out


def _valley_cuts(blob: Blob) -> list[list[Blob]]:
    """Up to ``VALLEY_CUTS`` cuts of ``blob`` in two at the columns of least ink in its middle
    half; none for a blob too narrow to cut."""
    if blob.width < NARROWEST_CUT_PX or blob.width < 0.5 * blob.height:
        return []
    ink = blob.ink.sum(axis=0)
    middle = np.arange(max(2, blob.width // 4), min(blob.width - 2, 3 * blob.width // 4 + 1))
    by_ink = (_cut(blob, [int(c)]) for c in middle[np.argsort(ink[middle], kind="stable")])
    return list(itertools.islice((c for c in by_ink if len(c) == 2), VALLEY_CUTS))


def _merge(ways: list[list], signed: bool) -> tuple[tuple[int | None, float], ...]:
    """The candidate numbers of every way of reading the cell's blobs (:func:`cell_candidates`
    of each, weighed by its ways' weights), summed by number; a cell without blobs is blank."""
    if not ways:
        return ((None, 1.0),)
    total: dict = {}
    for choice in itertools.product(*ways):
        pieces = [b for p, _, _ in choice for b in p]
        probs = np.concatenate([q for _, q, _ in choice])
        weight = math.prod(w for _, _, w in choice)
        for v, q in cell_candidates(pieces, probs, signed):
            total[v] = total.get(v, 0.0) + weight * q
    return _likeliest(total)


def read_written(
    image: np.ndarray, to_photo: Callable[..., np.ndarray], model: DigitModel, px: int = BOX_PX
) -> WrittenScores:
    """Every season box's five numbers and the final total, with a confidence for each."""
    return read_strip(sample_strip(image, to_photo, px), model, px)


def read_strip(strip: np.ndarray, model: DigitModel, px: int = BOX_PX) -> WrittenScores:
    """:func:`read_written` on the box strip already sampled (:func:`sample_strip`)."""
    dark, affines, line, grain = fit_boxes(strip, px)
    inks = cell_inks(cells_in_boxes(dark, affines, px), px)
    read = read_inks(list(inks.values()), [_signed(k) for k in inks], px, model, line, grain)
    reads = dict(zip(inks, read))
    if model.cell_networks:
        moved = partial(cells_in_boxes, dark, affines, px)
        for key, numbers in whole_cell_numbers(model, inks, moved, line, grain, px).items():
            reads[key] = with_whole_cell(reads[key], numbers)
    values, confidence = decode_boxes(reads)
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


def whole_cell_numbers(
    model: DigitModel,
    inks: dict[str, np.ndarray],
    moved: Callable[[tuple[float, float]], dict[str, np.ndarray]],
    line: float,
    grain: float,
    px: int = BOX_PX,
) -> dict[str, dict[int | None, float]]:
    """The numbers the whole-cell networks read in each cell (:func:`number_candidates`) by key;
    a cell whose likeliest number they read less surely than ``WHOLE_CELL_SURE`` is read again in
    the cells ``moved`` gives (every cell's darkness with the boxes moved by a shift in u)
    ``WHOLE_CELL_SHIFT_U`` each way, and its five readings' probabilities are averaged."""
    keys = list(inks)
    probs = model.cell_probabilities(
        np.array([cell_picture(inks[k], k, line, grain) for k in keys])
    )
    numbers = {k: number_candidates(p, _signed(k)) for k, p in zip(keys, probs)}
    unsure = [i for i, k in enumerate(keys) if max(numbers[k].values()) < WHOLE_CELL_SURE]
    if unsure:
        s = WHOLE_CELL_SHIFT_U
        shifts = ((s, 0.0), (-s, 0.0), (0.0, s), (0.0, -s))
        rows = []
        for shift in shifts:
            cells = moved(shift)
            rows += [
                cell_picture(remove_borders(cells[keys[i]], px), keys[i], line, grain)
                for i in unsure
            ]
        more = model.cell_probabilities(np.array(rows)).reshape(len(shifts), len(unsure), -1)
        for i, mean in zip(unsure, (probs[unsure] + more.sum(axis=0)) / (1 + len(shifts))):
            numbers[keys[i]] = number_candidates(mean, _signed(keys[i]))
    return numbers


def strip_inks(strip: np.ndarray, px: int = BOX_PX) -> tuple[dict[str, np.ndarray], float, float]:
    """Every writing cell's ink by key, each box snapped onto its borders
    (:func:`vision.season_boxes.fit_boxes`, :func:`vision.season_boxes.cells_in_boxes`); the
    printed lines' darkness and the paper's grain."""
    dark, affines, line, grain = fit_boxes(strip, px)
    return cell_inks(cells_in_boxes(dark, affines, px), px), line, grain


def cell_inks(cells: dict[str, np.ndarray], px: int = BOX_PX) -> dict[str, np.ndarray]:
    """Each cell's darkness by key with its printed borders removed (:func:`remove_borders`)."""
    return {key: remove_borders(d, px) for key, d in cells.items()}


def _signed(key: str) -> bool:
    """Whether a minus sign counts in cell ``key`` (a season's total; the monster penalty)."""
    return key.endswith(".total") or key.endswith(".monsters")


def with_whole_cell(
    read: CellRead, whole: dict[int | None, float], weight: float = WHOLE_CELL_WEIGHT
) -> CellRead:
    """A cell's reading with the whole-cell network's numbers (:mod:`vision.cell_numbers`)
    mixed in: each number's probability ``weight`` × the network's + (1 − ``weight``) × the
    character reader's; the likeliest is the cell's number and its probability the confidence.

    >>> chars = CellRead(7, 0.6, "7", ((7, 0.6), (1, 0.4)))
    >>> mixed = with_whole_cell(chars, {1: 0.9, 7: 0.1}, weight=0.5)
    >>> mixed.value, round(mixed.confidence, 2), [v for v, _ in mixed.candidates]
    (1, 0.65, [1, 7])
    """
    own = read.candidates or ((read.value, 1.0),)
    norm = sum(q for _, q in own) or 1.0
    total: dict = {}
    for v, q in own:
        total[v] = total.get(v, 0.0) + (1.0 - weight) * q / norm
    for v, q in whole.items():
        total[v] = total.get(v, 0.0) + weight * q
    candidates = _likeliest(total)
    value, p = candidates[0]
    text = read.text if value == read.value else ("" if value is None else str(value))
    return CellRead(value, p, text, candidates)


def _as_written(key: str, value: int | None) -> int | None:
    """``value`` read in cell ``key``: a monster penalty counts with or without its minus."""
    return abs(value) if key.endswith(".monsters") and value is not None else value


def _options(key: str, read: CellRead) -> dict:
    """A cell's candidate numbers as {number: probability} (:func:`_as_written`)."""
    if not read.candidates:
        return {_as_written(key, read.value): 1.0}
    out: dict = {}
    for v, q in read.candidates:
        v = _as_written(key, v)
        out[v] = out.get(v, 0.0) + q
    return out


def _adds_up(parts: tuple, total) -> bool:
    """Whether a season's edicts + coins − monsters make its total (a blank is a zero)."""
    e1, e2, coins, monsters = (v or 0 for v in parts)
    return e1 + e2 + coins - monsters == (total or 0)


def _season_choices(options: dict, name: str) -> tuple[list, list, dict]:
    """A season's cells, every choice of their numbers with its weight (the product of the
    numbers' probabilities, ``SLIP_ODDS`` less when they do not add up, ``OPEN_BOX_ODDS`` less
    when parts are written and the total is not), and the ``CANDIDATES`` likeliest totals with
    their summed weight."""
    keys = [f"{name}.{p}" for p in PARTS]
    choices = []
    for combo in itertools.product(*(options[k].items() for k in keys)):
        numbers = tuple(v for v, _ in combo)
        w = math.prod(q for _, q in combo)
        if not _adds_up(numbers[:4], numbers[4]):
            w *= SLIP_ODDS
        if numbers[4] is None and any(v is not None for v in numbers[:4]):
            w *= OPEN_BOX_ODDS
        choices.append((numbers, w))
    by_total: dict = {}
    for numbers, w in choices:
        by_total[numbers[4]] = by_total.get(numbers[4], 0.0) + w
    return keys, choices, dict(sorted(by_total.items(), key=lambda tw: -tw[1])[:CANDIDATES])


def _with_final(totals: list[dict], finals: dict) -> tuple[list[dict], dict, tuple]:
    """The final total weighed against the seasons' totals (``SLIP_ODDS`` when it is written and
    not their sum, ``OPEN_BOX_ODDS`` when it is written and a season's total is not): for each
    season, what each of its totals weighs with everything else
    chosen; the final's weight; the likeliest (season totals, final)."""
    factor = [dict.fromkeys(t, 0.0) for t in totals]
    final_weight = dict.fromkeys(finals, 0.0)
    best, best_w = None, -1.0
    for chosen in itertools.product(*(t.items() for t in totals)):
        base = math.prod(w for _, w in chosen)
        t_sum = sum(t or 0 for t, _ in chosen)
        open_season = any(t is None for t, _ in chosen)
        for f, q in finals.items():
            w = base * q * (1.0 if f is None or f == t_sum else SLIP_ODDS)
            if f is not None and open_season:  # the final is written after every season
                w *= OPEN_BOX_ODDS
            final_weight[f] += w
            for s, (t, ws) in enumerate(chosen):
                factor[s][t] += w / max(ws, 1e-300)
            if w > best_w:
                best, best_w = (tuple(t for t, _ in chosen), f), w
    return factor, final_weight, best


def decode_boxes(reads: dict[str, CellRead]) -> tuple[dict, dict[str, float]]:
    """Every writing cell's number and confidence, read with the boxes' arithmetic.

    Each cell offers its candidate numbers (:func:`cell_candidates`); a season's five and the
    final total are chosen together, a choice that does not add up (a season's parts to its
    total, the four totals to the final one when it is written) weighing ``SLIP_ODDS`` times
    less: a misread digit that breaks the sum loses to its runner-up that makes it, while a
    player's real slip, read surely, stays as written. A number's confidence is its probability
    over every choice, and never more than its least sure character's when it is the cell's
    own best reading."""
    options = {k: _options(k, r) for k, r in reads.items()}
    seasons = [_season_choices(options, name) for name in SEASON_NAMES]
    factor, final_weight, (best_totals, best_final) = _with_final(
        [t for _, _, t in seasons], options["final"]
    )
    values: dict = {"final": best_final}
    confidence = {"final": final_weight[best_final] / sum(final_weight.values())}
    for (keys, choices, _), f, total in zip(seasons, factor, best_totals):
        marginal: list[dict] = [{} for _ in keys]
        chosen, chosen_w = None, -1.0
        for numbers, w in choices:
            w *= f.get(numbers[4], 0.0)
            for m, v in zip(marginal, numbers):
                m[v] = m.get(v, 0.0) + w
            if numbers[4] == total and w > chosen_w:
                chosen, chosen_w = numbers, w
        mass = sum(marginal[0].values())
        for k, m, v in zip(keys, marginal, chosen):
            values[k], confidence[k] = v, m[v] / mass
    for k, r in reads.items():
        if values[k] == _as_written(k, r.value) or not r.candidates:
            confidence[k] = min(confidence[k], r.confidence)
    return values, {k: float(c) for k, c in confidence.items()}


def arithmetic_confidence(
    seasons: tuple[WrittenSeason, ...], final: int | None, confidence: dict[str, float]
) -> dict[str, float]:
    """Confidences capped by the box's own sum: a season whose parts do not add up to its total
    (a blank counts as zero), or a written final total that is not the sum of the four, holds a
    misread or the player's slip, and its numbers are flagged for checking."""
    out = dict(confidence)
    groups = []
    for s in seasons:
        n = s.numbers()
        keys = [f"{s.season}.{p}" for p in n]
        groups.append((keys, _adds_up(tuple(n[p] for p in PARTS[:4]), n["total"])))
    if final is not None:
        adds_up = sum(s.total or 0 for s in seasons) == final
        groups.append(([f"{s.season}.total" for s in seasons] + ["final"], adds_up))
    for keys, adds_up in groups:
        if not adds_up:
            for k in keys:
                out[k] = min(out[k], DOES_NOT_ADD_UP)
    return {k: round(v, 4) for k, v in out.items()}


def unsure_numbers(written: WrittenScores) -> list[str]:
    """The cells read less surely than ``FLAG_BELOW``, in reading order."""
    return [k for k, c in written.confidence.items() if c < FLAG_BELOW]
