"""The numbers a player writes in the season boxes, and their exact truth.

From a simulated game each written season holds that season's real score (the two edicts' stars on
the sheet as it stood at the season's end, the coins, the monster penalty, the total:
:func:`scoring.seasons.score_season`); otherwise plausible numbers that add up. Players fill the
seasons played so far (now and then fewer), the final total on most finished sheets; about one
sheet in ten carries one planted arithmetic mistake (a season total or the final total off, or two
digits swapped), listed in the truth. A zero is often left blank; the monster penalty is written
with or without its minus sign; a few numbers are crossed out and written again beside or above.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from scoring.seasons import score_season
from scoring.sheet import Sheet
from scoring.written import PARTS, SEASON_NAMES, WrittenScores, WrittenSeason
from vision.layout import GEOMETRY, Box
from vision.synth.digits import WritingHand, char_strokes, scribble_strokes, text_extent
from vision.synth.paper import RenderedSheet
from vision.synth.pens import Hand
from vision.synth.strokes import Tile

MISTAKE_SHARE = 0.1  # sheets with a season written that carry one planted mistake
CROSSED_SHARE = 0.03  # numbers crossed out and written again
FINAL_SHARE = 0.85  # finished sheets whose final total is written
ZERO_BLANK = {"edict1": 0.15, "edict2": 0.15, "coins": 0.35, "monsters": 0.5, "total": 0.03}


@dataclass(frozen=True)
class Game:
    """What a simulated game tells about one sheet: the cards under edicts A–D and the player's
    sheet at the end of each season played."""

    cards: tuple[str, ...]
    season_sheets: tuple[Sheet, ...]


@dataclass
class WrittenPlan:
    """The numbers to write (the truth), the planted mistakes and the numbers written twice."""

    scores: WrittenScores
    mistakes: list[dict] = field(default_factory=list)
    crossed: dict[str, int] = field(default_factory=dict)  # cell → the number crossed out there
    monsters_minus: bool | None = None  # the penalties were written "-2" (None: not yet drawn)
    seed: int = 0  # the stream the handwriting of these numbers is drawn with

    def truth(self) -> dict:
        """``WrittenScores.to_json()`` plus ``mistakes``, ``crossed_out`` and
        ``monsters_minus``."""
        return {
            **self.scores.to_json(),
            "mistakes": self.mistakes,
            "crossed_out": self.crossed,
            "monsters_minus": self.monsters_minus,
        }


def _season_numbers(game: Game | None, sheet: Sheet, k: int, rng: np.random.Generator) -> list:
    """[edict1, edict2, coins, monsters] of season ``k``: scored on the game, else made up."""
    if game is not None and k < len(game.season_sheets):
        s = score_season(game.season_sheets[k], game.cards, SEASON_NAMES[k])
        return [s.edicts[0].result.stars, s.edicts[1].result.stars, s.coins, s.monster_penalty]
    coins = int(min(sheet.coins, rng.integers(0, 4) * (k + 1)))
    monsters = int(rng.choice([0, 0, 0, 1, 2, 3, 4, 5, 7]))
    return [int(rng.integers(0, 19)), int(rng.integers(0, 19)), coins, monsters]


def plan_written(sheet: Sheet, game: Game | None, rng: np.random.Generator) -> WrittenPlan:
    """The numbers a player wrote on ``sheet`` (see the module's docstring)."""
    played = len(game.season_sheets) if game is not None else int(rng.integers(0, 5))
    roll = rng.random()
    filled = 0 if roll < 0.05 else max(0, played - 1) if roll < 0.12 else played
    rows = [_season_numbers(game, sheet, k, rng) for k in range(filled)]
    rows = [r + [r[0] + r[1] + r[2] - r[3]] for r in rows]
    final = sum(r[4] for r in rows) if filled == 4 and rng.random() < FINAL_SHARE else None
    final = None if final is not None and final < 0 else final  # the shield holds no minus
    mistakes: list[dict] = []
    if rows and rng.random() < MISTAKE_SHARE:
        final = _plant_mistake(rows, final, mistakes, rng)
    seasons = []
    for k, name in enumerate(SEASON_NAMES):
        if k >= len(rows):
            seasons.append(WrittenSeason(name))
            continue
        vals = [_maybe_blank(PARTS[i], v, rng) for i, v in enumerate(rows[k])]
        seasons.append(WrittenSeason(name, (vals[0], vals[1]), vals[2], vals[3], vals[4]))
    scores = WrittenScores(tuple(seasons), final)
    crossed = {}
    for cell, value in _cells(scores):
        if value is not None and rng.random() < CROSSED_SHARE:
            crossed[cell] = _other_number(value, rng)
    return WrittenPlan(scores, mistakes, crossed, seed=int(rng.integers(2**63)))


def _maybe_blank(part: str, value: int, rng: np.random.Generator) -> int | None:
    """A zero is often left blank."""
    return None if value == 0 and rng.random() < ZERO_BLANK[part] else value


def _plant_mistake(
    rows: list[list[int]], final: int | None, mistakes: list, rng: np.random.Generator
) -> int | None:
    """Change one number as a player's slip would; the final total follows the written totals."""
    kinds = ["season-total", "digit-swap"] + (["final-total"] if final is not None else [])
    kind = str(rng.choice(kinds))
    swappable = [
        (k, i)
        for k, r in enumerate(rows)
        for i, v in enumerate(r)
        if 10 <= v <= 99 and v // 10 != v % 10
    ]
    if kind == "digit-swap" and not swappable:
        kind = "season-total"
    if kind == "final-total":
        assert final is not None
        wrong = abs(final + int(rng.choice([-1, 1])) * int(rng.integers(1, 11)))
        wrong = wrong if wrong != final else final + 1
        mistakes.append({"kind": kind, "cell": "final", "written": wrong, "correct": final})
        return wrong
    if kind == "digit-swap":
        k, i = swappable[int(rng.integers(len(swappable)))]
        v = rows[k][i]
        wrong = (v % 10) * 10 + v // 10
    else:
        k, i = int(rng.integers(len(rows))), 4
        wrong = rows[k][4] + int(rng.choice([-1, 1])) * int(rng.integers(1, 4))
        if wrong < 0 <= rows[k][4]:
            wrong = rows[k][4] + int(rng.integers(1, 4))
    cell = f"{SEASON_NAMES[k]}.{PARTS[i]}"
    mistakes.append({"kind": kind, "cell": cell, "written": wrong, "correct": rows[k][i]})
    rows[k][i] = wrong
    followed = sum(r[4] for r in rows)
    return None if final is None or followed < 0 else followed


def _cells(scores: WrittenScores) -> list[tuple[str, int | None]]:
    """Every writing cell's key ("spring.edict1" … "winter.total", "final") and number."""
    out = [(f"{s.season}.{p}", v) for s in scores.seasons for p, v in s.numbers().items()]
    return out + [("final", scores.final_total)]


def _other_number(value: int, rng: np.random.Generator) -> int:
    """A number the player wrote first by mistake."""
    other = abs(value) + int(rng.choice([-3, -2, -1, 1, 2, 3, 10]))
    return other if other >= 0 and other != abs(value) else abs(value) + 1


def random_game(record, player: int, seasons: int) -> Game:
    """The :class:`Game` of one player of a simulated ``record`` after ``seasons`` seasons."""
    return Game(tuple(record.cards), tuple(record.season_sheets[player][:seasons]))


# ---- drawing --------------------------------------------------------------------------------


def cell_boxes() -> dict[str, Box]:
    """Every writing cell's box (units) by key: the season boxes' five cells and the shield, where
    the player writes inside the shield's rim."""
    from vision.season_boxes import writing_cells

    boxes = writing_cells()
    f = GEOMETRY.final_total
    boxes["final"] = Box(f.x0 + 0.05, f.y0 + 0.05, f.x1 - 0.05, f.y0 + 0.8)
    return boxes


def number_text(cell: str, value: int, writer: WritingHand) -> str:
    """How the player writes ``value`` in ``cell`` (a monster penalty may carry a minus sign)."""
    if cell.endswith("monsters") and value > 0 and writer.minus_on_monsters:
        return f"-{value}"
    return str(value)


def draw_written(
    layer: np.ndarray,
    rendered: RenderedSheet,
    plan: WrittenPlan,
    writer: WritingHand,
    rng: np.random.Generator,
) -> None:
    """Write every planned number into its cell of ``layer`` (a density layer of ``rendered``)."""
    boxes = cell_boxes()
    hand = writer.drawing_hand()
    plan.monsters_minus = writer.minus_on_monsters
    for cell, value in _cells(plan.scores):
        if value is None:
            continue
        box = boxes[cell]
        tile = Tile(rendered, box)
        text = number_text(cell, value, writer)
        old = plan.crossed.get(cell)
        if old is None:
            _write(tile, text, box, writer, rng, hand)
        else:
            _write_crossed(tile, str(old), text, box, writer, rng, hand)
        tile.merge(layer)


def _write(
    tile: Tile,
    text: str,
    box: Box,
    writer: WritingHand,
    rng: np.random.Generator,
    hand: Hand,
    scale: float = 1.0,
) -> tuple[float, float, float, float]:
    """One number fitted into ``box`` (units) with a little jitter; returns its extent."""
    tall = box.height > 0.8
    height = writer.height_u * scale * (rng.uniform(1.1, 1.6) if tall else rng.uniform(0.9, 1.1))
    strokes = char_strokes(text, writer, height, rng)
    x0, y0, x1, y1 = text_extent(strokes)
    fit = min(1.0, (box.width * 0.8) / max(x1 - x0, 1e-3), (box.height * 0.75) / max(y1 - y0, 1e-3))
    cx = (box.x0 + box.x1) / 2 + rng.uniform(-0.08, 0.08) * box.width
    cy = (box.y0 + box.y1) / 2 + rng.uniform(-0.06, 0.06) * box.height
    placed = []
    for s in strokes:
        p = (s - [(x0 + x1) / 2, (y0 + y1) / 2]) * fit + [cx, cy]
        tile.stroke(p, rng, hand)
        placed.append(p)
    return text_extent(placed)


def _write_crossed(
    tile: Tile,
    old: str,
    new: str,
    box: Box,
    writer: WritingHand,
    rng: np.random.Generator,
    hand: Hand,
) -> None:
    """A number crossed out and the right one written beside it (or above, in a tall cell)."""
    if box.height > 0.8:
        first = Box(box.x0, box.y0, box.x1, box.y0 + box.height * 0.45)
        second = Box(box.x0, box.y0 + box.height * 0.45, box.x1, box.y1)
    else:
        mid = box.x0 + box.width * 0.45
        first, second = Box(box.x0, box.y0, mid, box.y1), Box(mid, box.y0, box.x1, box.y1)
    if rng.random() < 0.5:
        first, second = second, first
    extent = _write(tile, old, first, writer, rng, hand, 0.8)
    for s in scribble_strokes(extent, rng):
        tile.stroke(s, rng, hand)
    _write(tile, new, second, writer, rng, hand, 0.85)
