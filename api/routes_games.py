"""HTTP routes for tracked games, under ``/v1/games`` (see ``api/games.py`` for what they do).

The database comes from :func:`api.dependencies.get_store` (opened by the app's lifespan from
``CARTOGRAPHERS_DATABASE_URL``, default a SQLite file in the data folder); a photo upload is read
under the service's time limit and CPU threads (:func:`api.dependencies.get_cpu`). The error codes
are in ``api/errors.py``; :func:`api.errors.on_game_error` answers a :class:`api.games.GameError`.
"""

from __future__ import annotations

import json
from functools import partial
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, File, Form, Request, Response, UploadFile
from pydantic import BaseModel, Field

from api import games, work
from api.dependencies import CpuDep, SettingsDep, StoreDep
from api.errors import ApiError, error_responses
from api.messages import answer_in
from scoring.sheet import Sheet, SheetError

router = APIRouter(prefix="/v1/games", tags=["games"])


class GameRequest(BaseModel):
    players: list[Annotated[str, Field(max_length=100)]] = Field(  # the database's column sizes
        description="player names in seating order, clockwise",
        examples=[["Ana", "Ben", "Caz", "Dee"]],
        max_length=games.MAX_PLAYERS,
    )
    side: str = Field(description="'A' or 'B'")
    cards: list[str] | str = Field(
        description="the four scoring cards under edicts A–D (slugs, or names in any of the "
        "four languages; list or comma-separated); the game keeps slugs"
    )
    name: str = Field("", max_length=200, description="a label, e.g. 'Round 2, table 5'")
    revealed: dict[str, list[str]] = Field(
        default_factory=dict,
        description="season → explore/ambush cards revealed, in order (optional): slugs, or names "
        "in any of the four languages; the game keeps slugs",
    )


class RevealedRequest(BaseModel):
    cards: list[str] = Field(
        description="explore/ambush cards revealed this season, in order: slugs, or names in any "
        "of the four languages; the game keeps slugs"
    )


async def in_thread(fn, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args)`` in a worker thread: database and CPU work stay off the event loop."""
    return await anyio.to_thread.run_sync(partial(fn, *args, **kwargs))


def setup_of(body: GameRequest) -> games.GameSetup:
    cards = body.cards.split(",") if isinstance(body.cards, str) else body.cards
    return games.GameSetup(
        tuple(body.players), body.side, tuple(c.strip() for c in cards), body.name, body.revealed
    )


@router.post(
    "",
    status_code=201,
    summary="Create a tracked game",
    responses=error_responses(
        "bad-json",
        "invalid-request",
        "bad-game",
        "bad-cards",
        "bad-season",
        "bad-log",
        "unsupported-media-type",
    ),
)
async def create(body: GameRequest, store: StoreDep):
    """Players and seating, the sheet side, the four
    scoring cards; optionally the revealed cards."""
    return await in_thread(games.create_game, store, setup_of(body))


@router.get("", summary="List tracked games", responses=error_responses())
async def list_all(store: StoreDep):
    return {"games": await in_thread(games.list_games, store)}


@router.get(
    "/{game_id}",
    summary="One game: setup, revealed cards, sheets in",
    responses=error_responses("game-not-found"),
)
async def show(game_id: str, store: StoreDep):
    return await in_thread(games.get_game, store, game_id)


@router.put(
    "/{game_id}/revealed/{season}",
    summary="Record the cards revealed in a season",
    responses=error_responses(
        "bad-json",
        "invalid-request",
        "game-not-found",
        "bad-season",
        "bad-log",
        "unsupported-media-type",
    ),
)
async def reveal(game_id: str, season: str, body: RevealedRequest, store: StoreDep):
    return await in_thread(games.reveal_cards, store, game_id, season, body.cards)


@router.get(
    "/{game_id}/standings",
    summary="Standings after every season and at the end",
    responses=error_responses("game-not-found"),
)
async def standings(game_id: str, store: StoreDep):
    """Per season: each player's season score, the running totals and places (tie-break: fewer
    stars lost to monsters, then shared); ``final`` once every winter sheet is in."""
    return await in_thread(games.standings, store, game_id)


def sheet_from_form(sheet: str) -> Sheet:
    """A corrected sheet sent as JSON text (or the compact text form) in a form field."""
    try:
        text = sheet.strip()
        return Sheet.from_json(json.loads(text)) if text.startswith("{") else Sheet.from_text(text)
    except json.JSONDecodeError as e:
        raise ApiError(
            "bad-sheet", f"the sheet field is not valid JSON: {e.msg}", "sheet"
        ) from None
    except SheetError as e:
        raise ApiError("bad-sheet", str(e), f"sheet.{e.field}" if e.field else "sheet") from None


def read_upload_photo(data: bytes, side: str) -> tuple[Sheet, dict]:
    """The sheet in an uploaded photo and what the reader said about it."""
    reading = work.read_sheet_photo(data, side)
    info = reading.to_json()
    return reading.sheet, {
        "low_confidence_cells": info.get("low_confidence_cells", []),
        "warnings": info.get("warnings", []),
    }


@router.post(
    "/{game_id}/players/{player}/seasons/{season}",
    status_code=201,
    summary="Upload a player's sheet at the end of a season",
    responses=error_responses(
        "invalid-request",
        "too-large",
        "empty-file",
        "not-an-image",
        "no-grid",
        "wrong-side",
        "unreadable-photo",
        "reader-unavailable",
        "bad-sheet",
        "game-not-found",
        "player-not-found",
        "bad-season",
        "bad-log",
        "season-conflict",
        "sheet-rejected",
    ),
)
async def upload(
    game_id: str,
    player: str,
    season: str,
    store: StoreDep,
    settings: SettingsDep,
    cpu: CpuDep,
    request: Request,
    response: Response,
    photo: UploadFile | None = File(None, description="a photo of the sheet"),
    sheet: str | None = Form(None, description="or the corrected sheet JSON (docs/formats.md)"),
    replace: bool = Form(False, description="replace this season's sheet (no later season in yet)"),
):
    """Read (photo) or parse (sheet), score for the season, check against the previous season and
    the revealed cards, then store. A rejection (422 ``sheet-rejected``) names the cells at
    fault. Warnings and the legality reasons are in the language of ``Accept-Language``."""
    if season not in games.SEASON_NAMES:
        raise ApiError(
            "bad-season",
            f"unknown season {season!r}; expected one of {', '.join(games.SEASON_NAMES)}",
            "season",
        )
    game = await in_thread(games.get_game, store, game_id)
    if (photo is None) == (sheet is None):
        raise ApiError(
            "invalid-request", "send exactly one of 'photo' (a file) or 'sheet' (JSON)", "photo"
        )
    reading = None
    if photo is not None:
        data = await photo.read()
        work.check_photo(data, settings)
        parsed, reading = await cpu.run(
            read_upload_photo, data, game["side"]
        )  # the service's time limit and threads
        source = "photo"
    else:
        parsed, source = sheet_from_form(sheet), "sheet"
    stored = await in_thread(
        games.upload_season,
        store,
        game_id,
        player,
        season,
        parsed,
        source=source,
        reading=reading,
        replace=replace,
        time_limit=settings.validate_time_limit,
    )
    return answer_in(request, response, stored)


@router.get(
    "/{game_id}/players/{player}/seasons/{season}",
    summary="A stored season sheet with its score",
    responses=error_responses(
        "game-not-found", "player-not-found", "bad-season", "season-not-found"
    ),
)
async def season_sheet(
    game_id: str, player: str, season: str, store: StoreDep, request: Request, response: Response
):
    """Warnings and the legality reasons are in the language of ``Accept-Language``."""
    stored = await in_thread(games.season_sheet, store, game_id, player, season)
    return answer_in(request, response, stored)
