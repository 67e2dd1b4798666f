"""The third source of candidate outlines: quads of the photo's long straight segments.

When the frame's outline merges with the sheet's content (symbols touching the frame band) or the
paper runs out of the photo, no contour gives the frame, but its four sides are still the longest
straight segments (LSD) of the sheet.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

import cv2
import numpy as np

from vision.grid.quads import order_corners, plausible_quad
from vision.grid.tuning import SearchTuning


@dataclass(frozen=True)
class SegmentQuads:
    """Quads of the longest lines, longest first; ``late``: those using a less long line."""

    usual: list[np.ndarray] = field(default_factory=list)
    late: list[np.ndarray] = field(default_factory=list)


@dataclass
class _Line:
    """A merged line: unit normal, distance from the origin along it, total segment length."""

    normal: np.ndarray
    offset: float
    length: float


def segment_quads(gray: np.ndarray, tuning: SearchTuning) -> SegmentQuads:
    """Quads from the long straight segments (no clean outline needed).

    Segments longer than ``segment_min_length`` are split into the dominant direction (±22°) and
    the one across it, merged into lines (:func:`long_lines`), and every pair of the
    ``segment_lines`` longest lines of one direction is intersected with every pair of the other;
    plausible quads of at least 1.6 % of the photo are returned, longest lines first. Late: those
    that use a line ranked ``segment_lines`` + 1 … ``segment_lines_late`` in its direction
    (``segment_late_quads`` of them, longest first).
    """
    h, w = gray.shape
    lines = long_lines(gray, tuning)
    if lines is None:
        return SegmentQuads()
    crossing = [[_cross(a, b) for b in lines[1]] for a in lines[0]]  # each pair once, not per quad
    out, late = [], []
    for (i1, a1), (i2, a2) in combinations(enumerate(lines[0]), 2):
        for (j1, b1), (j2, b2) in combinations(enumerate(lines[1]), 2):
            pts = [crossing[i1][j1], crossing[i1][j2], crossing[i2][j2], crossing[i2][j1]]
            if any(p is None for p in pts):
                continue
            quad = order_corners(np.array(pts))
            if not plausible_quad(quad) or cv2.contourArea(quad.astype(np.float32)) < 0.016 * h * w:
                continue
            if (
                (quad[:, 0] < -0.1 * w).any()
                or (quad[:, 0] > 1.1 * w).any()
                or (quad[:, 1] < -0.1 * h).any()
                or (quad[:, 1] > 1.1 * h).any()
            ):
                continue
            length = a1.length + a2.length + b1.length + b2.length
            (late if max(i2, j2) >= tuning.segment_lines else out).append((length, quad))
    out.sort(key=lambda t: -t[0])
    late.sort(key=lambda t: -t[0])
    return SegmentQuads(
        [q for _, q in out[: tuning.segment_quads]],
        [q for _, q in late[: tuning.segment_late_quads]],
    )


def long_lines(gray: np.ndarray, tuning: SearchTuning) -> tuple[list[_Line], list[_Line]] | None:
    """The ``segment_lines_late`` longest lines of the dominant direction and of the one across it,
    longest first: LSD segments within 3° and 0.6 % of the long side merged. ``None`` with fewer
    than 4 long segments."""
    h, w = gray.shape
    detected = cv2.createLineSegmentDetector(cv2.LSD_REFINE_STD).detect(gray)[0]
    if detected is None:
        return None
    segs = detected.reshape(-1, 4).astype(np.float64)
    d = segs[:, 2:] - segs[:, :2]
    length = np.hypot(d[:, 0], d[:, 1])
    keep = length > tuning.segment_min_length * max(h, w)
    segs, d, length = segs[keep], d[keep], length[keep]
    if len(segs) < 4:
        return None
    ang = np.degrees(np.arctan2(d[:, 1], d[:, 0])) % 180
    hist = np.zeros(180)
    np.add.at(hist, ang.astype(int) % 180, length)
    hist = np.convolve(np.r_[hist[-5:], hist, hist[:5]], np.ones(11), "valid")
    main = float(np.argmax(hist))
    lines = []
    for direction in (main, (main + 90) % 180):
        family = np.nonzero(np.abs((ang - direction + 90) % 180 - 90) < 22)[0]
        merged: list[_Line] = []
        for i in family[np.argsort(-length[family])]:
            normal = np.array([-d[i, 1], d[i, 0]]) / length[i]
            mid = segs[i, :2] + d[i] / 2
            for m in merged:
                if abs(normal @ m.normal) > np.cos(np.radians(3)) and abs(
                    m.normal @ mid - m.offset
                ) < 0.006 * max(h, w):
                    m.length += length[i]
                    break
            else:
                merged.append(_Line(normal, float(normal @ mid), float(length[i])))
        merged.sort(key=lambda m: -m.length)
        lines.append(merged[: tuning.segment_lines_late])
    return lines[0], lines[1]


def _cross(a: _Line, b: _Line) -> np.ndarray | None:
    """Where two lines cross, or ``None`` when they are parallel."""
    m = np.array([a.normal, b.normal])
    return None if abs(np.linalg.det(m)) < 1e-6 else np.linalg.solve(m, [a.offset, b.offset])
