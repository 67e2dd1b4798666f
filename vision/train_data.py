"""The training photos: which ones to make, and each one's cell and coin samples.

Photos come from :func:`vision.synth.make_photo` with training seeds only (the benchmark uses a
disjoint seed range, :mod:`vision.bench`), a share of them (``art_share``) in printed-art families
other than our look-alike (:mod:`vision.synth.art`). One style family, one background family and
one art family are held out of training so the benchmark can estimate how the reader does on looks
it never saw.
Every training photo gives its cells twice: sampled through the generator's true grid (clean
labels, and photos the finder misses still teach the classifier), and through that grid moved the
way a found grid is off (:func:`jittered_grid`: a smooth displacement up to ``JITTER_MAX_U`` and a
little noise per crossing), so the model also learns the small misplacements it will meet. The
jittered copy teaches as much as a copy through the grid the pipeline finds and saves running the
finder on every photo, a third of a photo's cost, which buys more photos in the same time.
Validation photos go through the real pipeline (find, refine, orient) and are judged on its grid,
as the reader will see them (skipped when the found grid is off by more than
``MAX_TRAIN_GRID_ERROR_U`` or the side is wrong, so labels always match the pixels they describe).
"""

from __future__ import annotations

import time
from dataclasses import replace
from multiprocessing import get_context
from typing import NamedTuple

import numpy as np

from scoring.sheet import Sheet
from vision.classify import CELL_CLASSES
from vision.coins import coin_training_features
from vision.features import cell_features, paper_ring
from vision.grid import PX, GridFit, cell_side_px, homography_from_intersections, sample_cells
from vision.layout import GEOMETRY, GRID
from vision.load import PhotoError, load_photo
from vision.reader import locate
from vision.train_config import TrainConfig

TRAIN_SEED_BASE = 1_000_000  # training photo seeds: TRAIN_SEED_BASE + 10_000·seed + i
MAX_TRAIN_GRID_ERROR_U = 0.3
JITTER_MAX_U = (
    0.15  # the largest smooth misplacement of a jittered copy: found grids are mostly within 0.1 u
)
JITTER_NOISE_U = 0.015  # and each crossing's own snap noise


def truth_sheet(truth: dict) -> Sheet:
    """The sheet a synthetic photo shows, from its truth (a Sheet or its public JSON): the
    generator's sheet with its coins capped at the printed track's 14. A simulated game can earn
    more (docs/rules.md, "Coin track": counts above 14 are not capped by the engine), but a
    photo shows only what the track holds, so the reader is judged against that."""
    sheet = truth["sheet"]
    sheet = sheet if isinstance(sheet, Sheet) else Sheet.from_json(sheet)
    return replace(sheet, coins=min(sheet.coins, GEOMETRY.coin_count))


def allowed_styles(cfg: TrainConfig) -> list[str]:
    """Styles outside the held-out family."""
    from vision.synth import STYLE_FAMILIES

    return [
        s
        for fam, styles in STYLE_FAMILIES.items()
        if fam != cfg.holdout_style_family
        for s in styles
    ]


def grid_error_u(read_intersections: np.ndarray, truth_intersections: np.ndarray) -> float:
    """Largest distance between read and true crossings, in cell units (median cell size)."""
    read = np.asarray(read_intersections, float)
    true = np.asarray(truth_intersections, float)
    return float(np.linalg.norm(read - true, axis=2).max() / cell_side_px(true))


def allowed_backgrounds(cfg: TrainConfig) -> list[str]:
    """Backgrounds outside the held-out family."""
    from vision.synth import BACKGROUND_FAMILIES

    return [
        b
        for fam, names in BACKGROUND_FAMILIES.items()
        if fam != cfg.holdout_background_family
        for b in names
    ]


def _cell_samples(
    image: np.ndarray, fit: GridFit, cells_bgr: np.ndarray, sheet: Sheet
) -> tuple[np.ndarray, np.ndarray, object]:
    """Features and labels of the drawable cells of one rectified cell area (``fit`` upright in
    ``image``), and its paper model."""
    feats, paper = cell_features(cells_bgr, sheet.side, PX, paper_ring(image, fit.intersections))
    where = sheet.layout.drawable  # the reader's order: the context stage relates neighbours by it
    labels = np.array([CELL_CLASSES.index(sheet.cells[r][c]) for r, c in where])
    return feats[[r * GRID + c for r, c in where]], labels, paper


def jittered_grid(true_pts: np.ndarray, rng: np.random.Generator) -> GridFit:
    """The true crossings (12 × 12 × 2, photo px) moved the way a found grid is off: a smooth
    bilinear displacement of up to ``JITTER_MAX_U`` (a corner pulled by curl, a slightly wrong
    scale) plus ``JITTER_NOISE_U`` of noise per crossing.

    >>> pts = np.stack(np.meshgrid(np.arange(12.0), np.arange(12.0)), axis=-1) * 40
    >>> moved = jittered_grid(pts, np.random.default_rng(0)).intersections
    >>> bool(0 < np.abs(moved - pts).max() / 40 < JITTER_MAX_U + 5 * JITTER_NOISE_U)
    True
    """
    cell = cell_side_px(true_pts)
    u, v = np.meshgrid(np.linspace(-1, 1, GRID + 1), np.linspace(-1, 1, GRID + 1))
    size = rng.uniform(0.0, JITTER_MAX_U)
    shift = np.zeros_like(true_pts)
    for axis in range(2):
        a = rng.normal(0, 1, 4)
        field = a[0] + a[1] * u + a[2] * v + a[3] * u * v
        shift[..., axis] = field / (np.abs(field).max() + 1e-9) * size * rng.uniform(0.3, 1.0)
    pts = true_pts + (shift + rng.normal(0, JITTER_NOISE_U, shift.shape)) * cell
    return GridFit(pts, homography_from_intersections(pts), 0.0, 0.0)


class PhotoJob(NamedTuple):
    """One training photo to make: its seed, look, size and glare (0: none)."""

    seed: int
    style: str
    background: str
    megapixels: float
    glare: float
    # photos of the one drawn sheet (vision.synth.photo.retake); validation photos use the first
    takes: int = 1
    art: str = "lookalike"  # the printed-art family (vision.synth.art)


def photo_samples(args: tuple[PhotoJob, bool]) -> dict:
    """Generate one training photo; return its cells' features and labels and its coin features,
    plus those of the coin strip under other light (``Xc_relit``, fitted on; validation uses ``Xc``
    only). Cell copies: the true grid's, then the jittered grid's (``validation`` False) or the
    found grid's when the pipeline placed it right (``validation`` True; ``status`` "found"
    then)."""
    import cv2

    cv2.setNumThreads(1)
    from vision.synth import make_photo
    from vision.synth.photo import retake

    job, validation = args
    photo = make_photo(
        job.seed,
        style=job.style,
        background=job.background,
        megapixels=job.megapixels,
        condition={"glare": job.glare} if job.glare else None,
        art_family=job.art,
    )
    if validation:
        return {**_photo_samples(photo, True), "art": job.art}
    takes = [_photo_samples(photo, False)] + [
        _photo_samples(retake(photo, k), False, k) for k in range(1, job.takes)
    ]
    out = takes[0]
    for more in takes[
        1:
    ]:  # one record per drawn sheet, so a sheet's photos stay on one side of every split
        out["copies"] += more["copies"]
        for key in ("Xc", "yc", "Xc_relit"):
            out[key] = np.concatenate([out[key], more[key]])
    return {**out, "art": job.art}


def _photo_samples(photo, validation: bool, take: int = 0) -> dict:
    """:func:`photo_samples` of one photo (``take``: which
    retake of its drawing, for the jitter's draws)."""
    truth = photo.truth
    photo_seed = truth["seed"]
    sheet = truth_sheet(truth)
    loaded = load_photo(photo.jpeg)
    true_pts = np.asarray(truth["intersections"], float) / loaded.scale
    true_fit = GridFit(true_pts, homography_from_intersections(true_pts), 0.0, 0.0)
    copies = [_cell_samples(loaded.image, true_fit, sample_cells(loaded.image, true_fit), sheet)]
    coin_fit, paper = true_fit, copies[0][2]
    if not validation:
        moved = jittered_grid(true_pts, _take_rng(photo_seed, take, 1))
        copies.append(_cell_samples(loaded.image, moved, sample_cells(loaded.image, moved), sheet))
        return _samples(
            photo_seed, "jittered", copies, loaded, moved, copies[1][2], truth, sheet, take
        )  # coins: as found
    status = "found"
    try:
        located = locate(loaded)
        err = grid_error_u(located.upright.intersections * loaded.scale, truth["intersections"])
        if located.orientation.side != sheet.side or err > MAX_TRAIN_GRID_ERROR_U:
            status = "grid or orientation wrong"
        else:
            copies.append(_cell_samples(loaded.image, located.upright, located.cells, sheet))
            coin_fit, paper = located.upright, copies[1][2]
    except PhotoError as e:
        status = e.code
    return _samples(photo_seed, status, copies, loaded, coin_fit, paper, truth, sheet)


def _take_rng(photo_seed: int, take: int, *stream: int) -> np.random.Generator:
    """The draws of one of a photo's streams; a retake (``take`` ≥ 1) gets its own, the first take
    the photo's as before retakes existed."""
    return np.random.default_rng([photo_seed, *stream] + [take] * (take > 0))


def _samples(
    photo_seed: int,
    status: str,
    copies: list,
    loaded,
    coin_fit: GridFit,
    paper,
    truth: dict,
    sheet: Sheet,
    take: int = 0,
) -> dict:
    """One photo's training record: its cell copies and its coin features (see
    :func:`photo_samples`)."""
    coin_feats, relit = coin_training_features(
        loaded.image, coin_fit, paper, sheet.side, _take_rng(photo_seed, take)
    )
    coin_labels = (np.arange(len(coin_feats)) < int(truth.get("coins", sheet.coins))).astype(int)
    return {
        "seed": photo_seed,
        "status": status,
        "copies": [(x, y) for x, y, _ in copies],
        "Xc": coin_feats,
        "yc": coin_labels,
        "Xc_relit": relit,
    }


def training_jobs(cfg: TrainConfig) -> list[PhotoJob]:
    """Every training photo: styles and backgrounds outside the held-out families, each drawn
    uniformly; ``cfg.glare_share`` of them with glare (drawn apart, so the rest does not change)."""
    from vision.synth.art import ART_FAMILIES
    from vision.synth.conditions import GLARE_RANGE  # the generator's own glare strengths

    rng, glare_rng = np.random.default_rng(cfg.seed), np.random.default_rng([cfg.seed, 1])
    art_rng = np.random.default_rng([cfg.seed, 2])
    styles, backgrounds = allowed_styles(cfg), allowed_backgrounds(cfg)
    other_art = [f for f in ART_FAMILIES if f not in ("lookalike", cfg.holdout_art_family)]
    jobs = []
    for i in range(cfg.photos):
        style, background = (
            styles[int(rng.integers(len(styles)))],
            backgrounds[int(rng.integers(len(backgrounds)))],
        )
        megapixels = float(rng.uniform(1.0, cfg.max_megapixels))
        glare = (
            round(float(glare_rng.uniform(*GLARE_RANGE)), 3)
            if glare_rng.random() < cfg.glare_share
            else 0.0
        )
        art = (
            str(art_rng.choice(other_art))
            if other_art and art_rng.random() < cfg.art_share
            else "lookalike"
        )
        jobs.append(
            PhotoJob(
                TRAIN_SEED_BASE + 10_000 * cfg.seed + i,
                style,
                background,
                megapixels,
                glare,
                cfg.takes,
                art,
            )
        )
    return jobs


def training_samples(cfg: TrainConfig, n_val: int, log=print, start: float = 0.0) -> list[dict]:
    """Every training photo's record (:func:`photo_samples`; the first ``n_val`` jobs are
    validation photos), made on ``cfg.workers`` processes, in the order they finish; progress is
    logged with the seconds since ``start``."""
    jobs = [(job, k < n_val) for k, job in enumerate(training_jobs(cfg))]
    results = []
    with get_context("spawn").Pool(cfg.workers) as pool:
        for k, res in enumerate(pool.imap_unordered(photo_samples, jobs, chunksize=4)):
            results.append(res)
            if (k + 1) % 100 == 0:
                log(f"  {k + 1}/{len(jobs)} photos ({time.time() - start:.0f} s)")
    return results
