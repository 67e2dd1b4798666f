"""How fast a photo is read: model load, one photo in a warm process, the whole command,
near-sheets.

    python benchmarks/bench_read_speed.py [--photos 6] [--runs 5] [--dir
    /tmp/cartographers-bench-speed]

Prints, measured here on this machine:

1. the reader model's load time in a fresh interpreter (``load_model``; ``--runs`` runs, p50 and
max);
2. 12 MP synthetic photos (``--photos`` of them, made once into ``--dir``, never in the repository)
   read in one process after the first: p50 and max seconds per photo;
3. ``cartographers read PHOTO`` as a whole command on each of those photos: p50 and max;
4. ``cartographers read`` on every kind of near-sheet photo the robustness tests draw
   (``tests/near_sheets.py``, three seeds each): the slowest time, the exit statuses and the first
   line on standard error.

Targets: model load ≤ 0.3 s, a 12 MP photo ≤ 0.5 s p50 in one process, the whole command ≤ 1.5 s
p50, every near-sheet case ≤ 5 s. Exits 1 when a near-sheet case exits other than 0 or 2.
Run it on an idle machine: the figures are wall-clock times.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

_LOAD = (
    "import time; t = time.perf_counter(); from vision.classify import load_model; load_model(); "
    "print(time.perf_counter() - t)"
)


def cli() -> list[str]:
    """The installed ``cartographers`` script (what a user runs), else the module."""
    found = shutil.which("cartographers")
    return [found] if found else [sys.executable, "-m", "api.cli"]


def timed(command: list[str]) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    return time.perf_counter() - t0, done


def summary(seconds: list[float]) -> str:
    return f"p50 {statistics.median(seconds):.3f} s, max {max(seconds):.3f} s ({len(seconds)} runs)"


def model_load(runs: int) -> list[float]:
    return [
        float(
            subprocess.run(
                [sys.executable, "-c", _LOAD], capture_output=True, text=True, check=True, cwd=ROOT
            ).stdout
        )
        for _ in range(runs)
    ]


def twelve_megapixel_photos(folder: Path, count: int) -> list[Path]:
    from vision.synth import make_photo

    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for k in range(count):
        path = folder / f"sheet-{k}-12mp.jpg"
        if not path.exists():
            path.write_bytes(make_photo(7_700_000 + k, megapixels=12.0).jpeg)
        paths.append(path)
    return paths


def in_process(paths: list[Path]) -> list[float]:
    from vision.reader import read_photo

    read_photo(paths[0].read_bytes())  # loads the model; not counted
    out = []
    for path in paths:
        data = path.read_bytes()
        t0 = time.perf_counter()
        read_photo(data)
        out.append(time.perf_counter() - t0)
    return out


def near_sheets(folder: Path) -> tuple[list[str], bool]:
    from tests.near_sheets import NEAR_SHEETS, as_jpeg

    lines, ok = [], True
    for name, make in NEAR_SHEETS.items():
        seconds, codes, said = [], set(), ""
        for seed in range(3):
            path = folder / f"near-{name}-{seed}.jpg"
            path.write_bytes(as_jpeg(make(seed)))
            took, done = timed([*cli(), "read", str(path)])
            seconds.append(took)
            codes.add(done.returncode)
            said = said or (done.stderr.strip().splitlines() or [""])[0]
        ok &= codes <= {0, 2}
        lines.append(f"  {name:<20} max {max(seconds):5.2f} s  exit {sorted(codes)}  {said[:90]}")
    return lines, ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=6)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/cartographers-bench-speed"))
    args = parser.parse_args()

    print(f"model load in a fresh interpreter: {summary(model_load(args.runs))}")
    paths = twelve_megapixel_photos(args.dir, args.photos)
    print(f"12 MP photo read in one warm process: {summary(in_process(paths))}")
    print(
        f"'cartographers read' on a 12 MP photo, whole command: "
        f"{summary([timed([*cli(), 'read', str(p)])[0] for p in paths])}"
    )
    lines, ok = near_sheets(args.dir)
    print("'cartographers read' on near-sheet photos (3 seeds each):")
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
