"""The whole-cell number reader's inputs and outputs (vision.cell_numbers), and how its numbers
join the character reader's (vision.seasons.with_whole_cell)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.cell_numbers import (
    CELL_PARTS,
    CELL_SIDE,
    HEADS,
    IGNORED,
    LAYOUTS,
    N_CELL_INPUTS,
    PEAK_FLOOR,
    cell_picture,
    number_candidates,
    number_labels,
)
from vision.seasons import CellRead, with_whole_cell


def _output(layout: str, digits: str, sure: float = 0.9) -> np.ndarray:
    """A network output row that says ``layout`` and ``digits`` (right to left) ``sure``ly."""
    row = np.zeros(sum(HEADS))
    row[: len(LAYOUTS)] = (1 - sure) / (len(LAYOUTS) - 1)
    row[LAYOUTS.index(layout)] = sure
    for k in range(3):
        part = row[len(LAYOUTS) + 10 * k : len(LAYOUTS) + 10 * (k + 1)]
        part[:] = (1 - sure) / 9
        if k < len(digits):
            part[int(digits[::-1][k])] = sure
        else:
            part[:] = 0.1
    return row


@pytest.mark.parametrize(
    ("text", "labels"),
    [
        ("", [0, IGNORED, IGNORED, IGNORED]),
        ("7", [1, 7, IGNORED, IGNORED]),
        ("40", [2, 0, 4, IGNORED]),
        ("108", [3, 8, 0, 1]),
        ("-3", [4, 3, IGNORED, IGNORED]),
        ("-12", [5, 2, 1, IGNORED]),
    ],
)
def test_a_written_number_becomes_a_layout_and_digits_from_the_right(text, labels):
    assert number_labels(text).tolist() == labels


@pytest.mark.parametrize(
    ("layout", "digits", "signed", "best"),
    [
        ("", "", False, None),
        ("d", "7", False, 7),
        ("dd", "15", False, 15),
        ("ddd", "108", False, 108),
        ("-d", "4", True, -4),  # a monster penalty or a total below zero
        ("-dd", "12", True, -12),
    ],
)
def test_the_likeliest_candidate_is_what_the_network_says(layout, digits, signed, best):
    cands = number_candidates(_output(layout, digits), signed)
    assert max(cands, key=cands.get) == best
    assert sum(cands.values()) == pytest.approx(1.0)


def test_a_minus_is_no_reading_in_an_unsigned_cell():
    row = _output("-d", "4", sure=0.6)
    signed = number_candidates(row, signed=True)
    assert max(signed, key=signed.get) == -4
    unsigned = number_candidates(row, signed=False)  # the sign's share is dropped, not moved
    assert all(v is None or v >= 0 for v in unsigned)
    assert sum(unsigned.values()) == pytest.approx(1.0)


def test_no_candidate_has_a_leading_zero():
    row = np.zeros(sum(HEADS))
    row[LAYOUTS.index("dd")] = 1.0  # surely two digits…
    ones, tens = row[7:17], row[17:27]
    ones[5] = 1.0
    tens[:] = 0.01 / 9
    tens[0] = 0.99  # …the first read as "0": no "05", only the runners-up "15", "25"…
    cands = number_candidates(row, signed=False)
    assert cands and all(10 <= v <= 99 and v % 10 == 5 for v in cands)


def test_the_cell_picture_is_scaled_by_its_ink_and_says_which_cell_it_is():
    ink = np.zeros((40, 50), np.float32)
    ink[10:30, 20:24] = 0.2  # a faint "1"
    row = cell_picture(ink, "fall.edict2", line=0.5, grain=0.01)
    assert row.shape == (N_CELL_INPUTS,)
    picture = row[: CELL_SIDE * CELL_SIDE].reshape(CELL_SIDE, CELL_SIDE)
    assert 0.9 <= picture.max() <= 1.5  # the faint stroke at full scale…
    assert picture[:, :8].max() == 0.0  # …where it is, nowhere else
    parts = row[CELL_SIDE * CELL_SIDE : CELL_SIDE * CELL_SIDE + len(CELL_PARTS)]
    assert parts.tolist() == [float(p == "edict2") for p in CELL_PARTS]
    assert row[-4:].tolist() == [0.0, 0.0, 1.0, 0.0]  # fall
    final = cell_picture(ink, "final", line=0.5, grain=0.01)
    assert final[-4:].sum() == 0.0 and final[CELL_SIDE * CELL_SIDE + len(CELL_PARTS) - 1] == 1.0


def test_a_blank_cells_grain_is_not_scaled_up_to_ink():
    grain = np.random.default_rng(0).uniform(0, 0.3 * PEAK_FLOOR, size=(40, 50)).astype(np.float32)
    picture = cell_picture(grain, "spring.coins", line=0.5, grain=0.01)[: CELL_SIDE * CELL_SIDE]
    assert picture.max() < 0.5


@pytest.mark.parametrize(
    ("weight", "value"),
    [(0.0, 7), (0.1, 7), (0.5, 1), (1.0, 1)],
)
def test_the_whole_cell_reading_wins_by_its_weight(weight, value):
    chars = CellRead(7, 0.6, "7", ((7, 0.6), (1, 0.4)))
    mixed = with_whole_cell(chars, {1: 0.9, 7: 0.1}, weight)
    assert mixed.value == value
    assert sum(q for _, q in mixed.candidates) == pytest.approx(1.0)
    assert mixed.confidence == pytest.approx(dict(mixed.candidates)[value])


def test_a_blank_reading_offers_the_networks_numbers_too():
    blank = CellRead(None, 1.0)  # no blob found: a faint number the blob finder lost
    mixed = with_whole_cell(blank, {12: 0.95, None: 0.05}, 0.7)
    assert mixed.value == 12 and mixed.confidence == pytest.approx(0.7 * 0.95)
    assert dict(mixed.candidates)[None] == pytest.approx(0.3 + 0.7 * 0.05)
