"""One sheet of a batch: the options every sheet is scored with, reading a sheet file or a photo,
and scoring it into a result row (a failure becomes an error row)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from api.written_view import needs_review, split_written, written_fields
from scoring.report import score_report
from scoring.seasons import SEASON_BY_NAME, check_setup
from scoring.sheet import Sheet, SheetError
from scoring.sides import cell_name
from scoring.written import WrittenError, WrittenScores
from scoring.written_checks import checked_total

SHEET_SUFFIXES = {".json", ".txt"}  # corrected sheets: no photo reading


class BatchError(ValueError):
    """A batch that cannot start (missing input, a journal made with other options, ...)."""


class WrongSide(ValueError):
    """A sheet of the other side than the batch's ``--side``."""

    code = "wrong-side"


@dataclass(frozen=True)
class BatchOptions:
    """What every sheet of one batch is scored with."""

    cards: tuple[str, ...]  # edicts A, B, C, D
    season: str | None = None  # None: the four seasons on the same sheet (a quick look)
    side: str | None = None  # None: the reader decides per photo
    validate_time_limit: float = (
        2.0  # the sheet-only legality search per sheet (then "cannot-tell")
    )

    def __post_init__(self) -> None:
        check_setup(self.cards)  # raises CardError (a ValueError) naming the problem
        if self.season is not None and self.season not in SEASON_BY_NAME:
            raise BatchError(
                f"unknown season {self.season!r}; expected one of {', '.join(SEASON_BY_NAME)}"
            )
        if self.side not in (None, "A", "B"):
            raise BatchError(f"side must be A or B, got {self.side!r}")

    def to_json(self) -> dict:
        return {"cards": list(self.cards), "season": self.season, "side": self.side}


def looks_like_sheet_text(data: bytes) -> bool:
    """Whether a file's bytes start as a sheet does: JSON (``{``) or the text form (``side …``).

    >>> [looks_like_sheet_text(b) for b in (b'  {"side": "A"}', b"Side B coins 3", b"# notes")]
    [True, True, False]
    """
    start = data.lstrip()[:4]
    return start[:1] == b"{" or start.lower() == b"side"


def read_sheet_file(name: str, data: bytes, side: str | None) -> tuple[Sheet, list[str], list[str]]:
    """The sheet in a file, its low-confidence cells and the reader's warnings."""
    sheet, low, warnings, _ = read_sheet_and_written(name, data, side)
    return sheet, low, warnings


def read_sheet_and_written(
    name: str, data: bytes, side: str | None
) -> tuple[Sheet, list[str], list[str], WrittenScores | None]:
    """As :func:`read_sheet_file`, and the numbers written in the season boxes: a sheet JSON's
    ``seasons_written``/``final_total_written``, or what the reader read on a photo."""
    if Path(name).suffix.lower() in SHEET_SUFFIXES or looks_like_sheet_text(data):
        text = data.decode("utf-8", errors="replace")
        if text.lstrip().startswith("{"):
            raw = json.loads(text)
            sheet_part, written = split_written(raw) if isinstance(raw, dict) else (raw, None)
            sheet = Sheet.from_json(sheet_part)
        else:
            sheet, written = Sheet.from_text(text), None
        return sheet, [], list(sheet.warnings), written
    from vision import read_photo  # imported in the worker: the parent never needs OpenCV

    reading = read_photo(data, side=side)
    info = reading.to_json()
    low = [
        c if isinstance(c, str) else cell_name(tuple(c))
        for c in info.get("low_confidence_cells", [])
    ]
    return reading.sheet, low, list(info.get("warnings", [])), reading.written


def written_columns(
    written: WrittenScores | None, sheet: Sheet, options: BatchOptions
) -> dict[str, Any]:
    """A row's written numbers, their checks, the checked total and the review flag.

    The checked total (``scoring.written_checks.checked_total``) is winter scored on the map plus
    the written spring, summer and fall totals; with a ``--season`` before winter the map is not
    the game's end, so it is ``None`` and only the arithmetic checks run.
    """
    fields = written_fields(written, sheet, options.cards, options.season)
    final_map = options.season in (None, "winter")
    numbers = written or WrittenScores.blank()
    checked = checked_total(numbers, sheet, options.cards) if final_map else None
    return {**fields, "checked_total": checked, "review": needs_review(fields)}


def _legality(sheet: Sheet, time_limit: float) -> tuple[str, list[str]]:
    """The sheet-only legality verdict and its reasons."""
    from scoring.validate import validate  # in the worker: OR-Tools loads where it is used

    verdict = validate(sheet, time_limit=time_limit)
    return verdict.status, [r.message for r in verdict.reasons]


def score_file(name: str, data: bytes, options: BatchOptions) -> dict:
    """One sheet's result row; a failure becomes ``status = error`` with its code and reason."""
    started = time.perf_counter()
    try:
        sheet, low, warnings, written = read_sheet_and_written(name, data, options.side)
        if options.side and sheet.side != options.side:
            raise WrongSide(f"the sheet is side {sheet.side}, the batch is side {options.side}")
        report = score_report(sheet, list(options.cards), options.season)
        legality, reasons = _legality(sheet, options.validate_time_limit)
        checked = written_columns(written, sheet, options)
    except Exception as e:  # noqa: BLE001 — a bad photo must never stop the batch
        code = getattr(e, "code", None) or _error_code(e)
        return {
            "file": name,
            "status": "error",
            "error_code": str(code),
            "error": str(e) or type(e).__name__,
            "seconds": round(time.perf_counter() - started, 3),
        }
    return {
        "file": name,
        "status": "ok",
        "side": sheet.side,
        "coins": sheet.coins,
        "cells": [[t.value for t in row] for row in sheet.cells],
        "cards": report["cards"],
        "edicts": report["edicts"],
        "seasons": [
            {
                "season": s["season"],
                "edicts": s["edicts"],
                "coins": s["coins"],
                "monster_penalty": s["monster_penalty"],
                "total": s["total"],
            }
            for s in report["seasons"]
        ],
        "monster_stars_lost": sum(s["monster_penalty"] for s in report["seasons"]),
        "total": report["total"],
        "low_confidence_cells": low,
        "legality": legality,
        "legality_reasons": reasons,
        "warnings": warnings + report["warnings"],
        **checked,
        "seconds": round(time.perf_counter() - started, 3),
    }


def _error_code(e: Exception) -> str:
    if isinstance(e, WrittenError):
        return "bad-written"
    return "bad-sheet" if isinstance(e, (SheetError, json.JSONDecodeError)) else type(e).__name__


ScoreFn = Callable[[str, bytes, BatchOptions], dict]
