"""Candidate outlines of the cell area: 4-gons of the dark printed frame and of the paper.

The first source (:func:`quad_candidates`) and the second (:func:`outline_fallbacks`); each quad
becomes u → photo homographies (:func:`quad_hypotheses`): as the cell area and as the frame
band's outer line. Coordinates: photo points are (x, y) pixels of the searched image.
"""

from __future__ import annotations

from itertools import combinations

import cv2
import numpy as np

from vision.layout import GEOMETRY, GRID

_FW = GEOMETRY.frame_width  # the frame band's outer line runs at −0.2 and 11.2 u
_K = GRID / (GRID + 2 * _FW)
#: true u → the u a quad on the frame's outer line assumes it is (its corners at 0 and 11)
FRAME_OUTER_TO_CELLS = np.array([[_K, 0, _FW * _K], [0, _K, _FW * _K], [0, 0, 1.0]])


def order_corners(quad: np.ndarray) -> np.ndarray:
    """Four points ordered clockwise (in image coordinates) starting nearest the top-left."""
    q = np.asarray(quad, dtype=np.float64).reshape(4, 2)
    centre = q.mean(axis=0)
    angles = np.arctan2(q[:, 1] - centre[1], q[:, 0] - centre[0])
    q = q[np.argsort(angles)]  # clockwise on screen (y down)
    start = int(np.argmin(q.sum(axis=1)))
    return np.roll(q, -start, axis=0)


def quad_homography(quad: np.ndarray) -> np.ndarray:
    """Canonical u → photo px mapping the cell-area corners onto ``quad`` (TL, TR, BR, BL)."""
    src = np.array([[0, 0], [GRID, 0], [GRID, GRID], [0, GRID]], dtype=np.float32)
    return cv2.getPerspectiveTransform(src, quad.astype(np.float32))


def quad_hypotheses(quad: np.ndarray) -> list[np.ndarray]:
    """A quad as the cell area and as the frame band's outer line (u → photo homographies)."""
    as_cells = quad_homography(quad)
    return [as_cells, as_cells @ FRAME_OUTER_TO_CELLS]


def quad_candidates(
    gray: np.ndarray, max_candidates: int = 12, bridged: bool = True
) -> list[np.ndarray]:
    """Convex 4-gons in ``gray`` outlined by dark structure, largest first (``bridged``: of the
    dilated masks, else of the undilated one, :func:`_dark_contours`)."""
    area_min = _min_contour_area(gray)
    found: list[tuple[float, np.ndarray]] = []
    for contours in _dark_contours(gray, bridged):
        for cnt in contours:
            if cv2.contourArea(cnt) < area_min:
                continue
            quad = _four_corners(cnt, (0.02, 0.04, 0.07))
            if quad is None or not plausible_quad(quad):
                continue
            found.append((cv2.contourArea(quad.astype(np.float32)), quad))
            fitted = _side_line_corners(cnt.reshape(-1, 2).astype(np.float64), quad)
            if fitted is not None and plausible_quad(fitted):
                found.append((cv2.contourArea(fitted.astype(np.float32)), fitted))
    found.sort(key=lambda t: -t[0])
    unique: list[np.ndarray] = []
    for _, q in found:
        if is_new_quad(q, unique):
            unique.append(q)
        if len(unique) >= max_candidates:
            break
    return unique


def _four_corners(contour: np.ndarray, tolerances: tuple[float, ...]) -> np.ndarray | None:
    """The contour's hull simplified to 4 corners (ordered) at the first tolerance that gives 4."""
    hull = cv2.convexHull(contour)
    peri = cv2.arcLength(hull, True)
    for eps in tolerances:
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            return order_corners(approx.reshape(4, 2))
    return None


def _min_contour_area(gray: np.ndarray) -> float:
    """The smallest dark contour (px²) worth outlining a sheet: 0.4 % of the photo."""
    h, w = gray.shape
    return 0.004 * h * w


def _dark_contours(gray: np.ndarray, bridged: bool = True):
    """The contours of dark structure (mean-adaptive threshold, dilated), one list per threshold
    offset (6, 12); not ``bridged``: those of the stricter threshold undilated only, where a thin
    solid frame line (the printer-friendly sheet's) that the dilation bridges to the printing
    around it (coin track, page border) outlines the cell area alone."""
    h, w = gray.shape
    block = max(15, (max(h, w) // 40) | 1)
    for c in (6, 12) if bridged else (12,):
        mask = cv2.adaptiveThreshold(
            gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, c
        )
        if bridged:
            mask = cv2.dilate(mask, np.ones((3, 3), np.uint8))
        yield cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)[0]


def is_new_quad(quad: np.ndarray, seen: list[np.ndarray]) -> bool:
    """No quad in ``seen`` has all corners within 3 % of ``quad``'s side."""
    side = np.sqrt(max(cv2.contourArea(quad.astype(np.float32)), 1.0))
    return all(np.abs(quad - q).max() > 0.03 * side for q in seen)


def _side_line_corners(points: np.ndarray, quad: np.ndarray) -> np.ndarray | None:
    """Corners from straight lines fitted to the middle of each side of a contour.

    A bowed sheet or lens distortion curves the frame; the hull's extreme points then sit off
    the lattice, while lines through each side's middle half average the curve out.
    """
    lines = []
    for k in range(4):
        a, b = quad[k], quad[(k + 1) % 4]
        ab = b - a
        length = np.linalg.norm(ab)
        t = (points - a) @ ab / (length**2)
        normal = np.array([-ab[1], ab[0]]) / length
        dist = np.abs((points - a) @ normal)
        near = (t > 0.2) & (t < 0.8) & (dist < 0.06 * length)
        if near.sum() < 5:
            return None
        vx, vy, x0, y0 = cv2.fitLine(
            points[near].astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01
        ).ravel()
        lines.append((np.array([x0, y0], float), np.array([vx, vy], float)))
    corners = []
    for k in range(4):
        (p1, d1), (p2, d2) = lines[k - 1], lines[k]
        m = np.array([d1, -d2]).T
        if abs(np.linalg.det(m)) < 1e-6:
            return None
        s, _ = np.linalg.solve(m, p2 - p1)
        corners.append(p1 + s * d1)
    return np.array(corners)


def plausible_quad(quad: np.ndarray) -> bool:
    """Convex, no side much shorter than the others (tilts up to ~60°)."""
    if not cv2.isContourConvex(quad.astype(np.float32).reshape(-1, 1, 2)):
        return False
    sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    return sides.min() > 0.3 * sides.max() and sides.min() > 20


def outline_fallbacks(gray: np.ndarray) -> list[list[np.ndarray]]:
    """u → image homographies from outlines the frame-quad search leaves out (the second source):
    :func:`corner_choices`, then :func:`paper_outlines`."""
    return corner_choices(gray) + paper_outlines(gray)


def corner_choices(gray: np.ndarray) -> list[list[np.ndarray]]:
    """A frame contour merged with a label, a finger or the coin track simplifies to 5 or 6
    corners; every plausible 4 of them is tried as the cell area and as the frame band's outer
    line."""
    area_min = _min_contour_area(gray)
    out: list[list[np.ndarray]] = []
    seen: list[np.ndarray] = []
    for contours in _dark_contours(gray):
        for cnt in sorted(contours, key=cv2.contourArea, reverse=True)[:20]:
            if cv2.contourArea(cnt) < 4 * area_min:
                break
            hull = cv2.convexHull(cnt)
            peri = cv2.arcLength(hull, True)
            for eps in (0.01, 0.02, 0.04):
                approx = cv2.approxPolyDP(hull, eps * peri, True).reshape(-1, 2)
                if not 5 <= len(approx) <= 6:
                    continue
                for idx in combinations(range(len(approx)), 4):
                    quad = order_corners(approx[list(idx)])
                    if plausible_quad(quad) and is_new_quad(quad, seen):
                        seen.append(quad)
                        out.append(quad_hypotheses(quad))
    return out


def paper_outlines(gray: np.ndarray) -> list[list[np.ndarray]]:
    """The paper, bright against the table: the sheet's box in u is ``GEOMETRY.sheet``; its long
    sides are the sheet's height, and each of the four corner orders is tried (the pre-check and
    the mountains decide, a half turn included)."""
    h, w = gray.shape
    blurred = cv2.GaussianBlur(gray, (5, 5), 0)
    _, bright = cv2.threshold(blurred, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    bright = cv2.morphologyEx(bright, cv2.MORPH_CLOSE, np.ones((15, 15), np.uint8))
    contours, _ = cv2.findContours(bright, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    sheet = GEOMETRY.sheet
    box = np.array(
        [[sheet.x0, sheet.y0], [sheet.x1, sheet.y0], [sheet.x1, sheet.y1], [sheet.x0, sheet.y1]],
        np.float32,
    )
    out: list[list[np.ndarray]] = []
    for cnt in sorted(contours, key=cv2.contourArea, reverse=True)[:3]:
        if cv2.contourArea(cnt) < 0.05 * h * w:
            break
        quad = _four_corners(cnt, (0.02, 0.04, 0.07))
        if quad is not None and plausible_quad(quad):
            for k in range(4):
                turned = np.roll(quad, -k, axis=0).astype(np.float32)
                out.append([cv2.getPerspectiveTransform(box, turned)])
    return out
