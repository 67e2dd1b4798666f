"""Reading sheet files given on the command line: the public JSON or the compact text form."""

from __future__ import annotations

import json
from pathlib import Path

from api.written_view import split_written
from scoring.sheet import Sheet, SheetError
from scoring.written import WrittenError, WrittenScores

MAX_SHEET_BYTES = 1_000_000  # a sheet is ~2 kB; anything this big is not a sheet


#: File signatures worth naming when one is given where a sheet file is expected. The reader's own
#: table (``vision.load.image_kind``) is not imported here: loading ``vision`` would cost
#: ``score-map`` and ``validate``, which never read photos, five times their start-up.
_SIGNATURES = (
    (b"\xff\xd8\xff", "a JPEG photo"),
    (b"\x89PNG", "a PNG photo"),
    (b"%PDF", "a PDF"),
    (b"PK\x03\x04", "a ZIP archive"),
    (b"GIF8", "a GIF image"),
    (b"RIFF", "a WebP image"),
)


def binary_kind(raw: bytes) -> str | None:
    r"""What a file that is not text is ("a JPEG photo", "a binary file"), or None for text.

    >>> jpeg, text, binary = b"\xff\xd8\xff\xe0...", b"side A coins 0\n", b"\x00\x01\x02"
    >>> binary_kind(jpeg), binary_kind(text), binary_kind(binary)
    ('a JPEG photo', None, 'a binary file')
    """
    for signature, kind in _SIGNATURES:
        if raw.startswith(signature):
            return kind
    if raw[4:12] in (b"ftypheic", b"ftypheix", b"ftypmif1"):
        return "a HEIC photo"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "a binary file"
    return "a binary file" if "\x00" in text else None


def load_sheet(path: str | Path) -> Sheet:
    """Load a sheet from ``path``: JSON if it starts with ``{``, else the text form."""
    return load_sheet_and_written(path)[0]


def load_sheet_and_written(path: str | Path) -> tuple[Sheet, WrittenScores]:
    """A sheet file's map and the numbers written in its season boxes (a sheet JSON's
    ``seasons_written`` and ``final_total_written``; none in the text form). Bad written numbers
    raise :class:`scoring.written.WrittenError` naming the file and the field."""
    p = Path(path)
    if p.is_dir():
        raise SheetError(f"{p} is a folder, not a sheet file")
    size = p.stat().st_size
    if size > MAX_SHEET_BYTES:
        raise SheetError(f"{p} is {size} bytes; a sheet file is a few kB")
    raw = p.read_bytes()
    kind = binary_kind(raw)
    if kind:
        hint = (
            "read a photo with cartographers read or score"
            if "photo" in kind
            else "see docs/formats.md"
        )
        raise SheetError(
            f"{p} is {kind}, not a sheet file (a sheet is JSON or the text form; {hint})"
        )
    text = raw.decode("utf-8", errors="replace")
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise SheetError(
                f"{p} is not valid JSON: {e.msg} at line {e.lineno} column {e.colno}"
            ) from None
        if not isinstance(data, dict):
            raise SheetError(f"{p}: a sheet must be a JSON object with side, cells and coins")
        sheet_part, written = _split(p, data)
        try:
            return Sheet.from_json(sheet_part), written
        except SheetError as e:
            raise SheetError(f"{p}: {e}", e.field, e.cell) from None
    try:
        return Sheet.from_text(text), WrittenScores.blank()
    except SheetError as e:
        raise SheetError(f"{p}: {e}", e.field, e.cell) from None


def _split(path: Path, data: dict) -> tuple[dict, WrittenScores]:
    try:
        return split_written(data)
    except WrittenError as e:
        raise WrittenError(f"{path}: {e}") from None
