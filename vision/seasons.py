"""Reading the numbers written in the four season boxes and the final-total shield.

The boxes lie 13.3–14.5 u below the grid's top edge, under the coin track. The strip holding them
is sampled at ``BOX_PX`` per u through the coin track's mapping (the paper's curl extrapolated
from the bottom grid rows, snapped onto the printed coin track: :mod:`vision.coins.track`); each
box is then snapped onto its own printed outline. In each writing cell:

1. ink: how much darker than the local paper each pixel is (the paper's brightness from a grey
   closing, so light and stains drop out);
2. print: straight runs along the cell's printed borders are removed, and the faint printed
   letters and icons fall under the cell's ink threshold, a share of its darkest ink, whenever
   something is written; a blank cell's icons are left to the classifier, which learnt them as
   print (``noise``), whatever printing they come from;
3. blobs: connected ink, pieces of one character (one above the other) merged, touching
   characters split where the ink is thinnest;
4. each blob classified (:mod:`vision.digits`): a digit, a minus sign, print/noise, or a
   crossed-out number — which is dropped with the characters under it;
5. the number: an optional leading minus and one to three digits, left to right, with a
   confidence (the least sure character's probability); a cell whose blobs are all print is
   blank (``None``).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from scoring.written import SEASON_NAMES, WrittenScores, WrittenSeason
from vision.digits import CLASSES, NOISE, SCRIBBLE, DigitModel, patch_features
from vision.layout import GEOMETRY, Box

BOX_PX = 48  # canonical pixels per u of the box strip (a digit 0.3 u tall: ~14 px)
STRIP = (-0.9, 11.35, 13.1, 14.75)  # x0, x1, y0, y1 in u: the four boxes and the shield
SNAP_REACH_U = 0.25  # largest correction when snapping a box onto its printed outline
SNAP_MIN_SCORE = 0.2  # a weaker outline match keeps the coin track's mapping
PAPER_KERNEL_U = 0.22  # grey closing this wide takes the ink off and leaves the paper
LINE_BAND_U = 0.1  # printed borders are looked for this close to where they are printed
LINE_RUN_U = 0.32  # a straight run this long along a border is print, not writing
EDGE_U = 0.05  # ink this close to a cell's edge belongs to the border
INK_FLOOR = 0.07  # darkness (share of the paper's brightness) that can be ink at all
INK_SHARE = 0.42  # ink threshold: this share of the cell's darkest ink
MIN_BLOB_U2 = 0.0012  # blobs smaller than this (u²) are specks
FLAG_BELOW = 0.9  # numbers read less surely than this are flagged for checking


@dataclass(frozen=True)
class Blob:
    """One connected piece of ink in a cell: its box (px of the cell) and density crop."""

    x0: int
    y0: int
    x1: int
    y1: int
    ink: np.ndarray

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


def writing_cells() -> dict[str, Box]:
    """Every writing cell (units) by key "spring.edict1" … "winter.total", "final"."""
    from vision.synth.paper import season_parts

    cells = {
        f"{name}.{part}": b
        for name, box in zip(SEASON_NAMES, GEOMETRY.season_boxes)
        for part, b in season_parts(box).items()
    }
    f = GEOMETRY.final_total
    cells["final"] = Box(f.x0, f.y0, f.x1, f.y0 + 0.85)
    return cells


def sample_strip(image: np.ndarray, to_photo, px: int = BOX_PX) -> np.ndarray:
    """The box strip (``STRIP``) as a grey image at ``px`` per u through ``to_photo``."""
    x0, x1, y0, y1 = STRIP
    us = x0 + (np.arange(int(round((x1 - x0) * px))) + 0.5) / px
    vs = y0 + (np.arange(int(round((y1 - y0) * px))) + 0.5) / px
    m = np.asarray(to_photo(*np.meshgrid(us, vs)), np.float32)
    grey = image if image.ndim == 2 else image.min(axis=2)
    return cv2.remap(grey, m[..., 0], m[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def darkness(strip: np.ndarray, px: int = BOX_PX) -> np.ndarray:
    """How much darker than the local paper each pixel is, as a share of the paper (0…1)."""
    k = max(3, int(round(PAPER_KERNEL_U * px)) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    paper = cv2.morphologyEx(strip, cv2.MORPH_CLOSE, kernel).astype(np.float32)
    paper = cv2.GaussianBlur(paper, (0, 0), k / 3)
    return np.clip((paper - strip.astype(np.float32)) / np.maximum(paper, 20.0), 0.0, 1.0)


def _box_lines(box: Box) -> tuple[list[float], list[float]]:
    """(x of vertical borders, y of horizontal borders) of one season box's cells, in u."""
    from vision.synth.paper import season_parts

    xs, ys = set(), set()
    for part in season_parts(box).values():
        xs.update((round(part.x0, 4), round(part.x1, 4)))
        ys.update((round(part.y0, 4), round(part.y1, 4)))
    return sorted(xs), sorted(ys)


def _outline_template(box: Box, px: int, margin: float) -> np.ndarray:
    """A season box's printed borders as thin blurred lines, with ``margin`` u around it."""
    w, h = int(round((box.width + 2 * margin) * px)), int(round((box.height + 2 * margin) * px))
    t = np.zeros((h, w), np.float32)
    xs, ys = _box_lines(box)
    to = lambda x, y: (
        int(round((x - box.x0 + margin) * px)),
        int(round((y - box.y0 + margin) * px)),
    )
    cv2.rectangle(t, to(box.x0, box.y0), to(box.x1, box.y1), 1.0, 2)
    for x in xs[1:-1]:
        cv2.line(t, to(x, box.y0), to(x, box.y1), 1.0, 1)
    mid = (box.y0 + box.y1) / 2
    cv2.line(t, to(box.x0, mid), to(xs[-2], mid), 1.0, 1)
    return cv2.GaussianBlur(t, (0, 0), 1.0)


def snap_offsets(dark: np.ndarray, px: int = BOX_PX) -> list[tuple[float, float]]:
    """Each season box's (dx, dy) in u that lays its printed outline on the strip's lines."""
    out = []
    r = SNAP_REACH_U
    for box in GEOMETRY.season_boxes:
        tmpl = _outline_template(box, px, 0.05)
        x0 = int(round((box.x0 - 0.05 - r - STRIP[0]) * px))
        y0 = int(round((box.y0 - 0.05 - r - STRIP[2]) * px))
        win = dark[max(0, y0) : y0 + tmpl.shape[0] + int(2 * r * px), max(0, x0) :][
            :, : tmpl.shape[1] + int(2 * r * px)
        ]
        if x0 < 0 or y0 < 0 or win.shape[0] <= tmpl.shape[0] or win.shape[1] <= tmpl.shape[1]:
            out.append((0.0, 0.0))
            continue
        score = cv2.matchTemplate(win, tmpl, cv2.TM_CCOEFF_NORMED)
        iy, ix = np.unravel_index(int(np.argmax(score)), score.shape)
        good = score[iy, ix] >= SNAP_MIN_SCORE
        out.append((ix / px - r, iy / px - r) if good else (0.0, 0.0))
    return out


def cell_darkness(dark: np.ndarray, cell: Box, offset: tuple[float, float], px: int) -> np.ndarray:
    """The darkness of one writing cell (plus a border band) cut from the strip."""
    b = LINE_BAND_U
    x0 = int(round((cell.x0 + offset[0] - b - STRIP[0]) * px))
    y0 = int(round((cell.y0 + offset[1] - b - STRIP[2]) * px))
    x1 = int(round((cell.x1 + offset[0] + b - STRIP[0]) * px))
    y1 = int(round((cell.y1 + offset[1] + b - STRIP[2]) * px))
    h, w = dark.shape
    out = np.zeros((y1 - y0, x1 - x0), np.float32)
    sy0, sx0, sy1, sx1 = max(0, y0), max(0, x0), min(h, y1), min(w, x1)
    if sy1 > sy0 and sx1 > sx0:
        out[sy0 - y0 : sy1 - y0, sx0 - x0 : sx1 - x0] = dark[sy0:sy1, sx0:sx1]
    return out


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


def find_blobs(d: np.ndarray, px: int) -> list[Blob]:
    """Connected ink above the cell's threshold, pieces of one character merged, touching
    characters split; left to right."""
    peak = float(np.percentile(d, 99.7)) if d.size else 0.0
    if peak < INK_FLOOR:
        return []
    mask = (d > max(INK_FLOOR, INK_SHARE * peak)).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((2, 2), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    boxes = [
        [int(x), int(y), int(x + w), int(y + h)]
        for x, y, w, h, area in stats[1:]
        if area >= MIN_BLOB_U2 * px * px
    ]
    boxes = _merge_columns(boxes)
    blobs = []
    for x0, y0, x1, y1 in boxes:
        ink = np.where(mask[y0:y1, x0:x1] > 0, d[y0:y1, x0:x1], 0.0).astype(np.float32)
        blobs.extend(_split_wide(Blob(x0, y0, x1, y1, ink)))
    return sorted(blobs, key=lambda b: b.x0)


def _merge_columns(boxes: list[list[int]]) -> list[list[int]]:
    """Merge boxes that overlap across x by half the narrower one's width (one character's
    pieces: a 5's flag, a 4's stem, a stroke broken by the paper's tooth)."""
    merged = True
    while merged:
        merged = False
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                a, b = boxes[i], boxes[j]
                overlap = min(a[2], b[2]) - max(a[0], b[0])
                if overlap >= 0.5 * min(a[2] - a[0], b[2] - b[0]):
                    boxes[i] = [min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])]
                    del boxes[j]
                    merged = True
                    break
            if merged:
                break
    return boxes


def _split_wide(blob: Blob) -> list[Blob]:
    """A blob much wider than tall holding touching characters, cut where its ink is thinnest."""
    if blob.width <= 1.3 * blob.height or blob.height < 6:
        return [blob]
    cols = (blob.ink > 0).sum(axis=0).astype(np.float32)
    lo, hi = int(blob.width * 0.3), int(blob.width * 0.7)
    if cols[lo:hi].min() > 0.25 * blob.height:
        return [blob]  # no thin waist: a minus sign or a scribble, kept whole
    cut = lo + int(np.argmin(cols[lo:hi]))
    left = Blob(blob.x0, blob.y0, blob.x0 + cut, blob.y1, blob.ink[:, :cut])
    right = Blob(blob.x0 + cut, blob.y0, blob.x1, blob.y1, blob.ink[:, cut:])
    return [b for b in (left, right) if b.width > 1]


def blob_features(blobs: list[Blob], px: int) -> np.ndarray:
    """The classifier's feature rows of ``blobs``."""
    return np.array([patch_features(b.ink, px) for b in blobs], np.float32).reshape(len(blobs), -1)


def _covers(a: Blob, b: Blob) -> bool:
    """Whether blob ``a`` (a crossing-out) lies over most of blob ``b``."""
    ox = min(a.x1, b.x1) - max(a.x0, b.x0)
    oy = min(a.y1, b.y1) - max(a.y0, b.y0)
    return ox > 0.5 * b.width and oy > 0.5 * b.height


def number_from_blobs(blobs: list[Blob], probs: np.ndarray, signed: bool) -> CellRead:
    """The number the classified blobs spell (see the module's docstring, step 5)."""
    if not blobs:
        return CellRead(None, 1.0)
    labels = probs.argmax(axis=1)
    scribbles = [b for b, k in zip(blobs, labels) if k == SCRIBBLE]
    keep, sure = [], 1.0
    for b, k, p in zip(blobs, labels, probs):
        if k in (NOISE, SCRIBBLE):
            sure = min(sure, float(p[NOISE] + p[SCRIBBLE]))
            continue
        if any(_covers(s, b) for s in scribbles):
            continue
        keep.append((b, int(k), float(p[k])))
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


def read_cell(d: np.ndarray, px: int, model: DigitModel, signed: bool) -> CellRead:
    """One writing cell's number from its darkness (with the border band)."""
    blobs = find_blobs(remove_borders(d, px), px)
    probs = model.probabilities(blob_features(blobs, px))
    return number_from_blobs(blobs, probs, signed)


def read_written(image: np.ndarray, to_photo, model: DigitModel, px: int = BOX_PX) -> WrittenScores:
    """Every season box's five numbers and the final total, with a confidence for each."""
    dark = darkness(sample_strip(image, to_photo, px), px)
    offsets = snap_offsets(dark, px)
    values: dict[str, int | None] = {}
    confidence: dict[str, float] = {}
    for key, cell in writing_cells().items():
        k = SEASON_NAMES.index(key.split(".")[0]) if key != "final" else None
        offset = offsets[k] if k is not None else _mean_offset(offsets)
        signed = key == "final" or key.endswith(".total") or key.endswith(".monsters")
        read = read_cell(cell_darkness(dark, cell, offset, px), px, model, signed)
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
    return WrittenScores(seasons, values["final"], confidence)


def _mean_offset(offsets: list[tuple[float, float]]) -> tuple[float, float]:
    """The shield's offset: the mean of the two nearest boxes' (it has no straight outline)."""
    near = offsets[2:]
    return (float(np.mean([o[0] for o in near])), float(np.mean([o[1] for o in near])))


def unsure_numbers(written: WrittenScores) -> list[str]:
    """The cells read less surely than ``FLAG_BELOW``, in reading order."""
    return [k for k, c in written.confidence.items() if c < FLAG_BELOW]
