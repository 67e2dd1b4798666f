"""A sheet prepared for scoring: flat arrays, neighbours and clusters computed once.

Scoring all sixteen cards must take well under a millisecond, so cells are flat indices
``i = row * 11 + col`` and the neighbour table is built once at import.
"""

from __future__ import annotations

from functools import cached_property

from scoring.sheet import Sheet
from scoring.sides import SIZE, Cell
from scoring.terrain import Terrain

N = SIZE * SIZE


def _neighbours(i: int) -> tuple[int, ...]:
    r, c = divmod(i, SIZE)
    out = []
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        rr, cc = r + dr, c + dc
        if 0 <= rr < SIZE and 0 <= cc < SIZE:
            out.append(rr * SIZE + cc)
    return tuple(out)


#: Orthogonal neighbours inside the map of every flat index (adjacency = sharing a side).
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(_neighbours(i) for i in range(N))
#: Cells on the map's outer ring.
EDGE: frozenset[int] = frozenset(i for i in range(N) if len(NEIGHBOURS[i]) < 4)


def cell_of(i: int) -> Cell:
    return divmod(i, SIZE)


class Board:
    """Read-only analysis of one sheet shared by every card, monster penalty and validator."""

    __slots__ = ("sheet", "t", "filled", "ruins", "__dict__")

    def __init__(self, sheet: Sheet):
        self.sheet = sheet
        self.t: list[Terrain] = [t for row in sheet.cells for t in row]
        self.filled: list[bool] = [t is not Terrain.EMPTY for t in self.t]
        self.ruins: frozenset[int] = frozenset(r * SIZE + c for r, c in sheet.layout.ruins)

    def cells(self, terrain: Terrain) -> list[int]:
        return [i for i, t in enumerate(self.t) if t is terrain]

    def clusters(self, terrain: Terrain) -> list[list[int]]:
        """Maximal orthogonally connected groups of ``terrain`` (a single cell is a cluster)."""
        return self._clusters[terrain]

    @cached_property
    def _clusters(self) -> dict[Terrain, list[list[int]]]:
        t = self.t
        seen = [False] * N
        out: dict[Terrain, list[list[int]]] = {x: [] for x in Terrain}
        for start in range(N):
            if seen[start]:
                continue
            kind = t[start]
            seen[start] = True
            group = [start]
            k = 0
            while k < len(group):
                for j in NEIGHBOURS[group[k]]:
                    if not seen[j] and t[j] is kind:
                        seen[j] = True
                        group.append(j)
                k += 1
            out[kind].append(group)
        return out

    def touching(self, group: list[int]) -> set[int]:
        """Cells outside ``group`` that share a side with it."""
        inside = set(group)
        return {j for i in group for j in NEIGHBOURS[i] if j not in inside}

    def surrounded(self, i: int) -> bool:
        """Each of the cell's four sides is filled or the map edge."""
        filled = self.filled
        return all(filled[j] for j in NEIGHBOURS[i])
