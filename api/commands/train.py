"""``cartographers train --seed S``: regenerate the reader's model from synthetic photos."""

from __future__ import annotations

import argparse
import json
import sys


def add_parser(sub: argparse._SubParsersAction) -> None:
    from vision.train import TrainConfig

    d = TrainConfig()
    p = sub.add_parser("train", help="train the photo reader's classifiers from scratch (synthetic photos)",
                       description="Generate synthetic photos (training seeds only), read them, fit the cell "
                                   "and coin classifiers, and write models/reader.npz + models/reader.json.")
    p.add_argument("--seed", type=int, default=d.seed, help="training seed (photo seeds derive from it)")
    p.add_argument("--photos", type=int, default=d.photos, help=f"photos to generate (default {d.photos})")
    p.add_argument("--holdout-style-family", default=d.holdout_style_family,
                   help="style family kept out of training (default %(default)s; 'none' keeps none)")
    p.add_argument("--holdout-background-family", default=d.holdout_background_family,
                   help="background family kept out of training (default %(default)s; 'none' keeps none)")
    p.add_argument("--workers", type=int, default=d.workers, help="worker processes (default %(default)s)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from vision.train import TrainConfig, train_and_save

    if args.photos < 20:
        raise ValueError("--photos must be at least 20")
    cfg = TrainConfig(seed=args.seed, photos=args.photos, holdout_style_family=args.holdout_style_family,
                      holdout_background_family=args.holdout_background_family, workers=max(1, args.workers))
    model = train_and_save(cfg, log=lambda m: print(m, file=sys.stderr, flush=True))
    print(json.dumps({"validation": model.meta["validation"], "training": model.meta["training"]}, indent=1))
    return 0
