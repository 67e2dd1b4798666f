"""Phone photos of a filled-in sheet, with exact truth (where every grid point landed).

One photo = a table (``backgrounds``), the drawn sheet (``ink``) seen through a camera over bent
paper (``camera``), fingers or a pencil over the margins (``props``), uneven light and a soft cast
shadow, then the phone's white-balance shift, defocus or motion blur, sensor noise and JPEG
compression (``phone``). Everything random is listed in ``truth["conditions"]``
(``conditions``) and can be pinned by passing ``condition={...}`` to :func:`make_photo`.
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
from vision.synth.camera import Bend, Camera
from vision.synth.conditions import (
    GEOMETRY_CONDITIONS,
    camera_for,
    photo_conditions,
    sample_conditions,
)
from vision.synth.ink import DrawnSheet, draw_sheet
from vision.synth.maps import choose_game
from vision.synth.paper import RenderedSheet
from vision.synth.pens import STYLE_FAMILIES, STYLES, style_family
from vision.synth.phone import capture
from vision.synth.props import draw_fingers, draw_pencil
from vision.synth.writing import plan_written

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
    ``art_family`` picks one of :data:`vision.synth.art.ART_FAMILIES` instead (randomised within
    the family by the photo's seed).
    """
    # one independent stream per decision, so pinning one choice leaves the others as they were
    maps_rng, style_rng, bg_rng, cond_rng, ink_rng, rng, numbers_rng = (
        np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(7)
    )
    source, game = "given", None
    if sheet is None:
        sheet, source, game = choose_game(maps_rng, side)
    written = plan_written(sheet, game, numbers_rng)
    style = pick(style_rng, style, style_family, STYLE_FAMILIES, STYLES, "style")
    background = pick(
        bg_rng, background, background_family, BACKGROUND_FAMILIES, BACKGROUNDS, "background"
    )
    cond = photo_conditions(cond_rng, style, megapixels, condition)
    camera = camera_for(cond)
    px_per_u = float(np.clip(camera.local_scale() * 1.05, MIN_PX_PER_U, MAX_PX_PER_U))
    if printing is None and art_family not in (None, "lookalike"):
        from vision.synth.art import printing_of

        printing = printing_of(str(art_family))
    rendered = None if printing is None else printing(sheet.side, px_per_u, cond["paper"], ink_rng)
    drawn = draw_sheet(
        sheet,
        style,
        ink_rng,
        px_per_u=px_per_u,
        variant=cond["paper"],
        rendered=rendered,
        written=written,
    )
    twin_rng = copy.deepcopy(rng) if no_ink_twin else None  # the twin's scene repeats the draws
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


def retake(photo: SynthPhoto, take: int, condition: dict | None = None) -> SynthPhoto:
    """The same drawn sheet shot again from the same place: new light, shadow, white balance, blur,
    noise, exposure, JPEG, fingers and table (``take`` ≥ 1 picks the draws; ``condition`` pins
    some).

    Drawing the sheet is most of a photo's cost, so a retake gives training another photo for about
    half the price (``vision.train_config.TrainConfig.takes``; measured, and not worth it
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
