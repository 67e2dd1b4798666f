"""Time to score all 16 cards plus the monster penalty on random sheets.

    python benchmarks/bench_scoring.py [--n 10000] [--seed 1]

Prints the median, p95 and mean time per sheet (target: median ≤ 0.5 ms).
Sheets are built before timing; each timing covers ``Board(sheet)`` + 16 cards + penalty.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time

from scoring.board import Board
from scoring.cards import CARDS, score_card
from scoring.seasons import monster_penalty
from scoring.sheet import Sheet
from scoring.sides import SIDES
from scoring.terrain import DRAWABLE


def random_sheet(rng: random.Random) -> Sheet:
    side = rng.choice("AB")
    fill = rng.random()
    printed = SIDES[side].printed_filled
    changes = {
        (r, c): rng.choice(DRAWABLE)
        for r in range(11)
        for c in range(11)
        if (r, c) not in printed and rng.random() < fill
    }
    return Sheet.blank(side).with_cells(changes, coins=rng.randint(0, 14))


def score_everything(sheet: Sheet) -> int:
    board = Board(sheet)
    return sum(score_card(slug, board).stars for slug in CARDS) - monster_penalty(board)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    sheets = [random_sheet(rng) for _ in range(args.n)]
    for s in sheets[:200]:  # warm up
        score_everything(s)
    times = []
    clock = time.perf_counter
    for s in sheets:
        t0 = clock()
        score_everything(s)
        times.append(clock() - t0)
    times.sort()
    ms = lambda x: f"{1000 * x:.3f} ms"
    print(
        f"scored {args.n} random sheets (16 cards + monster penalty) on "
        f"{platform.processor() or platform.machine()}, "
        f"Python {platform.python_version()}"
    )
    print(
        f"median {ms(statistics.median(times))}  p95 {ms(times[int(0.95 * len(times))])}  "
        f"mean {ms(statistics.fmean(times))}  ({args.n / sum(times):.0f} sheets/s)"
    )


if __name__ == "__main__":
    main()
