"""Training the reader's classifiers from scratch on synthetic photos (``cartographers train``).

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
15 % of the photos (by seed) are kept aside to calibrate the low-confidence threshold and to
report validation figures; those go through the real pipeline (find, refine, orient) and are judged
on its grid, as the reader will see them (skipped when the found grid is off by more than
``MAX_TRAIN_GRID_ERROR_U`` or the side is wrong, so labels always match the pixels they describe).

Fitting (:func:`fit_cells`): the training photos are split in two halves by seed and two shape
networks are fitted on each (different random starts); the reader averages the four. A tree model
is fitted on each half too (:func:`fit_trees`). The sheet-context stage (:func:`fit_context`) is
then fitted on each half as read by the other half's networks and trees; with two context rounds,
the second reads each half through the other half's first round.
"""

from __future__ import annotations

import time
import warnings
from collections import Counter
from dataclasses import asdict, dataclass, replace
from multiprocessing import get_context
from pathlib import Path
from typing import NamedTuple

import numpy as np

from scoring.sheet import Sheet
from vision.classify import (
    CELL_CLASSES,
    META_FILE,
    MODEL_FILE,
    ReaderModel,
    context_inputs,
    context_scale,
    full_proba,
    mix_context,
    save_model,
    second_round_inputs,
    sheet_side,
)
from vision.coins import coin_training_features
from vision.features import CELL_FEATURE_NAMES, cell_features, paper_ring
from vision.grid import PX, GridFit, cell_side_px, homography_from_intersections, sample_cells
from vision.inference import export
from vision.layout import GEOMETRY, GRID
from vision.load import PhotoError, load_photo
from vision.reader import locate

TRAIN_SEED_BASE = 1_000_000  # training photo seeds: TRAIN_SEED_BASE + 10_000·seed + i
MAX_TRAIN_GRID_ERROR_U = 0.3
JITTER_MAX_U = (
    0.15  # the largest smooth misplacement of a jittered copy: found grids are mostly within 0.1 u
)
JITTER_NOISE_U = 0.015  # and each crossing's own snap noise
FLAG_ERRORS_SHARE = 0.97  # the threshold flags this share of validation errors


@dataclass
class TrainConfig:
    """How the shipped model is made (recorded in models/reader.json)."""

    seed: int = 1
    photos: int = 2600  # the most that fit the time budget; accuracy still grows with each doubling
    holdout_style_family: str = (
        "marker"  # kept out, so the benchmark measures an unseen marking style
    )
    holdout_background_family: str = "cloth"  # and an unseen table
    # Printed-art families (vision.synth.art): this share of the photos shows a family other than
    # our look-alike, drawn uniformly among those not held out. 0 as shipped: a full run at 0.5 read
    # other printings' cells better but the publisher's printer-friendly coins far worse
    # (docs/reader.md, "Other printings")
    art_share: float = 0.0
    holdout_art_family: str = "woodcut"  # kept out, so the benchmark measures an unseen printing
    max_megapixels: float = (
        2.5  # features are taken on the rectified sheet; bigger photos add time only
    )
    # Photos given a lamp's glare. Off: glare comes with the held-out marker family only, and
    # training on it read glare cells better but whole sheets worse on the benchmark
    glare_share: float = 0.0
    # Photos of each drawn sheet (later ones are retakes under new light). 1: a second take cost 1.8
    # × the network time for a small gain
    takes: int = 1
    validation_share: float = (
        0.15  # photos kept aside to calibrate the flag threshold and report figures
    )
    max_iter: int = 300  # coin boosting
    context_max_iter: int = (
        150  # sheet-context boosting (more iterations read no better and doubled the file)
    )
    # 2: a second context round reading the first round's neighbours; no gain beyond random-start
    # spread for a 25 % bigger file
    context_rounds: int = 1
    nearby_paper: bool = True  # the context stage compares each cell with the empty paper around it
    sheet_look: bool = True  # and reads the sheet's own look (the spread of its cells' colours)
    learning_rate: float = 0.08
    max_leaf_nodes: int = 31
    hidden_layers: tuple[int, ...] = (
        512,
        256,
    )  # wider layers read barely better for twice the file and time
    alpha: float = 1e-3
    epochs: int = (
        40  # fixed: the rows of one photo are alike, so a random early-stopping split would leak
    )
    # shape networks, alternating between the two halves of the photos, each its own random start
    networks: int = 4
    # Trees beside the networks (fit_trees; 0: none), one per half, read by the context stage: they
    # err on other cells than the networks, and the context stage learns when to believe which
    tree_iterations: int = 200
    tree_leaves: int = 31
    tree_learning_rate: float = 0.1
    workers: int = 2


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
        return _photo_samples(photo, True)
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
    return out


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


def single_thread():
    """A context with OpenMP limited to one thread: OpenMP barriers crawl on a shared,
    oversubscribed 2-core machine, and a hundred-row prediction costs ~1 ms per tree in thread
    start-up otherwise.

    threadpoolctl limits only the libraries already loaded, so scikit-learn's OpenMP runtime is
    loaded first: in a fresh worker process that has not fitted anything yet, the tree models' fit
    would otherwise run as many threads as cores in each of the two workers (two threads per tree
    worker on two cores: the trees' fit took over 48 minutes instead of about 20).
    """
    from sklearn.ensemble import HistGradientBoostingClassifier  # noqa: F401  (loads the OpenMP runtime it limits)
    from threadpoolctl import threadpool_limits

    return threadpool_limits(1)


def _fit(
    X: np.ndarray,
    y: np.ndarray,
    cfg: TrainConfig,
    max_leaf_nodes: int | None = None,
    max_iter: int | None = None,
    learning_rate: float | None = None,
    early_stopping: bool = True,
):
    """A HistGradientBoostingClassifier with the configured size (the coin model, the sheet-context
    stage, the cell trees)."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(
        max_iter=max_iter or cfg.max_iter,
        learning_rate=learning_rate or cfg.learning_rate,
        max_leaf_nodes=max_leaf_nodes or cfg.max_leaf_nodes,
        l2_regularization=1.0,
        early_stopping=early_stopping,
        validation_fraction=0.1,
        n_iter_no_change=20,
        random_state=cfg.seed,
    ).fit(X, y)


def _shape_network(X: np.ndarray, y: np.ndarray, cfg: TrainConfig, seed: int):
    """A standardised MLP over the cell features, fitted in single precision and kept in half
    precision: its probabilities move by 0.001 at most (same dev accuracy), and four (512, 256)
    networks take 2 MB of the model file instead of 8."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    net = MLPClassifier(
        hidden_layer_sizes=cfg.hidden_layers,
        alpha=cfg.alpha,
        batch_size=512,
        learning_rate_init=1e-3,
        max_iter=cfg.epochs,
        early_stopping=False,
        n_iter_no_change=cfg.epochs,
        tol=0.0,
        random_state=seed,
    )
    with (
        warnings.catch_warnings()
    ):  # a fixed number of epochs is the plan, not a failure to converge
        warnings.simplefilter("ignore", ConvergenceWarning)
        pipe = make_pipeline(StandardScaler(), net).fit(
            np.asarray(X, dtype=np.float32), y
        )  # no copy when already so
    net.coefs_ = [w.astype(np.float16) for w in net.coefs_]
    net.intercepts_ = [b.astype(np.float16) for b in net.intercepts_]
    return pipe


def _half_networks(
    job: tuple[np.ndarray, np.ndarray, TrainConfig, list[int]],
) -> list[tuple[int, object, float]]:
    """Fit networks ``ks`` on one half's rows: (k, network, seconds) for each."""
    X, y, cfg, ks = job
    out = []
    with single_thread():
        for k in ks:
            t0 = time.time()
            out.append((k, _shape_network(X, y, cfg, cfg.seed + k), time.time() - t0))
    return out


def half_rows(photos: list[dict], h: int) -> tuple[np.ndarray, np.ndarray]:
    """The cell features (float32) and labels of every
    copy of the photos of half ``h`` (seed % 2)."""
    half = [x for p in photos if p["seed"] % 2 == h for x in p["copies"]]
    return np.concatenate([x for x, _ in half]).astype(np.float32), np.concatenate(
        [y for _, y in half]
    )


def fit_cells(photos: list[dict], cfg: TrainConfig, log=print) -> list:
    """``cfg.networks`` shape networks: network k is fitted on half k % 2 of the photos (split by
    seed) from its own random start, each half's networks in their own process. Different data and
    starts make them disagree where the looks are unfamiliar; their mean is more accurate than any
    one (dev photos: 2 networks on halves 98.33 %, 4 networks 98.45 %, 4 on quarters 98.09 %, 2 on
    all photos 98.21 %)."""
    # each half's rows gathered once, for all of its networks
    jobs = [(*half_rows(photos, h), cfg, list(range(h, cfg.networks, 2))) for h in (0, 1)]
    nets: list = [None] * cfg.networks
    with get_context("spawn").Pool(min(cfg.workers, len(jobs))) as pool:
        for fitted in pool.imap_unordered(_half_networks, jobs):
            for k, net, seconds in fitted:
                nets[k] = net
                log(
                    f"  shape network {k + 1}/{cfg.networks}: {net[-1].n_iter_} epochs, "
                    f"{seconds:.0f} s"
                )
    return nets


def _half_tree(job: tuple[np.ndarray, np.ndarray, TrainConfig, int]) -> tuple[int, object, float]:
    """Fit the tree model of half ``h`` on its rows: (h, model, seconds)."""
    X, y, cfg, h = job
    t0 = time.time()
    with (
        single_thread()
    ):  # no early stopping: a random validation split of rows would leak (a photo's rows are alike)
        trees = _fit(
            X,
            y,
            cfg,
            max_leaf_nodes=cfg.tree_leaves,
            max_iter=cfg.tree_iterations,
            learning_rate=cfg.tree_learning_rate,
            early_stopping=False,
        )
    return h, trees, time.time() - t0


def fit_trees(photos: list[dict], cfg: TrainConfig, log=print) -> list:
    """Tree models beside the networks: tree model h is a HistGradientBoostingClassifier over the
    cell features of half h of the photos (split by seed, as :func:`fit_cells`), each half in its
    own process. They read cells less well than the networks (1 905 wrong cells on 1 368 photos, the
    networks 1 285) but on other cells, which the context stage uses. [] when
    ``cfg.tree_iterations`` is 0."""
    if cfg.tree_iterations <= 0:
        return []
    jobs = [(*half_rows(photos, h), cfg, h) for h in (0, 1)]
    trees: list = [None, None]
    with get_context("spawn").Pool(min(cfg.workers, len(jobs))) as pool:
        for h, model, seconds in pool.imap_unordered(_half_tree, jobs):
            trees[h] = model
            log(f"  trees {h + 1}/2: {model.n_iter_} iterations, {seconds:.0f} s")
    return trees


def fit_context(
    photos: list[dict], nets: list, cfg: TrainConfig, log=print, trees: list = ()
) -> tuple[object | None, np.ndarray | None, list]:
    """The sheet-context stage (vision.classify.context_inputs), its colour scale and, with
    ``cfg.context_rounds`` = 2, its first round: all fitted on what the networks (and the trees,
    when given: one per half) say about photos they were not fitted on (each half's photos read by
    the other half's networks and trees), so it learns how far to trust them on unfamiliar sheets.
    The first round is fitted on each half apart, and the second round reads each half through the
    other half's first round, for the same reason. (None, None, []) without two halves of
    networks."""
    if len(nets) < 2:
        return None, None, []
    sheets = [(p["seed"] % 2, x, y) for p in photos for x, y in p["copies"]]
    scale = context_scale(np.concatenate([x for _, x, _ in sheets]))
    other = {h: [n for k, n in enumerate(nets) if k % 2 != h] for h in (0, 1)}
    t0 = time.time()
    networks = [np.mean([full_proba(n, x) for n in other[h]], axis=0) for h, x, _ in sheets]
    rows = [
        context_inputs(
            x,
            p,
            scale,
            cfg.nearby_paper,
            cfg.sheet_look,
            full_proba(trees[1 - h], x) if trees else None,
        )
        for (h, x, _), p in zip(sheets, networks)
    ]
    labels = np.concatenate([y for _, _, y in sheets])
    fit = lambda X, y: _fit(X, y, cfg, max_leaf_nodes=15, max_iter=cfg.context_max_iter)
    first = []
    if cfg.context_rounds == 2:
        first = [
            fit(
                np.concatenate([r for (h, _, _), r in zip(sheets, rows) if h == half]),
                np.concatenate([y for h, _, y in sheets if h == half]),
            )
            for half in (0, 1)
        ]
        log(
            f"  sheet context, first round: {[c.n_iter_ for c in first]} iterations, "
            f"{time.time() - t0:.0f} s"
        )
        rows = [
            second_round_inputs(r, mix_context(p, full_proba(first[1 - h], r)), sheet_side(x))
            for (h, x, _), r, p in zip(sheets, rows, networks)
        ]
    context = fit(np.concatenate(rows), labels)
    log(f"  sheet context: {context.n_iter_} iterations, {time.time() - t0:.0f} s")
    return context, scale, first


def low_confidence_threshold(
    confidence: np.ndarray, correct: np.ndarray, share: float = FLAG_ERRORS_SHARE
) -> float:
    """Smallest threshold below which ``share`` of the wrong answers' confidences fall."""
    wrong = np.sort(confidence[~correct])
    if len(wrong) == 0:
        return 0.9
    return float(min(0.9999, np.quantile(wrong, share) + 1e-7))


def training_jobs(cfg: TrainConfig) -> list[PhotoJob]:
    """Every training photo: styles and backgrounds outside the held-out families, each drawn
    uniformly; ``cfg.glare_share`` of them with glare (drawn apart, so the rest does not change)."""
    from vision.synth.art import ART_FAMILIES
    from vision.synth.photo import GLARE_RANGE  # the generator's own glare strengths

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


def train_command(cfg: TrainConfig) -> str:
    """The ``cartographers train`` command that makes this configuration (options only where they
    differ from the defaults the command line offers).

    >>> train_command(TrainConfig(seed=3))
    'cartographers train --seed 3'
    >>> train_command(TrainConfig(photos=40, holdout_art_family="none"))
    'cartographers train --seed 1 --photos 40 --holdout-art-family none'
    """
    d = TrainConfig()
    if {k: getattr(cfg, k) for k in QUICK} == QUICK:
        return f"cartographers train --quick --seed {cfg.seed}"
    words = ["cartographers", "train", "--seed", str(cfg.seed)]
    for name in (
        "photos",
        "holdout_style_family",
        "holdout_background_family",
        "holdout_art_family",
        "art_share",
    ):
        if getattr(cfg, name) != getattr(d, name):
            words += [f"--{name.replace('_', '-')}", str(getattr(cfg, name))]
    return " ".join(words)


def train(cfg: TrainConfig, log=print) -> ReaderModel:
    """Generate, extract, fit, calibrate; return the model (not yet saved)."""
    start = time.time()
    n_val = max(
        1, int(cfg.photos * cfg.validation_share)
    )  # the lowest seeds: only they meet the finder
    jobs = [(job, k < n_val) for k, job in enumerate(training_jobs(cfg))]
    results = []
    with get_context("spawn").Pool(cfg.workers) as pool:
        for k, res in enumerate(pool.imap_unordered(photo_samples, jobs, chunksize=4)):
            results.append(res)
            if (k + 1) % 100 == 0:
                log(f"  {k + 1}/{len(jobs)} photos ({time.time() - start:.0f} s)")
    status = dict(Counter(r["status"] for r in results))
    results.sort(key=lambda r: r["seed"])
    val, fit_set = results[:n_val], results[n_val:]
    n_cells = sum(len(y) for r in fit_set for _, y in r["copies"])
    log(
        f"fitting on {len(fit_set)} photos ({n_cells} cells, true-grid and jittered-grid copies); "
        f"{n_val} for validation; grid status {status}"
    )
    with single_thread():  # OpenMP barriers crawl on a shared, oversubscribed machine
        shape = fit_cells(fit_set, cfg, log)
        trees = fit_trees(fit_set, cfg, log)
        context, scale, first_context = fit_context(fit_set, shape, cfg, log, trees)
        coins = _fit(
            np.concatenate([x for r in fit_set for x in (r["Xc"], r["Xc_relit"])]),
            np.concatenate([r["yc"] for r in fit_set for _ in range(2)]),
            cfg,
        )
    # Validated as shipped: the numpy export the reader runs
    # (vision.inference), checked against each estimator.
    model = ReaderModel(
        shape=[export(n) for n in shape],
        coins=export(coins),
        context=None if context is None else export(context),
        context_scale=scale,
        first_context=[export(c) for c in first_context],
        nearby_paper=cfg.nearby_paper,
        sheet_look=cfg.sheet_look,
        trees=[export(t) for t in trees],
    )
    validation, threshold = validate(model, val)
    model.meta = {
        "command": train_command(cfg),
        "config": asdict(cfg),
        "feature_names": CELL_FEATURE_NAMES,
        "classes": [t.value for t in CELL_CLASSES],
        "low_confidence_below": threshold,
        "training": {
            "photos_generated": len(results),
            "photos_fitted": len(fit_set),
            "validation_photos": n_val,
            "grid_status": status,
            "cells": int(n_cells),
            "seconds": round(time.time() - start, 1),
            "shape_epochs": [int(n[-1].n_iter_) for n in shape],  # the fitted pipelines
            "coin_iterations": int(coins.n_iter_),
            "context_iterations": int(context.n_iter_) if context is not None else 0,
            "first_context_iterations": [int(c.n_iter_) for c in first_context],
            "tree_iterations": [int(t.n_iter_) for t in trees],
            "seed_range": [
                TRAIN_SEED_BASE + 10_000 * cfg.seed,
                TRAIN_SEED_BASE + 10_000 * cfg.seed + cfg.photos,
            ],
        },
        "validation": validation,
    }
    log(f"validation: {model.meta['validation']}, threshold {threshold:.4f}")
    return model


def validate(model: ReaderModel, val: list[dict]) -> tuple[dict, float]:
    """Validation figures on the photos kept aside (their found-grid copies, one sheet at a time,
    as the reader sees them) and the low-confidence threshold calibrated on them."""
    found_val = [r for r in val if r["status"] == "found"]
    proba = np.concatenate([model.cell_probabilities(r["copies"][1][0]) for r in found_val])
    networks = np.concatenate([model.network_probabilities(r["copies"][1][0]) for r in found_val])
    y_val = np.concatenate([r["copies"][1][1] for r in found_val])
    conf = proba.max(axis=1)
    correct = proba.argmax(axis=1) == y_val
    threshold = low_confidence_threshold(conf, correct)
    coin_proba = model.coin_probabilities(np.concatenate([r["Xc"] for r in val]))
    return {
        "cell_accuracy": round(float(correct.mean()), 5),
        "cell_accuracy_networks_only": round(float((networks.argmax(axis=1) == y_val).mean()), 5),
        "cells_flagged_share": round(float((conf < threshold).mean()), 4),
        "errors_flagged_share": round(
            float((conf[~correct] < threshold).mean()) if (~correct).any() else 1.0, 4
        ),
        "coin_accuracy": round(
            float(((coin_proba > 0.5) == np.concatenate([r["yc"] for r in val])).mean()), 5
        ),
    }, threshold


#: The quick recipe (``cartographers train --quick``): every stage of the full one — generating, the
#: jittered copies, networks, trees, the context stage, coins, validation, the saved file — on a few
#: small photos, in about a minute. Its model reads badly; it is for checking the recipe runs.
QUICK = {
    "photos": 24,
    "max_megapixels": 1.0,
    "epochs": 3,
    "max_iter": 10,
    "context_max_iter": 10,
    "tree_iterations": 4,
    "hidden_layers": (32, 16),
    "networks": 2,
    "art_share": 0.5,
}


def quick_config(cfg: TrainConfig) -> TrainConfig:
    """``cfg`` cut down to the quick recipe (:data:`QUICK`).

    >>> quick_config(TrainConfig(seed=4)).photos, quick_config(TrainConfig(seed=4)).seed
    (24, 4)
    """
    return replace(cfg, **QUICK)


def train_and_save(
    cfg: TrainConfig, log=print, model_file: Path = MODEL_FILE, meta_file: Path = META_FILE
) -> ReaderModel:
    """Train and write the model (by default models/reader.npz + models/reader.json)."""
    model = train(cfg, log)
    save_model(model, model_file, meta_file)
    return model
