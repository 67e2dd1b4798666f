"""Bad and hostile inputs, one parametrised row each: what the HTTP service and the CLI answer.

This is the table in ``docs/hardening.md``. Every row sends a real request (FastAPI TestClient on
the real app, with the real reader and validator) or runs the real CLI, and checks the status, the
stable error code, the field at fault and a few words of the message. After every HTTP row the
service must still answer ``/health``.
"""

from __future__ import annotations

import io
import json
import re
import struct
import sys
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from api.batch import MAX_FILE_BYTES
from api.cli import main as cli_main
from api.service import create_app
from api.settings import MB, Settings
from api.store import sqlite_url
from scoring.sheet import Sheet
from scoring.sides import SIDES
from scoring.terrain import Terrain

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
PHOTO_A = (SAMPLES / "typical-a.jpg").read_bytes()
PHOTO_B = (SAMPLES / "b-photocopy-noisy.jpg").read_bytes()
SHEET_A = json.loads((SAMPLES / "typical-a.json").read_text())
FOUR = ["sentinel-wood", "canal-lake", "wildholds", "borderlands"]  # one card of each back
UPLOAD_LIMIT = 3 * MB
BATCH_LIMIT = 4


# ---- hostile files, made here (nothing of the kind is stored in the repo) --------------------
def png_bomb(width: int = 20_000, height: int = 20_000) -> bytes:
    """A valid 1-bit PNG of ``width × height`` black pixels: ~50 kB on disk, 1.2 GB once decoded."""
    row = b"\x00" * (1 + (width + 7) // 8)  # filter byte + packed bits
    squeeze = zlib.compressobj(9)
    body = b"".join(squeeze.compress(row) for _ in range(height)) + squeeze.flush()

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", body) + chunk(b"IEND", b"")
    )


def panorama(width: int = 12_500, height: int = 8_000) -> bytes:
    """A real 100-megapixel JPEG (one flat grey, so the file stays small)."""
    ok, data = cv2.imencode(
        ".jpg", np.full((height, width), 128, np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 50]
    )
    assert ok
    return data.tobytes()


def noise_photo() -> bytes:
    """A 2-megapixel JPEG of random colours: a photo with no sheet in it."""
    pixels = np.random.default_rng(7).integers(0, 256, (1200, 1600, 3), np.uint8)
    return cv2.imencode(".jpg", pixels)[1].tobytes()


def heic_header() -> bytes:
    """The first bytes of a HEIC file (ISO box ``ftyp`` with brand ``heic``)."""
    return b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + b"\x00" * 2000


def blank_sheet_photo() -> bytes:
    """A synthetic phone photo of an untouched side-A sheet."""
    from vision.synth import make_photo

    return make_photo(3, sheet=Sheet.blank("A")).jpeg


def zip_of(entries: list[tuple[str, bytes]]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            z.writestr(name, data)
    return buf.getvalue()


SHEET_BYTES = json.dumps(SHEET_A).encode()
TRAVERSAL_NAMES = [
    "../../escaped.json",
    "/etc/cartographers-escaped.json",
    "..\\..\\win-escaped.json",
]


def bad_cell_sheet() -> dict:
    sheet = json.loads(json.dumps(SHEET_A))
    sheet["cells"][2][4] = "lava"
    return sheet


# ---- the HTTP table ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Row:
    """One bad input: how to send it and what must come back."""

    name: str
    send: Callable[[TestClient], object]  # → httpx.Response
    status: int
    code: str | None = None  # the error code (None: a success answer)
    field: str | None = None
    says: str = ""  # words the message must contain (case-insensitive)


def photo(data: bytes, filename: str = "photo.jpg", content_type: str = "image/jpeg", **form: str):
    """A sender for ``POST /v1/score`` with this file and form fields."""
    fields = {"cards": ",".join(FOUR), **form}
    return lambda c: c.post(
        "/v1/score", files={"photo": (filename, data, content_type)}, data=fields
    )


def score_map(body: object, content_type: str = "application/json"):
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return lambda c: c.post("/v1/score-map", content=raw, headers={"content-type": content_type})


def batch(data: bytes, **form: str):
    fields = {"cards": ",".join(FOUR), **form}
    return lambda c: c.post(
        "/v1/batch", files={"photos": ("sheets.zip", data, "application/zip")}, data=fields
    )


def new_game(**body: object):
    setup = {"players": ["Ana", "Ben"], "side": "A", "cards": FOUR, **body}
    return lambda c: c.post("/v1/games", json=setup)


HTTP_ROWS = [
    Row("empty upload", photo(b""), 400, "empty-file", "photo", "empty"),
    Row(
        "random bytes",
        photo(np.random.default_rng(1).bytes(50_000)),
        415,
        "not-an-image",
        "photo",
        "not an image",
    ),
    Row(
        "truncated JPEG (first half)",
        photo(PHOTO_A[: len(PHOTO_A) // 2]),
        415,
        "not-an-image",
        "photo",
        "damaged",
    ),
    Row(
        "truncated JPEG (header only)",
        photo(PHOTO_A[:600]),
        415,
        "not-an-image",
        "photo",
        "not an image",
    ),
    Row(
        "PNG bomb, 20000 × 20000 px in ~50 kB",
        photo(png_bomb(), "bomb.png", "image/png"),
        413,
        "too-many-pixels",
        "photo",
        "400,000,000 pixels",
    ),
    Row(
        "100 MP panorama",
        photo(panorama(), "pano.jpg"),
        413,
        "too-many-pixels",
        "photo",
        "100,000,000 pixels",
    ),
    Row(
        "over-size upload",
        photo(b"\xff\xd8\xff" + b"\x00" * (UPLOAD_LIMIT + 1)),
        413,
        "too-large",
        None,
        "the limit is 3,000,000 bytes",
    ),
    Row(
        "PDF sent as a photo",
        photo(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n" + b"0" * 4000, "scan.pdf", "application/pdf"),
        415,
        "not-an-image",
        "photo",
        "not an image",
    ),
    Row(
        "text file sent as a photo",
        photo(b"hello " * 100, "notes.txt", "text/plain"),
        415,
        "not-an-image",
        "photo",
    ),
    Row(
        "HEIC without the optional extra",
        photo(heic_header(), "IMG_0001.HEIC", "image/heic"),
        415,
        "heic-unsupported",
        "photo",
        "cartographers[heic]",
    ),
    Row("photo with no sheet", photo(noise_photo()), 422, "no-grid", "photo", "no map grid found"),
    Row(
        "sheet of the other side than requested",
        photo(PHOTO_B, side="A"),
        422,
        "wrong-side",
        "photo",
        "side B",
    ),
    Row(
        "malformed sheet JSON (unknown terrain)",
        score_map({"sheet": bad_cell_sheet(), "cards": FOUR}),
        422,
        "bad-sheet",
        "sheet.cells[2][4]",
        "'lava'",
    ),
    Row(
        "sheet JSON with rows missing",
        score_map({"sheet": {**SHEET_A, "cells": SHEET_A["cells"][:5]}, "cards": FOUR}),
        422,
        "bad-sheet",
        "sheet.cells",
        "11 rows",
    ),
    Row(
        "sheet JSON without its side",
        score_map({"sheet": {"cells": SHEET_A["cells"], "coins": 0}, "cards": FOUR}),
        422,
        "invalid-request",
        "sheet.side",
        "required",
    ),
    Row(
        "body that is not JSON",
        score_map(b'{"sheet": {"side": "A", '),
        400,
        "bad-json",
        None,
        "not valid JSON",
    ),
    Row(
        "JSON body sent as text/plain",
        score_map({"sheet": SHEET_A, "cards": FOUR}, "text/plain"),
        415,
        "unsupported-media-type",
        None,
        "not text/plain",
    ),
    Row(
        "JSON body sent as a form",
        lambda c: c.post("/v1/games", data={"players": "Ana", "side": "A"}),
        415,
        "unsupported-media-type",
        None,
        "application/x-www-form-urlencoded",
    ),
    Row(
        "unknown card slug",
        score_map(
            {
                "sheet": SHEET_A,
                "cards": ["sentinel-wood", "dragons-lair", "wildholds", "borderlands"],
            }
        ),
        422,
        "bad-cards",
        "cards",
        "unknown scoring card 'dragons-lair'",
    ),
    Row(
        "repeated card slug",
        score_map({"sheet": SHEET_A, "cards": ["canal-lake"] * 4}),
        422,
        "bad-cards",
        "cards",
        "repeated: canal-lake",
    ),
    Row(
        "three cards",
        score_map({"sheet": SHEET_A, "cards": FOUR[:3]}),
        422,
        "bad-cards",
        "cards",
        "expected 4 scoring cards",
    ),
    Row(
        "unicode card field",
        photo(PHOTO_A, cards="ünïcødé💥,🗺️,∅,\u202e"),
        422,
        "bad-cards",
        "cards",
        "unknown scoring card",
    ),
    Row(
        "1.5 MB form field",
        photo(PHOTO_A[:1000], cards="a" * 1_500_000),
        422,
        "invalid-request",
        None,
        "maximum size",
    ),
    Row(
        "unicode side field",
        photo(PHOTO_A, side="Ａ"),
        422,
        "invalid-request",
        "side",
        "side must be one of A, B",
    ),
    Row(
        "game name of 100,000 characters",
        new_game(name="x" * 100_000),
        422,
        "invalid-request",
        "name",
        "200",
    ),
    Row(
        "player name of 5,000 characters",
        new_game(players=["Ä" * 5000, "Ben"]),
        422,
        "invalid-request",
        "players.0",
        "100",
    ),
    Row(
        "two players of one name",
        new_game(players=["Ana", "Ana"]),
        422,
        "bad-game",
        None,
        "same name",
    ),
    Row(
        "batch zip that is damaged",
        batch(b"PK\x03\x04" + b"\x00" * 200),
        422,
        "bad-batch",
        "photos",
        "zip",
    ),
    Row(
        f"batch of more than {BATCH_LIMIT} files",
        batch(zip_of([(f"s{i}.json", SHEET_BYTES) for i in range(6)])),
        422,
        "bad-batch",
        "photos",
        f"the limit is {BATCH_LIMIT}",
    ),
    Row(
        "unknown route",
        lambda c: c.get("/v1/nothing-here"),
        404,
        "not-found",
        None,
        "no such route",
    ),
    Row(
        "wrong method",
        lambda c: c.delete("/v1/score"),
        405,
        "method-not-allowed",
        None,
        "not allowed",
    ),
]


@pytest.fixture(scope="module")
def client(tmp_path_factory) -> TestClient:
    """The real app with a 3 MB upload limit, a 4-file
    batch limit and its own database and batch folder."""
    work = tmp_path_factory.mktemp("hostile")
    app = create_app(
        Settings(
            max_upload_bytes=UPLOAD_LIMIT, max_batch_files=BATCH_LIMIT, validate_time_limit=1.0
        )
    )
    app.state.game_database_url = sqlite_url(work / "games.sqlite3")
    app.state.batch_config = (work / "batch", 1)
    with TestClient(app) as c:  # the lifespan opens the database, and closes it at the end
        yield c


@pytest.fixture
def no_heic_extra(monkeypatch):
    """The optional HEIC plugin made unimportable, whether or not this machine has it."""
    monkeypatch.setitem(sys.modules, "pillow_heif", None)


@pytest.mark.parametrize("row", HTTP_ROWS, ids=[r.name for r in HTTP_ROWS])
def test_bad_input_gets_a_clear_error_and_the_service_stays_up(client, row, no_heic_extra):
    r = row.send(client)
    body = r.json()
    assert r.status_code == row.status, body
    if row.code is not None:
        assert set(body) <= {"code", "message", "field"} and body["code"] == row.code, body
        assert body.get("field") == row.field, body
        assert row.says.lower() in body["message"].lower(), body
        assert "\n" not in body["message"] and "Traceback" not in body["message"]
    assert client.get("/health").json()["status"] == "ok"


# ---- rows that succeed, with what the answer must say --------------------------------------------
def test_blank_sheet_reads_as_an_empty_map_and_any_doubt_is_flagged(client):
    r = photo(blank_sheet_photo(), "blank.jpg", "application/octet-stream")(client)
    assert r.status_code == 200, r.json()
    body = r.json()
    printed = {Terrain.MOUNTAIN.value, Terrain.WASTELAND.value}
    layout = SIDES["A"]
    drawn = [
        (row, col)
        for row, cells in enumerate(body["reading"]["cells"])
        for col, t in enumerate(cells)
        if t not in printed | {"empty"} and (row, col) not in layout.mountains
    ]
    assert len(drawn) <= 2, f"cells read as drawn on a blank sheet: {drawn}"
    warnings = body["reading"]["warnings"]
    coins = body["reading"]["coins"]
    assert coins == 0 or any("coin count" in w for w in warnings), (coins, warnings)
    assert body["legality"]["verdict"] in ("legal", "cannot-tell") or warnings, (
        body["legality"],
        warnings,
    )


def test_photo_content_type_is_never_trusted_the_bytes_decide(client):
    """A real photo declared as text/plain is read; a PDF declared as image/jpeg is refused."""
    pdf_as_jpeg = photo(b"%PDF-1.7\n" + b"0" * 4000, "photo.jpg", "image/jpeg")(client)
    assert (pdf_as_jpeg.status_code, pdf_as_jpeg.json()["code"]) == (415, "not-an-image")
    jpeg_as_text = photo(PHOTO_B, "photo.txt", "text/plain")(client)
    assert jpeg_as_text.status_code == 200 and jpeg_as_text.json()["reading"]["side"] == "B"


def test_cards_breaking_one_per_back_score_with_a_warning(client):
    two_forest = ["sentinel-wood", "treetower", "wildholds", "borderlands"]
    r = score_map({"sheet": SHEET_A, "cards": two_forest})(client)
    assert r.status_code == 200
    assert any("one card of each kind" in w for w in r.json()["warnings"]), r.json()["warnings"]


def test_unicode_player_names_are_stored_exactly(client):
    names = ["Zoë", "李雷", "🦊 fox", "O'Brien; DROP TABLE games;--"]
    r = new_game(players=names, name="Tischrunde ⅠⅡ")(client)
    assert r.status_code == 201, r.json()
    got = client.get(f"/v1/games/{r.json()['id']}").json()
    assert [p["name"] for p in got["players"]] == names and got["name"] == "Tischrunde ⅠⅡ"


def wait_for_job(client: TestClient, job_id: str, limit_s: float = 120.0) -> dict:
    """Poll a batch job until it is done or failed (bounded)."""
    import time

    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        body = client.get(f"/v1/batch/{job_id}").json()
        if body["status"] in ("done", "failed"):
            return body
        time.sleep(0.3)
    raise AssertionError(f"batch job {job_id} not finished after {limit_s:.0f} s: {body}")


def test_zip_with_path_traversal_names_writes_nothing_outside_its_job(client):
    batch_root = client.app.state.batch_config[0]
    r = batch(
        zip_of([(n, SHEET_BYTES) for n in TRAVERSAL_NAMES] + [("round1/good.json", SHEET_BYTES)])
    )(client)
    assert r.status_code == 202, r.json()
    job = wait_for_job(client, r.json()["id"])
    rows = {s["file"]: s for s in job["results"]["sheets"]}
    assert set(rows) == {*TRAVERSAL_NAMES, "round1/good.json"}, rows
    assert rows["round1/good.json"]["status"] == "ok"
    for name in TRAVERSAL_NAMES:  # listed, refused by name, never extracted
        assert rows[name]["status"] == "error" and "outside the batch" in rows[name]["error"], rows[
            name
        ]
    job_folder = batch_root / r.json()["id"]
    outside = [p for p in batch_root.parent.rglob("*escaped*")] + [
        Path("/etc/cartographers-escaped.json")
    ]
    assert not any(p.exists() for p in outside), outside
    assert {p.name for p in job_folder.iterdir()} <= {
        "job.json",
        "inputs.zip",
        "results.json",
        "results.json.journal.jsonl",
    }


def test_zip_bomb_member_is_refused_by_its_size_and_the_rest_is_scored(client):
    bomb = b"\x00" * (MAX_FILE_BYTES + 1)  # deflates ~1000:1
    data = zip_of([("bomb.json", bomb), ("good.json", SHEET_BYTES)])
    assert len(data) < MAX_FILE_BYTES // 500
    r = batch(data)(client)
    assert r.status_code == 202, r.json()
    job = wait_for_job(client, r.json()["id"])
    rows = {s["file"]: s for s in job["results"]["sheets"]}
    assert rows["good.json"]["status"] == "ok"
    assert rows["bomb.json"]["status"] == "error" and "limit" in rows["bomb.json"]["error"], rows[
        "bomb.json"
    ]


# ---- the command line: exit status ≠ 0 and exactly one line on stderr ----------------------------
CLI_ROWS = [
    ("empty file", "read", b"", "photo.jpg", "empty"),
    ("random bytes", "read", np.random.default_rng(1).bytes(50_000), "photo.jpg", "not an image"),
    ("truncated JPEG", "read", PHOTO_A[: len(PHOTO_A) // 2], "photo.jpg", "damaged"),
    ("PNG bomb", "read", png_bomb(), "bomb.png", "too many pixels"),
    ("PDF", "read", b"%PDF-1.7\n" + b"0" * 4000, "scan.pdf", "not an image"),
    ("photo with no sheet", "read", noise_photo(), "noise.jpg", "no map grid found"),
    ("HEIC without the extra", "read", heic_header(), "IMG_0001.HEIC", "cartographers[heic]"),
    (
        "malformed sheet JSON",
        "score-map",
        json.dumps(bad_cell_sheet()).encode(),
        "sheet.json",
        "'lava'",
    ),
    (
        "sheet file that is not JSON",
        "score-map",
        b'{"side": "A", "cells": [',
        "sheet.json",
        "not valid JSON",
    ),
    ("binary sheet file", "score-map", np.random.default_rng(2).bytes(5000), "sheet.txt", "sheet"),
]


@pytest.mark.parametrize(
    "name, command, data, filename, says", CLI_ROWS, ids=[r[0] for r in CLI_ROWS]
)
def test_cli_bad_input_exits_nonzero_with_one_line(
    tmp_path, capsys, no_heic_extra, name, command, data, filename, says
):
    path = tmp_path / filename
    path.write_bytes(data)
    argv = [command, str(path)] + (["--cards", ",".join(FOUR)] if command == "score-map" else [])
    status = cli_main(argv)
    err = capsys.readouterr().err
    assert status != 0
    assert len(err.strip().splitlines()) == 1, err
    assert says.lower() in err.lower() and "internal error" not in err, err


def test_cli_unknown_card_exits_nonzero_with_one_line(tmp_path, capsys):
    path = tmp_path / "sheet.json"
    path.write_text(json.dumps(SHEET_A))
    status = cli_main(
        ["score-map", str(path), "--cards", "sentinel-wood,dragons-lair,wildholds,borderlands"]
    )
    err = capsys.readouterr().err
    assert status != 0 and len(err.strip().splitlines()) == 1 and "dragons-lair" in err, err


def test_batch_uploads_are_stored_under_names_of_our_making(client):
    """Several files with hostile names: stored as sanitised names inside the job folder only."""
    batch_root = client.app.state.batch_config[0]
    names = ["../../up.json", "/etc/abs.json", "..", "ünï cødé.json"]
    files = [("photos", (n, SHEET_BYTES, "application/json")) for n in names]
    r = client.post("/v1/batch", files=files, data={"cards": ",".join(FOUR)})
    assert r.status_code == 202, r.json()
    job = wait_for_job(client, r.json()["id"])
    assert job["status"] == "done" and job["done"] == len(names), job
    stored = sorted(p.name for p in (batch_root / r.json()["id"] / "inputs").iterdir())
    assert len(stored) == len(names)
    assert all(re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9._-]*", n) and ".." not in n for n in stored), (
        stored
    )
    assert not any(
        p.exists()
        for p in (batch_root.parent / "up.json", batch_root / "up.json", Path("/etc/abs.json"))
    )


def test_page_is_served_with_a_content_security_policy_and_no_cors_by_default(client):
    page = client.get("/", headers={"Origin": "https://elsewhere.example"})
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert "access-control-allow-origin" not in page.headers
