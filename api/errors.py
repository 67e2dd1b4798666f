"""Every error the HTTP service can answer, as data: a stable ``code``, its HTTP status and what it
means. Responses carry ``{"code": ..., "message": ...}`` (plus ``field`` when one input field is
at fault); the OpenAPI document lists, per route, exactly the codes that route can return.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from api.i18n import DEFAULT_LANGUAGE, catalog, negotiate, speaking
from api.messages import localised

log = logging.getLogger("cartographers.service")


@dataclass(frozen=True)
class ErrorKind:
    status: int
    meaning: str


#: code → status and meaning, for every route of the service (photos, sheets, games, batch): the one
#: table, never changed at run time. Codes are part of the public contract: add, never rename.
ERRORS: Mapping[str, ErrorKind] = MappingProxyType(
    {
        "bad-json": ErrorKind(400, "the request body is not valid JSON"),
        "empty-file": ErrorKind(400, "the uploaded photo has no bytes"),
        "not-found": ErrorKind(404, "no such route"),
        "method-not-allowed": ErrorKind(405, "the route exists but not for this HTTP method"),
        "too-large": ErrorKind(413, "the request body is over the service's upload limit"),
        "too-many-pixels": ErrorKind(413, "the photo has more pixels than the service accepts"),
        "not-an-image": ErrorKind(
            415, "the upload is not an image (checked from its bytes, not its name)"
        ),
        "heic-unsupported": ErrorKind(
            415, "HEIC/HEIF photos need the reader's optional HEIC extra; send a JPEG"
        ),
        "unsupported-media-type": ErrorKind(
            415, "the body's Content-Type is not JSON on a route that takes JSON"
        ),
        "invalid-request": ErrorKind(422, "a field is missing or has the wrong type"),
        "bad-sheet": ErrorKind(
            422, "the sheet JSON is not a possible sheet (field names the place)"
        ),
        "bad-cards": ErrorKind(422, "unknown, repeated or too few scoring cards"),
        "bad-season": ErrorKind(422, "the season is not spring, summer, fall or winter"),
        "bad-written": ErrorKind(
            422, "the written season numbers are not whole numbers in their boxes (field named)"
        ),
        "bad-log": ErrorKind(422, "the card log JSON is malformed (message names the field)"),
        "no-grid": ErrorKind(422, "no map grid could be found in the photo"),
        "wrong-side": ErrorKind(422, "the photo does not show the requested sheet side"),
        "unreadable-photo": ErrorKind(422, "the photo was decoded but the sheet could not be read"),
        "internal-error": ErrorKind(
            500, "a bug in the service: logged with a traceback under the answer's `error_id`"
        ),
        "reader-unavailable": ErrorKind(
            503, "the photo reader (or its trained model) is not installed"
        ),
        "validator-unavailable": ErrorKind(
            503, "the legality validator is not installed in this build"
        ),
        "timeout": ErrorKind(504, "the work took longer than the service's time limit"),
        # tracked games (api/routes_games.py)
        "bad-game": ErrorKind(422, "the game setup is not possible (players, side)"),
        "game-not-found": ErrorKind(404, "no game with this id"),
        "player-not-found": ErrorKind(404, "no player of this name in the game"),
        "season-not-found": ErrorKind(404, "that player's sheet for that season is not in yet"),
        "season-conflict": ErrorKind(
            409, "the season is already in, a later one is, or an earlier one is missing"
        ),
        "sheet-rejected": ErrorKind(
            422, "the season sheet contradicts the earlier season or the cards (cells named)"
        ),
        # batch jobs (api/routes_batch.py)
        "job-not-found": ErrorKind(404, "no batch job with this id"),
        "bad-batch": ErrorKind(
            422, "the batch request holds no files, or a zip that cannot be opened"
        ),
    }
)


class ErrorBody(BaseModel):
    """The body of every error response."""

    code: str = Field(description="stable machine-readable error code (see docs/service.md)")
    message: str = Field(
        description="what went wrong, for a person, in the language of `Accept-Language`"
    )
    detail: str | None = Field(
        None,
        description="the specific message in English when `message` is in another language "
        "(field names, card names, sizes)",
    )
    field: str | None = Field(None, description="the input field at fault, when there is one")
    error_id: str | None = Field(
        None,
        description="`internal-error` only: the id of the traceback in the "
        "service's log, to quote in a bug report",
    )


class ApiError(Exception):
    """An error answer: ``code`` from :data:`ERRORS` fixes the HTTP status."""

    def __init__(self, code: str, message: str, field: str | None = None):
        if code not in ERRORS:
            raise KeyError(f"undocumented error code {code!r}")
        super().__init__(message)
        self.code, self.message, self.field = code, message, field

    @property
    def status(self) -> int:
        return ERRORS[self.code].status


def error_response(
    code: str,
    message: str,
    field: str | None = None,
    error_id: str | None = None,
    accept_language: str | None = None,
) -> JSONResponse:
    """The JSON response for one error, its message in the language ``accept_language`` asks for."""
    body = ErrorBody(code=code, message=message, field=field, error_id=error_id).model_dump(
        exclude_none=True
    )
    return JSONResponse(spoken(body, accept_language), status_code=ERRORS[code].status)


def spoken(body: dict[str, Any], accept_language: str | None) -> dict[str, Any]:
    """``body`` with its message in the asked language: what its code means there, the English
    message kept as ``detail`` (the code is the same token in every language)."""
    language = negotiate(accept_language)
    if language == DEFAULT_LANGUAGE or body.get("code") not in ERRORS:
        return body
    meaning = ERRORS[body["code"]].meaning
    translated = catalog(language).pgettext("error", meaning)
    if translated == meaning:
        return body
    return body | {"message": translated[:1].upper() + translated[1:], "detail": body["message"]}


def _language(request: Request) -> str | None:
    return request.headers.get("accept-language")


def error_responses(*codes: str) -> dict[int | str, dict]:
    """The OpenAPI ``responses`` entry for a route that can answer with these error codes."""
    by_status: dict[int, list[str]] = {}
    for code in codes:
        by_status.setdefault(ERRORS[code].status, []).append(code)
    return {
        status: {
            "model": ErrorBody,
            "description": "; ".join(f"`{c}`: {ERRORS[c].meaning}" for c in sorted(set(cs))),
        }
        for status, cs in sorted(by_status.items())
    }


def _validation_message(exc: RequestValidationError) -> tuple[str, str | None]:
    """One line naming the first bad field of a request FastAPI could not parse."""
    first = exc.errors()[0] if exc.errors() else {}
    loc = [str(p) for p in first.get("loc", ()) if p not in ("body", "query", "path")]
    where = ".".join(loc) or None
    msg = first.get("msg", "invalid request")
    return (f"{where}: {msg}" if where else msg), where


async def on_api_error(request: Request, exc: ApiError) -> JSONResponse:
    return error_response(exc.code, exc.message, exc.field, accept_language=_language(request))


async def on_validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    first = exc.errors()[0] if exc.errors() else {}
    if first.get("type") == "json_invalid":
        return error_response(
            "bad-json",
            f"the request body is not valid JSON: {first.get('msg', '')}".rstrip(": "),
            accept_language=_language(request),
        )
    sent = request.headers.get("content-type", "").split(";")[0].strip()
    if (
        tuple(first.get("loc", ())) == ("body",) and sent and "json" not in sent
    ):  # a JSON route got a non-JSON body
        return error_response(
            "unsupported-media-type",
            f"this route takes a JSON body (Content-Type: application/json), not {sent}",
            accept_language=_language(request),
        )
    message, where = _validation_message(exc)
    return error_response("invalid-request", message, where, accept_language=_language(request))


async def on_http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    code = {404: "not-found", 405: "method-not-allowed", 413: "too-large"}.get(
        exc.status_code, "invalid-request"
    )
    where = f"{request.method} {request.url.path}"
    message = {404: f"no such route: {where}", 405: f"{where} is not allowed"}.get(
        exc.status_code, str(exc.detail)
    )
    response = error_response(code, message, accept_language=_language(request))
    response.headers.update(exc.headers or {})  # 405 keeps its Allow header (RFC 9110)
    return response


async def on_unexpected(request: Request, exc: Exception) -> JSONResponse:
    """A bug: the traceback goes to the log under a fresh
    id; the client gets the id, not the internals."""
    error_id = uuid.uuid4().hex[:12]
    log.error(
        "internal error %s on %s %s",
        error_id,
        request.method,
        request.url.path,
        exc_info=(type(exc), exc, exc.__traceback__),
    )
    return error_response(
        "internal-error",
        f"the service failed on this request (a bug, logged as {error_id}); "
        "please report it with that id",
        error_id=error_id,
        accept_language=_language(request),
    )


async def on_game_error(request: Request, exc: Exception) -> JSONResponse:
    """A :class:`api.games.GameError` answers ``{code, message}``; a rejected sheet also lists the
    cells and reasons (``field`` is then ``sheet``)."""
    body: dict[str, Any] = {"code": exc.code, "message": exc.message}
    if exc.code == "sheet-rejected":
        with speaking(negotiate(_language(request))):  # each reason in the asked language
            reasons = localised(exc.reasons)
        body.update(field="sheet", cells=exc.cells, reasons=reasons)
    return JSONResponse(spoken(body, _language(request)), status_code=ERRORS[exc.code].status)


def install_handlers(app) -> None:
    """Make every failure answer with the JSON error body."""
    app.add_exception_handler(ApiError, on_api_error)
    app.add_exception_handler(RequestValidationError, on_validation_error)
    app.add_exception_handler(StarletteHTTPException, on_http_error)
    app.add_exception_handler(Exception, on_unexpected)
