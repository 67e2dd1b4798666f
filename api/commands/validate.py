"""``cartographers validate SHEET [--log LOG.json] [--previous EARLIER ...] [--time-limit S]
[--json]``.

Answers legal / illegal / cannot-tell with reasons and cells (``docs/game-engine.md``). ``--log``
takes a card log or a whole game record (its ``card_log`` is used). ``--previous`` takes the sheets
at the end of earlier seasons, spring first (repeat the option, or give one JSON file holding a
list of sheets). Exit status: 0 legal, 1 illegal, 3 cannot tell, 2 unusable input.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from api.commands import CliError
from api.i18n import _
from api.messages import decimal, say
from api.sheet_files import load_sheet
from scoring.sheet import Sheet
from scoring.sides import cell_name

EXIT = {"legal": 0, "illegal": 1, "cannot-tell": 3}


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "validate",
        help="check that a sheet could come from a real game",
        description="Check a sheet alone, against the table's card log, and against earlier "
        "season sheets.",
    )
    p.add_argument("sheet", help="sheet JSON or text form")
    p.add_argument("--log", help="card log JSON (or a game record from 'simulate --json')")
    p.add_argument(
        "--previous",
        action="append",
        default=[],
        metavar="EARLIER",
        help="sheet at the end of an earlier season (repeat, spring first)",
    )
    p.add_argument(
        "--time-limit", type=float, default=5.0, help="seconds for the whole check (default 5)"
    )
    p.add_argument("--json", action="store_true", help="print the verdict JSON")
    p.set_defaults(run=run)


def _read_json(path: str, what: str):
    """A JSON file's data; ``what`` ("a sheet file", "a card log file") names it in the error."""
    p = Path(path)
    if p.is_dir() or p.stat().st_size > 5_000_000:
        raise CliError(_("{path}: not {what}", path=path, what=what))
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise CliError(
            _(
                "{path} is not valid JSON: {error} at line {line} column {column}",
                path=path,
                error=e.msg,
                line=e.lineno,
                column=e.colno,
            )
        ) from None


def _previous(paths: list[str]) -> list[Sheet]:
    out: list[Sheet] = []
    for path in paths:
        if Path(path).read_text(encoding="utf-8").lstrip().startswith("["):
            data = _read_json(path, _("a sheet file"))
            for k, item in enumerate(data):
                try:
                    out.append(Sheet.from_json(item))
                except ValueError as e:
                    raise CliError(f"{path}[{k}]: {e}") from None
        else:
            out.append(load_sheet(path))
    return out


def run(args: argparse.Namespace) -> int:
    sheet = load_sheet(args.sheet)
    log = None
    if args.log:
        log = _read_json(args.log, _("a card log file"))
        if isinstance(log, dict) and "card_log" in log:
            log = log["card_log"]
    previous = _previous(args.previous)
    if args.time_limit <= 0:
        raise CliError(_("--time-limit must be positive"))
    from scoring.validate import validate  # OR-Tools (0.5 s): only when a sheet is checked

    verdict = validate(sheet, log=log, previous=previous or None, time_limit=args.time_limit)
    if args.json:
        print(json.dumps(verdict.to_json(), indent=1))
    else:
        print(verdict_in_words(verdict))
    return EXIT[verdict.status]


def checked(level: str) -> str:
    """What each level of the check looks at (``scoring/validate.py``)."""
    return {
        "sheet": _("the sheet alone: layout, shapes, terrains, coins, four seasons' limits"),
        "log": _("the card log: one drawing per revealed card, in order"),
        "seasons": _("earlier seasons: nothing drawn earlier changed, coins never went down"),
    }[level]


def needs(level: str) -> str:
    """What a level that did not run needs."""
    return {
        "log": _("the card log: give the table's card log with --log"),
        "seasons": _("earlier seasons: give the sheets of earlier seasons with --previous"),
    }[level]


def said(status: str) -> str:
    """A level's answer in one word or three."""
    return {
        "legal": _("passed"),
        "illegal": _("FAILED"),
        "cannot-tell": _("could not decide in time"),
    }[status]


def verdict_line(status: str) -> str:
    """The answer, first line of the verdict."""
    return {
        "legal": _("This map could have been drawn in a real game."),
        "illegal": _("This map could not have been drawn in a real game."),
        "cannot-tell": _(
            "The check could not decide in its time limit (try a longer --time-limit)."
        ),
    }[status]


#: The levels a verdict may lack, in the order they are offered.
OPTIONAL_LEVELS = ("log", "seasons")


def verdict_in_words(verdict) -> str:
    """The verdict for a player, in the language in force: the answer, what was checked and with
    what result, what was not and what it needs, then the reasons with their cells."""
    lines = [verdict_line(verdict.status), _("Checked:")]
    ran = {c.level for c in verdict.checks}
    for c in verdict.checks:
        seconds = decimal(c.seconds, 2)
        line = _("{what} ({seconds} s)", what=checked(c.level), seconds=seconds)
        lines.append(f"  {said(c.status):<8} {line}")
    missing = [level for level in OPTIONAL_LEVELS if level not in ran]
    if missing:
        lines.append(_("Not checked (needs more input):"))
        lines += [f"  {needs(level)}" for level in missing]
    if verdict.reasons:
        lines.append(_("Why:"))
        lines += [f"  - {reason_in_words(r)}" for r in verdict.reasons]
    return "\n".join(lines)


def reason_in_words(reason) -> str:
    """One reason in the language in force, with the cells it names."""
    if not reason.cells:
        return say(reason.message)
    cells = " ".join(cell_name(c) for c in reason.cells)
    return _("{reason} (cells {cells})", reason=say(reason.message), cells=cells)
