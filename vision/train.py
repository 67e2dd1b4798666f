"""Training the reader's classifiers from scratch on synthetic photos (``cartographers train``).

The recipe's settings are :class:`~vision.train_config.TrainConfig`. The photos and their samples
come from :mod:`vision.train_data`: training seeds only, one style, background and art family held
out, every training photo's cells through the true grid and through a jittered one. 15 % of the
photos (by seed) are kept aside to calibrate the low-confidence threshold and to report validation
figures; those go through the real pipeline and are judged on its grid. The models are fitted by
:mod:`vision.train_fit`: two shape networks and a tree model per half of the photos, the
sheet-context stage on each half as read by the other half's models, and the coin model.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import asdict
from pathlib import Path

import numpy as np

from vision.classify import CELL_CLASSES, META_FILE, MODEL_FILE, ReaderModel, save_model
from vision.features import CELL_FEATURE_NAMES
from vision.inference import export
from vision.train_config import QUICK, TrainConfig, quick_config, train_command
from vision.train_data import (
    JITTER_MAX_U,
    TRAIN_SEED_BASE,
    PhotoJob,
    grid_error_u,
    jittered_grid,
    photo_samples,
    training_jobs,
    training_samples,
    truth_sheet,
)
from vision.train_fit import fit_cells, fit_coins, fit_context, fit_trees, single_thread

__all__ = [
    "FLAG_ERRORS_SHARE",
    "JITTER_MAX_U",
    "QUICK",
    "TRAIN_SEED_BASE",
    "PhotoJob",
    "TrainConfig",
    "grid_error_u",
    "jittered_grid",
    "low_confidence_threshold",
    "photo_samples",
    "quick_config",
    "train",
    "train_and_save",
    "train_command",
    "training_jobs",
    "truth_sheet",
    "validate",
]

FLAG_ERRORS_SHARE = 0.97  # the threshold flags this share of validation errors


def low_confidence_threshold(
    confidence: np.ndarray, correct: np.ndarray, share: float = FLAG_ERRORS_SHARE
) -> float:
    """Smallest threshold below which ``share`` of the wrong answers' confidences fall."""
    wrong = np.sort(confidence[~correct])
    if len(wrong) == 0:
        return 0.9
    return float(min(0.9999, np.quantile(wrong, share) + 1e-7))


def train(cfg: TrainConfig, log=print) -> ReaderModel:
    """Generate, extract, fit, calibrate; return the model (not yet saved)."""
    start = time.time()
    # the lowest seeds: only they meet the finder
    n_val = max(1, int(cfg.photos * cfg.validation_share))
    results = training_samples(cfg, n_val, log, start)
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
        stages = fit_context(fit_set, shape, cfg, log, trees)
        coins = fit_coins(fit_set, cfg)
    # Validated as shipped: the numpy export the reader runs
    # (vision.inference), checked against each estimator.
    model = ReaderModel(
        shape=[export(n) for n in shape],
        coins=export(coins),
        context=None if stages.context is None else export(stages.context),
        context_scale=stages.scale,
        first_context=[export(c) for c in stages.first],
        ruins_context=None if stages.ruins is None else export(stages.ruins),
        nearby_paper=cfg.nearby_paper,
        sheet_look=cfg.sheet_look,
        ruins_compared=cfg.ruins_compared,
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
            "context_iterations": iterations(stages.context),
            "ruins_context_iterations": iterations(stages.ruins),
            "first_context_iterations": [iterations(c) for c in stages.first],
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


def iterations(stage) -> int:
    """A boosted stage's fitted iterations (0 for a stage not fitted)."""
    return 0 if stage is None else int(stage.n_iter_)


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


def train_and_save(
    cfg: TrainConfig, log=print, model_file: Path = MODEL_FILE, meta_file: Path = META_FILE
) -> ReaderModel:
    """Train and write the model (by default models/reader.npz + models/reader.json)."""
    model = train(cfg, log)
    save_model(model, model_file, meta_file)
    return model
