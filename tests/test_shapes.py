"""Shapes: the reference's notation, distinct orientations, placements as masks."""

from __future__ import annotations

import pytest

from scoring.shapes import (
    cells_of,
    mask_of,
    normalise,
    orientations,
    parse_shape,
    placements,
    reflect,
    rotate,
    shape_text,
    translations,
)

# shape → number of distinct orientations with rotations and reflections
ORIENTATIONS = {
    "X": 1,
    "X/X": 2,
    "X/X/X": 2,
    "XXXX": 2,
    "X./.X": 2,
    ".X./XXX/.X.": 1,
    "X./XX": 4,
    "..X/.XX/XX.": 4,
    "XXX/X../X..": 4,
    "X./XX/X.": 4,
    "X../XXX/X..": 4,
    "X./XX/.X": 4,
    "XXX/XX.": 8,
    "XXX/..X": 8,
    "..XX/XXX.": 8,
    "X../.X./..X": 2,
    "X.X/X.X": 2,
    "XX/X./XX": 4,
}


@pytest.mark.parametrize("text,count", ORIENTATIONS.items())
def test_distinct_orientations(text: str, count: int) -> None:
    shape = parse_shape(text)
    orients = orientations(shape)
    assert len(orients) == count
    assert len(set(orients)) == count
    assert orients[0] == shape
    for o in orients:
        assert len(o) == len(shape)


@pytest.mark.parametrize("text", ORIENTATIONS)
def test_text_round_trip(text: str) -> None:
    assert shape_text(parse_shape(text)) == text


def test_rotate_four_times_and_reflect_twice_is_identity() -> None:
    s = parse_shape("..XX/XXX.")
    r = s
    for _ in range(4):
        r = rotate(r)
    assert r == s
    assert reflect(reflect(s)) == s


def test_without_flips_only_rotations() -> None:
    s = parse_shape("XXX/..X")
    assert len(orientations(s, flips=False)) == 4
    assert set(orientations(s, flips=False)) < set(orientations(s))


def test_placements_are_inside_the_map_and_distinct() -> None:
    s = parse_shape("XXXX")
    masks = placements(s)
    # horizontal: 11 rows × 8 positions; vertical the same
    assert len(masks) == 2 * 11 * 8 == len(set(masks))
    for m in masks:
        cells = cells_of(m)
        assert len(cells) == 4
        assert all(0 <= r < 11 and 0 <= c < 11 for r, c in cells)
    assert len(translations(parse_shape("X"))) == 121


def test_mask_round_trip_and_normalise() -> None:
    cells = [(3, 4), (3, 5), (4, 5)]
    assert cells_of(mask_of(cells)) == cells
    assert normalise(cells) == ((0, 0), (0, 1), (1, 1))


@pytest.mark.parametrize("bad", ["", "X?", "../.."])
def test_bad_notation_is_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_shape(bad)
