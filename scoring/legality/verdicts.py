"""What the legality validator answers: a ``Check`` per level, combined into one ``Verdict``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

LEVELS = ("sheet", "log", "seasons")
STATUSES = ("legal", "illegal", "cannot-tell")


@dataclass(frozen=True)
class Reason:
    message: str
    cells: list[tuple[int, int]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"message": self.message, "cells": [list(c) for c in self.cells]}


@dataclass
class Check:
    """The answer of one level."""

    level: str
    status: str
    reasons: list[Reason] = field(default_factory=list)
    seconds: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "verdict": self.status,
            "reasons": [r.to_json() for r in self.reasons],
            "seconds": round(self.seconds, 4),
            **self.details,
        }


@dataclass
class Verdict:
    """The overall answer: illegal if any level says
    so, else cannot-tell if any level cannot tell."""

    status: str
    level: str
    reasons: list[Reason]
    checks: list[Check]

    @property
    def legal(self) -> bool:
        return self.status == "legal"

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": self.status,
            "level": self.level,
            "reasons": [r.to_json() for r in self.reasons],
            "checks": [c.to_json() for c in self.checks],
        }


def combine(checks: list[Check]) -> Verdict:
    """The verdict of the levels run, lowest first (a stricter level's legal witness settles a
    lower level that ran out of time: it is marked ``implied_by``)."""
    # a legal witness at a stricter level is a legal
    # game, so it settles a level that ran out of time
    for k, c in enumerate(checks):
        if c.status == "cannot-tell":
            stronger = next((d for d in checks[k + 1 :] if d.status == "legal"), None)
            if stronger is not None:
                c.status = "legal"
                c.reasons = []
                c.details["implied_by"] = stronger.level
    statuses = [c.status for c in checks]
    status = (
        "illegal"
        if "illegal" in statuses
        else "cannot-tell"
        if "cannot-tell" in statuses
        else "legal"
    )
    reasons = (
        [r for c in checks if c.status == status for r in c.reasons] if status != "legal" else []
    )
    return Verdict(status, checks[-1].level, reasons, checks)
