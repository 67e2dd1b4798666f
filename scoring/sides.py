"""The printed layout of each sheet side, kept as data (docs/rules.md, "The sheet").

A side is drawn as an 11 × 11 picture: ``M`` mountain, ``R`` ruins, ``W`` wasteland, ``.``
anything else. Row 0 is printed row A, column 0 is printed column 1. New sides (Heroes, map
packs) are added by adding a picture here.
"""

from __future__ import annotations

from dataclasses import dataclass

SIZE = 11

Cell = tuple[int, int]


@dataclass(frozen=True)
class SideLayout:
    """What a sheet side prints before anyone draws on it."""

    name: str
    title: str
    mountains: frozenset[Cell]
    ruins: frozenset[Cell]
    wasteland: frozenset[Cell]
    size: int = SIZE

    @classmethod
    def from_picture(cls, name: str, title: str, picture: str) -> SideLayout:
        rows = [line.split() for line in picture.strip().splitlines()]
        assert len(rows) == SIZE and all(len(r) == SIZE for r in rows), name

        def cells(mark: str) -> frozenset[Cell]:
            return frozenset(
                (r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == mark
            )

        return cls(name, title, cells("M"), cells("R"), cells("W"))

    @property
    def printed_filled(self) -> frozenset[Cell]:
        """Cells filled before play starts (mountains and wasteland)."""
        return self.mountains | self.wasteland

    @property
    def drawable(self) -> tuple[Cell, ...]:
        """The cells players may draw in (all but mountains and wasteland), row by row: the order in
        which the reader lists, classifies and relates a sheet's cells.

        >>> len(SIDE_A.drawable), SIDE_A.drawable[:2], len(SIDE_B.drawable)
        (116, ((0, 0), (0, 1)), 109)
        """
        return tuple(
            (r, c)
            for r in range(self.size)
            for c in range(self.size)
            if (r, c) not in self.printed_filled
        )


SIDE_A = SideLayout.from_picture(
    "A",
    "Wilderness",
    """
    . . . . . . . . . . .
    . . . M . R . . . . .
    . R . . . . . . M R .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . M . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . R M . . . . . . R .
    . . . . . R . M . . .
    . . . . . . . . . . .
    """,
)

SIDE_B = SideLayout.from_picture(
    "B",
    "Wastelands",
    """
    . . . . . . . . . . .
    . . . . . . R . M . .
    . . R M . . . . . . .
    . . . . . W . . . . .
    . . . . W W R . . . .
    . . . . W W W . . . .
    . R . . . W . . . . .
    . . . . . M . . R . .
    . . . . . . . . . M .
    . . M R . . . . . . .
    . . . . . . . . . . .
    """,
)

SIDES: dict[str, SideLayout] = {"A": SIDE_A, "B": SIDE_B}


def cell_name(cell: Cell) -> str:
    """The printed name of a cell: ``(1, 3)`` → ``"B4"``.

    >>> cell_name((0, 0)), cell_name((10, 10))
    ('A1', 'K11')
    """
    r, c = cell
    return f"{chr(ord('A') + r)}{c + 1}"
