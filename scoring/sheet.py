"""One filled-in map sheet: its side, 11 × 11 cells and filled coins.

Two serialisations:

* the public JSON of ``docs/formats.md``: ``{"side": "A", "cells": [[...11 names...] × 11], "coins":
3}``;
* a compact text form for people and test tables (``docs/sheet-text-format.md``)::

      side A coins 3
      . . . M . r . . . . .
      ...

A sheet that breaks its side's printed layout is refused with a :class:`SheetError` naming the
cell, so nothing downstream ever sees terrain on a mountain or a rift in the wrong place.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from scoring.message import msg, msg_n
from scoring.sides import SIDES, SIZE, Cell, SideLayout, cell_name
from scoring.terrain import CHAR_TEXT, TEXT_CHAR, Terrain

#: Coins the printed track holds; more is possible in the rules engine but suspicious.
COIN_TRACK = 14


class SheetError(ValueError):
    """A sheet that cannot be a real sheet. ``field`` says where, in JSON-path-like form."""

    def __init__(self, message: str, field: str = "", cell: Cell | None = None):
        super().__init__(message)
        self.field = field
        self.cell = cell


@dataclass(frozen=True)
class Sheet:
    """A map sheet. ``cells[r][c]`` is printed row ``A+r``, column ``c+1``."""

    side: str
    cells: tuple[tuple[Terrain, ...], ...]
    coins: int = 0
    warnings: tuple[str, ...] = field(default=(), compare=False)

    # ---- construction -------------------------------------------------------------------
    def __post_init__(self) -> None:
        layout = SIDES.get(self.side)
        if layout is None:
            raise SheetError(f"unknown sheet side {self.side!r}: expected 'A' or 'B'", "side")
        if isinstance(self.coins, bool) or not isinstance(self.coins, int) or self.coins < 0:
            raise SheetError(f"coins must be a whole number ≥ 0, got {self.coins!r}", "coins")
        if len(self.cells) != SIZE or any(len(row) != SIZE for row in self.cells):
            raise SheetError(f"cells must be {SIZE} rows of {SIZE}", "cells")
        for (r, c), t in self.items():
            where = cell_name((r, c))
            expected = (
                Terrain.MOUNTAIN
                if (r, c) in layout.mountains
                else Terrain.WASTELAND
                if (r, c) in layout.wasteland
                else None
            )
            if expected is not None and t is not expected:
                raise SheetError(
                    f"cell {where} is printed as {expected.value} on side {self.side}, got "
                    f"{t.value}",
                    f"cells[{r}][{c}]",
                    (r, c),
                )
            if expected is None and t.printed:
                raise SheetError(
                    f"cell {where} is {t.value}, but side {self.side} prints no {t.value} there",
                    f"cells[{r}][{c}]",
                    (r, c),
                )
        if self.coins > COIN_TRACK and not self.warnings:
            object.__setattr__(
                self,
                "warnings",
                (
                    msg_n(
                        "{n} coin is more than the {track} the printed track holds",
                        "{n} coins is more than the {track} the printed track holds",
                        self.coins,
                        track=COIN_TRACK,
                    ),
                ),
            )

    @classmethod
    def blank(cls, side: str = "A") -> Sheet:
        """The sheet as printed: mountains and wasteland, everything else empty.

        >>> Sheet.blank("A").terrain((1, 3))
        <Terrain.MOUNTAIN: 'mountain'>
        """
        layout = _layout(side)
        rows = tuple(
            tuple(
                Terrain.MOUNTAIN
                if (r, c) in layout.mountains
                else Terrain.WASTELAND
                if (r, c) in layout.wasteland
                else Terrain.EMPTY
                for c in range(SIZE)
            )
            for r in range(SIZE)
        )
        return cls(side, rows, 0)

    def with_cells(self, changes: dict[Cell, Terrain], coins: int | None = None) -> Sheet:
        """A copy with some cells redrawn (and optionally a new coin count)."""
        rows = [list(row) for row in self.cells]
        for (r, c), t in changes.items():
            rows[r][c] = Terrain(t)
        return Sheet(self.side, tuple(map(tuple, rows)), self.coins if coins is None else coins)

    # ---- reading ------------------------------------------------------------------------
    @property
    def layout(self) -> SideLayout:
        return SIDES[self.side]

    def terrain(self, cell: Cell) -> Terrain:
        return self.cells[cell[0]][cell[1]]

    def items(self) -> Iterable[tuple[Cell, Terrain]]:
        """Every ``((row, col), terrain)`` in reading order."""
        for r, row in enumerate(self.cells):
            for c, t in enumerate(row):
                yield (r, c), t

    def drawn_cells(self) -> dict[Cell, Terrain]:
        """Cells a player drew on (everything filled that the side does not print)."""
        return {cell: t for cell, t in self.items() if t.filled and not t.printed}

    # ---- JSON ---------------------------------------------------------------------------
    @classmethod
    def from_json(cls, data: Any) -> Sheet:
        """Parse the public sheet JSON (a dict already decoded), naming the field on error."""
        if not isinstance(data, dict):
            raise SheetError("a sheet must be a JSON object with side, cells and coins", "")
        unknown = set(data) - {"side", "cells", "coins"}
        if "side" not in data:
            raise SheetError("missing field 'side' ('A' or 'B')", "side")
        if "cells" not in data:
            raise SheetError("missing field 'cells' (11 rows of 11 terrain names)", "cells")
        cells = data["cells"]
        if not isinstance(cells, list) or len(cells) != SIZE:
            got = f"{len(cells)} rows" if isinstance(cells, list) else type(cells).__name__
            raise SheetError(f"cells must be a list of {SIZE} rows, got {got}", "cells")
        rows = []
        for r, row in enumerate(cells):
            if not isinstance(row, list) or len(row) != SIZE:
                got = f"{len(row)} cells" if isinstance(row, list) else type(row).__name__
                raise SheetError(
                    f"cells[{r}] (row {chr(65 + r)}) must hold {SIZE} cells, got {got}",
                    f"cells[{r}]",
                )
            out = []
            for c, name in enumerate(row):
                try:
                    out.append(Terrain(name))
                except ValueError:
                    names = ", ".join(t.value for t in Terrain)
                    raise SheetError(
                        f"cell {cell_name((r, c))} has unknown terrain {name!r}; expected one of "
                        f"{names}",
                        f"cells[{r}][{c}]",
                        (r, c),
                    ) from None
            rows.append(tuple(out))
        coins = data.get("coins", 0)
        sheet = cls(
            data["side"] if isinstance(data["side"], str) else repr(data["side"]),
            tuple(rows),
            coins,
        )
        if unknown:
            object.__setattr__(
                sheet,
                "warnings",
                sheet.warnings
                + (msg("ignored unknown fields: {fields}", fields=", ".join(sorted(unknown))),),
            )
        return sheet

    def to_json(self) -> dict[str, Any]:
        return {
            "side": self.side,
            "cells": [[t.value for t in row] for row in self.cells],
            "coins": self.coins,
        }

    # ---- text form ----------------------------------------------------------------------
    def to_text(self) -> str:
        """The compact text form: a header line, then 11 rows of one character per cell.

        >>> print(Sheet.blank("A").to_text().splitlines()[3])  # row C
        . r . . . . . . M r .
        """
        ruins = self.layout.ruins
        lines = [f"side {self.side} coins {self.coins}"]
        for r, row in enumerate(self.cells):
            chars = []
            for c, t in enumerate(row):
                ch = TEXT_CHAR[t]
                if (r, c) in ruins:
                    ch = "r" if t is Terrain.EMPTY else ch.lower()
                chars.append(ch)
            lines.append(" ".join(chars))
        return "\n".join(lines) + "\n"

    @classmethod
    def from_text(cls, text: str) -> Sheet:
        """Parse the compact text form. Spaces between cells are optional; ``#`` lines after the
        grid and blank lines are ignored; case only marks ruins and is not checked."""
        lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
        if not lines:
            raise SheetError("empty sheet text", "")
        head = lines[0].split()
        if len(head) != 4 or head[0] != "side" or head[2] != "coins":
            raise SheetError(f"first line must read 'side A coins 0', got {lines[0]!r}", "header")
        try:
            coins = int(head[3])
        except ValueError:
            raise SheetError(f"coins must be a whole number, got {head[3]!r}", "coins") from None
        grid = [ln.replace(" ", "") for ln in lines[1:]]
        if len(grid) != SIZE:
            raise SheetError(
                f"expected {SIZE} rows of cells after the header, got {len(grid)}", "cells"
            )
        rows = []
        for r, line in enumerate(grid):
            if len(line) != SIZE:
                raise SheetError(
                    f"row {chr(65 + r)} must have {SIZE} cells, got {len(line)}", f"cells[{r}]"
                )
            row = []
            for c, ch in enumerate(line):
                t = CHAR_TEXT.get(ch.upper() if ch not in "r" else ".")
                if t is None:
                    raise SheetError(
                        f"cell {cell_name((r, c))} has unknown symbol {ch!r}; expected one of "
                        f"{''.join(CHAR_TEXT)} or r",
                        f"cells[{r}][{c}]",
                        (r, c),
                    )
                row.append(t)
            rows.append(tuple(row))
        return cls(head[1], tuple(rows), coins)


def _layout(side: str) -> SideLayout:
    if side not in SIDES:
        raise SheetError(f"unknown sheet side {side!r}: expected 'A' or 'B'", "side")
    return SIDES[side]
