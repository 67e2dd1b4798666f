"""The photo routes: ``POST /v1/read`` (a photo → the reading) and ``POST /v1/score`` (a photo →
reading, score and legality). The upload is checked here, on the event loop; the reading runs in a
worker thread under the time limit (:class:`api.dependencies.CpuWork`).
"""

from __future__ import annotations

from fastapi import APIRouter, File, Form, Request, Response, UploadFile

from api import schemas, work
from api.dependencies import CpuDep, SettingsDep
from api.errors import error_responses
from api.messages import answer_in

router = APIRouter(prefix="/v1", tags=["photo"])


@router.post(
    "/read",
    response_model=schemas.Reading,
    summary="Read a photo of a map sheet",
    responses=error_responses(*work.PHOTO_ERRORS),
)
async def read(
    request: Request,
    response: Response,
    settings: SettingsDep,
    cpu: CpuDep,
    photo: UploadFile = File(description="a photo of one map sheet (JPEG, PNG, WebP)"),
    side: str | None = Form(None, description="'A' or 'B' if known; read from the photo otherwise"),
):
    """The reading: side, cells, coins, confidences,
    warnings and each cell's outline in photo pixels; the numbers written in the season boxes
    and the checks that need no cards. Warnings and checks are said in the language of
    ``Accept-Language``."""
    side = work.check_side(side)
    data = await photo.read()
    work.check_photo(data, settings)
    reading = await cpu.run(work.read_sheet_photo, data, side)
    return answer_in(request, response, work.reading_json(reading))


@router.post(
    "/score",
    response_model=schemas.PhotoScore,
    response_model_exclude_unset=True,
    summary="Read and score a photo",
    responses=error_responses(*work.PHOTO_ERRORS, "bad-cards", "bad-season"),
)
async def score(
    request: Request,
    response: Response,
    settings: SettingsDep,
    cpu: CpuDep,
    photo: UploadFile = File(description="a photo of one map sheet"),
    cards: str = Form(description="the four cards under edicts A–D, comma-separated slugs"),
    season: str | None = Form(None, description="spring, summer, fall or winter"),
    side: str | None = Form(None, description="'A' or 'B' if known"),
):
    """Reading + score breakdown (with the checks of the written numbers) + the sheet-only
    legality verdict; warnings, checks and reasons in the language of ``Accept-Language``."""
    side = work.check_side(side)
    data = await photo.read()
    work.check_photo(data, settings)
    answer = await cpu.run(
        work.score_photo, data, side, cards, season, settings.validate_time_limit
    )
    return answer_in(request, response, answer)
