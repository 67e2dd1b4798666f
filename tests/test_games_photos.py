"""A simulated 4-player game tracked through the service from PHOTOS: each player's sheet is
photographed at the end of every season (vision.synth.make_photo, an organiser's careful photo:
flat, sharp, well lit), uploaded to /v1/games, read by the real reader, checked and scored. Where
the reader misreads a cell, the organiser corrects the season with the sheet JSON (``replace``), as
on the game page; the standings must then equal the simulator's own record. A photo of a sheet with
an earlier cell altered is rejected with that cell named.

Skipped only when this build has no trained reader model.
"""

from __future__ import annotations

import json

from tests.test_games import SEASONS, altered, client, db_url, new_game, record  # noqa: F401 — fixtures

CAREFUL = {
    "tilt_deg": 8.0,
    "defocus_px": 0.0,
    "motion_px": 0.0,
    "shadow": 0.0,
    "glare": 0.0,
    "noise": 2.0,
    "jpeg_quality": 90,
    "second_sheet": False,
    "fingers": 0,
    "curl_u": 0.0,
    "bow_u": 0.1,
    "exposure": 1.0,
    "light_gradient": 0.1,
}


def photo_of(sheet, seed: int) -> bytes:
    from vision.synth.photo import make_photo

    return make_photo(
        seed,
        sheet=sheet,
        megapixels=2.0,
        style="colour-symbols",
        background="light-wood",
        condition=CAREFUL,
    ).jpeg


def upload_photo(client, game, player, season, jpeg):
    return client.post(
        f"/v1/games/{game}/players/{player}/seasons/{season}",
        files={"photo": (f"{player}-{season}.jpg", jpeg, "image/jpeg")},
    )


def test_a_game_tracked_from_season_photos_has_the_simulators_standings(client):  # noqa: F811
    rec = record(4, "A", 7)
    game = new_game(client, rec)
    read_right = 0
    for s, season in enumerate(SEASONS):
        for p in range(4):
            truth = rec.season_sheets[p][s]
            r = upload_photo(client, game, f"P{p + 1}", season, photo_of(truth, 1000 + 10 * s + p))
            assert r.status_code in (201, 422), r.text[:300]
            if r.status_code == 201 and r.json()["sheet"] == truth.to_json():
                read_right += 1
                assert (
                    r.json()["source"] == "photo"
                    and r.json()["score"]["total"] == rec.season_scores[p][s].total
                )
                continue
            if (
                r.status_code == 422
            ):  # the reader refused the photo, or a misread earlier cell looked like a change
                assert r.json()["code"] in (
                    "sheet-rejected",
                    "no-grid",
                    "unreadable-photo",
                    "wrong-side",
                ), r.text[:300]
                assert r.json()["code"] != "sheet-rejected" or r.json()["cells"]
            fixed = client.post(
                f"/v1/games/{game}/players/P{p + 1}/seasons/{season}",
                data={"sheet": json.dumps(truth.to_json()), "replace": "true"},
            )
            assert fixed.status_code == 201, fixed.text[:300]
    print(f"{read_right} of 16 season photos read exactly")
    final = client.get(f"/v1/games/{game}/standings").json()["final"]
    assert [(x["player"], x["place"], x["total"]) for x in final] == [
        (s.player, s.place, s.total) for s in rec.ranking
    ]


def test_a_season_photo_with_an_earlier_cell_altered_is_rejected(client):  # noqa: F811
    rec = record(4, "A", 7)
    game = new_game(client, rec, with_log=False)
    spring = json.dumps(rec.season_sheets[0][0].to_json())
    assert (
        client.post(
            f"/v1/games/{game}/players/P1/seasons/spring", data={"sheet": spring}
        ).status_code
        == 201
    )
    bad, name = altered(rec.season_sheets[0][1], rec.season_sheets[0][0])
    r = upload_photo(client, game, "P1", "summer", photo_of(bad, 2001))
    assert (
        r.status_code == 422 and r.json()["code"] == "sheet-rejected" and name in r.json()["cells"]
    )
