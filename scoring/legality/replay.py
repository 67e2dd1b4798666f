"""An independent check of a legal witness: replay it turn by turn with the game engine."""

from __future__ import annotations

from typing import Any

from scoring.decks import AMBUSH, EXPLORE
from scoring.engine import PlayerMap, ambush_choices, explore_choices, solo_ambush_move
from scoring.legality.card_log import CardLog, parse_log
from scoring.seasons import SEASONS
from scoring.shapes import mask_of
from scoring.sheet import Sheet
from scoring.terrain import Terrain


def replay(
    sheet: Sheet, log: dict[str, Any] | CardLog, explanation: list[dict[str, Any]]
) -> list[str]:
    """Replay a legal verdict's witness turn by turn with the game engine; returns the problems
    (none when every drawing is one the engine offers at that moment and the result is the sheet).

    This checks the validator against the engine that plays the simulated games, not against itself.
    """
    card_log = parse_log(log)
    pm = PlayerMap(sheet.side)
    by_turn = {(d["season"], d["turn"]): d for d in explanation}
    problems = []
    for s, cards in enumerate(card_log.seasons):
        pending = False
        for turn, slug in enumerate(cards):
            if slug in EXPLORE and EXPLORE[slug].is_ruins:
                pending = True
                continue
            d = by_turn.get((SEASONS[s].name, turn))
            if slug in AMBUSH:
                ch = (
                    solo_ambush_move(pm, AMBUSH[slug])
                    if card_log.players == 1
                    else ambush_choices(pm, AMBUSH[slug])
                )
            else:
                ch = explore_choices(pm, EXPLORE[slug], pending)
                pending = False
            where = f"{SEASONS[s].name} card {turn + 1} ({slug})"
            if d is None or d["kind"] == "skip":
                if ch.kind != "skip":
                    problems.append(f"{where}: no drawing, but the rules offer {ch.kind}")
                continue
            mask = mask_of(tuple(c) for c in d["cells"])
            terrain = Terrain(d["terrain"])
            entry = next((e for e in ch.entries if e[1] == mask), None)
            if entry is None or terrain not in ch.terrains:
                problems.append(
                    f"{where}: {d['kind']} {d['terrain']} on {d['cells']} is not among the "
                    f"{ch.kind} "
                    "drawings the rules allow then"
                )
                continue
            coin = (
                entry[2] and d.get("shape") == EXPLORE[slug].options[entry[0]].text
                if slug in EXPLORE and entry[0] is not None
                else False
            )
            pm.draw(mask, terrain, coin)
    if pm.to_sheet().cells != sheet.cells:
        problems.append("the replayed drawings do not give the sheet's cells")
    if pm.coins != sheet.coins:
        problems.append(
            f"the replayed drawings earn {pm.coins} coins, the sheet shows {sheet.coins}"
        )
    return problems
