"""What the routes share, handed to them with ``Depends``: the settings, the worker threads for CPU
work, the games database and the batch jobs.

All of it lives on ``app.state``, set up by :func:`init_state` (from ``create_app``) and read only
through the ``get_*`` functions here. The games database is opened by the app's lifespan
(``api/service.py``); an app driven without one (a ``TestClient`` outside ``with``) opens it on
first use. The batch jobs open on first use: a job the service was running when it stopped is
resumed when the service is next asked about batches.

``app.state.game_database_url`` (``None``: ``CARTOGRAPHERS_DATABASE_URL`` or the default file) and
``app.state.batch_config`` (``(root, workers)``) may be changed between ``create_app`` and start-up.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial
from typing import Annotated, Any

import anyio
from fastapi import Depends, FastAPI, Request
from starlette.datastructures import State

from api.batch_jobs import BatchJobs, batch_root
from api.errors import ApiError
from api.settings import Settings
from api.store import Store


class CpuWork:
    """Runs CPU work (reading a photo, scoring, validating) in worker threads: at most
    ``settings.cpu_threads`` at once, each answered 504 ``timeout`` past ``settings.time_limit``."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self._limiter: anyio.CapacityLimiter | None = (
            None  # made inside the event loop, on first use
        )

    async def run(self, fn: Callable, *args: Any) -> Any:
        """``fn(*args)`` in a worker thread, so the event loop keeps answering.

        The limit counts the work, not the wait for a free CPU thread: under load, requests queue
        (bounded by uvicorn's ``--limit-concurrency``) instead of timing out before they start.
        """
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self.settings.cpu_threads)
        limit = self.settings.time_limit
        async with self._limiter:
            try:
                with anyio.fail_after(limit):
                    return await anyio.to_thread.run_sync(
                        partial(fn, *args), abandon_on_cancel=True
                    )
            except TimeoutError:
                raise ApiError(
                    "timeout", f"the work took longer than the {limit:g} s limit"
                ) from None


def init_state(app: FastAPI, settings: Settings) -> None:
    """Everything the routes share, on ``app.state``; nothing is opened yet."""
    app.state.settings = settings
    app.state.cpu = CpuWork(settings)
    app.state.game_database_url = (
        None  # None: CARTOGRAPHERS_DATABASE_URL, else the default SQLite file
    )
    app.state.game_store = None  # opened by the lifespan, or on first use
    app.state.batch_config = (batch_root(), settings.cpu_threads)  # (job folders, worker processes)
    app.state.batch_jobs = None  # opened on first use


_opening = threading.Lock()  # one Store / BatchJobs per app, even if two requests ask at once


def open_store(state: State) -> Store:
    """The app's games database, opened if it is not yet."""
    with _opening:
        if state.game_store is None:
            state.game_store = Store(state.game_database_url)
    return state.game_store


def close_store(state: State) -> None:
    with _opening:
        store, state.game_store = state.game_store, None
    if store is not None:
        store.close()


# ---- the dependencies ----------------------------------------------------------------------------
async def get_settings(request: Request) -> Settings:
    return request.app.state.settings


async def get_cpu(request: Request) -> CpuWork:
    return request.app.state.cpu


async def get_store(request: Request) -> Store:
    state = request.app.state
    return state.game_store if state.game_store is not None else open_store(state)


async def get_batch_jobs(request: Request) -> BatchJobs:
    """The app's batch jobs, set up on first use;
    unfinished jobs (the service stopped) then resume."""
    state = request.app.state
    with _opening:
        if state.batch_jobs is None:
            root, workers = state.batch_config
            state.batch_jobs = BatchJobs(root, workers)
            state.batch_jobs.resume_unfinished()
    return state.batch_jobs


SettingsDep = Annotated[Settings, Depends(get_settings)]
CpuDep = Annotated[CpuWork, Depends(get_cpu)]
StoreDep = Annotated[Store, Depends(get_store)]
BatchJobsDep = Annotated[BatchJobs, Depends(get_batch_jobs)]
