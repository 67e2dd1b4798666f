"""Training the reader's classifiers from scratch on synthetic photos (``cartographers train``).

Photos come from :func:`vision.synth.make_photo` with training seeds only (the benchmark uses a
disjoint seed range, :mod:`vision.bench`). One whole style family and one background family are
held out of training so the benchmark can estimate how the reader does on looks it never saw.
Every training photo goes through the real pipeline (find, refine, orient); photos whose grid is
misplaced by more than ``MAX_TRAIN_GRID_ERROR_U`` or whose side/orientation is wrong are skipped, so
labels always match the pixels they describe. 15 % of the photos (by seed) are kept aside to
calibrate the low-confidence threshold and to report validation figures.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from multiprocessing import get_context

import numpy as np

from scoring.sheet import Sheet
from scoring.terrain import Terrain
from vision.classify import CELL_CLASSES, ReaderModel, save_model, single_thread
from vision.coins import coin_track_features
from vision.features import CELL_FEATURE_NAMES, cell_features
from vision.grid import PX
from vision.layout import GRID
from vision.load import PhotoError, load_photo
from vision.reader import locate

TRAIN_SEED_BASE = 1_000_000  # training photo seeds: TRAIN_SEED_BASE + 10_000·seed + i
MAX_TRAIN_GRID_ERROR_U = 0.3
FLAG_ERRORS_SHARE = 0.97  # the threshold flags this share of validation errors


@dataclass
class TrainConfig:
    """How the shipped model is made (recorded in models/reader.json)."""

    seed: int = 1
    photos: int = 360
    holdout_style_family: str = "marker"
    holdout_background_family: str = "cloth"
    max_megapixels: float = 2.5  # features are taken on the rectified sheet; bigger photos add time only
    validation_share: float = 0.15
    max_iter: int = 300
    learning_rate: float = 0.08
    max_leaf_nodes: int = 31
    workers: int = 2


def truth_sheet(truth: dict) -> Sheet:
    """The true sheet from a synthetic photo's truth (a Sheet or its public JSON)."""
    sheet = truth["sheet"]
    return sheet if isinstance(sheet, Sheet) else Sheet.from_json(sheet)


def allowed_styles(cfg: TrainConfig) -> list[str]:
    """Styles outside the held-out family."""
    from vision.synth import STYLE_FAMILIES

    return [s for fam, styles in STYLE_FAMILIES.items() if fam != cfg.holdout_style_family for s in styles]


def grid_error_u(read_intersections: np.ndarray, truth_intersections: np.ndarray) -> float:
    """Largest distance between read and true crossings, in cell units (median cell size)."""
    read = np.asarray(read_intersections, float)
    true = np.asarray(truth_intersections, float)
    cell = np.median(np.linalg.norm(np.diff(true, axis=1), axis=2))
    return float(np.linalg.norm(read - true, axis=2).max() / cell)


def allowed_backgrounds(cfg: TrainConfig) -> list[str]:
    """Backgrounds outside the held-out family."""
    from vision.synth import BACKGROUND_FAMILIES

    return [b for fam, names in BACKGROUND_FAMILIES.items() if fam != cfg.holdout_background_family for b in names]


def photo_samples(args: tuple[int, str, str, float]) -> dict:
    """Generate one training photo and return its cell and coin features with labels."""
    import cv2

    cv2.setNumThreads(1)
    from vision.synth import make_photo

    photo_seed, style, background, megapixels = args
    photo = make_photo(photo_seed, style=style, background=background, megapixels=megapixels)
    truth = photo.truth
    sheet = truth_sheet(truth)
    loaded = load_photo(photo.jpeg)
    try:
        located = locate(loaded)
    except PhotoError as e:
        return {"seed": photo_seed, "skipped": e.code}
    err = grid_error_u(located.upright.intersections * loaded.scale, truth["intersections"])
    if located.orientation.side != sheet.side or err > MAX_TRAIN_GRID_ERROR_U:
        return {"seed": photo_seed, "skipped": "grid or orientation wrong"}
    feats, paper = cell_features(located.cells, sheet.side, PX)
    index = {t: i for i, t in enumerate(CELL_CLASSES)}
    rows, labels = [], []
    for (r, c), t in sheet.items():
        if t in index:
            rows.append(r * GRID + c)
            labels.append(index[t])
    coin_feats = coin_track_features(loaded.image, located.upright, paper)
    coin_labels = (np.arange(len(coin_feats)) < int(truth.get("coins", sheet.coins))).astype(int)
    return {"seed": photo_seed, "X": feats[rows], "y": np.array(labels), "Xc": coin_feats, "yc": coin_labels,
            "style": style}


def _fit(X: np.ndarray, y: np.ndarray, cfg: TrainConfig):
    """A HistGradientBoostingClassifier with the configured size."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(max_iter=cfg.max_iter, learning_rate=cfg.learning_rate,
                                          max_leaf_nodes=cfg.max_leaf_nodes, l2_regularization=1.0,
                                          early_stopping=True, validation_fraction=0.1, n_iter_no_change=20,
                                          random_state=cfg.seed).fit(X, y)


def low_confidence_threshold(confidence: np.ndarray, correct: np.ndarray, share: float = FLAG_ERRORS_SHARE) -> float:
    """Smallest threshold below which ``share`` of the wrong answers' confidences fall."""
    wrong = np.sort(confidence[~correct])
    if len(wrong) == 0:
        return 0.9
    return float(min(0.999, np.quantile(wrong, share) + 1e-6))


def train(cfg: TrainConfig, log=print) -> ReaderModel:
    """Generate, extract, fit, calibrate; return the model (not yet saved)."""
    start = time.time()
    rng = np.random.default_rng(cfg.seed)
    styles, backgrounds = allowed_styles(cfg), allowed_backgrounds(cfg)
    jobs = [(TRAIN_SEED_BASE + 10_000 * cfg.seed + i, styles[int(rng.integers(len(styles)))],
             backgrounds[int(rng.integers(len(backgrounds)))], float(rng.uniform(1.0, cfg.max_megapixels)))
            for i in range(cfg.photos)]
    results = []
    with get_context("spawn").Pool(cfg.workers) as pool:
        for k, res in enumerate(pool.imap_unordered(photo_samples, jobs, chunksize=4)):
            results.append(res)
            if (k + 1) % 100 == 0:
                log(f"  {k + 1}/{len(jobs)} photos ({time.time() - start:.0f} s)")
    used = [r for r in results if "X" in r]
    skipped: dict[str, int] = {}
    for r in results:
        if "skipped" in r:
            skipped[r["skipped"]] = skipped.get(r["skipped"], 0) + 1
    used.sort(key=lambda r: r["seed"])
    n_val = max(1, int(len(used) * cfg.validation_share))
    val, fit_set = used[:n_val], used[n_val:]
    stack = lambda rs, key: np.concatenate([r[key] for r in rs])  # noqa: E731
    log(f"fitting on {len(fit_set)} photos ({sum(len(r['y']) for r in fit_set)} cells); "
        f"{n_val} for validation; skipped {skipped}")
    with single_thread():  # OpenMP barriers crawl on a shared, oversubscribed machine
        cells = _fit(stack(fit_set, "X"), stack(fit_set, "y"), cfg)
        coins = _fit(stack(fit_set, "Xc"), stack(fit_set, "yc"), cfg)
    model = ReaderModel(cells=cells, coins=coins)
    proba = model.cell_probabilities(stack(val, "X"))
    y_val = stack(val, "y")
    conf = proba.max(axis=1)
    correct = proba.argmax(axis=1) == y_val
    threshold = low_confidence_threshold(conf, correct)
    coin_proba = model.coin_probabilities(stack(val, "Xc"))
    model.meta = {
        "config": asdict(cfg),
        "feature_names": CELL_FEATURE_NAMES,
        "classes": [t.value for t in CELL_CLASSES],
        "low_confidence_below": threshold,
        "training": {"photos_generated": len(results), "photos_used": len(fit_set), "validation_photos": n_val,
                     "skipped": skipped, "cells": int(sum(len(r["y"]) for r in fit_set)),
                     "seconds": round(time.time() - start, 1), "cell_iterations": int(cells.n_iter_),
                     "coin_iterations": int(coins.n_iter_),
                     "seed_range": [TRAIN_SEED_BASE + 10_000 * cfg.seed, TRAIN_SEED_BASE + 10_000 * cfg.seed + cfg.photos]},
        "validation": {"cell_accuracy": round(float(correct.mean()), 5),
                       "cells_flagged_share": round(float((conf < threshold).mean()), 4),
                       "errors_flagged_share": round(float((conf[~correct] < threshold).mean()) if (~correct).any() else 1.0, 4),
                       "coin_accuracy": round(float(((coin_proba > 0.5) == stack(val, "yc")).mean()), 5)},
    }
    log(f"validation: {model.meta['validation']}, threshold {threshold:.3f}")
    return model


def train_and_save(cfg: TrainConfig, log=print) -> ReaderModel:
    """Train and write models/reader.skops + models/reader.json."""
    model = train(cfg, log)
    save_model(model)
    return model
