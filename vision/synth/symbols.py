"""The terrain symbols players draw, as polylines in cell units (0…1) in each player's variant,
and their placement in a cell."""

from __future__ import annotations

import numpy as np

from scoring.terrain import Terrain
from vision.synth.pens import Hand


def circle_pts(
    cx: float, cy: float, r: float, n: int = 18, start: float = 0.0, sweep: float = 2 * np.pi
):
    """Points on a circle arc."""
    a = start + np.linspace(0, sweep, n)
    return np.stack([cx + r * np.cos(a), cy + r * np.sin(a)], axis=1)


def _jitter(rng: np.random.Generator):
    """A tiny jitter helper: ``j(s)`` is uniform in ±``s`` (0.04 by default)."""
    return lambda s=0.04: float(rng.uniform(-s, s))


def _forest_strokes(variant: str, rng: np.random.Generator) -> list[np.ndarray]:
    """One to three trees: pines, round or scalloped canopies (a scribble inside some), each on
    a trunk."""
    j = _jitter(rng)
    out: list[np.ndarray] = []
    n = int(rng.integers(1, 4))
    xs = np.linspace(0.3, 0.7, n) if n > 1 else np.array([0.5])
    for x in xs:
        x += j(0.05)
        base, r = 0.78 + j(), 0.13 + j(0.03) if n > 1 else 0.2 + j(0.04)
        if variant == "pines":
            out.append(
                np.array(
                    [
                        (x - r, base - 0.12),
                        (x, base - 0.12 - 3 * r),
                        (x + r, base - 0.12),
                        (x - r, base - 0.12),
                    ]
                )
            )
        else:
            top = base - 0.2 - 2 * r
            out.append(circle_pts(x, top + r, r, 16, rng.uniform(0, 6.3), 2 * np.pi + 0.4))
            if variant == "cloud-trees":  # scalloped canopy: three lobes instead of a circle
                out[-1] = np.concatenate(
                    [
                        circle_pts(x + dx * r * 0.7, top + r + dy * r * 0.6, r * 0.6, 8, a0, 3.6)
                        for dx, dy, a0 in ((-1, 0.3, 1.6), (0, -0.6, 3.2), (1, 0.3, 4.8))
                    ]
                )
            if variant == "scribble-tree":
                out.append(
                    np.array(
                        [
                            (x - r * 0.6, top + r * 0.7),
                            (x + r * 0.5, top + r * 0.4),
                            (x - r * 0.4, top + r * 1.3),
                            (x + r * 0.6, top + r * 1.1),
                        ]
                    )
                )
        out.append(
            np.array([(x, base - 0.2 + (0.05 if variant == "pines" else 0)), (x + j(0.02), base)])
        )
    return out


def _village_strokes(variant: str, rng: np.random.Generator) -> list[np.ndarray]:
    """A house outline with its roof (scribbled in, or with a door), or two roofs over a line."""
    j = _jitter(rng)
    out: list[np.ndarray] = []
    x0, x1, y1, ye, yt = 0.28 + j(), 0.72 + j(), 0.8 + j(), 0.48 + j(), 0.2 + j()
    if variant == "roofs":
        for dx in (-0.17, 0.17):
            out.append(np.array([(0.5 + dx - 0.15, 0.6), (0.5 + dx, 0.38), (0.5 + dx + 0.15, 0.6)]))
        out.append(np.array([(0.2, 0.75), (0.8, 0.75)]))
    else:
        out.append(
            np.array(
                [
                    (x0, ye),
                    (x0, y1),
                    (x1, y1),
                    (x1, ye),
                    (x0, ye),
                    ((x0 + x1) / 2, yt),
                    (x1, ye),
                ]
            )
        )
        if variant == "filled-roof":  # the roof scribbled in
            xm = (x0 + x1) / 2
            zig = [
                (x0 + (xm - x0) * t + (x1 - x0) * t * (k % 2), ye - (ye - yt) * t * 0.9)
                for k, t in enumerate(np.linspace(0.1, 0.9, 7))
            ]
            out.append(np.array(zig))
        if variant == "house-door":
            xm = (x0 + x1) / 2
            out.append(
                np.array(
                    [
                        (xm - 0.06, y1),
                        (xm - 0.06, y1 - 0.16),
                        (xm + 0.06, y1 - 0.16),
                        (xm + 0.06, y1),
                    ]
                )
            )
    return out


def _farm_strokes(variant: str, rng: np.random.Generator) -> list[np.ndarray]:
    """Three to five slanted furrows, crossed by a second set in the cross-hatch variant."""
    j = _jitter(rng)
    out: list[np.ndarray] = []
    n = int(rng.integers(3, 6))
    for k in range(n):
        t = 0.2 + 0.6 * k / (n - 1) + j(0.02)
        out.append(np.array([(t - 0.14, 0.8 + j()), (t + 0.14, 0.2 + j())]))
    if variant == "cross-hatch":
        for k in range(n - 1):
            t = 0.25 + 0.5 * k / max(1, n - 2)
            out.append(np.array([(t - 0.12, 0.22 + j()), (t + 0.12, 0.78 + j())]))
    return out


def _water_strokes(variant: str, rng: np.random.Generator) -> list[np.ndarray]:
    """Two or three wavy lines (sine, tildes or zigzag)."""
    j = _jitter(rng)
    out: list[np.ndarray] = []
    n = int(rng.integers(2, 4))
    for k in range(n):
        y = 0.3 + 0.4 * k / (n - 1) + j(0.03)
        x = np.linspace(0.18, 0.82, 24)
        waves = 2 if variant == "tildes" else rng.uniform(1.5, 3)
        phase = (x - 0.18) / 0.64 * waves * 2 * np.pi + rng.uniform(0, 1)
        wave = 2 / np.pi * np.arcsin(np.sin(phase)) if variant == "zigzag" else np.sin(phase)
        out.append(np.stack([x, y + 0.06 * wave], axis=1))
    return out


def _monster_strokes(variant: str, rng: np.random.Generator) -> list[np.ndarray]:
    """A face: a round head with horns or ears and angry brows, or slanted triangle eyes."""
    j = _jitter(rng)
    out: list[np.ndarray] = []
    cx, cy, r = 0.5 + j(), 0.56 + j(), 0.25 + j(0.03)
    out.append(circle_pts(cx, cy, r, 20, rng.uniform(0, 6.3), 2 * np.pi + 0.3))
    for s in (-1, 1):
        if variant == "simple-face":  # no horns: slanted triangle eyes
            out.append(
                np.array(
                    [
                        (cx + s * 0.04, cy - 0.02),
                        (cx + s * 0.16, cy - 0.08),
                        (cx + s * 0.14, cy + 0.03),
                        (cx + s * 0.04, cy - 0.02),
                    ]
                )
            )
            continue
        if variant == "eared-face":
            out.append(
                np.array(
                    [
                        (cx + s * 0.12, cy - r * 0.95),
                        (cx + s * 0.24, cy - r - 0.18),
                        (cx + s * 0.24, cy - r * 0.6),
                    ]
                )
            )
        else:
            out.append(
                np.array(
                    [
                        (cx + s * 0.1, cy - r * 0.97),
                        (cx + s * 0.28, cy - r - 0.15),
                        (cx + s * 0.2, cy - r * 0.75),
                    ]
                )
            )
        out.append(np.array([(cx + s * 0.17, cy - 0.1), (cx + s * 0.04, cy - 0.04)]))  # angry brows
        out.append(circle_pts(cx + s * 0.1, cy, 0.025, 6))
    out.append(
        np.array(
            [
                (cx - 0.12, cy + 0.13),
                (cx - 0.06, cy + 0.09),
                (cx, cy + 0.14),
                (cx + 0.06, cy + 0.09),
                (cx + 0.12, cy + 0.13),
            ]
        )
    )
    return out


_SYMBOL_STROKES = {
    Terrain.FOREST: _forest_strokes,
    Terrain.VILLAGE: _village_strokes,
    Terrain.FARM: _farm_strokes,
    Terrain.WATER: _water_strokes,
    Terrain.MONSTER: _monster_strokes,
}


def symbol_strokes(terrain: Terrain, variant: str, rng: np.random.Generator) -> list[np.ndarray]:
    """Polylines (cell units, 0…1) of one terrain symbol in a player's variant."""
    strokes = _SYMBOL_STROKES.get(terrain)
    return strokes(variant, rng) if strokes else []


def place(
    strokes: list[np.ndarray], col: int, row: int, hand: Hand, rng: np.random.Generator
) -> list[np.ndarray]:
    """Symbol strokes moved into cell (row, col) with this hand's size and a small tilt."""
    a = rng.normal(0, 0.12)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    size = hand.size * rng.uniform(0.85, 1.1)
    shift = rng.uniform(-0.05, 0.05, 2)
    return [((s - 0.5) @ rot.T) * size + 0.5 + shift + (col, row) for s in strokes]
