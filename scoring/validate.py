"""The legality validator: could a real game have produced this sheet?

Three levels, each answering ``legal`` / ``illegal`` / ``cannot-tell`` with reasons naming cells:

``sheet``
    The sheet alone. The printed layout is respected (``Sheet`` refuses anything else), the coins
    equal the surrounded mountains plus a number of coin shapes the cover below can hold, and the
    drawn cells are an exact cover by placements of the game's shapes in their allowed terrains —
    monsters as ambush shapes or 1×1s, any cell as a 1×1 (Rift Lands or a fallback) — within what
    four seasons allow: each explore card at most once a season, at most 7/7/7/6 explore drawings,
    the time of the drawn cards within the season thresholds, each ambush at most once.
``log``
    With the table's card log (the cards revealed each season, in order): one drawing per revealed
    card — a shape of that card in one of its terrains, or the 1×1 fallback only when the rules
    allow it at that moment — that together produce exactly this sheet and its coins. Ruins rules
    included: after a ruins card the shape must cover a ruins cell, and the 1×1 of any terrain is
    allowed only when no shape of the card could then cover an unfilled ruins cell.
``seasons``
    With the sheets at the end of earlier seasons: nothing drawn earlier changed, the coins never
    went down, and each season's new cells (and coins) are explained by that season's cards (by the
    log when given, else by the sheet-level limits for one season).

This module is the front door: :func:`validate` runs the levels its inputs allow. The levels live
in the package :mod:`scoring.legality` (one module each: ``sheet_level``, ``log_level``,
``seasons_level``); how they are encoded for CP-SAT is explained in :mod:`scoring.legality.model`.
The names other code uses are re-exported here.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from scoring.legality.card_log import CardLog, Event, log_events, parse_log
from scoring.legality.log_level import check_log_level
from scoring.legality.replay import replay
from scoring.legality.seasons_level import check_seasons_level
from scoring.legality.sheet_level import (
    MAX_COIN_SHAPES,
    MAX_EXPLORE_TURNS,
    MAX_SEASON_TIME,
    check_sheet_level,
)
from scoring.legality.verdicts import LEVELS, STATUSES, Check, Reason, Verdict, combine
from scoring.sheet import Sheet


def validate(
    sheet: Sheet,
    *,
    log: dict[str, Any] | CardLog | None = None,
    previous: Sheet | Sequence[Sheet] | None = None,
    time_limit: float = 5.0,
) -> Verdict:
    """Check a sheet at every level its inputs allow (see the module docstring).

    ``log`` is a card log (:func:`parse_log`; a malformed one raises ``ValueError`` naming the
    field). ``previous`` are the sheets at the end of the earlier seasons, spring first; the sheet
    is then the one at the end of the next season (with a log: at the end of the log's last
    season, the earlier sheets at the end of its first seasons). ``time_limit`` bounds the whole
    check in seconds; a level that runs out answers ``cannot-tell``.
    """
    t0 = time.perf_counter()
    deadline = t0 + time_limit
    card_log = parse_log(log) if log is not None else None
    previous = _earlier_sheets(previous)
    final_season = _final_season(card_log, previous)
    checks: list[Check] = []

    # level 1: the sheet alone (all four seasons' limits)
    share = deadline if card_log is None and not previous else t0 + time_limit * 0.3
    checks.append(check_sheet_level([sheet], [(0, 3)], share, "sheet"))

    # level 2: with the card log
    if card_log is not None:
        share = (
            deadline
            if not previous
            else time.perf_counter() + (deadline - time.perf_counter()) * 0.6
        )
        checks.append(check_log_level([sheet], [final_season], card_log, share, "log"))

    # level 3: with the earlier season sheets
    if previous:
        checks.append(check_seasons_level(previous, sheet, final_season, card_log, deadline))
    return combine(checks)


def _earlier_sheets(previous: Sheet | Sequence[Sheet] | None) -> list[Sheet]:
    """``previous`` as a list of at most three sheets; ``ValueError`` naming the bad one."""
    if isinstance(previous, Sheet):
        previous = [previous]
    previous = list(previous or [])
    for k, p in enumerate(previous):
        if not isinstance(p, Sheet):
            raise ValueError(f"previous[{k}]: must be a Sheet")
    if len(previous) > 3:
        raise ValueError(f"previous: at most 3 earlier season sheets, got {len(previous)}")
    return previous


def _final_season(card_log: CardLog | None, previous: list[Sheet]) -> int:
    """The season at whose end the sheet is: the log's last, else the one after the earlier sheets
    (winter without them)."""
    if card_log is not None:
        final_season = len(card_log.seasons) - 1
        if previous and len(previous) > final_season:
            raise ValueError(
                f"previous: {len(previous)} earlier sheets but the log has only "
                f"{len(card_log.seasons)} season(s)"
            )
        return final_season
    return len(previous) if previous else 3


__all__ = [
    "validate",
    "replay",
    "Verdict",
    "Check",
    "Reason",
    "CardLog",
    "parse_log",
    "log_events",
    "Event",
    "LEVELS",
    "STATUSES",
    "MAX_EXPLORE_TURNS",
    "MAX_SEASON_TIME",
    "MAX_COIN_SHAPES",
]
