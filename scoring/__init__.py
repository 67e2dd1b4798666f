"""The rules of Cartographers as data and small pure functions.

Data flows photo → ``vision`` → :class:`~scoring.sheet.Sheet` → ``scoring`` → result.
This package never imports ``vision``, ``api`` or OpenCV.
"""

from scoring.sheet import Sheet, SheetError
from scoring.sides import SIDES, SideLayout
from scoring.terrain import Terrain

__all__ = ["Terrain", "SIDES", "SideLayout", "Sheet", "SheetError"]
