"""The handwritten-character classifier of the season boxes: one ink blob → a digit, a minus sign,
print/noise, a crossed-out number, or several touching characters (to be cut apart).

Each blob is described the same way in training and reading (:func:`patch_features`): its ink
density cropped to its bounding box, padded square and resized to ``PATCH`` × ``PATCH``, the
same ink stretched to ``STRETCH`` × ``STRETCH`` whatever its aspect, the directions of its strokes
(:func:`stroke_directions`), plus its shape (aspect, size in grid units, ink fill). The
classifier is two kinds of small networks, each fitted a few times from different starts:
perceptrons over the whole row and convolutional networks over the patch as a picture and the
shape (:func:`conv_inputs`). Each kind's probabilities are averaged, then the two kinds'. They
are exported to plain arrays (:mod:`vision.inference`), saved as ``models/digits.npz`` +
``models/digits.json`` and loaded with ``allow_pickle=False``: nothing in the file can run code.
``cartographers train-digits`` makes it (:mod:`vision.digits_train`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.cell_numbers import HEADS, N_CELL_INPUTS
from vision.inference import ConvNet, Network, from_arrays, to_arrays

PATCH = 16  # side of the normalised patch, px
#: a digit, a minus sign, print or a smudge, a crossed-out number, several touching characters
CLASSES = tuple("0123456789") + ("-", "noise", "scribble", "many")
NOISE, SCRIBBLE, MANY = CLASSES.index("noise"), CLASSES.index("scribble"), CLASSES.index("many")
SHAPE_NAMES = ("log_aspect", "height_u", "width_u", "fill")
DIRECTION_CELL = 4  # stroke directions are counted in square cells of this many patch pixels…
DIRECTION_BINS = 9  # …in this many directions (0–180°)
N_DIRECTIONS = (PATCH // DIRECTION_CELL) ** 2 * DIRECTION_BINS
STRETCH = 12  # side of the blob's ink stretched to a square (its aspect is left to the shape)
#: a blob's feature row (vision.seasons.blob_features): the patch, the stretched patch, the
#: patch's stroke directions, the shape and the distance from the cell's edges
N_FEATURES = PATCH * PATCH + STRETCH * STRETCH + N_DIRECTIONS + len(SHAPE_NAMES) + 1
PATCH_COLUMNS = slice(0, PATCH * PATCH)  # the patch: the convolutional networks' picture…
SHAPE_COLUMNS = slice(N_FEATURES - len(SHAPE_NAMES) - 1, N_FEATURES)  # …and numbers beside it
N_CONV_INPUTS = PATCH * PATCH + len(SHAPE_NAMES) + 1
MODEL_DIR = Path(__file__).resolve().parent.parent / "models"
PREFIX = "digits/"
CELL_PREFIX = "cells/"  # the whole-cell networks (vision.cell_numbers) in the same file


def stroke_directions(patch: np.ndarray) -> np.ndarray:
    """How the strokes of a ``PATCH`` × ``PATCH`` picture run, cell by cell: in each
    ``DIRECTION_CELL``² cell, the gradient's strength summed into ``DIRECTION_BINS`` directions;
    the whole scaled to unit length. A "1" and a "7" differ more here than pixel by pixel.

    >>> bar = np.zeros((PATCH, PATCH), np.float32); bar[:, 7:9] = 1.0  # a vertical stroke
    >>> h = stroke_directions(bar).reshape(-1, DIRECTION_BINS).sum(axis=0)
    >>> int(np.argmax(h))  # its edges' gradient points across it: direction 0°
    0
    """
    gy, gx = np.gradient(patch.astype(np.float32))
    strength = np.hypot(gx, gy)
    direction = np.minimum(
        ((np.arctan2(gy, gx) % np.pi) / np.pi * DIRECTION_BINS).astype(int), DIRECTION_BINS - 1
    )
    n = PATCH // DIRECTION_CELL
    cell = (np.arange(PATCH) // DIRECTION_CELL)[:, None] * n + np.arange(PATCH) // DIRECTION_CELL
    bins = (cell * DIRECTION_BINS + direction).ravel()
    hist = np.bincount(bins, strength.ravel(), n * n * DIRECTION_BINS).astype(np.float32)
    return hist / (float(np.linalg.norm(hist)) + 1e-6)


def patch_features(ink: np.ndarray, px_per_u: float) -> np.ndarray:
    """One blob's features: its normalised ``PATCH``² density picture, the same ink stretched to
    ``STRETCH``², the picture's :func:`stroke_directions` and its shape.

    ``ink`` is the blob's density (0 = paper) cropped around it, at ``px_per_u`` pixels per grid
    unit.

    >>> blob = np.zeros((20, 8), np.float32); blob[2:18, 3:5] = 1.0  # a "1"
    >>> f = patch_features(blob, 40.0); f.shape, round(float(f[-3]), 2)
    ((548,), 0.4)
    """
    on = ink > 0.15 * max(float(ink.max()), 1e-6)
    ys, xs = np.nonzero(on)
    if len(ys) == 0:
        return np.zeros(N_FEATURES - 1, np.float32)
    crop = ink[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1].astype(np.float32)
    h, w = crop.shape
    side = max(h, w) + 2
    square = np.zeros((side, side), np.float32)
    y0, x0 = (side - h) // 2, (side - w) // 2
    square[y0 : y0 + h, x0 : x0 + w] = crop
    small = cv2.resize(square, (PATCH, PATCH), interpolation=cv2.INTER_AREA)
    small /= max(float(small.max()), 1e-6)
    shape = [np.log(h / w), h / px_per_u, w / px_per_u, float(on[ys.min() :, xs.min() :].mean())]
    # the ink stretched to fill a square: a narrow digit's strokes in as many pixels as a wide one's
    stretched = cv2.resize(crop, (STRETCH, STRETCH), interpolation=cv2.INTER_AREA)
    stretched /= max(float(stretched.max()), 1e-6)
    parts = [small.ravel(), stretched.ravel(), stroke_directions(small)]
    parts.append(np.array(shape, np.float32))
    return np.concatenate(parts).astype(np.float32)


def conv_inputs(features: np.ndarray) -> np.ndarray:
    """The convolutional networks' rows of feature rows: the patch (a ``PATCH`` × ``PATCH``
    picture, row by row), then the shape and the distance from the cell's edges.

    >>> conv_inputs(np.arange(N_FEATURES, dtype=np.float32)[None]).shape == (1, N_CONV_INPUTS)
    True
    """
    return np.hstack([features[:, PATCH_COLUMNS], features[:, SHAPE_COLUMNS]])


@dataclass(frozen=True)
class DigitModel:
    """The exported networks and what they were trained on. Each kind's probabilities are
    averaged (perceptrons, convolutional networks), then the kinds' means. ``cell_networks``
    read a writing cell whole (:mod:`vision.cell_numbers`); their probabilities are averaged."""

    networks: tuple[Network | ConvNet, ...]
    meta: dict = field(default_factory=dict)
    cell_networks: tuple[ConvNet, ...] = ()

    def cell_probabilities(self, rows: np.ndarray) -> np.ndarray:
        """(N, sum(HEADS)) the whole-cell networks' mean probabilities of cell rows
        (:func:`vision.cell_numbers.cell_picture`), each head's softmax side by side."""
        out = np.zeros((len(rows), sum(HEADS)), np.float32)
        if len(rows) == 0 or not self.cell_networks:
            return out
        x = np.asarray(rows, np.float32)
        for network in self.cell_networks:
            out += network.predict_proba(x) / len(self.cell_networks)
        return out

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """(N, len(CLASSES)) class probabilities of feature rows (:data:`N_FEATURES` columns)."""
        out = np.zeros((len(features), len(CLASSES)), np.float32)
        if len(features) == 0:
            return out
        x = np.asarray(features, np.float32)
        kinds = self._kinds
        for members in kinds:
            rows = x if isinstance(members[0], Network) else conv_inputs(x)
            for network in members:
                p = network.predict_proba(rows)
                out[:, network.classes.astype(int)] += p / (len(members) * len(kinds))
        return out

    @cached_property
    def _kinds(self) -> list[list[Network | ConvNet]]:
        """The networks grouped by kind (perceptrons, then convolutional networks), once."""
        kinds = [[n for n in self.networks if isinstance(n, k)] for k in (Network, ConvNet)]
        return [members for members in kinds if members]

    def input_problem(self) -> str | None:
        """What is wrong with the networks' inputs for this version's features (None: nothing)."""
        expected = {Network: N_FEATURES, ConvNet: N_CONV_INPUTS}
        for network in self.networks:
            want = expected[type(network)]
            if network.n_features_in_ != want:
                name = type(network).__name__
                return (
                    f"a {name} reads {network.n_features_in_} features, this version makes {want}"
                )
        for network in self.cell_networks:
            if network.n_features_in_ != N_CELL_INPUTS or network.heads != HEADS:
                return (
                    f"a whole-cell network reads {network.n_features_in_} inputs into heads "
                    f"{network.heads}, this version needs {N_CELL_INPUTS} into {HEADS}"
                )
        return None

    def save(self, directory: Path) -> tuple[Path, Path]:
        """``digits.npz`` (arrays only) and ``digits.json`` (how it was made) in ``directory``."""
        directory.mkdir(parents=True, exist_ok=True)
        npz, meta = directory / "digits.npz", directory / "digits.json"
        arrays = {}
        for k, network in enumerate(self.networks):
            arrays.update(to_arrays(network, f"{PREFIX}{k}/"))
        for k, network in enumerate(self.cell_networks):
            arrays.update(to_arrays(network, f"{CELL_PREFIX}{k}/"))
        np.savez_compressed(npz, **arrays)
        meta.write_text(json.dumps(self.meta, indent=1) + "\n")
        return npz, meta


def load_digit_model(directory: Path | str = MODEL_DIR) -> DigitModel:
    """The digit model saved in ``directory`` (never unpickles anything).

    Raises ``ValueError`` when the file holds something else than networks over this version's
    features (an older layout: run ``cartographers train-digits``)."""
    directory = Path(directory)
    with np.load(directory / "digits.npz", allow_pickle=False) as arrays:
        data = {k: arrays[k] for k in arrays.files}

    def stored(prefix: str) -> tuple:
        count = 0
        while f"{prefix}{count}/kind" in data:
            count += 1
        return tuple(from_arrays(data, f"{prefix}{k}/") for k in range(count))

    networks, cell_networks = stored(PREFIX), stored(CELL_PREFIX)
    meta_path = directory / "digits.json"
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    if not networks or not all(isinstance(n, (Network, ConvNet)) for n in networks):
        raise ValueError("models/digits.npz must hold networks: run cartographers train-digits")
    if not all(isinstance(n, ConvNet) for n in cell_networks):
        raise ValueError("models/digits.npz: its whole-cell readers must be convolutional networks")
    model = DigitModel(networks, meta, cell_networks)
    problem = model.input_problem()
    if problem:
        raise ValueError(f"models/digits.npz: {problem}: run cartographers train-digits")
    return model


@lru_cache(maxsize=1)
def default_digit_model() -> DigitModel:
    """The shipped digit model, loaded once per process."""
    return load_digit_model(MODEL_DIR)
