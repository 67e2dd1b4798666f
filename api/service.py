"""The HTTP service and the web page: ``create_app(settings)`` builds the FastAPI app.

Routes are thin: they check the upload, then hand the CPU work (reading a photo, scoring,
validating) to a worker thread under the time limit, so the event loop keeps answering.
Every error is an :class:`api.errors.ApiError` with a stable code; ``docs/service.md`` has the table.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import importlib
import importlib.metadata
from functools import lru_cache, partial
from pathlib import Path
from typing import Any, Callable

import anyio
from fastapi import FastAPI, File, Form, UploadFile
from fastapi.middleware.cors import CORSMiddleware
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles

from api import schemas
from api.errors import ApiError, error_response, error_responses, install_handlers
from api.settings import Settings, settings_from_env
from api.uploads import image_kind, image_size
from scoring.cards import BACKS, CARDS, CardError, card_slug
from scoring.report import parse_cards, score_report
from scoring.seasons import SEASON_BY_NAME, SEASONS, check_setup
from scoring.sheet import Sheet, SheetError
from scoring.sides import SIDES
from scoring.terrain import DRAWABLE, Terrain

STATIC = Path(__file__).parent / "static"
#: The page loads nothing from elsewhere; this header makes the browser hold it to that.
PAGE_CSP = "default-src 'self'; img-src 'self' blob: data:; style-src 'self'; script-src 'self'"
#: PhotoError codes that keep their own name in answers; any other is ``unreadable-photo``.
PHOTO_CODES = {"empty-file", "not-an-image", "too-many-pixels", "heic-unsupported", "no-grid", "wrong-side"}
#: Kinds handed to the reader; it answers ``heic-unsupported`` itself when it lacks the HEIC extra.
READABLE_KINDS = {"jpeg", "png", "webp", "bmp", "tiff", "heic", "gif"}
#: Errors every route that does work can answer: body too large, a bug, over the time limit.
WORK_ERRORS = ("too-large", "internal-error", "timeout")


# ---- optional parts: built in parallel, looked up at call time --------------------------------
def photo_reader() -> tuple[Callable, type] | None:
    """``(read_photo, PhotoError)`` from ``vision``, or ``None`` when this build has no reader."""
    try:
        vision = importlib.import_module("vision")
        return vision.read_photo, vision.PhotoError
    except (ImportError, AttributeError):
        return None


def model_missing_error() -> type[Exception] | tuple:
    """The reader's "no trained model" error, so it can answer 503 rather than 500."""
    try:
        return importlib.import_module("vision.classify").ModelMissingError
    except (ImportError, AttributeError):
        return ()


def validator() -> Callable | None:
    """``scoring.validate.validate``, or ``None`` when this build has no validator."""
    try:
        return importlib.import_module("scoring.validate").validate
    except (ImportError, AttributeError):
        return None


# ---- pure work, run in a worker thread ---------------------------------------------------------
def parse_sheet(data: dict, field: str = "sheet") -> Sheet:
    """A :class:`Sheet` from request JSON, or a ``bad-sheet`` error naming the cell."""
    try:
        return Sheet.from_json(data)
    except SheetError as e:
        raise ApiError("bad-sheet", str(e), f"{field}.{e.field}" if e.field else field) from None


def parse_card_list(cards: list[str] | str) -> list[str] | str:
    """Four checked slugs, or ``"all"``; ``bad-cards`` otherwise."""
    try:
        if isinstance(cards, str):
            return parse_cards(cards)
        slugs = [card_slug(c) for c in cards]  # slugs or printed names
        check_setup(slugs)
        return slugs
    except CardError as e:
        raise ApiError("bad-cards", str(e), "cards") from None


def check_season(season: str | None, cards: list[str] | str) -> str | None:
    """The season name if it is one (and four cards were given); ``bad-season`` otherwise."""
    if season is None or season == "":
        return None
    if season not in SEASON_BY_NAME:
        raise ApiError("bad-season", f"unknown season {season!r}; expected one of {', '.join(SEASON_BY_NAME)}", "season")
    if cards == "all":
        raise ApiError("bad-season", "a season needs the four edict cards, not 'all'", "season")
    return season


def score_sheet(sheet_json: dict, cards: list[str] | str, season: str | None) -> dict:
    """``/v1/score-map``: the score report of a sheet."""
    sheet = parse_sheet(sheet_json)
    slugs = parse_card_list(cards)
    return score_report(sheet, slugs, check_season(season, slugs))


def check_legality(sheet: Sheet, time_limit: float, log: Any = None, previous: Sheet | None = None) -> dict | None:
    """The validator's verdict as JSON, or ``None`` when there is no validator."""
    validate = validator()
    if validate is None:
        return None
    try:
        return validate(sheet, log=log, previous=previous, time_limit=time_limit).to_json()
    except SheetError as e:
        raise ApiError("bad-sheet", str(e), "previous" if previous is not None else "sheet") from None
    except ValueError as e:
        raise ApiError("bad-log", str(e), "log") from None


def validate_sheet(body: dict, time_limit: float) -> dict:
    """``/v1/validate``: the verdict and its reasons."""
    sheet = parse_sheet(body["sheet"])
    previous = parse_sheet(body["previous"], "previous") if body.get("previous") is not None else None
    verdict = check_legality(sheet, time_limit, body.get("log"), previous)
    if verdict is None:
        raise ApiError("validator-unavailable", "this build has no legality validator (scoring.validate)")
    return verdict


def read_sheet_photo(data: bytes, side: str | None):
    """The reader's :class:`Reading` of a photo, photo failures turned into API errors."""
    reader = photo_reader()
    if reader is None:
        raise ApiError("reader-unavailable", "this build has no photo reader (vision.read_photo)")
    read_photo, photo_error = reader
    try:
        return read_photo(data, side=side)
    except model_missing_error() as e:
        raise ApiError("reader-unavailable", f"the photo reader has no trained model: {e}") from None
    except photo_error as e:
        code = getattr(e, "code", "")
        message = getattr(e, "message", "") or str(e)
        raise ApiError(code if code in PHOTO_CODES else "unreadable-photo", message, "photo") from None
    finally:
        release_freed_memory()


@lru_cache(maxsize=1)
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or ``None`` on a C library without it (musl, macOS)."""
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


def release_freed_memory() -> None:
    """Hand the heap memory a photo read freed back to the system.

    A 12 MP read allocates and frees a few hundred MB in each worker thread's own allocator arena;
    glibc keeps freed arena memory mapped, so a long-running service's resident memory grew with
    every burst of concurrent uploads (load test run 9: +11.1 %, docs/hardening.md).
    """
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def score_photo(data: bytes, side: str | None, cards: str, season: str | None, time_limit: float) -> dict:
    """``/v1/score``: reading, score and the sheet-only legality verdict of one photo."""
    slugs = parse_card_list(cards)
    season = check_season(season, slugs)
    reading = read_sheet_photo(data, side)
    return {"reading": reading.to_json(), "score": score_report(reading.sheet, slugs, season),
            "legality": check_legality(reading.sheet, time_limit)}


# ---- request checks ----------------------------------------------------------------------------
def check_photo(data: bytes, settings: Settings) -> None:
    """Refuse an upload that is empty, not an image we decode, or too many pixels — before decoding."""
    if not data:
        raise ApiError("empty-file", "the uploaded photo is empty (0 bytes)", "photo")
    kind = image_kind(data)
    if kind not in READABLE_KINDS:
        raise ApiError("not-an-image", "the upload is not an image; send a photo (JPEG, PNG, WebP or HEIC)", "photo")
    size = image_size(data, kind)
    if size and size[0] * size[1] > settings.max_pixels:
        raise ApiError("too-many-pixels", f"the photo is {size[0]}×{size[1]} = {size[0] * size[1]:,} pixels; "
                       f"the limit is {settings.max_pixels:,}", "photo")


def check_side(side: str | None) -> str | None:
    if side in (None, ""):
        return None
    if side not in SIDES:
        raise ApiError("invalid-request", f"side must be one of {', '.join(SIDES)}, got {side!r}", "side")
    return side


class BodyLimit:
    """ASGI middleware: a request body over ``limit`` bytes is answered 413 ``too-large``.

    The body is read here (it is at most ``limit`` bytes) and handed on unchanged, so the limit
    holds whether or not the client sent a Content-Length.
    """

    def __init__(self, app, limit: int):
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            return await self.app(scope, receive, send)
        declared = dict(scope["headers"]).get(b"content-length")
        if declared and declared.isdigit() and int(declared) > self.limit:
            return await self.refuse(f"{int(declared):,} bytes", scope, receive, send)
        chunks, total, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            total += len(chunks[-1])
            more = message.get("more_body", False)
            if total > self.limit:
                return await self.refuse(f"more than {self.limit:,} bytes", scope, receive, send)
        body, sent = b"".join(chunks), False

        async def replay():
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

    async def refuse(self, size: str, scope, receive, send):
        response = error_response("too-large", f"the request is {size}; the limit is {self.limit:,} bytes "
                                  f"({self.limit / 1_000_000:g} MB)")
        await response(scope, receive, send)


# ---- the app ---------------------------------------------------------------------------------
def create_app(settings: Settings | None = None) -> FastAPI:
    """The FastAPI app: the ``/v1`` API, ``/health``, ``/docs`` and the web page at ``/``."""
    settings = settings or settings_from_env()
    try:
        version = importlib.metadata.version("cartographers")
    except importlib.metadata.PackageNotFoundError:
        version = "0"
    app = FastAPI(
        title="Cartographers scorer",
        version=version,
        description="Read a photo of a Cartographers map sheet, score it, check it could come from a "
                    "real game. Errors answer `{\"code\", \"message\"}`; codes are listed per route.",
        docs_url=None, redoc_url=None,
    )
    app.state.settings = settings
    app.state.cpu = None  # the worker-thread limiter, made inside the event loop on first use
    install_handlers(app)
    app.add_middleware(BodyLimit, limit=settings.max_upload_bytes)
    if settings.cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=list(settings.cors_origins),
                           allow_methods=["GET", "POST"], allow_headers=["*"])

    async def off_loop(fn: Callable, *args: Any) -> Any:
        """Run ``fn(*args)`` in a worker thread; 504 ``timeout`` past the time limit.

        The limit counts the work, not the wait for a free CPU thread: under load, requests queue
        (bounded by uvicorn's ``--limit-concurrency``) instead of timing out before they start.
        """
        if app.state.cpu is None:
            app.state.cpu = anyio.CapacityLimiter(settings.cpu_threads)
        async with app.state.cpu:
            try:
                with anyio.fail_after(settings.time_limit):
                    return await anyio.to_thread.run_sync(partial(fn, *args), abandon_on_cancel=True)
            except TimeoutError:
                raise ApiError("timeout", f"the work took longer than the {settings.time_limit:g} s limit") from None

    app.state.off_loop = off_loop  # game uploads (api/routes_games.py) read photos under the same limits

    async def read_upload(photo: UploadFile) -> bytes:
        data = await photo.read()
        check_photo(data, settings)
        return data

    photo_errors = (*WORK_ERRORS, "invalid-request", "empty-file", "not-an-image", "heic-unsupported",
                    "too-many-pixels", "no-grid", "wrong-side", "unreadable-photo", "reader-unavailable")

    @app.post("/v1/read", response_model=schemas.Reading, tags=["photo"],
              summary="Read a photo of a map sheet", responses=error_responses(*photo_errors))
    async def read(photo: UploadFile = File(description="a photo of one map sheet (JPEG, PNG, WebP)"),
                   side: str | None = Form(None, description="'A' or 'B' if known; read from the photo otherwise")):
        """The reading: side, cells, coins, confidences, warnings and each cell's outline in photo pixels."""
        side = check_side(side)
        data = await read_upload(photo)
        reading = await off_loop(read_sheet_photo, data, side)
        return reading.to_json()

    @app.post("/v1/score", response_model=schemas.PhotoScore, response_model_exclude_none=True, tags=["photo"],
              summary="Read and score a photo",
              responses=error_responses(*photo_errors, "bad-cards", "bad-season"))
    async def score(photo: UploadFile = File(description="a photo of one map sheet"),
                    cards: str = Form(description="the four cards under edicts A–D, comma-separated slugs"),
                    season: str | None = Form(None, description="spring, summer, fall or winter"),
                    side: str | None = Form(None, description="'A' or 'B' if known")):
        """Reading + score breakdown + the sheet-only legality verdict."""
        side = check_side(side)
        data = await read_upload(photo)
        return await off_loop(score_photo, data, side, cards, season, settings.validate_time_limit)

    @app.post("/v1/score-map", response_model=schemas.ScoreReport, response_model_exclude_none=True,
              tags=["sheet"], summary="Score a sheet (e.g. after corrections)",
              responses=error_responses(*WORK_ERRORS, "bad-json", "invalid-request", "bad-sheet", "bad-cards",
                                        "bad-season", "unsupported-media-type"))
    async def score_map(body: schemas.ScoreMapRequest):
        """The score breakdown with each card's evidence cells, per season."""
        return await off_loop(score_sheet, body.sheet.model_dump(), body.cards, body.season)

    @app.post("/v1/validate", response_model=schemas.Verdict, tags=["sheet"],
              summary="Could this sheet come from a real game?",
              responses=error_responses(*WORK_ERRORS, "bad-json", "invalid-request", "bad-sheet", "bad-log",
                                        "validator-unavailable", "unsupported-media-type"))
    async def validate(body: schemas.ValidateRequest):
        """The verdict (legal, illegal or cannot-tell) and its reasons, with the cells concerned."""
        return await off_loop(validate_sheet, body.model_dump(), settings.validate_time_limit)

    @app.get("/v1/cards", response_model=schemas.Cards, tags=["reference"])
    async def cards():
        """The sixteen scoring cards (name, back, solo value, rule in our words) and the seasons."""
        return {"cards": [c.to_json() for c in CARDS.values()], "backs": list(BACKS),
                "seasons": [{"name": s.name, "time": s.time, "edicts": list(s.edicts)} for s in SEASONS]}

    @app.get("/v1/sides", response_model=schemas.Sides, tags=["reference"])
    async def sides():
        """The printed layout of each sheet side: mountains, ruins and wasteland cells."""
        return {"sides": [side_json(s) for s in SIDES.values()], "terrains": [t.value for t in Terrain],
                "drawable": [t.value for t in DRAWABLE]}

    @app.get("/health", response_model=schemas.Health, tags=["service"])
    async def health():
        """Liveness, the version, and which optional parts this build has."""
        return {"status": "ok", "version": version, "reader": photo_reader() is not None,
                "validator": validator() is not None}

    from api import routes_batch, routes_games  # tracked games, batch jobs
    routes_games.install(app), routes_batch.install(app)
    install_pages(app)
    return app


def side_json(side) -> dict:
    """A printed side layout as JSON, cells as sorted ``[row, col]`` pairs."""
    cells = lambda s: [list(c) for c in sorted(s)]  # noqa: E731
    return {"name": side.name, "title": side.title, "size": side.size, "mountains": cells(side.mountains),
            "ruins": cells(side.ruins), "wasteland": cells(side.wasteland)}


def install_pages(app: FastAPI) -> None:
    """The web page at ``/`` and Swagger UI at ``/docs``, both served from this machine."""
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    async def page():
        return FileResponse(STATIC / "index.html", headers={"Content-Security-Policy": PAGE_CSP})

    try:
        from swagger_ui_bundle import swagger_ui_path
    except ImportError:  # the docs page then loads Swagger UI from FastAPI's default CDN
        swagger_ui_path = None
    if swagger_ui_path:
        app.mount("/docs-assets", StaticFiles(directory=swagger_ui_path), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        assets = {"swagger_js_url": "/docs-assets/swagger-ui-bundle.js",
                  "swagger_css_url": "/docs-assets/swagger-ui.css",
                  "swagger_favicon_url": "/docs-assets/favicon-32x32.png"} if swagger_ui_path else {}
        return get_swagger_ui_html(openapi_url="/openapi.json", title=f"{app.title} — API", **assets)
