"""Per-cell features from the rectified sheet, normalised against this sheet's paper (coin features:
vision.coins).

Paper tint and uneven light are cancelled first (:func:`paper_model`): each cell's bright
pixels estimate the paper under it, and so do patches of the bare margin just outside the grid
(:func:`paper_ring`: players do not draw there, so a sheet shaded almost everywhere still shows its
paper); a smooth quadratic surface is fitted through those estimates (cells darker or more coloured
than the surface — drawn ones — are dropped and the fit repeated), and every pixel is divided by it
and re-tinted to the reference parchment of layout.py. Features are
then measured in CIE Lab relative to that reference: how much and how dark the ink is, its hue,
the direction of its strokes (farm hatching is diagonal, water waves are horizontal), where in
the cell it sits, plus whether the side prints a ruins glyph there.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from scoring.sides import SIDES
from vision.layout import GRID, PALETTES

REFERENCE_PAPER_BGR = np.array(PALETTES["A"].paper[::-1], dtype=np.float32) / 255.0
HUE_BINS = 8
ORIENTATION_BINS = 6
HOG_REGIONS = 6  # shape: a 6 × 6 grid of gradient-orientation histograms per cell …
HOG_BINS = 8  # … of 8 unsigned orientations each
HOG_NOISE = 200.0  # added to the histogram norm so an empty cell's paper grain stays near zero
# shape: the cell's darkness shrunk to 7 × 7 and to 9 × 9 (9 × 9 alone: ~15 more dev 8 cells wrong)
THUMBS = (7, 9)
THUMB_MAX_DL = 60.0  # darkness (ΔL) at which a thumbnail pixel saturates
POOL_INSET = 2  # pooled maps (HOG, thumbnails, layout) keep this many px clear of the cell's sides
LAYOUT_REGIONS = 4  # layout: where the a*, the b* and the thin strokes sit, each shrunk to 4 × 4
LAYOUT_MAX_CHROMA = 40.0  # |Δa*|, |Δb*| at which a layout pixel saturates
LAYOUT_MAX_STROKE = 40.0  # stroke strength (black-hat ΔL) at which a layout pixel saturates
EDGE_PX = 3  # layout: the darkness of each side's outer strip, this many canonical px wide …
EDGE_DL_SCALE = (
    30.0  # … in units of this ΔL (the printed grid line, or ink spilling over from a neighbour)
)
CHROMA_INK = 8.0  # Lab chroma distance from the paper that counts as coloured ink


def _lab(bgr01: np.ndarray) -> np.ndarray:
    """float BGR 0…1 → Lab (L 0…100)."""
    return cv2.cvtColor(np.clip(bgr01, 0, 1).astype(np.float32), cv2.COLOR_BGR2Lab)


#: ``_lab(REFERENCE_PAPER_BGR)``, written out: OpenCV's first float Lab conversion builds its tables
#: (0.1 s), which a photo with no sheet never needs (tests/test_vision_features.py checks the two
#: agree)
REFERENCE_LAB = np.array([75.927734375, 4.109375, 13.359375], dtype=np.float32)


def _design(rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Quadratic surface terms in (row, col), scaled to about ±1."""
    y = (rows - 5.0) / 5.0
    x = (cols - 5.0) / 5.0
    return np.stack([np.ones_like(x), x, y, x * x, x * y, y * y], axis=-1)


class PaperModel:
    """Smooth per-channel paper colour over the sheet, in cell coordinates (row, col) of centres."""

    def __init__(self, coef: np.ndarray, median: np.ndarray, cell_bright: np.ndarray):
        self.coef = coef  # (6, 3)
        self.median = median  # (3,) robust sheet-wide paper colour, bounds extrapolation
        self.cell_bright = (
            cell_bright  # (11, 11, 3) each cell's bright pixels (85th percentile), fitted through
        )

    def at(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Paper BGR (0…1) at cell-centre coordinates, clamped to ±35 % of the sheet median."""
        val = _design(np.asarray(rows, float), np.asarray(cols, float)) @ self.coef
        return np.clip(val, self.median * 0.65, self.median * 1.35)


@dataclass
class PaperRing:
    """Paper colour estimates from the bare margin around
    the cell area, in cell-centre coordinates."""

    rows: np.ndarray  # (N,) row coordinate of each patch (cell centres are 0…10)
    cols: np.ndarray  # (N,)
    bgr: np.ndarray  # (N, 3) BGR 0…1, each patch's 85th percentile


#: Bare margin strips outside the cell area, as (edge, from, to) in u beyond the grid's edge line:
#: past the ≈ 0.2 u frame band, over the row letters (x ≈ −0.5), the column numbers (y ≈ 11.5),
#: the plain parchment right of the frame and under the header (docs/printed-sheet.md, "Layout").
PAPER_STRIPS: tuple[tuple[str, float, float], ...] = (
    ("left", 0.3, 0.85),
    ("right", 0.3, 0.85),
    ("bottom", 0.3, 0.85),
    ("top", 0.3, 0.6),
)
RING_SAMPLES_PER_U = 12  # along each strip; 5 across
MIN_MARGIN_PATCHES = 12  # margin patches needed to start the paper fit from the margin alone …
MARGIN_START_SPREAD = 0.25  # … from those within this share of the margin's median colour
PAPER_CELL_FLOOR = (
    0.85  # a cell counts as paper while no channel is below this share of the surface
)
PAPER_MARGIN_SPREAD = 0.15  # a margin patch, while every channel is within this share of it
BRIGHT_LIFT_MARGIN = (
    0.03  # a cell brighter than the surface by less than this is noise, not missed light
)


def _edge_points(p: np.ndarray, edge: str, t: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Photo points ``d`` u outside one edge of the grid at ``t`` u along it, extrapolated from the
    two outermost grid lines there (so a curl at the edge is followed): (len(d), len(t), 2)."""
    if edge in ("top", "bottom"):
        p = np.transpose(p, (1, 0, 2))  # lines along x become lines along y
    outer, inner = (0, 1) if edge in ("left", "top") else (GRID, GRID - 1)
    i0 = np.minimum(np.floor(t).astype(int), GRID - 1)
    f = (t - i0)[:, None]
    a = p[i0, outer] * (1 - f) + p[i0 + 1, outer] * f
    b = p[i0, inner] * (1 - f) + p[i0 + 1, inner] * f
    return a[None] + (a - b)[None] * d[:, None, None]


def paper_ring(image: np.ndarray, intersections: np.ndarray) -> PaperRing:
    """Paper colour around the upright grid: one patch per unit of each strip in PAPER_STRIPS,
    its 85th percentile (letters and numbers are darker, so they drop out); patches not wholly in
    the photo are left out.

    ``intersections`` are the upright grid's (12, 12, 2) crossings in photo pixels."""
    h, w = image.shape[:2]
    rows, cols, colours = [], [], []
    t = (np.arange(GRID * RING_SAMPLES_PER_U) + 0.5) / RING_SAMPLES_PER_U
    along = np.arange(GRID) + 0.5
    for edge, d0, d1 in PAPER_STRIPS:
        d = np.linspace(d0, d1, 5)
        pts = _edge_points(np.asarray(intersections, np.float64), edge, t, d).astype(np.float32)
        inside = (
            (pts[..., 0] >= 0)
            & (pts[..., 0] <= w - 1)
            & (pts[..., 1] >= 0)
            & (pts[..., 1] <= h - 1)
        )
        strip = cv2.remap(
            image, pts[..., 0], pts[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
        patches = np.moveaxis(strip.reshape(len(d), GRID, RING_SAMPLES_PER_U, 3), 1, 0).reshape(
            GRID, -1, 3
        )
        whole = inside.reshape(len(d), GRID, RING_SAMPLES_PER_U).all(axis=(0, 2))
        across = np.full(GRID, -(d0 + d1) / 2 if edge in ("left", "top") else GRID + (d0 + d1) / 2)
        x, y = (across, along) if edge in ("left", "right") else (along, across)
        rows.append(y[whole] - 0.5)  # u → cell-centre coordinates
        cols.append(x[whole] - 0.5)
        colours.append(np.percentile(patches[whole], 85, axis=1) / 255.0)
    return PaperRing(
        np.concatenate(rows), np.concatenate(cols), np.concatenate(colours).reshape(-1, 3)
    )


def paper_model(
    cells01: np.ndarray, px: int, printed: np.ndarray, ring: PaperRing | None = None
) -> PaperModel:
    """Fit the paper surface through each drawable cell's bright pixels (85th percentile) and the
    margin patches of ``ring``; refit twice without the points that do not look like paper (a cell
    with a channel below 0.85 of the surface, a margin patch off by more than 15 %: a finger, a
    shadow edge, the table past a torn edge). With enough margin the first fit uses the margin
    alone (patches near its median colour), so a sheet shaded almost everywhere cannot pass its
    shading off as paper."""
    blocks = cells01.reshape(GRID, px, GRID, px, 3)
    bright = np.percentile(blocks, 85, axis=(1, 3))  # (11, 11, 3)
    rr, cc = np.mgrid[0:GRID, 0:GRID]
    ring = ring or PaperRing(np.zeros(0), np.zeros(0), np.zeros((0, 3)))
    rows = np.concatenate([rr.ravel(), ring.rows]).astype(float)
    cols = np.concatenate([cc.ravel(), ring.cols]).astype(float)
    colour = np.concatenate([bright.reshape(-1, 3), ring.bgr])
    is_cell = np.arange(len(rows)) < GRID * GRID
    drawable = np.concatenate([~printed.ravel(), np.zeros(len(ring.rows), bool)])
    margin = ~is_cell
    if len(ring.rows):
        margin &= np.abs(colour / np.median(ring.bgr, axis=0) - 1).max(axis=1) < MARGIN_START_SPREAD
    use = margin if margin.sum() >= MIN_MARGIN_PATCHES else drawable
    median = np.median(colour[use], axis=0)
    coef = np.zeros((6, 3))
    for _ in range(3):
        coef, *_ = np.linalg.lstsq(_design(rows[use], cols[use]), colour[use], rcond=None)
        ratio = colour / np.maximum(_design(rows, cols) @ coef, 1e-3)
        keep = np.where(
            is_cell,
            ratio.min(axis=1) > PAPER_CELL_FLOOR,
            np.abs(ratio - 1).max(axis=1) < PAPER_MARGIN_SPREAD,
        )
        if (keep & (drawable | ~is_cell)).sum() < 12:
            break
        use = keep & (drawable | ~is_cell)
    return PaperModel(coef, np.maximum(median, 1e-3), bright)


def bright_lift(paper: PaperModel) -> np.ndarray:
    """(11, 11, 3) factor ≥ 1 per cell and channel that raises the paper surface to the cell's
    bright pixels (85th percentile, ``paper.cell_bright``) where they are clearly brighter than it.

    Ink only darkens paper, so a cell brighter than the surface shows light the smooth surface
    misses: a glare spot on a laminated sheet, a lamp's hot spot. There the parchment's red and
    green saturate first, so bare paper looks bluish and passed for water (dev photos 50700174,
    50700131: 42 empty cells read as water at confidence ≥ 0.96).

    >>> bright = np.full((GRID, GRID, 3), 0.8); bright[0, 0] = 0.95  # a lit cell top left
    >>> paper = PaperModel(np.r_[[[0.8] * 3], np.zeros((5, 3))], np.full(3, 0.8), bright)
    >>> lift = bright_lift(paper)
    >>> float(lift[0, 0, 0].round(3)), float(lift[5, 5, 0])
    (1.153, 1.0)
    """
    rows, cols = np.mgrid[0:GRID, 0:GRID].astype(float)
    return np.maximum(1.0, paper.cell_bright / (paper.at(rows, cols) * (1 + BRIGHT_LIFT_MARGIN)))


def normalised_lab(cells_bgr: np.ndarray, px: int, paper: PaperModel) -> np.ndarray:
    """The cell area divided by the paper surface (raised by :func:`bright_lift`, interpolated
    between cell centres), re-tinted to the reference paper, in Lab; ``paper`` was fitted on these
    cells (:func:`paper_model`)."""
    n = GRID * px
    centres = (np.arange(n) + 0.5) / px - 0.5
    rows, cols = np.meshgrid(centres, centres, indexing="ij")
    surface = paper.at(rows, cols).astype(np.float32)
    img = cells_bgr.astype(np.float32) / 255.0
    lift = cv2.resize(bright_lift(paper).astype(np.float32), (n, n), interpolation=cv2.INTER_LINEAR)
    return _lab(img / (surface * lift) * REFERENCE_PAPER_BGR)


def _ink_measures(lab: np.ndarray, strokes: np.ndarray) -> list[np.ndarray]:
    """Colour/darkness measures over pixel sets: lab (N,
    P, 3), strokes (N, P) → list of (N,) arrays."""
    d_l = REFERENCE_LAB[0] - lab[..., 0]
    da = lab[..., 1] - REFERENCE_LAB[1]
    db = lab[..., 2] - REFERENCE_LAB[2]
    chroma = np.hypot(da, db)
    coloured = chroma > CHROMA_INK
    n_col = coloured.sum(axis=1) + 1e-6
    feats = [
        d_l.mean(axis=1),
        lab[..., 0].std(axis=1),
        *np.percentile(d_l, [50, 75, 90, 97], axis=1),
        *[(d_l > t).mean(axis=1) for t in (6, 12, 25, 45)],
        da.mean(axis=1),
        db.mean(axis=1),
        chroma.mean(axis=1),
        (da * coloured).sum(axis=1) / n_col,
        (db * coloured).sum(axis=1) / n_col,
        coloured.mean(axis=1),
        (chroma > 2 * CHROMA_INK).mean(axis=1),
        (strokes > 8).mean(axis=1),
        (strokes > 20).mean(axis=1),
    ]
    hue = np.floor((np.arctan2(db, da) + np.pi) / (2 * np.pi) * HUE_BINS).astype(int) % HUE_BINS
    for b in range(HUE_BINS):
        feats.append(((hue == b) & coloured).mean(axis=1))
    return feats


CELL_FEATURE_NAMES: list[str] = (
    [
        "dL_mean",
        "L_std",
        "dL_p50",
        "dL_p75",
        "dL_p90",
        "dL_p97",
        "ink6",
        "ink12",
        "ink25",
        "ink45",
        "da_mean",
        "db_mean",
        "chroma_mean",
        "da_ink",
        "db_ink",
        "coloured",
        "coloured2",
        "stroke8",
        "stroke20",
    ]
    + [f"hue{b}" for b in range(HUE_BINS)]
    + [f"orient{b}" for b in range(ORIENTATION_BINS)]
    + ["grad_mean"]
    + [f"block{k}" for k in range(9)]
    + ["ruin", "side_b", "sheet_coloured_p50", "sheet_coloured_p90", "sheet_dL_p50"]
    + [f"hog{k // HOG_BINS}_{k % HOG_BINS}" for k in range(HOG_REGIONS * HOG_REGIONS * HOG_BINS)]
    + [f"thumb{n}_{k}" for n in THUMBS for k in range(n * n)]
    + [
        f"{m}{k}"
        for m in ("da_at", "db_at", "stroke_at")
        for k in range(LAYOUT_REGIONS * LAYOUT_REGIONS)
    ]
    + ["edge_top", "edge_bottom", "edge_left", "edge_right"]
)


def _pool(a: np.ndarray, px: int, inset: int, n: int, how: str = "sum") -> np.ndarray:
    """Per cell, the inner part of ``a`` (H, W, ...) pooled into n × n regions → (121, n·n·...):
    regions of whole pixels, centred, at least ``inset`` px from the cell's sides."""
    step = (px - 2 * inset) // n
    start = (px - step * n) // 2
    rest = a.shape[2:]
    blocks = a.reshape(GRID, px, GRID, px, *rest)[
        :, start : start + step * n, :, start : start + step * n
    ]
    blocks = blocks.reshape(GRID, n, step, GRID, n, step, *rest)
    pooled = blocks.sum(axis=(2, 5)) if how == "sum" else blocks.mean(axis=(2, 5))
    return np.moveaxis(pooled, 2, 1).reshape(GRID * GRID, -1)


def shape_features(darkness: np.ndarray, gx: np.ndarray, gy: np.ndarray, px: int) -> np.ndarray:
    """(121, 418) what the strokes look like: a HOG-style 6 × 6 × 8 orientation histogram of the
    lightness gradient (a tree, a house, waves and a face differ there, whatever the pencil's
    colour) and the darkness shrunk to 7 × 7 and to 9 × 9 (where in the cell the ink sits)."""
    mag = np.hypot(gx, gy)
    pos = np.mod(np.arctan2(gy, gx), np.pi) / np.pi * HOG_BINS - 0.5
    low = np.floor(pos)
    w_high = (pos - low).astype(np.float32)
    low = low.astype(np.int64) % HOG_BINS
    bins = np.zeros(
        mag.shape + (HOG_BINS,), np.float32
    )  # each pixel votes into its two nearest bins
    np.put_along_axis(bins, low[..., None], (mag * (1 - w_high))[..., None], axis=2)
    high = (low + 1) % HOG_BINS
    np.put_along_axis(
        bins,
        high[..., None],
        np.take_along_axis(bins, high[..., None], axis=2) + (mag * w_high)[..., None],
        axis=2,
    )
    hog = _pool(bins, px, POOL_INSET, HOG_REGIONS)
    hog /= np.linalg.norm(hog, axis=1, keepdims=True) + HOG_NOISE
    dark = np.clip(darkness, 0, THUMB_MAX_DL) / THUMB_MAX_DL
    return np.concatenate([hog] + [_pool(dark, px, POOL_INSET, n, "mean") for n in THUMBS], axis=1)


def cell_features(
    cells_bgr: np.ndarray, side: str, px: int, ring: PaperRing | None = None
) -> tuple[np.ndarray, PaperModel]:
    """(121, F) features of the upright cell area (row-major cells) and the sheet's paper model
    (fitted with the margin's paper patches ``ring`` when given, :func:`paper_ring`)."""
    layout = SIDES[side]
    printed = np.zeros((GRID, GRID), bool)
    for r, c in layout.mountains | layout.wasteland:
        printed[r, c] = True
    paper = paper_model(cells_bgr.astype(np.float32) / 255.0, px, printed, ring)
    lab = normalised_lab(cells_bgr, px, paper)
    strokes = cv2.morphologyEx(
        lab[..., 0],
        cv2.MORPH_BLACKHAT,
        cv2.getStructuringElement(cv2.MORPH_RECT, (px // 4 | 1, px // 4 | 1)),
    )
    gx = cv2.Sobel(lab[..., 0], cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(lab[..., 0], cv2.CV_32F, 0, 1, ksize=3)
    inset = max(2, px // 10)
    m = px - 2 * inset

    def per_cell(a: np.ndarray) -> np.ndarray:
        shape = a.shape[2:]
        blocks = a.reshape(GRID, px, GRID, px, *shape)[:, inset : px - inset, :, inset : px - inset]
        blocks = np.moveaxis(blocks, 2, 1)  # (11, 11, m, m, ...)
        return blocks.reshape(GRID * GRID, m * m, *shape)

    lab_c, strokes_c = per_cell(lab), per_cell(strokes)
    feats = _ink_measures(lab_c, strokes_c)
    mag = np.hypot(per_cell(gx), per_cell(gy))
    ang = np.mod(np.arctan2(per_cell(gy), per_cell(gx)), np.pi)
    obin = np.minimum((ang / np.pi * ORIENTATION_BINS).astype(int), ORIENTATION_BINS - 1)
    total = mag.sum(axis=1) + 1e-6
    for b in range(ORIENTATION_BINS):
        feats.append((mag * (obin == b)).sum(axis=1) / total)
    feats.append(mag.mean(axis=1))
    ink = (REFERENCE_LAB[0] - lab_c[..., 0] > 12).reshape(-1, m, m)
    third = m // 3
    for by in range(3):
        for bx in range(3):
            feats.append(
                ink[:, by * third : (by + 1) * third, bx * third : (bx + 1) * third].mean(
                    axis=(1, 2)
                )
            )
    ruin = np.zeros(GRID * GRID)
    for r, c in layout.ruins:
        ruin[r * GRID + c] = 1.0
    feats.append(ruin)
    feats.append(np.full(GRID * GRID, 1.0 if side == "B" else 0.0))
    drawable = ~printed.ravel()
    coloured = feats[CELL_FEATURE_NAMES.index("coloured")]
    feats.append(np.full(GRID * GRID, np.percentile(coloured[drawable], 50)))
    feats.append(np.full(GRID * GRID, np.percentile(coloured[drawable], 90)))
    feats.append(np.full(GRID * GRID, np.percentile(feats[0][drawable], 50)))
    shape = shape_features(REFERENCE_LAB[0] - lab[..., 0], gx, gy, px)
    layout = layout_features(lab, strokes, px)
    return np.concatenate([np.stack(feats, axis=1), shape, layout], axis=1).astype(
        np.float32
    ), paper


def layout_features(lab: np.ndarray, strokes: np.ndarray, px: int) -> np.ndarray:
    """(121, 52) where the colour and the thin strokes sit: Δa* and Δb* from the reference paper and
    the black-hat stroke strength, each shrunk to 4 × 4 (a green tree's crown above its brown trunk,
    a yellow field's hatching across the cell), and the darkness of each side's outer strip
    (top, bottom, left, right: the printed line where the grid sits right, ink from a neighbour).

    Two networks on 800 training-like photos, two random starts (dev 7 / dev 8 cells wrong): with
    an earlier 225 features 290–318 / 512–527, with these and the finer shape parts 230–239 /
    420–428.

    >>> # bare reference paper:
    >>> lab = np.zeros((GRID * 32, GRID * 32, 3), np.float32) + REFERENCE_LAB
    >>> lab[:16, :32, 1] = REFERENCE_LAB[1] - 40  # green in the top half of the top-left cell
    >>> f = layout_features(lab, np.zeros(lab.shape[:2], np.float32), 32)
    >>> f.shape, f[0, :4].round(2).tolist(), f[0, 12:16].round(2).tolist()
    ((121, 52), [-1.0, -1.0, -1.0, -1.0], [0.0, 0.0, 0.0, 0.0])
    """
    n = LAYOUT_REGIONS
    da = (
        np.clip(lab[..., 1] - REFERENCE_LAB[1], -LAYOUT_MAX_CHROMA, LAYOUT_MAX_CHROMA)
        / LAYOUT_MAX_CHROMA
    )
    db = (
        np.clip(lab[..., 2] - REFERENCE_LAB[2], -LAYOUT_MAX_CHROMA, LAYOUT_MAX_CHROMA)
        / LAYOUT_MAX_CHROMA
    )
    stroke = np.clip(strokes, 0, LAYOUT_MAX_STROKE) / LAYOUT_MAX_STROKE
    parts = [_pool(a, px, POOL_INSET, n, "mean") for a in (da, db, stroke)]
    d_l = (REFERENCE_LAB[0] - lab[..., 0]).reshape(GRID, px, GRID, px)
    e = EDGE_PX
    edges = [d_l[:, :e], d_l[:, -e:], d_l[:, :, :, :e], d_l[:, :, :, -e:]]
    parts.append(np.stack([s.mean(axis=(1, 3)).ravel() for s in edges], axis=1) / EDGE_DL_SCALE)
    return np.concatenate(parts, axis=1)
