"""Monster penalty, season scores, whole games, the tie-break and the solo rating."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from scoring.cards import CardError
from scoring.seasons import (
    SEASONS,
    check_setup,
    monster_penalty,
    rank_players,
    score_game,
    score_season,
    solo_rating,
)
from tests.conftest import make

CARDS = ["sentinel-wood", "canal-lake", "wildholds", "borderlands"]  # edicts A, B, C, D


@pytest.mark.parametrize(
    "sheet, penalty, why",
    [
        (make(), 0, "no monsters"),
        (make(monster="A1"), 2, "a corner monster has two empty neighbours"),
        (make(monster="E5"), 4, "an inner monster"),
        (make(monster="E5 E7"), 7, "E6 is shared and counted once"),
        (make(monster="B5"), 3, "mountain B4 is filled; the empty ruin B6 counts"),
        (make(monster="E5", forest="D5 F5 E4 E6"), 0, "fully enclosed"),
        (make(monster="E5 E6"), 5, "a monster is not empty, and F6 is a mountain"),
    ],
)
def test_monster_penalty(sheet, penalty: int, why: str) -> None:
    assert monster_penalty(sheet) == penalty, why


def test_seasons_and_edict_pairs() -> None:
    assert [(s.name, s.time, s.edicts) for s in SEASONS] == [
        ("spring", 8, ("A", "B")),
        ("summer", 8, ("B", "C")),
        ("fall", 7, ("C", "D")),
        ("winter", 6, ("D", "A")),
    ]


def test_season_score_is_edicts_plus_coins_minus_monsters() -> None:
    sheet = make(forest="A1 A2", water="E5", farm="E6", monster="K11", coins=3)
    # sentinel 2, canal 2, wildholds 0, borderlands 0; monsters: J11 and K10 → 2
    expected = {
        "spring": 2 + 2 + 3 - 2,
        "summer": 2 + 0 + 3 - 2,
        "fall": 0 + 0 + 3 - 2,
        "winter": 0 + 2 + 3 - 2,
    }
    for season, total in expected.items():
        score = score_season(sheet, CARDS, season)
        assert score.total == total, season
        assert score.monster_penalty == 2 and score.coins == 3


def test_game_total_uses_each_seasons_own_sheet() -> None:
    sheets = [
        make(forest="A1"),
        make(forest="A1 A2"),
        make(forest="A1 A2", coins=1),
        make(forest="A1 A2 A3", coins=2),
    ]
    game = score_game(sheets, CARDS)
    # spring: A=1; summer: B+C=0; fall: C+D=0 +1 coin; winter: D+A=3 +2 coins
    assert [s.total for s in game.seasons] == [1, 0, 1, 5]
    assert game.total == 7


def test_game_needs_four_sheets() -> None:
    with pytest.raises(ValueError, match="4 seasons"):
        score_game([make()], CARDS)


def _g(total: int, lost: int):
    return SimpleNamespace(total=total, monster_stars_lost=lost)


@pytest.mark.parametrize(
    "games, places",
    [
        ({"ann": _g(60, 0), "bob": _g(50, 0)}, {"ann": 1, "bob": 2}),
        ({"ann": _g(50, 4), "bob": _g(50, 2)}, {"bob": 1, "ann": 2}),
        ({"ann": _g(50, 2), "bob": _g(50, 2), "cy": _g(40, 0)}, {"ann": 1, "bob": 1, "cy": 3}),
        ({"ann": _g(-5, 9)}, {"ann": 1}),
    ],
)
def test_tie_break(games, places) -> None:
    assert {s.player: s.place for s in rank_players(games)} == places


@pytest.mark.parametrize(
    "rating, title",
    [
        (45, "Legendary Cartographer"),
        (30, "Legendary Cartographer"),
        (29, "Master Mapsmith"),
        (20, "Master Mapsmith"),
        (10, "Journeyman Topographer"),
        (0, "Apprentice Surveyor"),
        (-1, "Amateur Assessor"),
        (-5, "Amateur Assessor"),
        (-6, "Inept Assistant"),
        (-10, "Inept Assistant"),
        (-11, "Dimwitted Doodler"),
        (-20, "Dimwitted Doodler"),
        (-21, "Oblivious Inkdrinker"),
        (-30, "Oblivious Inkdrinker"),
        (-99, "Oblivious Inkdrinker"),
    ],
)
def test_solo_titles(rating: int, title: str) -> None:
    solo_sum = 25 + 24 + 16 + 24  # the four CARDS' solo values
    assert solo_rating(rating + solo_sum, CARDS).rating == rating
    assert solo_rating(rating + solo_sum, CARDS).title == title


@pytest.mark.parametrize(
    "cards, error",
    [
        (["sentinel-wood", "canal-lake", "wildholds"], "expected 4"),
        (["sentinel-wood", "canal-lake", "wildholds", "nope"], "unknown scoring card 'nope'"),
        (["sentinel-wood", "sentinel-wood", "wildholds", "borderlands"], "repeated"),
    ],
)
def test_setup_errors(cards, error: str) -> None:
    with pytest.raises(CardError, match=error):
        check_setup(cards)


def test_setup_with_two_cards_of_one_back_is_a_warning() -> None:
    assert check_setup(CARDS) == []
    warnings = check_setup(["sentinel-wood", "greenbough", "wildholds", "borderlands"])
    assert warnings and "both forest cards" in warnings[0] and "farm and water" in warnings[0]
