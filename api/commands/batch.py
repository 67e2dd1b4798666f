"""``cartographers batch DIR|ZIP --cards C1,C2,C3,C4
[--season S] --out results.csv|.json [--workers N]``."""

from __future__ import annotations

import argparse
import json
import sys

from api.batch import BatchOptions, run_batch
from api.commands import CliError
from api.words import parse_cards_any as parse_cards


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "batch",
        help="score a folder or zip of sheet photos in parallel, resumably, with a ranking",
        description="Read and score every photo (and every corrected sheet .json/.txt) of a "
        "folder or "
        "zip. Results go to --out as they come (a journal beside it), so a killed batch "
        "resumes without redoing finished sheets. A bad photo is listed with its reason.",
    )
    p.add_argument("source", help="a folder (searched recursively) or a .zip of photos")
    p.add_argument("--cards", required=True, help="C1,C2,C3,C4: the cards under edicts A–D")
    p.add_argument(
        "--season",
        choices=["spring", "summer", "fall", "winter"],
        help="score this season only (default: all four seasons on the same sheet)",
    )
    p.add_argument("--side", choices=["A", "B"], help="every sheet is this side (default: read it)")
    p.add_argument("--out", required=True, help="results file: .csv or .json")
    p.add_argument("--workers", type=int, default=2, help="local worker processes (default 2)")
    p.add_argument(
        "--scheduler", help="tcp://host:port of a Dask scheduler (needs the 'dask' extra)"
    )
    p.add_argument(
        "--validate-time-limit",
        type=float,
        default=2.0,
        help="seconds of legality search per sheet before 'cannot-tell' (default 2)",
    )
    p.add_argument("--fresh", action="store_true", help="ignore the journal of an earlier run")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument(
        "--json", action="store_true", help="end with the summary as JSON instead of a table"
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    cards = parse_cards(args.cards)
    if cards == "all":
        raise CliError("batch needs the four edict cards (a ranking needs seasons), not 'all'")
    options = BatchOptions(tuple(cards), args.season, args.side, args.validate_time_limit)
    summary = run_batch(
        args.source,
        args.out,
        options,
        workers=args.workers,
        scheduler=args.scheduler,
        progress=not args.no_progress,
        fresh=args.fresh,
    )
    if summary.total == 0:
        n = len(summary.skipped_files)
        skipped = f" ({n} other {'file' if n == 1 else 'files'} skipped)" if n else ""
        raise CliError(f"{args.source} holds no photos or sheet files to score{skipped}", 2)
    if args.json:
        print(json.dumps(summary.to_json()))
    else:
        print(summary_table(summary))
    for row in summary.rows:
        if row["status"] != "ok":
            print(
                f"  failed: {row['file']}: {row.get('error_code')}: {row.get('error')}",
                file=sys.stderr,
            )
    return 0


def summary_table(summary) -> str:
    """The batch for a person: what was done, the ranking, then what failed and what was skipped."""
    done = f"{summary.scored} scored" + (
        f", {summary.resumed} already done" if summary.resumed else ""
    )
    lines = [
        f"{summary.total} sheets: {done}, {summary.failed} failed, {len(summary.skipped_files)} "
        "skipped "
        f"({summary.seconds:.1f} s); results in {summary.out}",
        "",
    ]
    ok = sorted(
        (r for r in summary.rows if r["status"] == "ok"), key=lambda r: (r["place"], r["file"])
    )
    if ok:
        width = max(12, *(len(r["file"]) for r in ok))
        lines.append(
            f"{'place':>5}  {'file':<{width}}  {'total':>5}  "
            f"{'monsters':>8}  {'legality':<11}  to check"
        )
        for r in ok:
            n = len(r["low_confidence_cells"])
            check = "" if not n else f"{n} cell" if n == 1 else f"{n} cells"
            if r.get("review"):
                check += ("; " if check else "") + "written scores"
            lines.append(
                f"{r['place']:>5}  {r['file']:<{width}}  {r['total']:>5}  "
                f"{-r['monster_stars_lost']:>8}  "
                f"{r['legality']:<11}  {check}"
            )
        if len(ok[0]["seasons"]) > 1:
            lines += [
                "",
                "total: the four seasons scored on each sheet's map as photographed (give "
                "--season to "
                "score one season)",
            ]
    review = [r for r in ok if r.get("review")]
    if review:
        lines += ["", "written scores to look at again (review):"]
        for r in review:
            said = " | ".join(c["message"] for c in r.get("checks", []))
            lines.append(f"  {r['file']}: {said or 'a written number read unsure'}")
    failed = [r for r in summary.rows if r["status"] != "ok"]
    if failed:
        lines += ["", "failed (listed on standard error with the reason):"]
        lines += [f"  {r['file']}: {r.get('error_code')}" for r in failed]
    if summary.skipped_files:
        lines += ["", "skipped (not a photo or a sheet):"]
        lines += [f"  {s['file']}: {s['reason']}" for s in summary.skipped_files]
    return "\n".join(lines)
