"""Where the synthetic maps come from.

Full games from the game simulator (``scoring.simulator``) when it is installed; otherwise, and
also for mid-game and odd sheets, random legal placements: shapes of 1–5 orthogonally connected
cells of one terrain on empty cells, 0–14 coins. Blank sheets turn up too.
"""

from __future__ import annotations

import numpy as np

from scoring.sheet import Sheet
from scoring.sides import SIZE
from scoring.simulator import simulate
from scoring.terrain import DRAWABLE, Terrain
from vision.synth.writing import Game, random_game

SOURCES = ("simulator", "random", "blank")


def random_shape(size: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    """A random polyomino of ``size`` cells, as offsets from its first cell."""
    cells = [(0, 0)]
    while len(cells) < size:
        r, c = cells[rng.integers(len(cells))]
        dr, dc = ((0, 1), (1, 0), (0, -1), (-1, 0))[rng.integers(4)]
        if (r + dr, c + dc) not in cells:
            cells.append((r + dr, c + dc))
    return cells


def random_sheet(side: str, rng: np.random.Generator, shapes: int | None = None) -> Sheet:
    """A sheet with ``shapes`` random shapes placed legally (default: mid-game to full)."""
    sheet = Sheet.blank(side)
    rows = [list(row) for row in sheet.cells]
    n = int(rng.integers(1, 40)) if shapes is None else shapes
    weights = np.array([0.26, 0.2, 0.22, 0.22, 0.1])  # forest, village, farm, water, monster
    for _ in range(n):
        shape = random_shape(int(rng.integers(1, 6)), rng)
        terrain = DRAWABLE[rng.choice(len(DRAWABLE), p=weights)]
        for _try in range(20):
            r0, c0 = int(rng.integers(SIZE)), int(rng.integers(SIZE))
            spots = [(r0 + dr, c0 + dc) for dr, dc in shape]
            if all(
                0 <= r < SIZE and 0 <= c < SIZE and rows[r][c] is Terrain.EMPTY for r, c in spots
            ):
                for r, c in spots:
                    rows[r][c] = terrain
                break
    coins = int(min(14, rng.integers(0, 15) * min(1.0, n / 25 + 0.2)))
    return Sheet(side, tuple(map(tuple, rows)), coins)


def simulated_sheet(side: str, rng: np.random.Generator) -> Sheet | None:
    """A final or mid-game sheet from the game simulator, or None when the simulator fails."""
    found = simulated_game(side, rng)
    return None if found is None else found[0]


def simulated_game(side: str, rng: np.random.Generator) -> tuple[Sheet, Game] | None:
    """A final or mid-game sheet from the game simulator and its game (cards, the player's sheet
    at each season's end so far), or None when the simulator fails."""
    try:
        greedy = bool(rng.random() < 0.3)  # greedy play looks like real maps but is slower
        players = 1 if greedy else int(rng.integers(1, 5))
        record = simulate(players, side, int(rng.integers(2**31)), "greedy" if greedy else "random")
        player = int(rng.integers(players))
        per_player = record.season_sheets[player]
        if rng.random() < 0.35:
            k = int(rng.integers(len(per_player)))
            return per_player[k], random_game(record, player, k + 1)
        return record.final_sheets[player], random_game(record, player, len(per_player))
    except Exception:  # a simulator bug must not stop data generation
        return None


def choose_sheet(rng: np.random.Generator, side: str | None = None) -> tuple[Sheet, str]:
    """A sheet for one synthetic photo and where it came from (one of ``SOURCES``)."""
    sheet, source, _ = choose_game(rng, side)
    return sheet, source


def choose_game(
    rng: np.random.Generator, side: str | None = None
) -> tuple[Sheet, str, Game | None]:
    """:func:`choose_sheet` plus the simulated game the sheet comes from (None for others)."""
    side = side or ("A" if rng.random() < 0.5 else "B")
    roll = rng.random()
    if roll < 0.05:
        return Sheet.blank(side), "blank", None
    if roll < 0.55:
        found = simulated_game(side, rng)
        if found is not None:
            return found[0], "simulator", found[1]
    return random_sheet(side, rng), "random", None
