"""The photo loader: refusals by code, the pixel-count check before decoding, EXIF orientation."""

from __future__ import annotations

import io
import struct
import zlib

import numpy as np
import pytest
from PIL import Image

from vision.load import (
    MAX_PIXELS,
    PhotoError,
    apply_orientation,
    load_photo,
    reduction_for,
    sniff_format,
)


def png_header_only(width: int, height: int) -> bytes:
    """A PNG whose header claims ``width`` × ``height`` but carries almost no data."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = lambda kind, data: (
        struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    )  # noqa: E731
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\x00" * 10))
        + chunk(b"IEND", b"")
    )


def jpeg_bytes(array: np.ndarray, orientation: int | None = None) -> bytes:
    """An RGB array as JPEG, with an EXIF orientation tag if given."""
    img = Image.fromarray(array)
    buf = io.BytesIO()
    if orientation is None:
        img.save(buf, "JPEG", quality=95)
    else:
        exif = Image.Exif()
        exif[0x0112] = orientation
        img.save(buf, "JPEG", quality=95, exif=exif.tobytes())
    return buf.getvalue()


@pytest.mark.parametrize(
    "data, code",
    [
        (b"", "empty-file"),
        (b"hello, this is not a photo", "not-an-image"),
        (b"\xff\xd8\xff\xe0" + b"\x00" * 40, "not-an-image"),  # a JPEG start, then garbage
        (
            png_header_only(100_000, 100_000),
            "too-many-pixels",
        ),  # 10 gigapixels claimed in ~60 bytes
    ],
)
def test_bad_photos_are_refused_with_a_code(data: bytes, code: str) -> None:
    with pytest.raises(PhotoError) as e:
        load_photo(data)
    assert e.value.code == code
    assert e.value.message


def test_pixel_limit_is_checked_from_the_header() -> None:
    side = int(MAX_PIXELS**0.5) + 10
    data = png_header_only(side, side)
    assert len(data) < 200
    with pytest.raises(PhotoError, match="MP"):
        load_photo(data)


def test_heic_without_the_extra_names_the_extra() -> None:
    pytest.importorskip("PIL")
    try:
        import pillow_heif  # noqa: F401

        pytest.skip("pillow-heif is installed")
    except ImportError:
        pass
    data = b"\x00\x00\x00\x18ftypheic" + b"\x00" * 64
    with pytest.raises(PhotoError) as e:
        load_photo(data)
    assert e.value.code == "heic-unsupported"
    assert "cartographers[heic]" in e.value.message


@pytest.mark.parametrize(
    "raw, fmt",
    [
        (b"\xff\xd8\xff\xdb", "jpeg"),
        (b"\x89PNG\r\n\x1a\n", "png"),
        (b"\x00\x00\x00\x18ftypheic", "heic"),
        (b"GIF89a", "unknown"),
    ],
)
def test_format_sniffing(raw: bytes, fmt: str) -> None:
    assert sniff_format(raw + b"\x00" * 16) == fmt


@pytest.mark.parametrize(
    "orientation, shape, corner",
    [
        (1, (120, 200), "top-left"),
        (3, (120, 200), "bottom-right"),
        (6, (200, 120), "top-right"),  # rotated 90° clockwise to be upright
        (8, (200, 120), "bottom-left"),
    ],
)
def test_exif_orientation_is_applied(orientation: int, shape: tuple[int, int], corner: str) -> None:
    rgb = np.full((120, 200, 3), 255, np.uint8)
    rgb[:30, :30] = (255, 0, 0)  # a red mark in the stored top-left corner
    loaded = load_photo(jpeg_bytes(rgb, orientation))
    assert loaded.image.shape[:2] == shape
    h, w = shape
    where = {
        "top-left": (5, 5),
        "top-right": (5, w - 6),
        "bottom-left": (h - 6, 5),
        "bottom-right": (h - 6, w - 6),
    }
    y, x = where[corner]
    b, g, r = loaded.image[y, x]
    assert r > 200 and g < 80 and b < 80


def test_apply_orientation_flip() -> None:
    a = np.arange(6).reshape(2, 3)
    assert apply_orientation(a, 2).tolist() == [[2, 1, 0], [5, 4, 3]]


@pytest.mark.parametrize(
    "w, h, factor",
    [
        (800, 600, 1),
        (4000, 3000, 2),
        (8000, 6000, 4),
        (16000, 12000, 8),
        (40000, 30000, 8),
        (3000, 2000, 1),
    ],
)
def test_reduction_keeps_enough_pixels(w: int, h: int, factor: int) -> None:
    assert reduction_for(w, h) == factor


def test_large_jpeg_is_decoded_reduced_with_scale() -> None:
    rgb = np.full((3000, 4200, 3), 200, np.uint8)
    loaded = load_photo(jpeg_bytes(rgb))
    assert loaded.scale == 2
    assert loaded.image.shape[:2] == (1500, 2100)
    assert loaded.original_size == (4200, 3000)
