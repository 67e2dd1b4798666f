"""The grid search as a sequence of passes, cheapest first (:data:`GRID_PASSES`).

Each pass sees the photo, the lattice found so far and every lattice the earlier passes refined
but refused; it returns the lattice found now and the lattices it refused. A search pass runs only
while nothing is found (:class:`Search`); then the refused lattices are judged again, on thin lines
(:class:`ThinLineRescue`) and, when still nothing is found, by their mountains' likeness, then as
their outlines were before refinement (:class:`LastResort`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import cv2
import numpy as np

from vision.grid.candidates import (
    Candidate,
    Checked,
    FailedLattice,
    cannot_win,
    check_hypotheses,
    choose,
)
from vision.grid.profiles import lattice_fit, mountain_separation
from vision.grid.quads import outline_fallbacks, quad_candidates, quad_hypotheses
from vision.grid.rescue import likeness_rescued, outline_rescued, rescued, rivals
from vision.grid.segments import segment_quads
from vision.grid.tuning import GridTuning
from vision.lattice import lattice_points, line_image


@dataclass(frozen=True)
class SearchImage:
    """The photo shrunk to a search size, and the images every check there reads."""

    small: np.ndarray  # BGR
    gray: np.ndarray
    darkest: np.ndarray  # :func:`vision.lattice.line_image`
    shrink: float  # small = photo × shrink

    @classmethod
    def of(cls, image: np.ndarray, long_side: int) -> SearchImage:
        h, w = image.shape[:2]
        shrink = min(1.0, long_side / max(h, w))
        small = (
            image
            if shrink >= 1
            else cv2.resize(image, (int(w * shrink), int(h * shrink)), interpolation=cv2.INTER_AREA)
        )
        return cls(small, cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), line_image(small), shrink)


@dataclass(frozen=True)
class Source:
    """Hypotheses (u → image homographies) from one outline; ``quad``: the outline, if a quad."""

    homographies: list[np.ndarray]
    clear_lines: float = np.inf  # see :func:`vision.grid.candidates.check_hypotheses`
    quad: np.ndarray | None = None


def prechecked(view: SearchImage, sources: list[Source], tuning: GridTuning) -> list[Source]:
    """The sources whose first hypothesis passes the pre-check (:func:`lattice_fit`), each with
    the re-anchored one added, best contrast first."""
    out = []
    for source in sources:
        fit = lattice_fit(view.darkest, source.homographies[0])
        if fit.contrast >= tuning.search.precheck_contrast:
            out.append(
                (
                    fit.contrast,
                    Source(source.homographies + [fit.homography], source.clear_lines, source.quad),
                )
            )
    return [source for _, source in sorted(out, key=lambda t: -t[0])]


def by_mountains(
    view: SearchImage, sources: list[Source], count: int, least: float
) -> list[Source]:
    """The ``count`` sources on whose outline (the first hypothesis, as it was found: the
    re-anchored one slides off where the lines barely show) the five mountains stand out most
    clearly (:func:`mountain_separation`, at least ``least``), clearest first: a second ranking
    beside the pre-check's line contrast, for sheets whose dashed lines barely show."""
    if count <= 0:
        return []
    scored = []
    for k, source in enumerate(sources):
        separation = mountain_separation(view.small, lattice_points(source.homographies[0]))
        if separation >= least:
            scored.append((-separation, k))
    return [sources[k] for _, k in sorted(scored)[:count]]


def frame_outlines(view: SearchImage, tuning: GridTuning, bridged: bool = True) -> Checked:
    """The first source: quads of the dark printed frame (:func:`quad_candidates`), each as the
    cell area, the frame band's outer line and re-anchored on the dashed lines; the best
    ``max_refined`` by pre-check are refined and checked."""
    sources = [
        Source(quad_hypotheses(quad), quad=quad)
        for quad in quad_candidates(view.gray, bridged=bridged)
    ]
    out = Checked()
    for source in prechecked(view, sources, tuning)[: tuning.search.max_refined]:
        if out.passing and cannot_win(source.quad, choose(out.passing), tuning.accept):
            continue
        out.add(check_hypotheses(view.small, view.darkest, source.homographies, tuning.accept))
    return out


def unbridged_frame_outlines(view: SearchImage, tuning: GridTuning) -> Checked:
    """The frame outlines of the undilated mask (:func:`frame_outlines`, not bridged), last, when
    no source found anything: a thin frame line that the dilation joins to the printing close
    beside it (the printer-friendly sheet's coin track and page border), or a steep photo's frame
    band whose dilated outline lies 0.6 u and more off the grid where the undilated one lies
    0.1–0.2 u off. Last, so every sheet found before is found as before."""
    return frame_outlines(view, tuning, bridged=False)


@dataclass(frozen=True)
class FallbackOutlines:
    """The second and third sources, for frames no clean contour outlines; strict checks.

    ``outlines``: corner choices among a merged contour's corners and the paper's outline
    (:func:`outline_fallbacks`); ``segments``: quads of the long straight segments
    (:func:`segment_quads`). The best ``fallback_refined`` by pre-check are refined, and of the
    rest the ``fallback_by_mountains`` best by their mountains (:func:`by_mountains`); only when
    none passes, the late segment quads, on a budget of their own (their failures are not
    rescued).
    """

    outlines: bool = True
    segments: bool = True

    def __call__(self, view: SearchImage, tuning: GridTuning) -> Checked:
        search, clear = tuning.search, tuning.accept.segment_clear_lines
        quads = segment_quads(view.gray, search) if self.segments else None
        sources = [Source(h) for h in outline_fallbacks(view.gray)] if self.outlines else []
        if quads is not None:
            sources += [Source(quad_hypotheses(q), clear) for q in quads.usual]
        ranked = prechecked(view, sources, tuning)
        chosen = ranked[: search.fallback_refined] + by_mountains(
            view,
            ranked[search.fallback_refined :],
            search.fallback_by_mountains,
            tuning.accept.segment_mountains,
        )
        out = Checked()
        for source in chosen:
            out.add(self._checked(view, source, tuning))
        if not out.passing and quads is not None:
            late = prechecked(view, [Source(quad_hypotheses(q), clear) for q in quads.late], tuning)
            for source in late[: search.segment_late_refined]:
                out.passing += self._checked(view, source, tuning).passing
        return out

    @staticmethod
    def _checked(view: SearchImage, source: Source, tuning: GridTuning) -> Checked:
        return check_hypotheses(
            view.small,
            view.darkest,
            source.homographies,
            tuning.accept,
            strict=True,
            clear_lines=source.clear_lines,
        )


@dataclass(frozen=True)
class PassResult:
    """What a pass leaves: the lattice found so far (full-photo pixels) and the lattices it
    refined and refused (for the rescue)."""

    found: Candidate | None
    failed: list[FailedLattice] = field(default_factory=list)


class GridPass(Protocol):
    """One step of the grid search."""

    name: str

    def wanted(self, image: np.ndarray, found: Candidate | None, tuning: GridTuning) -> bool: ...

    def run(
        self,
        image: np.ndarray,
        found: Candidate | None,
        failed: Sequence[FailedLattice],
        tuning: GridTuning,
    ) -> PassResult: ...


@dataclass(frozen=True)
class Search:
    """A candidate search at one size, while nothing is found: the photo shrunk to ``long_side``
    (``retry``: to ``long_side_retry``, and only when the photo is larger than ``long_side``: a
    sheet small in the frame has cells of a dozen pixels at the first)."""

    name: str
    candidates: Callable[[SearchImage, GridTuning], Checked]
    retry: bool = False

    def wanted(self, image: np.ndarray, found: Candidate | None, tuning: GridTuning) -> bool:
        return found is None and (not self.retry or max(image.shape[:2]) > tuning.search.long_side)

    def run(
        self,
        image: np.ndarray,
        found: Candidate | None,
        failed: Sequence[FailedLattice],
        tuning: GridTuning,
    ) -> PassResult:
        size = tuning.search.long_side_retry if self.retry else tuning.search.long_side
        view = SearchImage.of(image, size)
        checked = self.candidates(view, tuning)
        best = choose(checked.passing)
        return PassResult(
            None if best is None else best.scaled(1.0 / view.shrink),
            [lattice.enlarged(view.shrink) for lattice in checked.failed],
        )


@dataclass(frozen=True)
class ThinLineRescue:
    """The refused lattices judged on thin lines only (:func:`rescued`): all of them when nothing
    was found; else those of another sheet that could outrank the found one (:func:`rivals`: the
    user's marker-filled sheet failing beside a blank one lying next to it), the rank deciding."""

    name: str = "thin-line rescue"

    def wanted(self, image: np.ndarray, found: Candidate | None, tuning: GridTuning) -> bool:
        return True

    def run(
        self,
        image: np.ndarray,
        found: Candidate | None,
        failed: Sequence[FailedLattice],
        tuning: GridTuning,
    ) -> PassResult:
        if found is None:
            return PassResult(rescued(image, list(failed), tuning))
        others = rivals(found, list(failed), image.shape, tuning.rescue.rival_factor)
        if others:
            rescue = rescued(image, others, tuning)
            if rescue is not None and rescue.rank > found.rank:
                return PassResult(rescue)
        return PassResult(found)


@dataclass(frozen=True)
class LastResort:
    """When nothing was found, the refused lattices judged once more by ``judge``:
    :func:`likeness_rescued` (faint dashed lines, mountains crowded by dark shading, but printed
    alike) or :func:`outline_rescued` (steep or bowed sheets whose faint lines the refinement lost,
    taken as their outline was, on their mountains alone)."""

    name: str
    judge: Callable[[np.ndarray, list[FailedLattice], GridTuning], Candidate | None]

    def wanted(self, image: np.ndarray, found: Candidate | None, tuning: GridTuning) -> bool:
        return found is None

    def run(
        self,
        image: np.ndarray,
        found: Candidate | None,
        failed: Sequence[FailedLattice],
        tuning: GridTuning,
    ) -> PassResult:
        return PassResult(self.judge(image, list(failed), tuning))


#: the grid search, cheapest first: the slower sources run only when the cheaper found nothing
GRID_PASSES: tuple[GridPass, ...] = (
    Search("frame outlines", frame_outlines),
    Search("frame outlines, larger", frame_outlines, retry=True),
    Search("fallback outlines", FallbackOutlines()),
    Search("fallback outlines, larger", FallbackOutlines(), retry=True),
    ThinLineRescue(),
    LastResort("likeness rescue", likeness_rescued),
    LastResort("outline rescue", outline_rescued),
    Search("unbridged frame outlines", unbridged_frame_outlines),
)


def find_lattice(
    image: np.ndarray, tuning: GridTuning, passes: Sequence[GridPass] = GRID_PASSES
) -> Candidate | None:
    """The lattice the passes find in a decoded photo (full-photo pixels), or ``None``."""
    found: Candidate | None = None
    failed: list[FailedLattice] = []
    for grid_pass in passes:
        if grid_pass.wanted(image, found, tuning):
            result = grid_pass.run(image, found, tuple(failed), tuning)
            found = result.found
            failed += result.failed
    return found
