"""The batch's results file: rows sorted and ranked, written atomically as CSV or JSON."""

from __future__ import annotations

import csv
import io
import json
import os
from dataclasses import dataclass
from pathlib import Path

from api.batch_sheet import BatchError, BatchOptions
from scoring.seasons import rank_players
from scoring.sheet import Sheet
from scoring.written import SEASON_NAMES


def rank_rows(rows: list[dict]) -> list[dict]:
    """Rows sorted by file name, each readable sheet given its ``place`` (ties share a place)."""
    rows = sorted(rows, key=lambda r: r["file"])
    ok = {
        r["file"]: _Total(r["total"], r["monster_stars_lost"]) for r in rows if r["status"] == "ok"
    }
    places = {s.player: s.place for s in rank_players(ok)}  # type: ignore[arg-type]
    for r in rows:
        r["place"] = places.get(r["file"])
    return rows


@dataclass(frozen=True)
class _Total:
    total: int
    monster_stars_lost: int


def output_format(out: Path) -> str:
    fmt = out.suffix.lower().lstrip(".")
    if fmt not in ("csv", "json"):
        raise BatchError(f"--out must end in .csv or .json, got {out.name!r}")
    return fmt


def ranking(rows: list[dict]) -> list[dict]:
    """The readable sheets from first place down."""
    ok = [r for r in rows if r["status"] == "ok"]
    return [
        {
            "place": r["place"],
            "file": r["file"],
            "total": r["total"],
            "monster_stars_lost": r["monster_stars_lost"],
            "checked_total": r.get("checked_total"),
            "review": bool(r.get("review")),
        }
        for r in sorted(ok, key=lambda r: (r["place"], r["file"]))
    ]


def results_json(
    rows: list[dict], options: BatchOptions, skipped: list[dict] | None = None
) -> dict:
    """The JSON results: every sheet, the ranking, the sheets that could not be scored and the
    files that were not sheets."""
    clean = [{k: v for k, v in r.items() if k != "seconds"} for r in rows]
    return {
        "options": options.to_json(),
        "sheets": clean,
        "ranking": ranking(rows),
        "failed": [
            {"file": r["file"], "error_code": r["error_code"], "error": r["error"]}
            for r in rows
            if r["status"] != "ok"
        ],
        "skipped": list(skipped or []),
    }


CSV_COLUMNS = [
    "file",
    "status",
    "place",
    "total",
    "side",
    "coins",
    "edict_A",
    "edict_B",
    "edict_C",
    "edict_D",
    "spring",
    "summer",
    "fall",
    "winter",
    "monster_stars_lost",
    "legality",
    "legality_reasons",
    "low_confidence_cells",
    "cells",
    "error_code",
    "error",
    "warnings",
    # the numbers written on the sheet (docs/tournaments.md, "Written scores"), appended
    "spring_written",
    "summer_written",
    "fall_written",
    "winter_written",
    "final_total_written",
    "checked_total",
    "review",
    "checks",
]


def csv_row(r: dict) -> dict:
    """One sheet as a flat CSV row: stars per edict, total per season, cells as the text form."""
    if r["status"] != "ok":
        return {
            "file": r["file"],
            "status": r["status"],
            "error_code": r.get("error_code", ""),
            "error": r.get("error", ""),
        }
    row = {
        k: r[k]
        for k in (
            "file",
            "status",
            "place",
            "total",
            "side",
            "coins",
            "monster_stars_lost",
            "legality",
        )
    }
    for edict, slug in r["edicts"].items():
        row[f"edict_{edict}"] = f"{slug}={r['cards'][slug]}"
    for s in r["seasons"]:
        row[s["season"]] = s["total"]
    row["legality_reasons"] = " | ".join(r["legality_reasons"])
    row["low_confidence_cells"] = " ".join(r["low_confidence_cells"])
    row["cells"] = "/".join(
        Sheet.from_json({"side": r["side"], "cells": r["cells"], "coins": r["coins"]})
        .to_text()
        .replace(" ", "")
        .splitlines()[1:]
    )
    row["warnings"] = " | ".join(r["warnings"])
    row.update(written_csv(r))
    return row


def written_csv(r: dict) -> dict:
    """The written-number columns of one row: each season's written total, the shield, the
    checked total, ``yes`` for review, and the check messages (blank cells where nothing is)."""
    boxes = {b["season"]: b for b in r.get("seasons_written") or []}
    row = {f"{s}_written": boxes.get(s, {}).get("total") for s in SEASON_NAMES}
    row["final_total_written"] = r.get("final_total_written")
    row["checked_total"] = r.get("checked_total")
    row["review"] = "yes" if r.get("review") else "no"
    row["checks"] = " | ".join(c["message"] for c in r.get("checks", []))
    return row


def results_csv(rows: list[dict]) -> str:
    """The CSV results: a header, then one row per sheet sorted by file name."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=CSV_COLUMNS, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow(csv_row(r))
    return buf.getvalue()


def write_results(
    out: Path, rows: list[dict], options: BatchOptions, fmt: str, skipped: list[dict] | None = None
) -> None:
    """Write the results file atomically (a temporary file renamed over it)."""
    text = (
        results_csv(rows)
        if fmt == "csv"
        else json.dumps(results_json(rows, options, skipped), indent=1) + "\n"
    )
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, out)
