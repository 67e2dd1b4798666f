"""The files of a batch: a folder or zip listed, each file read safely, sheets told from other
files, and the sheets still to score after a resume."""

from __future__ import annotations

import json
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

from api.batch_journal import JOURNAL_SUFFIX, file_digest
from api.batch_sheet import BatchError
from api.sheet_files import binary_kind
from scoring.message import msg

#: Photo files the reader takes (by name); any other
#: file that is not a sheet is skipped, not failed.
PHOTO_SUFFIXES = {".jpg", ".jpeg", ".png", ".heic", ".heif", ".webp", ".bmp", ".tif", ".tiff"}
MAX_FILE_BYTES = 60_000_000  # one photo; a zip member bigger than this is listed as an error


@dataclass(frozen=True)
class InputFile:
    """One sheet to score: its name in the batch and where its bytes are."""

    name: str  # path relative to the folder, or the zip member name
    path: Path  # the file, or the zip archive
    member: str | None = None  # the zip member, when ``path`` is a zip

    def read(self) -> bytes:
        """The file's bytes (from the zip when it is a member)."""
        if self.member is None:
            return self.path.read_bytes()
        if unsafe_member(self.member):
            raise BatchError(
                f"{self.member!r} names a place outside the batch (absolute or with '..'); refused"
            )
        with zipfile.ZipFile(self.path) as z:
            info = z.getinfo(self.member)
            if info.file_size > MAX_FILE_BYTES:
                raise BatchError(
                    f"{self.member} is {info.file_size:,} bytes unpacked; the limit is "
                    f"{MAX_FILE_BYTES:,}"
                )
            return z.read(self.member)


def unsafe_member(name: str) -> bool:
    """A zip member name that would escape a folder if
    extracted: absolute, a drive, or a ``..`` part."""
    parts = re.split(r"[\\/]", name)
    return name.startswith(("/", "\\")) or ".." in parts or bool(re.match(r"^[A-Za-z]:", name))


def list_inputs(source: str | Path, exclude: tuple[Path, ...] = ()) -> list[InputFile]:
    """Every non-hidden file of a folder (recursively) or a zip, sorted by name."""
    src = Path(source)
    if not src.exists():
        raise BatchError(f"{src} does not exist")
    hidden = lambda name: any(part.startswith((".", "__MACOSX")) for part in Path(name).parts)  # noqa: E731
    if src.is_dir():
        skip = {p.resolve() for p in exclude}
        files = [
            p
            for p in src.rglob("*")
            if p.is_file()
            and not hidden(str(p.relative_to(src)))
            and p.resolve() not in skip
            and not p.name.endswith(JOURNAL_SUFFIX)
        ]
        items = [InputFile(str(p.relative_to(src)), p) for p in files]
    elif zipfile.is_zipfile(src):
        with zipfile.ZipFile(src) as z:
            items = [
                InputFile(i.filename, src, i.filename)
                for i in z.infolist()  # unsafe names: error rows
                if not i.is_dir() and (unsafe_member(i.filename) or not hidden(i.filename))
            ]
    else:
        raise BatchError(f"{src} is neither a folder nor a zip file")
    return sorted(items, key=lambda i: i.name)


def skip_reason(name: str, data: bytes) -> str | None:
    """Why a file of the batch is not a sheet to score (a note, a truth file, a spreadsheet), or
    None. A file that looks meant as a sheet but is broken is scored, and fails with its reason.

    >>> skip_reason("notes.md", b"# table 3"), skip_reason("a.jpg", b"...")
    ('not a photo or a sheet file', None)
    >>> torn = b'{"side": "A", "cel'
    >>> skip_reason("a.truth.json", b'{"sheet": {}}'), skip_reason("torn.json", torn)
    ('JSON without "cells": not a sheet', None)
    """
    suffix = Path(name).suffix.lower()
    kind = binary_kind(data)
    if suffix in PHOTO_SUFFIXES or (kind or "").endswith(("photo", "image")):
        return None
    text = data[:200_000].decode("utf-8", errors="replace").lstrip()
    if text.lower().startswith("side"):
        return None  # the text form
    if not text.startswith("{"):
        return (
            msg("not a photo or a sheet file")
            if suffix != ".txt"
            else msg("text that is not a sheet (a sheet's text starts 'side')")
        )
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError:
        return None  # meant as a sheet, broken: fails with the parser's reason
    return (
        None
        if isinstance(parsed, dict) and "cells" in parsed
        else msg('JSON without "cells": not a sheet')
    )


def load_todo(
    items: list[InputFile], done: dict[str, dict], skipped: list[dict] | None = None
) -> tuple[list[tuple[InputFile, str]], list[dict]]:
    """Split inputs into sheets still to score (with their digest) and finished rows to keep; files
    that are not sheets go to ``skipped`` (file and reason)."""
    todo, kept = [], []
    for item in items:
        try:
            data = item.read()
        except (OSError, BatchError, zipfile.BadZipFile) as e:
            kept.append(
                {
                    "file": item.name,
                    "status": "error",
                    "error_code": "unreadable-file",
                    "error": str(e),
                }
            )
            continue
        reason = skip_reason(item.name, data)
        if reason:
            if skipped is not None:
                skipped.append({"file": item.name, "reason": reason})
            continue
        digest = file_digest(data)
        entry = done.get(item.name)
        if entry is not None and entry.get("sha256") == digest:
            kept.append(entry["result"])
        else:
            todo.append((item, digest))
    return todo, kept
