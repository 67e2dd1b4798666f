"""The synthetic photos' truth is exact: grid points land
where the truth says, ink where the sheet says."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from scoring.sheet import Sheet
from scoring.terrain import Terrain
from vision.layout import GEOMETRY, GRID
from vision.synth import STYLES, draw_sheet, random_sheet, render_sheet
from vision.synth.camera import KEEP_IN_VIEW, Bend, place_camera
from vision.synth.photo import camera_for, sample_conditions, warp_maps

# Harsh poses: strong tilt, any roll, lens distortion, bow and curl.
POSES = [
    dict(tilt=0.0, azimuth=0.0, roll=0.0, k1=0.0, bend=Bend()),
    dict(tilt=0.7, azimuth=0.3, roll=2.0, k1=-0.12, bend=Bend(0.5, 0.4, 0.0, 0.0)),
    dict(tilt=0.5, azimuth=2.0, roll=3.3, k1=0.06, bend=Bend(0.3, 1.2, 0.6, 4.0)),
    dict(tilt=0.69, azimuth=4.0, roll=5.5, k1=-0.05, bend=Bend(0.0, 0.0, 0.6, 1.5)),
    dict(
        tilt=0.4,
        azimuth=1.0,
        roll=1.0,
        k1=0.02,
        bend=Bend(0.2, 0.0, 0.3, 3.0, fold=0.4, fold_axis=1.6, fold_offset=0.5),
    ),
]


def pose_camera(pose: dict, width: int = 1200, height: int = 900):
    return place_camera(width, height, hfov=1.2, fill=0.85, offset=(0.3, -0.4), k2=0.01, **pose)


@pytest.mark.parametrize("pose", POSES)
def test_inverse_camera_undoes_the_forward_one(pose):
    cam = pose_camera(pose)
    xs, ys = np.meshgrid(np.linspace(-0.9, 11.8, 23), np.linspace(-3.5, 15.1, 31))
    q = cam.sheet_to_photo(xs, ys)
    bx, by = cam.photo_to_sheet(q[..., 0], q[..., 1])
    assert np.nanmax(np.hypot(bx - xs, by - ys)) < 1e-3


def dot_sheet(px_per_u: float):
    """A white sheet-sized image with a black dot on every grid intersection."""
    g = GEOMETRY.sheet
    img = np.full((int(round(g.height * px_per_u)), int(round(g.width * px_per_u))), 255, np.uint8)
    affine = np.array([[px_per_u, 0, -g.x0 * px_per_u], [0, px_per_u, -g.y0 * px_per_u]])
    for j in range(GRID + 1):
        for i in range(GRID + 1):
            c = (int(round((i - g.x0) * px_per_u * 16)), int(round((j - g.y0) * px_per_u * 16)))
            cv2.circle(img, c, int(0.12 * px_per_u * 16), 0, -1, cv2.LINE_AA, 4)
    return img, affine


@pytest.mark.parametrize("pose", POSES)
def test_warped_grid_points_land_on_the_truth_within_005_u(pose):
    cam = pose_camera(pose)
    src, affine = dot_sheet(40.0)
    mx, my, _ = warp_maps(cam, affine)
    photo = cv2.remap(src, mx, my, cv2.INTER_LINEAR, borderValue=255)
    ink = 255.0 - photo.astype(np.float64)
    xs, ys = np.meshgrid(np.arange(GRID + 1.0), np.arange(GRID + 1.0))
    truth = cam.sheet_to_photo(xs, ys)
    worst = 0.0
    for j in range(GRID + 1):
        for i in range(GRID + 1):
            # local scale: photo pixels per grid unit around this point
            step = cam.sheet_to_photo(np.array([i + 0.3]), np.array([j + 0.0]))[0] - truth[j, i]
            scale = np.linalg.norm(step) / 0.3
            r = int(np.ceil(0.3 * scale)) + 2
            x, y = int(round(truth[j, i, 0])), int(round(truth[j, i, 1]))
            win = ink[y - r : y + r + 1, x - r : x + r + 1]
            assert win.shape == (2 * r + 1, 2 * r + 1), "grid point outside the photo"
            gy, gx = np.mgrid[-r : r + 1, -r : r + 1]
            cx, cy = (gx * win).sum() / win.sum() + x, (gy * win).sum() / win.sum() + y
            worst = max(worst, np.hypot(cx - truth[j, i, 0], cy - truth[j, i, 1]) / scale)
    assert worst < 0.05


@pytest.mark.parametrize("seed", range(40))
def test_sampled_conditions_keep_the_readable_part_in_the_frame_and_upright(seed):
    rng = np.random.default_rng(seed)
    cond = sample_conditions(rng, "graphite-symbols")
    cond["megapixels"] = 1.0
    cam = camera_for(cond)
    keep = cam.sheet_to_photo(*KEEP_IN_VIEW)  # labels, grid, coin track and season boxes
    assert (keep >= 0).all() and (keep[:, 0] < cam.width).all() and (keep[:, 1] < cam.height).all()
    corners = cam.sheet_to_photo(np.array([0.0, GRID, GRID, 0.0]), np.array([0.0, 0.0, GRID, GRID]))
    a, b = corners[1] - corners[0], corners[2] - corners[1]
    assert a[0] * b[1] - a[1] * b[0] > 0, "photo is mirrored"


@pytest.mark.parametrize("style", STYLES)
def test_every_drawn_cell_has_ink_and_empty_cells_none(style):
    rng = np.random.default_rng(STYLES.index(style))
    sheet = random_sheet("AB"[STYLES.index(style) % 2], rng, shapes=25)
    drawn = draw_sheet(sheet, style, rng, px_per_u=30)
    mask = drawn.terrain_mask > 0
    to_px = drawn.rendered.to_px
    tol = 0.2  # outlines sit on the borders; shading may overshoot a little
    for (r, c), t in sheet.items():
        x0, y0 = (int(round(v)) for v in to_px(c + tol, r + tol))
        x1, y1 = (int(round(v)) for v in to_px(c + 1 - tol, r + 1 - tol))
        inside = mask[y0:y1, x0:x1]
        if t in (Terrain.EMPTY, Terrain.MOUNTAIN, Terrain.WASTELAND):
            assert inside.sum() == 0, f"terrain ink in {t.value} cell {(r, c)}"
        else:
            assert inside.mean() > 0.02, f"no ink in {t.value} cell {(r, c)}"


def test_drawn_ink_actually_darkens_the_drawn_cells():
    rng = np.random.default_rng(3)
    sheet = Sheet.blank("A").with_cells({(0, 0): Terrain.FOREST, (10, 10): Terrain.WATER})
    blank = render_sheet("A", px_per_u=30, rng=np.random.default_rng(9))
    drawn = draw_sheet(sheet, "graphite-symbols", rng, rendered=blank, extras=False)
    diff = np.abs(drawn.image.astype(int) - blank.image.astype(int)).sum(axis=2)
    for r, c in ((0, 0), (10, 10)):
        x0, y0 = (int(v) for v in blank.to_px(c, r))
        x1, y1 = (int(v) for v in blank.to_px(c + 1, r + 1))
        assert (diff[y0:y1, x0:x1] > 30).mean() > 0.01
    x0, y0 = (int(v) for v in blank.to_px(4, 4))
    x1, y1 = (int(v) for v in blank.to_px(7, 7))
    assert diff[y0:y1, x0:x1].max() == 0


@pytest.mark.parametrize("seed", range(6))
def test_the_truth_names_the_pencil_the_coins_are_marked_in(seed):
    """``coin_marks`` names the pencil that marked the coins: graphite lies in its own layer."""
    sheet = Sheet.blank("A").with_cells({}, coins=4)
    blank = render_sheet("A", px_per_u=30, rng=np.random.default_rng(2))
    drawn = draw_sheet(sheet, "colour-shading", np.random.default_rng(seed), rendered=blank)
    marks = drawn.truth["coin_marks"]
    assert marks["mark"] in ("shade", "cross", "scribble") and marks["tool"] == "pencil"
    x, y = (int(round(v)) for v in blank.to_px(*GEOMETRY.coin_centre(0)))
    r = int(GEOMETRY.coin_radius * 30)
    graphite = 0 if drawn.graphite is None else drawn.graphite[y - r : y + r, x - r : x + r].max()
    assert (graphite > 0) == (marks["colour"] == "graphite")


@pytest.mark.parametrize(
    "coins, style",
    [(0, "graphite-symbols"), (3, "colour-shading"), (9, "marker-fill"), (14, "graphite-outlined")],
)
def test_exactly_the_first_coins_are_marked(coins, style):
    sheet = Sheet.blank("B").with_cells({}, coins=coins)
    blank = render_sheet("B", px_per_u=30, rng=np.random.default_rng(2))
    drawn = draw_sheet(sheet, style, np.random.default_rng(coins), rendered=blank)
    diff = np.abs(drawn.image.astype(int) - blank.image.astype(int)).sum(axis=2)
    for i in range(GEOMETRY.coin_count):
        x, y = (int(round(v)) for v in blank.to_px(*GEOMETRY.coin_centre(i)))
        r = int(GEOMETRY.coin_radius * 30)
        marked = (diff[y - r : y + r + 1, x - r : x + r + 1] > 30).mean() > 0.03
        assert marked == (i < coins), f"coin {i} of {coins}"


@pytest.mark.parametrize(
    "seed, style", [(21, "colour-shading"), (22, "graphite-outlined"), (23, "marker-symbols")]
)
def test_photo_ink_lies_in_the_truth_cells(seed, style):
    """End to end: the drawn terrain, carried through the photo's own camera, lands in the cells the
    truth's intersections outline — in every drawn cell, and in no empty cell's inner part."""
    from vision.synth import make_photo

    sheet = random_sheet("AB"[seed % 2], np.random.default_rng(seed), shapes=20)
    photo = make_photo(seed, sheet=sheet, style=style, megapixels=1.0)
    cam = camera_for(photo.truth["conditions"])
    mx, my, _ = warp_maps(cam, photo.drawn.rendered.affine)
    ink = cv2.remap(photo.drawn.terrain_mask, mx, my, cv2.INTER_NEAREST, borderValue=0) > 0
    inter = np.array(photo.truth["intersections"])
    for (r, c), t in sheet.items():
        quad = np.array([inter[r, c], inter[r, c + 1], inter[r + 1, c + 1], inter[r + 1, c]])
        inner = (
            quad.mean(axis=0) + (quad - quad.mean(axis=0)) * 0.6
        )  # tolerance: 0.2 u from the borders
        mask = np.zeros(ink.shape, np.uint8)
        cv2.fillConvexPoly(mask, np.round(inner).astype(np.int32), 1)
        share = ink[mask > 0].mean()
        if t in (Terrain.EMPTY, Terrain.MOUNTAIN, Terrain.WASTELAND):
            assert share == 0, f"ink in {t.value} cell {(r, c)}"
        else:
            assert share > 0.02, f"no ink in {t.value} cell {(r, c)}"
