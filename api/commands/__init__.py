"""One module per ``cartographers`` sub-command; each defines ``add_parser(subparsers)``.

:class:`CliError` lives here, below both the commands and ``api/cli.py`` that runs them, so neither
imports the other's module for it.
"""


class CliError(Exception):
    """A failure the user can fix: printed as one line, exit status ``code``."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code
