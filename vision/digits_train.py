"""Training the season boxes' readers (``cartographers train-digits``): the character classifier
and the whole-cell networks (:mod:`vision.cell_numbers`).

The character classifier learns from four sources, every example passed through the reader's own
blob finder (:mod:`vision.seasons`) so training sees blobs exactly as reading does:

- scikit-learn's bundled handwritten digits (``load_digits``: 1 797 real 8 × 8 digits, no
  download), three quarters for training, the rest kept for the validation figure;
- digits, minus signs and crossed-out numbers written by the generator's hands
  (:mod:`vision.synth.digits`) in several pens, sizes and slants;
- print: every blob of the empty writing cells of the generator's printings (every art family,
  both sides, every paper), i.e. edict letters, coin and monster icons, border remnants;
- the written cells of synthetic photos (:func:`photo_examples`), blob by blob.

Every generated example is degraded like a photo (resolution, blur, contrast, noise, pencil
tooth). The whole-cell networks learn from every writing cell of the synthetic photos, whole and
labelled with its number, one photo in ``CELL_HELD_OUT`` kept for their validation figures.
"""

from __future__ import annotations

import platform
import sys
import time
from collections.abc import Callable
from dataclasses import asdict

import cv2
import numpy as np

from vision.cell_numbers import CELL_SIDE, HEADS, cell_picture, number_labels
from vision.convnet_train import ConvNetRecipe, require_torch
from vision.digits import (
    CLASSES,
    MANY,
    NOISE,
    PATCH_COLUMNS,
    SCRIBBLE,
    SHAPE_COLUMNS,
    DigitModel,
)
from vision.seasons import (
    BOX_PX,
    blob_features,
    find_blobs,
    strip_inks,
)
from vision.synth.digits import WritingHand, render_chars
from vision.synth.paper import RenderedSheet

HIDDEN = (192, 96)  # each network's hidden layers
#: the networks' L2 penalty, strong: the print and photo rows are repeated, and networks that fit
#: the training rows less closely read photographed blobs better (docs/reader.md, "Season boxes")
ALPHA = 1.0
#: networks fitted from different starts; their mean reads more numbers right than any one
NETWORKS = {"full": 3, "quick": 2}
CONVNETS = {"full": 3, "quick": 1}  # convolutional networks, likewise
CONVNET = {"full": ConvNetRecipe(), "quick": ConvNetRecipe(epochs=2)}
GENERATED = {"full": 1500, "quick": 40}  # generated examples per character class
SCRIBBLED = {"full": 1500, "quick": 50}
PRINT_RENDERS = {"full": 12, "quick": 1}  # degraded copies of each empty printing
PHOTOS = {"full": 600, "quick": 2}  # synthetic photos whose written cells' blobs are harvested
#: synthetic photos whose writing cells are harvested whole, for the whole-cell network (the first
#: ``PHOTOS`` of them also give their blobs); each strip is sampled twice, the second time off by
#: ``CELL_SHIFT_U`` (a standard deviation, u) as a grid found in a photo may be
CELL_PHOTOS = {"full": 2400, "quick": 4}
CELL_SHIFT_U = 0.04
CELL_CONVNETS = {"full": 2, "quick": 1}  # averaged, as the character networks are
CELL_CONVNET = {
    "full": ConvNetRecipe(
        width=32, hidden=256, epochs=12, turn=0.12, shear=0.15, zoom=0.12, shift_px=2.0, gain=0.3
    ),
    "quick": ConvNetRecipe(width=8, hidden=32, epochs=1, gain=0.3),
}
PRINT_WEIGHT = 6  # each empty printed cell's blob counts this many times (printed letters are few)
PHOTO_WEIGHT = 3  # each blob from a photo counts as this many examples (they are few, and real)
#: photo seeds: DIGITS_SEED_BASE + 10_000·seed + i (neither the reader's training nor benchmarks)
DIGITS_SEED_BASE = 80_000_000


def degrade(d: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A darkness map as a phone photo would give it: lower resolution, blur, contrast, noise."""
    h, w = d.shape
    f = rng.uniform(0.35, 1.0)
    small = cv2.resize(d, (max(2, int(w * f)), max(2, int(h * f))), interpolation=cv2.INTER_AREA)
    out = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    sigma = rng.uniform(0.0, 0.9)
    if sigma > 0.2:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    out = out * rng.uniform(0.3, 1.0) + rng.normal(0, rng.uniform(0.003, 0.025), out.shape)
    return np.clip(out, 0.0, 1.0).astype(np.float32)


def _tooth(shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """The paper's grain breaking a pencil stroke (1 = the stroke as drawn)."""
    grain = cv2.GaussianBlur(rng.standard_normal(shape).astype(np.float32), (0, 0), 0.7)
    return np.clip(0.75 + 0.9 * grain, 0.15, 1.0)


def _on_cell(ink: np.ndarray, px: float, rng: np.random.Generator) -> np.ndarray:
    """Rendered ink (density at ``px`` per u) scaled to ``BOX_PX``, on a margin of paper."""
    s = BOX_PX / px
    h, w = ink.shape
    ink = cv2.resize(ink, (max(2, int(w * s)), max(2, int(h * s))), interpolation=cv2.INTER_AREA)
    if rng.random() < 0.6:
        ink = ink * _tooth(ink.shape, rng)
    d = np.pad(ink * rng.uniform(0.35, 0.8), int(rng.integers(3, 16)))
    return degrade(d, rng)


def _largest_blob_features(d: np.ndarray) -> np.ndarray | None:
    """Features of the one blob the reader finds in ``d`` (None when it finds none or several:
    a piece of a broken character is not the character)."""
    blobs = find_blobs(d, BOX_PX)
    return blob_features(blobs, BOX_PX)[0] if len(blobs) == 1 else None


def generated_examples(n: int, n_crossed: int, rng: np.random.Generator) -> tuple[list, list]:
    """Digits and minus signs (``n`` each), and ``n_crossed`` each of crossed-out numbers,
    pieces of digits cut apart and numbers whose digits touch, by the generator's hands."""
    xs, ys = [], []
    for label, ch in enumerate(CLASSES[:11]):
        for _ in range(n):
            px = float(rng.uniform(35, 90))
            f = _largest_blob_features(_on_cell(render_chars(ch, rng, px), px, rng))
            if f is not None:
                xs.append(f)
                ys.append(label)
    for _ in range(n_crossed):
        px = float(rng.uniform(35, 90))
        text = str(int(rng.integers(0, 100 if rng.random() < 0.6 else 10)))
        f = _largest_blob_features(_on_cell(render_chars(text, rng, px, crossed=True), px, rng))
        if f is not None:
            xs.append(f)
            ys.append(SCRIBBLE)
    for _ in range(n_crossed):
        f = _piece(rng)
        if f is not None:
            xs.append(f)
            ys.append(NOISE)
    for _ in range(n_crossed):
        f = _touching(rng)
        if f is not None:
            xs.append(f)
            ys.append(MANY)
    return xs, ys


def _piece(rng: np.random.Generator) -> np.ndarray | None:
    """Features of one side of a digit cut in two: a cut in the wrong place reads as no
    character."""
    from vision.seasons import _cut

    ch = str(int(rng.integers(10)))
    px = float(rng.uniform(35, 90))
    blobs = find_blobs(_on_cell(render_chars(ch, rng, px), px, rng), BOX_PX)
    if len(blobs) != 1 or blobs[0].width < 6:
        return None
    blob = blobs[0]
    pieces = _cut(blob, [int(blob.width * rng.uniform(0.25, 0.75))])
    if len(pieces) < 2:
        return None
    return blob_features([pieces[int(rng.integers(2))]], BOX_PX)[0]


def _touching(rng: np.random.Generator) -> np.ndarray | None:
    """Features of a number whose characters touch, when the blob finder sees them as one."""
    from dataclasses import replace

    from vision.synth.pens import Hand

    writer = WritingHand.random(rng, Hand.random(rng))
    writer = replace(writer, gap=float(rng.uniform(-0.12, 0.04)))
    text = ("-" if rng.random() < 0.25 else "") + str(
        int(rng.integers(0, 1000 if rng.random() < 0.2 else 100))
    )
    if len(text) < 2:
        text = "-" + text
    px = float(rng.uniform(35, 90))
    blobs = find_blobs(_on_cell(render_chars(text, rng, px, writer), px, rng), BOX_PX)
    return blob_features(blobs, BOX_PX)[0] if len(blobs) == 1 else None


def sklearn_digit_examples(images: np.ndarray, rng: np.random.Generator) -> list:
    """``load_digits`` images (8 × 8, 0…16) as the reader would see them written 0.2–0.55 u tall."""
    out = []
    for img in images:
        height = rng.uniform(0.22, 0.55) * BOX_PX
        width = height * rng.uniform(0.75, 1.0)
        ink = cv2.resize(
            img.reshape(8, 8).astype(np.float32) / 16.0,
            (max(3, int(width)), max(3, int(height))),
            interpolation=cv2.INTER_CUBIC,
        )
        ink = np.clip(ink, 0, 1)
        pad = int(rng.integers(3, 16))
        out.append(_largest_blob_features(degrade(np.pad(ink * rng.uniform(0.35, 0.8), pad), rng)))
    return out


def print_examples(copies: int, rng: np.random.Generator) -> list:
    """Every blob of the empty writing cells of ``copies`` generated printings of each family,
    side and variant (each printing its own box print: letters, icons, shield), degraded and a
    little off where the reader would sample it."""
    from vision.synth.art import ART_FAMILIES, render_art

    out = []
    for family in ART_FAMILIES:
        for side in ("A", "B"):
            for variant in ("print", "photocopy", "white-print"):
                for _ in range(copies):
                    rendered = render_art(family, side, BOX_PX, variant, rng)
                    strip = flat_strip(rendered, rng.normal(0, 0.03, 2))
                    strip = 1.0 - degrade(1.0 - strip.astype(np.float32) / 255.0, rng)
                    out += _strip_blobs((strip * 255).astype(np.uint8))
    return out


def flat_strip(rendered: RenderedSheet, shift: np.ndarray | None = None) -> np.ndarray:
    """The box strip (:data:`vision.season_boxes.STRIP`) of a flat sheet rendered at ``BOX_PX``
    per u, grey, as the reader samples it from a photo (``shift``: u the sampling is off by)."""
    from vision.season_boxes import STRIP

    pad = BOX_PX  # the strip reaches a little past the paper's edge
    grey = cv2.copyMakeBorder(
        cv2.cvtColor(rendered.image, cv2.COLOR_BGR2GRAY), pad, pad, pad, pad, cv2.BORDER_REPLICATE
    )
    ox, oy = np.array(rendered.origin_u) + (0.0 if shift is None else shift)
    x0 = int(round((STRIP[0] - ox) * BOX_PX)) + pad
    y0 = int(round((STRIP[2] - oy) * BOX_PX)) + pad
    w = int(round((STRIP[1] - STRIP[0]) * BOX_PX))
    h = int(round((STRIP[3] - STRIP[2]) * BOX_PX))
    return grey[y0 : y0 + h, x0 : x0 + w]


def _strip_blobs(strip: np.ndarray) -> list:
    """Features of every blob in every writing cell of a box strip, found as the reader finds
    them."""
    inks, line, grain = strip_inks(strip, BOX_PX)
    rows: list = []
    for ink in inks.values():
        rows.extend(blob_features(find_blobs(ink, BOX_PX, line, grain), BOX_PX))
    return rows


def _accuracy(model: DigitModel, x: np.ndarray, y: np.ndarray) -> float:
    """Share of rows whose most probable class is their label."""
    if len(x) == 0:
        return float("nan")
    return float((model.probabilities(x).argmax(axis=1) == y).mean())


def _stack(xs: list, ys: list) -> tuple[np.ndarray, np.ndarray]:
    """Feature rows and labels, the rows the blob finder missed dropped."""
    pairs = [(x, y) for x, y in zip(xs, ys) if x is not None]
    return np.array([x for x, _ in pairs], np.float32), np.array([y for _, y in pairs], np.int64)


def build_data(seed: int, recipe: str, log: Callable[[str], None]) -> dict:
    """Training and validation rows of every source (see the module's docstring)."""
    from sklearn.datasets import load_digits

    rng = np.random.default_rng(seed)
    bunch = load_digits()
    order = np.random.default_rng(0).permutation(len(bunch.target))  # a fixed split, any seed
    test = order[: len(order) // 4]
    train = order[len(order) // 4 :]
    if recipe == "quick":
        train = train[:300]
    real_x = sklearn_digit_examples(bunch.data[train], rng)
    real_test = _stack(sklearn_digit_examples(bunch.data[test], rng), list(bunch.target[test]))
    log(f"load_digits: {len(train)} training, {len(test)} validation digits")
    gen_x, gen_y = generated_examples(GENERATED[recipe], SCRIBBLED[recipe], rng)
    held = np.random.default_rng(seed + 10_000)  # other writers: the held-out generator figure
    held_x, held_y = generated_examples(max(10, GENERATED[recipe] // 10), 60, held)
    log(f"generator: {len(gen_x)} blobs")
    printed = print_examples(PRINT_RENDERS[recipe], rng)
    log(f"print: {len(printed)} blobs of empty printed cells")
    t0 = time.time()
    photo_x, photo_y, cells, cell_y = photo_examples(PHOTOS[recipe], CELL_PHOTOS[recipe], seed)
    log(
        f"photos: {len(photo_x)} blobs of {PHOTOS[recipe]} photos, {len(cells)} cells of "
        f"{CELL_PHOTOS[recipe]} photos in {time.time() - t0:.0f} s"
    )
    x, y = _stack(
        real_x + gen_x + printed * PRINT_WEIGHT + photo_x * PHOTO_WEIGHT,
        list(bunch.target[train])
        + gen_y
        + [NOISE] * len(printed) * PRINT_WEIGHT
        + photo_y * PHOTO_WEIGHT,
    )
    return {
        "train": (x, y),
        "cells": (np.array(cells, np.float32), np.array(cell_y, np.int64)),
        "load_digits_test": real_test,
        "generator_test": _stack(held_x, held_y),
    }


def fit(
    x: np.ndarray, y: np.ndarray, seed: int, quick: bool, log: Callable[[str], None] = print
) -> DigitModel:
    """``NETWORKS`` standardised MLPs over the whole rows and ``CONVNETS`` convolutional
    networks over the patch and the shape (:func:`vision.digits.conv_inputs`), each fitted on
    ``x``, ``y`` from its own start and exported to arrays (the reader averages them)."""
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from vision.convnet_train import train_convnet
    from vision.inference import export

    recipe = "quick" if quick else "full"
    networks: list = []
    for k in range(NETWORKS[recipe]):
        mlp = MLPClassifier(
            hidden_layer_sizes=HIDDEN,
            alpha=ALPHA,
            max_iter=60 if quick else 250,
            early_stopping=not quick,
            random_state=1000 * seed + k,
        )
        networks.append(export(make_pipeline(StandardScaler(), mlp).fit(x, y), x[:256]))
        log(f"perceptron {k + 1}/{NETWORKS[recipe]} fitted")
    pictures, numbers = x[:, PATCH_COLUMNS], x[:, SHAPE_COLUMNS]
    for k in range(CONVNETS[recipe]):
        log(f"convolutional network {k + 1}/{CONVNETS[recipe]}:")
        networks.append(train_convnet(pictures, numbers, y, 1000 * seed + k, CONVNET[recipe], log))
    return DigitModel(tuple(networks))


CELL_ROWS_PER_PHOTO = 42  # 21 writing cells, sampled twice
CELL_HELD_OUT = 20  # every this-many-th photo's cells are kept for the validation figure


def fit_cells(
    rows: np.ndarray, labels: np.ndarray, seed: int, quick: bool, log: Callable[[str], None] = print
) -> tuple:
    """``CELL_CONVNETS`` whole-cell networks (:mod:`vision.cell_numbers`) fitted on cell rows and
    their (N, len(HEADS)) labels, each from its own start, kept in half precision (their dense
    layers are most of the model file)."""
    from vision.convnet_train import in_half_precision, train_convnet

    recipe = "quick" if quick else "full"
    area = CELL_SIDE * CELL_SIDE
    pictures, numbers = rows[:, :area], rows[:, area:]
    networks = []
    for k in range(CELL_CONVNETS[recipe]):
        log(f"whole-cell network {k + 1}/{CELL_CONVNETS[recipe]}:")
        fitted = train_convnet(
            pictures, numbers, labels, 1000 * seed + 500 + k, CELL_CONVNET[recipe], log, HEADS
        )
        networks.append(in_half_precision(fitted))
    return tuple(networks)


def cell_accuracy(model: DigitModel, rows: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    """(written cells whose likeliest number is theirs, blank cells read blank) of labelled cell
    rows, by the whole-cell networks alone."""
    from vision.cell_numbers import LAYOUTS, number_candidates

    right = {True: [], False: []}
    for probs, lab in zip(model.cell_probabilities(rows), labels):
        digits = "".join(str(d) for d in reversed(lab[1:]) if d >= 0)
        sign = "-" if LAYOUTS[lab[0]].startswith("-") else ""
        true = int(sign + digits) if digits else None
        cands = number_candidates(probs, signed=True)
        right[true is None].append(max(cands, key=cands.get) == true)
    share = lambda xs: float(np.mean(xs)) if xs else float("nan")  # noqa: E731
    return share(right[False]), share(right[True])


def train_digits(seed: int, quick: bool = False, log: Callable[[str], None] = print) -> DigitModel:
    """Build the data, fit, and measure; the model's ``meta`` records how and how well."""
    import sklearn

    t0 = time.time()
    data = build_data(seed, "quick" if quick else "full", log)
    x, y = data["train"]
    model = fit(x, y, seed, quick, log)
    cells, cell_y = data["cells"]
    every = max(2, min(CELL_HELD_OUT, len(cells) // CELL_ROWS_PER_PHOTO))
    held = (np.arange(len(cells)) // CELL_ROWS_PER_PHOTO) % every == every - 1
    whole = fit_cells(cells[~held], cell_y[~held], seed, quick, log)
    model = DigitModel(model.networks, cell_networks=whole)
    counts = {CLASSES[k]: int((y == k).sum()) for k in range(len(CLASSES))}
    cell_numbers, cell_blanks = cell_accuracy(model, cells[held], cell_y[held])
    figures = {
        "load_digits_test_accuracy": _accuracy(model, *data["load_digits_test"]),
        "generator_test_accuracy": _accuracy(model, *data["generator_test"]),
        "train_accuracy": _accuracy(model, x, y),
        "cell_test_numbers_exact": cell_numbers,
        "cell_test_blanks_exact": cell_blanks,
    }
    log(", ".join(f"{k} {v:.4f}" for k, v in figures.items()))
    meta = {
        "command": " ".join(["cartographers", "train-digits", "--seed", str(seed)])
        + (" --quick" if quick else ""),
        "seed": seed,
        "recipe": "quick" if quick else "full",
        "classes": list(CLASSES),
        "hidden": list(HIDDEN),
        "alpha": ALPHA,
        "networks": len(model.networks),
        "convnet": asdict(CONVNET["quick" if quick else "full"]),
        "cell_networks": len(model.cell_networks),
        "cell_convnet": asdict(CELL_CONVNET["quick" if quick else "full"]),
        "examples": counts,
        "cell_examples": {
            "photos": CELL_PHOTOS["quick" if quick else "full"],
            "cells": int((~held).sum()),
            "held_out": int(held.sum()),
        },
        "validation": {k: round(v, 4) for k, v in figures.items()},
        "seconds": round(time.time() - t0, 1),
        "versions": {
            "python": sys.version.split()[0],
            "numpy": np.__version__,
            "scikit-learn": sklearn.__version__,
            "opencv": cv2.__version__,
            "torch": str(require_torch().__version__),
            "platform": platform.platform(),
        },
    }
    return DigitModel(model.networks, meta, model.cell_networks)


# ---- blobs and cells harvested from synthetic photos -----------------------------------------


def _photo_art(seed: int) -> str:
    """The printing of harvest photo ``seed``: our look-alike for even seeds, the other art
    families in turn for odd ones.

    >>> [_photo_art(s) for s in range(6)]
    ['lookalike', 'line-art', 'lookalike', 'engraved', 'lookalike', 'woodcut']
    """
    from vision.synth.art import ART_FAMILIES

    return ART_FAMILIES[1 + (seed // 2) % (len(ART_FAMILIES) - 1)] if seed % 2 else "lookalike"


def _photo_examples(task: tuple[int, bool]) -> tuple[list, list, list, list]:
    """One synthetic photo's labelled blobs (when ``task`` asks for them) and labelled whole
    writing cells (:func:`vision.cell_numbers.cell_picture`, with
    :func:`~vision.cell_numbers.number_labels`), read as the reader reads them from the true grid;
    the cells a second time from a grid ``CELL_SHIFT_U`` off.

    A blank cell's blobs are print or smudges; a written cell whose blobs are as many as its
    number's characters gives each blob its character, left to right; other cells (touching
    characters, crossed-out numbers) give no blob. Every cell gives its whole picture, labelled
    with what was last written in it."""
    cv2.setNumThreads(1)
    from scoring.written import WrittenScores
    from vision import season_boxes
    from vision.bench_written import cell_values
    from vision.coins.track import _curl_model, refine_track
    from vision.load import load_photo
    from vision.synth import make_photo

    seed, with_blobs = task
    rng = np.random.default_rng(seed)
    photo = make_photo(seed, art_family=_photo_art(seed), megapixels=float(rng.uniform(1.2, 4.0)))
    loaded = load_photo(photo.jpeg)
    # the grid where the truth puts it: the reader's own mapping from there on
    crossings = np.asarray(photo.truth["intersections"], np.float64) / loaded.scale
    to_photo = refine_track(loaded.image, _curl_model(crossings))
    truth = photo.truth["written"]
    values = cell_values(WrittenScores.from_json(truth))
    on_grid = strip_inks(season_boxes.sample_strip(loaded.image, to_photo), BOX_PX)
    xs, ys = _label_blobs(on_grid, values, truth) if with_blobs else ([], [])
    du, dv = rng.normal(0.0, CELL_SHIFT_U, 2)
    off = season_boxes.sample_strip(loaded.image, lambda u, v: to_photo(u + du, v + dv))
    cells, labels = _label_cells(on_grid, values, truth)
    more, more_labels = _label_cells(strip_inks(off, BOX_PX), values, truth)
    return xs, ys, cells + more, labels + more_labels


def _label_cells(inks: tuple, values: dict, truth: dict) -> tuple[list, list]:
    """Every writing cell of a strip's inks (:func:`vision.seasons.strip_inks`) as the whole-cell
    network's row, and its labels (``values``: the true number of each cell)."""
    cells, line, grain = inks
    rows, labels = [], []
    for key, ink in cells.items():
        value = values[key]
        text = "" if value is None else _written_text(key, value, truth)
        rows.append(cell_picture(ink, key, line, grain))
        labels.append(number_labels(text))
    return rows, labels


def _label_blobs(inks: tuple, values: dict, truth: dict) -> tuple[list, list]:
    """Labelled blob features of every writing cell of a strip's inks
    (:func:`_photo_examples`)."""
    crossed = set(truth.get("crossed_out", {}))
    cells, line, grain = inks
    xs, ys = [], []
    for key, ink in cells.items():
        blobs = find_blobs(ink, BOX_PX, line, grain)
        value = values[key]
        if value is None:
            labels = [NOISE] * len(blobs)
        elif key in crossed or len(blobs) != len(_written_text(key, value, truth)):
            continue
        else:
            labels = [CLASSES.index(ch) for ch in _written_text(key, value, truth)]
        if blobs:
            xs.extend(blob_features(blobs, BOX_PX))
            ys.extend(labels)
    return xs, ys


def _written_text(key: str, value: int, truth: dict) -> str:
    """The characters written for ``value`` (a monster penalty with its minus sign when the
    player wrote one)."""
    if key.endswith(".monsters") and value > 0 and truth.get("monsters_minus"):
        return f"-{value}"
    return str(value)


def photo_examples(
    n_blobs: int, n_cells: int, seed: int, workers: int = 2
) -> tuple[list, list, list, list]:
    """Labelled blobs of ``n_blobs`` synthetic photos and labelled whole cells of ``n_cells``
    (the same photos first), made and read by ``workers`` processes."""
    from multiprocessing import get_context

    n = max(n_blobs, n_cells)
    tasks = [(DIGITS_SEED_BASE + 10_000 * seed + i, i < n_blobs) for i in range(n)]
    with get_context("spawn").Pool(workers) as pool:
        parts = pool.map(_photo_examples, tasks, chunksize=1)
    return tuple([row for part in parts for row in part[k]] for k in range(4))
