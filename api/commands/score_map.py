"""``cartographers score-map SHEET --cards C1,C2,C3,C4 [--season S] [--json]``."""

from __future__ import annotations

import argparse
import json
import sys

from api.sheet_files import load_sheet_and_written
from api.text_view import format_report
from api.words import parse_cards_any as parse_cards
from api.written_view import written_fields
from scoring.report import score_report


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "score-map",
        help="score a sheet file (JSON or text form) without a photo",
        description="Score a sheet for the four edict cards (A, B, C, D in order), or all sixteen; "
        "a sheet JSON may carry the numbers written in the season boxes (seasons_written, "
        "final_total_written), which are then checked.",
    )
    p.add_argument("sheet", help="sheet JSON (docs/formats.md) or the compact text form")
    p.add_argument("--cards", required=True, help="C1,C2,C3,C4 for edicts A–D, or 'all'")
    p.add_argument(
        "--season",
        choices=["spring", "summer", "fall", "winter"],
        help="score only this season (default: all four on this sheet)",
    )
    p.add_argument("--json", action="store_true", help="print the JSON report")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    cards = parse_cards(args.cards)
    sheet, written = load_sheet_and_written(args.sheet)
    report = score_report(sheet, cards, args.season)
    report.update(written_fields(written, sheet, cards, args.season))
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(format_report(sheet, report, colour=sys.stdout.isatty()))
    return 0
