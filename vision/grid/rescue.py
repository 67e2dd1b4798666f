"""The thin-line rescue: failed lattices judged again on the thin printed lines only.

Sheets crowded with marker symbols fail :func:`vision.grid.profiles.lattice_score`, and their thick
strokes pull the candidates' snaps up to half a cell off. :func:`rescued` judges the most promising
failed lattices (:func:`most_promising`) on thin lines (:func:`vision.grid.profiles.
thin_line_score`), each also refined again on thin lines and re-fitted as a whole to them
(:func:`vision.grid.linefit.thin_line_fit`); :func:`rivals` are the failed lattices of another
sheet than the found one that could outrank it.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.grid.candidates import Candidate, FailedLattice, accepted, choose
from vision.grid.linefit import thin_line_fit
from vision.grid.profiles import (
    THIN_KERNEL_U,
    THIN_PX,
    glyph_settles,
    lattice_score,
    likeness_margin_at,
    likeness_settles,
    mountain_separation,
    share_inside,
    thin_line_score,
)
from vision.grid.quads import is_new_quad
from vision.grid.snap import refine_coarse_to_fine
from vision.grid.tuning import GridTuning
from vision.lattice import area_corners, lattice_points, line_image


@dataclass(frozen=True)
class _Scored:
    """A placement of a failed lattice and its thin-line score."""

    score: float
    lattice: FailedLattice


def rescued(image: np.ndarray, failed: list[FailedLattice], tuning: GridTuning) -> Candidate | None:
    """The best failed lattice whose lattice stands out on thin lines, or ``None``.

    The same checks apply with the thin-line score in place of the line score (:func:`accepted`:
    mountains never darker elsewhere, i.e. no lattice off by a cell; a weak lattice needs them to
    confirm it), but no faint one (under ``weak_line_contrast``) is rescued, and the fallback
    sources still need the mountains to confirm clearly. Glare that washes the mountains' darkness
    out (separation 0) leaves their printed glyph: a lattice on which the glyph alone settles side,
    turn and shift (:func:`glyph_settles`) needs no darkness, and without darkness nothing else
    will do.
    """
    check = tuning.accept
    passing: list[Candidate] = []
    for placed in _thin_placements(image, failed, tuning)[: tuning.rescue.max_rescued]:
        if placed.score < check.weak_line_contrast:
            break
        lattice, pts = placed.lattice, placed.lattice.intersections
        separation = mountain_separation(image, pts)
        # all cells equally light (separation 0) says nothing about a one-cell shift: the glyph must
        darkness_ok = (
            separation > 0
            and accepted(placed.score, separation, check)
            and not (lattice.strict and separation < check.mountains_carry)
        )
        if not darkness_ok and not glyph_settles(image, pts) and not likeness_settles(image, pts):
            continue
        passing.append(
            Candidate(
                lattice.homography,
                lattice.disp,
                placed.score,
                max(separation, 0.0),
                area_corners(pts),
                share_inside(pts, image.shape),
            )
        )
    return choose(passing)


def _thin_placements(
    image: np.ndarray, failed: list[FailedLattice], tuning: GridTuning
) -> list[_Scored]:
    """Each promising failed lattice as it is, re-fitted to the thin lines in strips, and — when
    either already shows thin lines (``refine_from``) — refined again on thin lines only (snaps on
    a ``THIN_KERNEL_U`` black-hat at ``THIN_PX``); best thin-line score first."""
    out: list[_Scored] = []
    darkest = line_image(image)
    for lattice in most_promising(image, darkest, failed, tuning.rescue.max_lattices):
        shown = thin_line_score(darkest, lattice.intersections)
        out.append(_Scored(shown, lattice))
        fitted = thin_line_fit(darkest, lattice.homography, tuning.line_fit)
        if fitted is not None:
            pts_fit = lattice_points(fitted)
            zero = np.zeros_like(lattice.disp)
            out.append(
                _Scored(
                    thin_line_score(darkest, pts_fit),
                    FailedLattice(fitted, pts_fit, zero, lattice.strict),
                )
            )
            shown = max(shown, out[-1].score)
        if shown >= tuning.rescue.refine_from:  # no lines in sight: a refinement finds none either
            placed = refine_coarse_to_fine(darkest, lattice.homography, THIN_PX, THIN_KERNEL_U)
            out.append(
                _Scored(
                    thin_line_score(darkest, placed.points),
                    FailedLattice(placed.homography, placed.points, placed.disp, lattice.strict),
                )
            )
    out.sort(key=lambda t: -t.score)
    return out


def most_promising(
    image: np.ndarray, darkest: np.ndarray, failed: list[FailedLattice], count: int
) -> list[FailedLattice]:
    """The distinct failed lattices that came closest: the ``count`` best on thin lines at half
    the resolution (:func:`thin_line_score` at ``THIN_PX // 2``, a quarter of the pixels) and the
    ``count`` best by lattice score + 2 × mountain separation (lines hidden under strokes, but the
    mountains on their cells, not contradicted); ``darkest`` is the photo's :func:`line_image`."""
    distinct: list[np.ndarray] = []
    rows = []
    for lattice in failed:
        pts = lattice.intersections
        corners = area_corners(pts)
        if is_new_quad(corners, distinct):
            distinct.append(corners)
            near = lattice_score(darkest, pts) + 2 * mountain_separation(image, pts)
            rows.append((thin_line_score(darkest, pts, THIN_PX // 2), near, lattice))
    by_thin = sorted(range(len(rows)), key=lambda k: -rows[k][0])[:count]
    by_lattice = sorted(range(len(rows)), key=lambda k: -rows[k][1])[:count]
    return [rows[k][2] for k in dict.fromkeys(by_thin + by_lattice)]


def rivals(
    found: Candidate, failed: list[FailedLattice], shape: tuple[int, ...], rival_factor: float
) -> list[FailedLattice]:
    """The failed lattices of another sheet than ``found`` (neither's centre inside the other's
    cell area) whose area inside the photo × ``rival_factor`` could outrank it."""
    outline = found.corners.astype(np.float32).reshape(-1, 1, 2)
    centre = tuple(float(v) for v in found.corners.mean(axis=0))
    out = []
    for lattice in failed:
        corners = area_corners(lattice.intersections)
        shown = cv2.contourArea(corners.astype(np.float32)) * share_inside(
            lattice.intersections, shape
        )
        if shown * rival_factor <= found.rank:
            continue
        mid = tuple(float(v) for v in corners.mean(axis=0))
        if (
            cv2.pointPolygonTest(outline, mid, False) <= 0
            and cv2.pointPolygonTest(corners.astype(np.float32).reshape(-1, 1, 2), centre, False)
            <= 0
        ):
            out.append(lattice)
    return out


def likeness_rescued(
    image: np.ndarray, failed: list[FailedLattice], tuning: GridTuning
) -> Candidate | None:
    """The best failed lattice from a frame outline whose lines show at least faintly
    (``faint_line_contrast`` on the photo shrunk to the search size) and whose five mountains look
    alike by ``likeness_carries``: dashed lines too faint for the line checks, mountains too
    crowded by dark shading to stand out by darkness, but printed alike."""
    check = tuning.accept
    shrink = min(1.0, tuning.search.long_side / max(image.shape[:2]))
    small = cv2.resize(image, None, fx=shrink, fy=shrink, interpolation=cv2.INTER_AREA)
    darkest = line_image(small)
    passing: list[Candidate] = []
    for lattice in failed:
        if lattice.strict:
            continue
        pts = lattice.intersections
        score = lattice_score(darkest, pts * shrink)
        if score < check.faint_line_contrast:
            continue
        if likeness_margin_at(image, pts) < check.likeness_carries:
            continue
        passing.append(
            Candidate(
                lattice.homography,
                lattice.disp,
                score,
                max(mountain_separation(image, pts), 0.0),
                area_corners(pts),
                share_inside(pts, image.shape),
            )
        )
    return choose(passing)


def outline_rescued(
    image: np.ndarray, failed: list[FailedLattice], tuning: GridTuning
) -> Candidate | None:
    """The best outline, as it was before its refinement, on whose cells the five mountains stand
    out clearly (``outline_mountains``): a sheet seen so steeply, or bowed so far, that its faint
    dashed lines vanish and the local refinement snaps onto the drawn symbols instead."""
    check = tuning.accept
    passing: list[Candidate] = []
    seen: set[bytes] = set()
    for lattice in failed:
        if lattice.outline is None:
            continue
        pts = lattice_points(lattice.outline)
        corners = area_corners(pts)
        # only the very same outline is skipped (the searches at one size meet the same quads): two
        # within a few per cent of each other differ in whether the mountains fall on whole cells
        key = np.round(corners, 1).tobytes()
        if key in seen:
            continue
        seen.add(key)
        separation = mountain_separation(image, pts)
        if separation < check.outline_mountains:
            continue
        passing.append(
            Candidate(
                lattice.outline,
                np.zeros_like(lattice.disp),
                0.0,
                separation,
                corners,
                share_inside(pts, image.shape),
                refined=False,
            )
        )
    return choose(passing)
