"""Grid finding, rectification and orientation on flat renders warped by known homographies."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from scoring.sides import SIDES
from vision import grid, orient
from vision.grid import candidates, finish, linefit, profiles, rescue, search, segments, snap
from vision.grid import quads as quads_module
from vision.grid.candidates import FailedLattice
from vision.grid.finish import Crossings
from vision.grid.tuning import SHIPPED, FinishTuning, GridTuning, SearchTuning
from vision.lattice import area_corners, lattice_points
from vision.synth import render_sheet


def warped_sheet(
    side: str, quarter_turns: int, seed: int, tilt: float = 60.0
) -> tuple[np.ndarray, np.ndarray]:
    """A flat render of ``side`` placed on a textured table by a random homography.

    Returns the photo and the true 12 × 12 crossings in photo pixels ([i, j] = line row i, column
    j).
    """
    rng = np.random.default_rng(seed)
    rs = render_sheet(side, px_per_u=30, rng=rng)
    h, w = rs.image.shape[:2]
    W, H = 1400, 1050
    table = np.full((H, W, 3), rng.integers(40, 120, 3), np.uint8)
    table = cv2.add(table, rng.integers(0, 40, (H, W, 3), dtype=np.uint8))
    angle = np.pi / 2 * quarter_turns + rng.uniform(-0.3, 0.3)
    scale = rng.uniform(0.55, 0.8) * H / max(h, w)
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    dst = (
        ((src - [w / 2, h / 2]) * scale) @ rot.T + [W / 2, H / 2] + rng.uniform(-tilt, tilt, (4, 2))
    )
    m = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
    paper = cv2.warpPerspective(rs.image, m, (W, H))
    alpha = cv2.warpPerspective(rs.alpha, m, (W, H))
    photo = np.where(alpha[..., None] > 127, paper, table)
    jj, ii = np.meshgrid(np.arange(12.0), np.arange(12.0))
    px, py = rs.to_px(jj, ii)
    truth = cv2.perspectiveTransform(np.stack([px, py], -1).reshape(1, -1, 2), m)[0].reshape(
        12, 12, 2
    )
    return photo, truth


#: the first source's passes: frame outlines at both search sizes
FRAME_OUTLINE_PASSES = search.GRID_PASSES[:2]


def read_orientation(
    photo: np.ndarray, fit: grid.GridFit, side: str | None = None
) -> orient.Orientation:
    """Side and quarter turns as the reader decides them."""
    cells = grid.sample_cells(photo, fit)
    evidence = [
        orient.coin_track_periodicity(grid.line_image(photo), fit.rotated(k)) for k in range(4)
    ]
    decided, _ = orient.decide_orientation(orient.mountain_darkness(cells, grid.PX), side, evidence)
    return decided


@pytest.mark.parametrize("side", ["A", "B"])
@pytest.mark.parametrize("quarter_turns", [0, 1, 2, 3])
def test_grid_found_oriented_and_within_a_tenth_of_a_cell(side: str, quarter_turns: int) -> None:
    photo, truth = warped_sheet(side, quarter_turns, seed=10 * quarter_turns + (side == "B"))
    fit = grid.fit_grid(photo)
    assert fit is not None
    decided = read_orientation(photo, fit)
    assert decided.side == side
    assert decided.shift_margin > 0
    upright = fit.rotated(decided.quarter_turns)
    cell_px = np.median(np.linalg.norm(np.diff(truth, axis=1), axis=2))
    error_u = np.linalg.norm(upright.intersections - truth, axis=2).max() / cell_px
    assert error_u < 0.1


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_no_grid_in_a_photo_without_a_sheet(seed: int) -> None:
    rng = np.random.default_rng(seed)
    photo = cv2.GaussianBlur(rng.integers(0, 255, (900, 1200, 3), dtype=np.uint8), (0, 0), 3)
    cv2.rectangle(
        photo, (200, 200), (700, 600), (30, 30, 30), 6
    )  # a dark quadrilateral that is no lattice
    assert grid.fit_grid(photo) is None


def test_sampled_cell_area_is_canonical() -> None:
    photo, _ = warped_sheet("A", 0, seed=5)
    fit = grid.fit_grid(photo)
    cells = grid.sample_cells(photo, fit)
    assert cells.shape == (11 * grid.PX, 11 * grid.PX, 3)


@pytest.mark.parametrize("side", ["A", "B"])
def test_shift_guard_catches_a_one_cell_shift(side: str) -> None:
    layout = SIDES[side]
    dark = np.zeros((11, 11))
    for r, c in layout.mountains:
        dark[r, c] = 0.8
    assert orient.shift_margin(dark, side) > 0.5
    shifted = np.roll(dark, 1, axis=1)  # what a grid placed one column off would see
    assert orient.shift_margin(shifted, side) < 0


def test_stated_side_is_kept_even_when_unsure() -> None:
    dark = np.zeros((11, 11))
    for r, c in SIDES["B"].mountains:
        dark[r, c] = 0.8
    decided, scores = orient.decide_orientation(dark, side="B")
    assert decided.side == "B" and decided.quarter_turns == 0
    assert scores[("B", 0)] > max(s for (name, _), s in scores.items() if name == "A")


def test_curl_surface_ignores_snaps_on_drawn_strokes() -> None:
    """Faint lines (colour shading, marker symbols): almost half of the snaps land anywhere in the
    search window; the smooth field must still follow the true curl on the cell area."""
    jj, ii = np.meshgrid(np.arange(12.0), np.arange(12.0))
    x, y = (jj - 5.5) / 5.5, (ii - 5.5) / 5.5
    truth = np.stack(
        [0.08 * x + 0.15 * x * x * y - 0.05, 0.1 * y * y + 0.06 * x * y], axis=2
    )  # curl, in u
    worst = []
    for seed in range(10):
        rng = np.random.default_rng(seed)
        snaps = truth + rng.normal(0, 0.01, truth.shape)
        strength = rng.uniform(5, 30, truth.shape)
        wild = rng.random(truth.shape) < 0.45
        snaps[wild] = rng.uniform(-0.4, 0.4, wild.sum())
        strength[wild] = rng.uniform(5, 40, wild.sum())
        worst.append(np.abs(snap.smoothed(snaps, strength) - truth)[1:-1, 1:-1].max())
    assert np.median(worst) < 0.08  # one cubic fit through all snaps: 0.16


def _candidate(corners: np.ndarray, score: float, separation: float) -> candidates.Candidate:
    return candidates.Candidate(
        np.eye(3), np.zeros((12, 12, 2)), score, separation, corners.astype(np.float64)
    )


def test_placement_of_one_sheet_is_chosen_by_quality_not_area() -> None:
    """A hypothesis with one corner a cell too far out is larger but fits fewer lines."""
    square = np.array([[100, 100], [430, 100], [430, 430], [100, 430]])
    right = _candidate(square, score=5.0, separation=0.5)
    stretched = square.copy()
    stretched[2] += 30
    wrong = _candidate(stretched, score=4.0, separation=0.5)
    assert candidates.choose([wrong, right]) is right
    other_sheet = _candidate(square + 600, score=1.5, separation=0.4)  # beside it, as large
    assert candidates.choose([other_sheet, right]).corners is right.corners
    bigger_sheet = _candidate((square - 100) * 2 + 700, score=1.5, separation=0.4)
    assert candidates.choose([right, bigger_sheet]) is bigger_sheet  # the user's sheet: the largest


def test_faint_lattice_needs_clear_mountains() -> None:
    def accepted(score: float, separation: float) -> bool:
        return candidates.accepted(score, separation, SHIPPED.accept)

    assert accepted(1.5, 0.0)
    assert not accepted(1.5, -0.01)  # mountains elsewhere: a lattice off by a cell
    assert accepted(0.9, 0.3) and not accepted(0.9, 0.2)
    assert accepted(0.3, 0.35) and not accepted(0.3, 0.25)
    assert not accepted(0.1, 0.9)


@pytest.mark.parametrize("side", ["A", "B"])
def test_mountains_found_under_a_shadow(side: str) -> None:
    """Paper in a shadow is darker than half the lit paper; only the mountains are dark locally."""
    px = 16
    cells = np.full((11 * px, 11 * px, 3), (160, 185, 205), np.uint8)  # parchment, BGR
    for r, c in SIDES[side].mountains:
        cells[r * px : (r + 1) * px, c * px : (c + 1) * px] = (25, 35, 75)
    cells[:, 6 * px :] = (cells[:, 6 * px :] * 0.45).astype(
        np.uint8
    )  # a shadow over the right part
    dark = orient.mountain_darkness(cells, px)
    assert orient.best_separation(dark) > 0.5
    assert orient.shift_margin(dark, side) > 0


def test_outer_ring_follows_the_frame_not_the_extrapolated_surface() -> None:
    """A bow stronger near the frame than a cubic through the inner crossings foresees: the outer
    ring must come from the frame snaps (a few of them hidden by a finger), not the
    extrapolation."""
    jj, ii = np.meshgrid(np.arange(12.0), np.arange(12.0))
    x, y = (jj - 5.5) / 5.5, (ii - 5.5) / 5.5
    truth = np.stack([0.2 * x**7, 0.15 * y**8 + 0.05 * x], axis=2)  # in u; large only at the edges
    rng = np.random.default_rng(3)
    snaps = truth + rng.normal(0, 0.005, truth.shape)
    strength = np.full(truth.shape, 30.0)
    snaps[0, 3:6, 1] += 0.3  # a finger over the top frame: three wrong snaps…
    strength[0, 3:6, 1] = 10.0  # …still fairly strong
    ring = np.ones((12, 12), bool)
    ring[1:-1, 1:-1] = False
    extrapolated = np.abs(snap.smoothed(snaps, strength, ring=False) - truth)[ring].max()
    followed = np.abs(snap.smoothed(snaps, strength) - truth)[ring].max()
    assert extrapolated > 0.1
    assert followed < 0.05


def test_frame_snap_takes_the_band_inner_line() -> None:
    """The frame band is two lines 0.2 u apart; a prior nearer the outer one must still snap to
    the inner one (the cell area's border), on all four sides."""
    px = 40
    h = np.array([[px, 0, 3.0 * px], [0, px, 3.0 * px], [0, 0, 1]])  # u → image px
    img = np.full((17 * px, 17 * px), 220, np.uint8)
    for g in range(12):  # dashed lines of the cell area
        for t in np.arange(0, 11, 0.25):
            a, b = (3 + t) * px, (3 + t + 0.15) * px
            cv2.line(img, (int((3 + g) * px), int(a)), (int((3 + g) * px), int(b)), 120, 1)
            cv2.line(img, (int(a), int((3 + g) * px)), (int(b), int((3 + g) * px)), 120, 1)
    for d, width in ((0.0, 1), (0.2, 2)):  # inner and outer band lines
        lo, hi = int((3 - d) * px), int((14 + d) * px)
        cv2.rectangle(img, (lo, lo), (hi, hi), 60, width)
    prior = np.zeros((12, 12, 2))
    prior[:, 0, 0] = prior[0, :, 1] = -0.13  # towards the outer line on the left and top
    prior[:, -1, 0] = prior[-1, :, 1] = 0.13  # and on the right and bottom
    snapped = snap.snap_crossings(img, h, 32, prior, 0.15)
    snaps = snapped.snapped
    ideal_offset = 0.5 / px  # pixel centres: line drawn at pixel k is at (k + 0.5) / px
    assert np.abs(snaps[:, [0, -1], 0] - ideal_offset).max() < 0.05
    assert np.abs(snaps[[0, -1], :, 1] - ideal_offset).max() < 0.05


@pytest.mark.parametrize("seed", [0, 2])
def test_fallback_finds_a_grid_whose_frame_outline_is_broken(seed: int) -> None:
    """Fingers over two frame corners merge the frame's contour with them: no clean frame quad, so
    only the second source (corner choice among 5–6 outline corners, the paper's outline) finds
    it."""
    photo, truth = warped_sheet("B", seed % 4, seed=seed)
    for corner, inward in ((truth[0, 0], truth[5, 5]), (truth[-1, -1], truth[6, 6])):
        out = corner - (inward - corner) * 0.6
        tip = corner + (corner - out) * 0.08
        cv2.line(photo, tuple(int(v) for v in out), tuple(int(v) for v in tip), (40, 45, 60), 28)
    assert search.find_lattice(photo, SHIPPED, FRAME_OUTLINE_PASSES) is None
    fit = grid.fit_grid(photo)
    assert fit is not None
    cell_px = np.median(np.linalg.norm(np.diff(truth, axis=1), axis=2))
    error_u = (
        min(
            np.linalg.norm(np.rot90(fit.intersections, k, axes=(0, 1)) - truth, axis=2).max()
            for k in range(4)
        )
        / cell_px
    )
    assert error_u < 0.1


def test_thin_line_check_sees_the_lattice_under_thick_marker_symbols() -> None:
    """Marker symbols in the cells' middles drown the dashed lines in the median profile at
    ``LATTICE_PX``; at ``THIN_PX`` with a thin black-hat the lattice stands out, a placement half
    a cell off does not, and the rescue never returns it."""
    photo, truth = warped_sheet("A", 0, seed=7, tilt=30.0)
    hom = grid.homography_from_intersections(truth)
    ii, jj = np.mgrid[0:11, 0:11] + 0.5
    centres = cv2.perspectiveTransform(
        np.stack([jj, ii], -1).reshape(1, -1, 2).astype(np.float64), hom
    )[0]
    cell = np.linalg.norm(truth[0, 1] - truth[0, 0])
    marked = photo.copy()
    for c in centres:  # a thick ring and a cross in every cell, like the marker-symbols style
        cv2.circle(
            marked,
            tuple(int(v) for v in c),
            int(0.28 * cell),
            (30, 30, 40),
            max(2, int(0.12 * cell)),
        )
        cv2.line(
            marked,
            tuple(int(v) for v in c - 0.3 * cell),
            tuple(int(v) for v in c + 0.3 * cell),
            (30, 30, 40),
            max(2, int(0.12 * cell)),
        )
    half = cv2.perspectiveTransform((grid.ideal_intersections() + 0.5).reshape(1, -1, 2), hom)[
        0
    ].reshape(12, 12, 2)
    assert profiles.thin_line_score(marked, truth) >= SHIPPED.accept.min_line_contrast
    assert profiles.thin_line_score(marked, half) < SHIPPED.accept.weak_line_contrast
    zero = np.zeros((12, 12, 2))
    found = rescue.rescued(
        marked,
        [FailedLattice(hom, truth, zero, False), FailedLattice(hom, half, zero, False)],
        SHIPPED,
    )
    assert found is not None and found.score >= SHIPPED.accept.min_line_contrast
    # half a cell off: refined again on thin lines it lands on the printed lattice, or nothing
    # passes
    half_hom = grid.homography_from_intersections(half)
    found = rescue.rescued(marked, [FailedLattice(half_hom, half, zero, False)], SHIPPED)
    if found is not None:
        pts = lattice_points(found.homography, found.disp).reshape(-1, 2)
        assert np.linalg.norm(pts.reshape(12, 12, 2) - truth, axis=2).max() < 0.1 * cell


def marker_sheet(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A warped side-A sheet with a thick ring and a cross in every cell (the marker-symbols style):
    (photo, true crossings, true u → photo homography)."""
    photo, truth = warped_sheet("A", 0, seed=seed, tilt=30.0)
    hom = grid.homography_from_intersections(truth)
    ii, jj = np.mgrid[0:11, 0:11] + 0.5
    centres = cv2.perspectiveTransform(
        np.stack([jj, ii], -1).reshape(1, -1, 2).astype(np.float64), hom
    )[0]
    cell = np.linalg.norm(truth[0, 1] - truth[0, 0])
    for c in centres:
        cv2.circle(
            photo,
            tuple(int(v) for v in c),
            int(0.28 * cell),
            (30, 30, 40),
            max(2, int(0.12 * cell)),
        )
        cv2.line(
            photo,
            tuple(int(v) for v in c - 0.3 * cell),
            tuple(int(v) for v in c + 0.3 * cell),
            (30, 30, 40),
            max(2, int(0.12 * cell)),
        )
    return photo, truth, hom


def _moved(hom: np.ndarray, by_u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The homography and crossings of a placement ``by_u`` (u, x and y) off the true one."""
    moved = hom @ np.array([[1, 0, by_u[0]], [0, 1, by_u[1]], [0, 0, 1.0]])
    pts = cv2.perspectiveTransform(grid.ideal_intersections().reshape(1, -1, 2), moved)[0].reshape(
        12, 12, 2
    )
    return moved, pts


def test_rescue_refines_on_thin_lines_a_candidate_pulled_off_by_strokes() -> None:
    """A rejected candidate 0.3 u off (thick strokes pulled its snaps) shows no lattice on thin
    lines where it is; refined again on thin lines only, it lands on the printed crossings."""
    photo, truth, hom = marker_sheet(seed=7)
    off_hom, off_pts = _moved(hom, np.array([0.3, -0.25]))
    assert profiles.thin_line_score(photo, off_pts) < SHIPPED.accept.weak_line_contrast
    zero = np.zeros((12, 12, 2))
    found = rescue.rescued(photo, [FailedLattice(off_hom, off_pts, zero, False)], SHIPPED)
    assert found is not None
    pts = lattice_points(found.homography, found.disp).reshape(-1, 2)
    cell = np.linalg.norm(truth[0, 1] - truth[0, 0])
    assert np.linalg.norm(pts.reshape(12, 12, 2) - truth, axis=2).max() / cell < 0.1


def test_rescue_takes_the_glyph_for_washed_out_mountains_but_not_a_shift() -> None:
    """Glare lifts the whole sheet towards white: the mountains are no darker than the rest, so the
    darkness cannot confirm the lattice; the printed glyph still settles it, and refuses the
    same lattice one cell off."""
    photo, truth = warped_sheet("A", 0, seed=7, tilt=30.0)
    hom = grid.homography_from_intersections(truth)
    washed = (photo.astype(np.float32) * 0.4 + 150).astype(np.uint8)
    assert profiles.mountain_separation(washed, truth) <= 0
    assert profiles.glyph_settles(washed, truth)
    zero = np.zeros((12, 12, 2))
    assert rescue.rescued(washed, [FailedLattice(hom, truth, zero, False)], SHIPPED) is not None
    for by in ([1, 0], [0, -1], [1, 1]):
        shifted_hom, shifted = _moved(hom, np.array(by, float))
        assert profiles.mountain_separation(washed, shifted) <= 0
        assert not profiles.glyph_settles(washed, shifted)
        shifted_lattice = FailedLattice(shifted_hom, shifted, zero, False)
        rescued = rescue.rescued(washed, [shifted_lattice], SHIPPED)
        assert rescued is None


def test_crossing_doubt_marks_a_patch_of_snaps_off_not_one_stroke() -> None:
    """One snap on a drawn stroke is ignored by the smooth field and is no reason for doubt; a
    patch of snaps off the field (a finger, a stretched corner), or with no line to snap to, is."""
    rng = np.random.default_rng(0)
    disp = rng.normal(0, 0.005, (12, 12, 2))
    snaps = disp + rng.normal(0, 0.005, disp.shape)
    strength = np.full(disp.shape, 30.0)
    snaps[5, 5, 0] += 0.15  # a single stroke
    snaps[8:12, 0:4, :] += 0.14  # a corner where the field is wrong
    strength[0:3, 8:12, :] = 1.0  # a corner with no lines (glare, a finger)
    doubt = snap.crossing_doubt(snaps, strength, disp)
    assert doubt[5, 5] < grid.DOUBT_U
    assert (doubt[9:12, 0:3] > grid.DOUBT_U).all()
    assert (doubt[0:2, 9:12] > 0.05).all()
    assert (doubt[0:4, 0:5] < 0.03).all()  # away from all three
    scale = np.diag([10.0, 10.0, 1.0])
    fit = grid.GridFit(lattice_points(scale), scale, 1.0, 0.0, doubt)
    for k in range(4):
        assert np.array_equal(fit.rotated(k).crossing_doubt, np.rot90(doubt, k))


def test_a_stretched_corner_is_reanchored_on_the_crossings_in_no_doubt() -> None:
    """A found homography a cell off at one corner (the final search reaches 0.15 u): the
    crossings there are doubted, and snapping again from a homography through the others
    brings them onto the printed lines."""
    photo, truth = warped_sheet("B", 1, seed=4, tilt=30.0)
    true_hom = grid.homography_from_intersections(truth)
    src = np.array([[0, 0], [11, 0], [11, 11], [0, 11]], np.float32)
    off = src.copy()
    off[3] += (-0.7, 0.6)  # the BL corner a cell out along the diagonal
    dst = cv2.perspectiveTransform(off.reshape(1, -1, 2).astype(np.float64), true_hom)[0].astype(
        np.float32
    )
    wrong = cv2.getPerspectiveTransform(src, dst)
    cell_px = np.median(np.linalg.norm(np.diff(truth, axis=1), axis=2))
    no_reanchoring = GridTuning(finish=FinishTuning(sure_u=()))
    plain = finish.finish_grid(photo, wrong, np.zeros((12, 12, 2)), 2.0, no_reanchoring)
    plain_err = np.linalg.norm(plain.intersections - truth, axis=2) / cell_px
    assert plain_err.max() > 0.3
    assert (plain.crossing_doubt[plain_err > 0.3] > grid.DOUBT_U).mean() > 0.8
    fit = finish.finish_grid(photo, wrong, np.zeros((12, 12, 2)), 2.0, SHIPPED)
    assert np.linalg.norm(fit.intersections - truth, axis=2).max() / cell_px < 0.1
    assert (fit.crossing_doubt > grid.DOUBT_U).sum() < (plain.crossing_doubt > grid.DOUBT_U).sum()


@pytest.mark.parametrize("seed", [0, 2])
def test_segment_source_finds_the_frame_from_its_straight_sides(seed: int) -> None:
    """The third source needs no outline at all: with the frame's contour broken (fingers over two
    corners) and the outline sources switched off, the frame's long straight sides still give it."""
    photo, truth = warped_sheet("B", seed % 4, seed=seed)
    for corner, inward in ((truth[0, 0], truth[5, 5]), (truth[-1, -1], truth[6, 6])):
        out = corner - (inward - corner) * 0.6
        tip = corner + (corner - out) * 0.08
        cv2.line(photo, tuple(int(v) for v in out), tuple(int(v) for v in tip), (40, 45, 60), 28)
    assert search.find_lattice(photo, SHIPPED, FRAME_OUTLINE_PASSES) is None
    cell_px = np.median(np.linalg.norm(np.diff(truth, axis=1), axis=2))
    quads = segments.segment_quads(cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY), SearchTuning()).usual
    corners = np.array([truth[0, 0], truth[0, -1], truth[-1, -1], truth[-1, 0]])
    assert (
        min(np.abs(np.roll(q, k, axis=0) - corners).max() for q in quads for k in range(4))
        < 0.5 * cell_px
    )
    segments_only = search.FallbackOutlines(outlines=False)
    passes = (
        *FRAME_OUTLINE_PASSES,
        search.Search("segments", segments_only),
        search.Search("segments, larger", segments_only, retry=True),
        search.ThinLineRescue(),
    )
    fit = grid.fit_grid(photo, passes=passes)
    assert fit is not None
    error_u = (
        min(
            np.linalg.norm(np.rot90(fit.intersections, k, axes=(0, 1)) - truth, axis=2).max()
            for k in range(4)
        )
        / cell_px
    )
    assert error_u < 0.1


def test_segment_lattice_needs_clear_lines_or_clear_mountains() -> None:
    """A wrong long line (the coin track's edge) gives a lattice a cell off with a line score of
    about 1.3 and mountains hidden: the segment source accepts a lattice without clear mountains
    only when its lines are very clear and the mountains show at least a little."""
    assert SHIPPED.accept.segment_clear_lines >= 1.5 * SHIPPED.accept.min_line_contrast
    assert 0 < SHIPPED.accept.segment_mountains < SHIPPED.accept.mountain_confirms


def _true_turn(fit: grid.GridFit, truth: np.ndarray) -> int:
    return int(np.argmin([np.abs(fit.rotated(k).intersections - truth).max() for k in range(4)]))


@pytest.mark.parametrize("side", ["A", "B"])
@pytest.mark.parametrize("quarter_turns", [0, 1, 2, 3])
def test_washed_out_mountains_are_recognised_by_their_glyph(side: str, quarter_turns: int) -> None:
    """Glare lifts every pixel towards white: no mountain is "dark" any more (on benchmark photos
    50700078, 50800059 and 50800105 darkness alone points to the other side), but the printed peaks
    and coin are still there — and they point up, so side A's half turn is told even against a coin
    track that says otherwise."""
    photo, truth = warped_sheet(side, quarter_turns, seed=100 + 10 * quarter_turns + (side == "B"))
    fit = grid.fit_grid(photo)
    assert fit is not None
    k_true = _true_turn(fit, truth)
    cells = grid.sample_cells(photo, fit)
    washed = (cells.astype(np.float32) * 0.4 + 150).astype(np.uint8)
    dark = orient.mountain_darkness(washed, grid.PX)
    assert orient.best_separation(dark) <= 0.0  # the darkness cue alone cannot tell
    misleading = [0.0] * 4
    misleading[(k_true + 2) % 4] = 1.0  # the coin track "seen" on the wrong end
    decided, scores = orient.decide_orientation(dark, None, misleading, washed)
    assert (decided.side, decided.quarter_turns) == (side, k_true)
    glyph = orient.mountain_glyph_match(washed, grid.PX)
    assert glyph[(side, k_true)] > 0.7
    assert max(v for key, v in glyph.items() if key != (side, k_true)) < 0.5


#: (correction, side, turns, seed, each column's shift on the sheet in u, first doubted column):
#: curled paper stretches the lattice an extra line over one side (the side pull); marker strokes or
#: a stain hold the snaps of one part up to half a cell off and the smooth field follows them (the
#: thin-line refit)
LATTICES_OFF_OVER_ONE_SIDE = [
    (
        lambda photo, dark, now: finish.side_pulled(photo, dark, now, SHIPPED.finish),
        "A",
        0,
        3,
        np.clip(1 - (11 - np.arange(12)) / 5, 0, None),
        9,
    ),  # +1 u at the last column
    (
        lambda photo, dark, now: finish.thin_refit(photo, dark, now, SHIPPED),
        "B",
        2,
        5,
        0.45 * np.clip((np.arange(12) - 5) / 6, 0, None),
        7,
    ),  # 0 to 0.45 u, right half
]


@pytest.mark.parametrize(
    "correction, side, turns, seed, shift_u, doubted_from",
    LATTICES_OFF_OVER_ONE_SIDE,
    ids=["side-pull", "thin-refit"],
)
def test_a_lattice_off_over_one_side_is_corrected(
    correction, side, turns, seed, shift_u, doubted_from
) -> None:
    """A lattice off over one side, its crossings there in doubt: the correction fits the thin
    printed lines clearly better and puts every crossing within 0.1 u; the right lattice is left as
    it is."""
    photo, truth = warped_sheet(side, turns, seed=seed, tilt=30.0)
    doubt = np.zeros((12, 12))
    doubt[:, doubted_from:] = 2 * grid.DOUBT_U
    dark = grid.line_image(photo)
    zero = np.zeros((12, 12, 2))
    corrected = correction(photo, dark, Crossings(columns_moved(truth, shift_u), zero, doubt))
    assert corrected is not None
    assert worst_error_u(corrected.points, truth) < 0.1
    assert correction(photo, dark, Crossings(truth, zero, doubt)) is None


def test_a_side_pull_the_thin_lines_favour_less_is_kept_when_the_lattice_score_confirms_it() -> (
    None
):
    """Benchmark photo 50100221 (a bowed, folded sheet tilted 36° on gingham): the found lattice
    stretched 1 u over the first five columns. Pulled back, its thin-line score gains only 1.22×
    (under ``FinishTuning.side_pull_gain``) but its lattice score 1.73× and its mountains separate
    better: kept. Left unpulled, the lattice is up to 1.07 u off and 27 cells are read wrong."""
    from vision.load import load_photo
    from vision.reader import locate
    from vision.synth import make_photo
    from vision.train import grid_error_u

    photo = make_photo(50100221)
    located = locate(load_photo(photo.jpeg))
    assert grid_error_u(located.upright.intersections, photo.truth["intersections"]) < 0.4


def test_a_frame_side_outranked_by_longer_lines_is_still_tried_last() -> None:
    """Fresh photo 51400183 (a clear, nearly blank side-B sheet, tilted and curled, two fingers on
    its header): the frame's outline merges with the fingers and the paper's edge into one contour,
    so only the long-segment source can outline it, and the frame's left side, detected along three
    quarters of its length, is the 7th longest vertical line (the coin track's and the season boxes'
    sides are longer). Its late quads (``SearchTuning.segment_lines_late``), tried when nothing else
    passes, find it 0.03 u off; without them the photo gets "no map grid found"."""
    from vision.load import load_photo
    from vision.reader import locate
    from vision.synth import make_photo
    from vision.train import grid_error_u

    photo = make_photo(51400183)
    loaded = load_photo(photo.jpeg)
    located = locate(loaded)
    assert located.orientation.side == "B"
    assert (
        grid_error_u(located.upright.intersections * loaded.scale, photo.truth["intersections"])
        < 0.1
    )


def columns_moved(truth: np.ndarray, shift_u: np.ndarray) -> np.ndarray:
    """The true crossings with each of the 12 columns moved ``shift_u`` units to the right on the
    sheet."""
    moved = grid.ideal_intersections()
    moved[..., 0] += shift_u[None, :]
    hom = grid.homography_from_intersections(truth)
    return cv2.perspectiveTransform(moved.reshape(1, -1, 2), hom)[0].reshape(12, 12, 2)


def worst_error_u(pts: np.ndarray, truth: np.ndarray) -> float:
    """The largest distance of ``pts`` from the true crossings, in cells."""
    cell_px = np.median(np.linalg.norm(np.diff(truth, axis=1), axis=2))
    return float((np.linalg.norm(pts - truth, axis=2) / cell_px).max())


# ---- the rescue's bounded work ------------------------------------------------------------------
def test_rescue_refines_only_the_most_promising_failed_candidates(monkeypatch) -> None:
    """Among many failed candidates (lattices of another pitch over the sheet and the table) the one
    pulled 0.3 u off by strokes is among the few the rescue refines again, and it is rescued; the
    others are never refined (a no-grid photo's time is bounded by
    ``RescueTuning.max_lattices``)."""
    photo, truth, hom = marker_sheet(seed=7)
    zero = np.zeros((12, 12, 2))
    off_hom, off_pts = _moved(hom, np.array([0.3, -0.25]))
    rejected = []
    for scale in (0.55, 0.7, 0.85):
        for tx in (0.5, 2.5, 4.5):
            for ty in (-1.5, 1.5, 3.5):
                wrong = hom @ np.array([[scale, 0, tx], [0, scale, ty], [0, 0, 1.0]])
                pts = cv2.perspectiveTransform(grid.ideal_intersections().reshape(1, -1, 2), wrong)[
                    0
                ]
                rejected.append(FailedLattice(wrong, pts.reshape(12, 12, 2), zero, False))
    rejected.insert(17, FailedLattice(off_hom, off_pts, zero, False))
    refined = []
    refine = rescue.refine_coarse_to_fine
    monkeypatch.setattr(
        rescue, "refine_coarse_to_fine", lambda *a, **k: refined.append(1) or refine(*a, **k)
    )
    found = rescue.rescued(photo, rejected, SHIPPED)
    assert 0 < len(refined) <= 2 * SHIPPED.rescue.max_lattices < len(rejected)
    assert found is not None
    pts = lattice_points(found.homography, found.disp).reshape(-1, 2)
    cell = np.linalg.norm(truth[0, 1] - truth[0, 0])
    assert np.linalg.norm(pts.reshape(12, 12, 2) - truth, axis=2).max() / cell < 0.1


def test_fallback_search_refines_at_most_its_best_few_outlines(monkeypatch) -> None:
    """The second and third sources give dozens of outlines; only the
    ``SearchTuning.fallback_refined`` best pre-checked and the ``fallback_by_mountains`` best by
    their mountains are refined, and the sheet is still found from them."""
    photo, truth = warped_sheet("B", 1, seed=11)
    checked = []
    check = search.check_hypotheses
    monkeypatch.setattr(
        search,
        "check_hypotheses",
        lambda *a, **k: checked.append(k.get("strict")) or check(*a, **k),
    )
    fallback = search.Search("fallback outlines", search.FallbackOutlines())
    found = fallback.run(photo, None, (), SHIPPED).found
    budget = SHIPPED.search.fallback_refined + SHIPPED.search.fallback_by_mountains
    assert 0 < len(checked) <= budget
    assert found is not None
    pts = lattice_points(found.homography, found.disp).reshape(-1, 2)
    cell = np.linalg.norm(truth[0, 1] - truth[0, 0])
    errs = [
        np.linalg.norm(np.rot90(pts.reshape(12, 12, 2), k, axes=(0, 1)) - truth, axis=2).max()
        for k in range(4)
    ]
    assert min(errs) / cell < 0.2


# ---- rescue: the candidate re-fitted to the thin lines ---------------------------------------
def test_thin_line_fit_brings_a_skewed_candidate_onto_the_printed_lines() -> None:
    """A candidate shifted, scaled, sheared and tilted (every crossing 0.3–0.7 u off) under thick
    marker strokes: the lines measured in strips put every crossing within a tenth of a cell."""
    photo, truth, hom = marker_sheet(seed=7)
    skew = np.array([[1.015, 0.01, 0.25], [-0.005, 0.985, -0.2], [0.0005, -0.0005, 1.0]])
    cell = np.linalg.norm(truth[0, 1] - truth[0, 0])
    assert np.linalg.norm(lattice_points(hom @ skew) - truth, axis=2).min() / cell > 0.3
    fitted = linefit.thin_line_fit(grid.line_image(photo), hom @ skew, SHIPPED.line_fit)
    assert fitted is not None
    assert np.linalg.norm(lattice_points(fitted) - truth, axis=2).max() / cell < 0.1


def test_thin_line_fit_gives_up_where_no_lattice_of_lines_is() -> None:
    """A candidate over the bare table (no lines) keeps too few of its strip measurements."""
    photo, truth, hom = marker_sheet(seed=7)
    table = np.full_like(photo, 90)
    table = cv2.add(table, np.random.default_rng(3).integers(0, 40, photo.shape, dtype=np.uint8))
    assert linefit.thin_line_fit(grid.line_image(table), hom, SHIPPED.line_fit) is None


def test_rescue_does_not_refine_a_candidate_that_shows_no_lines(monkeypatch) -> None:
    """Over a bare table neither the candidate nor its strip fit shows thin lines (under
    ``RescueTuning.refine_from``), so the rescue skips the costly refinement (most of a no-sheet
    photo's time); on the sheet, the same placement 0.3 u off is still refined or re-fitted and
    rescued."""
    photo, truth, hom = marker_sheet(seed=7)
    table = cv2.add(
        np.full_like(photo, 90),
        np.random.default_rng(3).integers(0, 40, photo.shape, dtype=np.uint8),
    )
    zero = np.zeros((12, 12, 2))
    off_hom, off_pts = _moved(hom, np.array([0.3, -0.25]))
    refined = []
    refine = rescue.refine_coarse_to_fine
    monkeypatch.setattr(
        rescue, "refine_coarse_to_fine", lambda *a, **k: refined.append(1) or refine(*a, **k)
    )
    assert rescue.rescued(table, [FailedLattice(off_hom, off_pts, zero, False)], SHIPPED) is None
    assert refined == []
    off = FailedLattice(off_hom, off_pts, zero, False)
    assert rescue.rescued(photo, [off], SHIPPED) is not None


# ---- the user's sheet, not the one lying beside it ----------------------------------------------
def _lattice_candidate(
    origin: tuple[float, float],
    cell: float,
    score: float,
    separation: float,
    shape: tuple[int, int],
) -> candidates.Candidate:
    """An upright lattice of ``cell`` px cells from ``origin`` (px), as a passing candidate in a
    photo of ``shape``."""
    pts = grid.ideal_intersections() * cell + np.array(origin)
    return candidates.Candidate(
        np.eye(3),
        np.zeros((12, 12, 2)),
        score,
        separation,
        area_corners(pts),
        profiles.share_inside(pts, shape),
    )


def test_a_sheet_cut_off_by_the_photo_edge_ranks_by_what_shows() -> None:
    """A clear sheet lying half beyond the left edge is larger than the user's as extrapolated, but
    its crossings out there can be neither checked nor read: the user's, whole in the photo,
    outranks it."""
    shape = (1000, 1400)
    user = _lattice_candidate((500, 300), 40.0, score=1.5, separation=0.3, shape=shape)
    cut_off = _lattice_candidate((-400, 200), 50.0, score=2.5, separation=0.5, shape=shape)
    assert cut_off.area > 1.5 * user.area and cut_off.inside < 0.3
    assert candidates.choose([cut_off, user]) is user
    whole = _lattice_candidate((850, 200), 50.0, score=2.5, separation=0.5, shape=shape)
    assert (
        candidates.choose([whole, user]) is whole
    )  # whole in the photo, the larger sheet still wins


def test_a_blank_sheet_beside_it_does_not_hide_the_users_marker_filled_sheet() -> None:
    """The user's sheet full of thick marker symbols fails the usual lattice check; a smaller blank
    sheet lying beside it passes. The failed lattice, much larger and apart from it, is given the
    thin-line rescue and outranks it."""
    photo, truth, _ = marker_sheet(seed=7)
    rng = np.random.default_rng(2)
    blank = render_sheet("B", px_per_u=14, rng=rng)
    h, w = blank.image.shape[:2]
    wide = np.concatenate([photo, np.repeat(photo[:, -1:], w + 60, axis=1)], axis=1)
    y0, x0 = (wide.shape[0] - h) // 2, photo.shape[1] + 30
    region = wide[y0 : y0 + h, x0 : x0 + w]
    region[:] = np.where(blank.alpha[..., None] > 127, blank.image, region)
    frame_only = search.GRID_PASSES[:1]
    assert search.find_lattice(wide, SHIPPED, frame_only) is not None  # the blank sheet passes …
    found = search.find_lattice(wide, SHIPPED)  # … but the user's is found
    assert found is not None
    pts = lattice_points(found.homography, found.disp)
    cell = np.linalg.norm(truth[0, 1] - truth[0, 0])
    errs = [np.linalg.norm(np.rot90(pts, k, axes=(0, 1)) - truth, axis=2).max() for k in range(4)]
    assert min(errs) / cell < 0.2


# ---- re-anchoring on a third of the sheet ------------------------------------------------------
def test_a_lattice_slid_off_over_most_of_the_sheet_is_reanchored_on_its_few_sure_crossings() -> (
    None
):
    """Columns 3-11 slid progressively off (1.2 u at the last: onto a cloth's stripes beyond the
    frame), only the 36 crossings of columns 0-2 sure: too few for the usual re-anchoring
    (``MIN_SURE``), enough for the second tier, which brings every crossing within 0.1 u."""
    photo, truth = warped_sheet("A", 1, seed=3, tilt=30.0)
    slid = columns_moved(truth, 1.2 * np.clip((np.arange(12) - 2) / 9, 0, None))
    doubt = np.full((12, 12), 2 * grid.DOUBT_U)
    doubt[:, :3] = 0.0
    tuning = SHIPPED.finish
    assert finish.sure_tiers(doubt, tuning) == [[], list(tuning.sure_u)]
    dark = grid.line_image(photo)

    def found_score() -> float:
        return profiles.lattice_score(dark, slid)

    now = Crossings(slid, np.zeros((12, 12, 2)), doubt)
    reanchored = finish.reanchored(photo, dark, now, tuning.sure_u[0], found_score, tuning)
    assert reanchored is not None
    assert worst_error_u(reanchored.points, truth) < 0.1
    assert reanchored.doubted < now.doubted
    one_tier = FinishTuning(min_sure_few=tuning.min_sure)  # no second tier: the lattice stays off
    assert finish.reanchored(photo, dark, now, tuning.sure_u[0], found_score, one_tier) is None


def test_the_likeness_rescue_takes_a_faint_lattice_on_alike_mountains_never_one_a_cell_off():
    """A refused lattice in place, its lines faint (a veil over the sheet), passes on its five
    alike mountains; the same lattice a cell off, or from a fallback outline (strict), does not."""
    photo, truth = warped_sheet("B", 1, seed=3, tilt=20.0)
    veiled = (0.35 * photo + 0.65 * 235).astype(np.uint8)  # faint lines, pale mountains
    hom = grid.homography_from_intersections(truth)
    zero = np.zeros((12, 12, 2))
    assert profiles.likeness_margin_at(veiled, truth) >= SHIPPED.accept.likeness_carries
    found = rescue.likeness_rescued(veiled, [FailedLattice(hom, truth, zero, False)], SHIPPED)
    assert found is not None
    pts = lattice_points(found.homography, found.disp).reshape(12, 12, 2)
    assert np.abs(pts - truth).max() < 1e-3
    assert rescue.likeness_rescued(veiled, [FailedLattice(hom, truth, zero, True)], SHIPPED) is None
    off = cv2.perspectiveTransform(
        (grid.ideal_intersections() + [1.0, 0.0]).reshape(1, -1, 2), hom
    )[0].reshape(12, 12, 2)
    off_hom = grid.homography_from_intersections(off)
    assert profiles.likeness_margin_at(veiled, off) < SHIPPED.accept.likeness_carries
    assert (
        rescue.likeness_rescued(veiled, [FailedLattice(off_hom, off, zero, False)], SHIPPED) is None
    )


def test_the_outline_rescue_takes_an_outline_its_refinement_lost_never_one_a_cell_off() -> None:
    """An outline on the sheet whose refinement slid half a cell onto the drawn symbols is taken
    as it was, on its clearly separated mountains; an outline a cell off is not, nor one without
    an outline to fall back on."""
    photo, truth = warped_sheet("A", 2, seed=5, tilt=30.0)
    hom = grid.homography_from_intersections(truth)
    zero = np.zeros((12, 12, 2))
    slid_hom, slid = _moved(hom, np.array([0.5, 0.4]))
    assert profiles.mountain_separation(photo, truth) >= SHIPPED.accept.outline_mountains
    lost = FailedLattice(slid_hom, slid, zero, False, outline=hom)
    found = rescue.outline_rescued(photo, [lost], SHIPPED)
    assert found is not None
    pts = lattice_points(found.homography, found.disp).reshape(12, 12, 2)
    assert np.abs(pts - truth).max() < 1e-3
    assert (
        rescue.outline_rescued(photo, [FailedLattice(slid_hom, slid, zero, False)], SHIPPED) is None
    )
    for by in ([1, 0], [0, -1]):
        off_hom, off = _moved(hom, np.array(by, float))
        assert profiles.mountain_separation(photo, off) < SHIPPED.accept.outline_mountains
        off_lattice = FailedLattice(off_hom, off, zero, False, outline=off_hom)
        assert rescue.outline_rescued(photo, [off_lattice], SHIPPED) is None


def test_the_outline_rescue_then_the_unbridged_outlines_run_last_only_when_nothing_was_found():
    *_, rescue_pass, last = search.GRID_PASSES
    assert isinstance(rescue_pass, search.LastResort)
    assert rescue_pass.judge is rescue.outline_rescued
    assert isinstance(last, search.Search) and last.candidates is search.unbridged_frame_outlines
    placed = _candidate(np.array([[0, 0], [10, 0], [10, 10], [0, 10]], float), 2.0, 0.5)
    for late in (rescue_pass, last):
        assert late.wanted(np.zeros((10, 10, 3), np.uint8), None, SHIPPED)
        assert not late.wanted(np.zeros((10, 10, 3), np.uint8), placed, SHIPPED)


def test_unbridged_outlines_find_a_thin_frame_beside_printing_close_to_it() -> None:
    """A thin frame line with a dark strip printed 2 px outside it along one side (a coin track):
    the undilated mask, at its one threshold, outlines the frame alone."""
    gray = np.full((400, 400), 230, np.uint8)
    cv2.rectangle(gray, (100, 100), (300, 300), 60, 1)
    cv2.rectangle(gray, (40, 303), (360, 330), 60, -1)  # the strip, 2 px below the frame

    def off_frame(quad: np.ndarray) -> float:  # px, its corners in any order of turn
        square = np.array([[100, 100], [300, 100], [300, 300], [100, 300]], float)
        corners = quad.reshape(4, 2).astype(float)
        return min(
            min(np.linalg.norm(np.roll(c, k, 0) - square, axis=1).max() for k in range(4))
            for c in (corners, corners[::-1])
        )

    assert len(list(quads_module._dark_contours(gray, bridged=False))) == 1  # one threshold
    assert min(map(off_frame, quads_module.quad_candidates(gray, bridged=False))) < 4


def test_an_unrefined_outline_stays_as_it_was_when_the_finish_slides_off_its_mountains() -> None:
    """The finish snaps onto lines; where it slid the lattice half a cell (onto drawn symbols) the
    mountains no longer sit on whole cells, so the outline is kept, every crossing in doubt; a
    finish that kept them is taken."""
    photo, truth = warped_sheet("B", 1, seed=9, tilt=30.0)
    hom = grid.homography_from_intersections(truth)
    outline = candidates.Candidate(hom, np.zeros((12, 12, 2)), 0.0, 0.5, area_corners(truth))
    outline.refined = False
    slid_hom, slid = _moved(hom, np.array([0.5, 0.45]))
    slid_fit = grid.GridFit(slid, slid_hom, 0.0, 0.0)
    kept = grid._unrefined_if_better(photo, outline, slid_fit)
    assert np.abs(kept.intersections - truth).max() < 1e-3
    assert (kept.crossing_doubt == grid.UNREFINED_DOUBT_U).all()
    assert grid.UNREFINED_DOUBT_U > grid.DOUBT_U  # so the reader flags what it is unsure of there
    good_fit = grid.GridFit(truth, hom, 1.5, 0.01)
    assert grid._unrefined_if_better(photo, outline, good_fit) is good_fit


def test_a_lattice_a_cell_off_whose_mountains_say_nothing_moves_onto_alike_mountains(
    monkeypatch,
) -> None:
    """Line-art mountains on white are no darker than the paper (separation 0), so a clear
    lattice a cell off passes the checks; the five mountains look alike only on the right
    lattice, which the fit moves to. A fit in place stays as it is."""
    photo, truth = warped_sheet("A", 0, seed=11, tilt=20.0)
    monkeypatch.setattr(grid, "mountain_separation", lambda image, pts: 0.0)
    hom = grid.homography_from_intersections(truth)
    cell = np.linalg.norm(truth[0, 1] - truth[0, 0])
    for by in ([1.0, 0.0], [-1.0, 1.0]):
        off_hom, off = _moved(hom, np.array(by))
        moved = grid._onto_alike_mountains(photo, grid.GridFit(off, off_hom, 3.0, 0.0), SHIPPED)
        assert np.linalg.norm(moved.intersections - truth, axis=2).max() / cell < 0.15, by
    in_place = grid.GridFit(truth, hom, 3.0, 0.0)
    assert grid._onto_alike_mountains(photo, in_place, SHIPPED) is in_place


def test_by_mountains_ranks_the_outline_on_the_sheet_first() -> None:
    """Among outlines a cell or more off and the true one, the true one's five mountains stand
    out most clearly, so it is the one ``by_mountains`` picks; a bar above every outline's
    separation picks none."""
    photo, truth = warped_sheet("A", 0, seed=5)
    view = search.SearchImage.of(photo, 1000)
    true_h = cv2.findHomography(
        grid.ideal_intersections().reshape(-1, 2), truth.reshape(-1, 2) * view.shrink
    )[0]
    offsets = [(1, 0), (0, 1), (-1, 0), (2, 1), (0, -2)]
    wrong = [true_h @ np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1.0]]) for dx, dy in offsets]
    sources = [search.Source([h]) for h in wrong[:2] + [true_h] + wrong[2:]]
    picked = search.by_mountains(view, sources, 1, 0.03)
    assert len(picked) == 1 and picked[0] is sources[2]
    assert search.by_mountains(view, sources, 3, 10.0) == []
    assert search.by_mountains(view, sources, 0, 0.03) == []


# ---- printer-friendly borders, faint lines, a placement a cell over ----------------------------
def _solid_lattice(px: int = 40, border: str = "line") -> tuple[np.ndarray, np.ndarray]:
    """A printer-friendly-like sheet: solid cell lines, 3 u of bare margin and a ``border``: a
    single line, or a second line 0.2 u outside it ("band"); and its u → image homography."""
    h = np.array([[px, 0, 3.0 * px], [0, px, 3.0 * px], [0, 0, 1]], float)
    img = np.full((17 * px, 17 * px), 225, np.uint8)
    for g in range(12):
        at = int((3 + g) * px)
        cv2.line(img, (at, 3 * px), (at, 14 * px), 70, 2)
        cv2.line(img, (3 * px, at), (14 * px, at), 70, 2)
    if border == "band":
        lo, hi = int(2.8 * px), int(14.2 * px)
        cv2.rectangle(img, (lo, lo), (hi, hi), 70, 2)
    return img, h


@pytest.mark.parametrize("border", ["line", "band"])
def test_frame_snap_keeps_a_single_border_line_where_no_band_is_printed(border: str) -> None:
    """With no second line a band's width outside the border, the best "pair" is the border and
    the paper beside it; the ring must still snap onto the border, not a band's width inside."""
    img, h = _solid_lattice(border=border)
    prior = np.zeros((12, 12, 2))
    prior[:, 0, 0] = prior[0, :, 1] = 0.1  # the ring placed a little inside, on all four sides
    prior[:, -1, 0] = prior[-1, :, 1] = -0.1
    snaps = snap.snap_crossings(img, h, 32, prior, 0.15).snapped
    assert np.abs(snaps[:, [0, -1], 0]).max() < 0.06
    assert np.abs(snaps[[0, -1], :, 1]).max() < 0.06


def test_snaps_peaking_at_the_end_of_their_search_have_no_strength_when_asked() -> None:
    """A crossing with no line within its search, only the slope of a blurred marker stroke beyond
    it: its profile is highest at the search's end. Counted, it pulls the field the whole search
    width; with ``peaks_only`` it has no say, while snaps on lines keep theirs."""
    img, h = _solid_lattice()
    stroke = (int(8.7 * 40), int(8.85 * 40))  # 5.7–5.85 u, beside crossing (5, 5)
    cv2.rectangle(img, (stroke[0], stroke[0]), (stroke[1], stroke[1]), 20, -1)
    img = cv2.GaussianBlur(img, (0, 0), 3)
    prior = np.zeros((12, 12, 2))
    prior[5, 5] = (0.35, 0.35)  # crossing (5, 5) looked for 0.05–0.65 u off its lines…
    every = snap.snap_crossings(img, h, 32, prior, 0.3, ring=False)
    peaks = snap.snap_crossings(img, h, 32, prior, 0.3, ring=False, peaks_only=True)
    assert (every.strength[5, 5] > 0).all()  # …where only the stroke's slope shows
    assert (peaks.strength[5, 5] == 0).all()
    on_lines = np.ones((12, 12), bool)
    on_lines[5, 5] = False
    assert np.array_equal(every.strength[on_lines], peaks.strength[on_lines])


def test_frame_shown_refuses_a_placement_a_cell_over() -> None:
    """On solid lines a lattice one cell over lies on lines everywhere but on one side, which lies
    on the bare margin beyond the border."""
    img, h = _solid_lattice()
    assert profiles.frame_shown(img, h)
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        over = h @ np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1]], float)
        assert not profiles.frame_shown(img, over), (dx, dy)


def _page_framed_lattice(px: int = 40) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_solid_lattice` inside a page frame 1.1 u outside the grid on every side, as the
    printer-friendly sheet's frame runs: a lattice a cell over lies on lines everywhere."""
    img, h = _solid_lattice(px)
    lo, hi = int(1.9 * px), int(15.1 * px)
    cv2.rectangle(img, (lo, lo), (hi, hi), 70, 2)
    return img, h


def test_strips_beyond_the_grid_are_crossed_by_no_line_even_inside_a_page_frame() -> None:
    img, h = _page_framed_lattice()
    strips = profiles.crossed_strips(img, h)  # columns, rows: strips −2 … 12
    inner = strips[:, profiles.STRIPS_BEYOND : profiles.STRIPS_BEYOND + 11]
    beyond = np.delete(strips, np.s_[profiles.STRIPS_BEYOND : profiles.STRIPS_BEYOND + 11], axis=1)
    assert inner.min() > 0.8 and beyond.max() < 0.1
    over = profiles.crossed_strips(img, h @ finish.cells_away(0, 1))  # a column over
    assert over[0, profiles.STRIPS_BEYOND + 10] < 0.1  # its last column is the margin …
    assert over[0, profiles.STRIPS_BEYOND - 1] > 0.8  # … and the grid's first lies beyond it


@pytest.mark.parametrize("rows, cols", [(0, 1), (0, -1), (1, 0), (-1, 0), (1, -1)])
def test_a_lattice_a_cell_over_inside_a_page_frame_moves_onto_the_grid(
    rows: int, cols: int
) -> None:
    """Its edge line on the page frame passes every line check; the strip of margin inside it,
    crossed by no line, and the grid's crossed strip beyond its other edge move it back."""
    img, h = _page_framed_lattice()
    truth = lattice_points(h)
    off_hom = h @ finish.cells_away(rows, cols)
    off = grid.GridFit(lattice_points(off_hom), off_hom, 3.0, 0.0)
    moved = grid._onto_crossed_strips(img, off, SHIPPED)
    assert np.linalg.norm(moved.intersections - truth, axis=2).max() < 0.1 * 40
    in_place = grid.GridFit(truth, h, 3.0, 0.0)
    assert grid._onto_crossed_strips(img, in_place, SHIPPED) is in_place


@pytest.mark.parametrize(
    "strips, move",
    [
        ([0.1, 0.1] + [1.0] * 11 + [0.1, 0.1], 0),  # in place
        ([0.1, 0.9] + [1.0] * 10 + [0.05] + [0.1, 0.1], -1),  # last column margin, grid before
        ([0.1, 0.1, 0.05] + [1.0] * 10 + [0.9, 0.1], 1),
        ([0.9, 0.9] + [1.0] * 9 + [0.05, 0.05] + [0.1, 0.1], -2),  # two columns of margin
        ([0.1, 0.1, 0.05] + [1.0] * 10 + [0.3, 0.1], 0),  # beyond: too faint to take in
        ([0.1, 0.1] + [1.0] * 5 + [0.05] + [1.0] * 5 + [0.9, 0.9], 0),  # an empty strip mid-grid
    ],
)
def test_edge_move_takes_in_only_clearly_crossed_strips(strips: list[float], move: int) -> None:
    assert grid._edge_move(np.array(strips), SHIPPED) == move


def test_choose_prefers_a_placement_on_the_frame_among_one_sheets() -> None:
    square = np.array([[100, 100], [430, 100], [430, 430], [100, 430]])
    framed = _candidate(square, score=4.2, separation=0.0)
    over = _candidate(square + 30, score=4.5, separation=0.0)
    over.framed = False
    assert candidates.choose([over, framed]) is framed
    alone = _candidate(square, score=4.5, separation=0.0)
    alone.framed = False
    assert candidates.choose([alone]) is alone  # no framed placement: the best one still


def test_a_faint_refinement_that_walked_off_is_dropped_a_clear_one_kept(monkeypatch) -> None:
    """The refinement is checked against the hypothesis as found only when its own lines are
    faint; a clear refinement is kept even where the unrefined outline scores higher."""
    small = np.zeros((100, 100, 3), np.uint8)
    hom = np.eye(3)
    walked = snap.Placed(np.diag([1.1, 1.1, 1.0]), np.ones((12, 12, 2)), np.full((12, 12, 2), 0.3))
    monkeypatch.setattr(candidates, "refine_coarse_to_fine", lambda darkest, h: walked)
    monkeypatch.setattr(candidates, "mountain_separation", lambda image, pts: 0.6)
    monkeypatch.setattr(candidates, "frame_shown", lambda darkest, h: True)
    tuning = SHIPPED.accept
    for refined_score, kept in ((0.5, hom), (1.6, walked.homography)):
        scores = {True: refined_score, False: 3.0}  # the walked-off points, then the outline's
        monkeypatch.setattr(
            candidates,
            "lattice_score",
            lambda darkest, pts, scores=scores: scores[bool((pts == 1).all())],
        )
        checked = candidates.check_hypotheses(small, small[..., 0], [hom], tuning)
        assert [c.homography is kept for c in checked.passing] == [True], refined_score
