"""Level ``log``, stages A and A+: the order-free relaxation of the per-turn model.

The turns of one card are interchangeable except for the fallbacks and the solo sweep, so drawings
are made per card (per card and season when earlier sheets fix the seasons). Quick to solve: a
solution that needs no order check is a legal witness, and infeasible here means illegal. With
``slack`` it finds the cells to blame (:mod:`scoring.legality.log_reasons`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ortools.sat.python import cp_model

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
)
from scoring.shapes import indices_of
from scoring.sheet import Sheet
from scoring.terrain import Terrain

#: A usable position: its mask, the terrain drawn,
#: and the one cell drawn against the sheet (or None).
Position = tuple[int, Terrain, int | None]


class OrderFreeModel:
    """The order-free relaxation of :class:`~scoring.legality.per_turn.PerTurnModel` (stage A).

    The turns of one card are interchangeable except for the fallbacks and the solo sweep, so
    drawings are made per card (per card and season when earlier sheets fix the seasons): the card's
    shapes as many times as it was revealed, at least as many covering a ruins cell as it was
    revealed after a ruins card. A fallback is allowed for a card when some turn of it *could* be
    blocked, and the order of turns is ignored. Infeasible here ⇒ illegal. A solution that uses no
    fallback, no skip and no order-dependent solo-ambush position is a legal explanation as it
    stands (any assignment of the drawings to the card's turns works); otherwise the exact per-turn
    model decides.

    With ``slack``, drawings may disagree with the sheet on one cell each (wrong terrain, or a cell
    the sheet shows empty) and drawn cells may stay unexplained, each at a cost: minimising the cost
    finds the fewest cells whose change would make the sheet legal — the cells the verdict names.
    """

    def __init__(
        self,
        sheets: list[Sheet],
        sheet_seasons: list[int],
        log: CardLog,
        slack: bool = False,
        fallbacks: bool = True,
    ):
        self.fallbacks = fallbacks
        self.facts = [SheetFacts(s) for s in sheets]
        self.last = last = self.facts[-1]
        self.sheet_seasons = sheet_seasons
        self.log = log
        self.slack = slack
        self.events = [e for e in log_events(log) if e.season <= sheet_seasons[-1]]
        self.windows = season_windows(self.facts, sheet_seasons)
        self.solve = DrawingModel(last, self.windows)
        self.m = self.solve.m
        self.order_free: list[Var] = []  # vars whose use needs no order check
        self.ordered: list[Var] = []  # vars whose use needs the per-turn model
        self.costs: list[tuple[Var, int, Any]] = []  # (var, weight, what)
        self.coin_vars: dict[int | None, list[Var]] = {}  # season → coin-shape vars
        self.mismatch: dict[Var, int] = {}  # var → the cell it draws against the sheet
        self._build()

    # -- helpers --
    def _masks(
        self, masks: Iterable[int], terrains: Iterable[Terrain], allowed: int
    ) -> list[Position]:
        """(mask, terrain, mismatched cell or None) for each usable position."""
        last = self.last
        out: list[Position] = []
        ok = {t: last.by_terrain[t] & allowed for t in terrains}
        for mk in masks:
            if mk & last.printed:
                continue
            best: Position | None = None
            for t in terrains:
                bad = mk & ~ok[t]
                if not bad:
                    best = (mk, t, None)
                    break
                if self.slack and best is None and bad & (bad - 1) == 0:
                    best = (mk, t, bad.bit_length() - 1)
            if best is not None:
                out.append(best)
        return out

    def _new(
        self,
        position: Position,
        info: dict[str, Any],
        season: int | None,
        ordered: bool,
        coin: bool = False,
    ) -> Var:
        mk, t, bad = position
        v = self.m.new_bool_var(f"a{len(self.solve.vars)}")
        self.solve.vars.append((v, {**info, "mask": mk, "terrain": t}))
        for i in indices_of(mk):
            self.solve.cover.setdefault(i, []).append(v)
        (self.ordered if ordered else self.order_free).append(v)
        if bad is not None:
            self.mismatch[v] = bad
            self.costs.append((v, 1, "mismatch"))
        if coin:
            self.coin_vars.setdefault(season, []).append(v)
        return v

    def _blockable(self, candidates: Iterable[int]) -> bool:
        """Could every candidate position be blocked at some moment? (Not if one lies in cells that
        stay empty to the end.)"""
        if not self.fallbacks:
            return False
        last = self.last
        return all(p & last.printed or p & last.drawn for p in candidates)

    def _skip(self, info: dict[str, Any], ordered: bool) -> Var:
        v = self.m.new_bool_var(f"skip{len(self.solve.vars)}")
        self.solve.vars.append((v, {**info, "kind": "skip", "mask": 0, "terrain": None}))
        (self.ordered if ordered else self.order_free).append(v)
        return v

    def _exactly(self, vs: list[Any], n: int, info: dict[str, Any]) -> None:
        if self.slack:
            short = self.m.new_int_var(0, n, f"short{len(self.costs)}")
            self.costs.append((short, 3, ("turns", info)))
            self.m.add(sum(vs) + short == n)
        else:
            self.m.add(sum(vs) == n)

    # -- the model --
    def _build(self) -> None:
        last = self.last
        groups: dict[tuple[str, int | None], list[Event]] = {}
        for e in self.events:
            groups.setdefault(
                (e.card, e.season if (self.windows or e.card in AMBUSH) else None), []
            ).append(e)
        for (slug, season), evs in groups.items():
            allowed = self.solve.allowed_mask(season) if self.windows else last.drawn
            info = {"card": slug, "season": season, "turns": [e.index for e in evs]}
            if slug in AMBUSH:
                self._ambush_group(slug, evs, allowed, info)
            else:
                self._explore_group(slug, evs, season, allowed, info)
        self._cover()
        self._coins()
        if self.slack:
            self.objective = sum(w * v for v, w, _ in self.costs)
            self.m.minimize(self.objective)

    def _ambush_group(
        self, slug: str, evs: list[Event], allowed: int, info: dict[str, Any]
    ) -> None:
        """An ambush (revealed once): its shape anywhere, or with one player a sweep position; the
        monster 1×1 when every position could be blocked; nothing on a full map."""
        card = AMBUSH[slug]
        (e,) = evs
        vs = []
        if self.log.players == 1:
            vs += self._solo_sweep(card, e, allowed, info)
        else:
            for mk in self._masks(card.placements, (Terrain.MONSTER,), allowed):
                vs.append(
                    self._new(
                        mk, {**info, "kind": "ambush", "shape": card.shape_text}, e.season, False
                    )
                )
            if self._blockable(card.placements):
                for mk in self._masks(list(BITS), (Terrain.MONSTER,), allowed):
                    vs.append(
                        self._new(
                            mk, {**info, "kind": "ambush-fallback", "shape": None}, e.season, True
                        )
                    )
            if not self.last.empty and self.fallbacks:
                vs.append(self._skip(info, ordered=True))
        self._exactly(vs, len(evs), info)

    def _solo_sweep(
        self, card: AmbushCard, e: Event, allowed: int, info: dict[str, Any]
    ) -> list[Var]:
        """The solo sweep positions that can be chosen; order-free only while every earlier position
        holds a printed cell."""
        last = self.last
        vs: list[Var] = []
        prefix_printed = True
        for p in solo_sweep(card):
            if p & last.printed:
                continue
            for mk in self._masks([p], (Terrain.MONSTER,), allowed):
                vs.append(
                    self._new(
                        mk,
                        {**info, "kind": "solo-ambush", "shape": card.shape_text},
                        e.season,
                        ordered=not prefix_printed,
                    )
                )
            prefix_printed = False
            if not p & last.drawn:
                break  # free to the end: no later position can be chosen
        else:
            if self.fallbacks:
                vs.append(self._skip(info, ordered=True))
        return vs

    def _explore_group(
        self, slug: str, evs: list[Event], season: int | None, allowed: int, info: dict[str, Any]
    ) -> None:
        """An explore card's turns: its shapes (enough of them on a ruin for the turns after a ruins
        card), the 1×1 fallbacks when every position could be blocked, nothing on a full map."""
        m, last = self.m, self.last
        card = EXPLORE[slug]
        n = len(evs)
        r = sum(1 for e in evs if e.ruins)
        y_ruins: list[Var] = []
        y_plain: list[Var] = []
        z_plain: list[Var] = []
        z_ruins: list[Var] = []
        for opt in card.options:
            for mk in self._masks(opt.placements, card.terrains, allowed):
                v = self._new(
                    mk, {**info, "kind": "shape", "shape": opt.text}, season, False, coin=opt.coin
                )
                (y_ruins if mk[0] & last.ruins else y_plain).append(v)
        plain_candidates = [p for opt in card.options for p in opt.placements]
        ruin_candidates = [p for p in plain_candidates if p & last.ruins]
        singles = list(BITS)
        if card.kind != "rift" and n - r > 0 and self._blockable(plain_candidates):
            for mk in self._masks(singles, card.terrains, allowed):
                z_plain.append(
                    self._new(mk, {**info, "kind": "fallback", "shape": None}, season, True)
                )
        if r > 0 and self._blockable(ruin_candidates):
            for mk in self._masks(singles, ANY_TERRAIN, allowed):
                z_ruins.append(
                    self._new(mk, {**info, "kind": "ruins-fallback", "shape": None}, season, True)
                )
        skip = [self._skip(info, ordered=True)] if not last.empty and self.fallbacks else []
        self._exactly(y_ruins + y_plain + z_plain + z_ruins + skip, n, info)
        if r:
            m.add(sum(y_ruins) + sum(z_ruins) + sum(skip) >= r)
            m.add(sum(z_ruins) <= r)
        if n - r:
            m.add(sum(y_plain) + sum(z_plain) <= n - r)
        else:
            for v in y_plain + z_plain:
                m.add(v == 0)

    def _cover(self) -> None:
        """Every drawn cell covered once (with ``slack``: or left unexplained at a cost; cells drawn
        against the sheet at most once)."""
        m, last = self.m, self.last
        for i in indices_of(last.drawn):
            vs = self.solve.cover.get(i, [])
            if self.slack:
                u = m.new_bool_var(f"u{i}")
                self.costs.append((u, 1, ("cell", i)))
                m.add(sum(vs) + u == 1)
            elif vs:
                m.add_exactly_one(vs)
            else:
                m.add_bool_or([])
        if self.slack:
            for i, vs in self.solve.cover.items():
                if not last.drawn >> i & 1 and len(vs) > 1:
                    m.add(sum(vs) <= 1)

    def _coins(self) -> None:
        """The coin shapes drawn by the end of each known season give its coins less its surrounded
        mountains (with ``slack``: any difference at a cost)."""
        m = self.m
        for f, s in zip(self.facts, self.sheet_seasons):
            need = f.sheet.coins - len(f.surrounded)
            cv = [
                v
                for season, vs in self.coin_vars.items()
                if season is None or season <= s
                for v in vs
            ]
            if self.slack:
                plus, minus = m.new_int_var(0, 40, f"cp{s}"), m.new_int_var(0, 40, f"cm{s}")
                self.costs.append((plus, 1, ("coins+", f, s)))
                self.costs.append((minus, 1, ("coins-", f, s)))
                m.add(sum(cv) + plus - minus == need)
            else:
                m.add(sum(cv) == need)

    # -- answers --
    def run(self, seconds: float) -> tuple[cp_model.CpSolver, Any]:
        return self.solve.solve(seconds)

    def witness(self, solver: cp_model.CpSolver) -> list[dict[str, Any]]:
        """The order-free witness, its drawings given to the card's turns in order (ruins turns
        first get the drawings that cover a ruins cell)."""
        out = []
        by_group: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
        for v, info in self.solve.vars:
            if solver.value(v):
                by_group.setdefault((info["card"], info["season"]), []).append(info)
        for infos in by_group.values():
            turns = [self.events[i] for i in infos[0]["turns"]]
            ruins_first = sorted(infos, key=lambda d: not (d["mask"] & self.last.ruins))
            ordered = sorted(turns, key=lambda e: not e.ruins)
            for e, info in zip(ordered, ruins_first):
                out.append(drawing_json(e.season, e.turn, e.card, info))
        return in_turn_order(out)
