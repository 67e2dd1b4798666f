"""Printed ruins and mountain glyphs of many designs, for the printed-art families
(:mod:`vision.synth.art`).

A ruins cell stays drawable, so the reader has to learn that a printed glyph in it is not a
player's mark. One glyph design seen in training teaches the opposite: any other printing's
glyph (another shape, colour, size, a tinted cell behind it) reads as village, farm or forest.
So each sheet of a family picks its own look here — one of several ruin designs (broken pillars,
an arch, a tower, a temple front, a column capital, a broken wall), its size, height in the cell,
outlined / filled / hatched, in the family's ink or an accent colour, sometimes with thin wavy
cracks drawn inside its stones (fine lines a classifier could take for water waves or farm
hatching), sometimes on a printed tinted square — and mountains likewise (one to three peaks,
outlined, a textured or flat tile or a silhouette, a coin in the middle, in a corner or none).
All shapes are our own.

Glyphs are printed like ink on paper: their colour multiplies what is below, so the paper's grain
and the grid lines show through a tint. Every ruins glyph keeps clear of its cell's edges.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.layout import Box
from vision.synth.paper import Pen, bgr, smooth_noise

RUINS_STYLES = ("outline", "filled", "hatched")
#: Second colours a printing uses for glyphs (RGB): gold, orange, ochre, brown, grey.
ACCENTS = {
    "gold": (214, 168, 48),
    "orange": (226, 128, 44),
    "ochre": (196, 146, 62),
    "brown": (128, 84, 50),
    "grey": (132, 132, 128),
}
#: Printed cell tints behind a ruins glyph (RGB): pale gold, peach, ochre, grey.
TINTS = {
    "pale-gold": (244, 224, 160),
    "peach": (250, 214, 184),
    "ochre": (228, 192, 124),
    "grey": (212, 212, 206),
}
#: The smallest gap, in grid units, between a ruins glyph's ink and its cell's edges.
RUINS_MARGIN_U = 0.06

Colour = tuple[int, int, int]  # BGR


@dataclass(frozen=True)
class RuinsLook:
    """How one printing draws its ruins (the same in all six ruins cells of a sheet)."""

    design: str  # one of RUINS_DESIGNS
    columns: int  # 1–3 for pillars; a temple front has one more
    size: float  # the glyph's extent, in cells (0.35–0.8)
    place: str  # "centre" or "high" in the cell
    style: str  # one of RUINS_STYLES
    colour: Colour
    colour_name: str  # "ink" or a key of ACCENTS
    width_u: float  # stroke width
    mirror: bool
    tint: Colour | None = None  # a printed square behind the glyph
    tint_inset_u: float = 0.0  # 0: the whole cell
    tint_border: Colour | None = None
    #: thin wavy cracks inside the glyph's stones, drawn from this seed (0: none)
    cracks: int = 0


#: The share of printings whose ruins glyphs carry cracks, and the cracks' stroke width relative to
#: the outline's.
CRACKED_SHARE = 0.5
CRACK_WIDTH = 0.6


@dataclass(frozen=True)
class MountainLook:
    """How one printing draws its mountain cells."""

    peaks: int  # 1–3
    body: str  # "outline" (peaks on paper), "tile" (a printed square) or "silhouette"
    texture: str  # a tile's: "flat", "grain", "hatch" or "cross-hatch"
    tile: Colour | None  # the tile's or silhouette's colour; None: bare paper
    line: Colour  # the peaks' outline
    width_u: float
    coin: str  # "centre", "corner" or "none"
    coin_style: str  # "gold", "outline", "outline-1" (marked "1") or "hollow" (paper disc, rim)
    coin_colour: Colour
    mirror: bool


def _jitter(rgb: Colour, rng: np.random.Generator, by: int = 12) -> Colour:
    """An RGB colour a printing's inks may have, as BGR."""
    return bgr(tuple(int(v) for v in np.clip(np.array(rgb) + rng.integers(-by, by + 1, 3), 0, 255)))


def pick_ruins_look(
    rng: np.random.Generator,
    ink: Colour,
    *,
    styles: tuple[float, float, float] = (0.4, 0.3, 0.3),
    accent_share: float = 0.5,
    accents: tuple[str, ...] = tuple(ACCENTS),
    tint_share: float = 0.35,
    width_u: tuple[float, float] = (0.02, 0.045),
    cracked_share: float = CRACKED_SHARE,
) -> RuinsLook:
    """One printing's ruins look; ``styles`` weighs outline / filled / hatched, ``ink`` (BGR) is
    the family's own ink, used unless an accent is drawn; ``cracked_share`` of the looks carry
    cracks, drawn thinner (a cracked outline is drawn at ``CRACK_WIDTH``… 1 × its width)."""
    design = str(rng.choice(RUINS_DESIGNS))
    columns = int(rng.integers(1, 4))
    size = float(rng.uniform(0.35, 0.8))
    place = str(rng.choice(["centre", "high"]))
    style = str(rng.choice(RUINS_STYLES, p=np.array(styles) / sum(styles)))
    name = str(rng.choice(accents)) if rng.random() < accent_share else "ink"
    colour = ink if name == "ink" else _jitter(ACCENTS[name], rng)
    width = float(rng.uniform(*width_u))
    mirror = bool(rng.random() < 0.5)
    tint, inset, border = None, 0.0, None
    if rng.random() < tint_share:
        tint = _jitter(TINTS[str(rng.choice(list(TINTS)))], rng, 6)
        inset = 0.0 if rng.random() < 0.5 else float(rng.uniform(0.05, 0.1))
        if rng.random() < 0.4:
            border = colour if rng.random() < 0.5 else tuple(int(v * 0.7) for v in tint)
    cracks = 0
    if rng.random() < cracked_share:
        cracks = int(rng.integers(1, 2**31))
        width *= float(rng.uniform(CRACK_WIDTH, 1.0))
    return RuinsLook(
        design,
        columns,
        size,
        place,
        style,
        colour,
        name,
        width,
        mirror,
        tint,
        inset,
        border,
        cracks,
    )


def pick_mountain_look(
    rng: np.random.Generator,
    ink: Colour,
    paper: Colour,
    *,
    bodies: tuple[float, float, float],
    earth: float = 0.75,
    width_u: tuple[float, float] = (0.02, 0.045),
) -> MountainLook:
    """One printing's mountain look; ``bodies`` weighs outline / tile / silhouette, ``earth`` is
    the share of tiles in an earth colour (the others are solid ink); ``ink`` and ``paper`` (BGR)
    are the family's."""
    peaks = int(rng.choice([1, 2, 2, 3]))
    body = str(rng.choice(["outline", "tile", "silhouette"], p=np.array(bodies) / sum(bodies)))
    texture = str(rng.choice(["flat", "grain", "hatch", "cross-hatch"]))
    coin = str(rng.choice(["centre", "corner", "none"], p=[0.55, 0.33, 0.12]))
    width = float(rng.uniform(*width_u))
    mirror = bool(rng.random() < 0.5)
    gold = _jitter((226, 182, 72), rng)
    if body == "outline":  # printer-friendly: peaks on paper, perhaps a pale grey square behind
        grey = int(rng.integers(175, 225))
        tile = (grey, grey, grey) if rng.random() < 0.35 else None
        style = str(rng.choice(["outline", "outline-1", "gold"], p=[0.45, 0.4, 0.15]))
        coin_colour = gold if style == "gold" else ink
        return MountainLook(
            peaks, body, texture, tile, ink, width, coin, style, coin_colour, mirror
        )
    if body == "tile" and rng.random() < earth:  # an earth-coloured tile, light or dark peaks
        tile = _jitter(
            ((132, 92, 60), (96, 62, 40), (110, 100, 70), (84, 88, 96))[int(rng.integers(4))], rng
        )
        line = (235, 238, 240) if rng.random() < 0.5 else tuple(int(v * 0.35) for v in tile)
        style = str(rng.choice(["gold", "hollow"], p=[0.8, 0.2]))
        return MountainLook(peaks, body, texture, tile, line, width, coin, style, gold, mirror)
    # woodcut: a solid ink tile with paper-coloured peaks, or peaks as an ink silhouette
    style = str(rng.choice(["hollow", "gold"], p=[0.7, 0.3]))
    return MountainLook(peaks, body, "flat", ink, paper, width * 1.3, coin, style, gold, mirror)


# ---- shapes, in a glyph's own box: x and y from -0.5 to 0.5, y down, the ground at 0.5 ---------

Shape = list[list[tuple[float, float]]]


def _rect(x0: float, y0: float, x1: float, y1: float) -> list[tuple[float, float]]:
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def _arc(cx: float, cy: float, r: float, t0: float, t1: float, n: int = 14) -> list:
    """Points on a circle from angle ``t0`` to ``t1`` (degrees, counter-clockwise, y down)."""
    t = np.deg2rad(np.linspace(t0, t1, n))
    return list(zip(cx + r * np.cos(t), cy - r * np.sin(t)))


def _broken_column(x: float, half: float, top: float, bottom: float) -> list:
    """A column whose top has broken off at a slant."""
    return [
        (x - half, bottom),
        (x - half, top + 0.06),
        (x - half * 0.2, top),
        (x + half * 0.4, top + 0.09),
        (x + half, top + 0.03),
        (x + half, bottom),
    ]


def _pillars(columns: int) -> tuple[Shape, Shape, Shape]:
    """Broken columns on a base slab: one beside a fallen drum, or two or three, the first still
    carrying its capital."""
    xs = {1: [-0.16], 2: [-0.22, 0.22], 3: [-0.32, 0.0, 0.32]}[columns]
    tops = {1: [-0.3], 2: [-0.36, -0.08], 3: [-0.36, 0.02, -0.2]}[columns]
    half = 0.09 if columns == 3 else 0.11
    polys = [_rect(-0.5, 0.38, 0.5, 0.5)]
    lines = []
    for k, (x, top) in enumerate(zip(xs, tops)):
        if k == 0 and columns > 1:
            polys.append(_rect(x - half - 0.05, -0.5, x + half + 0.05, -0.42))
            polys.append(_rect(x - half, -0.42, x + half, 0.38))
        else:
            polys.append(_broken_column(x, half, top, 0.38))
        lines.append([(x, top + 0.14), (x, 0.32)])
    if columns == 1:
        polys.append(_rect(0.06, 0.18, 0.44, 0.38))
    return polys, [], lines


def _arch(columns: int) -> tuple[Shape, Shape, Shape]:
    """Two piers and the part of their arch still standing, on a base."""
    ring = _arc(0.0, -0.06, 0.44, 180, 62) + _arc(0.0, -0.06, 0.24, 62, 180)
    polys = [
        _rect(-0.5, 0.42, 0.5, 0.5),
        _rect(-0.44, -0.06, -0.24, 0.42),
        _broken_column(0.34, 0.1, 0.04, 0.42),
        ring,
    ]
    lines = [[(-0.44, 0.12), (-0.24, 0.12)], [(-0.44, 0.27), (-0.24, 0.27)]]
    if columns > 1:  # a fallen block under the arch
        polys.append(_rect(-0.05, 0.3, 0.15, 0.42))
    return polys, [], lines


def _tower(columns: int) -> tuple[Shape, Shape, Shape]:
    """A crenellated tower broken on one side, with a window and a door."""
    body = [
        (-0.3, 0.5),
        (-0.3, -0.44),
        (-0.18, -0.44),
        (-0.18, -0.34),
        (-0.06, -0.34),
        (-0.06, -0.44),
        (0.05, -0.44),
        (0.1, -0.22),
        (0.18, -0.3),
        (0.3, -0.04),
        (0.3, 0.5),
    ]
    window = [(-0.12, 0.0), (0.0, 0.0)] + _arc(-0.06, -0.18, 0.06, 0, 180, 8)
    door = [(-0.12, 0.5), (-0.12, 0.3)] + _arc(0.0, 0.3, 0.12, 180, 0, 10) + [(0.12, 0.5)]
    holes = [window, door] if columns > 1 else [door]
    return [body], holes, [[(-0.3, 0.1), (0.3, 0.1)]]


def _temple(columns: int) -> tuple[Shape, Shape, Shape]:
    """A temple front: steps, two to four columns (the last broken), a pediment broken off."""
    n = columns + 1
    xs = np.linspace(-0.34, 0.34, n)
    polys = [_rect(-0.5, 0.42, 0.5, 0.5), _rect(-0.44, 0.35, 0.44, 0.42)]
    for x in xs[:-1]:
        polys.append(_rect(x - 0.05, -0.12, x + 0.05, 0.35))
    polys.append(_broken_column(float(xs[-1]), 0.05, 0.0, 0.35))
    polys.append([(-0.44, -0.2), (0.22, -0.2), (0.16, -0.16), (0.2, -0.12), (-0.44, -0.12)])
    polys.append([(-0.44, -0.22), (-0.02, -0.48), (0.1, -0.4), (0.04, -0.33), (0.12, -0.22)])
    return polys, [], []


def _capital(columns: int) -> tuple[Shape, Shape, Shape]:
    """A column capital with its two volutes on a short fluted shaft."""
    polys = [
        _rect(-0.44, -0.4, 0.44, -0.3),
        _rect(-0.28, -0.3, 0.28, -0.16),
        _arc(-0.3, -0.14, 0.13, 0, 360, 18),
        _arc(0.3, -0.14, 0.13, 0, 360, 18),
        [(-0.2, -0.16), (0.2, -0.16), (0.22, 0.4), (-0.22, 0.4)],
        _rect(-0.34, 0.4, 0.34, 0.5),
    ]
    holes = [_arc(-0.3, -0.14, 0.045, 0, 360, 10), _arc(0.3, -0.14, 0.045, 0, 360, 10)]
    flutes = [[(x, -0.1), (x * 1.05, 0.34)] for x in np.linspace(-0.12, 0.12, columns + 1)]
    return polys, holes, flutes


def _wall(columns: int) -> tuple[Shape, Shape, Shape]:
    """A broken stretch of wall with a doorway and courses of stone."""
    wall = [
        (-0.5, 0.5),
        (-0.5, -0.2),
        (-0.42, -0.26),
        (-0.36, -0.18),
        (-0.3, -0.34),
        (-0.2, -0.3),
        (-0.14, -0.08),
        (-0.04, -0.12),
        (0.04, 0.06),
        (0.14, 0.02),
        (0.2, 0.18),
        (0.3, 0.12),
        (0.38, 0.26),
        (0.5, 0.24),
        (0.5, 0.5),
    ]
    door = [(-0.36, 0.5), (-0.36, 0.22)] + _arc(-0.26, 0.22, 0.1, 180, 0, 8) + [(-0.16, 0.5)]
    courses = [
        [(-0.14, 0.2), (0.16, 0.2)],
        [(-0.12, 0.36), (0.5, 0.36)],
        [(-0.5, 0.02), (-0.02, 0.02)],
    ]
    if columns > 1:  # joints between the stones
        courses += [
            [(0.05, 0.2), (0.05, 0.36)],
            [(0.3, 0.36), (0.3, 0.5)],
            [(-0.3, -0.12), (-0.3, 0.02)],
        ]
    return [wall], [door], courses


def _colonnade(columns: int) -> tuple[Shape, Shape, Shape]:
    """Three to five fluted columns broken off at differing heights, on a base of two or three
    steps: thin parallel lines, upright in the shafts and level in the steps."""
    n = columns + 2
    xs = np.linspace(-0.34, 0.34, n)
    half = 0.3 / n
    tops = (-0.46, -0.08, -0.3, 0.04, -0.2)[:n]
    steps, rise = 2 + columns % 2, 0.07
    ground = 0.5 - rise * steps
    polys = [
        _rect(-0.5 + 0.05 * k, 0.5 - rise * (k + 1), 0.5 - 0.05 * k, 0.5 - rise * k)
        for k in range(steps)
    ]
    flutes = []
    for k, (x, top) in enumerate(zip(xs, tops)):
        if k == 0:  # the first column still stands whole
            polys.append(_rect(x - half, top, x + half, ground))
        else:
            polys.append(_broken_column(x, half, top, ground))
        flutes += [[(x + f * half, top + 0.12), (x + f * half, ground - 0.03)] for f in (-0.6, 0.6)]
    return polys, [], flutes


_RUINS = {
    "pillars": _pillars,
    "arch": _arch,
    "tower": _tower,
    "temple": _temple,
    "capital": _capital,
    "wall": _wall,
    "colonnade": _colonnade,
}
#: The designs a printing's ruins are drawn in, one of them per sheet (``_RUINS``' keys).
RUINS_DESIGNS = tuple(_RUINS)
#: Mountain outlines in a cell's own units (0…1, y down): one, two or three peaks.
_PEAKS = {
    1: [(0.1, 0.85), (0.5, 0.18), (0.9, 0.85)],
    2: [(0.08, 0.85), (0.34, 0.3), (0.48, 0.5), (0.66, 0.2), (0.92, 0.85)],
    3: [
        (0.06, 0.85),
        (0.24, 0.45),
        (0.36, 0.58),
        (0.52, 0.2),
        (0.66, 0.5),
        (0.78, 0.36),
        (0.94, 0.85),
    ],
}


# ---- drawing -------------------------------------------------------------------------------------


def _cell_canvas(pen: Pen, r: int, c: int) -> tuple[np.ndarray, Pen]:
    """The image pixels covering cell (r, c) and a pen drawing in grid units onto a coverage mask
    of the same size."""
    h, w = pen.image.shape[:2]
    x0 = max(0, int(np.floor((c - pen.ox) * pen.s)))
    y0 = max(0, int(np.floor((r - pen.oy) * pen.s)))
    x1 = min(w, int(np.ceil((c + 1 - pen.ox) * pen.s)) + 1)
    y1 = min(h, int(np.ceil((r + 1 - pen.oy) * pen.s)) + 1)
    roi = pen.image[y0:y1, x0:x1]
    mask = np.zeros(roi.shape[:2], np.uint8)
    return roi, Pen(mask, pen.s, (pen.ox + x0 / pen.s, pen.oy + y0 / pen.s))


def _print(roi: np.ndarray, coverage: np.ndarray, colour: Colour, over: bool = False) -> None:
    """Lay ``colour`` where ``coverage`` (0…255) says, as printing ink multiplying the paper (or,
    ``over``, covering it: a light line on a dark tile)."""
    a = coverage.astype(np.float32)[:, :, None] / 255
    ink = np.array(colour, np.float32)[None, None, :]
    out = roi * (1 - a) + ink * a if over else roi * (1 - a + a * ink / 255)
    roi[:] = np.clip(out, 0, 255).astype(np.uint8)


def _hatch(mask: Pen, angle_deg: float, spacing_u: float, width_u: float) -> None:
    """Parallel lines across the whole mask, ``spacing_u`` apart (at least 3 pixels)."""
    h, w = mask.image.shape[:2]
    step = max(spacing_u, 3.0 / mask.s)
    t = np.deg2rad(angle_deg)
    d, n = np.array([np.cos(t), np.sin(t)]), np.array([-np.sin(t), np.cos(t)])
    centre = np.array([mask.ox + w / 2 / mask.s, mask.oy + h / 2 / mask.s])
    reach = (w + h) / mask.s
    for k in np.arange(-reach, reach, step):
        a = centre + n * k
        mask.line(a - d * reach, a + d * reach, 255, width_u)


def ruins_centre(r: int, c: int, look: RuinsLook) -> tuple[float, float]:
    """Where a ruins glyph's middle sits: centred, or high with a margin above it."""
    cy = 0.5 if look.place == "centre" else min(0.5, 0.12 + look.size / 2)
    return c + 0.5, r + cy


def draw_ruins(pen: Pen, r: int, c: int, look: RuinsLook) -> None:
    """Print a ruins cell (row ``r``, column ``c``): its tint, then its glyph."""
    if look.tint is not None:
        roi, tint = _cell_canvas(pen, r, c)
        i = look.tint_inset_u
        tint.rect(Box(c + i, r + i, c + 1 - i, r + 1 - i), 255)
        _print(roi, tint.image, look.tint)
        if look.tint_border is not None:
            border = Pen(np.zeros_like(tint.image), tint.s, (tint.ox, tint.oy))
            j = max(i, 0.05)  # a border on the cell's edge would hide under the grid line
            border.rect(Box(c + j, r + j, c + 1 - j, r + 1 - j), 255, 0.02)
            _print(roi, border.image, look.tint_border)
    roi, mask = _cell_canvas(pen, r, c)
    polys, holes, lines = _RUINS[look.design](look.columns)
    cx, cy = ruins_centre(r, c, look)
    # the strokes and the antialiasing stay inside the glyph's box, so it keeps clear of the grid
    scale = max(0.1, look.size - look.width_u - 1 / pen.s)
    sx = -scale if look.mirror else scale

    def place(shape: list[tuple[float, float]]) -> np.ndarray:
        return np.asarray(shape, float) * (sx, scale) + (cx, cy)

    polys, holes, lines = (
        [place(p) for p in polys],
        [place(p) for p in holes],
        [place(p) for p in lines],
    )
    w = look.width_u
    if look.style == "filled":
        for p in polys:
            mask.fill(p, 255)
        for p in holes:
            mask.fill(p, 0)
        for p in lines:
            mask.poly(p, 0, w * 0.8)
    else:
        if look.style == "hatched":
            body = Pen(np.zeros_like(mask.image), mask.s, (mask.ox, mask.oy))
            for p in polys:
                body.fill(p, 255)
            for p in holes:
                body.fill(p, 0)
            _hatch(mask, 45.0 if look.mirror else 135.0, 0.055 * look.size / 0.5, w * 0.5)
            np.minimum(mask.image, body.image, out=mask.image)
        for p in polys + holes:
            mask.poly(p, 255, w, closed=True)
        for p in lines:
            mask.poly(p, 255, w * 0.7)
    if look.cracks:
        _draw_cracks(mask, polys, holes, look)
    _print(roi, mask.image, look.colour)


def _draw_cracks(mask: Pen, polys: list, holes: list, look: RuinsLook) -> None:
    """Thin wavy cracks running down each stone of a ruins glyph (kept inside it), from the look's
    own seed, so every ruins cell of a sheet is cracked alike: inked on an outlined or hatched
    glyph, left as paper through a filled one."""
    rng = np.random.default_rng(look.cracks)
    body = Pen(np.zeros_like(mask.image), mask.s, (mask.ox, mask.oy))
    for p in polys:
        body.fill(p, 255)
    for p in holes:
        body.fill(p, 0)
    cracks = Pen(np.zeros_like(mask.image), mask.s, (mask.ox, mask.oy))
    for p in polys:
        (x0, y0), (x1, y1) = p.min(axis=0), p.max(axis=0)
        if min(x1 - x0, y1 - y0) < 0.04:
            continue  # a slab or a line too thin to hold a crack
        tall = (y1 - y0) >= (x1 - x0)
        for _ in range(int(rng.integers(1, 3))):
            t = np.linspace(0.1, 0.9, 9)
            across = rng.uniform(0.3, 0.7) + rng.uniform(-0.12, 0.12, t.size)
            a, b = (across, t) if tall else (t, across)
            pts = np.stack([x0 + a * (x1 - x0), y0 + b * (y1 - y0)], axis=1)
            cracks.poly(pts, 255, look.width_u * CRACK_WIDTH)
    inside = np.minimum(cracks.image, body.image)
    if look.style == "filled":
        np.minimum(mask.image, 255 - inside, out=mask.image)
    else:
        np.maximum(mask.image, inside, out=mask.image)


def draw_mountain(pen: Pen, r: int, c: int, look: MountainLook, rng: np.random.Generator) -> None:
    """Print a mountain cell (row ``r``, column ``c``) in ``look``: its tile or silhouette, the
    peaks' outline with a snow line, its coin."""
    roi, mask = _cell_canvas(pen, r, c)
    peaks = np.array(_PEAKS[look.peaks], float)
    if look.mirror:
        peaks[:, 0] = 1 - peaks[:, 0]
    peaks[1:-1, 1] += rng.normal(0, 0.02, len(peaks) - 2)
    outline = peaks + (c, r)
    if look.tile is not None:
        if look.body == "silhouette":
            mask.fill(outline, 255)
        else:
            mask.rect(Box(c, r, c + 1, r + 1), 255)
        if look.texture == "flat" or look.body == "silhouette":
            _print(roi, mask.image, look.tile)
        else:
            _textured_tile(roi, mask, look, rng)
    if look.body != "silhouette":
        line = Pen(np.zeros_like(mask.image), mask.s, (mask.ox, mask.oy))
        line.poly(outline, 255, look.width_u)
        top = peaks[np.argmin(peaks[:, 1])] + (c, r)
        snow = np.array([(-0.08, 0.13), (-0.03, 0.1), (0.0, 0.14), (0.04, 0.09), (0.08, 0.13)])
        line.poly(snow + top, 255, look.width_u * 0.7)
        for i in range(1, len(peaks) - 1, 2):  # shading strokes down each summit's far slope
            summit, foot, back = outline[i], outline[i + 1], outline[i - 1]
            down = (back - summit) / np.linalg.norm(back - summit)
            for t in (0.3, 0.55, 0.8):
                start = summit + t * (foot - summit)
                line.line(start, start + down * min(0.12, 0.2 * t), 255, look.width_u * 0.6)
        if look.body == "outline":
            line.line((c + 0.06, r + 0.85), (c + 0.94, r + 0.85), 255, look.width_u)
        _print(roi, line.image, look.line, over=True)
    if look.coin != "none":
        _mountain_coin(pen, r, c, look)


def _textured_tile(
    roi: np.ndarray, mask: Pen, look: MountainLook, rng: np.random.Generator
) -> None:
    """A tile printed with grain or hatching in its colour."""
    _print(roi, mask.image, tuple(min(255, int(v * 1.35)) for v in look.tile))
    texture = Pen(np.zeros_like(mask.image), mask.s, (mask.ox, mask.oy))
    if look.texture == "grain":
        grain = 0.5 + 0.35 * smooth_noise(mask.image.shape, max(2.0, 0.08 * mask.s), rng)
        texture.image[:] = np.clip(grain * 255, 0, 255).astype(np.uint8)
    else:
        _hatch(texture, 45.0, 0.08, 0.03)
        if look.texture == "cross-hatch":
            _hatch(texture, 135.0, 0.08, 0.03)
    np.minimum(texture.image, mask.image, out=texture.image)
    _print(roi, texture.image, tuple(int(v * 0.75) for v in look.tile))


def _mountain_coin(pen: Pen, r: int, c: int, look: MountainLook) -> None:
    """The mountain's coin: in the middle or in a top corner (the one away from the high peak)."""
    if look.coin == "centre":
        centre = (c + 0.5, r + 0.64)
    else:
        centre = (c + (0.2 if look.mirror else 0.8), r + 0.2)
    rad = 0.12
    if look.coin_style == "gold":
        pen.circle(centre, rad, look.coin_colour)
        pen.circle(centre, rad, tuple(int(v * 0.45) for v in look.coin_colour), 0.03)
    elif look.coin_style == "hollow":
        pen.circle(centre, rad, (236, 240, 242))
        pen.circle(centre, rad, look.coin_colour, 0.035)
    else:
        pen.circle(centre, rad, look.coin_colour, max(0.02, look.width_u * 0.8))
        if look.coin_style == "outline-1":
            pen.text("1", centre, 0.11, look.coin_colour, font=cv2.FONT_HERSHEY_SIMPLEX)
