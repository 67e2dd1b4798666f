"""Batch results with the numbers written on the sheets: a column per season, the written final
total, the checked total and the review flag (api/batch_sheet.py, api/batch_results.py)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

import vision
from api.batch import BatchOptions, results_csv, results_json, run_batch, score_file
from api.batch_results import CSV_COLUMNS
from scoring.seasons import score_season
from scoring.sheet import Sheet
from scoring.written import WrittenScores

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = json.loads((ROOT / "samples" / "typical-a.json").read_text())  # 4 coins, monsters cost 6
CARDS = ("sentinel-wood", "canal-lake", "wildholds", "borderlands")
WINTER = score_season(Sheet.from_json(SAMPLE), CARDS, "winter")  # 0 + 6 + 4 − 6 = 4
#: Right numbers for the sample map: earlier seasons plausible, winter as the map scores it.
RIGHT = [
    {"season": "spring", "edicts": [3, 1], "coins": 1, "monsters": 2, "total": 3},
    {"season": "summer", "edicts": [2, 5], "coins": 2, "monsters": 4, "total": 5},
    {"season": "fall", "edicts": [8, 0], "coins": 3, "monsters": 6, "total": 5},
    {"season": "winter", "edicts": [0, 6], "coins": 4, "monsters": 6, "total": 4},
]


def sheet_bytes(seasons: list[dict] | None, final: int | None) -> bytes:
    return json.dumps({**SAMPLE, "seasons_written": seasons, "final_total_written": final}).encode()


def with_total(season: int, total: int) -> list[dict]:
    boxes = json.loads(json.dumps(RIGHT))
    boxes[season]["total"] = total
    return boxes


@pytest.mark.parametrize(
    "seasons, final, checked, review",
    [
        (RIGHT, 17, 3 + 5 + 5 + WINTER.total, False),
        (with_total(0, 30), 44, 30 + 5 + 5 + WINTER.total, True),  # spring's sum is wrong
        (with_total(3, 9), 22, 3 + 5 + 5 + WINTER.total, True),  # winter: the map's, not 9
        (with_total(1, None), 17, None, False),  # summer's total blank: no checked total
        (None, None, None, False),  # nothing written
    ],
)
def test_row_has_the_written_totals_checked_total_and_review(seasons, final, checked, review):
    row = score_file("t.json", sheet_bytes(seasons, final), BatchOptions(CARDS))
    assert row["status"] == "ok", row
    assert row["checked_total"] == checked
    assert row["review"] is review
    assert row["final_total_written"] == final
    assert bool(row["checks"]) is review
    assert row["total"] == sum(s["total"] for s in row["seasons"])  # our total is unchanged


def test_a_season_before_winter_has_no_checked_total():
    row = score_file("t.json", sheet_bytes(RIGHT, 17), BatchOptions(CARDS, season="fall"))
    assert row["checked_total"] is None and row["checks"] == []


def test_bad_written_numbers_become_an_error_row():
    row = score_file(
        "t.json", sheet_bytes([{"season": "spring", "coins": -1}], None), BatchOptions(CARDS)
    )
    assert (row["status"], row["error_code"]) == ("error", "bad-written")
    assert "spring coins" in row["error"]


def test_an_unsure_written_number_sends_the_sheet_to_review(monkeypatch):
    written = WrittenScores.from_json({"seasons_written": RIGHT, "final_total_written": 17})
    unsure = WrittenScores(written.seasons, 17, {"summer.total": 0.4, "final": 0.99})
    fake = vision.Reading(
        sheet=Sheet.from_json(SAMPLE),
        cell_confidence=[[1.0] * 11 for _ in range(11)],
        coin_confidence=1.0,
        low_confidence_cells=[],
        warnings=[],
        grid_corners=[],
        cell_outlines=[],
        intersections=[],
        photo_size=(64, 48),
        written=unsure,
    )
    monkeypatch.setattr(vision, "read_photo", lambda *a, **k: fake)
    row = score_file("table1.jpg", b"\xff\xd8\xff photo", BatchOptions(CARDS))
    assert row["status"] == "ok" and row["checks"] == []
    assert row["review"] is True and row["written_confidence"]["summer.total"] == 0.4


def test_csv_appends_the_written_columns_after_the_old_ones():
    assert CSV_COLUMNS[:22] == [
        "file", "status", "place", "total", "side", "coins", "edict_A", "edict_B", "edict_C",
        "edict_D", "spring", "summer", "fall", "winter", "monster_stars_lost", "legality",
        "legality_reasons", "low_confidence_cells", "cells", "error_code", "error", "warnings",
    ]  # fmt: skip
    assert CSV_COLUMNS[22:] == [
        "spring_written", "summer_written", "fall_written", "winter_written",
        "final_total_written", "checked_total", "review", "checks",
    ]  # fmt: skip


def test_csv_and_json_results_carry_them(tmp_path: Path):
    rows = [
        score_file("a.json", sheet_bytes(with_total(0, 30), 44), BatchOptions(CARDS)),
        score_file("b.json", sheet_bytes(RIGHT, 17), BatchOptions(CARDS)),
        score_file("c.json", b'{"side": "A"', BatchOptions(CARDS)),
    ]
    for place, r in enumerate(rows[:2], 1):
        r["place"] = place
    table = {r["file"]: r for r in csv.DictReader(io.StringIO(results_csv(rows)))}
    a, b = table["a.json"], table["b.json"]
    assert [a[f"{s}_written"] for s in ("spring", "summer", "fall", "winter")] == [
        "30",
        "5",
        "5",
        "4",
    ]
    assert (a["final_total_written"], a["checked_total"], a["review"]) == ("44", "44", "yes")
    assert a["checks"] == "spring: 3 + 1 + 1 − 2 is 3, written 30"
    assert (b["review"], b["checks"], b["checked_total"]) == ("no", "", "17")
    assert table["c.json"]["review"] == ""  # a sheet that could not be read has no verdict
    results = results_json(rows, BatchOptions(CARDS))
    assert [s["review"] for s in results["ranking"]] == [True, False]
    assert results["sheets"][0]["seasons_written"][0]["total"] == 30


def test_a_batch_run_writes_the_columns(tmp_path: Path):
    d = tmp_path / "in"
    d.mkdir()
    (d / "t1.json").write_bytes(sheet_bytes(with_total(2, 7), 19))
    (d / "t2.json").write_bytes(sheet_bytes(RIGHT, 17))
    out = tmp_path / "results.csv"
    run_batch(d, out, BatchOptions(CARDS), workers=1, progress=False)
    rows = {r["file"]: r for r in csv.DictReader(out.open())}
    assert (rows["t1.json"]["review"], rows["t2.json"]["review"]) == ("yes", "no")
    assert rows["t1.json"]["fall_written"] == "7"


def test_the_cli_table_names_the_sheets_to_review(tmp_path: Path, capsys):
    from api.cli import main

    d = tmp_path / "in"
    d.mkdir()
    (d / "t1.json").write_bytes(sheet_bytes(with_total(2, 7), 19))
    (d / "t2.json").write_bytes(sheet_bytes(RIGHT, 17))
    out = tmp_path / "results.csv"
    argv = ["batch", str(d), "--cards", ",".join(CARDS), "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    review = text.split("written scores to look at again (review):")[1].strip().splitlines()
    assert review == ["t1.json: fall: 8 + 0 + 3 − 6 is 5, written 7"]
