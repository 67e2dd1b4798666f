"""Printed-art families (vision/synth/art.py): each draws the same layout in its own look, and the
reader finds the grid and the side of a photo of each."""

from __future__ import annotations

import numpy as np
import pytest

from scoring.sides import SIDES
from vision.layout import GRID
from vision.synth.art import ART_FAMILIES, render_art


@pytest.mark.parametrize("family", ART_FAMILIES)
@pytest.mark.parametrize("side", ["A", "B"])
def test_every_family_prints_the_layout_where_the_layout_says(family: str, side: str) -> None:
    sheet = render_art(family, side, 40.0, "print", np.random.default_rng(1))
    grey = sheet.image.astype(np.float32).mean(axis=2)

    def cell_darkness(r: int, c: int) -> float:
        x0, y0 = (int(round(v)) for v in sheet.to_px(c + 0.2, r + 0.2))
        x1, y1 = (int(round(v)) for v in sheet.to_px(c + 0.8, r + 0.8))
        return float(255 - grey[y0:y1, x0:x1].mean())

    layout = SIDES[side]
    plain = [
        cell_darkness(r, c)
        for r in range(GRID)
        for c in range(GRID)
        if (r, c) not in layout.mountains | layout.ruins | layout.wasteland
    ]
    mountains = [cell_darkness(r, c) for r, c in layout.mountains]
    # the printed mountains stand out from the plain cells in every look
    assert min(mountains) > np.percentile(plain, 90) + 5, (family, side)


def test_families_differ_and_a_seed_repeats_its_look() -> None:
    a = render_art("engraved", "A", 20.0, "print", np.random.default_rng(5)).image
    again = render_art("engraved", "A", 20.0, "print", np.random.default_rng(5)).image
    other = render_art("line-art", "A", 20.0, "print", np.random.default_rng(5)).image
    assert np.array_equal(a, again)
    assert np.abs(a.astype(int) - other.astype(int)).mean() > 20


def test_an_unknown_family_is_named() -> None:
    with pytest.raises(ValueError, match="unknown art family 'baroque'"):
        render_art("baroque", "A", 20.0, "print", np.random.default_rng(0))


@pytest.mark.parametrize("family", ART_FAMILIES[1:])
def test_the_reader_finds_the_grid_and_side_in_every_family(family: str) -> None:
    from vision.reader import read_photo
    from vision.synth import make_photo

    photo = make_photo(50_700_011, art_family=family, megapixels=2.0)
    assert photo.truth["art_family"] == family
    reading = read_photo(photo.jpeg)
    assert reading.side == photo.truth["sheet"]["side"]
    true_pts = np.asarray(photo.truth["intersections"], float)
    cell = np.linalg.norm(true_pts[0, 1] - true_pts[0, 0])
    off = np.linalg.norm(np.asarray(reading.intersections) - true_pts, axis=-1) / cell
    assert np.median(off) < 0.1  # the lattice is where the sheet is, not shifted by a cell


def test_box_print_varies_and_leaves_the_rest_of_the_sheet_alone(monkeypatch) -> None:
    """Some printings of our own families print letters and icons in their season boxes (others
    none); drawing them takes nothing from the sheet's generator, so the grid area is the same
    pixel for pixel with or without them."""
    from vision.digits_train import BOX_PX, flat_strip
    from vision.synth import art

    inked = []
    for seed in range(8):
        rng = np.random.default_rng(seed)
        state = rng.bit_generator.state
        art._box_print_rng(rng)
        assert rng.bit_generator.state == state
        strip = flat_strip(
            render_art("line-art", "A", BOX_PX, "print", np.random.default_rng(seed))
        )
        inked.append(int((strip < 200).sum()))
    assert len(set(inked)) > 3  # sizes, fonts, outlines and icons differ from printing to printing

    differ = 0
    for seed in range(10):
        with_print = render_art("line-art", "B", 30.0, "print", np.random.default_rng(seed))
        with monkeypatch.context() as m:
            m.setattr(art, "BOX_PRINT_SHARE", 0.0)
            without = render_art("line-art", "B", 30.0, "print", np.random.default_rng(seed))
        x0, y0 = (int(round(v)) for v in with_print.to_px(-0.5, -0.5))
        x1, y1 = (int(round(v)) for v in with_print.to_px(GRID + 0.5, GRID + 1.8))
        assert np.array_equal(with_print.image[y0:y1, x0:x1], without.image[y0:y1, x0:x1])
        differ += not np.array_equal(with_print.image, without.image)
    assert differ >= 3


@pytest.mark.parametrize("family", ["line-art", "engraved", "woodcut"])
def test_ornaments_reach_only_into_the_edge_cells(family: str, monkeypatch) -> None:
    """Ornament tips overhang the grid by at most ``ORNAMENT_DEPTH_U`` (plus their stroke); the
    cells further in are the same pixel for pixel with or without them, and they take nothing
    from the sheet's generator."""
    from vision.synth import art

    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    art._side_rng(rng, 1)
    assert rng.bit_generator.state == state

    reach = art.ORNAMENT_DEPTH_U[1] + 0.06
    inside = 0
    for seed in range(4):
        with monkeypatch.context() as m:
            m.setattr(art, "ORNAMENT_SHARE", 1.0)
            with_ = render_art(family, "A", 30.0, "print", np.random.default_rng(seed))
        with monkeypatch.context() as m:
            m.setattr(art, "ORNAMENT_SHARE", 0.0)
            without = render_art(family, "A", 30.0, "print", np.random.default_rng(seed))
        x0, y0 = (int(round(v)) for v in with_.to_px(reach, reach))
        x1, y1 = (int(round(v)) for v in with_.to_px(GRID - reach, GRID - reach))
        assert np.array_equal(with_.image[y0:y1, x0:x1], without.image[y0:y1, x0:x1])
        gx0, gy0 = (int(round(v)) for v in with_.to_px(0.05, 0.05))
        gx1, gy1 = (int(round(v)) for v in with_.to_px(GRID - 0.05, GRID - 0.05))
        changed = with_.image[gy0:gy1, gx0:gx1] != without.image[gy0:gy1, gx0:gx1]
        inside += bool(changed.any())
    assert inside >= 3  # with one to three ornaments a sheet, nearly every sheet has a tip inside


@pytest.mark.parametrize("style", ["filled", "hollow", "double"])
def test_big_capitals_are_centred_where_asked(style: str) -> None:
    """A big box capital's ink is centred on the point given, as tall as asked, whatever its
    style; hollow and double-struck capitals leave the strokes' insides as paper."""
    from vision.synth.box_print import capital, capital_face
    from vision.synth.paper import Pen

    if capital_face("DejaVuSerif.ttf") is None:
        pytest.skip("DejaVu Serif is not installed")
    image = np.full((100, 100, 3), 255, np.uint8)
    pen = Pen(image, 100.0, (0.0, 0.0))
    assert capital(pen, "D", (0.5, 0.5), 0.4, (0, 0, 0), "DejaVuSerif.ttf", style, 0.02)
    ys, xs = np.nonzero(image[:, :, 0] < 128)
    assert abs((ys.min() + ys.max()) / 2 - 50) <= 2 and abs((xs.min() + xs.max()) / 2 - 50) <= 2
    assert 36 <= ys.max() - ys.min() + 1 <= 50
    if style != "filled":  # the middle of the D's upright stem is not inked through
        stem = image[50, xs.min() : xs.min() + 12, 0]
        assert (stem < 128).sum() < len(stem)


def test_rounded_boxes_leave_their_corners_open() -> None:
    """A box with rounded corners inks its sides but not the very corner."""
    from vision.layout import Box
    from vision.synth.box_print import rounded_box
    from vision.synth.paper import Pen

    image = np.full((120, 220, 3), 255, np.uint8)
    rounded_box(Pen(image, 100.0, (0.0, 0.0)), Box(0.1, 0.1, 2.1, 1.1), 0.25, (0, 0, 0), 0.03)
    assert image[10, 110, 0] < 128 and image[60, 10, 0] < 128  # the top side, the left side
    assert image[10, 10, 0] > 200  # the top-left corner is cut round
