"""Shared test helpers: build sheets from printed cell names, e.g. ``make(forest="A1 B2")``."""

from __future__ import annotations

import pytest

from scoring.sheet import Sheet
from scoring.terrain import Terrain


def cell(name: str) -> tuple[int, int]:
    """``"B4"`` → ``(1, 3)``."""
    return ord(name[0].upper()) - ord("A"), int(name[1:]) - 1


def make(side: str = "A", coins: int = 0, **drawn: str) -> Sheet:
    """A sheet of ``side`` with terrains drawn on the named cells: ``make(forest="A1 A2", water="C3")``."""
    changes = {cell(n): Terrain(t) for t, names in drawn.items() for n in names.split()}
    return Sheet.blank(side).with_cells(changes, coins=coins)


def row_cells(letter: str) -> str:
    """All eleven cells of a printed row, e.g. ``row_cells("A")`` → ``"A1 A2 … A11"``."""
    return " ".join(f"{letter}{c}" for c in range(1, 12))


def col_cells(number: int, skip: str = "") -> str:
    """All cells of a printed column, minus the ``skip`` names."""
    return " ".join(n for n in (f"{chr(65 + r)}{number}" for r in range(11)) if n not in skip.split())


@pytest.fixture
def blank_a() -> Sheet:
    return Sheet.blank("A")
