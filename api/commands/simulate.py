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
from api.i18n import DEFAULT_LANGUAGE, _, _n, current_language
from api.messages import say
from api.words import solo_title
from scoring.message import Word
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
    print(record_in_words(record), end="")
    return 0


def record_in_words(record) -> str:
    """The game for a player, in the language in force: the setup, the cards revealed each season,
    the ranking (and the solo rating), then every player's final sheet in its text form. Cards are
    named by their slugs in English, by their printed names in a translation."""
    english = current_language() == DEFAULT_LANGUAGE
    name = lambda slug: say(Word("card", slug))  # noqa: E731
    edicts = ", ".join(f"{e}: {name(c)}" for e, c in zip("ABCD", record.cards))
    # "player(s)" and "stars" read the same for every count in English; a translation has forms
    lines = [
        _n(
            "{n} player(s), side {side}, seed {seed}, {strategy} — {edicts}",
            "{n} player(s), side {side}, seed {seed}, {strategy} — {edicts}",
            record.players,
            n=record.players,
            side=record.side,
            seed=record.seed,
            strategy=record.strategy,
            edicts=edicts,
        )
    ]
    seasons = {s["season"]: say(Word("season", s["season"])) for s in record.seasons}
    width = max([7, *(len(n) + 1 for n in seasons.values())])
    for s in record.seasons:
        cards = (" " if english else ", ").join(name(c) for c in s["cards"])
        lines.append(f"  {seasons[s['season']]:<{width}} {cards}")
    for st in record.ranking:
        standing = _n(
            "{place}. {player} {total} stars (monsters cost {lost})",
            "{place}. {player} {total} stars (monsters cost {lost})",
            st.total,
            place=st.place,
            player=st.player,
            total=st.total,
            lost=st.monster_stars_lost,
        )
        lines.append(f"  {standing}")
    if record.solo is not None:
        rating = _(
            "solo rating {rating}: {title}",
            rating=record.solo.rating,
            title=solo_title(record.solo.title),
        )
        lines.append(f"  {rating}")
    text = "".join(f"{line}\n" for line in lines)
    for p, sheet in enumerate(record.final_sheets):
        text += f"\nP{p + 1}\n{sheet.to_text()}"
    return text
