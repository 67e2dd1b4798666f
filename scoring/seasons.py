"""Seasons, the monster penalty, coins, a whole game's total, the tie-break and the solo title.

Season score = stars from the season's two edicts + filled coins − monster penalty
(docs/rules.md, "Seasons").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scoring.board import NEIGHBOURS, Board, cell_of
from scoring.cards import (
    BACK_NAMES,
    BACKS,
    CARDS,
    CardError,
    CardResult,
    Evidence,
    get_card,
    score_card,
)
from scoring.message import Joined, Message, Word, msg
from scoring.sheet import Sheet
from scoring.terrain import Terrain

EDICTS = ("A", "B", "C", "D")


@dataclass(frozen=True)
class Season:
    name: str
    time: int  # hourglass threshold that ends the season
    edicts: tuple[str, str]


SEASONS: tuple[Season, ...] = (
    Season("spring", 8, ("A", "B")),
    Season("summer", 8, ("B", "C")),
    Season("fall", 7, ("C", "D")),
    Season("winter", 6, ("D", "A")),  # the printed card says 6; one seed text says 11 (wrong)
)
SEASON_BY_NAME = {s.name: s for s in SEASONS}


def get_season(name: str) -> Season:
    try:
        return SEASON_BY_NAME[name]
    except KeyError:
        raise ValueError(
            f"unknown season {name!r}; expected one of {', '.join(SEASON_BY_NAME)}"
        ) from None


def monster_penalty_cells(sheet: Sheet | Board) -> list[tuple[int, int]]:
    """The distinct empty cells that share a side with a monster (an undrawn ruin is empty)."""
    b = sheet if isinstance(sheet, Board) else Board(sheet)
    t = b.t
    hit = {j for i in b.cells(Terrain.MONSTER) for j in NEIGHBOURS[i] if t[j] is Terrain.EMPTY}
    return [cell_of(i) for i in sorted(hit)]


def monster_penalty(sheet: Sheet | Board) -> int:
    """Stars lost to monsters: the number of distinct empty cells adjacent to a monster cell.

    >>> s = Sheet.blank("A").with_cells({(0, 0): Terrain.MONSTER})
    >>> monster_penalty(s)  # the corner monster leaves two empty neighbours
    2
    """
    return len(monster_penalty_cells(sheet))


def check_setup(cards: Sequence[str]) -> list[str]:
    """Check a list of four edict cards (A, B, C, D); returns warnings, raises on errors.

    Errors: wrong length, unknown slug, a card repeated. Warning: the setup takes one card of each
    back, so two cards of one back cannot come from a real game.
    """
    if len(cards) != 4:
        raise CardError(f"expected 4 scoring cards (edicts A, B, C, D), got {len(cards)}")
    for slug in cards:
        get_card(slug)
    dupes = sorted({s for s in cards if list(cards).count(s) > 1})
    if dupes:
        raise CardError(f"scoring card repeated: {', '.join(dupes)}")
    backs = [CARDS[s].back for s in cards]
    shared = [b for b in BACKS if backs.count(b) > 1]
    if shared:
        same = Joined([_same_back(cards, b) for b in shared], "; ")
        kinds = Joined([Word("back", b, BACK_NAMES[b]) for b in BACKS])
        return [
            msg(
                "{shared}: a game's setup takes one card of each kind ({kinds})",
                shared=same,
                kinds=kinds,
            )
        ]
    return []


def _same_back(cards: Sequence[str], back: str) -> Message:
    """``"Sentinel Wood and Treetower are both forest cards"``."""
    names = [Word("card", s, CARDS[s].name) for s in cards if CARDS[s].back == back]
    both: str = names[0]
    for name in names[1:]:
        both = msg("{first} and {second}", first=both, second=name)
    return msg(
        "{cards} are both {back} cards", cards=both, back=Word("back", back, BACK_NAMES[back])
    )


@dataclass(frozen=True)
class EdictScore:
    edict: str
    result: CardResult

    def to_json(self) -> dict[str, Any]:
        return {
            "edict": self.edict,
            "card": self.result.slug,
            "stars": self.result.stars,
            "evidence": [e.to_json() for e in self.result.evidence],
        }


@dataclass(frozen=True)
class SeasonScore:
    season: str
    edicts: tuple[EdictScore, EdictScore]
    coins: int
    monster_cells: tuple[tuple[int, int], ...]

    @property
    def monster_penalty(self) -> int:
        return len(self.monster_cells)

    @property
    def total(self) -> int:
        return sum(e.result.stars for e in self.edicts) + self.coins - self.monster_penalty

    def to_json(self) -> dict[str, Any]:
        return {
            "season": self.season,
            "edicts": [e.to_json() for e in self.edicts],
            "coins": self.coins,
            "monster_penalty": self.monster_penalty,
            "monster_cells": [list(c) for c in self.monster_cells],
            "total": self.total,
        }


def score_season(
    sheet: Sheet | Board,
    cards: Sequence[str],
    season: str,
    scored: Mapping[str, CardResult] | None = None,
) -> SeasonScore:
    """Score one season on the sheet as it stood at that season's end.

    ``scored`` passes card results already computed on this same sheet, so a caller scoring
    several seasons of one sheet scores each card once.
    """
    s = get_season(season)
    board = sheet if isinstance(sheet, Board) else Board(sheet)
    scored = scored or {}

    def result(slug: str) -> CardResult:
        return scored[slug] if slug in scored else score_card(slug, board)

    first, second = (EdictScore(e, result(cards[EDICTS.index(e)])) for e in s.edicts)
    return SeasonScore(
        s.name, (first, second), board.sheet.coins, tuple(monster_penalty_cells(board))
    )


@dataclass(frozen=True)
class GameScore:
    """One player's game: the four season scores and their sum."""

    seasons: tuple[SeasonScore, ...]

    @property
    def total(self) -> int:
        return sum(s.total for s in self.seasons)

    @property
    def monster_stars_lost(self) -> int:
        return sum(s.monster_penalty for s in self.seasons)

    def to_json(self) -> dict[str, Any]:
        return {
            "seasons": [s.to_json() for s in self.seasons],
            "total": self.total,
            "monster_stars_lost": self.monster_stars_lost,
        }


def score_game(season_sheets: Sequence[Sheet], cards: Sequence[str]) -> GameScore:
    """A whole game's total from the sheet as it stood at the end of each of the four seasons."""
    if len(season_sheets) != 4:
        raise ValueError(f"a game has 4 seasons; got {len(season_sheets)} sheets")
    return GameScore(
        tuple(score_season(sh, cards, s.name) for sh, s in zip(season_sheets, SEASONS))
    )


@dataclass(frozen=True)
class Standing:
    player: str
    total: int
    monster_stars_lost: int
    place: int  # 1 = winner; players who are still tied share a place


def rank_players(games: dict[str, GameScore]) -> list[Standing]:
    """Rank by total; ties go to fewer stars lost to monsters; still tied, the place is shared.

    >>> from types import SimpleNamespace as G
    >>> [(s.player, s.place) for s in rank_players({"a": G(total=50, monster_stars_lost=3),
    ...     "b": G(total=50, monster_stars_lost=1), "c": G(total=50, monster_stars_lost=1)})]
    [('b', 1), ('c', 1), ('a', 3)]
    """
    key = {p: (-g.total, g.monster_stars_lost) for p, g in games.items()}
    order = sorted(games, key=lambda p: (key[p], p))
    out = []
    for p in order:
        place = 1 + sum(1 for q in games if key[q] < key[p])
        out.append(Standing(p, games[p].total, games[p].monster_stars_lost, place))
    return out


SOLO_TITLES: tuple[tuple[int, str], ...] = (
    (30, "Legendary Cartographer"),
    (20, "Master Mapsmith"),
    (10, "Journeyman Topographer"),
    (0, "Apprentice Surveyor"),
    (-5, "Amateur Assessor"),
    (-10, "Inept Assistant"),
    (-20, "Dimwitted Doodler"),
)
LOWEST_TITLE = "Oblivious Inkdrinker"


@dataclass(frozen=True)
class SoloRating:
    rating: int
    title: str


def solo_rating(final_score: int, cards: Sequence[str]) -> SoloRating:
    """Rating = final score − the four cards' solo values; the title is the highest threshold met.

    >>> solo_rating(100, ["sentinel-wood", "canal-lake", "wildholds", "borderlands"])
    SoloRating(rating=11, title='Journeyman Topographer')
    """
    rating = final_score - sum(get_card(s).solo for s in cards)
    # Thresholds are "at or above"; −30 and below (and anything under −20) is the lowest title.
    title = next((name for floor, name in SOLO_TITLES if rating >= floor), LOWEST_TITLE)
    return SoloRating(rating, title)


def score_all_cards(sheet: Sheet) -> dict[str, CardResult]:
    """Every one of the sixteen cards on one sheet (``score-map --cards all``)."""
    board = Board(sheet)
    return {slug: score_card(slug, board) for slug in CARDS}


__all__ = [
    "SEASONS",
    "EDICTS",
    "Season",
    "SeasonScore",
    "GameScore",
    "Standing",
    "SoloRating",
    "Evidence",
    "monster_penalty",
    "monster_penalty_cells",
    "check_setup",
    "score_season",
    "score_game",
    "rank_players",
    "solo_rating",
    "score_all_cards",
    "get_season",
]
