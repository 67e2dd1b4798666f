"""The service's work, free of HTTP: checking an upload, reading a photo, scoring and validating a
sheet. Each function either answers JSON-ready data or raises an :class:`api.errors.ApiError`; the
routes (``api/routes_*.py``) run the slow ones in a worker thread
(:class:`api.dependencies.CpuWork`).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
from collections.abc import Callable
from functools import lru_cache
from typing import Any

# OR-Tools loads here (~0.5 s), at start-up, not inside a request's time limit
import scoring.validate

# already loaded at start-up by api.uploads (vision.load), so importing it lazily saves nothing
import vision
from api.errors import ApiError
from api.settings import Settings
from api.uploads import image_kind, image_size
from api.words import parse_cards_any as parse_cards
from api.written_view import parse_written, written_fields
from scoring.cards import CardError, card_slug
from scoring.report import score_report
from scoring.seasons import SEASON_BY_NAME, check_setup, score_season
from scoring.sheet import Sheet, SheetError
from scoring.sides import SIDES
from scoring.written import WrittenError, WrittenScores
from scoring.written_checks import checked_total
from vision.classify import ModelMissingError, default_model

#: PhotoError codes that keep their own name in answers; any other is ``unreadable-photo``.
PHOTO_CODES = {
    "empty-file",
    "not-an-image",
    "too-many-pixels",
    "heic-unsupported",
    "no-grid",
    "wrong-side",
}
#: Kinds handed to the reader; it answers ``heic-unsupported`` itself when it lacks the HEIC extra.
READABLE_KINDS = {"jpeg", "png", "webp", "bmp", "tiff", "heic", "gif"}
#: Errors every route that does work can answer: body too large, a bug, over the time limit.
WORK_ERRORS = ("too-large", "internal-error", "timeout")
#: Errors a route that reads an uploaded photo can answer.
PHOTO_ERRORS = (
    *WORK_ERRORS,
    "invalid-request",
    "empty-file",
    "not-an-image",
    "heic-unsupported",
    "too-many-pixels",
    "no-grid",
    "wrong-side",
    "unreadable-photo",
    "reader-unavailable",
)


# ---- request checks (on the event loop: they only look at headers and form fields) -----------
def check_photo(data: bytes, settings: Settings) -> None:
    """Refuse an upload that is empty, not an image we
    decode, or too many pixels — before decoding."""
    if not data:
        raise ApiError("empty-file", "the uploaded photo is empty (0 bytes)", "photo")
    kind = image_kind(data)
    if kind not in READABLE_KINDS:
        raise ApiError(
            "not-an-image",
            "the upload is not an image; send a photo (JPEG, PNG, WebP or HEIC)",
            "photo",
        )
    size = image_size(data, kind)
    if size and size[0] * size[1] > settings.max_pixels:
        raise ApiError(
            "too-many-pixels",
            f"the photo is {size[0]}×{size[1]} = {size[0] * size[1]:,} pixels; "
            f"the limit is {settings.max_pixels:,}",
            "photo",
        )


def check_side(side: str | None) -> str | None:
    if side in (None, ""):
        return None
    if side not in SIDES:
        raise ApiError(
            "invalid-request", f"side must be one of {', '.join(SIDES)}, got {side!r}", "side"
        )
    return side


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
        raise ApiError(
            "bad-season",
            f"unknown season {season!r}; expected one of {', '.join(SEASON_BY_NAME)}",
            "season",
        )
    if cards == "all":
        raise ApiError("bad-season", "a season needs the four edict cards, not 'all'", "season")
    return season


def parse_written_numbers(data: dict | None) -> WrittenScores | None:
    """Typed-in written numbers, or a ``bad-written`` error naming the field."""
    if data is None:
        return None
    try:
        return parse_written(data)
    except WrittenError as e:
        field = "final_total_written" if "final_total_written" in str(e) else "seasons_written"
        raise ApiError("bad-written", str(e), field) from None


def score_sheet(
    sheet_json: dict, cards: list[str] | str, season: str | None, written: dict | None = None
) -> dict:
    """``/v1/score-map``: the score report of a sheet, with the checks of the written numbers."""
    sheet = parse_sheet(sheet_json)
    slugs = parse_card_list(cards)
    season = check_season(season, slugs)
    numbers = parse_written_numbers(written)
    report = score_report(sheet, slugs, season)
    return {**report, **written_fields(numbers, sheet, slugs, season)}


def check_written_numbers(sheet_json: dict, cards: list[str] | str | None, written: dict) -> dict:
    """``/v1/check-written``: the written numbers' checks and the checked total."""
    sheet = parse_sheet(sheet_json)
    slugs = None if cards in (None, "", []) else parse_card_list(cards)  # type: ignore[arg-type]
    if slugs == "all":
        raise ApiError("bad-cards", "the checks take the four edict cards, not 'all'", "cards")
    numbers = parse_written_numbers(written) or WrittenScores.blank()
    out = written_fields(numbers, sheet, slugs)
    out["checked_total"] = None if slugs is None else checked_total(numbers, sheet, slugs)
    if slugs is not None:
        winter = score_season(sheet, slugs, "winter").to_json()
        for edict in winter["edicts"]:
            edict.pop("evidence")
        out["winter_on_map"] = winter
    return out


def check_legality(
    sheet: Sheet, time_limit: float, log: Any = None, previous: Sheet | None = None
) -> dict:
    """The legality validator's verdict as JSON."""
    try:
        return scoring.validate.validate(
            sheet, log=log, previous=previous, time_limit=time_limit
        ).to_json()
    except SheetError as e:
        raise ApiError(
            "bad-sheet", str(e), "previous" if previous is not None else "sheet"
        ) from None
    except ValueError as e:
        raise ApiError("bad-log", str(e), "log") from None


def validate_sheet(body: dict, time_limit: float) -> dict:
    """``/v1/validate``: the verdict and its reasons."""
    sheet = parse_sheet(body["sheet"])
    previous = (
        parse_sheet(body["previous"], "previous") if body.get("previous") is not None else None
    )
    return check_legality(sheet, time_limit, body.get("log"), previous)


def read_sheet_photo(data: bytes, side: str | None) -> vision.Reading:
    """The reader's :class:`vision.Reading` of a photo, photo failures turned into API errors."""
    try:
        return vision.read_photo(data, side=side)
    except ModelMissingError as e:
        raise ApiError(
            "reader-unavailable", f"the photo reader has no trained model: {e}"
        ) from None
    except vision.PhotoError as e:
        code = getattr(e, "code", "")
        message = getattr(e, "message", "") or str(e)
        raise ApiError(
            code if code in PHOTO_CODES else "unreadable-photo", message, "photo"
        ) from None
    finally:
        release_freed_memory()


def score_photo(
    data: bytes, side: str | None, cards: str, season: str | None, time_limit: float
) -> dict:
    """``/v1/score``: reading, score and the sheet-only legality verdict of one photo."""
    slugs = parse_card_list(cards)
    season = check_season(season, slugs)
    reading = read_sheet_photo(data, side)
    report = score_report(reading.sheet, slugs, season)
    return {
        "reading": reading_json(reading),
        "score": {**report, **written_fields(reading.written, reading.sheet, slugs, season)},
        "legality": check_legality(reading.sheet, time_limit),
    }


def reading_json(reading: vision.Reading) -> dict:
    """``/v1/read``: the reading, with the written numbers and their card-free checks."""
    return {**reading.to_json(), **written_fields(reading.written, reading.sheet, None)}


def warm_reader() -> None:
    """Load the reader's model now, so the first photo does not wait for it. Without a model, or
    with one being rewritten, nothing happens: the first read says why (``reader-unavailable``)."""
    # only a head start: the read itself reports any failure
    with contextlib.suppress(Exception):
        default_model()


# ---- memory ------------------------------------------------------------------------------------
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
