"""The table's card log: what a judge at the table
knows, parsed and checked, and the turns that draw."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scoring.decks import AMBUSH, EXPLORE, AmbushCard, get_deck_card
from scoring.seasons import SEASONS
from scoring.sides import SIDES


@dataclass(frozen=True)
class CardLog:
    """What a judge at the table knows: the number of players, and the cards revealed each season
    in order (explore and ambush slugs). The last season may be unfinished; earlier ones are not."""

    players: int
    seasons: tuple[tuple[str, ...], ...]
    side: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "players": self.players,
            "seasons": [
                {"season": SEASONS[s].name, "cards": list(c)} for s, c in enumerate(self.seasons)
            ],
        }
        if self.side:
            out["side"] = self.side
        return out


def parse_log(data: Any) -> CardLog:
    """Parse and check a card log (a decoded JSON object); ``ValueError`` naming the field.

    ``{"players": 3, "side": "A", "seasons": [{"season": "spring", "cards": ["hamlet", ...]},
    ...]}``; a season may also be given as a bare list of slugs. Checked: known slugs, at most
    four seasons in order, no explore card twice in a season, no ambush twice in a game nor more
    ambushes by a season's end than seasons so far, each season ending when its time is reached (the
    last may be unfinished), and a ruins card followed by an explore card.
    """
    if isinstance(data, CardLog):
        return data
    if not isinstance(data, dict):
        raise ValueError("log: a card log must be a JSON object with 'players' and 'seasons'")
    if "players" not in data:
        raise ValueError("log.players: missing (1 to 5)")
    players = data["players"]
    if isinstance(players, bool) or not isinstance(players, int) or not 1 <= players <= 5:
        raise ValueError(f"log.players: must be a whole number from 1 to 5, got {players!r}")
    side = data.get("side")
    if side is not None and (not isinstance(side, str) or side not in SIDES):
        raise ValueError(f"log.side: must be 'A' or 'B', got {side!r}")
    if "seasons" not in data:
        raise ValueError("log.seasons: missing (a list of up to four seasons of revealed cards)")
    seasons = data["seasons"]
    if not isinstance(seasons, list) or not 1 <= len(seasons) <= 4:
        got = f"{len(seasons)} seasons" if isinstance(seasons, list) else type(seasons).__name__
        raise ValueError(f"log.seasons: must be a list of 1 to 4 seasons, got {got}")
    ambushes_seen: set[str] = set()
    for s, entry in enumerate(seasons):
        _check_season(s, entry, s == len(seasons) - 1, ambushes_seen)
    # other fields (a game record's own notes) are ignored
    return CardLog(players, tuple(_as_tuples(seasons)), side)


def _season_cards(s: int, entry: Any) -> tuple[str, list[Any]]:
    """Where season ``s`` is in the log (for messages) and its list of cards."""
    where = f"log.seasons[{s}]"
    if isinstance(entry, dict):
        name = entry.get("season", SEASONS[s].name)
        if name != SEASONS[s].name:
            raise ValueError(
                f"{where}.season: expected {SEASONS[s].name!r} (seasons in order), got {name!r}"
            )
        if "cards" not in entry:
            raise ValueError(f"{where}.cards: missing")
        cards = entry["cards"]
        where += ".cards"
    else:
        cards = entry
    if not isinstance(cards, list):
        raise ValueError(f"{where}: must be a list of card slugs, got {type(cards).__name__}")
    return where, cards


def _check_season(s: int, entry: Any, last: bool, ambushes_seen: set[str]) -> None:
    """Season ``s`` of the log: its cards, the time they add up to, and the ambushes so far
    (``ambushes_seen``, updated). ``last``: no season follows, so it may be unfinished."""
    where, cards = _season_cards(s, entry)
    spec = SEASONS[s]
    total = 0
    seen: set[str] = set()
    ruins_waiting = False
    for k, slug in enumerate(cards):
        at = f"{where}[{k}]"
        if not isinstance(slug, str):
            raise ValueError(f"{at}: must be a card slug, got {slug!r}")
        try:
            card = get_deck_card(slug)
        except ValueError as e:
            raise ValueError(f"{at}: {e}") from None
        if total >= spec.time:
            raise ValueError(
                f"{at}: {spec.name} already ended (time {total} ≥ {spec.time}) before {slug!r}"
            )
        if slug in seen:
            raise ValueError(f"{at}: {slug!r} revealed twice in {spec.name}")
        seen.add(slug)
        if isinstance(card, AmbushCard):
            if slug in ambushes_seen:
                raise ValueError(
                    f"{at}: ambush {slug!r} revealed twice (an ambush leaves the game)"
                )
            ambushes_seen.add(slug)
            if len(ambushes_seen) > s + 1:
                raise ValueError(
                    f"{at}: {len(ambushes_seen)} ambushes revealed by {spec.name}, but only "
                    f"{s + 1} can be in the deck by then"
                )
            continue
        if card.is_ruins:
            ruins_waiting = True
            continue
        ruins_waiting = False
        total += card.time
    if not last and total < spec.time:
        raise ValueError(
            f"{where}: {spec.name} ends at time {total}, below its threshold {spec.time}, "
            "but a later season follows"
        )
    if ruins_waiting and total >= spec.time:
        raise ValueError(f"{where}: ends on a ruins card with no explore card after it")


def _as_tuples(seasons: list[Any]) -> list[tuple[str, ...]]:
    return [tuple(e["cards"] if isinstance(e, dict) else e) for e in seasons]


@dataclass(frozen=True)
class Event:
    """One revealed card that makes a drawing on the sheet (ruins cards make none)."""

    index: int
    season: int
    turn: int
    card: str
    ruins: bool = False  # an explore card drawn under a ruins card

    @property
    def label(self) -> str:
        after = ", after ruins" if self.ruins else ""
        return f"{SEASONS[self.season].name} card {self.turn + 1} ({self.card}{after})"


def log_events(log: CardLog) -> list[Event]:
    """The revealed cards that draw, in the order they
    came (``Event.index`` is the place in this list)."""
    events: list[Event] = []
    for s, cards in enumerate(log.seasons):
        pending = False
        for turn, slug in enumerate(cards):
            if slug in AMBUSH:
                events.append(Event(len(events), s, turn, slug))
            elif EXPLORE[slug].is_ruins:
                pending = True
            else:
                events.append(Event(len(events), s, turn, slug, pending))
                pending = False
    return events
