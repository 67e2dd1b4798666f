"""Training: which photos it makes, and a tiny end-to-end
run (generate → fit → calibrate → save → load)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace

import numpy as np
import pytest

from scoring.sheet import Sheet
from vision.classify import (
    CELL_CLASSES,
    CONTEXT_FEATURES,
    RUINS_COMPARISON_COLUMNS,
    context_inputs,
    load_model,
    save_model,
)
from vision.features import CELL_FEATURE_NAMES
from vision.synth import BACKGROUND_FAMILIES, STYLE_FAMILIES
from vision.synth.conditions import GLARE_RANGE
from vision.train import (
    JITTER_MAX_U,
    TRAIN_SEED_BASE,
    PhotoJob,
    TrainConfig,
    jittered_grid,
    photo_samples,
    train,
    training_jobs,
    truth_sheet,
)


def test_training_photos_cover_every_style_outside_the_held_out_families() -> None:
    cfg = TrainConfig(seed=3, photos=6000)
    jobs = training_jobs(cfg)
    styles = Counter(job.style for job in jobs)
    held_out = set(STYLE_FAMILIES[cfg.holdout_style_family])
    assert set(styles) == {s for names in STYLE_FAMILIES.values() for s in names} - held_out
    assert max(styles.values()) < 1.15 * min(styles.values())  # drawn uniformly
    assert not {job.background for job in jobs} & set(
        BACKGROUND_FAMILIES[cfg.holdout_background_family]
    )
    assert all(1.0 <= job.megapixels <= cfg.max_megapixels for job in jobs)
    assert [job.seed for job in jobs] == list(
        range(TRAIN_SEED_BASE + 30_000, TRAIN_SEED_BASE + 36_000)
    )
    assert training_jobs(cfg) == jobs  # the seed decides everything


def test_a_share_of_training_photos_gets_glare_and_the_rest_stays_as_it_was() -> None:
    cfg = TrainConfig(seed=3, photos=6000, glare_share=0.1)
    jobs = training_jobs(cfg)
    glare = np.array([job.glare for job in jobs])
    assert abs((glare > 0).mean() - cfg.glare_share) < 0.015
    assert ((glare == 0) | ((glare >= GLARE_RANGE[0]) & (glare <= GLARE_RANGE[1]))).all()
    without = training_jobs(
        replace(cfg, glare_share=0.0)
    )  # glare is drawn apart: nothing else moves
    assert all(job.glare == 0.0 for job in without)
    assert [job._replace(glare=0.0) for job in jobs] == without


def test_a_glare_job_makes_its_photo_with_glare() -> None:
    job = PhotoJob(TRAIN_SEED_BASE + 5, "colour-symbols", "white-table", 1.0, 0.0)
    plain = photo_samples((job, False))
    lit = photo_samples((job._replace(glare=0.45), False))
    assert (
        plain["seed"] == lit["seed"] and (plain["copies"][0][1] == lit["copies"][0][1]).all()
    )  # same sheet
    # the photo is otherwise the same seed's (make_photo
    # is deterministic), so any change is the glare's
    assert np.abs(lit["copies"][0][0] - plain["copies"][0][0]).mean() > 0.05


def test_a_drawn_sheet_taken_twice_gives_one_record_with_both_photos() -> None:
    job = PhotoJob(TRAIN_SEED_BASE + 6, "graphite-symbols", "white-table", 1.0, 0.0)
    once = photo_samples((job, False))
    twice = photo_samples((job._replace(takes=2), False))
    assert twice["seed"] == once["seed"] and len(twice["copies"]) == 2 * len(once["copies"]) == 4
    for (x1, y1), (x2, y2) in zip(
        once["copies"], twice["copies"]
    ):  # the first take is the photo itself
        assert np.array_equal(x1, x2) and np.array_equal(y1, y2)
    (x_true, y_true), (x_retake, y_retake) = twice["copies"][0], twice["copies"][2]
    assert np.array_equal(y_true, y_retake)  # the same drawing, so the same labels …
    assert np.abs(x_retake - x_true).mean() > 0.05  # … under other light, blur and noise
    assert len(twice["yc"]) == len(twice["Xc"]) == 2 * len(once["yc"])
    # validation photos meet the finder once, whatever the job says
    assert len(photo_samples((job._replace(takes=2), True))["copies"]) == len(
        photo_samples((job, True))["copies"]
    )


def test_training_jobs_carry_the_configured_takes() -> None:
    assert {job.takes for job in training_jobs(TrainConfig(photos=20, takes=2))} == {2}


def test_a_tiny_training_run_gives_a_loadable_model(tmp_path) -> None:
    cfg = TrainConfig(
        seed=7,
        photos=8,
        workers=2,
        epochs=3,
        max_iter=10,
        max_megapixels=1.0,
        networks=3,
        context_rounds=2,
        ruins_context=False,
        tree_iterations=4,
    )  # the shipped recipe has one round and a ruins stage; this runs the second round instead
    model = train(cfg, log=lambda *_: None)
    save_model(model, tmp_path / "m.npz", tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.npz", tmp_path / "m.json")
    assert len(loaded.shape) == 3
    for net in loaded.shape:  # the layers asked for, kept in half precision to keep the file small
        assert [w.shape[1] for w in net.weights[:-1]] == list(cfg.hidden_layers)
        assert all(np.array_equal(w, w.astype(np.float16)) for w in net.weights + net.biases)
    sheet = np.random.default_rng(0).normal(size=(116, len(CELL_FEATURE_NAMES))).astype(np.float32)
    sheet[:, CELL_FEATURE_NAMES.index("side_b")] = (
        0.0  # one whole side-A sheet: the context stage reads neighbours
    )
    proba = loaded.cell_probabilities(sheet)
    assert proba.shape == (116, len(CELL_CLASSES))
    assert np.allclose(proba.sum(axis=1), 1.0)
    # the sheet-context stage was fitted, saved and loaded, and takes part in every reading; its
    # second round reads the first round's probabilities (6) and their neighbour summary (13)
    assert loaded.context is not None and loaded.context_scale.shape == (len(CONTEXT_FEATURES),)
    assert len(loaded.first_context) == 2 and loaded.meta["config"]["context_rounds"] == 2
    assert len(loaded.meta["training"]["first_context_iterations"]) == 2
    assert loaded.context.n_features_in_ == loaded.first_context[0].n_features_in_ + 13 + 6
    networks = loaded.network_probabilities(sheet)
    # the first round reads the empty paper around each cell too (nearby_paper: 8 measures) and the
    # sheet's look (sheet_look: the median and spread of each colour measure), as saved
    assert loaded.nearby_paper and loaded.meta["config"]["nearby_paper"]
    assert loaded.sheet_look and loaded.meta["config"]["sheet_look"]
    assert loaded.ruins_compared and loaded.meta["config"]["ruins_compared"]
    # … and the probabilities of the two halves' trees (6),
    # fitted, saved and loaded with the iterations asked for
    assert len(loaded.trees) == 2 and loaded.meta["training"]["tree_iterations"] == [4, 4]
    trees = loaded.tree_probabilities(sheet)
    assert trees.shape == (116, len(CELL_CLASSES)) and np.allclose(
        trees, model.tree_probabilities(sheet)
    )
    width = context_inputs(sheet, networks, loaded.context_scale, trees=trees, ruins=True).shape[1]
    without = context_inputs(sheet, networks, loaded.context_scale, nearby=False, look=False).shape[
        1
    ]
    assert (
        loaded.first_context[0].n_features_in_
        == width
        == without + 8 + 2 * len(CONTEXT_FEATURES) + 6 + RUINS_COMPARISON_COLUMNS
    )
    assert not np.allclose(proba, networks)
    assert np.array_equal(proba, model.cell_probabilities(sheet))  # saved and loaded bit for bit
    meta = loaded.meta
    assert meta["training"]["photos_generated"] == 8
    assert meta["training"]["photos_fitted"] + meta["training"]["validation_photos"] == 8
    # fitted photos are taken through a jittered grid; only the validation photo meets the finder
    assert meta["training"]["grid_status"].get("jittered") == meta["training"]["photos_fitted"] == 7
    assert 0.0 < meta["low_confidence_below"] < 1.0
    assert meta["config"]["seed"] == 7


def test_the_ruins_cells_context_stage_is_fitted_saved_and_read_for_the_ruins_cells_only(
    tmp_path,
) -> None:
    from vision.classify import ruins_rows

    cfg = TrainConfig(
        seed=5, photos=8, epochs=3, max_iter=10, max_megapixels=1.0, networks=2, tree_iterations=4
    )
    assert cfg.ruins_context and cfg.context_rounds == 1  # as the shipped recipe
    model = train(cfg, log=lambda *_: None)
    save_model(model, tmp_path / "m.npz", tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.npz", tmp_path / "m.json")
    assert loaded.ruins_context is not None and loaded.meta["training"]["ruins_context_iterations"]
    sheet = np.random.default_rng(1).normal(size=(116, len(CELL_FEATURE_NAMES))).astype(np.float32)
    sheet[:, CELL_FEATURE_NAMES.index("side_b")] = 0.0
    networks = loaded.network_probabilities(sheet)
    trees = loaded.tree_probabilities(sheet)
    # the main stage reads every cell without the ruins comparison; the ruins stage reads it too
    plain = context_inputs(sheet, networks, loaded.context_scale, trees=trees)
    assert loaded.context.n_features_in_ == plain.shape[1]
    assert loaded.ruins_context.n_features_in_ == plain.shape[1] + RUINS_COMPARISON_COLUMNS
    proba = loaded.cell_probabilities(sheet)
    assert np.array_equal(proba, model.cell_probabilities(sheet))  # saved and loaded bit for bit
    # without its ruins stage the model reads the other cells alike and the ruins cells otherwise
    ruins = np.isin(np.arange(116), ruins_rows(sheet))
    without = replace(loaded, ruins_context=None, ruins_compared=False).cell_probabilities(sheet)
    assert np.array_equal(proba[~ruins], without[~ruins])
    assert not np.allclose(proba[ruins], without[ruins])


def test_a_ruins_stage_asks_for_one_context_round() -> None:
    from vision.train_fit import fit_context

    with pytest.raises(ValueError, match="one context round"):
        fit_context([], [object(), object()], TrainConfig(context_rounds=2))


@pytest.mark.parametrize("earned, shown", [(0, 0), (9, 9), (14, 14), (15, 14), (16, 14)])
def test_a_photo_is_judged_on_the_coins_its_track_can_show(earned: int, shown: int) -> None:
    sheet = replace(Sheet.blank("B"), coins=earned)
    for given in (sheet, sheet.to_json()):  # the generator's Sheet, or its public JSON
        truth = truth_sheet({"sheet": given})
        assert truth.coins == shown
        assert truth.cells == sheet.cells and truth.side == "B"


def test_a_jittered_grid_is_off_like_a_found_grid_smoothly_and_within_bounds() -> None:
    pts = np.stack(np.meshgrid(np.arange(12.0), np.arange(12.0)), axis=-1) * 50 + 100
    offs = [
        (jittered_grid(pts, np.random.default_rng(k)).intersections - pts) / 50 for k in range(200)
    ]
    largest = np.array([np.abs(o).max() for o in offs])
    assert (
        largest.max() < JITTER_MAX_U + 0.08 and np.median(largest) > 0.03
    )  # bounded, but not zero
    # smooth: neighbouring crossings move nearly together (a one-cell shear would be a label error)
    step = np.array([np.abs(np.diff(o, axis=1)).max() for o in offs])
    assert step.max() < 0.12
    assert not np.allclose(offs[0], offs[1])


def test_the_quick_recipe_runs_every_stage_from_the_command_line(tmp_path, capsys) -> None:
    """``cartographers train --quick --out DIR``: the
    whole recipe, small; the shipped model untouched."""
    from api.cli import main
    from vision.classify import MODEL_FILE

    before = MODEL_FILE.stat().st_mtime_ns if MODEL_FILE.exists() else None
    assert main(["train", "--quick", "--seed", "3", "--out", str(tmp_path / "m")]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert (
        figures["training"]["photos_generated"] == 24 and "cell_accuracy" in figures["validation"]
    )
    loaded = load_model(tmp_path / "m" / "reader.npz", tmp_path / "m" / "reader.json")
    assert loaded.meta["command"] == "cartographers train --quick --seed 3"
    assert len(loaded.shape) == 2 and len(loaded.trees) == 2 and loaded.context is not None
    assert (MODEL_FILE.stat().st_mtime_ns if MODEL_FILE.exists() else None) == before


def test_quick_without_out_is_refused(capsys) -> None:
    from api.cli import main

    assert main(["train", "--quick"]) == 2
    assert "--out" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("coin_art", "families_fitted"),
    [
        ("lookalike", {"lookalike"}),
        ("lookalike,engraved", {"lookalike", "engraved"}),
        ("all", {"lookalike", "line-art", "engraved"}),
        ("woodcut", {"lookalike", "line-art", "engraved"}),  # none drawn: every photo
    ],
)
def test_the_coin_model_learns_from_the_chosen_art_families(
    monkeypatch, coin_art: str, families_fitted: set[str]
) -> None:
    """``coin_art`` picks the photos whose coin tracks the coin model is fitted on; each photo's
    strip counts twice (as photographed and relit)."""
    from vision import train_fit

    fitted = {}
    monkeypatch.setattr(train_fit, "_fit", lambda X, y, cfg: fitted.update(X=X, y=y))
    codes = {"lookalike": 1.0, "line-art": 2.0, "engraved": 3.0}
    photos = [
        {
            "art": art,
            "Xc": np.full((14, 2), code),
            "Xc_relit": np.full((14, 2), code),
            "yc": np.arange(14) < 5,
        }
        for art, code in codes.items()
    ]
    train_fit.fit_coins(photos, TrainConfig(coin_art=coin_art))
    assert set(np.unique(fitted["X"])) == {codes[f] for f in families_fitted}
    assert len(fitted["y"]) == 28 * len(families_fitted)


def test_an_unknown_coin_art_family_is_refused(capsys) -> None:
    from api.cli import main

    assert main(["train", "--coin-art", "lookalike,sketchy", "--out", "unused"]) == 2
    err = capsys.readouterr().err
    assert "--coin-art" in err and "sketchy" in err and err.count("\n") == 1
