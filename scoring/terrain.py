"""Terrains and what counts as *filled* (docs/rules.md, "Terrain and filled")."""

from __future__ import annotations

from enum import Enum


class Terrain(str, Enum):
    """What one cell of the map holds. The values are the public JSON names."""

    EMPTY = "empty"
    FOREST = "forest"
    VILLAGE = "village"
    FARM = "farm"
    WATER = "water"
    MONSTER = "monster"
    MOUNTAIN = "mountain"
    WASTELAND = "wasteland"

    @property
    def filled(self) -> bool:
        """Filled = any terrain, mountain, wasteland or monster; an undrawn ruins cell is empty."""
        return self is not Terrain.EMPTY

    @property
    def printed(self) -> bool:
        """Mountain and wasteland are printed on the sheet; players never draw them."""
        return self in (Terrain.MOUNTAIN, Terrain.WASTELAND)


#: Terrains a player can draw on an empty cell.
DRAWABLE = (Terrain.FOREST, Terrain.VILLAGE, Terrain.FARM, Terrain.WATER, Terrain.MONSTER)

#: One character per terrain for the compact text form (``docs/sheet-text-format.md``).
#: Cells on a printed ruins site are written in lower case (``r`` for an undrawn ruin).
TEXT_CHAR = {
    Terrain.EMPTY: ".",
    Terrain.FOREST: "T",  # T for tree: F is farm
    Terrain.VILLAGE: "V",
    Terrain.FARM: "F",
    Terrain.WATER: "W",
    Terrain.MONSTER: "X",
    Terrain.MOUNTAIN: "M",
    Terrain.WASTELAND: "#",
}
CHAR_TEXT = {ch: t for t, ch in TEXT_CHAR.items()}
