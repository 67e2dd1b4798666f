"""Synthetic filled-in sheets and phone photos with exact truth (``docs/synth.md``).

* :func:`render_sheet` — the empty printed sheet (``paper``);
* :func:`draw_sheet` — a sheet JSON filled in by hand in one of ``STYLES`` (``ink``, ``pens``,
  ``strokes``, ``symbols``);
* :func:`make_photo` — a phone photo of it and its truth (``photo``, ``camera``, ``backgrounds``);
* maps come from the game simulator when present, else random legal placements (``maps``).
"""

from vision.synth.backgrounds import BACKGROUND_FAMILIES, BACKGROUNDS
from vision.synth.ink import DrawnSheet, draw_sheet
from vision.synth.maps import choose_sheet, random_sheet
from vision.synth.paper import RenderedSheet, render_sheet
from vision.synth.pens import STYLE_FAMILIES, STYLES
from vision.synth.photo import SynthPhoto, make_photo

__all__ = [
    "BACKGROUND_FAMILIES",
    "BACKGROUNDS",
    "STYLE_FAMILIES",
    "STYLES",
    "DrawnSheet",
    "RenderedSheet",
    "SynthPhoto",
    "choose_sheet",
    "draw_sheet",
    "make_photo",
    "random_sheet",
    "render_sheet",
]
