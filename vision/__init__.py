"""Photo → sheet: find the printed grid, rectify it, classify every cell, read the coins.

Never imports ``api``.
"""

from vision.load import PhotoError, load_photo
from vision.overlay import draw_overlay
from vision.reader import Reading, read_image, read_photo

__all__ = ["PhotoError", "Reading", "draw_overlay", "load_photo", "read_image", "read_photo"]
