"""Printings from scans: a flat image of a printed sheet whose cell-area corners are known, redrawn
at any resolution as a :class:`~vision.synth.paper.RenderedSheet` for
:func:`~vision.synth.make_photo`.

The synthetic photos otherwise show our own look-alike of the sheet (:func:`render_sheet`); a scan
of another printing (a localised edition, a home print, the publisher's own files kept outside
this repository) lets the same generator and benchmark show the reader that printing instead. A
scan may hold more than the one sheet (a printed page with two side by side): the region drawn is
``margin_u`` wider than the sheet on every side, so a neighbour on the page shows in the photo.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.grid import order_corners
from vision.layout import GEOMETRY, GRID
from vision.synth.paper import RenderedSheet, photocopy

#: the cell area's corners in grid units, in the order of :func:`vision.grid.order_corners`
CELL_AREA_U = np.float32([[0, 0], [GRID, 0], [GRID, GRID], [0, GRID]])


@dataclass(frozen=True)
class ScannedSheet:
    """One sheet on a scanned page: the page, where its
    cell area lies on it, its side and printing."""

    page: np.ndarray  # BGR uint8
    corners_px: (
        np.ndarray
    )  # (4, 2) cell-area corners on the page: top-left, top-right, bottom-right, bottom-left
    side: str  # "A" or "B"
    printing: str  # a name for the figures, e.g. "colour" or "printer-friendly"
    margin_u: float = 0.0  # drawn beyond the sheet's outline on every side

    def render(
        self, side: str, px_per_u: float, variant: str, rng: np.random.Generator
    ) -> RenderedSheet:
        """The sheet at ``px_per_u`` (a :data:`vision.synth.photo.Printing`); ``variant``
        "photocopy" passes it through the photocopier, any other keeps the scan's own paper."""
        if side != self.side:
            raise ValueError(f"this scan shows side {self.side}, not side {side}")
        g, m = GEOMETRY.sheet, self.margin_u
        x0, y0 = g.x0 - m, g.y0 - m
        w, h = int(round((g.width + 2 * m) * px_per_u)), int(round((g.height + 2 * m) * px_per_u))
        u_to_page = cv2.getPerspectiveTransform(CELL_AREA_U, self.corners_px.astype(np.float32))
        out_to_u = np.array([[1 / px_per_u, 0, x0], [0, 1 / px_per_u, y0], [0, 0, 1.0]])
        to_page = u_to_page @ out_to_u
        flags = cv2.WARP_INVERSE_MAP | (
            cv2.INTER_AREA if px_per_u < self.px_per_u else cv2.INTER_LINEAR
        )
        image = cv2.warpPerspective(
            self.page, to_page, (w, h), flags=flags, borderMode=cv2.BORDER_REPLICATE
        )
        inside = np.full(self.page.shape[:2], 255, np.uint8)
        alpha = cv2.warpPerspective(
            inside, to_page, (w, h), flags=cv2.WARP_INVERSE_MAP | cv2.INTER_LINEAR
        )
        if variant == "photocopy":
            image = photocopy(image, rng)
        return RenderedSheet(side, f"scan-{self.printing}", image, alpha, float(px_per_u), (x0, y0))

    @property
    def px_per_u(self) -> float:
        """The scan's own resolution: page pixels per grid unit (mean cell-area side / 11)."""
        sides = np.linalg.norm(self.corners_px - np.roll(self.corners_px, -1, axis=0), axis=1)
        return float(sides.mean() / GRID)


def scanned_sheet(
    page: np.ndarray, corners_px, side: str, printing: str, margin_u: float = 0.0
) -> ScannedSheet:
    """A :class:`ScannedSheet` with its corners put in reading order.

    >>> page = np.full((400, 300, 3), 230, np.uint8)
    >>> sheet = scanned_sheet(page, [[250, 50], [30, 50], [30, 270], [250, 270]], "A", "test")
    >>> sheet.corners_px.tolist()[0], round(sheet.px_per_u, 1)
    ([30.0, 50.0], 20.0)
    >>> sheet.render("A", 10.0, "print", np.random.default_rng(0)).image.shape
    (188, 129, 3)
    """
    return ScannedSheet(
        page,
        order_corners(np.asarray(corners_px, np.float32)).astype(np.float64),
        side,
        printing,
        margin_u,
    )
