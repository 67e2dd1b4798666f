"""The simulator: the public API, determinism, records that replay, speed."""

from __future__ import annotations

import json
import time

import pytest

from api.cli import main
from scoring.engine import PlayerMap
from scoring.seasons import score_game
from scoring.sheet import Sheet
from scoring.simulator import GameRecord, simulate


@pytest.mark.parametrize(
    "players,side,strategy",
    [
        (1, "A", "random"),
        (2, "B", "greedy"),
        (5, "A", "random"),
        (3, "B", "random"),
        (1, "B", "greedy"),
    ],
)
def test_api_shape(players: int, side: str, strategy: str) -> None:
    g = simulate(players, side, 11, strategy)
    assert isinstance(g, GameRecord)
    assert len(g.season_sheets) == players and all(len(s) == 4 for s in g.season_sheets)
    assert all(isinstance(s, Sheet) and s.side == side for s in g.final_sheets)
    assert len(g.cards) == 4 and len(set(g.cards)) == 4
    assert g.card_log["players"] == players and len(g.card_log["seasons"]) == 4
    j = g.to_json()
    json.dumps(j)
    assert set(j["setup"]["edicts"]) == {"A", "B", "C", "D"}
    assert [s["season"] for s in j["seasons"]] == ["spring", "summer", "fall", "winter"]
    assert len(j["final"]["ranking"]) == players
    assert ("solo" in j["final"]) == (players == 1)
    for s in j["seasons"]:
        assert len(s["sheets"]) == players and s["cards"]
        for pl in s["placements"]:
            assert {"card", "shape", "terrain", "cells", "player", "by", "coin"} <= set(pl)


def test_deterministic_for_a_seed() -> None:
    a, b = simulate(3, "A", 5), simulate(3, "A", 5)
    assert a.to_json() == b.to_json()
    assert simulate(3, "A", 6).to_json() != a.to_json()
    # the deck does not depend on the strategy
    assert simulate(3, "A", 5, "random").card_log == a.card_log


def test_placements_replay_to_the_sheets_and_scores_add_up() -> None:
    g = simulate(4, "B", 2, "greedy")
    for p in range(4):
        pm = PlayerMap("B")
        for s in range(4):
            for pl in g.placements_for(p, s):
                pm.draw(pl.mask, pl.terrain, pl.coin)
            assert pm.to_sheet() == g.season_sheets[p][s]
        assert score_game(g.season_sheets[p], g.cards).total == g.game_scores[p].total
    totals = [st.total for st in g.ranking]
    assert totals == sorted(totals, reverse=True)


def test_greedy_beats_random() -> None:
    greedy = sum(simulate(2, "A", s, "greedy").game_scores[0].total for s in range(3))
    rnd = sum(simulate(2, "A", s, "random").game_scores[0].total for s in range(3))
    assert greedy > rnd + 30


def test_four_player_game_is_fast() -> None:
    t = time.perf_counter()
    simulate(4, "A", 1, "greedy")
    assert time.perf_counter() - t < 4.0  # the target is 2 s; leave room for a loaded CI machine


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        simulate(0, "A", 1)
    with pytest.raises(ValueError):
        simulate(2, "C", 1)
    with pytest.raises(ValueError):
        simulate(2, "A", 1, "clever")


def test_cli(capsys, tmp_path) -> None:
    assert (
        main(
            [
                "simulate",
                "--players",
                "2",
                "--side",
                "B",
                "--seed",
                "3",
                "--strategy",
                "random",
                "--json",
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["players"] == 2 and out["side"] == "B"
    assert (tmp_path / "log.json").exists() and (tmp_path / "P2-winter.json").exists()
    assert main(["simulate", "--players", "1", "--seed", "3"]) == 0
    assert "solo rating" in capsys.readouterr().out
