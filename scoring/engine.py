"""The turn engine: every rule of a Cartographers game on bitmask maps (docs/rules.md, "Turn
rules").

* :class:`PlayerMap` — one player's sheet during play: terrain per cell, the filled mask, coins and
  the mountains already paid for.
* :func:`explore_choices` / :func:`ambush_choices` / :func:`solo_ambush_move` — what the rules allow
  for one card on one map: ruins ("must cover an unfilled ruins cell", else a 1×1 of any terrain
  anywhere), Rift Lands, the 1×1 fallback only when no shape of the card fits, ambush shapes with
  their 1×1 monster fallback, the solo corner sweep without rotation.
* :class:`Game` — four seasons: the deck reshuffled with one more ambush each season, seasons ending
  by time, scoring, the ranking with its tie-break and the solo title. Players are *strategies*
  (``scoring.simulator``) that pick among the choices the engine offers, so a strategy cannot
  break a rule.

Cells are flat indices ``i = row * 11 + col`` and a placement is a mask with bit ``i`` set for each
cell it covers (``scoring.shapes``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from scoring.board import NEIGHBOURS
from scoring.cards import BACKS, CARDS
from scoring.decks import (
    AMBUSH,
    AMBUSH_CARDS,
    ANY_TERRAIN,
    EXPLORE,
    EXPLORE_CARDS,
    AmbushCard,
    ExploreCard,
)
from scoring.seasons import (
    EDICTS,
    SEASONS,
    GameScore,
    SeasonScore,
    SoloRating,
    Standing,
    rank_players,
    score_season,
    solo_rating,
)
from scoring.shapes import FULL_MASK, cells_of, indices_of, mask_of, shape_text, size, translations
from scoring.sheet import Sheet
from scoring.sides import SIDES, SIZE
from scoring.terrain import Terrain

N = SIZE * SIZE
BITS = tuple(1 << i for i in range(N))


# ---- one player's map during play ---------------------------------------------------------------
class PlayerMap:
    """A sheet being drawn on. ``filled`` is the mask of filled cells (printed ones included)."""

    __slots__ = ("side", "terrain", "filled", "coins", "ruins", "mountains", "paid", "coin_shapes")

    def __init__(self, side: str):
        layout = SIDES[side]
        self.side = side
        self.terrain: list[Terrain] = [Terrain.EMPTY] * N
        for r, c in layout.mountains:
            self.terrain[r * SIZE + c] = Terrain.MOUNTAIN
        for r, c in layout.wasteland:
            self.terrain[r * SIZE + c] = Terrain.WASTELAND
        self.filled = mask_of(layout.printed_filled)
        self.ruins = mask_of(layout.ruins)
        #: (mountain index, mask of its neighbours)
        self.mountains = tuple(
            (r * SIZE + c, sum(BITS[j] for j in NEIGHBOURS[r * SIZE + c]))
            for r, c in sorted(layout.mountains)
        )
        self.paid: set[int] = set()
        self.coins = 0
        self.coin_shapes = 0

    @classmethod
    def from_sheet(cls, sheet: Sheet) -> PlayerMap:
        pm = cls(sheet.side)
        for (r, c), t in sheet.items():
            i = r * SIZE + c
            pm.terrain[i] = t
            if t.filled:
                pm.filled |= BITS[i]
        pm.paid = {m for m, nb in pm.mountains if nb & pm.filled == nb}
        pm.coins = sheet.coins
        return pm

    def copy(self) -> PlayerMap:
        pm = PlayerMap.__new__(PlayerMap)
        pm.side, pm.terrain, pm.filled, pm.coins = (
            self.side,
            list(self.terrain),
            self.filled,
            self.coins,
        )
        pm.ruins, pm.mountains, pm.paid, pm.coin_shapes = (
            self.ruins,
            self.mountains,
            set(self.paid),
            self.coin_shapes,
        )
        return pm

    @property
    def empty(self) -> int:
        return FULL_MASK & ~self.filled

    def fits(self, mask: int) -> bool:
        return not mask & self.filled

    def new_surrounds(self, mask: int) -> int:
        """How many mountains drawing ``mask`` would surround for the first time."""
        f = self.filled | mask
        return sum(1 for m, nb in self.mountains if m not in self.paid and nb & f == nb)

    def draw(self, mask: int, terrain: Terrain, coin: bool = False) -> int:
        """Draw ``terrain`` on the cells of ``mask``; returns the mountain coins this earned."""
        if mask & self.filled:
            raise ValueError("cannot draw over filled cells")
        for i in indices_of(mask):
            self.terrain[i] = terrain
        self.filled |= mask
        gained = 0
        for m, nb in self.mountains:
            if m not in self.paid and nb & self.filled == nb:
                self.paid.add(m)
                gained += 1
        if coin:
            self.coin_shapes += 1
        self.coins += gained + (1 if coin else 0)
        return gained

    def to_sheet(self) -> Sheet:
        rows = tuple(tuple(self.terrain[r * SIZE : (r + 1) * SIZE]) for r in range(SIZE))
        return Sheet(self.side, rows, self.coins)


# ---- what the rules allow for one card on one map --------------------------------------------
@dataclass(frozen=True)
class Choices:
    """The legal draws for one card on one map: any ``(entry, terrain)`` with entry in ``entries``.

    ``kind``: ``"shape"`` (one of the card's shapes), ``"fallback"`` (a 1×1 of a card terrain: no
    shape of the card fits), ``"ruins-fallback"`` (a 1×1 of any terrain: no shape covers an unfilled
    ruins cell), ``"ambush"``, ``"ambush-fallback"`` (a 1×1 monster), ``"solo-ambush"``, or
    ``"skip"`` (nothing can be drawn: the map is full, or a solo ambush never fits).
    ``entries`` are ``(shape index or None, mask, coin)``.
    """

    kind: str
    entries: tuple[tuple[int | None, int, bool], ...]
    terrains: tuple[Terrain, ...]


def _singles(empty: int) -> tuple[tuple[None, int, bool], ...]:
    return tuple((None, BITS[i], False) for i in indices_of(empty))


def explore_choices(pm: PlayerMap, card: ExploreCard, ruins_pending: bool = False) -> Choices:
    """Legal draws for an explore card (Rift Lands included) on ``pm``."""
    if card.is_ruins:
        raise ValueError("a ruins card is not drawn: it changes the next explore card")
    filled = pm.filled
    empty = FULL_MASK & ~filled
    if not empty:
        return Choices("skip", (), ())
    fitting = tuple(
        (k, m, opt.coin)
        for k, opt in enumerate(card.options)
        for m in opt.placements
        if not m & filled
    )
    if ruins_pending:
        open_ruins = pm.ruins & empty
        on_ruins = tuple(e for e in fitting if e[1] & open_ruins)
        if on_ruins:
            return Choices("shape", on_ruins, card.terrains)
        return Choices("ruins-fallback", _singles(empty), ANY_TERRAIN)
    if fitting:
        return Choices("shape", fitting, card.terrains)
    return Choices("fallback", _singles(empty), card.terrains)


def ambush_choices(pm: PlayerMap, card: AmbushCard) -> Choices:
    """Multiplayer ambush: the monster shape anywhere
    it fits (rotated/flipped), else a 1×1 monster."""
    filled = pm.filled
    fitting = tuple((0, m, False) for m in card.placements if not m & filled)
    if fitting:
        return Choices("ambush", fitting, (Terrain.MONSTER,))
    empty = FULL_MASK & ~filled
    if empty:
        return Choices("ambush-fallback", _singles(empty), (Terrain.MONSTER,))
    return Choices("skip", (), ())


CORNERS = ("top-left", "top-right", "bottom-right", "bottom-left")  # clockwise order


def solo_sweep(card: AmbushCard) -> tuple[int, ...]:
    """The positions a solo ambush tries, in order, as masks (the shape is never rotated).

    Decision "solo sweep" (docs/rules.md, "Ambush deck"): start with the shape's bounding box in the
    card's corner, walk the outer ring of positions in the card's pass rotation (clockwise = along
    the top edge left to right, down the right edge, …), then the next ring in from the same corner,
    and so on.
    """
    return _solo_sweep(card.slug)


_SWEEPS: dict[str, tuple[int, ...]] = {}


def _solo_sweep(slug: str) -> tuple[int, ...]:
    if slug in _SWEEPS:
        return _SWEEPS[slug]
    card = AMBUSH[slug]
    shape = card.shape
    h, w = size(shape)
    rmax, cmax = SIZE - h, SIZE - w
    base = mask_of(shape)
    order: list[tuple[int, int]] = []
    k = 0
    while k <= rmax - k and k <= cmax - k:
        top, bottom, left, right = k, rmax - k, k, cmax - k
        ring: list[tuple[int, int]] = []  # clockwise from the top-left corner
        ring += [(top, c) for c in range(left, right + 1)]
        ring += [(r, right) for r in range(top + 1, bottom + 1)]
        if bottom > top:
            ring += [(bottom, c) for c in range(right - 1, left - 1, -1)]
        if right > left:
            ring += [(r, left) for r in range(bottom - 1, top, -1)]
        start = {
            "top-left": (top, left),
            "top-right": (top, right),
            "bottom-right": (bottom, right),
            "bottom-left": (bottom, left),
        }[card.corner]
        s = ring.index(start)
        ring = ring[s:] + ring[:s]
        if card.direction == "counterclockwise":
            ring = [ring[0]] + ring[:0:-1]
        for p in ring:
            if p not in order:
                order.append(p)
        k += 1
    _SWEEPS[slug] = tuple(base << (r * SIZE + c) for r, c in order)
    return _SWEEPS[slug]


def solo_ambush_move(pm: PlayerMap, card: AmbushCard) -> Choices:
    """Solo ambush: the first sweep position that fits, or ``skip`` when it never fits."""
    for m in solo_sweep(card):
        if not m & pm.filled:
            return Choices("solo-ambush", ((0, m, False),), (Terrain.MONSTER,))
    return Choices("skip", (), ())


# ---- a whole game --------------------------------------------------------------------------------
class Strategy(Protocol):
    """A player: picks one ``(entry, terrain)`` among the engine's choices."""

    def choose_explore(
        self, game: Game, player: int, card: ExploreCard, choices: Choices
    ) -> tuple[tuple[int | None, int, bool], Terrain]: ...

    def choose_ambush(
        self, game: Game, drawer: int, victim: int, card: AmbushCard, choices: Choices
    ) -> tuple[int | None, int, bool]: ...


@dataclass
class Placement:
    """One drawing on one sheet: which card, which shape (``None`` for a 1×1 fallback), where."""

    season: int
    turn: int  # index of the card in the season's revealed cards
    card: str
    player: int  # whose sheet
    by: int  # who drew it (the neighbour for a multiplayer ambush)
    kind: str
    shape: str | None
    terrain: Terrain
    mask: int
    coin: bool
    mountain_coins: int
    ruins: bool = False  # drawn under a ruins card

    @property
    def cells(self) -> list[tuple[int, int]]:
        return cells_of(self.mask)

    def to_json(self) -> dict[str, Any]:
        return {
            "season": SEASONS[self.season].name,
            "turn": self.turn,
            "card": self.card,
            "player": self.player,
            "by": self.by,
            "kind": self.kind,
            "shape": self.shape,
            "terrain": self.terrain.value,
            "cells": [list(c) for c in self.cells],
            "coin": self.coin,
            "mountain_coins": self.mountain_coins,
            "ruins": self.ruins,
        }


@dataclass
class SeasonLog:
    season: int
    cards: list[str] = field(default_factory=list)
    time: int = 0
    ambush_added: str | None = None


def neighbour_drawing(victim: int, players: int, direction: str) -> int:
    """Who draws an ambush on ``victim``'s sheet: seats 0…N−1 run clockwise; a sheet passed
    clockwise goes to the next seat."""
    step = 1 if direction == "clockwise" else -1
    return (victim + step) % players


class Game:
    """A whole game. ``play()`` runs it; the attributes then hold everything that happened."""

    def __init__(
        self,
        players: int,
        side: str,
        seed: int,
        strategies: Sequence[Strategy],
        cards: Sequence[str] | None = None,
    ):
        if not 1 <= players <= 5:
            raise ValueError(f"players must be 1 to 5, got {players}")
        if side not in SIDES:
            raise ValueError(f"side must be 'A' or 'B', got {side!r}")
        if len(strategies) != players:
            raise ValueError("one strategy per player")
        self.players, self.side, self.seed = players, side, seed
        self.strategies = list(strategies)
        self.rng = random.Random(f"cartographers-deck-{seed}")
        if cards is None:
            picks = [
                self.rng.choice([s for s, c in CARDS.items() if c.back == back]) for back in BACKS
            ]
            self.rng.shuffle(picks)
            cards = picks
        self.cards = list(cards)
        self.ambush_pile = [c.slug for c in AMBUSH_CARDS]
        self.rng.shuffle(self.ambush_pile)
        self.ambush_order = list(self.ambush_pile)
        self.in_deck: list[str] = []  # ambushes shuffled in and not yet revealed
        self.maps = [PlayerMap(side) for _ in range(players)]
        self.season = 0
        self.seasons: list[SeasonLog] = []
        self.placements: list[Placement] = []
        self.season_sheets: list[list[Sheet]] = [[] for _ in range(players)]
        self.season_scores: list[list[SeasonScore]] = [[] for _ in range(players)]

    # -- turns --
    def _explore(self, card: ExploreCard, turn: int, ruins_pending: bool) -> None:
        for p, pm in enumerate(self.maps):
            ch = explore_choices(pm, card, ruins_pending)
            if ch.kind == "skip":
                continue
            entry, terrain = self.strategies[p].choose_explore(self, p, card, ch)
            if entry not in ch.entries and entry is not None:  # strategies pick from the list
                raise ValueError("strategy chose a draw the rules do not allow")
            if terrain not in ch.terrains:
                raise ValueError(f"strategy chose terrain {terrain} not on the card")
            k, mask, coin = entry
            gained = pm.draw(mask, terrain, coin)
            shape = card.options[k].text if k is not None else None
            self.placements.append(
                Placement(
                    self.season,
                    turn,
                    card.slug,
                    p,
                    p,
                    ch.kind,
                    shape,
                    terrain,
                    mask,
                    coin,
                    gained,
                    ruins_pending,
                )
            )

    def _ambush(self, card: AmbushCard, turn: int) -> None:
        n = self.players
        if n == 1:
            pm = self.maps[0]
            ch = solo_ambush_move(pm, card)
            if ch.kind == "skip":
                return
            _, mask, _ = ch.entries[0]
            gained = pm.draw(mask, Terrain.MONSTER)
            self.placements.append(
                Placement(
                    self.season,
                    turn,
                    card.slug,
                    0,
                    0,
                    ch.kind,
                    card.shape_text,
                    Terrain.MONSTER,
                    mask,
                    False,
                    gained,
                )
            )
            return
        # every player draws on the neighbour's sheet, all at once: choose first, then draw
        todo = []
        for victim, pm in enumerate(self.maps):
            drawer = neighbour_drawing(victim, n, card.direction)
            ch = ambush_choices(pm, card)
            if ch.kind == "skip":
                continue
            entry = self.strategies[drawer].choose_ambush(self, drawer, victim, card, ch)
            todo.append((victim, drawer, ch.kind, entry))
        for victim, drawer, kind, (_, mask, _) in todo:
            gained = self.maps[victim].draw(mask, Terrain.MONSTER)
            shape = card.shape_text if kind == "ambush" else None
            self.placements.append(
                Placement(
                    self.season,
                    turn,
                    card.slug,
                    victim,
                    drawer,
                    kind,
                    shape,
                    Terrain.MONSTER,
                    mask,
                    False,
                    gained,
                )
            )

    def play_season(self) -> None:
        s = self.season
        spec = SEASONS[s]
        log = SeasonLog(s)
        if self.ambush_pile:
            log.ambush_added = self.ambush_pile.pop()
            self.in_deck.append(log.ambush_added)
        deck = [c.slug for c in EXPLORE_CARDS] + list(self.in_deck)
        self.rng.shuffle(deck)
        ruins_pending = False
        while log.time < spec.time and deck:
            slug = deck.pop()
            turn = len(log.cards)
            log.cards.append(slug)
            if slug in AMBUSH:
                self.in_deck.remove(slug)
                self._ambush(AMBUSH[slug], turn)
                continue
            card = EXPLORE[slug]
            if card.is_ruins:
                ruins_pending = True
                continue
            self._explore(card, turn, ruins_pending)
            ruins_pending = False
            log.time += card.time
        self.seasons.append(log)
        for p, pm in enumerate(self.maps):
            sheet = pm.to_sheet()
            self.season_sheets[p].append(sheet)
            self.season_scores[p].append(score_season(sheet, self.cards, spec.name))
        self.season += 1

    def play(self) -> Game:
        while self.season < len(SEASONS):
            self.play_season()
        return self

    # -- results --
    def game_scores(self) -> list[GameScore]:
        return [GameScore(tuple(s)) for s in self.season_scores]

    def ranking(self) -> list[Standing]:
        return rank_players({player_name(p): g for p, g in enumerate(self.game_scores())})

    def solo(self) -> SoloRating | None:
        if self.players != 1 or len(self.season_scores[0]) != 4:
            return None
        return solo_rating(self.game_scores()[0].total, self.cards)

    def card_log(self) -> dict[str, Any]:
        """What a judge at the table knows: players, side, and the cards revealed each season."""
        return {
            "players": self.players,
            "side": self.side,
            "seasons": [
                {"season": SEASONS[lg.season].name, "cards": list(lg.cards)} for lg in self.seasons
            ],
        }


def player_name(p: int) -> str:
    return f"P{p + 1}"


__all__ = [
    "PlayerMap",
    "Choices",
    "explore_choices",
    "ambush_choices",
    "solo_sweep",
    "solo_ambush_move",
    "Strategy",
    "Placement",
    "SeasonLog",
    "Game",
    "neighbour_drawing",
    "player_name",
    "EDICTS",
    "shape_text",
    "translations",
]
