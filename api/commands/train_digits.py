"""``cartographers train-digits --seed S``: fit the season boxes' character classifier."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "train-digits",
        help="train the classifier of the numbers written in the season boxes",
        description="Fit the season-box character classifier on scikit-learn's bundled "
        "handwritten digits and the generator's written digits, minus signs, crossed-out numbers "
        "and printed icons; write models/digits.npz + models/digits.json. Its convolutional "
        "networks are fitted with PyTorch: pip install -e '.[train]'.",
    )
    p.add_argument("--seed", type=int, default=1, help="training seed (default %(default)s)")
    p.add_argument(
        "--quick",
        action="store_true",
        help="a small recipe that runs in well under a minute (to check training works; its "
        "model reads worse: use with --out)",
    )
    p.add_argument("--out", metavar="DIR", help="write digits.npz and digits.json here")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from api.commands import CliError
    from vision.convnet_train import require_torch
    from vision.digits import MODEL_DIR
    from vision.digits_train import train_digits

    if args.quick and not args.out:
        raise CliError("--quick makes a model that reads worse: give --out DIR")
    try:  # before minutes of building data, not after
        require_torch()
    except RuntimeError as exc:
        raise CliError(str(exc)) from exc
    log = lambda m: print(m, file=sys.stderr, flush=True)  # noqa: E731
    model = train_digits(args.seed, args.quick, log)
    npz, meta = model.save(Path(args.out) if args.out else MODEL_DIR)
    print(f"wrote {npz} and {meta}")
    return 0
