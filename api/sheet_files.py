"""Reading sheet files given on the command line: the public JSON or the compact text form."""

from __future__ import annotations

import json
from pathlib import Path

from scoring.sheet import Sheet, SheetError

MAX_SHEET_BYTES = 1_000_000  # a sheet is ~2 kB; anything this big is not a sheet


def load_sheet(path: str | Path) -> Sheet:
    """Load a sheet from ``path``: JSON if it starts with ``{``, else the text form."""
    p = Path(path)
    if p.is_dir():
        raise SheetError(f"{p} is a folder, not a sheet file")
    size = p.stat().st_size
    if size > MAX_SHEET_BYTES:
        raise SheetError(f"{p} is {size} bytes; a sheet file is a few kB")
    text = p.read_text(encoding="utf-8", errors="replace")
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise SheetError(f"{p} is not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
        try:
            return Sheet.from_json(data)
        except SheetError as e:
            raise SheetError(f"{p}: {e}", e.field, e.cell) from None
    try:
        return Sheet.from_text(text)
    except SheetError as e:
        raise SheetError(f"{p}: {e}", e.field, e.cell) from None
