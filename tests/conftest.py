"""Shared test helpers: build sheets from printed cell names, e.g. ``make(forest="A1 B2")``."""

from __future__ import annotations

import os

import pytest

from scoring.sheet import Sheet
from scoring.terrain import Terrain

# The suite expects English words: the shell's own language must not decide the result.
for _variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
    os.environ.pop(_variable, None)
os.environ["LANG"] = "C.UTF-8"


def cell(name: str) -> tuple[int, int]:
    """``"B4"`` → ``(1, 3)``."""
    return ord(name[0].upper()) - ord("A"), int(name[1:]) - 1


def make(side: str = "A", coins: int = 0, **drawn: str) -> Sheet:
    """A sheet of ``side`` with terrains drawn on the named
    cells: ``make(forest="A1 A2", water="C3")``."""
    changes = {cell(n): Terrain(t) for t, names in drawn.items() for n in names.split()}
    return Sheet.blank(side).with_cells(changes, coins=coins)


def row_cells(letter: str) -> str:
    """All eleven cells of a printed row, e.g. ``row_cells("A")`` → ``"A1 A2 … A11"``."""
    return " ".join(f"{letter}{c}" for c in range(1, 12))


def col_cells(number: int, skip: str = "") -> str:
    """All cells of a printed column, minus the ``skip`` names."""
    return " ".join(
        n for n in (f"{chr(65 + r)}{number}" for r in range(11)) if n not in skip.split()
    )


@pytest.fixture
def blank_a() -> Sheet:
    return Sheet.blank("A")


# ---- markers: a quick loop is `python3 -m pytest -m "not slow and not browser"` ------------------
#: Test files that read or make photos, train, fuzz, run real servers or databases: each test takes
#: seconds. Everything else checks rules, parsers and routes in milliseconds.
SLOW_FILES = {
    "test_vision_train.py",
    "test_vision_grid.py",
    "test_vision_reader.py",
    "test_vision_coins.py",
    "test_vision_orient.py",
    "test_vision_features.py",
    "test_near_sheets.py",
    "test_games_photos.py",
    "test_batch_photos.py",
    "test_failure_recovery.py",
    "test_games_postgres.py",
    "test_bench_scans.py",
    "test_fuzz_loader.py",
    "test_synth_photos.py",
    "test_synth_art.py",
    "test_synth_truth.py",
    "test_synth_legibility.py",
    "test_vision_written.py",
    "test_schemathesis.py",
}
#: Test files that drive Debian's Chromium.
BROWSER_FILES = {"test_web_page.py", "test_web_player.py", "test_web_languages.py"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        name = item.path.name
        if name in SLOW_FILES:
            item.add_marker(pytest.mark.slow)
        if name in BROWSER_FILES:
            item.add_marker(pytest.mark.browser)
