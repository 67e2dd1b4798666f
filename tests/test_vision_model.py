"""The shipped model file: loads with the explicit trusted types only, and its metadata is complete."""

from __future__ import annotations

import json

import pytest

import numpy as np

from vision.classify import (CELL_CLASSES, META_FILE, MODEL_FILE, TRUSTED_TYPES, UNFAMILIAR_LOW_CONFIDENCE, UNSURE_BELOW,
                             load_model)
from vision.features import CELL_FEATURE_NAMES

needs_model = pytest.mark.skipif(not MODEL_FILE.exists(), reason="no trained model in models/")


@needs_model
def test_model_loads_and_is_small() -> None:
    model = load_model()
    # "a few MB at most" (issue 5): 4.5 MiB since session 18 (with the cell trees, all boosted trees saved packed),
    # 4.6 MiB in session 14 (the trees saved without their unread fields),
    # 5.3 MiB from session 8's 518 features (the four networks' first layers are 2 MB of it), 4.2 MiB before
    assert MODEL_FILE.stat().st_size < 6 * 1024 * 1024
    assert len(model.shape) == model.meta["config"].get("networks", 2) >= 2
    for net in model.shape:
        assert net.n_features_in_ == len(CELL_FEATURE_NAMES)
        assert len(net.classes_) == len(CELL_CLASSES)
    assert 0.0 < model.low_confidence_below < 1.0
    assert model.context is not None and model.context.n_iter_ == model.meta["config"]["context_max_iter"]


@needs_model
def test_metadata_records_versions_seed_and_figures() -> None:
    meta = json.loads(META_FILE.read_text())
    for key in ("python", "numpy", "scikit-learn", "skops"):
        assert key in meta["versions"]
    assert "seed" in meta["config"]
    assert meta["config"]["holdout_style_family"]
    assert "cell_accuracy" in meta["validation"]


def test_untrusted_types_are_refused(tmp_path) -> None:
    import datetime

    import skops.io as sio

    bad = tmp_path / "bad.skops"
    bad.write_bytes(sio.dumps({"shape": [datetime.timedelta(days=1)], "coins": None}))
    assert "datetime.timedelta" not in TRUSTED_TYPES
    with pytest.raises(Exception, match="[Uu]ntrusted"):
        load_model(bad, tmp_path / "none.json")


_LOAD_IN_A_FRESH_PROCESS = """
import sys
from pathlib import Path
from vision.classify import load_model
try:
    model = load_model(Path(sys.argv[1]), Path(sys.argv[2]))
except Exception as e:
    print(type(e).__name__, e)
    sys.exit(3)
print("loaded", len(model.shape), len(model.trees))
"""


def _load_in_a_fresh_process(model_file, meta_file):
    """load_model in a new interpreter, where nothing imported skops before the reader did."""
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-c", _LOAD_IN_A_FRESH_PROCESS, str(model_file), str(meta_file)],
                          capture_output=True, text=True, timeout=300)


@needs_model
def test_the_shipped_model_needs_only_its_listed_types() -> None:
    """The shipped file loads where skops trusts TRUSTED_TYPES only (no estimator trusted by default)."""
    done = _load_in_a_fresh_process(MODEL_FILE, META_FILE)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("loaded 4 2")


_THREADS_IN_A_FRESH_PROCESS = """
from vision.classify import single_thread
from threadpoolctl import threadpool_info
with single_thread():  # nothing of scikit-learn imported yet, as in a fresh training worker
    from sklearn.ensemble import HistGradientBoostingClassifier
    print(sorted({lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "openmp"}))
"""


def test_single_thread_limits_openmp_in_a_process_that_has_not_loaded_it_yet() -> None:
    """The tree models' fit in a fresh worker runs one OpenMP thread (OMP_NUM_THREADS=4 would give it four)."""
    import os
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _THREADS_IN_A_FRESH_PROCESS], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "OMP_NUM_THREADS": "4"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[1]"


def test_an_estimator_outside_the_list_is_refused_though_skops_trusts_it_by_default(tmp_path) -> None:
    import skops.io as sio
    from sklearn.linear_model import LogisticRegression

    odd = tmp_path / "odd.skops"
    odd.write_bytes(sio.dumps({"shape": [LogisticRegression()], "coins": None}))
    assert not any("LogisticRegression" in t for t in TRUSTED_TYPES)
    done = _load_in_a_fresh_process(odd, tmp_path / "none.json")
    assert done.returncode == 3 and "LogisticRegression" in done.stdout, done.stdout + done.stderr


def test_an_older_model_file_asks_for_retraining(tmp_path) -> None:
    import skops.io as sio

    from vision.classify import ModelMissingError

    old = tmp_path / "old.skops"
    old.write_bytes(sio.dumps({"cells": None, "coins": None}))
    with pytest.raises(ModelMissingError, match="cartographers train"):
        load_model(old, tmp_path / "none.json")


@pytest.mark.parametrize("unsure, base, expected", [
    (0, 0.998, (0.998, False)),  # a familiar sheet keeps the calibrated threshold
    (8, 0.998, (0.998, False)),  # 8 % unsure is still familiar (the rule is "more than")
    (9, 0.998, (UNFAMILIAR_LOW_CONFIDENCE, True)),  # more than 8 %: flag more strictly
    (9, 0.99999, (0.99999, True)),  # never looser than the calibrated threshold
])
def test_unfamiliar_sheets_are_flagged_more_strictly(unsure: int, base: float, expected: tuple) -> None:
    from vision.classify import ReaderModel

    model = ReaderModel(shape=[], coins=None, meta={"low_confidence_below": base})
    confidences = np.array([1.0] * (100 - unsure) + [UNSURE_BELOW - 0.01] * unsure)
    assert model.sheet_threshold(confidences) == expected


def test_sheet_context_compares_each_cell_with_the_sure_cells_of_its_own_sheet() -> None:
    from vision.classify import CONTEXT_FEATURES, CONTEXT_NONE, sheet_context

    db = CELL_FEATURE_NAMES.index("db_ink")  # yellow ink: a high b*
    x = np.zeros((5, len(CELL_FEATURE_NAMES)))
    x[:, db] = [30, 32, 31, 2, 0]
    farm, water, empty = (CELL_CLASSES.index(t) for t in ("farm", "water", "empty"))
    p = np.zeros((5, len(CELL_CLASSES)))
    p[[0, 1], farm] = 1.0
    p[2, [farm, water]] = 0.5  # unsure: counts towards no class
    p[[3, 4], empty] = 1.0
    c = sheet_context(x, p, np.ones(len(CONTEXT_FEATURES)))
    dist = lambda k: c[:, len(CELL_CLASSES) + 2 * k]  # noqa: E731
    count = lambda k: c[:, len(CELL_CLASSES) + 2 * k + 1]  # noqa: E731
    assert dist(farm)[2] == pytest.approx(0.0) and dist(empty)[2] == pytest.approx(30.0)  # the unsure cell looks like farm
    assert count(farm).tolist() == [1, 1, 2, 2, 2]  # a sure cell is compared with the others only
    assert dist(farm)[0] == pytest.approx(2.0)
    assert (dist(water) == CONTEXT_NONE).all()  # no sure water on this sheet
    assert np.allclose(c[:, :len(CELL_CLASSES)], p)


def test_nearby_paper_compares_each_cell_with_the_sure_empty_cells_around_it() -> None:
    from vision.classify import CONTEXT_FEATURES, CONTEXT_NONE, NEARBY_DIFFERENCES, nearby_paper
    from scoring.sides import SIDES

    cells = SIDES["A"].drawable
    db = CELL_FEATURE_NAMES.index("db_mean")
    x = np.zeros((len(cells), len(CELL_FEATURE_NAMES)))
    x[:, db] = [6.0 if c >= 8 else 0.0 for _, c in cells]  # the paper yellows towards the right edge
    empty, farm = CELL_CLASSES.index("empty"), CELL_CLASSES.index("farm")
    p = np.zeros((len(cells), len(CELL_CLASSES)))
    p[:, empty] = 1.0
    tinted, plain = cells.index((5, 10)), cells.index((5, 2))
    p[tinted] = 0.0
    p[tinted, [empty, farm]] = 0.5  # the networks are unsure of a bare cell on the yellowed edge
    f = nearby_paper(x, p, np.ones(len(CONTEXT_FEATURES)))
    diff = 2 + NEARBY_DIFFERENCES.index("db_mean")
    # like the yellowed paper beside it (the plain paper three columns away barely counts)
    assert f[tinted, 0] < 1.5 and abs(f[tinted, diff]) < 1.5
    assert f[plain, 0] == pytest.approx(0.0, abs=1e-6) and f[plain, 1] > 2  # deep in plain paper
    assert f[cells.index((5, 8)), diff] > 2  # the first yellowed column differs from the plain paper to its left
    p[:, empty] = 0.0
    p[:, farm] = 1.0  # no sure empty cell anywhere: nothing to compare with
    f = nearby_paper(x, p, np.ones(len(CONTEXT_FEATURES)))
    assert (f[:, 0] == CONTEXT_NONE).all() and (f[:, 1:] == 0).all()
    with pytest.raises(ValueError, match="one whole sheet"):
        nearby_paper(x[:50], p[:50], np.ones(len(CONTEXT_FEATURES)))


def test_sheet_look_tells_a_faint_pencil_sheet_from_a_bold_marker_one() -> None:
    from vision.classify import CONTEXT_FEATURES, sheet_look

    db = CELL_FEATURE_NAMES.index("db_mean")
    k = CONTEXT_FEATURES.index("db_mean")
    scale = np.full(len(CONTEXT_FEATURES), 2.0)
    rng = np.random.default_rng(3)
    pencil = np.zeros((116, len(CELL_FEATURE_NAMES)))
    pencil[:, db] = rng.choice([0.0, 3.0], 116)  # faint yellow strokes on half the cells
    marker = pencil.copy()
    marker[:, db] *= 10  # the same cells filled with bold yellow
    a, b = sheet_look(pencil, scale), sheet_look(marker, scale)
    assert a.shape == (116, 2 * len(CONTEXT_FEATURES)) and (a == a[0]).all()  # one row for the whole sheet
    assert b[0, len(CONTEXT_FEATURES) + k] == pytest.approx(10 * a[0, len(CONTEXT_FEATURES) + k])  # spread
    assert a[0, len(CONTEXT_FEATURES) + k] == pytest.approx(pencil[:, db].std() / 2)  # in units of ``scale``
    assert np.allclose(sheet_look(pencil[::-1], scale), a)  # the cells' order does not matter
    assert a[0, k] == pytest.approx(np.median(pencil[:, db]) / 2)


def test_clearing_unread_tree_fields_keeps_predictions_and_shrinks_the_file() -> None:
    import zipfile

    import skops.io as sio
    from sklearn.ensemble import HistGradientBoostingClassifier

    from vision.classify import clear_unread_tree_fields

    rng = np.random.default_rng(0)
    x = rng.normal(size=(600, 8))
    y = (x[:, 0] + x[:, 1] ** 2 > 1).astype(int) + (x[:, 2] > 0.5)
    model = HistGradientBoostingClassifier(max_iter=40, max_leaf_nodes=15, random_state=0).fit(x, y)
    size = lambda m: len(sio.dumps(m, compression=zipfile.ZIP_DEFLATED, compresslevel=9))
    before, size_before = model.predict_proba(x), size(model)
    clear_unread_tree_fields(model)
    assert np.array_equal(model.predict_proba(x), before)
    assert size(model) < 0.9 * size_before


def test_saved_trees_are_packed_and_read_back_bit_for_bit(tmp_path) -> None:
    import zipfile

    import skops.io as sio
    from sklearn.ensemble import HistGradientBoostingClassifier

    from vision.classify import ReaderModel, save_model

    rng = np.random.default_rng(1)
    x = rng.normal(size=(500, len(CELL_FEATURE_NAMES)))
    y = rng.integers(0, len(CELL_CLASSES), size=500)
    fit = lambda: HistGradientBoostingClassifier(max_iter=30, max_leaf_nodes=7, random_state=0).fit(x, y)
    trees, coins = [fit(), fit()], HistGradientBoostingClassifier(max_iter=20).fit(x[:, :5], y % 2)
    before = [t.predict_proba(x) for t in trees] + [coins.predict_proba(x[:, :5])]
    save_model(ReaderModel(shape=[], coins=coins, trees=trees), tmp_path / "m.skops", tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.skops", tmp_path / "m.json")
    after = [t.predict_proba(x) for t in loaded.trees] + [loaded.coins.predict_proba(x[:, :5])]
    assert all(np.array_equal(a, b) for a, b in zip(before, after))
    assert [t.n_iter_ for t in loaded.trees] == [30, 30] and loaded.coins.n_iter_ == coins.n_iter_
    # the model in memory still predicts after saving (its trees are detached only while writing)
    assert np.array_equal(trees[0].predict_proba(x), before[0])
    # one zip entry per node field, not one per tree: (2 × 30 × 6 + 20) trees were written as a few dozen files
    assert len(zipfile.ZipFile(tmp_path / "m.skops").namelist()) < 120
    unpacked = len(sio.dumps({"trees": trees, "coins": coins}, compression=zipfile.ZIP_DEFLATED, compresslevel=9))
    assert (tmp_path / "m.skops").stat().st_size < 0.6 * unpacked


@needs_model
def test_shipped_model_has_trees_that_the_context_stage_reads() -> None:
    from vision.classify import CONTEXT_FEATURES, context_inputs

    model = load_model()
    assert len(model.trees) == 2 and all(t.n_features_in_ == len(CELL_FEATURE_NAMES) for t in model.trees)
    assert [t.n_iter_ for t in model.trees] == [model.meta["config"]["tree_iterations"]] * 2
    sheet = np.zeros((116, len(CELL_FEATURE_NAMES)), dtype=np.float32)
    p = model.network_probabilities(sheet)
    width = context_inputs(sheet, p, model.context_scale, trees=model.tree_probabilities(sheet)).shape[1]
    assert model.context.n_features_in_ == width
