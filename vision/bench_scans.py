"""The reader on other printings of the sheet (``cartographers bench-vision --art DIR``).

``DIR`` holds scans or PDFs of printed sheets: the publisher's colour sheet and printer-friendly
sheet, a localised edition, a home print. They are never part of this repository; the benchmark
prepares them once into ``DIR/.scans`` (pages rendered with poppler's ``pdftoppm``, each page split
into its sheets, each sheet's cell area located and its side told from its printed mountains), then
fills them in with the generator's own hands, photographs them with its camera
(:func:`vision.synth.make_photo` with a :class:`vision.synth.pages.ScannedSheet` as the printing)
and reads the photos like :mod:`vision.bench`, with every figure split by printing and side.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import time
from collections import defaultdict
from multiprocessing import get_context
from pathlib import Path

import cv2
import numpy as np

from scoring.sides import SIDES
from vision.bench_written import written_table
from vision.layout import GRID

SCAN_SEED_BASE = (
    70_000_000  # photo seeds: SCAN_SEED_BASE + 100_000·seed + i (neither training's nor bench's)
)
PAGE_LONG_SIDE = 3200  # pages are rendered this many pixels along their long side
COLOUR_SATURATION = (
    40  # a page whose median saturation of inked pixels is above this is a colour printing
)
SCAN_DIR = ".scans"


# ---- preparing the scans ----------------------------------------------------------------------
def render_pages(art: Path, out: Path) -> list[Path]:
    """Every page of every PDF in ``art`` as a PNG in
    ``out`` (plus any PNG/JPEG already in ``art``)."""
    pages = sorted(p for p in art.iterdir() if p.suffix.lower() in (".png", ".jpg", ".jpeg"))
    pdfs = sorted(art.glob("*.pdf"))
    if pdfs and shutil.which("pdftoppm") is None:
        raise RuntimeError(
            "rendering PDF pages needs poppler's pdftoppm (Debian: apt-get install poppler-utils)"
        )
    for pdf in pdfs:
        subprocess.run(
            ["pdftoppm", "-png", "-scale-to", str(PAGE_LONG_SIDE), str(pdf), str(out / pdf.stem)],
            check=True,
            capture_output=True,
        )
        pages += sorted(out.glob(f"{pdf.stem}-*.png"))
    return pages


def _line_centres(profile: np.ndarray, share: float = 0.5) -> np.ndarray:
    """Centres of the runs of ``profile`` above ``share`` × its maximum."""
    on = np.concatenate([[False], profile > share * profile.max(), [False]])
    edges = np.flatnonzero(np.diff(on.astype(np.int8)))
    return (edges[0::2] + edges[1::2] - 1) / 2.0


def _evenly_spaced(centres: np.ndarray, n: int = GRID + 1) -> np.ndarray | None:
    """The ``n`` centres best matching an evenly spaced run (the grid's lines), or ``None``."""
    best, best_err = None, np.inf
    for i in range(len(centres)):
        for j in range(i + 1, len(centres)):
            step = centres[j] - centres[i]
            if step < 8:
                continue
            distance = np.abs(centres[None, :] - (centres[i] + step * np.arange(n))[:, None])
            nearest = distance.min(axis=1)
            if (nearest < 0.12 * step).all() and nearest.sum() < best_err:
                best_err, best = nearest.sum(), centres[distance.argmin(axis=1)]
    return best


def flat_grid_corners(sheet: np.ndarray) -> np.ndarray | None:
    """Cell-area corners (TL, TR, BR, BL) of an upright, flat scan of one sheet drawn with solid
    cell lines: the 12 evenly spaced long lines of each axis (the printer-friendly sheet's thin
    black lines)."""
    gray = cv2.cvtColor(sheet, cv2.COLOR_BGR2GRAY)
    dark = (gray < 140).astype(np.uint8)
    h, w = dark.shape
    rows = cv2.morphologyEx(
        dark, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (w // 5, 1))
    )
    cols = cv2.morphologyEx(
        dark, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (1, h // 8))
    )
    ys = _evenly_spaced(_line_centres(rows.sum(axis=1).astype(float)))
    xs = _evenly_spaced(_line_centres(cols.sum(axis=0).astype(float)))
    if ys is None or xs is None:
        return None
    return np.array([[xs[0], ys[0]], [xs[-1], ys[0]], [xs[-1], ys[-1]], [xs[0], ys[-1]]], float)


def grid_corners(sheet: np.ndarray) -> np.ndarray | None:
    """Cell-area corners of an upright flat scan of one sheet: the reader's own grid search, else
    :func:`flat_grid_corners`."""
    from vision.grid import fit_grid, order_corners

    fit = fit_grid(sheet)
    if fit is not None:
        p = fit.intersections
        return order_corners(np.array([p[0, 0], p[0, -1], p[-1, -1], p[-1, 0]]))
    return flat_grid_corners(sheet)


def printed_side(sheet: np.ndarray, corners: np.ndarray) -> str:
    """The side whose five mountain cells hold more ink on an upright, blank scan."""
    from vision.grid import PX, warp_canonical
    from vision.orient import cell_ink
    from vision.synth.pages import CELL_AREA_U

    to_page = cv2.getPerspectiveTransform(CELL_AREA_U, corners.astype(np.float32))
    cells = warp_canonical(sheet, to_page, PX, 0, 0, GRID, GRID)
    ink = cell_ink(cells, PX)
    return max(SIDES, key=lambda s: sum(ink[r, c] for r, c in SIDES[s].mountains))


def printing_name(sheet: np.ndarray) -> str:
    """``colour`` or ``printer-friendly``, from how saturated the sheet's printed marks are."""
    hsv = cv2.cvtColor(sheet, cv2.COLOR_BGR2HSV)
    inked = hsv[..., 2] < 200
    return "colour" if np.median(hsv[..., 1][inked]) > COLOUR_SATURATION else "printer-friendly"


def prepare_scans(art: str | Path, log=print) -> list[dict]:
    """The sheets of ``art`` (cached in ``art/.scans``):
    file, corners, side and printing of each."""
    art = Path(art)
    if not art.is_dir():
        raise FileNotFoundError(f"{art}: no such folder (it should hold the sheets' PDFs or scans)")
    out = art / SCAN_DIR
    index = out / "scans.json"
    if index.exists():
        return json.loads(index.read_text())
    out.mkdir(exist_ok=True)
    sheets = []
    for page_path in render_pages(art, out):
        page = cv2.imread(str(page_path))
        h, w = page.shape[:2]
        halves = (
            [page[:, : w // 2], page[:, w // 2 :]] if w > h else [page]
        )  # a landscape page: two sheets
        for k, half in enumerate(halves):
            corners = grid_corners(half)
            name = f"{page_path.stem}-{k}"
            if corners is None:
                log(f"{name}: no grid found on the flat scan; left out")
                continue
            file = out / f"{name}.png"
            cv2.imwrite(str(file), half)
            sheets.append(
                {
                    "file": str(file),
                    "corners_px": np.round(corners, 2).tolist(),
                    "side": printed_side(half, corners),
                    "printing": printing_name(half),
                    "page": page_path.name,
                }
            )
            log(f"{name}: {sheets[-1]['printing']} side {sheets[-1]['side']}")
    if not sheets:
        raise RuntimeError(f"{art}: no sheet found in its PDFs or scans")
    index.write_text(json.dumps(sheets, indent=1) + "\n")
    return sheets


# ---- photos and figures -----------------------------------------------------------------------
_LOADED: dict[str, object] = {}


def _scanned(spec: dict):
    """The :class:`ScannedSheet` of one prepared sheet (loaded once per process)."""
    from vision.synth.pages import scanned_sheet

    if spec["file"] not in _LOADED:
        page = cv2.imread(spec["file"])
        # a second sheet printed beside it on the page shows in the photo, as on the real page
        _LOADED[spec["file"]] = scanned_sheet(
            page, spec["corners_px"], spec["side"], spec["printing"], margin_u=1.5
        )
    return _LOADED[spec["file"]]


def _generate(job: tuple[int, dict, str]) -> str:
    """One photo of one prepared sheet, filled in by the generator; returns the JPEG's path."""
    cv2.setNumThreads(1)
    from vision.synth import make_photo

    seed, spec, folder = job
    scan = _scanned(spec)
    photo = make_photo(seed, side=spec["side"], printing=scan.render)
    path = Path(folder) / f"{seed}.jpg"
    path.write_bytes(photo.jpeg)
    truth = dict(photo.truth, printing=spec["printing"], scan=Path(spec["file"]).name)
    (Path(folder) / f"{seed}.json").write_text(json.dumps(truth, default=str))
    return str(path)


def run_scan_benchmark(
    art: str | Path, n: int, seed: int, workers: int = 2, log=print, photo_dir: str | None = None
) -> dict:
    """Photograph the prepared sheets of ``art`` ``n`` times (cycling through them), read the photos
    and tally every figure of :mod:`vision.bench` overall, per printing and per printing and
    side."""
    from vision.bench import Tally, _read_one

    sheets = prepare_scans(art, log)
    seeds = [SCAN_SEED_BASE + 100_000 * seed + i for i in range(n)]
    with tempfile.TemporaryDirectory(prefix="bench-scans-") as tmp:
        folder = Path(photo_dir or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        jobs = [
            (s, sheets[i % len(sheets)], str(folder))
            for i, s in enumerate(seeds)
            if not (folder / f"{s}.json").exists()
        ]
        t0 = time.time()
        ctx = get_context("spawn")
        if jobs:
            with ctx.Pool(workers) as pool:
                pool.map(_generate, jobs, chunksize=2)
        log(
            f"generated {len(jobs)} photos of {len(sheets)} printed sheets in "
            f"{time.time() - t0:.0f} s"
        )
        t0 = time.perf_counter()
        with ctx.Pool(workers) as pool:
            results = pool.map(_read_one, [str(folder / f"{s}.jpg") for s in seeds], chunksize=2)
        log(f"read {n} photos in {time.perf_counter() - t0:.1f} s with {workers} workers")
    groups: dict[str, dict[str, Tally]] = defaultdict(lambda: defaultdict(Tally))
    for r in results:
        groups["all"]["all"].add(r)
        groups["printing"][r["printing"]].add(r)
        groups["printing and side"][f"{r['printing']} {r['true_side']}"].add(r)
        groups["printing and coin mark"][f"{r['printing']}, {r['coin_mark']}"].add(r)
    secs = np.array([r["seconds"] for r in results])
    return {
        "n": n,
        "seed": seed,
        "seed_range": [seeds[0], seeds[-1]],
        "workers": workers,
        "sheets": [{k: v for k, v in s.items() if k != "corners_px"} for s in sheets],
        "groups": {g: {k: t.row() for k, t in sorted(v.items())} for g, v in groups.items()},
        "latency_s": {"p50": float(np.percentile(secs, 50)), "p95": float(np.percentile(secs, 95))},
        "errors": {
            e: sum(r.get("error") == e for r in results)
            for e in {r.get("error") for r in results}
            if e
        },
        "photos": [
            {k: v for k, v in r.items() if k not in ("cells", "written")}
            | {"wrong_cells": sum(t != p for t, p, _, _ in r.get("cells", []))}
            for r in results
        ],
    }


def format_scan_table(res: dict) -> str:
    """Markdown table of a scan benchmark result."""
    cols = [
        "photos",
        "grid_found",
        "side_ok",
        "shifted",
        "cell_accuracy",
        "ruins_accuracy",
        "other_cell_accuracy",
        "sheet_exact",
        "coins_exact",
        "wrong_coins_flagged",
        "wrong_cells_flagged",
        "cells_flagged",
    ]
    lines = [
        f"Other printings: {res['n']} photos of {len(res['sheets'])} printed sheets, seed "
        f"{res['seed']}",
        "",
        "| group | " + " | ".join(cols) + " |",
        "|---" * (len(cols) + 1) + "|",
    ]
    for g in ("all", "printing", "printing and side", "printing and coin mark"):
        for k, row in res["groups"].get(g, {}).items():
            cells = [
                str(row[c])
                if c in ("photos", "shifted")
                else f"{row[c]:.4f}"
                if c in ("cell_accuracy", "ruins_accuracy", "other_cell_accuracy")
                else f"{row[c]:.3f}"
                for c in cols
            ]
            lines.append(f"| {g}: {k} | " + " | ".join(cells) + " |")
    lines += ["", "Season-box numbers (found photos):", ""]
    lines += written_table(res["groups"], ("all", "printing", "printing and side"))
    lat = res["latency_s"]
    lines += [
        "",
        "grid_found: share of photos; side_ok, coins_exact: share of found photos; shifted: "
        "found photos "
        "read turned or a cell off (median crossing > 0.5 u from the truth); cells: drawable "
        "cells of "
        f"found photos; latency per photo p50 {lat['p50']:.3f} s, p95 {lat['p95']:.3f} s; "
        f"read errors: {res['errors'] or 'none'}.",
    ]
    return "\n".join(lines)
