"""Cell features: the shape part tells stroke direction
and ink placement apart, and ignores blank paper."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.features import (
    CELL_FEATURE_NAMES,
    HOG_BINS,
    HOG_REGIONS,
    LAYOUT_REGIONS,
    PALETTES,
    REFERENCE_LAB,
    REFERENCE_PAPER_BGR,
    THUMBS,
    _lab,
    cell_features,
    paper_model,
    paper_ring,
)
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
    hog = (
        row[hog_at : hog_at + HOG_REGIONS * HOG_REGIONS * HOG_BINS]
        .reshape(-1, HOG_BINS)
        .sum(axis=0)
    )
    n = THUMBS[-1]  # the finer thumbnail
    thumb_at = CELL_FEATURE_NAMES.index(f"thumb{n}_0")
    return hog, row[thumb_at : thumb_at + n * n].reshape(n, n)


def test_the_written_out_reference_lab_is_the_reference_paper_in_lab() -> None:
    """REFERENCE_LAB is a constant (so importing costs no
    OpenCV table set-up); it must stay the paper's Lab."""
    np.testing.assert_allclose(
        REFERENCE_LAB, _lab(REFERENCE_PAPER_BGR.reshape(1, 1, 3))[0, 0], atol=0.05
    )
    assert REFERENCE_LAB.dtype == np.float32


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
        cv2.rectangle(img, (x0 + 2, y0 + 2), (x0 + 12, y0 + 12), (40, 40, 40), -1)

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


def flat_sheet(side: str = "A", px_per_u: float = 40):
    """A rendered empty sheet, its true crossings in its pixels and its paper colour (BGR 0…1)."""
    from vision.synth.paper import render_sheet

    rendered = render_sheet(side, px_per_u=px_per_u)
    j, i = np.meshgrid(np.arange(GRID + 1, dtype=float), np.arange(GRID + 1, dtype=float))
    crossings = np.stack(rendered.to_px(j, i), axis=2)
    paper = np.array(PALETTES[side].paper[::-1], float) / 255.0
    return rendered.image, crossings, paper


@pytest.mark.parametrize("side", ["A", "B"])
def test_paper_ring_reads_the_bare_margin_around_the_grid(side: str) -> None:
    image, crossings, paper = flat_sheet(side)
    ring = paper_ring(image, crossings)
    assert len(ring.rows) == 4 * GRID  # one patch per unit along each of the four strips
    assert np.abs(ring.bgr / paper - 1).max() < 0.15  # letters, numbers and the frame drop out
    left = ring.cols < 0
    assert left.sum() == GRID and np.allclose(
        ring.rows[left], np.arange(GRID)
    )  # in cell-centre coordinates


def test_paper_ring_leaves_out_patches_beyond_the_photo() -> None:
    image, crossings, _ = flat_sheet()
    right_edge = (
        int(crossings[:, -1, 0].max()) + 4
    )  # the photo ends just past the frame on the right
    ring = paper_ring(image[:, :right_edge], crossings)
    assert len(ring.rows) == 3 * GRID and (ring.cols < GRID - 0.5).all()


def test_the_margin_keeps_the_paper_colour_of_a_sheet_shaded_almost_everywhere() -> None:
    """Yellow shading over all but three drawable cells: from the cells alone the shading passes
    for paper (and would be normalised away); with the margin the surface stays parchment."""
    image, crossings, paper = flat_sheet()
    s = 40
    x0, y0 = crossings[0, 0].round().astype(int)
    shade = np.array([0.35, 0.85, 1.0], np.float32)  # what a yellow pencil lets through, BGR
    area = image[y0 : y0 + GRID * s, x0 : x0 + GRID * s].astype(np.float32)
    blank = {(0, 0), (10, 10), (5, 9)}
    for r in range(GRID):
        for c in range(GRID):
            if (r, c) not in blank:
                area[r * s : (r + 1) * s, c * s : (c + 1) * s] *= shade
    image[y0 : y0 + GRID * s, x0 : x0 + GRID * s] = area.astype(np.uint8)
    cells = cv2.resize(
        image[y0 : y0 + GRID * s, x0 : x0 + GRID * s],
        (GRID * PX, GRID * PX),
        interpolation=cv2.INTER_AREA,
    )
    printed = np.zeros((GRID, GRID), bool)
    rr, cc = np.mgrid[0:GRID, 0:GRID]
    without = paper_model(cells.astype(np.float32) / 255.0, PX, printed).at(rr, cc)
    with_ring = paper_model(
        cells.astype(np.float32) / 255.0, PX, printed, paper_ring(image, crossings)
    ).at(rr, cc)
    assert np.abs(without / paper - 1).max() > 0.3  # the failure the margin is there for
    assert np.median(np.abs(with_ring / paper - 1)) < 0.08


def test_a_glare_spot_on_bare_paper_does_not_look_like_blue_ink() -> None:
    """Light added over a few cells saturates the parchment's red first, so bare paper there looks
    bluish; the surface is raised to those cells' bright pixels (``bright_lift``) and they read as
    paper again, while a real blue stroke elsewhere stays coloured."""
    img = np.full((GRID * PX, GRID * PX, 3), PAPER_BGR, np.float32)
    yy, xx = np.mgrid[0 : GRID * PX, 0 : GRID * PX]
    spot = np.exp(-(((xx - 5.5 * PX) ** 2 + (yy - 5.5 * PX) ** 2) / (2 * (1.2 * PX) ** 2)))
    img = np.clip(img + 120 * spot[..., None], 0, 255).astype(
        np.uint8
    )  # glare, clipped like a sensor
    cv2.line(
        img, (2 * PX + 5, 2 * PX + 16), (3 * PX - 5, 2 * PX + 16), (200, 90, 30), 3
    )  # blue ink
    feats = cell_features(img, "A", PX)[0]
    coloured = feats[:, CELL_FEATURE_NAMES.index("coloured")]
    db = feats[:, CELL_FEATURE_NAMES.index("db_mean")]
    assert (
        coloured[5 * GRID + 5] < 0.05 and abs(db[5 * GRID + 5]) < 3
    )  # the glare's centre cell reads as paper
    assert coloured[2 * GRID + 2] > 0.05 and db[2 * GRID + 2] < -3  # the blue stroke is still blue


def layout_part(feats: np.ndarray, cell: tuple[int, int], name: str) -> np.ndarray:
    """One 4 × 4 layout map (``da_at``, ``db_at`` or ``stroke_at``) of one cell."""
    at = CELL_FEATURE_NAMES.index(f"{name}0")
    return feats[cell[0] * GRID + cell[1], at : at + LAYOUT_REGIONS**2].reshape(
        LAYOUT_REGIONS, LAYOUT_REGIONS
    )


@pytest.mark.parametrize(
    "where, colour, name, sign",
    [
        ("top", (60, 160, 40), "da_at", -1),  # green ink: low a*
        ("bottom", (60, 160, 40), "da_at", -1),
        ("top", (40, 200, 230), "db_at", +1),  # yellow ink: high b*
        ("bottom", (40, 200, 230), "db_at", +1),
    ],
)
def test_layout_shows_which_half_of_the_cell_the_colour_is_in(
    where: str, colour: tuple, name: str, sign: int
) -> None:
    cell = (6, 3)

    def half(img, x0, y0):
        y = y0 + 3 if where == "top" else y0 + PX // 2 + 1
        cv2.rectangle(img, (x0 + 3, y), (x0 + PX - 4, y + PX // 2 - 5), colour, -1)

    m = sign * layout_part(cell_features(sheet_with(cell, half), "A", PX)[0], cell, name)
    inked, bare = (m[0], m[-1]) if where == "top" else (m[-1], m[0])
    # the bare half is not exactly paper: yellow ink is brighter than parchment in red, which lifts
    # the cell's paper surface a little (features.bright_lift)
    assert inked.min() > 0.3 and np.abs(bare).max() < 0.15


def test_edge_strips_show_a_line_along_one_side_only() -> None:
    cell = (2, 7)

    def left_line(img, x0, y0):
        cv2.line(img, (x0 + 1, y0), (x0 + 1, y0 + PX - 1), (50, 50, 50), 2)

    row = cell_features(sheet_with(cell, left_line), "A", PX)[0][cell[0] * GRID + cell[1]]
    edges = {
        k: row[CELL_FEATURE_NAMES.index(f"edge_{k}")] for k in ("top", "bottom", "left", "right")
    }
    assert (
        edges["left"] > 1.0
        and max(edges["top"], edges["bottom"]) < 0.6 * edges["left"]
        and abs(edges["right"]) < 0.1
    )
