"""The overlay picture: the found grid, each cell's label and confidence, drawn on the photo."""

from __future__ import annotations

import cv2
import numpy as np

from scoring.terrain import TEXT_CHAR, Terrain
from vision.layout import GEOMETRY

#: Label colours (BGR) per terrain, readable on parchment.
LABEL_COLOURS = {
    Terrain.EMPTY: (90, 90, 90),
    Terrain.FOREST: (40, 140, 30),
    Terrain.VILLAGE: (40, 40, 200),
    Terrain.FARM: (20, 160, 210),
    Terrain.WATER: (200, 110, 20),
    Terrain.MONSTER: (150, 40, 140),
    Terrain.MOUNTAIN: (30, 40, 80),
    Terrain.WASTELAND: (110, 110, 110),
}


FLAGGED_COLOUR = (0, 120, 255)  # orange (BGR): a low-confidence cell the user should check


def confidence_colour(p: float) -> tuple[int, int, int]:
    """Green when sure, through yellow, to red when unsure (BGR)."""
    t = float(np.clip((p - 0.5) / 0.5, 0, 1))
    return (0, int(200 * t + 55 * (1 - t)), int(220 * (1 - t) + 30 * t))


def draw_overlay(reading, photo_bgr: np.ndarray) -> np.ndarray:
    """A copy of the photo with the grid, labels (compact text letters) and confidences drawn on it;
    low-confidence cells get a thick orange outline; a ring marks each coin of the track (thick and
    green: counted); a banner in the top-left corner gives side, coins and how many cells to check.

    ``photo_bgr`` may be the photo at any scale; the reading's coordinates are rescaled to it.
    """
    out = photo_bgr.copy()
    w0, h0 = reading.photo_size
    scale = out.shape[1] / float(w0) if w0 else 1.0
    outlines = np.asarray(reading.cell_outlines, dtype=np.float64) * scale
    cell_px = float(np.median(np.linalg.norm(outlines[:, :, 1] - outlines[:, :, 0], axis=-1)))
    thick = max(1, int(round(cell_px / 30)))
    low = set(map(tuple, reading.low_confidence_cells))
    corners = np.asarray(reading.grid_corners, dtype=np.float64) * scale
    cv2.polylines(
        out,
        [np.round(corners).astype(np.int32).reshape(-1, 1, 2)],
        True,
        (255, 0, 255),
        thick * 2,
        cv2.LINE_AA,
    )
    font = cv2.FONT_HERSHEY_SIMPLEX
    for r in range(len(outlines)):
        for c in range(len(outlines[r])):
            quad = outlines[r, c]
            p = reading.cell_confidence[r][c]
            flagged = (r, c) in low
            colour = FLAGGED_COLOUR if flagged else confidence_colour(p)
            cv2.polylines(
                out,
                [np.round(quad).astype(np.int32).reshape(-1, 1, 2)],
                True,
                colour,
                thick * (3 if flagged else 1),
                cv2.LINE_AA,
            )
            terrain = reading.sheet.cells[r][c]
            centre = quad.mean(axis=0)
            size = cell_px / 60
            label = TEXT_CHAR[terrain]
            (tw, th), _ = cv2.getTextSize(label, font, size, thick)
            org = (int(centre[0] - tw / 2), int(centre[1] + th / 2 - cell_px * 0.08))
            cv2.putText(out, label, org, font, size, (255, 255, 255), thick + 2, cv2.LINE_AA)
            cv2.putText(out, label, org, font, size, LABEL_COLOURS[terrain], thick, cv2.LINE_AA)
            if not terrain.printed:
                conf = f"{int(p * 100)}"
                small = size * 0.45
                (cw, ch), _ = cv2.getTextSize(conf, font, small, 1)
                corg = (int(centre[0] - cw / 2), int(centre[1] + cell_px * 0.38))
                cv2.putText(out, conf, corg, font, small, colour, max(1, thick // 2), cv2.LINE_AA)
    _draw_coins(out, reading, scale, cell_px, thick)
    _draw_banner(
        out,
        f"side {reading.side}   coins {reading.coins} ({reading.coin_confidence:.0%} sure)   "
        f"{len(low)} cell(s) to check",
    )
    return out


COUNTED_COIN_COLOUR = (40, 150, 40)  # green (BGR): a coin the count includes
UNCOUNTED_COIN_COLOUR = (70, 70, 70)  # dark grey: a coin it does not


def _draw_coins(out: np.ndarray, reading, scale: float, cell_px: float, thick: int) -> None:
    """A ring round each printed coin where the reader looked: green and thick for the coins it
    counted, grey for the rest, orange where the coin's own filled probability disagrees with the
    count."""
    radius = max(3, int(round(GEOMETRY.coin_radius * 1.4 * cell_px)))
    for i, centre in enumerate(
        np.asarray(reading.coin_centres, dtype=np.float64).reshape(-1, 2) * scale
    ):
        counted = i < reading.coins
        p = (
            reading.coin_probabilities[i]
            if i < len(reading.coin_probabilities)
            else (1.0 if counted else 0.0)
        )
        colour = COUNTED_COIN_COLOUR if counted else UNCOUNTED_COIN_COLOUR
        if (p > 0.5) != counted:
            colour = FLAGGED_COLOUR
        cv2.circle(
            out,
            tuple(int(v) for v in np.round(centre)),
            radius,
            colour,
            thick * (2 if counted else 1),
            cv2.LINE_AA,
        )


def _draw_banner(out: np.ndarray, text: str) -> None:
    """``text`` on a white box in the photo's top-left corner,
    sized to the photo (not over the coin track)."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    size = max(0.5, out.shape[1] / 1600)
    weight = max(1, int(round(size * 1.6)))
    (tw, th), base = cv2.getTextSize(text, font, size, weight)
    pad = int(th * 0.6)
    cv2.rectangle(out, (0, 0), (tw + 2 * pad, th + base + 2 * pad), (255, 255, 255), cv2.FILLED)
    cv2.putText(out, text, (pad, pad + th), font, size, (120, 0, 120), weight, cv2.LINE_AA)
