"""Batch scoring over HTTP: ``POST /v1/batch`` (several photos, or one zip) → a job id;
``GET /v1/batch/{id}`` → progress and results, as JSON or (``?format=csv``) CSV.

The jobs themselves (folders under ``CARTOGRAPHERS_BATCH_DIR``, run one at a time on ``cpu_threads``
worker processes, resumed after a restart without redoing finished sheets) are in
``api/batch_jobs.py``; the app's :class:`~api.batch_jobs.BatchJobs` comes from
:func:`api.dependencies.get_batch_jobs`.
"""

from __future__ import annotations

from fastapi import APIRouter, File, Form, Query, Request, Response, UploadFile
from fastapi.responses import PlainTextResponse

from api.batch import BatchOptions, results_csv, results_json
from api.batch_jobs import count_sheets
from api.dependencies import BatchJobsDep, SettingsDep
from api.errors import ApiError, error_responses
from api.messages import answer_in
from api.words import parse_cards_any as parse_cards
from scoring.cards import CardError

router = APIRouter(prefix="/v1/batch", tags=["batch"])


@router.post(
    "",
    status_code=202,
    summary="Start scoring a pile of photos",
    responses=error_responses(
        "invalid-request", "too-large", "bad-cards", "bad-season", "bad-batch"
    ),
)
async def start(
    settings: SettingsDep,
    jobs: BatchJobsDep,
    photos: list[UploadFile] = File(
        description="several sheet photos (or sheet .json files), or one zip"
    ),
    cards: str = Form(description="the four cards under edicts A–D, comma-separated slugs"),
    season: str | None = Form(
        None, description="spring, summer, fall or winter; omitted: all four"
    ),
    side: str | None = Form(None, description="'A' or 'B' if every sheet is that side"),
):
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
    limit, count = settings.max_batch_files, count_sheets(files)
    if count > limit:
        raise ApiError(
            "bad-batch", f"the batch holds {count:,} files; the limit is {limit:,}", "photos"
        )
    options = BatchOptions(tuple(slugs), season or None, side or None)
    job_id = jobs.create(files, options)
    return {"id": job_id, "status": "queued", "total": len(files), "url": f"/v1/batch/{job_id}"}


@router.get(
    "/{job_id}",
    summary="A batch job's progress and results",
    responses={
        **error_responses("job-not-found"),
        200: {
            "content": {"application/json": {}, "text/csv": {}},
            "description": "progress and the results so far (all once status is done)",
        },
    },
)
async def status(
    job_id: str,
    jobs: BatchJobsDep,
    request: Request,
    response: Response,
    format: str = Query("json", pattern="^(json|csv)$", description="json or csv"),
):
    """Warnings, reasons and checks are in the language of ``Accept-Language`` (the CSV's column
    names stay the same in every language)."""
    info, rows, options = jobs.status(job_id)
    rows = answer_in(request, response, rows)
    if format == "csv":
        return PlainTextResponse(
            results_csv(rows),
            media_type="text/csv",
            headers={
                "Content-Disposition": f'attachment; filename="batch-{job_id}.csv"',
                "Content-Language": response.headers["Content-Language"],
            },
        )
    return {"id": job_id, **info, "results": results_json(rows, options)}
