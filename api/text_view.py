"""Drawing a sheet and its score in the terminal (the readable default of ``score-map``)."""

from __future__ import annotations

import textwrap

from api.i18n import _, _n
from api.messages import say
from api.words import card_name, season_name, terrain_name
from api.written_view import written_by_season, written_table
from scoring.sheet import Sheet
from scoring.sides import SIZE
from scoring.terrain import TEXT_CHAR, Terrain

# ANSI colours per terrain character, used only when writing to a terminal.
_COLOUR = {"T": "32", "V": "31", "F": "33", "W": "34", "X": "35", "M": "90;1", "#": "90"}


def _char(sheet: Sheet, r: int, c: int) -> str:
    ch = TEXT_CHAR[sheet.cells[r][c]]
    if (r, c) in sheet.layout.ruins:
        ch = "r" if ch == "." else ch.lower()
    return ch


def draw_maps(
    sheet: Sheet, panels: list[tuple[str, set[tuple[int, int]] | None]], colour: bool
) -> str:
    """Draw the sheet once per panel, side by side. A panel is ``(title, marked cells)``; in a
    marked panel only the marked cells show their terrain, the rest is ``·``."""
    width = 2 * SIZE + 3
    lines = ["".join(f"{title[: width - 1]:<{width}}" for title, _ in panels)]
    lines.append(
        "".join("   " + " ".join(str((c + 1) % 10) for c in range(SIZE)) + " " for _ in panels)
    )
    for r in range(SIZE):
        row = []
        for _title, marked in panels:
            cells = []
            for c in range(SIZE):
                ch = _char(sheet, r, c)
                if marked is not None and (r, c) not in marked:
                    ch = "·"
                elif colour and ch.upper() in _COLOUR:
                    ch = f"\x1b[{_COLOUR[ch.upper()]}m{ch}\x1b[0m"
                cells.append(ch)
            row.append(f"{chr(65 + r)}  " + " ".join(cells) + " ")
        lines.append("".join(row))
    return "\n".join(line.rstrip() for line in lines)


def legend(sheet: Sheet, marked: bool = False) -> str:
    """The key to the map's letters (those of ``sheet``'s side), one line.

    >>> legend(Sheet.blank("A"))  # doctest: +NORMALIZE_WHITESPACE
    'key: T forest  V village  F farm  W water  X monster  M mountain  . empty  r ruins (a letter in
    lower case: drawn on ruins)'
    >>> from api.i18n import speaking
    >>> with speaking("es"):
    ...     legend(Sheet.blank("B"))[:42]
    'clave: T bosque  V aldea  F granja  W agua'
    """
    order = (
        Terrain.FOREST,
        Terrain.VILLAGE,
        Terrain.FARM,
        Terrain.WATER,
        Terrain.MONSTER,
        Terrain.MOUNTAIN,
        Terrain.WASTELAND,
        Terrain.EMPTY,
    )
    shown = [t for t in order if t is not Terrain.WASTELAND or sheet.layout.wasteland]
    key = "  ".join(f"{TEXT_CHAR[t]} {terrain_name(t)}" for t in shown)
    key += "  " + _("r ruins (a letter in lower case: drawn on ruins)")
    return _("key: {key}", key=key) + ("  " + _("· not marked") if marked else "")


def one_sheet_seasons() -> str:
    """What the four-season table of one sheet is, said under it."""
    return _(
        "Every season here is scored on this one map. If it is the finished map, only winter "
        "(edicts D and A) is exact: spring, summer and fall were scored on the map as it was at "
        "their end, so the game score needs those sheets or the game record ('cartographers game')."
    )


def format_report(sheet: Sheet, report: dict, colour: bool = False) -> str:
    """The score report as tables and maps."""
    out = []
    evidence = report["evidence"]
    coins = _n("{n} coin", "{n} coins", sheet.coins, n=sheet.coins)
    panels: list = [(_("side {side}, {coins}", side=sheet.side, coins=coins), None)]
    for slug, stars in report["cards"].items():
        panels.append(
            (f"{card_name(slug)} {stars}★", {tuple(c) for e in evidence[slug] for c in e["cells"]})
        )
    for start in range(0, len(panels), 3):  # three maps side by side fit an 80-column terminal
        out += [draw_maps(sheet, panels[start : start + 3], colour), ""]
    out += [legend(sheet, marked=len(panels) > 1), ""]
    out += _season_part(report) if "seasons" in report else _card_table(report)
    for w in report.get("warnings", []):
        out.append(_("warning: {message}", message=say(w)))
    out += [_("check: {message}", message=say(c["message"])) for c in report.get("checks", [])]
    return "\n".join(out)


def _season_part(report: dict) -> list[str]:
    """The season table, the four seasons' sum and what a table scored on one map means."""
    out = season_table(report)
    if len(report["seasons"]) > 1:
        four, written = _("four seasons on this map"), _("final total written")
        out.append(f"{four:<36} {report['total']:>5}")
        if report.get("final_total_written") is not None:
            out.append(f"{written:<36} {'':>5} {report['final_total_written']:>7}")
        out += ["", textwrap.fill(one_sheet_seasons(), width=96)]
    elif report["seasons"][0]["season"] != "winter":
        season = season_name(report["seasons"][0]["season"])
        out += [
            "",
            _(
                "{season} scored on this map: exact if this is the map at the end of that season.",
                season=season[:1].upper() + season[1:],
            ),
        ]
    return out


def _card_table(report: dict) -> list[str]:
    """Each card's stars, the coins and the monster penalty; the written boxes on their own."""
    card, stars_word, coins, penalty = _("card"), _("stars"), _("coins"), _("monster penalty")
    width = max(20, len(penalty))
    out = [f"{card:<{width}} {stars_word:>5}"]
    for slug, stars in report["cards"].items():
        out.append(f"{card_name(slug):<{width}} {stars:>5}")
    out.append(f"{coins:<{width}} {report['coins']:>5}")
    out.append(f"{penalty:<{width}} {-report['monster_penalty']:>5}")
    return out + written_table(report)


def season_table(report: dict) -> list[str]:
    """The season rows of a score report; with the numbers the player wrote beside ours when the
    report carries them (``seasons_written``; ``·`` a blank box cell)."""
    written = written_by_season(report)
    h_season, h_edict, h_card, h_stars, h_written = (
        _("season"),
        _("edict"),
        _("card"),
        _("stars"),
        _("written"),
    )
    head = f"{h_season:<8} {h_edict:<6} {h_card:<20} {h_stars:>5}"
    out = [head + (f" {h_written:>7}" if written else "")]
    for s in report["seasons"]:
        rows = [
            (
                season_name(s["season"]),
                e["edict"],
                card_name(e["card"]),
                e["stars"],
                f"edict{i + 1}",
            )
            for i, e in enumerate(s["edicts"])
        ]
        rows += [
            ("", "", _("coins"), s["coins"], "coins"),
            ("", "", _("monsters"), -s["monster_penalty"], "monsters"),
            ("", "", _("season total"), s["total"], "total"),
        ]
        box = written.get(s["season"])
        for season, edict, label, ours, part in rows:
            line = f"{season:<8} {edict:<6} {label:<20} {ours:>5}"
            if written:
                line += f" {written_cell(box, part):>7}"
            out.append(line)
    return out


def written_cell(box: dict | None, part: str) -> str:
    """One written number as the table shows it: the penalty with its minus, ``·`` when blank."""
    if box is None:
        return "·"
    value = box["edicts"][int(part[-1]) - 1] if part.startswith("edict") else box[part]
    if value is None:
        return "·"
    return f"-{value}" if part == "monsters" and value else str(value)
