"""Phone photos of a filled-in sheet, with exact truth (where every grid point landed).

One photo = a table (``backgrounds``), the drawn sheet (``ink``) seen through a camera over bent
paper (``camera``), fingers over the margins, uneven light and a soft cast shadow, a white-balance
shift, defocus or motion blur, sensor noise and JPEG compression. Everything random is listed in
``truth["conditions"]`` and can be pinned by passing ``condition={...}`` to :func:`make_photo`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from scoring.sheet import Sheet
from vision.layout import GEOMETRY, GRID
from vision.synth.backgrounds import (
    BACKGROUND_FAMILIES,
    BACKGROUNDS,
    background_family,
    make_background,
    second_sheet,
)
from vision.synth.camera import Bend, Camera, place_camera
from vision.synth.ink import STYLE_FAMILIES, STYLES, DrawnSheet, draw_sheet, style_family
from vision.synth.maps import choose_sheet
from vision.synth.paper import RenderedSheet

#: draws an empty printed sheet: (side, px per grid unit, paper variant, rng) → the flat sheet
Printing = Callable[[str, float, str, np.random.Generator], RenderedSheet]

MAP_STEP = 8  # photo pixels between exactly computed points of the warp; bilinear in between
MIN_PX_PER_U, MAX_PX_PER_U = 16.0, 150.0  # render resolution limits of the flat sheet


@dataclass
class SynthPhoto:
    """A synthetic photo: JPEG bytes and its truth (see ``docs/synth.md``)."""

    jpeg: bytes
    truth: dict
    drawn: DrawnSheet | None = field(default=None, repr=False)  # the flat sheet it shows
    twin: bytes | None = field(
        default=None, repr=False
    )  # the same photo without the ink (``no_ink_twin``)

    @property
    def image(self) -> np.ndarray:
        """The decoded photo (BGR uint8), JPEG artefacts included."""
        return cv2.imdecode(np.frombuffer(self.jpeg, np.uint8), cv2.IMREAD_COLOR)


# ---- conditions -----------------------------------------------------------------------------

GLARE_RANGE = (0.15, 0.45)  # a lamp's hotspot: the light it adds, as a share of full white


def sample_conditions(rng: np.random.Generator, style: str) -> dict[str, Any]:
    """Random capture conditions for one photo (all JSON-friendly numbers and strings)."""
    mp = float(np.exp(rng.uniform(np.log(1.0), np.log(12.0))))
    landscape = bool(rng.random() < 0.4)
    aspect = 16 / 9 if rng.random() < 0.15 else 4 / 3
    marker = style_family(style) == "marker"
    return {
        "megapixels": round(mp, 3),
        "aspect": round(aspect, 4),
        "landscape": landscape,
        "paper": str(rng.choice(["print", "photocopy", "white-print"], p=[0.7, 0.15, 0.15])),
        "tilt_deg": round(float(40 * np.sqrt(rng.random())), 2),
        "azimuth_deg": round(float(rng.uniform(0, 360)), 2),
        "roll_deg": round(
            float(
                rng.uniform(0, 360)
                if rng.random() < 0.6
                else rng.normal(0, 8) + 90 * rng.integers(4)
            ),
            2,
        ),
        "hfov_deg": round(float(rng.uniform(55, 78)), 2),
        "fill": round(float(0.98 - 0.4 * rng.random() ** 2), 3),  # people fill the frame, mostly
        "offset": [round(float(v), 3) for v in np.clip(rng.normal(0, 0.4, 2), -1, 1)],
        "k1": round(float(rng.uniform(-0.12, 0.06)), 4),
        "k2": round(float(rng.uniform(-0.02, 0.02)), 4),
        "bow_u": round(float(rng.uniform(0, 0.5) if rng.random() < 0.7 else 0.0), 3),
        "bow_axis_deg": round(float(rng.uniform(0, 180)), 2),
        "curl_u": round(float(rng.uniform(0, 0.6) if rng.random() < 0.4 else 0.0), 3),
        "curl_axis_deg": round(float(rng.uniform(0, 360)), 2),
        "fold_u": round(float(rng.uniform(0.1, 0.4) if rng.random() < 0.15 else 0.0), 3),
        "fold_axis_deg": round(float(rng.choice([0.0, 90.0]) + rng.normal(0, 3)), 2),
        "fold_offset_u": round(float(rng.normal(0, 1.0)), 3),
        "exposure": round(float(rng.uniform(0.7, 1.08)), 3),
        "light_gradient": round(float(rng.uniform(0, 0.5)), 3),
        "light_angle_deg": round(float(rng.uniform(0, 360)), 2),
        "shadow": round(float(rng.uniform(0.1, 0.5) if rng.random() < 0.5 else 0.0), 3),
        "white_balance": [round(float(v), 3) for v in white_balance(rng)],
        "glare": round(
            float(rng.uniform(*GLARE_RANGE) if marker and rng.random() < 0.4 else 0.0), 3
        ),
        "graphite_sheen": round(float(rng.uniform(0.2, 0.6) if rng.random() < 0.3 else 0.0), 3),
        "defocus_px": round(float(rng.uniform(0, 2.2) if rng.random() < 0.6 else 0.0), 2),
        "motion_px": round(float(rng.uniform(1, 9) if rng.random() < 0.25 else 0.0), 2),
        "motion_angle_deg": round(float(rng.uniform(0, 180)), 2),
        "noise": round(float(rng.uniform(1, 9)), 2),
        "vignetting": round(float(rng.uniform(0, 0.35)), 3),
        "sharpen": round(float(rng.uniform(0.3, 1.2) if rng.random() < 0.6 else 0.0), 3),
        "local_tone": round(float(rng.uniform(0.2, 0.6) if rng.random() < 0.5 else 0.0), 3),
        "jpeg_quality": int(rng.integers(40, 96)),
        "second_sheet": bool(rng.random() < 0.2),
        "fingers": int(rng.choice([0, 0, 1, 2])),
        "pencil": bool(rng.random() < 0.2),
        "resent_quality": int(rng.integers(30, 75))
        if rng.random() < 0.15
        else 0,  # sent through a messenger
    }


def white_balance(rng: np.random.Generator) -> np.ndarray:
    """Per-channel BGR gains: tungsten (warm) to shade (cool), plus a little green/magenta."""
    temp = rng.uniform(-1, 1)
    tint = rng.uniform(-0.05, 0.05)
    return np.array([1 - 0.28 * temp, 1 + tint, 1 + 0.22 * temp])


def photo_size(mp: float, aspect: float, landscape: bool) -> tuple[int, int]:
    """(width, height) in pixels of a photo of ``mp`` megapixels."""
    long = int(round(np.sqrt(mp * 1e6 * aspect)))
    short = int(round(long / aspect))
    return (long, short) if landscape else (short, long)


# ---- the picture ----------------------------------------------------------------------------


def camera_for(cond: dict[str, Any]) -> Camera:
    """The camera (pose, lens, paper bend) that ``cond`` describes."""
    w, h = photo_size(cond["megapixels"], cond["aspect"], cond["landscape"])
    bend = Bend(
        cond["bow_u"],
        np.radians(cond["bow_axis_deg"]),
        cond["curl_u"],
        np.radians(cond["curl_axis_deg"]),
        fold=cond["fold_u"],
        fold_axis=np.radians(cond["fold_axis_deg"]),
        fold_offset=cond["fold_offset_u"],
    )
    return place_camera(
        w,
        h,
        tilt=np.radians(cond["tilt_deg"]),
        azimuth=np.radians(cond["azimuth_deg"]),
        roll=np.radians(cond["roll_deg"]),
        hfov=np.radians(cond["hfov_deg"]),
        fill=cond["fill"],
        offset=tuple(cond["offset"]),
        k1=cond["k1"],
        k2=cond["k2"],
        bend=bend,
    )


def warp_maps(
    camera: Camera, to_px: np.ndarray, light_angle: float = 0.0, step: int = MAP_STEP
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Full-size remap tables (photo pixel → source pixel) and the bent paper's shading.

    The camera model is evaluated exactly on a coarse lattice whose points sit where
    ``cv2.resize``'s bilinear enlargement puts them (pixel ``(k + 0.5)·step − 0.5``), so the
    enlarged tables agree with the model at every lattice point. ``to_px`` is the 2×3 affine from
    grid units to source pixels. Shading: paper sloping towards the light (``light_angle``, in
    sheet directions) is brighter, away from it darker.
    """
    gw, gh = -(-camera.width // step), -(-camera.height // step)
    qx = (np.arange(gw) + 0.5) * step - 0.5
    qy = (np.arange(gh) + 0.5) * step - 0.5
    qxx, qyy = np.meshgrid(qx, qy)
    sx, sy = camera.photo_to_sheet(qxx, qyy)
    mx = to_px[0, 0] * sx + to_px[0, 1] * sy + to_px[0, 2]
    my = to_px[1, 0] * sx + to_px[1, 1] * sy + to_px[1, 2]
    bad = ~np.isfinite(mx) | ~np.isfinite(my)
    mx[bad], my[bad] = -1e5, -1e5
    shade = bend_shading(camera.bend, np.nan_to_num(sx), np.nan_to_num(sy), light_angle)
    size = (gw * step, gh * step)
    full = [
        cv2.resize(a.astype(np.float32), size, interpolation=cv2.INTER_LINEAR)[
            : camera.height, : camera.width
        ]
        for a in (mx, my, shade)
    ]
    return full[0], full[1], full[2]


def bend_shading(
    bend: Bend, sx: np.ndarray, sy: np.ndarray, light_angle: float, strength: float = 0.6
) -> np.ndarray:
    """Brightness of bent paper (1 = flat): the slope towards the light, in height per unit."""
    e = 0.05
    gx = (bend.height(sx + e, sy) - bend.height(sx - e, sy)) / (2 * e)
    gy = (bend.height(sx, sy + e) - bend.height(sx, sy - e)) / (2 * e)
    slope = gx * np.cos(light_angle) + gy * np.sin(light_angle)
    return np.clip(1 + strength * slope, 0.55, 1.35)


def light_field(w: int, h: int, cond: dict[str, Any], rng: np.random.Generator) -> np.ndarray:
    """Illumination (float32, ~1): a gradient, a soft spot, vignetting and maybe a cast shadow."""
    sw, sh = max(4, w // 16), max(4, h // 16)
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    xx, yy = xx / sw - 0.5, yy / sh - 0.5
    a = np.radians(cond["light_angle_deg"])
    field_ = 1 + cond["light_gradient"] * (xx * np.cos(a) + yy * np.sin(a))
    sx, sy = rng.uniform(-0.5, 0.5, 2)
    field_ += 0.15 * np.exp(-((xx - sx) ** 2 + (yy - sy) ** 2) / rng.uniform(0.05, 0.3))
    field_ *= 1 - cond["vignetting"] * (xx * xx + yy * yy) * 2  # lens fall-off towards the corners
    if cond["shadow"] > 0:
        mask = np.zeros((sh, sw), np.float32)
        centre = (float(rng.uniform(0, sw)), float(rng.uniform(0, sh)))
        box = cv2.boxPoints(
            (
                centre,
                (float(rng.uniform(0.3, 0.9) * sw), float(rng.uniform(0.3, 0.9) * sh)),
                float(rng.uniform(0, 180)),
            )
        )
        cv2.fillConvexPoly(mask, box.astype(np.int32), 1.0)  # the phone and the hand holding it
        edge = np.array(
            [
                [0, rng.uniform(0, sh)],
                [sw, rng.uniform(0, sh)],
                [rng.uniform(0, sw), 0],
                [rng.uniform(0, sw), sh],
            ]
        )
        arm_end = edge[int(rng.integers(4))]
        cv2.line(
            mask,
            (int(centre[0]), int(centre[1])),
            (int(arm_end[0]), int(arm_end[1])),
            1.0,
            max(1, int(rng.uniform(0.1, 0.25) * min(sw, sh))),
        )
        mask = cv2.GaussianBlur(mask, (0, 0), rng.uniform(0.02, 0.08) * max(sw, sh) + 0.5)
        field_ *= 1 - cond["shadow"] * mask
    return cv2.resize(field_, (w, h), interpolation=cv2.INTER_LINEAR)


def auto_exposure(img: np.ndarray, exposure: float, gains: np.ndarray) -> float:
    """The phone's exposure gain: bright parts (97th
    percentile, after ``gains``) to ``235 × exposure``."""
    sample = (img[::8, ::8] * gains).mean(axis=2)
    bright = float(np.percentile(sample, 97))
    return float(np.clip(235.0 * exposure / max(bright, 1.0), 0.3, 3.0))


def local_tone_gain(img: np.ndarray, strength: float) -> np.ndarray:
    """The phone's local tone mapping: shadows lifted, bright parts held (a smooth gain, ~1)."""
    h, w = img.shape[:2]
    small = cv2.resize(img, (max(4, w // 32), max(4, h // 32)), interpolation=cv2.INTER_AREA).mean(
        axis=2
    )
    local = cv2.GaussianBlur(small, (0, 0), max(1.0, small.shape[1] / 12)) + 1.0
    gain = np.clip((float(np.median(local)) / local) ** strength, 0.75, 2.0).astype(np.float32)
    return cv2.resize(gain, (w, h), interpolation=cv2.INTER_LINEAR)


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
    g = GEOMETRY.sheet
    tips = []
    for _ in range(n):
        side = str(rng.choice(list(FINGER_SIDES)))
        (lo, hi), inward = FINGER_SIDES[side]
        depth = rng.uniform(lo, hi)
        if side in ("left", "right"):
            tip = np.array([depth, rng.uniform(0.5, 10.5)])
        else:
            tip = np.array([rng.uniform(g.x0 + 1, g.x1 - 1), depth])
        ang = np.arctan2(-inward[1], -inward[0]) + rng.normal(0, 0.35)
        out = np.array([np.cos(ang), np.sin(ang)])
        side_v = np.array([-out[1], out[0]])
        width = rng.uniform(0.45, 0.62)  # half a finger's width: a cell is about 16 mm
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
            continue
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
        nail = np.zeros_like(mask)  # a paler nail near the tip
        nail_pts = camera.sheet_to_photo(*(centre + out * width * 0.35 + np.array([[0, 0]]))[0])
        cv2.ellipse(
            nail,
            (int(nail_pts[0] - x0), int(nail_pts[1] - y0)),
            (max(1, int(px_per_u * width * 0.55)), max(1, int(px_per_u * width * 0.75))),
            float(np.degrees(np.arctan2(*(pts[11] - pts[0])[::-1]))),
            0,
            360,
            1.0,
            -1,
            cv2.LINE_AA,
        )
        nail = cv2.GaussianBlur(nail, (0, 0), max(0.8, px_per_u * 0.05)) * soft
        shade += (nail * 40)[:, :, None]
        region[:] = region * (1 - soft[:, :, None]) + shade * soft[:, :, None]
        tips.append([round(float(tip[0]), 3), round(float(tip[1]), 3)])
    return tips


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


def motion_kernel(length: float, angle: float) -> np.ndarray:
    """A normalised line kernel for motion blur."""
    size = int(np.ceil(length)) | 1
    k = np.zeros((size, size), np.float32)
    c = size / 2 - 0.5
    d = np.array([np.cos(angle), np.sin(angle)]) * length / 2
    cv2.line(
        k,
        (int(round((c - d[0]) * 16)), int(round((c - d[1]) * 16))),
        (int(round((c + d[0]) * 16)), int(round((c + d[1]) * 16))),
        1.0,
        1,
        cv2.LINE_AA,
        4,
    )
    return k / max(k.sum(), 1e-6)


# ---- the public entry point -----------------------------------------------------------------


def pick(
    rng: np.random.Generator,
    name: str | None,
    family: str | None,
    families: dict[str, tuple[str, ...]],
    names: tuple[str, ...],
    what: str,
) -> str:
    """A style/background: the one named, else a random one of ``family``, else any."""
    if name is not None:
        if name not in names:
            raise ValueError(f"unknown {what} {name!r}: expected one of {', '.join(names)}")
        return name
    if family is not None:
        if family not in families:
            raise ValueError(
                f"unknown {what} family {family!r}: expected one of {', '.join(families)}"
            )
        return str(rng.choice(families[family]))
    return str(rng.choice(names))


def make_photo(
    seed: int,
    *,
    sheet: Sheet | None = None,
    style: str | None = None,
    condition: dict | None = None,
    megapixels: float | None = None,
    style_family: str | None = None,
    background: str | None = None,
    background_family: str | None = None,
    side: str | None = None,
    no_ink_twin: bool = False,
    printing: Printing | None = None,
    art_family: str | None = None,
) -> SynthPhoto:
    """One synthetic phone photo of a filled-in sheet and its truth; the same seed gives the same
    photo.

    ``no_ink_twin`` also makes ``twin``: the photo the player's sheet would give with nothing drawn
    on it (same paper, camera, light, noise draw, exposure and JPEG), so photo − twin is the ink's
    signal. ``printing`` draws the empty printed sheet (default: our own look-alike,
    :func:`render_sheet`); the photo's ``paper`` condition is handed to it as the variant.
    ``art_family`` picks one of
    :data:`vision.synth.art.ART_FAMILIES` instead (randomised within the family by the photo's
    seed).
    """
    # one independent stream per decision, so pinning one choice leaves the others as they were
    maps_rng, style_rng, bg_rng, cond_rng, ink_rng, rng = (
        np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(6)
    )
    source = "given"
    if sheet is None:
        sheet, source = choose_sheet(maps_rng, side)
    style = pick(style_rng, style, style_family, STYLE_FAMILIES, STYLES, "style")
    background = pick(
        bg_rng, background, background_family, BACKGROUND_FAMILIES, BACKGROUNDS, "background"
    )
    cond = sample_conditions(cond_rng, style)
    if megapixels is not None:
        cond["megapixels"] = float(megapixels)
    for key, value in (condition or {}).items():
        if key not in cond:
            raise ValueError(
                f"unknown photo condition {key!r}: expected some of {', '.join(sorted(cond))}"
            )
        cond[key] = value
    camera = camera_for(cond)
    px_per_u = float(np.clip(camera.local_scale() * 1.05, MIN_PX_PER_U, MAX_PX_PER_U))
    if printing is None and art_family not in (None, "lookalike"):
        from vision.synth.art import printing_of

        printing = printing_of(str(art_family))
    rendered = None if printing is None else printing(sheet.side, px_per_u, cond["paper"], ink_rng)
    drawn = draw_sheet(
        sheet, style, ink_rng, px_per_u=px_per_u, variant=cond["paper"], rendered=rendered
    )
    twin_rng = (
        copy.deepcopy(rng) if no_ink_twin else None
    )  # the twin's scene repeats the same draws
    img, tips = scene(drawn, camera, background, cond, rng)
    scenes = (
        [img]
        if twin_rng is None
        else [img, scene(without_ink(drawn), camera, background, cond, twin_rng)[0]]
    )
    jpegs = capture(scenes, camera, cond, rng)
    truth = photo_truth(drawn, camera, cond, style, background, source, seed, px_per_u, tips)
    truth["art_family"] = art_family or ("lookalike" if printing is None else "other")
    return SynthPhoto(jpegs[0], truth, drawn, jpegs[1] if no_ink_twin else None)


#: the conditions that place the camera and shape the paper: a retake keeps them, so the drawn
#: sheet's render resolution still suits the camera
GEOMETRY_CONDITIONS = (
    "megapixels",
    "aspect",
    "landscape",
    "paper",
    "tilt_deg",
    "azimuth_deg",
    "roll_deg",
    "hfov_deg",
    "fill",
    "offset",
    "k1",
    "k2",
    "bow_u",
    "bow_axis_deg",
    "curl_u",
    "curl_axis_deg",
    "fold_u",
    "fold_axis_deg",
    "fold_offset_u",
)


def retake(photo: SynthPhoto, take: int, condition: dict | None = None) -> SynthPhoto:
    """The same drawn sheet shot again from the same place: new light, shadow, white balance, blur,
    noise, exposure, JPEG, fingers and table (``take`` ≥ 1 picks the draws; ``condition`` pins
    some).

    Drawing the sheet is most of a photo's cost, so a retake gives training another photo for about
    half the price (``vision.train``, ``TrainConfig.takes``; measured, and not worth it
    yet: 3 % fewer wrong dev cells for 1.8 × the network time).

    >>> first = make_photo(5, megapixels=1.0, style="colour-symbols")
    >>> again = retake(first, 1)
    >>> again.truth["intersections"] == first.truth["intersections"], again.jpeg != first.jpeg
    (True, True)
    """
    if take < 1 or photo.drawn is None:
        raise ValueError("a retake needs take >= 1 and a photo made with its drawn sheet")
    truth = photo.truth
    cond_rng, rng = (
        np.random.default_rng(s) for s in np.random.SeedSequence([truth["seed"], take]).spawn(2)
    )
    cond = sample_conditions(cond_rng, truth["style"])
    cond.update({k: truth["conditions"][k] for k in GEOMETRY_CONDITIONS})
    cond.update(condition or {})
    camera = camera_for(cond)
    img, tips = scene(photo.drawn, camera, truth["background"], cond, rng)
    jpeg = capture([img], camera, cond, rng)[0]
    new_truth = photo_truth(
        photo.drawn,
        camera,
        cond,
        truth["style"],
        truth["background"],
        truth["map_source"],
        truth["seed"],
        truth["render_px_per_u"],
        tips,
    )
    return SynthPhoto(jpeg, new_truth, photo.drawn)


def without_ink(drawn: DrawnSheet) -> DrawnSheet:
    """The sheet as printed, before the player drew on it;
    a zero graphite layer keeps the sheen's draws."""
    graphite = None if drawn.graphite is None else np.zeros_like(drawn.graphite)
    return replace(drawn, image=drawn.rendered.image, graphite=graphite)


def scene(
    drawn: DrawnSheet,
    camera: Camera,
    background: str,
    cond: dict[str, Any],
    rng: np.random.Generator,
) -> tuple[np.ndarray, list]:
    """What reaches the lens (float32 BGR): table,
    sheet, objects and light. Also the finger tips."""
    w, h = camera.width, camera.height
    img = make_background(background, w, h, rng)
    if cond["second_sheet"]:
        second_sheet(img, rng)
    mx, my, shade = warp_maps(camera, drawn.rendered.affine, np.radians(cond["light_angle_deg"]))
    paper = cv2.remap(drawn.image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT).astype(
        np.float32
    )
    alpha = (
        cv2.remap(drawn.alpha, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT).astype(
            np.float32
        )
        / 255
    )
    sheen = None
    if (
        cond["graphite_sheen"] > 0 and drawn.graphite is not None
    ):  # graphite shines towards the lamp
        sheen = cv2.remap(drawn.graphite, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    del mx, my
    img = cv2.blendLinear(paper, img, alpha, 1 - alpha)  # the sheet over the table
    del paper
    if cond["pencil"]:
        draw_pencil(img, camera, rng)
    tips = draw_fingers(img, camera, int(cond["fingers"]), rng)
    # one brightness factor per pixel: the bent paper's shading on the sheet, the sheet's own soft
    # drop shadow on the table (worked out small: it is blurry anyway), and the room's light
    small = cv2.resize(alpha, (max(2, w // 8), max(2, h // 8)), interpolation=cv2.INTER_AREA)
    drop = cv2.resize(cv2.GaussianBlur(small, (0, 0), max(0.5, 0.0005 * max(w, h))), (w, h))
    brightness = light_field(w, h, cond, rng)
    brightness *= alpha * shade + (1 - alpha) * (1 - 0.25 * drop)
    del alpha, shade, drop
    img *= brightness[:, :, None]
    if sheen is not None:
        spot = cv2.resize(
            light_field(
                max(16, w // 16), max(16, h // 16), dict(cond, shadow=0.0, vignetting=0.0), rng
            ),
            (w, h),
        )
        lift = (
            sheen.astype(np.float32) * (cond["graphite_sheen"] * 0.5) * np.clip(spot - 0.8, 0, None)
        )
        img += lift[:, :, None]
    return img, tips


def capture(
    scenes: list[np.ndarray], camera: Camera, cond: dict[str, Any], rng: np.random.Generator
) -> list[bytes]:
    """What the phone makes of the scene: white balance, exposure, glare, blur, sharpening, noise,
    JPEG.

    The phone meters on ``scenes[0]``; any further scene (a no-ink twin) gets the same exposure,
    tone gain, glare, noise draw and noise level, so the JPEGs differ only where the scenes do.
    """
    w, h = camera.width, camera.height
    gains = np.array(cond["white_balance"], np.float32)
    exposure = (gains * auto_exposure(scenes[0], cond["exposure"], gains))[None, None, :]
    for img in scenes:
        img *= exposure
    if cond["local_tone"] > 0:
        tone = local_tone_gain(scenes[0], cond["local_tone"])[:, :, None]
        for img in scenes:
            img *= tone
    if cond["glare"] > 0:
        gx, gy = camera.sheet_to_photo(rng.uniform(1, 10), rng.uniform(1, 10))
        glare = np.zeros((h // 8 + 1, w // 8 + 1), np.float32)
        cv2.ellipse(
            glare,
            (int(gx / 8), int(gy / 8)),
            (int(w / 40) + 1, int(h / 60) + 1),
            float(rng.uniform(0, 180)),
            0,
            360,
            1.0,
            -1,
        )
        glare = cv2.resize(cv2.GaussianBlur(glare, (0, 0), w / 200 + 1), (w, h))
        for img in scenes:
            img += (255 * cond["glare"] * glare)[:, :, None]
    scale = max(w, h) / 4000  # blur and noise sizes are given for a 12 MP photo
    if cond["defocus_px"] > 0.3:
        scenes = [
            cv2.GaussianBlur(img, (0, 0), cond["defocus_px"] * scale + 0.01) for img in scenes
        ]
    if cond["motion_px"] >= 1:
        kernel = motion_kernel(
            max(1.0, cond["motion_px"] * scale), np.radians(cond["motion_angle_deg"])
        )
        scenes = [cv2.filter2D(img, -1, kernel) for img in scenes]
    if cond["sharpen"] > 0:  # the phone's own sharpening (unsharp mask): halos along edges
        scenes = [
            cv2.addWeighted(
                img,
                1 + cond["sharpen"],
                cv2.GaussianBlur(img, (0, 0), 1.2 * scale + 0.3),
                -cond["sharpen"],
                0,
            )
            for img in scenes
        ]
    noise = rng.standard_normal((h, w), dtype=np.float32)
    noise *= noise_sigma(scenes[0], cond["noise"])
    for img in scenes:
        img += noise[:, :, None]
    return [develop(img, cond) for img in scenes]


def noise_sigma(img: np.ndarray, noise: float) -> np.ndarray:
    """The sensor noise's standard deviation at each pixel of a float BGR picture: stronger in
    bright parts (shot noise), the brightness taken from a 1/16 copy; ``noise`` is the condition's
    level."""
    h, w = img.shape[:2]
    small = cv2.resize(img, (max(2, w // 16), max(2, h // 16)), interpolation=cv2.INTER_AREA)
    return np.sqrt(np.clip(cv2.resize(small.mean(axis=2), (w, h)), 1, 255) / 128) * noise


def develop(img: np.ndarray, cond: dict[str, Any]) -> bytes:
    """The JPEG of a finished picture (float BGR): rounded, saturated, compressed (maybe twice)."""
    jpeg = encode_jpeg(
        cv2.convertScaleAbs(img), int(cond["jpeg_quality"])
    )  # rounds, saturates to 0…255
    if cond["resent_quality"]:  # a messenger app decodes and compresses it again, harder
        jpeg = encode_jpeg(
            cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR),
            int(cond["resent_quality"]),
        )
    return jpeg


def encode_jpeg(image: np.ndarray, quality: int) -> bytes:
    """JPEG bytes of a BGR image."""
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return data.tobytes()


def photo_truth(
    drawn: DrawnSheet,
    camera: Camera,
    cond: dict,
    style: str,
    background: str,
    source: str,
    seed: int,
    px_per_u: float,
    tips: list,
) -> dict:
    """The truth JSON of one photo (``docs/synth.md`` describes every field)."""
    xs, ys = np.meshgrid(np.arange(GRID + 1, dtype=float), np.arange(GRID + 1, dtype=float))
    inter = camera.sheet_to_photo(xs, ys)  # [j][i] = grid point x=i, y=j
    corners = camera.sheet_to_photo(
        np.array([0.0, GRID, GRID, 0.0]), np.array([0.0, 0.0, GRID, GRID])
    )
    g = GEOMETRY
    coins = np.array([g.coin_centre(i) for i in range(g.coin_count)])
    sheet_box = camera.sheet_to_photo(
        np.array([g.sheet.x0, g.sheet.x1, g.sheet.x1, g.sheet.x0]),
        np.array([g.sheet.y0, g.sheet.y0, g.sheet.y1, g.sheet.y1]),
    )
    r2 = lambda a: np.round(a, 3).tolist()  # noqa: E731
    t = dict(drawn.truth)
    t.update(
        {
            "seed": seed,
            "map_source": source,
            "style_family": style_family(style),
            "background": background,
            "background_family": background_family(background),
            "conditions": cond,
            "width": camera.width,
            "height": camera.height,
            "grid_corners": r2(corners),
            "intersections": r2(inter),
            "coin_centres": r2(camera.sheet_to_photo(coins[:, 0], coins[:, 1])),
            "sheet_corners": r2(sheet_box),
            "coins": drawn.truth["sheet"]["coins"],
            "render_px_per_u": round(px_per_u, 3),
            "finger_tips_u": tips,
        }
    )
    return t


def truth_overlay(image: np.ndarray, truth: dict, max_side: int = 1600) -> np.ndarray:
    """A debug picture: the photo (shrunk to ``max_side``)
    with the truth's grid, corners and coins."""
    scale = min(1.0, max_side / max(image.shape[:2]))
    out = (
        cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        if scale < 1
        else image.copy()
    )
    inter = np.array(truth["intersections"]) * scale
    pts = lambda a: np.round(a * 16).astype(np.int32)  # noqa: E731
    for k in range(GRID + 1):
        cv2.polylines(
            out, [pts(inter[k, :, :]), pts(inter[:, k, :])], False, (0, 255, 255), 1, cv2.LINE_AA, 4
        )
    for name, (x, y) in zip(("TL", "TR", "BR", "BL"), np.array(truth["grid_corners"]) * scale):
        cv2.circle(out, (int(x), int(y)), 6, (0, 0, 255), 2, cv2.LINE_AA)
        cv2.putText(
            out,
            name,
            (int(x) + 8, int(y) - 8),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.6,
            (0, 0, 255),
            2,
            cv2.LINE_AA,
        )
    coins = truth["coins"]
    for i, (x, y) in enumerate(np.array(truth["coin_centres"]) * scale):
        cv2.circle(
            out, (int(x), int(y)), 5, (0, 200, 0) if i < coins else (200, 200, 200), -1, cv2.LINE_AA
        )
    cells = truth["sheet"]["cells"]
    for r in range(GRID):
        for c in range(GRID):
            if cells[r][c] != "empty":
                x, y = (inter[r, c] + inter[r + 1, c + 1]) / 2
                cv2.putText(
                    out,
                    cells[r][c][:2],
                    (int(x) - 8, int(y) + 5),
                    cv2.FONT_HERSHEY_SIMPLEX,
                    0.4,
                    (255, 0, 255),
                    1,
                    cv2.LINE_AA,
                )
    return out
