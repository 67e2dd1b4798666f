"""The sheet routes: ``POST /v1/score-map`` and ``POST /v1/validate`` (sheet JSON in, worked on in a
worker thread under the time limit), and the reference data ``GET /v1/cards`` and ``GET /v1/sides``.
"""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from api import schemas, work
from api.dependencies import CpuDep, SettingsDep
from api.errors import error_responses
from api.i18n import language_of, negotiate, page_catalog, speaking
from api.messages import answer_in
from api.words import back_name, card_name, card_rule, season_name
from scoring.cards import BACKS, CARDS
from scoring.seasons import SEASONS
from scoring.sides import SIDES
from scoring.terrain import DRAWABLE, Terrain

router = APIRouter(prefix="/v1")


@router.post(
    "/score-map",
    response_model=schemas.ScoreReport,
    response_model_exclude_unset=True,
    tags=["sheet"],
    summary="Score a sheet (e.g. after corrections)",
    responses=error_responses(
        *work.WORK_ERRORS,
        "bad-json",
        "invalid-request",
        "bad-sheet",
        "bad-cards",
        "bad-season",
        "bad-written",
        "unsupported-media-type",
    ),
)
async def score_map(
    body: schemas.ScoreMapRequest, cpu: CpuDep, request: Request, response: Response
):
    """The score breakdown with each card's evidence cells, per season; with the numbers written
    on the sheet (optional), their checks (warnings and checks in the language of
    ``Accept-Language``)."""
    answer = await cpu.run(
        work.score_sheet, body.sheet.model_dump(), body.cards, body.season, body.written_json()
    )
    return answer_in(request, response, answer)


@router.post(
    "/check-written",
    response_model=schemas.WrittenReport,
    tags=["sheet"],
    summary="Check the numbers written in the season boxes",
    responses=error_responses(
        *work.WORK_ERRORS,
        "bad-json",
        "invalid-request",
        "bad-sheet",
        "bad-cards",
        "bad-written",
        "unsupported-media-type",
    ),
)
async def check_written(
    body: schemas.CheckWrittenRequest, cpu: CpuDep, request: Request, response: Response
):
    """Where the written season numbers cannot be right, for this map (the map at the game's end)
    and, when given, the four cards; and the checked total. Each check's ``message`` is in the
    language of ``Accept-Language``, its ``code`` the same token in every language."""
    answer = await cpu.run(
        work.check_written_numbers, body.sheet.model_dump(), body.cards, body.written_json()
    )
    return answer_in(request, response, answer)


@router.post(
    "/validate",
    response_model=schemas.Verdict,
    tags=["sheet"],
    summary="Could this sheet come from a real game?",
    responses=error_responses(
        *work.WORK_ERRORS,
        "bad-json",
        "invalid-request",
        "bad-sheet",
        "bad-log",
        "validator-unavailable",  # kept in the contract; every build has it now
        "unsupported-media-type",
    ),
)
async def validate(
    body: schemas.ValidateRequest,
    settings: SettingsDep,
    cpu: CpuDep,
    request: Request,
    response: Response,
):
    """The verdict (legal, illegal or cannot-tell) and its reasons, with the cells concerned; the
    reasons in the language of ``Accept-Language``."""
    answer = await cpu.run(work.validate_sheet, body.model_dump(), settings.validate_time_limit)
    return answer_in(request, response, answer)


@router.get("/cards", response_model=schemas.Cards, tags=["reference"])
async def cards(request: Request, response: Response):
    """The sixteen scoring cards (slug, name, back, solo value, rule in our words) and the seasons,
    named in the language ``Accept-Language`` asks for (English when no catalog speaks it)."""
    language = negotiate(request.headers.get("accept-language"))
    response.headers["Content-Language"] = language.replace("_", "-")
    with speaking(language):
        return {
            "language": language,
            "cards": [
                c.to_json()
                | {
                    "name": card_name(c.slug),
                    "rule": card_rule(c.slug),
                    "back_name": back_name(c.back),
                }
                for c in CARDS.values()
            ],
            "backs": list(BACKS),
            "seasons": [
                {
                    "name": s.name,
                    "title": season_name(s.name),
                    "time": s.time,
                    "edicts": list(s.edicts),
                }
                for s in SEASONS
            ],
        }


@router.get("/messages", response_model=schemas.PageMessages, tags=["reference"])
async def messages(request: Request, response: Response, lang: str | None = None):
    """The web page's words in one language: ``lang`` (any locale tag, e.g. ``uk``, ``pt-BR``) or
    else the one ``Accept-Language`` asks for; English when no catalog speaks it."""
    language = language_of(lang) or negotiate(request.headers.get("accept-language"))
    response.headers["Content-Language"] = language.replace("_", "-")
    return page_catalog(language)


@router.get("/sides", response_model=schemas.Sides, tags=["reference"])
async def sides():
    """The printed layout of each sheet side: mountains, ruins and wasteland cells."""
    return {
        "sides": [side_json(s) for s in SIDES.values()],
        "terrains": [t.value for t in Terrain],
        "drawable": [t.value for t in DRAWABLE],
    }


def side_json(side) -> dict:
    """A printed side layout as JSON, cells as sorted ``[row, col]`` pairs."""
    cells = lambda s: [list(c) for c in sorted(s)]  # noqa: E731
    return {
        "name": side.name,
        "title": side.title,
        "size": side.size,
        "mountains": cells(side.mountains),
        "ruins": cells(side.ruins),
        "wasteland": cells(side.wasteland),
    }
