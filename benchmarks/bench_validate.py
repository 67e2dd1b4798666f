"""Validator benchmark: no false alarms, the mutation catch rate, and the time per sheet per level.

    python3 benchmarks/bench_validate.py [--games 300]
    [--mutations 1] [--time-limit 5] [--json OUT.json]

For ``--games`` simulated games (1–5 players, sides A and B, both strategies; the plan of
``bench_simulate.py``) every player's final sheet is validated at each level separately: ``sheet``
(alone), ``log`` (with the table's card log) and ``seasons`` (with the log and the three earlier
season sheets). Any verdict other than legal is a false alarm and is printed.

Every legal verdict with a log comes with a witness (one drawing per revealed card); it is replayed
turn by turn through the game engine (``scoring.validate.replay``), so the validator is checked
against the engine that plays the games, not against itself.

Then each final sheet gets ``--mutations`` of each one-cell change — a drawn cell's terrain swapped,
an empty cell filled, a drawn cell emptied — and is validated with the card log. The rate of
``illegal`` is printed, with every survivor (a change still judged legal, or cannot-tell) so it can
be looked at: a change that is still legal is fine, a missed illegal one is a bug.
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

from scoring.sides import cell_name  # noqa: E402
from scoring.simulator import simulate  # noqa: E402
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
    return (
        {
            "n": len(xs),
            "median": round(statistics.median(xs), 3),
            "p95": round(xs[int(0.95 * (len(xs) - 1))], 3),
            "max": round(xs[-1], 3),
        }
        if xs
        else {"n": 0}
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--mutations", type=int, default=1, help="changes of each kind per final sheet")
    ap.add_argument("--time-limit", type=float, default=5.0)
    ap.add_argument("--json", help="write the figures here too")
    ap.add_argument("--skip-legal", action="store_true", help="only the mutation part")
    ap.add_argument(
        "--shard", default="0/1", help="K/N: play only games k with k %% N == K (run N at once)"
    )
    ap.add_argument(
        "--merge", nargs="+", metavar="JSON", help="merge the --json files of shards and print"
    )
    args = ap.parse_args(argv)
    if args.merge:
        return merge(args.merge, args.json)
    shard, shards = (int(x) for x in args.shard.split("/"))
    times = {
        "sheet": [],
        "log": [],
        "seasons": [],
        "sheet-only call": [],
        "log call": [],
        "mutated-log": [],
    }
    false_alarms = []
    replay_failures = []
    implied = []  # levels that ran out of time in the combined call, settled by a stricter level
    verdicts: Counter = Counter()
    named = Counter()
    survivors = []
    t_start = time.perf_counter()
    for players, side, seed, strategy in game_plan(args.games):
        if seed % shards != shard:
            continue
        rng = random.Random(2024 + seed)
        g = simulate(players, side, seed, strategy)
        for p in range(players):
            sheets = g.season_sheets[p]
            final = sheets[-1]
            if not args.skip_legal:
                # one call runs the three levels; each check reports its own time
                v = validate(final, log=g.card_log, previous=sheets[:3], time_limit=args.time_limit)
                for c in v.checks:
                    times[c.level].append(c.seconds)
                    if c.details.get("implied_by"):
                        implied.append((seed, players, p, c.level, c.details["implied_by"]))
                    if c.status == "legal" and c.level != "sheet" and "explanation" in c.details:
                        problems = replay(final, g.card_log, c.details["explanation"])
                        if problems:
                            replay_failures.append((seed, players, p, c.level, problems))
                            print(
                                f"REPLAY FAILED seed {seed} {players}p P{p + 1} {c.level}: "
                                f"{problems}",
                                flush=True,
                            )
                    if c.status != "legal":
                        false_alarms.append(
                            (seed, players, side, strategy, p, c.level, c.to_json()["reasons"])
                        )
                        print(
                            f"FALSE ALARM seed {seed} {players}p {side} {strategy} P{p + 1} "
                            f"{c.level}: "
                            f"{c.status} {c.to_json()['reasons']}",
                            flush=True,
                        )
                t = time.perf_counter()
                v = validate(
                    final, time_limit=args.time_limit
                )  # the sheet level alone, as a user calls it
                times["sheet-only call"].append(time.perf_counter() - t)
                if v.status != "legal":
                    false_alarms.append(
                        (seed, players, side, strategy, p, "sheet-only", v.to_json()["reasons"])
                    )
                t = time.perf_counter()
                v = validate(
                    final, log=g.card_log, time_limit=args.time_limit
                )  # sheet + log, as a user calls it
                times["log call"].append(time.perf_counter() - t)
                if v.status != "legal":
                    false_alarms.append(
                        (seed, players, side, strategy, p, "log call", v.to_json()["reasons"])
                    )
            for kind, cell, was, now in mutations(final, rng, args.mutations):
                changed = final.with_cells({cell: now})
                t = time.perf_counter()
                v = validate(changed, log=g.card_log, time_limit=args.time_limit)
                times["mutated-log"].append(time.perf_counter() - t)
                status = v.checks[-1].status
                verdicts[(kind, status)] += 1
                if (
                    status == "legal"
                ):  # a survivor: its witness must replay under the engine's rules
                    problems = replay(changed, g.card_log, v.checks[-1].details["explanation"])
                    if problems:
                        replay_failures.append((seed, players, p, kind, problems))
                        print(f"REPLAY FAILED (survivor) seed {seed}: {problems}", flush=True)
                if status == "illegal":
                    named[any(cell in r.cells for r in v.reasons)] += 1
                else:
                    placed = [pl for pl in g.placements_for(p) if cell in pl.cells]
                    how = (
                        (
                            f"{placed[0].card} {placed[0].kind} {placed[0].terrain.value} "
                            f"{[cell_name(c) for c in placed[0].cells]}"
                        )
                        if placed
                        else "no drawing"
                    )
                    survivors.append(
                        (
                            seed,
                            players,
                            side,
                            strategy,
                            p,
                            kind,
                            cell_name(cell),
                            was.value,
                            now.value,
                            status,
                            how,
                        )
                    )
                    print(
                        f"survivor seed {seed} {players}p {side} {strategy} P{p + 1}: {kind} "
                        f"{cell_name(cell)} "
                        f"{was.value}→{now.value}: {status} (the cell was drawn by: {how})",
                        flush=True,
                    )
    caught = sum(n for (k, s), n in verdicts.items() if s == "illegal")
    total = sum(verdicts.values())
    out = {
        "games": args.games,
        "sheets": len(times["log"]),
        "false_alarms": len(false_alarms),
        "replay_failures": len(replay_failures),
        "implied": implied,
        "seconds": {k: summary(v) for k, v in times.items()},
        "mutations": {f"{k}/{s}": n for (k, s), n in sorted(verdicts.items())},
        "caught_rate": round(caught / total, 4) if total else None,
        "caught_naming_the_changed_cell": named[True],
        "survivors": survivors,
        "wall_seconds": round(time.perf_counter() - t_start, 1),
        "raw": {
            "times": times,
            "verdicts": [[k, s, n] for (k, s), n in verdicts.items()],
            "named": named[True],
            "false_alarms": false_alarms,
            "replay_failures": replay_failures,
        },
    }
    report(out)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0 if not false_alarms and not replay_failures else 1


def merge(paths: list[str], out_path: str | None) -> int:
    parts = [json.loads(Path(p).read_text()) for p in paths]
    times: dict[str, list] = {}
    verdicts: Counter = Counter()
    out = {
        "games": parts[0]["games"],
        "shards": len(parts),
        "implied": [x for p in parts for x in p["implied"]],
        "sheets": sum(p["sheets"] for p in parts),
        "survivors": [s for p in parts for s in p["survivors"]],
        "wall_seconds": max(p["wall_seconds"] for p in parts),
    }
    false_alarms, replay_failures, named = [], [], 0
    for p in parts:
        for k, v in p["raw"]["times"].items():
            times.setdefault(k, []).extend(v)
        for k, s, n in p["raw"]["verdicts"]:
            verdicts[(k, s)] += n
        named += p["raw"]["named"]
        false_alarms += p["raw"]["false_alarms"]
        replay_failures += p["raw"]["replay_failures"]
    caught = sum(n for (k, s), n in verdicts.items() if s == "illegal")
    total = sum(verdicts.values())
    out.update(
        {
            "false_alarms": len(false_alarms),
            "replay_failures": len(replay_failures),
            "seconds": {k: summary(v) for k, v in times.items()},
            "mutations": {f"{k}/{s}": n for (k, s), n in sorted(verdicts.items())},
            "caught_rate": round(caught / total, 4) if total else None,
            "caught_naming_the_changed_cell": named,
        }
    )
    report(out)
    if out_path:
        Path(out_path).write_text(json.dumps(out, indent=1) + "\n")
    return 0 if not false_alarms and not replay_failures else 1


def report(out: dict) -> None:
    print(
        f"\n{out['sheets']} final sheets, {out['false_alarms']} false alarms, "
        f"{out['replay_failures']} legal witnesses that the engine does not replay"
    )
    for level, s in out["seconds"].items():
        if s["n"]:
            print(
                f"  {level:<16} median {s['median']:.3f} s  p95 {s['p95']:.3f} s  worst "
                f"{s['max']:.3f} s  (n={s['n']})"
            )
    total = sum(out["mutations"].values())
    caught = sum(n for k, n in out["mutations"].items() if k.endswith("/illegal"))
    if total:
        print(
            f"mutations flagged illegal: {caught}/{total} = {caught / total:.1%}; "
            f"naming the changed cell: {out['caught_naming_the_changed_cell']}/{caught}"
        )
        for k, n in out["mutations"].items():
            print(f"  {k:<20} {n}")
    for x in out.get("implied", []):
        print("  ran out of time, settled by a stricter level:", *x)
    for sv in out["survivors"]:
        print("  survivor:", *sv)


if __name__ == "__main__":
    sys.exit(main())
