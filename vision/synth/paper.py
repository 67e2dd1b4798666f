"""The printed sheet, drawn from ``vision/layout.py`` in the look of ``docs/printed-sheet.md``.

Everything is our own drawing with OpenCV primitives: parchment, dashed cell lines, the framed
grid with its labels, the header (name lines, crest, compass rose), printed mountains, ruins
glyphs, side B's torn rift, the 14-coin track and the season boxes. Its words are
:class:`SheetWords` (English unless given; beyond ASCII set by :mod:`vision.synth.lettering`).
Variants: ``print`` (the pad), ``photocopy`` (grey, as home copies are) and ``white-print`` (the
sheet printed at home on white paper, e.g. with ``cartographers sheet --white-paper``).

Coordinates: grid units ``u`` (origin at the top-left of the cell area). A :class:`RenderedSheet`
covers the sheet box ``GEOMETRY.sheet`` at ``px_per_u`` pixels per unit; ``to_px`` maps units to
its pixels, with OpenCV's convention that integer pixel coordinates are pixel centres.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from scoring.sides import SIDES
from vision.layout import GEOMETRY, GRID, PALETTES, Box
from vision.synth import lettering

VARIANTS = ("print", "photocopy", "white-print")
WHITE_PAPER = (246, 245, 240)  # office paper, for the white-print variant
SHIFT = 4  # sub-pixel bits for cv2 drawing calls
ONE = 1 << SHIFT


def bgr(rgb: tuple[int, int, int]) -> tuple[int, int, int]:
    """An RGB triple from the layout as OpenCV's BGR."""
    return (int(rgb[2]), int(rgb[1]), int(rgb[0]))


@dataclass(frozen=True)
class SheetWords:
    """The words printed on a sheet, in the sheet's language (the English pad by default)."""

    cartographer: str = "CARTOGRAPHER:"  # the player's name line
    title: str = "TITLE:"  # the player's title line
    north: str = "N"  # the compass rose's north


ENGLISH = SheetWords()


@dataclass
class RenderedSheet:
    """A flat picture of a sheet and how grid units map onto its pixels."""

    side: str
    variant: str
    image: np.ndarray  # BGR uint8, covers GEOMETRY.sheet
    alpha: np.ndarray  # uint8, 255 on paper, 0 beyond the torn edge
    px_per_u: float
    origin_u: tuple[float, float]  # grid-unit position of pixel (0, 0)
    # what a printed-art family chose to print in the mountain and ruins cells (vision.synth.art)
    looks: dict = field(default_factory=dict)

    def to_px(self, x_u: float | np.ndarray, y_u: float | np.ndarray) -> tuple:
        """Grid units → pixel coordinates of this image (pixel centres are integers)."""
        return ((x_u - self.origin_u[0]) * self.px_per_u, (y_u - self.origin_u[1]) * self.px_per_u)

    def to_u(self, x_px: float | np.ndarray, y_px: float | np.ndarray) -> tuple:
        """Pixel coordinates of this image → grid units."""
        return (x_px / self.px_per_u + self.origin_u[0], y_px / self.px_per_u + self.origin_u[1])

    @property
    def affine(self) -> np.ndarray:
        """2×3 matrix taking ``[x_u, y_u, 1]`` to pixel coordinates."""
        s = self.px_per_u
        return np.array([[s, 0, -self.origin_u[0] * s], [0, s, -self.origin_u[1] * s]])


# ---- small drawing helpers ------------------------------------------------------------------


class Pen:
    """Draws in grid units onto an image with sub-pixel precision."""

    def __init__(self, image: np.ndarray, px_per_u: float, origin_u: tuple[float, float]):
        self.image = image
        self.s = px_per_u
        self.ox, self.oy = origin_u

    def p(self, x: float, y: float) -> tuple[int, int]:
        """A point in units as a fixed-point pixel coordinate."""
        return (int(round((x - self.ox) * self.s * ONE)), int(round((y - self.oy) * self.s * ONE)))

    def pts(self, xy: np.ndarray) -> np.ndarray:
        """Many points (N×2, units) as fixed-point int32 pixels."""
        xy = np.asarray(xy, dtype=np.float64)
        out = np.empty_like(xy)
        out[:, 0] = (xy[:, 0] - self.ox) * self.s * ONE
        out[:, 1] = (xy[:, 1] - self.oy) * self.s * ONE
        return np.round(out).astype(np.int32)

    def w(self, width_u: float) -> int:
        """A line width in units as whole pixels (at least 1)."""
        return max(1, int(round(width_u * self.s)))

    def line(self, a, b, colour, width_u: float) -> None:
        """A straight line between two points (units)."""
        cv2.line(self.image, self.p(*a), self.p(*b), colour, self.w(width_u), cv2.LINE_AA, SHIFT)

    def poly(self, xy, colour, width_u: float, closed: bool = False) -> None:
        """A polyline through points (units)."""
        cv2.polylines(
            self.image, [self.pts(xy)], closed, colour, self.w(width_u), cv2.LINE_AA, SHIFT
        )

    def fill(self, xy, colour) -> None:
        """A filled polygon (units)."""
        cv2.fillPoly(self.image, [self.pts(xy)], colour, cv2.LINE_AA, SHIFT)

    def rect(self, box: Box, colour, width_u: float = 0.0) -> None:
        """A box, filled (``width_u`` 0) or outlined."""
        xy = [(box.x0, box.y0), (box.x1, box.y0), (box.x1, box.y1), (box.x0, box.y1)]
        if width_u <= 0:
            self.fill(xy, colour)
        else:
            self.poly(xy, colour, width_u, closed=True)

    def circle(self, c, r_u: float, colour, width_u: float = 0.0) -> None:
        """A circle, filled (``width_u`` 0) or outlined."""
        thick = -1 if width_u <= 0 else self.w(width_u)
        cv2.circle(
            self.image,
            self.p(*c),
            int(round(r_u * self.s * ONE)),
            colour,
            thick,
            cv2.LINE_AA,
            SHIFT,
        )

    def text(
        self,
        s: str,
        centre,
        height_u: float,
        colour,
        font=cv2.FONT_HERSHEY_COMPLEX,
        weight_u: float = 0.035,
        left: bool = False,
    ) -> None:
        """Text of cap height ``height_u`` centred on ``centre`` (or starting there if ``left``);
        beyond ASCII in a TrueType font (:class:`lettering.FontMissing` without one)."""
        thick = self.w(weight_u)
        (tw, th), _ = cv2.getTextSize(s, font, 1.0, thick)
        scale = height_u * self.s / max(th, 1)
        (tw, th), _ = cv2.getTextSize(s, font, scale, thick)
        x, y = self.p(*centre)
        x, y = x / ONE, y / ONE
        if not s.isascii():  # as tall as these Hershey capitals, on the same baseline
            caps = lettering.hershey_cap_px(font, scale, thick)
            lettering.draw_text(self.image, s, (x, y + th / 2), caps, colour, left)
            return
        org = (int(round(x if left else x - tw / 2)), int(round(y + th / 2)))
        cv2.putText(self.image, s, org, font, scale, colour, thick, cv2.LINE_AA)


def smooth_noise(shape: tuple[int, int], cell_px: float, rng: np.random.Generator) -> np.ndarray:
    """Zero-mean, unit-ish noise with features about ``cell_px`` pixels wide (float32)."""
    h, w = shape
    gh, gw = max(2, int(h / cell_px) + 2), max(2, int(w / cell_px) + 2)
    small = rng.standard_normal((gh, gw)).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


# ---- the sheet ------------------------------------------------------------------------------


def render_sheet(
    side: str,
    *,
    px_per_u: float = 60,
    variant: str = "print",
    rng: np.random.Generator | None = None,
    words: SheetWords = ENGLISH,
) -> RenderedSheet:
    """Draw an empty printed sheet of ``side`` ("A"/"B") at ``px_per_u`` pixels per grid unit,
    its header printed with ``words``."""
    if side not in PALETTES:
        raise ValueError(f"unknown sheet side {side!r}: expected 'A' or 'B'")
    if variant not in VARIANTS:
        raise ValueError(
            f"unknown paper variant {variant!r}: expected one of {', '.join(VARIANTS)}"
        )
    rng = rng if rng is not None else np.random.default_rng(0)
    g, pal = GEOMETRY, PALETTES[side]
    w = int(round(g.sheet.width * px_per_u))
    h = int(round(g.sheet.height * px_per_u))
    origin = (g.sheet.x0, g.sheet.y0)
    paper_rgb = WHITE_PAPER if variant == "white-print" else pal.paper
    img = parchment((h, w), paper_rgb, px_per_u, rng)
    pen = Pen(img, px_per_u, origin)
    draw_header(pen, side, words)
    draw_cells(pen, side)
    draw_frame(pen, side)
    draw_labels(pen, side)
    draw_coin_track(pen, side)
    draw_season_boxes(pen, side, paper_rgb)
    if side == "B":
        draw_rift(pen, side, rng)
    alpha = torn_edge((h, w), px_per_u, rng)
    if variant == "photocopy":
        img = photocopy(img, rng)
    return RenderedSheet(side, variant, img, alpha, float(px_per_u), origin)


def parchment(shape: tuple[int, int], rgb, px_per_u: float, rng: np.random.Generator) -> np.ndarray:
    """Aged paper: base tone, faint stains, fibres and a darker rim."""
    h, w = shape
    base = np.array(bgr(rgb), np.float32)
    stains = smooth_noise(shape, 3.0 * px_per_u, rng) * 0.035
    mottle = smooth_noise(shape, 0.4 * px_per_u, rng) * 0.015
    fibres = cv2.GaussianBlur(rng.standard_normal((h, w), dtype=np.float32), (0, 0), 0.8) * 0.02
    yy = np.abs(np.linspace(-1, 1, max(2, h // 8), dtype=np.float32))[:, None]
    xx = np.abs(np.linspace(-1, 1, max(2, w // 8), dtype=np.float32))[None, :]
    rim_small = np.clip(np.maximum(xx, yy) - 0.9, 0, None) * rng.uniform(0.3, 1.6)
    rim = cv2.resize(rim_small, (w, h), interpolation=cv2.INTER_LINEAR)
    shade = 1.0 + stains + mottle + fibres - rim - 0.05 * old_map_lines(shape, px_per_u, rng)
    # per channel, saturating to 8 bits; the blue channel loses more at the rim (a red-brown rim)
    return cv2.merge(
        [
            cv2.convertScaleAbs(shade - rim * (40 / base[0]), alpha=float(base[0])),
            cv2.convertScaleAbs(shade, alpha=float(base[1])),
            cv2.convertScaleAbs(shade, alpha=float(base[2])),
        ]
    )


def old_map_lines(shape: tuple[int, int], px_per_u: float, rng: np.random.Generator) -> np.ndarray:
    """Faint wandering coast and contour lines of an old map, 0…1 (float32)."""
    h, w = shape
    lines = np.zeros(shape, np.float32)
    for _ in range(int(rng.integers(4, 10))):
        n = 80
        steps = np.cumsum(rng.normal(0, 0.25, n))  # heading wanders smoothly
        heading = rng.uniform(0, 2 * np.pi) + np.cumsum(steps) * 0.02
        start = rng.uniform(0, 1, 2) * (w, h)
        pts = start + np.cumsum(
            np.stack([np.cos(heading), np.sin(heading)], axis=1) * 0.3 * px_per_u, axis=0
        )
        cv2.polylines(
            lines,
            [np.round(pts * 16).astype(np.int32)],
            False,
            1.0,
            max(1, int(0.025 * px_per_u)),
            cv2.LINE_AA,
            4,
        )
    return cv2.GaussianBlur(lines, (0, 0), max(0.5, 0.02 * px_per_u))


def torn_edge(shape: tuple[int, int], px_per_u: float, rng: np.random.Generator) -> np.ndarray:
    """Paper mask with an irregular edge, eaten in by up to ~0.1 u."""
    h, w = shape
    margin = 0.03 * px_per_u + np.clip(
        0.025 * px_per_u * (1 + smooth_noise(shape, 0.4 * px_per_u, rng)), 0, 0.08 * px_per_u
    )
    xs, ys = np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32)
    dist = np.minimum(np.minimum(xs, w - 1 - xs)[None, :], np.minimum(ys, h - 1 - ys)[:, None])
    return np.clip((dist - margin) * 170 + 128, 0, 255).astype(np.uint8)  # ~1.5 px soft edge


def photocopy(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A grey home copy: lighter paper, harder contrast, a little toner speckle."""
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32)
    lo, hi = rng.uniform(20, 50), rng.uniform(185, 205)
    grey = np.clip((grey - lo) / (hi - lo), 0, 1) ** rng.uniform(1.0, 1.6) * 240 + 8
    speck = rng.random(grey.shape) < 0.0008
    grey[speck] *= 0.5
    out = np.clip(grey, 0, 255).astype(np.uint8)
    return cv2.cvtColor(out, cv2.COLOR_GRAY2BGR)


def dashed(
    pen: Pen, a, b, colour, width_u: float, dash_u: float = 0.11, gap_u: float = 0.07
) -> None:
    """A dashed straight line from ``a`` to ``b`` (units)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    length = float(np.linalg.norm(b - a))
    d = (b - a) / length
    t = gap_u / 2
    while t < length:
        t1 = min(t + dash_u, length)
        pen.line(a + d * t, a + d * t1, colour, width_u)
        t = t1 + gap_u


def draw_cells(pen: Pen, side: str) -> None:
    """Dashed cell lines, printed mountains and ruins glyphs."""
    pal = PALETTES[side]
    line = bgr(pal.cell_line)
    for k in range(1, GRID):
        dashed(pen, (k, 0), (k, GRID), line, 0.03)
        dashed(pen, (0, k), (GRID, k), line, 0.03)
    layout = SIDES[side]
    for r, c in layout.mountains:
        draw_mountain(pen, c, r, side)
    for r, c in layout.ruins:
        draw_ruins(pen, c + 0.5, r + 0.3, bgr(pal.ruin_glyph))


def draw_mountain(pen: Pen, x: float, y: float, side: str) -> None:
    """A printed mountain cell: dark brown cross-hatch, white twin peaks, a small coin."""
    pal = PALETTES[side]
    dark = bgr(pal.mountain)
    light = tuple(min(255, int(v * 1.45)) for v in dark)
    pen.rect(Box(x, y, x + 1, y + 1), light)
    for k in np.arange(-1, 1.0001, 0.09):  # cross-hatching clipped to the cell
        for sgn in (1, -1):
            a = (
                np.array([x + max(0, k), y + max(0, -k)])
                if sgn == 1
                else np.array([x + 1 - max(0, k), y + max(0, -k)])
            )
            span = 1 - abs(k)
            b = a + np.array([sgn * span, span])
            pen.line(a, b, dark, 0.035)
    peaks = np.array([(0.12, 0.78), (0.36, 0.32), (0.5, 0.52), (0.66, 0.22), (0.9, 0.78)])
    pen.poly(peaks + (x, y), (245, 245, 240), 0.05)
    pen.poly(np.array([(0.36, 0.32), (0.42, 0.5), (0.38, 0.6)]) + (x, y), (235, 235, 230), 0.03)
    pen.poly(np.array([(0.66, 0.22), (0.6, 0.45), (0.68, 0.58)]) + (x, y), (235, 235, 230), 0.03)
    draw_coin(pen, (x + 0.8, y + 0.2), 0.1, side)


def draw_ruins(pen: Pen, cx: float, cy: float, colour) -> None:
    """Broken pillars: three columns of different heights on a base, part of a lintel."""
    pen.rect(Box(cx - 0.26, cy + 0.12, cx + 0.26, cy + 0.17), colour)
    for dx, top in ((-0.17, -0.16), (0.0, -0.05), (0.17, -0.19)):
        pen.rect(Box(cx + dx - 0.035, cy + top, cx + dx + 0.035, cy + 0.12), colour)
    pen.fill(
        [
            (cx - 0.24, cy - 0.2),
            (cx - 0.02, cy - 0.2),
            (cx - 0.07, cy - 0.15),
            (cx - 0.24, cy - 0.15),
        ],
        colour,
    )
    pen.line((cx + 0.12, cy - 0.23), (cx + 0.23, cy - 0.21), colour, 0.035)


def draw_coin(pen: Pen, c, r: float, side: str) -> None:
    """A printed gold coin with a rim and an inner ring."""
    gold, rim = (60, 170, 215), (30, 105, 150)
    pen.circle(c, r, gold)
    pen.circle(c, r, rim, 0.025)
    pen.circle(c, r * 0.62, rim, 0.015)


def draw_frame(pen: Pen, side: str) -> None:
    """Patterned double frame just outside the cell area: two lines with ticks between them."""
    col = bgr(PALETTES[side].frame)
    fw = GEOMETRY.frame_width
    pen.rect(Box(0, 0, GRID, GRID), col, 0.035)
    pen.rect(Box(-fw, -fw, GRID + fw, GRID + fw), col, 0.05)
    step = 0.25
    for t in np.arange(step / 2, GRID, step):
        long = int(round((t - step / 2) / step)) % 4 == 0
        inner, outer = -0.02, (-fw + 0.02 if long else -fw * 0.55)
        pen.line((t, inner), (t, outer), col, 0.02)
        pen.line((t, GRID - inner), (t, GRID - outer), col, 0.02)
        pen.line((inner, t), (outer, t), col, 0.02)
        pen.line((GRID - inner, t), (GRID - outer, t), col, 0.02)
    for cx, cy in (
        (-fw / 2, -fw / 2),
        (GRID + fw / 2, -fw / 2),
        (GRID + fw / 2, GRID + fw / 2),
        (-fw / 2, GRID + fw / 2),
    ):
        pen.rect(Box(cx - fw / 2, cy - fw / 2, cx + fw / 2, cy + fw / 2), col)


def draw_labels(pen: Pen, side: str) -> None:
    """Row letters A–K and column numbers 1–11, in the cell-line colour."""
    col = bgr(PALETTES[side].cell_line)
    dark = tuple(int(v * 0.75) for v in col)
    for r in range(GRID):
        pen.text(chr(65 + r), (GEOMETRY.row_label_x, r + 0.5), 0.3, dark)
    for c in range(GRID):
        pen.text(str(c + 1), (c + 0.5, GEOMETRY.col_label_y), 0.3, dark)
    pen.text(f"({side})", (GRID - 0.25, -0.55), 0.22, bgr(PALETTES[side].frame), weight_u=0.03)


def draw_header(pen: Pen, side: str, words: SheetWords = ENGLISH) -> None:
    """Name and title lines, the crest (crown, banner, shield, swords) and a compass rose."""
    pal = PALETTES[side]
    ink = (40, 52, 70)
    frame = bgr(pal.frame)
    pen.text(words.cartographer, (-0.6, -2.7), 0.26, ink, left=True, weight_u=0.03)
    pen.line((-0.6, -2.35), (4.0, -2.35), ink, 0.02)
    pen.text(words.title, (-0.6, -1.55), 0.26, ink, left=True, weight_u=0.03)
    pen.line((-0.6, -1.2), (4.0, -1.2), ink, 0.02)
    # crest: shield with crossed swords, crown above, ribbon banner below
    cx, cy = 5.45, -2.0
    for sgn in (1, -1):
        pen.line((cx - 0.9 * sgn, cy - 1.0), (cx + 0.9 * sgn, cy + 0.95), (90, 90, 100), 0.07)
        pen.line(
            (cx - 0.75 * sgn - 0.12, cy - 0.83 + 0.1 * sgn),
            (cx - 0.75 * sgn + 0.12, cy - 0.83 - 0.1 * sgn),
            (40, 60, 80),
            0.06,
        )
    shield = np.array([(-0.55, -0.7), (0.55, -0.7), (0.55, 0.05), (0.0, 0.75), (-0.55, 0.05)]) + (
        cx,
        cy,
    )
    pen.fill(shield, (170, 190, 215))
    pen.poly(shield, frame, 0.05, closed=True)
    crown = np.array(
        [
            (-0.4, -0.85),
            (-0.45, -1.3),
            (-0.2, -1.05),
            (0.0, -1.4),
            (0.2, -1.05),
            (0.45, -1.3),
            (0.4, -0.85),
        ]
    ) + (cx, cy)
    pen.fill(crown, (50, 160, 210))
    pen.poly(crown, (30, 90, 130), 0.03, closed=True)
    ribbon = np.array(
        [(-1.3, 0.6), (1.3, 0.6), (1.1, 0.85), (1.3, 1.1), (-1.3, 1.1), (-1.1, 0.85)]
    ) + (cx, cy)
    pen.fill(ribbon, tuple(int(v * 0.9) for v in bgr(pal.coin_band)))
    pen.poly(ribbon, frame, 0.03, closed=True)
    # compass rose
    rx, ry, rr = 9.9, -2.0, 1.1
    pen.circle((rx, ry), rr * 0.72, frame, 0.03)
    pen.circle((rx, ry), rr * 0.78, frame, 0.015)
    for k in range(16):
        a = k * np.pi / 8
        length = rr if k % 4 == 0 else rr * 0.55 if k % 2 == 0 else rr * 0.35
        tip = (rx + np.sin(a) * length, ry - np.cos(a) * length)
        wing = 0.12 if k % 4 == 0 else 0.07
        left = (rx + np.sin(a - np.pi / 2) * wing, ry - np.cos(a - np.pi / 2) * wing)
        right = (rx + np.sin(a + np.pi / 2) * wing, ry - np.cos(a + np.pi / 2) * wing)
        pen.fill([tip, left, (rx, ry)], frame)
        pen.fill([tip, right, (rx, ry)], (200, 215, 225))
        pen.poly([left, tip, right], frame, 0.015)
    pen.text(words.north, (rx, ry - rr - 0.18), 0.2, frame, weight_u=0.025)


def draw_coin_track(pen: Pen, side: str) -> None:
    """The band of 14 printed coins and the plus-shaped mountain-surround icon."""
    g, pal = GEOMETRY, PALETTES[side]
    band = bgr(pal.coin_band)
    light = tuple(int(v + (255 - v) * 0.45) for v in band)
    b = g.coin_band
    pen.rect(b, light)
    pen.rect(b, band, 0.04)
    for i in range(g.coin_count):
        draw_coin(pen, g.coin_centre(i), g.coin_radius, side)
    x, y, s = g.surround_icon_x, g.coin_y, 0.13
    for dx, dy in ((0, -1), (-1, 0), (1, 0), (0, 1), (0, 0)):
        col = bgr(pal.mountain) if (dx, dy) == (0, 0) else (200, 210, 215)
        pen.rect(
            Box(x + dx * s - s / 2, y + dy * s - s / 2, x + dx * s + s / 2, y + dy * s + s / 2), col
        )
        pen.rect(
            Box(x + dx * s - s / 2, y + dy * s - s / 2, x + dx * s + s / 2, y + dy * s + s / 2),
            (60, 60, 60),
            0.012,
        )


EDICT_PAIRS = ("AB", "BC", "CD", "DA")


def season_parts(box: Box) -> dict[str, Box]:
    """The five writing cells of one season box: two edicts, coins, monsters, total."""
    split = box.x0 + box.width * 0.64
    mid_x = (box.x0 + split) / 2
    mid_y = (box.y0 + box.y1) / 2
    return {
        "edict1": Box(box.x0, box.y0, mid_x, mid_y),
        "edict2": Box(mid_x, box.y0, split, mid_y),
        "coins": Box(box.x0, mid_y, mid_x, box.y1),
        "monsters": Box(mid_x, mid_y, split, box.y1),
        "total": Box(split, box.y0, box.x1, box.y1),
    }


def draw_season_boxes(pen: Pen, side: str, paper_rgb: tuple[int, int, int]) -> None:
    """Four season boxes with faint edict letters and icons, "+"/"=" between, the final shield."""
    g, pal = GEOMETRY, PALETTES[side]
    col = bgr(pal.frame)
    faint = tuple(int(v + (255 - v) * 0.55) for v in bgr(pal.cell_line))
    for k, box in enumerate(g.season_boxes):
        parts = season_parts(box)
        pen.rect(box, tuple(min(255, v + 12) for v in bgr(paper_rgb)))
        for part in parts.values():
            pen.rect(part, col, 0.03)
        pen.rect(box, col, 0.05)
        for name, letter in zip(("edict1", "edict2"), EDICT_PAIRS[k]):
            p = parts[name]
            pen.text(letter, ((p.x0 + p.x1) / 2, (p.y0 + p.y1) / 2), 0.28, faint)
        c = parts["coins"]
        pen.circle(((c.x0 + c.x1) / 2, (c.y0 + c.y1) / 2), 0.17, faint, 0.035)
        m = parts["monsters"]
        mc = ((m.x0 + m.x1) / 2, (m.y0 + m.y1) / 2)
        pen.circle(mc, 0.16, faint, 0.035)
        pen.fill(
            [
                (mc[0] - 0.15, mc[1] - 0.08),
                (mc[0] - 0.2, mc[1] - 0.25),
                (mc[0] - 0.05, mc[1] - 0.15),
            ],
            faint,
        )
        pen.fill(
            [
                (mc[0] + 0.15, mc[1] - 0.08),
                (mc[0] + 0.2, mc[1] - 0.25),
                (mc[0] + 0.05, mc[1] - 0.15),
            ],
            faint,
        )
        if k < 3:
            nx = (box.x1 + g.season_boxes[k + 1].x0) / 2
            pen.text("+", (nx, (box.y0 + box.y1) / 2), 0.3, col)
    eq_x = (g.season_boxes[3].x1 + g.final_total.x0) / 2
    pen.text("=", (eq_x, (g.final_total.y0 + g.final_total.y1) / 2), 0.3, col)
    _draw_final_shield(pen, col, paper_rgb)


def _draw_final_shield(
    pen: Pen, col: tuple[int, int, int], paper_rgb: tuple[int, int, int]
) -> None:
    """The final score's shield, framed in laurels."""
    f = GEOMETRY.final_total
    fx = (f.x0 + f.x1) / 2
    shield = np.array(
        [(f.x0, f.y0), (f.x1, f.y0), (f.x1, f.y0 + 0.75), (fx, f.y1), (f.x0, f.y0 + 0.75)]
    )
    pen.fill(shield, tuple(min(255, v + 12) for v in bgr(paper_rgb)))
    pen.poly(shield, col, 0.05, closed=True)
    for sgn in (-1, 1):  # laurels
        for k in range(4):
            t = k / 3
            lx = fx + sgn * (f.width / 2 + 0.12 - 0.08 * t)
            ly = f.y1 - 0.15 - 0.8 * t
            pen.fill(
                [
                    (lx, ly),
                    (lx + sgn * 0.12, ly - 0.08),
                    (lx, ly - 0.2),
                    (lx - sgn * 0.03, ly - 0.1),
                ],
                (70, 130, 90),
            )


def draw_rift(pen: Pen, side: str, rng: np.random.Generator) -> None:
    """Side B's wasteland: a torn hole, grey inside with a ragged darker edge.

    Worked on the rift's neighbourhood only (its cells plus 0.6 u), which keeps big renders fast.
    """
    cells = SIDES[side].wasteland
    rows, cols = [r for r, _ in cells], [c for _, c in cells]
    h_img, w_img = pen.image.shape[:2]
    bx0, by0 = (max(0, int(v / ONE)) for v in pen.p(min(cols) - 0.6, min(rows) - 0.6))
    bx1, by1 = pen.p(max(cols) + 1.6, max(rows) + 1.6)
    bx1, by1 = min(w_img, int(bx1 / ONE)), min(h_img, int(by1 / ONE))
    img = pen.image[by0:by1, bx0:bx1]  # a view: drawing here draws on the sheet
    h, w = img.shape[:2]
    s = pen.s
    mask = np.zeros((h, w), np.float32)
    for r, c in cells:
        x0, y0 = pen.p(c, r)
        x1, y1 = pen.p(c + 1, r + 1)
        cv2.rectangle(
            mask, (x0 // ONE - bx0, y0 // ONE - by0), (x1 // ONE - bx0, y1 // ONE - by0), 1.0, -1
        )
    mask = cv2.GaussianBlur(mask, (0, 0), 0.18 * s)
    rag = smooth_noise((h, w), 0.25 * s, rng) * 0.12 + smooth_noise((h, w), 0.06 * s, rng) * 0.06
    hole = ((mask + rag) > 0.5).astype(np.uint8)
    edge = (
        cv2.dilate(
            hole, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (max(3, int(0.1 * s)) | 1,) * 2)
        )
        - hole
    )
    inner_edge = hole - cv2.erode(
        hole, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (max(3, int(0.08 * s)) | 1,) * 2)
    )
    grey = 120 + 18 * smooth_noise((h, w), 0.3 * s, rng) + 8 * smooth_noise((h, w), 0.05 * s, rng)
    hb = hole.astype(bool)
    img[hb] = np.clip(grey[hb], 0, 255).astype(np.uint8)[:, None]
    img[inner_edge.astype(bool)] = (55, 60, 65)
    lighter = edge.astype(bool)
    img[lighter] = np.clip(img[lighter].astype(np.int16) + 25, 0, 255).astype(np.uint8)
