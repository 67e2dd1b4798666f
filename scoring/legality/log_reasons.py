"""Level ``log``, when the sheet is illegal: which cells to blame.

The order-free model with slack (:class:`~scoring.legality.order_free.OrderFreeModel`) finds the
fewest cells whose change would make the sheet legal — a terrain no revealed card explains, an
empty cell a drawing needs, a drawn cell nothing explains — plus turns left without a drawing and
coin differences; then other sets of cells as small as that one, since the changed cell is often one
of several that could be blamed.
"""

from __future__ import annotations

import time

from ortools.sat.python.cp_model import CpSolver

from scoring.legality.card_log import CardLog
from scoring.legality.model import Var
from scoring.legality.order_free import OrderFreeModel
from scoring.legality.verdicts import Reason
from scoring.message import Joined, Message, Word, msg, msg_n
from scoring.seasons import SEASONS
from scoring.sheet import Sheet
from scoring.sides import SIZE, cell_name


def explain_illegal(
    sheets: list[Sheet], sheet_seasons: list[int], log: CardLog, deadline: float, cap: float = 1.0
) -> list[Reason]:
    """The fewest cells to change (and turns without a drawing, and coins) to make the sheet legal
    in the order-free model: the cells the verdict names."""
    generic = Reason(
        msg(
            "no choice of shape, orientation, position and terrain for the revealed cards draws "
            "exactly this sheet and its coins"
        ),
        [],
    )
    remaining = min(cap, deadline - time.perf_counter())
    if remaining <= 0.05:
        return [generic]
    model = OrderFreeModel(sheets, sheet_seasons, log, slack=True)
    remaining = min(cap, deadline - time.perf_counter())
    solver, status = model.run(remaining)
    cp = model.solve.cp
    if status not in (cp.OPTIMAL, cp.FEASIBLE):
        return [generic]
    primary, reasons = _cell_reasons(model, solver)
    reasons += _turn_and_coin_reasons(model, solver)
    if status != cp.OPTIMAL:
        reasons.append(
            Reason(msg("(the smallest such set of cells was not proven within the time limit)"))
        )
        return reasons or [generic]
    # other equally small fixes: the changed cell is often one of several that could be blamed
    if primary:
        alternatives = alternative_blames(model, solver, primary, deadline, cap)
        if alternatives:
            every = sorted({divmod(i, SIZE) for a in [primary, *alternatives] for i in a})
            reasons.insert(
                0,
                Reason(
                    msg_n(
                        "the sheet cannot be drawn with the revealed cards; the fewest changes "
                        "that would allow it touch {n} cell, and any of these cells could be the "
                        "one: {cells}",
                        "the sheet cannot be drawn with the revealed cards; the fewest changes "
                        "that would allow it touch {n} cells, and any of these cells could be the "
                        "one: {cells}",
                        len(primary),
                        cells=Joined([cell_name(c) for c in every]),
                    ),
                    every,
                ),
            )
    return reasons or [generic]


def _cell_reasons(model: OrderFreeModel, solver: CpSolver) -> tuple[set[int], list[Reason]]:
    """The cells the slack solution changes (all of them, and a reason per kind of change)."""
    last = model.last
    wrong: list[int] = []
    missing: list[int] = []
    unexplained: list[int] = []
    for v, cell in model.mismatch.items():
        if solver.value(v):
            (missing if last.empty >> cell & 1 else wrong).append(cell)
    for v, _, what in model.costs:
        if isinstance(what, tuple) and what[0] == "cell" and solver.value(v):
            unexplained.append(what[1])
    reasons = []
    for cells, say in (
        (wrong, _wrong_terrain),
        (missing, _needed_filled),
        (unexplained, _unexplained),
    ):
        if cells:
            cs = sorted(divmod(i, SIZE) for i in cells)
            reasons.append(Reason(say(Joined([cell_name(c) for c in cs])), cs))
    return set(wrong + missing + unexplained), reasons


def _wrong_terrain(cells: Joined) -> Message:
    return msg("{cells}: drawn in a terrain no revealed card explains there", cells=cells)


def _needed_filled(cells: Joined) -> Message:
    return msg("{cells}: empty, but a drawing of the revealed cards needs it filled", cells=cells)


def _unexplained(cells: Joined) -> Message:
    return msg("{cells}: drawn, but no drawing of the revealed cards explains it", cells=cells)


def _turn_and_coin_reasons(model: OrderFreeModel, solver: CpSolver) -> list[Reason]:
    """The turns the slack solution leaves without a drawing, and its coin differences."""
    reasons = []
    for v, _, what in model.costs:
        if isinstance(what, tuple) and what[0] == "turns" and solver.value(v):
            info = what[1]
            reasons.append(
                Reason(
                    msg_n(
                        "{card}: {n} revealed turn with no drawing left on the sheet",
                        "{card}: {n} revealed turns with no drawing left on the sheet",
                        solver.value(v),
                        card=Word("card", info["card"]),
                    )
                )
            )
        if isinstance(what, tuple) and what[0] in ("coins+", "coins-") and solver.value(v):
            _, f, s = what
            more = what[0] == "coins+"  # the sheet shows more coins than the drawings explain
            reasons.append(
                Reason(
                    _coins_reason(f.sheet.coins, s, solver.value(v), more, len(f.surrounded)),
                    list(f.surrounded),
                )
            )
    return reasons


def _coins_reason(coins: int, season: int, difference: int, more: bool, mountains: int) -> Message:
    """The coins at a season's end against the coin shapes and the surrounded mountains."""
    values = {"season": Word("season", SEASONS[season].name), "coins": coins}
    values["difference"] = difference
    if more:
        return msg_n(
            "coins at the end of {season}: the sheet shows {coins}, {difference} more than its "
            "coin shapes and {n} surrounded mountain explain",
            "coins at the end of {season}: the sheet shows {coins}, {difference} more than its "
            "coin shapes and {n} surrounded mountains explain",
            mountains,
            **values,
        )
    return msg_n(
        "coins at the end of {season}: the sheet shows {coins}, {difference} fewer than its "
        "coin shapes and {n} surrounded mountain explain",
        "coins at the end of {season}: the sheet shows {coins}, {difference} fewer than its "
        "coin shapes and {n} surrounded mountains explain",
        mountains,
        **values,
    )


def alternative_blames(
    model: OrderFreeModel,
    solver: CpSolver,
    primary: set[int],
    deadline: float,
    cap: float,
    most: int = 8,
) -> list[set[int]]:
    """Other sets of cells, as small as the first, whose change would also explain the sheet."""
    t_end = min(deadline, time.perf_counter() + cap)
    m = model.m
    best = int(round(solver.objective_value))
    blame_vars: dict[int, list[Var]] = {}
    for v, cell in model.mismatch.items():
        blame_vars.setdefault(cell, []).append(v)
    for v, _, what in model.costs:
        if isinstance(what, tuple) and what[0] == "cell":
            blame_vars.setdefault(what[1], []).append(v)
    blame = {}
    for cell, vs in blame_vars.items():
        b = m.new_bool_var(f"blame{cell}")
        m.add_max_equality(b, vs)
        blame[cell] = b
    m.add(model.objective <= best)
    m.clear_objective()
    found: list[set[int]] = []
    current = primary
    while len(found) < most:
        m.add(sum(blame[c] for c in current) <= len(current) - 1)
        left = t_end - time.perf_counter()
        if left <= 0.05:
            break
        solver2, status = model.run(left)
        if status not in (model.solve.cp.OPTIMAL, model.solve.cp.FEASIBLE):
            break
        current = {c for c, b in blame.items() if solver2.value(b)}
        if not current:
            break
        found.append(current)
    return found
