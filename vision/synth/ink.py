"""Hand-drawn terrain on a rendered sheet, in the styles players really use (docs/printed-sheet.md).

Ink is kept in one density layer per pencil (0 = none, 1 = full) and laid on the paper at the end
as a filter: ``paper × (1 − density × (1 − pencil colour))``, so pencil darkens and tints what is
under it (ruins glyphs, dashed lines) the way graphite and wax do. Pencil layers are broken up by
the paper's tooth; marker layers are not.

Each sheet gets one *hand* (pressure, wobble, symbol size, angle of shading, the player's own
variant of each symbol) and every cell varies around it, so no two cells look alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from scoring.sheet import Sheet
from scoring.terrain import Terrain
from vision.layout import GEOMETRY, GRID, Box
from vision.synth.paper import RenderedSheet, render_sheet, season_parts, smooth_noise

#: Style families and their styles. The reader can hold a whole family out of training.
STYLE_FAMILIES: dict[str, tuple[str, ...]] = {
    "graphite": ("graphite-symbols", "graphite-outlined"),
    "coloured-pencil": ("colour-shading", "colour-shading-symbols", "colour-symbols"),
    "marker": ("marker-fill", "marker-symbols"),
}
STYLES: tuple[str, ...] = tuple(s for family in STYLE_FAMILIES.values() for s in family)


def style_family(style: str) -> str:
    """The family a style belongs to."""
    for family, styles in STYLE_FAMILIES.items():
        if style in styles:
            return family
    raise ValueError(f"unknown style {style!r}: expected one of {', '.join(STYLES)}")


@dataclass(frozen=True)
class Style:
    """How one style marks a cell: symbol ink, shading, outlines."""

    symbol: str | None  # "graphite", "colour" or "marker" symbol on top, or None
    shading: str | None  # "pencil" or "marker" fill, or None
    outline: float  # probability that a shape border gets a traced outline


STYLE_RULES: dict[str, Style] = {
    "graphite-symbols": Style("graphite", None, 0.15),
    "graphite-outlined": Style("graphite", None, 0.85),
    "colour-shading": Style(None, "pencil", 0.3),
    "colour-shading-symbols": Style("graphite", "pencil", 0.4),
    "colour-symbols": Style("colour", None, 0.2),
    "marker-fill": Style(None, "marker", 0.3),
    "marker-symbols": Style("marker", None, 0.1),
}

#: Pencil colours as RGB (what the pencil's wax lets through at full density).
COLOURS: dict[str, tuple[int, int, int]] = {
    "graphite": (70, 70, 78),
    "forest": (46, 130, 62),
    "village": (200, 45, 40),
    "farm": (232, 190, 40),
    "water": (45, 105, 205),
    "monster": (125, 55, 160),
}
MARKER_COLOURS: dict[str, tuple[int, int, int]] = {
    "forest": (20, 150, 60),
    "village": (225, 30, 45),
    "farm": (250, 215, 0),
    "water": (10, 120, 230),
    "monster": (140, 40, 190),
    "graphite": (30, 30, 35),
}
SYMBOL_VARIANTS: dict[Terrain, tuple[str, ...]] = {
    Terrain.FOREST: ("lollipops", "lollipops", "pines", "scribble-tree", "cloud-trees"),
    Terrain.VILLAGE: ("house", "house", "house-door", "roofs", "filled-roof"),
    Terrain.FARM: ("hatch", "hatch", "cross-hatch"),
    Terrain.WATER: ("waves", "waves", "tildes", "zigzag"),
    Terrain.MONSTER: ("horned-face", "horned-face", "eared-face", "simple-face"),
}
NAMES = (
    "Ana",
    "Bruno",
    "Chloe",
    "Dmytro",
    "Elif",
    "Finn",
    "Gabi",
    "Hiro",
    "Ines",
    "Jonas",
    "Kasia",
    "Lucia",
    "Mateo",
    "Nora",
    "Olek",
    "Pia",
    "Quinn",
    "Rosa",
    "Sami",
    "Tomas",
    "Uma",
    "Vera",
)
TITLES = ("The Lost Vale", "Nalos Coast", "Map of Dawn", "Queen Gimnax", "Wildlands", "My Realm")

TILE_MARGIN = 0.35  # units of drawing room around a cell (overshoot, outlines)


@dataclass
class Hand:
    """One player's way of drawing, fixed for a sheet."""

    pressure: float
    width_u: float
    wobble_u: float
    size: float
    hatch_angle: float
    hatch_spacing_u: float
    overshoot_u: float
    variants: dict[Terrain, str]

    @classmethod
    def random(cls, rng: np.random.Generator) -> Hand:
        """A random hand."""
        return cls(
            pressure=float(rng.uniform(0.45, 0.95)),
            width_u=float(rng.uniform(0.018, 0.04)),
            wobble_u=float(rng.uniform(0.004, 0.02)),
            size=float(rng.uniform(0.75, 1.1)),
            hatch_angle=float(rng.uniform(0, np.pi)),
            hatch_spacing_u=float(rng.uniform(0.025, 0.08)),
            overshoot_u=float(rng.uniform(0.0, 0.12)),
            variants={t: str(rng.choice(v)) for t, v in SYMBOL_VARIANTS.items()},
        )


@dataclass
class Inks:
    """Density layers, one per pencil, over a rendered sheet."""

    rendered: RenderedSheet
    layers: dict[str, np.ndarray] = field(
        default_factory=dict
    )  # "pencil:forest", "marker:water", …
    terrain_mask: np.ndarray | None = None  # where terrain ink is (truth for tests)

    def layer(self, name: str, kind: str) -> np.ndarray:
        """The density layer of one pencil (created on first use)."""
        key = f"{kind}:{name}"
        if key not in self.layers:
            self.layers[key] = np.zeros(self.rendered.image.shape[:2], np.float32)
        return self.layers[key]


class Tile:
    """A float drawing surface covering a box (units) of the sheet, drawn with wobbly strokes."""

    def __init__(self, rendered: RenderedSheet, box: Box):
        s = rendered.px_per_u
        x0, y0 = rendered.to_px(box.x0, box.y0)
        self.x0, self.y0 = int(np.floor(x0)), int(np.floor(y0))
        h, w = rendered.image.shape[:2]
        self.x0, self.y0 = max(0, self.x0), max(0, self.y0)
        x1, y1 = rendered.to_px(box.x1, box.y1)
        self.x1, self.y1 = min(w, int(np.ceil(x1)) + 1), min(h, int(np.ceil(y1)) + 1)
        self.ink = np.zeros((self.y1 - self.y0, self.x1 - self.x0), np.float32)
        self.r = rendered
        self.s = s

    def blank_copy(self) -> Tile:
        """An empty tile over the same box."""
        other = object.__new__(Tile)
        other.__dict__.update(self.__dict__)
        other.ink = np.zeros_like(self.ink)
        return other

    def px(self, xy: np.ndarray) -> np.ndarray:
        """Units → fixed-point pixels of this tile."""
        x, y = self.r.to_px(xy[:, 0], xy[:, 1])
        return np.round(np.stack([(x - self.x0) * 16, (y - self.y0) * 16], axis=1)).astype(np.int32)

    def stroke(
        self,
        xy,
        rng: np.random.Generator,
        hand: Hand,
        pressure: float | None = None,
        width_u: float | None = None,
        wobble: float = 1.0,
    ) -> None:
        """A pencil stroke through points ``xy`` (units) with wobble and varying pressure."""
        pts = wobbly(np.asarray(xy, float), rng, hand.wobble_u * wobble)
        p = hand.pressure if pressure is None else pressure
        width = (width_u or hand.width_u) * rng.uniform(0.8, 1.25) * self.s
        pix = self.px(pts)
        n = len(pix)
        taper = np.minimum(
            1.0, np.minimum(np.arange(n), np.arange(n)[::-1]) / max(1.0, 0.15 * n) + 0.35
        )
        press = np.clip(p * (1 + 0.25 * smooth_1d(n, rng)) * taper, 0.05, 1.0)
        widths = np.maximum(1, np.round(width * (0.6 + 0.4 * press / max(p, 0.05)))).astype(
            int
        )  # press harder, wider
        pts, press, widths = (
            pix.tolist(),
            press.tolist(),
            widths.tolist(),
        )  # plain ints: 3× less call overhead
        for k in range(n - 1):
            cv2.line(self.ink, pts[k], pts[k + 1], press[k], widths[k], cv2.LINE_AA, 4)

    def fill(self, xy, value: float) -> None:
        """A filled polygon of density ``value``."""
        cv2.fillPoly(self.ink, [self.px(np.asarray(xy, float))], float(value), cv2.LINE_AA, 4)

    def merge(self, layer: np.ndarray, mask: np.ndarray | None = None) -> None:
        """Lay this tile's strokes onto a full layer (darkest wins), and mark them in ``mask``."""
        region = layer[self.y0 : self.y1, self.x0 : self.x1]
        np.maximum(region, self.ink, out=region)
        if mask is not None:
            m = mask[self.y0 : self.y1, self.x0 : self.x1]
            m[self.ink > 0.08] = 255


def smooth_1d(n: int, rng: np.random.Generator) -> np.ndarray:
    """A smooth random sequence of ``n`` values around 0, about ±1."""
    knots = rng.standard_normal(max(2, n // 6 + 2))
    return np.interp(_linspace(len(knots) - 1, n), np.arange(len(knots)), knots)


def _linspace(stop: float, n: int) -> np.ndarray:
    """``np.linspace(0, stop, n)``, bit for bit, without
    its overhead (called ~10⁶ times per training run)."""
    if n < 2:
        return np.linspace(0, stop, n)
    ts = np.arange(n, dtype=np.float64) * (stop / (n - 1))
    ts[-1] = stop
    return ts


def wobbly(xy: np.ndarray, rng: np.random.Generator, amp: float) -> np.ndarray:
    """Resample a polyline every ~0.04 u and push it sideways by a smooth random amount."""
    seg = np.linalg.norm(np.diff(xy, axis=0), axis=1)
    total = float(seg.sum())
    if total < 1e-6:
        return xy
    t = np.concatenate([[0], np.cumsum(seg)])
    n = max(2, int(total / 0.04) + 1)
    ts = _linspace(total, n)
    pts = np.stack([np.interp(ts, t, xy[:, 0]), np.interp(ts, t, xy[:, 1])], axis=1)
    d = np.gradient(pts, axis=0)
    normal = np.stack([-d[:, 1], d[:, 0]], axis=1)
    normal /= np.linalg.norm(normal, axis=1, keepdims=True) + 1e-9
    return pts + normal * (amp * smooth_1d(n, rng))[:, None]


# ---- symbols, in cell units (0…1), placed by the caller -------------------------------------


def circle_pts(
    cx: float, cy: float, r: float, n: int = 18, start: float = 0.0, sweep: float = 2 * np.pi
):
    """Points on a circle arc."""
    a = start + np.linspace(0, sweep, n)
    return np.stack([cx + r * np.cos(a), cy + r * np.sin(a)], axis=1)


def _jitter(rng: np.random.Generator):
    """A tiny jitter helper: ``j(s)`` is uniform in ±``s`` (0.04 by default)."""
    return lambda s=0.04: float(rng.uniform(-s, s))


def _forest_strokes(variant: str, rng: np.random.Generator) -> list[np.ndarray]:
    """One to three trees: pines, round or scalloped canopies (a scribble inside some), each on
    a trunk."""
    j = _jitter(rng)
    out: list[np.ndarray] = []
    n = int(rng.integers(1, 4))
    xs = np.linspace(0.3, 0.7, n) if n > 1 else np.array([0.5])
    for x in xs:
        x += j(0.05)
        base, r = 0.78 + j(), 0.13 + j(0.03) if n > 1 else 0.2 + j(0.04)
        if variant == "pines":
            out.append(
                np.array(
                    [
                        (x - r, base - 0.12),
                        (x, base - 0.12 - 3 * r),
                        (x + r, base - 0.12),
                        (x - r, base - 0.12),
                    ]
                )
            )
        else:
            top = base - 0.2 - 2 * r
            out.append(circle_pts(x, top + r, r, 16, rng.uniform(0, 6.3), 2 * np.pi + 0.4))
            if variant == "cloud-trees":  # scalloped canopy: three lobes instead of a circle
                out[-1] = np.concatenate(
                    [
                        circle_pts(x + dx * r * 0.7, top + r + dy * r * 0.6, r * 0.6, 8, a0, 3.6)
                        for dx, dy, a0 in ((-1, 0.3, 1.6), (0, -0.6, 3.2), (1, 0.3, 4.8))
                    ]
                )
            if variant == "scribble-tree":
                out.append(
                    np.array(
                        [
                            (x - r * 0.6, top + r * 0.7),
                            (x + r * 0.5, top + r * 0.4),
                            (x - r * 0.4, top + r * 1.3),
                            (x + r * 0.6, top + r * 1.1),
                        ]
                    )
                )
        out.append(
            np.array([(x, base - 0.2 + (0.05 if variant == "pines" else 0)), (x + j(0.02), base)])
        )
    return out


def _village_strokes(variant: str, rng: np.random.Generator) -> list[np.ndarray]:
    """A house outline with its roof (scribbled in, or with a door), or two roofs over a line."""
    j = _jitter(rng)
    out: list[np.ndarray] = []
    x0, x1, y1, ye, yt = 0.28 + j(), 0.72 + j(), 0.8 + j(), 0.48 + j(), 0.2 + j()
    if variant == "roofs":
        for dx in (-0.17, 0.17):
            out.append(np.array([(0.5 + dx - 0.15, 0.6), (0.5 + dx, 0.38), (0.5 + dx + 0.15, 0.6)]))
        out.append(np.array([(0.2, 0.75), (0.8, 0.75)]))
    else:
        out.append(
            np.array(
                [
                    (x0, ye),
                    (x0, y1),
                    (x1, y1),
                    (x1, ye),
                    (x0, ye),
                    ((x0 + x1) / 2, yt),
                    (x1, ye),
                ]
            )
        )
        if variant == "filled-roof":  # the roof scribbled in
            xm = (x0 + x1) / 2
            zig = [
                (x0 + (xm - x0) * t + (x1 - x0) * t * (k % 2), ye - (ye - yt) * t * 0.9)
                for k, t in enumerate(np.linspace(0.1, 0.9, 7))
            ]
            out.append(np.array(zig))
        if variant == "house-door":
            xm = (x0 + x1) / 2
            out.append(
                np.array(
                    [
                        (xm - 0.06, y1),
                        (xm - 0.06, y1 - 0.16),
                        (xm + 0.06, y1 - 0.16),
                        (xm + 0.06, y1),
                    ]
                )
            )
    return out


def _farm_strokes(variant: str, rng: np.random.Generator) -> list[np.ndarray]:
    """Three to five slanted furrows, crossed by a second set in the cross-hatch variant."""
    j = _jitter(rng)
    out: list[np.ndarray] = []
    n = int(rng.integers(3, 6))
    for k in range(n):
        t = 0.2 + 0.6 * k / (n - 1) + j(0.02)
        out.append(np.array([(t - 0.14, 0.8 + j()), (t + 0.14, 0.2 + j())]))
    if variant == "cross-hatch":
        for k in range(n - 1):
            t = 0.25 + 0.5 * k / max(1, n - 2)
            out.append(np.array([(t - 0.12, 0.22 + j()), (t + 0.12, 0.78 + j())]))
    return out


def _water_strokes(variant: str, rng: np.random.Generator) -> list[np.ndarray]:
    """Two or three wavy lines (sine, tildes or zigzag)."""
    j = _jitter(rng)
    out: list[np.ndarray] = []
    n = int(rng.integers(2, 4))
    for k in range(n):
        y = 0.3 + 0.4 * k / (n - 1) + j(0.03)
        x = np.linspace(0.18, 0.82, 24)
        waves = 2 if variant == "tildes" else rng.uniform(1.5, 3)
        phase = (x - 0.18) / 0.64 * waves * 2 * np.pi + rng.uniform(0, 1)
        wave = 2 / np.pi * np.arcsin(np.sin(phase)) if variant == "zigzag" else np.sin(phase)
        out.append(np.stack([x, y + 0.06 * wave], axis=1))
    return out


def _monster_strokes(variant: str, rng: np.random.Generator) -> list[np.ndarray]:
    """A face: a round head with horns or ears and angry brows, or slanted triangle eyes."""
    j = _jitter(rng)
    out: list[np.ndarray] = []
    cx, cy, r = 0.5 + j(), 0.56 + j(), 0.25 + j(0.03)
    out.append(circle_pts(cx, cy, r, 20, rng.uniform(0, 6.3), 2 * np.pi + 0.3))
    for s in (-1, 1):
        if variant == "simple-face":  # no horns: slanted triangle eyes
            out.append(
                np.array(
                    [
                        (cx + s * 0.04, cy - 0.02),
                        (cx + s * 0.16, cy - 0.08),
                        (cx + s * 0.14, cy + 0.03),
                        (cx + s * 0.04, cy - 0.02),
                    ]
                )
            )
            continue
        if variant == "eared-face":
            out.append(
                np.array(
                    [
                        (cx + s * 0.12, cy - r * 0.95),
                        (cx + s * 0.24, cy - r - 0.18),
                        (cx + s * 0.24, cy - r * 0.6),
                    ]
                )
            )
        else:
            out.append(
                np.array(
                    [
                        (cx + s * 0.1, cy - r * 0.97),
                        (cx + s * 0.28, cy - r - 0.15),
                        (cx + s * 0.2, cy - r * 0.75),
                    ]
                )
            )
        out.append(np.array([(cx + s * 0.17, cy - 0.1), (cx + s * 0.04, cy - 0.04)]))  # angry brows
        out.append(circle_pts(cx + s * 0.1, cy, 0.025, 6))
    out.append(
        np.array(
            [
                (cx - 0.12, cy + 0.13),
                (cx - 0.06, cy + 0.09),
                (cx, cy + 0.14),
                (cx + 0.06, cy + 0.09),
                (cx + 0.12, cy + 0.13),
            ]
        )
    )
    return out


_SYMBOL_STROKES = {
    Terrain.FOREST: _forest_strokes,
    Terrain.VILLAGE: _village_strokes,
    Terrain.FARM: _farm_strokes,
    Terrain.WATER: _water_strokes,
    Terrain.MONSTER: _monster_strokes,
}


def symbol_strokes(terrain: Terrain, variant: str, rng: np.random.Generator) -> list[np.ndarray]:
    """Polylines (cell units, 0…1) of one terrain symbol in a player's variant."""
    strokes = _SYMBOL_STROKES.get(terrain)
    return strokes(variant, rng) if strokes else []


def place(
    strokes: list[np.ndarray], col: int, row: int, hand: Hand, rng: np.random.Generator
) -> list[np.ndarray]:
    """Symbol strokes moved into cell (row, col) with this hand's size and a small tilt."""
    a = rng.normal(0, 0.12)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    size = hand.size * rng.uniform(0.85, 1.1)
    shift = rng.uniform(-0.05, 0.05, 2)
    return [((s - 0.5) @ rot.T) * size + 0.5 + shift + (col, row) for s in strokes]


def hatch(
    tile: Tile, col: int, row: int, hand: Hand, rng: np.random.Generator, marker: bool
) -> None:
    """Shade a cell: parallel strokes (or a marker fill) inside a jittered, overshooting outline."""
    over = lambda: float(rng.uniform(-0.1, hand.overshoot_u))  # noqa: E731
    poly = np.array(
        [
            (col - over(), row - over()),
            (col + 1 + over(), row - over()),
            (col + 1 + over(), row + 1 + over()),
            (col - over(), row + 1 + over()),
        ]
    )
    if rng.random() < 0.3:  # one corner not reached
        k = int(rng.integers(4))
        nxt, prv = poly[(k + 1) % 4], poly[k - 1]
        t = rng.uniform(0.15, 0.45)
        poly = np.insert(
            np.delete(poly, k, axis=0),
            k,
            [poly[k] + (prv - poly[k]) * t, poly[k] + (nxt - poly[k]) * t],
            axis=0,
        )
    mask = np.zeros_like(tile.ink)
    cv2.fillPoly(mask, [tile.px(poly)], 1.0, cv2.LINE_AA, 4)
    strokes = tile.blank_copy()
    if marker:
        strokes.fill(poly, rng.uniform(0.75, 0.95))
        for _ in range(int(rng.integers(1, 4))):  # marker streaks: overlap stripes
            y = row + rng.uniform(0.1, 0.9)
            strokes.stroke(
                [(col - 0.2, y), (col + 1.2, y + rng.normal(0, 0.05))], rng, hand, 1.0, 0.08
            )
    else:
        angle = hand.hatch_angle + rng.normal(0, 0.15)
        spacing = hand.hatch_spacing_u * rng.uniform(0.8, 1.25)
        d = np.array([np.cos(angle), np.sin(angle)])
        nrm = np.array([-d[1], d[0]])
        c = np.array([col + 0.5, row + 0.5])
        density = rng.uniform(0.4, 0.95)
        for t in np.arange(-0.85, 0.85, spacing):
            p = c + nrm * t
            strokes.stroke(
                [p - d * 0.9, p + d * 0.9],
                rng,
                hand,
                hand.pressure * density,
                hand.width_u * 1.4,
                0.5,
            )
    tile.ink = np.maximum(tile.ink, strokes.ink * mask)


# ---- the whole sheet ------------------------------------------------------------------------


@dataclass
class DrawnSheet:
    """A filled-in flat sheet and its truth."""

    image: np.ndarray  # BGR uint8, same frame as ``rendered``
    rendered: RenderedSheet  # the empty print and the unit → pixel mapping
    terrain_mask: np.ndarray  # uint8, 255 where terrain ink (symbols, shading, outlines) lies
    truth: dict
    graphite: np.ndarray | None = None  # uint8 graphite density (it shines under a lamp), or None

    @property
    def alpha(self) -> np.ndarray:
        """The paper mask (torn edge) of the print."""
        return self.rendered.alpha


def draw_sheet(
    sheet: Sheet,
    style: str,
    rng: np.random.Generator,
    *,
    px_per_u: float = 60,
    variant: str = "print",
    rendered: RenderedSheet | None = None,
    extras: bool = True,
) -> DrawnSheet:
    """Render ``sheet`` filled in by hand in ``style``;
    ``extras`` adds ghosts, smudges, name, scores."""
    rules = STYLE_RULES.get(style)
    if rules is None:
        raise ValueError(f"unknown style {style!r}: expected one of {', '.join(STYLES)}")
    rendered = rendered or render_sheet(sheet.side, px_per_u=px_per_u, variant=variant, rng=rng)
    inks = Inks(rendered)
    inks.terrain_mask = np.zeros(rendered.image.shape[:2], np.uint8)
    hand = Hand.random(rng)
    for (r, c), t in sheet.drawn_cells().items():
        draw_cell(inks, r, c, t, rules, hand, rng)
    draw_outlines(inks, sheet, rules, hand, rng)
    crossed = 0
    if extras:
        draw_ghosts(inks, sheet, hand, rng)
        crossed = draw_coins(inks, sheet.coins, rules, hand, rng)
        name = draw_writing(inks, hand, rng)
    else:
        crossed = draw_coins(inks, sheet.coins, rules, hand, rng)
        name = ""
    image = lay_ink(rendered, inks, rng)
    truth = {
        "sheet": sheet.to_json(),
        "style": style,
        "style_family": style_family(style),
        "paper": rendered.variant,
        "symbol_variants": {t.value: v for t, v in hand.variants.items()},
        "coins_crossed": crossed,
        "player_name": name,
    }
    layer = inks.layers.get("pencil:graphite")
    graphite = None if layer is None else cv2.convertScaleAbs(layer, alpha=255.0)
    return DrawnSheet(image, rendered, inks.terrain_mask, truth, graphite)


def pencil_for(terrain: Terrain) -> str:
    """The coloured pencil players use for a terrain."""
    return terrain.value


def draw_cell(
    inks: Inks, r: int, c: int, t: Terrain, rules: Style, hand: Hand, rng: np.random.Generator
) -> None:
    """One drawn cell: shading and/or symbol, per the style."""
    m = TILE_MARGIN
    box = Box(c - m, r - m, c + 1 + m, r + 1 + m)
    if rules.shading:
        tile = Tile(inks.rendered, box)
        if rng.random() < 0.97:  # players now and then forget to shade one
            hatch(tile, c, r, hand, rng, marker=rules.shading == "marker")
        kind = "marker" if rules.shading == "marker" else "pencil"
        tile.merge(inks.layer(pencil_for(t), kind), inks.terrain_mask)
        if tile.ink.max() <= 0.08 and not rules.symbol:  # keep every filled cell inked
            rules = Style("colour", None, rules.outline)
    if rules.symbol:
        tile = Tile(inks.rendered, box)
        for s in place(symbol_strokes(t, hand.variants[t], rng), c, r, hand, rng):
            width = hand.width_u * (2.2 if rules.symbol == "marker" else 1.0)
            tile.stroke(s, rng, hand, None if rules.symbol != "marker" else 0.9, width)
        pencil = "graphite" if rules.symbol == "graphite" else pencil_for(t)
        tile.merge(
            inks.layer(pencil, "marker" if rules.symbol == "marker" else "pencil"),
            inks.terrain_mask,
        )


def draw_outlines(
    inks: Inks, sheet: Sheet, rules: Style, hand: Hand, rng: np.random.Generator
) -> None:
    """Pencil lines traced along some borders between a drawn cell and anything else."""
    drawn = sheet.drawn_cells()
    tile = Tile(inks.rendered, Box(-0.3, -0.3, GRID + 0.3, GRID + 0.3))
    for (r, c), t in drawn.items():
        for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            other = drawn.get((r + dr, c + dc))
            if other is not None and (r + dr, c + dc) < (r, c):
                continue  # each pair of drawn cells once
            # borders between different terrains are traced often; inside a terrain only where two
            # shapes happened to meet
            if rng.random() > rules.outline * (0.25 if other is t else 1.0):
                continue
            if dr == 0:
                x = c + (1 if dc == 1 else 0)
                seg = [(x, r - 0.03), (x, r + 1.03)]
            else:
                y = r + (1 if dr == 1 else 0)
                seg = [(c - 0.03, y), (c + 1.03, y)]
            tile.stroke(seg, rng, hand, hand.pressure * 0.9, hand.width_u * 1.2, 0.6)
    tile.merge(inks.layer("graphite", "pencil"), inks.terrain_mask)


def draw_ghosts(inks: Inks, sheet: Sheet, hand: Hand, rng: np.random.Generator) -> None:
    """Erased strokes and smudges in a few empty cells (not terrain: never in the truth mask)."""
    empty = [cell for cell, t in sheet.items() if t is Terrain.EMPTY]
    layer = inks.layer("graphite", "pencil")
    for k in rng.permutation(len(empty))[: int(rng.integers(0, 6))]:
        r, c = empty[k]
        tile = Tile(inks.rendered, Box(c - 0.2, r - 0.2, c + 1.2, r + 1.2))
        t = list(SYMBOL_VARIANTS)[int(rng.integers(len(SYMBOL_VARIANTS)))]
        if rng.random() < 0.6:
            for s in place(symbol_strokes(t, hand.variants[t], rng), c, r, hand, rng):
                tile.stroke(s, rng, hand, rng.uniform(0.06, 0.16))
        else:
            cx, cy = (
                tile.px(np.array([[c + rng.uniform(0.2, 0.8), r + rng.uniform(0.2, 0.8)]]))[0] // 16
            )
            cv2.circle(
                tile.ink,
                (int(cx), int(cy)),
                int(inks.rendered.px_per_u * rng.uniform(0.1, 0.3)),
                rng.uniform(0.05, 0.15),
                -1,
            )
            tile.ink = cv2.GaussianBlur(tile.ink, (0, 0), inks.rendered.px_per_u * 0.08)
        tile.merge(layer)


def draw_coins(inks: Inks, coins: int, rules: Style, hand: Hand, rng: np.random.Generator) -> int:
    """Mark the first ``coins`` coins (shaded or crossed);
    some get crossed out again. Returns crossed."""
    g = GEOMETRY
    mode = rng.choice(["shade", "cross", "scribble"], p=[0.55, 0.25, 0.2])
    pencil = "graphite" if rules.symbol == "graphite" or rng.random() < 0.5 else "farm"
    kind = "marker" if rules.shading == "marker" or rules.symbol == "marker" else "pencil"
    crossed = int(rng.integers(0, coins + 1)) if coins and rng.random() < 0.1 else 0
    layer = inks.layer(pencil, kind)
    rad = g.coin_radius
    for i in range(min(coins, g.coin_count)):
        x, y = g.coin_centre(i)
        tile = Tile(inks.rendered, Box(x - 0.35, y - 0.35, x + 0.35, y + 0.35))
        if mode == "cross":
            tile.stroke([(x - rad, y - rad), (x + rad, y + rad)], rng, hand)
            tile.stroke([(x + rad, y - rad), (x - rad, y + rad)], rng, hand)
        elif mode == "shade":
            mask = np.zeros_like(tile.ink)
            cv2.circle(
                mask,
                tuple(int(v) for v in tile.px(np.array([[x, y]]))[0]),
                int(rad * 1.15 * tile.s * 16),
                1.0,
                -1,
                cv2.LINE_AA,
                4,
            )
            for t in np.arange(-rad * 1.3, rad * 1.3, hand.hatch_spacing_u * 0.7):
                tile.stroke(
                    [
                        (x - rad * 1.5 + t, y + rad * 1.5 + t),
                        (x + rad * 1.5 + t, y - rad * 1.5 + t),
                    ],
                    rng,
                    hand,
                    wobble=0.3,
                )
            tile.ink *= mask
        else:
            tile.stroke(
                circle_pts(x, y, rad * 0.7, 14, 0, 4 * np.pi) + rng.normal(0, 0.03, (14, 2)),
                rng,
                hand,
            )
        if i < crossed:
            tile.stroke(
                [(x - rad * 1.2, y + rad * 1.2), (x + rad * 1.2, y - rad * 1.2)], rng, hand, 1.0
            )
        tile.merge(layer)
    return crossed


def scribble_text(
    inks: Inks, text: str, box: Box, hand: Hand, rng: np.random.Generator, pencil: str = "graphite"
) -> None:
    """Handwriting-ish text fitted into ``box`` (units), slanted and wavy."""
    tile = Tile(inks.rendered, box)
    h, w = tile.ink.shape
    if h < 4 or w < 4:
        return
    font = int(
        rng.choice(
            [cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_PLAIN]
        )
    )
    thick = max(1, int(round(hand.width_u * tile.s)))
    (tw, th), _ = cv2.getTextSize(text, font, 1.0, thick)
    scale = min(w * 0.85 / max(tw, 1), h * 0.6 / max(th, 1))
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    org = (int((w - tw) / 2 + rng.uniform(-0.05, 0.05) * w), int((h + th) / 2))
    canvas = np.zeros((h, w), np.uint8)  # putText draws on 8-bit images only
    cv2.putText(canvas, text, org, font, scale, 255, thick, cv2.LINE_AA)
    tile.ink = canvas.astype(np.float32) * (hand.pressure / 255.0)
    shear = rng.uniform(-0.3, 0.15)
    angle = rng.normal(0, 0.05)
    m = np.array(
        [[np.cos(angle), shear - np.sin(angle), 0], [np.sin(angle), np.cos(angle), 0]], np.float32
    )
    m[:, 2] = np.array([w / 2, h / 2]) - m[:, :2] @ np.array([w / 2, h / 2])
    tile.ink = cv2.warpAffine(tile.ink, m, (w, h))
    tile.merge(inks.layer(pencil, "pencil"))


def draw_writing(inks: Inks, hand: Hand, rng: np.random.Generator) -> str:
    """A name and title in the header and numbers in some season boxes; returns the name."""
    name = str(rng.choice(NAMES)) if rng.random() < 0.8 else ""
    if name:
        scribble_text(inks, name, Box(1.4, -3.1, 4.0, -2.3), hand, rng)
    if rng.random() < 0.5:
        scribble_text(inks, str(rng.choice(TITLES)), Box(0.4, -1.9, 4.0, -1.15), hand, rng)
    seasons = int(rng.integers(0, 5))
    for k in range(seasons):
        parts = season_parts(GEOMETRY.season_boxes[k])
        for key, part in parts.items():
            if rng.random() < 0.85:
                value = int(rng.integers(0, 30 if key == "total" else 16))
                text = f"-{value % 9}" if key == "monsters" and value else str(value)
                scribble_text(
                    inks,
                    text,
                    Box(part.x0 + 0.04, part.y0 + 0.04, part.x1 - 0.04, part.y1 - 0.04),
                    hand,
                    rng,
                )
    return name


def lay_ink(rendered: RenderedSheet, inks: Inks, rng: np.random.Generator) -> np.ndarray:
    """Lay every density layer on the paper as a colour filter; pencils follow the paper's tooth.

    Only each layer's bounding box is touched, so sparse layers cost little on big renders.
    """
    img = rendered.image.astype(np.float32)
    shape = img.shape[:2]
    tooth = None
    for key, layer in inks.layers.items():
        kind, name = key.split(":", 1)
        x, y, w, h = cv2.boundingRect((layer > 0).astype(np.uint8))
        if w == 0 or h == 0:
            continue
        density = layer[y : y + h, x : x + w]
        if kind == "pencil":
            if tooth is None:
                grain = cv2.GaussianBlur(rng.standard_normal(shape, dtype=np.float32), (0, 0), 0.7)
                tooth = np.clip(
                    0.75 + 0.9 * grain + 0.1 * smooth_noise(shape, rendered.px_per_u * 0.3, rng),
                    0.15,
                    1.0,
                )
            density = density * tooth[y : y + h, x : x + w]
            colour = COLOURS[name]
        else:
            density = np.clip(density, 0, 1)
            colour = MARKER_COLOURS[name]
        filt = 1.0 - np.array(colour[::-1], np.float32) / 255.0
        img[y : y + h, x : x + w] *= 1.0 - density[:, :, None] * filt[None, None, :]
    return np.clip(img, 0, 255).astype(np.uint8)
