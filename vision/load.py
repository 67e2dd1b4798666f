"""Loading a phone photo safely: size checked from the header, EXIF orientation applied.

JPEG and PNG (and anything else OpenCV decodes) are read directly; HEIC needs the optional extra
``cartographers[heic]`` (``pillow-heif``). The pixel count is read from the file header *before*
decoding, so a tiny file that claims to be gigapixels is refused without allocating it.
Large photos are decoded at a reduced scale (JPEG DCT scaling): the reader never needs 48 MP.
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

MAX_FILE_BYTES = 64 * 1024 * 1024  # no phone photo is this large
MAX_PIXELS = 120_000_000  # 108 MP phones exist; anything larger is refused
TARGET_LONG_SIDE = 2000  # decode at the smallest power-of-two reduction keeping this many px

#: EXIF orientation tag → (rotations of 90° counter-clockwise, flip left-right first)
_EXIF_ORIENTATION = {
    1: (0, False),
    2: (0, True),
    3: (2, False),
    4: (2, True),
    5: (1, True),
    6: (3, False),
    7: (3, True),
    8: (1, False),
}


class PhotoError(ValueError):
    """A photo the reader cannot read; ``code`` is stable (interfaces), ``message`` for people."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class LoadedPhoto:
    """A decoded photo (BGR, orientation applied) and how it relates to the file's pixels."""

    image: np.ndarray  # BGR uint8, possibly reduced
    scale: float  # file pixels per image pixel (1, 2, 4 or 8)
    original_size: tuple[int, int]  # (width, height) after orientation, in file pixels
    format: str


def read_bytes(data: bytes | str | Path) -> bytes:
    """The raw bytes of ``data`` (bytes, or a path), refusing empty or oversized files."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        raw = bytes(data)
    else:
        path = Path(data)
        if not path.exists():
            raise FileNotFoundError(f"{path}: no such file")
        if path.is_dir():
            raise PhotoError("not-an-image", f"{path} is a folder, not a photo")
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise PhotoError(
                "too-many-pixels", f"{path} is {size} bytes; the limit is {MAX_FILE_BYTES}"
            )
        raw = path.read_bytes()
    if not raw:
        raise PhotoError("empty-file", "the photo file is empty")
    if len(raw) > MAX_FILE_BYTES:
        raise PhotoError(
            "too-many-pixels", f"the photo is {len(raw)} bytes; the limit is {MAX_FILE_BYTES}"
        )
    return raw


#: Leading bytes → image kind; the one table both the reader and the service's upload check use.
MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\xff\xd8\xff", "jpeg"),
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"BM", "bmp"),
    (b"II*\x00", "tiff"),
    (b"MM\x00*", "tiff"),
    (b"GIF87a", "gif"),
    (b"GIF89a", "gif"),
)
HEIF_BRANDS = (b"heic", b"heix", b"hevc", b"hevx", b"mif1", b"msf1", b"heim", b"heis")
#: The kinds this loader decodes (HEIC through the optional extra).
DECODED_KINDS = frozenset({"jpeg", "png", "heic", "bmp", "webp", "tiff"})


def image_kind(raw: bytes) -> str | None:
    """The image kind from the first bytes (never the file name or content type), or ``None``.

    >>> image_kind(b"\\x89PNG\\r\\n\\x1a\\n...."), image_kind(b"%PDF-1.7")
    ('png', None)
    """
    for magic, kind in MAGIC:
        if raw.startswith(magic):
            return kind
    if raw[:4] == b"RIFF" and raw[8:12] == b"WEBP":
        return "webp"
    if raw[4:8] == b"ftyp" and raw[8:12] in HEIF_BRANDS:
        return "heic"
    return None


def sniff_format(raw: bytes) -> str:
    """A kind this loader decodes, from the magic bytes; ``unknown`` otherwise (a GIF included)."""
    kind = image_kind(raw)
    return kind if kind in DECODED_KINDS else "unknown"


def _open_header(raw: bytes, fmt: str) -> Image.Image:
    """Pillow image opened lazily (header only), HEIC through the optional plugin."""
    if fmt == "heic":
        try:
            import pillow_heif  # optional extra
        except ImportError:
            raise PhotoError(
                "heic-unsupported",
                "HEIC photos need the optional extra: pip install 'cartographers[heic]'",
            ) from None
        pillow_heif.register_heif_opener()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            return Image.open(io.BytesIO(raw))
    except Image.DecompressionBombError as e:
        raise PhotoError("too-many-pixels", f"the photo claims too many pixels ({e})") from None
    except Exception:  # Pillow raises many types for garbage
        raise PhotoError(
            "not-an-image", "the file is not an image this reader understands (JPEG, PNG, HEIC)"
        ) from None


def exif_orientation(img: Image.Image) -> int:
    """The EXIF orientation tag (1…8), 1 when absent or invalid."""
    try:
        value = int(img.getexif().get(0x0112, 1))
    except Exception:
        return 1
    return value if value in _EXIF_ORIENTATION else 1


def apply_orientation(image: np.ndarray, orientation: int) -> np.ndarray:
    """Turn decoded pixels upright as the EXIF orientation tag says."""
    quarter_turns, flip = _EXIF_ORIENTATION.get(orientation, (0, False))
    if flip:
        image = image[:, ::-1]
    if quarter_turns:
        image = np.rot90(image, quarter_turns)
    return np.ascontiguousarray(image)


def reduction_for(width: int, height: int, target: int = TARGET_LONG_SIDE) -> int:
    """The largest of 1, 2, 4, 8 that keeps the long side at least ``target`` px."""
    factor = 1
    while factor < 8 and max(width, height) / (factor * 2) >= target:
        factor *= 2
    return factor


_REDUCED_FLAGS = {
    1: cv2.IMREAD_COLOR,
    2: cv2.IMREAD_REDUCED_COLOR_2,
    4: cv2.IMREAD_REDUCED_COLOR_4,
    8: cv2.IMREAD_REDUCED_COLOR_8,
}


def load_photo(data: bytes | str | Path, target_long_side: int = TARGET_LONG_SIDE) -> LoadedPhoto:
    """Decode a photo to upright BGR pixels, refusing empty, non-image and oversized files."""
    raw = read_bytes(data)
    fmt = sniff_format(raw)
    header = _open_header(raw, fmt)
    width, height = header.size
    if width * height > MAX_PIXELS:
        raise PhotoError(
            "too-many-pixels",
            f"the photo is {width}×{height} = {width * height / 1e6:.0f} MP; the limit is "
            f"{MAX_PIXELS / 1e6:.0f} MP",
        )
    if width < 64 or height < 64:
        raise PhotoError(
            "no-grid", f"the photo is only {width}×{height} px: no map grid can be read"
        )
    orientation = exif_orientation(header)
    factor = reduction_for(width, height, target_long_side)
    image = None
    if fmt in ("jpeg", "png", "bmp", "tiff", "webp"):
        buf = np.frombuffer(raw, np.uint8)
        flags = _REDUCED_FLAGS[factor if fmt == "jpeg" else 1] | cv2.IMREAD_IGNORE_ORIENTATION
        image = cv2.imdecode(buf, flags)
        if image is not None and fmt != "jpeg" and factor > 1:
            image = cv2.resize(
                image, (width // factor, height // factor), interpolation=cv2.INTER_AREA
            )
    if image is None:  # HEIC, or a file OpenCV refuses: Pillow decodes
        try:
            pil = header.convert("RGB")
        except Exception:
            raise PhotoError(
                "not-an-image", "the image data is damaged and cannot be decoded"
            ) from None
        image = cv2.cvtColor(np.asarray(pil), cv2.COLOR_RGB2BGR)
        if factor > 1:
            image = cv2.resize(
                image, (width // factor, height // factor), interpolation=cv2.INTER_AREA
            )
    image = apply_orientation(image, orientation)
    scale = width / (image.shape[1] if orientation < 5 else image.shape[0])
    size = (width, height) if orientation < 5 else (height, width)
    return LoadedPhoto(image=image, scale=scale, original_size=size, format=fmt)
