"""How legible are the benchmark's marks? The ink's signal-to-noise ratio per cell and coin, and
the reader's errors sorted by it.

    python benchmarks/legibility.py --n 300 --seed 1 --photos /tmp/bench1 --out legibility.json

Each benchmark photo is made again with its no-ink twin (``make_photo(..., no_ink_twin=True)``:
the same photo with nothing drawn on the sheet). ``d = photo − twin`` is then exactly what the
player's ink changed. Per cell (and coin), three measures of it, on luminance, with ``σ`` the
camera model's sensor noise at each pixel:

* ``snr``: the matched-filter SNR ``sqrt(Σ (d / σ)²)`` of an ideal observer that knows the exact
  mark and only has to tell it from no mark; below ~3 even that observer cannot. ``d`` is taken
  from the finished pictures before rounding and JPEG: after JPEG, photo − twin also holds the
  different quantisation the ink causes in every block it touches, energy that comes from the
  noise draw, not from the mark (``snr_jpeg`` keeps it, for comparison);
* ``unknown_mark_d``: ``Σ (d / σ)² / sqrt(2 N)`` over the region's ``N`` pixels, the detectability
  d′ of an observer that knows only where to look and the noise level, not the mark (an energy
  detector); below ~3 it cannot tell the cell from an empty one.

Luminance, because the camera model adds one grey noise draw to all three channels: per channel,
colour differences would count as noise-free.

The reader's result per photo is read from ``--photos`` (``read_photo`` with the current model;
``--readings`` caches it). Prints one progress line per photo; writes the figures as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.bench import BENCH_SEED_BASE, condition_tags
from vision.layout import GEOMETRY, GRID
from vision.synth import phone as synth_phone
from vision.synth import photo as synth_photo
from vision.synth.phone import noise_sigma
from vision.synth.photo import camera_for
from vision.train import truth_sheet

LEVELS = (3.0, 5.0, 10.0)  # below 3 (SNR or d′) an observer cannot tell the mark from no mark
COIN_REACH = 1.45  # coin-mark disc, in coin radii: a cross's ends reach √2 radii from the centre
LUMA = np.array([0.114, 0.587, 0.299], np.float32)  # BGR → luminance (BT.601, as JPEG uses)
PERCENTILES = (1, 5, 10, 25, 50)
INSET = 0.15  # cell units: the inner cell leaves out border outlines and most neighbours' overshoot
BINS = (0.0, 3.0, 5.0, 10.0, 20.0, 40.0, np.inf)  # for the reader's accuracy against each measure


@contextmanager
def finished_pictures() -> Iterator[list[np.ndarray]]:
    """Collects the pictures ``make_photo`` hands to JPEG
    (float BGR, saturated to 0…255, not rounded)."""
    pictures: list[np.ndarray] = []
    develop = synth_phone.develop

    def keep(img: np.ndarray, cond: dict) -> bytes:
        pictures.append(np.clip(img, 0, 255))
        return develop(img, cond)

    synth_phone.develop = keep
    try:
        yield pictures
    finally:
        synth_phone.develop = develop


@dataclass(frozen=True)
class Ink:
    """The ink's signal in one region: ``Σ (d / σ)²`` before and after JPEG, and its pixel count."""

    energy: float
    energy_jpeg: float
    pixels: int

    @property
    def snr(self) -> float:
        """Matched-filter SNR (the mark known exactly), before JPEG."""
        return float(np.sqrt(self.energy))

    @property
    def snr_jpeg(self) -> float:
        """The same on the decoded JPEGs (quantisation flips counted as signal)."""
        return float(np.sqrt(self.energy_jpeg))

    @property
    def unknown_mark_d(self) -> float:
        """Energy-detector d′ (only the region and σ known)."""
        return float(self.energy / np.sqrt(2 * max(self.pixels, 1)))


MEASURES: dict[str, Callable[[Ink], float]] = {
    "snr": lambda ink: ink.snr,
    "unknown_mark_d": lambda ink: ink.unknown_mark_d,
    "snr_jpeg": lambda ink: ink.snr_jpeg,
}


def region_ink(z: np.ndarray, z_jpeg: np.ndarray, polygon: np.ndarray) -> list:
    """``[Σ z², Σ z_jpeg², N]`` over the ``N`` pixels inside ``polygon`` (photo px)."""
    h, w = z.shape
    x0, y0 = np.maximum(np.floor(polygon.min(axis=0)).astype(int) - 1, 0)
    x1, y1 = np.minimum(np.ceil(polygon.max(axis=0)).astype(int) + 2, (w, h))
    if x1 <= x0 or y1 <= y0:
        return [0.0, 0.0, 0]
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(mask, [np.round((polygon - (x0, y0)) * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
    inside = mask > 0
    a, b = z[y0:y1, x0:x1][inside], z_jpeg[y0:y1, x0:x1][inside]
    return [float(np.sum(a * a)), float(np.sum(b * b)), int(inside.sum())]


def cell_polygon(inter: np.ndarray, r: int, c: int, inset: float = 0.0) -> np.ndarray:
    """Cell (r, c)'s quadrilateral in photo px, its sides moved ``inset`` cell units inwards."""
    a, b, cc, d = inter[r, c], inter[r, c + 1], inter[r + 1, c + 1], inter[r + 1, c]
    lo, hi = inset, 1 - inset
    return np.array(
        [
            (1 - u) * (1 - v) * a + u * (1 - v) * b + u * v * cc + (1 - u) * v * d
            for u, v in ((lo, lo), (hi, lo), (hi, hi), (lo, hi))
        ]
    )


def mark_signal(seed: int) -> dict:
    """The ink per cell (11 × 11, whole and inner) and per coin (14) of one photo, and its truth."""
    with finished_pictures() as pictures:
        photo = synth_photo.make_photo(seed, no_ink_twin=True)
    truth = photo.truth
    img = photo.image.astype(np.float32)
    twin = cv2.imdecode(np.frombuffer(photo.twin, np.uint8), cv2.IMREAD_COLOR).astype(np.float32)
    sigma = noise_sigma(img, truth["conditions"]["noise"])
    z = ((pictures[0] - pictures[1]) @ LUMA) / sigma
    z_jpeg = ((img - twin) @ LUMA) / sigma
    del pictures[:], img, twin
    inter = np.asarray(truth["intersections"], float)  # [y][x] grid points in photo px
    cells = [
        [region_ink(z, z_jpeg, cell_polygon(inter, r, c)) for c in range(GRID)] for r in range(GRID)
    ]
    inner = [
        [region_ink(z, z_jpeg, cell_polygon(inter, r, c, INSET)) for c in range(GRID)]
        for r in range(GRID)
    ]
    camera = camera_for(truth["conditions"])
    ring = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    reach = GEOMETRY.coin_radius * COIN_REACH
    coins = []
    for i in range(GEOMETRY.coin_count):
        x, y = GEOMETRY.coin_centre(i)
        coins.append(
            region_ink(
                z, z_jpeg, camera.sheet_to_photo(x + reach * np.cos(ring), y + reach * np.sin(ring))
            )
        )
    return {
        "seed": seed,
        "jpeg": photo.jpeg,
        "truth": truth,
        "cells": cells,
        "inner": inner,
        "coins": coins,
    }


def read_benchmark_photo(path: Path) -> dict:
    """The reader's side, coin count and cells for one photo (or its refusal)."""
    from vision.load import PhotoError
    from vision.reader import read_photo

    try:
        reading = read_photo(path.read_bytes())
    except PhotoError as e:
        return {"error": e.code}
    return {
        "side": reading.side,
        "coins": reading.sheet.coins,
        "cells": [[t.value for t in row] for row in reading.sheet.cells],
    }


@dataclass
class Cell:
    """One compared cell: truth, reading and the ink inside it."""

    seed: int
    row: int
    col: int
    true: str
    read: str
    ink: Ink
    inner: Ink  # the inner cell only (no border outlines, little overshoot)
    style_family: str
    conditions: list[str]

    @property
    def kind(self) -> str:
        """right, missed (terrain read empty), confused (terrain ↔ terrain) or false-alarm."""
        if self.true == self.read:
            return "right"
        if self.true == "empty":
            return "false-alarm"
        return "missed" if self.read == "empty" else "confused"

    def excused(self, measure: str, level: float) -> bool:
        """Right, or a true mark under ``level`` (a false alarm is never excused)."""
        return self.kind == "right" or (
            self.kind != "false-alarm" and MEASURES[measure](self.ink) < level
        )


@dataclass
class PhotoResult:
    """One photo's comparison: its cells, its coin track and whether it was read at all."""

    seed: int
    read_ok: bool
    cells: list[Cell] = field(default_factory=list)
    true_coins: int = 0
    read_coins: int | None = None
    marked: list[Ink] = field(default_factory=list)  # the ink on each marked coin
    first_unmarked: Ink | None = None  # stray ink on the first unmarked coin

    def coins_excused(self, measure: str, level: float) -> bool:
        """Coins right, or under-counted by no more than the marked coins under ``level``."""
        if self.read_coins == self.true_coins:
            return True
        faint = sum(MEASURES[measure](ink) < level for ink in self.marked)
        return (
            self.read_coins is not None
            and self.read_coins < self.true_coins
            and self.true_coins - self.read_coins <= faint
        )


def compare(signal: dict, reading: dict) -> PhotoResult:
    """The reading against the truth, each cell with
    its ink (cells as the benchmark counts them)."""
    truth = signal["truth"]
    sheet = truth_sheet(truth)
    n = sheet.coins
    coins = [Ink(*v) for v in signal["coins"]]
    out = PhotoResult(
        truth["seed"],
        reading.get("side") == sheet.side,
        true_coins=n,
        marked=coins[:n],
        first_unmarked=coins[n] if n < GEOMETRY.coin_count else None,
    )
    if not out.read_ok:
        return out
    out.read_coins = reading["coins"]
    printed = sheet.layout.mountains | sheet.layout.wasteland
    tags = condition_tags(truth["conditions"])
    for (r, c), t in sheet.items():
        if (r, c) not in printed:
            out.cells.append(
                Cell(
                    out.seed,
                    r,
                    c,
                    t.value,
                    reading["cells"][r][c],
                    Ink(*signal["cells"][r][c]),
                    Ink(*signal["inner"][r][c]),
                    truth["style_family"],
                    tags,
                )
            )
    return out


def percentiles(values: list[float]) -> dict:
    """Selected percentiles and the shares under each level."""
    if not values:
        return {"n": 0}
    a = np.asarray(values)
    out = {"n": len(a)}
    out.update({f"p{p}": round(float(np.percentile(a, p)), 2) for p in PERCENTILES})
    out.update({f"share_below_{level:g}": round(float(np.mean(a < level)), 4) for level in LEVELS})
    return out


def distribution(cells: list[Cell], measure: str) -> dict:
    """One measure over drawn cells: overall, by style family and by capture condition."""
    get = MEASURES[measure]
    drawn = [c for c in cells if c.true != "empty"]
    by_family: dict[str, list[float]] = {}
    by_condition: dict[str, list[float]] = {}
    for c in drawn:
        by_family.setdefault(c.style_family, []).append(get(c.ink))
        for tag in c.conditions:
            by_condition.setdefault(tag, []).append(get(c.ink))
    return {
        "drawn": percentiles([get(c.ink) for c in drawn]),
        "style_family": {k: percentiles(v) for k, v in sorted(by_family.items())},
        "condition": {k: percentiles(v) for k, v in sorted(by_condition.items())},
        "empty_cells_stray_ink": percentiles([get(c.ink) for c in cells if c.true == "empty"]),
    }


def below(inks: list[Ink], measure: str) -> dict:
    """How many of ``inks`` are under each level of ``measure``."""
    return {f"{level:g}": sum(MEASURES[measure](ink) < level for ink in inks) for level in LEVELS}


def wrong_cells(cells: list[Cell]) -> dict:
    """The wrong cells by kind and by their ink (the true mark's, or stray ink for false alarms)."""
    wrong = [c for c in cells if c.kind != "right"]
    groups = {"true_mark": [c for c in wrong if c.kind != "false-alarm"]}
    groups.update(
        {
            kind: [c for c in wrong if c.kind == kind]
            for kind in ("missed", "confused", "false-alarm")
        }
    )
    out: dict = {"wrong": len(wrong)}
    for name, group in groups.items():
        out[name] = {
            "n": len(group),
            **{f"{m}_below": below([c.ink for c in group], m) for m in MEASURES},
            "inner_snr_below": below([c.inner for c in group], "snr"),
        }
    out["list"] = [
        {
            "seed": c.seed,
            "cell": [c.row, c.col],
            "true": c.true,
            "read": c.read,
            **{m: round(get(c.ink), 2) for m, get in MEASURES.items()},
            "inner_snr": round(c.inner.snr, 2),
            "pixels": c.ink.pixels,
            "style_family": c.style_family,
            "conditions": c.conditions,
        }
        for c in sorted(wrong, key=lambda c: c.ink.snr)
    ]
    return out


def accuracy_by(cells: list[Cell], measure: str) -> list[dict]:
    """The reader's accuracy on drawn cells in bins of ``measure``: does it predict the errors?"""
    drawn = [c for c in cells if c.true != "empty"]
    rows = []
    for lo, hi in zip(BINS[:-1], BINS[1:]):
        group = [c for c in drawn if lo <= MEASURES[measure](c.ink) < hi]
        right = sum(c.kind == "right" for c in group)
        rows.append(
            {
                "bin": f"{lo:g}-{hi:g}",
                "cells": len(group),
                "wrong": len(group) - right,
                "accuracy": round(right / max(len(group), 1), 4),
            }
        )
    return rows


def accuracy(cells: list[Cell]) -> dict:
    """Cell accuracy on all cells and on legible ones
    (empty cells, and drawn cells at or over a level)."""
    rows = {"all": cells, "drawn": [c for c in cells if c.true != "empty"]}
    for measure in MEASURES:
        for level in LEVELS[:2]:
            legible = [c for c in cells if c.true == "empty" or MEASURES[measure](c.ink) >= level]
            rows[f"legible_{measure}_{level:g}"] = legible
    return {
        name: {
            "cells": len(group),
            "right": (right := sum(c.kind == "right" for c in group)),
            "accuracy": round(right / max(len(group), 1), 5),
        }
        for name, group in rows.items()
    }


def coin_figures(photos: list[PhotoResult]) -> dict:
    """Coin tracks right, and the wrong ones by the ink of their marked coins."""
    read = [p for p in photos if p.read_ok]
    wrong = [p for p in read if p.read_coins != p.true_coins]
    out: dict = {
        "photos": len(photos),
        "read": len(read),
        "coins_exact": len(read) - len(wrong),
        "wrong": len(wrong),
    }
    for m, get in MEASURES.items():
        out[m] = {
            "last_marked": percentiles([get(p.marked[-1]) for p in read if p.marked]),
            "wrong_last_marked_below": below([p.marked[-1] for p in wrong if p.marked], m),
            "wrong_excused_below": {
                f"{level:g}": sum(p.coins_excused(m, level) for p in wrong) for level in LEVELS
            },
        }
    out["list"] = [
        {
            "seed": p.seed,
            "true": p.true_coins,
            "read": p.read_coins,
            **{
                f"last_marked_{m}": round(get(p.marked[-1]), 2) if p.marked else None
                for m, get in MEASURES.items()
            },
            "faintest_marked_snr": round(min(i.snr for i in p.marked), 2) if p.marked else None,
            "first_unmarked_snr": round(p.first_unmarked.snr, 2) if p.first_unmarked else None,
        }
        for p in wrong
    ]
    return out


def sheets(photos: list[PhotoResult]) -> dict:
    """Sheet-exact photos as read, and if illegible marks (cells, coins) were excused."""
    exact = sum(
        p.read_ok and all(c.kind == "right" for c in p.cells) and p.read_coins == p.true_coins
        for p in photos
    )
    out: dict = {"photos": len(photos), "exact": exact}
    for m in MEASURES:
        out[f"exact_if_excused_{m}_below"] = {
            f"{level:g}": sum(
                p.read_ok
                and all(c.excused(m, level) for c in p.cells)
                and p.coins_excused(m, level)
                for p in photos
            )
            for level in LEVELS
        }
    return out


def load_json(path: Path | None) -> dict:
    """A JSON cache, or an empty one."""
    return json.loads(path.read_text()) if path and path.exists() else {}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument(
        "--seed",
        type=int,
        default=1,
        help="benchmark seed (photos BENCH_SEED_BASE + 100000·seed + i)",
    )
    ap.add_argument(
        "--photos",
        type=Path,
        required=True,
        help="folder of the benchmark's <seed>.jpg (bench-vision's cache)",
    )
    ap.add_argument(
        "--readings", type=Path, help="JSON cache of the reader's results (read and written)"
    )
    ap.add_argument(
        "--signal-cache",
        type=Path,
        help="JSON cache of the per-photo ink signal (read and written)",
    )
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    readings, signals = load_json(args.readings), load_json(args.signal_cache)
    photos: list[PhotoResult] = []
    t0 = time.perf_counter()
    for i in range(args.n):
        seed = BENCH_SEED_BASE + 100_000 * args.seed + i
        path = args.photos / f"{seed}.jpg"
        if str(seed) not in signals:
            signal = mark_signal(seed)
            if signal.pop("jpeg") != path.read_bytes():
                raise SystemExit(f"{path} is not the photo make_photo({seed}) makes")
            signals[str(seed)] = signal
        if str(seed) not in readings:
            readings[str(seed)] = read_benchmark_photo(path)
        photos.append(compare(signals[str(seed)], readings[str(seed)]))
        print(
            f"\r{i + 1}/{args.n} photos, {time.perf_counter() - t0:.0f} s",
            end="",
            file=sys.stderr,
            flush=True,
        )
        if i % 10 == 9 or i == args.n - 1:
            for cache, data in ((args.readings, readings), (args.signal_cache, signals)):
                if cache:
                    cache.write_text(json.dumps(data))
    print(file=sys.stderr)
    cells = [c for p in photos for c in p.cells]
    report = {
        "n": args.n,
        "seed": args.seed,
        "levels": LEVELS,
        "unread_or_wrong_side": sum(not p.read_ok for p in photos),
        "distribution": {m: distribution(cells, m) for m in MEASURES},
        "cell_accuracy": accuracy(cells),
        "drawn_accuracy_by": {m: accuracy_by(cells, m) for m in MEASURES},
        "wrong_cells": wrong_cells(cells),
        "coins": coin_figures(photos),
        "sheets": sheets(photos),
    }
    args.out.write_text(json.dumps(report, indent=1))
    print(json.dumps({k: report[k] for k in ("cell_accuracy", "sheets")}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
