"""The batch's journal: each finished sheet appended at once (one JSON line, flushed and fsynced)
beside the results file, so a rerun after a crash skips every sheet already done.

A row's warnings, reasons and checks are kept as their messages (``scoring.message.to_data``), not
only their English, so a resumed batch and a service answering later still say them in the
player's language."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from api.batch_sheet import BatchError, BatchOptions
from scoring.message import from_data, to_data

JOURNAL_SUFFIX = ".journal.jsonl"
JOURNAL_KIND = "cartographers-batch"
JOURNAL_VERSION = 1


def journal_path(out: Path) -> Path:
    return out.with_name(out.name + JOURNAL_SUFFIX)


def file_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_journal(path: Path, options: BatchOptions) -> dict[str, dict]:
    """Finished entries by file name; a torn last line (the crash) is dropped and cut off."""
    if not path.exists():
        return {}
    done: dict[str, dict] = {}
    good_bytes = 0
    with path.open("rb") as f:
        for n, line in enumerate(f):
            try:
                entry = from_data(json.loads(line))
            except json.JSONDecodeError:
                break  # a line torn by the crash: everything after it is redone
            if not line.endswith(b"\n"):
                break
            if n == 0:
                if entry.get("journal") != JOURNAL_KIND:
                    raise BatchError(
                        f"{path} is not a batch journal; delete it or choose another --out"
                    )
                if entry.get("options") != options.to_json():
                    raise BatchError(
                        f"{path} was made with other options ({entry.get('options')}); "
                        "use the same --cards/--season/--side, another --out, or --fresh"
                    )
            else:
                done[entry["file"]] = entry
            good_bytes += len(line)
    if good_bytes < path.stat().st_size:
        with path.open("r+b") as f:
            f.truncate(good_bytes)
    return done


class Journal:
    """Append-only JSON lines, each one flushed to disk before the next sheet is counted done."""

    def __init__(self, path: Path, options: BatchOptions):
        new = not path.exists() or path.stat().st_size == 0
        self.file = path.open("ab")
        if new:
            self._write(
                {"journal": JOURNAL_KIND, "version": JOURNAL_VERSION, "options": options.to_json()}
            )

    def _write(self, entry: dict) -> None:
        self.file.write(json.dumps(entry, separators=(",", ":")).encode() + b"\n")
        self.file.flush()
        os.fsync(self.file.fileno())

    def add(self, digest: str, result: dict) -> None:
        self._write({"file": result["file"], "sha256": digest, "result": to_data(result)})

    def close(self) -> None:
        self.file.close()
