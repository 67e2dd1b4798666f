"""The legality validator: simulated sheets are legal at every level; one changed cell is caught;
the ruins, fallback and solo-ambush rules; log parsing; time limits; the command."""

from __future__ import annotations

import json

import pytest

from api.cli import main
from scoring.sheet import Sheet
from scoring.simulator import simulate
from scoring.terrain import Terrain
from scoring.validate import parse_log, replay, validate

F, V, FA, W, MO, E = (
    Terrain.FOREST,
    Terrain.VILLAGE,
    Terrain.FARM,
    Terrain.WATER,
    Terrain.MONSTER,
    Terrain.EMPTY,
)


def draw(side: str, cells: dict, coins: int = 0) -> Sheet:
    return Sheet.blank(side).with_cells(cells, coins)


# ---- simulated games: no false alarms ----------------------------------------------------------
GAMES = [
    (1, "A", 0, "greedy"),
    (1, "B", 5, "random"),
    (2, "B", 4, "random"),
    (3, "A", 7, "greedy"),
    (4, "B", 9, "random"),
    (5, "A", 2, "greedy"),
]


@pytest.fixture(scope="module", params=GAMES, ids=lambda g: f"{g[0]}p-{g[1]}-{g[2]}-{g[3]}")
def game(request):
    return simulate(*request.param)


def test_simulated_sheets_are_legal_at_every_level(game) -> None:
    for p in range(game.players):
        sheets = game.season_sheets[p]
        v = validate(sheets[3])
        assert v.status == "legal" and v.level == "sheet", v.to_json()
        v = validate(sheets[3], log=game.card_log)
        assert v.status == "legal" and v.level == "log", v.to_json()
        v = validate(sheets[3], log=game.card_log, previous=sheets[:3])
        assert v.status == "legal" and v.level == "seasons", v.to_json()
        assert [c.level for c in v.checks] == ["sheet", "log", "seasons"]
        # mid-game: the sheet after summer with the first two seasons of the log
        partial = {**game.card_log, "seasons": game.card_log["seasons"][:2]}
        assert validate(sheets[1], log=partial, previous=sheets[:1]).status == "legal"
        # and without a log, season by season
        assert validate(sheets[2], previous=sheets[:2]).status == "legal"


def test_explanation_replays_the_sheet(game) -> None:
    v = validate(game.final_sheets[0], log=game.card_log)
    drawings = v.checks[1].details["explanation"]
    rebuilt = {}
    for d in drawings:
        for r, c in d["cells"]:
            assert (r, c) not in rebuilt
            rebuilt[(r, c)] = d["terrain"]
    assert rebuilt == {cell: t.value for cell, t in game.final_sheets[0].drawn_cells().items()}
    # the witness is one drawing per revealed card that the engine itself allows, turn by turn
    assert replay(game.final_sheets[0], game.card_log, drawings) == []
    sheets = game.season_sheets[0]
    v = validate(sheets[3], log=game.card_log, previous=sheets[:3])
    assert replay(sheets[3], game.card_log, v.checks[-1].details["explanation"]) == []


def test_replay_catches_a_wrong_witness() -> None:
    g = simulate(2, "A", 1, "greedy")
    v = validate(g.final_sheets[0], log=g.card_log)
    drawings = [dict(d) for d in v.checks[1].details["explanation"]]
    drawings[0]["terrain"] = "monster"
    assert replay(g.final_sheets[0], g.card_log, drawings)


def test_one_changed_cell_is_caught_and_named() -> None:
    g = simulate(3, "A", 7, "greedy")
    sheet = g.final_sheets[1]
    big = next(pl for pl in g.placements_for(1) if pl.kind == "shape" and len(pl.cells) == 5)
    cell = big.cells[2]
    other = V if big.terrain is not V else F
    for changed in (sheet.with_cells({cell: other}), sheet.with_cells({cell: E})):
        v = validate(changed, log=g.card_log)
        assert v.status == "illegal" and v.checks[1].status == "illegal"
        assert any(r.cells for r in v.reasons)
        assert any(cell in r.cells for r in v.reasons), v.to_json()["reasons"]
    empty = next(c for c, t in sheet.items() if t is E)
    v = validate(sheet.with_cells({empty: FA}), log=g.card_log)
    assert v.status == "illegal"


def test_earlier_season_changed_is_caught() -> None:
    g = simulate(2, "B", 4, "greedy")
    sheets = g.season_sheets[0]
    cell, t = next(iter(sheets[0].drawn_cells().items()))
    changed = sheets[3].with_cells({cell: W if t is not W else F})
    v = validate(changed, log=g.card_log, previous=sheets[:3])
    assert v.status == "illegal"
    seasons = v.checks[-1]
    assert seasons.level == "seasons" and seasons.status == "illegal"
    assert any(cell in r.cells for r in seasons.reasons)
    # coins that go down between seasons
    fewer = Sheet(sheets[3].side, sheets[3].cells, max(0, sheets[1].coins - 1))
    if sheets[1].coins:
        assert validate(fewer, previous=sheets[:3]).status == "illegal"


# ---- hand-made rules cases -----------------------------------------------------------------------
def test_coins_need_coin_shapes_or_surrounded_mountains() -> None:
    assert validate(Sheet.blank("A")).status == "legal"
    v = validate(draw("A", {}, coins=1))
    assert v.status == "illegal"
    # a surrounded mountain earns a coin: (1, 3)'s four neighbours
    ring = {
        (0, 3): V,
        (2, 3): V,
        (1, 2): V,
        (1, 4): V,
    }  # four lone villages: no coin shape among them
    assert validate(draw("A", ring, coins=0)).status == "illegal"
    assert validate(draw("A", ring, coins=1)).status == "legal"
    assert (
        validate(draw("A", {**ring, (5, 0): FA, (6, 0): FA}, coins=2)).status == "legal"
    )  # farmland coin
    assert validate(draw("A", ring, coins=2)).status == "illegal"
    # four forests on the diagonals are two Forgotten Forest coin shapes: up to 1 + 2 coins
    forests = {cell: F for cell in ring}
    assert validate(draw("A", forests, coins=3)).status == "legal"
    assert validate(draw("A", forests, coins=4)).status == "illegal"


def test_sheet_level_turn_limits() -> None:
    # 40 isolated single cells: more drawings than four seasons can have
    cells = {(r, c): F for r in range(0, 11, 2) for c in range(0, 11, 2)}
    cells.update({(r, c): F for r in range(1, 11, 4) for c in range(1, 11, 4)})
    sheet = draw("B", {k: v for k, v in cells.items() if Sheet.blank("B").terrain(k) is E})
    assert len(sheet.drawn_cells()) > 31
    assert validate(sheet).status == "illegal"


def test_ruins_card_needs_a_shape_on_a_ruin() -> None:
    log = {"players": 2, "seasons": [["temple-ruins", "hamlet"]]}
    on_ruin = draw(
        "A", {(1, 5): V, (2, 5): V, (2, 6): V}, coins=1
    )  # X./XX (a coin) over the ruin at (1, 5)
    off_ruin = draw("A", {(3, 5): V, (4, 5): V, (4, 6): V}, coins=1)
    assert validate(on_ruin, log=log).status == "legal"
    v = validate(off_ruin, log=log)
    assert v.status == "illegal" and v.checks[0].status == "legal"
    # coins: the small hamlet shape carries one
    coin_shape = draw("A", {(1, 5): V, (2, 5): V, (2, 4): V}, coins=1)
    assert validate(coin_shape, log=log).status == "legal"
    assert validate(draw("A", {(1, 5): V, (2, 5): V, (2, 4): V}), log=log).status == "illegal"


def test_ruins_fallback_only_when_no_shape_covers_an_unfilled_ruin() -> None:
    log = {"players": 2, "seasons": [["outpost-ruins", "fishing-village"]]}
    single = draw("A", {(6, 6): MO})  # a 1×1 of any terrain — but a line of four could cover a ruin
    assert validate(single, log=log).status == "illegal"


def test_fallback_only_when_no_shape_fits() -> None:
    log = {"players": 2, "seasons": [["hamlet"]]}
    assert (
        validate(draw("A", {(6, 6): V}), log=log).status == "illegal"
    )  # the hamlet shapes fit: no 1×1


def test_solo_ambush_goes_to_its_corner_multiplayer_anywhere() -> None:
    corner = {
        (0, 0): MO,
        (0, 1): MO,
        (1, 0): MO,
        (2, 0): MO,
        (2, 1): MO,
    }  # Gnoll Raid at the top-left
    elsewhere = {(r + 5, c + 7): MO for r, c in corner}
    plus = {(6, 1): V, (7, 1): V, (7, 2): V}  # the hamlet
    solo = {"players": 1, "seasons": [["gnoll-raid", "hamlet"]]}
    duo = {"players": 2, "seasons": [["gnoll-raid", "hamlet"]]}
    assert validate(draw("A", {**corner, **plus}, coins=1), log=solo).status == "legal"
    assert validate(draw("A", {**elsewhere, **plus}, coins=1), log=solo).status == "illegal"
    assert validate(draw("A", {**elsewhere, **plus}, coins=1), log=duo).status == "legal"
    # a blocked corner sends the solo monster down the left edge to the first position that fits
    blocked = {
        (0, 0): V,
        (0, 1): V,
        (0, 2): V,
        (1, 1): V,
        (1, 2): V,
    }  # XXX/.XX — the big hamlet shape
    solo2 = {"players": 1, "seasons": [["hamlet", "gnoll-raid"]]}
    assert (
        validate(draw("A", {**blocked, **{(r + 2, c): MO for r, c in corner}}), log=solo2).status
        == "legal"
    )
    assert (
        validate(draw("A", {**blocked, **{(r + 3, c): MO for r, c in corner}}), log=solo2).status
        == "illegal"
    )
    # the monster came first: the corner was free, so the hamlet could not have blocked it
    solo3 = {"players": 1, "seasons": [["gnoll-raid", "hamlet"]]}
    assert (
        validate(draw("A", {**blocked, **{(r + 2, c): MO for r, c in corner}}), log=solo3).status
        == "illegal"
    )


# ---- the card log --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "log,field",
    [
        ([], "log"),
        ({"seasons": []}, "log.players"),
        ({"players": 9, "seasons": [[]]}, "log.players"),
        ({"players": 2}, "log.seasons"),
        ({"players": 2, "seasons": "spring"}, "log.seasons"),
        ({"players": 2, "seasons": [["dragon"]]}, "log.seasons[0][0]"),
        ({"players": 2, "seasons": [{"season": "winter", "cards": []}]}, "log.seasons[0].season"),
        ({"players": 2, "seasons": [{"cards": ["hamlet", "hamlet"]}]}, "log.seasons[0].cards[1]"),
        ({"players": 2, "seasons": [["hamlet", 3]]}, "log.seasons[0][1]"),
        ({"players": 2, "seasons": [["hamlet"], ["farmland"]]}, "log.seasons[0]"),
        ({"players": 2, "seasons": [["goblin-attack", "gnoll-raid"]]}, "log.seasons[0][1]"),
        ({"players": 2, "side": "C", "seasons": [[]]}, "log.side"),
        (
            {"players": 2, "side": [], "seasons": [[]]},
            "log.side",
        ),  # found by the fuzzer: was a TypeError
        ({"players": 2, "side": {"A": 1}, "seasons": [[]]}, "log.side"),
    ],
)
def test_malformed_logs_name_the_field(log, field: str) -> None:
    with pytest.raises(ValueError) as e:
        parse_log(log)
    assert str(e.value).startswith(field)
    with pytest.raises(ValueError):
        validate(Sheet.blank("A"), log=log)


def test_season_after_its_end_is_refused() -> None:
    cards = [
        "orchard",
        "homestead",
        "marshlands",
        "treetop-village",
        "hamlet",
    ]  # time 9 ≥ 8 after four
    with pytest.raises(ValueError, match=r"log.seasons\[0\]\[4\]"):
        parse_log({"players": 2, "seasons": [cards]})


def test_time_limit_answers_cannot_tell() -> None:
    g = simulate(4, "A", 3, "random")
    v = validate(g.final_sheets[0], log=g.card_log, time_limit=0.001)
    assert v.status == "cannot-tell"
    assert all(c.status in ("cannot-tell", "legal") for c in v.checks)


def test_verdict_json_shape() -> None:
    v = validate(draw("A", {}, coins=1))
    j = v.to_json()
    assert set(j) == {"verdict", "level", "reasons", "checks"}
    assert j["verdict"] == "illegal" and j["level"] == "sheet"
    assert all({"message", "cells"} <= set(r) for r in j["reasons"])
    assert j["checks"][0]["level"] == "sheet"


def test_cli(tmp_path, capsys) -> None:
    assert main(["simulate", "--players", "2", "--seed", "8", "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    args = [
        "validate",
        str(tmp_path / "P1-winter.json"),
        "--log",
        str(tmp_path / "log.json"),
        "--json",
    ]
    for s in ("spring", "summer", "fall"):
        args += ["--previous", str(tmp_path / f"P1-{s}.json")]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "legal" and out["level"] == "seasons"
    bad = tmp_path / "bad.json"
    sheet = json.loads((tmp_path / "P1-winter.json").read_text())
    sheet["coins"] += 3
    bad.write_text(json.dumps(sheet))
    assert main(["validate", str(bad), "--log", str(tmp_path / "log.json")]) == 1
    said = capsys.readouterr().out
    assert said.startswith("This map could not have been drawn in a real game.")
    assert "FAILED" in said and "coins" in said
    (tmp_path / "broken.json").write_text('{"players": 2}')
    assert main(["validate", str(bad), "--log", str(tmp_path / "broken.json")]) == 2
    assert "log.seasons" in capsys.readouterr().err


def test_reasons_name_leftover_cells_and_coin_direction() -> None:
    ring = {(0, 3): V, (2, 3): V, (1, 2): V, (1, 4): V}
    v = validate(draw("A", ring, coins=3))
    assert v.status == "illegal"
    assert any("more" in r.message and (1, 3) in r.cells for r in v.reasons)
    log = {"players": 2, "seasons": [["hamlet"]]}
    v = validate(draw("A", {(3, 5): V, (4, 5): V, (4, 6): V}, coins=2), log=log)
    assert v.status == "illegal"
    assert any("coins" in r.message and "more" in r.message for r in v.reasons), v.to_json()


def test_sheet_level_names_left_over_cells() -> None:
    cells = {(r, c): F for r in range(0, 11, 2) for c in range(0, 11, 2)}
    cells.update({(r, c): F for r in range(1, 11, 4) for c in range(1, 11, 4)})
    blank = Sheet.blank("B")
    v = validate(draw("B", {k: t for k, t in cells.items() if blank.terrain(k) is E}))
    assert v.status == "illegal" and any(len(r.cells) >= 5 for r in v.reasons)


def test_ruins_fallback_depends_on_the_order_of_turns() -> None:
    """After a ruins card, the 1×1 of any terrain is
    allowed only if every ruin was already filled."""
    cells = {
        (1, 5): V,
        (2, 5): V,
        (2, 6): V,  # hamlet, coin shape, on the ruin B6
        (2, 1): FA,
        (3, 1): FA,  # farmland, coin shape, on C2
        (2, 9): W,
        (3, 9): W,
        (4, 9): W,  # great river, coin shape, on C10
        (7, 0): F,
        (8, 0): F,
        (8, 1): F,
        (9, 1): F,  # forgotten forest, on I2
        (9, 5): F,  # rift lands, on J6
        (7, 9): V,
        (8, 9): V,
        (8, 10): V,
        (9, 9): V,  # homestead, on I10
        (5, 0): MO,  # the orchard's ruins fallback: a 1×1 of any terrain
    }
    sheet = draw("A", cells, coins=3)
    first = ["hamlet", "farmland", "great-river", "forgotten-forest", "rift-lands"]
    ruins_last = {"players": 3, "seasons": [first + ["homestead", "temple-ruins", "orchard"]]}
    ruins_early = {"players": 3, "seasons": [first + ["temple-ruins", "orchard", "homestead"]]}
    v = validate(sheet, log=ruins_last)
    assert v.status == "legal", v.to_json()
    assert replay(sheet, ruins_last, v.checks[1].details["explanation"]) == []
    assert v.checks[1].details["stage"] == "per-turn"
    v = validate(sheet, log=ruins_early)  # I10 was still an open ruin when the orchard came
    assert v.status == "illegal" and v.checks[0].status == "legal"
