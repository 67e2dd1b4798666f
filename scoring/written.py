"""The numbers a player wrote in the four season boxes and the final-total shield.

A season box has five writing cells: the stars of the season's two edicts, the coins, the monster
penalty and the season total (docs/rules.md, "Seasons"). A blank cell is ``None``; the monster
penalty is a number >= 0 whether or not the player wrote a minus sign.

>>> w = WrittenScores.from_json({"seasons_written": [
...     {"season": "spring", "edicts": [7, 4], "coins": 3, "monsters": 2, "total": 12}],
...     "final_total_written": None})
>>> w.seasons[0].total, w.seasons[1].total, w.final_total
(12, None, None)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SEASON_NAMES = ("spring", "summer", "fall", "winter")
PARTS = ("edict1", "edict2", "coins", "monsters", "total")  # a box's five cells, reading order


class WrittenError(ValueError):
    """Written season numbers that are not the documented JSON shape."""


@dataclass(frozen=True)
class WrittenSeason:
    """One season box as written; each number ``None`` where the cell is blank."""

    season: str
    edicts: tuple[int | None, int | None] = (None, None)
    coins: int | None = None
    monsters: int | None = None  # the penalty, >= 0
    total: int | None = None

    def numbers(self) -> dict[str, int | None]:
        """The five cells by part name (``PARTS``)."""
        return {
            "edict1": self.edicts[0],
            "edict2": self.edicts[1],
            "coins": self.coins,
            "monsters": self.monsters,
            "total": self.total,
        }

    def is_blank(self) -> bool:
        return all(v is None for v in self.numbers().values())

    def to_json(self) -> dict[str, Any]:
        return {
            "season": self.season,
            "edicts": list(self.edicts),
            "coins": self.coins,
            "monsters": self.monsters,
            "total": self.total,
        }


@dataclass(frozen=True)
class WrittenScores:
    """All four season boxes (season order) and the final total, as written.

    ``confidence`` maps ``"spring.edict1"`` … ``"winter.total"`` and ``"final"`` to the reader's
    confidence in that number (blank counts as a reading); empty when the numbers were typed in.
    """

    seasons: tuple[WrittenSeason, ...]
    final_total: int | None = None
    confidence: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if tuple(s.season for s in self.seasons) != SEASON_NAMES:
            raise WrittenError("seasons_written must list spring, summer, fall, winter in order")

    @classmethod
    def blank(cls) -> WrittenScores:
        return cls(tuple(WrittenSeason(name) for name in SEASON_NAMES))

    def is_blank(self) -> bool:
        """True when no box and not the shield holds a number."""
        return self.final_total is None and all(s.is_blank() for s in self.seasons)

    def to_json(self) -> dict[str, Any]:
        """``seasons_written`` (``None`` when nothing is written) and ``final_total_written``."""
        return {
            "seasons_written": None if self.is_blank() else [s.to_json() for s in self.seasons],
            "final_total_written": self.final_total,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> WrittenScores:
        """Parse the two JSON fields; a missing or ``null`` list is four blank boxes."""
        raw = data.get("seasons_written")
        final = _number(data.get("final_total_written"), "final_total_written")
        if raw is None:
            return cls(cls.blank().seasons, final)
        if not isinstance(raw, list) or len(raw) > 4:
            raise WrittenError("seasons_written must be a list of at most four season boxes")
        given = {}
        for i, item in enumerate(raw):
            if not isinstance(item, dict):
                raise WrittenError(f"seasons_written[{i}] must be an object")
            name = item.get("season", SEASON_NAMES[i])
            if name not in SEASON_NAMES or name in given:
                raise WrittenError(f"seasons_written[{i}]: unknown or repeated season {name!r}")
            edicts = item.get("edicts", [None, None])
            if not isinstance(edicts, list) or len(edicts) != 2:
                raise WrittenError(f"{name}: edicts must be a list of two numbers or nulls")
            given[name] = WrittenSeason(
                name,
                (_number(edicts[0], f"{name} edict"), _number(edicts[1], f"{name} edict")),
                _number(item.get("coins"), f"{name} coins"),
                _penalty(item.get("monsters"), name),
                _number(item.get("total"), f"{name} total", signed=True),
            )
        seasons = tuple(given.get(n, WrittenSeason(n)) for n in SEASON_NAMES)
        return cls(seasons, final)


def _number(value: Any, what: str, signed: bool = False) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise WrittenError(f"{what} must be a whole number or null, not {value!r}")
    if not signed and value < 0:
        raise WrittenError(f"{what} must not be negative, got {value}")
    if abs(value) > 999:
        raise WrittenError(f"{what} must have at most three digits, got {value}")
    return value


def _penalty(value: Any, season: str) -> int | None:
    """A monster penalty written with or without its minus sign is the same penalty."""
    number = _number(value, f"{season} monsters", signed=True)
    return None if number is None else abs(number)
