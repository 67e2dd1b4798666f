"""Every ``>>>`` example in a docstring of vision/, scoring/ and api/ holds (the README's test
command runs only tests/, so without this file a wrong example would go unnoticed: one did, in the
grid finder)."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def modules_with_examples() -> list[str]:
    """Dotted names of the package modules whose source holds a ``>>>`` example."""
    names = []
    for package in ("vision", "scoring", "api"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if ">>>" in path.read_text(encoding="utf-8"):
                parts = path.relative_to(ROOT).with_suffix("").parts
                names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


MODULES = modules_with_examples()


def test_the_examples_are_found() -> None:
    assert "vision.grid.profiles" in MODULES and "scoring.shapes" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(
        module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    assert result.attempted > 0, f"{name}: no example was run"
    assert result.failed == 0, (
        f"{name}: {result.failed} of {result.attempted} examples failed (output above)"
    )
