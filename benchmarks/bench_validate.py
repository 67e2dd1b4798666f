"""Validator benchmark: no false alarms, the mutation catch rate, and the time per sheet per level.

    python3 benchmarks/bench_validate.py [--games 300] [--mutations 1] [--time-limit 5] [--json OUT.json]

For ``--games`` simulated games (1–5 players, sides A and B, both strategies; the plan of
``bench_simulate.py``) every player's final sheet is validated at each level separately: ``sheet``
(alone), ``log`` (with the table's card log) and ``seasons`` (with the log and the three earlier
season sheets). Any verdict other than legal is a false alarm and is printed.

Every legal verdict with a log comes with a witness (one drawing per revealed card); it is replayed
turn by turn through the game engine (``scoring.validate.replay``), so the validator is checked
against the engine that plays the games, not against itself.

Then each final sheet gets ``--mutations`` of each one-cell change — a drawn cell's terrain swapped,
an empty cell filled, a drawn cell emptied — and is validated with the card log. The rate of
``illegal`` is printed, with every survivor (a change still judged legal, or cannot-tell) so it can be
looked at: a change that is still legal is fine, a missed illegal one is a bug.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_simulate import game_plan  # noqa: E402
from scoring.simulator import simulate  # noqa: E402
from scoring.sides import cell_name  # noqa: E402
from scoring.terrain import DRAWABLE, Terrain  # noqa: E402
from scoring.validate import replay, validate  # noqa: E402


def mutations(sheet, rng: random.Random, n: int):
    drawn = list(sheet.drawn_cells().items())
    empty = [c for c, t in sheet.items() if t is Terrain.EMPTY]
    for _ in range(n):
        if drawn:
            c, t = rng.choice(drawn)
            yield "swap", c, t, rng.choice([x for x in DRAWABLE if x is not t])
        if empty:
            yield "extra", rng.choice(empty), Terrain.EMPTY, rng.choice(DRAWABLE)
        if drawn:
            c, t = rng.choice(drawn)
            yield "empty", c, t, Terrain.EMPTY


def summary(xs):
    xs = sorted(xs)
    return {"n": len(xs), "median": round(statistics.median(xs), 3), "p95": round(xs[int(0.95 * (len(xs) - 1))], 3),
            "max": round(xs[-1], 3)} if xs else {"n": 0}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--mutations", type=int, default=1, help="changes of each kind per final sheet")
    ap.add_argument("--time-limit", type=float, default=5.0)
    ap.add_argument("--json", help="write the figures here too")
    ap.add_argument("--skip-legal", action="store_true", help="only the mutation part")
    args = ap.parse_args(argv)
    rng = random.Random(2024)
    times = {"sheet": [], "log": [], "seasons": [], "mutated-log": []}
    false_alarms = []
    replay_failures = []
    verdicts: Counter = Counter()
    named = Counter()
    survivors = []
    t_start = time.perf_counter()
    for players, side, seed, strategy in game_plan(args.games):
        g = simulate(players, side, seed, strategy)
        for p in range(players):
            sheets = g.season_sheets[p]
            final = sheets[-1]
            if not args.skip_legal:
                for level, kw in (("sheet", {}), ("log", {"log": g.card_log}),
                                  ("seasons", {"log": g.card_log, "previous": sheets[:3]})):
                    t = time.perf_counter()
                    v = validate(final, time_limit=args.time_limit, **kw)
                    times[level].append(time.perf_counter() - t)
                    if v.status == "legal" and level != "sheet":
                        problems = replay(final, g.card_log, v.checks[-1].details["explanation"])
                        if problems:
                            replay_failures.append((seed, players, p, level, problems))
                            print(f"REPLAY FAILED seed {seed} {players}p P{p + 1} {level}: {problems}", flush=True)
                    if v.status != "legal":
                        false_alarms.append((seed, players, side, strategy, p, level, v.to_json()["reasons"]))
                        print(f"FALSE ALARM seed {seed} {players}p {side} {strategy} P{p + 1} {level}: "
                              f"{v.status} {v.to_json()['reasons']}", flush=True)
            for kind, cell, was, now in mutations(final, rng, args.mutations):
                changed = final.with_cells({cell: now})
                t = time.perf_counter()
                v = validate(changed, log=g.card_log, time_limit=args.time_limit)
                times["mutated-log"].append(time.perf_counter() - t)
                status = v.checks[-1].status
                verdicts[(kind, status)] += 1
                if status == "legal":  # a survivor: its witness must replay under the engine's rules
                    problems = replay(changed, g.card_log, v.checks[-1].details["explanation"])
                    if problems:
                        replay_failures.append((seed, players, p, kind, problems))
                        print(f"REPLAY FAILED (survivor) seed {seed}: {problems}", flush=True)
                if status == "illegal":
                    named[any(cell in r.cells for r in v.reasons)] += 1
                else:
                    placed = [pl for pl in g.placements_for(p) if cell in pl.cells]
                    how = (f"{placed[0].card} {placed[0].kind} {placed[0].terrain.value} "
                           f"{[cell_name(c) for c in placed[0].cells]}") if placed else "no drawing"
                    survivors.append((seed, players, side, strategy, p, kind, cell_name(cell), was.value, now.value,
                                      status, how))
                    print(f"survivor seed {seed} {players}p {side} {strategy} P{p + 1}: {kind} {cell_name(cell)} "
                          f"{was.value}→{now.value}: {status} (the cell was drawn by: {how})", flush=True)
    caught = sum(n for (k, s), n in verdicts.items() if s == "illegal")
    total = sum(verdicts.values())
    out = {
        "games": args.games,
        "sheets": len(times["log"]),
        "false_alarms": len(false_alarms),
        "replay_failures": len(replay_failures),
        "seconds": {k: summary(v) for k, v in times.items()},
        "mutations": {f"{k}/{s}": n for (k, s), n in sorted(verdicts.items())},
        "caught_rate": round(caught / total, 4) if total else None,
        "caught_naming_the_changed_cell": named[True],
        "survivors": survivors,
        "wall_seconds": round(time.perf_counter() - t_start, 1),
    }
    print(f"\n{out['sheets']} final sheets, {out['false_alarms']} false alarms, "
          f"{out['replay_failures']} legal witnesses that the engine does not replay")
    for level, s in out["seconds"].items():
        if s["n"]:
            print(f"  {level:<12} median {s['median']:.3f} s  p95 {s['p95']:.3f} s  worst {s['max']:.3f} s  (n={s['n']})")
    if total:
        print(f"mutations flagged illegal: {caught}/{total} = {caught / total:.1%}; "
              f"naming the changed cell: {named[True]}/{caught}")
        for (k, s), n in sorted(verdicts.items()):
            print(f"  {k:<6} {s:<12} {n}")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0 if not false_alarms and not replay_failures else 1


if __name__ == "__main__":
    sys.exit(main())
