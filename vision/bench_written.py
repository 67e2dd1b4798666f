"""The season-box numbers in the reader's benchmarks (:mod:`vision.bench`, ``bench_scans``).

Per photo, every writing cell's (key, true number, read number, confidence) against the
generator's truth (``truth["written"]``); per group of photos:

- ``digit_accuracy``: characters of the written numbers read right, position by position from
  the right (a missing or extra character counts wrong);
- ``numbers_exact``: written numbers read exactly (each number as a whole);
- ``empty_exact``: blank cells read blank;
- ``wrong_numbers_flagged``: cells read wrong (a number, or blank) whose confidence was under the
  flagging threshold;
- ``mistakes_readable``: planted arithmetic mistakes whose numbers (the season's five cells, or
  the four totals and the final total) were all read right — the ones a check can catch.
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring.written import PARTS, SEASON_NAMES, WrittenScores

WRITTEN_COLUMNS = (
    "digit_accuracy",
    "numbers_exact",
    "empty_exact",
    "wrong_numbers_flagged",
    "mistakes_readable",
)


def cell_values(written: WrittenScores) -> dict[str, int | None]:
    """Every writing cell's number by key ("spring.edict1" … "winter.total", "final")."""
    out = {f"{s.season}.{p}": v for s in written.seasons for p, v in s.numbers().items()}
    return out | {"final": written.final_total}


def written_rows(reading, truth: dict) -> dict:
    """The photo's cells (key, true, read, confidence, flagged) and its planted mistakes."""
    from vision.seasons import FLAG_BELOW

    if reading.written is None or "written" not in truth:
        return {}
    true = cell_values(WrittenScores.from_json(truth["written"]))
    read = cell_values(reading.written)
    conf = reading.written.confidence
    cells = [(k, true[k], read[k], conf.get(k, 0.0), conf.get(k, 0.0) < FLAG_BELOW) for k in true]
    return {"cells": cells, "mistakes": truth["written"].get("mistakes", [])}


def _involved(cell: str) -> list[str]:
    """The cells a check of a mistake in ``cell`` reads."""
    if cell == "final":
        return [f"{s}.total" for s in SEASON_NAMES] + ["final"]
    season = cell.split(".")[0]
    return [f"{season}.{p}" for p in PARTS]


def _digits_right(true: int | None, read: int | None) -> tuple[int, int]:
    """(characters of ``true`` read right, characters of ``true``), aligned from the right."""
    if true is None:
        return 0, 0
    t, r = str(true), "" if read is None else str(read)
    right = sum(a == b for a, b in zip(reversed(t), reversed(r)))
    return (right if len(t) == len(r) else min(right, len(t) - 1)), len(t)


@dataclass
class WrittenTally:
    """Counts of one group of photos' writing cells."""

    chars: int = 0
    chars_ok: int = 0
    numbers: int = 0
    numbers_ok: int = 0
    empty: int = 0
    empty_ok: int = 0
    wrong: int = 0
    wrong_flagged: int = 0
    mistakes: int = 0
    mistakes_ok: int = 0

    def add(self, rows: dict) -> None:
        """Count one photo's cells (nothing when its boxes were not read)."""
        right = {}
        for key, true, read, _, flagged in rows.get("cells", []):
            ok_chars, n_chars = _digits_right(true, read)
            self.chars += n_chars
            self.chars_ok += ok_chars
            if true is None:
                self.empty += 1
                self.empty_ok += read is None
            else:
                self.numbers += 1
                self.numbers_ok += read == true
            if read != true:
                self.wrong += 1
                self.wrong_flagged += flagged
            right[key] = read == true
        for m in rows.get("mistakes", []) if right else []:
            self.mistakes += 1
            self.mistakes_ok += all(right.get(k, False) for k in _involved(m["cell"]))

    def row(self) -> dict:
        """The figures as shares (``nan`` where a group has none of a kind)."""
        share = lambda a, b: a / b if b else float("nan")  # noqa: E731
        return {
            "digit_accuracy": share(self.chars_ok, self.chars),
            "numbers_exact": share(self.numbers_ok, self.numbers),
            "empty_exact": share(self.empty_ok, self.empty),
            "wrong_numbers_flagged": share(self.wrong_flagged, self.wrong),
            "mistakes_readable": share(self.mistakes_ok, self.mistakes),
            "written_numbers": self.numbers,
            "planted_mistakes": self.mistakes,
        }


def written_table(groups: dict[str, dict[str, dict]], order: tuple[str, ...]) -> list[str]:
    """Markdown table of the written-number figures of each group."""
    cols = list(WRITTEN_COLUMNS) + ["written_numbers", "planted_mistakes"]
    lines = ["| group | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for g in order:
        for k, row in groups.get(g, {}).items():
            cells = [str(row[c]) if isinstance(row[c], int) else f"{row[c]:.4f}" for c in cols]
            lines.append(f"| {g}: {k} | " + " | ".join(cells) + " |")
    return lines
