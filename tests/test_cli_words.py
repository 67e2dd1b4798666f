"""The command line speaks to players: a key under every map, warnings and verdicts in words, card
names as printed, non-sheet files named for what they are, a closed pipe ends quietly, and a batch
skips what is not a sheet and ends with a table."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from api.cli import main

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_JSON = ROOT / "samples" / "typical-a.json"
SAMPLE_PHOTO = ROOT / "samples" / "typical-a.jpg"
FOUR = "sentinel-wood,canal-lake,wildholds,borderlands"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_every_printed_map_has_a_key(capsys) -> None:
    status, out, _ = run(capsys, "score-map", SAMPLE_JSON, "--cards", FOUR)
    assert status == 0
    key = next(line for line in out.splitlines() if line.startswith("key:"))
    for words in (
        "T forest",
        "V village",
        "F farm",
        "W water",
        "X monster",
        "M mountain",
        ". empty",
        "r ruins",
        "lower case",
    ):
        assert words in key
    assert "· not marked" in key  # the card panels show only their scoring cells


def test_reading_a_photo_names_the_cells_to_check_in_words(capsys) -> None:
    status, out, _ = run(capsys, "read", SAMPLE_PHOTO)
    assert status == 0
    assert any(line.startswith("key: T forest") for line in out.splitlines())
    check = [line for line in out.splitlines() if "to check" in line]
    assert len(check) == 1 and re.fullmatch(
        r"warning: \d+ cells? to check:( [A-K](?:[1-9]|1[01])){1,12}( and \d+ more)?", check[0]
    ), check
    assert "%" not in check[0] and "confidence below" not in out and "cell(s)" not in out


def test_a_score_of_one_map_says_what_it_is(capsys) -> None:
    _, out, _ = run(capsys, "score-map", SAMPLE_JSON, "--cards", FOUR)
    assert "four seasons on this map" in out
    assert "only winter (edicts D and A) is exact" in " ".join(out.split())
    _, out, _ = run(capsys, "score-map", SAMPLE_JSON, "--cards", FOUR, "--season", "summer")
    assert (
        "Summer scored on this map: exact if this is the map at the end of that season."
        in " ".join(out.split())
    )


@pytest.mark.parametrize(
    "cards",
    [
        "Sentinel Wood,Canal Lake,Wildholds,Borderlands",
        "sentinel wood, CANAL-LAKE ,wildholds,the borderlands",
        "SENTINEL_WOOD,canal lake,Wildholds,Borderlands",
    ],
)
def test_cards_are_taken_as_printed(capsys, cards: str) -> None:
    status, out, err = run(capsys, "score-map", SAMPLE_JSON, "--cards", cards, "--json")
    assert status == 0, err
    assert json.loads(out)["edicts"] == dict(zip("ABCD", FOUR.split(",")))


def test_printed_names_with_the_and_apostrophes() -> None:
    from scoring.cards import card_slug

    assert card_slug("The Golden Granary") == card_slug("golden granary") == "golden-granary"
    assert card_slug("Mages' Valley") == "mages-valley"


@pytest.mark.parametrize(
    "typo, suggestion",
    [
        ("sentinal wood", "Sentinel Wood"),
        ("canal-lakes", "Canal Lake"),
        ("wildhold", "Wildholds"),
        ("brokn road", "The Broken Road"),
    ],
)
def test_a_misspelt_card_gets_a_did_you_mean(capsys, typo: str, suggestion: str) -> None:
    cards = FOUR.split(",")
    cards[1] = typo
    status, _, err = run(capsys, "score-map", SAMPLE_JSON, "--cards", ",".join(cards))
    lines = err.strip().splitlines()
    assert status == 2 and len(lines) == 1
    assert f"did you mean {suggestion}" in lines[0]


def test_a_setup_with_two_cards_of_one_kind_is_named_in_words(capsys) -> None:
    _, out, _ = run(
        capsys, "score-map", SAMPLE_JSON, "--cards", "wildholds,great-city,canal-lake,borderlands"
    )
    assert (
        "warning: Wildholds and Great City are both village cards: a game's setup takes one card "
        "of each kind" in out
    )


@pytest.mark.parametrize("command", ["score-map", "validate"])
def test_a_photo_given_as_a_sheet_file_is_named_never_echoed(capsys, command: str) -> None:
    argv = [command, SAMPLE_PHOTO] + (["--cards", FOUR] if command == "score-map" else [])
    status, _, err = run(capsys, *argv)
    lines = err.strip().splitlines()
    assert status == 2 and len(lines) == 1
    assert "is a JPEG photo, not a sheet file" in lines[0] and "cartographers read" in lines[0]
    assert "JFIF" not in err and "\ufffd" not in err and len(lines[0]) < 300


def test_a_binary_file_is_named_as_such(capsys, tmp_path: Path) -> None:
    blob = tmp_path / "blob.json"
    blob.write_bytes(bytes(range(256)))
    status, _, err = run(capsys, "score-map", blob, "--cards", "all")
    assert status == 2 and "is a binary file, not a sheet file" in err and "\\x" not in err


def test_a_closed_pipe_ends_quietly() -> None:
    exe = shutil.which("cartographers")
    cmd = [exe] if exe else [sys.executable, "-m", "api.cli"]
    producer = subprocess.Popen(
        [*cmd, "score-map", str(SAMPLE_JSON), "--cards", "all"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    producer.stdout.readline()
    producer.stdout.close()  # the reader goes away after one line, as `| head -1` does
    _, err = producer.communicate(timeout=60)
    assert producer.returncode == 0 and err == b""


def test_validate_answers_in_words_and_says_what_it_did_not_check(capsys) -> None:
    status, out, _ = run(capsys, "validate", SAMPLE_JSON)
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == "This map could have been drawn in a real game."
    assert any(line.strip().startswith("passed") and "the sheet alone" in line for line in lines)
    assert "Not checked (needs more input):" in lines
    assert any("--log" in line for line in lines) and any("--previous" in line for line in lines)
    assert "(level" not in out


@pytest.fixture()
def table_folder(tmp_path: Path) -> Path:
    """A tournament folder as organisers have them: two
    sheets, a truth file, notes and a spreadsheet."""
    folder = tmp_path / "table"
    folder.mkdir()
    shutil.copy(SAMPLE_JSON, folder / "ana.json")
    shutil.copy(ROOT / "samples" / "typical-a.txt", folder / "ben.txt")
    shutil.copy(ROOT / "samples" / "typical-a.truth.json", folder / "ana.truth.json")
    (folder / "notes.md").write_text("# table 3\n")
    (folder / "scores.csv").write_text("player,total\n")
    (folder / "broken.json").write_text('{"side": "A", "cells": [["forest"]]}')
    return folder


def test_batch_skips_what_is_not_a_sheet_and_ends_with_a_table(
    capsys, table_folder: Path, tmp_path: Path
) -> None:
    out_file = tmp_path / "results.json"
    status, out, err = run(
        capsys, "batch", table_folder, "--cards", FOUR, "--out", out_file, "--no-progress"
    )
    assert status == 0
    assert out.splitlines()[0].startswith("3 sheets: 3 scored, 1 failed, 3 skipped")
    header = next(line for line in out.splitlines() if "place" in line and "file" in line)
    assert header.split() == ["place", "file", "total", "monsters", "legality", "to", "check"]
    assert re.search(r"^\s+1\s+ana\.json\s+20\s+-24\s+legal", out, re.M)
    skipped = out[out.index("skipped (not a photo or a sheet):") :]
    for name in ("ana.truth.json", "notes.md", "scores.csv"):
        assert name in skipped
    assert (
        "broken.json" in err and "ana.truth.json" not in err
    )  # failed on stderr; skipped is not failed
    results = json.loads(out_file.read_text())
    assert {s["file"] for s in results["skipped"]} == {"ana.truth.json", "notes.md", "scores.csv"}
    assert [f["file"] for f in results["failed"]] == ["broken.json"]


def test_batch_json_summary_counts_skipped_files(
    capsys, table_folder: Path, tmp_path: Path
) -> None:
    status, out, _ = run(
        capsys,
        "batch",
        table_folder,
        "--cards",
        FOUR,
        "--out",
        tmp_path / "r.csv",
        "--no-progress",
        "--json",
    )
    assert status == 0
    summary = json.loads(out.strip().splitlines()[-1])
    assert (summary["total"], summary["failed"], summary["skipped"]) == (3, 1, 3)


def test_batch_of_nothing_but_notes_says_so(capsys, tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("nothing here")
    status, _, err = run(
        capsys, "batch", tmp_path, "--cards", FOUR, "--out", tmp_path / "r.csv", "--no-progress"
    )
    assert status == 2 and "no photos or sheet files to score (1 other file skipped)" in err


def test_scoring_a_photo_names_the_cells_to_check_once(capsys) -> None:
    status, out, _ = run(capsys, "score", SAMPLE_PHOTO, "--cards", FOUR)
    assert status == 0
    assert (
        len([line for line in out.splitlines() if "to check" in line or "check these" in line]) == 1
    )
