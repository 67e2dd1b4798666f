"""Batch over HTTP: POST /v1/batch → job id; GET
/v1/batch/{id} → progress and results (JSON, CSV)."""

from __future__ import annotations

import csv
import io
import json
import time
import zipfile
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.batch import BatchOptions, run_batch
from api.service import create_app
from tests.test_batch import CARDS, random_sheet


@pytest.fixture
def client(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("CARTOGRAPHERS_DATABASE_URL", f"sqlite:///{tmp_path / 'g.sqlite3'}")
    monkeypatch.setenv("CARTOGRAPHERS_BATCH_DIR", str(tmp_path / "jobs"))
    with TestClient(create_app()) as c:
        yield c


def sheet_files(n: int) -> list[tuple[str, bytes]]:
    files = [
        (f"table{k:02d}.json", json.dumps(random_sheet(k).to_json()).encode()) for k in range(n)
    ]
    return files + [("cat.jpg", b"meow")]


def wait_done(client: TestClient, job: str, fmt: str = "json", timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r = client.get(f"/v1/batch/{job}")
        assert r.status_code == 200
        if r.json()["status"] in ("done", "failed"):
            return client.get(f"/v1/batch/{job}?format={fmt}")
        time.sleep(0.1)
    raise AssertionError("batch job did not finish")


def expected_results(tmp_path: Path, files: list[tuple[str, bytes]]) -> dict:
    """The same sheets through the command-line runner."""
    folder = tmp_path / "same"
    folder.mkdir()
    for name, data in files:
        (folder / name).write_bytes(data)
    run_batch(folder, tmp_path / "same.json", BatchOptions(CARDS), workers=1, progress=False)
    return json.loads((tmp_path / "same.json").read_text())


def test_several_files_give_the_command_line_results(client, tmp_path):
    files = sheet_files(6)
    r = client.post(
        "/v1/batch", files=[("photos", (n, d)) for n, d in files], data={"cards": ",".join(CARDS)}
    )
    assert r.status_code == 202
    job = r.json()["id"]
    done = wait_done(client, job).json()
    assert (done["status"], done["total"], done["done"], done["failed"]) == ("done", 7, 7, 1)
    expected = expected_results(tmp_path, files)
    assert done["results"]["ranking"] == expected["ranking"]
    assert done["results"]["failed"] == expected["failed"]


def test_a_zip_and_csv_results(client, tmp_path):
    files = sheet_files(4)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in files:
            z.writestr(f"round1/{name}", data)
    r = client.post(
        "/v1/batch",
        files={"photos": ("round1.zip", buf.getvalue(), "application/zip")},
        data={"cards": ",".join(CARDS), "season": "fall"},
    )
    assert r.status_code == 202
    text = wait_done(client, r.json()["id"], "csv").text
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [row["file"] for row in rows] == sorted(f"round1/{n}" for n, _ in files)
    ok = [row for row in rows if row["status"] == "ok"]
    assert len(ok) == 4 and all(row["fall"] and not row["spring"] for row in ok)


@pytest.mark.parametrize(
    "form, files, code",
    [
        ({"cards": "sentinel-wood,canal-lake"}, [("a.json", b"{}")], "bad-cards"),
        ({"cards": ",".join(CARDS), "season": "autumn"}, [("a.json", b"{}")], "bad-season"),
        ({"cards": ",".join(CARDS)}, [("a.json", b"")], "bad-batch"),
        ({"cards": ",".join(CARDS)}, [("a.zip", b"PK\x03\x04zz"), ("b.json", b"{}")], "bad-batch"),
    ],
)
def test_bad_batch_requests(client, form, files, code):
    r = client.post("/v1/batch", files=[("photos", f) for f in files], data=form)
    assert r.status_code == 422 and r.json()["code"] == code


def test_unknown_job(client):
    r = client.get("/v1/batch/0123456789ab")
    assert r.status_code == 404 and r.json()["code"] == "job-not-found"
    assert client.get("/v1/batch/..%2F..%2Fetc").status_code == 404


def test_a_job_interrupted_by_a_restart_resumes_without_redoing_sheets(tmp_path, monkeypatch):
    monkeypatch.setenv("CARTOGRAPHERS_BATCH_DIR", str(tmp_path / "jobs"))
    files = sheet_files(6)
    with TestClient(create_app()) as first:
        job = first.post(
            "/v1/batch", files=[("photos", f) for f in files], data={"cards": ",".join(CARDS)}
        ).json()["id"]
        before = wait_done(first, job).json()["results"]
    folder = tmp_path / "jobs" / job
    (folder / "results.json").unlink()  # as if the service stopped after three sheets
    journal = folder / "results.json.journal.jsonl"
    journal.write_bytes(b"".join(journal.read_bytes().splitlines(keepends=True)[:4]))
    with TestClient(create_app()) as second:
        assert second.get(f"/v1/batch/{job}").json()["done"] <= 7
        after = wait_done(second, job).json()
    assert after["results"] == before
    assert (
        len(journal.read_bytes().splitlines()) == 1 + 7
    )  # the header, three kept, four scored again
