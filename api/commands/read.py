"""``cartographers read PHOTO [--side A|B] [--json] [--overlay F]``: read a photographed sheet."""

from __future__ import annotations

import argparse
import json
import sys


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "read",
        help="read the map from a photo of a filled-in sheet",
        description="Find the printed grid in the photo, read every cell and the coin track, "
        "and say which cells the reader is unsure of.",
    )
    p.add_argument(
        "photo", help="JPEG or PNG photo (HEIC with the optional extra cartographers[heic])"
    )
    p.add_argument("--side", choices=["A", "B"], help="the sheet side, if you know it")
    p.add_argument("--json", action="store_true", help="print the reading as JSON")
    p.add_argument(
        "--overlay",
        metavar="FILE",
        help="write the photo with the found grid and labels drawn on it",
    )
    p.set_defaults(run=run)


def read_or_fail(photo: str, side: str | None):
    """The reading, or a CliError with the reader's one-line reason (exit 2)."""
    from api.commands import CliError
    from vision import PhotoError, read_photo
    from vision.classify import ModelMissingError

    try:
        return read_photo(photo, side=side)
    except PhotoError as e:
        raise CliError(e.message, 2) from None
    except ModelMissingError as e:
        raise CliError(str(e), 3) from None


def write_overlay(reading, photo: str, out: str) -> None:
    """Draw the overlay on the full photo and write it to ``out``."""
    import cv2

    from api.commands import CliError
    from api.i18n import _
    from vision import draw_overlay, load_photo

    loaded = load_photo(photo, target_long_side=100_000)  # full resolution, orientation applied
    picture = draw_overlay(reading, loaded.image)
    if not cv2.imwrite(out, picture):
        raise CliError(_("cannot write the overlay to {out} (use a .png or .jpg name)", out=out), 2)


def run(args: argparse.Namespace) -> int:
    from api.written_view import written_fields

    reading = read_or_fail(args.photo, args.side)
    if args.overlay:
        write_overlay(reading, args.photo, args.overlay)
    written = written_fields(reading.written, reading.sheet, None)  # no cards: card-free checks
    if args.json:
        print(json.dumps({**reading.to_json(), **written}))
    else:
        print(reading_in_words(reading, written))
    return 0


def reading_in_words(reading, written: dict) -> str:
    """The reading for a player, in the language in force: the map beside its unsure cells, the
    key, the coins, the warnings, the written numbers and their checks."""
    from api.i18n import _, _n
    from api.messages import decimal, say
    from api.text_view import draw_maps, legend
    from api.written_view import format_written

    coins = _n("{n} coin", "{n} coins", reading.coins, n=reading.coins)
    panels = [
        (_("side {side}, {coins}", side=reading.side, coins=coins), None),
        (_("unsure cells"), set(reading.low_confidence_cells)),
    ]
    lines = [draw_maps(reading.sheet, panels, colour=sys.stdout.isatty())]
    lines.append(legend(reading.sheet, marked=True))
    confidence = decimal(reading.coin_confidence, 2)
    lines.append(_("coins {n} (confidence {confidence})", n=reading.coins, confidence=confidence))
    lines += [_("warning: {message}", message=say(w)) for w in reading.warnings]
    return "\n".join(lines + format_written(written))
