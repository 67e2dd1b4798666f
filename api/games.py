"""Game tracking: follow one table through the four seasons.

The sheet at the end of a game shows only the final map, yet each season was scored on the map as
it stood then. So a tracked game stores each player's sheet at the end of every season:

1. :func:`create_game` — players in seating order (seat 0, then clockwise), the sheet side, the four
   scoring cards under edicts A–D, and optionally the cards revealed each season.
2. :func:`upload_season` — one player's sheet (read from a photo, or corrected sheet JSON) at the
   end of one season. It is scored for that season and checked against the same player's sheet at
   the previous season's end: nothing drawn earlier may change, coins never go down, and the new
   cells must be explainable by that season's draws (``scoring.validate`` with ``previous=``, and
   ``log=`` when the revealed cards are known). A failed check rejects the upload, naming the cells.
3. :func:`standings` — after every season and at the end, ranked with the game's tie-break
   (``scoring.seasons.rank_players``: fewer stars lost to monsters, then a shared place).

Every function takes a :class:`api.store.Store`; each write is one transaction. The slow work
(reading, scoring, validating) happens before the write transaction, which then re-checks that
nothing it relied on changed meanwhile (optimistic concurrency), so concurrent uploads neither
block each other for long nor lose anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from api.store import GameRow, PlayerRow, RevealedRow, SeasonSheetRow, Store
from api.words import card_slug_any, deck_slug_any
from scoring.cards import CardError
from scoring.message import Word, from_data, msg, to_data
from scoring.seasons import SEASON_BY_NAME, SEASONS, check_setup, rank_players, score_season
from scoring.sheet import Sheet
from scoring.sides import SIDES, cell_name

SEASON_NAMES = tuple(s.name for s in SEASONS)
MAX_PLAYERS = 100  # the box says 1–100 players


class GameError(ValueError):
    """A request about a game that cannot be carried out. ``code`` is the API error code."""

    def __init__(
        self,
        code: str,
        message: str,
        cells: list[str] | None = None,
        reasons: list[dict] | None = None,
    ):
        super().__init__(message)
        self.code, self.message = code, message
        self.cells = cells or []
        self.reasons = reasons or []


@dataclass(frozen=True)
class GameSetup:
    """What an organiser enters at the start: who sits where, the side, the edict cards."""

    players: tuple[str, ...]  # seating order, clockwise
    side: str
    cards: tuple[str, ...]  # edicts A, B, C, D: slugs, or names in any language
    name: str = ""
    revealed: dict[str, list[str]] = field(default_factory=dict)  # season → cards revealed

    def __post_init__(self) -> None:
        """Checks the setup and keeps every card as its slug, however it was named."""
        names = [p.strip() for p in self.players]
        if not 1 <= len(names) <= MAX_PLAYERS or not all(names):
            raise GameError(
                "bad-game", f"a game needs 1 to {MAX_PLAYERS} players with non-empty names"
            )
        if len(set(names)) != len(names):
            raise GameError("bad-game", "two players have the same name")
        if self.side not in SIDES:
            raise GameError("bad-game", f"side must be A or B, got {self.side!r}")
        try:
            cards = tuple(card_slug_any(c) for c in self.cards)
            check_setup(list(cards))
        except (ValueError, TypeError, AttributeError) as e:
            raise GameError("bad-cards", str(e)) from None
        revealed = {season: check_revealed(season, c) for season, c in self.revealed.items()}
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "revealed", revealed)


def check_revealed(season: str, cards: list[str]) -> list[str]:
    """The slugs of the explore and ambush cards revealed in ``season``, each named by its slug
    or by its name in any language; ``GameError`` naming the bad season or card."""
    if season not in SEASON_BY_NAME:
        raise GameError(
            "bad-season", f"unknown season {season!r}; expected one of {', '.join(SEASON_NAMES)}"
        )
    if not isinstance(cards, list) or not cards:
        raise GameError(
            "bad-log", f"the cards revealed in {season} must be a non-empty list of card slugs"
        )
    slugs = []
    for card in cards:
        try:
            slugs.append(deck_slug_any(card))
        except CardError as e:
            raise GameError("bad-log", f"{season}: {e}") from None
    return slugs


# ---- reading the database ------------------------------------------------------------------------
def _game(session, game_id: str) -> GameRow:
    game = session.get(GameRow, game_id)
    if game is None:
        raise GameError("game-not-found", f"no game with id {game_id!r}")
    return game


def _player(game: GameRow, player: str) -> PlayerRow:
    for p in game.players:
        if p.name == player:
            return p
    names = ", ".join(p.name for p in game.players)
    raise GameError(
        "player-not-found", f"no player {player!r} in game {game.id} (players: {names})"
    )


def _season_index(season: str) -> int:
    if season not in SEASON_BY_NAME:
        raise GameError(
            "bad-season", f"unknown season {season!r}; expected one of {', '.join(SEASON_NAMES)}"
        )
    return SEASON_NAMES.index(season)


def _sheets(session, game_id: str) -> dict[tuple[int, int], SeasonSheetRow]:
    rows = session.scalars(select(SeasonSheetRow).where(SeasonSheetRow.game_id == game_id))
    return {(r.player_id, r.season_index): r for r in rows}


def game_json(session, game: GameRow) -> dict:
    """The game as the API shows it: setup, revealed cards and which season sheets are in."""
    sheets = _sheets(session, game.id)
    return {
        "id": game.id,
        "name": game.name,
        "side": game.side,
        "cards": list(game.cards),
        "edicts": dict(zip("ABCD", game.cards)),
        "created_at": game.created_at.isoformat(),
        "players": [
            {
                "name": p.name,
                "seat": p.seat,
                "seasons": [SEASON_NAMES[s] for s in range(4) if (p.id, s) in sheets],
            }
            for p in game.players
        ],
        "revealed": {
            r.season: list(r.cards)
            for r in sorted(game.revealed, key=lambda r: SEASON_NAMES.index(r.season))
        },
    }


def create_game(store: Store, setup: GameSetup) -> dict:
    """Store a new game; returns it as JSON (with its id)."""
    with store.transaction() as s:
        game = GameRow(name=setup.name.strip(), side=setup.side, cards=list(setup.cards))
        game.players = [PlayerRow(seat=i, name=n.strip()) for i, n in enumerate(setup.players)]
        game.revealed = [RevealedRow(season=k, cards=list(v)) for k, v in setup.revealed.items()]
        s.add(game)
        s.flush()
        return game_json(s, game)


def get_game(store: Store, game_id: str) -> dict:
    with store.transaction() as s:
        return game_json(s, _game(s, game_id))


def list_games(store: Store) -> list[dict]:
    """Every game, newest first, without the season sheets."""
    with store.transaction() as s:
        games = s.scalars(select(GameRow).order_by(GameRow.created_at.desc()))
        return [
            {
                "id": g.id,
                "name": g.name,
                "side": g.side,
                "players": [p.name for p in g.players],
                "created_at": g.created_at.isoformat(),
            }
            for g in games
        ]


def reveal_cards(store: Store, game_id: str, season: str, cards: list[str]) -> dict:
    """Record (or correct) the cards revealed in one season (slugs, or names in any language;
    kept as slugs)."""
    cards = check_revealed(season, cards)
    with store.transaction() as s:
        game = _game(s, game_id)
        row = s.get(RevealedRow, (game_id, season))
        if row is None:
            s.add(RevealedRow(game_id=game_id, season=season, cards=list(cards)))
        else:
            row.cards = list(cards)
        s.flush()
        s.refresh(game)
        return game_json(s, game)


# ---- uploads -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Problem:
    message: str
    cells: tuple[str, ...] = ()


def changes_since(previous: Sheet, sheet: Sheet, previous_season: str) -> list[Problem]:
    """What the new sheet changed that no later season
    can change: drawn cells, lost coins, the side."""
    if sheet.side != previous.side:
        return [
            Problem(
                msg(
                    "the sheet is side {side}; this game is played on side {played}",
                    side=sheet.side,
                    played=previous.side,
                )
            )
        ]
    season = (
        Word("season", previous_season) if previous_season in SEASON_BY_NAME else previous_season
    )
    problems = []
    for cell, before in previous.drawn_cells().items():
        after = sheet.terrain(cell)
        if after is not before:
            problems.append(
                Problem(
                    msg(
                        "cell {cell} was {before} at the end of {season}, now {after}: nothing "
                        "drawn earlier may change",
                        cell=cell_name(cell),
                        before=Word("terrain", before.value),
                        season=season,
                        after=Word("terrain", after.value),
                    ),
                    (cell_name(cell),),
                )
            )
    if sheet.coins < previous.coins:
        problems.append(
            Problem(
                msg(
                    "coins went down from {before} at the end of {season} to {after}: a filled "
                    "coin stays filled",
                    before=previous.coins,
                    season=season,
                    after=sheet.coins,
                )
            )
        )
    return problems


def season_log(
    players: int, side: str, revealed: dict[str, list[str]], season_index: int
) -> dict | None:
    """The card log ``scoring.validate`` takes, up to this
    season, when every season's cards are known."""
    names = SEASON_NAMES[: season_index + 1]
    if not all(n in revealed for n in names) or not 1 <= players <= 5:
        return None
    return {
        "players": players,
        "side": side,
        "seasons": [{"season": n, "cards": list(revealed[n])} for n in names],
    }


def explain_new_cells(
    sheet: Sheet, earlier: list[Sheet], log: dict | None, time_limit: float
) -> dict:
    """The validator's verdict on this season's new cells, given the sheets at the end of the
    earlier seasons (spring first) and the card log up to this season when known."""
    from scoring.validate import validate  # OR-Tools loads when a season is first checked

    try:
        return validate(sheet, log=log, previous=earlier or None, time_limit=time_limit).to_json()
    except ValueError as e:  # a card log the validator refuses
        raise GameError(
            "bad-log", f"the revealed cards do not form a valid card log: {e}"
        ) from None


def _verdict_cells(verdict: dict) -> list[str]:
    cells = []
    for reason in verdict.get("reasons", []):
        for c in reason.get("cells", []) or []:
            name = c if isinstance(c, str) else cell_name(tuple(c))
            if name not in cells:
                cells.append(name)
    return cells


@dataclass(frozen=True)
class UploadContext:
    """What an upload is checked against, read in one short transaction."""

    player_id: int
    index: int  # season 0…3
    cards: tuple[str, ...]
    earlier: tuple[
        Sheet, ...
    ]  # the player's sheets at the end of the earlier seasons, spring first
    previous: Sheet  # the last of those, or the blank sheet before spring
    previous_row: int | None  # its row id, re-checked when writing
    log: dict | None  # the card log up to this season, when known


def _season_row(session, player_id: int, index: int) -> SeasonSheetRow | None:
    return session.scalar(
        select(SeasonSheetRow).where(
            SeasonSheetRow.player_id == player_id, SeasonSheetRow.season_index == index
        )
    )


def _upload_context(
    store: Store, game_id: str, player: str, season: str, replace: bool
) -> UploadContext:
    """Step 1: the game, the player's earlier sheets
    and the card log; refuse out-of-order uploads."""
    index = _season_index(season)
    with store.transaction() as s:
        game = _game(s, game_id)
        me = _player(game, player)
        sheets = _sheets(s, game_id)
        if (me.id, index) in sheets and not replace:
            raise GameError(
                "season-conflict",
                f"{player}'s {season} sheet is already in; to correct it, send it "
                "again with replace (HTTP replace=true, CLI --replace)",
            )
        later = [SEASON_NAMES[k] for k in range(index + 1, 4) if (me.id, k) in sheets]
        if later:
            raise GameError(
                "season-conflict",
                f"{player}'s {later[0]} sheet is already in, so {season} can no longer change",
            )
        if index and (me.id, index - 1) not in sheets:
            raise GameError(
                "season-conflict",
                f"upload {player}'s {SEASON_NAMES[index - 1]} sheet before {season}",
            )
        earlier = tuple(Sheet.from_json(sheets[(me.id, k)].sheet) for k in range(index))
        revealed = {r.season: r.cards for r in game.revealed}
        return UploadContext(
            me.id,
            index,
            tuple(game.cards),
            earlier,
            earlier[-1] if earlier else Sheet.blank(game.side),
            sheets[(me.id, index - 1)].id if index else None,
            season_log(len(game.players), game.side, revealed, index),
        )


def _check_upload(ctx: UploadContext, sheet: Sheet, season: str, time_limit: float) -> dict:
    """Step 2 (slow, outside any transaction): the earlier
    season unchanged, the new cells explained."""
    problems = changes_since(
        ctx.previous, sheet, SEASON_NAMES[ctx.index - 1] if ctx.index else "the setup"
    )
    if problems:
        raise GameError(
            "sheet-rejected",
            "; ".join(p.message for p in problems),
            [c for p in problems for c in p.cells],
            [{"message": p.message, "cells": list(p.cells)} for p in problems],
        )
    verdict = explain_new_cells(sheet, list(ctx.earlier), ctx.log, time_limit)
    if verdict.get("verdict") == "illegal":
        reasons = verdict.get("reasons", [])
        raise GameError(
            "sheet-rejected",
            f"the cells new in {season} cannot come from that season: "
            + "; ".join(r.get("message", "") for r in reasons),
            _verdict_cells(verdict),
            reasons,
        )
    return verdict


def _store_upload(
    store: Store, game_id: str, ctx: UploadContext, row: SeasonSheetRow, who: str, replace: bool
) -> None:
    """Step 3: one write transaction, re-checking what step 1 read (optimistic concurrency)."""
    try:
        with store.transaction() as s:
            if (
                ctx.index
                and getattr(_season_row(s, ctx.player_id, ctx.index - 1), "id", None)
                != ctx.previous_row
            ):
                raise GameError(
                    "season-conflict",
                    f"{who}: the previous season's sheet changed meanwhile; send again",
                )
            old = _season_row(s, ctx.player_id, ctx.index)
            if old is not None:
                if not replace:
                    raise GameError("season-conflict", f"{who} is already in")
                s.delete(old)
                s.flush()
            s.add(row)
    except IntegrityError:
        raise GameError(
            "season-conflict", f"{who} arrived twice at once; the first one is kept"
        ) from None


def upload_season(
    store: Store,
    game_id: str,
    player: str,
    season: str,
    sheet: Sheet,
    *,
    source: str = "sheet",
    reading: dict | None = None,
    replace: bool = False,
    time_limit: float = 5.0,
) -> dict:
    """Check, score and store one player's sheet at the
    end of one season; ``GameError`` if refused."""
    ctx = _upload_context(store, game_id, player, season, replace)
    verdict = _check_upload(ctx, sheet, season, time_limit)
    score = score_season(sheet, ctx.cards, season)
    reading = reading or {}
    checks = {
        "legality": verdict,
        "low_confidence_cells": reading.get("low_confidence_cells", []),
        "warnings": list(sheet.warnings) + list(reading.get("warnings", [])),
        "log_known": ctx.log is not None,
    }
    row = SeasonSheetRow(
        game_id=game_id,
        player_id=ctx.player_id,
        season_index=ctx.index,
        sheet=sheet.to_json(),
        source=source,
        score=score.to_json(),
        total=score.total,
        monster_penalty=score.monster_penalty,
        checks=to_data(checks),  # the messages kept, to be said in a later asker's language
    )
    _store_upload(store, game_id, ctx, row, f"{player}'s {season} sheet", replace)
    return {
        "game": game_id,
        "player": player,
        "season": season,
        "source": source,
        "score": score.to_json(),
        "checks": checks,
        "sheet": sheet.to_json(),
    }


def season_sheet(store: Store, game_id: str, player: str, season: str) -> dict:
    """One stored season sheet with its score and checks."""
    index = _season_index(season)
    with store.transaction() as s:
        me = _player(_game(s, game_id), player)
        row = s.scalar(
            select(SeasonSheetRow).where(
                SeasonSheetRow.player_id == me.id, SeasonSheetRow.season_index == index
            )
        )
        if row is None:
            raise GameError("season-not-found", f"no {season} sheet for {player} yet")
        return {
            "game": game_id,
            "player": player,
            "season": season,
            "source": row.source,
            "sheet": row.sheet,
            "score": row.score,
            "checks": from_data(row.checks),
            "uploaded_at": row.created_at.isoformat(),
        }


# ---- standings -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class RunningTotal:
    total: int
    monster_stars_lost: int


def standings(store: Store, game_id: str) -> dict:
    """Per season: every player's score, the running
    total and the ranking; ``final`` after winter."""
    with store.transaction() as s:
        game = _game(s, game_id)
        sheets = _sheets(s, game_id)
        players = list(game.players)
    out: dict[str, Any] = {"game": game_id, "seasons": [], "final": None}
    running = {p.name: RunningTotal(0, 0) for p in players}
    present = {p.name for p in players}
    for index, name in enumerate(SEASON_NAMES):
        scores = []
        for p in players:
            row = sheets.get((p.id, index))
            if row is None:
                present.discard(p.name)
                continue
            if p.name in present:
                r = running[p.name]
                running[p.name] = RunningTotal(
                    r.total + row.total, r.monster_stars_lost + row.monster_penalty
                )
            scores.append(
                {
                    "player": p.name,
                    "seat": p.seat,
                    "season_total": row.total,
                    "monster_penalty": row.monster_penalty,
                    "edicts": [
                        {"edict": e["edict"], "card": e["card"], "stars": e["stars"]}
                        for e in row.score["edicts"]
                    ],
                    "coins": row.score["coins"],
                }
            )
        if not scores:
            break
        ranked = rank_players({n: running[n] for n in present})  # type: ignore[arg-type]
        out["seasons"].append(
            {
                "season": name,
                "complete": len(scores) == len(players),
                "scores": scores,
                "standings": [
                    {
                        "player": st.player,
                        "place": st.place,
                        "total": st.total,
                        "monster_stars_lost": st.monster_stars_lost,
                    }
                    for st in ranked
                ],
            }
        )
    last = out["seasons"][-1] if out["seasons"] else None
    if last and last["season"] == "winter" and last["complete"]:
        out["final"] = last["standings"]
    return out
