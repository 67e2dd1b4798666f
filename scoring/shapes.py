"""Shapes in the ``X./XX`` notation of the rules, their distinct orientations, and every placement
of an orientation on the 11 × 11 map as a bitmask (docs/rules.md, "Explore deck").

A *shape* is a tuple of ``(row, col)`` offsets, normalised so that its smallest row and column are
0 and sorted; two shapes are the same iff their tuples are equal. A *placement* is a Python ``int``
whose bit ``r * 11 + c`` is set for every cell the shape covers there; the engine, the simulator
and the validator all work on these masks, so "fits" is ``mask & filled == 0``.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from scoring.sides import SIZE

Shape = tuple[tuple[int, int], ...]

#: The mask of every cell of the map.
FULL_MASK = (1 << (SIZE * SIZE)) - 1


def normalise(cells: Iterable[tuple[int, int]]) -> Shape:
    """Shift cells so the smallest row and column are 0; sorted, duplicates dropped."""
    cells = set(cells)
    if not cells:
        raise ValueError("a shape needs at least one cell")
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return tuple(sorted((r - r0, c - c0) for r, c in cells))


def parse_shape(text: str) -> Shape:
    """``"X./XX"`` → ``((0, 0), (1, 0), (1, 1))``: ``X`` a cell, ``.`` a gap, ``/`` a new row.

    >>> parse_shape("X./XX")
    ((0, 0), (1, 0), (1, 1))
    """
    rows = text.strip().split("/")
    cells = []
    for r, row in enumerate(rows):
        for c, ch in enumerate(row.strip()):
            if ch in "Xx":
                cells.append((r, c))
            elif ch != ".":
                raise ValueError(f"shape {text!r}: unexpected {ch!r} (use X, . and /)")
    return normalise(cells)


def shape_text(shape: Shape) -> str:
    """The inverse of :func:`parse_shape`.

    >>> shape_text(parse_shape("..X/.XX/XX."))
    '..X/.XX/XX.'
    """
    h = 1 + max(r for r, _ in shape)
    w = 1 + max(c for _, c in shape)
    cells = set(shape)
    return "/".join("".join("X" if (r, c) in cells else "." for c in range(w)) for r in range(h))


def size(shape: Shape) -> tuple[int, int]:
    """(height, width) of the shape's bounding box."""
    return 1 + max(r for r, _ in shape), 1 + max(c for _, c in shape)


def rotate(shape: Shape) -> Shape:
    """A quarter turn clockwise."""
    return normalise((c, -r) for r, c in shape)


def reflect(shape: Shape) -> Shape:
    """A mirror image (left ↔ right)."""
    return normalise((r, -c) for r, c in shape)


@cache
def orientations(shape: Shape, flips: bool = True) -> tuple[Shape, ...]:
    """The distinct rotations (and, with ``flips``, reflections) of a shape, first the shape itself.

    >>> len(orientations(parse_shape("X"))), len(orientations(parse_shape("XXXX")))
    (1, 2)
    >>> len(orientations(parse_shape("..X/.XX/XX."))), len(orientations(parse_shape("XXX/X../X..")))
    (4, 4)
    >>> len(orientations(parse_shape("..XX/XXX.")))
    8
    """
    out: list[Shape] = []
    s = normalise(shape)
    for base in (s, reflect(s)) if flips else (s,):
        cur = base
        for _ in range(4):
            if cur not in out:
                out.append(cur)
            cur = rotate(cur)
    return tuple(out)


def mask_of(cells: Iterable[tuple[int, int]]) -> int:
    """The bitmask of ``(row, col)`` cells."""
    m = 0
    for r, c in cells:
        m |= 1 << (r * SIZE + c)
    return m


def cells_of(mask: int) -> list[tuple[int, int]]:
    """The ``(row, col)`` cells of a bitmask, in reading order."""
    out = []
    while mask:
        low = mask & -mask
        i = low.bit_length() - 1
        out.append(divmod(i, SIZE))
        mask ^= low
    return out


def indices_of(mask: int) -> list[int]:
    """The flat indices ``r * 11 + c`` of a bitmask, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


@cache
def translations(shape: Shape) -> tuple[int, ...]:
    """Every position of one fixed orientation inside the map, as masks, top-left first."""
    h, w = size(shape)
    base = mask_of(shape)
    return tuple(base << (r * SIZE + c) for r in range(SIZE - h + 1) for c in range(SIZE - w + 1))


@cache
def placements(shape: Shape, flips: bool = True) -> tuple[int, ...]:
    """Every distinct mask of the shape in any orientation and position inside the map."""
    seen: dict[int, None] = {}
    for o in orientations(shape, flips):
        for m in translations(o):
            seen.setdefault(m, None)
    return tuple(seen)


__all__ = [
    "Shape",
    "FULL_MASK",
    "normalise",
    "parse_shape",
    "shape_text",
    "size",
    "rotate",
    "reflect",
    "orientations",
    "mask_of",
    "cells_of",
    "indices_of",
    "translations",
    "placements",
]
