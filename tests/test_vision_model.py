"""The model file: plain arrays that load fast without scikit-learn, predict exactly as the fitted
estimators did, and refuse what they were not trained for; and the classifier's context measures."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import numpy as np
import pytest

from vision.classify import (
    CELL_CLASSES,
    META_FILE,
    MODEL_FILE,
    UNFAMILIAR_LOW_CONFIDENCE,
    UNSURE_BELOW,
    ModelMissingError,
    ReaderModel,
    load_model,
    save_model,
)
from vision.coins import COIN_FEATURE_NAMES
from vision.features import CELL_FEATURE_NAMES
from vision.inference import BoostedTrees, Network, export

needs_model = pytest.mark.skipif(not MODEL_FILE.exists(), reason="no trained model in models/")


@needs_model
def test_model_loads_and_is_small() -> None:
    model = load_model()
    assert MODEL_FILE.stat().st_size < 6 * 1024 * 1024  # "a few MB at most"
    assert len(model.shape) == model.meta["config"].get("networks", 2) >= 2
    for net in model.shape:
        assert net.n_features_in_ == len(CELL_FEATURE_NAMES)
        assert len(net.classes_) == len(CELL_CLASSES)
    assert 0.0 < model.low_confidence_below < 1.0
    assert (
        model.context is not None
        and model.context.n_iter_ == model.meta["config"]["context_max_iter"]
    )
    assert model.coins.n_features_in_ == len(COIN_FEATURE_NAMES)


@needs_model
def test_metadata_records_versions_seed_and_figures() -> None:
    meta = json.loads(META_FILE.read_text())
    for key in ("python", "numpy", "scikit-learn"):
        assert key in meta["versions"]
    assert "seed" in meta["config"]
    assert meta["config"]["holdout_style_family"]
    assert "cell_accuracy" in meta["validation"]
    assert meta["file_bytes"] == MODEL_FILE.stat().st_size


_READ_IN_A_FRESH_PROCESS = """
import sys, time
from pathlib import Path
import numpy as np
t0 = time.perf_counter()
from vision.classify import load_model
from vision.features import CELL_FEATURE_NAMES
model = load_model(Path(sys.argv[1]), Path(sys.argv[2]))
sheet = np.zeros((116, len(CELL_FEATURE_NAMES)), np.float32)
p = model.cell_probabilities(sheet)
print(len(model.shape), len(model.trees), p.shape, "sklearn" in sys.modules)
"""


@needs_model
def test_reading_with_the_shipped_model_never_imports_scikit_learn() -> None:
    """Importing scikit-learn costs seconds of every command; the model file needs numpy only."""
    done = subprocess.run(
        [sys.executable, "-c", _READ_IN_A_FRESH_PROCESS, str(MODEL_FILE), str(META_FILE)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["4", "2", "(116,", "6)", "False"]


def _fitted(seed: int = 0, classes: int = 3, features: int = 6):
    """A small fitted tree model and network pair with
    their training rows (NaNs included for the trees)."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(seed)
    x = rng.normal(size=(400, features)).astype(np.float32)
    y = (x[:, 0] > 0).astype(int) + (classes > 2) * (x[:, 1] > 0.5)
    xn = x.copy()
    xn[rng.random(xn.shape) < 0.1] = np.nan  # missing values take the side each split learnt
    trees = HistGradientBoostingClassifier(max_iter=15, max_leaf_nodes=7, random_state=seed).fit(
        xn, y
    )
    with warnings.catch_warnings():  # 30 epochs are the plan: a small net for a quick test
        warnings.simplefilter("ignore", ConvergenceWarning)
        net = make_pipeline(
            StandardScaler(),
            MLPClassifier(hidden_layer_sizes=(16, 8), max_iter=30, random_state=seed),
        ).fit(x, y)
    return trees, net, xn, x


@pytest.mark.parametrize("classes", [2, 3])
def test_the_numpy_export_predicts_as_scikit_learn_does(classes: int) -> None:
    trees, net, xn, x = _fitted(classes=classes)
    assert np.abs(export(trees, xn).predict_proba(xn) - trees.predict_proba(xn)).max() < 1e-12
    assert np.abs(export(net, x).predict_proba(x) - net.predict_proba(x)).max() < 1e-6
    assert list(export(trees).classes_) == list(trees.classes_)


def test_an_export_that_predicts_otherwise_is_refused() -> None:
    """A scikit-learn release that stores its trees differently must fail training, not readings."""
    trees, _, xn, _ = _fitted()
    for predictors in trees._predictors[:3]:
        for predictor in predictors:
            predictor.nodes["value"] = predictor.nodes["value"][
                ::-1
            ].copy()  # nodes read in another order
    with pytest.raises(ValueError, match="differs"):
        export(_LyingModel(trees), xn)


class _LyingModel:
    """A fitted model whose predictions are not what its
    stored trees say (stands in for a changed layout)."""

    def __init__(self, trees):
        self._predictors, self.classes_, self.n_iter_ = (
            trees._predictors,
            trees.classes_,
            trees.n_iter_,
        )
        self.n_features_in_ = trees.n_features_in_
        self._fresh = _fitted()[0]

    def decision_function(self, x):
        return self._fresh.decision_function(x)

    def predict_proba(self, x):
        return self._fresh.predict_proba(x)


def test_a_model_saves_and_loads_with_the_same_probabilities(tmp_path) -> None:
    trees, net, xn, x = _fitted(classes=3, features=len(CELL_FEATURE_NAMES))
    coins, _, xc, _ = _fitted(classes=2, features=len(COIN_FEATURE_NAMES))
    model = ReaderModel(shape=[net, net], coins=coins, trees=[trees], meta={"config": {"seed": 3}})
    save_model(model, tmp_path / "m.npz", tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.npz", tmp_path / "m.json")
    assert all(isinstance(n, Network) for n in loaded.shape) and isinstance(
        loaded.coins, BoostedTrees
    )
    assert np.abs(loaded.shape[1].predict_proba(x) - net.predict_proba(x)).max() < 1e-6
    assert np.abs(loaded.trees[0].predict_proba(xn) - trees.predict_proba(xn)).max() < 1e-12
    assert np.abs(loaded.coin_probabilities(xc) - coins.predict_proba(xc)[:, 1]).max() < 1e-12
    assert loaded.context is None and loaded.meta["config"]["seed"] == 3
    with np.load(
        tmp_path / "m.npz", allow_pickle=False
    ) as npz:  # numbers and text only: no pickled objects
        assert all(npz[key].dtype != object for key in npz.files)


def _saved_with(tmp_path, **changes) -> tuple:
    """A tiny saved model, its arrays then changed (a key set to None is removed)."""
    trees, _, _, _ = _fitted(classes=2, features=len(COIN_FEATURE_NAMES))
    save_model(ReaderModel(shape=[], coins=trees), tmp_path / "m.npz", tmp_path / "m.json")
    with np.load(tmp_path / "m.npz") as npz:
        arrays = {key: npz[key] for key in npz.files}
    for key, value in changes.items():
        arrays.pop(key) if value is None else arrays.__setitem__(key, value)
    np.savez(tmp_path / "changed.npz", **arrays)
    return tmp_path / "changed.npz", tmp_path / "m.json"


@pytest.mark.parametrize(
    "changes, says",
    [
        ({"cell_feature_names": np.array(CELL_FEATURE_NAMES[:-1])}, "other cell features"),
        (
            {"coin_feature_names": np.array(["brightness"] * len(COIN_FEATURE_NAMES))},
            "other coin features",
        ),
        ({"format": np.array(0)}, "another version"),
        ({"format": None}, "another version"),
        ({"payload": np.array([object()], dtype=object)}, "not a reader model file"),
    ],
)
def test_a_model_file_the_reader_cannot_use_asks_for_retraining(
    tmp_path, changes: dict, says: str
) -> None:
    model_file, meta_file = _saved_with(tmp_path, **changes)
    with pytest.raises(ModelMissingError, match=f"{says}.*cartographers train"):
        load_model(model_file, meta_file)


def test_a_file_that_is_not_a_model_asks_for_retraining(tmp_path) -> None:
    (tmp_path / "photo.npz").write_bytes(b"\xff\xd8\xff\xe0 a JPEG, not a model")
    with pytest.raises(ModelMissingError, match="not a reader model file"):
        load_model(tmp_path / "photo.npz", tmp_path / "none.json")
    with pytest.raises(ModelMissingError, match="no reader model"):
        load_model(tmp_path / "absent.npz", tmp_path / "none.json")


@pytest.mark.parametrize(
    "unsure, base, expected",
    [
        (0, 0.998, (0.998, False)),  # a familiar sheet keeps the calibrated threshold
        (8, 0.998, (0.998, False)),  # 8 % unsure is still familiar (the rule is "more than")
        (9, 0.99, (UNFAMILIAR_LOW_CONFIDENCE, True)),  # more than 8 %: flag more strictly
        (9, 0.99999, (0.99999, True)),  # never looser than the calibrated threshold
    ],
)
def test_unfamiliar_sheets_are_flagged_more_strictly(
    unsure: int, base: float, expected: tuple
) -> None:
    from vision.classify import ReaderModel

    model = ReaderModel(shape=[], coins=None, meta={"low_confidence_below": base})
    confidences = np.array([1.0] * (100 - unsure) + [UNSURE_BELOW - 0.01] * unsure)
    assert model.sheet_threshold(confidences) == expected


def _sheet(top: float, context_top: float, unsure: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """One sheet of 100 cells read as class 0: the first with ``top`` of the mixed probability and
    ``context_top`` of the context stage's, then ``unsure`` cells at 0.8, the rest sure."""
    probs = np.zeros((100, len(CELL_CLASSES)))
    probs[:, 0] = 1.0
    probs[1 : 1 + unsure, 0] = 0.8
    probs[0, 0] = top
    probs[:, 1] = 1.0 - probs[:, 0]
    context = probs.copy()
    context[0, 0], context[0, 1] = context_top, 1.0 - context_top
    return probs, context


@pytest.mark.parametrize(
    "top, context_top, unsure, flagged",
    [
        (0.9999, 0.9999, 0, False),  # both stages sure
        (0.99, 0.9999, 0, False),  # under the calibrated threshold, but the context stage is sure
        (0.9999, 0.99, 0, True),  # the context stage unsure of the class read
        (0.9999, 0.997, 0, False),  # ...sure enough on a familiar sheet
        (0.9999, 0.997, 9, True),  # ...not on an unfamiliar one (more than 8 % of cells unsure)
        (0.79, 0.9999, 0, True),  # the networks contest the stage: the mixed probability is low
        (0.6, 0.4, 0, True),  # the context stage prefers another class
    ],
)
def test_cells_are_flagged_by_the_context_stages_own_confidence(
    top: float, context_top: float, unsure: int, flagged: bool
) -> None:
    model = ReaderModel(shape=[], coins=None, meta={"low_confidence_below": 0.995})
    probs, context = _sheet(top, context_top, unsure)
    mask, unfamiliar = model.unsure_cells(probs, context)
    assert bool(mask[0]) is flagged
    assert unfamiliar is (unsure > 8)


def test_without_a_context_stage_cells_are_flagged_under_the_calibrated_threshold() -> None:
    model = ReaderModel(shape=[], coins=None, meta={"low_confidence_below": 0.995})
    probs, _ = _sheet(0.99, 0.99)
    assert model.unsure_cells(probs)[0][0]
    assert not ReaderModel(shape=[], coins=None, meta={"low_confidence_below": 0.98}).unsure_cells(
        probs
    )[0][0]


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
    assert dist(farm)[2] == pytest.approx(0.0) and dist(empty)[2] == pytest.approx(
        30.0
    )  # the unsure cell looks like farm
    assert count(farm).tolist() == [1, 1, 2, 2, 2]  # a sure cell is compared with the others only
    assert dist(farm)[0] == pytest.approx(2.0)
    assert (dist(water) == CONTEXT_NONE).all()  # no sure water on this sheet
    assert np.allclose(c[:, : len(CELL_CLASSES)], p)


def test_nearby_paper_compares_each_cell_with_the_sure_empty_cells_around_it() -> None:
    from scoring.sides import SIDES
    from vision.classify import CONTEXT_FEATURES, CONTEXT_NONE, NEARBY_DIFFERENCES, nearby_paper

    cells = SIDES["A"].drawable
    db = CELL_FEATURE_NAMES.index("db_mean")
    x = np.zeros((len(cells), len(CELL_FEATURE_NAMES)))
    x[:, db] = [
        6.0 if c >= 8 else 0.0 for _, c in cells
    ]  # the paper yellows towards the right edge
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
    assert (
        f[cells.index((5, 8)), diff] > 2
    )  # the first yellowed column differs from the plain paper to its left
    p[:, empty] = 0.0
    p[:, farm] = 1.0  # no sure empty cell anywhere: nothing to compare with
    f = nearby_paper(x, p, np.ones(len(CONTEXT_FEATURES)))
    assert (f[:, 0] == CONTEXT_NONE).all() and (f[:, 1:] == 0).all()
    with pytest.raises(ValueError, match="one whole sheet"):
        nearby_paper(x[:50], p[:50], np.ones(len(CONTEXT_FEATURES)))


@pytest.mark.parametrize("side", ["A", "B"])
def test_ruins_comparison_sees_a_mark_beyond_the_glyph_the_ruins_share(side: str) -> None:
    from scoring.sides import SIDES
    from vision.classify import CONTEXT_FEATURES, ruins_comparison

    layout = SIDES[side]
    ruins = [i for i, cell in enumerate(layout.drawable) if cell in layout.ruins]
    x = np.zeros((len(layout.drawable), len(CELL_FEATURE_NAMES)))
    x[:, CELL_FEATURE_NAMES.index("side_b")] = float(side == "B")
    thumb = [CELL_FEATURE_NAMES.index(f"thumb9_{k}") for k in range(81)]
    dark = CELL_FEATURE_NAMES.index("dL_mean")
    glyph = np.zeros(81)
    glyph[30:50] = 0.6  # every ruins cell prints the same glyph
    marked = ruins[1:3]  # two of them hold a player's drawing too
    for i in ruins:
        x[i, thumb] = glyph
        x[i, dark] = 5.0
    for i in marked:
        x[i, [thumb[k] for k in (60, 61, 70)]] = 0.5
        x[i, dark] = 9.0
    p = np.full((len(x), len(CELL_CLASSES)), 1 / len(CELL_CLASSES))
    r = ruins_comparison(x, p, np.ones(len(CONTEXT_FEATURES)))
    assert np.isnan(np.delete(r, ruins, axis=0)).all()  # only the ruins cells are compared
    assert not np.isnan(r[ruins]).any()
    excess = r[:, -6]  # the thumbnail's darkness beyond the lightest of the other ruins cells
    assert [round(float(excess[i]), 6) for i in marked] == [1.5, 1.5]
    assert all(abs(excess[i]) < 1e-9 for i in ruins if i not in marked)  # the glyph alone: none
    rank = r[:, len(CONTEXT_FEATURES) + 2 * len(CELL_CLASSES) + 3]
    assert [rank[i] for i in marked] == [4, 4] and rank[ruins[0]] == 0  # darker than four others


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
    assert (
        a.shape == (116, 2 * len(CONTEXT_FEATURES)) and (a == a[0]).all()
    )  # one row for the whole sheet
    assert b[0, len(CONTEXT_FEATURES) + k] == pytest.approx(
        10 * a[0, len(CONTEXT_FEATURES) + k]
    )  # spread
    assert a[0, len(CONTEXT_FEATURES) + k] == pytest.approx(
        pencil[:, db].std() / 2
    )  # in units of ``scale``
    assert np.allclose(sheet_look(pencil[::-1], scale), a)  # the cells' order does not matter
    assert a[0, k] == pytest.approx(np.median(pencil[:, db]) / 2)


@needs_model
def test_shipped_model_has_trees_that_the_context_stage_reads() -> None:
    from vision.classify import RUINS_COMPARISON_COLUMNS, context_inputs

    model = load_model()
    assert len(model.trees) == 2 and all(
        t.n_features_in_ == len(CELL_FEATURE_NAMES) for t in model.trees
    )
    assert [t.n_iter_ for t in model.trees] == [model.meta["config"]["tree_iterations"]] * 2
    sheet = np.zeros((116, len(CELL_FEATURE_NAMES)), dtype=np.float32)
    p = model.network_probabilities(sheet)
    plain = context_inputs(sheet, p, model.context_scale, trees=model.tree_probabilities(sheet))
    inputs = model.context_stage_inputs(sheet, p)
    assert model.context.n_features_in_ == inputs.shape[1] >= plain.shape[1]
    if model.ruins_context is not None:  # the ruins cells' own stage compares them too
        ruins = model.ruins_stage_inputs(sheet, p, inputs)
        assert model.ruins_context.n_features_in_ == ruins.shape[1]
        assert ruins.shape[1] == plain.shape[1] + RUINS_COMPARISON_COLUMNS * model.ruins_compared


def test_loading_the_model_leaves_the_other_stages_unimported() -> None:
    # the model's load time is a target of its own: `vision` imports its public names on first use
    code = (
        "import sys; from vision.classify import load_model; load_model(); "
        "print(sorted(m for m in ('vision.reader', 'vision.overlay', 'vision.seasons', 'PIL') "
        "if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_package_names_its_stages_on_first_use() -> None:
    import vision

    assert vision.read_photo.__module__ == "vision.reader"
    assert vision.PhotoError.__module__ == "vision.load"
    assert vision.grid.__name__ == "vision.grid"  # a submodule, imported when asked for
    assert not hasattr(vision, "no_such_stage")
    assert {"read_photo", "draw_overlay"} <= set(dir(vision))
