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

Encoding (CP-SAT, exact). One boolean per possible drawing: (card revealed at turn *i*, shape,
position) restricted to cells that the sheet shows in one allowed terrain. Each drawn cell is covered
exactly once; each revealed card makes exactly one drawing. Two drawings on one sheet never share a
cell, and a cell once filled stays filled with the same terrain, so whether a cell was empty when a
drawing was made is already implied by the exact cover: **the only order-dependent rules are the
fallbacks** ("no shape fits", "no shape covers an unfilled ruin", the ambush 1×1) and the solo
ambush sweep. Those are encoded with booleans ``F[c, i]`` = "cell *c* was filled before turn *i*"
(a prefix sum of the cover), and a fallback at turn *i* requires every candidate position of the
card's shapes to contain a cell filled before *i*. "Must cover an *unfilled* ruins cell" needs no
order: a drawing that covers a ruins cell covers it while it is empty, or two drawings would overlap.

When a level finds the sheet illegal, a second solve minimises the cells left unexplained (and the
turns left without a drawing, and the coin difference): the verdict names those cells.
A search that runs past the time limit answers ``cannot-tell``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from ortools.sat.python import cp_model  # at import: loading it (~0.5 s) must not eat a check's time

from scoring.board import NEIGHBOURS
from scoring.decks import AMBUSH, AMBUSH_CARDS, ANY_TERRAIN, EXPLORE, EXPLORE_CARDS, get_deck_card
from scoring.engine import solo_sweep
from scoring.seasons import SEASONS
from scoring.shapes import FULL_MASK, cells_of, indices_of, mask_of
from scoring.sheet import Sheet
from scoring.sides import SIDES, SIZE, cell_name
from scoring.terrain import Terrain

N = SIZE * SIZE
BITS = tuple(1 << i for i in range(N))
LEVELS = ("sheet", "log", "seasons")
STATUSES = ("legal", "illegal", "cannot-tell")

#: Most explore drawings a season can have: the time cards revealed before the threshold is met
#: (four 1s and 2s in the cheapest order: 1,1,1,1,2,2 reaches 8 at the sixth card) plus Rift Lands.
MAX_EXPLORE_TURNS = tuple(
    1 + next(k for k, total in enumerate((1, 2, 3, 4, 6, 8, 10, 12, 14, 16), start=1) if total >= s.time)
    for s in SEASONS
)
#: Most hourglass time the drawn cards of one season can add up to: under the threshold before the
#: last card, which is worth at most 2.
MAX_SEASON_TIME = tuple(s.time + 1 for s in SEASONS)
#: Coins a game can give from coin shapes: the four 1-time cards, once a season.
MAX_COIN_SHAPES = 4 * len(SEASONS)


# ---- verdicts ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Reason:
    message: str
    cells: list[tuple[int, int]] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"message": self.message, "cells": [list(c) for c in self.cells]}


@dataclass
class Check:
    """The answer of one level."""

    level: str
    status: str
    reasons: list[Reason] = field(default_factory=list)
    seconds: float = 0.0
    details: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"level": self.level, "verdict": self.status, "reasons": [r.to_json() for r in self.reasons],
                "seconds": round(self.seconds, 4), **self.details}


@dataclass
class Verdict:
    """The overall answer: illegal if any level says so, else cannot-tell if any level cannot tell."""

    status: str
    level: str
    reasons: list[Reason]
    checks: list[Check]

    @property
    def legal(self) -> bool:
        return self.status == "legal"

    def to_json(self) -> dict:
        return {"verdict": self.status, "level": self.level, "reasons": [r.to_json() for r in self.reasons],
                "checks": [c.to_json() for c in self.checks]}


# ---- the card log ------------------------------------------------------------------------------
@dataclass(frozen=True)
class CardLog:
    """What a judge at the table knows: the number of players, and the cards revealed each season
    in order (explore and ambush slugs). The last season may be unfinished; earlier ones are not."""

    players: int
    seasons: tuple[tuple[str, ...], ...]
    side: str | None = None

    def to_json(self) -> dict:
        out: dict[str, Any] = {"players": self.players,
                               "seasons": [{"season": SEASONS[s].name, "cards": list(c)}
                                           for s, c in enumerate(self.seasons)]}
        if self.side:
            out["side"] = self.side
        return out


def parse_log(data: Any) -> CardLog:
    """Parse and check a card log (a decoded JSON object); ``ValueError`` naming the field.

    ``{"players": 3, "side": "A", "seasons": [{"season": "spring", "cards": ["hamlet", ...]}, ...]}``;
    a season may also be given as a bare list of slugs. Checked: known slugs, at most four seasons
    in order, no explore card twice in a season, no ambush twice in a game nor more ambushes by a
    season's end than seasons so far, each season ending when its time is reached (the last may be
    unfinished), and a ruins card followed by an explore card.
    """
    if isinstance(data, CardLog):
        return data
    if not isinstance(data, dict):
        raise ValueError("log: a card log must be a JSON object with 'players' and 'seasons'")
    if "players" not in data:
        raise ValueError("log.players: missing (1 to 5)")
    players = data["players"]
    if isinstance(players, bool) or not isinstance(players, int) or not 1 <= players <= 5:
        raise ValueError(f"log.players: must be a whole number from 1 to 5, got {players!r}")
    side = data.get("side")
    if side is not None and (not isinstance(side, str) or side not in SIDES):
        raise ValueError(f"log.side: must be 'A' or 'B', got {side!r}")
    if "seasons" not in data:
        raise ValueError("log.seasons: missing (a list of up to four seasons of revealed cards)")
    seasons = data["seasons"]
    if not isinstance(seasons, list) or not 1 <= len(seasons) <= 4:
        got = f"{len(seasons)} seasons" if isinstance(seasons, list) else type(seasons).__name__
        raise ValueError(f"log.seasons: must be a list of 1 to 4 seasons, got {got}")
    ambushes_seen: set[str] = set()
    for s, entry in enumerate(seasons):
        where = f"log.seasons[{s}]"
        if isinstance(entry, dict):
            name = entry.get("season", SEASONS[s].name)
            if name != SEASONS[s].name:
                raise ValueError(f"{where}.season: expected {SEASONS[s].name!r} (seasons in order), got {name!r}")
            if "cards" not in entry:
                raise ValueError(f"{where}.cards: missing")
            cards = entry["cards"]
            where += ".cards"
        else:
            cards = entry
        if not isinstance(cards, list):
            raise ValueError(f"{where}: must be a list of card slugs, got {type(cards).__name__}")
        spec = SEASONS[s]
        total = 0
        seen: set[str] = set()
        ruins_waiting = False
        for k, slug in enumerate(cards):
            at = f"{where}[{k}]"
            if not isinstance(slug, str):
                raise ValueError(f"{at}: must be a card slug, got {slug!r}")
            try:
                card = get_deck_card(slug)
            except ValueError as e:
                raise ValueError(f"{at}: {e}") from None
            if total >= spec.time:
                raise ValueError(f"{at}: {spec.name} already ended (time {total} ≥ {spec.time}) before {slug!r}")
            if slug in seen:
                raise ValueError(f"{at}: {slug!r} revealed twice in {spec.name}")
            seen.add(slug)
            if slug in AMBUSH:
                if slug in ambushes_seen:
                    raise ValueError(f"{at}: ambush {slug!r} revealed twice (an ambush leaves the game)")
                ambushes_seen.add(slug)
                if len(ambushes_seen) > s + 1:
                    raise ValueError(f"{at}: {len(ambushes_seen)} ambushes revealed by {spec.name}, but only "
                                     f"{s + 1} can be in the deck by then")
                continue
            if card.is_ruins:
                ruins_waiting = True
                continue
            ruins_waiting = False
            total += card.time
        if s < len(seasons) - 1 and total < spec.time:
            raise ValueError(f"{where}: {spec.name} ends at time {total}, below its threshold {spec.time}, "
                             "but a later season follows")
        if ruins_waiting and total >= spec.time:
            raise ValueError(f"{where}: ends on a ruins card with no explore card after it")
    # other fields (a game record's own notes) are ignored
    return CardLog(players, tuple(_as_tuples(seasons)), side)


def _as_tuples(seasons: list) -> list[tuple[str, ...]]:
    return [tuple(e["cards"] if isinstance(e, dict) else e) for e in seasons]


@dataclass(frozen=True)
class Event:
    """One revealed card that makes a drawing on the sheet (ruins cards make none)."""

    index: int
    season: int
    turn: int
    card: str
    ruins: bool = False  # an explore card drawn under a ruins card

    @property
    def label(self) -> str:
        return f"{SEASONS[self.season].name} card {self.turn + 1} ({self.card}{', after ruins' if self.ruins else ''})"


def log_events(log: CardLog) -> list[Event]:
    events = []
    for s, cards in enumerate(log.seasons):
        pending = False
        for turn, slug in enumerate(cards):
            if slug in AMBUSH:
                events.append(Event(len(events), s, turn, slug))
            elif EXPLORE[slug].is_ruins:
                pending = True
            else:
                events.append(Event(len(events), s, turn, slug, pending))
                pending = False
    return events


# ---- what a sheet shows -------------------------------------------------------------------------
class SheetFacts:
    """Masks of one sheet: drawn cells per terrain, printed cells, empty cells, surrounded mountains."""

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
            (r, c) for r, c in layout.mountains
            if all(self.empty >> j & 1 == 0 for j in NEIGHBOURS[r * SIZE + c])
        )

    def terrain_at(self, i: int) -> Terrain:
        r, c = divmod(i, SIZE)
        return self.sheet.cells[r][c]


# ---- the solver wrapper ------------------------------------------------------------------------
class _Solve:
    """A CP-SAT model of drawings, with the helpers every level shares."""

    def __init__(self, facts: SheetFacts, windows: dict[int, tuple[int, int]] | None = None):
        self.cp = cp_model
        self.m = cp_model.CpModel()
        self.facts = facts
        self.windows = windows  # cell → (first season it may be drawn in, last season)
        self.cover: dict[int, list] = {i: [] for i in indices_of(facts.drawn)}
        self.vars: list[tuple[Any, dict]] = []  # (var, info)

    def allowed_mask(self, season: int | None) -> int:
        if self.windows is None or season is None:
            return self.facts.drawn
        return sum(BITS[i] for i, (lo, hi) in self.windows.items() if lo <= season <= hi)

    def new_drawing(self, mask: int, info: dict):
        v = self.m.NewBoolVar(f"d{len(self.vars)}")
        self.vars.append((v, {**info, "mask": mask}))
        for i in indices_of(mask):
            self.cover[i].append(v)
        return v

    def solve(self, seconds: float):
        solver = self.cp.CpSolver()
        solver.parameters.max_time_in_seconds = max(0.01, seconds)
        # One worker with the strongest LP relaxation: on these exact-cover models it proves
        # infeasibility 10–100× faster than the default portfolio (measured; docs/game-engine.md).
        solver.parameters.num_workers = 1
        solver.parameters.linearization_level = 2
        status = solver.Solve(self.m)
        return solver, status


def _shape_masks(masks: Iterable[int], allowed_by_terrain: dict[Terrain, int], terrains) -> list[tuple[int, Terrain]]:
    out = []
    for m in masks:
        for t in terrains:
            a = allowed_by_terrain[t]
            if m & a == m:
                out.append((m, t))
                break
    return out


# ---- sheet level (and seasons level without a log) --------------------------------------------
def _check_sheet_level(sheets: list[Sheet], seasons_of: list[tuple[int, int]], deadline: float,
                       level: str) -> Check:
    """Exact cover with the limits of the seasons each sheet's new cells were drawn in.

    ``sheets[k]`` is the sheet at the end of season ``seasons_of[k][1]``; its new cells (not drawn
    on ``sheets[k-1]``) were drawn in seasons ``seasons_of[k][0]…seasons_of[k][1]``.
    """
    t0 = time.perf_counter()
    reasons: list[Reason] = []
    facts = [SheetFacts(s) for s in sheets]
    last = facts[-1]
    coins_needed = []
    prev_coins, prev_surr = 0, 0
    for k, f in enumerate(facts):
        d_coins = f.sheet.coins - prev_coins
        d_surr = len(f.surrounded) - prev_surr
        need = d_coins - d_surr
        if need < 0:
            new_surr = [c for c in f.surrounded if k == 0 or c not in facts[k - 1].surrounded]
            reasons.append(Reason(
                f"{f.sheet.coins} coins{_season_note(seasons_of[k], level)} but {len(f.surrounded)} surrounded "
                f"mountain(s) each earned one" + ("" if k == 0 else f" (and {prev_coins} coins before)"),
                new_surr or list(f.surrounded)))
        coins_needed.append(need)
        prev_coins, prev_surr = f.sheet.coins, len(f.surrounded)
    if reasons:
        return Check(level, "illegal", reasons, time.perf_counter() - t0)

    def build(slack: bool):
        solve = _Solve(last)
        m = solve.m
        coin_total, ambush_shapes = [], {a.slug: [] for a in AMBUSH_CARDS}
        ambush_by_bucket: list[list] = []
        per_bucket_info = []
        for k, f in enumerate(facts):
            lo, hi = seasons_of[k]
            n_seasons = hi - lo + 1
            new = f.drawn & ~(facts[k - 1].drawn if k else 0)
            by_t = {t: f.by_terrain[t] & new for t in Terrain}
            explore_vars, time_terms, coin_vars, ambush_vars = [], [], [], []
            for card in EXPLORE_CARDS:
                if card.is_ruins or card.kind == "rift":
                    continue
                card_vars = []
                for idx, opt in enumerate(card.options):
                    for mask, t in _shape_masks(opt.placements, by_t, card.terrains):
                        v = solve.new_drawing(mask, {"bucket": k, "card": card.slug, "shape": opt.text,
                                                     "terrain": t})
                        card_vars.append(v)
                        time_terms.append(card.time * v)
                        if opt.coin:
                            coin_vars.append(v)
                if card_vars:
                    m.Add(sum(card_vars) <= n_seasons)
                    explore_vars += card_vars
            for a in AMBUSH_CARDS:
                for mask, t in _shape_masks(a.placements, by_t, (Terrain.MONSTER,)):
                    v = solve.new_drawing(mask, {"bucket": k, "card": a.slug, "shape": a.shape_text, "terrain": t})
                    ambush_shapes[a.slug].append(v)
                    ambush_vars.append(v)
            for i in indices_of(new):
                t = f.terrain_at(i)
                v = solve.new_drawing(BITS[i], {"bucket": k, "card": "1x1", "shape": "X", "terrain": t})
                explore_vars.append(v)  # Rift Lands or a fallback
                if t is Terrain.MONSTER:
                    w = solve.new_drawing(BITS[i], {"bucket": k, "card": "ambush 1x1", "shape": "X", "terrain": t})
                    ambush_vars.append(w)
            m.Add(sum(explore_vars) <= sum(MAX_EXPLORE_TURNS[lo:hi + 1]))
            m.Add(sum(time_terms) <= sum(MAX_SEASON_TIME[lo:hi + 1]))
            coin_total.append((coin_vars, coins_needed[k]))
            ambush_by_bucket.append(ambush_vars)
            per_bucket_info.append((lo, hi))
        for vs in ambush_shapes.values():
            if vs:
                m.Add(sum(vs) <= 1)
        run: list = []
        for k, vs in enumerate(ambush_by_bucket):
            run += vs
            if run:
                m.Add(sum(run) <= min(len(AMBUSH_CARDS), per_bucket_info[k][1] + 1))
        slacks = []
        for i, vs in solve.cover.items():
            if slack:
                u = m.NewBoolVar(f"u{i}")
                slacks.append((u, ("cell", i)))
                m.Add(sum(vs) + u == 1)
            else:
                m.AddExactlyOne(vs)
        for k, (coin_vars, need) in enumerate(coin_total):
            if slack:
                plus, minus = m.NewIntVar(0, 40, f"cp{k}"), m.NewIntVar(0, 40, f"cm{k}")
                slacks += [(plus, ("coins+", k)), (minus, ("coins-", k))]
                m.Add(sum(coin_vars) + plus - minus == need)
            else:
                m.Add(sum(coin_vars) == need)
        if slack:
            m.Minimize(sum(v for v, _ in slacks))
        return solve, slacks

    solve, _ = build(False)
    solver, status = solve.solve(deadline - time.perf_counter())
    details = {"drawings": len(solve.vars)}
    if status in (solve.cp.OPTIMAL, solve.cp.FEASIBLE):
        return Check(level, "legal", [], time.perf_counter() - t0, details)
    if status != solve.cp.INFEASIBLE:
        return Check(level, "cannot-tell", [Reason("the search ran past its time limit")],
                     time.perf_counter() - t0, details)
    reasons = [Reason("the drawn cells cannot be split into the game's shapes in their terrains within four "
                      "seasons' turns and coins" if level == "sheet" else
                      "the new cells of each season cannot be split into the game's shapes within that season's "
                      "turns and coins", [])]
    # name what cannot be explained: the fewest cells left out (and coin differences)
    solve, slacks = build(True)
    solver, status = solve.solve(min(1.0, deadline - time.perf_counter()))
    if status in (solve.cp.OPTIMAL, solve.cp.FEASIBLE):
        cells = sorted(divmod(what[1], SIZE) for v, what in slacks if what[0] == "cell" and solver.Value(v))
        if cells:
            reasons.append(Reason(f"{', '.join(cell_name(c) for c in cells)}: drawn, but left over once the rest is "
                                  "split into the game's shapes within the turns", cells))
        for v, what in slacks:
            if what[0].startswith("coins") and solver.Value(v):
                f = facts[what[1]]
                reasons.append(Reason(f"{f.sheet.coins} coins{_season_note(seasons_of[what[1]], level)}: "
                                      f"{solver.Value(v)} {'more' if what[0] == 'coins+' else 'fewer'} than the coin "
                                      f"shapes that fit and {len(f.surrounded)} surrounded mountain(s) explain",
                                      list(f.surrounded)))
    return Check(level, "illegal", reasons, time.perf_counter() - t0, details)


def _season_note(seasons: tuple[int, int], level: str) -> str:
    if level == "sheet":
        return ""
    return f" at the end of {SEASONS[seasons[1]].name}"


# ---- log level (and seasons level with a log) -------------------------------------------------
def _windows(facts: list[SheetFacts], sheet_seasons: list[int]) -> dict[int, tuple[int, int]] | None:
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


class _LogModel:
    """The per-turn model of one sheet against a card log (see the module docstring)."""

    def __init__(self, sheets: list[Sheet], sheet_seasons: list[int], log: CardLog):
        self.facts = [SheetFacts(s) for s in sheets]
        self.last = self.facts[-1]
        self.sheet_seasons = sheet_seasons
        self.log = log
        self.events = [e for e in log_events(log) if e.season <= sheet_seasons[-1]]
        self.windows = _windows(self.facts, sheet_seasons)
        self.solve = _Solve(self.last, self.windows)
        self.m = self.solve.m
        self.event_vars: list[list] = [[] for _ in self.events]
        self.event_cover: list[dict[int, list]] = [dict() for _ in self.events]
        self.coin_vars: list[list] = [[] for _ in self.events]
        self.F: dict[int, list] = {}
        self.order_constraints = 0
        self.notes: list[Reason] = []
        self._build()

    # -- helpers --
    def _draw(self, e: Event, mask: int, info: dict, coin: bool = False):
        v = self.solve.new_drawing(mask, {"event": e.index, "card": e.card, **info})
        self.event_vars[e.index].append(v)
        for i in indices_of(mask):
            self.event_cover[e.index].setdefault(i, []).append(v)
        if coin:
            self.coin_vars[e.index].append(v)
        return v

    def _filled_before(self, i: int, ev: int):
        """Bool var: cell ``i`` (drawn on the final sheet) was filled before event ``ev``; ``True`` or
        ``None`` (false) when the earlier season sheets settle it."""
        if self.windows is not None:
            lo, hi = self.windows[i]
            season = self.events[ev].season if ev < len(self.events) else 99
            if hi < season:
                return True  # drawn by the end of an earlier season
            if lo > season:
                return None  # not drawn until a later season
        chain = self.F.get(i)
        if chain is None:
            chain = self.F[i] = [None]  # F[i][0]: before the first event, never (drawn cells are not printed)
        while len(chain) <= ev:
            k = len(chain) - 1  # chain[k] = filled before event k; add chain[k + 1]
            cover = self.event_cover[k].get(i, [])
            nxt = self.m.NewBoolVar(f"F{i}_{k + 1}")
            prev = chain[k]
            self.m.Add(nxt == (prev if prev is not None else 0) + sum(cover))
            chain.append(nxt)
        return chain[ev]

    def _require_blocked(self, candidates: Iterable[int], ev: int, lit):
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
                terms = [f for f in (self._filled_before(i, ev) for i in indices_of(d)) if f is not None]
                if any(f is True for f in terms):
                    continue
                if terms:
                    self.m.AddBoolOr(terms).OnlyEnforceIf(lit)
                else:  # nothing is filled before the first turn
                    self.m.AddBoolOr([lit.Not()])
                self.order_constraints += 1

    # -- the model --
    def _build(self) -> None:
        m, last = self.m, self.last
        self._pending_blocks: list = []
        solo = self.log.players == 1
        for e in self.events:
            allowed = self.solve.allowed_mask(e.season)
            by_t = {t: last.by_terrain[t] & allowed for t in Terrain}
            if e.card in AMBUSH:
                card = AMBUSH[e.card]
                if solo:
                    self._solo_ambush(e, card, by_t)
                    continue
                for mask, t in _shape_masks(card.placements, by_t, (Terrain.MONSTER,)):
                    self._draw(e, mask, {"kind": "ambush", "shape": card.shape_text, "terrain": t})
                singles = [i for i in indices_of(by_t[Terrain.MONSTER])]
                if singles:
                    lit = m.NewBoolVar(f"fb{e.index}")
                    blocks = self._require_blocked(card.placements, e.index, lit)
                    if blocks is not None:
                        for i in singles:
                            if BITS[i] in blocks:
                                continue  # a position only this cell could block: it is empty then
                            v = self._draw(e, BITS[i], {"kind": "ambush-fallback", "shape": None,
                                                        "terrain": Terrain.MONSTER})
                            m.AddImplication(v, lit)
                self._maybe_skip(e)
                continue
            card = EXPLORE[e.card]
            for k, opt in enumerate(card.options):
                masks = opt.placements
                if e.ruins:
                    masks = [p for p in masks if p & last.ruins]
                for mask, t in _shape_masks(masks, by_t, card.terrains):
                    self._draw(e, mask, {"kind": "shape", "shape": opt.text, "terrain": t}, coin=opt.coin)
            if card.kind == "rift" and not e.ruins:
                self._maybe_skip(e)
                continue
            # the 1×1 fallback: under ruins any terrain when no shape can cover an unfilled ruin,
            # otherwise a card terrain when no shape fits at all
            terrains = ANY_TERRAIN if e.ruins else card.terrains
            candidates = [p for opt in card.options for p in opt.placements if not e.ruins or p & last.ruins]
            singles = [i for t in terrains for i in indices_of(by_t[t])]
            if singles:
                lit = m.NewBoolVar(f"fb{e.index}")
                blocks = self._require_blocked(candidates, e.index, lit)
                if blocks is not None:
                    kind = "ruins-fallback" if e.ruins else "fallback"
                    for i in singles:
                        if BITS[i] in blocks:
                            continue  # a position only this cell could block: it is empty then
                        v = self._draw(e, BITS[i], {"kind": kind, "shape": None, "terrain": last.terrain_at(i)})
                        m.AddImplication(v, lit)
            self._maybe_skip(e)
        # every drawn cell exactly once; every event exactly one drawing
        for i, vs in self.solve.cover.items():
            m.AddExactlyOne(vs) if vs else m.AddBoolOr([])
        for e in self.events:
            vs = self.event_vars[e.index]
            if vs:
                m.AddExactlyOne(vs)
            else:
                m.AddBoolOr([])  # nothing this card could have drawn
        # coins at the end of each known season
        for f, s in zip(self.facts, self.sheet_seasons):
            cv = [v for e in self.events if e.season <= s for v in self.coin_vars[e.index]]
            m.Add(sum(cv) == f.sheet.coins - len(f.surrounded))
        self._flush_blocks()

    def _maybe_skip(self, e: Event) -> None:
        """Nothing drawn: only when no cell of the map is empty at that moment."""
        last = self.last
        if last.empty:
            return
        lit = self.m.NewBoolVar(f"skip{e.index}")
        self.event_vars[e.index].append(lit)
        self._pending_blocks.append(({BITS[i] for i in indices_of(last.drawn)}, e.index, lit))

    def _solo_ambush(self, e: Event, card, by_t) -> None:
        """Solo: the first sweep position that fits at that moment; none fits → no drawing."""
        m, last = self.m, self.last
        sweep = solo_sweep(card)
        monsters = by_t[Terrain.MONSTER]
        prev_all_blocked = None  # literal: every earlier position blocked (None = true)
        earlier: list[int] = []  # drawn cells of each earlier position that printed cells do not block
        for k, p in enumerate(sweep):
            if p & monsters == p and all(d & ~p for d in earlier):
                v = self._draw(e, p, {"kind": "solo-ambush", "shape": card.shape_text, "terrain": Terrain.MONSTER})
                if prev_all_blocked is not None:
                    m.AddImplication(v, prev_all_blocked)
            # position k blocked?
            if p & last.printed:
                continue  # always blocked: the chain goes on unchanged
            d = p & last.drawn
            if not d:
                return  # this position is free until the end: no later position (nor a skip) can be chosen
            nxt = m.NewBoolVar(f"ab{e.index}_{k}")
            if prev_all_blocked is not None:
                m.AddImplication(nxt, prev_all_blocked)
            self._pending_blocks.append(({d}, e.index, nxt))
            earlier.append(d)
            prev_all_blocked = nxt
        lit = m.NewBoolVar(f"skip{e.index}")
        self.event_vars[e.index].append(lit)
        if prev_all_blocked is not None:
            m.AddImplication(lit, prev_all_blocked)

    # -- answers --
    def run(self, seconds: float):
        return self.solve.solve(seconds)


class _AggModel:
    """The order-free relaxation of :class:`_LogModel` (stage A).

    The turns of one card are interchangeable except for the fallbacks and the solo sweep, so
    drawings are made per card (per card and season when earlier sheets fix the seasons): the card's
    shapes as many times as it was revealed, at least as many covering a ruins cell as it was revealed
    after a ruins card. A fallback is allowed for a card when some turn of it *could* be blocked, and
    the order of turns is ignored. Infeasible here ⇒ illegal. A solution that uses no fallback, no
    skip and no order-dependent solo-ambush position is a legal explanation as it stands (any
    assignment of the drawings to the card's turns works); otherwise the exact per-turn model decides.

    With ``slack``, drawings may disagree with the sheet on one cell each (wrong terrain, or a cell
    the sheet shows empty) and drawn cells may stay unexplained, each at a cost: minimising the cost
    finds the fewest cells whose change would make the sheet legal — the cells the verdict names.
    """

    def __init__(self, sheets: list[Sheet], sheet_seasons: list[int], log: CardLog, slack: bool = False,
                 fallbacks: bool = True):
        self.fallbacks = fallbacks
        self.facts = [SheetFacts(s) for s in sheets]
        self.last = last = self.facts[-1]
        self.sheet_seasons = sheet_seasons
        self.log = log
        self.slack = slack
        self.events = [e for e in log_events(log) if e.season <= sheet_seasons[-1]]
        self.windows = _windows(self.facts, sheet_seasons)
        self.solve = _Solve(last, self.windows)
        self.m = self.solve.m
        self.order_free: list = []  # vars whose use needs no order check
        self.ordered: list = []  # vars whose use needs the per-turn model
        self.costs: list = []  # (var or int expr, weight, what)
        self.coin_vars: dict[int, list] = {}  # season → coin-shape vars
        self.mismatch: dict[Any, int] = {}  # var → the cell it draws against the sheet
        self._build()

    def _masks(self, masks, terrains, allowed: int):
        """(mask, terrain, mismatched cell or None) for each usable position."""
        last = self.last
        out = []
        ok = {t: last.by_terrain[t] & allowed for t in terrains}
        for mk in masks:
            if mk & last.printed:
                continue
            best = None
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

    def _new(self, mask: int, info: dict, season: int | None, ordered: bool, coin: bool = False):
        mk, t, bad = mask
        v = self.m.NewBoolVar(f"a{len(self.solve.vars)}")
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

    def _blockable(self, candidates) -> bool:
        """Could every candidate position be blocked at some moment? (Not if one lies in cells that
        stay empty to the end.)"""
        if not self.fallbacks:
            return False
        last = self.last
        for p in candidates:
            if not p & last.printed and not p & last.drawn:
                return False
        return True

    def _build(self) -> None:
        m, last = self.m, self.last
        solo = self.log.players == 1
        full = not last.empty
        groups: dict[tuple[str, int | None], list[Event]] = {}
        for e in self.events:
            groups.setdefault((e.card, e.season if (self.windows or e.card in AMBUSH) else None), []).append(e)
        for (slug, season), evs in groups.items():
            allowed = self.solve.allowed_mask(season) if self.windows else last.drawn
            n = len(evs)
            info = {"card": slug, "season": season, "turns": [e.index for e in evs]}
            if slug in AMBUSH:
                card = AMBUSH[slug]
                (e,) = evs
                vs = []
                if solo:
                    sweep = solo_sweep(card)
                    prefix_printed = True
                    for p in sweep:
                        if p & last.printed:
                            continue
                        for mk in self._masks([p], (Terrain.MONSTER,), allowed):
                            vs.append(self._new(mk, {**info, "kind": "solo-ambush", "shape": card.shape_text},
                                                e.season, ordered=not prefix_printed))
                        prefix_printed = False
                        if not p & last.drawn:
                            break  # free to the end: no later position can be chosen
                    else:
                        if self.fallbacks:
                            vs.append(self._skip(info, ordered=True))
                else:
                    for mk in self._masks(card.placements, (Terrain.MONSTER,), allowed):
                        vs.append(self._new(mk, {**info, "kind": "ambush", "shape": card.shape_text}, e.season, False))
                    if self._blockable(card.placements):
                        for mk in self._masks(list(BITS), (Terrain.MONSTER,), allowed):
                            vs.append(self._new(mk, {**info, "kind": "ambush-fallback", "shape": None}, e.season, True))
                    if full and self.fallbacks:
                        vs.append(self._skip(info, ordered=True))
                self._exactly(vs, n, info)
                continue
            card = EXPLORE[slug]
            r = sum(1 for e in evs if e.ruins)
            y_ruins, y_plain, z_plain, z_ruins = [], [], [], []
            for k, opt in enumerate(card.options):
                for mk in self._masks(opt.placements, card.terrains, allowed):
                    v = self._new(mk, {**info, "kind": "shape", "shape": opt.text}, season, False, coin=opt.coin)
                    (y_ruins if mk[0] & last.ruins else y_plain).append(v)
            plain_candidates = [p for opt in card.options for p in opt.placements]
            ruin_candidates = [p for p in plain_candidates if p & last.ruins]
            singles = list(BITS)
            if card.kind != "rift" and n - r > 0 and self._blockable(plain_candidates):
                for mk in self._masks(singles, card.terrains, allowed):
                    z_plain.append(self._new(mk, {**info, "kind": "fallback", "shape": None}, season, True))
            if r > 0 and self._blockable(ruin_candidates):
                for mk in self._masks(singles, ANY_TERRAIN, allowed):
                    z_ruins.append(self._new(mk, {**info, "kind": "ruins-fallback", "shape": None}, season, True))
            skip = [self._skip(info, ordered=True)] if full and self.fallbacks else []
            self._exactly(y_ruins + y_plain + z_plain + z_ruins + skip, n, info)
            if r:
                m.Add(sum(y_ruins) + sum(z_ruins) + sum(skip) >= r)
                m.Add(sum(z_ruins) <= r)
            if n - r:
                m.Add(sum(y_plain) + sum(z_plain) <= n - r)
            else:
                for v in y_plain + z_plain:
                    m.Add(v == 0)
        for i in indices_of(last.drawn):
            vs = self.solve.cover.get(i, [])
            if self.slack:
                u = m.NewBoolVar(f"u{i}")
                self.costs.append((u, 1, ("cell", i)))
                m.Add(sum(vs) + u == 1)
            elif vs:
                m.AddExactlyOne(vs)
            else:
                m.AddBoolOr([])
        if self.slack:
            for i, vs in self.solve.cover.items():
                if not last.drawn >> i & 1 and len(vs) > 1:
                    m.Add(sum(vs) <= 1)
        for f, s in zip(self.facts, self.sheet_seasons):
            need = f.sheet.coins - len(f.surrounded)
            cv = [v for season, vs in self.coin_vars.items() if season is None or season <= s for v in vs]
            if self.slack:
                plus, minus = m.NewIntVar(0, 40, f"cp{s}"), m.NewIntVar(0, 40, f"cm{s}")
                self.costs.append((plus, 1, ("coins+", f, s)))
                self.costs.append((minus, 1, ("coins-", f, s)))
                m.Add(sum(cv) + plus - minus == need)
            else:
                m.Add(sum(cv) == need)
        if self.slack:
            self.objective = sum(w * v for v, w, _ in self.costs)
            m.Minimize(self.objective)

    def _skip(self, info: dict, ordered: bool):
        v = self.m.NewBoolVar(f"skip{len(self.solve.vars)}")
        self.solve.vars.append((v, {**info, "kind": "skip", "mask": 0, "terrain": None}))
        (self.ordered if ordered else self.order_free).append(v)
        return v

    def _exactly(self, vs: list, n: int, info: dict) -> None:
        if self.slack:
            short = self.m.NewIntVar(0, n, f"short{len(self.costs)}")
            self.costs.append((short, 3, ("turns", info)))
            self.m.Add(sum(vs) + short == n)
        else:
            self.m.Add(sum(vs) == n)

    def run(self, seconds: float):
        return self.solve.solve(seconds)


def _check_log_level(sheets: list[Sheet], sheet_seasons: list[int], log: CardLog, deadline: float,
                     level: str) -> Check:
    t0 = time.perf_counter()
    last_season = sheet_seasons[-1]
    if last_season >= len(log.seasons):
        return Check(level, "cannot-tell", [Reason(
            f"the log covers {len(log.seasons)} season(s) but the sheet is at the end of "
            f"{SEASONS[last_season].name}")], 0.0)
    if log.side and log.side != sheets[-1].side:
        return Check(level, "illegal", [Reason(f"the sheet is side {sheets[-1].side} but the table played side "
                                               f"{log.side}")], 0.0)
    # stage A: the card's shapes only, turns of one card interchangeable — a quick "legal"
    agg = _AggModel(sheets, sheet_seasons, log, fallbacks=False)
    budget = max(0.05, min(0.5, 0.25 * (deadline - time.perf_counter())))
    solver, status = agg.run(budget)
    cp = agg.solve.cp
    details: dict[str, Any] = {"turns": len(agg.events), "drawings": len(agg.solve.vars), "stage": "order-free"}
    if status in (cp.OPTIMAL, cp.FEASIBLE) and not any(solver.Value(v) for v in agg.ordered):
        details["explanation"] = _agg_explanation(agg, solver)
        return Check(level, "legal", [], time.perf_counter() - t0, details)
    # stage A+: the order-free relaxation with the fallbacks — infeasible here means illegal
    agg = _AggModel(sheets, sheet_seasons, log, fallbacks=True)
    budget = max(0.05, min(1.5, 0.3 * (deadline - time.perf_counter())))
    solver, status = agg.run(budget)
    if status == cp.INFEASIBLE:
        details["stage"] = "order-free"
        reasons = _explain_illegal(sheets, sheet_seasons, log, deadline)
        return Check(level, "illegal", reasons, time.perf_counter() - t0, details)
    if status in (cp.OPTIMAL, cp.FEASIBLE) and not any(solver.Value(v) for v in agg.ordered):
        details["explanation"] = _agg_explanation(agg, solver)
        return Check(level, "legal", [], time.perf_counter() - t0, details)
    # stage B: exact, turn by turn, fallbacks and the solo sweep in the order the cards came
    model = _LogModel(sheets, sheet_seasons, log)
    solver, status = model.run(deadline - time.perf_counter())
    cp = model.solve.cp
    details.update({"stage": "per-turn", "drawings": len(model.solve.vars),
                    "order_constraints": model.order_constraints})
    if status in (cp.OPTIMAL, cp.FEASIBLE):
        details["explanation"] = _explanation(model, solver)
        return Check(level, "legal", [], time.perf_counter() - t0, details)
    if status != cp.INFEASIBLE:
        return Check(level, "cannot-tell", [Reason("the search ran past its time limit")],
                     time.perf_counter() - t0, details)
    reasons = _explain_illegal(sheets, sheet_seasons, log, deadline)
    if not any(r.cells for r in reasons):
        reasons.insert(0, Reason("the cards' fallbacks (or the solo ambush sweep) do not fit the order in which "
                                 "the cards were revealed", []))
    return Check(level, "illegal", reasons, time.perf_counter() - t0, details)


def _drawing_json(season: int, turn: int | None, card: str, info: dict) -> dict:
    t = info.get("terrain")
    return {"season": SEASONS[season].name if season is not None else None, "turn": turn, "card": card,
            "kind": info["kind"], "shape": info.get("shape"), "terrain": t.value if t else None,
            "cells": [list(c) for c in cells_of(info["mask"])]}


def _explanation(model: "_LogModel", solver) -> list[dict]:
    """One drawing per turn, as the solver found it: a witness that the sheet is legal."""
    out = []
    for v, info in model.solve.vars:
        if solver.Value(v):
            e = model.events[info["event"]]
            out.append(_drawing_json(e.season, e.turn, e.card, info))
    out.sort(key=lambda d: ([s.name for s in SEASONS].index(d["season"]), d["turn"]))
    return out


def _agg_explanation(model: "_AggModel", solver) -> list[dict]:
    """The order-free witness, its drawings given to the card's turns in order (ruins turns first
    get the drawings that cover a ruins cell)."""
    out = []
    by_group: dict[tuple, list[dict]] = {}
    for v, info in model.solve.vars:
        if solver.Value(v):
            by_group.setdefault((info["card"], info["season"]), []).append(info)
    for (slug, _), infos in by_group.items():
        turns = [model.events[i] for i in infos[0]["turns"]]
        ruins_first = sorted(infos, key=lambda d: not (d["mask"] & model.last.ruins))
        ordered = sorted(turns, key=lambda e: not e.ruins)
        for e, info in zip(ordered, ruins_first):
            out.append(_drawing_json(e.season, e.turn, e.card, info))
    out.sort(key=lambda d: ([s.name for s in SEASONS].index(d["season"]), d["turn"]))
    return out


def _explain_illegal(sheets, sheet_seasons, log, deadline, cap: float = 1.0) -> list[Reason]:
    """The fewest cells to change (and turns without a drawing, and coins) to make the sheet legal
    in the order-free model: the cells the verdict names."""
    generic = Reason("no choice of shape, orientation, position and terrain for the revealed cards draws "
                     "exactly this sheet and its coins", [])
    remaining = min(cap, deadline - time.perf_counter())
    if remaining <= 0.05:
        return [generic]
    model = _AggModel(sheets, sheet_seasons, log, slack=True)
    remaining = min(cap, deadline - time.perf_counter())
    solver, status = model.run(remaining)
    cp = model.solve.cp
    if status not in (cp.OPTIMAL, cp.FEASIBLE):
        return [generic]
    last = model.last
    wrong, missing, unexplained = [], [], []
    for v, cell in model.mismatch.items():
        if solver.Value(v):
            (missing if last.empty >> cell & 1 else wrong).append(cell)
    for v, w, what in model.costs:
        if isinstance(what, tuple) and what[0] == "cell" and solver.Value(v):
            unexplained.append(what[1])
    reasons = []
    for cells, text in ((wrong, "drawn in a terrain no revealed card explains there"),
                        (missing, "empty, but a drawing of the revealed cards needs it filled"),
                        (unexplained, "drawn, but no drawing of the revealed cards explains it")):
        if cells:
            cs = sorted(divmod(i, SIZE) for i in cells)
            reasons.append(Reason(f"{', '.join(cell_name(c) for c in cs)}: {text}", cs))
    for v, w, what in model.costs:
        if isinstance(what, tuple) and what[0] == "turns" and solver.Value(v):
            info = what[1]
            reasons.append(Reason(f"{info['card']}: {solver.Value(v)} revealed turn(s) with no drawing left on the "
                                  "sheet", []))
        if isinstance(what, tuple) and what[0] in ("coins+", "coins-") and solver.Value(v):
            _, f, s = what
            more = what[0] == "coins+"  # the sheet shows more coins than the drawings explain
            reasons.append(Reason(
                f"coins at the end of {SEASONS[s].name}: the sheet shows {f.sheet.coins}, {solver.Value(v)} "
                f"{'more' if more else 'fewer'} than its coin shapes and {len(f.surrounded)} surrounded "
                f"mountain(s) explain", list(f.surrounded)))
    if status != cp.OPTIMAL:
        reasons.append(Reason("(the smallest such set of cells was not proven within the time limit)", []))
        return reasons or [generic]
    # other equally small fixes: the changed cell is often one of several that could be blamed
    primary = set(wrong + missing + unexplained)
    if primary:
        alternatives = _alternative_blames(model, solver, primary, deadline, cap)
        if alternatives:
            every = sorted({divmod(i, SIZE) for a in [primary, *alternatives] for i in a})
            reasons.insert(0, Reason(
                f"the sheet cannot be drawn with the revealed cards; the fewest changes that would allow it touch "
                f"{len(primary)} cell(s), and any of these cells could be the one: "
                f"{', '.join(cell_name(c) for c in every)}", every))
    return reasons or [generic]


def _alternative_blames(model: "_AggModel", solver, primary: set[int], deadline: float, cap: float,
                        most: int = 8) -> list[set[int]]:
    """Other sets of cells, as small as the first, whose change would also explain the sheet."""
    t_end = min(deadline, time.perf_counter() + cap)
    m = model.m
    best = int(round(solver.ObjectiveValue()))
    blame_vars: dict[int, list] = {}
    for v, cell in model.mismatch.items():
        blame_vars.setdefault(cell, []).append(v)
    for v, _, what in model.costs:
        if isinstance(what, tuple) and what[0] == "cell":
            blame_vars.setdefault(what[1], []).append(v)
    blame = {}
    for cell, vs in blame_vars.items():
        b = m.NewBoolVar(f"blame{cell}")
        m.AddMaxEquality(b, vs)
        blame[cell] = b
    m.Add(model.objective <= best)
    m.ClearObjective()
    found: list[set[int]] = []
    current = primary
    while len(found) < most:
        m.Add(sum(blame[c] for c in current) <= len(current) - 1)
        left = t_end - time.perf_counter()
        if left <= 0.05:
            break
        solver2, status = model.run(left)
        if status not in (model.solve.cp.OPTIMAL, model.solve.cp.FEASIBLE):
            break
        current = {c for c, b in blame.items() if solver2.Value(b)}
        if not current:
            break
        found.append(current)
    return found


# ---- an independent check of a witness --------------------------------------------------------
def replay(sheet: Sheet, log: dict | CardLog, explanation: list[dict]) -> list[str]:
    """Replay a legal verdict's witness turn by turn with the game engine; returns the problems
    (none when every drawing is one the engine offers at that moment and the result is the sheet).

    This checks the validator against the engine that plays the simulated games, not against itself.
    """
    from scoring.engine import PlayerMap, ambush_choices, explore_choices, solo_ambush_move

    card_log = parse_log(log)
    pm = PlayerMap(sheet.side)
    by_turn = {(d["season"], d["turn"]): d for d in explanation}
    problems = []
    for s, cards in enumerate(card_log.seasons):
        pending = False
        for turn, slug in enumerate(cards):
            if slug in EXPLORE and EXPLORE[slug].is_ruins:
                pending = True
                continue
            d = by_turn.get((SEASONS[s].name, turn))
            if slug in AMBUSH:
                ch = solo_ambush_move(pm, AMBUSH[slug]) if card_log.players == 1 else ambush_choices(pm, AMBUSH[slug])
            else:
                ch = explore_choices(pm, EXPLORE[slug], pending)
                pending = False
            where = f"{SEASONS[s].name} card {turn + 1} ({slug})"
            if d is None or d["kind"] == "skip":
                if ch.kind != "skip":
                    problems.append(f"{where}: no drawing, but the rules offer {ch.kind}")
                continue
            mask = mask_of(tuple(c) for c in d["cells"])
            terrain = Terrain(d["terrain"])
            entry = next((e for e in ch.entries if e[1] == mask), None)
            if entry is None or terrain not in ch.terrains:
                problems.append(f"{where}: {d['kind']} {d['terrain']} on {d['cells']} is not among the {ch.kind} "
                                "drawings the rules allow then")
                continue
            coin = entry[2] and d.get("shape") == EXPLORE[slug].options[entry[0]].text if slug in EXPLORE and \
                entry[0] is not None else False
            pm.draw(mask, terrain, coin)
    if pm.to_sheet().cells != sheet.cells:
        problems.append("the replayed drawings do not give the sheet's cells")
    if pm.coins != sheet.coins:
        problems.append(f"the replayed drawings earn {pm.coins} coins, the sheet shows {sheet.coins}")
    return problems


# ---- seasons level: nothing drawn earlier changed -------------------------------------------
def _check_changes(sheets: list[Sheet], sheet_seasons: list[int]) -> list[Reason]:
    reasons = []
    for k in range(1, len(sheets)):
        a, b = sheets[k - 1], sheets[k]
        sa, sb = SEASONS[sheet_seasons[k - 1]].name, SEASONS[sheet_seasons[k]].name
        if a.side != b.side:
            reasons.append(Reason(f"the {sa} sheet is side {a.side} but the {sb} sheet is side {b.side}", []))
            continue
        changed = [(r, c) for (r, c), t in a.items() if t is not Terrain.EMPTY and b.cells[r][c] is not t]
        if changed:
            names = ", ".join(f"{cell_name(c)} ({a.cells[c[0]][c[1]].value} → {b.cells[c[0]][c[1]].value})"
                              for c in changed)
            reasons.append(Reason(f"drawn by the end of {sa} and changed by the end of {sb}: {names}", changed))
        if b.coins < a.coins:
            reasons.append(Reason(f"coins went down from {a.coins} ({sa}) to {b.coins} ({sb})", []))
    return reasons


# ---- the entry point ---------------------------------------------------------------------------
def validate(sheet: Sheet, *, log: dict | CardLog | None = None,
             previous: Sheet | Sequence[Sheet] | None = None, time_limit: float = 5.0) -> Verdict:
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
    if isinstance(previous, Sheet):
        previous = [previous]
    previous = list(previous or [])
    for k, p in enumerate(previous):
        if not isinstance(p, Sheet):
            raise ValueError(f"previous[{k}]: must be a Sheet")
    if len(previous) > 3:
        raise ValueError(f"previous: at most 3 earlier season sheets, got {len(previous)}")
    if card_log is not None:
        final_season = len(card_log.seasons) - 1
        if previous and len(previous) > final_season:
            raise ValueError(f"previous: {len(previous)} earlier sheets but the log has only "
                             f"{len(card_log.seasons)} season(s)")
    else:
        final_season = len(previous) if previous else 3
    checks: list[Check] = []

    # level 1: the sheet alone (all four seasons' limits)
    share = deadline if card_log is None and not previous else t0 + time_limit * 0.3
    checks.append(_check_sheet_level([sheet], [(0, 3)], share, "sheet"))

    # level 2: with the card log
    if card_log is not None:
        share = deadline if not previous else time.perf_counter() + (deadline - time.perf_counter()) * 0.6
        checks.append(_check_log_level([sheet], [final_season], card_log, share, "log"))

    # level 3: with the earlier season sheets
    if previous:
        t1 = time.perf_counter()
        sheets = previous + [sheet]
        seasons = list(range(len(previous))) + [final_season]
        changes = _check_changes(sheets, seasons)
        if changes:
            checks.append(Check("seasons", "illegal", changes, time.perf_counter() - t1))
        elif card_log is not None:
            checks.append(_check_log_level(sheets, seasons, card_log, deadline, "seasons"))
        else:
            spans = [(s, s) for s in seasons]
            spans[-1] = (seasons[-2] + 1 if len(seasons) > 1 else 0, seasons[-1])
            checks.append(_check_sheet_level(sheets, spans, deadline, "seasons"))

    # a legal witness at a stricter level is a legal game, so it settles a level that ran out of time
    for k, c in enumerate(checks):
        if c.status == "cannot-tell":
            stronger = next((d for d in checks[k + 1:] if d.status == "legal"), None)
            if stronger is not None:
                c.status = "legal"
                c.reasons = []
                c.details["implied_by"] = stronger.level
    statuses = [c.status for c in checks]
    status = "illegal" if "illegal" in statuses else "cannot-tell" if "cannot-tell" in statuses else "legal"
    reasons = [r for c in checks if c.status == status for r in c.reasons] if status != "legal" else []
    return Verdict(status, checks[-1].level, reasons, checks)


__all__ = ["validate", "replay", "Verdict", "Check", "Reason", "CardLog", "parse_log", "log_events", "Event",
           "LEVELS", "STATUSES", "MAX_EXPLORE_TURNS", "MAX_SEASON_TIME", "MAX_COIN_SHAPES"]
