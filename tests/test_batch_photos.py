"""The batch runner on real photos (synthetic phone photos through the real reader): local pool vs
Dask give the same rows, and a batch killed with SIGKILL resumes without redoing finished sheets.

Skipped only when this build has no trained reader model (``models/reader.npz``).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from api.batch import BatchOptions, journal_path, run_batch
from tests.test_batch import CARDS, comparable

PHOTOS = 5


@pytest.fixture(scope="module")
def photo_dir(tmp_path_factory) -> Path:
    from scoring.simulator import simulate
    from tests.test_games_photos import CAREFUL
    from vision.synth.photo import make_photo

    folder = tmp_path_factory.mktemp("photos")
    rec = simulate(4, "A", 5, "random")
    for k in range(PHOTOS):
        sheet = rec.final_sheets[k % 4]
        photo = make_photo(
            100 + k,
            sheet=sheet,
            megapixels=1.5,
            style="colour-symbols",
            background="light-wood",
            condition=CAREFUL,
        )
        (folder / f"p{k}.jpg").write_bytes(photo.jpeg)
    (folder / "not-a-photo.jpg").write_bytes(b"\x00" * 100)
    return folder


def test_photos_are_read_scored_and_a_bad_one_is_listed(photo_dir, tmp_path):
    summary = run_batch(
        photo_dir, tmp_path / "r.json", BatchOptions(CARDS), workers=2, progress=False
    )
    rows = {r["file"]: r for r in summary.rows}
    assert (
        rows["not-a-photo.jpg"]["status"] == "error"
        and rows["not-a-photo.jpg"]["error_code"] == "not-an-image"
    )
    assert len(rows) == PHOTOS + 1
    ok = [r for r in rows.values() if r["status"] == "ok"]
    assert ok, "careful photos must be read"  # how well is the reader's business (vision benchmark)
    assert all(
        r["place"] >= 1
        and len(r["cells"]) == 11
        and r["legality"] in ("legal", "illegal", "cannot-tell")
        for r in ok
    )
    assert all(r["error_code"] and r["error"] for r in rows.values() if r["status"] != "ok")


def test_dask_and_the_local_pool_agree_on_photos(photo_dir, tmp_path):
    distributed = pytest.importorskip("distributed")
    local = run_batch(
        photo_dir, tmp_path / "local.json", BatchOptions(CARDS), workers=2, progress=False
    )
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as c:
        remote = run_batch(
            photo_dir,
            tmp_path / "dask.json",
            BatchOptions(CARDS),
            scheduler=c.scheduler_address,
            progress=False,
        )
    assert comparable(remote.rows) == comparable(local.rows)


def test_kill_9_then_rerun_redoes_nothing_finished(photo_dir, tmp_path):
    clean = run_batch(
        photo_dir, tmp_path / "clean.json", BatchOptions(CARDS), workers=1, progress=False
    )
    out = tmp_path / "killed.json"
    journal = journal_path(out)
    cmd = [
        sys.executable,
        "-m",
        "api.cli",
        "batch",
        str(photo_dir),
        "--cards",
        ",".join(CARDS),
        "--out",
        str(out),
        "--workers",
        "1",
        "--no-progress",
    ]
    child = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    deadline = time.monotonic() + 120
    while child.poll() is None and time.monotonic() < deadline:
        if journal.exists() and journal.read_bytes().count(b"\n") >= 3:  # header + 2 sheets
            os.killpg(child.pid, signal.SIGKILL)
            break
        time.sleep(0.02)
    child.wait()
    finished = journal.read_bytes().count(b"\n") - 1
    if child.returncode == 0:
        pytest.fail("the batch finished before it could be killed; use more or bigger photos")
    assert 2 <= finished < PHOTOS + 1 and not out.exists()
    resumed = run_batch(photo_dir, out, BatchOptions(CARDS), workers=1, progress=False)
    assert (resumed.resumed, resumed.scored) == (finished, PHOTOS + 1 - finished)
    assert comparable(resumed.rows) == comparable(clean.rows)
    assert json.loads(out.read_text()) == json.loads((tmp_path / "clean.json").read_text())
