"""The ``cartographers`` command line.

Each sub-command lives in its own module under ``api/commands/`` and exposes
``add_parser(subparsers)``; this file only discovers them and turns every expected failure into
one line on standard error and a non-zero exit status.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Iterator

import api.commands
from api.commands import CliError
from api.i18n import LANGUAGES, from_environment, language_of, speaking


def command_modules(argv: list[str]) -> list[str]:
    """The sub-command modules to load: only the one being run (each pulls in its own heavy
    libraries — OpenCV, OR-Tools, SQLAlchemy — so loading all of them would cost a second per
    call), or every one when listing help or on an unknown name."""
    names = sorted(m.name for m in pkgutil.iter_modules(api.commands.__path__))
    first = next((a for a in argv if not a.startswith("-")), None)
    wanted = first.replace("-", "_") if first else None
    return [wanted] if wanted in names else names


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cartographers",
        description="Read, score and check Cartographers map sheets.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in command_modules(sys.argv[1:] if argv is None else argv):
        module = importlib.import_module(f"api.commands.{name}")
        if hasattr(module, "add_parser"):
            module.add_parser(sub)
    for command in _commands(parser):
        command.add_argument(
            "--lang",
            type=_language,
            default=argparse.SUPPRESS,  # a sub-command's parser must not reset its parent's
            help=f"the language to answer in: {', '.join(LANGUAGES)} "
            "(default: LANGUAGE, LC_ALL, LC_MESSAGES or LANG, else English)",
        )
    return parser


def _commands(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """Every command's parser and, below it, its actions' (``game upload``)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command in action.choices.values():
                yield command
                yield from _commands(command)


def _language(tag: str) -> str:
    """``--lang``'s value: any locale tag one of the catalogs speaks ("pt", "uk_UA", "es-MX")."""
    found = language_of(tag)
    if found is None:
        raise argparse.ArgumentTypeError(
            f"no catalog for {tag!r}: the languages are {', '.join(LANGUAGES)}"
        )
    return found


def main(argv: list[str] | None = None) -> int:
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    with speaking(getattr(args, "lang", None) or from_environment()):
        return run_command(args)


def run_command(args: argparse.Namespace) -> int:
    """Run the parsed command; every expected failure is one line on standard error."""
    try:
        status = int(args.run(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        return status
    except BrokenPipeError:  # the reader of our output stopped (``| head``): nothing to say
        os.dup2(
            os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno()
        )  # so the exit's own flush stays quiet
        return 0
    except CliError as e:
        print(f"cartographers {args.command}: {e}", file=sys.stderr)
        return e.code
    except (ValueError, OSError) as e:  # SheetError, CardError and unreadable files included
        print(f"cartographers {args.command}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"cartographers {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # a bug: still one line, the traceback on request
        if os.environ.get("CARTOGRAPHERS_DEBUG"):
            raise
        print(
            f"cartographers {args.command}: internal error: {type(e).__name__}: {e} "
            "(set CARTOGRAPHERS_DEBUG=1 for the traceback)",
            file=sys.stderr,
        )
        return 1


if (
    __name__ == "__main__"
):  # ``python -m api.cli``: run the imported module's main, so its CliError is the one
    # the commands raise (this file also runs as __main__)
    from api.cli import main as imported_main

    sys.exit(imported_main())
