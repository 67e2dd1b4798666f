"""``cartographers batch DIR|ZIP --cards C1,C2,C3,C4 [--season S] --out results.csv|.json [--workers N]``."""

from __future__ import annotations

import argparse
import json
import sys

from api.batch import BatchOptions, run_batch
from api.cli import CliError
from scoring.report import parse_cards


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "batch",
        help="score a folder or zip of sheet photos in parallel, resumably, with a ranking",
        description="Read and score every photo (and every corrected sheet .json/.txt) of a folder or "
                    "zip. Results go to --out as they come (a journal beside it), so a killed batch "
                    "resumes without redoing finished sheets. A bad photo is listed with its reason.",
    )
    p.add_argument("source", help="a folder (searched recursively) or a .zip of photos")
    p.add_argument("--cards", required=True, help="C1,C2,C3,C4: the cards under edicts A–D")
    p.add_argument("--season", choices=["spring", "summer", "fall", "winter"],
                   help="score this season only (default: all four seasons on the same sheet)")
    p.add_argument("--side", choices=["A", "B"], help="every sheet is this side (default: read it)")
    p.add_argument("--out", required=True, help="results file: .csv or .json")
    p.add_argument("--workers", type=int, default=2, help="local worker processes (default 2)")
    p.add_argument("--scheduler", help="tcp://host:port of a Dask scheduler (needs the 'dask' extra)")
    p.add_argument("--validate-time-limit", type=float, default=2.0,
                   help="seconds of legality search per sheet before 'cannot-tell' (default 2)")
    p.add_argument("--fresh", action="store_true", help="ignore the journal of an earlier run")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    cards = parse_cards(args.cards)
    if cards == "all":
        raise CliError("batch needs the four edict cards (a ranking needs seasons), not 'all'")
    options = BatchOptions(tuple(cards), args.season, args.side, args.validate_time_limit)
    summary = run_batch(args.source, args.out, options, workers=args.workers, scheduler=args.scheduler,
                        progress=not args.no_progress, fresh=args.fresh)
    if summary.total == 0:
        raise CliError(f"{args.source} holds no files to score", 2)
    print(json.dumps(summary.to_json()))
    for row in summary.rows:
        if row["status"] != "ok":
            print(f"  failed: {row['file']}: {row.get('error_code')}: {row.get('error')}", file=sys.stderr)
    return 0
