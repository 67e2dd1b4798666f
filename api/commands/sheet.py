"""``cartographers sheet --side A|B --out FILE.pdf|png [--paper a4|letter]``: a printable blank
sheet.

Same geometry as the printed pad (``vision/layout.py``), so ``cartographers read`` reads a
photographed print-out exactly as a real sheet. 300 dpi by default. The printed words are in the
language in force (``--lang``, else the shell's); letters beyond ASCII need a TrueType font (DejaVu
Sans).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

from api.commands import CliError
from api.i18n import _, _p
from vision.layout import GEOMETRY
from vision.synth.lettering import FontMissing
from vision.synth.paper import VARIANTS, SheetWords, render_sheet

PAPER_MM = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
MARGIN_MM = 8.0  # most home printers cannot print closer to the edge


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``sheet``."""
    p = sub.add_parser(
        "sheet",
        help="write a printable blank map sheet (PDF or PNG)",
        description="Write a blank map sheet to print, at the real sheet's geometry.",
    )
    p.add_argument(
        "--side",
        required=True,
        choices=["A", "B"],
        help="sheet side: A (wilderness) or B (wastelands)",
    )
    p.add_argument("--out", required=True, help="output file, .pdf or .png")
    p.add_argument("--paper", default="a4", choices=sorted(PAPER_MM), help="page size (default a4)")
    p.add_argument("--dpi", type=int, default=300, help="resolution (default 300)")
    p.add_argument(
        "--variant",
        default="print",
        choices=VARIANTS,
        help="print (parchment, as the pad), photocopy (grey) or white-print (no parchment: "
        "saves ink)",
    )
    p.add_argument("--white-paper", action="store_true", help="same as --variant white-print")
    p.set_defaults(run=run)


def sheet_words() -> SheetWords:
    """The sheet's printed words in the language in force."""
    return SheetWords(
        cartographer=_p("printed sheet", "CARTOGRAPHER:"),
        title=_p("printed sheet", "TITLE:"),
        north=_p("compass", "N"),
    )


def page_scale(paper: str, dpi: int) -> tuple[int, int, float]:
    """The page's width and height in pixels, and the sheet's pixels per grid unit on it (as large
    as the margins allow)."""
    w_mm, h_mm = PAPER_MM[paper]
    px_per_mm = dpi / 25.4
    page_w, page_h = int(round(w_mm * px_per_mm)), int(round(h_mm * px_per_mm))
    usable_w, usable_h = page_w - 2 * MARGIN_MM * px_per_mm, page_h - 2 * MARGIN_MM * px_per_mm
    return page_w, page_h, min(usable_w / GEOMETRY.sheet.width, usable_h / GEOMETRY.sheet.height)


def page_image(
    side: str, paper: str, dpi: int, variant: str, words: SheetWords | None = None
) -> np.ndarray:
    """The whole page (BGR), the sheet centred on it; its words are ``words``, else those of the
    language in force."""
    page_w, page_h, px_per_u = page_scale(paper, dpi)
    sheet = render_sheet(
        side,
        px_per_u=px_per_u,
        variant=variant,
        rng=np.random.default_rng(0),
        words=sheet_words() if words is None else words,
    )
    img = sheet.image
    page = np.full((page_h, page_w, 3), 255, np.uint8)
    h, w = img.shape[:2]
    y0, x0 = (page_h - h) // 2, (page_w - w) // 2
    alpha = (sheet.alpha.astype(np.float32) / 255)[:, :, None]
    page[y0 : y0 + h, x0 : x0 + w] = (img * alpha + 255 * (1 - alpha)).astype(np.uint8)
    return page


def run(args: argparse.Namespace) -> int:
    """Check the arguments, then write the page."""
    out = Path(args.out)
    kind = out.suffix.lower()
    if kind not in (".pdf", ".png"):
        raise CliError(f"--out must end in .pdf or .png, got {out.name!r}")
    if not 72 <= args.dpi <= 1200:
        raise CliError(f"--dpi must be between 72 and 1200, got {args.dpi}")
    if not out.parent.is_dir():
        raise CliError(f"folder {out.parent} does not exist")
    variant = "white-print" if args.white_paper else args.variant
    try:
        page = page_image(args.side, args.paper, args.dpi, variant)
    except FontMissing as e:
        raise CliError(
            _(
                "no font here can print {word}: install DejaVu Sans "
                "(Debian and Ubuntu: apt-get install fonts-dejavu-core)",
                word=repr(e.text),
            )
        ) from e
    from PIL import Image  # Pillow writes the PDF page and the PNG's dpi

    picture = Image.fromarray(cv2.cvtColor(page, cv2.COLOR_BGR2RGB))
    if kind == ".pdf":
        picture.save(out, "PDF", resolution=float(args.dpi))
    else:
        picture.save(out, "PNG", dpi=(args.dpi, args.dpi))
    print(f"wrote {out} (side {args.side}, {args.paper}, {args.dpi} dpi)")
    return 0
