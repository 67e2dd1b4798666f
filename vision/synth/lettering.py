"""Printed words in any alphabet: text OpenCV's Hershey fonts cannot draw (accents, Cyrillic) is
set in a TrueType font through Pillow.

The font is DejaVu Sans Bold, as heavy as the Hershey lettering beside it, else DejaVu Sans (both in
Debian's ``fonts-dejavu-core``), looked for at their usual places and then through fontconfig
(``fc-match``); a font is used only if it has a glyph for every letter of the text. Without one,
:class:`FontMissing` says what to install.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
from pathlib import Path

import cv2
import numpy as np

#: Where DejaVu Sans usually is: Debian and Ubuntu, Fedora, Arch, Homebrew on macOS.
FONT_DIRS = (
    "/usr/share/fonts/truetype/dejavu",
    "/usr/share/fonts/dejavu",
    "/usr/share/fonts/dejavu-sans-fonts",
    "/usr/share/fonts/TTF",
    "/opt/homebrew/share/fonts",
    "/usr/local/share/fonts",
)
FONT_FILES = ("DejaVuSans-Bold.ttf", "DejaVuSans.ttf")  # the first one found that has the letters
_REFERENCE_PX = 100  # the size a font is measured at


class FontMissing(LookupError):
    """No font on this machine can print the text."""

    def __init__(self, text: str):
        super().__init__(
            f"no font here can print {text!r}: install DejaVu Sans "
            "(Debian and Ubuntu: apt-get install fonts-dejavu-core)"
        )
        self.text = text


def _fontconfig_candidates(text: str) -> list[str]:
    """The file fontconfig picks for DejaVu Sans covering ``text``'s letters (none without it)."""
    if shutil.which("fc-match") is None:
        return []
    charset = " ".join(f"{ord(ch):x}" for ch in sorted(set(text)) if not ch.isspace())
    try:
        done = subprocess.run(
            ["fc-match", "--format=%{file}", f"DejaVu Sans:bold:charset={charset}"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return []
    path = done.stdout.strip()
    return [path] if done.returncode == 0 and path else []


def _covers(path: str, text: str) -> bool:
    """Whether the font at ``path`` loads and has a glyph for every letter of ``text``."""
    from PIL import ImageFont

    try:
        font = ImageFont.truetype(path, _REFERENCE_PX)
    except OSError:
        return False
    missing = bytes(font.getmask(chr(0x10FFFD)))  # a private-use point: the font's "no glyph"
    return all(ch.isspace() or bytes(font.getmask(ch)) != missing for ch in set(text))


@functools.cache
def font_for(text: str) -> Path | None:
    """A TrueType font that can print every letter of ``text``, or None."""
    usual = [f"{folder}/{name}" for name in FONT_FILES for folder in FONT_DIRS]
    for path in (*usual, *_fontconfig_candidates(text)):
        if Path(path).is_file() and _covers(path, text):
            return Path(path)
    return None


def hershey_cap_px(font: int, scale: float, thick: int) -> float:
    """How tall OpenCV draws a capital in a Hershey ``font`` (its ink, in pixels)."""
    (_tw, th), _base = cv2.getTextSize("H", font, scale, thick)
    canvas = np.zeros((3 * th + 2 * thick, 3 * th), np.uint8)
    cv2.putText(canvas, "H", (th, 2 * th), font, scale, 255, thick, cv2.LINE_AA)
    rows = np.nonzero(canvas.max(axis=1) >= 128)[0]
    return float(rows.max() - rows.min() + 1) if len(rows) else float(th)


def draw_text(
    image: np.ndarray,
    text: str,
    at: tuple[float, float],
    cap_px: float,
    colour: tuple[int, int, int],
    left: bool,
) -> None:
    """``text`` blended onto ``image`` (BGR uint8) in place, its capitals ``cap_px`` tall standing
    on the baseline through ``at`` (pixels); centred on ``at`` across, or starting there if
    ``left``. Raises :class:`FontMissing` when no font has its letters."""
    from PIL import Image, ImageDraw, ImageFont

    path = font_for(text)
    if path is None:
        raise FontMissing(text)
    reference = ImageFont.truetype(str(path), _REFERENCE_PX)
    cap_ratio = -reference.getbbox("H", anchor="ls")[1] / _REFERENCE_PX
    font = ImageFont.truetype(str(path), max(1, round(cap_px / cap_ratio)))
    x, baseline = at
    anchor = "ls" if left else "ms"
    x0, y0, x1, y1 = (int(v) for v in font.getbbox(text, anchor=anchor))
    # a small canvas round the words, then blended in where it overlaps the image
    ox, oy = int(np.floor(x)) + x0 - 2, int(np.floor(baseline)) + y0 - 2
    mask = Image.new("L", (x1 - x0 + 4, y1 - y0 + 4), 0)
    ImageDraw.Draw(mask).text((x - ox, baseline - oy), text, fill=255, font=font, anchor=anchor)
    blend(image, np.asarray(mask, np.float32) / 255, (ox, oy), colour)


def blend(
    image: np.ndarray, alpha: np.ndarray, origin_px: tuple[int, int], colour: tuple[int, ...]
) -> None:
    """``colour`` laid onto ``image`` (BGR uint8) in place through ``alpha`` (0…1), whose top-left
    pixel is at ``origin_px``; what falls off the image is dropped."""
    ox, oy = origin_px
    h, w = image.shape[:2]
    x0, y0 = max(0, ox), max(0, oy)
    x1, y1 = min(w, ox + alpha.shape[1]), min(h, oy + alpha.shape[0])
    if x0 >= x1 or y0 >= y1:
        return
    a = alpha[y0 - oy : y1 - oy, x0 - ox : x1 - ox, None]
    region = image[y0:y1, x0:x1].astype(np.float32)
    ink = np.array(colour, np.float32)
    image[y0:y1, x0:x1] = np.round(region * (1 - a) + ink * a).astype(np.uint8)
