"""HTTP routes for tracked games, under ``/v1/games`` (see ``api/games.py`` for what they do).

``install(app)`` opens the database (``CARTOGRAPHERS_DATABASE_URL``, default a SQLite file in the
working folder), registers this module's error codes and mounts the router.
"""

from __future__ import annotations

import json
import threading
from functools import partial
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, FastAPI, File, Form, Request, UploadFile
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from api import games
from api.errors import ERRORS, ApiError, ErrorKind, error_responses
from api.store import Store
from scoring.sheet import Sheet, SheetError

#: Error codes of the game and batch routes (added to the service's table, never renamed).
GAME_ERRORS: dict[str, ErrorKind] = {
    "bad-game": ErrorKind(422, "the game setup is not possible (players, side)"),
    "game-not-found": ErrorKind(404, "no game with this id"),
    "player-not-found": ErrorKind(404, "no player of this name in the game"),
    "season-not-found": ErrorKind(404, "that player's sheet for that season is not in yet"),
    "season-conflict": ErrorKind(409, "the season is already in, a later one is, or an earlier one is missing"),
    "sheet-rejected": ErrorKind(422, "the season sheet contradicts the earlier season or the cards (cells named)"),
    "job-not-found": ErrorKind(404, "no batch job with this id"),
    "bad-batch": ErrorKind(422, "the batch request holds no files, or a zip that cannot be opened"),
}


def register_errors() -> None:
    for code, kind in GAME_ERRORS.items():
        ERRORS.setdefault(code, kind)


register_errors()
router = APIRouter(prefix="/v1/games", tags=["games"])


class GameRequest(BaseModel):
    players: list[Annotated[str, Field(max_length=100)]] = Field(  # the database's column sizes
        description="player names in seating order, clockwise", examples=[["Ana", "Ben", "Caz", "Dee"]],
        max_length=games.MAX_PLAYERS)
    side: str = Field(description="'A' or 'B'")
    cards: list[str] | str = Field(description="the four scoring cards under edicts A–D (slugs, list or comma-separated)")
    name: str = Field("", max_length=200, description="a label, e.g. 'Round 2, table 5'")
    revealed: dict[str, list[str]] = Field(default_factory=dict,
                                           description="season → explore/ambush card slugs revealed, in order (optional)")


class RevealedRequest(BaseModel):
    cards: list[str] = Field(description="explore/ambush card slugs revealed this season, in order")


def store_of(request: Request) -> Store:
    """The app's games database, opened on first use (so an app that never tracks a game makes no file)."""
    state = request.app.state
    if getattr(state, "game_store", None) is None:
        with _opening:
            if getattr(state, "game_store", None) is None:
                state.game_store = Store(getattr(state, "game_database_url", None))
    return state.game_store


_opening = threading.Lock()


async def on_game_error(_: Request, e: games.GameError) -> JSONResponse:
    """Game errors answer ``{code, message}``; a rejected sheet also lists the cells and reasons."""
    body: dict[str, Any] = {"code": e.code, "message": e.message}
    if e.code == "sheet-rejected":
        body.update(field="sheet", cells=e.cells, reasons=e.reasons)
    return JSONResponse(body, status_code=ERRORS[e.code].status)


async def run(request: Request, fn, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args)`` in a worker thread: database and CPU work stay off the event loop."""
    return await anyio.to_thread.run_sync(partial(fn, *args, **kwargs))


def setup_of(body: GameRequest) -> games.GameSetup:
    cards = body.cards.split(",") if isinstance(body.cards, str) else body.cards
    return games.GameSetup(tuple(body.players), body.side, tuple(c.strip() for c in cards), body.name, body.revealed)


@router.post("", status_code=201, summary="Create a tracked game",
             responses=error_responses("bad-json", "invalid-request", "bad-game", "bad-cards", "bad-season", "bad-log",
                                       "unsupported-media-type"))
async def create(body: GameRequest, request: Request):
    """Players and seating, the sheet side, the four scoring cards; optionally the revealed cards."""
    return await run(request, games.create_game, store_of(request), setup_of(body))


@router.get("", summary="List tracked games", responses=error_responses())
async def list_all(request: Request):
    return {"games": await run(request, games.list_games, store_of(request))}


@router.get("/{game_id}", summary="One game: setup, revealed cards, sheets in",
            responses=error_responses("game-not-found"))
async def show(game_id: str, request: Request):
    return await run(request, games.get_game, store_of(request), game_id)


@router.put("/{game_id}/revealed/{season}", summary="Record the cards revealed in a season",
            responses=error_responses("bad-json", "invalid-request", "game-not-found", "bad-season", "bad-log",
                                      "unsupported-media-type"))
async def reveal(game_id: str, season: str, body: RevealedRequest, request: Request):
    return await run(request, games.reveal_cards, store_of(request), game_id, season, body.cards)


@router.get("/{game_id}/standings", summary="Standings after every season and at the end",
            responses=error_responses("game-not-found"))
async def standings(game_id: str, request: Request):
    """Per season: each player's season score, the running totals and places (tie-break: fewer
    stars lost to monsters, then shared); ``final`` once every winter sheet is in."""
    return await run(request, games.standings, store_of(request), game_id)


def sheet_from_form(sheet: str) -> Sheet:
    """A corrected sheet sent as JSON text (or the compact text form) in a form field."""
    try:
        text = sheet.strip()
        return Sheet.from_json(json.loads(text)) if text.startswith("{") else Sheet.from_text(text)
    except json.JSONDecodeError as e:
        raise ApiError("bad-sheet", f"the sheet field is not valid JSON: {e.msg}", "sheet") from None
    except SheetError as e:
        raise ApiError("bad-sheet", str(e), f"sheet.{e.field}" if e.field else "sheet") from None


def read_upload_photo(data: bytes, side: str) -> tuple[Sheet, dict]:
    """The sheet in an uploaded photo and what the reader said about it."""
    from api.service import read_sheet_photo  # the service's photo checks and error codes

    reading = read_sheet_photo(data, side)
    info = reading.to_json()
    return reading.sheet, {"low_confidence_cells": info.get("low_confidence_cells", []),
                           "warnings": info.get("warnings", [])}


@router.post("/{game_id}/players/{player}/seasons/{season}", status_code=201,
             summary="Upload a player's sheet at the end of a season",
             responses=error_responses("invalid-request", "too-large", "empty-file", "not-an-image", "no-grid",
                                       "wrong-side", "unreadable-photo", "reader-unavailable", "bad-sheet",
                                       "game-not-found", "player-not-found", "bad-season", "bad-log",
                                       "season-conflict", "sheet-rejected"))
async def upload(game_id: str, player: str, season: str, request: Request,
                 photo: UploadFile | None = File(None, description="a photo of the sheet"),
                 sheet: str | None = Form(None, description="or the corrected sheet JSON (docs/formats.md)"),
                 replace: bool = Form(False, description="replace this season's sheet (no later season in yet)")):
    """Read (photo) or parse (sheet), score for the season, check against the previous season and
    the revealed cards, then store. A rejection (422 ``sheet-rejected``) names the cells at fault."""
    if season not in games.SEASON_NAMES:
        raise ApiError("bad-season", f"unknown season {season!r}; expected one of {', '.join(games.SEASON_NAMES)}", "season")
    store = store_of(request)
    game = await run(request, games.get_game, store, game_id)
    if (photo is None) == (sheet is None):
        raise ApiError("invalid-request", "send exactly one of 'photo' (a file) or 'sheet' (JSON)", "photo")
    reading = None
    if photo is not None:
        from api.service import check_photo

        data = await photo.read()
        check_photo(data, request.app.state.settings)
        off_loop = getattr(request.app.state, "off_loop", None)  # the service's time limit and CPU threads
        parsed, reading = await (off_loop(read_upload_photo, data, game["side"]) if off_loop else
                                 anyio.to_thread.run_sync(read_upload_photo, data, game["side"]))
        source = "photo"
    else:
        parsed, source = sheet_from_form(sheet), "sheet"
    limit = request.app.state.settings.validate_time_limit
    return await run(request, games.upload_season, store, game_id, player, season, parsed, source=source,
                     reading=reading, replace=replace, time_limit=limit)


@router.get("/{game_id}/players/{player}/seasons/{season}", summary="A stored season sheet with its score",
            responses=error_responses("game-not-found", "player-not-found", "bad-season", "season-not-found"))
async def season_sheet(game_id: str, player: str, season: str, request: Request):
    return await run(request, games.season_sheet, store_of(request), game_id, player, season)


def install(app: FastAPI, store: Store | None = None, database_url: str | None = None) -> None:
    """Mount these routes; the database (``store``, ``database_url`` or the default) opens on first use."""
    app.state.game_store = store
    app.state.game_database_url = database_url
    app.add_exception_handler(games.GameError, on_game_error)
    app.include_router(router)
