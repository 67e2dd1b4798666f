"""Fitting the reader's models on the training photos' samples.

The training photos are split in two halves by seed and two shape networks are fitted on each
(different random starts); the reader averages the four. A tree model is fitted on each half too
(:func:`fit_trees`). The sheet-context stage (:func:`fit_context`) is then fitted on each half as
read by the other half's networks and trees (the ruins cells' own stage beside it the same way);
with two context rounds, the second reads each half through the other half's first round. The coin
model (:func:`fit_coins`) is fitted on every photo.
"""

from __future__ import annotations

import time
import warnings
from multiprocessing import get_context
from typing import NamedTuple

import numpy as np

from vision.classify import (
    context_inputs,
    context_scale,
    full_proba,
    mix_context,
    ruins_rows,
    ruins_stage_inputs,
    second_round_inputs,
    sheet_side,
)
from vision.train_config import TrainConfig


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


class ContextStages(NamedTuple):
    """What :func:`fit_context` fits (fields of :class:`vision.classify.ReaderModel`)."""

    context: object | None  # the sheet-context stage (its last round)
    scale: np.ndarray | None  # the colour measures' spread, the stage's distance unit
    first: list  # the first round's stages, one per half; [] with one round
    ruins: object | None  # the ruins cells' own stage; None with ``cfg.ruins_context`` off


def fit_context(
    photos: list[dict], nets: list, cfg: TrainConfig, log=print, trees: list = ()
) -> ContextStages:
    """The sheet-context stage (vision.classify.context_inputs), its colour scale, with
    ``cfg.context_rounds`` = 2 its first round, and with ``cfg.ruins_context`` the ruins cells' own
    stage: all fitted on what the networks (and the trees, when given: one per half) say about
    photos they were not fitted on (each half's photos read by the other half's networks and
    trees), so they learn how far to trust them on unfamiliar sheets. The first round is fitted on
    each half apart, and the second round reads each half through the other half's first round, for
    the same reason. With a ruins stage, the main stage is fitted on the other cells only, without
    the ruins comparison. Nothing is fitted without two halves of networks."""
    if len(nets) < 2:
        return ContextStages(None, None, [], None)
    if cfg.ruins_context and cfg.context_rounds != 1:
        raise ValueError("a ruins context stage needs one context round (context_rounds=1)")
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
            cfg.ruins_compared and not cfg.ruins_context,
        )
        for (h, x, _), p in zip(sheets, networks)
    ]
    labels = [y for _, _, y in sheets]
    fit = lambda X, y: _fit(X, y, cfg, max_leaf_nodes=15, max_iter=cfg.context_max_iter)  # noqa: E731
    ruins_stage = None
    if cfg.ruins_context:
        ruin = [np.isin(np.arange(len(x)), ruins_rows(x)) for _, x, _ in sheets]
        ruins_stage = fit(
            np.concatenate(
                [
                    ruins_stage_inputs(x, p, r, scale, cfg.ruins_compared)[k]
                    for (_, x, _), p, r, k in zip(sheets, networks, rows, ruin)
                ]
            ),
            np.concatenate([y[k] for y, k in zip(labels, ruin)]),
        )
        log(f"  ruins context: {ruins_stage.n_iter_} iterations, {time.time() - t0:.0f} s")
        rows = [r[~k] for r, k in zip(rows, ruin)]
        labels = [y[~k] for y, k in zip(labels, ruin)]
    first = []
    if cfg.context_rounds == 2:
        first = [
            fit(
                np.concatenate([r for (h, _, _), r in zip(sheets, rows) if h == half]),
                np.concatenate([y for (h, _, _), y in zip(sheets, labels) if h == half]),
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
    context = fit(np.concatenate(rows), np.concatenate(labels))
    log(f"  sheet context: {context.n_iter_} iterations, {time.time() - t0:.0f} s")
    return ContextStages(context, scale, first, ruins_stage)


def fit_coins(photos: list[dict], cfg: TrainConfig):
    """The coin model: boosted trees over the coin features of every photo printed in one of
    ``cfg.coin_art``'s families, as photographed and relit."""
    families = cfg.coin_families()
    if families is not None:
        # a tiny recipe may draw none of them: then every photo
        photos = [r for r in photos if r.get("art", "lookalike") in families] or photos
    return _fit(
        np.concatenate([x for r in photos for x in (r["Xc"], r["Xc_relit"])]),
        np.concatenate([r["yc"] for r in photos for _ in range(2)]),
        cfg,
    )
