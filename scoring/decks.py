"""The explore and ambush decks as data (docs/rules.md, "Explore deck", "Ambush deck").

Each card has a public slug (used in game records and card logs), its printed name, and what the
rules need: hourglass time, the terrains a player may choose, the shapes (with the coin marks), or
for an ambush the monster shape, the pass direction and the solo start corner.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from scoring.shapes import Shape, orientations, parse_shape, placements, shape_text
from scoring.terrain import Terrain

F, V, FA, W, MO = Terrain.FOREST, Terrain.VILLAGE, Terrain.FARM, Terrain.WATER, Terrain.MONSTER

#: Decision "ruins fallback terrain": the rules say "a 1×1 of any terrain"; this project reads
#: it as any terrain a player can draw, monster included (the same five terrains as Rift Lands).
ANY_TERRAIN: tuple[Terrain, ...] = (F, V, FA, W, MO)


@dataclass(frozen=True)
class ShapeOption:
    """One shape printed on an explore card; ``coin`` if it carries a coin."""

    text: str
    coin: bool = False

    @property
    def shape(self) -> Shape:
        return parse_shape(self.text)

    @property
    def orientations(self) -> tuple[Shape, ...]:
        return orientations(self.shape)

    @property
    def placements(self) -> tuple[int, ...]:
        return placements(self.shape)

    @property
    def cells(self) -> int:
        return len(self.shape)


@dataclass(frozen=True)
class ExploreCard:
    """An explore card. ``kind``: ``"explore"`` (shapes), ``"rift"`` (Rift Lands) or ``"ruins"``."""

    slug: str
    name: str
    time: int
    terrains: tuple[Terrain, ...]
    options: tuple[ShapeOption, ...]
    kind: str = "explore"

    @property
    def is_ruins(self) -> bool:
        return self.kind == "ruins"

    def to_json(self) -> dict[str, Any]:
        return {
            "slug": self.slug,
            "name": self.name,
            "type": "explore",
            "kind": self.kind,
            "time": self.time,
            "terrains": [t.value for t in self.terrains],
            "shapes": [{"shape": o.text, "coin": o.coin} for o in self.options],
        }


@dataclass(frozen=True)
class AmbushCard:
    """An ambush card: the monster shape, where multiplayer
    passes the sheet, the solo start corner."""

    slug: str
    name: str
    shape_text: str
    direction: str  # "clockwise" or "counterclockwise"
    corner: str  # "top-left", "top-right", "bottom-left", "bottom-right"

    @property
    def shape(self) -> Shape:
        return parse_shape(self.shape_text)

    @property
    def placements(self) -> tuple[int, ...]:
        return placements(self.shape)

    def to_json(self) -> dict[str, Any]:
        return {
            "slug": self.slug,
            "name": self.name,
            "type": "ambush",
            "shape": self.shape_text,
            "direction": self.direction,
            "solo_corner": self.corner,
        }


def _card(
    slug: str,
    name: str,
    time: int,
    terrains: Iterable[Terrain],
    *shapes: str,
    coin_first: bool = False,
    kind: str = "explore",
) -> ExploreCard:
    opts = tuple(ShapeOption(s, coin=(coin_first and k == 0)) for k, s in enumerate(shapes))
    return ExploreCard(slug, name, time, tuple(terrains), opts, kind)


EXPLORE_CARDS: tuple[ExploreCard, ...] = (
    _card("great-river", "Great River", 1, [W], "X/X/X", "..X/.XX/XX.", coin_first=True),
    _card("farmland", "Farmland", 1, [FA], "X/X", ".X./XXX/.X.", coin_first=True),
    _card("hamlet", "Hamlet", 1, [V], "X./XX", "XXX/XX.", coin_first=True),
    _card("forgotten-forest", "Forgotten Forest", 1, [F], "X./.X", "X./XX/.X", coin_first=True),
    _card("hinterland-stream", "Hinterland Stream", 2, [FA, W], "XXX/X../X.."),
    _card("homestead", "Homestead", 2, [V, FA], "X./XX/X."),
    _card("orchard", "Orchard", 2, [F, FA], "XXX/..X"),
    _card("treetop-village", "Treetop Village", 2, [F, V], "..XX/XXX."),
    _card("marshlands", "Marshlands", 2, [F, W], "X../XXX/X.."),
    _card("fishing-village", "Fishing Village", 2, [V, W], "XXXX"),
    _card("rift-lands", "Rift Lands", 0, ANY_TERRAIN, "X", kind="rift"),
    _card("temple-ruins", "Temple Ruins", 0, (), kind="ruins"),
    _card("outpost-ruins", "Outpost Ruins", 0, (), kind="ruins"),
)

AMBUSH_CARDS: tuple[AmbushCard, ...] = (
    AmbushCard("goblin-attack", "Goblin Attack", "X../.X./..X", "counterclockwise", "bottom-right"),
    AmbushCard("bugbear-assault", "Bugbear Assault", "X.X/X.X", "clockwise", "top-right"),
    AmbushCard("kobold-onslaught", "Kobold Onslaught", "X./XX/X.", "clockwise", "bottom-left"),
    AmbushCard("gnoll-raid", "Gnoll Raid", "XX/X./XX", "counterclockwise", "top-left"),
)

EXPLORE: dict[str, ExploreCard] = {c.slug: c for c in EXPLORE_CARDS}
AMBUSH: dict[str, AmbushCard] = {c.slug: c for c in AMBUSH_CARDS}
DECK_CARDS: dict[str, ExploreCard | AmbushCard] = {**EXPLORE, **AMBUSH}

#: Every shape option in the game, once: (card slug, option index) → option.
ALL_OPTIONS: dict[tuple[str, int], ShapeOption] = {
    (c.slug, k): o for c in EXPLORE_CARDS for k, o in enumerate(c.options)
}


def get_deck_card(slug: str) -> ExploreCard | AmbushCard:
    """The explore or ambush card with this slug;
    ``ValueError`` naming the known slugs otherwise."""
    try:
        return DECK_CARDS[slug]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown explore or ambush card {slug!r}; known: {', '.join(DECK_CARDS)}"
        ) from None


def deck_json() -> dict[str, Any]:
    """Both decks as JSON (for docs and clients)."""
    return {
        "explore": [c.to_json() for c in EXPLORE_CARDS],
        "ambush": [c.to_json() for c in AMBUSH_CARDS],
    }


assert sum(c.time for c in EXPLORE_CARDS) == 16, "the explore deck holds 16 time"
assert all(shape_text(o.shape) == o.text for c in EXPLORE_CARDS for o in c.options)

__all__ = [
    "ANY_TERRAIN",
    "ShapeOption",
    "ExploreCard",
    "AmbushCard",
    "EXPLORE_CARDS",
    "AMBUSH_CARDS",
    "EXPLORE",
    "AMBUSH",
    "DECK_CARDS",
    "ALL_OPTIONS",
    "get_deck_card",
    "deck_json",
]
