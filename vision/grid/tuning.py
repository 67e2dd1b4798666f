"""The grid finder's thresholds and budgets, one frozen dataclass per stage.

Every stage takes its tuning as an argument; :class:`GridTuning` bundles them, and its defaults are
the shipped values. The numbers behind each value are in docs/reader.md ("Find", "Rectify").
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class SearchTuning:
    """Where the candidate search looks, and how many candidates it can afford to refine."""

    long_side: int = 1000  # candidate search runs on the photo shrunk to this long side
    long_side_retry: int = 1800  # …and once more at this size when nothing was found
    max_refined: int = 8  # frame outlines refined per search, best pre-check first
    precheck_contrast: float = 1.1  # global line/mid-cell profile ratio a candidate needs
    #: second-source outlines refined per fallback search, best pre-check first: each costs 3–4
    #: refinements (a no-grid photo runs both searches); 4 lost a photo whose grid came from its
    #: 5th–8th outline
    fallback_refined: int = 8
    #: … and beyond them this many more, the best by how clearly the five mountains stand out on
    #: their outline as found (:func:`vision.grid.search.by_mountains`): seen steeply (tilt over
    #: 25°), the colour sheet's faint dashed lines rank the outline nearest the grid 9th–35th by
    #: pre-check, behind segment quads along the coin track and season boxes, yet 1st or 2nd by its
    #: mountains
    fallback_by_mountains: int = 2
    #: of the long side: a frame side's straight segment (the dashed lines' are shorter)
    segment_min_length: float = 0.04
    segment_lines: int = 6  # strongest merged lines per direction whose pairs make quads
    segment_quads: int = 16  # quads (by the length of their four lines) pre-checked
    #: tried last, only when nothing else passes at that size: quads that use the 7th or 8th longest
    #: line of a direction (a frame side the coin track's and the season boxes' longer sides
    #: outrank: fresh photo 51400183), the best ``segment_late_quads`` by length pre-checked and
    #: ``segment_late_refined`` of them refined (not offered to the rescue). Mixed in with the usual
    #: quads they pushed dev 7's 50700140 out of the refined ones.
    segment_lines_late: int = 8
    segment_late_quads: int = 8
    segment_late_refined: int = 2


@dataclass(frozen=True)
class AcceptTuning:
    """When a refined lattice counts as the printed grid: its lines and its five mountains."""

    min_line_contrast: float = 1.2  # line/between-line ratio × share of lines standing out
    weak_line_contrast: float = 0.8  # a lattice this faint needs the mountains to confirm it
    mountain_confirms: float = 0.25  # mountain separation (vision.orient) that confirms it
    faint_line_contrast: float = 0.2  # lines drowned in colour shading: accepted only when …
    mountains_carry: float = 0.3  # … the five mountains separate at least this clearly
    #: a segment quad's lattice this clear (a wrong long line, e.g. the coin track's, gives a
    #: lattice a cell off with a score of 1.3) needs the mountains to show only a little
    #: (``segment_mountains``), not clearly
    segment_clear_lines: float = 2.0
    segment_mountains: float = 0.03
    #: faint lines (at least ``faint_line_contrast``) from a frame outline pass when the five
    #: mountains look this much more alike than any other layout's or shift's: 0.69–0.75 where
    #: the publisher's colour sheet's faint dashed lines failed, at most 0.29 on lattices off
    likeness_carries: float = 0.5
    #: an outline taken as it is, unrefined, when nothing else passed: its five mountains must
    #: stand out this clearly (0.11–0.28 on publisher's colour sheets whose refinement was lost,
    #: each outline right; the rescue runs only where every other pass failed)
    outline_mountains: float = 0.1


@dataclass(frozen=True)
class RescueTuning:
    """How much of the failed candidates the thin-line rescue judges again."""

    max_rescued: int = 12  # best thin-line candidates whose mountains are then checked
    #: distinct failed candidates refined again, the best this many by each of two rankings:
    #: bounds a no-grid photo's time (a photo reached the rescue with up to 96 failed candidates,
    #: 45–87 of them distinct, and took 9–17 s)
    max_lattices: int = 8
    #: a promising candidate is refined again on thin lines only when it already shows them this
    #: clearly, as it is or re-fitted to the strips: every rescue won by a refinement on the dev and
    #: benchmark photos started at 0.92 or more; on table photos without a sheet none reached 0.66
    refine_from: float = 0.75
    #: a failed lattice apart from the found one is rescued when its area inside the photo × this
    #: could outrank the found one (a rescued rank factor is its thin-line score, capped at 2, + 2 ×
    #: mountain separation, small on the sheets that fail the usual check): 2 kept every result of
    #: 3 on 95 photos, with 40 % fewer rescues
    rival_factor: float = 2.0


@dataclass(frozen=True)
class LineFitTuning:
    """The whole-line fit to thin printed lines (rescue and thin-line refit)."""

    #: each pass looks for every line this far from where the last put it
    search_u: tuple[float, ...] = (0.45, 0.3, 0.2, 0.15)
    #: a strip's line further than this from the fitted lattice is left out of the next fit
    outlier_u: float = 0.12
    #: share of the strip measurements a pass must keep on its fitted lattice: a candidate on the
    #: sheet's lines kept 0.72–0.91 after the first pass on dev photos, most wrong ones 0.3–0.65
    min_kept: float = 0.65


@dataclass(frozen=True)
class FinishTuning:
    """The final refinement of a found lattice and its corrections where crossings are in doubt."""

    final_passes: int = 2  # a second pass reaches a frame corner the first one bent towards
    #: crossings under this doubt re-anchor the homography (each tried) …
    sure_u: tuple[float, ...] = (0.04, 0.05, 0.07)
    min_sure: int = 48  # … when there are at least this many of them; when none of those is kept …
    #: … with this many (the rest of the sheet slid a line or more off: a bowed sheet's rows onto a
    #: gingham cloth's stripes, a stain on curled paper; 17-45 sure crossings there, all within
    #: 0.07 u)
    min_sure_few: int = 16
    #: the sure crossings must cover this many rows and columns (a homography through one line is
    #: none)
    sure_span: int = 3
    sure_move_u: float = 0.1  # … and none of them may move further (a wrong one drags some 0.25 u)
    reanchor_keeps_score: float = 1.0  # share of the first line score a re-anchored lattice keeps
    #: the thin-line refit is tried on this many doubted crossings (one stroke's snap: ≤ 9) …
    thin_refit_doubted: int = 12
    thin_refit_gain: float = 1.5  # … and kept when its thin-line score beats the fit's by this …
    #: … and its mountains separate at most this much less clearly (a cell off: < 0)
    thin_refit_mountains: float = 0.05
    #: a side hypothesis moves that side's ring this far inward (one line: the lattice overshot
    #: it) …
    side_pull_u: float = 1.0
    side_pull_lines: int = 5  # … tapering to nothing this many lines inside
    side_pull_gain: float = 1.3  # … kept only when its thin-line score beats the fit's by this, …
    #: … or by the first with the lattice score beating the fit's by the second
    side_pull_gain_confirmed: tuple[float, float] = (1.15, 1.3)
    #: a side is tried only when a crossing pulled this share of the way or more is doubted
    side_pull_near: float = 0.8
    #: a lattice moves a cell or two over when a strip of cells inside it is crossed by printed
    #: lines less than this (relative to the inner strips,
    #: :func:`vision.grid.profiles.crossed_strips`) and the strips beyond the opposite edge at
    #: least ``edge_crossed``: on the publisher's printer-friendly sheets lattices off left
    #: 0.01–0.05 inside and 0.99–1.20 beyond; right lattices with an edge strip this faint had at
    #: most 0.09 beyond the other edge
    edge_empty: float = 0.15
    edge_crossed: float = 0.5


@dataclass(frozen=True)
class GridTuning:
    """All of the grid finder's tuning, as shipped unless a field is given."""

    search: SearchTuning = field(default_factory=SearchTuning)
    accept: AcceptTuning = field(default_factory=AcceptTuning)
    rescue: RescueTuning = field(default_factory=RescueTuning)
    line_fit: LineFitTuning = field(default_factory=LineFitTuning)
    finish: FinishTuning = field(default_factory=FinishTuning)


SHIPPED = GridTuning()
