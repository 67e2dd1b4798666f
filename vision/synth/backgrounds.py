"""Tables the sheet lies on: wood, cloth, plain tops and cluttered game tables, drawn procedurally.

Backgrounds are drawn at a quarter of the photo's size and enlarged (a table behind the sheet is
soft anyway), which keeps 12 MP photos fast.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.synth.paper import render_sheet, smooth_noise

#: Background families and their backgrounds. The reader can hold a whole family out of training.
BACKGROUND_FAMILIES: dict[str, tuple[str, ...]] = {
    "wood": ("light-wood", "dark-wood"),
    "cloth": ("linen", "gingham"),
    "plain": ("white-table", "grey-table", "dark-table", "tiled-counter"),
    "clutter": ("cluttered-wood", "cluttered-cloth", "newspaper"),
}
BACKGROUNDS: tuple[str, ...] = tuple(b for family in BACKGROUND_FAMILIES.values() for b in family)


def background_family(name: str) -> str:
    """The family a background belongs to."""
    for family, names in BACKGROUND_FAMILIES.items():
        if name in names:
            return family
    raise ValueError(f"unknown background {name!r}: expected one of {', '.join(BACKGROUNDS)}")


def rotated_coords(h: int, w: int, angle: float) -> tuple[np.ndarray, np.ndarray]:
    """Pixel coordinates along and across a direction ``angle``."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    c, s = np.cos(angle), np.sin(angle)
    return xx * c + yy * s, -xx * s + yy * c


def wood(h: int, w: int, rng: np.random.Generator, dark: bool) -> np.ndarray:
    """Planks: long streaky grain along the boards, a few knots, dark gaps between boards."""
    size = int(np.hypot(h, w)) + 2  # draw axis-aligned on a square, then rotate into the frame
    plank_w = rng.uniform(0.12, 0.3) * size
    xs = np.arange(size, dtype=np.float32)
    plank = np.floor(xs / plank_w)
    # grain: noise that is long along the boards (rows) and fine across them (columns)
    streaks = cv2.resize(
        rng.standard_normal((max(2, size // 60), size)).astype(np.float32),
        (size, size),
        interpolation=cv2.INTER_CUBIC,
    )
    streaks += 0.5 * cv2.resize(
        rng.standard_normal((max(2, size // 15), size // 2)).astype(np.float32),
        (size, size),
        interpolation=cv2.INTER_CUBIC,
    )
    tone = 1 + 0.07 * np.sin(plank * 12.9898 + rng.uniform(0, 6))[None, :]  # boards differ a little
    shade = tone + 0.06 * streaks + 0.04 * smooth_noise((size, size), size / 5, rng)
    for _ in range(int(rng.integers(0, 4))):  # knots
        cx, cy = rng.uniform(0, size, 2)
        r = rng.uniform(0.01, 0.03) * size
        yy, xx = np.ogrid[:size, :size]
        d = np.hypot((xx - cx) / r, (yy - cy) / (r * 2.5))
        shade -= 0.25 * np.exp(-d * d) * (1 + 0.5 * np.sin(d * 6))
    gap = (np.abs(xs / plank_w - np.round(xs / plank_w)) * plank_w < max(1.0, size / 600)).astype(
        np.float32
    )
    shade *= 1 - 0.5 * gap[None, :]
    base = np.array([50, 80, 120] if dark else [115, 165, 205], np.float32) * rng.uniform(
        0.85, 1.1, 3
    )
    img = shade[:, :, None] * base[None, None, :]
    m = cv2.getRotationMatrix2D((size / 2, size / 2), float(rng.uniform(0, 180)), 1.0)
    m[:, 2] -= ((size - w) / 2, (size - h) / 2)
    return cv2.warpAffine(
        img.astype(np.float32), m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT
    )


def cloth(h: int, w: int, rng: np.random.Generator, checked: bool) -> np.ndarray:
    """Woven cloth (plain linen or a checked tablecloth) with soft folds."""
    along, across = rotated_coords(h, w, float(rng.uniform(0, np.pi)))
    weave = 0.04 * (np.sin(along * 2.2) * np.sin(across * 2.2))
    folds = 0.08 * smooth_noise((h, w), max(h, w) / 5, rng)
    colour = rng.uniform(60, 230, 3).astype(np.float32)
    img = (1 + weave + folds)[:, :, None] * colour[None, None, :]
    if checked:
        period = rng.uniform(0.04, 0.1) * max(h, w)
        a = (np.floor(along / period) % 2).astype(np.float32)
        b = (np.floor(across / period) % 2).astype(np.float32)
        white = np.array([235, 235, 240], np.float32)
        mix = (0.5 * (a + b))[:, :, None]
        img = img * (1 - mix) + white * (1 + folds)[:, :, None] * mix
    return img


def plain(h: int, w: int, rng: np.random.Generator, tone: str) -> np.ndarray:
    """A laminate table top: nearly flat colour with a faint sheen."""
    level = {
        "white-table": rng.uniform(200, 245),
        "grey-table": rng.uniform(110, 170),
        "dark-table": rng.uniform(25, 70),
    }[tone]
    tint = rng.uniform(0.9, 1.1, 3).astype(np.float32)
    shade = (
        1 + 0.04 * smooth_noise((h, w), max(h, w) / 3, rng) + 0.01 * smooth_noise((h, w), 3, rng)
    )
    return shade[:, :, None] * (level * tint)[None, None, :]


def tiles(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """A tiled kitchen counter: square tiles, each a little different, and grout lines (a grid!)."""
    along, across = rotated_coords(h, w, float(rng.uniform(0, np.pi)))
    size = rng.uniform(0.08, 0.22) * max(h, w)
    i, j = np.floor(along / size), np.floor(across / size)
    tone = (
        1
        + 0.04 * np.sin(i * 12.9898 + j * 78.233)
        + 0.02 * smooth_noise((h, w), max(h, w) / 6, rng)
    )
    colour = rng.uniform(120, 240, 3).astype(np.float32)
    img = tone[:, :, None] * colour[None, None, :]
    fu, fv = along / size - i, across / size - j
    grout = (
        np.minimum(np.minimum(fu, 1 - fu), np.minimum(fv, 1 - fv)) < rng.uniform(0.015, 0.04)
    ).astype(np.float32)
    grout_colour = (rng.uniform(70, 220) * rng.uniform(0.95, 1.05, 3)).astype(np.float32)  # greyish
    return img * (1 - grout[:, :, None]) + grout_colour[None, None, :] * grout[:, :, None]


def newspaper(img: np.ndarray, rng: np.random.Generator) -> None:
    """A newspaper page lying on the table (in place): columns of grey text lines and a headline."""
    h, w = img.shape[:2]
    pw, ph = int(rng.uniform(0.5, 0.9) * max(h, w)), int(rng.uniform(0.6, 1.0) * max(h, w))
    page = np.full((ph, pw, 3), rng.uniform(205, 235), np.float32)
    line_h = max(2, int(ph / rng.uniform(90, 160)))
    columns = int(rng.integers(3, 6))
    col_w = pw // columns
    cv2.rectangle(
        page, (col_w // 8, line_h * 2), (pw - col_w // 8, line_h * 6), (40, 40, 40), -1
    )  # headline
    for c in range(columns):
        x0, x1 = c * col_w + col_w // 10, (c + 1) * col_w - col_w // 10
        for y in range(line_h * 9, ph - line_h * 2, line_h * 2):
            end = x1 if rng.random() > 0.12 else int(x0 + (x1 - x0) * rng.uniform(0.3, 0.9))
            cv2.line(page, (x0, y), (end, y), (110, 110, 110), max(1, line_h // 2))
    m = cv2.getRotationMatrix2D((pw / 2, ph / 2), float(rng.uniform(0, 360)), 1.0)
    m[:, 2] += (rng.uniform(0, w) - pw / 2, rng.uniform(0, h) - ph / 2)
    warped = cv2.warpAffine(page, m, (w, h))
    mask = cv2.warpAffine(np.ones((ph, pw), np.float32), m, (w, h))[:, :, None]
    img *= 1 - mask
    img += warped * mask


def clutter(img: np.ndarray, rng: np.random.Generator) -> None:
    """Cards, pencils, dice, a mug and a coin scattered over the table (in place)."""
    h, w = img.shape[:2]
    size = max(h, w)
    for _ in range(int(rng.integers(3, 9))):
        kind = rng.choice(["card", "pencil", "die", "mug", "coin"], p=[0.35, 0.3, 0.15, 0.1, 0.1])
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        angle = float(rng.uniform(0, 180))
        colour = tuple(float(v) for v in rng.uniform(30, 240, 3))
        if kind == "card":
            box = cv2.boxPoints(((cx, cy), (size * 0.09, size * 0.13), angle)).astype(np.int32)
            cv2.fillConvexPoly(img, box, (235, 235, 235), cv2.LINE_AA)
            inner = cv2.boxPoints(((cx, cy), (size * 0.08, size * 0.12), angle)).astype(np.int32)
            cv2.fillConvexPoly(img, inner, colour, cv2.LINE_AA)
            cv2.circle(
                img,
                (int(cx), int(cy)),
                int(size * 0.02),
                tuple(255 - c for c in colour),
                -1,
                cv2.LINE_AA,
            )
        elif kind == "pencil":
            box = cv2.boxPoints(((cx, cy), (size * 0.25, size * 0.012), angle)).astype(np.int32)
            cv2.fillConvexPoly(img, box, colour, cv2.LINE_AA)
        elif kind == "die":
            box = cv2.boxPoints(((cx, cy), (size * 0.025, size * 0.025), angle)).astype(np.int32)
            cv2.fillConvexPoly(img, box, colour, cv2.LINE_AA)
        elif kind == "mug":
            cv2.circle(img, (int(cx), int(cy)), int(size * 0.06), colour, -1, cv2.LINE_AA)
            cv2.circle(
                img,
                (int(cx), int(cy)),
                int(size * 0.05),
                tuple(c * 0.5 for c in colour),
                -1,
                cv2.LINE_AA,
            )
        else:
            cv2.circle(img, (int(cx), int(cy)), int(size * 0.012), (60, 160, 200), -1, cv2.LINE_AA)


def make_background(name: str, width: int, height: int, rng: np.random.Generator) -> np.ndarray:
    """A table top of ``name`` as float32 BGR, full photo size."""
    h, w = max(8, height // 4), max(8, width // 4)
    if name in ("light-wood", "dark-wood", "cluttered-wood"):
        img = wood(
            h, w, rng, dark=name == "dark-wood" or (name == "cluttered-wood" and rng.random() < 0.5)
        )
    elif name in ("linen", "gingham", "cluttered-cloth"):
        img = cloth(
            h,
            w,
            rng,
            checked=name == "gingham" or (name == "cluttered-cloth" and rng.random() < 0.4),
        )
    elif name in ("white-table", "grey-table", "dark-table"):
        img = plain(h, w, rng, name)
    elif name == "tiled-counter":
        img = tiles(h, w, rng)
    elif name == "newspaper":
        img = (
            wood(h, w, rng, dark=rng.random() < 0.5)
            if rng.random() < 0.5
            else plain(h, w, rng, "grey-table")
        )
    else:
        raise ValueError(f"unknown background {name!r}: expected one of {', '.join(BACKGROUNDS)}")
    img = np.ascontiguousarray(np.clip(img, 0, 255).astype(np.float32))
    if name == "newspaper":
        newspaper(img, rng)
    if name.startswith("cluttered") or name == "newspaper":
        clutter(img, rng)
    return cv2.resize(img, (width, height), interpolation=cv2.INTER_LINEAR)


def second_sheet(img: np.ndarray, rng: np.random.Generator) -> None:
    """Another player's sheet partly in view near an edge of the frame (in place)."""
    h, w = img.shape[:2]
    scale = rng.uniform(0.5, 0.9) * min(h, w) / 19
    other = render_sheet("A" if rng.random() < 0.5 else "B", px_per_u=max(6.0, scale / 2), rng=rng)
    src = other.image.astype(np.float32)
    sh, sw = src.shape[:2]
    angle = rng.uniform(0, 2 * np.pi)
    edge = int(rng.integers(4))
    cx = [
        rng.uniform(0, w),
        w + rng.uniform(-0.1, 0.25) * w,
        rng.uniform(0, w),
        -rng.uniform(-0.1, 0.25) * w,
    ][edge]
    cy = [
        -rng.uniform(-0.1, 0.3) * h,
        rng.uniform(0, h),
        h + rng.uniform(-0.1, 0.3) * h,
        rng.uniform(0, h),
    ][edge]
    k = scale / other.px_per_u
    m = cv2.getRotationMatrix2D((sw / 2, sh / 2), float(np.degrees(angle)), float(k))
    m[:, 2] += (cx - sw / 2, cy - sh / 2)
    warped = cv2.warpAffine(src, m, (w, h), flags=cv2.INTER_LINEAR)
    alpha = cv2.warpAffine(other.alpha.astype(np.float32) / 255, m, (w, h), flags=cv2.INTER_LINEAR)
    img *= 1 - alpha[:, :, None]
    img += warped * alpha[:, :, None]
