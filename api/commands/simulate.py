"""``cartographers simulate --players N --side A|B --seed S [--strategy random|greedy] [--json]
[--out DIR]``.

Plays a whole game and prints the game record (``docs/game-engine.md``). ``--out DIR`` also writes
the files the validator takes: ``log.json`` (the card log) and ``P1-spring.json`` … (each player's
sheet at each season's end).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from api.commands import CliError
from scoring.seasons import SEASONS
from scoring.simulator import STRATEGIES, simulate


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "simulate",
        help="play a whole simulated game and print its record",
        description="Play a game of Cartographers with simulated players; "
        "deterministic for a seed.",
    )
    p.add_argument(
        "--players", type=int, default=4, help="1 to 5 (default 4; 1 plays the solo rules)"
    )
    p.add_argument("--side", choices=["A", "B"], default="A", help="sheet side (default A)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument(
        "--strategy",
        choices=list(STRATEGIES),
        default="greedy",
        help="how the players choose (default greedy)",
    )
    p.add_argument("--json", action="store_true", help="print the whole game record as JSON")
    p.add_argument(
        "--out", metavar="DIR", help="also write log.json and each player's season sheets here"
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.players <= 5:
        raise CliError(f"--players must be 1 to 5, got {args.players}")
    record = simulate(args.players, args.side, args.seed, args.strategy)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "log.json").write_text(json.dumps(record.card_log, indent=1) + "\n")
        for p, sheets in enumerate(record.season_sheets):
            for s, sheet in enumerate(sheets):
                (out / f"P{p + 1}-{SEASONS[s].name}.json").write_text(
                    json.dumps(sheet.to_json()) + "\n"
                )
    if args.json:
        print(json.dumps(record.to_json(), indent=1))
        return 0
    edicts = ", ".join(f"{e}: {c}" for e, c in zip("ABCD", record.cards))
    print(
        f"{record.players} player(s), side {record.side}, seed {record.seed}, {record.strategy} — "
        f"{edicts}"
    )
    for s in record.seasons:
        print(f"  {s['season']:<7} {' '.join(s['cards'])}")
    for st in record.ranking:
        print(f"  {st.place}. {st.player} {st.total} stars (monsters cost {st.monster_stars_lost})")
    if record.solo is not None:
        print(f"  solo rating {record.solo.rating}: {record.solo.title}")
    for p, sheet in enumerate(record.final_sheets):
        print(f"\nP{p + 1}\n{sheet.to_text()}", end="")
    return 0
