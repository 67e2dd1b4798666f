"""The no-ink twin of a synthetic photo (``make_photo(..., no_ink_twin=True)``): the same photo with
nothing drawn on the sheet, so photo − twin is exactly the player's ink
(``benchmarks/legibility.py``)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.synth import make_photo
from vision.synth.photo import camera_for, warp_maps

SEED = 50918001  # this test's seed block: 509180xx–509199xx
JPEG_BLOCK = (
    16  # a JPEG macroblock with 4:2:0 chroma: ink changes every pixel of the blocks it touches
)
UPSAMPLE_PX = (
    2  # and the decoder's smooth chroma upsampling carries it this far into the next block
)
SHARP = {
    "defocus_px": 0.0,
    "motion_px": 0.0,
    "sharpen": 0.0,
    "resent_quality": 0,
    "jpeg_quality": 90,
}


def decode(jpeg: bytes) -> np.ndarray:
    """A JPEG as float BGR."""
    return cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR).astype(np.float32)


@pytest.fixture(scope="module")
def photo():
    """A small sharp photo (no blur spreading the ink) and its twin."""
    return make_photo(SEED, megapixels=1.0, condition=SHARP, no_ink_twin=True)


def ink_reach(photo) -> np.ndarray:
    """Photo pixels whose JPEG block any ink of the drawn sheet can reach (bool)."""
    drawn = photo.drawn
    ink = np.any(drawn.image != drawn.rendered.image, axis=2).astype(np.float32)
    camera = camera_for(photo.truth["conditions"])
    mx, my, _ = warp_maps(camera, drawn.rendered.affine)
    seen = cv2.remap(ink, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT) > 0
    seen = cv2.dilate(seen.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    h, w = seen.shape
    bh, bw = -(-h // JPEG_BLOCK), -(-w // JPEG_BLOCK)
    padded = np.zeros((bh * JPEG_BLOCK, bw * JPEG_BLOCK), bool)
    padded[:h, :w] = seen
    blocks = padded.reshape(bh, JPEG_BLOCK, bw, JPEG_BLOCK).any(axis=(1, 3))
    reach = np.repeat(np.repeat(blocks, JPEG_BLOCK, 0), JPEG_BLOCK, 1)[:h, :w].astype(np.uint8)
    return cv2.dilate(reach, np.ones((2 * UPSAMPLE_PX + 1,) * 2, np.uint8)) > 0


def test_twin_leaves_the_photo_unchanged(photo):
    assert make_photo(SEED, megapixels=1.0, condition=SHARP).jpeg == photo.jpeg
    assert photo.twin is not None and photo.twin != photo.jpeg


def test_twin_equals_the_photo_away_from_the_ink(photo):
    d = np.abs(decode(photo.jpeg) - decode(photo.twin)).max(axis=2)
    reach = ink_reach(photo)
    assert 0.05 < reach.mean() < 0.9  # the test looks at both sides
    assert d[~reach].max() == 0


def test_twin_differs_inside_a_drawn_cell(photo):
    d = np.abs(decode(photo.jpeg) - decode(photo.twin)).max(axis=2)
    inter = np.asarray(photo.truth["intersections"], float)
    cells = photo.truth["sheet"]["cells"]
    ((r, c),) = [
        (r, c)
        for r in range(11)
        for c in range(11)
        if cells[r][c] not in ("empty", "mountain", "wasteland")
    ][:1]
    quad = np.array([inter[r, c], inter[r, c + 1], inter[r + 1, c + 1], inter[r + 1, c]])
    mask = np.zeros(d.shape, np.uint8)
    cv2.fillPoly(mask, [np.round(quad).astype(np.int32)], 1)
    assert d[mask > 0].mean() > 2.0  # grey levels: the mark is there in the photo, not in the twin
