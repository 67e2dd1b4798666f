"""Shared test helpers."""

from __future__ import annotations

import pytest

from scoring.sheet import Sheet


def sheet_from_rows(rows: str, side: str = "A", coins: int = 0) -> Sheet:
    """A sheet from 11 text rows (``docs/sheet-text-format.md``), without the header line."""
    return Sheet.from_text(f"side {side} coins {coins}\n{rows}")


@pytest.fixture
def blank_a() -> Sheet:
    return Sheet.blank("A")
