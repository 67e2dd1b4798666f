"""Batch scoring (api/batch.py): results, bad inputs, resume after a crash, CSV/JSON, Dask path.

The sheets are corrected-sheet JSON files made here from random legal layouts, so these tests need
no photo reader; tests/test_batch_photos.py runs the same runner on synthetic photos.
"""

from __future__ import annotations

import csv
import json
import os
import random
import zipfile
from pathlib import Path

import pytest

from api.batch import (
    BatchError,
    BatchOptions,
    journal_path,
    list_inputs,
    read_journal,
    run_batch,
    score_file,
)
from api.cli import main
from scoring.report import score_report
from scoring.seasons import rank_players
from scoring.sheet import Sheet
from scoring.terrain import Terrain

CARDS = ("sentinel-wood", "canal-lake", "wildholds", "borderlands")
DRAWN = [Terrain.FOREST, Terrain.VILLAGE, Terrain.FARM, Terrain.WATER, Terrain.MONSTER]


def random_sheet(seed: int, side: str = "A") -> Sheet:
    rng = random.Random(seed)
    blank = Sheet.blank(side)
    fill = rng.uniform(0.2, 0.8)
    cells = {
        cell: rng.choice(DRAWN)
        for cell, t in blank.items()
        if t is Terrain.EMPTY and rng.random() < fill
    }
    return blank.with_cells(cells, coins=rng.randint(0, 6))


@pytest.fixture
def sheets_dir(tmp_path: Path) -> Path:
    d = tmp_path / "sheets"
    d.mkdir()
    for k in range(10):
        (d / f"table{k:02d}.json").write_text(json.dumps(random_sheet(k, "AB"[k % 2]).to_json()))
    (d / "sub").mkdir()
    (d / "sub" / "late.txt").write_text(random_sheet(99).to_text())
    (d / "broken.json").write_text('{"side": "A", "cells": [["forest"]]}')
    (d / "holiday.jpg").write_bytes(b"this is not a picture")
    (d / ".hidden.json").write_text("{}")
    return d


def options(**kw) -> BatchOptions:
    return BatchOptions(CARDS, **kw)


def comparable(rows: list[dict]) -> list[dict]:
    """Rows without the per-sheet timing, which differs from run to run."""
    return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]


def test_inputs_are_every_visible_file_sorted(sheets_dir: Path):
    names = [i.name for i in list_inputs(sheets_dir)]
    assert names == sorted(names)
    assert ".hidden.json" not in names and "sub/late.txt" in names and "holiday.jpg" in names
    assert len(names) == 13


@pytest.mark.parametrize("season", [None, "spring", "winter"])
def test_rows_match_the_score_report(sheets_dir: Path, season):
    name = "table03.json"
    row = score_file(name, (sheets_dir / name).read_bytes(), options(season=season))
    report = score_report(random_sheet(3, "B"), list(CARDS), season)
    assert row["status"] == "ok"
    assert row["total"] == report["total"]
    assert row["cards"] == report["cards"]
    assert [s["total"] for s in row["seasons"]] == [s["total"] for s in report["seasons"]]
    assert row["monster_stars_lost"] == sum(s["monster_penalty"] for s in report["seasons"])
    assert row["cells"] == random_sheet(3, "B").to_json()["cells"]


@pytest.mark.parametrize(
    "name, data, code",
    [
        ("broken.json", b'{"side": "A", "cells": [["forest"]]}', "bad-sheet"),
        ("torn.json", b'{"side": "A", "cel', "bad-sheet"),
        ("mountain.txt", random_sheet(1).to_text().replace("M", "F", 1).encode(), "bad-sheet"),
    ],
)
def test_bad_sheets_become_error_rows(name, data, code):
    row = score_file(name, data, options())
    assert row["status"] == "error" and row["error_code"] == code and row["error"]


def test_wrong_side_is_an_error_row():
    row = score_file(
        "b.json", json.dumps(random_sheet(2, "B").to_json()).encode(), options(side="A")
    )
    assert (row["status"], row["error_code"]) == ("error", "wrong-side")


def test_batch_lists_failures_and_ranks_the_rest(sheets_dir: Path, tmp_path: Path):
    out = tmp_path / "results.json"
    summary = run_batch(sheets_dir, out, options(), workers=2, progress=False)
    data = json.loads(out.read_text())
    assert summary.total == 13 and summary.scored == 13 and summary.failed == 2
    assert {f["file"] for f in data["failed"]} == {"broken.json", "holiday.jpg"}
    ok = [s for s in data["sheets"] if s["status"] == "ok"]
    expected = rank_players({s["file"]: _G(s["total"], s["monster_stars_lost"]) for s in ok})
    assert [(r["file"], r["place"]) for r in data["ranking"]] == [
        (s.player, s.place) for s in expected
    ]
    assert [s["file"] for s in data["sheets"]] == sorted(s["file"] for s in data["sheets"])


class _G:
    def __init__(self, total, lost):
        self.total, self.monster_stars_lost = total, lost


def test_csv_has_one_row_per_sheet_with_the_breakdown(sheets_dir: Path, tmp_path: Path):
    out = tmp_path / "results.csv"
    run_batch(sheets_dir, out, options(), workers=1, progress=False)
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 13
    row = next(r for r in rows if r["file"] == "table04.json")
    report = score_report(random_sheet(4), list(CARDS))
    assert int(row["total"]) == report["total"]
    assert row["edict_B"] == f"canal-lake={report['cards']['canal-lake']}"
    assert [int(row[s]) for s in ("spring", "summer", "fall", "winter")] == [
        s["total"] for s in report["seasons"]
    ]
    text = "\n".join(" ".join(line) for line in row["cells"].split("/"))
    assert Sheet.from_text(f"side A coins {row['coins']}\n{text}") == random_sheet(4)
    assert next(r for r in rows if r["file"] == "holiday.jpg")["status"] == "error"


def test_zip_input_gives_the_same_rows_as_the_folder(sheets_dir: Path, tmp_path: Path):
    archive = tmp_path / "round1.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for p in sheets_dir.rglob("*"):
            if p.is_file():
                z.write(p, p.relative_to(sheets_dir))
    a = run_batch(sheets_dir, tmp_path / "a.json", options(), workers=2, progress=False)
    b = run_batch(archive, tmp_path / "b.json", options(), workers=2, progress=False)
    assert comparable(a.rows) == comparable(b.rows)


def test_a_crashed_batch_resumes_without_redoing_finished_sheets(sheets_dir: Path, tmp_path: Path):
    clean = run_batch(sheets_dir, tmp_path / "clean.json", options(), workers=2, progress=False)
    out = tmp_path / "crashed.json"

    def crash_after_five(row, done, total):
        if done == 5:
            raise KeyboardInterrupt  # the batch dies here, as under kill -9

    with pytest.raises(KeyboardInterrupt):
        run_batch(sheets_dir, out, options(), workers=2, progress=False, on_row=crash_after_five)
    assert not out.exists()
    with journal_path(out).open("ab") as f:
        f.write(b'{"file": "table09.json", "sha256": "ab')  # a line torn by the crash
    resumed = run_batch(sheets_dir, out, options(), workers=2, progress=False)
    assert (resumed.resumed, resumed.scored) == (5, 8)
    assert comparable(resumed.rows) == comparable(clean.rows)
    assert json.loads(out.read_text()) == json.loads((tmp_path / "clean.json").read_text())
    again = run_batch(sheets_dir, out, options(), workers=2, progress=False)
    assert (again.resumed, again.scored) == (13, 0)


def test_a_changed_file_is_scored_again(sheets_dir: Path, tmp_path: Path):
    out = tmp_path / "r.json"
    run_batch(sheets_dir, out, options(), workers=1, progress=False)
    (sheets_dir / "table00.json").write_text(json.dumps(random_sheet(1234).to_json()))
    again = run_batch(sheets_dir, out, options(), workers=1, progress=False)
    assert again.scored == 1
    row = next(r for r in again.rows if r["file"] == "table00.json")
    assert row["total"] == score_report(random_sheet(1234), list(CARDS))["total"]


def test_a_journal_made_with_other_cards_is_refused(sheets_dir: Path, tmp_path: Path):
    out = tmp_path / "r.csv"
    run_batch(sheets_dir, out, options(), workers=1, progress=False)
    other = BatchOptions(("greenbough", "canal-lake", "wildholds", "borderlands"))
    with pytest.raises(BatchError, match="other options"):
        read_journal(journal_path(out), other)
    fresh = run_batch(sheets_dir, out, other, workers=1, progress=False, fresh=True)
    assert fresh.scored == 13


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--cards", "sentinel-wood,canal-lake", "--out", "r.csv"], "expected 4 scoring cards"),
        (["--cards", ",".join(CARDS), "--out", "r.txt"], "must end in .csv or .json"),
        (["--cards", ",".join(CARDS), "--out", "r.csv", "--workers", "0"], "at least 1"),
        (["--cards", "all", "--out", "r.csv"], "not 'all'"),
    ],
)
def test_cli_bad_arguments_give_one_line(sheets_dir: Path, tmp_path: Path, capsys, argv, message):
    argv = [a if a not in ("r.csv", "r.txt") else str(tmp_path / a) for a in argv]
    assert main(["batch", str(sheets_dir), *argv]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


def test_cli_missing_source(tmp_path: Path, capsys):
    assert (
        main(
            [
                "batch",
                str(tmp_path / "nope"),
                "--cards",
                ",".join(CARDS),
                "--out",
                str(tmp_path / "r.csv"),
            ]
        )
        == 2
    )
    assert "does not exist" in capsys.readouterr().err


def test_cli_writes_results_and_lists_failures(sheets_dir: Path, tmp_path: Path, capsys):
    out = tmp_path / "r.json"
    assert (
        main(
            [
                "batch",
                str(sheets_dir),
                "--cards",
                ",".join(CARDS),
                "--out",
                str(out),
                "--no-progress",
                "--json",
            ]
        )
        == 0
    )
    captured = capsys.readouterr()
    assert json.loads(captured.out.strip().splitlines()[-1])["failed"] == 2
    assert "holiday.jpg" in captured.err and "broken.json" in captured.err
    assert len(json.loads(out.read_text())["sheets"]) == 13


def test_dask_cluster_gives_the_local_pool_results(sheets_dir: Path, tmp_path: Path):
    distributed = pytest.importorskip("distributed")
    local = run_batch(sheets_dir, tmp_path / "local.json", options(), workers=2, progress=False)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        remote = run_batch(
            sheets_dir,
            tmp_path / "dask.json",
            options(),
            scheduler=cluster.scheduler_address,
            progress=False,
        )
    assert remote.scored == 13
    assert comparable(remote.rows) == comparable(local.rows)
    assert json.loads((tmp_path / "dask.json").read_text()) == json.loads(
        (tmp_path / "local.json").read_text()
    )


def _dies_on_one_sheet(name, data, options):
    """A worker that is killed while reading one particular
    sheet (as by the out-of-memory killer)."""
    if name == "table05.json":
        os._exit(9)
    return score_file(name, data, options)


def test_a_dead_worker_stops_the_batch_and_a_rerun_resumes(sheets_dir: Path, tmp_path: Path):
    clean = run_batch(sheets_dir, tmp_path / "clean.json", options(), workers=1, progress=False)
    out = tmp_path / "r.json"
    with pytest.raises(BatchError, match="rerun the same command"):
        run_batch(sheets_dir, out, options(), workers=1, progress=False, score=_dies_on_one_sheet)
    finished = len(read_journal(journal_path(out), options()))
    resumed = run_batch(sheets_dir, out, options(), workers=1, progress=False)
    assert resumed.resumed == finished and resumed.scored == 13 - finished
    assert comparable(resumed.rows) == comparable(clean.rows)
