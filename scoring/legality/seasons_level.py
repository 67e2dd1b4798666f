"""Level ``seasons``: with the sheets at the end of earlier seasons.

Nothing drawn earlier changed and the coins never went down; then each season's new cells (and
coins) are explained by that season's cards — by the card log when given
(:mod:`scoring.legality.log_level`), else by the sheet-level limits for one season
(:mod:`scoring.legality.sheet_level`).
"""

from __future__ import annotations

import time

from scoring.legality.card_log import CardLog
from scoring.legality.log_level import check_log_level
from scoring.legality.sheet_level import check_sheet_level
from scoring.legality.verdicts import Check, Reason
from scoring.seasons import SEASONS
from scoring.sheet import Sheet
from scoring.sides import cell_name
from scoring.terrain import Terrain


def check_seasons_level(
    previous: list[Sheet],
    sheet: Sheet,
    final_season: int,
    card_log: CardLog | None,
    deadline: float,
) -> Check:
    """``previous[k]`` is the sheet at the end of season ``k``, ``sheet`` the one at the end of
    ``final_season``."""
    t1 = time.perf_counter()
    sheets = previous + [sheet]
    seasons = list(range(len(previous))) + [final_season]
    changes = check_changes(sheets, seasons)
    if changes:
        return Check("seasons", "illegal", changes, time.perf_counter() - t1)
    if card_log is not None:
        return check_log_level(sheets, seasons, card_log, deadline, "seasons")
    spans = [(s, s) for s in seasons]
    spans[-1] = (seasons[-2] + 1 if len(seasons) > 1 else 0, seasons[-1])
    return check_sheet_level(sheets, spans, deadline, "seasons")


def check_changes(sheets: list[Sheet], sheet_seasons: list[int]) -> list[Reason]:
    """Cells drawn on a sheet and different on the next, a change of side, coins going down."""
    reasons = []
    for k in range(1, len(sheets)):
        a, b = sheets[k - 1], sheets[k]
        sa, sb = SEASONS[sheet_seasons[k - 1]].name, SEASONS[sheet_seasons[k]].name
        if a.side != b.side:
            reasons.append(
                Reason(f"the {sa} sheet is side {a.side} but the {sb} sheet is side {b.side}", [])
            )
            continue
        changed = [
            (r, c) for (r, c), t in a.items() if t is not Terrain.EMPTY and b.cells[r][c] is not t
        ]
        if changed:
            names = ", ".join(
                f"{cell_name(c)} ({a.cells[c[0]][c[1]].value} → {b.cells[c[0]][c[1]].value})"
                for c in changed
            )
            reasons.append(
                Reason(f"drawn by the end of {sa} and changed by the end of {sb}: {names}", changed)
            )
        if b.coins < a.coins:
            reasons.append(Reason(f"coins went down from {a.coins} ({sa}) to {b.coins} ({sb})", []))
    return reasons
