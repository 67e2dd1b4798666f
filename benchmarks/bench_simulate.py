"""Simulator benchmark: time per game and what the simulated maps look like.

    python3 benchmarks/bench_simulate.py [--games 300] [--json OUT.json]

Plays ``--games`` games cycling through 1–5 players, sides A and B and both strategies (seed = game
number), and prints: seconds per 4-player greedy game (median, worst), and per strategy the mean
fill (drawn cells over the 121 − printed cells), coins and season score at the end of each season.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scoring.seasons import SEASONS  # noqa: E402
from scoring.simulator import simulate  # noqa: E402


def game_plan(games: int):
    """(players, side, seed, strategy) for game k: every combination comes round every 20 games."""
    for k in range(games):
        yield 1 + k % 5, "AB"[(k // 5) % 2], k, ("greedy", "random")[(k // 10) % 2]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--json", help="write the figures here too")
    args = ap.parse_args(argv)
    t4 = []
    per = {
        s: {
            "fill": [[] for _ in SEASONS],
            "coins": [[] for _ in SEASONS],
            "score": [[] for _ in SEASONS],
            "total": [],
        }
        for s in ("greedy", "random")
    }
    for players, side, seed, strategy in game_plan(args.games):
        t = time.perf_counter()
        g = simulate(players, side, seed, strategy)
        dt = time.perf_counter() - t
        if players == 4 and strategy == "greedy":
            t4.append(dt)
        st = per[strategy]
        for p in range(players):
            for s in range(4):
                sheet = g.season_sheets[p][s]
                free = 121 - len(sheet.layout.printed_filled)
                st["fill"][s].append(len(sheet.drawn_cells()) / free)
                st["coins"][s].append(sheet.coins)
                st["score"][s].append(g.season_scores[p][s].total)
            st["total"].append(g.game_scores[p].total)
    out = {"games": args.games}
    if t4:
        out["seconds_4p_greedy"] = {
            "median": statistics.median(t4),
            "max": max(t4),
            "games": len(t4),
        }
        print(
            f"4-player greedy game: median {statistics.median(t4):.2f} s, worst {max(t4):.2f} s "
            f"over {len(t4)} games"
        )
    for strategy, st in per.items():
        if not st["total"]:
            continue
        out[strategy] = {
            "mean_fill": [round(statistics.mean(x), 3) for x in st["fill"]],
            "mean_coins": [round(statistics.mean(x), 2) for x in st["coins"]],
            "mean_season_score": [round(statistics.mean(x), 2) for x in st["score"]],
            "mean_total": round(statistics.mean(st["total"]), 1),
            "sheets": len(st["total"]),
        }
        print(f"{strategy}: {len(st['total'])} sheets, mean total {out[strategy]['mean_total']}")
        for s, season in enumerate(SEASONS):
            print(
                f"  {season.name:<7} fill {out[strategy]['mean_fill'][s]:.0%}  coins "
                f"{out[strategy]['mean_coins'][s]:.1f}  season score "
                f"{out[strategy]['mean_season_score'][s]:.1f}"
            )
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
