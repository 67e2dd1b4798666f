"""Reading the coin track: how many of the 14 printed coins are filled.

Coins are filled in order along the track (docs/rules.md, "Coin track"), so the count is the
``k`` that best explains every coin's filled probability: the first ``k`` filled, the rest not.
The posterior over ``k`` gives the count's confidence.

The strip is sampled at 64 px/u following the paper's curl below the grid (``_curl_model``:
the bottom crossing rows' departure from the homography, extrapolated), then snapped onto the
printed band and coin rims (``refine_track``, never further than half a coin spacing, so it
cannot slip by a coin); each coin is re-centred on its rim and judged against the track itself —
its last coins (unmarked unless the count is 12–14), its first coin, its neighbours, and the best
"first k differ from the rest" split — because a mark is easiest to see next to an unmarked coin
under the same light (``appearance_features``); style-free evidence beside it, each measure
scaled by the coin's own print contrast so glare or a dim photo leaves it unchanged, judged
against the track's most print-like coins (``coin_features``), how much each coin can show
at all (``coin_reliability``: a washed-out coin does not vote in the count), and the printed coins
of the mountain cells, never drawn on, as what an unmarked coin looks like in this photo — also
when the track has no unmarked coin left (``mountain_coins``, ``mountain_features``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from scoring.sides import SIDES
from vision.features import PaperModel, _lab
from vision.grid import GridFit, cell_side_px, homography_from_intersections, ideal_intersections
from vision.layout import GEOMETRY

COIN_STRIP = (0.9, 11.4, 12.0, 12.9)  # x0, x1, y0, y1 in u: the coin track with a little margin


@dataclass(frozen=True)
class CoinReading:
    """The coin count, its confidence, and each coin's filled probability (track order)."""

    count: int
    confidence: float
    filled_probability: tuple[float, ...]


#: the coins' evidence is not independent (neighbours share the light, the hand and the track they are
#: compared with), so the count's log-likelihood is tempered: about two coins count as one witness.
#: The counts stay the same; more of the wrong ones fall under the flag threshold.
COUNT_TEMPERATURE = 0.5


def count_from_probabilities(
    p_filled: np.ndarray,
    reliability: np.ndarray | None = None,
    temperature: float = COUNT_TEMPERATURE,
    most: int | None = None,
) -> CoinReading:
    """Most likely count ``k`` (first ``k`` coins filled) and its posterior probability.

    ``reliability`` (per coin, 0–1; :func:`coin_reliability` of the coin features) weighs each coin's
    evidence: a coin washed out by glare or clipped to white shows neither a mark nor its absence,
    so with weight 0 it does not vote and the count is decided by the coins around it (its
    confidence then covers both readings of the washed-out stretch). Without it every coin counts fully.
    ``temperature`` scales the log-likelihood (the count is the same; only the confidence changes).
    ``most``: the largest count the sheet allows (:func:`most_coins`); the posterior is taken over
    ``0..most`` only.
    """
    p = np.clip(np.asarray(p_filled, dtype=np.float64), 1e-4, 1 - 1e-4)
    w = (
        np.ones_like(p)
        if reliability is None
        else np.clip(np.asarray(reliability, dtype=np.float64), 0.0, 1.0)
    )
    log_on, log_off = temperature * w * np.log(p), temperature * w * np.log(1 - p)
    n = len(p) if most is None else min(len(p), max(most, 0))
    loglik = np.array([log_on[:k].sum() + log_off[k:].sum() for k in range(n + 1)])
    post = np.exp(loglik - loglik.max())
    post /= post.sum()
    k = int(np.argmax(post))
    return CoinReading(k, float(post[k]), tuple(float(v) for v in p))


def most_coins(drawn_cells: int) -> int:
    """The most coins a sheet with ``drawn_cells`` drawn cells (as read) can hold: none on a blank sheet,
    since a coin is earned only by drawing (a shape with a coin, or the last cell around a mountain);
    otherwise the whole track.

    The game never has more coins than drawn cells, but only the blank sheet is bounded: the photo
    generator puts up to 3 coins on sheets of a single shape (0.3 % of its random sheets; fresh seed
    51010026: 2 coins on 1 drawn cell, read right without a bound). Every found dev / fresh photo read
    with no drawn cell had 0 coins (32 / 18); the shipped model read 3 of those dev tracks as 2–3 coins
    (50700188, 50700219, 50800002) and 1 fresh one as 1 (51010023): coins exact dev 583 -> 586 of 608,
    fresh (seeds 51010000–349) 330 -> 331 of 346.
    """
    return GEOMETRY.coin_count if drawn_cells > 0 else 0


#: A track marked all along gives the same evidence as an empty one: every coin is judged against the
#: track's own last and most print-like coins, and a full track has no unmarked coin left to compare with,
#: so it can read as 0, sure. The strip alone cannot tell them apart (neither a full-vs-empty test on the
#: print nor more full tracks in training did without misreading empty ones); the sheet can: 14 coins take
#: most of a game, so a read of 0 on a well-filled map is doubted.
FULL_TRACK_MIN_DRAWN = (
    40  # drawn cells (read, not empty) from which a read of 0 may be a full track
)
FULL_TRACK_DOUBT = 0.25  # the share of its confidence it loses then (enough to flag it)


def doubt_empty_track(reading: CoinReading, drawn_cells: int) -> CoinReading:
    """``reading`` with its confidence lowered when it says 0 coins on a sheet with at least
    ``FULL_TRACK_MIN_DRAWN`` drawn cells: a full track may look like an empty one (the count stays)."""
    if reading.count != 0 or drawn_cells < FULL_TRACK_MIN_DRAWN:
        return reading
    return replace(reading, confidence=reading.confidence * (1.0 - FULL_TRACK_DOUBT))


# ---- the track sampled at a high resolution, following the sheet's curl ----------------------

COIN_PX = 64  # canonical pixels per u for the coin strip (coins are 0.38 u wide: ~24 px across)
CURL_ROWS = (
    8,
    9,
    10,
    11,
)  # the bottom crossing rows whose departure from the homography is extrapolated…
CURL_DEGREE = 1  # …as a straight line in y, per grid column (found grids are too noisy for more)


def _curl_model(
    intersections: np.ndarray, rows: tuple[int, ...] = CURL_ROWS, degree: int = CURL_DEGREE
):
    """u, v → photo px: the global homography plus each column's extrapolated departure from it.

    The global homography through all 144 crossings misses how the paper bends below the cell area
    (the track is 1.1–1.8 u below the last line). Per grid column, the bottom ``rows`` crossings'
    departures from that homography are fitted as a polynomial in y and extrapolated; across x the
    departures are interpolated linearly between columns (extended at the ends).
    """
    pts = np.asarray(intersections, dtype=np.float64)
    n = pts.shape[0]
    ideal = ideal_intersections()
    h = homography_from_intersections(pts)
    last = n - 1
    sel = list(rows)
    resid = pts[sel] - _apply_h(h, ideal[sel])  # (len(rows), n, 2)
    vander = np.vander(np.array(sel, dtype=np.float64) - last, degree + 1)
    coef = np.linalg.lstsq(vander, resid.reshape(len(sel), -1), rcond=None)[0].reshape(
        degree + 1, n, 2
    )

    def to_photo(u: np.ndarray, v: np.ndarray) -> np.ndarray:
        u, v = np.asarray(u, dtype=np.float64), np.asarray(v, dtype=np.float64)
        j = np.clip(np.floor(u).astype(int), 0, n - 2)
        f = u - j
        g = 1 - f
        powers = [(v - last) ** (degree - k) for k in range(degree + 1)]
        out = _apply_h(h, np.stack([u, v], axis=-1))
        for c in range(
            2
        ):  # each coordinate's departure: a polynomial in v whose terms vary linearly in u
            for k, power in enumerate(powers):
                ck = coef[k, :, c]
                out[..., c] += power * (ck[j] * g + ck[j + 1] * f)
        return out

    return to_photo


REFINE_PX = 48  # canonical px per u of the search strip
SECTIONS_U = (
    (0.85, 3.3),
    (2.7, 5.5),
    (4.9, 7.6),
    (7.0, 9.7),
    (9.1, 11.25),
)  # parts of the track matched on their own…
SECTION_REACH_U = 0.1  # …this close to the whole track's match
REFINE_REACH_U = 0.4  # largest correction searched (the curl extrapolation is rarely further off)
REFINE_ALONG_U = (
    0.3  # largest shift along the track (under half a coin pitch: the match cannot slip by a coin)
)


def _line_response(bgr: np.ndarray, px: int) -> np.ndarray:
    """Thin dark printed lines (band outline, coin rims) as a bright float image, in either side's colours."""
    low = bgr.min(axis=2) if bgr.ndim == 3 else bgr
    k = max(3, int(round(0.18 * px)) | 1)
    resp = cv2.morphologyEx(
        low, cv2.MORPH_BLACKHAT, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    ).astype(np.float32)
    return resp / (np.percentile(resp, 99) + 1.0)


def _track_template(px: int, x0: float, y0: float, w: int, h: int) -> np.ndarray:
    """The printed band outline and coin rims / inner rings as thin lines (float, blurred)."""
    g = GEOMETRY
    t = np.zeros((h, w), np.uint8)
    sh = 4  # fixed-point bits for sub-pixel drawing
    to_px = lambda x, y: (
        int(round(((x - x0) * px - 0.5) * 16)),
        int(round(((y - y0) * px - 0.5) * 16)),
    )  # noqa: E731
    b = g.coin_band
    cv2.rectangle(t, to_px(b.x0, b.y0), to_px(b.x1, b.y1), 255, 2, cv2.LINE_AA, sh)
    for i in range(g.coin_count):
        c = to_px(*g.coin_centre(i))
        cv2.circle(t, c, int(round(g.coin_radius * px * 16)), 255, 2, cv2.LINE_AA, sh)
        cv2.circle(t, c, int(round(g.coin_radius * 0.62 * px * 16)), 255, 1, cv2.LINE_AA, sh)
    return cv2.GaussianBlur(t.astype(np.float32) / 255.0, (0, 0), 1.0)


def _track_search(image: np.ndarray, to_photo, px: int) -> tuple[np.ndarray, np.ndarray]:
    """(thin-line response of the strip around the coin track, the printed track's template) for
    matching within ±``REFINE_REACH_U`` across and ±``REFINE_ALONG_U`` along the track."""
    ry, rx = REFINE_REACH_U, REFINE_ALONG_U
    b = GEOMETRY.coin_band
    tx0, tx1, ty0, ty1 = b.x0 - 0.15, b.x1 + 0.15, b.y0 - 0.15, b.y1 + 0.15
    us = tx0 - rx + (np.arange(int(round((tx1 - tx0 + 2 * rx) * px))) + 0.5) / px
    vs = ty0 - ry + (np.arange(int(round((ty1 - ty0 + 2 * ry) * px))) + 0.5) / px
    m = to_photo(*np.meshgrid(us, vs)).astype(np.float32)
    strip = cv2.remap(
        image, m[..., 0], m[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    resp = cv2.GaussianBlur(_line_response(strip, px), (0, 0), 0.7)
    tmpl = _track_template(px, tx0, ty0, int(round((tx1 - tx0) * px)), int(round((ty1 - ty0) * px)))
    return resp, tmpl


def refine_track(image: np.ndarray, to_photo, px: int = REFINE_PX):
    """Shift a u, v → photo mapping so the printed band outline and coin rims land where they are printed.

    The whole printed track (band outline, 14 rims and inner rings) is matched against the thin dark
    lines of the strip sampled through ``to_photo``, within ±``REFINE_REACH_U`` vertically (found
    grids' bottom rows can sit on the frame line, putting the extrapolated track ~0.3 u low) and
    ±``REFINE_ALONG_U`` along the track (less than half a coin pitch, so the match cannot slip by one coin).
    Returns the corrected mapping (the input one when the match is weak).
    """
    ry, rx = REFINE_REACH_U, REFINE_ALONG_U
    tx0 = GEOMETRY.coin_band.x0 - 0.15
    resp, tmpl = _track_search(image, to_photo, px)
    th = tmpl.shape[0]
    score = cv2.matchTemplate(resp, tmpl, cv2.TM_CCOEFF_NORMED)  # (2·ry·px+1, 2·rx·px+1) offsets
    iy, ix = np.unravel_index(int(np.argmax(score)), score.shape)
    if score[iy, ix] < 0.15:
        return to_photo
    dx = (ix + _subpixel(score[iy, :], ix)) / px - rx
    dy = (iy + _subpixel(score[:, ix], iy)) / px - ry
    # then each part of the track (SECTIONS_U) on its own, close to the whole track's offset: follows what is
    # left of the bend and turn
    reach = int(round(SECTION_REACH_U * px))
    cx, cy = ix, iy
    knots, offs = [], []
    for lo, hi in SECTIONS_U:
        a, z = int(round((lo - tx0) * px)), int(round((hi - tx0) * px))
        sub = tmpl[:, a:z]
        ya, xa = max(0, cy - reach), max(0, cx - reach)
        win = resp[
            ya : min(resp.shape[0], cy + reach + th), xa + a : min(resp.shape[1], cx + reach + z)
        ]
        if win.shape[0] < sub.shape[0] + 2 or win.shape[1] < sub.shape[1] + 2:
            continue
        s = cv2.matchTemplate(win, sub, cv2.TM_CCOEFF_NORMED)
        jy, jx = np.unravel_index(int(np.argmax(s)), s.shape)
        if s[jy, jx] < 0.15:
            continue
        knots.append((lo + hi) / 2)
        offs.append(
            (
                (xa + jx + _subpixel(s[jy, :], jx)) / px - rx,
                (ya + jy + _subpixel(s[:, jx], jy)) / px - ry,
            )
        )
    if len(knots) >= 2:
        k, o = np.array(knots), np.array(offs)
        off_x = lambda u: np.interp(u, k, o[:, 0])  # noqa: E731
        off_y = lambda u: np.interp(u, k, o[:, 1])  # noqa: E731
    else:
        off_x = lambda u: dx  # noqa: E731
        off_y = lambda u: dy  # noqa: E731

    def refined(u, v):
        u = np.asarray(u, dtype=np.float64)
        return to_photo(u + off_x(u), np.asarray(v, dtype=np.float64) + off_y(u))

    return refined


def _subpixel(s: np.ndarray, i: int) -> float:
    """Parabolic sub-step of a peak at ``i`` of the 1-D score ``s``."""
    if 0 < i < len(s) - 1:
        a, b, c = float(s[i - 1]), float(s[i]), float(s[i + 1])
        den = a - 2 * b + c
        if den < 0:
            return float(np.clip(0.5 * (a - c) / den, -0.5, 0.5))
    return 0.0


def coin_track_mapping(image: np.ndarray, upright: GridFit):
    """u, v → photo px around the coin track: curl extrapolated from the crossings, then snapped to the print."""
    return refine_track(image, _curl_model(upright.intersections))


def coin_centres_px(to_photo) -> np.ndarray:
    """(14, 2) photo px of the printed coins' centres through a :func:`coin_track_mapping`."""
    centres = np.array([GEOMETRY.coin_centre(i) for i in range(GEOMETRY.coin_count)])
    return np.asarray(to_photo(centres[:, 0], centres[:, 1]), dtype=np.float64)


def coin_strip(image: np.ndarray, upright: GridFit, px: int = COIN_PX, to_photo=None) -> np.ndarray:
    """The canonical coin strip at ``px`` per u, through ``to_photo`` (default: :func:`coin_track_mapping`)."""
    x0, x1, y0, y1 = COIN_STRIP
    us = x0 + (np.arange(int(round((x1 - x0) * px))) + 0.5) / px
    vs = y0 + (np.arange(int(round((y1 - y0) * px))) + 0.5) / px
    to_photo = to_photo or coin_track_mapping(image, upright)
    m = to_photo(*np.meshgrid(us, vs)).astype(np.float32)
    return cv2.remap(image, m[..., 0], m[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _apply_h(h: np.ndarray, uv: np.ndarray) -> np.ndarray:
    """u, v arrays of any shape (…, 2) through the homography ``h``."""
    p = uv @ h[:, :2].T + h[:, 2]
    return p[..., :2] / p[..., 2:3]


RECENTRE_U = 0.12  # each coin's printed rim is looked for this far around where the strip puts it


def _rim_template(px: int, half: int) -> np.ndarray:
    """A coin's printed rim and inner ring as thin blurred lines, centred in a (2·half+1)² float image."""
    ring = np.zeros((2 * half + 1, 2 * half + 1), np.float32)
    cv2.circle(
        ring,
        (half, half),
        int(round(GEOMETRY.coin_radius * px)),
        1.0,
        max(1, px // 32),
        cv2.LINE_AA,
    )
    cv2.circle(
        ring,
        (half, half),
        int(round(GEOMETRY.coin_radius * 0.62 * px)),
        1.0,
        max(1, px // 48),
        cv2.LINE_AA,
    )
    return cv2.GaussianBlur(ring, (0, 0), px / 64)


def _recentre(
    strip_bgr: np.ndarray, px: int, centres: list[tuple[float, float]]
) -> list[tuple[float, float]]:
    """Each coin centre moved onto its printed rim and inner ring (what is left of the placement error).

    Shifts are found per coin within ±RECENTRE_U, then replaced by the median of the coin and its
    neighbours' shifts (a heavily marked coin alone does not drag its centre).
    """
    g = GEOMETRY
    resp = _line_response(strip_bgr, px)
    # only the inside of the band: its printed outline would pull the end coins (and any coin) onto it
    x0, _, y0, _ = COIN_STRIP
    b, m = g.coin_band, 0.06
    us = x0 + (np.arange(resp.shape[1]) + 0.5) / px
    vs = y0 + (np.arange(resp.shape[0]) + 0.5) / px
    resp = resp * (
        ((vs > b.y0 + m) & (vs < b.y1 - m))[:, None] & ((us > b.x0 + m) & (us < b.x1 - m))[None, :]
    )
    reach = max(1, int(round(RECENTRE_U * px)))
    half = int(round(g.coin_radius * 1.3 * px))
    size = 2 * half + 1
    ring = _rim_template(px, half)
    shifts = []
    for cx, cy in centres:
        x0, y0 = int(round(cx)) - half - reach, int(round(cy)) - half - reach
        win = np.zeros((size + 2 * reach, size + 2 * reach), np.float32)
        ys, xs = (
            slice(max(0, y0), min(resp.shape[0], y0 + win.shape[0])),
            slice(max(0, x0), min(resp.shape[1], x0 + win.shape[1])),
        )
        win[ys.start - y0 : ys.stop - y0, xs.start - x0 : xs.stop - x0] = resp[ys, xs]
        s = cv2.matchTemplate(win, ring, cv2.TM_CCORR)
        iy, ix = np.unravel_index(int(np.argmax(s)), s.shape)
        shifts.append((ix - reach + (int(round(cx)) - cx), iy - reach + (int(round(cy)) - cy)))
    sh = np.array(shifts, dtype=np.float64)
    sm = np.array([np.median(sh[max(0, i - 1) : i + 2], axis=0) for i in range(len(sh))])
    return [(cx + dx, cy + dy) for (cx, cy), (dx, dy) in zip(centres, sm)]


def _coin_windows(strip_bgr: np.ndarray, px: int):
    """The 14 coins re-centred on their rims, and a square window of ±0.36 u around each:
    (centres in strip px, window offsets yy and xx in px, distance from the centre in coin radii,
    ``cut(a, cx, cy)`` → the window of image ``a`` around one centre)."""
    g = GEOMETRY
    x0, _, y0, _ = COIN_STRIP
    half = int(round(0.36 * px))
    centres = _recentre(
        strip_bgr,
        px,
        [
            ((cx - x0) * px - 0.5, (cy - y0) * px - 0.5)
            for cx, cy in (g.coin_centre(i) for i in range(g.coin_count))
        ],
    )
    yy, xx = np.mgrid[-half : half + 1, -half : half + 1].astype(np.float32)
    dist = np.hypot(xx, yy) / (g.coin_radius * px)

    def cut(a: np.ndarray, cx: float, cy: float) -> np.ndarray:
        m = np.float32([[1, 0, cx - half], [0, 1, cy - half]])
        return cv2.warpAffine(
            a,
            m,
            (2 * half + 1, 2 * half + 1),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        )

    return centres, yy, xx, dist, cut


def _coin_descriptors(
    strip_bgr: np.ndarray, px: int, windows=None
) -> tuple[np.ndarray, np.ndarray]:
    """Per coin, measures relative to the band around it: (14, D) descriptors and (14, P, P) L patches.
    ``windows``: :func:`_coin_windows` of this strip, when the caller already has them."""
    g = GEOMETRY
    img = strip_bgr.astype(np.float32) / 255.0 + 1e-3
    centres, yy, xx, dist, patch = windows or _coin_windows(strip_bgr, px)
    ang = np.arctan2(yy, xx)
    diag_sector = np.abs(np.sin(2 * ang)) > 0.7
    band_ref = (dist > 1.35) & (np.abs(yy) < 0.22 * px)

    # only inside the band: the paper beyond its two ends (next to the first and last coin) is another colour
    b = g.coin_band
    inside = [
        (xx / px > b.x0 + 0.1 - u) & (xx / px < b.x1 - 0.1 - u)
        for u, _ in (g.coin_centre(i) for i in range(g.coin_count))
    ]
    # local band colour beside each coin (bright percentile, smoothed along the track) = this coin's light
    refs = np.array(
        [
            np.percentile(patch(img, cx, cy)[band_ref & ins], 80, axis=0)
            for (cx, cy), ins in zip(centres, inside)
        ]
    )
    refs = np.array([np.median(refs[max(0, i - 1) : i + 2], axis=0) for i in range(len(refs))])
    out, patches = [], []
    k = max(3, int(round(0.12 * px)) | 1)
    kern = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    disc, inner = dist <= 0.85, dist <= 1.1
    rim = (dist > 0.88) & (dist < 1.12)
    outer = (dist > 1.2) & (dist < 1.75)
    for (cx, cy), ref, ins in zip(centres, refs, inside):
        rel = patch(img, cx, cy) / ref[None, None, :]
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
        out.append(
            [
                *log_rel[disc].mean(axis=0),
                L[disc].mean(),
                lab[..., 1][disc].mean(),
                lab[..., 2][disc].mean(),
                L[disc].std(),
                np.percentile(L[disc], 10),
                np.percentile(L[disc], 50),
                chroma[disc].mean(),
                bh[inner].mean(),
                np.percentile(bh[inner], 90),
                np.sqrt(tot),
                (e45 + e135 - e0 - e90) / tot,
                min(e45, e135) / tot,
                abs(e45 - e135) / tot,
                hp[disc].mean(),
                dark[outer & diag_sector & ins].mean(),
                dark[outer & ~diag_sector & ins].mean(),
                L[rim].mean(),
                bh[outer & ins].mean(),
            ]
        )
        patches.append(cv2.GaussianBlur(L, (0, 0), 1.0 * px / 64))
    return np.array(out, dtype=np.float32), np.array(patches, dtype=np.float32)


def _patch_distances(
    patches: np.ndarray, template: np.ndarray, mask: np.ndarray, shift: int
) -> np.ndarray:
    """Mean |patch − template| over ``mask`` for every patch, minimised over small shifts of the template."""
    shifted = np.stack(
        [
            np.roll(template, (dy, dx), axis=(0, 1))[mask]
            for dy in range(-shift, shift + 1)
            for dx in range(-shift, shift + 1)
        ]
    )  # (S, M)
    return np.abs(patches[:, mask][:, None, :] - shifted[None]).mean(axis=2).min(axis=1)


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
#: descriptors the change point looks at: colour, darkness, strokes, texture, and the patch differences
DESCRIPTOR_CONTEXT = (0, 1, 2, 3, 5, 6, 10, 11, 12, 13, 16, 21, 22)
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


def appearance_features(
    strip_bgr: np.ndarray, px: int, paper: PaperModel | None = None, windows=None
) -> np.ndarray:
    """(14, F) features of each coin from the high-resolution strip, judged against the track itself.

    Each coin is measured relative to the band beside it (local light), then compared with the
    track's last coins (unmarked unless the count is 12–14), with the first coin, with its
    neighbours, and through the best "first k differ from the rest" split of the whole track.
    ``paper`` is accepted for the interface; the band beside each coin is the reference.
    ``windows``: :func:`_coin_windows` of this strip, when the caller already has them.
    """
    d, patches = _coin_descriptors(strip_bgr, px, windows)
    n = len(d)
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
    # change point over a standardised subset: gain of splitting the track after k coins
    z = d[:, list(DESCRIPTOR_CONTEXT)]
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
    context = np.column_stack(
        [
            idx,
            idx < kbest,
            np.full(n, kbest),
            np.full(n, gain[kbest]),
            in_prefix,
            np.repeat(raw_split[None, [3, 6, 10, 13, d.shape[1] - 3]], n, axis=0),
            np.repeat(np.ptp(d[:, [3, 10, d.shape[1] - 3]], axis=0)[None], n, axis=0),
        ]
    )
    return np.concatenate(
        [d, d - suffix, d - med, d - d[:1], d - prev, nxt - d, context], axis=1
    ).astype(np.float32)


def track_match(image: np.ndarray, fit: GridFit, px: int = REFINE_PX) -> float:
    """How well the printed coin track (band outline, 14 rims and inner rings) matches the photo
    below ``fit``'s bottom edge: the best normalised correlation within :func:`refine_track`'s
    reach (median 0.72 where the track is, 0.16 above the grid, on the benchmark photos).

    Side A's mountains look the same after a half turn: the reader compares this for both turns.
    """
    resp, tmpl = _track_search(image, _curl_model(fit.intersections), px)
    return float(cv2.matchTemplate(resp, tmpl, cv2.TM_CCOEFF_NORMED).max())


# ---- the printed coin of every mountain cell: what an unmarked coin looks like in this photo -------

#: every printed mountain cell carries a small gold coin, never drawn on (docs/printed-sheet.md; synth/paper.py
#: ``draw_mountain``): its centre in u from the cell's top-left corner, and its radius (a track coin's is 0.19)
MOUNTAIN_COIN_U = (0.8, 0.2)
MOUNTAIN_COIN_RADIUS_U = 0.1
MOUNTAIN_REACH_U = (
    0.08  # the coin is looked for this far around where the grid puts it (found grids' error)
)
MOUNTAIN_PX = 64  # px per u of the mountain coin's window (as COIN_PX: both coins sampled alike)
#: the gold compared: inside the mountain coin's inner ring (0.062 u) and inside a track coin's (0.118 u)
MOUNTAIN_CENTRE_U = 0.045
TRACK_CENTRE_U = 0.09
#: an unmarked track coin's centre is this much less dark and less textured than a mountain coin's (the small
#: coin's centre takes in some of its inner ring): the mean over training-like photos
MOUNTAIN_OFFSET = (-0.067, -0.05)
#: darkness differences are judged in units of this plus the mountain coins' own spread (unmarked track coins
#: against the mountain coins of the same photo: 0.04 on sharp photos, 0.12 on low-resolution ones)
MOUNTAIN_DARKNESS_SCALE = 0.03
#: the reference is the mean of the darkest mountain coins: glare only lightens a coin, and on glare photos
#: two or three of the five can look lighter than the paper
MOUNTAIN_REFERENCE_COINS = 2
#: Each track coin against the printed mountain coins of the same photo: they help most on nearly full
#: tracks, which have no unmarked coin of their own to compare with.
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
    """The printed mountain coins of one photo: each one's centre darkness and texture against the paper
    (5, 2), how well each matched the printed coin's look (5,), and the coin's radius in photo pixels
    (a reliability: at 2–3 px the centre is a blur of the coin and its rings)."""

    descriptors: np.ndarray
    match: np.ndarray
    radius_px: float


def _centre_descriptor(
    window_bgr: np.ndarray, centre: np.ndarray, paper_bgr: np.ndarray
) -> list[float]:
    """Darkness and texture of a coin's centre (grey mean and spread as shares of the paper's grey): a
    brighter or dimmer light leaves them unchanged."""
    grey = window_bgr[centre].astype(np.float64).mean(axis=1)
    paper_grey = float(np.mean(paper_bgr)) + 1.0
    return [1.0 - float(grey.mean()) / paper_grey, float(grey.std()) / paper_grey]


def _mountain_window(
    image: np.ndarray, intersections: np.ndarray, cell: tuple[int, int], px: int
) -> np.ndarray:
    """The square around a mountain cell's printed coin (± 1.5 radii + the reach), through the cell's own four crossings."""
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
    """A printed coin (light disc, darker rim and inner ring) as a blurred float image, (2·half+1)²."""
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
    """(:func:`_centre_descriptor`, template match) of one mountain coin, found in its window by its printed look."""
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
    """The printed coins of ``side``'s mountain cells in the upright grid, each against the paper model at its cell."""
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
    """(14, 2) :func:`_centre_descriptor` of each track coin, against the paper just above and below the band beside it."""
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
    """(14, len(MOUNTAIN_FEATURE_NAMES)) each track coin against the printed mountain coins of the same photo.

    A track's own unmarked end is what :func:`appearance_features` judges a coin against, and a full
    track has none; the mountain coins are printed, never drawn on, on every sheet. Per coin: its centre's
    darkness and texture minus the reference's (the ``MOUNTAIN_REFERENCE_COINS`` darkest mountain coins, plus
    ``MOUNTAIN_OFFSET``), the darkness difference in units of ``MOUNTAIN_DARKNESS_SCALE`` plus the mountain
    coins' spread, the same for the track's last and first three coins, and how far the reference can be
    trusted (coin radius in photo px, template match). All NaN (missing) without ``mountains``.
    ``windows``: :func:`_coin_windows` of this strip, when the caller already has them.
    """
    n = GEOMETRY.coin_count
    if mountains is None:
        return np.full((n, len(MOUNTAIN_FEATURE_NAMES)), np.nan, np.float32)
    track = _track_centre_descriptors(strip_bgr, px, windows or _coin_windows(strip_bgr, px))
    m = mountains.descriptors
    darkest = m[np.argsort(-m[:, 0])[:MOUNTAIN_REFERENCE_COINS]].mean(axis=0)
    spread = np.median(np.abs(m - darkest), axis=0)
    diff = track - (darkest + np.asarray(MOUNTAIN_OFFSET))
    z = diff[:, 0] / (MOUNTAIN_DARKNESS_SCALE + spread[0])
    last3, first3 = np.median(diff[-3:], axis=0), np.median(diff[:3], axis=0)
    context = [
        np.median(z[-3:]),
        np.median(z[:3]),
        last3[0],
        last3[1],
        first3[0],
        mountains.radius_px,
        np.median(mountains.match),
    ]
    return np.column_stack([diff, z, np.repeat(np.array(context)[None], n, axis=0)]).astype(
        np.float32
    )


# ---- evidence that does not depend on the marking style, and how much each coin can tell ----------

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
#: columns of the style-free descriptors compared with the track (the rest are context)
_COMPARED_DESCRIPTORS = (3, 4, 5, 6, 7, 8, 9)
STYLE_FREE_FEATURE_NAMES: list[str] = (
    STYLE_FREE_DESCRIPTOR_NAMES
    + [f"{STYLE_FREE_DESCRIPTOR_NAMES[i]}-last3" for i in _COMPARED_DESCRIPTORS]
    + [f"{STYLE_FREE_DESCRIPTOR_NAMES[i]}-median" for i in _COMPARED_DESCRIPTORS]
    + [f"{STYLE_FREE_DESCRIPTOR_NAMES[i]}-unmarked_z" for i in _COMPARED_DESCRIPTORS]
    + [
        "unlike_unmarked",
        "unlike_unmarked_upto",
        "unlike_unmarked_from",
        "before_unlike_split",
        "unlike_split_k",
        "unlike_split_gain",
    ]
)
COIN_FEATURE_NAMES: list[str] = (
    APPEARANCE_FEATURE_NAMES + STYLE_FREE_FEATURE_NAMES + MOUNTAIN_FEATURE_NAMES
)
RELIABILITY_COLUMN = len(APPEARANCE_FEATURE_NAMES) + STYLE_FREE_DESCRIPTOR_NAMES.index(
    "reliability"
)


def _style_free_descriptors(strip_bgr: np.ndarray, px: int, windows=None) -> np.ndarray:
    """(14, 10) per-coin measures scaled by the print's own contrast beside the coin.

    Glare adds light (contrast shrinks, bright parts clip) and every marking style darkens or
    colours the coin differently, so each measure is a difference from the band beside the coin
    divided by that coin's printed contrast (band − its darkest rim pixels): a veil of glare or a
    dim photo leaves them unchanged. ``print_contrast`` (relative to the track's clearest coins) and
    ``saturated`` (share of clipped pixels) say how much the coin can show at all (``reliability``).
    ``ring_match`` is the thin-line image's correlation with the printed rim and inner ring (an
    unmarked coin matches, a covered or crossed one less), ``extra_lines`` the line energy off them.
    ``windows``: :func:`_coin_windows` of this strip, when the caller already has them.
    """
    g = GEOMETRY
    img = strip_bgr.astype(np.float32)
    grey = img.mean(axis=2)
    centres, yy, xx, dist, patch = windows or _coin_windows(strip_bgr, px)
    half = len(yy) // 2
    disc, inner = dist <= 0.85, dist <= 1.15
    rim = (dist > 0.85) & (dist < 1.15)
    ring_zone = (np.abs(dist - 1.0) < 0.12) | (np.abs(dist - 0.62) < 0.1)
    band_ref = (dist > 1.35) & (np.abs(yy) < 0.22 * px)
    ring = _rim_template(px, half)[inner]
    ring = (ring - ring.mean()) / (ring.std() + 1e-6)
    k = max(3, int(round(0.12 * px)) | 1)
    kern = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    b = g.coin_band

    rows = []
    for i, (cx, cy) in enumerate(centres):
        u = g.coin_centre(i)[0]
        ins = (xx / px > b.x0 + 0.1 - u) & (xx / px < b.x1 - 0.1 - u)
        p_bgr, p_grey = patch(img, cx, cy), patch(grey, cx, cy)
        band = np.percentile(p_bgr[band_ref & ins], 80, axis=0)
        band_grey = float(band.mean())
        rim_dark = float(np.percentile(p_grey[rim], 15))
        bh = cv2.morphologyEx(p_grey, cv2.MORPH_BLACKHAT, kern)
        v = bh[inner]
        ring_match = float(((v - v.mean()) / (v.std() + 1e-6) * ring).mean())
        rows.append(
            [
                band_grey - rim_dark,
                float((p_bgr.max(axis=2)[inner] >= 250).mean()),
                band_grey - float(p_grey[disc].mean()),
                band_grey - float(np.percentile(p_grey[disc], 10)),
                float(np.linalg.norm(p_bgr[disc].mean(axis=0) / (band + 1.0) - 1.0) * band_grey),
                ring_match,
                float(bh[inner & ~ring_zone].mean()),
                float(np.percentile(bh[inner & ~ring_zone], 90)),
                float(p_grey[disc].std()),
            ]
        )
    r = np.array(rows, dtype=np.float64)
    contrast = np.array([np.median(r[max(0, i - 1) : i + 2, 0]) for i in range(len(r))])
    contrast = np.maximum(contrast, 1.0)
    clear = max(float(np.percentile(contrast, 75)), 1.0)
    rel_contrast = contrast / clear
    reliability = np.clip(rel_contrast / 0.6, 0.0, 1.0) * (1.0 - r[:, 1])
    scaled = r[:, 2:] / contrast[:, None]
    scaled[:, 3] = r[:, 5]  # ring_match is already scale-free
    return np.column_stack([rel_contrast, reliability, r[:, 1], scaled]).astype(np.float32)


def coin_features(
    strip_bgr: np.ndarray,
    px: int,
    paper: PaperModel | None = None,
    mountains: MountainCoins | None = None,
) -> np.ndarray:
    """(14, F) the coin model's features: :func:`appearance_features` plus style-free, glare-scaled
    evidence (``STYLE_FREE_FEATURE_NAMES``).

    The extra measures (:func:`_style_free_descriptors`, each scaled by the print's own contrast
    beside the coin) are compared with the track's last three coins, with its median, and as z-scores against
    the three coins most like the printed coin (clearest rim and inner ring, among those that can
    show a mark), so a coin is judged against the track's own unmarked coins under the same light,
    whatever the marking style — also when 11–13 coins are marked and the last three are not all
    blank. ``unlike_unmarked`` folds those z-scores into one number per coin, with its monotone
    envelopes along the track and its best split. The first ``len(APPEARANCE_FEATURE_NAMES)``
    columns are :func:`appearance_features` unchanged; the last are :func:`mountain_features` (each coin
    against the printed mountain coins of the photo, NaN without ``mountains``).
    """
    windows = _coin_windows(strip_bgr, px)  # the rims are found once for both descriptor sets
    base = appearance_features(strip_bgr, px, paper, windows)
    e = _style_free_descriptors(strip_bgr, px, windows).astype(np.float64)
    rel = e[:, list(_COMPARED_DESCRIPTORS)]
    last3 = np.median(rel[-3:], axis=0)
    med = np.median(rel, axis=0)
    # the least-marked coins: the three most like the printed coin (rim and inner ring the clearest)
    # among the coins that can show a mark — the track's unmarked end even when only one coin is left
    score = -e[:, 6]
    score = np.where(e[:, 1] > 0.5, score, np.inf)
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
    # from the start, so a coin is as filled as the least unlike coin before it (and as empty as the
    # most unlike one after it), and the track splits where the unlikeness drops
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
    return np.concatenate(
        [
            base,
            e,
            rel - last3,
            rel - med,
            z,
            split,
            mountain_features(strip_bgr, px, mountains, windows),
        ],
        axis=1,
    ).astype(np.float32)


def coin_track_features(
    image: np.ndarray,
    upright: GridFit,
    paper: PaperModel,
    side: str,
    px: int = COIN_PX,
    to_photo=None,
) -> np.ndarray:
    """(14, F) :func:`coin_features` of the curl-following strip (through ``to_photo``, default
    :func:`coin_track_mapping`), with ``side``'s printed mountain coins (:func:`mountain_coins`) as the
    reference for an unmarked coin (the count needs :func:`coin_reliability` of these features)."""
    strip = coin_strip(image, upright, px, to_photo)
    return coin_features(strip, px, paper, mountain_coins(image, upright, side, paper))


def coin_reliability(features: np.ndarray) -> np.ndarray:
    """(14,) how much each coin can show (0 = washed out by glare or clipped: no evidence), from
    :func:`coin_track_features`."""
    return np.asarray(features, dtype=np.float64)[:, RELIABILITY_COLUMN]


# ---- training: one photometrically changed copy of every training strip ------------------------

#: white balance of the light, per channel (indoor lamps against daylight)
AUGMENT_GAIN = (0.85, 1.15)
#: the light along the track: a slope from end to end (each end 0.55–1.1 of the light) or the edge of a
#: shadow (the phone's or a hand's) that darkens one side to 0.45–0.85 over 0.02–0.25 of the track
AUGMENT_SLOPE = (0.55, 1.1)
AUGMENT_SHADOW_DEPTH = (0.45, 0.85)
AUGMENT_SHADOW_WIDTH = (0.02, 0.25)
#: a glare veil on 40 % of the copies: a band 0.08–0.4 of the track wide adding 60–220 grey levels, clipped
AUGMENT_GLARE_SHARE = 0.4
AUGMENT_GLARE_WIDTH = (0.08, 0.4)
AUGMENT_GLARE_LEVEL = (60.0, 220.0)
AUGMENT_GAMMA = (0.75, 1.3)  # the camera's tone curve


def relight_strip(strip_bgr: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The coin strip under other light: white balance, a light slope or a shadow edge along the
    track (or neither), sometimes a clipped glare veil, and a tone curve.

    Training photos rarely put a shadow edge or a glare band across the 10 u of the track itself, and
    the marked coins are the first ones, so without this the coin model can learn "the left part of the
    track is darker" as "filled". The marks themselves are left as drawn: this teaches light, not style.
    """
    img = strip_bgr.astype(np.float32)
    x = np.linspace(0.0, 1.0, img.shape[1], dtype=np.float32)[None, :, None]
    gains = rng.uniform(*AUGMENT_GAIN, 3).astype(np.float32)
    kind = int(rng.integers(3))
    if kind == 0:
        a, b = rng.uniform(*AUGMENT_SLOPE, 2)
        light = a + (b - a) * x
    elif kind == 1:
        edge, width, depth = (
            rng.uniform(0.1, 0.9),
            rng.uniform(*AUGMENT_SHADOW_WIDTH),
            rng.uniform(*AUGMENT_SHADOW_DEPTH),
        )
        s = 1 / (1 + np.exp(-(x - edge) / width))
        light = 1 - (1 - depth) * (s if rng.random() < 0.5 else 1 - s)
    else:
        light = np.ones_like(x)
    img = img * gains * light
    if rng.random() < AUGMENT_GLARE_SHARE:
        centre, width, level = (
            rng.uniform(0, 1),
            rng.uniform(*AUGMENT_GLARE_WIDTH),
            rng.uniform(*AUGMENT_GLARE_LEVEL),
        )
        img = img + level * np.exp(-0.5 * ((x - centre) / width) ** 2)
    img = 255.0 * (np.clip(img, 0, 255) / 255.0) ** rng.uniform(*AUGMENT_GAMMA)
    return np.clip(img, 0, 255).astype(np.uint8)


def coin_training_features(
    image: np.ndarray,
    upright: GridFit,
    paper: PaperModel,
    side: str,
    rng: np.random.Generator,
    px: int = COIN_PX,
) -> tuple[np.ndarray, np.ndarray]:
    """(:func:`coin_track_features`, the same features of the strip under other light
    (:func:`relight_strip`)) for one training photo; both copies carry the photo's labels.

    Coin models fitted on 650 training-like photos with and without the copies: dev photos (575 found,
    seeds 507…/508…, mean of three random starts) coins exact 536 -> 541, glare photos 45 -> 49 of 60,
    marker family 129 -> 131 of 149; untouched photos (197 found, seeds 50902000–199) 182 -> 185.
    """
    strip = coin_strip(image, upright, px)
    # the relit copy keeps the photo's mountain coins: the light on the track then differs from theirs
    mountains = mountain_coins(image, upright, side, paper)
    return coin_features(strip, px, paper, mountains), coin_features(
        relight_strip(strip, rng), px, paper, mountains
    )
