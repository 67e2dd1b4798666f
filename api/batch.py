"""Batch scoring: a folder or zip of sheet photos → one results file with a ranking.

How it works, in the order things happen:

1. :func:`list_inputs` names every file of the folder or zip (hidden files and our own results
   files left out). Photos are read by ``vision.read_photo``; ``.json`` / ``.txt`` files are
   corrected sheets (``docs/formats.md`` sheet JSON or the compact text form) and skip the reader.
   Any other file (a note, a truth file without ``cells``) is skipped and listed, not failed
   (:func:`skip_reason`).
2. Every finished sheet is appended at once to a **journal** beside the results file
   (``results.csv.journal.jsonl``), one JSON line per sheet, flushed and fsynced. A rerun after a
   crash or ``kill -9`` reads the journal and skips every sheet already there whose bytes have not
   changed (same SHA-256), so nothing finished is redone.
3. :func:`score_file` — one sheet, a pure function of (name, bytes, options) — runs on a pool:
   a local process pool (``--workers N``) or, through the very same ``concurrent.futures`` code
   path, a Dask cluster's executor (``--scheduler tcp://host:port``, the optional ``dask`` extra).
   A bad photo never stops the batch: it becomes a row with ``status = error`` and the reason.
4. When every sheet is in the journal, the results file (CSV or JSON, by its extension) is written
   atomically: rows sorted by file name, each with its place in the ranking (total, then fewer stars
   lost to monsters, still tied = shared place; ``scoring.seasons.rank_players``).

A progress bar on standard error shows sheets done, sheets/s and the ETA.
"""

from __future__ import annotations

import concurrent.futures as cf
import csv
import hashlib
import io
import json
import multiprocessing
import os
import re
import time
import zipfile
from collections.abc import Callable, Iterator
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from pathlib import Path

from api.sheet_files import binary_kind
from scoring.report import score_report
from scoring.seasons import SEASON_BY_NAME, check_setup, rank_players
from scoring.sheet import Sheet, SheetError
from scoring.sides import cell_name

JOURNAL_SUFFIX = ".journal.jsonl"
JOURNAL_KIND = "cartographers-batch"
JOURNAL_VERSION = 1
SHEET_SUFFIXES = {".json", ".txt"}  # corrected sheets: no photo reading
#: Photo files the reader takes (by name); any other
#: file that is not a sheet is skipped, not failed.
PHOTO_SUFFIXES = {".jpg", ".jpeg", ".png", ".heic", ".heif", ".webp", ".bmp", ".tif", ".tiff"}
MAX_FILE_BYTES = 60_000_000  # one photo; a zip member bigger than this is listed as an error
#: Per-worker thread caps, so N worker processes use N cores rather than N × all cores.
SINGLE_THREAD_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


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


# ---- one sheet -----------------------------------------------------------------------------------
def _worker_setup() -> None:
    """Run once in each worker process: one compute thread per process."""
    os.environ.update(SINGLE_THREAD_ENV)
    try:
        import cv2  # the reader's OpenCV: keep it to the one core this worker stands for

        cv2.setNumThreads(1)
    except ImportError:
        pass


def looks_like_sheet_text(data: bytes) -> bool:
    """Whether a file's bytes start as a sheet does: JSON (``{``) or the text form (``side …``).

    >>> [looks_like_sheet_text(b) for b in (b'  {"side": "A"}', b"Side B coins 3", b"# notes")]
    [True, True, False]
    """
    start = data.lstrip()[:4]
    return start[:1] == b"{" or start.lower() == b"side"


def read_sheet_file(name: str, data: bytes, side: str | None) -> tuple[Sheet, list[str], list[str]]:
    """The sheet in a file, its low-confidence cells and the reader's warnings."""
    if Path(name).suffix.lower() in SHEET_SUFFIXES or looks_like_sheet_text(data):
        text = data.decode("utf-8", errors="replace")
        sheet = (
            Sheet.from_json(json.loads(text))
            if text.lstrip().startswith("{")
            else Sheet.from_text(text)
        )
        return sheet, [], list(sheet.warnings)
    from vision import read_photo  # imported in the worker: the parent never needs OpenCV

    reading = read_photo(data, side=side)
    info = reading.to_json()
    low = [
        c if isinstance(c, str) else cell_name(tuple(c))
        for c in info.get("low_confidence_cells", [])
    ]
    return reading.sheet, low, list(info.get("warnings", []))


def _legality(sheet: Sheet, time_limit: float) -> tuple[str, list[str]]:
    """The sheet-only legality verdict and its reasons, or ``unchecked`` without a validator."""
    try:
        from scoring.validate import validate
    except ImportError:
        return "unchecked", ["this build has no legality validator"]
    verdict = validate(sheet, time_limit=time_limit)
    return verdict.status, [r.message for r in verdict.reasons]


def score_file(name: str, data: bytes, options: BatchOptions) -> dict:
    """One sheet's result row; a failure becomes ``status = error`` with its code and reason."""
    started = time.perf_counter()
    try:
        sheet, low, warnings = read_sheet_file(name, data, options.side)
        if options.side and sheet.side != options.side:
            raise WrongSide(f"the sheet is side {sheet.side}, the batch is side {options.side}")
        report = score_report(sheet, list(options.cards), options.season)
        legality, reasons = _legality(sheet, options.validate_time_limit)
    except Exception as e:  # noqa: BLE001 — a bad photo must never stop the batch
        code = getattr(e, "code", None) or (
            "bad-sheet" if isinstance(e, (SheetError, json.JSONDecodeError)) else type(e).__name__
        )
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
        "seconds": round(time.perf_counter() - started, 3),
    }


ScoreFn = Callable[[str, bytes, BatchOptions], dict]


# ---- the journal: results as they come, so a killed batch resumes ------------------------------
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
                entry = json.loads(line)
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
        self._write({"file": result["file"], "sha256": digest, "result": result})

    def close(self) -> None:
        self.file.close()


# ---- running many --------------------------------------------------------------------------------
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
            "not a photo or a sheet file"
            if suffix != ".txt"
            else "text that is not a sheet (a sheet's text starts 'side')"
        )
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError:
        return None  # meant as a sheet, broken: fails with the parser's reason
    return (
        None
        if isinstance(parsed, dict) and "cells" in parsed
        else 'JSON without "cells": not a sheet'
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
    rows: list[dict] = []
    todo: list[tuple[InputFile, str]] = []
    skipped: list[dict] = []
    if items:
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
    """tqdm's bar on standard error: done/total, sheets/s, ETA."""
    from tqdm import tqdm

    return tqdm(
        total=total,
        initial=initial,
        unit="sheet",
        desc="batch",
        disable=not enabled,
        dynamic_ncols=True,
        smoothing=0.1,
    )


# ---- the results file ----------------------------------------------------------------------------
def rank_rows(rows: list[dict]) -> list[dict]:
    """Rows sorted by file name, each readable sheet given its ``place`` (ties share a place)."""
    rows = sorted(rows, key=lambda r: r["file"])
    ok = {
        r["file"]: _Total(r["total"], r["monster_stars_lost"]) for r in rows if r["status"] == "ok"
    }
    places = {s.player: s.place for s in rank_players(ok)}  # type: ignore[arg-type]
    for r in rows:
        r["place"] = places.get(r["file"])
    return rows


@dataclass(frozen=True)
class _Total:
    total: int
    monster_stars_lost: int


def output_format(out: Path) -> str:
    fmt = out.suffix.lower().lstrip(".")
    if fmt not in ("csv", "json"):
        raise BatchError(f"--out must end in .csv or .json, got {out.name!r}")
    return fmt


def ranking(rows: list[dict]) -> list[dict]:
    """The readable sheets from first place down."""
    ok = [r for r in rows if r["status"] == "ok"]
    return [
        {
            "place": r["place"],
            "file": r["file"],
            "total": r["total"],
            "monster_stars_lost": r["monster_stars_lost"],
        }
        for r in sorted(ok, key=lambda r: (r["place"], r["file"]))
    ]


def results_json(
    rows: list[dict], options: BatchOptions, skipped: list[dict] | None = None
) -> dict:
    """The JSON results: every sheet, the ranking, the sheets that could not be scored and the
    files that were not sheets."""
    clean = [{k: v for k, v in r.items() if k != "seconds"} for r in rows]
    return {
        "options": options.to_json(),
        "sheets": clean,
        "ranking": ranking(rows),
        "failed": [
            {"file": r["file"], "error_code": r["error_code"], "error": r["error"]}
            for r in rows
            if r["status"] != "ok"
        ],
        "skipped": list(skipped or []),
    }


CSV_COLUMNS = [
    "file",
    "status",
    "place",
    "total",
    "side",
    "coins",
    "edict_A",
    "edict_B",
    "edict_C",
    "edict_D",
    "spring",
    "summer",
    "fall",
    "winter",
    "monster_stars_lost",
    "legality",
    "legality_reasons",
    "low_confidence_cells",
    "cells",
    "error_code",
    "error",
    "warnings",
]


def csv_row(r: dict) -> dict:
    """One sheet as a flat CSV row: stars per edict, total per season, cells as the text form."""
    if r["status"] != "ok":
        return {
            "file": r["file"],
            "status": r["status"],
            "error_code": r.get("error_code", ""),
            "error": r.get("error", ""),
        }
    row = {
        k: r[k]
        for k in (
            "file",
            "status",
            "place",
            "total",
            "side",
            "coins",
            "monster_stars_lost",
            "legality",
        )
    }
    for edict, slug in r["edicts"].items():
        row[f"edict_{edict}"] = f"{slug}={r['cards'][slug]}"
    for s in r["seasons"]:
        row[s["season"]] = s["total"]
    row["legality_reasons"] = " | ".join(r["legality_reasons"])
    row["low_confidence_cells"] = " ".join(r["low_confidence_cells"])
    row["cells"] = "/".join(
        Sheet.from_json({"side": r["side"], "cells": r["cells"], "coins": r["coins"]})
        .to_text()
        .replace(" ", "")
        .splitlines()[1:]
    )
    row["warnings"] = " | ".join(r["warnings"])
    return row


def results_csv(rows: list[dict]) -> str:
    """The CSV results: a header, then one row per sheet sorted by file name."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=CSV_COLUMNS, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow(csv_row(r))
    return buf.getvalue()


def write_results(
    out: Path, rows: list[dict], options: BatchOptions, fmt: str, skipped: list[dict] | None = None
) -> None:
    """Write the results file atomically (a temporary file renamed over it)."""
    text = (
        results_csv(rows)
        if fmt == "csv"
        else json.dumps(results_json(rows, options, skipped), indent=1) + "\n"
    )
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, out)
