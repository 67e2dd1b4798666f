"""Checks of the numbers a player wrote in the season boxes against each other and against the map.

Each check is one function with its rule in its docstring (docs/rules.md, "Written scores"). A
check reports only what is certainly wrong: a sheet whose arithmetic is right and was read right
never gets a report. The photographed map is the map at the end of the game, so it is winter's
map exactly and an upper bound for the earlier seasons' coins and monster penalties.

**Decision "blank counts as 0"**: players leave a zero cell blank, so a blank coins or monsters cell
counts as 0 in a box whose total is written. A blank edict or total is not guessed: the checks
that need it are skipped for that box.

>>> from scoring.written import WrittenScores
>>> sheet = Sheet.blank("A").with_cells({(0, 0): Terrain.MONSTER}, coins=3)  # A1: a monster
>>> w = WrittenScores.from_json({"seasons_written": [
...     {"season": "spring", "edicts": [7, 4], "coins": 3, "monsters": 2, "total": 13}]})
>>> [c.message for c in check_written(w, sheet, None)]
['spring: 7 + 4 + 3 − 2 is 12, written 13']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scoring.board import NEIGHBOURS, Board
from scoring.cards import CARDS
from scoring.message import Message, Word, msg, msg_n
from scoring.seasons import monster_penalty, score_season
from scoring.sheet import Sheet
from scoring.terrain import Terrain
from scoring.written import WrittenScores, WrittenSeason

#: A written number the reader is less sure of than this is "unsure": the sheet goes to review.
WRITTEN_UNSURE_BELOW = 0.9

#: Every check code, in the order :func:`check_written` reports them.
CHECK_CODES = (
    "season-sum",
    "final-sum",
    "winter-edicts",
    "winter-coins",
    "winter-monsters",
    "coins-decrease",
    "coins-exceed",
    "monsters-exceed",
)


#: The checks that hold whatever the map: they compare written numbers with each other only.
ARITHMETIC_CHECKS = ("season-sum", "final-sum", "coins-decrease")


@dataclass(frozen=True)
class WrittenCheck:
    """One discrepancy: its ``code`` (``CHECK_CODES``), the season box (``None``: the final
    total) and the message in words."""

    code: str
    season: str | None
    message: str  # a scoring.message.Message when made here: English, translatable by a face

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "season": self.season, "message": self.message}


def counted_coins(box: WrittenSeason) -> int | None:
    """The box's coins, a blank read as 0 when the total is written; ``None`` when unknown."""
    if box.coins is not None:
        return box.coins
    return 0 if box.total is not None else None


def counted_monsters(box: WrittenSeason) -> int | None:
    """The box's monster penalty, a blank read as 0 when the total is written; else ``None``."""
    if box.monsters is not None:
        return box.monsters
    return 0 if box.total is not None else None


def _shown(counted: int, as_written: int | None) -> int | Message:
    """A number for a message: a blank cell counted as 0 says so."""
    return counted if as_written is not None else msg("{n} (blank)", n=counted)


def _coins(counted: int, as_written: int | None = 0) -> Message:
    """``"1 coin"``, ``"3 coins"``, ``"0 (blank) coins"``."""
    return msg_n("{n} coin", "{n} coins", counted, n=_shown(counted, as_written))


def _season(name: str) -> Word:
    return Word("season", name)


def check_season_sums(written: WrittenScores) -> list[WrittenCheck]:
    """Each season total = edict 1 + edict 2 + coins − monsters (total and both edicts written)."""
    out = []
    for box in written.seasons:
        first, second = box.edicts
        coins, monsters = counted_coins(box), counted_monsters(box)
        if box.total is None or first is None or second is None:
            continue
        assert coins is not None and monsters is not None  # the total is written
        computed = first + second + coins - monsters
        if computed != box.total:
            sums = dict(first=first, second=second, coins=coins, monsters=monsters)
            sums.update(computed=computed, total=box.total)
            blanks = _blanks(box)
            message = (
                msg(
                    "{season}: {first} + {second} + {coins} − {monsters} is {computed}, "
                    "written {total}",
                    season=_season(box.season),
                    **sums,
                )
                if blanks is None
                else msg(
                    "{season}: {first} + {second} + {coins} − {monsters} is {computed}, "
                    "written {total} ({blanks})",
                    season=_season(box.season),
                    blanks=blanks,
                    **sums,
                )
            )
            out.append(WrittenCheck("season-sum", box.season, message))
    return out


def _blanks(box: WrittenSeason) -> Message | None:
    """What a season sum counted as 0 because the cell was blank (``None``: nothing)."""
    if box.coins is None and box.monsters is None:
        return msg("blank coins and monsters counted as 0")
    if box.coins is None:
        return msg("blank coins counted as 0")
    if box.monsters is None:
        return msg("blank monsters counted as 0")
    return None


def check_final_sum(written: WrittenScores) -> list[WrittenCheck]:
    """The final total = the sum of the four season totals (all five written)."""
    totals = [box.total for box in written.seasons]
    if written.final_total is None or any(t is None for t in totals):
        return []
    computed = sum(t for t in totals if t is not None)
    if computed == written.final_total:
        return []
    terms = " + ".join(str(t) for t in totals).replace("+ -", "− ")
    return [
        WrittenCheck(
            "final-sum",
            None,
            msg(
                "final total: {terms} is {computed}, written {total}",
                terms=terms,
                computed=computed,
                total=written.final_total,
            ),
        )
    ]


def check_winter_edicts(
    written: WrittenScores, board: Board, cards: Sequence[str]
) -> list[WrittenCheck]:
    """Winter's two edicts (D, then A) score on the final map exactly what is written."""
    winter = written.seasons[3]
    season = score_season(board, cards, "winter")
    out = []
    for written_stars, edict in zip(winter.edicts, season.edicts):
        stars = edict.result.stars
        if written_stars is not None and written_stars != stars:
            slug = edict.result.slug
            out.append(
                WrittenCheck(
                    "winter-edicts",
                    "winter",
                    msg(
                        "winter: edict {edict} ({card}) scores {stars} on this map, "
                        "written {written}",
                        edict=edict.edict,
                        card=Word("card", slug, CARDS[slug].name),
                        stars=stars,
                        written=written_stars,
                    ),
                )
            )
    return out


def check_winter_coins(written: WrittenScores, sheet: Sheet) -> list[WrittenCheck]:
    """Winter's coins = the coins filled on the map's track (the final map is winter's)."""
    winter = written.seasons[3]
    coins = counted_coins(winter)
    if coins is None or coins == sheet.coins:
        return []
    return [
        WrittenCheck(
            "winter-coins",
            "winter",
            msg(
                "winter: the map has {coins}, written {written}",
                coins=_coins(sheet.coins),
                written=_shown(coins, winter.coins),
            ),
        )
    ]


def check_winter_monsters(written: WrittenScores, board: Board) -> list[WrittenCheck]:
    """Winter's monster penalty = the final map's (empty cells next to a monster)."""
    written_penalty = counted_monsters(written.seasons[3])
    penalty = monster_penalty(board)
    if written_penalty is None or written_penalty == penalty:
        return []
    return [
        WrittenCheck(
            "winter-monsters",
            "winter",
            msg(
                "winter: monsters cost {penalty} on this map, written {written}",
                penalty=penalty,
                written=_shown(written_penalty, written.seasons[3].monsters),
            ),
        )
    ]


def check_coins_decrease(written: WrittenScores) -> list[WrittenCheck]:
    """Coins never decrease from one season to a later one (no coin is ever lost)."""
    out = []
    most, most_season = None, ""
    for box in written.seasons:
        coins = counted_coins(box)
        if coins is None:
            continue
        if most is not None and coins < most:
            out.append(
                WrittenCheck(
                    "coins-decrease",
                    box.season,
                    msg(
                        "{season}: {coins} written, fewer than {earlier}'s {most} "
                        "(coins are never lost)",
                        season=_season(box.season),
                        coins=_coins(coins, box.coins),
                        earlier=_season(most_season),
                        most=most,
                    ),
                )
            )
        if most is None or coins > most:
            most, most_season = coins, box.season
    return out


def check_coins_exceed(written: WrittenScores, sheet: Sheet) -> list[WrittenCheck]:
    """No earlier season's coins above the map's final coin count (winter: ``winter-coins``)."""
    out = []
    for box in written.seasons[:3]:
        coins = counted_coins(box)
        if coins is not None and coins > sheet.coins:
            out.append(
                WrittenCheck(
                    "coins-exceed",
                    box.season,
                    msg(
                        "{season}: {coins} written, more than the {on_map} on the map at the "
                        "game's end (coins are never lost)",
                        season=_season(box.season),
                        coins=_coins(coins),
                        on_map=sheet.coins,
                    ),
                )
            )
    return out


def monster_bound(board: Board) -> int:
    """The most any season's monster penalty can have been, seen from the final map.

    A penalty cell was empty and next to a monster; monsters are never erased, so that monster is
    on the final map, and the cell is still there, whatever was drawn on it since. Mountains and
    wasteland are printed, so never empty. The bound counts the other cells next to a monster.
    """
    t = board.t
    printed = (Terrain.MOUNTAIN, Terrain.WASTELAND)
    near = {j for i in board.cells(Terrain.MONSTER) for j in NEIGHBOURS[i] if t[j] not in printed}
    return len(near)


def check_monsters_exceed(written: WrittenScores, board: Board) -> list[WrittenCheck]:
    """No earlier season's penalty above :func:`monster_bound` (winter: ``winter-monsters``)."""
    bound = monster_bound(board)
    out = []
    for box in written.seasons[:3]:
        penalty = counted_monsters(box)
        if penalty is not None and penalty > bound:
            out.append(
                WrittenCheck(
                    "monsters-exceed",
                    box.season,
                    msg_n(
                        "{season}: monsters cost {penalty} written, but only {n} cell of the "
                        "map touches a monster",
                        "{season}: monsters cost {penalty} written, but only {n} cells of the "
                        "map touch a monster",
                        bound,
                        season=_season(box.season),
                        penalty=penalty,
                    ),
                )
            )
    return out


def check_written(
    written: WrittenScores,
    sheet: Sheet,
    cards: Sequence[str] | None,
    final_map: bool = True,
) -> list[WrittenCheck]:
    """Every check that the written numbers, the map and (when known) the four cards allow.

    ``final_map=False``: the map is an earlier season's, not the game's end, so only the checks
    that need no map run (``ARITHMETIC_CHECKS``).
    """
    if not final_map:
        return check_season_sums(written) + check_final_sum(written) + check_coins_decrease(written)
    board = Board(sheet)
    out = check_season_sums(written) + check_final_sum(written)
    if cards is not None:
        out += check_winter_edicts(written, board, cards)
    out += check_winter_coins(written, sheet) + check_winter_monsters(written, board)
    out += check_coins_decrease(written) + check_coins_exceed(written, sheet)
    out += check_monsters_exceed(written, board)
    return out


def unsure_numbers(written: WrittenScores) -> list[str]:
    """The written numbers (``"summer.coins"``, ``"final"``) read with less than
    :data:`WRITTEN_UNSURE_BELOW` confidence; typed-in numbers carry none, so are never unsure."""
    return [k for k, v in written.confidence.items() if v < WRITTEN_UNSURE_BELOW]


def checked_total(written: WrittenScores, sheet: Sheet, cards: Sequence[str]) -> int | None:
    """Winter scored on the map plus the written spring, summer and fall totals.

    ``None`` when one of those three totals is blank. This is the score a referee can stand
    behind: winter comes from the photographed map, the earlier seasons from the sheet.
    """
    earlier = [box.total for box in written.seasons[:3]]
    if any(t is None for t in earlier):
        return None
    winter = score_season(sheet, cards, "winter").total
    return winter + sum(t for t in earlier if t is not None)
