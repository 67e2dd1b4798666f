"""The HTTP service through FastAPI's TestClient: every route, and every error each route documents.

Photo routes use the real reader (``vision.read_photo``) and the real validator
(``scoring.validate``); photo tests are skipped, saying so, only while the reader has no trained
model.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

import api.work
import vision
from api.errors import ERRORS
from api.service import create_app
from api.settings import Settings
from scoring.cards import BACKS, CARDS
from scoring.report import score_report
from scoring.sheet import Sheet
from scoring.sides import SIDES
from scoring.terrain import Terrain
from scoring.validate import validate as validator
from vision.classify import ModelMissingError

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = json.loads((ROOT / "samples" / "typical-a.json").read_text())
SAMPLE_PHOTO = ROOT / "samples" / "typical-a.jpg"  # a phone photo of a side A sheet
FOUR = ["sentinel-wood", "canal-lake", "wildholds", "borderlands"]


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(Settings()))


def png(width: int = 64, height: int = 48, value: int = 255) -> bytes:
    """A plain image encoded as PNG."""
    ok, data = cv2.imencode(".png", np.full((height, width, 3), value, np.uint8))
    assert ok
    return data.tobytes()


def png_claiming(width: int, height: int) -> bytes:
    """A PNG header that claims a size (the pixel check must refuse it before decoding)."""
    real = png(4, 4)
    return real[:16] + width.to_bytes(4, "big") + height.to_bytes(4, "big") + real[24:]


# ---- reference routes ------------------------------------------------------------------------
def test_health_says_which_parts_are_installed(client):
    body = client.get("/health").json()
    assert body["status"] == "ok"
    assert body["reader"] is True and body["validator"] is True  # every build has both


def test_cards_lists_all_sixteen_with_rules_and_solo_values(client):
    body = client.get("/v1/cards").json()
    assert [c["slug"] for c in body["cards"]] == list(CARDS)
    for card in body["cards"]:
        source = CARDS[card["slug"]]
        assert (card["name"], card["back"], card["solo"], card["rule"]) == (
            source.name,
            source.back,
            source.solo,
            source.rule,
        )
        assert card["rule"]
    assert body["backs"] == list(BACKS)
    assert [s["name"] for s in body["seasons"]] == ["spring", "summer", "fall", "winter"]


@pytest.mark.parametrize("side", sorted(SIDES))
def test_sides_give_the_printed_layout(client, side):
    body = client.get("/v1/sides").json()
    got = {s["name"]: s for s in body["sides"]}[side]
    layout = SIDES[side]
    for part in ("mountains", "ruins", "wasteland"):
        assert {tuple(c) for c in got[part]} == set(getattr(layout, part))
    assert set(body["drawable"]) < set(body["terrains"]) == {t.value for t in Terrain}


# ---- score-map -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "cards,season",
    [
        (FOUR, None),
        (FOUR, "spring"),
        (FOUR, "winter"),
        (",".join(FOUR), "fall"),
        (["cauldrons", "greenbough", "mages-valley", "great-city"], "summer"),
        ("all", None),
    ],
)
def test_score_map_answers_the_score_report(client, cards, season):
    r = client.post("/v1/score-map", json={"sheet": SAMPLE, "cards": cards, "season": season})
    assert r.status_code == 200, r.text
    body = r.json()
    slugs = "all" if cards == "all" else (cards.split(",") if isinstance(cards, str) else cards)
    expected = score_report(Sheet.from_json(SAMPLE), slugs, season)
    assert body["cards"] == expected["cards"]
    assert body["monster_penalty"] == expected["monster_penalty"]
    assert body.get("total") == expected.get("total")
    for slug, stars in body["cards"].items():  # every star comes with its cells
        assert sum(e["stars"] for e in body["evidence"][slug]) == stars
    if season:
        assert [s["season"] for s in body["seasons"]] == [season]


@pytest.mark.parametrize(
    "cell,terrain,card,delta",
    [
        ((0, 7), "forest", "sentinel-wood", 1),  # a forest on the edge
        (
            (7, 9),
            "water",
            "canal-lake",
            2,
        ),  # the water touches a farm, and that farm now touches water
        ((10, 2), "village", "borderlands", 0),  # filling one cell completes no row or column
    ],
)
def test_correcting_a_cell_changes_the_score_by_what_the_card_says(
    client, cell, terrain, card, delta
):
    cards = [card] + [c for c in FOUR if CARDS[c].back != CARDS[card].back]
    before = client.post(
        "/v1/score-map", json={"sheet": SAMPLE, "cards": cards, "season": "spring"}
    ).json()
    sheet = json.loads(json.dumps(SAMPLE))
    assert sheet["cells"][cell[0]][cell[1]] == "empty"
    sheet["cells"][cell[0]][cell[1]] = terrain
    after = client.post(
        "/v1/score-map", json={"sheet": sheet, "cards": cards, "season": "spring"}
    ).json()
    assert after["cards"][card] - before["cards"][card] == delta


# ---- validate --------------------------------------------------------------------------------
def test_validate_gives_a_verdict_with_reasons(client):
    r = client.post("/v1/validate", json={"sheet": SAMPLE})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["verdict"] in ("legal", "illegal", "cannot-tell")
    expected = validator(Sheet.from_json(SAMPLE), time_limit=5.0).to_json()
    assert body["verdict"] == expected["verdict"]


#: The routes this file covers (other modules may add routes to the same app).
OUR_ROUTES = {
    "/health",
    "/v1/cards",
    "/v1/sides",
    "/v1/read",
    "/v1/score",
    "/v1/score-map",
    "/v1/check-written",
    "/v1/validate",
}
#: route → a request that reaches the route's CPU work.
WORK = {
    "/v1/read": {"files": {"photo": ("s.png", png(), "image/png")}},
    "/v1/score": {
        "files": {"photo": ("s.png", png(), "image/png")},
        "data": {"cards": ",".join(FOUR)},
    },
    "/v1/score-map": {"json": {"sheet": SAMPLE, "cards": FOUR}},
    "/v1/check-written": {"json": {"sheet": SAMPLE, "final_total_written": 12}},
    "/v1/validate": {"json": {"sheet": SAMPLE}},
}
#: route → the function doing its CPU work (patched to fail for the 500 test).
WORK_FN = {
    "/v1/read": "read_sheet_photo",
    "/v1/score": "score_photo",
    "/v1/score-map": "score_sheet",
    "/v1/check-written": "check_written_numbers",
    "/v1/validate": "validate_sheet",
}


#: Errors only the real reader can give (the photo is
#: made by ``reader_photo``): skipped while it is missing.
READER_ERROR_CASES = [
    ("post", path, photo, extra, code)
    for path, more in (("/v1/read", {}), ("/v1/score", {"cards": ",".join(FOUR)}))
    for photo, extra, code in (
        ("plain", more, "no-grid"),  # a photo of nothing
        ("sample-a", {**more, "side": "B"}, "wrong-side"),  # a side A sheet said to be side B
        (
            "heic",
            more,
            "not-an-image" if importlib.util.find_spec("pillow_heif") else "heic-unsupported",
        ),
    )
]
#: Errors only the real validator can give.
VALIDATOR_ERROR_CASES = [
    ("post", "/v1/validate", {"json": {"sheet": SAMPLE, "log": "not a card log"}}, 422, "bad-log"),
    (
        "post",
        "/v1/validate",
        {"json": {"sheet": SAMPLE, "log": {"seasons": "nope"}}},
        422,
        "bad-log",
    ),
]

# ---- every documented error ------------------------------------------------------------------
BAD_CELL = json.loads(json.dumps(SAMPLE))
BAD_CELL["cells"][1][3] = "forest"  # B4 is a printed mountain on side A

#: (method, path, request, status, code). The test below also checks that every status each
#: route documents in /openapi.json appears here for that route.
ERROR_CASES = (
    [
        ("get", "/nowhere", {}, 404, "not-found"),
        ("delete", "/v1/cards", {}, 405, "method-not-allowed"),
        (
            "post",
            "/v1/score-map",
            {"content": b'{"sheet": ', "headers": {"content-type": "application/json"}},
            400,
            "bad-json",
        ),
        ("post", "/v1/score-map", {"json": {"cards": FOUR}}, 422, "invalid-request"),
        ("post", "/v1/score-map", {"json": {"sheet": BAD_CELL, "cards": FOUR}}, 422, "bad-sheet"),
        ("post", "/v1/score-map", {"json": {"sheet": SAMPLE, "cards": FOUR[:3]}}, 422, "bad-cards"),
        (
            "post",
            "/v1/score-map",
            {"json": {"sheet": SAMPLE, "cards": ["sentinel-wood"] * 4}},
            422,
            "bad-cards",
        ),
        (
            "post",
            "/v1/score-map",
            {"json": {"sheet": SAMPLE, "cards": FOUR, "season": "autumn"}},
            422,
            "bad-season",
        ),
        (
            "post",
            "/v1/score-map",
            {"json": {"sheet": SAMPLE, "cards": "all", "season": "fall"}},
            422,
            "bad-season",
        ),
        (
            "post",
            "/v1/score-map",
            {"json": {"sheet": SAMPLE, "cards": FOUR, "final_total_written": -4}},
            422,
            "bad-written",
        ),
        (
            "post",
            "/v1/score-map",
            {"json": {"sheet": SAMPLE, "cards": FOUR, "seasons_written": [{"coins": "3"}]}},
            422,
            "invalid-request",
        ),
        (
            "post",
            "/v1/check-written",
            {"content": b"{", "headers": {"content-type": "application/json"}},
            400,
            "bad-json",
        ),
        ("post", "/v1/check-written", {"json": {"cards": FOUR}}, 422, "invalid-request"),
        ("post", "/v1/check-written", {"json": {"sheet": BAD_CELL}}, 422, "bad-sheet"),
        (
            "post",
            "/v1/check-written",
            {"json": {"sheet": SAMPLE, "cards": "all"}},
            422,
            "bad-cards",
        ),
        (
            "post",
            "/v1/check-written",
            {"json": {"sheet": SAMPLE, "seasons_written": [{"total": 1000}]}},
            422,
            "bad-written",
        ),
        (
            "post",
            "/v1/check-written",
            {"content": b"{}", "headers": {"content-type": "text/plain"}},
            415,
            "unsupported-media-type",
        ),
        (
            "post",
            "/v1/validate",
            {"content": b"[", "headers": {"content-type": "application/json"}},
            400,
            "bad-json",
        ),
        (
            "post",
            "/v1/score-map",
            {"content": b"{}", "headers": {"content-type": "text/plain"}},
            415,
            "unsupported-media-type",
        ),
        ("post", "/v1/validate", {"data": {"sheet": "A"}}, 415, "unsupported-media-type"),
        ("post", "/v1/validate", {"json": {"sheet": {"side": "A"}}}, 422, "invalid-request"),
        ("post", "/v1/validate", {"json": {"sheet": BAD_CELL}}, 422, "bad-sheet"),
        (
            "post",
            "/v1/validate",
            {"json": {"sheet": SAMPLE, "previous": {**SAMPLE, "side": "C"}}},
            422,
            "bad-sheet",
        ),
    ]
    + [
        ("post", path, request, status, code)
        for path, extra in (("/v1/read", {}), ("/v1/score", {"cards": ",".join(FOUR)}))
        for request, status, code in (
            ({"data": extra}, 422, "invalid-request"),
            (
                {"files": {"photo": ("sheet.jpg", b"", "image/jpeg")}, "data": extra},
                400,
                "empty-file",
            ),
            (
                {
                    "files": {"photo": ("sheet.jpg", b"hello, not a photo", "image/jpeg")},
                    "data": extra,
                },
                415,
                "not-an-image",
            ),
            (
                {
                    "files": {"photo": ("big.png", png_claiming(20_000, 20_000), "image/png")},
                    "data": extra,
                },
                413,
                "too-many-pixels",
            ),
            (
                {"files": {"photo": ("s.png", png(), "image/png")}, "data": {**extra, "side": "C"}},
                422,
                "invalid-request",
            ),
        )
    ]
    + [
        (
            "post",
            "/v1/score",
            {"files": {"photo": ("s.png", png(), "image/png")}, "data": {"cards": "sentinel-wood"}},
            422,
            "bad-cards",
        ),
        (
            "post",
            "/v1/score",
            {
                "files": {"photo": ("s.png", png(), "image/png")},
                "data": {"cards": ",".join(FOUR), "season": "autumn"},
            },
            422,
            "bad-season",
        ),
    ]
)


@pytest.mark.parametrize(
    "method,path,request_,status,code", ERROR_CASES, ids=[f"{c[1]}-{c[4]}" for c in ERROR_CASES]
)
def test_error_answers_carry_code_and_message(client, method, path, request_, status, code):
    r = getattr(client, method)(path, **request_) if request_ else getattr(client, method)(path)
    assert r.status_code == status, r.text
    body = r.json()
    assert body["code"] == code and ERRORS[code].status == status
    assert body["message"] and "\n" not in body["message"]


def test_a_bad_sheet_names_the_cell(client):
    body = client.post("/v1/score-map", json={"sheet": BAD_CELL, "cards": FOUR}).json()
    assert body["field"] == "sheet.cells[1][3]" and "B4" in body["message"]


@pytest.mark.parametrize(
    "path,chunked",
    [(p, False) for p in sorted(WORK)] + [("/v1/score-map", True), ("/v1/validate", True)],
)
def test_request_over_the_upload_limit_is_413(path, chunked):
    small = TestClient(create_app(Settings(max_upload_bytes=1000)))
    if "files" in WORK[path]:
        request = {
            "files": {"photo": ("s.png", png() + b"\0" * 2000, "image/png")},
            "data": WORK[path].get("data"),
        }
    else:
        payload = json.dumps({**WORK[path]["json"], "pad": "x" * 2000}).encode()
        content = (
            iter([payload[:800], payload[800:]]) if chunked else payload
        )  # chunked: no Content-Length
        request = {"content": content, "headers": {"content-type": "application/json"}}
    r = small.post(path, **request)
    assert r.status_code == 413 and r.json()["code"] == "too-large"
    assert "1,000 bytes" in r.json()["message"]


def test_request_under_the_upload_limit_is_served():
    body = json.dumps({"sheet": SAMPLE, "cards": FOUR}).encode()
    tight = TestClient(create_app(Settings(max_upload_bytes=len(body))))
    assert (
        tight.post(
            "/v1/score-map", content=body, headers={"content-type": "application/json"}
        ).status_code
        == 200
    )
    tighter = TestClient(create_app(Settings(max_upload_bytes=len(body) - 1)))
    assert (
        tighter.post(
            "/v1/score-map", content=body, headers={"content-type": "application/json"}
        ).status_code
        == 413
    )


@pytest.mark.parametrize("path", sorted(WORK))
def test_work_over_the_time_limit_is_504(path, monkeypatch):
    def slow(*_args):
        import time

        time.sleep(0.5)
        raise AssertionError("the answer should not wait for this")

    monkeypatch.setattr(api.work, WORK_FN[path], slow)
    r = TestClient(create_app(Settings(time_limit=0.05))).post(path, **WORK[path])
    assert r.status_code == 504 and r.json()["code"] == "timeout"


@pytest.mark.parametrize("path", sorted(WORK))
def test_a_bug_is_a_500_with_an_error_id_logged_with_its_traceback(path, monkeypatch, caplog):
    def broken(*_args):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(api.work, WORK_FN[path], broken)
    with caplog.at_level("ERROR", logger="cartographers.service"):
        r = TestClient(create_app(Settings()), raise_server_exceptions=False).post(
            path, **WORK[path]
        )
    assert r.status_code == 500
    body = r.json()
    assert body["code"] == "internal-error" and re.fullmatch(r"[0-9a-f]{12}", body["error_id"])
    assert body["error_id"] in body["message"] and "ZeroDivisionError" not in body["message"]
    [record] = [rec for rec in caplog.records if body["error_id"] in rec.getMessage()]
    assert record.exc_info[0] is ZeroDivisionError  # the traceback is in the log, not in the answer


@pytest.mark.parametrize("path", ["/v1/read", "/v1/score"])
def test_a_reader_without_a_trained_model_is_503(path, monkeypatch):
    def no_model(data, side=None):
        raise ModelMissingError("no reader model at models/reader.npz: run 'cartographers train'")

    monkeypatch.setattr(vision, "read_photo", no_model)
    r = TestClient(create_app(Settings())).post(path, **WORK[path])
    assert r.status_code == 503 and r.json()["code"] == "reader-unavailable"
    assert "cartographers train" in r.json()["message"]


# ---- photo routes with the real reader -------------------------------------------------------
@pytest.fixture(scope="module")
def photos() -> dict[str, bytes]:
    """Photos for the reader: the sample photo of a side A sheet, a plain picture of nothing, and a
    HEIC header."""
    sample = SAMPLE_PHOTO.read_bytes()
    try:
        vision.read_photo(sample)
    except ModelMissingError as e:
        pytest.skip(f"the reader has no trained model yet: {e}")
    return {
        "sample-a": sample,
        "plain": png(900, 1200, 200),
        "heic": b"\0\0\0\x18ftypheic\0\0\0\0mif1heic",
    }


def test_read_answers_the_readers_reading_with_cell_outlines(client, photos):
    r = client.post("/v1/read", files={"photo": ("sheet.jpg", photos["sample-a"], "image/jpeg")})
    assert r.status_code == 200, r.text
    body = r.json()
    expected = vision.read_photo(photos["sample-a"])
    assert (body["side"], body["cells"], body["coins"]) == (
        expected.side,
        expected.sheet.to_json()["cells"],
        expected.coins,
    )
    outlines = np.array(body["cell_outlines"])
    assert outlines.shape == (11, 11, 4, 2)
    width, height = body["photo_size"]
    assert (outlines[..., 0] >= -1).all() and (outlines[..., 0] <= width + 1).all()
    assert (outlines[..., 1] >= -1).all() and (outlines[..., 1] <= height + 1).all()
    assert np.array(body["confidence"]).shape == (11, 11)


@pytest.mark.parametrize("season", ["spring", "fall", None])
def test_score_answers_reading_score_and_legality(client, photos, season):
    data = {"cards": ",".join(FOUR), **({"season": season} if season else {})}
    r = client.post(
        "/v1/score", files={"photo": ("sheet.jpg", photos["sample-a"], "image/jpeg")}, data=data
    )
    assert r.status_code == 200, r.text
    body = r.json()
    reading = vision.read_photo(photos["sample-a"])
    expected = score_report(reading.sheet, FOUR, season)
    assert (
        body["score"]["cards"] == expected["cards"] and body["score"]["total"] == expected["total"]
    )
    assert body["reading"]["cells"] == reading.sheet.to_json()["cells"]
    assert (
        body["legality"]["verdict"] == validator(reading.sheet, time_limit=5.0).to_json()["verdict"]
    )


@pytest.mark.parametrize(
    "method,path,photo,data,code",
    READER_ERROR_CASES,
    ids=[f"{c[1]}-{c[4]}" for c in READER_ERROR_CASES],
)
def test_reader_errors_keep_their_code(client, photos, method, path, photo, data, code):
    r = client.post(
        path, files={"photo": ("upload", photos[photo], "application/octet-stream")}, data=data
    )
    assert (r.status_code, r.json()["code"]) == (ERRORS[code].status, code), r.text
    assert r.json()["message"]


@pytest.mark.parametrize("path", ["/v1/read", "/v1/score"])
def test_a_reader_code_the_service_does_not_know_is_unreadable_photo(
    client, photos, path, monkeypatch
):
    def refuse(data, side=None):
        raise vision.PhotoError("too-dark", "the photo is too dark to read")

    monkeypatch.setattr(vision, "read_photo", refuse)
    r = client.post(
        path,
        files={"photo": ("s.jpg", photos["sample-a"], "image/jpeg")},
        data=WORK[path].get("data"),
    )
    assert r.status_code == 422
    assert r.json() == {
        "code": "unreadable-photo",
        "message": "the photo is too dark to read",
        "field": "photo",
    }


@pytest.mark.parametrize("method,path,request_,status,code", VALIDATOR_ERROR_CASES)
def test_validator_errors(client, method, path, request_, status, code):
    r = client.post(path, **request_)
    assert (r.status_code, r.json()["code"]) == (status, code), r.text
    assert r.json()["field"] == "log"


def documented_codes(client) -> set[tuple[str, str]]:
    """``(path, code)`` for every error code each route lists in /openapi.json."""
    spec = client.get("/openapi.json").json()
    return {
        (path, code)
        for path, ops in spec["paths"].items()
        for op in ops.values()
        for status, answer in op["responses"].items()
        if status.isdigit() and int(status) >= 400
        for code in re.findall(r"`([a-z-]+)`", answer["description"])
    }


def provoked_codes() -> set[tuple[str, str]]:
    """``(path, code)`` for every error some test in this file provokes."""
    out = {(p, c) for _, p, _, _, c in ERROR_CASES + READER_ERROR_CASES + VALIDATOR_ERROR_CASES}
    for path in WORK:
        out |= {(path, "timeout"), (path, "internal-error"), (path, "too-large")}
    out |= {("/v1/read", "unreadable-photo"), ("/v1/score", "unreadable-photo")}
    out |= {("/v1/read", "reader-unavailable"), ("/v1/score", "reader-unavailable")}
    return out


#: Documented codes no request can provoke any more, kept so clients written against them still
#: parse: every build has the legality validator now (``scoring.validate`` is imported, not looked
#: up).
NO_LONGER_ANSWERED = {("/v1/validate", "validator-unavailable")}


def test_every_documented_error_is_provoked_by_a_test(client):
    documented = {(p, c) for p, c in documented_codes(client) if p in OUR_ROUTES}
    generic = {(p, c) for p, c in documented if p in ("/health", "/v1/cards", "/v1/sides")}
    assert not generic, f"reference routes cannot fail this way: {sorted(generic)}"
    assert documented >= NO_LONGER_ANSWERED  # still in the contract
    missing = documented - provoked_codes() - NO_LONGER_ANSWERED
    assert not missing, f"documented but never provoked: {sorted(missing)}"


def test_openapi_documents_every_error_code_with_the_error_body(client):
    spec = client.get("/openapi.json").json()
    assert set(spec["paths"]) >= OUR_ROUTES
    for path, ops in spec["paths"].items():
        if path not in OUR_ROUTES:
            continue
        for op in ops.values():
            for status, answer in op["responses"].items():
                if not status.isdigit() or int(status) < 400:
                    continue
                assert answer["content"]["application/json"]["schema"]["$ref"].endswith(
                    "/ErrorBody"
                ), (path, status)
                codes = re.findall(r"`([a-z-]+)`", answer["description"])
                assert codes, (path, status)
                assert all(ERRORS[c].status == int(status) for c in codes), (path, status, codes)
    assert client.get("/docs").status_code == 200
    assert client.get("/docs-assets/swagger-ui-bundle.js").status_code == 200


def test_docs_page_loads_nothing_from_elsewhere(client):
    html = client.get("/docs").text
    assert "/openapi.json" in html
    assert not re.search(r"""(src|href)=["']https?://""", html)


# ---- the web page and CORS -------------------------------------------------------------------
def test_page_and_its_assets_are_served_locally(client):
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert "default-src 'self'" in page.headers["content-security-policy"]
    for asset in re.findall(r"""(?:src|href)="(/static/[^"]+)\"""", page.text):
        assert client.get(asset).status_code == 200, asset
    assert not re.search(r"""(src|href)=["']https?://""", page.text)


@pytest.mark.parametrize("origins,allowed", [((), False), (("http://table.example",), True)])
def test_cors_is_closed_unless_origins_are_named(origins, allowed):
    c = TestClient(create_app(Settings(cors_origins=origins)))
    r = c.get("/v1/cards", headers={"Origin": "http://table.example"})
    assert (r.headers.get("access-control-allow-origin") == "http://table.example") is allowed


def test_the_docs_examples_are_accepted(client):
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    sheet = schemas["SheetJson"]["example"]
    cards = schemas["ScoreMapRequest"]["properties"]["cards"]["examples"][0]
    r = client.post("/v1/score-map", json={"sheet": sheet, "cards": cards})
    assert r.status_code == 200, r.text
    assert r.json()["cards"] == score_report(Sheet.from_json(sheet), cards)["cards"]
