"""Where the coin track lies in the photo, and the strip sampled along it.

The strip is sampled at 64 px/u following the paper's curl below the grid (``_curl_model``: the
bottom crossing rows' departure from the homography, extrapolated), then snapped onto the printed
band and coin rims (``refine_track``, never further than half a coin spacing, so it cannot slip by
a coin). ``track_match`` says how well the printed track matches the photo below a grid.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.grid import GridFit, homography_from_intersections, ideal_intersections
from vision.layout import GEOMETRY

COIN_STRIP = (0.9, 11.4, 12.0, 12.9)  # x0, x1, y0, y1 in u: the coin track with a little margin
COIN_PX = 64  # canonical pixels per u for the coin strip (coins are 0.38 u wide: ~24 px across)
#: the bottom crossing rows whose departure from the homography is extrapolated…
CURL_ROWS = (8, 9, 10, 11)
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
        # each coordinate's departure: a polynomial in v whose terms vary linearly in u
        for c in range(2):
            for k, power in enumerate(powers):
                ck = coef[k, :, c]
                out[..., c] += power * (ck[j] * g + ck[j + 1] * f)
        return out

    return to_photo


REFINE_PX = 48  # canonical px per u of the search strip
#: parts of the track matched on their own…
SECTIONS_U = ((0.85, 3.3), (2.7, 5.5), (4.9, 7.6), (7.0, 9.7), (9.1, 11.25))
SECTION_REACH_U = 0.1  # …this close to the whole track's match
REFINE_REACH_U = 0.4  # largest correction searched (the curl extrapolation is rarely further off)
#: largest shift along the track (under half a coin pitch: the match cannot slip by a coin)
REFINE_ALONG_U = 0.3


def _line_response(bgr: np.ndarray, px: int) -> np.ndarray:
    """Thin dark printed lines (band outline, coin rims) as a bright float image, in either
    side's colours."""
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
    )
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
    """Shift a u, v → photo mapping so the printed band outline and coin rims land where they
    are printed.

    The whole printed track (band outline, 14 rims and inner rings) is matched against the thin
    dark lines of the strip sampled through ``to_photo``, within ±``REFINE_REACH_U`` vertically
    (found grids' bottom rows can sit on the frame line, putting the extrapolated track ~0.3 u low)
    and ±``REFINE_ALONG_U`` along the track (less than half a coin pitch, so the match cannot slip
    by one coin). Returns the corrected mapping (the input one when the match is weak).
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
    # then each part of the track (SECTIONS_U) on its own, close to the whole track's offset:
    # follows what is left of the bend and turn
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
        off_x = lambda u: np.interp(u, k, o[:, 0])
        off_y = lambda u: np.interp(u, k, o[:, 1])
    else:
        off_x = lambda u: dx
        off_y = lambda u: dy

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
    """u, v → photo px around the coin track: curl extrapolated from the crossings, then snapped
    to the print."""
    return refine_track(image, _curl_model(upright.intersections))


def coin_centres_px(to_photo) -> np.ndarray:
    """(14, 2) photo px of the printed coins' centres through a :func:`coin_track_mapping`."""
    centres = np.array([GEOMETRY.coin_centre(i) for i in range(GEOMETRY.coin_count)])
    return np.asarray(to_photo(centres[:, 0], centres[:, 1]), dtype=np.float64)


def coin_strip(image: np.ndarray, upright: GridFit, px: int = COIN_PX, to_photo=None) -> np.ndarray:
    """The canonical coin strip at ``px`` per u, through ``to_photo`` (default:
    :func:`coin_track_mapping`)."""
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


def track_match(
    image: np.ndarray, fit: GridFit, px: int = REFINE_PX, follow_curl: bool = True
) -> float:
    """How well the printed coin track (band outline, 14 rims and inner rings) matches the photo
    below ``fit``'s bottom edge: the best normalised correlation within :func:`refine_track`'s
    reach (median 0.72 where the track is, 0.16 above the grid, on the benchmark photos).

    Side A's mountains look the same after a half turn: the reader compares this for both turns.
    ``follow_curl=False`` looks along the grid's homography alone instead of the curl extrapolated
    from its bottom crossings (:func:`_curl_model`), which a bottom row found a little off throws
    further off 1–2 u below.
    """
    if follow_curl:
        to_photo = _curl_model(fit.intersections)
    else:
        to_photo = lambda u, v: _apply_h(
            fit.homography, np.stack([np.asarray(u), np.asarray(v)], axis=-1)
        )
    resp, tmpl = _track_search(image, to_photo, px)
    return float(cv2.matchTemplate(resp, tmpl, cv2.TM_CCOEFF_NORMED).max())
