"""Batch scoring: a folder or zip of sheet photos → one results file with a ranking.

How it works, in the order things happen:

1. :func:`list_inputs` (``api/batch_inputs.py``) names every file of the folder or zip (hidden
   files and our own results files left out). Photos are read by ``vision.read_photo``;
   ``.json`` / ``.txt`` files are corrected sheets (``docs/formats.md`` sheet JSON or the compact
   text form) and skip the reader. Any other file (a note, a truth file without ``cells``) is
   skipped and listed, not failed (:func:`skip_reason`).
2. Every finished sheet is appended at once to a **journal** beside the results file
   (``results.csv.journal.jsonl``, ``api/batch_journal.py``), one JSON line per sheet, flushed and
   fsynced. A rerun after a crash or ``kill -9`` reads the journal and skips every sheet already
   there whose bytes have not changed (same SHA-256), so nothing finished is redone.
3. :func:`score_file` (``api/batch_sheet.py``) — one sheet, a pure function of (name, bytes,
   options) — runs on a pool: a local process pool (``--workers N``) or, through the very same
   ``concurrent.futures`` code path, a Dask cluster's executor (``--scheduler tcp://host:port``,
   the optional ``dask`` extra). A bad photo never stops the batch: it becomes a row with
   ``status = error`` and the reason.
4. When every sheet is in the journal, the results file (CSV or JSON, by its extension;
   ``api/batch_results.py``) is written atomically: rows sorted by file name, each with its place
   in the ranking (total, then fewer stars lost to monsters, still tied = shared place;
   ``scoring.seasons.rank_players``).

A progress bar on standard error shows sheets done, sheets/s and the ETA. This module is the
runner; its ``__all__`` also names the parts the service and the command line use.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from pathlib import Path

from api.batch_inputs import MAX_FILE_BYTES, InputFile, list_inputs, load_todo, skip_reason
from api.batch_journal import Journal, journal_path, read_journal
from api.batch_results import output_format, rank_rows, results_csv, results_json, write_results
from api.batch_sheet import BatchError, BatchOptions, ScoreFn, read_sheet_file, score_file
from api.i18n import _p

__all__ = [
    "MAX_FILE_BYTES",
    "BatchError",
    "BatchOptions",
    "BatchSummary",
    "journal_path",
    "list_inputs",
    "make_executor",
    "rank_rows",
    "read_journal",
    "read_sheet_file",
    "results_csv",
    "results_json",
    "run_batch",
    "run_pool",
    "score_file",
    "skip_reason",
]

#: Per-worker thread caps, so N worker processes use N cores rather than N × all cores.
SINGLE_THREAD_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def _worker_setup() -> None:
    """Run once in each worker process: one compute thread per process."""
    os.environ.update(SINGLE_THREAD_ENV)
    import cv2  # the reader's OpenCV: keep it to the one core this worker stands for

    cv2.setNumThreads(1)


@dataclass
class BatchSummary:
    """What a run did: counts, time and throughput of the sheets scored in this run."""

    total: int  # sheets: photos and sheet files (skipped files not counted)
    resumed: int  # found finished in the journal
    scored: int  # scored in this run
    failed: int  # rows with status = error (this run and resumed)
    seconds: float
    out: str
    rows: list[dict] = field(default_factory=list, repr=False)
    skipped_files: list[dict] = field(
        default_factory=list
    )  # file and reason: not a photo or a sheet

    @property
    def sheets_per_second(self) -> float:
        return self.scored / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict:
        d = {k: v for k, v in asdict(self).items() if k not in ("rows", "skipped_files")}
        d["skipped"] = len(self.skipped_files)
        d["sheets_per_second"] = round(self.sheets_per_second, 3)
        return d


def _forkserver() -> multiprocessing.context.BaseContext:
    """Workers forked from a clean single-threaded server, not from this process (forking a
    process whose OpenCV/BLAS threads hold locks can hang the child); the server imports the
    heavy modules once, so every pool after the first starts in a blink."""
    os.environ.update(
        SINGLE_THREAD_ENV
    )  # before the server starts: its BLAS/OpenMP then use one thread,
    # as Dask's workers do, so the reader's arithmetic
    # (and so its readings) is the same on both paths
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["api.batch", "scoring.validate", "vision"])
    return ctx


def make_executor(workers: int, scheduler: str | None) -> tuple[cf.Executor, Callable[[], None]]:
    """A local process pool, or a Dask cluster's ``concurrent.futures`` executor; and its closer."""
    if scheduler:
        try:
            from distributed import Client
        except ImportError:
            raise BatchError("--scheduler needs Dask: pip install 'cartographers[dask]'") from None
        client = Client(scheduler, timeout="20s")
        client.run(_worker_setup)
        executor = client.get_executor(pure=False)

        def close() -> None:
            executor.shutdown(wait=True)
            client.close()

        return executor, close
    pool = cf.ProcessPoolExecutor(
        max_workers=workers, initializer=_worker_setup, mp_context=_forkserver()
    )
    return pool, lambda: pool.shutdown(wait=True, cancel_futures=True)


def run_pool(
    executor: cf.Executor,
    todo: list[tuple[InputFile, str]],
    options: BatchOptions,
    window: int,
    score: ScoreFn,
) -> Iterator[tuple[str, dict]]:
    """Score ``todo`` on the executor, at most ``window`` in flight; yield ``(digest, row)`` as
    done.

    Bytes are read just before a sheet is sent, so memory holds ``window`` photos, not the batch.
    """
    try:
        yield from _run_pool(executor, todo, options, window, score)
    except BrokenProcessPool:
        raise BatchError(
            "a worker process died (out of memory?); finished sheets are saved: "
            "rerun the same command to resume"
        ) from None


def _run_pool(
    executor: cf.Executor,
    todo: list[tuple[InputFile, str]],
    options: BatchOptions,
    window: int,
    score: ScoreFn,
) -> Iterator[tuple[str, dict]]:
    pending: dict[cf.Future, tuple[InputFile, str]] = {}
    queue = iter(todo)
    while True:
        for item, digest in queue:
            pending[executor.submit(score, item.name, item.read(), options)] = (item, digest)
            if len(pending) >= window:
                break
        if not pending:
            return
        finished, _ = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
        for fut in finished:
            item, digest = pending.pop(fut)
            error = fut.exception()
            if isinstance(error, BrokenProcessPool):
                raise error
            row = (
                fut.result()
                if error is None
                else {
                    "file": item.name,
                    "status": "error",
                    "error_code": "worker-failed",
                    "error": f"{type(error).__name__}: {error}",
                }
            )  # the task failed outside score_file
            yield digest, row


def run_batch(
    source: str | Path,
    out: str | Path,
    options: BatchOptions,
    *,
    workers: int = 2,
    scheduler: str | None = None,
    progress: bool = True,
    fresh: bool = False,
    on_row: Callable[[dict, int, int], None] | None = None,
    score: ScoreFn | None = None,
) -> BatchSummary:
    """Score every sheet of ``source`` into ``out`` (``.csv`` or ``.json``), resuming from the
    journal.

    ``on_row(row, done, total)`` is called after each sheet is safely in the journal. ``score`` is
    the per-sheet function (default :func:`score_file`); it must be importable by name, as the
    workers are other processes.
    """
    out = Path(out)
    fmt = output_format(out)
    if workers < 1:
        raise BatchError(f"--workers must be at least 1, got {workers}")
    items = list_inputs(source, exclude=(out, journal_path(out)))
    jpath = journal_path(out)
    if fresh and jpath.exists():
        jpath.unlink()
    done = read_journal(jpath, options)
    started = time.perf_counter()
    skipped: list[dict] = []
    todo, rows = load_todo(items, done, skipped)
    resumed = len(rows)
    sheets = len(items) - len(skipped)
    bar = _progress_bar(sheets, resumed, progress)
    journal = Journal(jpath, options)
    try:
        if todo:
            executor, close = make_executor(workers, scheduler)
            try:
                for digest, row in run_pool(
                    executor, todo, options, 2 * workers + 2, score or score_file
                ):
                    journal.add(digest, row)
                    rows.append(row)
                    bar.update(1)
                    if on_row:
                        on_row(row, len(rows), sheets)
            finally:
                close()
    finally:
        journal.close()
        bar.close()
    rows = rank_rows(rows)
    write_results(out, rows, options, fmt, skipped)
    failed = sum(1 for r in rows if r["status"] != "ok")
    return BatchSummary(
        sheets, resumed, len(todo), failed, time.perf_counter() - started, str(out), rows, skipped
    )


def _progress_bar(total: int, initial: int, enabled: bool):
    """tqdm's bar on standard error: done/total, sheets/s, ETA (its words in the language in
    force)."""
    from tqdm import tqdm

    return tqdm(
        total=total,
        initial=initial,
        unit=_p("progress", "sheet"),
        desc=_p("progress", "batch"),
        disable=not enabled,
        dynamic_ncols=True,
        smoothing=0.1,
    )
