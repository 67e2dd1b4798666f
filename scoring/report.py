"""The score report of ``docs/formats.md``: what
``score-map``, ``score`` and ``/v1/score-map`` return."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scoring.board import Board
from scoring.cards import CARDS, card_slug, score_card
from scoring.seasons import SEASONS, check_setup, get_season, monster_penalty_cells, score_season
from scoring.sheet import Sheet


def parse_cards(text: str) -> list[str] | str:
    """``"a,b,c,d"`` (slugs or printed names) → the four slugs (checked); ``"all"`` → ``"all"``.

    >>> parse_cards("Sentinel Wood, canal lake, WILDHOLDS, the-broken-road")
    ['sentinel-wood', 'canal-lake', 'wildholds', 'broken-road']
    """
    if text.strip().lower() == "all":
        return "all"
    slugs = [card_slug(s) for s in text.split(",") if s.strip()]
    check_setup(slugs)
    return slugs


def score_report(
    sheet: Sheet, cards: Sequence[str] | str, season: str | None = None
) -> dict[str, Any]:
    """Score a sheet for four edict cards (A, B, C, D) or for ``"all"`` sixteen cards.

    With four cards: ``seasons`` holds the named season, or all four seasons scored on this same
    sheet when no season is named (a quick look at a finished map); ``total`` is their sum.
    """
    board = Board(sheet)
    monster_cells = monster_penalty_cells(board)
    out: dict[str, Any] = {
        "side": sheet.side,
        "coins": sheet.coins,
        "monster_penalty": len(monster_cells),
        "monster_cells": [list(c) for c in monster_cells],
        "warnings": list(sheet.warnings),
    }
    if cards == "all" and season is not None:
        raise ValueError("--season needs the four edict cards, not 'all'")
    if cards != "all":
        out["warnings"] += check_setup(cards)
    results = {slug: score_card(slug, board) for slug in (CARDS if cards == "all" else cards)}
    out["cards"] = {slug: r.stars for slug, r in results.items()}
    out["evidence"] = {slug: [e.to_json() for e in r.evidence] for slug, r in results.items()}
    if cards == "all":
        return out
    names = [get_season(season).name] if season else [s.name for s in SEASONS]
    seasons = [score_season(board, cards, name, scored=results) for name in names]
    out["edicts"] = dict(zip("ABCD", cards))
    out["seasons"] = [s.to_json() for s in seasons]
    for s in out["seasons"]:  # evidence is given once per card, above
        for e in s["edicts"]:
            e.pop("evidence")
    out["total"] = sum(s.total for s in seasons)
    return out
