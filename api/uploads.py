"""Checking an uploaded photo before anything decodes it: what kind of file it is (from its first
bytes, never from the file name or the client's content type) and how many pixels it claims.

Refusing a 200-megapixel JPEG from its header costs microseconds; decoding it first costs
gigabytes.
"""

from __future__ import annotations

import struct

from vision.load import image_kind  # the one magic-bytes table; re-exported for the service

__all__ = ["image_kind", "image_size"]

#: JPEG start-of-frame markers, the segments that hold the picture's size.
JPEG_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from the first start-of-frame segment."""
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD9)):  # markers without a length
            i += 2
            continue
        (length,) = struct.unpack(">H", data[i + 2 : i + 4])
        if marker in JPEG_SOF:
            height, width = struct.unpack(">HH", data[i + 5 : i + 9])
            return width, height
        i += 2 + length
    return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from the VP8 / VP8L / VP8X chunk header."""
    chunk = data[12:16]
    if chunk == b"VP8X" and len(data) >= 30:
        return 1 + int.from_bytes(data[24:27], "little"), 1 + int.from_bytes(data[27:30], "little")
    if chunk == b"VP8 " and len(data) >= 30:
        w, h = struct.unpack("<HH", data[26:30])
        return w & 0x3FFF, h & 0x3FFF
    if chunk == b"VP8L" and len(data) >= 25:
        bits = int.from_bytes(data[21:25], "little")
        return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
    return None


def image_size(data: bytes, kind: str) -> tuple[int, int] | None:
    """The ``(width, height)`` the file's header claims, or ``None`` when it cannot tell cheaply."""
    try:
        if kind == "png" and len(data) >= 24:
            return struct.unpack(">II", data[16:24])
        if kind == "jpeg":
            return _jpeg_size(data)
        if kind == "webp":
            return _webp_size(data)
        if kind == "bmp" and len(data) >= 26:
            w, h = struct.unpack("<ii", data[18:26])
            return abs(w), abs(h)
    except struct.error:
        return None
    return None
