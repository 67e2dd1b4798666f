"""Things in the photo over the sheet's margins: the fingers holding it and a pencil lying by it."""

from __future__ import annotations

import cv2
import numpy as np

from vision.layout import GEOMETRY
from vision.synth.camera import Camera

# where a finger may rest (sheet units): tip range along the inward axis, and direction
FINGER_SIDES = {
    "left": ((-0.95, -0.4), (1.0, 0.0)),
    "right": ((11.35, 11.8), (-1.0, 0.0)),
    "top": ((-3.6, -2.7), (0.0, 1.0)),
    "bottom": ((14.65, 15.1), (0.0, -1.0)),
}


def draw_fingers(
    img: np.ndarray, camera: Camera, n: int, rng: np.random.Generator
) -> list[list[float]]:
    """Fingers holding the sheet by its margins (in place); returns their tip positions in units."""
    tips = []
    for _ in range(n):
        tip, out, width = _finger_pose(rng)
        if _draw_finger(img, camera, tip, out, width, rng):
            tips.append([round(float(tip[0]), 3), round(float(tip[1]), 3)])
    return tips


def _finger_pose(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, float]:
    """Where one finger rests (units): its tip (innermost point), the direction it points away
    from the sheet, and half its width."""
    g = GEOMETRY.sheet
    side = str(rng.choice(list(FINGER_SIDES)))
    (lo, hi), inward = FINGER_SIDES[side]
    depth = rng.uniform(lo, hi)
    if side in ("left", "right"):
        tip = np.array([depth, rng.uniform(0.5, 10.5)])
    else:
        tip = np.array([rng.uniform(g.x0 + 1, g.x1 - 1), depth])
    ang = np.arctan2(-inward[1], -inward[0]) + rng.normal(0, 0.35)
    out = np.array([np.cos(ang), np.sin(ang)])
    width = rng.uniform(0.45, 0.62)  # half a finger's width: a cell is about 16 mm
    return tip, out, width


def _draw_finger(
    img: np.ndarray,
    camera: Camera,
    tip: np.ndarray,
    out: np.ndarray,
    width: float,
    rng: np.random.Generator,
) -> bool:
    """One finger with its soft shadow and nail (in place); False when it is outside the photo."""
    side_v = np.array([-out[1], out[0]])
    centre = tip + out * width  # the round fingertip's centre; ``tip`` is its innermost point
    arc = [
        centre + width * (np.sin(t) * side_v - np.cos(t) * out)
        for t in np.linspace(-np.pi / 2, np.pi / 2, 12)
    ]
    outline = np.array(
        arc + [centre + out * 4 + side_v * width * 1.2, centre + out * 4 - side_v * width * 1.2]
    )
    pts = camera.sheet_to_photo(outline[:, 0], outline[:, 1]).astype(np.float32)
    h, w = img.shape[:2]
    x0, y0 = np.floor(pts.min(axis=0)).astype(int) - 20
    x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + 20
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1 <= x0 or y1 <= y0:
        return False
    mask = np.zeros((y1 - y0, x1 - x0), np.float32)
    cv2.fillPoly(mask, [np.round((pts - (x0, y0)) * 16).astype(np.int32)], 1.0, cv2.LINE_AA, 4)
    px_per_u = float(np.linalg.norm(pts[0] - pts[11])) / (2 * width)
    soft = cv2.GaussianBlur(mask, (0, 0), max(0.8, px_per_u * 0.03))
    shadow = cv2.GaussianBlur(
        np.roll(mask, (int(px_per_u * 0.08), int(px_per_u * 0.08)), (0, 1)),
        (0, 0),
        max(1.0, px_per_u * 0.12),
    )
    roundness = cv2.GaussianBlur(mask, (0, 0), max(1.0, px_per_u * 0.15))
    skin = np.array(
        rng.choice([[160, 180, 230], [135, 160, 215], [95, 125, 180], [60, 85, 130]]),
        np.float32,
    ) * rng.uniform(0.9, 1.08)
    region = img[y0:y1, x0:x1]
    region *= (1 - 0.35 * shadow * (1 - soft))[:, :, None]
    shade = (0.55 + 0.5 * roundness)[:, :, None] * skin[None, None, :]
    nail_at = camera.sheet_to_photo(*(centre + out * width * 0.35 + np.array([[0, 0]]))[0])
    nail = _fingernail(mask, (nail_at[0] - x0, nail_at[1] - y0), pts, px_per_u * width, px_per_u)
    shade += (nail * soft * 40)[:, :, None]
    region[:] = region * (1 - soft[:, :, None]) + shade * soft[:, :, None]
    return True


def _fingernail(
    mask: np.ndarray, at: tuple[float, float], pts: np.ndarray, half_px: float, px_per_u: float
) -> np.ndarray:
    """A paler nail near the tip: a soft ellipse at ``at`` (pixels of ``mask``'s box) along the
    finger whose outline is ``pts``; ``half_px`` is half the finger's width in pixels."""
    nail = np.zeros_like(mask)
    cv2.ellipse(
        nail,
        (int(at[0]), int(at[1])),
        (max(1, int(half_px * 0.55)), max(1, int(half_px * 0.75))),
        float(np.degrees(np.arctan2(*(pts[11] - pts[0])[::-1]))),
        0,
        360,
        1.0,
        -1,
        cv2.LINE_AA,
    )
    return cv2.GaussianBlur(nail, (0, 0), max(0.8, px_per_u * 0.05))


PENCIL_LANES = {  # margins a pencil may lie in, clear of the frame, labels' far side and boxes
    "left": (-0.8, -0.5),
    "right": (11.45, 11.7),
    "top": (-3.4, -2.9),
    "bottom": (14.75, 14.95),
}


def draw_pencil(img: np.ndarray, camera: Camera, rng: np.random.Generator) -> str:
    """A pencil lying along one margin of the sheet (in place); returns the margin's name."""
    lane = str(rng.choice(list(PENCIL_LANES)))
    lo, hi = PENCIL_LANES[lane]
    across = rng.uniform(lo, hi)
    start, length = rng.uniform(-2, 6), rng.uniform(6, 9)
    along = np.array([1.0, 0.0]) if lane in ("top", "bottom") else np.array([0.0, 1.0])
    base = np.array([start, across]) if lane in ("top", "bottom") else np.array([across, start])
    if rng.random() < 0.5:
        along, base = -along, base + along * (length + 1)
    side_v = np.array([-along[1], along[0]])
    half = 0.2  # a pencil is about 7 mm across
    body = [
        base + side_v * half,
        base + along * length + side_v * half,
        base + along * (length + 0.9),
        base + along * length - side_v * half,
        base - side_v * half,
    ]
    pts = camera.sheet_to_photo(*np.array(body).T).astype(np.float32)
    h, w = img.shape[:2]
    x0, y0 = np.maximum(np.floor(pts.min(axis=0)).astype(int) - 10, 0)
    x1, y1 = np.minimum(np.ceil(pts.max(axis=0)).astype(int) + 10, (w, h))
    if x1 <= x0 or y1 <= y0:
        return lane
    px_per_u = float(np.linalg.norm(pts[0] - pts[4])) / (2 * half)
    mask = np.zeros((y1 - y0, x1 - x0), np.float32)
    cv2.fillPoly(mask, [np.round((pts - (x0, y0)) * 16).astype(np.int32)], 1.0, cv2.LINE_AA, 4)
    wood = np.zeros_like(mask)  # the sharpened end: bare wood, then the lead
    cone = camera.sheet_to_photo(*np.array([body[1], body[2], body[3]]).T).astype(np.float32)
    cv2.fillPoly(wood, [np.round((cone - (x0, y0)) * 16).astype(np.int32)], 1.0, cv2.LINE_AA, 4)
    lead = camera.sheet_to_photo(*(base + along * (length + 0.75))).astype(np.float32)
    paint = np.array(
        rng.choice([[40, 200, 240], [40, 40, 200], [60, 140, 40], [150, 80, 30], [60, 60, 60]]),
        np.float32,
    )
    colour = np.where(wood[:, :, None] > 0.5, np.array([140, 190, 225], np.float32), paint)
    cv2.circle(
        colour,
        (int(lead[0] - x0), int(lead[1] - y0)),
        max(1, int(px_per_u * 0.1)),
        (50, 50, 50),
        -1,
        cv2.LINE_AA,
    )
    facets = cv2.GaussianBlur(mask, (0, 0), max(1.0, px_per_u * 0.08))
    shadow = cv2.GaussianBlur(
        np.roll(mask, (int(px_per_u * 0.1),) * 2, (0, 1)), (0, 0), max(1.0, px_per_u * 0.1)
    )
    region = img[y0:y1, x0:x1]
    region *= (1 - 0.4 * shadow * (1 - mask))[:, :, None]
    shade = (0.6 + 0.5 * facets)[:, :, None] * colour
    region[:] = region * (1 - mask[:, :, None]) + shade * mask[:, :, None]
    return lane
