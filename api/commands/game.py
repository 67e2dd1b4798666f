"""``cartographers game create|reveal|upload|standings|show|list``: track a table through four
seasons.

The database is ``--db PATH`` (a SQLite file), else ``CARTOGRAPHERS_DATABASE_URL``, else
``~/.local/share/cartographers/games.sqlite3`` — the same one ``cartographers serve`` uses.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from api.commands import CliError
from scoring.seasons import SEASONS as _SEASONS

# api.games and api.store pull in SQLAlchemy (0.4 s): each action imports them when it runs, so
# `cartographers --help` and the other commands do not wait for them
SEASONS = [s.name for s in _SEASONS]


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "game",
        help="track a game season by season (players, sheets, standings)",
        description="Follow one table through the four seasons in a database.",
    )
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--db",
        help="SQLite file (default: $CARTOGRAPHERS_DATABASE_URL or "
        "~/.local/share/cartographers/games.sqlite3)",
    )
    common.add_argument("--json", action="store_true", help="print JSON")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = lambda name, **kw: actions.add_parser(name, parents=[common], **kw)  # noqa: E731

    c = add("create", help="a new game: players in seating order, side, the four cards")
    c.add_argument(
        "--players", required=True, help="names in seating order, clockwise: Ana,Ben,Caz"
    )
    c.add_argument("--side", required=True, choices=["A", "B"])
    c.add_argument("--cards", required=True, help="C1,C2,C3,C4: the cards under edicts A–D")
    c.add_argument("--name", default="", help="a label, e.g. 'Round 2, table 5'")
    c.set_defaults(run=create)

    r = add("reveal", help="record the explore/ambush cards revealed in a season")
    r.add_argument("game")
    r.add_argument("season", choices=SEASONS)
    r.add_argument("cards", help="card slugs in the order revealed, comma-separated")
    r.set_defaults(run=reveal)

    u = add("upload", help="a player's sheet at the end of a season: photo, .json or .txt")
    u.add_argument("game")
    u.add_argument("player")
    u.add_argument("season", choices=SEASONS)
    u.add_argument("file", help="a photo of the sheet, or the corrected sheet (.json / .txt)")
    u.add_argument(
        "--replace",
        action="store_true",
        help="correct this season's sheet (no later season in yet)",
    )
    u.add_argument(
        "--time-limit", type=float, default=5.0, help="seconds for the legality check (default 5)"
    )
    u.set_defaults(run=upload)

    s = add("standings", help="standings after every season and at the end")
    s.add_argument("game")
    s.set_defaults(run=standings)

    g = add("show", help="the game's setup and which sheets are in")
    g.add_argument("game")
    g.set_defaults(run=show)

    ls = add("list", help="every game in the database")
    ls.set_defaults(run=list_all)


def open_store(args: argparse.Namespace) -> Store:  # noqa: F821 (imported when run)
    from api.store import Store, sqlite_url

    return Store(sqlite_url(args.db) if args.db else None)


def guarded(fn):
    """Game errors become one line on standard error (exit 3 for a rejected sheet, else 2)."""

    def run(args: argparse.Namespace) -> int:
        from api import games

        try:
            return fn(args, open_store(args))
        except games.GameError as e:
            where = f" (cells: {' '.join(e.cells)})" if e.cells else ""
            raise CliError(
                f"{e.code}: {e.message}{where}", 3 if e.code == "sheet-rejected" else 2
            ) from None

    return run


def emit(args: argparse.Namespace, data: dict, text: str) -> int:
    print(json.dumps(data, indent=1) if args.json else text)
    return 0


@guarded
def create(args, store) -> int:
    from api import games

    setup = games.GameSetup(
        tuple(p.strip() for p in args.players.split(",")),
        args.side,
        tuple(c.strip() for c in args.cards.split(",")),
        args.name,
    )
    game = games.create_game(store, setup)
    return emit(args, game, game["id"])


@guarded
def reveal(args, store) -> int:
    from api import games

    game = games.reveal_cards(
        store, args.game, args.season, [c.strip() for c in args.cards.split(",") if c.strip()]
    )
    return emit(args, game, f"{args.season}: {', '.join(game['revealed'][args.season])}")


@guarded
def upload(args, store) -> int:
    from api import games
    from api.batch import read_sheet_file

    path = Path(args.file)
    game = games.get_game(store, args.game)
    sheet, low, warnings = read_sheet_file(path.name, path.read_bytes(), game["side"])
    source = "sheet" if path.suffix.lower() in (".json", ".txt") else "photo"
    result = games.upload_season(
        store,
        args.game,
        args.player,
        args.season,
        sheet,
        source=source,
        reading={"low_confidence_cells": low, "warnings": warnings},
        replace=args.replace,
        time_limit=args.time_limit,
    )
    score = result["score"]
    edicts = " + ".join(f"{e['card']} {e['stars']}" for e in score["edicts"])
    text = (
        f"{args.player} {args.season}: {score['total']} ({edicts} + coins {score['coins']} "
        f"− monsters {score['monster_penalty']}); legality "
        f"{result['checks']['legality']['verdict']}"
    )
    return emit(args, result, text)


def standings_text(data: dict) -> str:
    lines = []
    for season in data["seasons"]:
        mark = "" if season["complete"] else " (not every sheet in yet)"
        lines.append(f"after {season['season']}{mark}:")
        for st in season["standings"]:
            lines.append(
                f"  {st['place']}. {st['player']:<16} {st['total']:>4}  (monster stars lost "
                f"{st['monster_stars_lost']})"
            )
    if data["final"]:
        lines.append("final: " + ", ".join(f"{s['place']}. {s['player']}" for s in data["final"]))
    return "\n".join(lines) or "no season sheets yet"


@guarded
def standings(args, store) -> int:
    from api import games

    data = games.standings(store, args.game)
    return emit(args, data, standings_text(data))


@guarded
def show(args, store) -> int:
    from api import games

    game = games.get_game(store, args.game)
    text = [
        f"game {game['id']} {game['name']!r}: side {game['side']}, edicts "
        + ", ".join(f"{k} {v}" for k, v in game["edicts"].items())
    ]
    text += [
        f"  seat {p['seat']}: {p['name']:<16} sheets in: {', '.join(p['seasons']) or '-'}"
        for p in game["players"]
    ]
    return emit(args, game, "\n".join(text))


@guarded
def list_all(args, store) -> int:
    from api import games

    rows = games.list_games(store)
    return emit(
        args,
        {"games": rows},
        "\n".join(
            f"{g['id']}  side {g['side']}  {', '.join(g['players'])}  {g['name']}" for g in rows
        )
        or "no games",
    )
