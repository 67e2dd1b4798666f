"""The turn engine: ruins, Rift Lands, fallbacks, coins, ambushes, seasons (docs/rules.md)."""

from __future__ import annotations

import random

from scoring.decks import AMBUSH, ANY_TERRAIN, EXPLORE
from scoring.engine import (
    Game,
    PlayerMap,
    ambush_choices,
    explore_choices,
    neighbour_drawing,
    solo_ambush_move,
    solo_sweep,
)
from scoring.seasons import SEASONS
from scoring.shapes import FULL_MASK, cells_of, mask_of
from scoring.simulator import RandomStrategy
from scoring.terrain import Terrain

RUINS_A = mask_of([(1, 5), (2, 1), (2, 9), (8, 1), (8, 9), (9, 5)])


def fill_all_but(pm: PlayerMap, keep: list[tuple[int, int]]) -> None:
    """Fill every empty cell with forest except ``keep``."""
    pm.draw(pm.empty & ~mask_of(keep), Terrain.FOREST)


def test_plain_card_offers_its_shapes_in_its_terrains() -> None:
    pm = PlayerMap("A")
    ch = explore_choices(pm, EXPLORE["great-river"])
    assert ch.kind == "shape" and ch.terrains == (Terrain.WATER,)
    assert {k for k, _, _ in ch.entries} == {0, 1}
    assert all(coin == (k == 0) for k, _, coin in ch.entries)
    assert all(not m & pm.filled for _, m, _ in ch.entries)


def test_ruins_shape_must_cover_an_unfilled_ruins_cell() -> None:
    pm = PlayerMap("A")
    ch = explore_choices(pm, EXPLORE["orchard"], ruins_pending=True)
    assert ch.kind == "shape"
    assert all(m & RUINS_A for _, m, _ in ch.entries)
    pm.draw(mask_of([(1, 5)]), Terrain.FARM)  # a filled ruin no longer counts
    ch = explore_choices(pm, EXPLORE["orchard"], ruins_pending=True)
    assert all(m & (RUINS_A & ~mask_of([(1, 5)])) for _, m, _ in ch.entries)


def test_ruins_fallback_is_a_1x1_of_any_terrain_anywhere() -> None:
    pm = PlayerMap("A")
    pm.draw(RUINS_A, Terrain.FARM)  # no unfilled ruins remain
    ch = explore_choices(pm, EXPLORE["fishing-village"], ruins_pending=True)
    assert ch.kind == "ruins-fallback" and ch.terrains == ANY_TERRAIN
    assert len(ch.entries) == bin(pm.empty).count("1")
    # an unfilled ruin that no shape of the card can reach also gives the fallback
    pm = PlayerMap("A")
    pm.draw(RUINS_A & ~mask_of([(1, 5)]), Terrain.FARM)
    pm.draw(mask_of([(0, 5), (2, 5), (1, 4), (1, 6)]), Terrain.FOREST)
    ch = explore_choices(pm, EXPLORE["fishing-village"], ruins_pending=True)
    assert ch.kind == "ruins-fallback"
    ch = explore_choices(pm, EXPLORE["rift-lands"], ruins_pending=True)
    assert ch.kind == "shape" and [cells_of(m) for _, m, _ in ch.entries] == [[(1, 5)]]


def test_fallback_only_when_no_shape_fits() -> None:
    pm = PlayerMap("A")
    fill_all_but(pm, [(0, 0), (0, 1), (0, 2), (5, 0)])  # room for 3 in a row, not 4
    ch = explore_choices(pm, EXPLORE["fishing-village"])
    assert ch.kind == "fallback" and set(ch.terrains) == {Terrain.VILLAGE, Terrain.WATER}
    assert sorted(cells_of(m)[0] for _, m, _ in ch.entries) == [(0, 0), (0, 1), (0, 2), (5, 0)]
    ch = explore_choices(pm, EXPLORE["great-river"])  # X/X/X fits in row A
    assert ch.kind == "shape" and len(ch.entries) == 1


def test_full_map_skips() -> None:
    pm = PlayerMap("B")
    fill_all_but(pm, [])
    assert explore_choices(pm, EXPLORE["hamlet"]).kind == "skip"
    assert ambush_choices(pm, AMBUSH["goblin-attack"]).kind == "skip"


def test_rift_lands_is_a_1x1_of_five_terrains() -> None:
    ch = explore_choices(PlayerMap("A"), EXPLORE["rift-lands"])
    assert ch.kind == "shape" and len(ch.entries) == 121 - 5 and len(ch.terrains) == 5


def test_coins_from_coin_shapes_and_surrounded_mountains() -> None:
    pm = PlayerMap("A")
    assert pm.draw(mask_of([(0, 0), (1, 0)]), Terrain.FARM, coin=True) == 0
    assert pm.coins == 1
    # mountain (1, 3): neighbours (0, 3), (2, 3), (1, 2), (1, 4)
    pm.draw(mask_of([(0, 3), (2, 3), (1, 2)]), Terrain.FOREST)
    assert pm.coins == 1
    assert pm.draw(mask_of([(1, 4)]), Terrain.MONSTER) == 1  # a monster completes it: still a coin
    assert pm.coins == 2
    pm.draw(mask_of([(5, 5 + 1)]), Terrain.FOREST)
    assert pm.coins == 2  # paid once only
    assert pm.to_sheet().coins == 2


def test_ambush_fallback_is_a_1x1_monster() -> None:
    pm = PlayerMap("A")
    fill_all_but(pm, [(0, 0), (10, 10)])
    ch = ambush_choices(pm, AMBUSH["gnoll-raid"])
    assert (
        ch.kind == "ambush-fallback" and ch.terrains == (Terrain.MONSTER,) and len(ch.entries) == 2
    )


def test_solo_sweep_starts_in_the_corner_and_never_rotates() -> None:
    gnoll = AMBUSH["gnoll-raid"]
    sweep = solo_sweep(gnoll)
    assert cells_of(sweep[0]) == [(0, 0), (0, 1), (1, 0), (2, 0), (2, 1)]
    assert cells_of(sweep[1])[0] == (1, 0)  # Gnoll: down the left edge
    assert len({m.bit_count() for m in sweep}) == 1
    goblin = solo_sweep(AMBUSH["goblin-attack"])
    assert cells_of(goblin[0]) == [(8, 8), (9, 9), (10, 10)]
    assert cells_of(goblin[1]) == [(7, 8), (8, 9), (9, 10)]  # up the right edge
    assert cells_of(solo_sweep(AMBUSH["bugbear-assault"])[1])[0] == (1, 8)  # down the right edge
    assert cells_of(solo_sweep(AMBUSH["kobold-onslaught"])[1])[0] == (7, 0)  # up the left edge
    # every position once
    assert len(set(sweep)) == len(sweep) == 9 * 10


def test_solo_ambush_slides_to_the_first_free_position() -> None:
    pm = PlayerMap("A")
    pm.draw(mask_of([(0, 0)]), Terrain.FOREST)
    ch = solo_ambush_move(pm, AMBUSH["gnoll-raid"])
    assert ch.kind == "solo-ambush"
    assert cells_of(ch.entries[0][1]) == [(1, 0), (1, 1), (2, 0), (3, 0), (3, 1)]
    full = PlayerMap("A")
    fill_all_but(full, [(0, 0), (10, 10)])
    assert solo_ambush_move(full, AMBUSH["gnoll-raid"]).kind == "skip"


def test_neighbours() -> None:
    assert neighbour_drawing(0, 4, "clockwise") == 1
    assert neighbour_drawing(0, 4, "counterclockwise") == 3
    assert neighbour_drawing(1, 2, "clockwise") == neighbour_drawing(1, 2, "counterclockwise") == 0


def _game(players: int, seed: int) -> Game:
    return Game(
        players, "B", seed, [RandomStrategy(random.Random(seed * 10 + p)) for p in range(players)]
    ).play()


def test_seasons_end_by_time_and_ambushes_come_one_more_each_season() -> None:
    for seed in range(15):
        g = _game(3, seed)
        assert len(g.seasons) == 4
        revealed: list[str] = []
        for log, spec in zip(g.seasons, SEASONS):
            times = [EXPLORE[c].time for c in log.cards if c in EXPLORE]
            assert sum(times) >= spec.time > sum(times[:-1])
            assert log.cards[-1] in EXPLORE and EXPLORE[log.cards[-1]].time > 0
            explore = [c for c in log.cards if c in EXPLORE]
            assert len(explore) == len(set(explore))
            revealed += [c for c in log.cards if c in AMBUSH]
            assert len(revealed) == len(set(revealed)) <= SEASONS.index(spec) + 1
        assert sorted(g.ambush_order) == sorted(AMBUSH)


def test_sheets_only_grow_and_every_player_draws_each_turn() -> None:
    g = _game(4, 3)
    for p in range(4):
        sheets = g.season_sheets[p]
        for a, b in zip(sheets, sheets[1:]):
            for cell, t in a.drawn_cells().items():
                assert b.terrain(cell) is t
            assert b.coins >= a.coins
        n_turns = sum(
            1 for lg in g.seasons for c in lg.cards if c in AMBUSH or not EXPLORE[c].is_ruins
        )
        assert (
            len(
                g.placements_for(p)
                if hasattr(g, "placements_for")
                else [x for x in g.placements if x.player == p]
            )
            == n_turns
        )
    # ambush monsters are drawn by the neighbour
    for pl in g.placements:
        if pl.kind.startswith("ambush"):
            assert pl.by == neighbour_drawing(pl.player, 4, AMBUSH[pl.card].direction)
            assert pl.terrain is Terrain.MONSTER


def test_ranking_and_solo_title() -> None:
    g = _game(1, 4)
    assert g.solo() is not None and g.solo().title
    g = _game(5, 4)
    places = [s.place for s in g.ranking()]
    assert places[0] == 1 and places == sorted(places)
    assert FULL_MASK.bit_count() == 121
