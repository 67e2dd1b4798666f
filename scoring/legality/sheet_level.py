"""Level ``sheet`` (and ``seasons`` without a log): could four seasons' draws give these cells?

The coins must equal the surrounded mountains plus a number of coin shapes the cover can hold, and
the drawn cells must be an exact cover by placements of the game's shapes in their allowed terrains
— monsters as ambush shapes or 1×1s, any cell as a 1×1 (Rift Lands or a fallback) — within what the
seasons allow: each explore card at most once a season, at most 7/7/7/6 explore drawings, the time
of the drawn cards within the season thresholds, each ambush at most once.

With earlier season sheets each sheet's new cells form a *bucket* with the limits of the seasons
they were drawn in.
"""

from __future__ import annotations

import time
from typing import Any

from scoring.decks import AMBUSH_CARDS, EXPLORE_CARDS
from scoring.legality.model import BITS, DrawingModel, SheetFacts, shape_masks
from scoring.legality.verdicts import Check, Reason
from scoring.message import Joined, Message, Word, msg, msg_n
from scoring.seasons import SEASONS
from scoring.shapes import indices_of
from scoring.sheet import Sheet
from scoring.sides import SIZE, cell_name
from scoring.terrain import Terrain

#: Most explore drawings a season can have: the time cards revealed before the threshold is met
#: (four 1s and 2s in the cheapest order: 1,1,1,1,2,2 reaches 8 at the sixth card) plus Rift Lands.
MAX_EXPLORE_TURNS = tuple(
    1
    + next(
        k for k, total in enumerate((1, 2, 3, 4, 6, 8, 10, 12, 14, 16), start=1) if total >= s.time
    )
    for s in SEASONS
)
#: Most hourglass time the drawn cards of one season can add up to: under the threshold before the
#: last card, which is worth at most 2.
MAX_SEASON_TIME = tuple(s.time + 1 for s in SEASONS)
#: Coins a game can give from coin shapes: the four 1-time cards, once a season.
MAX_COIN_SHAPES = 4 * len(SEASONS)


def check_sheet_level(
    sheets: list[Sheet], seasons_of: list[tuple[int, int]], deadline: float, level: str
) -> Check:
    """Exact cover with the limits of the seasons each sheet's new cells were drawn in.

    ``sheets[k]`` is the sheet at the end of season ``seasons_of[k][1]``; its new cells (not drawn
    on ``sheets[k-1]``) were drawn in seasons ``seasons_of[k][0]…seasons_of[k][1]``.
    """
    t0 = time.perf_counter()
    facts = [SheetFacts(s) for s in sheets]
    coins_needed, reasons = _coins_needed(facts, seasons_of, level)
    if reasons:
        return Check(level, "illegal", reasons, time.perf_counter() - t0)
    solve, _ = _build(facts, seasons_of, coins_needed, slack=False)
    solver, status = solve.solve(deadline - time.perf_counter())
    details = {"drawings": len(solve.vars)}
    if status in (solve.cp.OPTIMAL, solve.cp.FEASIBLE):
        return Check(level, "legal", [], time.perf_counter() - t0, details)
    if status != solve.cp.INFEASIBLE:
        return Check(
            level,
            "cannot-tell",
            [Reason(msg("the search ran past its time limit"))],
            time.perf_counter() - t0,
            details,
        )
    reasons = [
        Reason(
            msg(
                "the drawn cells cannot be split into the game's shapes in their terrains within "
                "four seasons' turns and coins"
            )
            if level == "sheet"
            else msg(
                "the new cells of each season cannot be split into the game's shapes within that "
                "season's turns and coins"
            ),
            [],
        )
    ]
    # name what cannot be explained: the fewest cells left out (and coin differences)
    reasons += _left_over(facts, seasons_of, coins_needed, deadline, level)
    return Check(level, "illegal", reasons, time.perf_counter() - t0, details)


def _coins_needed(
    facts: list[SheetFacts], seasons_of: list[tuple[int, int]], level: str
) -> tuple[list[int], list[Reason]]:
    """The coins each bucket's coin shapes must give (its new coins less its newly surrounded
    mountains), and the reasons when the mountains alone give more coins than the sheet shows."""
    reasons: list[Reason] = []
    coins_needed = []
    prev_coins, prev_surr = 0, 0
    for k, f in enumerate(facts):
        d_coins = f.sheet.coins - prev_coins
        d_surr = len(f.surrounded) - prev_surr
        need = d_coins - d_surr
        if need < 0:
            new_surr = [c for c in f.surrounded if k == 0 or c not in facts[k - 1].surrounded]
            reasons.append(
                Reason(
                    _too_few_coins(f, _coins_at(f, seasons_of[k], level), k, prev_coins),
                    new_surr or list(f.surrounded),
                )
            )
        coins_needed.append(need)
        prev_coins, prev_surr = f.sheet.coins, len(f.surrounded)
    return coins_needed, reasons


def _build(
    facts: list[SheetFacts], seasons_of: list[tuple[int, int]], coins_needed: list[int], slack: bool
) -> tuple[DrawingModel, list[Any]]:
    """The model; with ``slack``, cells may stay uncovered and coins differ, each at a cost of one
    (minimised), returned as ``(var, what)``."""
    solve = DrawingModel(facts[-1])
    ambush_shapes: dict[str, list[Any]] = {a.slug: [] for a in AMBUSH_CARDS}
    coin_total, ambush_by_bucket = [], []
    for k in range(len(facts)):
        coin_vars, ambush_vars = _add_bucket(solve, facts, k, seasons_of[k], ambush_shapes)
        coin_total.append((coin_vars, coins_needed[k]))
        ambush_by_bucket.append(ambush_vars)
    _limit_ambushes(solve, ambush_shapes, ambush_by_bucket, seasons_of)
    return solve, _cover_and_coins(solve, coin_total, slack)


def _add_bucket(
    solve: DrawingModel,
    facts: list[SheetFacts],
    k: int,
    seasons: tuple[int, int],
    ambush_shapes: dict[str, list[Any]],
) -> tuple[list[Any], list[Any]]:
    """The drawings of the cells new on ``facts[k]``, drawn in ``seasons`` (first, last), and the
    limits of those seasons; returns the bucket's coin-shape and ambush drawings."""
    m = solve.m
    lo, hi = seasons
    f = facts[k]
    new = f.drawn & ~(facts[k - 1].drawn if k else 0)
    by_t = {t: f.by_terrain[t] & new for t in Terrain}
    explore_vars, time_terms, coin_vars = _add_explore_shapes(solve, k, by_t, hi - lo + 1)
    ambush_vars = []
    for a in AMBUSH_CARDS:
        for mask, t in shape_masks(a.placements, by_t, (Terrain.MONSTER,)):
            v = solve.new_drawing(
                mask, {"bucket": k, "card": a.slug, "shape": a.shape_text, "terrain": t}
            )
            ambush_shapes[a.slug].append(v)
            ambush_vars.append(v)
    for i in indices_of(new):
        t = f.terrain_at(i)
        v = solve.new_drawing(BITS[i], {"bucket": k, "card": "1x1", "shape": "X", "terrain": t})
        explore_vars.append(v)  # Rift Lands or a fallback
        if t is Terrain.MONSTER:
            w = solve.new_drawing(
                BITS[i], {"bucket": k, "card": "ambush 1x1", "shape": "X", "terrain": t}
            )
            ambush_vars.append(w)
    m.add(sum(explore_vars) <= sum(MAX_EXPLORE_TURNS[lo : hi + 1]))
    m.add(sum(time_terms) <= sum(MAX_SEASON_TIME[lo : hi + 1]))
    return coin_vars, ambush_vars


def _add_explore_shapes(
    solve: DrawingModel, k: int, by_t: dict[Terrain, int], n_seasons: int
) -> tuple[list[Any], list[Any], list[Any]]:
    """Every explore card's shapes in bucket ``k``, each card at most once a season; returns the
    drawings, their time terms and the coin-shape drawings."""
    explore_vars, time_terms, coin_vars = [], [], []
    for card in EXPLORE_CARDS:
        if card.is_ruins or card.kind == "rift":
            continue
        card_vars = []
        for opt in card.options:
            for mask, t in shape_masks(opt.placements, by_t, card.terrains):
                v = solve.new_drawing(
                    mask, {"bucket": k, "card": card.slug, "shape": opt.text, "terrain": t}
                )
                card_vars.append(v)
                time_terms.append(card.time * v)
                if opt.coin:
                    coin_vars.append(v)
        if card_vars:
            solve.m.add(sum(card_vars) <= n_seasons)
            explore_vars += card_vars
    return explore_vars, time_terms, coin_vars


def _limit_ambushes(
    solve: DrawingModel,
    ambush_shapes: dict[str, list[Any]],
    ambush_by_bucket: list[list[Any]],
    seasons_of: list[tuple[int, int]],
) -> None:
    """Each ambush at most once, and no more ambushes by a season's end than seasons so far."""
    m = solve.m
    for vs in ambush_shapes.values():
        if vs:
            m.add(sum(vs) <= 1)
    run: list[Any] = []
    for k, vs in enumerate(ambush_by_bucket):
        run += vs
        if run:
            m.add(sum(run) <= min(len(AMBUSH_CARDS), seasons_of[k][1] + 1))


def _cover_and_coins(
    solve: DrawingModel, coin_total: list[tuple[list[Any], int]], slack: bool
) -> list[Any]:
    """Every drawn cell covered once and each bucket's coin shapes giving its coins (with ``slack``:
    at a cost); returns the slack variables as ``(var, what)``."""
    m = solve.m
    slacks = []
    for i, vs in solve.cover.items():
        if slack:
            u = m.new_bool_var(f"u{i}")
            slacks.append((u, ("cell", i)))
            m.add(sum(vs) + u == 1)
        else:
            m.add_exactly_one(vs)
    for k, (coin_vars, need) in enumerate(coin_total):
        if slack:
            plus, minus = m.new_int_var(0, 40, f"cp{k}"), m.new_int_var(0, 40, f"cm{k}")
            slacks += [(plus, ("coins+", k)), (minus, ("coins-", k))]
            m.add(sum(coin_vars) + plus - minus == need)
        else:
            m.add(sum(coin_vars) == need)
    if slack:
        m.minimize(sum(v for v, _ in slacks))
    return slacks


def _left_over(
    facts: list[SheetFacts],
    seasons_of: list[tuple[int, int]],
    coins_needed: list[int],
    deadline: float,
    level: str,
) -> list[Reason]:
    """The fewest cells left out of the cover (and the
    coin differences), found by the slack model."""
    solve, slacks = _build(facts, seasons_of, coins_needed, slack=True)
    solver, status = solve.solve(min(1.0, deadline - time.perf_counter()))
    if status not in (solve.cp.OPTIMAL, solve.cp.FEASIBLE):
        return []
    reasons = []
    cells = sorted(
        divmod(what[1], SIZE) for v, what in slacks if what[0] == "cell" and solver.value(v)
    )
    if cells:
        reasons.append(
            Reason(
                msg(
                    "{cells}: drawn, but left over once the rest is split into the game's shapes "
                    "within the turns",
                    cells=Joined([cell_name(c) for c in cells]),
                ),
                cells,
            )
        )
    for v, what in slacks:
        if what[0].startswith("coins") and solver.value(v):
            f = facts[what[1]]
            coins = _coins_at(f, seasons_of[what[1]], level)
            reasons.append(
                Reason(
                    _coins_unexplained(coins, solver.value(v), what[0] == "coins+", f),
                    list(f.surrounded),
                )
            )
    return reasons


def _coins_at(f: SheetFacts, seasons: tuple[int, int], level: str) -> Message:
    """The sheet's coins, and at the end of which season when the level checks seasons."""
    if level == "sheet":
        return msg_n("{n} coin", "{n} coins", f.sheet.coins)
    season = Word("season", SEASONS[seasons[1]].name)
    return msg_n(
        "{n} coin at the end of {season}",
        "{n} coins at the end of {season}",
        f.sheet.coins,
        season=season,
    )


def _too_few_coins(f: SheetFacts, coins: Message, k: int, before: int) -> Message:
    """Fewer coins than the surrounded mountains alone earned (``before``: the coins of the
    sheet before, for every sheet but the first)."""
    mountains = len(f.surrounded)
    if k == 0:
        return msg_n(
            "{coins} but {n} surrounded mountain earned one",
            "{coins} but {n} surrounded mountains each earned one",
            mountains,
            coins=coins,
        )
    return msg_n(
        "{coins} but {n} surrounded mountain earned one (and {before} before)",
        "{coins} but {n} surrounded mountains each earned one (and {before} before)",
        mountains,
        coins=coins,
        before=msg_n("{n} coin", "{n} coins", before),
    )


def _coins_unexplained(coins: Message, difference: int, more: bool, f: SheetFacts) -> Message:
    """The sheet's coins against the coin shapes that fit and the surrounded mountains."""
    if more:
        return msg_n(
            "{coins}: {difference} more than the coin shapes that fit and {n} surrounded "
            "mountain explain",
            "{coins}: {difference} more than the coin shapes that fit and {n} surrounded "
            "mountains explain",
            len(f.surrounded),
            coins=coins,
            difference=difference,
        )
    return msg_n(
        "{coins}: {difference} fewer than the coin shapes that fit and {n} surrounded "
        "mountain explain",
        "{coins}: {difference} fewer than the coin shapes that fit and {n} surrounded "
        "mountains explain",
        len(f.surrounded),
        coins=coins,
        difference=difference,
    )
