"""The handwritten-character classifier of the season boxes: one ink blob → a digit, a minus sign,
print/noise, a crossed-out number, or several touching characters (to be cut apart).

Each blob is described the same way in training and reading (:func:`patch_features`): its ink
density cropped to its bounding box, padded square and resized to ``PATCH`` × ``PATCH``, plus its
shape (aspect, size in grid units, ink fill). The network is a small MLP exported to plain arrays
(:mod:`vision.inference`), saved as ``models/digits.npz`` + ``models/digits.json`` and loaded with
``allow_pickle=False``: nothing in the file can run code. ``cartographers train-digits`` makes it
(:mod:`vision.digits_train`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.inference import Network, from_arrays, to_arrays

PATCH = 16  # side of the normalised patch, px
#: a digit, a minus sign, print or a smudge, a crossed-out number, several touching characters
CLASSES = tuple("0123456789") + ("-", "noise", "scribble", "many")
NOISE, SCRIBBLE, MANY = CLASSES.index("noise"), CLASSES.index("scribble"), CLASSES.index("many")
SHAPE_NAMES = ("log_aspect", "height_u", "width_u", "fill")
MODEL_DIR = Path(__file__).resolve().parent.parent / "models"
PREFIX = "digits/"


def patch_features(ink: np.ndarray, px_per_u: float) -> np.ndarray:
    """One blob's features: its normalised ``PATCH``² density picture and its shape.

    ``ink`` is the blob's density (0 = paper) cropped around it, at ``px_per_u`` pixels per grid
    unit.

    >>> blob = np.zeros((20, 8), np.float32); blob[2:18, 3:5] = 1.0  # a "1"
    >>> f = patch_features(blob, 40.0); f.shape, round(float(f[-3]), 2)
    ((260,), 0.4)
    """
    on = ink > 0.15 * max(float(ink.max()), 1e-6)
    ys, xs = np.nonzero(on)
    if len(ys) == 0:
        return np.zeros(PATCH * PATCH + len(SHAPE_NAMES), np.float32)
    crop = ink[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1].astype(np.float32)
    h, w = crop.shape
    side = max(h, w) + 2
    square = np.zeros((side, side), np.float32)
    y0, x0 = (side - h) // 2, (side - w) // 2
    square[y0 : y0 + h, x0 : x0 + w] = crop
    small = cv2.resize(square, (PATCH, PATCH), interpolation=cv2.INTER_AREA)
    small /= max(float(small.max()), 1e-6)
    shape = [np.log(h / w), h / px_per_u, w / px_per_u, float(on[ys.min() :, xs.min() :].mean())]
    return np.concatenate([small.ravel(), np.array(shape, np.float32)]).astype(np.float32)


@dataclass(frozen=True)
class DigitModel:
    """The exported network and what it was trained on."""

    network: Network
    meta: dict = field(default_factory=dict)

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """(N, len(CLASSES)) class probabilities of feature rows."""
        if len(features) == 0:
            return np.zeros((0, len(CLASSES)), np.float32)
        p = self.network.predict_proba(np.asarray(features, np.float32))
        out = np.zeros((len(p), len(CLASSES)), np.float32)
        out[:, self.network.classes.astype(int)] = p
        return out

    def save(self, directory: Path) -> tuple[Path, Path]:
        """``digits.npz`` (arrays only) and ``digits.json`` (how it was made) in ``directory``."""
        directory.mkdir(parents=True, exist_ok=True)
        npz, meta = directory / "digits.npz", directory / "digits.json"
        np.savez_compressed(npz, **to_arrays(self.network, PREFIX))
        meta.write_text(json.dumps(self.meta, indent=1) + "\n")
        return npz, meta


def load_digit_model(directory: Path | str = MODEL_DIR) -> DigitModel:
    """The digit model saved in ``directory`` (never unpickles anything)."""
    directory = Path(directory)
    with np.load(directory / "digits.npz", allow_pickle=False) as arrays:
        network = from_arrays({k: arrays[k] for k in arrays.files}, PREFIX)
    meta_path = directory / "digits.json"
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    if not isinstance(network, Network):
        raise ValueError("models/digits.npz must hold a network")
    return DigitModel(network, meta)


@lru_cache(maxsize=1)
def default_digit_model() -> DigitModel:
    """The shipped digit model, loaded once per process."""
    return load_digit_model(MODEL_DIR)
