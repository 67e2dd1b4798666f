"""Cell features: the shape part tells stroke direction and ink placement apart, and ignores blank paper."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.features import CELL_FEATURE_NAMES, HOG_BINS, HOG_REGIONS, PALETTES, THUMB, cell_features
from vision.layout import GRID

PX = 32
PAPER_BGR = PALETTES["A"].paper[::-1]


def sheet_with(cell: tuple[int, int], draw) -> np.ndarray:
    """A blank upright cell area with ``draw(img, x0, y0)`` applied inside one cell."""
    img = np.full((GRID * PX, GRID * PX, 3), PAPER_BGR, np.uint8)
    r, c = cell
    draw(img, c * PX, r * PX)
    return img


def horizontal(img, x0, y0):
    for y in range(y0 + 6, y0 + PX - 4, 6):
        cv2.line(img, (x0 + 5, y), (x0 + PX - 5, y), (60, 60, 60), 1)


def vertical(img, x0, y0):
    for x in range(x0 + 6, x0 + PX - 4, 6):
        cv2.line(img, (x, y0 + 5), (x, y0 + PX - 5), (60, 60, 60), 1)


def shape_part(feats: np.ndarray, cell: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    row = feats[cell[0] * GRID + cell[1]]
    hog_at = CELL_FEATURE_NAMES.index("hog0_0")
    hog = row[hog_at:hog_at + HOG_REGIONS * HOG_REGIONS * HOG_BINS].reshape(-1, HOG_BINS).sum(axis=0)
    thumb_at = CELL_FEATURE_NAMES.index("thumb0")
    return hog, row[thumb_at:thumb_at + THUMB * THUMB].reshape(THUMB, THUMB)


def test_feature_names_match_the_features() -> None:
    feats, _ = cell_features(sheet_with((5, 5), horizontal), "A", PX)
    assert feats.shape == (GRID * GRID, len(CELL_FEATURE_NAMES))
    assert np.isfinite(feats).all()


def test_stroke_direction_lands_in_different_orientation_bins() -> None:
    cell = (4, 6)
    h, _ = shape_part(cell_features(sheet_with(cell, horizontal), "A", PX)[0], cell)
    v, _ = shape_part(cell_features(sheet_with(cell, vertical), "A", PX)[0], cell)
    # bins are centred on 11.25° + k·22.5°: a gradient at 90° (horizontal lines) votes into the two
    # bins around 90°, one at 0° (vertical lines) into the two around 0°/180°
    around_90 = [HOG_BINS // 2 - 1, HOG_BINS // 2]
    around_0 = [HOG_BINS - 1, 0]
    assert h[around_90].sum() > 5 * h[around_0].sum()
    assert v[around_0].sum() > 5 * v[around_90].sum()


def test_blank_paper_has_no_shape_and_ink_shows_where_it_is() -> None:
    cell = (7, 2)

    def corner_blob(img, x0, y0):
        cv2.rectangle(img, (x0 + 3, y0 + 3), (x0 + 12, y0 + 12), (40, 40, 40), -1)

    feats = cell_features(sheet_with(cell, corner_blob), "A", PX)[0]
    blank_hog, blank_thumb = shape_part(feats, (2, 8))
    assert blank_hog.sum() < 0.05 and blank_thumb.max() < 0.05
    _, thumb = shape_part(feats, cell)
    assert thumb[0, 0] > 0.5 and thumb[-1, -1] < 0.05  # top-left ink, bottom-right paper


@pytest.mark.parametrize("side", ["A", "B"])
def test_uniform_light_change_barely_moves_the_features(side: str) -> None:
    img = sheet_with((3, 3), vertical)
    dim = (img.astype(np.float32) * 0.7).astype(np.uint8)
    a = cell_features(img, side, PX)[0]
    b = cell_features(dim, side, PX)[0]
    hog_at = CELL_FEATURE_NAMES.index("hog0_0")
    assert np.abs(a[:, hog_at:] - b[:, hog_at:]).max() < 0.1
