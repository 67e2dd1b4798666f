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
from api.i18n import DEFAULT_LANGUAGE, _, _p, current_language
from api.messages import say
from scoring.message import Joined, Word
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
    c.add_argument(
        "--cards",
        required=True,
        help="C1,C2,C3,C4: the cards under edicts A–D (slugs or names in any language)",
    )
    c.add_argument("--name", default="", help="a label, e.g. 'Round 2, table 5'")
    c.set_defaults(run=create)

    r = add("reveal", help="record the explore/ambush cards revealed in a season")
    r.add_argument("game")
    r.add_argument("season", choices=SEASONS)
    r.add_argument(
        "cards",
        help="the cards in the order revealed, comma-separated: slugs or names in any language "
        "('hamlet,Great River,Vilarejo')",
    )
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
            raise CliError(game_error_in_words(e), 3 if e.code == "sheet-rejected" else 2) from None

    return run


def game_error_in_words(e) -> str:
    """A refused action in one line: its code, what went wrong (in another language than English:
    what the code means, with the reasons said there), the cells at fault."""
    text = e.message
    if current_language() != DEFAULT_LANGUAGE:
        from api.errors import ERRORS

        meaning = _p("error", ERRORS[e.code].meaning)
        reasons = "; ".join(say(r["message"]) for r in e.reasons if r.get("message"))
        text = f"{meaning}: {reasons}" if reasons else f"{meaning} ({e.message})"
    if e.cells:
        text = _("{message} (cells: {cells})", message=text, cells=" ".join(e.cells))
    return f"{e.code}: {text}"


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
    cards = say(Joined([Word("card", slug) for slug in game["revealed"][args.season]]))
    return emit(args, game, f"{say(Word('season', args.season))}: {cards}")


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
    return emit(args, result, upload_text(args.player, args.season, result))


def upload_text(player: str, season: str, result: dict) -> str:
    """One stored season in a line: the score and how it adds up, and the legality verdict."""
    score = result["score"]
    edicts = " + ".join(f"{_card(e['card'])} {e['stars']}" for e in score["edicts"])
    return _(
        "{player} {season}: {total} ({edicts} + coins {coins} − monsters {penalty}); "
        "legality {verdict}",
        player=player,
        season=say(Word("season", season)),
        total=score["total"],
        edicts=edicts,
        coins=score["coins"],
        penalty=score["monster_penalty"],
        verdict=_p("verdict", result["checks"]["legality"]["verdict"]),
    )


def _card(slug: str) -> str:
    """A card as these lines name it: the slug in English, the printed name in a translation
    (scoring, explore and ambush cards alike)."""
    return say(Word("card", slug))


def standings_text(data: dict) -> str:
    """The standings after each season and the final ranking, in the language in force."""
    lines = []
    for season in data["seasons"]:
        name = say(Word("season", season["season"]))
        if season["complete"]:
            lines.append(_("after {season}:", season=name))
        else:
            lines.append(_("after {season} (not every sheet in yet):", season=name))
        for st in season["standings"]:
            lost = _("(monster stars lost {n})", n=st["monster_stars_lost"])
            lines.append(f"  {st['place']}. {st['player']:<16} {st['total']:>4}  {lost}")
    if data["final"]:
        ranking = ", ".join(f"{s['place']}. {s['player']}" for s in data["final"])
        lines.append(_("final: {ranking}", ranking=ranking))
    return "\n".join(lines) or _("no season sheets yet")


@guarded
def standings(args, store) -> int:
    from api import games

    data = games.standings(store, args.game)
    return emit(args, data, standings_text(data))


@guarded
def show(args, store) -> int:
    from api import games

    game = games.get_game(store, args.game)
    return emit(args, game, game_text(game))


def game_text(game: dict) -> str:
    """A game's setup and, for each seat, the season sheets in so far."""
    edicts = ", ".join(f"{k} {_card(v)}" for k, v in game["edicts"].items())
    text = [
        _(
            "game {id} {name}: side {side}, edicts {edicts}",
            id=game["id"],
            name=repr(game["name"]),
            side=game["side"],
            edicts=edicts,
        )
    ]
    for p in game["players"]:
        seasons = ", ".join(say(Word("season", s)) for s in p["seasons"]) or "-"
        sheets = _("sheets in: {seasons}", seasons=seasons)
        text.append("  " + _("seat {seat}:", seat=p["seat"]) + f" {p['name']:<16} {sheets}")
    return "\n".join(text)


@guarded
def list_all(args, store) -> int:
    from api import games

    rows = games.list_games(store)
    return emit(
        args,
        {"games": rows},
        "\n".join(
            f"{g['id']}  " + _("side {side}", side=g["side"]) + f"  {', '.join(g['players'])}  "
            f"{g['name']}"
            for g in rows
        )
        or _("no games"),
    )
