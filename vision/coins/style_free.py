"""Evidence that does not depend on the marking style, and how much each coin can tell.

Each measure is taken beside the coin and scaled by the coin's own print contrast, so glare or a
dim photo leaves it unchanged (``_style_free_descriptors``); the coins are then judged against the
track's most print-like coins (``style_free_comparison``). How much each coin can show at all is
its ``reliability``: a washed-out coin does not vote in the count.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.coins.appearance import _inside_band
from vision.coins.windows import _rim_template, coin_windows

STYLE_FREE_DESCRIPTOR_NAMES = [
    "print_contrast",
    "reliability",
    "saturated",
    "dark_disc",
    "dark_disc_p10",
    "colour_shift",
    "ring_match",
    "extra_lines",
    "extra_lines_p90",
    "disc_spread",
]
#: the style-free descriptors compared with the track (the rest are context)
COMPARED_DESCRIPTORS = (
    "dark_disc",
    "dark_disc_p10",
    "colour_shift",
    "ring_match",
    "extra_lines",
    "extra_lines_p90",
    "disc_spread",
)
_COMPARED_COLUMNS = [STYLE_FREE_DESCRIPTOR_NAMES.index(n) for n in COMPARED_DESCRIPTORS]
_RELIABILITY = STYLE_FREE_DESCRIPTOR_NAMES.index("reliability")
_RING_MATCH = STYLE_FREE_DESCRIPTOR_NAMES.index("ring_match")
#: what is measured beside each coin before scaling: the band's grey minus the rim's (the print's
#: contrast), the share of clipped pixels, then the measures scaled by that contrast
_RAW_NAMES = ["band_minus_rim", "saturated", *STYLE_FREE_DESCRIPTOR_NAMES[3:]]
_RAW_CONTRAST = _RAW_NAMES.index("band_minus_rim")
_RAW_SATURATED = _RAW_NAMES.index("saturated")
_RAW_RING_MATCH = _RAW_NAMES.index("ring_match")
_FIRST_SCALED = _RAW_NAMES.index("dark_disc")
_SCALED_RING_MATCH = _RAW_NAMES.index("ring_match") - _FIRST_SCALED
STYLE_FREE_FEATURE_NAMES: list[str] = (
    STYLE_FREE_DESCRIPTOR_NAMES
    + [f"{n}-last3" for n in COMPARED_DESCRIPTORS]
    + [f"{n}-median" for n in COMPARED_DESCRIPTORS]
    + [f"{n}-unmarked_z" for n in COMPARED_DESCRIPTORS]
    + [
        "unlike_unmarked",
        "unlike_unmarked_upto",
        "unlike_unmarked_from",
        "before_unlike_split",
        "unlike_split_k",
        "unlike_split_gain",
    ]
)


def _raw_measures(
    p_bgr: np.ndarray, p_grey: np.ndarray, zones: dict[str, np.ndarray], ring: np.ndarray, kern
) -> list[float]:
    """The ``_RAW_NAMES`` of one coin's window (colour ``p_bgr``, grey ``p_grey``), unscaled.
    ``ring``: the printed rim and inner ring over the window's inner part, standardised."""
    disc, inner, rim = zones["disc"], zones["inner"], zones["rim"]
    off_ring = inner & ~zones["ring_zone"]
    band = np.percentile(p_bgr[zones["band_ref"] & zones["inside"]], 80, axis=0)
    band_grey = float(band.mean())
    rim_dark = float(np.percentile(p_grey[rim], 15))
    bh = cv2.morphologyEx(p_grey, cv2.MORPH_BLACKHAT, kern)
    v = bh[inner]
    ring_match = float(((v - v.mean()) / (v.std() + 1e-6) * ring).mean())
    return [
        band_grey - rim_dark,
        float((p_bgr.max(axis=2)[inner] >= 250).mean()),
        band_grey - float(p_grey[disc].mean()),
        band_grey - float(np.percentile(p_grey[disc], 10)),
        float(np.linalg.norm(p_bgr[disc].mean(axis=0) / (band + 1.0) - 1.0) * band_grey),
        ring_match,
        float(bh[off_ring].mean()),
        float(np.percentile(bh[off_ring], 90)),
        float(p_grey[disc].std()),
    ]


def _style_free_descriptors(strip_bgr: np.ndarray, px: int, windows=None) -> np.ndarray:
    """(14, 10) per-coin measures scaled by the print's own contrast beside the coin.

    Glare adds light (contrast shrinks, bright parts clip) and every marking style darkens or
    colours the coin differently, so each measure is a difference from the band beside the coin
    divided by that coin's printed contrast (band − its darkest rim pixels): a veil of glare or a
    dim photo leaves them unchanged. ``print_contrast`` (relative to the track's clearest coins)
    and ``saturated`` (share of clipped pixels) say how much the coin can show at all
    (``reliability``). ``ring_match`` is the thin-line image's correlation with the printed rim
    and inner ring (an unmarked coin matches, a covered or crossed one less), ``extra_lines`` the
    line energy off them. ``windows``: :func:`coin_windows` of this strip, when the caller
    already has them.
    """
    img = strip_bgr.astype(np.float32)
    grey = img.mean(axis=2)
    centres, yy, xx, dist, patch = windows or coin_windows(strip_bgr, px)
    half = len(yy) // 2
    zones = {
        "disc": dist <= 0.85,
        "inner": dist <= 1.15,
        "rim": (dist > 0.85) & (dist < 1.15),
        "ring_zone": (np.abs(dist - 1.0) < 0.12) | (np.abs(dist - 0.62) < 0.1),
        "band_ref": (dist > 1.35) & (np.abs(yy) < 0.22 * px),
    }
    ring = _rim_template(px, half)[zones["inner"]]
    ring = (ring - ring.mean()) / (ring.std() + 1e-6)
    k = max(3, int(round(0.12 * px)) | 1)
    kern = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    rows = [
        _raw_measures(patch(img, cx, cy), patch(grey, cx, cy), {**zones, "inside": ins}, ring, kern)
        for (cx, cy), ins in zip(centres, _inside_band(xx, px))
    ]
    r = np.array(rows, dtype=np.float64)
    contrast = np.array([np.median(r[max(0, i - 1) : i + 2, _RAW_CONTRAST]) for i in range(len(r))])
    contrast = np.maximum(contrast, 1.0)
    clear = max(float(np.percentile(contrast, 75)), 1.0)
    rel_contrast = contrast / clear
    saturated = r[:, _RAW_SATURATED]
    reliability = np.clip(rel_contrast / 0.6, 0.0, 1.0) * (1.0 - saturated)
    scaled = r[:, _FIRST_SCALED:] / contrast[:, None]
    scaled[:, _SCALED_RING_MATCH] = r[:, _RAW_RING_MATCH]  # ring_match is already scale-free
    return np.column_stack([rel_contrast, reliability, saturated, scaled]).astype(np.float32)


def style_free_comparison(e: np.ndarray) -> np.ndarray:
    """(14, len(STYLE_FREE_FEATURE_NAMES)) the style-free descriptors ``e`` and how each coin
    compares with the track: with its last three coins, its median, and as z-scores against the
    three coins most like the printed coin; then one number per coin for how unlike those it is
    (``unlike_unmarked``), with its monotone envelopes along the track and its best split."""
    rel = e[:, _COMPARED_COLUMNS]
    last3 = np.median(rel[-3:], axis=0)
    med = np.median(rel, axis=0)
    # the least-marked coins: the three most like the printed coin (rim and inner ring the
    # clearest) among the coins that can show a mark — the track's unmarked end even when only one
    # coin is left
    score = -e[:, _RING_MATCH]
    score = np.where(e[:, _RELIABILITY] > 0.5, score, np.inf)
    order = np.argsort(score)
    n_ref = 3
    ref = rel[order[:n_ref]]
    z = np.clip(
        (rel - np.median(ref, axis=0))
        / (np.std(ref, axis=0) + 0.05 * np.abs(rel).mean(axis=0) + 1e-3),
        -50,
        50,
    )
    # one style-free number per coin: how unlike the track's unmarked coins it is; coins are filled
    # from the start, so a coin is as filled as the least unlike coin before it (and as empty as
    # the most unlike one after it), and the track splits where the unlikeness drops
    unlike = np.log1p(np.sqrt((np.clip(z, -20, 20) ** 2).mean(axis=1)))
    n = len(unlike)
    upto = np.minimum.accumulate(unlike)
    after = np.maximum.accumulate(unlike[::-1])[::-1]
    gain = np.array(
        [(unlike[:k].mean() - unlike[k:].mean()) * np.sqrt(k * (n - k) / n) for k in range(1, n)]
    )
    k_best = int(np.argmax(gain)) + 1
    split = np.column_stack(
        [unlike, upto, after, np.arange(n) < k_best, np.full(n, k_best), np.full(n, gain.max())]
    )
    return np.concatenate([e, rel - last3, rel - med, z, split], axis=1)
