"""Photo → sheet: find the printed grid, rectify it, classify every cell, read the coins.

Never imports ``api``. The public names (``read_photo``, ``draw_overlay``, …) and the submodules
are imported on first use, so a process that needs one stage (the model loader, a grid search in
a test) does not pay for importing the others.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

#: public name → the module that defines it
_EXPORTS = {
    "PhotoError": "vision.load",
    "load_photo": "vision.load",
    "draw_overlay": "vision.overlay",
    "Reading": "vision.reader",
    "read_image": "vision.reader",
    "read_photo": "vision.reader",
}

__all__ = ["PhotoError", "Reading", "draw_overlay", "load_photo", "read_image", "read_photo"]

if TYPE_CHECKING:
    from vision.load import PhotoError, load_photo
    from vision.overlay import draw_overlay
    from vision.reader import Reading, read_image, read_photo


def __getattr__(name: str):
    """The public names, imported from their module when first asked for (PEP 562); any other
    name is looked for as a submodule (``vision.grid``)."""
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
    else:
        try:
            value = importlib.import_module(f"vision.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"vision.{name}":
                raise  # the submodule exists but needs something missing: say so
            raise AttributeError(f"module 'vision' has no attribute {name!r}") from None
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
