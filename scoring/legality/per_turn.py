"""Level ``log``, stage B: the exact model of one sheet against a card log, turn by turn.

One drawing per revealed card in the order the cards came. The order matters only for the
fallbacks and the solo ambush sweep (:mod:`scoring.legality.model` explains why); those use
``F[c, i]`` = "cell *c* was filled before turn *i*", a prefix sum of the cover along the log.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ortools.sat.python.cp_model import CpSolver

from scoring.decks import AMBUSH, ANY_TERRAIN, EXPLORE, AmbushCard
from scoring.engine import solo_sweep
from scoring.legality.card_log import CardLog, Event, log_events
from scoring.legality.model import (
    BITS,
    DrawingModel,
    SheetFacts,
    Var,
    drawing_json,
    in_turn_order,
    season_windows,
    shape_masks,
)
from scoring.shapes import indices_of
from scoring.sheet import Sheet
from scoring.terrain import Terrain


class PerTurnModel:
    """The per-turn model of one sheet against a card log (see the module docstring)."""

    def __init__(self, sheets: list[Sheet], sheet_seasons: list[int], log: CardLog):
        self.facts = [SheetFacts(s) for s in sheets]
        self.last = self.facts[-1]
        self.sheet_seasons = sheet_seasons
        self.log = log
        self.events = [e for e in log_events(log) if e.season <= sheet_seasons[-1]]
        self.windows = season_windows(self.facts, sheet_seasons)
        self.solve = DrawingModel(self.last, self.windows)
        self.m = self.solve.m
        self.event_vars: list[list[Var]] = [[] for _ in self.events]
        self.event_cover: list[dict[int, list[Var]]] = [dict() for _ in self.events]
        self.coin_vars: list[list[Var]] = [[] for _ in self.events]
        self.F: dict[int, list[Var | None]] = {}
        self.order_constraints = 0
        # (masks, event, literal): literal ⇒ each mask
        # holds a cell filled before the event; added last
        self._pending_blocks: list[tuple[set[int], int, Var]] = []
        self._build()

    # -- helpers --
    def _draw(self, e: Event, mask: int, info: dict[str, Any], coin: bool = False) -> Var:
        v = self.solve.new_drawing(mask, {"event": e.index, "card": e.card, **info})
        self.event_vars[e.index].append(v)
        for i in indices_of(mask):
            self.event_cover[e.index].setdefault(i, []).append(v)
        if coin:
            self.coin_vars[e.index].append(v)
        return v

    def _filled_before(self, i: int, ev: int) -> Var | bool | None:
        """Bool var: cell ``i`` (drawn on the final sheet) was filled before event ``ev``; ``True``
        or ``None`` (false) when the earlier season sheets settle it."""
        if self.windows is not None:
            lo, hi = self.windows[i]
            season = self.events[ev].season if ev < len(self.events) else 99
            if hi < season:
                return True  # drawn by the end of an earlier season
            if lo > season:
                return None  # not drawn until a later season
        chain = self.F.get(i)
        if chain is None:
            chain = self.F[i] = [
                None
            ]  # F[i][0]: before the first event, never (drawn cells are not printed)
        while len(chain) <= ev:
            k = len(chain) - 1  # chain[k] = filled before event k; add chain[k + 1]
            cover = self.event_cover[k].get(i, [])
            nxt = self.m.new_bool_var(f"F{i}_{k + 1}")
            prev = chain[k]
            self.m.add(nxt == (prev if prev is not None else 0) + sum(cover))
            chain.append(nxt)
        return chain[ev]

    def _require_blocked(self, candidates: Iterable[int], ev: int, lit: Var) -> set[int] | None:
        """``lit`` ⇒ every candidate position holds a cell filled before event ``ev``.
        Returns the set of blocking masks, or None (adding nothing) when some candidate can never be
        blocked."""
        last = self.last
        seen: set[int] = set()
        for p in candidates:
            if p & last.printed:
                continue
            d = p & last.drawn
            if not d:
                return None
            seen.add(d)
        self._pending_blocks.append((seen, ev, lit))
        return seen

    def _flush_blocks(self) -> None:
        for seen, ev, lit in self._pending_blocks:
            for d in seen:
                terms = [
                    f for f in (self._filled_before(i, ev) for i in indices_of(d)) if f is not None
                ]
                if any(f is True for f in terms):
                    continue
                if terms:
                    self.m.add_bool_or(terms).only_enforce_if(lit)
                else:  # nothing is filled before the first turn
                    self.m.add_bool_or([lit.negated()])
                self.order_constraints += 1

    # -- the model --
    def _build(self) -> None:
        for e in self.events:
            allowed = self.solve.allowed_mask(e.season)
            by_t = {t: self.last.by_terrain[t] & allowed for t in Terrain}
            if e.card in AMBUSH:
                self._ambush_turn(e, by_t)
            else:
                self._explore_turn(e, by_t)
        self._one_each()
        self._coins()
        self._flush_blocks()

    def _ambush_turn(self, e: Event, by_t: dict[Terrain, int]) -> None:
        """An ambush: its shape anywhere (a neighbour draws it), the monster 1×1 when no position is
        free, the solo sweep with one player."""
        card = AMBUSH[e.card]
        if self.log.players == 1:
            self._solo_ambush(e, card, by_t)
            return
        for mask, t in shape_masks(card.placements, by_t, (Terrain.MONSTER,)):
            self._draw(e, mask, {"kind": "ambush", "shape": card.shape_text, "terrain": t})
        singles = [i for i in indices_of(by_t[Terrain.MONSTER])]
        self._fallback(e, card.placements, singles, "ambush-fallback")
        self._maybe_skip(e)

    def _explore_turn(self, e: Event, by_t: dict[Terrain, int]) -> None:
        """An explore card: its shapes (on a ruin after a ruins card), then its 1×1 fallback."""
        last = self.last
        card = EXPLORE[e.card]
        for opt in card.options:
            masks: Iterable[int] = opt.placements
            if e.ruins:
                masks = [p for p in masks if p & last.ruins]
            for mask, t in shape_masks(masks, by_t, card.terrains):
                self._draw(
                    e, mask, {"kind": "shape", "shape": opt.text, "terrain": t}, coin=opt.coin
                )
        if card.kind == "rift" and not e.ruins:
            self._maybe_skip(e)
            return
        # the 1×1 fallback: under ruins any terrain when no shape can cover an unfilled ruin,
        # otherwise a card terrain when no shape fits at all
        terrains = ANY_TERRAIN if e.ruins else card.terrains
        candidates = [
            p for opt in card.options for p in opt.placements if not e.ruins or p & last.ruins
        ]
        singles = [i for t in terrains for i in indices_of(by_t[t])]
        self._fallback(e, candidates, singles, "ruins-fallback" if e.ruins else "fallback")
        self._maybe_skip(e)

    def _fallback(self, e: Event, candidates: Iterable[int], singles: list[int], kind: str) -> None:
        """The 1×1 drawings on ``singles``, each allowed only when every candidate position of the
        card is blocked at that turn."""
        if not singles:
            return
        lit = self.m.new_bool_var(f"fb{e.index}")
        blocks = self._require_blocked(candidates, e.index, lit)
        if blocks is None:
            return
        for i in singles:
            if BITS[i] in blocks:
                continue  # a position only this cell could block: it is empty then
            v = self._draw(
                e, BITS[i], {"kind": kind, "shape": None, "terrain": self.last.terrain_at(i)}
            )
            self.m.add_implication(v, lit)

    def _one_each(self) -> None:
        """Every drawn cell exactly once; every event exactly one drawing."""
        m = self.m
        for vs in self.solve.cover.values():
            m.add_exactly_one(vs) if vs else m.add_bool_or([])
        for e in self.events:
            vs = self.event_vars[e.index]
            if vs:
                m.add_exactly_one(vs)
            else:
                m.add_bool_or([])  # nothing this card could have drawn

    def _coins(self) -> None:
        """The coins at the end of each known season."""
        for f, s in zip(self.facts, self.sheet_seasons):
            cv = [v for e in self.events if e.season <= s for v in self.coin_vars[e.index]]
            self.m.add(sum(cv) == f.sheet.coins - len(f.surrounded))

    def _maybe_skip(self, e: Event) -> None:
        """Nothing drawn: only when no cell of the map is empty at that moment."""
        last = self.last
        if last.empty:
            return
        lit = self.m.new_bool_var(f"skip{e.index}")
        self.event_vars[e.index].append(lit)
        self._pending_blocks.append(({BITS[i] for i in indices_of(last.drawn)}, e.index, lit))

    def _solo_ambush(self, e: Event, card: AmbushCard, by_t: dict[Terrain, int]) -> None:
        """Solo: the first sweep position that fits at that moment; none fits → no drawing."""
        m, last = self.m, self.last
        sweep = solo_sweep(card)
        monsters = by_t[Terrain.MONSTER]
        prev_all_blocked = None  # literal: every earlier position blocked (None = true)
        earlier: list[
            int
        ] = []  # drawn cells of each earlier position that printed cells do not block
        for k, p in enumerate(sweep):
            if p & monsters == p and all(d & ~p for d in earlier):
                v = self._draw(
                    e,
                    p,
                    {"kind": "solo-ambush", "shape": card.shape_text, "terrain": Terrain.MONSTER},
                )
                if prev_all_blocked is not None:
                    m.add_implication(v, prev_all_blocked)
            # position k blocked?
            if p & last.printed:
                continue  # always blocked: the chain goes on unchanged
            d = p & last.drawn
            if not d:
                # this position is free until the end: no later position (nor a skip) can be chosen
                return
            nxt = m.new_bool_var(f"ab{e.index}_{k}")
            if prev_all_blocked is not None:
                m.add_implication(nxt, prev_all_blocked)
            self._pending_blocks.append(({d}, e.index, nxt))
            earlier.append(d)
            prev_all_blocked = nxt
        lit = m.new_bool_var(f"skip{e.index}")
        self.event_vars[e.index].append(lit)
        if prev_all_blocked is not None:
            m.add_implication(lit, prev_all_blocked)

    # -- answers --
    def run(self, seconds: float) -> tuple[CpSolver, Any]:
        return self.solve.solve(seconds)

    def witness(self, solver: CpSolver) -> list[dict[str, Any]]:
        """One drawing per turn, as the solver found it: a witness that the sheet is legal."""
        out = []
        for v, info in self.solve.vars:
            if solver.value(v):
                e = self.events[info["event"]]
                out.append(drawing_json(e.season, e.turn, e.card, info))
        return in_turn_order(out)
