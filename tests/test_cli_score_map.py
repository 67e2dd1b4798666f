"""``cartographers score-map``: the JSON of
docs/formats.md, the readable output, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from api.cli import main

SAMPLE = "samples/typical-a.json"
CARDS = "sentinel-wood,canal-lake,wildholds,lost-barony"


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_shape_for_four_cards(capsys) -> None:
    code, out, err = run(capsys, "score-map", SAMPLE, "--cards", CARDS, "--json")
    assert code == 0 and err == ""
    report = json.loads(out)
    assert report["cards"] == {
        "sentinel-wood": 6,
        "canal-lake": 0,
        "wildholds": 8,
        "lost-barony": 6,
    }
    assert report["coins"] == 4 and report["monster_penalty"] == 6
    assert [s["season"] for s in report["seasons"]] == ["spring", "summer", "fall", "winter"]
    spring = report["seasons"][0]
    assert spring["edicts"] == [
        {"edict": "A", "card": "sentinel-wood", "stars": 6},
        {"edict": "B", "card": "canal-lake", "stars": 0},
    ]
    assert spring["total"] == 6 + 0 + 4 - 6
    assert report["total"] == sum(s["total"] for s in report["seasons"])
    assert all(e["cells"] for e in report["evidence"]["wildholds"])


def test_one_season(capsys) -> None:
    code, out, _ = run(capsys, "score-map", SAMPLE, "--cards", CARDS, "--season", "fall", "--json")
    report = json.loads(out)
    assert [s["season"] for s in report["seasons"]] == ["fall"]
    assert report["total"] == 8 + 6 + 4 - 6


def test_all_cards(capsys) -> None:
    code, out, _ = run(capsys, "score-map", SAMPLE, "--cards", "all", "--json")
    report = json.loads(out)
    assert code == 0 and len(report["cards"]) == 16 and "seasons" not in report


def test_text_form_input_and_readable_output(capsys) -> None:
    code, out, _ = run(capsys, "score-map", "samples/typical-a.txt", "--cards", CARDS)
    assert code == 0
    assert "Wildholds 8★" in out and "season total" in out
    assert "\x1b[" not in out  # no colour codes when not writing to a terminal


@pytest.mark.parametrize(
    "args, words",
    [
        (["--cards", "sentinel-wood,canal-lake,wildholds"], "expected 4 scoring cards"),
        (["--cards", "sentinel-wood,canal-lake,wildholds,nope"], "unknown scoring card 'nope'"),
        (["--cards", "sentinel-wood,sentinel-wood,wildholds,lost-barony"], "repeated"),
        (["--cards", "all", "--season", "fall"], "needs the four edict cards"),
    ],
)
def test_bad_cards_one_line_on_stderr(capsys, args, words) -> None:
    code, out, err = run(capsys, "score-map", SAMPLE, *args)
    assert code != 0 and out == ""
    assert err.count("\n") == 1 and words in err


@pytest.mark.parametrize(
    "content, words",
    [
        ('{"side": "A", "cells": ', "not valid JSON"),
        ('{"side": "A", "cells": [], "coins": 0}', "11 rows"),
        ("side A coins 0\nhello", "expected 11 rows"),
        ('{"side": "Z", "cells": [], "coins": 0}', "11 rows"),
    ],
)
def test_malformed_sheet_one_line_on_stderr(capsys, tmp_path, content, words) -> None:
    path = tmp_path / "sheet.json"
    path.write_text(content)
    code, out, err = run(capsys, "score-map", str(path), "--cards", CARDS)
    assert code != 0 and out == ""
    assert err.count("\n") == 1 and words in err


def test_missing_file(capsys) -> None:
    code, _, err = run(capsys, "score-map", "no/such/sheet.json", "--cards", CARDS)
    assert code != 0 and "No such file" in err and err.count("\n") == 1


def test_console_script_end_to_end() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "api.cli", "score-map", SAMPLE, "--cards", CARDS, "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout)["cards"]["wildholds"] == 8
