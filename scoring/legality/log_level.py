"""Level ``log`` (and ``seasons`` with a log): one drawing per revealed card, in the order they
came.

Three stages, each exact in what it concludes (``details["stage"]``):

A.  order-free, the cards' shapes only (:class:`~scoring.legality.order_free.OrderFreeModel` without
    fallbacks): a solution is a legal witness as it stands — a quick "legal";
A+. order-free with the fallbacks: a relaxation, so infeasible here means illegal;
B.  per turn (:class:`~scoring.legality.per_turn.PerTurnModel`): exact, the fallbacks and the solo
    sweep in the order the cards were revealed.

An illegal answer names cells (:func:`~scoring.legality.log_reasons.explain_illegal`); a legal one
carries its witness, ``details["explanation"]``.
"""

from __future__ import annotations

import time
from typing import Any

from scoring.legality.card_log import CardLog
from scoring.legality.log_reasons import explain_illegal
from scoring.legality.order_free import OrderFreeModel
from scoring.legality.per_turn import PerTurnModel
from scoring.legality.verdicts import Check, Reason
from scoring.message import Word, msg, msg_n
from scoring.seasons import SEASONS
from scoring.sheet import Sheet


def check_log_level(
    sheets: list[Sheet], sheet_seasons: list[int], log: CardLog, deadline: float, level: str
) -> Check:
    """``sheets[k]`` is the sheet at the end of season ``sheet_seasons[k]`` (one sheet at the
    ``log`` level; with the earlier season sheets at the ``seasons`` level)."""
    t0 = time.perf_counter()
    last_season = sheet_seasons[-1]
    if last_season >= len(log.seasons):
        return Check(
            level,
            "cannot-tell",
            [
                Reason(
                    msg_n(
                        "the log covers {n} season but the sheet is at the end of {season}",
                        "the log covers {n} seasons but the sheet is at the end of {season}",
                        len(log.seasons),
                        season=Word("season", SEASONS[last_season].name),
                    )
                )
            ],
            0.0,
        )
    if log.side and log.side != sheets[-1].side:
        return Check(
            level,
            "illegal",
            [
                Reason(
                    msg(
                        "the sheet is side {side} but the table played side {played}",
                        side=sheets[-1].side,
                        played=log.side,
                    )
                )
            ],
            0.0,
        )
    # stage A: the card's shapes only, turns of one card interchangeable — a quick "legal"
    agg = OrderFreeModel(sheets, sheet_seasons, log, fallbacks=False)
    budget = max(0.05, min(0.5, 0.25 * (deadline - time.perf_counter())))
    solver, status = agg.run(budget)
    cp = agg.solve.cp
    details: dict[str, Any] = {
        "turns": len(agg.events),
        "drawings": len(agg.solve.vars),
        "stage": "order-free",
    }
    if status in (cp.OPTIMAL, cp.FEASIBLE) and not any(solver.value(v) for v in agg.ordered):
        details["explanation"] = agg.witness(solver)
        return Check(level, "legal", [], time.perf_counter() - t0, details)
    # stage A+: the order-free relaxation with the fallbacks — infeasible here means illegal
    agg = OrderFreeModel(sheets, sheet_seasons, log, fallbacks=True)
    budget = max(0.05, min(1.5, 0.3 * (deadline - time.perf_counter())))
    solver, status = agg.run(budget)
    if status == cp.INFEASIBLE:
        details["stage"] = "order-free"
        reasons = explain_illegal(sheets, sheet_seasons, log, deadline)
        return Check(level, "illegal", reasons, time.perf_counter() - t0, details)
    if status in (cp.OPTIMAL, cp.FEASIBLE) and not any(solver.value(v) for v in agg.ordered):
        details["explanation"] = agg.witness(solver)
        return Check(level, "legal", [], time.perf_counter() - t0, details)
    # stage B: exact, turn by turn, fallbacks and the solo sweep in the order the cards came
    return _per_turn(sheets, sheet_seasons, log, deadline, level, t0, details)


def _per_turn(
    sheets: list[Sheet],
    sheet_seasons: list[int],
    log: CardLog,
    deadline: float,
    level: str,
    t0: float,
    details: dict[str, Any],
) -> Check:
    """Stage B, when the order-free stages could not settle it; ``t0`` is when the check began."""
    model = PerTurnModel(sheets, sheet_seasons, log)
    solver, status = model.run(deadline - time.perf_counter())
    cp = model.solve.cp
    details.update(
        {
            "stage": "per-turn",
            "drawings": len(model.solve.vars),
            "order_constraints": model.order_constraints,
        }
    )
    if status in (cp.OPTIMAL, cp.FEASIBLE):
        details["explanation"] = model.witness(solver)
        return Check(level, "legal", [], time.perf_counter() - t0, details)
    if status != cp.INFEASIBLE:
        return Check(
            level,
            "cannot-tell",
            [Reason(msg("the search ran past its time limit"))],
            time.perf_counter() - t0,
            details,
        )
    reasons = explain_illegal(sheets, sheet_seasons, log, deadline)
    if not any(r.cells for r in reasons):
        reasons.insert(
            0,
            Reason(
                msg(
                    "the cards' fallbacks (or the solo ambush sweep) do not fit the order in "
                    "which the cards were revealed"
                ),
                [],
            ),
        )
    return Check(level, "illegal", reasons, time.perf_counter() - t0, details)
