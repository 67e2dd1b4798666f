"""Photos that are almost a map sheet, made here: the inputs of the reader's robustness tests.

Each maker takes a seed and returns a BGR photo. None of them is a readable sheet except, perhaps,
the ones made from a real rendered sheet (cropped, turned, shrunk, blurred, inverted); the reader
must answer each with a reading or a clear "no map grid found", never another exception.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "typical-a.jpg"
_SHEET: list[np.ndarray] = []


def sample_sheet() -> np.ndarray:
    """The bundled sample photo, decoded once and shrunk to 1 200 px on its long side."""
    if not _SHEET:
        img = cv2.imread(str(SAMPLE))
        s = 1200 / max(img.shape[:2])
        _SHEET.append(cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA))
    return _SHEET[0].copy()


def _table(rng: np.random.Generator, h: int = 900, w: int = 1200) -> np.ndarray:
    base = np.full((h, w, 3), rng.integers(90, 200, 3), np.uint8)
    return cv2.add(base, rng.integers(0, 25, (h, w, 3), dtype=np.uint8))


def _lattice(
    img: np.ndarray,
    x0: float,
    y0: float,
    step: float,
    rng: np.random.Generator,
    rows: bool = True,
    cols: bool = True,
    n: int = 12,
) -> None:
    colour = tuple(int(v) for v in rng.integers(0, 80, 3))
    width = int(rng.integers(1, 4))
    end = (n - 1) * step
    for i in range(n):
        if cols:
            cv2.line(
                img,
                (int(x0 + i * step), int(y0)),
                (int(x0 + i * step), int(y0 + end)),
                colour,
                width,
            )
        if rows:
            cv2.line(
                img,
                (int(x0), int(y0 + i * step)),
                (int(x0 + end), int(y0 + i * step)),
                colour,
                width,
            )


def lines_one_axis(seed: int) -> np.ndarray:
    """Twelve parallel lines a cell apart, and nothing across them."""
    rng = np.random.default_rng(seed)
    img = _table(rng)
    _lattice(img, 250, 120, 60, rng, rows=bool(seed % 2), cols=not seed % 2)
    return img


def bare_lattice(seed: int) -> np.ndarray:
    """A 12 × 12 lattice of lines with nothing printed in its cells: no mountains, no coin track."""
    rng = np.random.default_rng(seed)
    img = _table(rng)
    _lattice(img, 260, 110, float(rng.uniform(50, 62)), rng)
    return img


def two_lattices(seed: int) -> np.ndarray:
    """Two bare lattices side by side."""
    rng = np.random.default_rng(seed)
    img = _table(rng, 800, 1500)
    _lattice(img, 40, 100, 55, rng)
    _lattice(img, 780, 120, 55, rng)
    return img


def extreme_perspective(seed: int) -> np.ndarray:
    """The sample sheet seen almost edge-on."""
    rng = np.random.default_rng(seed)
    img = sample_sheet()
    h, w = img.shape[:2]
    squeeze = float(rng.uniform(0.02, 0.12))
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = np.float32([[w * (0.5 - squeeze), 0], [w * (0.5 + squeeze), 0], [w, h], [0, h]])
    return cv2.warpPerspective(img, cv2.getPerspectiveTransform(src, dst), (w, h))


def cropped_half(seed: int) -> np.ndarray:
    """One half of the sample sheet (top, bottom, left or right)."""
    img = sample_sheet()
    h, w = img.shape[:2]
    return [img[: h // 2], img[h // 2 :], img[:, : w // 2], img[:, w // 2 :]][seed % 4].copy()


def turned_45(seed: int) -> np.ndarray:
    """The sample sheet turned by 45° (plus a few degrees)."""
    img = sample_sheet()
    h, w = img.shape[:2]
    angle = 45 + 90 * (seed % 4) + float(np.random.default_rng(seed).uniform(-4, 4))
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 0.7)
    return cv2.warpAffine(img, m, (w, h), borderValue=(120, 120, 120))


def shrunk(seed: int) -> np.ndarray:
    """The sample sheet at 320 px or less on its long side."""
    img = sample_sheet()
    side = 320 - 40 * (seed % 4)
    s = side / max(img.shape[:2])
    return cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)


def blurred(seed: int) -> np.ndarray:
    """The sample sheet under a heavy blur."""
    return cv2.GaussianBlur(sample_sheet(), (0, 0), 3 + 3 * (seed % 4))


def inverted(seed: int) -> np.ndarray:
    """The sample sheet as a negative."""
    return 255 - sample_sheet()


def strip(seed: int) -> np.ndarray:
    """A photo one pixel tall or one pixel wide."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    return rng.integers(0, 256, (1, n, 3) if seed % 2 else (n, 1, 3), dtype=np.uint8)


def all_black(seed: int) -> np.ndarray:
    return np.zeros((600 + seed % 7, 800, 3), np.uint8)


def all_white(seed: int) -> np.ndarray:
    return np.full((600, 800 + seed % 7, 3), 255, np.uint8)


def noise(seed: int) -> np.ndarray:
    """Uniform colour noise."""
    return np.random.default_rng(seed).integers(0, 256, (700, 900, 3), dtype=np.uint8)


#: name → maker, in the order the tests list them.
NEAR_SHEETS: dict[str, Callable[[int], np.ndarray]] = {
    f.__name__.replace("_", "-"): f
    for f in (
        lines_one_axis,
        bare_lattice,
        two_lattices,
        extreme_perspective,
        cropped_half,
        turned_45,
        shrunk,
        blurred,
        inverted,
        strip,
        all_black,
        all_white,
        noise,
    )
}


def as_jpeg(img: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return buf.tobytes()
