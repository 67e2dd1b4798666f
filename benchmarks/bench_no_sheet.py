"""No-sheet benchmark: how fast the whole CLI answers a photo that shows no map sheet.

    python benchmarks/bench_no_sheet.py [--megapixels 12] [--runs 3] [--dir
    /tmp/cartographers-bench-no-sheet]

Target: a photo with no sheet answers "no map grid found" with exit status 2 within 2 s.
This script makes one photo of every table background the generator draws
(``vision.synth.backgrounds.BACKGROUNDS``: wood, cloth, plain and cluttered tables, newspaper) at
``--megapixels`` with no sheet on it, once, into ``--dir`` (kept for reruns; never in the
repository), then runs ``cartographers read PHOTO`` in a fresh process ``--runs`` times per photo,
back to back, and prints each background's wall-clock times, its exit statuses and the line on
standard error. It also times the interpreter start and ``cartographers --help`` (the import floor
every call pays).

Every figure printed is measured here, on this machine; nothing is assumed. It exits 1 when some
photo was not answered with exit status 2 and "no map grid found".
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np

EXPECTED = "no map grid found"


def cli() -> list[str]:
    """The installed ``cartographers`` script (what a user runs), else the module."""
    found = shutil.which("cartographers")
    return [found] if found else [sys.executable, "-m", "api.cli"]


def make_photos(folder: Path, megapixels: float) -> list[Path]:
    """One JPEG per background (4:3, light sensor noise,
    quality 90), no sheet; made once and reused."""
    from vision.synth.backgrounds import BACKGROUNDS, make_background

    folder.mkdir(parents=True, exist_ok=True)
    width = int(round(np.sqrt(megapixels * 1e6 * 4 / 3)))
    height = int(round(width * 3 / 4))
    paths = []
    for k, name in enumerate(BACKGROUNDS):
        path = folder / f"{name}-{megapixels:g}mp.jpg"
        if not path.exists():
            rng = np.random.default_rng(5000 + k)
            table = make_background(name, width, height, rng)  # float BGR 0…255
            table += rng.normal(0.0, 3.0, table.shape).astype(np.float32)  # a phone sensor's grain
            bgr = np.clip(table + 0.5, 0, 255).astype(np.uint8)
            ok, jpeg = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, 90])
            assert ok
            path.write_bytes(jpeg.tobytes())
        paths.append(path)
    return paths


def timed(cmd: list[str]) -> tuple[float, int, str]:
    """Wall-clock seconds, exit status and the last line on standard error of one fresh process."""
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    lines = done.stderr.strip().splitlines()
    return seconds, done.returncode, lines[-1] if lines else ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megapixels", type=float, default=12.0)
    parser.add_argument("--runs", type=int, default=3, help="CLI runs per photo")
    parser.add_argument("--dir", default="/tmp/cartographers-bench-no-sheet")
    args = parser.parse_args()

    paths = make_photos(Path(args.dir), args.megapixels)
    base = cli()
    start = [timed([sys.executable, "-c", "pass"])[0] for _ in range(3)]
    helps = [timed(base + ["--help"])[0] for _ in range(3)]
    print(
        f"interpreter start p50 {statistics.median(start):.2f} s; `cartographers --help` p50 "
        f"{statistics.median(helps):.2f} s ({' '.join(base)})"
    )
    print(f"{'background':<18} {'p50 s':>6} {'max s':>6}  exit  message")
    all_times, wrong = [], 0
    for path in paths:
        runs = [timed(base + ["read", str(path)]) for _ in range(args.runs)]
        times = [t for t, _, _ in runs]
        all_times += times
        codes = sorted({c for _, c, _ in runs})
        message = runs[-1][2]
        wrong += sum(c != 2 or EXPECTED not in m for _, c, m in runs)
        name = path.stem.rsplit("-", 1)[0]
        print(
            f"{name:<18} {statistics.median(times):>6.2f} {max(times):>6.2f}  "
            f"{','.join(map(str, codes)):>4}  {message}"
        )
    print(
        f"all {len(all_times)} runs: p50 {statistics.median(all_times):.2f} s, max "
        f"{max(all_times):.2f} s; "
        f"answered otherwise than exit 2 + '{EXPECTED}': {wrong}"
    )
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
