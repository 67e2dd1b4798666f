"""The HTTP service and the web page: ``create_app(settings)`` assembles the FastAPI app.

The routes are in one router per group — photos (``api/routes_photos.py``), sheets and reference
data (``api/routes_sheets.py``), tracked games (``api/routes_games.py``), batch jobs
(``api/routes_batch.py``), health and the pages (``api/pages.py``) — and get what they share
(settings, CPU threads, the games database, the batch jobs) from ``api/dependencies.py``. The work
itself is in ``api/work.py``. Every error is an :class:`api.errors.ApiError` with a stable code;
``docs/service.md`` has the table.
"""

from __future__ import annotations

import importlib.metadata
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware

from api import games, pages, routes_batch, routes_games, routes_photos, routes_sheets
from api.dependencies import close_store, init_state, open_store
from api.errors import error_response, install_handlers, on_game_error
from api.settings import Settings, settings_from_env
from api.work import warm_reader


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """At start-up: open the games database, and load the reader's model in the background (the
    service answers at once; the first photo need not wait for the model). At shutdown: close it."""
    threading.Thread(target=warm_reader, name="warm-reader", daemon=True).start()
    open_store(app.state)
    try:
        yield
    finally:
        close_store(app.state)


def create_app(settings: Settings | None = None) -> FastAPI:
    """The FastAPI app: the ``/v1`` API, ``/health``, ``/docs`` and the web page at ``/``."""
    settings = settings or settings_from_env()
    app = FastAPI(
        title="Cartographers scorer",
        version=package_version(),
        description="Read a photo of a Cartographers map sheet, score it, check it could come "
        "from a "
        'real game. Errors answer `{"code", "message"}`; codes are listed per route.',
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
    )
    init_state(app, settings)
    install_handlers(app)
    app.add_exception_handler(games.GameError, on_game_error)
    app.add_middleware(BodyLimit, limit=settings.max_upload_bytes)
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(settings.cors_origins),
            allow_methods=["GET", "POST"],
            allow_headers=["*"],
        )
    for router in (
        routes_photos.router,
        routes_sheets.router,
        pages.health_router,
        routes_games.router,
        routes_batch.router,
        pages.router,
    ):
        app.include_router(router)
    pages.mount_files(app)
    return app


def package_version() -> str:
    try:
        return importlib.metadata.version("cartographers")
    except importlib.metadata.PackageNotFoundError:
        return "0"


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
        response = error_response(
            "too-large",
            f"the request is {size}; the limit is {self.limit:,} bytes "
            f"({self.limit / 1_000_000:g} MB)",
            accept_language=dict(scope["headers"]).get(b"accept-language", b"").decode("latin-1"),
        )
        await response(scope, receive, send)
