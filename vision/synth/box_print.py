"""Pieces a printing may print in and around its empty season boxes, each randomised widely.

Printings differ most in what they put where players write their scores: boxes with square or
rounded corners; edict letters small or filling most of the cell, filled, hollow (outlined) or
double-struck, serif or sans; a coin icon with a mark inside (a "1", a crown, a ring, dots); a
monster face with horns or ears; a shield for the final total, framed by a laurel wreath of leaves
along its lower half and a ribbon across its top. The season-box classifier learns all of them as
print, never as a player's number. Drawn with OpenCV and, for the big capitals, Pillow with a
DejaVu face when one is installed (Hershey capitals otherwise).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import cv2
import numpy as np

from vision.layout import Box
from vision.synth.lettering import FONT_DIRS, blend
from vision.synth.paper import ONE, Pen

#: TrueType faces the big capitals are set in (the serif ones most often, as on old maps)
CAPITAL_FACES = (
    "DejaVuSerif.ttf",
    "DejaVuSerif-Bold.ttf",
    "DejaVuSerifCondensed.ttf",
    "DejaVuSerifCondensed-Bold.ttf",
    "DejaVuSerif-Italic.ttf",
    "DejaVuSans.ttf",
    "DejaVuSans-Bold.ttf",
)
#: how a big capital's strokes are inked
CAPITAL_STYLES = ("filled", "hollow", "double")


@cache
def capital_face(name: str) -> Path | None:
    """Where the TrueType face ``name`` is installed, or None."""
    for folder in FONT_DIRS:
        path = Path(folder) / name
        if path.is_file():
            return path
    return None


def _disc(px: int) -> np.ndarray:
    """A round structuring element ``px`` across (at least 3)."""
    k = max(3, px | 1)
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))


@cache
def _font(path: Path, size: int):
    """The TrueType face at ``path`` at ``size`` px, loaded once."""
    from PIL import ImageFont

    return ImageFont.truetype(str(path), size)


def capital(
    pen: Pen,
    letter: str,
    centre: tuple[float, float],
    height_u: float,
    colour,
    face: str,
    style: str,
    stroke_u: float,
) -> bool:
    """A capital ``height_u`` tall whose ink is centred on ``centre``: ``filled``, ``hollow`` (only
    the outline of its strokes) or ``double`` (an outline round the strokes and a thin core
    inside). False, drawing nothing, when the face is not installed."""
    from PIL import Image, ImageDraw

    path = capital_face(face)
    if path is None:
        return False
    size = max(4, int(round(height_u * pen.s * 1.37)))  # DejaVu capitals are ~0.73 of the size
    font = _font(path, size)
    pad = size // 2 + 4
    canvas = Image.new("L", (2 * size + 2 * pad, 2 * size + 2 * pad), 0)
    ImageDraw.Draw(canvas).text((pad, pad), letter, fill=255, font=font)
    mask = np.asarray(canvas, np.float32) / 255
    disc = _disc(2 * max(1, int(round(stroke_u * pen.s))) + 1)
    if style != "filled":  # the contour just outside the strokes, the strokes left as paper…
        outline = np.clip(cv2.dilate(mask, disc) - mask, 0, 1)
        # …and for "double" a thin core inside them: two parallel lines per stroke
        mask = outline if style == "hollow" else np.maximum(outline, cv2.erode(mask, disc))
    ys, xs = np.nonzero(mask > 0.3)
    if len(ys) == 0:
        return False
    cx, cy = (xs.min() + xs.max()) / 2, (ys.min() + ys.max()) / 2
    x, y = (v / ONE for v in pen.p(*centre))
    blend(pen.image, mask, (int(round(x - cx)), int(round(y - cy))), colour)
    return True


def rounded_box(pen: Pen, box: Box, radius_u: float, colour, width_u: float) -> None:
    """The outline of ``box`` with its corners rounded to ``radius_u`` (square at 0)."""
    r = min(radius_u, box.width / 2, box.height / 2)
    if r <= 0:
        pen.rect(box, colour, width_u)
        return
    pts = []
    corners = (
        (box.x1 - r, box.y0 + r, -np.pi / 2),
        (box.x1 - r, box.y1 - r, 0.0),
        (box.x0 + r, box.y1 - r, np.pi / 2),
        (box.x0 + r, box.y0 + r, np.pi),
    )
    for cx, cy, a0 in corners:
        for a in np.linspace(a0, a0 + np.pi / 2, 9):
            pts.append((cx + r * np.cos(a), cy + r * np.sin(a)))
    pen.poly(pts, colour, width_u, closed=True)


def coin_icon(
    pen: Pen, c: tuple[float, float], r: float, colour, width_u: float, mark: str, tint=None
) -> None:
    """A round coin of radius ``r``, perhaps on a paler disc (``tint``), with ``mark`` inside:
    "none", "ring", "one" (a "1"), "crown" (three points on a band) or "dots"."""
    if tint is not None:
        pen.circle(c, r, tint)
    pen.circle(c, r, colour, width_u)
    x, y = c
    if mark == "ring":
        pen.circle(c, r * 0.7, colour, width_u * 0.7)
    elif mark == "one":
        pen.poly(
            [(x - r * 0.2, y - r * 0.35), (x, y - r * 0.55), (x, y + r * 0.5)], colour, width_u
        )
        pen.line((x - r * 0.25, y + r * 0.5), (x + r * 0.25, y + r * 0.5), colour, width_u * 0.8)
    elif mark == "crown":
        w, top, base = r * 0.5, y - r * 0.45, y + r * 0.3
        pen.poly(
            [
                (x - w, base),
                (x - w, top),
                (x - w / 2, y - r * 0.05),
                (x, top - r * 0.1),
                (x + w / 2, y - r * 0.05),
                (x + w, top),
                (x + w, base),
            ],
            colour,
            width_u * 0.8,
            closed=True,
        )
    elif mark == "dots":
        for a in np.linspace(0, 2 * np.pi, 9)[:-1]:
            pen.circle((x + r * 0.65 * np.cos(a), y + r * 0.65 * np.sin(a)), r * 0.07, colour)


#: a monster's horns (curved, leaving the top of the head) or pointed ears (on the sides): the
#: right one's three points as (outwards, upwards) in head radii; the left one mirrors it
HEAD_POINTS = {
    "horns": ((0.45, 0.85), (0.85, 1.25), (0.75, 1.6)),
    "ears": ((0.8, 0.55), (1.35, 1.1), (0.98, 0.15)),
}


def monster_icon(
    pen: Pen,
    c: tuple[float, float],
    r: float,
    colour,
    width_u: float,
    head: str,
    fangs: bool,
) -> None:
    """A round monster face of radius ``r``: ``head`` "horns", "ears" or "bald"; slanted angry
    eyes and a mouth, with ``fangs`` or a plain line."""
    x, y = c
    pen.circle(c, r, colour, width_u)
    for sx in (-1, 1):
        if head in HEAD_POINTS:
            pen.poly(
                [(x + sx * r * out, y - r * up) for out, up in HEAD_POINTS[head]], colour, width_u
            )
        pen.line(
            (x + sx * r * 0.6, y - r * 0.35), (x + sx * r * 0.15, y - r * 0.15), colour, width_u
        )
        pen.circle((x + sx * r * 0.35, y - r * 0.05), r * 0.1, colour)
    if fangs:
        pts = [
            (x + t * r * 0.5, y + r * (0.45 if k % 2 else 0.3))
            for k, t in enumerate(np.linspace(-1, 1, 5))
        ]
        pen.poly(pts, colour, width_u * 0.8)
    else:
        pen.line((x - r * 0.4, y + r * 0.4), (x + r * 0.4, y + r * 0.4), colour, width_u * 0.8)


def _leaf(
    pen: Pen,
    c: tuple[float, float],
    length: float,
    angle: float,
    colour,
    filled: bool,
    width_u: float,
) -> None:
    """One laurel leaf: a narrow ellipse ``length`` long pointing along ``angle``."""
    t = np.linspace(0, 2 * np.pi, 17)[:-1]
    along, across = length / 2 * np.cos(t), length / 4 * np.sin(t)
    ca, sa = np.cos(angle), np.sin(angle)
    pts = np.stack([c[0] + along * ca - across * sa, c[1] + along * sa + across * ca], axis=1)
    if filled:
        pen.fill(pts, colour)
    else:
        pen.poly(pts, colour, width_u, closed=True)


def laurel_shield(
    pen: Pen, box: Box, colour, leaf_colour, width_u: float, rng: np.random.Generator
) -> None:
    """A shield inside ``box`` with a laurel wreath round its lower half (leaves along two arcs,
    filled or outlined) and, often, a ribbon across its top with forked ends."""
    cx = (box.x0 + box.x1) / 2
    hw = box.width * rng.uniform(0.28, 0.42)
    top = box.y0 + box.height * rng.uniform(0.1, 0.25)
    bottom = box.y1 - box.height * rng.uniform(0.05, 0.15)
    shoulder = top + (bottom - top) * rng.uniform(0.35, 0.6)
    t = np.linspace(0, 1, 10)
    if rng.random() < 0.5:  # pointed: straight sides, then curving in to a point
        right = [(cx + hw * (1 - v**2), shoulder + (bottom - shoulder) * v) for v in t]
    else:  # round-bottomed
        right = [
            (
                cx + hw * np.cos(v * np.pi / 2),
                shoulder + (bottom - shoulder) * np.sin(v * np.pi / 2),
            )
            for v in t
        ]
    left = [(2 * cx - px, py) for px, py in reversed(right)]
    pen.poly([(cx - hw, top), (cx + hw, top), *right, *left], colour, width_u, closed=True)
    if rng.random() < 0.8:  # the wreath: leaves along an arc each side, bottom to about halfway
        ry = (bottom - top) * rng.uniform(0.55, 0.7)
        rx = hw * rng.uniform(1.2, 1.7)
        cy = bottom - ry * rng.uniform(0.85, 1.0)
        n = int(rng.integers(4, 9))
        length = float(rng.uniform(0.1, 0.2))
        filled = rng.random() < 0.6
        top_phi = np.pi * rng.uniform(0.5, 0.65)  # from the bottom up past the side
        for sx in (-1, 1):
            for phi in np.linspace(np.pi * 0.12, top_phi, n):
                p = (cx + sx * rx * np.sin(phi), cy + ry * np.cos(phi))
                tangent = np.arctan2(-ry * np.sin(phi), sx * rx * np.cos(phi))
                tilt = -sx * rng.uniform(0.2, 0.6)  # leaves lean out of the wreath
                _leaf(pen, p, length, tangent + tilt, leaf_colour, filled, width_u * 0.6)
    if rng.random() < 0.6:  # a ribbon: a band across the top, its ends folded back and forked
        bw, bh = hw * rng.uniform(1.1, 1.4), box.height * rng.uniform(0.06, 0.1)
        y0 = top - bh * rng.uniform(0.2, 0.8)
        pen.poly(
            [(cx - bw, y0), (cx + bw, y0), (cx + bw, y0 + bh), (cx - bw, y0 + bh)],
            colour,
            width_u * 0.8,
            closed=True,
        )
        for sx in (-1, 1):
            e = cx + sx * bw
            pen.poly(
                [
                    (e, y0 + bh * 0.3),
                    (e + sx * bh * 1.6, y0 + bh * 0.4),
                    (e + sx * bh, y0 + bh * 0.9),
                    (e + sx * bh * 1.6, y0 + bh * 1.5),
                    (e, y0 + bh * 1.3),
                ],
                colour,
                width_u * 0.8,
            )
