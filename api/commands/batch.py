"""``cartographers batch DIR|ZIP --cards C1,C2,C3,C4
[--season S] --out results.csv|.json [--workers N]``."""

from __future__ import annotations

import argparse
import json
import sys

from api.batch import BatchOptions, run_batch
from api.commands import CliError
from api.i18n import _, _n, _p
from api.messages import decimal, say
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
        raise CliError(_("batch needs the four edict cards (a ranking needs seasons), not 'all'"))
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
        raise CliError(
            _("{source} holds no photos or sheet files to score", source=args.source)
            if not n
            else _n(
                "{source} holds no photos or sheet files to score ({n} other file skipped)",
                "{source} holds no photos or sheet files to score ({n} other files skipped)",
                n,
                source=args.source,
                n=n,
            ),
            2,
        )
    if args.json:
        print(json.dumps(summary.to_json()))
    else:
        print(summary_table(summary))
    for row in summary.rows:
        if row["status"] != "ok":
            print(
                "  "
                + _(
                    "failed: {file}: {code}: {error}",
                    file=row["file"],
                    code=row.get("error_code"),
                    error=say(row.get("error", "")),
                ),
                file=sys.stderr,
            )
    return 0


def summary_table(summary) -> str:
    """The batch for a person, in the language in force: what was done, the ranking, then what
    failed and what was skipped."""
    ok = sorted(
        (r for r in summary.rows if r["status"] == "ok"), key=lambda r: (r["place"], r["file"])
    )
    lines = [_counts(summary), ""]
    if ok:
        lines += ranking_table(ok)
        if len(ok[0]["seasons"]) > 1:
            lines += [
                "",
                _(
                    "total: the four seasons scored on each sheet's map as photographed (give "
                    "--season to score one season)"
                ),
            ]
    review = [r for r in ok if r.get("review")]
    if review:
        lines += ["", _("written scores to look at again (review):")]
        for r in review:
            said = " | ".join(say(c["message"]) for c in r.get("checks", []))
            lines.append(f"  {r['file']}: {said or _('a written number read unsure')}")
    failed = [r for r in summary.rows if r["status"] != "ok"]
    if failed:
        lines += ["", _("failed (listed on standard error with the reason):")]
        lines += [f"  {r['file']}: {r.get('error_code')}" for r in failed]
    if summary.skipped_files:
        lines += ["", _("skipped (not a photo or a sheet):")]
        lines += [f"  {s['file']}: {say(s['reason'])}" for s in summary.skipped_files]
    return "\n".join(lines)


def _counts(summary) -> str:
    """The first line: sheets scored, already done, failed and skipped, the time, the file."""
    scored = _n("{n} sheet", "{n} sheets", summary.total, n=summary.total)
    done = _("{n} scored", n=summary.scored)
    if summary.resumed:
        done = _("{scored}, {n} already done", scored=done, n=summary.resumed)
    seconds = decimal(summary.seconds, 1)
    return _(
        "{sheets}: {done}, {failed} failed, {skipped} skipped ({seconds} s); results in {out}",
        sheets=scored,
        done=done,
        failed=summary.failed,
        skipped=len(summary.skipped_files),
        seconds=seconds,
        out=summary.out,
    )


def ranking_table(ok: list[dict]) -> list[str]:
    """The readable sheets from first place down: place, file, total, stars lost to monsters,
    the legality verdict and what to check."""
    width = max(12, *(len(r["file"]) for r in ok))
    heads = [_("place"), _("file"), _("total"), _("monsters"), _("legality")]
    lines = [
        f"{heads[0]:>5}  {heads[1]:<{width}}  {heads[2]:>5}  {heads[3]:>8}  {heads[4]:<11}  "
        + _("to check")
    ]
    for r in ok:
        n = len(r["low_confidence_cells"])
        check = _n("{n} cell", "{n} cells", n, n=n) if n else ""
        if r.get("review"):
            check += ("; " if check else "") + _("written scores")
        lines.append(
            f"{r['place']:>5}  {r['file']:<{width}}  {r['total']:>5}  "
            f"{-r['monster_stars_lost']:>8}  "
            f"{legality_word(r['legality']):<11}  {check}"
        )
    return lines


def legality_word(verdict: str) -> str:
    """A legality verdict (``legal``, ``illegal``, ``cannot-tell``) in the language in force."""
    words = {
        "legal": _p("verdict", "legal"),
        "illegal": _p("verdict", "illegal"),
        "cannot-tell": _p("verdict", "cannot-tell"),
    }
    return words.get(verdict, verdict)
