"""The coin track: curl-following placement, snapping to the print, per-coin evidence, and the track
as the witness of which way up side A lies."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from scoring.sheet import Sheet
from scoring.sides import SIDES
from vision import coins
from vision.grid import GridFit, homography_from_intersections
from vision.layout import GEOMETRY
from vision.synth import draw_sheet, make_photo

PX_PER_U = 40
COIN_U = np.array([GEOMETRY.coin_centre(i) for i in range(GEOMETRY.coin_count)])


def bent(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Sheet u, v → photo px: a tilted view of paper that
    curls away below y ≈ 6 (more with every row)."""
    drop = (
        0.012 * np.clip(v - 6.0, 0, None) ** 2
    )  # u of extra displacement, growing towards the track
    x = 80 + 41 * u + 3 * v + 25 * drop * (u - 5.5) / 5.5
    y = 60 + 2 * u + 40 * v + 40 * drop
    return np.stack([x, y], axis=-1)


def crossings(fn) -> np.ndarray:
    j, i = np.meshgrid(np.arange(12.0), np.arange(12.0))
    return fn(j, i)


def test_curl_model_follows_a_bend_the_homography_misses():
    pts = crossings(bent)
    truth = bent(COIN_U[:, 0], COIN_U[:, 1])
    h = homography_from_intersections(pts)
    p = np.c_[COIN_U, np.ones(len(COIN_U))] @ h.T
    homography_err = np.linalg.norm(p[:, :2] / p[:, 2:] - truth, axis=1).max() / 40
    curl_err = (
        np.linalg.norm(coins._curl_model(pts)(COIN_U[:, 0], COIN_U[:, 1]) - truth, axis=1).max()
        / 40
    )
    assert (
        homography_err > 0.15
    )  # the case is a real one: the homography misses by most of a coin radius
    assert (
        curl_err < 0.5 * homography_err
    )  # a straight-line extrapolation (robust to noisy found grids)
    assert curl_err < 0.1  # …and refine_track snaps the rest


def flat_sheet(side: str, marked: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A flat render with the first ``marked`` coins marked in graphite, and its true crossings."""
    rng = np.random.default_rng(seed)
    sheet = dataclasses.replace(Sheet.blank(side), coins=marked)
    drawn = draw_sheet(sheet, "graphite-symbols", rng, px_per_u=PX_PER_U, extras=False)
    j, i = np.meshgrid(np.arange(12.0), np.arange(12.0))
    x, y = drawn.rendered.to_px(j.ravel(), i.ravel())
    return drawn.image, np.stack([x, y], axis=-1).reshape(12, 12, 2).astype(np.float64)


def features(image: np.ndarray, pts: np.ndarray) -> np.ndarray:
    fit = GridFit(pts, homography_from_intersections(pts), 0.0, 0.0)
    return coins.appearance_features(coins.coin_strip(image, fit), coins.COIN_PX)


@pytest.fixture(scope="module")
def marked_sheet():
    return flat_sheet("A", 5, 11)


def test_refine_snaps_an_offset_track_back_onto_the_print(marked_sheet):
    image, pts = marked_sheet
    exact = coins._curl_model(pts)
    # a found grid whose bottom rows sit on the frame
    # line: the track guess lands ~0.3 u low, 0.15 u right
    off = lambda u, v: exact(np.asarray(u) + 0.15, np.asarray(v) + 0.3)  # noqa: E731
    truth = exact(COIN_U[:, 0], COIN_U[:, 1])
    before = np.linalg.norm(off(COIN_U[:, 0], COIN_U[:, 1]) - truth, axis=1).max() / PX_PER_U
    refined = coins.refine_track(image, off)
    after = np.linalg.norm(refined(COIN_U[:, 0], COIN_U[:, 1]) - truth, axis=1).max() / PX_PER_U
    assert before > 0.3
    assert after < 0.04


def test_coin_features_see_where_the_marks_stop(marked_sheet):
    image, pts = marked_sheet
    strip = coins.coin_strip(image, GridFit(pts, homography_from_intersections(pts), 0.0, 0.0))
    assert strip.shape == (int(round(0.9 * coins.COIN_PX)), int(round(10.5 * coins.COIN_PX)), 3)
    f = features(image, pts)
    names = coins.APPEARANCE_FEATURE_NAMES
    assert f.shape == (GEOMETRY.coin_count, len(names))
    assert np.isfinite(f).all()
    assert f[0, names.index("split_k")] == 5
    diff = f[:, names.index("diff_last_coins")]
    assert (
        diff[:5].min() > 2 * diff[5:].max()
    )  # marked coins differ from the unmarked end of the track


def test_coin_features_of_a_blank_track_stay_small():
    names = coins.APPEARANCE_FEATURE_NAMES
    blank = features(*flat_sheet("B", 0, 4))[:, names.index("diff_last_coins")]
    marked = features(*flat_sheet("B", 3, 4))[:, names.index("diff_last_coins")]
    assert blank.max() < marked[:3].min()  # blank coins all look alike; marked ones do not


@pytest.mark.parametrize("seed", [50_000_041, 50_000_042])
def test_the_coin_track_tells_a_half_turn_of_side_a(seed: int) -> None:
    """Side A's mountains are the same upside down; the printed track below the grid is not."""
    from vision.load import load_photo
    from vision.reader import read_photo

    photo = make_photo(
        seed, side="A", megapixels=2.0, condition={"glare": 0.0, "second_sheet": False}
    )
    loaded = load_photo(photo.jpeg)
    pts = np.asarray(photo.truth["intersections"], float) / loaded.scale
    upright = GridFit(pts, homography_from_intersections(pts), 0.0, 0.0)
    right = coins.track_match(loaded.image, upright)
    turned = coins.track_match(loaded.image, upright.rotated(2))
    assert right > 0.4 and right > turned + 0.2
    reading = read_photo(photo.jpeg)
    assert reading.side == "A" and not reading.orientation["upside_down_doubt"]
    assert not any("upside down" in w for w in reading.warnings)


def test_the_track_is_matched_along_the_homography_when_the_bottom_row_is_off() -> None:
    """A bottom row of crossings found half a cell off throws the curl extrapolated from it further
    off 1.4 u below, where the track is; matched along the grid's homography alone the track
    still shows."""
    from vision.load import load_photo

    photo = make_photo(
        50_000_044, side="B", megapixels=2.0, condition={"glare": 0.0, "second_sheet": False}
    )
    loaded = load_photo(photo.jpeg)
    pts = np.asarray(photo.truth["intersections"], float) / loaded.scale
    bent = pts.copy()
    bent[-1] += 0.5 * (pts[-1] - pts[-2])  # the bottom line found 0.5 u too low
    fit = GridFit(bent, homography_from_intersections(bent), 0.0, 0.0)
    curl = coins.track_match(loaded.image, fit)
    plain = coins.track_match(loaded.image, fit, follow_curl=False)
    assert plain > curl + 0.1


def all_features(image: np.ndarray, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    fit = GridFit(pts, homography_from_intersections(pts), 0.0, 0.0)
    strip = coins.coin_strip(image, fit)
    return strip, coins.coin_features(strip, coins.COIN_PX)


def test_coin_features_extend_the_appearance_features(marked_sheet):
    image, pts = marked_sheet
    _, f2 = all_features(image, pts)
    assert f2.shape == (GEOMETRY.coin_count, len(coins.COIN_FEATURE_NAMES))
    n_mountain = len(coins.MOUNTAIN_FEATURE_NAMES)
    assert np.isfinite(f2[:, :-n_mountain]).all()
    assert np.isnan(
        f2[:, -n_mountain:]
    ).all()  # a strip alone has no mountain coins: missing, not made up
    # the first columns are the appearance features, unchanged
    np.testing.assert_array_equal(
        f2[:, : len(coins.APPEARANCE_FEATURE_NAMES)], features(image, pts)
    )


def test_style_free_evidence_tells_marked_coins_from_the_print(marked_sheet):
    names = coins.COIN_FEATURE_NAMES
    _, f = all_features(*marked_sheet)  # first 5 coins marked
    ring = f[:, names.index("ring_match")]
    lines = f[:, names.index("extra_lines-unmarked_z")]
    assert (
        ring[:5].max() < ring[5:].min() - 0.2
    )  # marks cover or cross the printed rim and inner ring
    assert lines[:5].min() > 3 * max(1.0, np.abs(lines[5:]).max())
    _, blank = all_features(*flat_sheet("B", 0, 4))
    assert (
        np.abs(blank[:, names.index("extra_lines-unmarked_z")]).max() < 3
    )  # a blank track looks like the print


def test_style_free_evidence_ignores_a_veil_of_glare_and_says_how_much_is_left(marked_sheet):
    names = coins.COIN_FEATURE_NAMES
    strip, f = all_features(*marked_sheet)
    veiled = strip.astype(np.float32)
    half = veiled.shape[1] // 2
    veiled[:, half:] = veiled[:, half:] * 0.55 + 110  # glare over the second half of the track
    fv = coins.coin_features(np.clip(veiled, 0, 255).astype(np.uint8), coins.COIN_PX)
    for name in ("dark_disc", "extra_lines", "ring_match"):
        np.testing.assert_allclose(fv[:, names.index(name)], f[:, names.index(name)], atol=0.03)
    rel, rel_v = coins.coin_reliability(f), coins.coin_reliability(fv)
    assert rel.min() > 0.95 and rel_v[:6].min() > 0.95
    assert rel_v[8:].max() < 0.85  # the veiled coins show less


def test_a_washed_out_stretch_does_not_vote_on_the_count():
    p = np.array([0.95] * 6 + [0.03] * 8)
    w = np.ones(14)
    middle = p.copy()
    middle[2:4] = 0.02  # coins 2–3 washed out by glare: they look empty
    w[2:4] = 0.0
    assert coins.count_from_probabilities(middle).count == 2
    assert coins.count_from_probabilities(middle, w).count == 6  # the coins around them decide
    end = p.copy()
    end[4:6] = 0.02  # the last two marks washed out: 4, 5 and 6 all fit what can be seen
    w = np.ones(14)
    w[4:6] = 0.0
    assert (
        coins.count_from_probabilities(end, temperature=1.0).confidence > 0.9
    )  # confidently wrong without the weights
    assert (
        coins.count_from_probabilities(end, w, temperature=1.0).confidence < 0.5
    )  # flagged with them
    np.testing.assert_allclose(
        coins.count_from_probabilities(p, np.ones(14)).confidence,
        coins.count_from_probabilities(p).confidence,
    )


def test_tempered_count_keeps_the_count_and_doubts_more():
    rng = np.random.default_rng(3)
    for _ in range(50):
        p = np.clip(np.r_[rng.uniform(0.3, 1, 7), rng.uniform(0, 0.7, 7)], 0, 1)
        full, tempered = (
            coins.count_from_probabilities(p, temperature=1.0),
            coins.count_from_probabilities(p),
        )
        assert tempered.count == full.count
        assert tempered.confidence <= full.confidence + 1e-12
    one_doubt = np.array([0.95] * 5 + [0.15] + [0.03] * 8)  # coin 5 a little unsure
    assert coins.count_from_probabilities(one_doubt, temperature=1.0).confidence > 0.8
    assert coins.count_from_probabilities(one_doubt).confidence < 0.8  # flagged once tempered


def test_relit_strip_changes_the_light_not_the_track(marked_sheet):
    image, pts = marked_sheet
    strip = coins.coin_strip(image, GridFit(pts, homography_from_intersections(pts), 0.0, 0.0))
    relit = [coins.relight_strip(strip, np.random.default_rng(s)) for s in range(12)]
    np.testing.assert_array_equal(
        relit[0], coins.relight_strip(strip, np.random.default_rng(0))
    )  # same seed, same copy
    assert all(r.shape == strip.shape and r.dtype == np.uint8 for r in relit)
    # the light changes along the track (a slope, a shadow edge or a glare band), not only overall
    w = strip.shape[1] // 4
    ratio = lambda a: a[:, :w].mean() / max(a[:, -w:].mean(), 1.0)  # noqa: E731
    assert max(abs(ratio(r) - ratio(strip)) for r in relit) > 0.2
    # the printed rims stay where they are: the style-free evidence still tells the 5 marked coins
    names = coins.COIN_FEATURE_NAMES
    for r in relit[:4]:
        ring = coins.coin_features(r, coins.COIN_PX)[:, names.index("ring_match")]
        assert np.median(ring[:5]) < np.median(ring[5:])


def test_training_features_are_the_reader_s_plus_a_relit_copy(marked_sheet):
    image, pts = marked_sheet
    fit, paper = fit_and_paper(image, pts, "A")
    plain, relit = coins.coin_training_features(image, fit, paper, "A", np.random.default_rng(1))
    np.testing.assert_array_equal(plain, coins.coin_track_features(image, fit, paper, "A"))
    assert relit.shape == plain.shape and np.isfinite(relit).all()
    assert not np.allclose(relit, plain)


def fit_and_paper(image: np.ndarray, pts: np.ndarray, side: str):
    """The true upright grid of a render and the paper model the reader fits on it."""
    from vision.features import cell_features, paper_ring
    from vision.grid import PX, sample_cells

    fit = GridFit(pts, homography_from_intersections(pts), 0.0, 0.0)
    return fit, cell_features(sample_cells(image, fit), side, PX, paper_ring(image, pts))[1]


def mountain_columns(image: np.ndarray, pts: np.ndarray, side: str) -> dict[str, np.ndarray]:
    f = coins.coin_track_features(image, *fit_and_paper(image, pts, side), side)
    return {n: f[:, coins.COIN_FEATURE_NAMES.index(n)] for n in coins.MOUNTAIN_FEATURE_NAMES}


def test_a_full_track_is_judged_against_the_printed_mountain_coins():
    """A full track has no unmarked coin of its own; the mountain
    cells' printed coins are unmarked on every sheet."""
    empty = mountain_columns(*flat_sheet("A", 0, 7), "A")
    full = mountain_columns(*flat_sheet("A", 14, 7), "A")
    assert (
        np.abs(empty["darkness-mountain_z"]).max() < 3
    )  # blank coins look like the mountain coins
    assert (
        np.median(full["darkness-mountain_z"]) > empty["darkness-mountain_z"].max() + 1
    )  # marked ones are darker…
    assert (
        full["darkness-mountain_z-last3"][0] > empty["darkness-mountain_z-last3"][0] + 2
    )  # …the track's end too
    assert empty["mountain_match"][0] > 0.4 and empty["mountain_radius_px"][0] == pytest.approx(
        0.1 * PX_PER_U, rel=0.05
    )


def test_mountain_coins_shaded_over_change_the_reference():
    """The reference is what the mountain coins look like in
    the photo: shade them and a blank track looks light."""
    image, pts = flat_sheet("B", 0, 5)
    over = np.zeros(image.shape[:2], np.uint8)
    for r, c in SIDES[
        "B"
    ].mountains:  # graphite over each printed mountain coin: darker, its print still showing
        cx, cy = (
            pts[r, c] + (pts[r, c + 1] - pts[r, c]) * 0.8 + (pts[r + 1, c] - pts[r, c]) * 0.2
        )  # flat render
        cv2.circle(over, (int(round(cx)), int(round(cy))), int(0.12 * PX_PER_U), 1, -1)
    shaded = np.where(over[..., None] > 0, image * 0.75, image).astype(np.uint8)
    plain, dark = mountain_columns(image, pts, "B"), mountain_columns(shaded, pts, "B")
    assert np.abs(plain["darkness-mountain_z"]).max() < 3
    assert (
        dark["darkness-mountain_z"].max() < -5
    )  # every blank coin is now far lighter than the reference
    assert dark["darkness-mountain"].max() < plain["darkness-mountain"].min() - 0.1


def test_a_read_of_no_coins_on_a_well_played_sheet_is_doubted():
    empty = coins.count_from_probabilities(np.array([0.005] * 14))
    assert (
        empty.count == 0 and empty.confidence > 0.9
    )  # a full track whose marks the model cannot see reads like this
    late = coins.doubt_empty_track(empty, coins.FULL_TRACK_MIN_DRAWN)
    assert (
        late.count == 0 and late.confidence < 0.8
    )  # late in a game: the warning asks the player to look
    assert (
        coins.doubt_empty_track(empty, coins.FULL_TRACK_MIN_DRAWN - 1) == empty
    )  # early in a game: 0 is likely
    some = coins.count_from_probabilities(np.array([0.99] * 3 + [0.01] * 11))
    assert (
        coins.doubt_empty_track(some, 100) == some
    )  # a track with marks read has an unmarked end to compare with


def test_a_blank_sheet_holds_no_coins():
    phantom = np.array(
        [0.97, 0.87, 0.31] + [0.05] * 11
    )  # a blank sheet whose print looks marked (dev 50700188)
    assert coins.count_from_probabilities(phantom).count == 2
    blank = coins.count_from_probabilities(phantom, most=coins.most_coins(0))
    assert blank.count == 0 and blank.confidence == 1.0  # nothing drawn: nothing earned
    assert coins.count_from_probabilities(phantom, most=1).count == 1
    for p in (
        phantom,
        np.array([0.99] * 9 + [0.01] * 5),
    ):  # a sheet with a drawn cell: the count stays
        assert coins.count_from_probabilities(
            p, most=coins.most_coins(1)
        ) == coins.count_from_probabilities(p)


def test_mountain_reference_of_a_low_resolution_photo_is_finite_and_says_so():
    """At 16 px per cell the mountain coin is 1.6 px across
    in radius: still measured, its size reported."""
    sheet = dataclasses.replace(Sheet.blank("A"), coins=4)
    drawn = draw_sheet(
        sheet, "graphite-symbols", np.random.default_rng(2), px_per_u=16, extras=False
    )
    j, i = np.meshgrid(np.arange(12.0), np.arange(12.0))
    x, y = drawn.rendered.to_px(j.ravel(), i.ravel())
    pts = np.stack([x, y], axis=-1).reshape(12, 12, 2).astype(np.float64)
    cols = mountain_columns(drawn.image, pts, "A")
    assert all(np.isfinite(v).all() for v in cols.values())
    assert cols["mountain_radius_px"][0] == pytest.approx(1.6, rel=0.05)


@pytest.mark.parametrize("side", sorted(SIDES))
def test_every_coin_is_earned_with_a_cell_off_the_ruins(side):
    """``most_coins`` counts drawn cells off the ruins: every placement of every coin shape covers
    such a cell, and every mountain has at least two neighbours that are not ruins."""
    from scoring.decks import EXPLORE_CARDS

    layout = SIDES[side]
    coin_shapes = [o for c in EXPLORE_CARDS for o in c.options if o.coin]
    assert len(coin_shapes) == 4
    for option in coin_shapes:
        for cells in option.orientations:
            for r0 in range(11):
                for c0 in range(11):
                    placed = {(r0 + dr, c0 + dc) for dr, dc in cells}
                    if all(0 <= r < 11 and 0 <= c < 11 for r, c in placed):
                        assert placed - layout.ruins, (option.text, placed)
    for r, c in layout.mountains:
        around = {(r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)}
        assert len(around - layout.ruins) >= 2


def test_marks_only_on_the_ruins_hold_no_coin():
    """Ruins glyphs read as drawn (an unfamiliar printing) leave an empty track at 0 coins."""
    looks_marked = np.array([0.96, 0.99, 0.99, 0.95, 0.9] + [0.9] * 7 + [0.2, 0.0])
    assert coins.count_from_probabilities(looks_marked).count == 12
    only_ruins = coins.count_from_probabilities(looks_marked, most=coins.most_coins(0))
    assert only_ruins.count == 0 and only_ruins.confidence == 1.0
    assert coins.count_from_probabilities(looks_marked, most=coins.most_coins(1)).count == 12


def test_a_track_that_only_half_looks_marked_reads_empty():
    """The filled odds' discount: coins the model finds only a little more marked than not (another
    printing's unmarked coins) no longer count, while clearly marked coins still do."""
    uncertain = np.full(14, 0.65)
    assert coins.count_from_probabilities(uncertain).count == 14
    assert coins.count_from_probabilities(coins.discount_filled(uncertain)).count == 0
    marked = np.array([0.99] * 6 + [0.02] * 8)
    assert coins.count_from_probabilities(coins.discount_filled(marked)).count == 6


def strip_of(image: np.ndarray, pts: np.ndarray) -> np.ndarray:
    return coins.coin_strip(image, GridFit(pts, homography_from_intersections(pts), 0.0, 0.0))


@pytest.mark.parametrize("marked", [1, 5, 9])
def test_the_track_steps_where_the_marks_stop(marked: int) -> None:
    step = coins.step_evidence(strip_of(*flat_sheet("B", marked, 20 + marked)), coins.COIN_PX)
    assert step.shape == (GEOMETRY.coin_count + 1,)
    assert step[0] == step[-1] == 0.0  # an empty or a full track makes no step
    assert int(np.argmax(step)) == marked
    assert step[marked] - np.partition(step, -2)[-2] > 1.0  # e times likelier than the next


def test_one_unmarked_coin_left_makes_the_likeliest_split_but_a_weak_step() -> None:
    step = coins.step_evidence(strip_of(*flat_sheet("B", 13, 33)), coins.COIN_PX)
    assert int(np.argmax(step[1:-1])) + 1 == 13  # of the splits, the right one …
    price = coins.step_price(GEOMETRY.coin_count, len(coins.STEP_DESCRIPTOR_NAMES))
    assert step[13] > -0.5 * coins.STEP_WEIGHT * price  # … and not far from none


def test_a_blank_track_makes_no_step_worth_a_coin() -> None:
    blank = coins.step_evidence(strip_of(*flat_sheet("A", 0, 7)), coins.COIN_PX)
    marked = coins.step_evidence(strip_of(*flat_sheet("A", 6, 7)), coins.COIN_PX)
    assert blank.max() < 0.1 * marked.max()


def test_light_falling_off_along_the_track_is_not_a_step() -> None:
    looks = np.zeros((GEOMETRY.coin_count, len(coins.STEP_DESCRIPTOR_NAMES)))
    ramp = looks.copy()
    ramp[:, 0] = np.linspace(0, 6, GEOMETRY.coin_count)  # the coins' L* drifts by 6 end to end…
    step = looks.copy()
    step[:6, 0] = 6.0  # …or jumps by 6 after coin 6
    assert int(np.argmax(coins.step_log_likelihood(step))) == 6
    assert coins.step_log_likelihood(ramp).max() < 0.5 * coins.step_log_likelihood(step).max()


def test_alike_coins_with_noise_seldom_pay_for_a_step() -> None:
    """Without the step's price the best split of 14 noisy alike coins always gains a little;
    with it, most such tracks make no step at all (measured: 16 % of 200 still do)."""
    looks = len(coins.STEP_DESCRIPTOR_NAMES)
    tracks = [
        np.random.default_rng(seed).normal(0.0, 3.0, (GEOMETRY.coin_count, looks))
        for seed in range(100)
    ]
    price = coins.step_price(GEOMETRY.coin_count, looks)
    gains = [coins.step_log_likelihood(t) for t in tracks]
    assert all((g[1:-1] + price).max() > 0 for g in gains)  # the split alone would always win
    assert np.mean([g.max() > 0 for g in gains]) < 0.3


def test_the_step_moves_a_count_the_coin_model_is_unsure_of() -> None:
    p = np.array([0.9] * 4 + [0.5] * 4 + [0.1] * 6)  # anywhere from 4 to 8
    step = np.zeros(15)
    step[7] = 3.0
    assert coins.count_from_probabilities(p).count != 7
    assert coins.count_from_probabilities(p, step=step).count == 7
    sure = np.array([0.99] * 3 + [0.01] * 11)
    assert coins.count_from_probabilities(sure, step=step).count == 3  # a sure model stands
