"""What the phone makes of the light reaching it: white balance, exposure, local tone, glare,
blur, sharpening, sensor noise and JPEG compression."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from vision.synth.camera import Camera


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
