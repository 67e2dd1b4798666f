"""Candidate lattices: refining each hypothesis, checking it, and choosing the user's sheet.

A hypothesis (a u → photo homography from an outline) is refined (:func:`vision.grid.snap.
refine_coarse_to_fine`) and checked (:func:`accepted`, the mountains' likeness); those that pass
are :class:`Candidate`\\ s, those that fail are kept as :class:`FailedLattice`\\ s for the thin-line
rescue. :func:`choose` picks the user's sheet among the passing ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from vision.grid.profiles import (
    frame_shown,
    lattice_score,
    likeness_settles,
    mountain_separation,
    share_inside,
)
from vision.grid.snap import Placed, refine_coarse_to_fine
from vision.grid.tuning import AcceptTuning
from vision.lattice import area_corners, lattice_points


@dataclass
class Candidate:
    """A lattice that passed the checks, in the searched image's pixels."""

    homography: np.ndarray  # u → image px
    disp: np.ndarray  # (12, 12, 2) u, local corrections on top of it
    score: float
    separation: float  # mountain separation (vision.orient)
    corners: np.ndarray  # (4, 2) image px of the refined cell area
    inside: float = 1.0  # share of its cells inside the photo (:func:`share_inside`)
    refined: bool = True  # False: an outline taken as it was (vision.grid.rescue.outline_rescued)
    #: its four outer lines lie on printed lines (:func:`vision.grid.profiles.frame_shown`)
    framed: bool = True

    @property
    def area(self) -> float:
        return float(cv2.contourArea(self.corners.astype(np.float32)))

    @property
    def shown_area(self) -> float:
        """The part of the cell area inside the photo, px²."""
        return self.area * self.inside

    @property
    def rank(self) -> float:
        """Which sheet: lattice area inside the photo × (lattice score + 2 × mountain separation).

        A sheet cut off by the photo's edge counts only what shows: the crossings beyond the frame
        are extrapolated, and can be neither checked nor read.
        """
        return self.shown_area * (min(self.score, 2.0) + 2 * max(self.separation, 0.0))

    def scaled(self, factor: float) -> Candidate:
        """The same candidate in a photo ``factor`` times larger (homography and corners)."""
        to_large = np.diag([factor, factor, 1.0])
        return replace(self, homography=to_large @ self.homography, corners=self.corners * factor)

    @property
    def quality(self) -> float:
        """Which placement of one sheet: the uncapped lattice score + 2 × mountain separation."""
        return self.score + 2 * self.separation

    def overlaps(self, other: Candidate) -> bool:
        """Both candidates place the same sheet (each one's centre inside the other's cell area)."""
        a = self.corners.astype(np.float32).reshape(-1, 1, 2)
        b = other.corners.astype(np.float32).reshape(-1, 1, 2)
        ca = tuple(float(v) for v in self.corners.mean(axis=0))
        cb = tuple(float(v) for v in other.corners.mean(axis=0))
        return cv2.pointPolygonTest(a, cb, False) > 0 and cv2.pointPolygonTest(b, ca, False) > 0


@dataclass(frozen=True, eq=False)
class FailedLattice:
    """A refined lattice that failed the checks: judged again by the thin-line rescue."""

    homography: np.ndarray  # u → image px
    intersections: np.ndarray  # (12, 12, 2) image px
    disp: np.ndarray  # (12, 12, 2) u
    strict: bool  # from a fallback source: the mountains must confirm it clearly
    outline: np.ndarray | None = None  # u → image px: the hypothesis before it was refined

    def enlarged(self, shrink: float) -> FailedLattice:
        """The same lattice in the photo the searched image was shrunk from by ``shrink``."""
        to_full = np.diag([1.0 / shrink, 1.0 / shrink, 1.0])
        return replace(
            self,
            homography=to_full @ self.homography,
            intersections=self.intersections / shrink,
            outline=None if self.outline is None else to_full @ self.outline,
        )


@dataclass
class Checked:
    """What a search made of its hypotheses: the candidates that passed, the lattices that
    failed."""

    passing: list[Candidate] = field(default_factory=list)
    failed: list[FailedLattice] = field(default_factory=list)

    def add(self, other: Checked) -> None:
        self.passing += other.passing
        self.failed += other.failed


def accepted(score: float, separation: float, tuning: AcceptTuning) -> bool:
    """The explicit lattice checks: printed lines, and the five mountains on whole cells.

    A clear lattice (``min_line_contrast``) needs the mountains not to contradict it; a faint one
    (thick marker strokes) needs them to confirm it; lines drowned in colour shading or washed out
    (``faint_line_contrast``) are accepted only when the mountains stand out clearly.
    """
    if separation < 0:
        return False  # the five mountains must be the darkest cells: no lattice off by a cell
    if score >= tuning.min_line_contrast:
        return True
    if score >= tuning.weak_line_contrast:
        return separation >= tuning.mountain_confirms
    return score >= tuning.faint_line_contrast and separation >= tuning.mountains_carry


def choose(passing: list[Candidate]) -> Candidate | None:
    """The user's sheet (largest rank), placed by its best-quality candidate.

    Hypotheses from one quad (cell area, frame outer line, re-anchored) overlap; one with a
    corner a cell too far out has the larger area but fewer lines on the lattice, so among
    candidates of the same sheet the quality decides, not the area; among those whose outer lines
    lie on the frame (:attr:`Candidate.framed`) when there are any (on a printer-friendly sheet a
    placement a cell over scores its lines as well, and its mountains say nothing).
    """
    if not passing:
        return None
    sheet = max(passing, key=lambda c: c.rank)
    same = [c for c in passing if c is sheet or c.overlaps(sheet)]
    same = [c for c in same if c.framed] or same
    return max(same, key=lambda c: c.quality)


def cannot_win(quad: np.ndarray, best: Candidate, tuning: AcceptTuning) -> bool:
    """Whether checking ``quad`` can be skipped once ``best`` passed clearly (saves time only).

    A quad around the same sheet would only re-place it, and ``best`` is already a clear lattice
    with clear mountains; a different sheet under 0.4 of its area inside the photo cannot outrank
    it (its rank factor is at most 2 + 2 × 1, ``best``'s at least 1.2 + 2 × 0.3). Anything else is
    checked.
    """
    if best.score < tuning.min_line_contrast or best.separation < tuning.mountains_carry:
        return False
    centre = tuple(float(v) for v in quad.mean(axis=0))
    if cv2.pointPolygonTest(best.corners.astype(np.float32).reshape(-1, 1, 2), centre, False) > 0:
        return True
    return cv2.contourArea(quad.astype(np.float32)) < 0.4 * best.shown_area


def check_hypotheses(
    small: np.ndarray,
    darkest: np.ndarray,
    hypotheses: list[np.ndarray],
    tuning: AcceptTuning,
    strict: bool = False,
    clear_lines: float = np.inf,
) -> Checked:
    """Refine each u → small-image homography locally and check it (:func:`accepted`).

    ``strict`` (the fallback sources, whose outlines are further from the grid): the mountains
    must confirm the lattice clearly (``mountains_carry``) whatever its line score, and the lines
    must not be faint; a wrong outline refined into a lattice stretched over a few cells can still
    show lines. A lattice at least ``clear_lines`` clear (the segment source, whose quads lie on
    the frame's own sides) passes strict with the mountains showing at least
    ``segment_mountains`` (and never contradicting it).

    A refinement whose lines are faint (under ``min_line_contrast``) and score lower than the
    hypothesis's own is not kept: the hypothesis is checked as it was. Where the dashed lines are
    faint beside marker symbols (the publisher's colour side B, a grey photocopy), each pass's
    snaps can pull the lattice a search width towards the symbols, and three passes walk an
    outline that lay on the lines (0.03 u) half a cell off; the finish, searching 0.15 u, cannot
    bring it back. Clear lines keep their refinement: a marker-filled sheet's outline can score
    higher than its refinement while lying 0.6 u off.
    """
    out = Checked()
    for hom in hypotheses:
        placed = refine_coarse_to_fine(darkest, hom)
        pts = placed.points
        score = lattice_score(darkest, pts)
        if score < tuning.min_line_contrast:  # faint lines: the snaps may have walked it off
            as_found = lattice_points(hom)
            score_as_found = lattice_score(darkest, as_found)
            if score_as_found > score:
                placed = Placed(hom, as_found, np.zeros_like(placed.disp))
                pts, score = as_found, score_as_found
        faint = score < tuning.faint_line_contrast
        separation = None if faint else mountain_separation(small, pts)
        if separation is None or not (
            _darkness_passes(score, separation, strict, clear_lines, tuning)
            or _likeness_passes(small, pts, score, strict, tuning)
        ):
            out.failed.append(FailedLattice(placed.homography, pts, placed.disp, strict, hom))
            continue
        out.passing.append(
            Candidate(
                placed.homography,
                placed.disp,
                score,
                separation,
                area_corners(pts),
                share_inside(pts, small.shape),
                framed=frame_shown(darkest, placed.homography),
            )
        )
    return out


def _darkness_passes(
    score: float, separation: float, strict: bool, clear_lines: float, tuning: AcceptTuning
) -> bool:
    """The line score and the mountains' darkness pass :func:`check_hypotheses`'s checks."""
    if not accepted(score, separation, tuning):
        return False
    if not strict:
        return True
    return (separation >= tuning.mountains_carry and score >= tuning.weak_line_contrast) or (
        score >= clear_lines and separation >= tuning.segment_mountains
    )


def _likeness_passes(
    image: np.ndarray, pts: np.ndarray, score: float, strict: bool, tuning: AcceptTuning
) -> bool:
    """Lines clear enough (a strict source's: ``min_line_contrast``) and the mountains' likeness
    settling the layout (:func:`likeness_settles`): a printing whose mountains are not dark."""
    lines = tuning.min_line_contrast if strict else tuning.weak_line_contrast
    return score >= lines and likeness_settles(image, pts)
