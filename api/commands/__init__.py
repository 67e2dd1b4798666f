"""One module per ``cartographers`` sub-command; each defines ``add_parser(subparsers)``."""
