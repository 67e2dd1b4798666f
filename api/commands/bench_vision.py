"""``cartographers bench-vision --n N --seed S``: measure
the photo reader on unseen synthetic photos."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "bench-vision",
        help="benchmark the photo reader on synthetic photos it never saw",
        description="Generate N photos from benchmark seeds (never used in training), read them, "
        "and print accuracy, confidence, speed and memory figures.",
    )
    p.add_argument("--n", type=int, default=300, help="photos (default %(default)s)")
    p.add_argument("--seed", type=int, default=1, help="benchmark seed (default %(default)s)")
    p.add_argument("--workers", type=int, default=2, help="reader processes (default %(default)s)")
    p.add_argument(
        "--json", action="store_true", help="print the figures as JSON instead of tables"
    )
    p.add_argument("--out", help="also write the JSON figures to this file")
    p.add_argument(
        "--photo-dir", help="keep the generated photos here and reuse them on the next run"
    )
    p.add_argument(
        "--art-families",
        action="store_true",
        help="print the photos in every printed-art family of the generator in turn (our "
        "look-alike, "
        "line art, engraved, woodcut), with figures per family",
    )
    p.add_argument(
        "--art",
        metavar="DIR",
        help="photograph other printings instead of ours: DIR holds PDFs or scans of printed "
        "sheets "
        "(e.g. the publisher's colour and printer-friendly sheets); figures per printing and side",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from vision.bench import format_table, run_benchmark
    from vision.bench_scans import format_scan_table, run_scan_benchmark

    if args.n < 1:
        raise ValueError("--n must be at least 1")
    log = lambda m: print(m, file=sys.stderr, flush=True)  # noqa: E731
    if args.art:
        res = run_scan_benchmark(
            args.art, args.n, args.seed, max(1, args.workers), log=log, photo_dir=args.photo_dir
        )
        table = format_scan_table(res)
    else:
        res = run_benchmark(
            args.n,
            args.seed,
            max(1, args.workers),
            log=log,
            photo_dir=args.photo_dir,
            art_families=args.art_families,
        )
        table = format_table(res)
    if args.out:
        Path(args.out).write_text(json.dumps(res, indent=1) + "\n")
    print(json.dumps(res, indent=1) if args.json else table)
    return 0
