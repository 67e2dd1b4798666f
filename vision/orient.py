"""Which side is up, and which side (A or B) it is, from the printed mountains.

The five mountains are whole dark-brown cells at positions that differ between sides and break
the grid's rotational symmetry (docs/rules.md, "The sheet"). Every hypothesis — 4 quarter
turns × 2 sides — is scored by how cleanly its five mountain cells are the darkest cells:
``separation`` = dark fraction of its second-weakest mountain minus that of the third-darkest
other cell.
Side A's mountains (and ruins) are symmetric under a half turn, so the coin track decides
between a turn and its opposite: below the grid of the upright sheet, 14 coins repeat every
0.712 u (:func:`coin_track_periodicity`). The same score, recomputed with the layout slid by one
cell in each of the 8 directions, is the explicit guard against a one-cell shift: mountains must
land on exactly their own cells.

A second cue, for glare or a washed-out print where the mountains are no longer "dark": the
printed mountain glyph itself (two white peaks pointing up, a small coin top right) is matched in
each hypothesis's five mountain cells (:func:`mountain_glyph_match`). It is not symmetric under
a half turn, so it also tells side A's turn from its opposite. Where the glyph alone is
unambiguous (:func:`glyph_sure`: three of the five mountain cells show it clearly, and the chosen
layout beats every other side, turn and one-cell shift of itself), washed-out darkness is no
reason to doubt the side, turn or shift (:attr:`Orientation.in_doubt`). Where the glyph shows some
layout clearly one cell off instead (:func:`glyph_shift`: the grid was placed a cell off, under
glare a lattice the darkness cannot check), that layout's side and turn are taken and the reading is
in doubt.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from scoring.sides import SIDES
from vision.lattice import GridFit, ideal_intersections, line_image, warp_canonical
from vision.layout import GEOMETRY, GRID

BROWN_TOLERANCE = 8  # red channel may trail the larger of green/blue by this much (grey copies)
DARK_RATIO = (
    0.5  # a pixel is "mountain dark" when its brightest channel is below this share of the paper's
)
MIN_SEPARATION = 0.12  # below this the orientation is a guess: warn
COIN_WEIGHT = 0.5  # weight of the coin track's periodicity in a hypothesis's score
# weight of the mountain glyph match (mean of the best three of five) in a hypothesis's score
GLYPH_WEIGHT = 1.0
GLYPH_SIZE = 8  # the glyph is compared at 8 × 8 samples per cell
#: the chosen layout's third-best mountain cell must correlate this well with the glyph: no other
#: cell of 785 dev and glare/finger/second-sheet photos reached 0.65, while the true layout's
#: third-best mountain cell reached 0.72 on 99 % of them — and a wrong side, turn or one-cell shift
#: puts at most two of its five "mountains" on printed ones, so its third-best cell is never a
#: mountain
GLYPH_SURE_CELL = 0.75
#: ... and its glyph score (mean of the best three) must beat every other side and turn, and every
#: one-cell shift of itself, by this much (true layouts: 0.25 or more on the dev photos; the grids
#: a cell or more off there: 0.19 at most against a shift)
GLYPH_SURE_MARGIN = 0.3
#: a one-cell-shifted layout's glyph score beating every unshifted one by this much means the grid
#: is a cell off: on 1 013 photos with the grid right the best shifted layout beat them by 0.11 at
#: most, on the 9 with a one-cell shift by 0.24–0.55 (8 of 9, each with the true side and turn)
GLYPH_SHIFT_MARGIN = 0.2
#: an upright mountain cell's brightest channel at 8 × 8, normalised (mean 0, sd 1): the median of
#: 925 mountain cells of dev photos 507000xx–507001xx (white peaks in the middle, the coin top
#: right)
MOUNTAIN_GLYPH = np.array(
    [
        [-0.72, -0.70, -0.70, -0.71, -0.70, -0.56, 0.06, -0.62],
        [-0.71, -0.70, -0.69, -0.70, -0.59, 1.28, 2.04, 0.06],
        [-0.72, -0.70, 0.91, 0.18, 1.17, 2.74, 0.40, -0.58],
        [-0.71, -0.44, 1.94, 2.74, 2.72, 0.73, 1.05, -0.72],
        [-0.71, 1.42, 0.15, 0.97, -0.20, 0.52, 1.89, -0.68],
        [-0.33, 1.62, -0.70, -0.69, -0.69, -0.70, 0.77, 0.48],
        [0.01, -0.30, -0.69, -0.70, -0.70, -0.69, -0.63, 0.28],
        [-0.73, -0.71, -0.71, -0.72, -0.72, -0.72, -0.72, -0.73],
    ],
    np.float32,
)


@dataclass(frozen=True)
class Orientation:
    """The decided hypothesis: turn the found grid
    ``quarter_turns`` × 90° (np.rot90) to be upright."""

    side: str
    quarter_turns: int
    separation: float  # how clearly the 5 mountains stand out (0…1)
    margin: float  # separation minus the runner-up hypothesis's
    shift_margin: float  # separation minus the best one-cell-shifted layout's (> 0: no shift)
    upside_down_doubt: bool = (
        False  # side A only: the coin track below the grid barely tells the half turn
    )
    glyph_sure: bool = (
        False  # the printed glyph alone settles side, turn and shift (:func:`glyph_sure`)
    )
    glyph_shift: tuple[int, int] | None = (
        None  # (rows, columns) the glyph shows the layout off by (:func:`glyph_shift`)
    )
    # the five mountains' likeness alone settles side, turn and shift (:func:`likeness_sure`)
    likeness_sure: bool = False

    @property
    def mountains_unclear(self) -> bool:
        """The mountains' darkness cannot tell the side and turn, and the glyph does not either."""
        return self.separation < MIN_SEPARATION and not self.glyph_sure and not self.likeness_sure

    @property
    def may_be_shifted(self) -> bool:
        """A one-cell shift fits the mountains' darkness as well, and the glyph does not rule it out
        — or the glyph shows the layout a cell off."""
        return (
            self.shift_margin <= 0 and not self.glyph_sure and not self.likeness_sure
        ) or self.glyph_shift is not None

    @property
    def in_doubt(self) -> bool:
        """Side, turn or shift may be wrong: the reader flags every cell."""
        return self.mountains_unclear or self.may_be_shifted or self.upside_down_doubt


def mountain_darkness(cells_bgr: np.ndarray, px: int) -> np.ndarray:
    """(11, 11) fraction of each cell's inner pixels that are dark in every channel (brightest below
    ``DARK_RATIO`` × the paper's around that cell, :func:`_local_paper`) and not
    green/blue/purple-dominant: printed mountains are, saturated or dark marker colours are not."""
    c = cells_bgr.astype(np.int16)
    gray = c.max(axis=2).astype(np.float32)
    paper = np.repeat(np.repeat(_local_paper(gray, px), px, axis=0), px, axis=1)
    # the printed brown is red-dominant (or grey on a
    # photocopy); dark green, blue or purple marker is not
    brownish = c[..., 2] >= np.maximum(c[..., 0], c[..., 1]) - BROWN_TOLERANCE
    dark = (gray < DARK_RATIO * paper) & brownish
    inset = max(1, px // 6)
    blocks = dark.reshape(GRID, px, GRID, px)[:, inset : px - inset, :, inset : px - inset]
    return blocks.mean(axis=(1, 3))


#: a cell pixel is "ink" when its brightest channel is
#: below this share of the paper around it (any hue)
INK_RATIO = 0.75
#: every side-and-turn layout's second-weakest mountain cell holding less ink than this: no mountain
#: is printed there (a bare lattice: 0.0; every sheet of the samples, printed in any way: 0.2 or
#: more)
MIN_MOUNTAIN_INK = 0.02


def cell_ink(cells_bgr: np.ndarray, px: int) -> np.ndarray:
    """(11, 11) fraction of each cell's inner pixels darker than :data:`INK_RATIO` × the paper
    around it, in any colour: printed art and pencil alike."""
    gray = cells_bgr.max(axis=2).astype(np.float32)
    paper = np.repeat(np.repeat(_local_paper(gray, px), px, axis=0), px, axis=1)
    inset = max(1, px // 6)
    dark = (gray < INK_RATIO * paper).reshape(GRID, px, GRID, px)
    return dark[:, inset : px - inset, :, inset : px - inset].mean(axis=(1, 3))


def mountains_missing(cells_bgr: np.ndarray, px: int) -> bool:
    """Whether no side and turn finds printed mountains: in every layout at least two of the five
    mountain cells are as bare as the paper (a lattice drawn on a table, a grid of squared paper).

    >>> blank = np.full((11 * 8, 11 * 8, 3), 220, np.uint8)
    >>> mountains_missing(blank, 8)
    True
    >>> for r, c in SIDES["A"].mountains:
    ...     blank[r * 8 + 2:r * 8 + 6, c * 8 + 2:c * 8 + 6] = 60
    >>> mountains_missing(blank, 8)
    False
    """
    ink = cell_ink(cells_bgr, px)
    best = max(
        sorted(np.rot90(ink, k)[r, c] for r, c in layout.mountains)[1]
        for layout in SIDES.values()
        for k in range(4)
    )
    return bool(best < MIN_MOUNTAIN_INK)


#: every cell compared at this many samples a side, inside a sixth of the cell from its lines
LIKENESS_SIZE = 10
#: a tile whose grey levels spread less than this (standard deviation) counts as bare paper: the
#: faint edge of the cell lines, the same in every cell, would otherwise make all bare cells look
#: alike
LIKENESS_MIN_CONTRAST = 6.0
#: weight of the five mountains' likeness (median pairwise correlation) in a hypothesis's score
LIKENESS_WEIGHT = 1.5
#: the chosen layout's likeness beating every other side and turn, and every one-cell shift of
#: itself, by this much settles it: on our photos and on photos of two other printings the true
#: layout won by 0.33 or more (by 0.05 or less where it was not the true one)
LIKENESS_SURE_MARGIN = 0.25


def likeness_tiles(cells_bgr: np.ndarray, px: int) -> np.ndarray:
    """(11, 11, n, n) every cell's grey level inside its lines at :data:`LIKENESS_SIZE`, each scaled
    to mean 0 and norm 1 (less for a bare cell, :data:`LIKENESS_MIN_CONTRAST`), so a dot product of
    two tiles is their correlation."""
    gray = cells_bgr.astype(np.float32).mean(axis=2)
    inset = max(1, px // 6)
    f = max(1, (px - 2 * inset) // LIKENESS_SIZE)  # block means of f × f pixels
    n = (px - 2 * inset) // f
    inner = gray.reshape(GRID, px, GRID, px)[:, inset : inset + n * f, :, inset : inset + n * f]
    small = inner.reshape(GRID, n, f, GRID, n, f).mean(axis=(2, 5)).transpose(0, 2, 1, 3).copy()
    small -= small.mean(axis=(2, 3), keepdims=True)
    # a bare cell is not "like" another: below the contrast floor its tile shrinks towards zero
    floor = LIKENESS_MIN_CONTRAST * n
    return small / np.maximum(np.linalg.norm(small, axis=(2, 3), keepdims=True), floor)


def mountain_likeness(tiles: np.ndarray, mountains) -> float:
    """How alike the five ``mountains`` cells look: the median of their ten pairwise correlations
    (0 when one lies outside the area). Every printing draws its mountains alike, whatever it draws;
    the cells of a wrong layout are paper, ruins and a player's drawings.

    >>> rng = np.random.default_rng(0)
    >>> cells = rng.integers(100, 200, (11 * 12, 11 * 12, 3)).astype(np.uint8)
    >>> glyph = rng.integers(0, 255, (12, 12, 3)).astype(np.uint8)
    >>> for r, c in SIDES["B"].mountains:
    ...     cells[r * 12:(r + 1) * 12, c * 12:(c + 1) * 12] = glyph
    >>> tiles = likeness_tiles(cells, 12)
    >>> likeness_b = mountain_likeness(tiles, SIDES["B"].mountains)
    >>> round(likeness_b, 2), mountain_likeness(tiles, SIDES["A"].mountains) < 0.3
    (1.0, True)
    """
    vectors = [tiles[r, c].ravel() for r, c in mountains if 0 <= r < GRID and 0 <= c < GRID]
    if len(vectors) < len(mountains):
        return 0.0
    v = np.array(vectors)
    pairs = (v @ v.T)[np.triu_indices(len(v), 1)]
    return float(np.median(pairs))


def likeness_by_turn(cells_bgr: np.ndarray, px: int) -> list[np.ndarray]:
    """``[k]``: the :func:`likeness_tiles` of the cell area
    turned ``k`` quarter turns (cells and tiles)."""
    tiles = likeness_tiles(cells_bgr, px)
    return [np.rot90(np.rot90(tiles, k, axes=(0, 1)), k, axes=(2, 3)) for k in range(4)]


def likeness_sure(turned: list[np.ndarray], side: str, quarter_turns: int) -> bool:
    """Does the mountains' likeness alone settle (``side``, ``quarter_turns``) and rule out a
    one-cell shift? Its likeness beats every other side and turn (side A's own half turn aside: the
    same layout) and each of its 8 one-cell shifts by :data:`LIKENESS_SURE_MARGIN`."""
    return likeness_margin(turned, side, quarter_turns) >= LIKENESS_SURE_MARGIN


def likeness_margin(turned: list[np.ndarray], side: str, quarter_turns: int) -> float:
    """The likeness of (``side``, ``quarter_turns``) minus the best rival's (see
    :func:`likeness_sure`)."""
    mountains = SIDES[side].mountains
    own = mountain_likeness(turned[quarter_turns], mountains)
    same = {(side, quarter_turns)} | ({("A", (quarter_turns + 2) % 4)} if side == "A" else set())
    rivals = [
        mountain_likeness(turned[k], layout.mountains)
        for name, layout in SIDES.items()
        for k in range(4)
        if (name, k) not in same
    ]
    rivals += [
        mountain_likeness(turned[quarter_turns], _shifted(mountains, dr, dc))
        for dr, dc in ONE_CELL_SHIFTS
    ]
    return own - max(rivals)


def best_likeness_margin(cells_bgr: np.ndarray, px: int) -> float:
    """:func:`likeness_margin` of the side and turn whose mountains look most alike."""
    turned = likeness_by_turn(cells_bgr, px)
    side, k = max(
        ((name, k) for name in SIDES for k in range(4)),
        key=lambda h: mountain_likeness(turned[h[1]], SIDES[h[0]].mountains),
    )
    return likeness_margin(turned, side, k)


def mountains_alike(cells_bgr: np.ndarray, px: int) -> bool:
    """Whether the five mountains of some side and turn look alike, clearly more than any other
    layout's and any one-cell shift's (:func:`best_likeness_margin` ≥ ``LIKENESS_SURE_MARGIN``):
    printed mountains of a printing that does not draw them dark (line art on white)."""
    return best_likeness_margin(cells_bgr, px) >= LIKENESS_SURE_MARGIN


def glyph_tiles(cells_bgr: np.ndarray, px: int) -> np.ndarray:
    """(11, 11, 8, 8) every cell's brightest channel at
    :data:`GLYPH_SIZE` samples, normalised per cell."""
    gray = cells_bgr.max(axis=2).astype(np.float32)
    small = cv2.resize(gray, (GRID * GLYPH_SIZE, GRID * GLYPH_SIZE), interpolation=cv2.INTER_AREA)
    tiles = small.reshape(GRID, GLYPH_SIZE, GRID, GLYPH_SIZE).transpose(0, 2, 1, 3)
    mean = tiles.mean(axis=(2, 3), keepdims=True)
    sd = tiles.std(axis=(2, 3), keepdims=True)
    return (tiles - mean) / (sd + 1e-6)


def glyph_correlations(cells_bgr: np.ndarray, px: int) -> list[np.ndarray]:
    """``[k]``: (11, 11) every cell's correlation with the upright :data:`MOUNTAIN_GLYPH` after the
    cell area is turned ``k`` quarter turns. Turning the area turns each cell too: a half turn puts
    the peaks down."""
    tiles = glyph_tiles(cells_bgr, px)
    # rot90 of the whole area by k == cells moved by rot90
    # of the (11, 11) index grid and each tile turned
    return [
        (np.rot90(np.rot90(tiles, k, axes=(0, 1)), k, axes=(2, 3)) * MOUNTAIN_GLYPH).mean(
            axis=(2, 3)
        )
        for k in range(4)
    ]


#: the 8 one-cell shifts (rows, columns) a layout is checked against
ONE_CELL_SHIFTS: tuple[tuple[int, int], ...] = tuple(
    (dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc
)


def _shifted(cells: frozenset, rows: int, cols: int) -> frozenset:
    """``cells`` moved ``rows`` down and ``cols`` right
    (one-cell shifts of a layout's mountains)."""
    return frozenset((r + rows, c + cols) for r, c in cells)


def _mountain_cells(ncc: np.ndarray, mountains) -> list[float]:
    """The correlations at ``mountains``, ascending (0 for a cell outside the area)."""
    return sorted(
        float(ncc[r, c]) if 0 <= r < GRID and 0 <= c < GRID else 0.0 for r, c in mountains
    )


def _glyph_score(ncc: np.ndarray, mountains) -> float:
    """Mean of the three best of the five: two mountains
    hidden by glare or a finger do not decide."""
    return float(np.mean(_mountain_cells(ncc, mountains)[2:]))


def mountain_glyph_match(cells_bgr: np.ndarray, px: int) -> dict[tuple[str, int], float]:
    """For every (side, quarter turns): how well its five mountain cells show the printed glyph,
    upright — the mean of the three best correlations of the five with :data:`MOUNTAIN_GLYPH`
    (about 0.95 where they are)."""
    ncc = glyph_correlations(cells_bgr, px)
    return {
        (name, k): _glyph_score(ncc[k], layout.mountains)
        for name, layout in SIDES.items()
        for k in range(4)
    }


def glyph_sure(ncc: list[np.ndarray], side: str, quarter_turns: int) -> bool:
    """Does the glyph alone settle (``side``, ``quarter_turns``) and rule out a one-cell shift?

    Three of its five mountain cells show the glyph clearly (:data:`GLYPH_SURE_CELL`) and its glyph
    score beats every other side and turn and each of its 8 one-cell shifts by
    :data:`GLYPH_SURE_MARGIN`.
    """
    upright = ncc[quarter_turns]
    mountains = SIDES[side].mountains
    if _mountain_cells(upright, mountains)[2] < GLYPH_SURE_CELL:
        return False
    rivals = [
        _glyph_score(ncc[k], layout.mountains)
        for name, layout in SIDES.items()
        for k in range(4)
        if (name, k) != (side, quarter_turns)
    ]
    rivals += [_glyph_score(upright, _shifted(mountains, dr, dc)) for dr, dc in ONE_CELL_SHIFTS]
    return _glyph_score(upright, mountains) - max(rivals) >= GLYPH_SURE_MARGIN


def _local_paper(gray: np.ndarray, px: int) -> np.ndarray:
    """(11, 11) paper brightness around each cell: the median over its 3 × 3 cells of each cell's
    90th percentile, so a shadow or a light gradient over the sheet does not make paper "dark"."""
    bright = np.percentile(gray.reshape(GRID, px, GRID, px), 90, axis=(1, 3))
    padded = np.pad(bright, 1, mode="constant", constant_values=np.nan)
    windows = np.lib.stride_tricks.sliding_window_view(padded, (3, 3))
    return np.nanmedian(windows.reshape(GRID, GRID, 9), axis=2)


def _separation(dark: np.ndarray, mountains: frozenset, skip: frozenset) -> float:
    """Second-weakest mountain's darkness minus the third-darkest non-mountain cell's.

    Robust by design: one mountain may be hidden (glare, a finger) and two other cells may be
    dark (a finger, a black marker) without the answer changing. ``skip`` cells are ignored.
    """
    on = sorted(dark[r, c] if 0 <= r < GRID and 0 <= c < GRID else 0.0 for r, c in mountains)
    off_mask = np.ones((GRID, GRID), bool)
    for r, c in mountains | skip:
        if 0 <= r < GRID and 0 <= c < GRID:
            off_mask[r, c] = False
    off = np.sort(dark[off_mask])
    return float(on[1] - off[-3])


def best_separation(dark: np.ndarray) -> float:
    """The best separation over both sides and all four quarter turns."""
    return max(
        _separation(np.rot90(dark, k), layout.mountains, layout.wasteland)
        for layout in SIDES.values()
        for k in range(4)
    )


def shift_margin(dark_upright: np.ndarray, side: str) -> float:
    """Separation of the true layout minus the best of
    its 8 one-cell shifts (> 0 means no shift)."""
    layout = SIDES[side]
    base = _separation(dark_upright, layout.mountains, layout.wasteland)
    return base - max(
        _separation(dark_upright, _shifted(layout.mountains, dr, dc), frozenset())
        for dr, dc in ONE_CELL_SHIFTS
    )


def coin_track_periodicity(image: np.ndarray, fit: GridFit, px: int = 16) -> float:
    """How strongly the strip where the coin track should be repeats every coin spacing (0…~1)."""
    band = GEOMETRY.coin_band
    strip = warp_canonical(
        line_image(image), _bottom_homography(fit), px, band.x0, band.y0, band.x1, band.y1
    )
    profile = strip.astype(np.float32).mean(axis=0)
    profile = profile - profile.mean()
    x = (np.arange(len(profile)) + 0.5) / px + band.x0
    phase = 2 * np.pi * (x - GEOMETRY.coin_x0) / GEOMETRY.coin_dx
    amplitude = (
        np.hypot((profile * np.cos(phase)).sum(), (profile * np.sin(phase)).sum())
        * 2
        / len(profile)
    )
    return float(amplitude / (np.abs(profile).mean() * np.pi / 2 + 1e-6))


def _bottom_homography(fit: GridFit, rows: int = 5) -> np.ndarray:
    """u → photo homography through the bottom ``rows`` lines of crossings only.

    The coin track lies 1.4 u below the grid: a bowed sheet or lens distortion bends the whole
    grid's homography away from it there, the crossings nearest to it do not.
    """
    pts = fit.intersections[-rows:].reshape(-1, 2).astype(np.float64)
    ideal = ideal_intersections()[-rows:].reshape(-1, 2)
    hom, _ = cv2.findHomography(ideal, pts, 0)
    return fit.homography if hom is None else hom


#: side A's half turn is told by the coin track below the grid: its periodicity (× this) plus how
#: well the printed track's rims match (vision.coins.track_match). On our photos and on photos of
#: two other printings the right turn beat the other by 0.02 or more every time; the printed
#: mountain glyph, drawn differently by every printing, has no say here (it chose the wrong turn on
#: another printing)
HALF_TURN_COIN_WEIGHT = 0.5
HALF_TURN_DOUBT = 0.015  # a closer call than this: the sheet may be upside down


def half_turn(
    orientation: Orientation, coin_evidence: list[float], track: dict[int, float]
) -> Orientation:
    """Side A's turn between ``quarter_turns`` and its opposite, decided by the coin track below the
    grid.

    ``coin_evidence[k]``: :func:`coin_track_periodicity` of the grid turned ``k`` quarter turns;
    ``track[k]``: the printed track's match below it, for the two turns in question. Side A's layout
    is the same after a half turn, so the separation and shift checks carry over; a glyph that was
    sure of the other turn is not sure of this one. A call closer than :data:`HALF_TURN_DOUBT` keeps
    the turn the layout chose and flags the reading.

    >>> o = Orientation("A", 1, 0.5, 0.01, 0.3)
    >>> half_turn(o, [0.0, 0.1, 0.0, 0.7], {1: 0.2, 3: 0.6}).quarter_turns
    3
    >>> half_turn(o, [0.0, 0.4, 0.0, 0.4], {1: 0.5, 3: 0.5}).upside_down_doubt
    True
    """
    k, opposite = orientation.quarter_turns, (orientation.quarter_turns + 2) % 4
    evidence = {
        j: HALF_TURN_COIN_WEIGHT * min(coin_evidence[j], 1.0) + track[j] for j in (k, opposite)
    }
    doubt = abs(evidence[k] - evidence[opposite]) < HALF_TURN_DOUBT
    if (
        evidence[opposite] <= evidence[k] + HALF_TURN_DOUBT
    ):  # too close a call overrules nothing: flagged
        return replace(orientation, upside_down_doubt=doubt)
    shift = orientation.glyph_shift
    return replace(
        orientation,
        quarter_turns=opposite,
        glyph_sure=False,
        upside_down_doubt=doubt,
        glyph_shift=None if shift is None else (-shift[0], -shift[1]),
    )


def glyph_shift(ncc: list[np.ndarray], side: str | None = None) -> tuple[str, int, int, int] | None:
    """(side, quarter turns, rows, columns) of the one-cell-shifted layout whose glyph score beats
    every unshifted layout's by :data:`GLYPH_SHIFT_MARGIN` — the grid is then a cell off — or None.
    ``side``: only that side's layouts."""
    layouts = {name: layout for name, layout in SIDES.items() if side is None or name == side}
    unshifted = max(
        _glyph_score(ncc[k], layout.mountains) for layout in layouts.values() for k in range(4)
    )
    score, best = max(
        (_glyph_score(ncc[k], _shifted(layout.mountains, dr, dc)), (name, k, dr, dc))
        for name, layout in layouts.items()
        for k in range(4)
        for dr, dc in ONE_CELL_SHIFTS
    )
    return best if score - unshifted >= GLYPH_SHIFT_MARGIN else None


def decide_orientation(
    dark: np.ndarray,
    side: str | None = None,
    coin_evidence: list[float] | None = None,
    cells: np.ndarray | None = None,
) -> tuple[Orientation, dict[tuple[str, int], float]]:
    """The best (side, quarter turns) for a found grid's darkness map, and every hypothesis's score.

    ``coin_evidence[k]``: the coin-track periodicity below the grid turned by ``k`` quarter turns.
    ``cells``: the found cell area (``dark``'s source, 11 × 11 cells): adds each hypothesis's
    :func:`mountain_glyph_match`, which decides where glare has washed the mountains' darkness out,
    and tells whether the glyph alone settles the decision (:attr:`Orientation.glyph_sure`) or shows
    the layout a cell off (:func:`glyph_shift`: its side and turn are taken, ``margin`` may be
    negative).
    """
    ncc = None if cells is None else glyph_correlations(cells, cells.shape[0] // GRID)
    turned = None if cells is None else likeness_by_turn(cells, cells.shape[0] // GRID)
    scores: dict[tuple[str, int], float] = {}
    for name, layout in SIDES.items():
        for k in range(4):
            scores[(name, k)] = _separation(np.rot90(dark, k), layout.mountains, layout.wasteland)
            if coin_evidence is not None:
                scores[(name, k)] += COIN_WEIGHT * min(coin_evidence[k], 1.0)
            if ncc is not None:
                scores[(name, k)] += GLYPH_WEIGHT * _glyph_score(ncc[k], layout.mountains)
            if turned is not None:
                scores[(name, k)] += LIKENESS_WEIGHT * mountain_likeness(
                    turned[k], layout.mountains
                )
    allowed = {key: s for key, s in scores.items() if side is None or key[0] == side}
    ranked = sorted(allowed.items(), key=lambda kv: -kv[1])
    (best_side, best_k), best = ranked[0]
    runner_up = ranked[1][1] if len(ranked) > 1 else -1.0
    shifted = None if ncc is None else glyph_shift(ncc, side)
    if shifted is not None and turned is not None and likeness_sure(turned, best_side, best_k):
        shifted = (
            None  # the mountains' likeness settles the shift; the glyph is one printing's drawing
        )
    if shifted is not None:
        best_side, best_k = shifted[:2]
        best, runner_up = (
            scores[shifted[:2]],
            max(s for key, s in allowed.items() if key != shifted[:2]),
        )
    upright = np.rot90(dark, best_k)
    separation = _separation(upright, SIDES[best_side].mountains, SIDES[best_side].wasteland)
    sure = ncc is not None and glyph_sure(ncc, best_side, best_k)
    alike = turned is not None and likeness_sure(turned, best_side, best_k)
    return Orientation(
        best_side,
        best_k,
        separation,
        best - runner_up,
        shift_margin(upright, best_side),
        glyph_sure=sure,
        glyph_shift=None if shifted is None else shifted[2:],
        likeness_sure=alike,
    ), scores
