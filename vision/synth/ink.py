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
from scoring.written import WrittenScores
from vision.layout import GEOMETRY, GRID, Box
from vision.synth.digits import WritingHand
from vision.synth.paper import RenderedSheet, render_sheet, season_parts, smooth_noise
from vision.synth.pens import (
    COLOURS,
    MARKER_COLOURS,
    STYLE_RULES,
    STYLES,
    SYMBOL_VARIANTS,
    Hand,
    Style,
    style_family,
)
from vision.synth.strokes import Tile
from vision.synth.symbols import circle_pts, place, symbol_strokes
from vision.synth.writing import WrittenPlan, draw_written, plan_written

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
    written: WrittenPlan | None = None,
) -> DrawnSheet:
    """Render ``sheet`` filled in by hand in ``style``;
    ``extras`` adds ghosts, smudges, name, the season numbers (``written``, else made up here)."""
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
    if extras:  # ghosts before the coins: every photo keeps the draws it always had
        draw_ghosts(inks, sheet, hand, rng)
    crossed, coin_marks = draw_coins(inks, sheet.coins, rules, hand, rng)
    if extras:
        written = written or plan_written(sheet, None, rng)
        name = draw_writing(inks, hand, written, rng)
    else:
        name = ""
        written = WrittenPlan(WrittenScores.blank())
    image = lay_ink(rendered, inks, rng)
    truth = {
        "sheet": sheet.to_json(),
        "style": style,
        "style_family": style_family(style),
        "paper": rendered.variant,
        "symbol_variants": {t.value: v for t, v in hand.variants.items()},
        "coins_crossed": crossed,
        "coin_marks": coin_marks,
        "player_name": name,
        "written": written.truth(),
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


def draw_coins(
    inks: Inks, coins: int, rules: Style, hand: Hand, rng: np.random.Generator
) -> tuple[int, dict[str, str]]:
    """Mark the first ``coins`` coins (shaded, crossed or circled); some get crossed out again.
    Returns how many were crossed out and how all were marked, ``{"mark": "shade" | "cross" |
    "scribble", "colour": "graphite" | "farm", "tool": "pencil" | "marker"}`` (the truth's
    ``coin_marks``, so benchmarks can split coin figures by the mark)."""
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
    return crossed, {"mark": str(mode), "colour": pencil, "tool": kind}


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


def draw_writing(inks: Inks, hand: Hand, plan: WrittenPlan, rng: np.random.Generator) -> str:
    """A name and title in the header and the planned numbers in the season boxes; returns the
    name."""
    name = str(rng.choice(NAMES)) if rng.random() < 0.8 else ""
    if name:
        scribble_text(inks, name, Box(1.4, -3.1, 4.0, -2.3), hand, rng)
    if rng.random() < 0.5:
        scribble_text(inks, str(rng.choice(TITLES)), Box(0.4, -1.9, 4.0, -1.15), hand, rng)
    skip_made_up_numbers(rng)
    pen_rng = np.random.default_rng(plan.seed)
    writer = WritingHand.random(pen_rng, hand)
    kind, pencil = writer.pen
    draw_written(inks.layer(pencil, kind), inks.rendered, plan, writer, pen_rng)
    return name


def skip_made_up_numbers(rng: np.random.Generator) -> None:
    """Take from ``rng`` exactly the draws the made-up season numbers once took (how many boxes,
    which cells, the values, and each number's font, place, shear and tilt).

    The planned numbers are drawn with their own stream (``WrittenPlan.seed``), so every other
    stroke of a photo, and the pencil grain laid after the writing, stays what it was: the photos
    the reader model was trained on differ only inside the season boxes.
    """
    fonts = [cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_PLAIN]
    for k in range(int(rng.integers(0, 5))):
        for key in season_parts(GEOMETRY.season_boxes[k]):
            if rng.random() < 0.85:
                rng.integers(0, 30 if key == "total" else 16)
                rng.choice(fonts)
                rng.uniform(-0.05, 0.05)
                rng.uniform(-0.3, 0.15)
                rng.normal(0, 0.05)


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
