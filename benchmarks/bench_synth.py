"""Measure synthetic-photo generation speed, and draw the contact sheet of ``docs/``.

    python benchmarks/bench_synth.py --n 8 --megapixels 12          # photos per second
    python benchmarks/bench_synth.py --contact-sheet docs/contact-sheet.jpg
    python benchmarks/bench_synth.py --art-cells docs/art-ruins.png
    python benchmarks/bench_synth.py --art-boxes docs/art-boxes.png
    python benchmarks/bench_synth.py --samples samples

Speed is measured in one process (the machine has 2 cores; ``cartographers synth --jobs 2``
runs two). Prints the measured figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import time

import cv2
import numpy as np

from vision.synth import STYLES, make_photo


def measure(n: int, megapixels: float, seed: int) -> None:
    """Generate ``n`` photos of ``megapixels`` and print photos/s and sizes."""
    make_photo(seed - 1, megapixels=1.0)  # warm-up: imports, caches
    times, sizes = [], []
    for i in range(n):
        t = time.perf_counter()
        photo = make_photo(seed + i, megapixels=megapixels)
        times.append(time.perf_counter() - t)
        sizes.append(len(photo.jpeg))
    total = sum(times)
    print(
        f"{n} photos at {megapixels} MP: {total:.1f} s, {n / total:.2f} photos/s per core "
        f"(median {np.median(times):.2f} s, max {max(times):.2f} s, mean JPEG "
        f"{np.mean(sizes) / 1e6:.2f} MB)"
    )


def contact_sheet(path: str, seed: int, thumb: int = 520) -> None:
    """A 4 × 3 grid of photos across all styles, sides and conditions, captioned."""
    tiles = []
    for k in range(12):
        style = STYLES[k % len(STYLES)]
        photo = make_photo(seed + k, style=style, side="AB"[k % 2], megapixels=3.0)
        img = photo.image
        s = thumb / max(img.shape[:2])
        small = cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
        tile = np.full((thumb + 46, thumb, 3), 255, np.uint8)
        y0, x0 = (thumb - small.shape[0]) // 2, (thumb - small.shape[1]) // 2
        tile[y0 : y0 + small.shape[0], x0 : x0 + small.shape[1]] = small
        t = photo.truth
        c = t["conditions"]
        lines = [
            f"{t['style']} / {t['background']} / side {t['sheet']['side']} / "
            f"{t['conditions']['paper']}",
            f"tilt {c['tilt_deg']:.0f} roll {c['roll_deg']:.0f} bow {c['bow_u']:.1f} curl "
            f"{c['curl_u']:.1f} q{c['jpeg_quality']}",
        ]
        for i, line in enumerate(lines):
            cv2.putText(
                tile,
                line,
                (6, thumb + 18 + 20 * i),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.45,
                (0, 0, 0),
                1,
                cv2.LINE_AA,
            )
        tiles.append(
            cv2.copyMakeBorder(tile, 4, 4, 4, 4, cv2.BORDER_CONSTANT, value=(200, 200, 200))
        )
    rows = [np.hstack(tiles[r * 4 : (r + 1) * 4]) for r in range(3)]
    cv2.imwrite(path, np.vstack(rows), [cv2.IMWRITE_JPEG_QUALITY, 82])
    print(f"wrote {path}")


def art_cells(path: str, seed: int, px_per_u: int = 80) -> None:
    """24 ruins cells and 12 mountain cells printed by the art families of our own (one sheet
    each, flat, with a little of the neighbouring cells), captioned with the look drawn."""
    from PIL import Image

    from scoring.sides import SIDES
    from vision.synth.art import ART_FAMILIES, render_art

    families = [f for f in ART_FAMILIES if f != "lookalike"]
    ruins, mountains = [], []
    for k in range(24):
        family, side = families[k % len(families)], "AB"[(k // len(families)) % 2]
        sheet = render_art(family, side, px_per_u, "print", np.random.default_rng(seed + k))
        look = sheet.looks["ruins"]
        caption = f"{family} {look.design} {look.style}" + (" tint" if look.tint else "")
        ruins.append(_cell_tile(sheet, sorted(SIDES[side].ruins)[k % 6], caption))
        if k < 12:
            m = sheet.looks["mountains"]
            caption = f"{family} {m.body}, {m.peaks} peak{'s' * (m.peaks > 1)}"
            mountains.append(_cell_tile(sheet, sorted(SIDES[side].mountains)[k % 5], caption))
    tiles = ruins + mountains
    rows = [np.hstack(tiles[r * 6 : (r + 1) * 6]) for r in range(6)]
    picture = Image.fromarray(cv2.cvtColor(np.vstack(rows), cv2.COLOR_BGR2RGB))
    picture.quantize(256, dither=Image.Dither.NONE).save(path, optimize=True)  # < 200 kB
    print(f"wrote {path}")


def art_boxes(path: str, seed: int, px_per_u: int = 60, printings: int = 9) -> None:
    """The season boxes and final-total shield of ``printings`` sheets of the art families of our
    own (flat, one sheet each), captioned with the family: what the season-box classifier must
    learn as print."""
    from PIL import Image

    from vision.synth.art import ART_FAMILIES, render_art

    families = [f for f in ART_FAMILIES if f != "lookalike"]
    strips = []
    for k in range(printings):
        family, side = families[k % len(families)], "AB"[(k // len(families)) % 2]
        sheet = render_art(family, side, px_per_u, "print", np.random.default_rng(seed + k))
        x0, y0 = (int(round(v)) for v in sheet.to_px(-0.8, 13.15))
        x1, y1 = (int(round(v)) for v in sheet.to_px(11.3, 14.7))
        strips.append(_captioned(sheet.image[y0:y1, x0:x1], f"{family}, side {side}", 0.4))
    picture = Image.fromarray(cv2.cvtColor(np.vstack(strips), cv2.COLOR_BGR2RGB))
    picture.quantize(256, dither=Image.Dither.NONE).save(path, optimize=True)
    print(f"wrote {path}")


def _cell_tile(sheet, cell: tuple[int, int], caption: str, margin_u: float = 0.3) -> np.ndarray:
    """One cell of a flat sheet and a margin around it, captioned below."""
    r, c = cell
    x0, y0 = (int(round(v)) for v in sheet.to_px(c - margin_u, r - margin_u))
    x1, y1 = (int(round(v)) for v in sheet.to_px(c + 1 + margin_u, r + 1 + margin_u))
    return _captioned(sheet.image[y0:y1, x0:x1], caption, 0.32)


def _captioned(crop: np.ndarray, caption: str, font_scale: float) -> np.ndarray:
    """``crop`` with ``caption`` written below it, in a thin grey frame."""
    tile = np.full((crop.shape[0] + 18, crop.shape[1], 3), 255, np.uint8)
    tile[: crop.shape[0]] = crop
    cv2.putText(
        tile,
        caption,
        (3, crop.shape[0] + 13),
        cv2.FONT_HERSHEY_SIMPLEX,
        font_scale,
        (0, 0, 0),
        1,
        cv2.LINE_AA,
    )
    return cv2.copyMakeBorder(tile, 3, 3, 3, 3, cv2.BORDER_CONSTANT, value=(200, 200, 200))


#: The committed sample photos: (name, sheet file or None, options, pinned conditions).
SAMPLES = [
    (
        "typical-a",
        "samples/typical-a.json",
        dict(style="graphite-symbols", background="light-wood"),
        dict(
            tilt_deg=14,
            roll_deg=4,
            fill=0.92,
            offset=[0.0, 0.0],
            fingers=1,
            shadow=0.0,
            defocus_px=0.0,
            motion_px=0.0,
            jpeg_quality=88,
            paper="print",
            white_balance=[0.95, 1.0, 1.05],
            exposure=0.92,
            resent_quality=0,
        ),
    ),
    (
        "a-colour-shading-kitchen",
        None,
        dict(side="A", style="colour-shading", background="cluttered-wood"),
        dict(tilt_deg=25, white_balance=[0.75, 1.0, 1.2], shadow=0.4, jpeg_quality=80),
    ),
    (
        "b-graphite-outlined-steep",
        None,
        dict(side="B", style="graphite-outlined", background="linen"),
        dict(tilt_deg=38, roll_deg=80, bow_u=0.4, jpeg_quality=75),
    ),
    (
        "b-marker-fill-glare",
        None,
        dict(side="B", style="marker-fill", background="white-table"),
        dict(tilt_deg=20, glare=0.5, jpeg_quality=70),
    ),
    (
        "a-colour-symbols-upside-down",
        None,
        dict(side="A", style="colour-symbols", background="gingham"),
        dict(tilt_deg=18, roll_deg=183, fingers=2, jpeg_quality=85),
    ),
    (
        "b-photocopy-noisy",
        None,
        dict(side="B", style="graphite-symbols", background="dark-table"),
        dict(paper="photocopy", noise=8.0, jpeg_quality=45, defocus_px=1.5),
    ),
    (
        "a-curl-fingers",
        None,
        dict(side="A", style="colour-shading-symbols", background="grey-table"),
        dict(curl_u=0.6, bow_u=0.3, fingers=2, tilt_deg=30, jpeg_quality=82),
    ),
    (
        "b-motion-second-sheet",
        None,
        dict(side="B", style="marker-symbols", background="cluttered-cloth"),
        dict(motion_px=7.0, second_sheet=True, tilt_deg=22, jpeg_quality=78),
    ),
    (
        "a-dark-wood-warm",
        None,
        dict(side="A", style="colour-shading", background="dark-wood"),
        dict(white_balance=[0.72, 1.0, 1.25], exposure=0.8, tilt_deg=12, jpeg_quality=90),
    ),
]


def write_samples(folder: str, megapixels: float = 2.0) -> None:
    """Write the sample photos and their truth JSON (deterministic)."""
    import json
    from pathlib import Path

    from api.sheet_files import load_sheet

    for k, (name, sheet_file, options, condition) in enumerate(SAMPLES):
        sheet = load_sheet(sheet_file) if sheet_file else None
        photo = make_photo(
            4000 + k, sheet=sheet, megapixels=megapixels, condition=condition, **options
        )
        Path(folder, f"{name}.jpg").write_bytes(photo.jpeg)
        Path(folder, f"{name}.truth.json").write_text(json.dumps(photo.truth, indent=1) + "\n")
        print(
            f"{name}: {len(photo.jpeg) / 1e3:.0f} kB, "
            f"{photo.truth['width']}×{photo.truth['height']}"
        )


def main() -> None:
    """Measure, or write the contact sheet, the printed cells' or boxes' picture or the samples."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=8)
    p.add_argument("--megapixels", type=float, default=12.0)
    p.add_argument("--seed", type=int, default=1000)
    p.add_argument("--contact-sheet", help="write the contact sheet here instead of measuring")
    p.add_argument("--art-cells", help="write the printed ruins and mountains picture here")
    p.add_argument("--art-boxes", help="write the printed season boxes picture here")
    p.add_argument(
        "--samples", help="write the sample photos into this folder instead of measuring"
    )
    args = p.parse_args()
    if args.samples:
        write_samples(args.samples)
    elif args.contact_sheet:
        contact_sheet(args.contact_sheet, args.seed)
    elif args.art_cells:
        art_cells(args.art_cells, args.seed)
    elif args.art_boxes:
        art_boxes(args.art_boxes, args.seed)
    else:
        measure(args.n, args.megapixels, args.seed)


if __name__ == "__main__":
    main()
