"""``cartographers score PHOTO --cards C1,C2,C3,C4 [--season S] [--side A|B] [--json]``:
read, then score."""

from __future__ import annotations

import argparse
import json
import sys


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "score",
        help="read a photo of a sheet and score it",
        description="Read the map from a photo (as 'read' does), then score it for the four edict "
        "cards (A, B, C, D in order) or all sixteen.",
    )
    p.add_argument("photo", help="JPEG or PNG photo of the filled-in sheet")
    p.add_argument("--cards", required=True, help="C1,C2,C3,C4 for edicts A–D, or 'all'")
    p.add_argument(
        "--season", choices=["spring", "summer", "fall", "winter"], help="score only this season"
    )
    p.add_argument("--side", choices=["A", "B"], help="the sheet side, if you know it")
    p.add_argument(
        "--json", action="store_true", help="print the reading and the score report as JSON"
    )
    p.add_argument(
        "--overlay",
        metavar="FILE",
        help="write the photo with the found grid and labels drawn on it",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from api.commands.read import read_or_fail, write_overlay
    from api.text_view import format_report
    from api.words import parse_cards_any as parse_cards
    from api.written_view import written_fields
    from scoring.report import score_report

    cards = parse_cards(args.cards)  # bad cards fail before the photo is read
    reading = read_or_fail(args.photo, args.side)
    if args.overlay:
        write_overlay(reading, args.photo, args.overlay)
    report = score_report(reading.sheet, cards, args.season)
    report["warnings"] = list(reading.warnings) + report["warnings"]
    report.update(written_fields(reading.written, reading.sheet, cards, args.season))
    if args.json:
        card_free = written_fields(reading.written, reading.sheet, None)
        print(json.dumps({**report, "reading": {**reading.to_json(), **card_free}}))  # as `read`
    else:
        print(
            format_report(reading.sheet, report, colour=sys.stdout.isatty())
        )  # its warnings name the cells to check
    return 0
