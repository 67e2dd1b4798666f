"""Photo → sheet: find the printed grid, rectify it, classify every cell, read the coins.

Never imports ``api``.
"""
