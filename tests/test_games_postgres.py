"""Game tracking on PostgreSQL: the multi-instance configuration, on a private server started here.

The machine image ships PostgreSQL 15; the fixture runs its own throw-away cluster in a temporary
folder (Unix socket only, no TCP), as the ``postgres`` user. Skipped when the server binaries or
the driver are missing.
"""

from __future__ import annotations

import concurrent.futures as cf
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile

import pytest

from api import games
from api.store import Store
from tests.test_games import record

pytest.importorskip("psycopg")
PG_BIN = sorted(glob.glob("/usr/lib/postgresql/*/bin"))


def _as_postgres(*cmd: str) -> None:
    prefix = [] if os.geteuid() != 0 else ["runuser", "-u", "postgres", "--"]
    subprocess.run(prefix + list(cmd), check=True, capture_output=True, timeout=60)


@pytest.fixture(scope="module")
def pg_url():
    if not PG_BIN or (os.geteuid() == 0 and not shutil.which("runuser")):
        pytest.skip("PostgreSQL server binaries not installed")
    try:
        owner = pwd.getpwnam("postgres")
    except KeyError:
        pytest.skip("no postgres user")
    bin_dir = PG_BIN[-1]
    folder = tempfile.mkdtemp(prefix="cartographers-pg-")
    if os.geteuid() == 0:
        os.chown(folder, owner.pw_uid, owner.pw_gid)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # only names the socket file; no TCP listener is opened
    data = os.path.join(folder, "data")
    _as_postgres(f"{bin_dir}/initdb", "-D", data, "-A", "trust", "-U", "postgres", "--no-sync")
    _as_postgres(
        f"{bin_dir}/pg_ctl",
        "-D",
        data,
        "-l",
        os.path.join(folder, "log"),
        "-w",
        "-o",
        f"-k {folder} -p {port} -c listen_addresses='' -c fsync=off",
        "start",
    )
    try:
        yield f"postgresql+psycopg://postgres@/postgres?host={folder}&port={port}"
    finally:
        _as_postgres(f"{bin_dir}/pg_ctl", "-D", data, "-m", "immediate", "stop")
        shutil.rmtree(folder, ignore_errors=True)


def test_a_simulated_game_on_postgres_survives_a_reconnect(pg_url):
    rec = record(4, "B", 3)
    store = Store(pg_url)
    game = games.create_game(
        store, games.GameSetup(("P1", "P2", "P3", "P4"), "B", tuple(rec.cards))
    )["id"]
    for s, season in enumerate(games.SEASON_NAMES):
        for p in range(4):
            games.upload_season(
                store, game, f"P{p + 1}", season, rec.season_sheets[p][s], time_limit=2.0
            )
    store.close()
    again = Store(pg_url)  # another service instance, or the same one restarted
    final = games.standings(again, game)["final"]
    assert [(s["player"], s["place"], s["total"]) for s in final] == [
        (s.player, s.place, s.total) for s in rec.ranking
    ]
    again.close()


def test_twenty_concurrent_uploads_on_postgres_lose_nothing(pg_url):
    seeds = [7, 8, 9, 10, 11]
    stores = [Store(pg_url), Store(pg_url)]  # two instances, one database
    ids = [
        games.create_game(
            stores[0],
            games.GameSetup(("P1", "P2", "P3", "P4"), "A", tuple(record(4, "A", seed).cards)),
        )["id"]
        for seed in seeds
    ]
    jobs = [
        (k % 2, game, p, seed)
        for k, (game, seed, p) in enumerate((g, s, p) for g, s in zip(ids, seeds) for p in range(4))
    ]

    def upload(job):
        which, game, p, seed = job
        games.upload_season(
            stores[which],
            game,
            f"P{p + 1}",
            "spring",
            record(4, "A", seed).season_sheets[p][0],
            time_limit=2.0,
        )

    with cf.ThreadPoolExecutor(20) as pool:
        list(pool.map(upload, jobs))
    for game, seed in zip(ids, seeds):
        spring = games.standings(stores[1], game)["seasons"][0]
        assert spring["complete"]
        assert {s["player"]: s["season_total"] for s in spring["scores"]} == {
            f"P{p + 1}": record(4, "A", seed).season_scores[p][0].total for p in range(4)
        }
    for s in stores:
        s.close()
