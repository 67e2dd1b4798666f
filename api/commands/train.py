"""``cartographers train --seed S``: regenerate the reader's model from synthetic photos."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction) -> None:
    from vision.train import TrainConfig

    d = TrainConfig()
    p = sub.add_parser(
        "train",
        help="train the photo reader's classifiers from scratch (synthetic photos)",
        description="Generate synthetic photos (training seeds only), read them, fit the cell "
        "and coin classifiers, and write models/reader.npz + models/reader.json.",
    )
    p.add_argument(
        "--seed", type=int, default=d.seed, help="training seed (photo seeds derive from it)"
    )
    p.add_argument(
        "--photos", type=int, default=d.photos, help=f"photos to generate (default {d.photos})"
    )
    p.add_argument(
        "--holdout-style-family",
        default=d.holdout_style_family,
        help="style family kept out of training (default %(default)s; 'none' keeps none)",
    )
    p.add_argument(
        "--holdout-background-family",
        default=d.holdout_background_family,
        help="background family kept out of training (default %(default)s; 'none' keeps none)",
    )
    p.add_argument(
        "--holdout-art-family",
        default=d.holdout_art_family,
        help="printed-art family kept out of training (default %(default)s; 'none' keeps none)",
    )
    p.add_argument(
        "--art-share",
        type=float,
        default=d.art_share,
        help="share of photos printed in an art family other than our look-alike (default "
        "%(default)s)",
    )
    p.add_argument(
        "--coin-art",
        default=d.coin_art,
        help="art families the coin model learns from, comma-separated, or 'all' (default "
        "%(default)s)",
    )
    p.add_argument(
        "--workers", type=int, default=d.workers, help="worker processes (default %(default)s)"
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="a small recipe that runs every stage in about a minute (to check training works; "
        "its model reads badly: use with --out)",
    )
    p.add_argument(
        "--out", metavar="DIR", help="write reader.npz and reader.json here instead of models/"
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from api.commands import CliError
    from vision.train import TrainConfig, quick_config, train_and_save

    if args.photos < 20:
        raise ValueError("--photos must be at least 20")
    from vision.synth.art import ART_FAMILIES

    families = TrainConfig(coin_art=args.coin_art).coin_families()
    if families is not None and (not families or families - set(ART_FAMILIES)):
        raise CliError(
            f"--coin-art {args.coin_art!r}: give 'all' or art families from "
            f"{', '.join(ART_FAMILIES)}, comma-separated"
        )
    if args.quick and not args.out:
        raise CliError(
            "--quick makes a model that reads badly: give --out DIR so the shipped model stays"
        )
    cfg = TrainConfig(
        seed=args.seed,
        photos=args.photos,
        holdout_style_family=args.holdout_style_family,
        holdout_background_family=args.holdout_background_family,
        holdout_art_family=args.holdout_art_family,
        art_share=args.art_share,
        coin_art=args.coin_art,
        workers=max(1, args.workers),
    )
    if args.quick:
        cfg = quick_config(cfg)
    files = {}
    if args.out:
        out = Path(args.out)
        if out.exists() and not out.is_dir():
            raise CliError(f"--out {out} is a file; give a folder")
        out.mkdir(parents=True, exist_ok=True)
        files = {"model_file": out / "reader.npz", "meta_file": out / "reader.json"}
    model = train_and_save(cfg, log=lambda m: print(m, file=sys.stderr, flush=True), **files)
    print(
        json.dumps(
            {"validation": model.meta["validation"], "training": model.meta["training"]}, indent=1
        )
    )
    return 0
