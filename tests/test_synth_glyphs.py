"""Printed ruins and mountain glyphs (vision/synth/glyphs.py): the printed-art families print them
in many looks, each glyph keeps to its cell, and our colour look-alike stays exactly as it was."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.synth import glyphs
from vision.synth.art import ART_FAMILIES, render_art
from vision.synth.glyphs import (
    RUINS_DESIGNS,
    RUINS_MARGIN_U,
    RUINS_STYLES,
    MountainLook,
    RuinsLook,
    draw_mountain,
    draw_ruins,
)
from vision.synth.paper import VARIANTS, Pen, render_sheet

OWN_FAMILIES = [f for f in ART_FAMILIES if f != "lookalike"]
INK = (40, 40, 40)


def _looks(family: str, seeds: range) -> list[dict]:
    return [
        render_art(family, "AB"[s % 2], 6.0, "print", np.random.default_rng(s)).looks for s in seeds
    ]


@pytest.mark.parametrize("family", OWN_FAMILIES)
def test_a_family_prints_its_ruins_and_mountains_in_many_looks(family: str) -> None:
    looks = _looks(family, range(40))
    ruins = [k["ruins"] for k in looks]
    mountains = [k["mountains"] for k in looks]
    assert all(isinstance(r, RuinsLook) for r in ruins)
    assert len({r.design for r in ruins}) >= 5
    assert {r.style for r in ruins} == set(RUINS_STYLES)
    assert {r.place for r in ruins} == {"centre", "high"}
    assert len({r.colour_name for r in ruins}) >= 3  # the ink and at least two accents
    sizes = [r.size for r in ruins]
    assert min(sizes) < 0.45 and max(sizes) > 0.7 and 0.35 <= min(sizes) <= max(sizes) <= 0.8
    tinted = sum(r.tint is not None for r in ruins)
    assert 4 <= tinted <= 30  # some sheets print a tinted ruins cell, most do not
    assert len({m.body for m in mountains}) >= 2
    assert {m.peaks for m in mountains} == {1, 2, 3}
    assert {m.coin for m in mountains} == {"centre", "corner", "none"}


@pytest.mark.parametrize("family", OWN_FAMILIES)
def test_a_sheets_looks_follow_its_seed_at_any_resolution(family: str) -> None:
    for seed in range(3):
        small, large = (
            render_art(family, "A", s, "print", np.random.default_rng(seed)).looks
            for s in (6.0, 31.0)
        )
        assert small == large


def test_the_families_together_print_every_ruins_design_and_mountain_body() -> None:
    looks = [k for f in OWN_FAMILIES for k in _looks(f, range(100, 115))]
    assert {k["ruins"].design for k in looks} == set(RUINS_DESIGNS)
    assert {k["mountains"].body for k in looks} == {"outline", "tile", "silhouette"}


def _canvas(px_per_u: float) -> tuple[np.ndarray, Pen, np.ndarray, np.ndarray]:
    """A white 3 × 3-cell canvas (cell (1, 1) in the middle) and its pixel centres in units."""
    n = int(round(3 * px_per_u))
    image = np.full((n, n, 3), 255, np.uint8)
    centres = np.arange(n) / px_per_u  # OpenCV: integer pixel coordinates are pixel centres
    return image, Pen(image, px_per_u, (0.0, 0.0)), centres[None, :], centres[:, None]


@pytest.mark.parametrize("px_per_u", [16.0, 33.0, 90.0])
@pytest.mark.parametrize("design", RUINS_DESIGNS)
def test_a_ruins_glyph_keeps_clear_of_its_cell_edges(design: str, px_per_u: float) -> None:
    for style in RUINS_STYLES:
        for place in ("centre", "high"):
            for mirror, cracks in ((False, 0), (True, 7)):
                image, pen, xs, ys = _canvas(px_per_u)
                look = RuinsLook(
                    design, 3, 0.8, place, style, INK, "ink", 0.06, mirror, cracks=cracks
                )
                draw_ruins(pen, 1, 1, look)
                ink = (255 - image.min(axis=2)) > 8
                m = RUINS_MARGIN_U
                inside = (xs > 1 + m) & (xs < 2 - m) & (ys > 1 + m) & (ys < 2 - m)
                assert not (ink & ~inside).any(), (design, style, place, mirror)
                assert ink.sum() > 0.1 * (0.8 * px_per_u) ** 2  # a glyph, not a speck


@pytest.mark.parametrize("design", RUINS_DESIGNS)
def test_cracks_add_thin_lines_inside_an_outlined_glyph_and_nowhere_else(design: str) -> None:
    def ink(cracks: int) -> np.ndarray:
        image, pen, _, _ = _canvas(90.0)
        look = RuinsLook(
            design, 2, 0.8, "centre", "outline", INK, "ink", 0.03, False, cracks=cracks
        )
        draw_ruins(pen, 1, 1, look)
        return (255 - image.min(axis=2)) > 8

    plain, cracked = ink(0), ink(12345)
    assert (cracked & ~plain).sum() > 20  # cracks drawn…
    assert not (plain & ~cracked).any()  # …on top of the glyph, which stays whole
    image, pen, _, _ = _canvas(90.0)  # and inside its stones: filling the outline covers them
    look = RuinsLook(design, 2, 0.8, "centre", "filled", INK, "ink", 0.03, False)
    draw_ruins(pen, 1, 1, look)
    filled_image = image
    filled = cv2.dilate(((255 - image.min(axis=2)) > 8).astype(np.uint8), np.ones((5, 5)))
    assert not (cracked & ~plain & ~filled.astype(bool)).any()
    image, pen, _, _ = _canvas(90.0)  # through a filled glyph, the cracks are paper
    draw_ruins(
        pen,
        1,
        1,
        RuinsLook(design, 2, 0.8, "centre", "filled", INK, "ink", 0.03, False, cracks=12345),
    )
    assert ((255 - image.min(axis=2)) > 8).sum() < ((255 - filled_image.min(axis=2)) > 8).sum()


def test_some_printings_crack_their_ruins_and_each_sheet_cracks_them_alike() -> None:
    looks = [k["ruins"] for f in OWN_FAMILIES for k in _looks(f, range(100, 160))]
    cracked = [k for k in looks if k.cracks]
    assert 0.1 < len(cracked) / len(looks) < 0.5
    image_a, pen_a, _, _ = _canvas(40.0)
    image_b, pen_b, _, _ = _canvas(40.0)
    draw_ruins(pen_a, 1, 1, cracked[0])
    draw_ruins(pen_b, 1, 1, cracked[0])
    assert np.array_equal(image_a, image_b)


@pytest.mark.parametrize("design", RUINS_DESIGNS)
def test_a_small_high_glyph_sits_in_the_upper_part_of_its_cell(design: str) -> None:
    image, pen, xs, ys = _canvas(40.0)
    draw_ruins(pen, 1, 1, RuinsLook(design, 2, 0.36, "high", "filled", INK, "ink", 0.03, False))
    rows = np.nonzero((255 - image.min(axis=2)).max(axis=1) > 8)[0]
    assert ys[rows.max(), 0] < 1.6 and ys[rows.min(), 0] > 1 + RUINS_MARGIN_U


@pytest.mark.parametrize("inset", [0.0, 0.08])
def test_a_tinted_ruins_cell_is_printed_up_to_its_edges_and_no_further(inset: float) -> None:
    tint = (150, 210, 240)
    image, pen, xs, ys = _canvas(30.0)
    look = RuinsLook("arch", 1, 0.4, "high", "outline", INK, "ink", 0.03, False, tint, inset)
    draw_ruins(pen, 1, 1, look)

    def at(u: float) -> np.ndarray:  # the pixel at (u, u)
        return image[round(u * 30), round(u * 30)].astype(int)

    # a bottom corner of the cell, away from the glyph: tinted, unless the square is inset
    assert np.abs(at(1.85) - tint).max() <= 2
    assert np.abs(at(1.96) - (tint if inset == 0 else 255)).max() <= 2
    near = (xs > 1 - 1 / 30) & (xs < 2 + 1 / 30) & (ys > 1 - 1 / 30) & (ys < 2 + 1 / 30)
    assert (image[~near] == 255).all()


@pytest.mark.parametrize("px_per_u", [16.0, 60.0])
@pytest.mark.parametrize("body", ["outline", "tile", "silhouette"])
def test_a_mountain_stays_in_its_cell(body: str, px_per_u: float) -> None:
    for peaks in (1, 2, 3):
        for coin in ("centre", "corner"):
            image, pen, xs, ys = _canvas(px_per_u)
            tile = None if body == "outline" else (60, 90, 120)
            look = MountainLook(
                peaks, body, "cross-hatch", tile, INK, 0.05, coin, "gold", (70, 180, 220), True
            )
            draw_mountain(pen, 1, 1, look, np.random.default_rng(peaks))
            ink = (255 - image.min(axis=2)) > 8
            one = 1 / px_per_u
            near = (xs > 1 - one) & (xs < 2 + one) & (ys > 1 - one) & (ys < 2 + one)
            assert not (ink & ~near).any(), (body, peaks, coin)
            assert ink[near].mean() > 0.05


# ---- the look-alike: the shipped model's printing, never touched by the glyphs ---------------


@pytest.fixture
def glyphs_forbidden(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any use of the widened glyphs fails the test."""

    def forbidden(*args, **kwargs):
        raise AssertionError("the look-alike drew a widened glyph")

    for name in ("draw_ruins", "draw_mountain", "pick_ruins_look", "pick_mountain_look"):
        monkeypatch.setattr(glyphs, name, forbidden)
        monkeypatch.setattr(f"vision.synth.art.{name}", forbidden)


@pytest.mark.parametrize("side", ["A", "B"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_the_lookalike_is_our_colour_sheet_pixel_for_pixel(
    side: str, variant: str, glyphs_forbidden: None
) -> None:
    art = render_art("lookalike", side, 24.0, variant, np.random.default_rng(3))
    sheet = render_sheet(side, px_per_u=24.0, variant=variant, rng=np.random.default_rng(3))
    assert np.array_equal(art.image, sheet.image) and np.array_equal(art.alpha, sheet.alpha)
    assert art.looks == {}


def test_a_lookalike_photo_is_the_default_photo_pixel_for_pixel(
    glyphs_forbidden: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vision.synth import make_photo

    default = make_photo(81, megapixels=1.0)
    named = make_photo(81, art_family="lookalike", megapixels=1.0)
    assert default.jpeg == named.jpeg and named.truth["art_family"] == "lookalike"
    monkeypatch.undo()
    other = make_photo(81, art_family="line-art", megapixels=1.0)
    assert other.jpeg != default.jpeg  # the comparison can tell printings apart
