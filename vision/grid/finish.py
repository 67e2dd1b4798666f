"""The final refinement of a found lattice at ``PX``, and its corrections where crossings are in
doubt.

Where a patch of crossings disagrees with its snaps (:func:`vision.grid.snap.crossing_doubt` over
``DOUBT_U``: the found homography is off there by more than the final search reaches, e.g. a corner
stretched by curl or a finger), the homography is re-anchored on the crossings in no doubt and the
crossings are snapped again from it (:func:`reanchored`; on fewer of them only when that fails:
:func:`sure_tiers`); where some are still doubted, a side the lattice overshot by a line is pulled
in (:func:`side_pulled`) or the lattice is refitted on thin lines (:func:`thin_refit`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from vision.grid.linefit import thin_line_fit
from vision.grid.profiles import THIN_KERNEL_U, lattice_score, mountain_separation, thin_line_score
from vision.grid.snap import DOUBT_U, refine
from vision.grid.tuning import SHIPPED, FinishTuning, GridTuning
from vision.lattice import (
    LINES,
    PX,
    DegenerateFit,
    GridFit,
    homography_from_intersections,
    ideal_intersections,
    invert_homography,
    line_image,
)
from vision.layout import GRID


@dataclass(frozen=True)
class Crossings:
    """Final crossings: photo points (12, 12, 2), displacement field (u), doubt (12, 12) u."""

    points: np.ndarray
    disp: np.ndarray
    doubt: np.ndarray

    @property
    def doubted(self) -> int:
        """How many crossings are in doubt (over ``DOUBT_U``)."""
        return int((self.doubt > DOUBT_U).sum())


def finish_grid(
    image: np.ndarray, homography: np.ndarray, disp: np.ndarray, score: float, tuning: GridTuning
) -> GridFit:
    """The final refinement of a found lattice (u → photo ``homography``, displacement ``disp``,
    line ``score``), each crossing's doubt, and the corrections where some are in doubt.

    Finished twice, once on every snap and once on the snaps that found a line within their
    search (``peaks_only``, :func:`vision.grid.snap.snap_crossings`), and the one with fewer
    doubted crossings kept (the first on a tie; the second is skipped when the first doubts
    none). A lattice placed a few tenths of a cell off
    where the lines are clear is reached only by the snaps that see the line's slope at the end
    of their search; one placed right where the dashed lines are faint beside marker symbols is
    walked off onto the symbols by those same snaps (the publisher's colour side B: the cell
    lines there are fainter than on our renderings).
    """
    darkest = line_image(image)
    now = _finished(image, darkest, homography, disp, tuning, peaks_only=False)
    if now.doubted:  # none doubted: the second finish could at best tie
        other = _finished(image, darkest, homography, disp, tuning, peaks_only=True)
        now = other if other.doubted < now.doubted else now
    residual = float(np.median(np.linalg.norm(now.disp, axis=2)))
    return GridFit(
        now.points, homography_from_intersections(now.points), score, residual, now.doubt
    )


def _finished(
    image: np.ndarray,
    darkest: np.ndarray,
    homography: np.ndarray,
    disp: np.ndarray,
    tuning: GridTuning,
    peaks_only: bool,
) -> Crossings:
    """The crossings snapped from ``homography`` + ``disp`` and corrected where in doubt, every
    snap on the way taken with ``peaks_only``."""
    for _ in range(tuning.finish.final_passes):  # a second pass reaches a corner the first bent to
        refined = refine(darkest, homography, PX, disp, 0.15, peaks_only=peaks_only)
        disp = refined.disp
    now = Crossings(refined.points, refined.disp, refined.doubt())
    if now.doubted:
        now = _corrected(image, darkest, now, tuning, peaks_only=peaks_only)
    return now


def _corrected(
    image: np.ndarray,
    darkest: np.ndarray,
    now: Crossings,
    tuning: GridTuning,
    *,
    peaks_only: bool = False,
) -> Crossings:
    """Re-anchored on the sure crossings (the first tier that gives one, the fewest doubted), then,
    where some are still doubted, corrected locally (:func:`locally_corrected`); every snap taken
    with ``peaks_only``."""
    pts = now.points
    found_score = functools.cache(lambda: lattice_score(darkest, pts))  # once, only if needed
    anchor = functools.partial(reanchored, peaks_only=peaks_only)
    for tier in sure_tiers(now.doubt, tuning.finish):
        tries = [
            _unless_degenerate(anchor, image, darkest, now, sure_u, found_score, tuning.finish)
            for sure_u in tier
        ]
        tries = [t for t in tries if t is not None]
        if tries:
            now = min(tries, key=lambda t: t.doubted)
            break
    if now.doubted:
        correct = functools.partial(locally_corrected, peaks_only=peaks_only)
        now = _unless_degenerate(correct, image, darkest, now, tuning) or now
    return now


def _unless_degenerate(correction, *args):
    """``correction(*args)``, or ``None`` (no correction) when its evidence cannot define a fit."""
    try:
        return correction(*args)
    except DegenerateFit:
        return None


def cells_away(rows: int, cols: int) -> np.ndarray:
    """The u → u move of a lattice ``rows``, ``cols`` cells over.

    >>> cells_away(1, -2) @ np.array([0.0, 0.0, 1.0])
    array([-2.,  1.,  1.])
    """
    return np.array([[1.0, 0.0, cols], [0.0, 1.0, rows], [0.0, 0.0, 1.0]])


def shifted_fit(
    image: np.ndarray, fit: GridFit, rows: int, cols: int, tuning: GridTuning = SHIPPED
) -> GridFit:
    """The lattice ``rows``, ``cols`` cells away from ``fit`` (in its own u frame), snapped and
    finished like a found one: for a grid the printed glyph shows was placed a cell off
    (vision.orient.glyph_shift; under glare the darkness checks missed it). The new edge's
    crossings start from the homography's extrapolation, hence the wider first search."""
    hom = fit.homography @ cells_away(rows, cols)
    disp = refine(line_image(image), hom, PX, None, 0.3).disp
    return finish_grid(image, hom, disp, fit.lattice_score, tuning)


def sure_tiers(doubt: np.ndarray, tuning: FinishTuning) -> list[list[float]]:
    """The ``sure_u`` thresholds to re-anchor on, in two tiers tried in turn: those with
    ``min_sure`` crossings in no doubt or more, then those with ``min_sure_few`` or more (a
    homography through a third of the sheet is kept only when the one through half of it is not)."""
    counts = [int((doubt < sure_u).sum()) for sure_u in tuning.sure_u]
    return [
        [u for u, n in zip(tuning.sure_u, counts) if n >= tuning.min_sure],
        [u for u, n in zip(tuning.sure_u, counts) if tuning.min_sure_few <= n < tuning.min_sure],
    ]


def _field(pts: np.ndarray, inverse: np.ndarray) -> np.ndarray:
    """(12, 12, 2) u: the crossings ``pts`` mapped back through an inverse homography."""
    return cv2.perspectiveTransform(pts.reshape(1, -1, 2), inverse)[0].reshape(LINES, LINES, 2)


def reanchored(
    image: np.ndarray,
    darkest: np.ndarray,
    now: Crossings,
    sure_u: float,
    found_score: Callable[[], float],
    tuning: FinishTuning,
    *,
    peaks_only: bool = False,
) -> Crossings | None:
    """Snap again from a homography through the crossings in no doubt (under ``sure_u``); ``None``
    unless it is better: fewer doubted crossings, the sure ones not moved, the lattice not weaker
    than ``found_score()`` (the found crossings' line score) and the mountains not contradicting
    it; through fewer than ``min_sure`` crossings, its thin-line score not lower either."""
    pts = now.points
    sure = now.doubt < sure_u
    rows, cols = np.nonzero(sure)
    if sure.sum() < tuning.min_sure_few or min(len(set(rows)), len(set(cols))) < tuning.sure_span:
        return None
    ideal = ideal_intersections()
    hom, _ = cv2.findHomography(
        ideal[sure].reshape(-1, 2), pts[sure].reshape(-1, 2).astype(np.float64), 0
    )
    inv = invert_homography(hom)
    if inv is None:
        return None
    prior = _field(pts, inv) - ideal
    prior[~sure] = 0.0  # where in doubt: the homography's own guess
    disp = prior
    for search in (0.3, 0.15):
        refined = refine(darkest, hom, PX, disp, search, peaks_only=peaks_only)
        disp = refined.disp
    new = Crossings(refined.points, refined.disp, refined.doubt())
    if new.doubted >= now.doubted:
        return None
    moved = np.linalg.norm(_field(new.points, inv) - prior - ideal, axis=2)
    if moved[sure].max() > tuning.sure_move_u:
        return None
    if (
        lattice_score(darkest, new.points) < tuning.reanchor_keeps_score * found_score()
        or mountain_separation(image, new.points) < 0
    ):
        return None
    if sure.sum() < tuning.min_sure and thin_line_score(darkest, new.points) < thin_line_score(
        darkest, pts
    ):
        return None  # through a third of the sheet: its thin lines must agree too (strokes fool)
    return new


def locally_corrected(
    image: np.ndarray,
    darkest: np.ndarray,
    now: Crossings,
    tuning: GridTuning,
    *,
    peaks_only: bool = False,
) -> Crossings:
    """The crossings after the side pull (:func:`side_pulled`) and the thin-line refit
    (:func:`thin_refit`, when ``thin_refit_doubted`` crossings or more are in doubt), each tried on
    the lattice in doubt. When both are kept, the one whose mountains separate more clearly wins
    (a refit that stretched the lattice a line over one side fits the thin lines as well as the
    pulled one, but its mountains straddle cells); a pulled lattice still in doubt is refitted
    once more."""
    many = tuning.finish.thin_refit_doubted
    pulled = side_pulled(image, darkest, now, tuning.finish, peaks_only=peaks_only)
    refit = (
        thin_refit(image, darkest, now, tuning, peaks_only=peaks_only)
        if now.doubted >= many
        else None
    )
    if pulled is not None and refit is not None:
        if mountain_separation(image, refit.points) > mountain_separation(image, pulled.points):
            return refit
    elif refit is not None:
        return refit
    if pulled is None:
        return now
    if pulled.doubted < many:
        return pulled
    again = thin_refit(image, darkest, pulled, tuning, peaks_only=peaks_only)
    return pulled if again is None else again


def thin_refit(
    image: np.ndarray,
    darkest: np.ndarray,
    now: Crossings,
    tuning: GridTuning,
    *,
    peaks_only: bool = False,
) -> Crossings | None:
    """The lattice refitted on thin lines only, if it fits them clearly better.

    Thick marker strokes, a stain or a fold can hold a patch of snaps half a cell off, or one line
    off, and the smooth field then follows them over a whole part of the sheet. Two refits that
    the strokes pull off less, from the homography through the crossings: its crossings snapped on
    a ``THIN_KERNEL_U`` black-hat (±0.3 u, then ±0.15 u twice), and the homography re-fitted to
    whole thin lines measured in strips (:func:`thin_line_fit`), then snapped as usual (±0.15 u).
    The one with the better thin-line score is kept when it beats the fit's by
    ``thin_refit_gain``, with no more doubted crossings and its mountains separating about as
    clearly (``thin_refit_mountains``; its doubt and line score alone are no proof: under marker
    symbols a lattice off by half a cell scores as well).
    """
    pts, finishing = now.points, tuning.finish
    hom = homography_from_intersections(pts)
    disp = _field(pts, np.linalg.inv(hom))
    disp -= ideal_intersections()
    for search in (0.3, 0.15, 0.15):
        refined = refine(
            darkest, hom, PX, disp, search, kernel_u=THIN_KERNEL_U, peaks_only=peaks_only
        )
        disp = refined.disp
    refits = [Crossings(refined.points, refined.disp, refined.doubt())]
    fitted = thin_line_fit(darkest, hom, tuning.line_fit)
    if fitted is not None:
        disp = np.zeros((LINES, LINES, 2))
        for _ in range(finishing.final_passes):
            refined = refine(darkest, fitted, PX, disp, 0.15, peaks_only=peaks_only)
            disp = refined.disp
        refits.append(Crossings(refined.points, refined.disp, refined.doubt()))
    score, best = max(((thin_line_score(darkest, r.points), r) for r in refits), key=lambda t: t[0])
    if (
        score < finishing.thin_refit_gain * thin_line_score(darkest, pts)
        or best.doubted > now.doubted
        or mountain_separation(image, best.points)
        < mountain_separation(image, pts) - finishing.thin_refit_mountains
    ):
        return None
    return best


def side_pulls(tuning: FinishTuning) -> list[tuple[int, np.ndarray]]:
    """The hypotheses of :func:`side_pulled`: (coordinate, (12, 12) pull in u) for each side
    pulled in along its whole length or towards one of its two corners (a curled corner)."""
    taper = np.clip(1 - np.arange(LINES) / tuning.side_pull_lines, 0, None) * tuning.side_pull_u
    ramp = np.arange(LINES) / GRID
    pulls = []
    for inward, sign in ((taper, 1.0), (taper[::-1], -1.0)):  # the side at 0 is pulled towards +u
        for along in (np.ones(LINES), ramp, ramp[::-1]):
            pulls.append((1, sign * inward[:, None] * along[None, :]))  # a first or last row in y
            pulls.append((0, sign * inward[None, :] * along[:, None]))  # first or last column in x
    return pulls


def side_pulled(
    image: np.ndarray,
    darkest: np.ndarray,
    now: Crossings,
    tuning: FinishTuning,
    *,
    peaks_only: bool = False,
) -> Crossings | None:
    """The lattice with one side pulled in by a line, if it fits the printed lines clearly better.

    Curled, bowed or folded paper bends most at its border; where the found lattice stretches an
    extra line over the last few columns (or rows) of one side, the outer ring ends on the table
    beyond the frame and every snap there lands on the neighbouring printed line, so the snaps
    agree with the wrong field. Each side (or one half of it) with a doubted crossing within its
    outer two lines (pulled ``side_pull_near`` of the way or more) is tried pulled in by
    ``side_pull_u``, tapering over ``side_pull_lines`` lines (:func:`side_pulls`), and snapped
    again (±0.3 u, then ±0.15 u). The best is kept when its thin-line score (marker strokes do not
    count) beats the fit's by ``side_pull_gain`` — or by the first of
    ``side_pull_gain_confirmed`` with its lattice score beating the fit's by the second (a bowed
    sheet on gingham, whose table stripes beyond the frame the thin lines half believe) — and its
    mountains separate no less clearly (its doubt is no test: the overshot lattice's snaps agree
    with it as well).
    """
    pts = now.points
    near = tuning.side_pull_near * tuning.side_pull_u
    pulls = [
        (axis, pull)
        for axis, pull in side_pulls(tuning)
        if ((now.doubt > DOUBT_U) & (np.abs(pull) >= near)).any()
    ]
    if not pulls:
        return None
    hom = homography_from_intersections(pts)
    field = _field(pts, np.linalg.inv(hom))
    field -= ideal_intersections()
    thin_gain, lattice_gain = tuning.side_pull_gain_confirmed
    fit_thin = thin_line_score(darkest, pts)
    best, best_score = None, thin_gain * fit_thin
    for axis, pull in pulls:
        prior = field.copy()
        prior[..., axis] += pull
        for search in (0.3, 0.15):
            refined = refine(darkest, hom, PX, prior, search, peaks_only=peaks_only)
            prior = refined.disp
        score = thin_line_score(darkest, refined.points)
        if score > best_score:
            best, best_score = Crossings(refined.points, refined.disp, refined.doubt()), score
    if best is None or mountain_separation(image, best.points) < mountain_separation(image, pts):
        return None
    if best_score <= tuning.side_pull_gain * fit_thin and lattice_score(
        darkest, best.points
    ) <= lattice_gain * lattice_score(darkest, pts):
        return None
    return best
