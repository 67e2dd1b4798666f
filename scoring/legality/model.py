"""The CP-SAT model of drawings that every level of the legality validator builds on.

Encoding (CP-SAT, exact). One boolean per possible drawing: (card revealed at turn *i*, shape,
position) restricted to cells that the sheet shows in one allowed terrain. Each drawn cell is
covered exactly once; each revealed card makes exactly one drawing. Two drawings on one sheet never
share a cell, and a cell once filled stays filled with the same terrain, so whether a cell was empty
when a drawing was made is already implied by the exact cover: **the only order-dependent rules are
the fallbacks** ("no shape fits", "no shape covers an unfilled ruin", the ambush 1×1) and the solo
ambush sweep. Those are encoded with booleans ``F[c, i]`` = "cell *c* was filled before turn *i*"
(a prefix sum of the cover), and a fallback at turn *i* requires every candidate position of the
card's shapes to contain a cell filled before *i*. "Must cover an *unfilled* ruins cell" needs no
order: a drawing that covers a ruins cell covers it while it is empty, or two drawings would
overlap.

When a level finds the sheet illegal, a second solve minimises the cells left unexplained (and the
turns left without a drawing, and the coin difference): the verdict names those cells.
A search that runs past the time limit answers ``cannot-tell``.

Where each part lives: the sheet level's model in :mod:`scoring.legality.sheet_level`, the card
log's order-free relaxation in :mod:`scoring.legality.order_free` and its exact per-turn model (with
``F[c, i]``) in :mod:`scoring.legality.per_turn`. This module holds what they share: the masks of a
sheet (:class:`SheetFacts`), the model with one boolean per drawing and the cover of each cell
(:class:`DrawingModel`), and the witness format (:func:`drawing_json`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

# imported at module load: loading it (~0.5 s) must not eat a check's time
from ortools.sat.python import cp_model

from scoring.board import NEIGHBOURS
from scoring.seasons import SEASONS
from scoring.shapes import FULL_MASK, cells_of, indices_of, mask_of
from scoring.sheet import Sheet
from scoring.sides import SIZE
from scoring.terrain import Terrain

N = SIZE * SIZE
#: One boolean (or integer) variable of a CP-SAT model.
Var = cp_model.IntVar
BITS = tuple(1 << i for i in range(N))


class SheetFacts:
    """Masks of one sheet: drawn cells per terrain,
    printed cells, empty cells, surrounded mountains."""

    def __init__(self, sheet: Sheet):
        self.sheet = sheet
        layout = sheet.layout
        self.printed = mask_of(layout.printed_filled)
        self.ruins = mask_of(layout.ruins)
        self.by_terrain: dict[Terrain, int] = {t: 0 for t in Terrain}
        for (r, c), t in sheet.items():
            self.by_terrain[t] |= BITS[r * SIZE + c]
        self.drawn = FULL_MASK & ~self.printed & ~self.by_terrain[Terrain.EMPTY]
        self.empty = self.by_terrain[Terrain.EMPTY]
        self.surrounded = sorted(
            (r, c)
            for r, c in layout.mountains
            if all(self.empty >> j & 1 == 0 for j in NEIGHBOURS[r * SIZE + c])
        )

    def terrain_at(self, i: int) -> Terrain:
        r, c = divmod(i, SIZE)
        return self.sheet.cells[r][c]


class DrawingModel:
    """A CP-SAT model of drawings, with the helpers every level shares.

    ``m`` is the ``CpModel``; ``vars`` the drawings made so far, ``(var, info)`` with the drawing's
    cells in ``info["mask"]``; ``cover[i]`` the drawings that cover drawn cell ``i``.
    """

    def __init__(self, facts: SheetFacts, windows: dict[int, tuple[int, int]] | None = None):
        self.cp = cp_model
        self.m = cp_model.CpModel()
        self.facts = facts
        self.windows = windows  # cell → (first season it may be drawn in, last season)
        self.cover: dict[int, list[Var]] = {i: [] for i in indices_of(facts.drawn)}
        self.vars: list[tuple[Var, dict[str, Any]]] = []  # (var, info)

    def allowed_mask(self, season: int | None) -> int:
        if self.windows is None or season is None:
            return self.facts.drawn
        return sum(BITS[i] for i, (lo, hi) in self.windows.items() if lo <= season <= hi)

    def new_drawing(self, mask: int, info: dict[str, Any]) -> Var:
        v = self.m.new_bool_var(f"d{len(self.vars)}")
        self.vars.append((v, {**info, "mask": mask}))
        for i in indices_of(mask):
            self.cover[i].append(v)
        return v

    def solve(self, seconds: float) -> tuple[cp_model.CpSolver, Any]:
        solver = self.cp.CpSolver()
        solver.parameters.max_time_in_seconds = max(0.01, seconds)
        # One worker with the strongest LP relaxation: on these exact-cover models it proves
        # infeasibility 10–100× faster than the default portfolio (measured; docs/game-engine.md).
        solver.parameters.num_workers = 1
        solver.parameters.linearization_level = 2
        status = solver.solve(self.m)
        return solver, status


def shape_masks(
    masks: Iterable[int], allowed_by_terrain: dict[Terrain, int], terrains: Iterable[Terrain]
) -> list[tuple[int, Terrain]]:
    """(mask, terrain) for each position whose cells all
    show one allowed terrain (the first that fits)."""
    out = []
    for m in masks:
        for t in terrains:
            a = allowed_by_terrain[t]
            if m & a == m:
                out.append((m, t))
                break
    return out


def season_windows(
    facts: list[SheetFacts], sheet_seasons: list[int]
) -> dict[int, tuple[int, int]] | None:
    """With earlier season sheets: for each cell drawn on the last one, the first and last season it
    can have been drawn in (``None`` without earlier sheets)."""
    if len(facts) < 2:
        return None
    out = {}
    for i in indices_of(facts[-1].drawn):
        lo, hi = 0, sheet_seasons[-1]
        for f, s in zip(facts, sheet_seasons):
            if f.drawn >> i & 1:
                hi = min(hi, s)
            else:
                lo = max(lo, s + 1)
        out[i] = (lo, hi)
    return out


def drawing_json(season: int, turn: int | None, card: str, info: dict[str, Any]) -> dict[str, Any]:
    """One drawing of a witness: ``season, turn, card, kind, shape, terrain, cells``."""
    t = info.get("terrain")
    return {
        "season": SEASONS[season].name if season is not None else None,
        "turn": turn,
        "card": card,
        "kind": info["kind"],
        "shape": info.get("shape"),
        "terrain": t.value if t else None,
        "cells": [list(c) for c in cells_of(info["mask"])],
    }


def in_turn_order(drawings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A witness's drawings sorted by season, then turn (in place; returned)."""
    drawings.sort(key=lambda d: ([s.name for s in SEASONS].index(d["season"]), d["turn"]))
    return drawings
