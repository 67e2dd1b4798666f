"""Each coin's look, judged against the track itself.

Each coin is measured relative to the band beside it (its local light) and compared with the
track's last coins (unmarked unless the count is 12–14), its first coin, its neighbours, and the
best "first k differ from the rest" split, because a mark is easiest to see next to an unmarked
coin under the same light (``appearance_features``).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.coins.windows import coin_windows
from vision.features import PaperModel, _lab
from vision.layout import GEOMETRY

DESCRIPTOR_NAMES = [
    "logrel_b",
    "logrel_g",
    "logrel_r",
    "L",
    "a",
    "b",
    "L_std",
    "L_p10",
    "L_p50",
    "chroma",
    "blackhat",
    "blackhat_p90",
    "gradient",
    "diagonal",
    "both_diagonals",
    "one_diagonal",
    "fine_texture",
    "outer_dark_diagonal",
    "outer_dark_axis",
    "rim_L",
    "outer_blackhat",
    "diff_last_coins",
    "diff_first_coin",
    "diff_track_median",
]
#: the descriptors measured in each coin's window; the rest compare its patch with other coins'
_MEASURED_NAMES = DESCRIPTOR_NAMES[:-3]
#: descriptors the change point looks at: colour, darkness, strokes, texture, and the patch
#: differences
DESCRIPTOR_CONTEXT = (
    "logrel_b",
    "logrel_g",
    "logrel_r",
    "L",
    "b",
    "L_std",
    "blackhat",
    "blackhat_p90",
    "gradient",
    "diagonal",
    "fine_texture",
    "diff_last_coins",
    "diff_first_coin",
)
#: descriptors whose difference across the change point is a context feature (``split_diff_…``)…
SPLIT_DESCRIPTORS = ("L", "L_std", "blackhat", "diagonal", "diff_last_coins")
#: …and those whose range along the track is (``track_range_…``)
RANGE_DESCRIPTORS = ("L", "blackhat", "diff_last_coins")
_CONTEXT_COLUMNS = [DESCRIPTOR_NAMES.index(n) for n in DESCRIPTOR_CONTEXT]
_SPLIT_COLUMNS = [DESCRIPTOR_NAMES.index(n) for n in SPLIT_DESCRIPTORS]
_RANGE_COLUMNS = [DESCRIPTOR_NAMES.index(n) for n in RANGE_DESCRIPTORS]
CONTEXT_NAMES = [
    "index",
    "before_split",
    "split_k",
    "split_gain",
    "prefix_preference",
    "split_diff_L",
    "split_diff_L_std",
    "split_diff_blackhat",
    "split_diff_diagonal",
    "split_diff_last",
    "track_range_L",
    "track_range_blackhat",
    "track_range_diff_last",
]
APPEARANCE_FEATURE_NAMES: list[str] = (
    DESCRIPTOR_NAMES
    + [f"{n}-last3" for n in DESCRIPTOR_NAMES]
    + [f"{n}-median" for n in DESCRIPTOR_NAMES]
    + [f"{n}-first" for n in DESCRIPTOR_NAMES]
    + [f"{n}-previous" for n in DESCRIPTOR_NAMES]
    + [f"next-{n}" for n in DESCRIPTOR_NAMES]
    + CONTEXT_NAMES
)


def _inside_band(xx: np.ndarray, px: int) -> list[np.ndarray]:
    """Per coin, the part of its window inside the band: the paper beyond the band's two ends
    (next to the first and last coin) is another colour."""
    g = GEOMETRY
    b = g.coin_band
    return [
        (xx / px > b.x0 + 0.1 - u) & (xx / px < b.x1 - 0.1 - u)
        for u, _ in (g.coin_centre(i) for i in range(g.coin_count))
    ]


def _band_light(img: np.ndarray, windows, band_ref: np.ndarray, inside) -> np.ndarray:
    """(14, 3) the band's colour beside each coin (bright percentile, smoothed along the track):
    this coin's light."""
    centres, _, _, _, patch = windows
    refs = np.array(
        [
            np.percentile(patch(img, cx, cy)[band_ref & ins], 80, axis=0)
            for (cx, cy), ins in zip(centres, inside)
        ]
    )
    return np.array([np.median(refs[max(0, i - 1) : i + 2], axis=0) for i in range(len(refs))])


def _coin_measures(
    rel: np.ndarray, zones: dict[str, np.ndarray], kern: np.ndarray, px: int
) -> tuple[dict[str, float], np.ndarray]:
    """The ``_MEASURED_NAMES`` of one coin's window ``rel`` (relative to the band's light), and
    its blurred L patch. ``zones``: the window's masks (disc, inner, rim, outer, diagonal sector,
    and inside the band)."""
    disc, inner, rim, outer = zones["disc"], zones["inner"], zones["rim"], zones["outer"]
    diag, ins = zones["diag_sector"], zones["inside"]
    lab = _lab(rel * 0.92)
    L = lab[..., 0]
    log_rel = np.log(np.clip(rel, 0.02, 3.0))
    bh = cv2.morphologyEx(L, cv2.MORPH_BLACKHAT, kern)
    gx = cv2.Sobel(L, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(L, cv2.CV_32F, 0, 1, ksize=3)
    e0, e90 = (gx**2)[inner].mean(), (gy**2)[inner].mean()
    e45, e135 = (((gx + gy) ** 2) / 2)[inner].mean(), (((gx - gy) ** 2) / 2)[inner].mean()
    tot = e0 + e90 + e45 + e135 + 1.0
    hp = np.abs(L - cv2.GaussianBlur(L, (0, 0), 1.0 * px / 64))
    dark = -log_rel.sum(axis=2)
    chroma = np.hypot(lab[..., 1], lab[..., 2])
    logrel_b, logrel_g, logrel_r = log_rel[disc].mean(axis=0)
    measures = {
        "logrel_b": logrel_b,
        "logrel_g": logrel_g,
        "logrel_r": logrel_r,
        "L": L[disc].mean(),
        "a": lab[..., 1][disc].mean(),
        "b": lab[..., 2][disc].mean(),
        "L_std": L[disc].std(),
        "L_p10": np.percentile(L[disc], 10),
        "L_p50": np.percentile(L[disc], 50),
        "chroma": chroma[disc].mean(),
        "blackhat": bh[inner].mean(),
        "blackhat_p90": np.percentile(bh[inner], 90),
        "gradient": np.sqrt(tot),
        "diagonal": (e45 + e135 - e0 - e90) / tot,
        "both_diagonals": min(e45, e135) / tot,
        "one_diagonal": abs(e45 - e135) / tot,
        "fine_texture": hp[disc].mean(),
        "outer_dark_diagonal": dark[outer & diag & ins].mean(),
        "outer_dark_axis": dark[outer & ~diag & ins].mean(),
        "rim_L": L[rim].mean(),
        "outer_blackhat": bh[outer & ins].mean(),
    }
    return measures, cv2.GaussianBlur(L, (0, 0), 1.0 * px / 64)


def _coin_descriptors(
    strip_bgr: np.ndarray, px: int, windows=None
) -> tuple[np.ndarray, np.ndarray]:
    """Per coin, measures relative to the band around it: (14, D) descriptors (``_MEASURED_NAMES``)
    and (14, P, P) L patches. ``windows``: :func:`coin_windows` of this strip, when the caller
    already has them."""
    img = strip_bgr.astype(np.float32) / 255.0 + 1e-3
    windows = windows or coin_windows(strip_bgr, px)
    centres, yy, xx, dist, patch = windows
    band_ref = (dist > 1.35) & (np.abs(yy) < 0.22 * px)
    inside = _inside_band(xx, px)
    refs = _band_light(img, windows, band_ref, inside)
    k = max(3, int(round(0.12 * px)) | 1)
    kern = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    zones = {
        "disc": dist <= 0.85,
        "inner": dist <= 1.1,
        "rim": (dist > 0.88) & (dist < 1.12),
        "outer": (dist > 1.2) & (dist < 1.75),
        "diag_sector": np.abs(np.sin(2 * np.arctan2(yy, xx))) > 0.7,
    }
    out, patches = [], []
    for (cx, cy), ref, ins in zip(centres, refs, inside):
        rel = patch(img, cx, cy) / ref[None, None, :]
        measures, blurred = _coin_measures(rel, {**zones, "inside": ins}, kern, px)
        out.append([measures[n] for n in _MEASURED_NAMES])
        patches.append(blurred)
    return np.array(out, dtype=np.float32), np.array(patches, dtype=np.float32)


def _patch_distances(
    patches: np.ndarray, template: np.ndarray, mask: np.ndarray, shift: int
) -> np.ndarray:
    """Mean |patch − template| over ``mask`` for every patch, minimised over small shifts of the
    template."""
    shifted = np.stack(
        [
            np.roll(template, (dy, dx), axis=(0, 1))[mask]
            for dy in range(-shift, shift + 1)
            for dx in range(-shift, shift + 1)
        ]
    )  # (S, M)
    return np.abs(patches[:, mask][:, None, :] - shifted[None]).mean(axis=2).min(axis=1)


def _change_point(d: np.ndarray) -> np.ndarray:
    """(14, len(CONTEXT_NAMES)) where the track changes: the gain of splitting it after ``k``
    coins over a standardised subset of the descriptors (``DESCRIPTOR_CONTEXT``), the best ``k``,
    each coin's side of it, and the descriptors' differences across it and ranges along the
    track."""
    n = len(d)
    z = d[:, _CONTEXT_COLUMNS]
    z = (z - z.mean(axis=0)) / (z.std(axis=0) + 1e-3 + 0.05 * np.abs(z).mean(axis=0))
    total = float((z**2).sum()) + 1e-6
    gain = np.zeros(n + 1)
    for k in range(1, n):
        a, b = z[:k], z[k:]
        gain[k] = 1 - (((a - a.mean(0)) ** 2).sum() + ((b - b.mean(0)) ** 2).sum()) / total
    kbest = int(np.argmax(gain))
    idx = np.arange(n)
    in_prefix = np.array([gain[i + 1 :].max() - gain[: i + 1].max() for i in range(n)])
    raw_split = d[:kbest].mean(0) - d[kbest:].mean(0) if 0 < kbest < n else np.zeros(d.shape[1])
    return np.column_stack(
        [
            idx,
            idx < kbest,
            np.full(n, kbest),
            np.full(n, gain[kbest]),
            in_prefix,
            np.repeat(raw_split[None, _SPLIT_COLUMNS], n, axis=0),
            np.repeat(np.ptp(d[:, _RANGE_COLUMNS], axis=0)[None], n, axis=0),
        ]
    )


def appearance_features(
    strip_bgr: np.ndarray, px: int, paper: PaperModel | None = None, windows=None
) -> np.ndarray:
    """(14, F) features of each coin from the high-resolution strip, judged against the track
    itself.

    Each coin is measured relative to the band beside it (local light), then compared with the
    track's last coins (unmarked unless the count is 12–14), with the first coin, with its
    neighbours, and through the best "first k differ from the rest" split of the whole track.
    ``paper`` is accepted for the interface; the band beside each coin is the reference.
    ``windows``: :func:`coin_windows` of this strip, when the caller already has them.
    """
    d, patches = _coin_descriptors(strip_bgr, px, windows)
    half = patches.shape[1] // 2
    yy, xx = np.mgrid[-half : half + 1, -half : half + 1]
    mask = np.hypot(xx, yy) <= GEOMETRY.coin_radius * px * 1.1
    shift = max(1, int(round(0.04 * px)))
    tmpl_last = np.median(patches[-3:], axis=0)
    d_last = _patch_distances(patches, tmpl_last, mask, shift)
    d_first = _patch_distances(patches, patches[0], mask, shift)
    d_all = _patch_distances(patches, np.median(patches, axis=0), mask, shift)
    d = np.concatenate([d, np.stack([d_last, d_first, d_all], 1)], axis=1)
    suffix = np.median(d[-3:], axis=0, keepdims=True)
    med = np.median(d, axis=0, keepdims=True)
    prev = np.vstack([d[:1], d[:-1]])
    nxt = np.vstack([d[1:], d[-1:]])
    context = _change_point(d)
    return np.concatenate(
        [d, d - suffix, d - med, d - d[:1], d - prev, nxt - d, context], axis=1
    ).astype(np.float32)
