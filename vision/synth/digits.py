"""Handwritten numbers: a stroke font with each digit's common variants, and one player's way of
writing numbers (size, slant, width, pen, the variants they use).

Digits are polylines in a unit box (x right 0…1, y down 0…1), drawn with the generator's wobbly,
pressure-varying strokes (:class:`vision.synth.strokes.Tile`), so a number looks written, not
typed. The same glyphs, rendered on a small canvas (:func:`render_chars`), train the digit
classifier (:mod:`vision.digits_train`).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.synth.pens import Hand
from vision.synth.strokes import smooth_1d, wobbly

Polyline = list[tuple[float, float]]


def arc(cx: float, cy: float, rx: float, ry: float, a0: float, a1: float, n: int = 14) -> Polyline:
    """Points of an elliptic arc from angle ``a0`` to ``a1`` in degrees (0 = right, 90 = down)."""
    a = np.radians(np.linspace(a0, a1, n))
    return list(zip((cx + rx * np.cos(a)).tolist(), (cy + ry * np.sin(a)).tolist()))


#: each character's variants, each a list of polylines in the unit box
GLYPHS: dict[str, tuple[list[Polyline], ...]] = {
    "0": (
        [arc(0.5, 0.5, 0.46, 0.5, -100, 265, 22)],
        [arc(0.5, 0.5, 0.42, 0.5, -80, 290, 22)],
    ),
    "1": (
        [[(0.5, 0.0), (0.5, 1.0)]],
        [[(0.15, 0.28), (0.55, 0.0), (0.55, 1.0)]],
        [[(0.2, 0.25), (0.55, 0.0), (0.55, 1.0)], [(0.2, 1.0), (0.9, 1.0)]],
    ),
    "2": (
        [arc(0.5, 0.3, 0.42, 0.3, -160, 30) + [(0.05, 1.0), (0.97, 1.0)]],
        [
            arc(0.5, 0.28, 0.4, 0.28, -170, 40)
            + [(0.08, 0.95), (0.3, 0.85), (0.6, 1.0), (1.0, 0.95)]
        ],
    ),
    "3": (
        [arc(0.5, 0.26, 0.4, 0.26, -150, 90) + arc(0.5, 0.74, 0.46, 0.26, -90, 150)],
        [[(0.08, 0.0), (0.92, 0.0), (0.4, 0.4)] + arc(0.5, 0.7, 0.45, 0.3, -100, 150)],
    ),
    "4": (
        [[(0.62, 0.0), (0.02, 0.66), (1.0, 0.66)], [(0.76, 0.3), (0.76, 1.0)]],
        [[(0.72, 1.0), (0.72, 0.0), (0.02, 0.68), (1.0, 0.68)]],
        [[(0.2, 0.0), (0.08, 0.6), (0.98, 0.6)], [(0.78, 0.0), (0.78, 1.0)]],
    ),
    "5": (
        [[(0.92, 0.0), (0.2, 0.0), (0.14, 0.46)] + arc(0.5, 0.69, 0.43, 0.31, -145, 150)],
        [
            [(0.2, 0.0), (0.14, 0.46)] + arc(0.5, 0.69, 0.43, 0.31, -145, 150),
            [(0.2, 0.0), (0.9, 0.0)],
        ],
    ),
    "6": (
        [
            [(0.85, 0.03), (0.45, 0.15), (0.15, 0.45), (0.06, 0.72)]
            + arc(0.5, 0.72, 0.44, 0.28, 180, 530)
        ],
        [arc(0.75, 0.6, 0.7, 0.6, -95, -175, 8) + arc(0.5, 0.72, 0.45, 0.28, 180, 520)],
    ),
    "7": (
        [[(0.03, 0.0), (0.97, 0.0), (0.35, 1.0)]],
        [[(0.03, 0.0), (0.97, 0.0), (0.35, 1.0)], [(0.3, 0.52), (0.85, 0.52)]],
        [[(0.03, 0.15), (0.1, 0.0), (0.97, 0.0), (0.45, 1.0)]],
    ),
    "8": (
        [arc(0.5, 0.25, 0.36, 0.25, 90, 450), arc(0.5, 0.74, 0.46, 0.26, -90, 270)],
        [
            arc(0.5, 0.25, 0.36, 0.25, 30, -210)
            + arc(0.5, 0.74, 0.46, 0.26, -90, 230)
            + [(0.9, 0.1), (0.85, 0.15)]
        ],
    ),
    "9": (
        [arc(0.5, 0.3, 0.42, 0.3, 0, 360) + [(0.9, 1.0)]],
        [arc(0.5, 0.3, 0.42, 0.3, 0, 360) + [(0.82, 0.8), (0.4, 1.0)]],
    ),
    "-": ([[(0.0, 0.52), (1.0, 0.5)]],),
}
DIGITS = "0123456789"
ASPECT = {"1": 0.3, "-": 0.55}  # width / height of narrow characters (others: the hand's)


@dataclass(frozen=True)
class WritingHand:
    """How one player writes numbers: fixed for a sheet."""

    height_u: float  # digit height in a small cell
    aspect: float  # digit width / height
    slant: float  # x shift per unit of height (forward slant > 0)
    gap: float  # space between characters, in digit heights
    pen: tuple[str, str]  # (layer kind, colour name) of the ink layer
    width_u: float
    pressure: float
    wobble_u: float
    variants: dict[str, int]  # the variant of each character this player uses
    minus_on_monsters: bool  # writes the monster penalty as "-2"

    @classmethod
    def random(cls, rng: np.random.Generator, hand: Hand) -> WritingHand:
        """A random writer, built on the sheet's drawing ``hand`` (pressure, wobble)."""
        pen = [("pencil", "graphite"), ("marker", "graphite"), ("pencil", "water")][
            int(rng.choice(3, p=[0.6, 0.25, 0.15]))
        ]
        return cls(
            height_u=float(rng.uniform(0.26, 0.4)),
            aspect=float(rng.uniform(0.5, 0.78)),
            slant=float(rng.normal(0.12, 0.12)),
            gap=float(rng.uniform(0.08, 0.3)),
            pen=pen,
            width_u=float(rng.uniform(0.02, 0.042)),
            pressure=float(np.clip(hand.pressure + rng.normal(0.1, 0.1), 0.5, 1.0)),
            wobble_u=float(rng.uniform(0.002, 0.012)),
            variants={ch: int(rng.integers(len(v))) for ch, v in GLYPHS.items()},
            minus_on_monsters=bool(rng.random() < 0.5),
        )

    def drawing_hand(self) -> Hand:
        """A :class:`Hand` carrying this writer's pressure, width and wobble for the strokes."""
        return Hand(self.pressure, self.width_u, self.wobble_u, 1.0, 0.0, 0.05, 0.0, {})


def char_strokes(
    text: str, writer: WritingHand, height: float, rng: np.random.Generator
) -> list[np.ndarray]:
    """Polylines of ``text`` in units, its top-left at (0, 0), each character varied a little."""
    out: list[np.ndarray] = []
    x = 0.0
    for ch in text:
        variants = GLYPHS[ch]
        k = writer.variants[ch] if rng.random() < 0.9 else int(rng.integers(len(variants)))
        h = height * rng.uniform(0.92, 1.08)
        w = h * ASPECT.get(ch, writer.aspect) * rng.uniform(0.9, 1.1)
        top = (height - h) / 2 + (height * 0.15 if ch == "-" else 0.0)
        for line in variants[k % len(variants)]:
            p = np.array(line, float)
            p = p + rng.normal(0, 0.025, p.shape)  # no two strokes of one digit alike
            px = x + p[:, 0] * w + writer.slant * (1 - p[:, 1]) * h
            py = top + p[:, 1] * (h * (0.4 if ch == "-" else 1.0)) + (h * 0.3 if ch == "-" else 0)
            out.append(np.stack([px, py], axis=1))
        x += w + writer.gap * height
    return out


def text_extent(strokes: list[np.ndarray]) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) of a set of polylines."""
    pts = np.concatenate(strokes)
    return (
        float(pts[:, 0].min()),
        float(pts[:, 1].min()),
        float(pts[:, 0].max()),
        float(pts[:, 1].max()),
    )


def scribble_strokes(
    box: tuple[float, float, float, float], rng: np.random.Generator
) -> list[np.ndarray]:
    """How a player crosses a number out: a dense zig-zag, one or two strike lines, or an X."""
    x0, y0, x1, y1 = box
    pad = 0.03
    x0, y0, x1, y1 = x0 - pad, y0 - pad, x1 + pad, y1 + pad
    kind = rng.choice(["zigzag", "strike", "cross"], p=[0.6, 0.25, 0.15])
    if kind == "zigzag":
        n = int(rng.integers(5, 10))
        xs = np.linspace(x0, x1, n)
        ys = np.where(np.arange(n) % 2 == 0, y0, y1) + rng.normal(0, 0.02, n)
        return [np.stack([xs, ys], axis=1)]
    if kind == "strike":
        lines = []
        for k in range(int(rng.integers(1, 3))):
            y = y0 + (y1 - y0) * (0.4 + 0.2 * k) + rng.normal(0, 0.02)
            lines.append(np.array([[x0, y + rng.normal(0, 0.03)], [x1, y + rng.normal(0, 0.03)]]))
        return lines
    return [np.array([[x0, y0], [x1, y1]]), np.array([[x1, y0], [x0, y1]])]


def render_chars(
    text: str,
    rng: np.random.Generator,
    px_per_u: float = 60.0,
    writer: WritingHand | None = None,
    crossed: bool = False,
) -> np.ndarray:
    """``text`` written by a random (or the given) writer on a blank float canvas (ink density
    0…1), cropped around it with a margin: what the classifier learns digits from."""
    writer = writer or WritingHand.random(rng, Hand.random(rng))
    tall = rng.random() < 0.3  # as in a season total's tall cell
    height = writer.height_u * (rng.uniform(1.1, 1.6) if tall else rng.uniform(0.85, 1.15))
    strokes = char_strokes(text, writer, height, rng)
    x0, y0, x1, y1 = text_extent(strokes)
    if crossed:
        strokes += scribble_strokes((x0, y0, x1, y1), rng)
        x0, y0, x1, y1 = text_extent(strokes)
    m = 0.08
    w, h = int((x1 - x0 + 2 * m) * px_per_u) + 2, int((y1 - y0 + 2 * m) * px_per_u) + 2
    canvas = np.zeros((h, w), np.float32)
    hand = writer.drawing_hand()
    for line in strokes:
        pts = wobbly(line - [x0 - m, y0 - m], rng, hand.wobble_u)
        pix = np.round(pts * px_per_u * 16).astype(np.int32)
        width = max(1, int(round(hand.width_u * px_per_u * rng.uniform(0.8, 1.25))))
        press = np.clip(hand.pressure * (1 + 0.25 * smooth_1d(len(pix), rng)), 0.1, 1.0)
        for k in range(len(pix) - 1):
            cv2.line(
                canvas, tuple(pix[k]), tuple(pix[k + 1]), float(press[k]), width, cv2.LINE_AA, 4
            )
    return canvas
