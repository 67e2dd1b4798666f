"""The reader's benchmark (``cartographers bench-vision --n N --seed S``).

Photos come from :func:`vision.synth.make_photo` with seeds from ``BENCH_SEED_BASE`` on, a range
training never uses (:data:`vision.train_data.TRAIN_SEED_BASE`), with the generator's own random
styles, backgrounds and conditions (all mixed). Three passes:

1. generate the photos (2 processes) and keep their JPEG bytes and truth in a temporary folder;
2. read them with 2 worker processes (one thread each): accuracy figures, latency per photo,
   photos per second, each worker's peak memory;
3. read a few 12 MP photos in a fresh single process: latency on one core and peak memory of a
   process that only reads.

Figures are broken down by style, style family, background family and capture condition, and
for the held-out style family / background family named in ``models/reader.json``.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path

import numpy as np

from vision.bench_written import WrittenTally, written_rows, written_table
from vision.coins.count import COIN_UNSURE_BELOW

BENCH_SEED_BASE = 50_000_000  # benchmark photo seeds: BENCH_SEED_BASE + 100_000·seed + i
SHIFT_ERROR_U = 0.5  # a grid whose median crossing is this far off reads shifted cells
LOCAL_ERROR_U = 0.5  # a crossing this far off (the worst one) misplaces the cells around it
SCORE_CARD_SETS = 3  # random legal card sets scored per photo
LOCATE_ERROR_U = 0.1  # the target: every crossing within 0.1 u


def condition_tags(cond: dict) -> list[str]:
    """Named capture conditions a photo falls under (a photo may have several)."""
    tags = []
    if cond.get("tilt_deg", 0) > 25:
        tags.append("tilt>25°")
    if cond.get("bow_u", 0) > 0.25 or cond.get("curl_u", 0) > 0.25:
        tags.append("bowed/curled")
    if cond.get("defocus_px", 0) > 1.2 or cond.get("motion_px", 0) >= 3:
        tags.append("blurred")
    if cond.get("glare", 0) > 0:
        tags.append("glare")
    if cond.get("paper") == "photocopy":
        tags.append("photocopy")
    if cond.get("second_sheet"):
        tags.append("second sheet")
    if cond.get("fingers", 0) > 0:
        tags.append("fingers")
    if cond.get("shadow", 0) > 0:
        tags.append("shadow")
    if cond.get("megapixels", 12) < 3:
        tags.append("<3 MP")
    if cond.get("exposure", 1) < 0.8:
        tags.append("dark exposure")
    return tags or ["plain"]


def peak_memory_mb() -> float:
    """This process's peak resident memory (VmHWM; unlike
    ru_maxrss it is not inherited across exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def art_family_of(seed: int, mixed: bool) -> str:
    """The printed-art family of benchmark photo ``seed``: our look-alike, or every family in turn
    when ``mixed``.

    >>> [art_family_of(s, True) for s in range(5)], art_family_of(3, False)
    (['lookalike', 'line-art', 'engraved', 'woodcut', 'lookalike'], 'lookalike')
    """
    from vision.synth.art import ART_FAMILIES

    return ART_FAMILIES[seed % len(ART_FAMILIES)] if mixed else "lookalike"


def _generate(args: tuple[int, str, bool]) -> str:
    """Generate one benchmark photo into ``folder``; returns the JPEG path."""
    import cv2

    cv2.setNumThreads(1)
    from vision.synth import make_photo

    seed, folder, mixed = args
    photo = make_photo(seed, art_family=art_family_of(seed, mixed))
    path = Path(folder) / f"{seed}.jpg"
    path.write_bytes(photo.jpeg)
    truth = dict(photo.truth)
    (Path(folder) / f"{seed}.json").write_text(json.dumps(truth, default=str))
    return str(path)


def random_cards(rng: np.random.Generator) -> list[str]:
    """One random card of each back, in random edict order (a legal setup)."""
    from scoring.cards import BACKS, CARDS

    picks = [str(rng.choice([s for s, c in CARDS.items() if c.back == back])) for back in BACKS]
    rng.shuffle(picks)
    return picks


def _read_one(path: str) -> dict:
    """Read one benchmark photo and compare with its truth."""
    import cv2

    cv2.setNumThreads(1)
    from vision.grid import cell_side_px
    from vision.load import PhotoError
    from vision.reader import read_photo
    from vision.train_data import grid_error_u, truth_sheet

    truth = json.loads(Path(path).with_suffix(".json").read_text())
    true_sheet = truth_sheet(truth)
    data = Path(path).read_bytes()
    t0 = time.perf_counter()
    try:
        reading = read_photo(data, digits=True)  # the season boxes are measured too
        error = None
    except PhotoError as e:
        reading, error = None, e.code
    seconds = time.perf_counter() - t0
    out = {
        "seed": truth["seed"],
        "style": truth["style"],
        "style_family": truth["style_family"],
        "background_family": truth["background_family"],
        "conditions": condition_tags(truth["conditions"]),
        "megapixels": truth["width"] * truth["height"] / 1e6,
        "seconds": seconds,
        "error": error,
        "peak_mb": peak_memory_mb(),
        "true_side": true_sheet.side,
        "true_coins": true_sheet.coins,
        "printing": truth.get("printing", "ours"),
        "art_family": truth.get("art_family", "lookalike"),
        "coin_mark": coin_mark_group(true_sheet.coins, truth.get("coin_marks")),
    }
    if reading is None:
        return out
    out["side"] = reading.side
    out["grid_error_u"] = grid_error_u(reading.intersections, truth["intersections"])
    read_pts = np.asarray(reading.intersections, float)
    true_pts = np.asarray(truth["intersections"], float)
    out["grid_median_error_u"] = float(
        np.median(np.linalg.norm(read_pts - true_pts, axis=2)) / cell_side_px(true_pts)
    )
    out["cells"] = _cell_rows(reading, true_sheet)
    out["ruins_cells"] = _ruins_cells(reading, true_sheet)
    out["coins"] = reading.coins
    out["coin_confidence"] = reading.coin_confidence
    out["score_exact"] = _scores_exact(reading.sheet, true_sheet, truth["seed"])
    out["written"] = written_rows(reading, truth)
    return out


def coin_mark_group(coins: int, marks: dict | None) -> str:
    """How the photo's coins were marked, as a benchmark group: the pencil's colour and the tool,
    or "none marked" (photos generated before the truth recorded it: "not recorded").

    >>> coin_mark_group(3, {"mark": "cross", "colour": "farm", "tool": "pencil"})
    'yellow pencil'
    >>> coin_mark_group(0, {"mark": "shade", "colour": "graphite", "tool": "marker"})
    'none marked'
    """
    if coins == 0:
        return "none marked"
    if not marks:
        return "not recorded"
    colour = "yellow" if marks["colour"] == "farm" else marks["colour"]
    return f"{colour} {marks['tool']}"


def _cell_rows(reading, true_sheet) -> list[tuple]:
    """(true class, read class, flagged, confidence) of every drawable cell; none when the side
    was read wrong."""
    cells = []
    low = set(map(tuple, reading.low_confidence_cells))
    if reading.side == true_sheet.side:
        for r, c in true_sheet.layout.drawable:
            cells.append(
                (
                    true_sheet.cells[r][c].value,
                    reading.sheet.cells[r][c].value,
                    (r, c) in low,
                    reading.cell_confidence[r][c],
                )
            )
    return cells


def _ruins_cells(reading, true_sheet) -> tuple[int, int]:
    """(ruins cells, ruins cells read right): the cells under a printed ruins glyph, whose look
    changes most from one printing to another (none when the side was read wrong)."""
    if reading.side != true_sheet.side:
        return 0, 0
    ruins = true_sheet.layout.ruins
    return len(ruins), sum(reading.sheet.cells[r][c] == true_sheet.cells[r][c] for r, c in ruins)


def _scores_exact(read_sheet, true_sheet, seed: int) -> list[bool]:
    """Whether the read sheet scores the true total, for each of ``SCORE_CARD_SETS`` random card
    sets drawn from the photo's seed."""
    from scoring.report import score_report

    rng = np.random.default_rng(seed)
    exact = []
    for _ in range(SCORE_CARD_SETS):
        cards = random_cards(rng)
        exact.append(
            score_report(true_sheet, cards)["total"] == score_report(read_sheet, cards)["total"]
        )
    return exact


@dataclass
class Tally:
    """Counts for one group of photos."""

    photos: int = 0
    found: int = 0
    side_ok: int = 0
    shifted: int = 0
    locally_off: int = 0
    within_01: int = 0
    cells: int = 0
    cells_ok: int = 0
    ruins: int = 0
    ruins_ok: int = 0
    sheets_exact: int = 0
    coins_ok: int = 0
    coins_wrong_flagged: int = 0
    score_ok: int = 0
    score_n: int = 0
    wrong: int = 0
    wrong_flagged: int = 0
    flagged: int = 0
    written: WrittenTally = field(default_factory=WrittenTally)  # the season boxes' numbers

    def add(self, r: dict) -> None:
        """Count one photo's result."""
        self.photos += 1
        self.written.add(r.get("written", {}))
        if r.get("error") is not None or "side" not in r:
            self.score_n += SCORE_CARD_SETS  # an unread photo scores nothing right
            return
        self.found += 1
        self.side_ok += r["side"] == r["true_side"]
        self.shifted += r["grid_median_error_u"] > SHIFT_ERROR_U
        self.locally_off += r["grid_error_u"] > LOCAL_ERROR_U
        self.within_01 += r["grid_error_u"] <= LOCATE_ERROR_U
        ok = [t == p for t, p, _, _ in r["cells"]]
        self.cells += len(ok)
        self.cells_ok += sum(ok)
        ruins, ruins_ok = r.get("ruins_cells", (0, 0))
        self.ruins += ruins
        self.ruins_ok += ruins_ok
        self.sheets_exact += (
            bool(r["cells"])
            and all(ok)
            and r["side"] == r["true_side"]
            and r["coins"] == r["true_coins"]
        )
        self.coins_ok += r["coins"] == r["true_coins"]
        self.coins_wrong_flagged += (
            r["coins"] != r["true_coins"] and r.get("coin_confidence", 1.0) < COIN_UNSURE_BELOW
        )
        self.score_ok += sum(r["score_exact"])
        self.score_n += len(r["score_exact"])
        for t, p, flagged, _ in r["cells"]:
            self.flagged += flagged
            if t != p:
                self.wrong += 1
                self.wrong_flagged += flagged

    def row(self) -> dict:
        """The figures as shares (of photos, of found photos, of cells)."""
        f = max(self.found, 1)
        return {
            "photos": self.photos,
            "grid_found": self.found / max(self.photos, 1),
            "side_ok": self.side_ok / f,
            "shifted": self.shifted,
            "locally_off": self.locally_off,
            "grid_within_0.1u": self.within_01 / f,
            "cell_accuracy": self.cells_ok / max(self.cells, 1),
            "ruins_accuracy": self.ruins_ok / max(self.ruins, 1),
            "other_cell_accuracy": (self.cells_ok - self.ruins_ok)
            / max(self.cells - self.ruins, 1),
            "sheet_exact": self.sheets_exact / max(self.photos, 1),
            "coins_exact": self.coins_ok / f,
            "wrong_coins_flagged": self.coins_wrong_flagged / max(self.found - self.coins_ok, 1),
            "score_exact": self.score_ok / max(self.score_n, 1),
            "wrong_cells_flagged": self.wrong_flagged / max(self.wrong, 1),
            "cells_flagged": self.flagged / max(self.cells, 1),
            **self.written.row(),
        }


def _one_core_probe(paths: list[str]) -> dict:
    """Latency and peak memory of a fresh single-threaded process reading ``paths``."""
    code = (
        "import json,sys,time,cv2;cv2.setNumThreads(1);from vision.reader import read_photo;"
        "from vision.bench import peak_memory_mb;"
        "from vision.load import PhotoError\nts=[]\nfor p in [sys.argv[1]]+sys.argv[1:]:\n "
        "t=time.perf_counter()\n"
        " try: read_photo(p)\n except PhotoError: pass\n ts.append(time.perf_counter()-t)\n"
        "ts=ts[1:]  # the first read loads the model and warms the imports\n"
        "print(json.dumps({'seconds':ts,'peak_mb':peak_memory_mb()}))"
    )
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    out = subprocess.run(
        [sys.executable, "-c", code, *paths], capture_output=True, text=True, env=env, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def generate_photos(
    seeds: list[int], folder: str, workers: int = 2, art_families: bool = False
) -> list[str]:
    """Benchmark photos (JPEG + truth JSON) in ``folder``, reusing any already there;
    ``art_families`` prints them in every art family in turn (:func:`art_family_of`), else in our
    look-alike."""
    todo = [(s, folder, art_families) for s in seeds if not (Path(folder) / f"{s}.json").exists()]
    if todo:
        with get_context("spawn").Pool(workers) as pool:
            pool.map(_generate, todo, chunksize=2)
    return [str(Path(folder) / f"{s}.jpg") for s in seeds]


def _held_out(meta: dict) -> tuple[dict, bool]:
    """The families the shipped model was trained without, and whether it saw other printings."""
    config = meta.get("config", {})
    held = {
        "style_family": config.get("holdout_style_family"),
        "background_family": config.get("holdout_background_family"),
        "art_family": config.get("holdout_art_family"),
    }
    return held, config.get("art_share", 0) > 0


def _read_photos(paths: list[str], workers: int, log) -> tuple[list[dict], float]:
    """Every photo read by ``workers`` processes: (their results, wall seconds)."""
    ctx = get_context("spawn")
    t0 = time.perf_counter()
    with ctx.Pool(workers) as pool:
        results = pool.map(_read_one, paths, chunksize=2)
    wall = time.perf_counter() - t0
    log(f"read {len(paths)} photos in {wall:.1f} s with {workers} workers")
    return results, wall


def _probe_photos(folder: str, seed: int) -> list[str]:
    """Five 12 MP probe photos (made once into ``folder``), from the same seed range family."""
    from vision.synth import make_photo

    probe = []
    for i in range(5):
        p = Path(folder) / f"probe{i}.jpg"
        if not p.exists():
            p.write_bytes(
                make_photo(BENCH_SEED_BASE + 100_000 * seed + 90_000 + i, megapixels=12.0).jpeg
            )
        probe.append(str(p))
    return probe


def _art_group(art: str, held_art: str | None, trained_art: bool) -> str:
    """An art family's group: our look-alike, held out of training, or seen in training."""
    if art == "lookalike":
        seen = "our look-alike"
    elif art == held_art or not trained_art:
        seen = "held out of training"
    else:
        seen = "seen in training"
    return f"{art} ({seen})"


def _tally(
    results: list[dict], art_families: bool, held: dict, trained_art: bool
) -> tuple[dict[str, dict[str, Tally]], dict[str, dict[str, int]]]:
    """Each photo counted in its groups (style, families, conditions, held out or not), and the
    cells' confusion counts (true class → read class)."""
    groups: dict[str, dict[str, Tally]] = defaultdict(lambda: defaultdict(Tally))
    confusion: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    held_style, held_bg = held["style_family"], held["background_family"]
    for r in results:
        groups["all"]["all"].add(r)
        groups["style"][r["style"]].add(r)
        groups["style family"][r["style_family"]].add(r)
        groups["background family"][r["background_family"]].add(r)
        if art_families:
            art = _art_group(r["art_family"], held["art_family"], trained_art)
            groups["art family"][art].add(r)
        for tag in r["conditions"]:
            groups["condition"][tag].add(r)
        groups["coin mark"][r["coin_mark"]].add(r)
        held_here = []
        if r["style_family"] == held_style:
            held_here.append(f"held-out style family ({held_style})")
        if r["background_family"] == held_bg:
            held_here.append(f"held-out background family ({held_bg})")
        for h in held_here or ["seen style and background"]:
            groups["holdout"][h].add(r)
        for t, p, _, _ in r.get("cells", []):
            confusion[t][p] += 1
    return groups, confusion


def _latency(results: list[dict]) -> dict:
    """Seconds per photo (median, 95th percentile) and the photos' mean size."""
    secs = np.array([r["seconds"] for r in results])
    return {
        "p50": float(np.percentile(secs, 50)),
        "p95": float(np.percentile(secs, 95)),
        "mean_megapixels": float(np.mean([r["megapixels"] for r in results])),
    }


def _photo_figures(results: list[dict], one_core: dict) -> dict:
    """Memory, the one-core probe, each photo's row and the errors counted."""
    return {
        "peak_memory_mb_worker": max(r["peak_mb"] for r in results),
        "one_core_12mp": {
            "p50_s": float(np.median(one_core["seconds"])),
            "max_s": float(np.max(one_core["seconds"])),
            "peak_memory_mb": one_core["peak_mb"],
            "photos": len(one_core["seconds"]),
        },
        "photos": [
            {k: v for k, v in r.items() if k not in ("cells", "written")}
            | {"wrong_cells": sum(t != p for t, p, _, _ in r.get("cells", []))}
            for r in results
        ],
        "errors": {
            e: sum(r.get("error") == e for r in results)
            for e in {r.get("error") for r in results}
            if e
        },
    }


def run_benchmark(
    n: int,
    seed: int,
    workers: int = 2,
    log=print,
    photo_dir: str | None = None,
    art_families: bool = False,
) -> dict:
    """Generate, read and tally ``n`` photos; returns every figure as a dict.

    ``photo_dir`` keeps the generated photos (and reuses them on the next run); by default they
    live in a temporary folder.
    """
    from vision.classify import default_model

    held, trained_art = _held_out(default_model().meta)
    seeds = [BENCH_SEED_BASE + 100_000 * seed + i for i in range(n)]
    with tempfile.TemporaryDirectory(prefix="bench-vision-") as tmp:
        folder = photo_dir or tmp
        Path(folder).mkdir(parents=True, exist_ok=True)
        t0 = time.time()
        paths = generate_photos(seeds, folder, workers, art_families)
        log(f"generated {n} photos in {time.time() - t0:.0f} s")
        results, wall = _read_photos(paths, workers, log)
        one_core = _one_core_probe(_probe_photos(folder, seed))
    groups, confusion = _tally(results, art_families, held, trained_art)
    classes = ["empty", "forest", "village", "farm", "water", "monster"]
    recall = {c: confusion[c][c] / max(sum(confusion[c].values()), 1) for c in classes}
    return {
        "n": n,
        "seed": seed,
        "seed_range": [seeds[0], seeds[-1]],
        "workers": workers,
        "held_out": held,
        "art_families": art_families,
        "groups": {g: {k: t.row() for k, t in sorted(v.items())} for g, v in groups.items()},
        "per_class_recall": recall,
        "confusion": {t: {p: confusion[t][p] for p in classes} for t in classes},
        "latency_s": _latency(results),
        "photos_per_second": n / wall,
        **_photo_figures(results, one_core),
    }


def format_table(res: dict) -> str:
    """Markdown tables of a benchmark result."""
    lines = [
        f"Benchmark: {res['n']} photos, seed {res['seed']} (photo seeds {res['seed_range'][0]}…"
        f"{res['seed_range'][1]}), held out of training: style family "
        f"{res['held_out']['style_family']}, "
        f"background family {res['held_out']['background_family']}",
        "",
    ]
    lines += _group_table(res)
    lines += ["", "Season-box numbers (found photos):", ""]
    lines += written_table(res["groups"], ("all", "art family", "style family"))
    lines += [
        "",
        "grid_found: share of photos; side_ok, grid_within_0.1u (every crossing within 0.1 u), "
        "coins_exact: "
        "share of found photos; shifted: found photos whose median crossing is > 0.5 u off (a "
        "one-cell "
        "shift); locally_off: found photos whose worst crossing is > 0.5 u off; cell_accuracy: "
        "drawable "
        "cells of found photos (ruins_accuracy: the ruins cells among them, other_cell_accuracy: "
        "the rest); sheet_exact: share of all photos read exactly (cells, side, "
        "coins); wrong_coins_flagged: share of wrong coin counts warned about (confidence under "
        f"{COIN_UNSURE_BELOW}); "
        "score_exact: share of (photo, random legal card set) pairs whose read total equals the "
        "true "
        "total (unfound photos count as wrong); wrong_cells_flagged: share of wrong cells that "
        "were "
        "flagged low-confidence; cells_flagged: share of all cells flagged.",
    ]
    lines.append("")
    lines.append(
        "Per-class recall: " + ", ".join(f"{c} {v:.4f}" for c, v in res["per_class_recall"].items())
    )
    lines.append("")
    lines += _confusion_table(res)
    lines += _speed_lines(res)
    return "\n".join(lines)


#: the figures of each group's row, in the table's order
GROUP_COLUMNS = [
    "photos",
    "grid_found",
    "side_ok",
    "shifted",
    "locally_off",
    "grid_within_0.1u",
    "cell_accuracy",
    "ruins_accuracy",
    "other_cell_accuracy",
    "sheet_exact",
    "coins_exact",
    "wrong_coins_flagged",
    "score_exact",
    "wrong_cells_flagged",
    "cells_flagged",
]


def _group_table(res: dict) -> list[str]:
    """The figures per group (all photos, held-out looks, each family, style and condition)."""
    cols = GROUP_COLUMNS
    lines = ["| group | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for g in (
        "all",
        "holdout",
        "art family",
        "style family",
        "background family",
        "style",
        "condition",
        "coin mark",
    ):
        for k, row in res["groups"].get(g, {}).items():
            cells = [
                str(row[c])
                if c in ("photos", "shifted", "locally_off")
                else f"{row[c]:.4f}"
                if c in ("cell_accuracy", "ruins_accuracy", "other_cell_accuracy")
                else f"{row[c]:.3f}"
                for c in cols
            ]
            lines.append(f"| {g}: {k} | " + " | ".join(cells) + " |")
    return lines


def _confusion_table(res: dict) -> list[str]:
    """The cells' confusion table: true class by row, read class by column."""
    classes = list(res["confusion"])
    lines = ["| true \\ read | " + " | ".join(classes) + " |", "|---" * (len(classes) + 1) + "|"]
    for t in classes:
        lines.append(f"| {t} | " + " | ".join(str(res["confusion"][t][p]) for p in classes) + " |")
    return lines


def _speed_lines(res: dict) -> list[str]:
    """Latency, throughput and memory, and the read errors."""
    lat, oc = res["latency_s"], res["one_core_12mp"]
    return [
        "",
        f"Latency per photo (2 workers, mean {lat['mean_megapixels']:.1f} MP): p50 "
        f"{lat['p50']:.3f} s, "
        f"p95 {lat['p95']:.3f} s; throughput {res['photos_per_second']:.2f} photos/s with "
        f"{res['workers']} "
        f"workers; worker peak memory {res['peak_memory_mb_worker']:.0f} MB.",
        f"12 MP photos on one core: p50 {oc['p50_s']:.3f} s, max {oc['max_s']:.3f} s, peak memory "
        f"{oc['peak_memory_mb']:.0f} MB ({oc['photos']} photos).",
        f"Read errors: {res['errors'] or 'none'}.",
    ]
