"""Batch scoring over HTTP: ``POST /v1/batch`` (several photos, or one zip) → a job id;
``GET /v1/batch/{id}`` → progress and results, as JSON or (``?format=csv``) CSV.

Each job is a folder under ``CARTOGRAPHERS_BATCH_DIR`` (default:
``~/.local/share/cartographers/batch``): ``job.json`` (the options), ``inputs/`` or ``inputs.zip``, and the
results file with its journal, written by the same runner as ``cartographers batch``
(``api/batch.py``). Jobs run one at a time on ``cpu_threads`` worker processes; a job the service
was running when it stopped is resumed when the service is next asked about batches, without
redoing finished sheets.
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

from fastapi import APIRouter, FastAPI, File, Form, Query, Request, UploadFile
from fastapi.responses import PlainTextResponse

from api import routes_games  # noqa: F401 — registers the batch error codes too
from api.batch import BatchOptions, journal_path, rank_rows, results_csv, results_json, run_batch
from api.errors import ApiError, error_responses
from api.store import data_dir
from scoring.cards import CardError
from scoring.report import parse_cards

BATCH_DIR_ENV = "CARTOGRAPHERS_BATCH_DIR"
ZIP_MAGIC = b"PK\x03\x04"
JOB_ID = re.compile(r"^[0-9a-f]{12}$")

router = APIRouter(prefix="/v1/batch", tags=["batch"])


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
        return {"status": self.status, "total": self.total, "done": self.done, "failed": self.failed,
                "sheets_per_second": round(rate, 3), "eta_seconds": None if eta is None else round(eta, 1),
                **({"error": self.error} if self.error else {})}


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
                raise ApiError("bad-batch", "send either one zip or several photos, not zips among photos", "photos")
            (folder / "inputs").mkdir()
            used: set[str] = set()
            for name, data in files:
                (folder / "inputs" / safe_name(name, used)).write_bytes(data)
            source = "inputs"
        (folder / "job.json").write_text(json.dumps({"id": job_id, "source": source, "options": options.to_json(),
                                                     "created": time.time()}))
        self.start(job_id)
        return job_id

    def start(self, job_id: str) -> None:
        with self.guard:
            if self.progress.get(job_id) and self.progress[job_id].status in ("queued", "running"):
                return
            self.progress[job_id] = JobProgress()
        threading.Thread(target=self._run, args=(job_id,), daemon=True, name=f"batch-{job_id}").start()

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
                summary = run_batch(folder / spec["source"], folder / "results.json", options, workers=self.workers,
                                    progress=False, on_row=on_row)
                progress.total, progress.done, progress.failed = summary.total, summary.total, summary.failed
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
        if results.exists() and (progress is None or progress.status in ("done", "failed")):
            rows = json.loads(results.read_text())["sheets"]
            info = progress.to_json() if progress else {"status": "done", "total": len(rows), "done": len(rows),
                                                        "failed": sum(r["status"] != "ok" for r in rows)}
            return info, rows, options
        rows = journal_rows(journal_path(results))
        info = progress.to_json() if progress else {"status": "stopped", "done": len(rows)}
        return info, rank_rows(rows), options


def journal_rows(path: Path) -> list[dict]:
    """The rows a running job has finished, read from its journal (a torn last line skipped)."""
    rows = []
    if path.exists():
        for line in path.read_bytes().splitlines()[1:]:
            try:
                rows.append(json.loads(line)["result"])
            except (json.JSONDecodeError, KeyError):
                break
    return rows


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
    """How many sheets an upload holds: the files of one zip (never unpacked here), else the uploads."""
    if len(files) == 1 and files[0][1].startswith(ZIP_MAGIC):
        try:
            with zipfile.ZipFile(io.BytesIO(files[0][1])) as z:
                return sum(not i.is_dir() for i in z.infolist())
        except (zipfile.BadZipFile, ValueError):
            raise ApiError("bad-batch", "the zip cannot be opened (damaged or not a zip)", "photos") from None
    return len(files)


def jobs_of(request: Request) -> BatchJobs:
    """The app's batch jobs, set up on first use; unfinished jobs (the service stopped) then resume."""
    state = request.app.state
    with _opening:
        if getattr(state, "batch_jobs", None) is None:
            root, workers = state.batch_config
            state.batch_jobs = BatchJobs(root, workers)
            state.batch_jobs.resume_unfinished()
    return state.batch_jobs


_opening = threading.Lock()


@router.post("", status_code=202, summary="Start scoring a pile of photos",
             responses=error_responses("invalid-request", "too-large", "bad-cards", "bad-season", "bad-batch"))
async def start(request: Request,
                photos: list[UploadFile] = File(description="several sheet photos (or sheet .json files), or one zip"),
                cards: str = Form(description="the four cards under edicts A–D, comma-separated slugs"),
                season: str | None = Form(None, description="spring, summer, fall or winter; omitted: all four"),
                side: str | None = Form(None, description="'A' or 'B' if every sheet is that side")):
    """Answers at once with the job id; poll ``GET /v1/batch/{id}``."""
    try:
        slugs = parse_cards(cards)
        if slugs == "all":
            raise CardError("a batch needs the four edict cards, not 'all'")
    except CardError as e:
        raise ApiError("bad-cards", str(e), "cards") from None
    if season and season not in ("spring", "summer", "fall", "winter"):
        raise ApiError("bad-season", f"unknown season {season!r}", "season")
    if side not in (None, "", "A", "B"):
        raise ApiError("invalid-request", f"side must be A or B, got {side!r}", "side")
    files = [(p.filename or "photo", await p.read()) for p in photos]
    files = [(n, d) for n, d in files if d]
    if not files:
        raise ApiError("bad-batch", "the request holds no non-empty files", "photos")
    limit, count = getattr(getattr(request.app.state, "settings", None), "max_batch_files", None), count_sheets(files)
    if limit and count > limit:
        raise ApiError("bad-batch", f"the batch holds {count:,} files; the limit is {limit:,}", "photos")
    options = BatchOptions(tuple(slugs), season or None, side or None)
    job_id = jobs_of(request).create(files, options)
    return {"id": job_id, "status": "queued", "total": len(files), "url": f"/v1/batch/{job_id}"}


@router.get("/{job_id}", summary="A batch job's progress and results",
            responses={**error_responses("job-not-found"),
                       200: {"content": {"application/json": {}, "text/csv": {}},
                             "description": "progress and the results so far (all once status is done)"}})
async def status(job_id: str, request: Request,
                 format: str = Query("json", pattern="^(json|csv)$", description="json or csv")):
    info, rows, options = jobs_of(request).status(job_id)
    if format == "csv":
        return PlainTextResponse(results_csv(rows), media_type="text/csv",
                                 headers={"Content-Disposition": f'attachment; filename="batch-{job_id}.csv"'})
    return {"id": job_id, **info, "results": results_json(rows, options)}


def install(app: FastAPI, root: Path | None = None, workers: int | None = None) -> None:
    """Mount the batch routes; jobs live under ``root`` (or ``CARTOGRAPHERS_BATCH_DIR``)."""
    root = root or Path(os.environ.get(BATCH_DIR_ENV) or data_dir() / "batch")
    settings = getattr(app.state, "settings", None)
    app.state.batch_jobs = None
    app.state.batch_config = (root, workers or getattr(settings, "cpu_threads", 2))
    app.include_router(router)
