"""Snapping the 144 crossings to the printed lines, the smooth field through the snaps, and doubt.

:func:`refine` snaps each crossing locally (:func:`snap_crossings`) and makes the snaps a smooth
field (:func:`smoothed`: a robust coarse-to-fine surface — plane, quadratic, cubic — plus small
local residuals), so the map follows curl without jumping to a drawn stroke; the outer ring
follows the frame band. :func:`crossing_doubt` says how far each final crossing may be off.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.grid.profiles import LATTICE_PX, median
from vision.lattice import (
    LINES,
    DegenerateFit,
    black_hat,
    homography_from_intersections,
    ideal_intersections,
    lattice_points,
    line_image,
    warp_canonical,
)
from vision.layout import GEOMETRY, GRID

MAX_DISPLACEMENT_U = 0.7  # a crossing moves at most this far from the global homography's guess
LOCAL_RESIDUAL_U = 0.04  # a snap may differ this much from the smooth curl surface
#: searches after re-anchoring a candidate's homography on its snapped crossings
REANCHOR_SEARCH_U = (0.3, 0.2)
RING_MIN_AGREEING = 7  # of a side's 12 snaps, within RING_AGREE_U of its smooth fit, to move it
RING_AGREE_U = 0.05
RING_MAX_U = 0.35  # the ring moves at most this far from the surface's extrapolation
RING_LOCAL_U = 0.2  # a strong frame snap may differ this much from its side's fit (a curled corner)
#: a crossing whose doubt is above this may be more than 0.15 u off (dev: see docs/reader.md)
DOUBT_U = 0.12
#: the frame band's pair of lines stands out of the profile by at least this share of a cell
#: line's snap on one side of an axis, or there is no band (a missing partner leaves the pair at
#: the paper's level, near 0; a printed band's fine inner line stands out like a cell line)
FRAME_PAIR_SHARE = 0.1
#: …and the border is one thin line on open paper: the searched profile's median under this share
#: of its peak. A broad printed band fails the pair too but fills the search (0.22 and more on our
#: line-art family's, darker than the cell lines). Our four art families (80 photos) at 0.15 / 0.2
#: / 0.25: 15 / 12 / 14 lattices with a crossing over 0.1 u off (20 when every band was paired)
SINGLE_LINE_LEVEL = 0.2
DOUBT_WEAK_U = 0.1  # doubt added for a crossing whose snaps are as weak as none


@dataclass(frozen=True)
class Snaps:
    """Raw snaps (12, 12, 2) in u (displacement from the ideal crossing) and their strengths."""

    snapped: np.ndarray
    strength: np.ndarray


@dataclass(frozen=True)
class Refined:
    """Snapped crossings: photo points (12, 12, 2), the smooth displacement field (u), the snaps."""

    points: np.ndarray
    disp: np.ndarray
    snaps: Snaps

    def doubt(self) -> np.ndarray:
        """:func:`crossing_doubt` of these crossings."""
        return crossing_doubt(self.snaps.snapped, self.snaps.strength, self.disp)


@dataclass(frozen=True)
class Placed:
    """A lattice placed by a u → photo homography: its crossings and their displacement (u)."""

    homography: np.ndarray
    points: np.ndarray
    disp: np.ndarray


def refine(
    image: np.ndarray,
    homography: np.ndarray,
    px: int,
    prior: np.ndarray | None,
    search_u: float,
    ring: bool = True,
    kernel_u: float | None = None,
    peaks_only: bool = False,
) -> Refined:
    """Snap the 144 crossings to the printed lines near where ``homography`` (+ ``prior``) puts
    them, and make the snaps a smooth field (:func:`smoothed`).

    Each crossing is moved along x by the peak of the vertical line's profile and along y by the
    horizontal line's, searching ``search_u`` around the prior; the outer ring is snapped to the
    frame band (:func:`snap_crossings`; ``kernel_u``: the black-hat width there; ``peaks_only``:
    a snap whose profile is highest at the end of the search has no strength).
    """
    snaps = snap_crossings(image, homography, px, prior, search_u, ring, kernel_u, peaks_only)
    disp = smoothed(snaps.snapped, snaps.strength, ring)
    return Refined(lattice_points(homography, disp), disp, snaps)


def refine_coarse_to_fine(
    darkest: np.ndarray, hom: np.ndarray, px: int = LATTICE_PX * 2, kernel_u: float | None = None
) -> Placed:
    """Snap a candidate's crossings, re-anchoring the homography on them between passes.

    A quad with one corner off (curl, a finger on the frame) puts that corner's crossings beyond
    any local search; the crossings found elsewhere give a better homography, so each pass
    reaches further into the bent corner. ``px`` and ``kernel_u`` (the snaps' black-hat width,
    :func:`snap_crossings`): the thin-line refinement of the rescue.
    """
    refined = refine(darkest, hom, px, None, 0.4, ring=False, kernel_u=kernel_u)
    pts, disp = refined.points, refined.disp
    for search in REANCHOR_SEARCH_U:
        try:
            hom = homography_from_intersections(pts)
        except DegenerateFit:  # snaps collapsed onto a line: keep the last lattice for the checks
            break
        prior = cv2.perspectiveTransform(pts.reshape(1, -1, 2), np.linalg.inv(hom))[0]
        prior = prior.reshape(LINES, LINES, 2)
        refined = refine(
            darkest, hom, px, prior - ideal_intersections(), search, ring=False, kernel_u=kernel_u
        )
        pts, disp = refined.points, refined.disp
    return Placed(hom, pts, disp)


def peaks(profiles: np.ndarray) -> np.ndarray:
    """Sub-pixel maximum of each row of ``profiles`` (parabola through the top three)."""
    n = profiles.shape[1]
    k = np.argmax(profiles, axis=1)
    kc = np.clip(k, 1, n - 2)
    idx = np.arange(len(profiles))
    a, b, c = profiles[idx, kc - 1], profiles[idx, kc], profiles[idx, kc + 1]
    den = a - 2 * b + c
    inside = (k == kc) & (den < 0)
    offset = np.where(inside, 0.5 * (a - c) / np.where(den < 0, den, -1.0), 0.0)
    return k + offset


@dataclass(frozen=True)
class _Window:
    """The canonical pixels a snap reads around each crossing, at ``px`` per u."""

    search: int  # searched offsets each way
    band: int  # the frame band's width
    extra: int  # read beyond the search, so the band's outer line is seen (ring only)
    half: np.ndarray  # offsets along one arm of a line, from the crossing
    both: np.ndarray  # both arms: the negative one first
    across: np.ndarray  # offsets across the line
    searched: np.ndarray  # the searched offsets within a profile

    @classmethod
    def at(cls, px: int, search_u: float, ring: bool) -> _Window:
        search = int(search_u * px)
        band = int(round(GEOMETRY.frame_width * px))
        extra = band + 2 if ring else 0
        half = np.arange(int(0.08 * px), int(0.42 * px))
        return cls(
            search,
            band,
            extra,
            half,
            np.concatenate([-half[::-1] - 1, half]),
            np.arange(-search - extra, search + extra + 1),
            np.arange(extra, extra + 2 * search + 1),
        )


def snap_crossings(
    image: np.ndarray,
    homography: np.ndarray,
    px: int,
    prior: np.ndarray | None,
    search_u: float,
    ring: bool = True,
    kernel_u: float | None = None,
    peaks_only: bool = False,
) -> Snaps:
    """Raw snaps of the 144 crossings and their strengths.

    Inner crossings: the peak of each line's black-hat profile across it, averaged along both
    arms of the line. The outer ring sits on the frame band (docs/printed-sheet.md: a thin line on
    the cell area's border and a thicker one ``GEOMETRY.frame_width`` outside it, ticks between):
    the coordinate across the frame is where both band lines fit (:func:`_frame_band_peaks`), and
    the coordinate along the frame comes from the dashed line's inward arm only (the ticks between
    the band lines are not lines of the lattice). Without ``ring`` the outer ring is snapped like
    the inner crossings (the candidate search, which takes the ring from the surface and needs the
    time). The black-hat is a third of a cell wide, or ``kernel_u`` (thin lines only).

    ``peaks_only``: an inner snap whose profile is highest at either end of the searched offsets
    found no line there, only the slope of something darker beyond the search (a marker stroke
    half a cell over, where the dashed lines are faint): it gets no strength, so the smooth field
    is not pulled the whole search width towards it (passes after passes, that pull walks a
    correctly placed lattice off the faint lines onto the symbols). The frame band's snaps keep
    theirs.
    """
    margin = 1.2
    canon = warp_canonical(
        line_image(image), homography, px, -margin, -margin, GRID + margin, GRID + margin
    )
    lines = black_hat(canon, px // 3 if kernel_u is None else int(kernel_u * px)).astype(np.float32)
    prior = np.zeros((LINES, LINES, 2)) if prior is None else prior
    win = _Window.at(px, search_u, ring)
    ideal = ideal_intersections()
    # canonical pixel X has its centre at u = (X + 0.5) / px − margin
    cx = np.round((margin + ideal[..., 0] + prior[..., 0]) * px - 0.5).astype(int).ravel()
    cy = np.round((margin + ideal[..., 1] + prior[..., 1]) * px - 0.5).astype(int).ravel()
    snapped = np.zeros((LINES, LINES, 2))
    strength = np.zeros((LINES, LINES, 2))
    row_index, col_index = np.divmod(np.arange(LINES * LINES), LINES)  # of each ravelled crossing
    inside = (row_index % GRID != 0) & (col_index % GRID != 0)  # not on the outer ring
    for k in range(2):
        # which arm to average: both inside; only the inward one on the ring rows/columns along it
        along_index, across_index = (row_index, col_index) if k == 0 else (col_index, row_index)
        prof = _line_profiles(lines, cx, cy, k, win, along_index if ring else None)
        inner = prof[:, win.searched]
        peak = peaks(inner)
        value = inner.max(axis=1)
        level = median(inner, 1)
        if ring:
            lines_lift = float(np.median((value - level)[inside]))
            _frame_band_peaks(prof, across_index, win, peak, value, lines_lift)
        centre = (cx, cy)[k]
        offset = (centre - win.search + peak + 0.5) / px - margin - ideal[..., k].ravel()
        snapped[..., k] = offset.reshape(LINES, LINES)
        lift = value - level
        if peaks_only:
            top = np.argmax(inner, axis=1)
            at_end = (top == 0) | (top == inner.shape[1] - 1)
            if ring:
                at_end &= (across_index != 0) & (across_index != GRID)
            lift = np.where(at_end, 0.0, lift)
        strength[..., k] = lift.reshape(LINES, LINES)
    return Snaps(snapped, strength)


def _line_profiles(
    lines: np.ndarray,
    cx: np.ndarray,
    cy: np.ndarray,
    k: int,
    win: _Window,
    along_index: np.ndarray | None,
) -> np.ndarray:
    """Each crossing's profile across its line of axis ``k`` (0: the vertical line, a profile over
    x), averaged along both arms; with ``along_index`` (the ring), along the inward arm only on the
    first and last line."""
    h, w = lines.shape
    if k == 0:  # vertical line near each crossing: rows along it, columns across it
        rows = np.clip(cy[:, None, None] + win.both[None, :, None], 0, h - 1)
        cols = np.clip(cx[:, None, None] + win.across[None, None, :], 0, w - 1)
    else:
        rows = np.clip(cy[:, None, None] + win.across[None, None, :], 0, h - 1)
        cols = np.clip(cx[:, None, None] + win.both[None, :, None], 0, w - 1)
    samples = lines[rows, cols]
    prof = samples.mean(axis=1)
    if along_index is not None:
        n = len(win.half)
        neg, pos = samples[:, :n].mean(axis=1), samples[:, n:].mean(axis=1)
        prof = np.where((along_index == 0)[:, None], pos, prof)
        prof = np.where((along_index == GRID)[:, None], neg, prof)
    return prof


def _frame_band_peaks(
    prof: np.ndarray,
    across_index: np.ndarray,
    win: _Window,
    peak: np.ndarray,
    value: np.ndarray,
    line_lift: float,
) -> None:
    """On the frame lines (x of columns 0 and 11, y of rows 0 and 11), set ``peak`` and ``value``
    in place to the band's inner line where the outer one lies beside it.

    Where no second line lies a band's width outside (the printer-friendly sheet's border is a
    single line), the best pair is a line and the bare paper beside it, and would put the frame
    line a band's width inside the border (0.2 u off at a corner). Such a pair's weaker member
    stands out of the profile no more than the paper does: under ``FRAME_PAIR_SHARE`` of
    ``line_lift`` (the median inner crossing's snap, a cell line; a printed band's fine inner line
    stands out like one). When the median pair of both sides of this axis is that faint, and the
    line stands alone on paper (``SINGLE_LINE_LEVEL``: a broad dark band fails a pair the same way
    but fills the search), the sheet has no band there and the single line's peak is kept.
    (Decided per axis, not per snap: corners, ticks and fingers make single snaps of a printed
    band look unpaired, and a lattice still off its lines sees a band on one side only.)
    """
    sides = []
    for edge, outward in ((0, -1), (GRID, 1)):
        sel = across_index == edge
        p = prof[sel]
        pair_score = np.minimum(p[:, win.searched], p[:, win.searched + outward * win.band])
        best = win.searched[np.argmax(pair_score, axis=1)]
        lo = np.clip(best - 2, 0, p.shape[1] - 5)
        window = np.take_along_axis(p, lo[:, None] + np.arange(5)[None, :], axis=1)
        paired = pair_score.max(axis=1)
        level = median(p[:, win.searched], 1)
        lift = float(np.median(paired - level))
        thin = float(np.median(level)) < SINGLE_LINE_LEVEL * float(np.median(p.max(axis=1)))
        sides.append(
            (
                sel,
                lo - win.extra + peaks(window),
                paired,
                lift < FRAME_PAIR_SHARE * line_lift and thin,
            )
        )
    if all(single for *_, single in sides):
        return  # no band: a single border line
    for sel, band_peak, paired, _ in sides:
        peak[sel] = band_peak
        value[sel] = paired


def _surface_terms(i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Cubic surface terms in crossing indices scaled to about ±1 (10 terms)."""
    y = (i - 5.5) / 5.5
    x = (j - 5.5) / 5.5
    return np.stack(
        [np.ones_like(x), x, y, x * x, x * y, y * y, x**3, x * x * y, x * y * y, y**3], axis=-1
    )


def _robust_surface(values: np.ndarray, strength: np.ndarray, terms: np.ndarray) -> np.ndarray:
    """Coefficients of a weighted surface through ``values`` that noisy snaps cannot bend.

    Coarse to fine: first a plane (3 terms) by iteratively reweighted least squares (L1-like, so
    a good share of the snaps may sit on a drawn stroke or the wrong frame line), then quadratic
    and cubic terms, each fitted only on the snaps that agree with the previous, coarser surface;
    a finer surface is used only when enough snaps support it. (One cubic fit through all snaps
    let faint lines under colour shading or marker symbols bend the outer columns by half a cell.)
    """
    s = np.clip(strength, 0, None)
    coef = np.zeros(terms.shape[-1])
    if s.sum() <= 0:
        return coef
    w = s.copy()
    for _ in range(6):  # plane, IRLS
        sw = np.sqrt(w)
        coef[:3], *_ = np.linalg.lstsq(terms[:, :3] * sw[:, None], values * sw, rcond=None)
        w = s / np.maximum(np.abs(values - terms @ coef), 0.03)
    for n_terms, tol in ((6, 0.15), (10, 0.08), (10, 0.06), (10, 0.06)):
        w = np.where(np.abs(values - terms @ coef) < tol, s, 0.0)
        if (w > 0).sum() < 3 * n_terms:
            break
        sw = np.sqrt(w)
        fine = np.zeros_like(coef)
        fine[:n_terms], *_ = np.linalg.lstsq(
            terms[:, :n_terms] * sw[:, None], values * sw, rcond=None
        )
        coef = fine
    return coef


def smoothed(disp: np.ndarray, strength: np.ndarray, ring: bool = True) -> np.ndarray:
    """Snaps → a smooth curl field: a robust coarse-to-fine surface (:func:`_robust_surface`)
    through the inner crossings, plus small local residuals (≤ ``LOCAL_RESIDUAL_U``) where a snap
    agrees with the surface; the outer ring follows the frame band (:func:`_ring_correction`).

    The frame is a double band with ticks and mountains carry line-like drawings, so single snaps
    can jump; paper curl is smooth over the sheet. The surface alone, extrapolated to the outer
    ring, misses a bowed or distorted frame by up to half a cell.
    """
    ii, jj = np.mgrid[0:LINES, 0:LINES].astype(np.float64)
    terms = _surface_terms(ii, jj)
    inner = np.zeros((LINES, LINES), bool)
    inner[1:-1, 1:-1] = True
    out = np.empty_like(disp)
    for k in range(2):
        coef = _robust_surface(disp[..., k][inner], strength[..., k][inner], terms[inner])
        surface = terms @ coef
        res = disp[..., k] - surface
        keep = inner & (np.abs(res) < LOCAL_RESIDUAL_U)
        out[..., k] = surface + np.where(keep, res, 0.0)
        if ring:
            out[..., k] += _ring_correction(res, strength[..., k], k)
    return np.clip(out, -MAX_DISPLACEMENT_U, MAX_DISPLACEMENT_U)


def _ring_correction(res: np.ndarray, strength: np.ndarray, k: int) -> np.ndarray:
    """(12, 12) correction of coordinate ``k`` on the outer ring, zero inside.

    ``res`` = snap − surface. Along each side of the ring a robust quadratic through the 12
    snaps' residuals (a finger or glare may hide a few) plus local residuals where a snap agrees;
    a side with too few agreeing snaps keeps the surface. The corners take coordinate ``k`` from
    the side across which it is measured (the frame line, not the dashed line's end).
    """
    out = np.zeros((LINES, LINES))
    t = (np.arange(LINES) - 5.5) / 5.5
    terms = np.stack([np.ones_like(t), t, t * t], axis=1)
    # sides along which coordinate k runs (dashed lines' inward arms) first, the frame lines last
    along = [(0, slice(None)), (GRID, slice(None))]  # rows 0 and 11
    frame = [(slice(None), 0), (slice(None), GRID)]  # columns 0 and 11
    if k == 1:
        along, frame = [(b, a) for a, b in along], [(b, a) for a, b in frame]
    for side in along + frame:
        r, s = res[side], np.clip(strength[side], 0, None)
        if s.sum() <= 0:
            continue
        w = s.copy()
        coef = np.zeros(3)
        for n_terms in (1, 1, 1, 2, 2, 3, 3, 3):  # IRLS, coarse to fine
            sw = np.sqrt(w)
            coef = np.zeros(3)
            coef[:n_terms], *_ = np.linalg.lstsq(
                terms[:, :n_terms] * sw[:, None], r * sw, rcond=None
            )
            w = s / np.maximum(np.abs(r - terms @ coef), 0.02)
        fit = terms @ coef
        agree = np.abs(r - fit) < RING_AGREE_U
        if agree.sum() < RING_MIN_AGREEING or np.abs(fit).max() > RING_MAX_U:
            continue
        strong = (s >= 0.5 * np.median(s[s > 0])) & (side in frame)
        limit = np.where(strong, RING_LOCAL_U, LOCAL_RESIDUAL_U)
        local = np.where(np.abs(r - fit) < limit, r - fit, 0.0)
        out[side] = fit + local
    return out


def crossing_doubt(snapped: np.ndarray, strength: np.ndarray, disp: np.ndarray) -> np.ndarray:
    """(12, 12) u: how far each final crossing may be from the printed one.

    The mean over each crossing's 3 × 3 neighbourhood of (the larger axis's |raw snap − final
    crossing|, plus ``DOUBT_WEAK_U`` × how much weaker than the median inner snap its snaps are).
    One snap off is a drawn stroke the smooth field rightly ignored; a patch of snaps off, or with
    no line to snap to, is where the field may be wrong (a finger, curl, a stretched corner).
    """
    s = np.clip(strength, 0, None)
    med = np.median(s[1:-1, 1:-1].reshape(-1, 2), axis=0)
    weak = (1 - np.clip(s / np.maximum(med, 1e-6), 0, 1)).max(axis=2)
    local = np.abs(snapped - disp).max(axis=2) + DOUBT_WEAK_U * weak
    blurred = cv2.blur(local.astype(np.float32), (3, 3), borderType=cv2.BORDER_REFLECT)
    return blurred.astype(np.float64)
