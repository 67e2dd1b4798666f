"""The sheet model: JSON and text round trips, and refusing sheets that break the printed layout."""

from __future__ import annotations

import json

import pytest

from scoring.sheet import Sheet, SheetError
from scoring.sides import SIDES
from scoring.terrain import Terrain
from tests.conftest import cell, make


def test_sides_match_the_reference() -> None:
    a, b = SIDES["A"], SIDES["B"]
    assert a.mountains == {cell(n) for n in "B4 C9 F6 I3 J8".split()}
    assert a.ruins == {cell(n) for n in "B6 C2 C10 I2 I10 J6".split()}
    assert not a.wasteland
    assert b.mountains == {cell(n) for n in "B9 C4 H6 I10 J3".split()}
    assert b.ruins == {cell(n) for n in "B7 C3 E7 G2 H9 J4".split()}
    assert b.wasteland == {cell(n) for n in "D6 E5 E6 F5 F6 F7 G6".split()}


@pytest.mark.parametrize("side", ["A", "B"])
def test_printed_layout_facts(side: str) -> None:
    """No mountain touches the edge, no cell touches two mountains, no two ruins touch."""
    layout = SIDES[side]
    near = lambda c: {(c[0] + dr, c[1] + dc) for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))}
    assert all(0 < r < 10 and 0 < c < 10 for r, c in layout.mountains)
    for r in range(11):
        for c in range(11):
            assert len(near((r, c)) & layout.mountains) <= 1
    assert all(not (near(x) & layout.ruins) for x in layout.ruins)


@pytest.mark.parametrize(
    "sheet",
    [make(), make("B"), make(forest="A1", water="B6", coins=14), make(monster="K11", coins=3)],
)
def test_round_trips(sheet: Sheet) -> None:
    assert Sheet.from_json(json.loads(json.dumps(sheet.to_json()))) == sheet
    assert Sheet.from_text(sheet.to_text()) == sheet


def test_text_form_marks_ruins_in_lower_case() -> None:
    text = make(farm="B6").to_text()
    assert text.splitlines()[2] == ". . . M . f . . . . ."
    assert text.splitlines()[3] == ". r . . . . . . M r ."


def test_json_uses_public_names() -> None:
    data = make(forest="A1").to_json()
    assert data["cells"][0][0] == "forest" and data["cells"][1][3] == "mountain"
    assert data["side"] == "A" and data["coins"] == 0


def _json(**over):
    data = Sheet.blank("A").to_json()
    data.update(over)
    return data


def _cells_with(r: int, c: int, name: str):
    cells = Sheet.blank("A").to_json()["cells"]
    cells[r][c] = name
    return cells


@pytest.mark.parametrize(
    "data, field, words",
    [
        ([], "", "JSON object"),
        ({"cells": []}, "side", "missing field 'side'"),
        ({"side": "A"}, "cells", "missing field 'cells'"),
        (_json(side="C"), "side", "unknown sheet side 'C'"),
        (_json(cells=[["empty"] * 11] * 10), "cells", "11 rows"),
        (
            _json(cells=[["empty"] * 11] * 10 + [["empty"] * 10]),
            "cells[10]",
            "row K) must hold 11 cells",
        ),
        (_json(cells=_cells_with(3, 3, "lava")), "cells[3][3]", "D4 has unknown terrain 'lava'"),
        (_json(cells=_cells_with(1, 3, "forest")), "cells[1][3]", "B4 is printed as mountain"),
        (
            _json(cells=_cells_with(0, 0, "mountain")),
            "cells[0][0]",
            "A1 is mountain, but side A prints no mountain there",
        ),
        (_json(cells=_cells_with(0, 0, "wasteland")), "cells[0][0]", "A1 is wasteland"),
        (_json(coins=-1), "coins", "coins"),
        (_json(coins="3"), "coins", "coins"),
        (_json(coins=True), "coins", "coins"),
    ],
)
def test_bad_json_is_refused_naming_the_field(data, field: str, words: str) -> None:
    with pytest.raises(SheetError) as err:
        Sheet.from_json(data)
    assert err.value.field == field
    assert words in str(err.value)


def test_wrong_row_length_names_the_row() -> None:
    cells = Sheet.blank("A").to_json()["cells"]
    cells[4] = cells[4][:9]
    with pytest.raises(SheetError, match=r"row E.*got 9 cells"):
        Sheet.from_json({"side": "A", "cells": cells, "coins": 0})


def test_side_b_rift_must_be_wasteland() -> None:
    cells = Sheet.blank("B").to_json()["cells"]
    cells[4][4] = "empty"
    with pytest.raises(SheetError, match="E5 is printed as wasteland"):
        Sheet.from_json({"side": "B", "cells": cells, "coins": 0})


def test_more_coins_than_the_track_is_a_warning_not_an_error() -> None:
    assert Sheet.blank("A").with_cells({}, coins=15).warnings
    assert not Sheet.blank("A").with_cells({}, coins=14).warnings


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "empty"),
        ("side A\n", "first line"),
        ("side A coins x\n" + ". " * 11, "whole number"),
        ("side A coins 0\n" + (". " * 11 + "\n") * 10, "expected 11 rows"),
        (
            "side A coins 0\n" + "?" + " ." * 10 + "\n" + (". " * 11 + "\n") * 10,
            "A1 has unknown symbol '?'",
        ),
    ],
)
def test_bad_text_is_refused(text: str, words: str) -> None:
    with pytest.raises(SheetError, match=words.replace("?", r"\?")):
        Sheet.from_text(text)


def test_drawn_cells_excludes_the_printed_ones() -> None:
    assert make("B", forest="A1").drawn_cells() == {(0, 0): Terrain.FOREST}
