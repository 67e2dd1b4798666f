"""Batch jobs of the HTTP service, free of HTTP: each job is a folder under the batch root
(``CARTOGRAPHERS_BATCH_DIR``, default ``~/.local/share/cartographers/batch``) holding ``job.json``
(the options), ``inputs/`` or ``inputs.zip``, and the results file with its journal, written by the
same runner as ``cartographers batch`` (``api/batch.py``). One thread works through the jobs in
order, each on ``cpu_threads`` worker processes. The routes are in ``api/routes_batch.py``.
"""

from __future__ import annotations

import io
import json
import os
import re
import threading
import time
import uuid
import zipfile
from dataclasses import dataclass
from pathlib import Path

from api.batch import BatchOptions, journal_path, rank_rows, run_batch
from api.errors import ApiError
from api.store import data_dir
from scoring.message import from_data

BATCH_DIR_ENV = "CARTOGRAPHERS_BATCH_DIR"
ZIP_MAGIC = b"PK\x03\x04"
JOB_ID = re.compile(r"^[0-9a-f]{12}$")


def batch_root() -> Path:
    """Where the job folders live: ``CARTOGRAPHERS_BATCH_DIR``,
    else ``batch`` in the data folder."""
    return Path(os.environ.get(BATCH_DIR_ENV) or data_dir() / "batch")


@dataclass
class JobProgress:
    """What a running job has done so far (kept in memory; the journal on disk is the record)."""

    total: int = 0
    done: int = 0
    failed: int = 0
    started: float = 0.0
    status: str = "queued"  # queued, running, done, failed
    error: str = ""

    def to_json(self) -> dict:
        elapsed = time.monotonic() - self.started if self.started else 0.0
        rate = self.done / elapsed if elapsed > 0 and self.done else 0.0
        eta = (self.total - self.done) / rate if rate else None
        return {
            "status": self.status,
            "total": self.total,
            "done": self.done,
            "failed": self.failed,
            "sheets_per_second": round(rate, 3),
            "eta_seconds": None if eta is None else round(eta, 1),
            **({"error": self.error} if self.error else {}),
        }


class BatchJobs:
    """The job folders and the one thread that works through them in order."""

    def __init__(self, root: Path, workers: int):
        self.root, self.workers = root, workers
        self.root.mkdir(parents=True, exist_ok=True)
        self.progress: dict[str, JobProgress] = {}
        self.turn = threading.Lock()  # one job at a time: each already uses every worker
        self.guard = threading.Lock()

    def folder(self, job_id: str) -> Path:
        if not JOB_ID.match(job_id) or not (self.root / job_id / "job.json").exists():
            raise ApiError("job-not-found", f"no batch job {job_id!r}")
        return self.root / job_id

    def create(self, files: list[tuple[str, bytes]], options: BatchOptions) -> str:
        """Save the uploads as a new job folder and start it."""
        job_id = uuid.uuid4().hex[:12]
        folder = self.root / job_id
        folder.mkdir()
        if len(files) == 1 and files[0][1].startswith(ZIP_MAGIC):
            (folder / "inputs.zip").write_bytes(files[0][1])
            source = "inputs.zip"
        else:
            if any(data.startswith(ZIP_MAGIC) for _, data in files):
                raise ApiError(
                    "bad-batch",
                    "send either one zip or several photos, not zips among photos",
                    "photos",
                )
            (folder / "inputs").mkdir()
            used: set[str] = set()
            for name, data in files:
                (folder / "inputs" / safe_name(name, used)).write_bytes(data)
            source = "inputs"
        (folder / "job.json").write_text(
            json.dumps(
                {
                    "id": job_id,
                    "source": source,
                    "options": options.to_json(),
                    "created": time.time(),
                }
            )
        )
        self.start(job_id)
        return job_id

    def start(self, job_id: str) -> None:
        with self.guard:
            if self.progress.get(job_id) and self.progress[job_id].status in ("queued", "running"):
                return
            self.progress[job_id] = JobProgress()
        threading.Thread(
            target=self._run, args=(job_id,), daemon=True, name=f"batch-{job_id}"
        ).start()

    def _run(self, job_id: str) -> None:
        folder = self.root / job_id
        spec = json.loads((folder / "job.json").read_text())
        opts = spec["options"]
        options = BatchOptions(tuple(opts["cards"]), opts["season"], opts["side"])
        progress = self.progress[job_id]

        def on_row(row: dict, done: int, total: int) -> None:
            progress.done, progress.total = done, total
            progress.failed += row["status"] != "ok"

        with self.turn:
            progress.status, progress.started = "running", time.monotonic()
            try:
                summary = run_batch(
                    folder / spec["source"],
                    folder / "results.json",
                    options,
                    workers=self.workers,
                    progress=False,
                    on_row=on_row,
                )
                progress.total, progress.done, progress.failed = (
                    summary.total,
                    summary.total,
                    summary.failed,
                )
                progress.status = "done"
            except Exception as e:  # noqa: BLE001 — reported in the job's status
                progress.status, progress.error = "failed", f"{type(e).__name__}: {e}"

    def resume_unfinished(self) -> None:
        """Start again every job that has no results yet (the service stopped while it ran)."""
        for folder in sorted(self.root.iterdir()):
            if (folder / "job.json").exists() and not (folder / "results.json").exists():
                self.start(folder.name)

    def status(self, job_id: str) -> tuple[dict, list[dict], BatchOptions]:
        """Progress, the rows so far (all of them once done) and the job's options."""
        folder = self.folder(job_id)
        opts = json.loads((folder / "job.json").read_text())["options"]
        options = BatchOptions(tuple(opts["cards"]), opts["season"], opts["side"])
        results = folder / "results.json"
        if job_id not in self.progress and not results.exists():
            self.start(job_id)  # the service stopped while it ran: resume it
        progress = self.progress.get(job_id)
        journal = journal_path(results)
        if results.exists() and (progress is None or progress.status in ("done", "failed")):
            # each sheet's row as the journal keeps it (its messages, to be said in the asker's
            # language); a file refused before scoring is only in the results
            journaled = {r["file"]: r for r in journal_rows(journal)}
            stored = json.loads(results.read_text())["sheets"]
            rows = rank_rows([journaled.get(r["file"], r) for r in stored])
            info = (
                progress.to_json()
                if progress
                else {
                    "status": "done",
                    "total": len(rows),
                    "done": len(rows),
                    "failed": sum(r["status"] != "ok" for r in rows),
                }
            )
            return info, rows, options
        rows = journal_rows(journal)
        info = progress.to_json() if progress else {"status": "stopped", "done": len(rows)}
        return info, rank_rows(rows), options


def journal_rows(path: Path) -> list[dict]:
    """The rows a job has finished, read from its journal (a torn last line skipped; a file
    scored twice counts once, its last row)."""
    rows: dict[str, dict] = {}
    if path.exists():
        for line in path.read_bytes().splitlines()[1:]:
            try:
                row = from_data(json.loads(line)["result"])
            except (json.JSONDecodeError, KeyError):
                break
            rows[row["file"]] = row
    return list(rows.values())


def safe_name(name: str | None, used: set[str]) -> str:
    """An uploaded file's name without folders or odd characters; ``-2``, ``-3``… when taken."""
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(name or "photo").name).lstrip(".") or "photo"
    stem, suffix = Path(base).stem, Path(base).suffix
    out, k = base, 1
    while out in used:
        k += 1
        out = f"{stem}-{k}{suffix}"
    used.add(out)
    return out


def count_sheets(files: list[tuple[str, bytes]]) -> int:
    """How many sheets an upload holds: the files of one
    zip (never unpacked here), else the uploads."""
    if len(files) == 1 and files[0][1].startswith(ZIP_MAGIC):
        try:
            with zipfile.ZipFile(io.BytesIO(files[0][1])) as z:
                return sum(not i.is_dir() for i in z.infolist())
        except (zipfile.BadZipFile, ValueError):
            raise ApiError(
                "bad-batch", "the zip cannot be opened (damaged or not a zip)", "photos"
            ) from None
    return len(files)
