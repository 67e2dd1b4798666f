"""The checks of a player's written season numbers (scoring/written_checks.py, docs/rules.md)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from scoring.board import Board
from scoring.seasons import monster_penalty, score_season
from scoring.simulator import simulate
from scoring.written import SEASON_NAMES, WrittenScores
from scoring.written_checks import (
    ARITHMETIC_CHECKS,
    CHECK_CODES,
    WrittenCheck,
    check_written,
    checked_total,
    monster_bound,
    unsure_numbers,
)
from tests.conftest import make, row_cells

CARDS = ["sentinel-wood", "canal-lake", "wildholds", "borderlands"]  # edicts A, B, C, D
#: A finished map: 4 coins, two monsters (H5 H6) with 6 empty cells beside them, row K complete.
SHEET = make(
    coins=4,
    forest="A1 A2 A3 B1 K11",
    farm=" ".join(n for n in row_cells("K").split() if n != "K11"),
    water="C3 C4",
    village="E1 E2 F1 F2",
    monster="H5 H6",
)


def right_json() -> dict[str, Any]:
    """What a careful player writes on SHEET: winter from the map, earlier seasons plausible."""
    winter = score_season(SHEET, CARDS, "winter")
    earlier = [  # edicts, coins, monsters
        ((3, 2), 1, 0),
        ((4, 1), 2, 3),
        ((0, 6), 3, 8),  # 8 = the most the map allows: cells next to H5 H6 that could be empty
    ]
    seasons = [
        {
            "season": name,
            "edicts": list(edicts),
            "coins": coins,
            "monsters": monsters,
            "total": sum(edicts) + coins - monsters,
        }
        for name, (edicts, coins, monsters) in zip(SEASON_NAMES, earlier)
    ]
    seasons.append(
        {
            "season": "winter",
            "edicts": [e.result.stars for e in winter.edicts],
            "coins": winter.coins,
            "monsters": winter.monster_penalty,
            "total": winter.total,
        }
    )
    return {"seasons_written": seasons, "final_total_written": sum(s["total"] for s in seasons)}


def planted(*changes: tuple) -> dict[str, Any]:
    """The right numbers with ``(season, part, value)`` changes, part ``edict1``, ``edict2``,
    ``coins``, ``monsters`` or ``total``, and ``("final", value)`` for the shield; a value is the
    new number (or ``None``: blank) or a string ``"+2"``/``"-1"`` added to the right one."""
    data = copy.deepcopy(right_json())
    boxes = {s["season"]: s for s in data["seasons_written"]}
    for change in changes:
        season, part, value = change if len(change) == 3 else (change[0], "", change[1])
        if season == "final":
            old = data["final_total_written"]
            data["final_total_written"] = old + int(value) if isinstance(value, str) else value
            continue
        box = boxes[season]
        key, index = ("edicts", int(part[-1]) - 1) if part.startswith("edict") else (part, None)
        old = box[key][index] if index is not None else box[key]
        new = old + int(value) if isinstance(value, str) else value
        if index is not None:
            box[key][index] = new
        else:
            box[key] = new
    return data


def codes(data: dict[str, Any], cards: list[str] | None = CARDS) -> list[str]:
    return [c.code for c in check_written(WrittenScores.from_json(data), SHEET, cards)]


def test_the_base_sheet_is_what_the_cases_assume() -> None:
    board = Board(SHEET)
    assert (SHEET.coins, monster_penalty(board), monster_bound(board)) == (4, 6, 8)
    assert score_season(SHEET, CARDS, "winter").edicts[0].result.stars == 6  # row K: Borderlands


@pytest.mark.parametrize(
    "data, cards, why",
    [
        (right_json(), CARDS, "every number right"),
        (right_json(), None, "cards unknown: the card-free checks only"),
        ({"seasons_written": None, "final_total_written": None}, CARDS, "nothing written"),
        (planted(("final", None)), CARDS, "no final total written"),
        (
            planted(("spring", "coins", None), ("spring", "total", "-1"), ("final", "-1")),
            CARDS,
            "spring's coins blank, counted as 0",
        ),
        (planted(("spring", "monsters", None)), CARDS, "spring's 0 penalty left blank"),
        (planted(("summer", "total", None), ("final", "", None)), CARDS, "summer's total blank"),
        (
            planted(("summer", "total", None), ("summer", "coins", None)),
            CARDS,
            "coins blank and no total: coins unknown, not 0",
        ),
        (planted(("winter", "edict1", None), ("winter", "total", None)), CARDS, "half a box"),
        (
            planted(("fall", "monsters", "-8"), ("fall", "total", "+8"), ("final", "+8")),
            CARDS,
            "fall: 0",
        ),
    ],
)
def test_right_numbers_get_no_report(data: dict, cards: list[str] | None, why: str) -> None:
    assert codes(data, cards) == [], why


@pytest.mark.parametrize(
    "changes, expected",
    [
        ((("summer", "edict1", "+1"),), ["season-sum"]),
        ((("spring", "total", "-2"), ("final", "-2")), ["season-sum"]),
        ((("final", "+1"),), ["final-sum"]),
        ((("final", "-10"),), ["final-sum"]),
        (
            (("winter", "edict1", "+2"), ("winter", "total", "+2"), ("final", "+2")),
            ["winter-edicts"],
        ),
        (
            (("winter", "edict2", "-1"), ("winter", "total", "-1"), ("final", "-1")),
            ["winter-edicts"],
        ),
        ((("winter", "coins", "-1"), ("winter", "total", "-1"), ("final", "-1")), ["winter-coins"]),
        (
            (("winter", "monsters", "+1"), ("winter", "total", "-1"), ("final", "-1")),
            ["winter-monsters"],
        ),
        ((("summer", "coins", 0), ("summer", "total", "-2"), ("final", "-2")), ["coins-decrease"]),
        (
            (("spring", "monsters", 9), ("spring", "total", "-9"), ("final", "-9")),
            ["monsters-exceed"],
        ),
        (
            (("fall", "coins", 5), ("fall", "total", "+2"), ("final", "+2")),
            ["coins-decrease", "coins-exceed"],  # winter's right 4 is then a decrease
        ),
        (
            (("summer", "coins", None),),  # 2 coins left out of a written total
            ["season-sum", "coins-decrease"],
        ),
    ],
)
def test_each_planted_mistake_gets_exactly_its_report(changes: tuple, expected: list[str]) -> None:
    assert codes(planted(*changes)) == expected


def test_coins_exceed_alone_when_winter_is_blank() -> None:
    data = planted(("fall", "coins", 5), ("fall", "total", "+2"), ("final", None))
    data["seasons_written"][3] = {"season": "winter"}
    assert codes(data) == ["coins-exceed"]


def test_an_earlier_seasons_map_gets_only_the_arithmetic_checks() -> None:
    every_kind = planted(
        ("spring", "edict1", "+1"),  # season-sum
        ("final", "+1"),  # final-sum
        ("summer", "coins", 0),  # coins-decrease, and summer's sum
        ("fall", "monsters", 30),  # monsters-exceed, and fall's sum
        ("winter", "edict1", "+2"),  # winter-edicts, and winter's sum
    )
    written = WrittenScores.from_json(every_kind)
    on_final_map = {c.code for c in check_written(written, SHEET, CARDS)}
    on_earlier_map = {c.code for c in check_written(written, SHEET, CARDS, final_map=False)}
    assert on_final_map - set(ARITHMETIC_CHECKS) == {"winter-edicts", "monsters-exceed"}
    assert on_earlier_map == set(ARITHMETIC_CHECKS)


def test_winter_edicts_need_the_cards() -> None:
    data = planted(("winter", "edict1", "+2"), ("winter", "total", "+2"), ("final", "+2"))
    assert codes(data, None) == []


@pytest.mark.parametrize(
    "changes, message",
    [
        (
            (("summer", "edict1", "+1"),),
            "summer: 5 + 1 + 2 − 3 is 5, written 4",
        ),
        (
            (("summer", "coins", None),),
            "summer: 4 + 1 + 0 − 3 is 2, written 4 (blank coins counted as 0)",
        ),
        ((("final", "+1"),), "final total: 6 + 4 + 1 + 9 is 20, written 21"),
        (
            (("winter", "edict1", "+2"), ("winter", "total", "+2"), ("final", "+2")),
            "winter: edict D (Borderlands) scores 6 on this map, written 8",
        ),
        (
            (("winter", "coins", "-1"), ("winter", "total", "-1"), ("final", "-1")),
            "winter: the map has 4 coins, written 3",
        ),
        (
            (("winter", "monsters", "+1"), ("winter", "total", "-1"), ("final", "-1")),
            "winter: monsters cost 6 on this map, written 7",
        ),
        (
            (("summer", "coins", 0), ("summer", "total", "-2"), ("final", "-2")),
            "summer: 0 coins written, fewer than spring's 1 (coins are never lost)",
        ),
        (
            (("spring", "monsters", 9), ("spring", "total", "-9"), ("final", "-9")),
            "spring: monsters cost 9 written, but only 8 cells of the map touch a monster",
        ),
    ],
)
def test_messages_say_the_sum_in_words(changes: tuple, message: str) -> None:
    checks = check_written(WrittenScores.from_json(planted(*changes)), SHEET, CARDS)
    assert checks[0].message == message


@pytest.mark.parametrize(
    "changes, message",
    [
        (
            (("winter", "coins", None), ("winter", "total", "-4"), ("final", "-4")),
            "winter: the map has 4 coins, written 0 (blank)",
        ),
        (
            (("winter", "monsters", None), ("winter", "total", "+6"), ("final", "+6")),
            "winter: monsters cost 6 on this map, written 0 (blank)",
        ),
    ],
)
def test_a_blank_counted_as_0_says_so(changes: tuple, message: str) -> None:
    checks = check_written(WrittenScores.from_json(planted(*changes)), SHEET, CARDS)
    assert message in [c.message for c in checks]


def test_messages_name_the_season_and_the_json_shape() -> None:
    checks = check_written(WrittenScores.from_json(planted(("final", "+1"))), SHEET, CARDS)
    assert [c.to_json() for c in checks] == [
        {"code": "final-sum", "season": None, "message": checks[0].message}
    ]
    check = WrittenCheck("season-sum", "fall", "m")
    assert check.to_json() == {"code": "season-sum", "season": "fall", "message": "m"}
    assert set(CHECK_CODES) >= {"season-sum", "monsters-exceed"}


def as_written(seasons, final: int) -> dict:
    """The written-number JSON of a player who wrote each season's true score and the total."""
    boxes = [
        {
            "season": s.season,
            "edicts": [e.result.stars for e in s.edicts],
            "coins": s.coins,
            "monsters": s.monster_penalty,
            "total": s.total,
        }
        for s in seasons
    ]
    return {"seasons_written": boxes, "final_total_written": final}


@pytest.mark.parametrize("side", ["A", "B"])
@pytest.mark.parametrize("seed", range(8))
def test_simulated_games_scored_right_get_no_report(side: str, seed: int) -> None:
    """Soundness: every player of a simulated game, each season's true score written down."""
    game = simulate(4, side, seed, "random" if seed % 2 else "greedy")
    for player, seasons in enumerate(game.season_scores):
        written = WrittenScores.from_json(as_written(seasons, game.game_scores[player].total))
        final = game.final_sheets[player]
        assert check_written(written, final, game.cards) == [], (seed, player)
        assert checked_total(written, final, game.cards) == game.game_scores[player].total


def test_checked_total_needs_the_three_earlier_totals() -> None:
    written = WrittenScores.from_json(right_json())
    winter = score_season(SHEET, CARDS, "winter").total
    assert checked_total(written, SHEET, CARDS) == 6 + 4 + 1 + winter
    wrong_winter = WrittenScores.from_json(planted(("winter", "total", "+5")))
    assert checked_total(wrong_winter, SHEET, CARDS) == 6 + 4 + 1 + winter  # the map's winter
    blank_fall = WrittenScores.from_json(planted(("fall", "total", None)))
    assert checked_total(blank_fall, SHEET, CARDS) is None


def test_unsure_numbers_are_those_read_below_the_threshold() -> None:
    base = WrittenScores.from_json(right_json())
    read = WrittenScores(base.seasons, base.final_total, {"summer.coins": 0.5, "final": 0.99})
    assert unsure_numbers(read) == ["summer.coins"]
    assert unsure_numbers(base) == []


PARTS = ("edict1", "edict2", "coins", "monsters", "total")


@pytest.mark.parametrize("seed", range(4))
def test_any_one_number_changed_on_a_right_sheet_is_reported(seed: int) -> None:
    """Completeness on fully written sheets: every number takes part in a sum that is checked."""
    game = simulate(3, "AB"[seed % 2], 100 + seed)
    seasons = game.season_scores[0]
    right = as_written(seasons, game.game_scores[0].total)
    final = game.final_sheets[0]
    for season in SEASON_NAMES:
        for part in PARTS:
            for delta in ("+1", "-1"):
                data = copy.deepcopy(right)
                box = next(b for b in data["seasons_written"] if b["season"] == season)
                key, i = ("edicts", int(part[-1]) - 1) if part.startswith("edict") else (part, None)
                value = (box[key][i] if i is not None else box[key]) + int(delta)
                if value < 0 and part != "total":
                    continue  # not a number a player writes
                if i is not None:
                    box[key][i] = value
                else:
                    box[key] = value
                written = WrittenScores.from_json(data)
                assert check_written(written, final, game.cards), (season, part, delta)
    shifted = WrittenScores.from_json(
        {**right, "final_total_written": right["final_total_written"] + 1}
    )
    assert [c.code for c in check_written(shifted, final, game.cards)] == ["final-sum"]
