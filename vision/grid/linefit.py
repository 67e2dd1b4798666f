"""A lattice re-fitted as a whole to the thin printed lines, for sheets crowded with marker strokes.

Local snaps average a crossing's arms, half a cell, and thick marker strokes pull them off; here
each inner line is measured as the peak of a thin-line profile median over a quarter of its length
(``LINE_FIT_STRIPS``), where strokes in the cells' middles cancel, and one homography is fitted
through all of them.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.grid.profiles import THIN_KERNEL_U, THIN_PX, median
from vision.grid.snap import peaks
from vision.grid.tuning import LineFitTuning
from vision.lattice import black_hat, invert_homography, warp_canonical
from vision.layout import GRID

LINE_FIT_STRIPS = 4  # each line is measured in this many strips along it (a homography bends none)
LINE_FIT_MARGIN_U = 0.6  # rectified around the cell area, so a line near it is searched both sides
LINE_FIT_MIN_PER_AXIS = 6  # strip measurements each axis must keep (its 3 terms, twice over)


def thin_line_fit(
    darkest: np.ndarray, homography: np.ndarray, tuning: LineFitTuning
) -> np.ndarray | None:
    """A candidate's u → photo homography re-fitted to the thin printed lines.

    Each inner line is measured in strips (:func:`line_measures`, a ``THIN_KERNEL_U`` black-hat at
    ``THIN_PX``); every measurement says "this point lies on line i", a linear constraint on the
    homography (:func:`lines_homography`); the passes narrow the search (``search_u``). ``None``
    when a pass keeps under ``min_kept`` of its measurements (no lattice of lines there).
    """
    m = LINE_FIT_MARGIN_U
    for search_u in tuning.search_u:
        canon = warp_canonical(darkest, homography, THIN_PX, -m, -m, GRID + m, GRID + m)
        lines = black_hat(canon, int(THIN_KERNEL_U * THIN_PX)).astype(np.float32)
        correction, kept = lines_homography(line_measures(lines, search_u), tuning)
        undo = invert_homography(correction)
        if undo is None or kept < tuning.min_kept:
            return None
        homography = homography @ undo
    return homography


def line_measures(lines: np.ndarray, search_u: float) -> np.ndarray:
    """(axis, position u across the line, position u along it, line index, prominence) of each
    inner line's profile peak within ``search_u`` in each strip of a thin-line image rectified at
    ``THIN_PX`` with a ``LINE_FIT_MARGIN_U`` margin (axis 0: the lines of constant x)."""
    px, m = THIN_PX, LINE_FIT_MARGIN_U
    edges = np.linspace(m * px, (m + GRID) * px, LINE_FIT_STRIPS + 1).astype(int)
    near = np.arange(-int(search_u * px), int(search_u * px) + 1)
    index = np.arange(1, GRID)
    out = []
    for axis in (0, 1):
        for lo, hi in zip(edges[:-1], edges[1:]):
            # every other pixel along the line: as good a median in half the time
            strip = median(lines[lo:hi:2, :], 0) if axis == 0 else median(lines[:, lo:hi:2], 1)
            profile = cv2.GaussianBlur(strip.reshape(1, -1), (0, 0), 0.03 * px).ravel()
            centres = np.round((m + index) * px - 0.5).astype(int)
            window = profile[np.clip(centres[:, None] + near[None, :], 0, len(profile) - 1)]
            peak = peaks(window)
            inside = (peak > 0) & (peak < len(near) - 1)  # a maximum on the window's edge: no line
            across = (centres + near[0] + peak + 0.5) / px - m
            along = (lo + hi) / 2 / px - m
            prominence = window.max(axis=1) - np.median(profile)
            for i in np.nonzero(inside & (prominence > 0))[0]:
                out.append((axis, across[i], along, index[i], prominence[i]))
    return np.array(out).reshape(-1, 5)


def lines_homography(
    measures: np.ndarray, tuning: LineFitTuning
) -> tuple[np.ndarray | None, float]:
    """The homography u → u putting each measured point on its line, and the share of
    measurements within ``outlier_u`` of the final fit.

    Weighted least squares on the linear constraints x' = i or y' = j, centred and scaled to ±1;
    strips further than ``outlier_u`` from the fit are dropped twice. ``None`` with fewer than
    ``LINE_FIT_MIN_PER_AXIS`` kept on either axis (each axis fixes its own three terms: lines of
    one axis alone leave the other's free), or a rank-deficient system.

    >>> lines = [(a, p, q, i, 1.0) for a in (0, 1) for i in range(1, 11) for q in (1.5, 4.5, 7.5)
    ...          for p in [float(i)]]
    >>> h, kept = lines_homography(np.array(lines), LineFitTuning())
    >>> bool(np.allclose(h / h[2, 2], np.eye(3), atol=1e-9)), kept
    (True, 1.0)
    >>> lines_homography(np.array([m for m in lines if m[0] == 0]), LineFitTuning())  # one axis
    (None, 0.0)
    """
    axis, across, along, index, weight = measures.T if len(measures) else np.zeros((5, 0))
    c = GRID / 2
    x = np.where(axis == 0, across, along) / c - 1
    y = np.where(axis == 0, along, across) / c - 1
    t = index / c - 1
    one, zero = np.ones_like(x), np.zeros_like(x)
    vertical = axis[:, None] == 0
    a = np.where(
        vertical,
        np.stack([x, y, one, zero, zero, zero, -t * x, -t * y], 1),
        np.stack([zero, zero, zero, x, y, one, -t * x, -t * y], 1),
    )
    keep = np.ones(len(t), bool)
    for _ in range(3):
        if min((keep & (axis == 0)).sum(), (keep & (axis == 1)).sum()) < LINE_FIT_MIN_PER_AXIS:
            return None, 0.0
        sw = np.sqrt(weight[keep])
        h, _, rank, _ = np.linalg.lstsq(a[keep] * sw[:, None], t[keep] * sw, rcond=None)
        if rank < a.shape[1]:
            return None, 0.0
        keep = np.abs(a @ h - t) * c < tuning.outlier_u
    norm = np.array([[1 / c, 0, -1], [0, 1 / c, -1], [0, 0, 1.0]])
    return np.linalg.inv(norm) @ np.append(h, 1.0).reshape(3, 3) @ norm, float(keep.mean())
