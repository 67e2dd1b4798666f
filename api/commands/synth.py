"""``cartographers synth --n N --seed S --out DIR``: synthetic phone photos with their truth.

Writes ``DIR/synth-SSSSSS-IIII.jpg`` and ``.truth.json`` pairs; photo ``i`` of seed ``S`` is
always the same picture (``docs/synth.md`` describes the truth fields).
"""

from __future__ import annotations

import argparse
import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np

from api.commands import CliError
from vision.synth import BACKGROUND_FAMILIES, BACKGROUNDS, STYLE_FAMILIES, STYLES, make_photo
from vision.synth.photo import truth_overlay


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``synth``."""
    p = sub.add_parser(
        "synth",
        help="generate synthetic phone photos of filled-in sheets, with truth JSON",
        description="Generate synthetic photos (JPEG) and their truth (sheet, style, grid points).",
    )
    p.add_argument("--n", type=int, required=True, help="number of photos")
    p.add_argument("--seed", type=int, default=0, help="seed: the same seed gives the same photos")
    p.add_argument("--out", required=True, help="output folder (created if missing)")
    p.add_argument("--megapixels", type=float, help="photo size (default: random 1–12 MP)")
    p.add_argument("--side", choices=["A", "B"], help="sheet side (default: random)")
    p.add_argument("--style", choices=STYLES, help="drawing style (default: random)")
    p.add_argument(
        "--style-family", choices=sorted(STYLE_FAMILIES), help="random style of this family"
    )
    p.add_argument("--background", choices=BACKGROUNDS, help="table background (default: random)")
    p.add_argument(
        "--background-family",
        choices=sorted(BACKGROUND_FAMILIES),
        help="random background of this family",
    )
    p.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    p.add_argument(
        "--debug",
        action="store_true",
        help="also write *.truth.png: the truth drawn over the photo",
    )
    p.set_defaults(run=run)


def photo_seed(seed: int, index: int) -> int:
    """The seed of photo ``index`` of a run with ``seed`` (independent streams, no overlaps)."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1)[0])


def write_one(job: tuple[int, int, dict, str, bool]) -> str:
    """Generate and write photo ``index``; returns its file name."""
    seed, index, options, out, debug = job
    photo = make_photo(photo_seed(seed, index), **options)
    stem = Path(out) / f"synth-{seed:06d}-{index:04d}"
    stem.with_suffix(".jpg").write_bytes(photo.jpeg)
    truth = dict(photo.truth, run_seed=seed, index=index)
    stem.with_suffix(".truth.json").write_text(json.dumps(truth, separators=(",", ":")))
    if debug:
        cv2.imwrite(str(stem.with_suffix(".truth.png")), truth_overlay(photo.image, truth))
    return stem.with_suffix(".jpg").name


def run(args: argparse.Namespace) -> int:
    """Check the arguments, then generate and write the photos."""
    if args.n < 1:
        raise CliError(f"--n must be at least 1, got {args.n}")
    if args.megapixels is not None and not 0.1 <= args.megapixels <= 50:
        raise CliError(f"--megapixels must be between 0.1 and 50, got {args.megapixels}")
    if args.style and args.style_family:
        raise CliError("give --style or --style-family, not both")
    if args.background and args.background_family:
        raise CliError("give --background or --background-family, not both")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise CliError(f"{out} exists and is not a folder")
    out.mkdir(parents=True, exist_ok=True)
    options = {
        k: v
        for k, v in dict(
            megapixels=args.megapixels,
            side=args.side,
            style=args.style,
            style_family=args.style_family,
            background=args.background,
            background_family=args.background_family,
        ).items()
        if v is not None
    }
    jobs = [(args.seed, i, options, str(out), args.debug) for i in range(args.n)]
    if args.jobs > 1:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            names = list(pool.map(write_one, jobs))
    else:
        names = [write_one(j) for j in jobs]
    print(f"wrote {len(names)} photos and truth files to {out}")
    return 0
