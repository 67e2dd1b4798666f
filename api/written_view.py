"""The numbers a player wrote in the season boxes, in every face: the JSON fields, reading them from
a sheet file or a request body, and the plain-text table.

The JSON fields (docs/formats.md, "Written numbers"): ``seasons_written`` (four boxes in season
order, or ``null`` when nothing is written), ``final_total_written``, ``written_confidence``
(number → the reader's confidence; empty for typed-in numbers) and ``checks`` (the discrepancies
``scoring.written_checks`` finds).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from api.i18n import _
from api.messages import say
from api.words import season_name
from scoring.sheet import Sheet
from scoring.written import SEASON_NAMES, WrittenError, WrittenScores
from scoring.written_checks import WRITTEN_UNSURE_BELOW, check_written

#: The keys of a sheet JSON file or request body that hold written numbers, not the map.
WRITTEN_KEYS = ("seasons_written", "final_total_written", "written_confidence")


def parse_written(data: dict[str, Any]) -> WrittenScores:
    """The written numbers of a JSON object (missing keys: nothing written); ``WrittenError``
    names the field when they are not the documented shape."""
    written = WrittenScores.from_json(data)
    confidence = data.get("written_confidence") or {}
    if not isinstance(confidence, dict) or not all(
        isinstance(k, str)
        and isinstance(v, (int, float))
        and not isinstance(v, bool)
        and 0 <= v <= 1
        for k, v in confidence.items()
    ):
        raise WrittenError("written_confidence must map number names to confidences 0…1")
    return WrittenScores(written.seasons, written.final_total, dict(confidence))


def split_written(data: dict[str, Any]) -> tuple[dict[str, Any], WrittenScores]:
    """A sheet JSON object without its written-number keys, and those numbers."""
    sheet_part = {k: v for k, v in data.items() if k not in WRITTEN_KEYS}
    return sheet_part, parse_written(data)


def written_fields(
    written: WrittenScores | None,
    sheet: Sheet,
    cards: Sequence[str] | str | None,
    season: str | None = None,
) -> dict[str, Any]:
    """The four JSON fields for one sheet. ``cards`` ``None`` or ``"all"``: the card-free checks;
    a ``season`` before winter: the map is not the game's end, so only the arithmetic checks."""
    numbers = written or WrittenScores.blank()
    slugs = None if cards is None or isinstance(cards, str) else list(cards)
    checks = check_written(numbers, sheet, slugs, final_map=season in (None, "winter"))
    return {
        **numbers.to_json(),
        "written_confidence": dict(numbers.confidence),
        "checks": [c.to_json() for c in checks],
    }


def needs_review(fields: dict[str, Any]) -> bool:
    """A sheet for a referee's eyes: a check reported, or a written number read unsure."""
    confidence = fields.get("written_confidence") or {}
    unsure = any(v < WRITTEN_UNSURE_BELOW for v in confidence.values())
    return bool(fields.get("checks")) or unsure


def _cell(value: int | None, sign: str = "") -> str:
    return "·" if value is None else f"{sign}{value}"


def format_written(fields: dict[str, Any]) -> list[str]:
    """The written boxes as a small table and each check's message; nothing when blank."""
    checks = [_("check: {message}", message=say(c["message"])) for c in fields.get("checks", [])]
    return written_table(fields) + checks


def written_table(fields: dict[str, Any]) -> list[str]:
    """The written boxes, one line per season, and the final total; nothing when blank."""
    boxes = fields.get("seasons_written")
    lines = []
    if boxes is not None:
        heads = [_("edict"), _("edict"), _("coins"), _("monst."), _("total")]
        written = _("written")
        lines.append(f"{written:<8} " + " ".join(f"{h:>6}" for h in heads))
        for box in boxes:
            first, second = box["edicts"]
            cells = [_cell(first), _cell(second), _cell(box["coins"])]
            cells += [_cell(box["monsters"], "-"), _cell(box["total"])]
            lines.append(f"{season_name(box['season']):<8} " + " ".join(f"{c:>6}" for c in cells))
    if fields.get("final_total_written") is not None:
        final = _("final total written")
        lines.append(f"{final:<36} {fields['final_total_written']:>6}")
    return lines


def written_by_season(fields: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The written boxes by season name (empty when nothing is written)."""
    boxes = fields.get("seasons_written") or []
    return {b["season"]: b for b in boxes if b.get("season") in SEASON_NAMES}
