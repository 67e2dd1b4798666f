"""The printed sheet's geometry as data, in grid units (docs/printed-sheet.md).

``u`` is the side of one cell; the origin is the top-left corner of the 11 × 11 cell area; x grows
right, y grows down. The synthetic renderer draws from this and the reader measures against it,
so the two cannot drift apart. Per-side colours live here too.
"""

from __future__ import annotations

from dataclasses import dataclass

GRID = 11  # cells per side


@dataclass(frozen=True)
class Box:
    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @property
    def centre(self) -> tuple[float, float]:
        return (self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2


@dataclass(frozen=True)
class SheetGeometry:
    """Where everything is printed, in grid units."""

    sheet: Box = Box(-1.0, -3.65, 11.9, 15.2)
    header: Box = Box(-1.0, -3.6, 11.9, -0.4)
    frame_width: float = 0.2  # patterned band just outside the cell area
    row_label_x: float = -0.5  # letters A–K, centred, one per row
    col_label_y: float = 11.5  # numbers 1–11, centred, one per column
    coin_y: float = 12.44
    coin_x0: float = 1.42
    coin_dx: float = 0.712
    coin_count: int = 14
    coin_radius: float = 0.19
    coin_band: Box = Box(1.0, 12.14, 11.1, 12.74)
    surround_icon_x: float = 0.35  # the plus-shaped "mountain with neighbours" icon
    season_boxes: tuple[Box, ...] = (
        Box(-0.64, 13.33, 1.54, 14.50),
        Box(1.99, 13.33, 4.17, 14.50),
        Box(4.63, 13.33, 6.81, 14.50),
        Box(7.27, 13.33, 9.45, 14.50),
    )
    final_total: Box = Box(10.2, 13.33, 11.1, 14.50)

    def coin_centre(self, i: int) -> tuple[float, float]:
        """Centre of coin ``i`` (0…13) on the track.

        >>> GEOMETRY.coin_centre(0)
        (1.42, 12.44)
        """
        return (round(self.coin_x0 + self.coin_dx * i, 4), self.coin_y)

    def cell_box(self, row: int, col: int) -> Box:
        return Box(col, row, col + 1, row + 1)


GEOMETRY = SheetGeometry()


@dataclass(frozen=True)
class SidePalette:
    """Printed colours of one side, RGB 0–255."""

    paper: tuple[int, int, int]
    cell_line: tuple[int, int, int]  # dashed lines between cells, and the labels
    frame: tuple[int, int, int]
    coin_band: tuple[int, int, int]
    ruin_glyph: tuple[int, int, int]
    mountain: tuple[int, int, int] = (75, 35, 25)


PALETTES: dict[str, SidePalette] = {
    "A": SidePalette(
        paper=(205, 184, 163),
        cell_line=(196, 142, 52),
        frame=(84, 74, 40),
        coin_band=(201, 160, 72),
        ruin_glyph=(188, 140, 50),
    ),
    "B": SidePalette(
        paper=(205, 184, 163),
        cell_line=(112, 128, 144),
        frame=(80, 92, 108),
        coin_band=(128, 140, 156),
        ruin_glyph=(120, 120, 120),
    ),
}
