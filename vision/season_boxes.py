"""Where the season boxes' writing cells are in a photo, and their ink.

The strip holding the four boxes and the final-total shield (13.3–14.5 u below the grid's top
edge, under the coin track) is sampled at ``BOX_PX`` per u through the coin track's mapping (the
paper's curl extrapolated from the bottom grid rows, snapped onto the printed coin track:
:mod:`vision.coins.track`). Each box is then snapped onto its printed borders, and each writing
cell is cut out as darkness (how much darker than the local paper each pixel is), less the print
that all four boxes share in that cell (the coin and monster icons). Reading the ink is
:mod:`vision.seasons`.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from scoring.written import SEASON_NAMES
from vision.layout import GEOMETRY, Box

BOX_PX = 72  # canonical pixels per u of the box strip (a digit 0.3 u tall: ~22 px)
STRIP = (-1.1, 11.4, 12.85, 14.95)  # x0, x1, y0, y1 in u: the four boxes and the shield
SNAP_REACH_U = 0.3  # largest shift when snapping a box onto its printed borders…
SNAP_SCALE = 0.12  # …and largest stretch or shrink
SNAP_MIN_STRENGTH = 2.0  # borders darker than this × the paper's median darkness are found
SNAP_MIN_SCORE = 0.2  # an outline matching worse than this is not taken
#: a box placed further than this from the line through the other three boxes' places is
#: snapped again from that line's place, within ``RESNAP_REACH_U``
AGREE_U = 0.3
RESNAP_REACH_U = 0.15
MAX_RESNAPS = 2  # boxes snapped again at most; with more off, the line is no guide
PAPER_KERNEL_U = 0.22  # grey closing this wide takes the ink off and leaves the paper…
PAPER_SMOOTH_PX = 1.5  # …of the strip smoothed this much first (so the grain does not lift it)
#: ink is looked for in a cell smoothed this much, and the paper's grain measured the same way
INK_SMOOTH_PX = 1.0
LINE_BAND_U = 0.1  # printed borders are looked for this close to where they are printed
NOISE_MADS = 6  # …at least this many median deviations above the paper's median…
LINE_PERCENTILE = 97  # the strip's printed lines: this percentile of its darkness
SHARED_PRINT_PARTS = ("coins", "monsters")  # cells whose print is the same in every box
ALIGN_PX = 6  # the four boxes' copies of a cell are aligned within this


def writing_cells() -> dict[str, Box]:
    """Every writing cell (units) by key "spring.edict1" … "winter.total", "final"."""
    from vision.synth.paper import season_parts

    cells = {
        f"{name}.{part}": b
        for name, box in zip(SEASON_NAMES, GEOMETRY.season_boxes)
        for part, b in season_parts(box).items()
    }
    f = GEOMETRY.final_total
    cells["final"] = Box(f.x0, f.y0, f.x1, f.y0 + 0.85)
    return cells


def sample_strip(
    image: np.ndarray, to_photo: Callable[..., np.ndarray], px: int = BOX_PX
) -> np.ndarray:
    """The box strip (``STRIP``) as a grey image at ``px`` per u through ``to_photo``.

    Brightness, not the darkest channel: the colour printings' faint icons are about as bright
    as their paper, so they fade while pencil and pen of any colour stay dark."""
    x0, x1, y0, y1 = STRIP
    us = x0 + (np.arange(int(round((x1 - x0) * px))) + 0.5) / px
    vs = y0 + (np.arange(int(round((y1 - y0) * px))) + 0.5) / px
    m = np.asarray(to_photo(*np.meshgrid(us, vs)), np.float32)
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return cv2.remap(grey, m[..., 0], m[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def darkness(strip: np.ndarray, px: int = BOX_PX) -> np.ndarray:
    """How much darker than the local paper each pixel is, as a share of the paper (0…1)."""
    k = max(3, int(round(PAPER_KERNEL_U * px)) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    smooth = cv2.GaussianBlur(strip.astype(np.float32), (0, 0), PAPER_SMOOTH_PX)
    paper = cv2.morphologyEx(smooth, cv2.MORPH_CLOSE, kernel)  # the grain's bright specks smoothed
    paper = cv2.GaussianBlur(paper, (0, 0), k / 3)
    return np.clip((paper - strip.astype(np.float32)) / np.maximum(paper, 20.0), 0.0, 1.0)


def _box_lines(box: Box) -> tuple[list[float], list[float]]:
    """(x of vertical borders, y of horizontal borders) of one season box's cells, in u."""
    from vision.synth.paper import season_parts

    xs, ys = set(), set()
    for part in season_parts(box).values():
        xs.update((round(part.x0, 4), round(part.x1, 4)))
        ys.update((round(part.y0, 4), round(part.y1, 4)))
    return sorted(xs), sorted(ys)


def strip_affine(px: int = BOX_PX) -> np.ndarray:
    """2×3: u, v → strip px where the coin track's mapping put the boxes."""
    return np.array([[px, 0.0, -STRIP[0] * px - 0.5], [0.0, px, -STRIP[2] * px - 0.5]])


def _fit_lines(
    profile: np.ndarray, lines: np.ndarray, centre: float, px: int, reach: float = SNAP_REACH_U
) -> tuple:
    """(shift px, scale, strength) laying printed lines at ``lines`` (u from ``centre``, which
    sits at ``len(profile) / 2``) on a darkness profile's peaks: every shift within ``reach`` u
    and scale within ``SNAP_SCALE`` is tried."""
    n = len(profile)
    shifts = np.arange(-int(reach * px), int(reach * px) + 1)
    scales = np.arange(1 - SNAP_SCALE, 1 + SNAP_SCALE + 1e-9, 0.01)
    peak = np.maximum(profile, np.maximum(np.roll(profile, 1), np.roll(profile, -1)))
    pos = n / 2 + (lines - centre)[None, None, :] * scales[None, :, None] * px
    pos = pos + shifts[:, None, None]
    idx = np.clip(np.round(pos).astype(int), 0, n - 1)
    score = peak[idx].mean(axis=2)
    i, j = np.unravel_index(int(np.argmax(score)), score.shape)
    return (
        float(shifts[i]),
        float(scales[j]),
        float(score[i, j]) / (float(np.median(profile)) + 0.02),
    )


def _snap_profiles(dark: np.ndarray, box: Box, px: int, reach: float = SNAP_REACH_U) -> np.ndarray:
    """2×3: u, v → strip px laying ``box``'s printed borders on the strip's lines.

    The horizontal borders are found in the darkness profile of the box's left and right parts,
    the vertical ones in its top and bottom halves (shift and scale each), so a box the paper's
    curl has moved, stretched, sheared or turned is followed; an affine fit through the box's
    corners so placed is the mapping. Borders too faint to find keep the coin track's mapping."""
    base = strip_affine(px)
    r = reach + 0.1
    x0, y0 = int(round((box.x0 - r - STRIP[0]) * px)), int(round((box.y0 - r - STRIP[2]) * px))
    w, h = int(round((box.width + 2 * r) * px)), int(round((box.height + 2 * r) * px))
    win = np.zeros((h, w), np.float32)
    sy0, sx0 = max(0, y0), max(0, x0)
    sy1, sx1 = min(dark.shape[0], y0 + h), min(dark.shape[1], x0 + w)
    if sy1 <= sy0 or sx1 <= sx0:
        return base
    win[sy0 - y0 : sy1 - y0, sx0 - x0 : sx1 - x0] = dark[sy0:sy1, sx0:sx1]
    xs, ys = (np.array(v) for v in _box_lines(box))
    cu, cv = box.centre
    col = lambda u: int(round((u - box.x0 + r) * px))  # noqa: E731
    row = lambda v: int(round((v - box.y0 + r) * px))  # noqa: E731
    left = (box.x0 + 0.05, box.x0 + 0.3 * box.width)
    right = (box.x0 + 0.72 * box.width, box.x1 - 0.05)
    top, bottom = (box.y0 + 0.05, cv - 0.05), (cv + 0.05, box.y1 - 0.05)
    fits = {
        "left": _fit_lines(win[:, col(left[0]) : col(left[1])].mean(axis=1), ys, cv, px, reach),
        "right": _fit_lines(
            win[:, col(right[0]) : col(right[1])].mean(axis=1), ys[[0, -1]], cv, px, reach
        ),
        "top": _fit_lines(win[row(top[0]) : row(top[1])].mean(axis=0), xs, cu, px, reach),
        "bottom": _fit_lines(win[row(bottom[0]) : row(bottom[1])].mean(axis=0), xs, cu, px, reach),
    }
    if min(f[2] for f in fits.values()) < SNAP_MIN_STRENGTH:
        return base
    ul, ur = sum(left) / 2, sum(right) / 2
    vt, vb = sum(top) / 2, sum(bottom) / 2
    y_at = lambda f, v: h / 2 + (v - cv) * f[1] * px + f[0]  # noqa: E731
    x_at = lambda f, u: w / 2 + (u - cu) * f[1] * px + f[0]  # noqa: E731
    ideal, found = [], []
    for u in (box.x0, box.x1):
        for v in (box.y0, box.y1):
            t, q = (u - ul) / (ur - ul), (v - vt) / (vb - vt)
            yy = (1 - t) * y_at(fits["left"], v) + t * y_at(fits["right"], v)
            xx = (1 - q) * x_at(fits["top"], u) + q * x_at(fits["bottom"], u)
            ideal.append([u, v])
            found.append([x0 + xx - 0.5, y0 + yy - 0.5])
    fitted, _ = cv2.estimateAffine2D(np.float32(ideal), np.float32(found))
    return base if fitted is None else fitted.astype(np.float64)


def _outline_template(box: Box, px: int, margin: float) -> np.ndarray:
    """A season box's printed borders as thin blurred lines, with ``margin`` u around it."""
    w, h = int(round((box.width + 2 * margin) * px)), int(round((box.height + 2 * margin) * px))
    t = np.zeros((h, w), np.float32)
    xs, ys = _box_lines(box)
    to = lambda x, y: (
        int(round((x - box.x0 + margin) * px)),
        int(round((y - box.y0 + margin) * px)),
    )
    cv2.rectangle(t, to(box.x0, box.y0), to(box.x1, box.y1), 1.0, 2)
    for x in xs[1:-1]:
        cv2.line(t, to(x, box.y0), to(x, box.y1), 1.0, 1)
    mid = (box.y0 + box.y1) / 2
    cv2.line(t, to(box.x0, mid), to(xs[-2], mid), 1.0, 1)
    return cv2.GaussianBlur(t, (0, 0), 1.5)


def _match(dark: np.ndarray, tmpl: np.ndarray, x0: int, y0: int, reach: int) -> tuple:
    """(dx, dy, score) of ``tmpl``'s best match around strip px (x0, y0), within ``reach`` px."""
    h, w = dark.shape
    th, tw = tmpl.shape
    ya, xa = max(0, y0 - reach), max(0, x0 - reach)
    win = dark[ya : min(h, y0 + reach + th), xa : min(w, x0 + reach + tw)]
    if win.shape[0] < th + 2 or win.shape[1] < tw + 2:
        return 0, 0, 0.0
    score = cv2.matchTemplate(win, tmpl, cv2.TM_CCOEFF_NORMED)
    iy, ix = np.unravel_index(int(np.argmax(score)), score.shape)
    return xa + int(ix) - x0, ya + int(iy) - y0, float(score[iy, ix])


def _snap_outline(dark: np.ndarray, box: Box, px: int, reach: float = SNAP_REACH_U) -> np.ndarray:
    """2×3: u, v → strip px laying ``box``'s printed outline on the strip's lines.

    The whole outline is matched first (within ``reach`` u), then each quarter of it a
    little further; an affine fit through the quarters follows a box the paper's curl has sheared
    or turned. A weak match keeps the coin track's mapping."""
    base = strip_affine(px)
    m = 0.05
    tmpl = _outline_template(box, px, m)
    x0, y0 = (np.array([box.x0 - m, box.y0 - m]) @ base[:, :2].T + base[:, 2]).round().astype(int)
    dx, dy, score = _match(dark, tmpl, int(x0), int(y0), int(reach * px))
    if score < SNAP_MIN_SCORE:
        return base
    th, tw = tmpl.shape
    ideal, found = [], []
    for qy in (0, 1):
        for qx in (0, 1):
            part = tmpl[qy * th // 2 : (qy + 1) * th // 2, qx * tw // 2 : (qx + 1) * tw // 2]
            px0, py0 = int(x0) + dx + qx * tw // 2, int(y0) + dy + qy * th // 2
            ex, ey, sc = _match(dark, part, px0, py0, int(0.12 * px))
            if sc < SNAP_MIN_SCORE:
                continue
            centre = np.array([qx * tw // 2 + tw / 4, qy * th // 2 + th / 4])
            ideal.append([x0, y0] + centre)
            found.append([px0 + ex, py0 + ey] + centre)
    shift = np.array([[1.0, 0, dx], [0, 1.0, dy]])
    if len(found) == 4:
        fitted, _ = cv2.estimateAffine2D(np.float32(ideal), np.float32(found))
        if fitted is not None and abs(np.linalg.det(fitted[:, :2]) - 1) < 0.15:
            shift = fitted
    return _compose(shift, base)


def snap_box(
    dark: np.ndarray, box: Box, px: int = BOX_PX, reach: float = SNAP_REACH_U
) -> np.ndarray:
    """2×3: u, v → strip px of ``box``: of the coin track's mapping, the outline matched as a
    whole and by quarters (:func:`_snap_outline`) and the borders found in profiles
    (:func:`_snap_profiles`), each within ``reach`` u, the one whose borders lie on the
    darkest ink."""
    candidates = [
        strip_affine(px),
        _snap_outline(dark, box, px, reach),
        _snap_profiles(dark, box, px, reach),
    ]
    return max(candidates, key=lambda a: border_darkness(dark, box, a))


def snap_boxes(dark: np.ndarray, px: int = BOX_PX) -> list[np.ndarray]:
    """2×3: u, v → strip px of each season box (:func:`snap_box`), the four kept in line.

    The paper's curl moves the boxes smoothly, so each box's place (where its centre lands,
    against the coin track's mapping) lies near the straight line through the other three's.
    A box further than ``AGREE_U`` from that line has usually snapped onto something else dark
    (the colour sheet's dark edge beside the spring box): it is snapped again from the line's
    place, within ``RESNAP_REACH_U``. The worst first, ``MAX_RESNAPS`` at most."""
    boxes = GEOMETRY.season_boxes
    affines = [snap_box(dark, box, px) for box in boxes]
    snapped_again: set[int] = set()
    for _ in range(MAX_RESNAPS):
        i, shift = _out_of_line(affines, px)
        if i is None or i in snapped_again:  # the same search again would find the same fit
            break
        snapped_again.add(i)
        # snapped on the strip moved so that the line's place is where the mapping puts the box
        again = snap_box(_shifted(dark, -shift[1], -shift[0]), boxes[i], px, RESNAP_REACH_U)
        affines[i] = again + np.array([[0.0, 0.0, shift[0]], [0.0, 0.0, shift[1]]])
    return affines


def box_places(affines: list[np.ndarray], px: int = BOX_PX) -> np.ndarray:
    """(4, 2): each season box's place, how far (x, y strip px) its fit ``affines`` moves its
    centre from where the coin track's mapping puts it.

    >>> box_places([strip_affine()] * 4).tolist()
    [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]
    """
    base = strip_affine(px)
    centres = [np.array([b.centre[0], b.centre[1], 1.0]) for b in GEOMETRY.season_boxes]
    return np.array([a @ c - base @ c for a, c in zip(affines, centres)])


def _out_of_line(affines: list[np.ndarray], px: int) -> tuple[int | None, np.ndarray]:
    """(the box placed furthest from the line through the other boxes' places
    (:func:`box_places`), if further than ``AGREE_U``, else ``None``; the line's place for it)."""
    places = box_places(affines, px)
    us = np.array([b.centre[0] for b in GEOMETRY.season_boxes])
    worst, worst_off, worst_line = None, AGREE_U * px, np.zeros(2)
    for i in range(len(affines)):
        others = [j for j in range(len(affines)) if j != i]
        slope, at_zero = np.polyfit(us[others], places[others], 1)
        line = slope * us[i] + at_zero
        off = float(np.linalg.norm(places[i] - line))
        if off > worst_off:
            worst, worst_off, worst_line = i, off, line
    return worst, worst_line


def border_darkness(dark: np.ndarray, box: Box, affine: np.ndarray) -> float:
    """Mean darkness along ``box``'s printed borders placed by ``affine`` (u, v → ``dark`` px)."""
    xs, ys = _box_lines(box)
    t = np.linspace(0.03, 0.97, 40)
    pts = [np.stack([x + 0 * t, box.y0 + t * box.height], 1) for x in xs]
    split = xs[-2]
    pts += [np.stack([box.x0 + t * box.width, y + 0 * t], 1) for y in (ys[0], ys[-1])]
    pts += [np.stack([box.x0 + t * (split - box.x0), ys[1] + 0 * t], 1)]
    uv = np.concatenate(pts).astype(np.float64)
    m = (uv @ affine[:, :2].T + affine[:, 2]).astype(np.float32)
    got = cv2.remap(dark, m[:, 0:1], m[:, 1:2], cv2.INTER_LINEAR, borderValue=0.0)
    return float(got.mean())


def _compose(outer: np.ndarray, inner: np.ndarray) -> np.ndarray:
    """The 2×3 affine ``outer ∘ inner``."""
    return outer[:, :2] @ inner + np.array([[0, 0, outer[0, 2]], [0, 0, outer[1, 2]]])


def cell_darkness(dark: np.ndarray, cell: Box, affine: np.ndarray, px: int) -> np.ndarray:
    """One writing cell (plus a ``LINE_BAND_U`` border band) resampled from ``dark`` at ``px``
    per u, through the box's u, v → ``dark`` px ``affine``."""
    b = LINE_BAND_U
    w = int(round((cell.width + 2 * b) * px))
    h = int(round((cell.height + 2 * b) * px))
    # cell raster px → u, v → dark px
    to_u = np.array([[1.0 / px, 0, cell.x0 - b + 0.5 / px], [0, 1.0 / px, cell.y0 - b + 0.5 / px]])
    m = _compose(affine, to_u)
    return cv2.warpAffine(
        dark, m, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderValue=0.0
    )


def paper_grain(d: np.ndarray) -> float:
    """How dark the bare paper's grain gets: ``NOISE_MADS`` median deviations above the median
    darkness of ``d`` (smoothed as :func:`find_blobs` smooths it)."""
    med = float(np.median(d))
    return med + NOISE_MADS * float(np.median(np.abs(d - med)))


def fit_boxes(
    strip: np.ndarray, px: int = BOX_PX
) -> tuple[np.ndarray, list[np.ndarray], float, float]:
    """The strip's darkness, each box's fit (u, v → darkness px: :func:`snap_boxes`), the printed
    lines' darkness and the paper's grain."""
    dark = darkness(strip, px)
    line = float(np.percentile(dark, LINE_PERCENTILE))
    grain = paper_grain(cv2.GaussianBlur(dark, (0, 0), INK_SMOOTH_PX))
    return dark, snap_boxes(dark, px), line, grain


def cells_in_boxes(
    dark: np.ndarray,
    affines: list[np.ndarray],
    px: int = BOX_PX,
    shift: tuple[float, float] = (0.0, 0.0),
) -> dict[str, np.ndarray]:
    """Every writing cell's darkness (with its border band) by key, each cell where its box's fit
    puts it moved by ``shift`` (u), the print shared by the four boxes taken off
    (:func:`without_shared_print`)."""
    cells = {}
    for key, cell in writing_cells().items():
        # the shield has no straight outline: the winter box's fit, carried over
        affine = affines[SEASON_NAMES.index(key.split(".")[0])] if key != "final" else affines[3]
        moved = affine.copy()
        moved[:, 2] += affine[:, :2] @ np.asarray(shift, np.float64)
        cells[key] = cell_darkness(dark, cell, moved, px)
    return without_shared_print(cells)


def without_shared_print(cells: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The coin and monster cells less the print all four boxes share there (the coin and
    monster icons): each box's cell is aligned on their median (within ``ALIGN_PX``), and what
    every one of them has at a pixel (their least, spread by a pixel) is taken off each.
    Writing is seldom at the same place in all four."""
    out = dict(cells)
    for part in SHARED_PRINT_PARTS:
        keys = [f"{name}.{part}" for name in SEASON_NAMES]
        stack = [cells[k] for k in keys]
        ref = np.median(np.stack(stack), axis=0).astype(np.float32)
        shifts = [_offset(c, ref) for c in stack]
        aligned = [_shifted(c, -dy, -dx) for c, (dy, dx) in zip(stack, shifts)]
        shared = cv2.dilate(np.min(np.stack(aligned), axis=0), np.ones((4, 4), np.uint8))
        for k, (dy, dx) in zip(keys, shifts):
            out[k] = np.clip(cells[k] - _shifted(shared, dy, dx), 0.0, None)
    return out


def _offset(cell: np.ndarray, ref: np.ndarray) -> tuple[int, int]:
    """(dy, dx): where ``ref``'s content sits in ``cell``, within ``ALIGN_PX``."""
    a = ALIGN_PX
    tmpl = np.ascontiguousarray(ref[a:-a, a:-a])
    if tmpl.size == 0 or float(tmpl.std()) < 1e-6:
        return 0, 0
    score = cv2.matchTemplate(cell.astype(np.float32), tmpl, cv2.TM_CCORR_NORMED)
    iy, ix = np.unravel_index(int(np.argmax(score)), score.shape)
    return int(iy) - a, int(ix) - a


def _shifted(img: np.ndarray, dy: int, dx: int) -> np.ndarray:
    """``img`` moved by (dy, dx) px, zeros let in at the edges."""
    m = np.float32([[1, 0, dx], [0, 1, dy]])
    return cv2.warpAffine(img, m, (img.shape[1], img.shape[0]), borderValue=0.0)
