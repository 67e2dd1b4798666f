"""Fuzzing the image loader with random mutations of the sample photos (hypothesis).

Bytes flipped, cut, inserted or repeated, and the size fields of the JPEG / PNG headers forged.
The contract: ``vision.load.load_photo`` returns upright pixels or raises ``PhotoError`` with a
stable code; the upload sniffer (``api.uploads``) never raises; the full reader
(``vision.read_photo``) answers a reading or a ``PhotoError``. Nothing else, and no hang (each call
runs under a generous guard: a hang detector, not a speed test).
"""

from __future__ import annotations

import struct
import threading
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.uploads import image_kind, image_size
from vision import read_photo
from vision.load import LoadedPhoto, PhotoError, load_photo

ROOT = Path(__file__).resolve().parents[1]
JPEG = (ROOT / "samples" / "typical-a.jpg").read_bytes()
PNG = cv2.imencode(
    ".png", cv2.resize(cv2.imdecode(np.frombuffer(JPEG, np.uint8), cv2.IMREAD_COLOR), (800, 600))
)[1].tobytes()
PHOTO_CODES = {
    "empty-file",
    "not-an-image",
    "too-many-pixels",
    "heic-unsupported",
    "no-grid",
    "wrong-side",
    "unreadable-photo",
    "blurred",
    "too-small",
}
GUARD_S = 60.0


def jpeg_sof_offset(data: bytes) -> int | None:
    """Where the first start-of-frame segment's height field is."""
    i = 2
    while i + 9 < len(data) and data[i] == 0xFF:
        marker = data[i + 1]
        (length,) = struct.unpack(">H", data[i + 2 : i + 4])
        if marker in (0xC0, 0xC1, 0xC2):
            return i + 5
        i += 2 + length
    return None


def forge_size(data: bytes, width: int, height: int) -> bytes:
    """The photo with the size its header claims replaced
    (PNG: CRC fixed, so only the size lies)."""
    if data.startswith(b"\x89PNG"):
        ihdr = struct.pack(">II", width, height) + data[24:29]
        return data[:16] + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr)) + data[33:]
    at = jpeg_sof_offset(data)
    if at is None:
        return data
    return data[:at] + struct.pack(">HH", min(height, 65535), min(width, 65535)) + data[at + 4 :]


@st.composite
def mutated_photo(draw) -> bytes:
    """A sample photo (JPEG or PNG) with one to four random mutations."""
    data = bytearray(draw(st.sampled_from([JPEG, PNG])))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(
            st.sampled_from(
                ["flip", "flip-header", "cut", "insert", "repeat", "forge-size", "zero-run"]
            )
        )
        at = draw(st.integers(0, len(data) - 1)) if data else 0
        if kind == "flip" and data:
            data[at] ^= draw(st.integers(1, 255))
        elif kind == "flip-header" and data:
            pos = at % min(len(data), 1024)
            data[pos] ^= draw(st.integers(1, 255))
        elif kind == "cut":
            data = data[:at]
        elif kind == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=64))
        elif kind == "repeat":
            data[at:at] = data[at : at + draw(st.integers(1, 4096))]
        elif kind == "forge-size":
            data = bytearray(
                forge_size(
                    bytes(data), draw(st.integers(0, 200_000)), draw(st.integers(0, 200_000))
                )
            )
        elif kind == "zero-run":
            n = draw(st.integers(1, 20_000))
            data[at : at + n] = bytes(min(n, len(data) - at))
    return bytes(data)


def guarded(fn: Callable[[], Any]) -> tuple[Any, BaseException | None]:
    """``fn()`` in a thread: its result or exception;
    fails if it does not return within the guard."""
    outcome: list = []

    def work() -> None:
        try:
            outcome.append((fn(), None))
        except BaseException as e:  # noqa: BLE001 — classified by the caller
            outcome.append((None, e))

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(GUARD_S)
    assert outcome, f"no answer within {GUARD_S:.0f} s (a hang)"
    return outcome[0]


def assert_photo_error_or(result: Any, error: BaseException | None, kind: type) -> None:
    if error is None:
        assert isinstance(result, kind)
        return
    assert isinstance(error, PhotoError), f"{type(error).__name__}: {error}"
    assert error.code in PHOTO_CODES and error.message, (error.code, error.message)


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,
)
@given(mutated_photo())
def test_loader_decodes_or_refuses_mutated_photos(data):
    result, error = guarded(lambda: load_photo(data))
    assert_photo_error_or(result, error, LoadedPhoto)
    if error is None:
        h, w = result.image.shape[:2]
        assert h > 0 and w > 0 and result.image.dtype == np.uint8 and result.image.shape[2] == 3
        assert result.original_size[0] * result.original_size[1] <= 120_000_000


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,
)
@given(mutated_photo() | st.binary(max_size=64))
def test_upload_sniffer_never_raises(data):
    kind = image_kind(data)
    size = image_size(data, kind) if kind else None
    assert size is None or (len(size) == 2 and all(isinstance(v, int) and v >= 0 for v in size))


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,
)
@given(mutated_photo())
def test_reader_reads_or_refuses_mutated_photos(data):
    result, error = guarded(lambda: read_photo(data))
    if error is None:
        assert result.sheet.side in ("A", "B")
    else:
        assert_photo_error_or(result, error, object)
