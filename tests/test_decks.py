"""The explore and ambush decks as data (docs/rules.md)."""

from __future__ import annotations

import pytest

from scoring.decks import AMBUSH_CARDS, EXPLORE, EXPLORE_CARDS, deck_json, get_deck_card
from scoring.terrain import Terrain


def test_thirteen_explore_cards_sixteen_time() -> None:
    assert len(EXPLORE_CARDS) == 13
    assert sum(c.time for c in EXPLORE_CARDS) == 16
    assert sorted(c.time for c in EXPLORE_CARDS) == [0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2]


def test_coins_only_on_the_small_shape_of_one_time_cards() -> None:
    for c in EXPLORE_CARDS:
        coins = [o.coin for o in c.options]
        if c.time == 1:
            assert coins == [True, False]
            assert c.options[0].cells < c.options[1].cells
        else:
            assert not any(coins)


def test_card_terrains() -> None:
    assert EXPLORE["great-river"].terrains == (Terrain.WATER,)
    assert set(EXPLORE["hinterland-stream"].terrains) == {Terrain.FARM, Terrain.WATER}
    assert set(EXPLORE["rift-lands"].terrains) == {
        Terrain.FOREST,
        Terrain.VILLAGE,
        Terrain.FARM,
        Terrain.WATER,
        Terrain.MONSTER,
    }
    assert EXPLORE["temple-ruins"].is_ruins and EXPLORE["outpost-ruins"].is_ruins
    assert not EXPLORE["temple-ruins"].options


def test_forgotten_forest_coin_shape_is_not_edge_connected() -> None:
    shape = EXPLORE["forgotten-forest"].options[0].shape
    assert shape == ((0, 0), (1, 1))


def test_ambush_cards() -> None:
    by = {a.slug: a for a in AMBUSH_CARDS}
    assert len(by) == 4
    assert by["goblin-attack"].shape == ((0, 0), (1, 1), (2, 2))
    assert (by["goblin-attack"].direction, by["goblin-attack"].corner) == (
        "counterclockwise",
        "bottom-right",
    )
    assert (by["bugbear-assault"].direction, by["bugbear-assault"].corner) == (
        "clockwise",
        "top-right",
    )
    assert (by["kobold-onslaught"].direction, by["kobold-onslaught"].corner) == (
        "clockwise",
        "bottom-left",
    )
    assert (by["gnoll-raid"].direction, by["gnoll-raid"].corner) == ("counterclockwise", "top-left")
    assert [len(a.shape) for a in AMBUSH_CARDS] == [3, 4, 4, 5]


def test_lookup_and_json() -> None:
    assert get_deck_card("hamlet").name == "Hamlet"
    with pytest.raises(ValueError, match="unknown"):
        get_deck_card("dragon")
    j = deck_json()
    assert len(j["explore"]) == 13 and len(j["ambush"]) == 4
