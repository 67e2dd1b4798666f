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
from scoring.message import Joined, Message, Word, msg
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
        sa = Word("season", SEASONS[sheet_seasons[k - 1]].name)
        sb = Word("season", SEASONS[sheet_seasons[k]].name)
        if a.side != b.side:
            reasons.append(
                Reason(
                    msg(
                        "the {earlier} sheet is side {side} but the {later} sheet is side {other}",
                        earlier=sa,
                        side=a.side,
                        later=sb,
                        other=b.side,
                    ),
                    [],
                )
            )
            continue
        changed = [
            (r, c) for (r, c), t in a.items() if t is not Terrain.EMPTY and b.cells[r][c] is not t
        ]
        if changed:
            names = Joined([_change(c, a, b) for c in changed])
            reasons.append(
                Reason(
                    msg(
                        "drawn by the end of {earlier} and changed by the end of {later}: {cells}",
                        earlier=sa,
                        later=sb,
                        cells=names,
                    ),
                    changed,
                )
            )
        if b.coins < a.coins:
            reasons.append(
                Reason(
                    msg(
                        "coins went down from {before} ({earlier}) to {after} ({later})",
                        before=a.coins,
                        earlier=sa,
                        after=b.coins,
                        later=sb,
                    ),
                    [],
                )
            )
    return reasons


def _change(cell: tuple[int, int], a: Sheet, b: Sheet) -> Message:
    """One changed cell: ``"B4 (forest → water)"``."""
    r, c = cell
    return msg(
        "{cell} ({before} → {after})",
        cell=cell_name(cell),
        before=Word("terrain", a.cells[r][c].value),
        after=Word("terrain", b.cells[r][c].value),
    )
