"""The reader pipeline: photo bytes → :class:`Reading` (the map, coins, confidences, warnings).

:func:`read_image` runs the stages in order, each returning a typed result:

1. :func:`locate` → :class:`Located`: find, check and refine the grid (vision.grid); side and turn
   from the printed mountains and the coin track, with the one-cell-shift guard (vision.orient);
2. :func:`classify_cells` → :class:`CellReading`: per-cell features normalised against this
   sheet's paper (vision.features), classifier probabilities (vision.classify);
3. :func:`read_coins` → :class:`vision.coins.CoinReading`: the coin count (vision.coins);
4. :func:`read_boxes` → :class:`scoring.written.WrittenScores`: the numbers written in the season
   boxes and the final-total shield, each with a confidence (vision.seasons, vision.digits);
5. :func:`flag_cells` → :class:`Flags`: the cells to check and the warnings in words.

Coordinates in a Reading are pixels of the photo as the user sees it (EXIF orientation applied,
full resolution)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from scoring.message import Joined, Number, msg, msg_n
from scoring.sheet import Sheet
from scoring.sides import SIDES, cell_name
from scoring.terrain import Terrain
from scoring.written import WrittenScores
from vision.classify import CELL_CLASSES, ReaderModel, default_model
from vision.coins import (
    COIN_PX,
    COIN_UNSURE_BELOW,
    CoinReading,
    coin_centres_px,
    coin_features,
    coin_reliability,
    coin_strip,
    coin_track_mapping,
    coin_windows,
    count_from_probabilities,
    discount_filled,
    doubt_empty_track,
    most_coins,
    mountain_coins,
    step_evidence,
    track_match,
)
from vision.digits import DigitModel, default_digit_model
from vision.features import PaperModel, cell_features, paper_ring
from vision.grid import (
    DOUBT_U,
    PX,
    DegenerateFit,
    GridFit,
    fit_grid,
    line_image,
    sample_cells,
    shifted_fit,
)
from vision.layout import GRID
from vision.load import LoadedPhoto, PhotoError, load_photo
from vision.orient import (
    Orientation,
    coin_track_periodicity,
    decide_orientation,
    half_turn,
    mountain_darkness,
    mountains_alike,
    mountains_missing,
)
from vision.seasons import read_written, unsure_numbers

MIN_CELL_PX = 14  # a cell narrower than this in the photo is too small to read reliably
BLUR_SHARPNESS_MIN = 40.0  # Laplacian variance of the rectified cell area below this: blurred
GLARE_FRACTION_MAX = 0.01  # more saturated white pixels than this in the cell area: glare
WRONG_SIDE_MARGIN = (
    0.25  # the other side's mountains fit this much better: the user's side is wrong
)


@dataclass
class Reading:
    """What the reader saw on one photo. ``cell_confidence[r][c]`` is 0…1."""

    sheet: Sheet
    cell_confidence: list[list[float]]
    coin_confidence: float
    low_confidence_cells: list[tuple[int, int]]
    warnings: list[str]  # scoring.message.Message: English, translatable by a face
    grid_corners: list[list[float]]  # TL, TR, BR, BL of the cell area (upright), photo px
    cell_outlines: list  # 11 × 11 × 4 × [x, y] photo px
    intersections: list  # 12 × 12 × [x, y] photo px
    photo_size: tuple[int, int]  # (width, height) of the upright photo
    cell_probabilities: list = field(default_factory=list)  # 11 × 11 × {terrain: p}
    coin_probabilities: list[float] = field(default_factory=list)
    coin_centres: list = field(
        default_factory=list
    )  # 14 × [x, y] photo px, the printed coins left to right
    orientation: dict = field(default_factory=dict)
    seconds: float = 0.0
    written: WrittenScores | None = None  # the season boxes and final total, where read

    @property
    def side(self) -> str:
        return self.sheet.side

    @property
    def coins(self) -> int:
        return self.sheet.coins

    def to_json(self) -> dict:
        """The public reading JSON (docs/formats.md: side,
        cells, coins, plus confidence and warnings)."""
        return {
            "side": self.side,
            "cells": [[t.value for t in row] for row in self.sheet.cells],
            "coins": self.coins,
            "confidence": [[round(v, 4) for v in row] for row in self.cell_confidence],
            "coin_confidence": round(self.coin_confidence, 4),
            "coin_probabilities": [round(v, 4) for v in self.coin_probabilities],
            "coin_centres": self.coin_centres,
            "low_confidence_cells": [list(c) for c in self.low_confidence_cells],
            "warnings": list(self.warnings),
            "grid_corners": self.grid_corners,
            "cell_outlines": self.cell_outlines,
            "photo_size": list(self.photo_size),
            "orientation": self.orientation,
            "seconds": round(self.seconds, 3),
            **self._written_json(),
        }

    def _written_json(self) -> dict:
        """``seasons_written``, ``final_total_written`` and ``written_confidence`` (all null when
        the boxes were not read)."""
        if self.written is None:
            return {
                "seasons_written": None,
                "final_total_written": None,
                "written_confidence": None,
            }
        return {**self.written.to_json(), "written_confidence": dict(self.written.confidence)}


def _sharpness(cells: np.ndarray) -> float:
    """Variance of the Laplacian of the rectified cell area (low = blurred)."""
    gray = cv2.cvtColor(cells, cv2.COLOR_BGR2GRAY)
    return float(cv2.Laplacian(gray, cv2.CV_32F).var())


def _glare(cells: np.ndarray) -> float:
    """Fraction of near-white saturated pixels in the cell area."""
    return float((cells.min(axis=2) > 245).mean())


def _orient(image: np.ndarray, fit: GridFit, cells: np.ndarray, side: str | None) -> Orientation:
    """Decide side and quarter turns; refuse a stated side whose mountains are not there."""
    dark = mountain_darkness(cells, PX)
    lines = line_image(image)
    coin_ev = [coin_track_periodicity(lines, fit.rotated(k)) for k in range(4)]
    orientation, scores = decide_orientation(
        dark, side, coin_ev, cells
    )  # cells: the mountain glyph cue
    if (
        orientation.side == "A"
    ):  # its mountains are the same after a half turn: the coin track decides
        turns = (orientation.quarter_turns, (orientation.quarter_turns + 2) % 4)
        orientation = half_turn(
            orientation, coin_ev, {k: track_match(image, fit.rotated(k)) for k in turns}
        )
    if side is not None:
        other = max(s for (name, _), s in scores.items() if name != side)
        if other - scores[(side, orientation.quarter_turns)] > WRONG_SIDE_MARGIN:
            raise PhotoError(
                "wrong-side",
                f"the photo shows side {'B' if side == 'A' else 'A'}, "
                f"not side {side}: its mountains are elsewhere",
            )
    return orientation


@dataclass
class Located:
    """The grid found, turned upright, with its rectified cell area."""

    fit: GridFit  # as found
    upright: GridFit  # rows A…K top to bottom
    orientation: Orientation
    cells: np.ndarray  # canonical upright cell area, PX per unit


#: a printed coin track matching this well beside the lattice (:func:`vision.coins.track_match`:
#: 0.62 to 0.78 under printer-friendly sheets, at most 0.4 under lattices of other things) shows
#: a map sheet whose mountains are line art too thin to count as dark cells
TRACK_SHOWS_SHEET = 0.5


def coin_track_shown(image: np.ndarray, fit: GridFit) -> bool:
    """Whether the 14-coin track is printed along one of the lattice's four edges, looked for
    along the paper's curl and along the grid's homography alone (a bottom row found a little off
    throws the curl's extrapolation off)."""
    return any(
        track_match(image, fit.rotated(k), follow_curl=curl) >= TRACK_SHOWS_SHEET
        for k in range(4)
        for curl in (True, False)
    )


def map_sheet_shown(image: np.ndarray, fit: GridFit, cells: np.ndarray) -> bool:
    """Whether the lattice is a map sheet's, not squared paper's or a tablecloth's: five cells of
    some side's mountain layout are dark, or look alike (line art too thin or washed out to count
    as dark, :func:`vision.orient.mountains_alike`), or the coin track is printed beside it.
    ``cells``: the lattice's cell area at ``PX`` per unit."""
    return (
        not mountains_missing(cells, PX)
        or mountains_alike(cells, PX)
        or coin_track_shown(image, fit)
    )


def locate(loaded: LoadedPhoto, side: str | None = None) -> Located:
    """Find the grid, decide side and orientation, and rectify the cell area upright."""
    if side is not None and side not in SIDES:
        raise PhotoError("wrong-side", f"unknown sheet side {side!r}: expected 'A' or 'B'")
    image = loaded.image
    fit = fit_grid(image)
    if fit is None:
        raise PhotoError("no-grid", "no map grid found")
    cells = sample_cells(image, fit)
    if not map_sheet_shown(image, fit, cells):
        raise PhotoError("no-grid", "no map sheet found: the printed mountains are missing")
    orientation = _orient(image, fit, cells, side)
    if orientation.glyph_shift is not None:  # the glyph shows the lattice a cell off: move it there
        try:
            moved = shifted_fit(
                image, fit.rotated(orientation.quarter_turns), *orientation.glyph_shift
            )
        except DegenerateFit:  # no lattice a cell over: the found one stays, in doubt
            moved = None
        moved_orientation = (
            None if moved is None else _orient(image, moved, sample_cells(image, moved), side)
        )
        if (
            moved_orientation is not None and not moved_orientation.in_doubt
        ):  # (in doubt: the glyph still shows a shift)
            fit, orientation = moved, moved_orientation
    upright = fit.rotated(orientation.quarter_turns)
    return Located(fit, upright, orientation, sample_cells(image, upright))


@dataclass(frozen=True)
class CellReading:
    """Every cell's terrain, confidence and class probabilities, with the paper model the cell
    features were normalised against (the coins are judged against it too)."""

    sheet: Sheet  # the cells as read; the coin count is read next
    probs: np.ndarray  # (drawable cells, classes), ``layout.drawable`` order
    confidence: list[list[float]]
    probabilities: list[list[dict]]
    paper: PaperModel
    #: the sheet-context stage's own probabilities (``probs`` order; None without the stage): the
    #: flags read them (:meth:`vision.classify.ReaderModel.unsure_cells`)
    context: np.ndarray | None = None


@dataclass(frozen=True)
class Flags:
    """The cells a player should check, and the reading's warnings in words."""

    low_confidence_cells: list[tuple[int, int]]
    warnings: list[str]


def read_image(
    loaded: LoadedPhoto,
    side: str | None = None,
    model: ReaderModel | None = None,
    digits: DigitModel | None | bool = False,
) -> Reading:
    """Read a decoded photo (see :func:`read_photo`): locate the sheet, classify the cells, count
    the coins, read the season boxes, flag what is unsure. ``digits`` is the season boxes'
    character model (``True``: the shipped one; ``False``, the default: leave the boxes unread,
    since the boxes are not yet read well enough for their checks to be trusted)."""
    start = time.perf_counter()
    located = locate(loaded, side)  # before loading the model: a photo without a sheet answers fast
    model = model or default_model()
    cells = classify_cells(loaded.image, located, model)
    coins, coin_centres, to_photo = read_coins(loaded.image, located, cells, model)
    written = read_boxes(loaded.image, to_photo, digits)
    flags = flag_cells(loaded, located, cells, coins, model)
    flags.warnings.extend(written_warnings(written))
    s = loaded.scale
    upright = located.upright
    return Reading(
        sheet=replace(cells.sheet, coins=coins.count),
        cell_confidence=cells.confidence,
        coin_confidence=coins.confidence,
        low_confidence_cells=flags.low_confidence_cells,
        warnings=flags.warnings,
        grid_corners=np.round(upright.corners * s, 1).tolist(),
        cell_outlines=np.round(upright.cell_outlines() * s, 1).tolist(),
        intersections=np.round(upright.intersections * s, 2).tolist(),
        photo_size=loaded.original_size,
        cell_probabilities=cells.probabilities,
        coin_probabilities=list(coins.filled_probability),
        coin_centres=np.round(coin_centres * s, 1).tolist(),
        orientation=_orientation_summary(located.orientation, located.fit),
        seconds=time.perf_counter() - start,
        written=written,
    )


def classify_cells(image: np.ndarray, located: Located, model: ReaderModel) -> CellReading:
    """The classifier's reading of every drawable cell; the printed cells (mountains, wasteland)
    are sure."""
    side = located.orientation.side
    layout = SIDES[side]
    feats, paper = cell_features(
        located.cells, side, PX, paper_ring(image, located.upright.intersections)
    )
    # row by row: the order the model's neighbour summary relates them in
    probs, context = model.cell_stages(feats[[r * GRID + c for r, c in layout.drawable]])
    grid_terrain, confidence, probabilities = _cell_grids(layout, probs)
    sheet = Sheet(side, tuple(tuple(row) for row in grid_terrain))
    return CellReading(sheet, probs, confidence, probabilities, paper, context)


def read_coins(
    image: np.ndarray, located: Located, cells: CellReading, model: ReaderModel
) -> tuple[CoinReading, np.ndarray, Callable]:
    """The coin count from the coin classifier's per-coin probabilities and the track's step
    (:func:`step_evidence`: where along it the coins stop looking alike), the 14 coins' centres
    in ``image`` px (for the overlay) and the track's u, v → px mapping (the season boxes below
    follow it). The side's mountain coins are the reference for an unmarked coin; the cells drawn
    as read bound the count (no coin without a drawn cell off the ruins), and with many a read of
    0 may be a full track."""
    upright, side = located.upright, located.orientation.side
    drawn_cells = cells.sheet.drawn_cells()
    drawn = len(drawn_cells)
    off_ruins = sum(1 for cell in drawn_cells if cell not in SIDES[side].ruins)
    to_photo = coin_track_mapping(image, upright)
    strip = coin_strip(image, upright, COIN_PX, to_photo)
    mountains = mountain_coins(image, upright, side, cells.paper)
    windows = coin_windows(strip, COIN_PX)  # the coins' rims, found once for both
    feats = coin_features(strip, COIN_PX, cells.paper, mountains, windows)
    reading = count_from_probabilities(
        discount_filled(model.coin_probabilities(feats)),
        coin_reliability(feats),
        most=most_coins(off_ruins),
        step=step_evidence(strip, COIN_PX, windows=windows),
    )
    return doubt_empty_track(reading, drawn), coin_centres_px(to_photo), to_photo


def read_boxes(
    image: np.ndarray, to_photo: Callable, digits: DigitModel | None | bool
) -> WrittenScores | None:
    """The season boxes' numbers (None when ``digits`` is False or no digit model is shipped)."""
    if digits is False or digits is None:
        return None
    if digits is True:
        try:
            digits = default_digit_model()
        except FileNotFoundError:
            return None
    try:
        return read_written(image, to_photo, digits)
    except (cv2.error, ValueError):  # boxes mapped off the photo: the map's reading stands
        return None


def written_warnings(written: WrittenScores | None) -> list[str]:
    """The season-box numbers read unsurely, as one warning (none when all are sure)."""
    unsure = [] if written is None else unsure_numbers(written)
    if not unsure:
        return []
    named = _listed(unsure, LISTED_NUMBERS)
    return [
        msg_n(
            "{n} written number may be misread: {numbers}",
            "{n} written numbers may be misread: {numbers}",
            len(unsure),
            numbers=named,
        )
    ]


#: A cell where the grid may be off is still not flagged when the classifier is this sure: a sample
#: taken partly from the neighbour cell rarely gives such a certain reading. On the publisher's
#: sheets the crossing doubt is high where their faint lines are hard to follow though the grid sits
#: right, so the doubt alone flags many right cells. Chosen on our own printings (art families, 80
#: sheets / look-alike, 299) with the shipped model, under the calibrated threshold and
#: UNFAMILIAR_LOW_CONFIDENCE 0.995, as cells flagged and wrong cells left unflagged per sheet:
#: 0.9999 8.1 % and 0.000 / 4.9 % and 0.003; 0.999 7.0 % and 0.000 / 4.6 % and 0.010; 0.99 6.7 % and
#: 0.000 / 4.5 % and 0.013. On the publisher's sheets (315) the same three: 12.6 % and 0.013, 10.1 %
#: and 0.016, 9.3 % and 0.032.
SURE_DESPITE_DOUBT = 0.999


def flag_cells(
    loaded: LoadedPhoto,
    located: Located,
    cells: CellReading,
    coins: CoinReading,
    model: ReaderModel,
) -> Flags:
    """The cells to check: those the model is unsure of (:meth:`ReaderModel.unsure_cells`), or
    where the grid may be off by more than ``DOUBT_U`` and the classifier is not all but certain
    (``SURE_DESPITE_DOUBT``); every cell when side, turn or shift are in doubt."""
    upright, orientation = located.upright, located.orientation
    drawable = SIDES[orientation.side].drawable
    unsure_mask, unfamiliar = model.unsure_cells(cells.probs, cells.context)
    misplaced = [
        (r, c)
        for (r, c) in drawable
        if cell_doubt(upright, r, c) > DOUBT_U and cells.confidence[r][c] < SURE_DESPITE_DOUBT
    ]
    unsure = {cell for cell, flagged in zip(drawable, unsure_mask) if flagged}
    low = sorted(unsure | set(misplaced))
    if orientation.in_doubt:
        low = list(drawable)  # the grid may be misplaced or upside down: nothing is sure
    warnings = _warnings(
        loaded, upright, located.cells, orientation, low, coins, unfamiliar, len(misplaced)
    )
    return Flags(low, warnings)


def _cell_grids(layout, probs: np.ndarray) -> tuple[list[list], list[list], list[list[dict]]]:
    """11 × 11 grids of each cell's terrain, confidence and class probabilities: the printed cells
    (mountains, wasteland) sure, the drawable ones (``layout.drawable`` order) from ``probs``."""
    printed = {
        **{c: Terrain.MOUNTAIN for c in layout.mountains},
        **{c: Terrain.WASTELAND for c in layout.wasteland},
    }
    grid_terrain = [[Terrain.EMPTY] * GRID for _ in range(GRID)]
    confidence = [[1.0] * GRID for _ in range(GRID)]
    probabilities: list[list[dict]] = [[{} for _ in range(GRID)] for _ in range(GRID)]
    for (r, c), t in printed.items():
        grid_terrain[r][c] = t
        probabilities[r][c] = {t.value: 1.0}
    for (r, c), p in zip(layout.drawable, probs):
        k = int(np.argmax(p))
        grid_terrain[r][c] = CELL_CLASSES[k]
        confidence[r][c] = float(p[k])
        probabilities[r][c] = {cls.value: round(float(v), 4) for cls, v in zip(CELL_CLASSES, p)}
    return grid_terrain, confidence, probabilities


def _orientation_summary(orientation: Orientation, fit: GridFit) -> dict:
    """How the side and turn were decided, for :attr:`Reading.orientation`."""
    return {
        "quarter_turns": orientation.quarter_turns,
        "separation": round(orientation.separation, 3),
        "margin": round(orientation.margin, 3),
        "shift_margin": round(orientation.shift_margin, 3),
        "upside_down_doubt": orientation.upside_down_doubt,
        "glyph_sure": orientation.glyph_sure,
        "glyph_shift": None if orientation.glyph_shift is None else list(orientation.glyph_shift),
        "likeness_sure": orientation.likeness_sure,
        "lattice_contrast": round(fit.lattice_score, 3),
    }


def cell_doubt(upright: GridFit, r: int, c: int) -> float:
    """How far the grid may be off at cell (r, c), in u: the largest doubt of its four corners
    (:attr:`vision.grid.GridFit.crossing_doubt`). Above ``DOUBT_U`` the cell may be sampled
    partly from its neighbour, so it is flagged whatever the classifier says."""
    return float(upright.crossing_doubt[r : r + 2, c : c + 2].max())


#: The "cells to check" warning names this many cells; the map's own marks show the rest.
LISTED_CELLS = 12
#: The "written numbers may be misread" warning names this many (``spring.total``, …).
LISTED_NUMBERS = 8


def _warnings(
    loaded: LoadedPhoto,
    upright: GridFit,
    cells: np.ndarray,
    orientation: Orientation,
    low: list,
    coins: CoinReading,
    unfamiliar: bool = False,
    misplaced: int = 0,
) -> list[str]:
    """Human-readable warnings about this reading."""
    out: list[str] = []
    cell_px = upright.cell_size_px() * loaded.scale
    if cell_px < MIN_CELL_PX:
        width = f"{cell_px:.0f}"
        out.append(
            msg(
                "sheet too small in the frame: cells are {width} px wide (want ≥ {least}); move "
                "closer",
                width=width,
                least=MIN_CELL_PX,
            )
        )
    if _sharpness(cells) < BLUR_SHARPNESS_MIN:
        out.append(msg("photo looks blurred: hold still or focus on the sheet"))
    glare = _glare(cells)
    if glare > GLARE_FRACTION_MAX:
        out.append(
            msg(
                "glare on {percent} of the map: tilt the sheet away from the light",
                percent=Number(glare, "percent"),
            )
        )
    out += _orientation_warnings(orientation, unfamiliar)
    if misplaced:
        out.append(
            msg_n(
                "the grid lines were hard to follow under {n} cell (a finger, a curl or faint "
                "lines): it is among the cells to check",
                "the grid lines were hard to follow under {n} cells (a finger, a curl or faint "
                "lines): they are among the cells to check",
                misplaced,
            )
        )
    if low:
        names = _listed([cell_name(c) for c in sorted(low)], LISTED_CELLS)
        out.append(
            msg_n(
                "{n} cell to check: {cells}", "{n} cells to check: {cells}", len(low), cells=names
            )
        )
    if coins.confidence < COIN_UNSURE_BELOW:
        sure = Number(coins.confidence, "percent")
        out.append(
            msg(
                "coin count {count} is uncertain ({percent} sure): count the filled coins on the "
                "track",
                count=coins.count,
                percent=sure,
            )
        )
    return out


def _orientation_warnings(orientation: Orientation, unfamiliar: bool) -> list[str]:
    """What may be wrong with the side, the turn or the grid's place, and an unfamiliar sheet."""
    out: list[str] = []
    if orientation.mountains_unclear:
        out.append(msg("the printed mountains are hard to see: side and orientation may be wrong"))
    if orientation.may_be_shifted:
        out.append(
            msg("the grid may be shifted by a cell: every cell is flagged; retake the photo")
        )
    if orientation.upside_down_doubt:
        out.append(
            msg(
                "the sheet may be upside down (the coin track is unclear): every cell is flagged; "
                "retake the photo with the whole coin track in view"
            )
        )
    if unfamiliar:
        out.append(
            msg(
                "this sheet looks unlike the sheets the reader was trained on (many cells are "
                "unsure): cells are flagged more strictly"
            )
        )
    return out


def _listed(names: list[str], most: int) -> str:
    """The first ``most`` names, space-separated, and how many more there are."""
    shown = Joined(names[:most], " ")
    if len(names) <= most:
        return shown
    return msg("{names} and {n} more", names=shown, n=len(names) - most)


def read_photo(
    data: bytes | str | Path, side: str | None = None, digits: DigitModel | None | bool = False
) -> Reading:
    """Read a photographed sheet: bytes or a path; ``side`` "A"/"B" if the user knows it.

    Raises :class:`PhotoError` with a stable ``code`` when the photo cannot be read.
    """
    return read_image(load_photo(data), side, digits=digits)
