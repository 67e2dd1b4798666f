"""The printed coin of every mountain cell: what an unmarked coin looks like in this photo.

Every printed mountain cell carries a small coin, never drawn on, on every sheet, so it shows what
an unmarked coin looks like under this photo's light, also when the track has no unmarked coin
left (``mountain_coins``); each track coin is compared with them (``mountain_features``).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from scoring.sides import SIDES
from vision.coins.track import COIN_STRIP
from vision.coins.windows import coin_windows
from vision.features import PaperModel
from vision.grid import GridFit, cell_side_px
from vision.layout import GEOMETRY

#: every printed mountain cell carries a small gold coin, never drawn on (docs/printed-sheet.md;
#: synth/paper.py ``draw_mountain``): its centre in u from the cell's top-left corner, and its
#: radius (a track coin's is 0.19)
MOUNTAIN_COIN_U = (0.8, 0.2)
MOUNTAIN_COIN_RADIUS_U = 0.1
#: the coin is looked for this far around where the grid puts it (found grids' error)
MOUNTAIN_REACH_U = 0.08
MOUNTAIN_PX = 64  # px per u of the mountain coin's window (as COIN_PX: both coins sampled alike)
#: the gold compared: inside the mountain coin's inner ring (0.062 u) and inside a track coin's
#: (0.118 u)
MOUNTAIN_CENTRE_U = 0.045
TRACK_CENTRE_U = 0.09
#: an unmarked track coin's centre is this much less dark and less textured than a mountain coin's
#: (the small coin's centre takes in some of its inner ring): the mean over training-like photos
MOUNTAIN_OFFSET = (-0.067, -0.05)
#: darkness differences are judged in units of this plus the mountain coins' own spread (unmarked
#: track coins against the mountain coins of the same photo: 0.04 on sharp photos, 0.12 on
#: low-resolution ones)
MOUNTAIN_DARKNESS_SCALE = 0.03
#: the reference is the mean of the darkest mountain coins: glare only lightens a coin, and on
#: glare photos two or three of the five can look lighter than the paper
MOUNTAIN_REFERENCE_COINS = 2
#: what a coin's centre is measured by (:func:`_centre_descriptor`), in its order
CENTRE_DESCRIPTOR_NAMES = ("darkness", "texture")
_DARKNESS = CENTRE_DESCRIPTOR_NAMES.index("darkness")
_TEXTURE = CENTRE_DESCRIPTOR_NAMES.index("texture")
#: Each track coin against the printed mountain coins of the same photo: they help most on nearly
#: full tracks, which have no unmarked coin of their own to compare with.
MOUNTAIN_FEATURE_NAMES = [
    "darkness-mountain",
    "texture-mountain",
    "darkness-mountain_z",
    "darkness-mountain_z-last3",
    "darkness-mountain_z-first3",
    "darkness-mountain-last3",
    "texture-mountain-last3",
    "darkness-mountain-first3",
    "mountain_radius_px",
    "mountain_match",
]


@dataclass(frozen=True)
class MountainCoins:
    """The printed mountain coins of one photo: each one's centre darkness and texture against the
    paper (5, 2), how well each matched the printed coin's look (5,), and the coin's radius in
    photo pixels (a reliability: at 2–3 px the centre is a blur of the coin and its rings)."""

    descriptors: np.ndarray
    match: np.ndarray
    radius_px: float


def _centre_descriptor(
    window_bgr: np.ndarray, centre: np.ndarray, paper_bgr: np.ndarray
) -> list[float]:
    """Darkness and texture of a coin's centre (``CENTRE_DESCRIPTOR_NAMES``: grey mean and spread
    as shares of the paper's grey): a brighter or dimmer light leaves them unchanged."""
    grey = window_bgr[centre].astype(np.float64).mean(axis=1)
    paper_grey = float(np.mean(paper_bgr)) + 1.0
    return [1.0 - float(grey.mean()) / paper_grey, float(grey.std()) / paper_grey]


def _mountain_window(
    image: np.ndarray, intersections: np.ndarray, cell: tuple[int, int], px: int
) -> np.ndarray:
    """The square around a mountain cell's printed coin (± 1.5 radii + the reach), through the
    cell's own four crossings."""
    r, c = cell
    quad = np.float32(
        [
            intersections[r, c],
            intersections[r, c + 1],
            intersections[r + 1, c + 1],
            intersections[r + 1, c],
        ]
    )
    to_photo = cv2.getPerspectiveTransform(np.float32([[0, 0], [px, 0], [px, px], [0, px]]), quad)
    half = int(round((MOUNTAIN_COIN_RADIUS_U * 1.5 + MOUNTAIN_REACH_U) * px))
    shift = np.array(
        [[1, 0, MOUNTAIN_COIN_U[0] * px - half], [0, 1, MOUNTAIN_COIN_U[1] * px - half], [0, 0, 1]]
    )
    return cv2.warpPerspective(
        image,
        to_photo @ shift,
        (2 * half + 1, 2 * half + 1),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )


def _coin_template(px: int, radius_u: float, half: int) -> np.ndarray:
    """A printed coin (light disc, darker rim and inner ring) as a blurred float image,
    (2·half+1)²."""
    t = np.zeros((2 * half + 1, 2 * half + 1), np.float32)
    r = int(round(radius_u * px))
    cv2.circle(t, (half, half), r, 1.0, -1, cv2.LINE_AA)
    cv2.circle(t, (half, half), r, 0.3, max(1, int(round(0.025 * px))), cv2.LINE_AA)
    cv2.circle(
        t,
        (half, half),
        int(round(0.62 * radius_u * px)),
        0.3,
        max(1, int(round(0.015 * px))),
        cv2.LINE_AA,
    )
    return cv2.GaussianBlur(t, (0, 0), px / 64)


def _mountain_descriptor(
    window_bgr: np.ndarray, paper_bgr: np.ndarray, px: int
) -> tuple[list[float], float]:
    """(:func:`_centre_descriptor`, template match) of one mountain coin, found in its window by
    its printed look."""
    half = int(round(MOUNTAIN_COIN_RADIUS_U * 1.3 * px))
    grey = window_bgr.astype(np.float32).mean(axis=2)
    score = cv2.matchTemplate(
        grey, _coin_template(px, MOUNTAIN_COIN_RADIUS_U, half), cv2.TM_CCOEFF_NORMED
    )
    iy, ix = np.unravel_index(int(np.argmax(score)), score.shape)
    yy, xx = np.mgrid[0 : window_bgr.shape[0], 0 : window_bgr.shape[1]]
    centre = np.hypot(xx - ix - half, yy - iy - half) / px <= MOUNTAIN_CENTRE_U
    return _centre_descriptor(window_bgr, centre, paper_bgr), float(score[iy, ix])


def mountain_coins(
    image: np.ndarray, upright: GridFit, side: str, paper: PaperModel, px: int = MOUNTAIN_PX
) -> MountainCoins:
    """The printed coins of ``side``'s mountain cells in the upright grid, each against the paper
    model at its cell."""
    pts = np.asarray(upright.intersections, np.float64)
    rows = []
    for r, c in sorted(SIDES[side].mountains):
        paper_bgr = (
            np.asarray(paper.at(np.array([r]), np.array([c])), np.float64).reshape(3) * 255.0
        )
        rows.append(_mountain_descriptor(_mountain_window(image, pts, (r, c), px), paper_bgr, px))
    return MountainCoins(
        np.array([d for d, _ in rows]),
        np.array([m for _, m in rows]),
        cell_side_px(pts) * MOUNTAIN_COIN_RADIUS_U,
    )


def _track_centre_descriptors(strip_bgr: np.ndarray, px: int, windows) -> np.ndarray:
    """(14, 2) :func:`_centre_descriptor` of each track coin, against the paper just above and
    below the band beside it."""
    g, b = GEOMETRY, GEOMETRY.coin_band
    x0, _, y0, _ = COIN_STRIP
    centres, _, _, dist, cut = windows
    vs = y0 + (np.arange(strip_bgr.shape[0]) + 0.5) / px
    us = x0 + (np.arange(strip_bgr.shape[1]) + 0.5) / px
    off_band = strip_bgr[(vs < b.y0 - 0.03) | (vs > b.y1 + 0.03)]
    centre = dist * g.coin_radius <= TRACK_CENTRE_U
    out = []
    for i, (cx, cy) in enumerate(centres):
        paper_bgr = np.percentile(
            off_band[:, np.abs(us - g.coin_centre(i)[0]) < 0.45].reshape(-1, 3), 85, axis=0
        )
        out.append(_centre_descriptor(cut(strip_bgr, cx, cy), centre, paper_bgr))
    return np.array(out)


def mountain_features(
    strip_bgr: np.ndarray, px: int, mountains: MountainCoins | None, windows=None
) -> np.ndarray:
    """(14, len(MOUNTAIN_FEATURE_NAMES)) each track coin against the printed mountain coins of the
    same photo.

    A track's own unmarked end is what :func:`appearance_features` judges a coin against, and a
    full track has none; the mountain coins are printed, never drawn on, on every sheet. Per coin:
    its centre's darkness and texture minus the reference's (the ``MOUNTAIN_REFERENCE_COINS``
    darkest mountain coins, plus ``MOUNTAIN_OFFSET``), the darkness difference in units of
    ``MOUNTAIN_DARKNESS_SCALE`` plus the mountain coins' spread, the same for the track's last and
    first three coins, and how far the reference can be trusted (coin radius in photo px, template
    match). All NaN (missing) without ``mountains``. ``windows``: :func:`coin_windows` of this
    strip, when the caller already has them.
    """
    n = GEOMETRY.coin_count
    if mountains is None:
        return np.full((n, len(MOUNTAIN_FEATURE_NAMES)), np.nan, np.float32)
    track = _track_centre_descriptors(strip_bgr, px, windows or coin_windows(strip_bgr, px))
    m = mountains.descriptors
    darkest = m[np.argsort(-m[:, _DARKNESS])[:MOUNTAIN_REFERENCE_COINS]].mean(axis=0)
    spread = np.median(np.abs(m - darkest), axis=0)
    diff = track - (darkest + np.asarray(MOUNTAIN_OFFSET))
    z = diff[:, _DARKNESS] / (MOUNTAIN_DARKNESS_SCALE + spread[_DARKNESS])
    last3, first3 = np.median(diff[-3:], axis=0), np.median(diff[:3], axis=0)
    context = [
        np.median(z[-3:]),
        np.median(z[:3]),
        last3[_DARKNESS],
        last3[_TEXTURE],
        first3[_DARKNESS],
        mountains.radius_px,
        np.median(mountains.match),
    ]
    return np.column_stack([diff, z, np.repeat(np.array(context)[None], n, axis=0)]).astype(
        np.float32
    )
