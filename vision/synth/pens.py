"""The marking styles players use and one player's hand: style families, what each style draws,
pencil and marker colours, symbol variants, and the random hand a sheet is drawn with."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scoring.terrain import Terrain

#: Style families and their styles. The reader can hold a whole family out of training.
STYLE_FAMILIES: dict[str, tuple[str, ...]] = {
    "graphite": ("graphite-symbols", "graphite-outlined"),
    "coloured-pencil": ("colour-shading", "colour-shading-symbols", "colour-symbols"),
    "marker": ("marker-fill", "marker-symbols"),
}
STYLES: tuple[str, ...] = tuple(s for family in STYLE_FAMILIES.values() for s in family)


def style_family(style: str) -> str:
    """The family a style belongs to."""
    for family, styles in STYLE_FAMILIES.items():
        if style in styles:
            return family
    raise ValueError(f"unknown style {style!r}: expected one of {', '.join(STYLES)}")


@dataclass(frozen=True)
class Style:
    """How one style marks a cell: symbol ink, shading, outlines."""

    symbol: str | None  # "graphite", "colour" or "marker" symbol on top, or None
    shading: str | None  # "pencil" or "marker" fill, or None
    outline: float  # probability that a shape border gets a traced outline


STYLE_RULES: dict[str, Style] = {
    "graphite-symbols": Style("graphite", None, 0.15),
    "graphite-outlined": Style("graphite", None, 0.85),
    "colour-shading": Style(None, "pencil", 0.3),
    "colour-shading-symbols": Style("graphite", "pencil", 0.4),
    "colour-symbols": Style("colour", None, 0.2),
    "marker-fill": Style(None, "marker", 0.3),
    "marker-symbols": Style("marker", None, 0.1),
}

#: Pencil colours as RGB (what the pencil's wax lets through at full density).
COLOURS: dict[str, tuple[int, int, int]] = {
    "graphite": (70, 70, 78),
    "forest": (46, 130, 62),
    "village": (200, 45, 40),
    "farm": (232, 190, 40),
    "water": (45, 105, 205),
    "monster": (125, 55, 160),
}
MARKER_COLOURS: dict[str, tuple[int, int, int]] = {
    "forest": (20, 150, 60),
    "village": (225, 30, 45),
    "farm": (250, 215, 0),
    "water": (10, 120, 230),
    "monster": (140, 40, 190),
    "graphite": (30, 30, 35),
}
SYMBOL_VARIANTS: dict[Terrain, tuple[str, ...]] = {
    Terrain.FOREST: ("lollipops", "lollipops", "pines", "scribble-tree", "cloud-trees"),
    Terrain.VILLAGE: ("house", "house", "house-door", "roofs", "filled-roof"),
    Terrain.FARM: ("hatch", "hatch", "cross-hatch"),
    Terrain.WATER: ("waves", "waves", "tildes", "zigzag"),
    Terrain.MONSTER: ("horned-face", "horned-face", "eared-face", "simple-face"),
}


@dataclass
class Hand:
    """One player's way of drawing, fixed for a sheet."""

    pressure: float
    width_u: float
    wobble_u: float
    size: float
    hatch_angle: float
    hatch_spacing_u: float
    overshoot_u: float
    variants: dict[Terrain, str]

    @classmethod
    def random(cls, rng: np.random.Generator) -> Hand:
        """A random hand."""
        return cls(
            pressure=float(rng.uniform(0.45, 0.95)),
            width_u=float(rng.uniform(0.018, 0.04)),
            wobble_u=float(rng.uniform(0.004, 0.02)),
            size=float(rng.uniform(0.75, 1.1)),
            hatch_angle=float(rng.uniform(0, np.pi)),
            hatch_spacing_u=float(rng.uniform(0.025, 0.08)),
            overshoot_u=float(rng.uniform(0.0, 0.12)),
            variants={t: str(rng.choice(v)) for t, v in SYMBOL_VARIANTS.items()},
        )
