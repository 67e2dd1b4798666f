"""The sixteen scoring cards: one short function each, its rule in the first docstring line.

Every function takes a :class:`~scoring.board.Board` and returns the :class:`Evidence` that
earned stars — cells, clusters, rows or diagonals — so a card's stars are by construction the sum
of its evidence, and a picture can highlight exactly what scored. Rules follow
``docs/rules.md``; where it records a project **Decision**, the function names it.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from scoring.board import EDGE, NEIGHBOURS, Board, cell_of
from scoring.sheet import Sheet
from scoring.sides import SIZE, Cell
from scoring.terrain import Terrain

F, V, FA, W, MO, MT, WL, E = (
    Terrain.FOREST,
    Terrain.VILLAGE,
    Terrain.FARM,
    Terrain.WATER,
    Terrain.MONSTER,
    Terrain.MOUNTAIN,
    Terrain.WASTELAND,
    Terrain.EMPTY,
)


@dataclass(frozen=True)
class Evidence:
    """A group of cells that earned ``stars`` and a short note saying why."""

    cells: tuple[Cell, ...]
    stars: int
    note: str

    def to_json(self) -> dict[str, Any]:
        return {"cells": [list(c) for c in self.cells], "stars": self.stars, "note": self.note}


def _ev(indices: Iterable[int], stars: int, note: str) -> Evidence:
    return Evidence(tuple(cell_of(i) for i in indices), stars, note)


def _row(r: int) -> str:
    return f"row {chr(65 + r)}"


# ---- Forest back ------------------------------------------------------------------------------
def sentinel_wood(b: Board) -> list[Evidence]:
    """1 star per forest cell on the map's outer ring (a corner cell counts once)."""
    return [_ev([i], 1, "forest on the edge") for i in sorted(EDGE) if b.t[i] is F]


def greenbough(b: Board) -> list[Evidence]:
    """1 star per row with at least one forest cell, plus 1 per such column."""
    forests = b.cells(F)
    out = []
    for r in range(SIZE):
        cells = [i for i in forests if i // SIZE == r]
        if cells:
            out.append(_ev(cells, 1, f"forest in {_row(r)}"))
    for c in range(SIZE):
        cells = [i for i in forests if i % SIZE == c]
        if cells:
            out.append(_ev(cells, 1, f"forest in column {c + 1}"))
    return out


def treetower(b: Board) -> list[Evidence]:
    """1 star per forest cell whose four sides are each filled or the map edge."""
    return [_ev([i], 1, "surrounded forest") for i in b.cells(F) if b.surrounded(i)]


def stoneside_forest(b: Board) -> list[Evidence]:
    """3 stars per mountain touched by a forest cluster that also touches another mountain."""
    scored: dict[int, list[int]] = {}
    for group in b.clusters(F):
        mountains = sorted(j for j in b.touching(group) if b.t[j] is MT)
        if len(mountains) >= 2:
            for m in mountains:
                scored.setdefault(m, group)  # a mountain scores at most once
    return [
        _ev([m, *group], 3, f"mountain linked by a forest cluster of {len(group)}")
        for m, group in sorted(scored.items())
    ]


# ---- Farm and water back ----------------------------------------------------------------------
def canal_lake(b: Board) -> list[Evidence]:
    """1 star per water cell touching a farm, plus 1 per farm cell touching a water."""
    t = b.t
    out = [
        _ev([i], 1, "water touching farm")
        for i in b.cells(W)
        if any(t[j] is FA for j in NEIGHBOURS[i])
    ]
    out += [
        _ev([i], 1, "farm touching water")
        for i in b.cells(FA)
        if any(t[j] is W for j in NEIGHBOURS[i])
    ]
    return out


def mages_valley(b: Board) -> list[Evidence]:
    """2 stars per water cell touching a mountain, plus 1 per farm cell touching one."""
    t = b.t
    out = [
        _ev([i], 2, "water touching a mountain")
        for i in b.cells(W)
        if any(t[j] is MT for j in NEIGHBOURS[i])
    ]
    out += [
        _ev([i], 1, "farm touching a mountain")
        for i in b.cells(FA)
        if any(t[j] is MT for j in NEIGHBOURS[i])
    ]
    return out


def golden_granary(b: Board) -> list[Evidence]:
    """1 star per water cell touching a ruins cell, plus 3 per farm cell drawn on a ruins cell."""
    # Water drawn *on* a ruin does not touch it; no two ruins touch, so only neighbours count.
    ruins = b.ruins
    out = [
        _ev([i], 1, "water beside ruins")
        for i in b.cells(W)
        if any(j in ruins for j in NEIGHBOURS[i])
    ]
    out += [_ev([i], 3, "farm on ruins") for i in b.cells(FA) if i in ruins]
    return out


def shoreside_expanse(b: Board) -> list[Evidence]:
    """3 stars per farm cluster touching no water and no edge,
    and per water cluster touching no farm and no edge."""
    out = []
    for kind, other in ((FA, W), (W, FA)):
        for group in b.clusters(kind):
            if any(i in EDGE for i in group):
                continue
            if any(b.t[j] is other for j in b.touching(group)):
                continue
            out.append(_ev(group, 3, f"isolated {kind.value} cluster of {len(group)}"))
    return out


# ---- Village back -----------------------------------------------------------------------------
def wildholds(b: Board) -> list[Evidence]:
    """8 stars per village cluster of six or more cells."""
    return [_ev(g, 8, f"village cluster of {len(g)}") for g in b.clusters(V) if len(g) >= 6]


def great_city(b: Board) -> list[Evidence]:
    """1 star per cell of the largest village cluster that touches no mountain."""
    inland = [g for g in b.clusters(V) if not any(b.t[j] is MT for j in b.touching(g))]
    if not inland:
        return []
    best = max(inland, key=len)
    return [_ev(best, len(best), f"largest village cluster away from mountains ({len(best)})")]


#: Decision "Greengold types": the card's icons — wasteland, ruins, empty and the edge do not count.
GREENGOLD_TYPES = frozenset({F, FA, W, MO, MT})


def greengold_plains(b: Board) -> list[Evidence]:
    """3 stars per village cluster touching at least three different terrain types."""
    out = []
    for g in b.clusters(V):
        kinds = {b.t[j] for j in b.touching(g)} & GREENGOLD_TYPES
        if len(kinds) >= 3:
            names = ", ".join(sorted(k.value for k in kinds))
            out.append(_ev(g, 3, f"village cluster touching {names}"))
    return out


def shieldgate(b: Board) -> list[Evidence]:
    """2 stars per cell of the second-largest village cluster."""
    # Decision "Shieldgate ties": sort sizes largest first and take the second entry, so a tie for
    # largest scores the tied size; fewer than two clusters scores 0.
    groups = sorted(b.clusters(V), key=lambda g: (-len(g), g[0]))
    if len(groups) < 2:
        return []
    g = groups[1]
    return [_ev(g, 2 * len(g), f"second-largest village cluster ({len(g)})")]


# ---- Placement back ---------------------------------------------------------------------------
def borderlands(b: Board) -> list[Evidence]:
    """6 stars per row, and per column, whose eleven cells are all filled."""
    f = b.filled
    out = []
    for r in range(SIZE):
        cells = range(r * SIZE, r * SIZE + SIZE)
        if all(f[i] for i in cells):
            out.append(_ev(cells, 6, f"{_row(r)} complete"))
    for c in range(SIZE):
        cells = range(c, SIZE * SIZE, SIZE)
        if all(f[i] for i in cells):
            out.append(_ev(cells, 6, f"column {c + 1} complete"))
    return out


def lost_barony(b: Board) -> list[Evidence]:
    """3 stars × the side of the largest square of filled cells."""
    f = b.filled
    side = [[0] * (SIZE + 1) for _ in range(SIZE + 1)]  # side[r+1][c+1]: square ending at (r, c)
    best, at = 0, (0, 0)
    for r in range(SIZE):
        up, row = side[r], side[r + 1]
        for c in range(SIZE):
            if f[r * SIZE + c]:
                s = 1 + min(up[c], up[c + 1], row[c])
                row[c + 1] = s
                if s > best:
                    best, at = s, (r, c)
    if not best:
        return []
    r1, c1 = at
    cells = [
        (r * SIZE + c) for r in range(r1 - best + 1, r1 + 1) for c in range(c1 - best + 1, c1 + 1)
    ]
    return [_ev(cells, 3 * best, f"{best}×{best} filled square")]


def broken_road(b: Board) -> list[Evidence]:
    """3 stars per complete filled diagonal running
    down-right from the left edge to the bottom edge."""
    # The diagonals are row − col = k for k = 0…10; k = 10 is the lone bottom-left corner cell.
    f = b.filled
    out = []
    for k in range(SIZE):
        cells = [r * SIZE + (r - k) for r in range(k, SIZE)]
        if all(f[i] for i in cells):
            out.append(_ev(cells, 3, f"diagonal from {_row(k)} complete"))
    return out


def cauldrons(b: Board) -> list[Evidence]:
    """1 star per empty cell whose four sides are each filled or the map edge."""
    return [
        _ev([i], 1, "enclosed empty cell") for i, t in enumerate(b.t) if t is E and b.surrounded(i)
    ]


# ---- the cards as data ------------------------------------------------------------------------
@dataclass(frozen=True)
class Card:
    """A scoring card: its public slug, printed name, back, solo value and rule."""

    slug: str
    name: str
    back: str
    solo: int
    rule_fn: Callable[[Board], list[Evidence]]

    @property
    def rule(self) -> str:
        """The rule's first paragraph (its docstring's opening sentence), on one line."""
        first = (self.rule_fn.__doc__ or "").strip().split("\n\n")[0]
        return " ".join(first.split())

    def to_json(self) -> dict[str, Any]:
        return {
            "slug": self.slug,
            "name": self.name,
            "back": self.back,
            "solo": self.solo,
            "rule": self.rule,
        }


@dataclass(frozen=True)
class CardResult:
    """A card's score on one sheet: the stars are the sum of the evidence's stars."""

    slug: str
    evidence: tuple[Evidence, ...]

    @property
    def stars(self) -> int:
        return sum(e.stars for e in self.evidence)

    def to_json(self) -> dict[str, Any]:
        return {
            "card": self.slug,
            "stars": self.stars,
            "evidence": [e.to_json() for e in self.evidence],
        }


BACKS = ("forest", "farm-water", "village", "placement")
#: Each back in words.
BACK_NAMES = {
    "forest": "forest",
    "farm-water": "farm and water",
    "village": "village",
    "placement": "placement",
}

CARDS: dict[str, Card] = {
    c.slug: c
    for c in (
        Card("sentinel-wood", "Sentinel Wood", "forest", 25, sentinel_wood),
        Card("greenbough", "Greenbough", "forest", 22, greenbough),
        Card("treetower", "Treetower", "forest", 17, treetower),
        Card("stoneside-forest", "Stoneside Forest", "forest", 18, stoneside_forest),
        Card("canal-lake", "Canal Lake", "farm-water", 24, canal_lake),
        Card("mages-valley", "Mages Valley", "farm-water", 22, mages_valley),
        Card("golden-granary", "The Golden Granary", "farm-water", 20, golden_granary),
        Card("shoreside-expanse", "Shoreside Expanse", "farm-water", 27, shoreside_expanse),
        Card("wildholds", "Wildholds", "village", 16, wildholds),
        Card("great-city", "Great City", "village", 16, great_city),
        Card("greengold-plains", "Greengold Plains", "village", 21, greengold_plains),
        Card("shieldgate", "Shieldgate", "village", 20, shieldgate),
        Card("borderlands", "Borderlands", "placement", 24, borderlands),
        Card("lost-barony", "Lost Barony", "placement", 24, lost_barony),
        Card("broken-road", "The Broken Road", "placement", 24, broken_road),
        Card("cauldrons", "The Cauldrons", "placement", 20, cauldrons),
    )
}


class CardError(ValueError):
    """An unknown card slug or a card list that cannot be a game's setup."""


def _plain(text: str) -> str:
    """A card name or slug reduced to lower-case words joined by hyphens, without a leading "the".

    >>> _plain("  The Golden_Granary "), _plain("MAGES' VALLEY"), _plain("sentinel-wood")
    ('golden-granary', 'mages-valley', 'sentinel-wood')
    """
    words = re.sub(r"['’]", "", text.lower()).replace("_", " ").replace("-", " ").split()
    if words[:1] == ["the"]:
        words = words[1:]
    return "-".join(words)


_BY_PLAIN_NAME = {_plain(c.slug): c.slug for c in CARDS.values()} | {
    _plain(c.name): c.slug for c in CARDS.values()
}


def card_slug(text: str) -> str:
    """The slug of the card ``text`` names: its slug or its printed name, in any case, with spaces
    or hyphens, with or without "The". Unknown names raise :class:`CardError` with the closest
    names.

    >>> card_slug("Sentinel Wood"), card_slug("the broken road"), card_slug("CANAL-LAKE")
    ('sentinel-wood', 'broken-road', 'canal-lake')
    >>> card_slug("sentinal wood")
    Traceback (most recent call last):
    ...
    scoring.cards.CardError: unknown scoring card 'sentinal wood': did you mean Sentinel Wood?
    """
    slug = _BY_PLAIN_NAME.get(_plain(text))
    if slug is not None:
        return slug
    close = difflib.get_close_matches(_plain(text), list(_BY_PLAIN_NAME), n=3, cutoff=0.6)
    names = list(dict.fromkeys(CARDS[_BY_PLAIN_NAME[c]].name for c in close))
    hint = (
        f"did you mean {' or '.join(names)}?"
        if names
        else f"the cards are {', '.join(c.name for c in CARDS.values())}"
    )
    raise CardError(f"unknown scoring card {text.strip()!r}: {hint}")


def get_card(slug: str) -> Card:
    """The card ``slug`` names (a slug or a printed name, see :func:`card_slug`)."""
    return CARDS[slug] if slug in CARDS else CARDS[card_slug(slug)]


def score_card(slug: str, sheet: Sheet | Board) -> CardResult:
    """Score one card on a sheet.

    >>> score_card("lost-barony", Sheet.blank("A")).stars  # a lone mountain is a 1×1 square
    3
    """
    board = sheet if isinstance(sheet, Board) else Board(sheet)
    return CardResult(slug, tuple(get_card(slug).rule_fn(board)))
