"""Printed-art families: the same sheet layout printed in other looks, so the reader learns the
layout and the players' marks, not one printing's pixels.

Players photograph the box's colour sheet, a printer-friendly sheet printed at home, a photocopy of
either, a localised edition. Every family here is our own design, drawn from ``vision/layout.py``
with OpenCV primitives, and randomised within itself as widely as the pen styles are:

``lookalike``  our colour look-alike (:func:`vision.synth.paper.render_sheet`).
``line-art``   black line art on white office paper: solid grid lines, no colours, outlined
               mountains (sometimes on a pale grey square) and coins, a grey rough rift; labels
               sometimes.
``engraved``   an old-map look: a textured tint inside the grid, dotted or fine cell lines in one
               ink colour, mountains as textured or flat tiles with a line-art peak and a gold
               coin, dark-ringed coins on a saturated band.
``woodcut``    bold two-tone printing: thick lines, mountains as solid silhouettes or ink tiles,
               coins with heavy rims on a pale band (the family held out of training by default).

In the three families of our own, each sheet prints its ruins and mountains in a look of its own
(:mod:`vision.synth.glyphs`: seven ruin designs, outlined, filled or hatched, in the ink or an
accent colour, sometimes on a tinted square; one to three peaks, outlined, tiled or a silhouette),
so the reader learns that a printed glyph in a ruins cell is not a mark. The looks chosen are in the
sheet's ``looks``. Some of their sheets also print ornaments whose tips overhang the grid's edge
cells (:func:`_ornaments`). Any family may also come out of a photocopier (the photo's ``paper``
condition ``photocopy``).
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from scoring.sides import SIDES
from vision.layout import GEOMETRY, GRID, Box
from vision.synth.box_print import (
    CAPITAL_FACES,
    CAPITAL_STYLES,
    capital,
    coin_icon,
    laurel_shield,
    monster_icon,
    rounded_box,
)
from vision.synth.glyphs import (
    MountainLook,
    RuinsLook,
    draw_mountain,
    draw_ruins,
    pick_mountain_look,
    pick_ruins_look,
)
from vision.synth.paper import (
    EDICT_PAIRS,
    WHITE_PAPER,
    Pen,
    RenderedSheet,
    bgr,
    dashed,
    draw_coin_track,
    draw_frame,
    draw_header,
    draw_rift,
    draw_season_boxes,
    parchment,
    photocopy,
    render_sheet,
    season_parts,
    smooth_noise,
    torn_edge,
)

ART_FAMILIES = ("lookalike", "line-art", "engraved", "woodcut")
#: Inks the engraved family picks from (RGB): sepia, bottle green, navy, oxblood, slate.
ENGRAVED_INKS = ((92, 64, 38), (40, 84, 60), (38, 52, 96), (110, 40, 36), (70, 78, 88))
#: the share of engraved printings whose season boxes are the family's own (outlines in its ink and
#: :func:`_box_print`'s letters and icons); the others print the look-alike's boxes
ENGRAVED_OWN_BOXES = 0.5
#: What a family printed in its mountain and ruins cells, by name ("mountains", "ruins").
Looks = dict[str, MountainLook | RuinsLook]


def render_art(
    family: str, side: str, px_per_u: float, variant: str, rng: np.random.Generator
) -> RenderedSheet:
    """An empty printed sheet of ``side`` in art ``family`` (randomised by ``rng``); ``variant``
    "photocopy" passes it through the photocopier."""
    if family not in ART_FAMILIES:
        raise ValueError(
            f"unknown art family {family!r}: expected one of {', '.join(ART_FAMILIES)}"
        )
    if family == "lookalike":
        return render_sheet(side, px_per_u=px_per_u, variant=variant, rng=rng)
    g = GEOMETRY
    w, h = int(round(g.sheet.width * px_per_u)), int(round(g.sheet.height * px_per_u))
    origin = (g.sheet.x0, g.sheet.y0)
    image, looks = _FAMILIES[family](side, (h, w), px_per_u, origin, rng)
    alpha = torn_edge((h, w), px_per_u, rng)
    if variant == "photocopy":
        image = photocopy(image, rng)
    return RenderedSheet(
        side, f"{family}-{variant}", image, alpha, float(px_per_u), origin, looks=looks
    )


def printing_of(family: str) -> Callable[[str, float, str, np.random.Generator], RenderedSheet]:
    """A :data:`vision.synth.photo.Printing` drawing ``family``.

    >>> sheet = printing_of("line-art")("B", 12.0, "print", np.random.default_rng(0))
    >>> sheet.variant, sheet.image.shape
    ('line-art-print', (226, 155, 3))
    """
    return lambda side, px_per_u, variant, rng: render_art(family, side, px_per_u, variant, rng)


# ---- line art ------------------------------------------------------------------------------------


def _line_art(
    side: str, shape: tuple[int, int], s: float, origin, rng: np.random.Generator
) -> tuple[np.ndarray, Looks]:
    # the printing's inks and glyphs first, so they do not depend on the resolution
    paper = tuple(int(v) for v in np.array(WHITE_PAPER) + rng.integers(-6, 5, 3))
    on_parchment = rng.random() < 0.3
    ink = tuple(int(v) for v in rng.integers(10, 70) + rng.integers(0, 12, 3))
    width = float(rng.uniform(0.02, 0.05))
    looks = {
        "mountains": pick_mountain_look(
            rng, ink, bgr(paper), bodies=(0.85, 0.0, 0.15), width_u=(width, width * 1.2)
        ),
        "ruins": pick_ruins_look(
            rng, ink, styles=(0.5, 0.2, 0.3), accent_share=0.4, tint_share=0.3
        ),
    }
    img = (
        parchment(shape, paper, s, rng)
        if on_parchment
        else np.full((*shape, 3), bgr(paper), np.uint8)
    )
    pen = Pen(img, s, origin)
    _grid_lines(pen, ink, width, rng.choice(["solid", "solid", "dashed"]))
    if rng.random() < 0.5:
        pen.rect(Box(-0.12, -0.12, GRID + 0.12, GRID + 0.12), ink, width * 1.5)
    if rng.random() < 0.4:
        _plain_labels(pen, ink)
    _printed_cells(pen, side, looks, rng)
    if side == "B":
        _grey_rift(pen, side, ink, rng)
    _outlined_coin_track(pen, ink, band=rng.random() < 0.6)
    box_rng = _box_print_rng(rng)
    _outlined_season_boxes(
        pen, ink, corner_u=_box_corner(box_rng), final_box=box_rng.random() < 0.6
    )
    _box_print(pen, ink, bgr(paper), box_rng)
    _plain_header(pen, ink)
    _ornaments(pen, ink, _side_rng(rng, 1))
    return img, looks


# ---- engraved ------------------------------------------------------------------------------------


def _engraved(
    side: str, shape: tuple[int, int], s: float, origin, rng: np.random.Generator
) -> tuple[np.ndarray, Looks]:
    # inks and glyphs first, as in the line art
    base = np.array((212, 196, 168)) + rng.integers(-18, 14, 3)
    ink = bgr(ENGRAVED_INKS[int(rng.integers(len(ENGRAVED_INKS)))])
    looks = {
        "mountains": pick_mountain_look(
            rng, ink, bgr(tuple(base)), bodies=(0.1, 0.9, 0.0), width_u=(0.025, 0.045)
        ),
        "ruins": pick_ruins_look(
            rng,
            ink,
            styles=(0.35, 0.35, 0.3),
            accent_share=0.6,
            accents=("gold", "orange", "ochre", "brown"),
            tint_share=0.45,
            width_u=(0.02, 0.035),
        ),
    }
    img = parchment(shape, tuple(int(v) for v in base), s, rng)
    pen = Pen(img, s, origin)
    _map_texture(pen, rng)
    style = rng.choice(["dotted", "fine", "dashed"])
    _grid_lines(pen, ink, 0.018 if style == "fine" else 0.03, style)
    pen.rect(Box(0, 0, GRID, GRID), ink, 0.05)
    if rng.random() < 0.5:
        draw_frame(pen, side)
    if rng.random() < 0.7:
        _plain_labels(pen, ink)
    _printed_cells(pen, side, looks, rng)
    if side == "B":
        draw_rift(pen, side, rng)
    _ringed_coin_track(pen, ink, rng)
    box_rng = _box_print_rng(rng)
    if box_rng.random() < ENGRAVED_OWN_BOXES:  # ink-outlined boxes with print of their own
        _outlined_season_boxes(pen, ink, corner_u=_box_corner(box_rng), final_box=False)
        _box_print(pen, ink, bgr(tuple(base)), box_rng)
    else:
        draw_season_boxes(pen, side, tuple(int(v) for v in base))
    draw_header(pen, side)
    _ornaments(pen, ink, _side_rng(rng, 1))
    return img, looks


# ---- woodcut -------------------------------------------------------------------------------------


def _woodcut(
    side: str, shape: tuple[int, int], s: float, origin, rng: np.random.Generator
) -> tuple[np.ndarray, Looks]:
    # inks and glyphs first, as in the line art
    paper = tuple(int(v) for v in np.array((236, 226, 200)) + rng.integers(-12, 10, 3))
    ink = tuple(int(v) for v in rng.integers(20, 60, 3))
    accent = bgr(((150, 60, 40), (40, 90, 140), (60, 110, 50))[int(rng.integers(3))])
    looks = {
        "mountains": pick_mountain_look(
            rng, ink, bgr(paper), bodies=(0.0, 0.4, 0.6), earth=0.0, width_u=(0.04, 0.06)
        ),
        "ruins": pick_ruins_look(
            rng,
            accent if rng.random() < 0.5 else ink,
            styles=(0.15, 0.6, 0.25),
            accent_share=0.4,
            tint_share=0.3,
            width_u=(0.035, 0.06),
        ),
    }
    img = parchment(shape, paper, s, rng)
    pen = Pen(img, s, origin)
    _grid_lines(pen, ink, float(rng.uniform(0.04, 0.06)), "solid")
    pen.rect(Box(-0.08, -0.08, GRID + 0.08, GRID + 0.08), ink, 0.1)
    _printed_cells(pen, side, looks, rng)
    if side == "B":
        draw_rift(pen, side, rng)
    b = GEOMETRY.coin_band
    pen.rect(b, tuple(int(min(255, v + 20)) for v in bgr(paper)))
    pen.rect(b, ink, 0.06)
    for i in range(GEOMETRY.coin_count):
        pen.circle(GEOMETRY.coin_centre(i), GEOMETRY.coin_radius, ink, 0.06)
    box_rng = _box_print_rng(rng)
    _outlined_season_boxes(
        pen, ink, width_u=0.06, corner_u=_box_corner(box_rng), final_box=box_rng.random() < 0.6
    )
    _box_print(pen, ink, bgr(paper), box_rng)
    _plain_header(pen, ink)
    _ornaments(pen, ink, _side_rng(rng, 1))
    return img, looks


_FAMILIES = {"line-art": _line_art, "engraved": _engraved, "woodcut": _woodcut}


# ---- shared pieces -------------------------------------------------------------------------------


def _grid_lines(pen: Pen, colour, width_u: float, style: str) -> None:
    """The 12 + 12 lines of the grid: solid, dashed or dotted (the outer ones always solid)."""
    for k in range(GRID + 1):
        for a, b in (((k, 0), (k, GRID)), ((0, k), (GRID, k))):
            if style == "solid" or k in (0, GRID):
                pen.line(a, b, colour, width_u)
            elif style == "dashed":
                dashed(pen, a, b, colour, width_u)
            else:
                dashed(pen, a, b, colour, width_u * 1.3, dash_u=0.02, gap_u=0.06)


def _plain_labels(pen: Pen, colour) -> None:
    for r in range(GRID):
        pen.text(
            chr(65 + r),
            (GEOMETRY.row_label_x, r + 0.5),
            0.28,
            colour,
            font=cv2.FONT_HERSHEY_SIMPLEX,
        )
    for c in range(GRID):
        pen.text(
            str(c + 1), (c + 0.5, GEOMETRY.col_label_y), 0.28, colour, font=cv2.FONT_HERSHEY_SIMPLEX
        )


def _printed_cells(pen: Pen, side: str, looks: Looks, rng: np.random.Generator) -> None:
    """The side's mountains and ruins, in the looks this sheet picked."""
    for r, c in SIDES[side].mountains:
        draw_mountain(pen, r, c, looks["mountains"], rng)
    for r, c in SIDES[side].ruins:
        draw_ruins(pen, r, c, looks["ruins"])


def _grey_rift(pen: Pen, side: str, ink, rng: np.random.Generator) -> None:
    """The rift as a light grey area with a rough outline (a printer-friendly rift)."""
    img = pen.image
    mask = np.zeros(img.shape[:2], np.float32)
    for r, c in SIDES[side].wasteland:
        x0, y0 = pen.p(c, r)
        x1, y1 = pen.p(c + 1, r + 1)
        cv2.rectangle(mask, (x0 // 16, y0 // 16), (x1 // 16, y1 // 16), 1.0, -1)
    mask = cv2.GaussianBlur(mask, (0, 0), 0.12 * pen.s)
    rough = (mask + 0.1 * smooth_noise(mask.shape, 0.2 * pen.s, rng)) > 0.5
    img[rough] = int(rng.integers(150, 205))
    edge = cv2.morphologyEx(
        rough.astype(np.uint8), cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8)
    ).astype(bool)
    img[edge] = ink


def _outlined_coin_track(pen: Pen, ink, band: bool) -> None:
    """Fourteen outlined circles, on a thinly outlined band or none."""
    if band:
        pen.rect(GEOMETRY.coin_band, ink, 0.025)
    for i in range(GEOMETRY.coin_count):
        pen.circle(GEOMETRY.coin_centre(i), GEOMETRY.coin_radius, ink, 0.03)


def _ringed_coin_track(pen: Pen, ink, rng: np.random.Generator) -> None:
    """Gold coins with dark rings on a saturated band."""
    if rng.random() < 0.5:
        draw_coin_track(pen, "A")
        return
    band = bgr(
        (int(rng.integers(190, 235)), int(rng.integers(140, 185)), int(rng.integers(20, 70)))
    )
    pen.rect(GEOMETRY.coin_band, band)
    dark = tuple(int(v * 0.5) for v in ink)
    for i in range(GEOMETRY.coin_count):
        c = GEOMETRY.coin_centre(i)
        pen.circle(c, GEOMETRY.coin_radius, bgr((238, 206, 120)))
        pen.circle(c, GEOMETRY.coin_radius, dark, 0.045)


def _outlined_season_boxes(
    pen: Pen, ink, width_u: float = 0.03, corner_u: float = 0.0, final_box: bool = True
) -> None:
    """The four season boxes (their outer corners rounded to ``corner_u``) with the lines between
    their cells, and the final total's box if ``final_box``."""
    for box in GEOMETRY.season_boxes:
        p = season_parts(box)
        for a, b in (
            ((p["edict1"].x1, box.y0), (p["edict1"].x1, box.y1)),
            ((p["total"].x0, box.y0), (p["total"].x0, box.y1)),
            ((box.x0, p["edict1"].y1), (p["total"].x0, p["edict1"].y1)),
        ):
            pen.line(a, b, ink, width_u * 0.7)
        rounded_box(pen, box, corner_u, ink, width_u)
    if final_box:
        pen.rect(GEOMETRY.final_total, ink, width_u)


#: the share of printings of our own families whose season boxes have rounded corners
ROUNDED_BOX_SHARE = 0.5


def _box_corner(rng: np.random.Generator) -> float:
    """How round a printing's season-box corners are (u; 0 is square)."""
    return float(rng.uniform(0.08, 0.3)) if rng.random() < ROUNDED_BOX_SHARE else 0.0


#: Hershey faces the box letters are set in (serif and sans, thin and bold)
BOX_FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
)
#: the share of printings of our own families whose season boxes print letters and icons
BOX_PRINT_SHARE = 0.7
#: of those, the share whose edict letters are big capitals (most of the cell) in a TrueType face
BIG_CAPITAL_SHARE = 0.6
COIN_MARKS = ("none", "ring", "one", "crown", "dots")
MONSTER_HEADS = ("horns", "ears", "bald")


def _box_print(pen: Pen, ink, paper, rng: np.random.Generator) -> None:
    """What a printing may print inside its empty season boxes, in a look of its own: the two edict
    letters of each box (small or big and centred, filled, hollow or double-struck, serif or
    sans), a coin in the coin cell (with a ring, a "1", a crown or dots inside, or nothing), a face
    in the monster cell (horned, eared or bald, angry eyes, fangs or a line for a mouth), and a
    shield in the final total's cell, often in a laurel wreath under a ribbon. All grey-ish: the
    reader must learn them as print, never as a player's number.

    ``rng`` is the printing's own generator for these choices only (see :func:`_box_print_rng`).
    """
    if rng.random() >= BOX_PRINT_SHARE:
        return
    grey = _towards(ink, paper, rng.uniform(0.15, 0.65))
    weight = float(rng.uniform(0.015, 0.05))
    letters = _letter_pen(pen, grey, paper, weight, rng)
    coin_mark = COIN_MARKS[int(rng.integers(len(COIN_MARKS)))]
    coin_tint = _towards(grey, paper, rng.uniform(0.7, 0.9)) if rng.random() < 0.3 else None
    head = MONSTER_HEADS[int(rng.integers(len(MONSTER_HEADS)))]
    fangs = rng.random() < 0.5
    icon_r = float(rng.uniform(0.1, 0.22))
    line = min(weight, icon_r * 0.15)  # small icons in thin lines, so they stay drawings
    for k, box in enumerate(GEOMETRY.season_boxes):
        parts = season_parts(box)
        for name, letter in zip(("edict1", "edict2"), EDICT_PAIRS[k]):
            letters(letter, _centre(parts[name]))
        coin_icon(pen, _centre(parts["coins"]), icon_r, grey, line, coin_mark, coin_tint)
        monster_icon(pen, _centre(parts["monsters"]), icon_r * 0.85, grey, line, head, fangs)
    if rng.random() < 0.8:
        leaves = grey if rng.random() < 0.5 else _towards(ink, paper, rng.uniform(0.0, 0.3))
        laurel_shield(pen, GEOMETRY.final_total, grey, leaves, weight * 1.3, rng)


def _towards(ink, paper, t: float) -> tuple[int, ...]:
    """A colour ``t`` of the way from ``ink`` to ``paper``."""
    return tuple(int(i + (p - i) * t) for i, p in zip(ink, paper))


def _letter_pen(pen: Pen, grey, paper, weight: float, rng: np.random.Generator) -> Callable:
    """A function drawing one edict letter at a cell's centre in this printing's lettering: big
    TrueType capitals (most of the cell's height; filled, hollow or double-struck) or Hershey
    letters of any size up to most of the cell (filled or hollow)."""
    if rng.random() < BIG_CAPITAL_SHARE:
        face = CAPITAL_FACES[int(rng.integers(len(CAPITAL_FACES)))]
        style = CAPITAL_STYLES[int(rng.integers(len(CAPITAL_STYLES)))]
        height = float(rng.uniform(0.3, 0.48))
        stroke = float(rng.uniform(0.008, 0.025))

        def big(letter: str, c: tuple[float, float]) -> None:
            if not capital(pen, letter, c, height, grey, face, style, stroke):
                pen.text(letter, c, height, grey, cv2.FONT_HERSHEY_TRIPLEX, weight_u=weight)

        return big
    height = float(rng.uniform(0.2, 0.45))
    font = BOX_FONTS[int(rng.integers(len(BOX_FONTS)))]
    outlined = rng.random() < 0.5

    def hershey(letter: str, c: tuple[float, float]) -> None:
        if outlined:  # a hollow capital: drawn thick, then its inside in the paper's colour
            pen.text(letter, c, height, grey, font, weight_u=weight * 2.5)
            pen.text(letter, c, height, paper, font, weight_u=weight)
        else:
            pen.text(letter, c, height, grey, font, weight_u=weight)

    return hershey


def _centre(box: Box) -> tuple[float, float]:
    return (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2


def _box_print_rng(rng: np.random.Generator) -> np.random.Generator:
    """A generator for :func:`_box_print` seeded from ``rng``'s state without drawing from it, so
    everything else on the sheet and in the photo draws the same numbers with or without it."""
    return _side_rng(rng, 0)


def _side_rng(rng: np.random.Generator, stream: int) -> np.random.Generator:
    """An independent generator seeded from ``rng``'s state and ``stream`` without drawing from
    ``rng`` (stream 0 is the box print's, as it always was)."""
    state = rng.bit_generator.state["state"]["state"] % 2**63
    return np.random.default_rng(state if stream == 0 else [state, stream])


#: the share of printings of our own families with ornaments whose tips reach into the edge cells,
#: how many, how far in and how wide on either side of their axis (u)
ORNAMENT_SHARE = 0.35
ORNAMENTS = (1, 3)
ORNAMENT_DEPTH_U = (0.08, 0.4)
ORNAMENT_HALF_WIDTH_U = (0.08, 0.35)
ORNAMENT_SHAPES = ("spike", "leaf", "scroll", "pennant")


def _ornaments(pen: Pen, ink, rng: np.random.Generator) -> None:
    """Decorations printed on the grid's edge whose tips reach into a cell: a spike, a leaf, a
    scroll or a pennant's tail, filled or outlined, in the printing's ink or a grey of it. A
    printing's title banner or crest may overhang the grid like this; the reader must take such a
    tip for print, not for a player's mark."""
    if rng.random() >= ORNAMENT_SHARE:
        return
    for _ in range(int(rng.integers(ORNAMENTS[0], ORNAMENTS[1] + 1))):
        edge = int(rng.integers(4))  # top, right, bottom, left
        t = float(rng.uniform(0.2, GRID - 0.2))
        depth = float(rng.uniform(*ORNAMENT_DEPTH_U))
        half = float(rng.uniform(*ORNAMENT_HALF_WIDTH_U))
        # the ornament in its own frame: u along the edge, v into the grid (v 0 on the edge)
        shape = ORNAMENT_SHAPES[int(rng.integers(len(ORNAMENT_SHAPES)))]
        if shape == "spike":
            uv = [(-half, -0.25), (half, -0.25), (0.0, depth)]
        elif shape == "leaf":
            a = np.linspace(0, 2 * np.pi, 24, endpoint=False)
            mid = (depth - 0.25) / 2
            uv = list(zip(half * np.sin(a), mid + (depth + 0.25) / 2 * np.cos(a)))
        elif shape == "scroll":
            outer = max(depth, 0.1)  # a spiral winding in from this radius, its tip ``depth`` in
            a = np.linspace(0, 3 * np.pi, 30)
            r = np.linspace(outer, 0.03, 30)
            uv = list(zip(r * np.sin(a) * half / outer, depth - r - r * np.cos(a) * 0.5))
        else:  # a pennant's forked tail
            uv = [(-half, -0.25), (half, -0.25), (half, depth), (0.0, depth * 0.55), (-half, depth)]
        grey = rng.random() >= 0.6
        colour = _towards(ink, (235, 235, 235), rng.uniform(0.2, 0.6)) if grey else ink
        xy = [_edge_point(edge, t, u, v) for u, v in uv]
        if shape == "scroll" or rng.random() < 0.3:
            pen.poly(xy, colour, float(rng.uniform(0.02, 0.05)), closed=shape != "scroll")
        else:
            pen.fill(xy, colour)


def _edge_point(edge: int, t: float, u: float, v: float) -> tuple[float, float]:
    """The point ``t + u`` along grid edge ``edge`` (0 top, 1 right, 2 bottom, 3 left), ``v`` in."""
    along = t + u
    return ((along, v), (GRID - v, along), (along, GRID - v), (v, along))[edge]


def _plain_header(pen: Pen, ink) -> None:
    pen.text("CARTOGRAPHER", (-0.6, -2.7), 0.26, ink, left=True, font=cv2.FONT_HERSHEY_SIMPLEX)
    pen.line((-0.6, -2.35), (4.0, -2.35), ink, 0.02)
    pen.text("TITLE", (-0.6, -1.55), 0.26, ink, left=True, font=cv2.FONT_HERSHEY_SIMPLEX)
    pen.line((-0.6, -1.2), (4.0, -1.2), ink, 0.02)


def _map_texture(pen: Pen, rng: np.random.Generator) -> None:
    """A tinted, mottled map background inside the grid (hills and coasts of an old map)."""
    x0, y0 = (v // 16 for v in pen.p(0, 0))
    x1, y1 = (v // 16 for v in pen.p(GRID, GRID))
    sl = pen.image[y0:y1, x0:x1]
    tint = np.array(
        bgr(
            (int(rng.integers(180, 225)), int(rng.integers(185, 215)), int(rng.integers(150, 190)))
        ),
        np.float32,
    )
    mottle = (
        1
        + 0.06 * smooth_noise(sl.shape[:2], 1.5 * pen.s, rng)
        + 0.03 * smooth_noise(sl.shape[:2], 0.3 * pen.s, rng)
    )
    mix = float(rng.uniform(0.3, 0.7))
    sl[:] = np.clip(sl * (1 - mix) + tint[None, None, :] * mottle[:, :, None] * mix, 0, 255).astype(
        np.uint8
    )
