"""Game tracking (api/games.py, api/store.py, /v1/games, `cartographers game`).

Simulated games (scoring.simulator) are tracked season by season through the HTTP service and must
end with the simulator's own standings; altered sheets are rejected with the cells named; the
database survives a restart; concurrent uploads from several processes lose nothing.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
from functools import cache
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api import games
from api.cli import main
from api.service import create_app
from api.store import Store, sqlite_url
from scoring.sheet import Sheet
from scoring.sides import cell_name
from scoring.simulator import simulate
from scoring.terrain import Terrain

SEASONS = games.SEASON_NAMES


@cache
def record(players: int, side: str, seed: int):
    return simulate(players, side, seed)


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return sqlite_url(tmp_path / "games.sqlite3")


@pytest.fixture
def client(db_url: str, monkeypatch, tmp_path: Path):
    monkeypatch.setenv("CARTOGRAPHERS_DATABASE_URL", db_url)
    monkeypatch.setenv("CARTOGRAPHERS_BATCH_DIR", str(tmp_path / "batch"))
    with TestClient(create_app()) as c:
        yield c


def new_game(client: TestClient, rec, with_log: bool = True) -> str:
    body = {
        "players": [f"P{p + 1}" for p in range(rec.players)],
        "side": rec.side,
        "cards": rec.cards,
        "name": f"seed {rec.seed}",
    }
    if with_log:
        body["revealed"] = {s["season"]: s["cards"] for s in rec.card_log["seasons"]}
    r = client.post("/v1/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()["id"]


def send(client: TestClient, game: str, player: str, season: str, sheet: Sheet, **form):
    data = {"sheet": json.dumps(sheet.to_json()), **form}
    return client.post(f"/v1/games/{game}/players/{player}/seasons/{season}", data=data)


def play_through(client: TestClient, game: str, rec, seasons: int = 4) -> None:
    for s in range(seasons):
        for p in range(rec.players):
            r = send(client, game, f"P{p + 1}", SEASONS[s], rec.season_sheets[p][s])
            assert r.status_code == 201, r.text


def simulator_standings(rec, seasons: int) -> list[tuple[str, int, int, int]]:
    """The simulator's own running standings after ``seasons`` seasons."""
    from scoring.seasons import GameScore, rank_players

    partial = {
        f"P{p + 1}": GameScore(tuple(rec.season_scores[p][:seasons])) for p in range(rec.players)
    }
    return [(s.player, s.place, s.total, s.monster_stars_lost) for s in rank_players(partial)]


def as_tuples(standings: list[dict]) -> list[tuple[str, int, int, int]]:
    return [(s["player"], s["place"], s["total"], s["monster_stars_lost"]) for s in standings]


@pytest.mark.parametrize(
    "players, side, seed, with_log", [(4, "A", 7, True), (4, "B", 3, False), (2, "A", 21, True)]
)
def test_a_simulated_game_ends_with_the_simulators_standings(client, players, side, seed, with_log):
    rec = record(players, side, seed)
    game = new_game(client, rec, with_log)
    play_through(client, game, rec)
    data = client.get(f"/v1/games/{game}/standings").json()
    assert as_tuples(data["final"]) == [
        (s.player, s.place, s.total, s.monster_stars_lost) for s in rec.ranking
    ]
    for k, season in enumerate(data["seasons"]):
        assert season["complete"]
        assert as_tuples(season["standings"]) == simulator_standings(rec, k + 1)
        by_player = {x["player"]: x["season_total"] for x in season["scores"]}
        assert by_player == {f"P{p + 1}": rec.season_scores[p][k].total for p in range(players)}


def altered(sheet: Sheet, previous: Sheet) -> tuple[Sheet, str]:
    """The sheet with one cell drawn before this season changed to another terrain."""
    cell, before = sorted(previous.drawn_cells().items())[0]
    other = Terrain.FOREST if before is not Terrain.FOREST else Terrain.WATER
    return sheet.with_cells({cell: other}), cell_name(cell)


@pytest.mark.parametrize("season", [1, 2, 3])
def test_an_altered_earlier_cell_is_rejected_with_the_cell_named(client, season):
    rec = record(4, "A", 7)
    game = new_game(client, rec)
    play_through(client, game, rec, seasons=season)
    bad, name = altered(rec.season_sheets[1][season], rec.season_sheets[1][season - 1])
    r = send(client, game, "P2", SEASONS[season], bad)
    assert r.status_code == 422
    body = r.json()
    assert body["code"] == "sheet-rejected" and name in body["cells"] and name in body["message"]
    assert SEASONS[season - 1] in body["message"]
    assert SEASONS[season] not in client.get(f"/v1/games/{game}").json()["players"][1]["seasons"]


@pytest.mark.parametrize(
    "change, expected",
    [
        ("erase", "now empty"),
        ("coins", "coins went down"),
    ],
)
def test_other_changes_to_the_past_are_rejected(client, change, expected):
    rec = record(4, "A", 7)
    game = new_game(client, rec)
    play_through(client, game, rec, seasons=2)
    prev, sheet = rec.season_sheets[0][1], rec.season_sheets[0][2]
    if change == "erase":
        cell = sorted(prev.drawn_cells())[0]
        sheet = sheet.with_cells({cell: Terrain.EMPTY})
    else:
        sheet = sheet.with_cells({}, coins=prev.coins - 1)
    r = send(client, game, "P1", "fall", sheet)
    assert r.status_code == 422 and expected in r.json()["message"]


def test_new_cells_the_season_cannot_explain_are_rejected(client):
    rec = record(4, "A", 7)
    game = new_game(client, rec)
    play_through(client, game, rec, seasons=1)
    spring = rec.season_sheets[2][0]
    empties = [c for c, t in spring.items() if t is Terrain.EMPTY]
    flooded = spring.with_cells(
        {c: Terrain.WATER for c in empties[:40]}
    )  # 40 new water cells in one season
    r = send(client, game, "P3", "summer", flooded)
    assert r.status_code == 422 and r.json()["code"] == "sheet-rejected"
    assert r.json()["cells"], "the verdict names cells"


def test_wrong_side_is_rejected(client):
    rec = record(4, "A", 7)
    game = new_game(client, rec)
    r = send(client, game, "P1", "spring", Sheet.blank("B"))
    assert r.status_code == 422 and "side B" in r.json()["message"]


@pytest.mark.parametrize(
    "steps, code",
    [
        ([("P1", "summer")], "season-conflict"),  # spring missing
        ([("P1", "spring"), ("P1", "spring")], "season-conflict"),  # already in
        ([("P9", "spring")], "player-not-found"),
    ],
)
def test_out_of_order_uploads_are_refused(client, steps, code):
    rec = record(4, "A", 7)
    game = new_game(client, rec)
    for player, season in steps:
        p = int(player[1:]) - 1
        sheet = rec.season_sheets[min(p, 3)][SEASONS.index(season)]
        r = send(client, game, player, season, sheet)
    assert r.json()["code"] == code and r.status_code in (404, 409)


def test_replace_corrects_a_season_until_the_next_is_in(client):
    rec = record(4, "A", 7)
    game = new_game(client, rec)
    assert (
        send(client, game, "P1", "spring", rec.season_sheets[1][0]).status_code == 201
    )  # P2's by mistake
    assert (
        send(client, game, "P1", "spring", rec.season_sheets[0][0], replace="true").status_code
        == 201
    )
    assert send(client, game, "P1", "summer", rec.season_sheets[0][1]).status_code == 201
    r = send(client, game, "P1", "spring", rec.season_sheets[0][0], replace="true")
    assert r.status_code == 409 and "summer" in r.json()["message"]
    stored = client.get(f"/v1/games/{game}/players/P1/seasons/spring").json()
    assert stored["sheet"] == rec.season_sheets[0][0].to_json()
    assert stored["score"]["total"] == rec.season_scores[0][0].total


@pytest.mark.parametrize(
    "body, code",
    [
        ({"players": ["a", "a"], "side": "A"}, "bad-game"),
        ({"players": ["a", "b"], "side": "C"}, "bad-game"),
        ({"players": [], "side": "A"}, "bad-game"),
        (
            {
                "players": ["a"],
                "side": "A",
                "cards": "sentinel-wood,dragon-hoard,wildholds,borderlands",
            },
            "bad-cards",
        ),
        ({"players": ["a"], "side": "A", "cards": ["wildholds"] * 4}, "bad-cards"),
        ({"players": ["a"], "side": "A", "revealed": {"autumn": ["hamlet"]}}, "bad-season"),
        ({"players": ["a"], "side": "A", "revealed": {"spring": ["dragon"]}}, "bad-log"),
    ],
)
def test_bad_game_setups_are_refused(client, body, code):
    body = {"cards": ["sentinel-wood", "canal-lake", "wildholds", "borderlands"], **body}
    r = client.post("/v1/games", json=body)
    assert r.status_code == 422 and r.json()["code"] == code and r.json()["message"]


def test_unknown_game_and_season(client):
    assert client.get("/v1/games/0123456789ab").json()["code"] == "game-not-found"
    rec = record(4, "A", 7)
    game = new_game(client, rec)
    r = send(client, game, "P1", "autumn", rec.season_sheets[0][0])
    assert r.status_code == 422 and r.json()["code"] == "bad-season"
    r = client.post(f"/v1/games/{game}/players/P1/seasons/spring", data={"sheet": "{not json"})
    assert r.status_code == 422 and r.json()["code"] == "bad-sheet"


def test_revealed_cards_can_be_added_later(client):
    rec = record(4, "A", 7)
    game = new_game(client, rec, with_log=False)
    cards = rec.card_log["seasons"][0]["cards"]
    r = client.put(f"/v1/games/{game}/revealed/spring", json={"cards": cards})
    assert r.status_code == 200 and r.json()["revealed"] == {"spring": cards}
    assert (
        send(client, game, "P1", "spring", rec.season_sheets[0][0]).json()["checks"]["log_known"]
        is True
    )


def test_the_database_survives_a_service_restart(db_url, monkeypatch, tmp_path):
    monkeypatch.setenv("CARTOGRAPHERS_DATABASE_URL", db_url)
    rec = record(4, "B", 3)
    with TestClient(create_app()) as first:
        game = new_game(first, rec)
        play_through(first, game, rec, seasons=2)
        before = first.get(f"/v1/games/{game}/standings").json()
    assert first.app.state.game_store is None  # the lifespan closed the database
    with TestClient(create_app()) as second:
        assert second.get(f"/v1/games/{game}/standings").json() == before
        for p in range(4):
            assert (
                send(second, game, f"P{p + 1}", "fall", rec.season_sheets[p][2]).status_code == 201
            )


def test_the_database_opens_at_start_up_and_closes_at_shutdown(db_url, monkeypatch):
    monkeypatch.setenv("CARTOGRAPHERS_DATABASE_URL", db_url)
    app = create_app()
    assert app.state.game_store is None  # creating the app opens nothing
    with TestClient(app):
        assert app.state.game_store is not None and app.state.game_store.url == db_url
    assert app.state.game_store is None


def test_without_a_lifespan_the_database_opens_on_first_use(db_url, monkeypatch):
    monkeypatch.setenv("CARTOGRAPHERS_DATABASE_URL", db_url)
    client = TestClient(create_app())  # no ``with``: the lifespan never runs
    assert client.get("/v1/games").json() == {"games": []}
    assert client.app.state.game_store.url == db_url
    client.app.state.game_store.close()


def _upload_spring(args: tuple[str, str, int, int]) -> str:
    """One process's share of the concurrent uploads: its own Store, one thread per upload."""
    url, game, p, seed = args
    rec = record(4, "A", seed)
    store = Store(url)
    try:
        games.upload_season(
            store, game, f"P{p + 1}", "spring", rec.season_sheets[p][0], time_limit=2.0
        )
        return "ok"
    finally:
        store.close()


def test_twenty_concurrent_uploads_from_two_processes_lose_nothing(db_url):
    store = Store(db_url)
    seeds = [7, 8, 9, 10, 11]
    ids = []
    for seed in seeds:
        rec = record(4, "A", seed)
        ids.append(
            games.create_game(
                store, games.GameSetup(("P1", "P2", "P3", "P4"), "A", tuple(rec.cards))
            )["id"]
        )
    jobs = [(db_url, game, p, seed) for game, seed in zip(ids, seeds) for p in range(4)]
    assert len(jobs) == 20
    with cf.ProcessPoolExecutor(2) as procs:  # two service instances on one database file
        halves = [jobs[0::2], jobs[1::2]]
        results = list(procs.map(_upload_half, halves))
    assert sorted(sum(results, [])) == ["ok"] * 20
    for game, seed in zip(ids, seeds):
        rec = record(4, "A", seed)
        spring = games.standings(store, game)["seasons"][0]
        assert spring["complete"]
        assert {s["player"]: s["season_total"] for s in spring["scores"]} == {
            f"P{p + 1}": rec.season_scores[p][0].total for p in range(4)
        }


def _upload_half(jobs: list) -> list[str]:
    with cf.ThreadPoolExecutor(len(jobs)) as threads:
        return list(threads.map(_upload_spring, jobs))


def test_cli_tracks_a_game(tmp_path: Path, capsys):
    rec = record(2, "A", 21)
    db = str(tmp_path / "cli.sqlite3")
    assert (
        main(
            [
                "game",
                "create",
                "--db",
                db,
                "--players",
                "P1,P2",
                "--side",
                "A",
                "--cards",
                ",".join(rec.cards),
            ]
        )
        == 0
    )
    game = capsys.readouterr().out.strip()
    for s, season in enumerate(SEASONS):
        for p in range(2):
            f = tmp_path / f"P{p + 1}-{season}.json"
            f.write_text(json.dumps(rec.season_sheets[p][s].to_json()))
            assert main(["game", "upload", "--db", db, game, f"P{p + 1}", season, str(f)]) == 0
    capsys.readouterr()
    assert main(["game", "standings", "--db", db, "--json", game]) == 0
    final = json.loads(capsys.readouterr().out)["final"]
    assert as_tuples(final) == [
        (s.player, s.place, s.total, s.monster_stars_lost) for s in rec.ranking
    ]
    bad, name = altered(rec.season_sheets[0][3], rec.season_sheets[0][2])
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(bad.to_json()))
    assert main(["game", "upload", "--db", db, game, "P1", "winter", str(f), "--replace"]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "sheet-rejected" in err[0] and name in err[0]


def test_twenty_concurrent_uploads_through_the_service_lose_nothing(client):
    seeds = [7, 8, 9, 10, 11]
    ids = {seed: new_game(client, record(4, "A", seed)) for seed in seeds}
    jobs = [(seed, p) for seed in seeds for p in range(4)]

    def upload(job):
        seed, p = job
        return send(
            client, ids[seed], f"P{p + 1}", "spring", record(4, "A", seed).season_sheets[p][0]
        ).status_code

    with cf.ThreadPoolExecutor(20) as pool:
        assert list(pool.map(upload, jobs)) == [201] * 20
    for seed in seeds:
        spring = client.get(f"/v1/games/{ids[seed]}/standings").json()["seasons"][0]
        assert {s["player"]: s["season_total"] for s in spring["scores"]} == {
            f"P{p + 1}": record(4, "A", seed).season_scores[p][0].total for p in range(4)
        }
