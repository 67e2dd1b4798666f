"""The random capture conditions of one photo (pose, lens, paper bend, light, blur, noise, JPEG,
objects) and the camera they describe."""

from __future__ import annotations

from typing import Any

import numpy as np

from vision.synth.camera import Bend, Camera, place_camera
from vision.synth.pens import style_family

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


def photo_conditions(
    rng: np.random.Generator,
    style: str,
    megapixels: float | None = None,
    condition: dict | None = None,
) -> dict[str, Any]:
    """Random conditions for one photo in ``style``, with ``megapixels`` and ``condition``'s
    entries pinned (an unknown condition's name is an error)."""
    cond = sample_conditions(rng, style)
    if megapixels is not None:
        cond["megapixels"] = float(megapixels)
    for key, value in (condition or {}).items():
        if key not in cond:
            raise ValueError(
                f"unknown photo condition {key!r}: expected some of {', '.join(sorted(cond))}"
            )
        cond[key] = value
    return cond
