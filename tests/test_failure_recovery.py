"""Failure: the service is killed (SIGKILL) while season sheets are being uploaded, then restarted.

A real ``uvicorn`` on 127.0.0.1 with a SQLite database (WAL mode, one transaction per upload,
``api/store.py``). A simulated 5-player game (``scoring.simulator``) is uploaded season by season
from three client threads; the server is killed three times mid-stream and restarted on the same
file. After each kill the database must pass SQLite's integrity check, hold every upload the
service acknowledged (201) exactly as acknowledged, and hold no partial record; a request whose
body was cut off halfway must leave nothing. At the end the rest is uploaded and the standings
must be the simulator's own.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from scoring.simulator import simulate

ROOT = Path(__file__).resolve().parents[1]
SEASONS = ("spring", "summer", "fall", "winter")
PLAYERS, THREADS, KILLS = 5, 3, 3
ACKS_BEFORE_KILL = 4  # uploads acknowledged in a round before the kill


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``uvicorn api.service:create_app`` on 127.0.0.1, started and SIGKILLed on demand."""

    def __init__(self, db: Path, work: Path):
        self.db, self.work, self.port, self.proc = db, work, free_port(), None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        env = {
            **os.environ,
            "CARTOGRAPHERS_DATABASE_URL": f"sqlite:///{self.db}",
            "CARTOGRAPHERS_BATCH_DIR": str(self.work / "batch"),
            "CARTOGRAPHERS_VALIDATE_TIME_LIMIT": "2",
        }
        cmd = [
            sys.executable,
            "-m",
            "uvicorn",
            "--factory",
            "api.service:create_app",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--log-level",
            "warning",
        ]
        self.proc = subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, "the server exited while starting"
            try:
                if httpx.get(f"{self.base}/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
        raise AssertionError("the server did not answer /health within 60 s")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=30)


@pytest.fixture
def server(tmp_path):
    srv = Server(tmp_path / "games.sqlite3", tmp_path)
    yield srv
    srv.kill()


@pytest.fixture(scope="module")
def game_record():
    return simulate(PLAYERS, "B", seed=11)


def upload(base: str, game: str, player: int, season: int, sheet_json: dict) -> httpx.Response:
    return httpx.post(
        f"{base}/v1/games/{game}/players/P{player + 1}/seasons/{SEASONS[season]}",
        data={"sheet": json.dumps(sheet_json)},
        timeout=60,
    )


def upload_round(srv: Server, game: str, rec, acked: dict, stop_after: int | None) -> None:
    """Threads upload what is not yet in, season by season;
    the server is killed after ``stop_after`` acks."""
    lock, enough = threading.Lock(), threading.Event()
    new_acks = [0]

    def worker(k: int) -> None:
        for season in range(4):
            for player in range(k, PLAYERS, THREADS):
                if enough.is_set():
                    return
                if (player, season) in acked:
                    continue
                sheet = rec.season_sheets[player][season].to_json()
                try:
                    r = upload(srv.base, game, player, season, sheet)
                except httpx.HTTPError:
                    return  # the server is gone
                if r.status_code == 409 and "already in" in r.json()["message"]:
                    r = httpx.get(
                        f"{srv.base}/v1/games/{game}"
                        f"/players/P{player + 1}/seasons/{SEASONS[season]}"
                    )
                    assert (
                        r.status_code == 200 and r.json()["sheet"] == sheet
                    )  # landed before the kill, unacknowledged
                elif r.status_code == 409:  # the previous season (another thread's) is not in yet
                    continue
                assert r.status_code in (200, 201), r.text
                with lock:
                    acked[(player, season)] = r.json()["score"]
                    new_acks[0] += 1
                    if stop_after is not None and new_acks[0] >= stop_after:
                        enough.set()
                        srv.kill()  # SIGKILL while the other threads' uploads are in flight

    for _ in range(8):  # bounded: a round ends when everything is in or the server was killed
        threads = [threading.Thread(target=worker, args=(k,)) for k in range(THREADS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        if enough.is_set() or len(acked) == PLAYERS * 4:
            return


def half_sent_upload(srv: Server, game: str, player: int, season: int, sheet_json: dict) -> None:
    """A multipart upload whose connection drops halfway through the body."""
    boundary = "halfway"
    body = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="sheet"\r\n\r\n'
        f"{json.dumps(sheet_json)}\r\n"
        f"--{boundary}--\r\n"
    ).encode()
    head = (
        f"POST /v1/games/{game}/players/P{player + 1}/seasons/{SEASONS[season]} HTTP/1.1\r\n"
        f"Host: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary={boundary}\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", srv.port), timeout=10) as s:
        s.sendall(head + body[: len(body) // 2])
        time.sleep(0.3)


def check_database(db: Path, rec, acked: dict) -> None:
    """Integrity check passes; every stored row is whole;
    every acknowledged upload is there as acknowledged."""
    con = sqlite3.connect(db)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        rows = con.execute(
            "SELECT p.seat, s.season_index, s.sheet, s.score, s.total, s.monster_penalty, s.checks "
            "FROM season_sheets s JOIN players p ON p.id = s.player_id"
        ).fetchall()
    finally:
        con.close()
    stored = {}
    for seat, season, sheet, score, total, penalty, checks in rows:
        score = json.loads(score)
        assert json.loads(sheet) == rec.season_sheets[seat][season].to_json(), (seat, season)
        assert (score["total"], score["monster_penalty"]) == (total, penalty)
        assert total == rec.season_scores[seat][season].total and "legality" in json.loads(checks)
        if season > 0:
            assert (seat, season - 1) in {(r[0], r[1]) for r in rows}, (
                "a season stored without the one before"
            )
        stored[(seat, season)] = score
    missing = [k for k in acked if k not in stored]
    assert not missing, f"acknowledged uploads lost: {missing}"
    assert all(stored[k] == acked[k] for k in acked), "an acknowledged upload changed"


def test_killed_during_uploads_loses_nothing_and_leaves_no_partial_record(server, game_record):
    rec = game_record
    server.start()
    r = httpx.post(
        f"{server.base}/v1/games",
        json={
            "players": [f"P{p + 1}" for p in range(PLAYERS)],
            "side": rec.side,
            "cards": rec.cards,
            "revealed": {s["season"]: s["cards"] for s in rec.card_log["seasons"]},
        },
    )
    assert r.status_code == 201, r.text
    game = r.json()["id"]
    acked: dict = {}
    for kill in range(KILLS):
        if kill:
            server.start()
        before = len(acked)
        upload_round(server, game, rec, acked, stop_after=ACKS_BEFORE_KILL)
        server.kill()
        assert len(acked) > before, "no upload acknowledged in this round"
        check_database(server.db, rec, acked)
    server.start()

    def stored(player: int, season: int) -> bool:
        r = httpx.get(
            f"{server.base}/v1/games/{game}/players/P{player + 1}/seasons/{SEASONS[season]}"
        )
        assert r.status_code in (200, 404), r.text
        return r.status_code == 200

    # an upload can land just before a kill without its answer reaching the client: not
    # acknowledged, yet stored, so the half-sent upload must go to a season that is really not
    # stored yet
    pending = next(
        (
            k
            for k in ((p, s) for s in range(4) for p in range(PLAYERS))
            if k not in acked and not stored(*k)
        ),
        None,
    )
    if pending is not None:
        half_sent_upload(
            server, game, *pending, rec.season_sheets[pending[0]][pending[1]].to_json()
        )
        assert not stored(*pending), "a half-sent upload left a record"
    upload_round(server, game, rec, acked, stop_after=None)
    assert len(acked) == PLAYERS * 4
    final = httpx.get(f"{server.base}/v1/games/{game}/standings").json()["final"]
    expected = {
        f"P{p + 1}": sum(rec.season_scores[p][s].total for s in range(4)) for p in range(PLAYERS)
    }
    assert {st["player"]: st["total"] for st in final} == expected
    server.kill()
    check_database(server.db, rec, acked)
