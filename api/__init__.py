"""The product's faces: the ``cartographers`` command line, the HTTP service and the web page.

``api`` composes ``vision`` (photo → sheet) and ``scoring`` (sheet → result); neither of those
imports ``api``.
"""
