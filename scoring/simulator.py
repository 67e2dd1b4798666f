"""Whole simulated games: ``simulate(players, side, seed, strategy)`` → :class:`GameRecord`.

Two strategies pick among the draws the engine allows (so neither can break a rule):

* ``random`` — any legal draw, uniformly; ambushes likewise.
* ``greedy`` — the draw that most raises the player's score: the two edicts scored this season
  plus a smaller weight on the edicts still to come, coins and the monster penalty weighted by the
  seasons left, and a slight preference for cells next to filled ones (real players build
  clusters and avoid holes). For an ambush the neighbour picks the monster placement that hurts the
  victim most by the same measure. Candidates are pre-ranked by a cheap mask heuristic and the best
  and a random sample are scored exactly, so a 4-player game takes well under two seconds.

A record is deterministic for a seed: the deck uses its own seeded generator and each player
another, so changing a strategy never changes the cards revealed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from scoring.board import Board
from scoring.cards import score_card
from scoring.decks import AmbushCard, ExploreCard
from scoring.engine import Choices, Game, Placement, PlayerMap, Strategy, player_name
from scoring.seasons import (
    EDICTS,
    SEASONS,
    GameScore,
    SeasonScore,
    SoloRating,
    Standing,
    monster_penalty,
)
from scoring.shapes import FULL_MASK
from scoring.sheet import Sheet
from scoring.sides import SIZE
from scoring.terrain import Terrain

#: One legal draw offered by the engine: (shape index or None, mask, coin).
Entry = tuple[int | None, int, bool]

STRATEGIES = ("random", "greedy")

_COL0 = sum(1 << (r * SIZE) for r in range(SIZE))
_NOT_LEFT = FULL_MASK & ~_COL0  # cells not in column 0
_NOT_RIGHT = FULL_MASK & ~(_COL0 << (SIZE - 1))


def neighbour_mask(mask: int) -> int:
    """Cells sharing a side with ``mask`` (outside it)."""
    up = mask >> SIZE
    down = (mask << SIZE) & FULL_MASK
    left = (mask & _NOT_LEFT) >> 1
    right = (mask & _NOT_RIGHT) << 1
    return (up | down | left | right) & ~mask


class RandomStrategy:
    """Any legal draw, uniformly at random."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def choose_explore(
        self, game: Game, player: int, card: ExploreCard, choices: Choices
    ) -> tuple[Entry, Terrain]:
        return self.rng.choice(choices.entries), self.rng.choice(choices.terrains)

    def choose_ambush(
        self, game: Game, drawer: int, victim: int, card: AmbushCard, choices: Choices
    ) -> Entry:
        return self.rng.choice(choices.entries)


class GreedyStrategy:
    """The draw that most raises the player's score (see the module docstring)."""

    def __init__(self, rng: random.Random, exact: int = 24, sampled: int = 12):
        self.rng = rng
        self.exact = exact
        self.sampled = sampled

    # -- the measure --
    def value(self, game: Game, pm: PlayerMap, mask: int, terrain: Terrain, coin: bool) -> float:
        s = min(game.season, 3)
        left = 4 - s
        t = list(pm.terrain)
        bits = mask
        while bits:
            low = bits & -bits
            t[low.bit_length() - 1] = terrain
            bits ^= low
        b = Board.__new__(Board)  # cells alone, no Sheet: the cards and the penalty read cells only
        b.t = t
        b.filled = [x is not Terrain.EMPTY for x in t]
        b.ruins = _ruins_indices(pm)
        now = SEASONS[s].edicts
        later = {e for season in SEASONS[s + 1 :] for e in season.edicts} - set(now)
        stars: float = sum(score_card(game.cards[EDICTS.index(e)], b).stars for e in now)
        stars += 0.35 * sum(score_card(game.cards[EDICTS.index(e)], b).stars for e in later)
        coins = pm.coins + pm.new_surrounds(mask) + (1 if coin else 0)
        return stars + left * (coins - monster_penalty(b))

    def _shortlist(
        self, entries: Sequence[Entry], pm: PlayerMap, key: Callable[[Entry], float]
    ) -> list[Entry]:
        if len(entries) <= self.exact + self.sampled:
            return list(entries)
        ranked = sorted(entries, key=key, reverse=True)
        best = ranked[: self.exact]
        rest = ranked[self.exact :]
        return best + self.rng.sample(rest, min(self.sampled, len(rest)))

    def choose_explore(
        self, game: Game, player: int, card: ExploreCard, choices: Choices
    ) -> tuple[Entry, Terrain]:
        pm = game.maps[player]
        filled = pm.filled
        jitter = self.rng.random

        def cheap(e: Entry) -> float:
            _, m, coin = e
            return (neighbour_mask(m) & filled).bit_count() + 3 * coin + jitter()

        shortlist = self._shortlist(choices.entries, pm, cheap)
        terrains: list[Terrain] = [t for t in choices.terrains if t is not Terrain.MONSTER] or list(
            choices.terrains
        )
        best: tuple[Entry, Terrain] | None = None
        best_v = float("-inf")
        for e in shortlist:
            for t in terrains:
                v = (
                    self.value(game, pm, e[1], t, e[2])
                    + 0.15 * (neighbour_mask(e[1]) & filled).bit_count()
                    + 0.01 * jitter()
                )
                if v > best_v:
                    best, best_v = (e, t), v
        assert best is not None  # the engine asks only when there is something to draw
        return best

    def choose_ambush(
        self, game: Game, drawer: int, victim: int, card: AmbushCard, choices: Choices
    ) -> Entry:
        pm = game.maps[victim]
        empty = FULL_MASK & ~pm.filled
        jitter = self.rng.random

        def cheap(e: Entry) -> float:
            return (neighbour_mask(e[1]) & empty).bit_count() + jitter()

        shortlist = self._shortlist(choices.entries, pm, cheap)
        return min(
            shortlist,
            key=lambda e: self.value(game, pm, e[1], Terrain.MONSTER, False) + 0.01 * jitter(),
        )


_RUINS_CACHE: dict[int, frozenset[int]] = {}


def _ruins_indices(pm: PlayerMap) -> frozenset[int]:
    r = _RUINS_CACHE.get(pm.ruins)
    if r is None:
        r = _RUINS_CACHE[pm.ruins] = frozenset(i for i in range(SIZE * SIZE) if pm.ruins >> i & 1)
    return r


def make_strategy(name: str, rng: random.Random) -> Strategy:
    if name == "random":
        return RandomStrategy(rng)
    if name == "greedy":
        return GreedyStrategy(rng)
    raise ValueError(f"unknown strategy {name!r}; expected one of {', '.join(STRATEGIES)}")


@dataclass
class GameRecord:
    """Everything a simulated game produced.

    ``season_sheets[player][season]`` is the sheet at each season's end (season 0…3),
    ``final_sheets[player]`` the sheet at the game's end, ``cards`` the scoring cards under edicts
    A–D, ``card_log`` what ``scoring.validate`` takes as ``log=``.
    """

    players: int
    side: str
    seed: int
    strategy: str
    cards: list[str]
    ambush_order: list[str]
    card_log: dict[str, Any]
    seasons: list[dict[str, Any]]
    placements: list[Placement]
    season_sheets: list[list[Sheet]]
    season_scores: list[list[SeasonScore]]
    game_scores: list[GameScore]
    ranking: list[Standing]
    solo: SoloRating | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def final_sheets(self) -> list[Sheet]:
        return [sheets[-1] for sheets in self.season_sheets]

    def placements_for(self, player: int, season: int | None = None) -> list[Placement]:
        return [
            p
            for p in self.placements
            if p.player == player and (season is None or p.season == season)
        ]

    def to_json(self) -> dict[str, Any]:
        seasons = []
        for s, info in enumerate(self.seasons):
            seasons.append(
                {
                    **info,
                    "placements": [p.to_json() for p in self.placements if p.season == s],
                    "sheets": [self.season_sheets[p][s].to_json() for p in range(self.players)],
                    "scores": [self.season_scores[p][s].to_json() for p in range(self.players)],
                }
            )
        out: dict[str, Any] = {
            "version": 1,
            "players": self.players,
            "side": self.side,
            "seed": self.seed,
            "strategy": self.strategy,
            "setup": {
                "edicts": dict(zip(EDICTS, self.cards)),
                "cards": list(self.cards),
                "ambush_order": list(self.ambush_order),
            },
            "card_log": self.card_log,
            "seasons": seasons,
            "final": {
                "sheets": [s.to_json() for s in self.final_sheets],
                "scores": [
                    {"player": player_name(p), **g.to_json()}
                    for p, g in enumerate(self.game_scores)
                ],
                "ranking": [
                    {
                        "player": st.player,
                        "place": st.place,
                        "total": st.total,
                        "monster_stars_lost": st.monster_stars_lost,
                    }
                    for st in self.ranking
                ],
            },
        }
        if self.solo is not None:
            out["final"]["solo"] = {"rating": self.solo.rating, "title": self.solo.title}
        return out


def simulate(players: int, side: str, seed: int, strategy: str = "greedy") -> GameRecord:
    """Play a whole game with every player on ``strategy``; deterministic for ``seed``."""
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; expected one of {', '.join(STRATEGIES)}")
    strategies = [
        make_strategy(strategy, random.Random(f"cartographers-player-{seed}-{p}"))
        for p in range(players)
    ]
    game = Game(players, side, seed, strategies).play()
    seasons = [
        {
            "season": SEASONS[lg.season].name,
            "threshold": SEASONS[lg.season].time,
            "time": lg.time,
            "ambush_added": lg.ambush_added,
            "cards": list(lg.cards),
        }
        for lg in game.seasons
    ]
    return GameRecord(
        players,
        side,
        seed,
        strategy,
        list(game.cards),
        list(game.ambush_order),
        game.card_log(),
        seasons,
        list(game.placements),
        game.season_sheets,
        game.season_scores,
        game.game_scores(),
        game.ranking(),
        game.solo(),
    )


__all__ = [
    "simulate",
    "GameRecord",
    "RandomStrategy",
    "GreedyStrategy",
    "STRATEGIES",
    "neighbour_mask",
]
