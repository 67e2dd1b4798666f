"""Drawing a sheet and its score in the terminal (the readable default of ``score-map``)."""

from __future__ import annotations

from scoring.sheet import Sheet
from scoring.sides import SIZE
from scoring.terrain import TEXT_CHAR

# ANSI colours per terrain character, used only when writing to a terminal.
_COLOUR = {"T": "32", "V": "31", "F": "33", "W": "34", "X": "35", "M": "90;1", "#": "90"}


def _char(sheet: Sheet, r: int, c: int) -> str:
    ch = TEXT_CHAR[sheet.cells[r][c]]
    if (r, c) in sheet.layout.ruins:
        ch = "r" if ch == "." else ch.lower()
    return ch


def draw_maps(sheet: Sheet, panels: list[tuple[str, set[tuple[int, int]] | None]], colour: bool) -> str:
    """Draw the sheet once per panel, side by side. A panel is ``(title, marked cells)``; in a
    marked panel only the marked cells show their terrain, the rest is ``·``."""
    width = 2 * SIZE + 3
    lines = ["".join(f"{title[:width - 1]:<{width}}" for title, _ in panels)]
    lines.append("".join("   " + " ".join(str((c + 1) % 10) for c in range(SIZE)) + " " for _ in panels))
    for r in range(SIZE):
        row = []
        for _, marked in panels:
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


def format_report(sheet: Sheet, report: dict, colour: bool = False) -> str:
    """The score report as tables and maps."""
    out = []
    evidence = report["evidence"]
    panels: list = [(f"side {sheet.side}, {sheet.coins} coins", None)]
    for slug, stars in report["cards"].items():
        panels.append((f"{slug} {stars}★", {tuple(c) for e in evidence[slug] for c in e["cells"]}))
    for start in range(0, len(panels), 3):  # three maps side by side fit an 80-column terminal
        out += [draw_maps(sheet, panels[start:start + 3], colour), ""]
    if "seasons" in report:
        out.append(f"{'season':<8} {'edict':<6} {'card':<20} {'stars':>5}")
        for s in report["seasons"]:
            for e in s["edicts"]:
                out.append(f"{s['season']:<8} {e['edict']:<6} {e['card']:<20} {e['stars']:>5}")
            out.append(f"{'':<8} {'':<6} {'coins':<20} {s['coins']:>5}")
            out.append(f"{'':<8} {'':<6} {'monsters':<20} {-s['monster_penalty']:>5}")
            out.append(f"{'':<8} {'':<6} {'season total':<20} {s['total']:>5}")
        out.append(f"{'total':<36} {report['total']:>5}")
    else:
        out.append(f"{'card':<20} {'stars':>5}")
        for slug, stars in report["cards"].items():
            out.append(f"{slug:<20} {stars:>5}")
        out.append(f"{'coins':<20} {report['coins']:>5}")
        out.append(f"{'monster penalty':<20} {-report['monster_penalty']:>5}")
    for w in report.get("warnings", []):
        out.append(f"warning: {w}")
    return "\n".join(out)
