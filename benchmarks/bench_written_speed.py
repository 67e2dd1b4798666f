"""What reading the season boxes adds to a 12 MP photo's read, in one warm process.

    python benchmarks/bench_written_speed.py [--photos 5] [--runs 3] [--dir
    /tmp/cartographers-bench-speed]

Each photo (12 MP synthetic photos, made once into ``--dir`` as ``bench_read_speed.py`` makes
them) is read ``--runs`` times with the season boxes and ``--runs`` times without, alternating,
in the same process after a first read that loads the models; prints the p50 seconds of both and
the p50 and max of the time the boxes add per photo (each photo's median with minus its median
without), and the p50 and max of the boxes' own reading (``vision.seasons.read_written``, timed
inside each read with the boxes) in wall-clock and CPU seconds: the difference of two noisy
medians moves with whatever else the machine runs, the boxes' own CPU time far less. Target:
≤ 0.15 s added.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_read_speed import twelve_megapixel_photos  # noqa: E402

#: (wall, CPU) seconds of each season-box reading, appended by :func:`_timed_boxes`
BOX_TIMES: list[tuple[float, float]] = []


def _timed_boxes(read_written: Callable[..., Any]) -> Callable[..., Any]:
    """``read_written`` that appends its wall-clock and CPU seconds to ``BOX_TIMES``."""

    def timed(*args: Any, **kwargs: Any) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        out = read_written(*args, **kwargs)
        BOX_TIMES.append((time.perf_counter() - wall, time.process_time() - cpu))
        return out

    return timed


def timed_read(data: bytes, digits: bool) -> float:
    """Seconds to read one photo, with or without the season boxes."""
    from vision.load import load_photo
    from vision.reader import read_image

    t0 = time.perf_counter()
    read_image(load_photo(data), digits=digits)
    return time.perf_counter() - t0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=5)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/cartographers-bench-speed"))
    args = parser.parse_args()
    import cv2

    import vision.reader

    cv2.setNumThreads(1)
    # the reader looks read_written up in its module at each read: timed there, once
    vision.reader.read_written = _timed_boxes(vision.reader.read_written)
    paths = twelve_megapixel_photos(args.dir, args.photos)
    timed_read(paths[0].read_bytes(), True)  # loads both models; not counted
    BOX_TIMES.clear()
    with_boxes, without, added = [], [], []
    for path in paths:
        data = path.read_bytes()
        on, off = [], []
        for _ in range(args.runs):
            on.append(timed_read(data, True))
            off.append(timed_read(data, False))
        with_boxes += on
        without += off
        added.append(statistics.median(on) - statistics.median(off))
    print(f"12 MP read with the season boxes: p50 {statistics.median(with_boxes):.3f} s")
    print(f"12 MP read without them:          p50 {statistics.median(without):.3f} s")
    print(
        f"added by the season boxes: p50 {statistics.median(added):.3f} s, max {max(added):.3f} s "
        f"({len(paths)} photos × {args.runs} runs, one thread)"
    )
    wall, cpu = zip(*BOX_TIMES)
    print(
        f"the boxes' own reading: p50 {statistics.median(wall):.3f} s (max {max(wall):.3f} s), "
        f"CPU p50 {statistics.median(cpu):.3f} s (max {max(cpu):.3f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
