"""The written season numbers and their checks in every face: the command line's JSON and text,
sheet files, the service's routes and its OpenAPI document (api/written_view.py)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

import vision
from api.cli import main
from api.service import create_app
from api.settings import Settings
from api.written_view import parse_written
from scoring.seasons import score_season
from scoring.sheet import Sheet
from scoring.written import WrittenError, WrittenScores
from scoring.written_checks import check_written

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = json.loads((ROOT / "samples" / "typical-a.json").read_text())
SHEET = Sheet.from_json(SAMPLE)  # 4 coins, monsters costing 6
FOUR = ["sentinel-wood", "canal-lake", "wildholds", "borderlands"]
WINTER = score_season(SHEET, FOUR, "winter")  # D Borderlands 0, A Sentinel Wood 6


def boxes(spring_total: int = 4, winter_d: int = 0) -> list[dict]:
    """Spring and winter written (spring's total as given), summer and fall blank."""
    return [
        {"season": "spring", "edicts": [6, 0], "coins": 4, "monsters": 6, "total": spring_total},
        {"season": "summer"},
        {"season": "fall"},
        {
            "season": "winter",
            "edicts": [winter_d, 6],
            "coins": 4,
            "monsters": 6,
            "total": winter_d + 4,
        },
    ]


def sheet_file(tmp_path: Path, **written) -> str:
    path = tmp_path / "sheet.json"
    path.write_text(json.dumps({**SAMPLE, **written}))
    return str(path)


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


# ---- score-map: a sheet file with written numbers -----------------------------------------------
def test_score_map_json_carries_the_written_numbers_and_checks(capsys, tmp_path) -> None:
    path = sheet_file(tmp_path, seasons_written=boxes(spring_total=5), final_total_written=30)
    code, out, err = run(capsys, "score-map", path, "--cards", ",".join(FOUR), "--json")
    assert code == 0 and err == ""
    report = json.loads(out)
    assert [b["season"] for b in report["seasons_written"]] == [
        "spring",
        "summer",
        "fall",
        "winter",
    ]
    assert report["seasons_written"][0]["total"] == 5
    assert report["final_total_written"] == 30 and report["written_confidence"] == {}
    assert report["checks"] == [
        {
            "code": "season-sum",
            "season": "spring",
            "message": "spring: 6 + 0 + 4 − 6 is 4, written 5",
        }
    ]
    assert report["warnings"] == []  # the written keys are not "unknown fields" of the sheet


def test_score_map_without_written_numbers_says_null(capsys) -> None:
    code, out, _ = run(
        capsys, "score-map", "samples/typical-a.txt", "--cards", ",".join(FOUR), "--json"
    )
    report = json.loads(out)
    assert (report["seasons_written"], report["final_total_written"], report["checks"]) == (
        None,
        None,
        [],
    )


@pytest.mark.parametrize(
    "cards, season, codes",
    [
        (",".join(FOUR), None, ["season-sum", "winter-edicts"]),
        (",".join(FOUR), "winter", ["season-sum", "winter-edicts"]),
        (",".join(FOUR), "fall", ["season-sum"]),  # a fall map: only the arithmetic holds
        ("all", None, ["season-sum"]),  # no edicts known: no winter-edicts check
    ],
)
def test_which_checks_run(capsys, tmp_path, cards: str, season: str | None, codes: list) -> None:
    written = boxes(spring_total=5, winter_d=3)  # winter's own sum is right, its D stars are not
    args = ["score-map", sheet_file(tmp_path, seasons_written=written), "--cards", cards, "--json"]
    code, out, _ = run(capsys, *args, *(["--season", season] if season else []))
    assert code == 0
    assert [c["code"] for c in json.loads(out)["checks"]] == codes


def test_score_map_text_shows_written_beside_ours_and_the_checks(capsys, tmp_path) -> None:
    path = sheet_file(tmp_path, seasons_written=boxes(winter_d=3), final_total_written=99)
    code, out, _ = run(capsys, "score-map", path, "--cards", ",".join(FOUR))
    assert code == 0
    lines = out.splitlines()
    assert lines[lines.index(next(x for x in lines if x.startswith("season ")))].split()[-1] == (
        "written"
    )
    winter_d = next(x for x in lines if x.startswith("winter   D"))
    assert winter_d.split()[-2:] == [str(WINTER.edicts[0].result.stars), "3"]
    assert any(x.startswith("final total written") and x.split()[-1] == "99" for x in lines)
    assert "check: winter: edict D (Borderlands) scores 0 on this map, written 3" in lines
    summer_coins = [x for x in lines if x.split()[:1] == ["coins"]][1]
    assert summer_coins.split()[-1] == "·"  # a blank box cell


@pytest.mark.parametrize(
    "written, named",
    [
        ({"final_total_written": "thirty"}, "final_total_written"),
        ({"seasons_written": [{"season": "spring", "coins": -2}]}, "spring coins"),
        ({"seasons_written": {"spring": 3}}, "seasons_written"),
        ({"seasons_written": [{"season": "autumn"}]}, "autumn"),
        ({"written_confidence": {"final": 2}}, "written_confidence"),
    ],
)
def test_bad_written_numbers_exit_2_with_one_line(capsys, tmp_path, written, named) -> None:
    code, out, err = run(capsys, "score-map", sheet_file(tmp_path, **written), "--cards", "all")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and named in err and "sheet.json" in err


# ---- read and score: the reading's written numbers ---------------------------------------------
def fake_reading(written: WrittenScores | None) -> vision.Reading:
    return vision.Reading(
        sheet=SHEET,
        cell_confidence=[[1.0] * 11 for _ in range(11)],
        coin_confidence=1.0,
        low_confidence_cells=[],
        warnings=[],
        grid_corners=[[0, 0], [10, 0], [10, 10], [0, 10]],
        cell_outlines=[],
        intersections=[],
        photo_size=(64, 48),
        written=written,
    )


def four_boxes(winter_d: int = 0) -> list[dict]:
    """All four boxes written, each sum right; winter's D stars as given."""
    written = boxes(winter_d=winter_d)
    written[1] = {"season": "summer", "edicts": [0, 8], "coins": 4, "monsters": 6, "total": 6}
    written[2] = {"season": "fall", "edicts": [8, 0], "coins": 4, "monsters": 6, "total": 6}
    return written


#: As the reader might read a sheet: winter's D written 3 (the map scores 0), the shield 13 (the
#: boxes add up to 23), one number unsure.
READ_WRITTEN = WrittenScores(
    WrittenScores.from_json({"seasons_written": four_boxes(winter_d=3)}).seasons,
    13,
    {"spring.total": 0.97, "final": 0.42},
)


@pytest.fixture
def reader_returns(monkeypatch):
    def install(written: WrittenScores | None) -> None:
        monkeypatch.setattr(vision, "read_photo", lambda *a, **k: fake_reading(written))

    return install


def png(width: int = 64, height: int = 48) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), (255, 255, 255)).save(buf, format="PNG")
    return buf.getvalue()


@pytest.fixture
def photo(tmp_path: Path) -> Path:
    """A small white PNG for the commands that read a photo (the reader itself is stubbed)."""
    path = tmp_path / "p.png"
    path.write_bytes(png())
    return path


def test_read_json_without_cards_runs_the_card_free_checks(capsys, reader_returns, photo):
    reader_returns(READ_WRITTEN)
    code, out, _ = run(capsys, "read", str(photo), "--json")
    body = json.loads(out)
    assert code == 0 and body["side"] == "A"
    assert body["final_total_written"] == 13
    assert body["written_confidence"] == {"spring.total": 0.97, "final": 0.42}
    assert [c["code"] for c in body["checks"]] == ["final-sum"]  # winter-edicts needs the cards
    code, out, _ = run(capsys, "read", str(photo))
    lines = out.splitlines()
    assert "check: final total: 4 + 6 + 6 + 7 is 23, written 13" in lines
    assert next(x for x in lines if x.startswith("winter ")).split() == [
        "winter",
        "3",
        "6",
        "4",
        "-6",
        "7",
    ]


def test_score_json_adds_the_card_checks(capsys, reader_returns, photo):
    reader_returns(READ_WRITTEN)
    code, out, _ = run(capsys, "score", str(photo), "--cards", ",".join(FOUR), "--json")
    body = json.loads(out)
    assert [c["code"] for c in body["checks"]] == ["final-sum", "winter-edicts"]
    assert body["seasons_written"][3]["edicts"] == [3, 6]
    assert [c["code"] for c in body["reading"]["checks"]] == ["final-sum"]  # as `read` gives it


def test_photos_without_written_numbers_say_so(capsys, reader_returns, photo):
    reader_returns(None)
    code, out, _ = run(capsys, "read", str(photo), "--json")
    body = json.loads(out)
    assert (body["seasons_written"], body["final_total_written"], body["checks"]) == (
        None,
        None,
        [],
    )
    assert body["written_confidence"] == {}


# ---- the service ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(Settings()))


def test_score_map_route_checks_typed_in_numbers(client) -> None:
    body = {"sheet": SAMPLE, "cards": FOUR, "seasons_written": boxes(spring_total=5)}
    r = client.post("/v1/score-map", json={**body, "final_total_written": 9})
    assert r.status_code == 200, r.text
    report = r.json()
    assert [c["code"] for c in report["checks"]] == ["season-sum"]
    assert report["final_total_written"] == 9 and report["seasons_written"][1]["total"] is None
    plain = client.post("/v1/score-map", json={"sheet": SAMPLE, "cards": FOUR}).json()
    assert plain["seasons_written"] is None and plain["checks"] == []
    assert (
        "seasons_written"
        in client.post("/v1/score-map", json={"sheet": SAMPLE, "cards": "all"}).json()
    )


def test_check_written_route_answers_checks_and_the_checked_total(client) -> None:
    written = four_boxes(winter_d=3)
    written[0]["total"] = 5
    r = client.post(
        "/v1/check-written", json={"sheet": SAMPLE, "cards": FOUR, "seasons_written": written}
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert [c["code"] for c in body["checks"]] == ["season-sum", "winter-edicts"]
    assert body["checked_total"] == 5 + 6 + 6 + WINTER.total
    no_cards = client.post("/v1/check-written", json={"sheet": SAMPLE, "seasons_written": written})
    assert [c["code"] for c in no_cards.json()["checks"]] == ["season-sum"]
    assert no_cards.json()["checked_total"] is None


def test_photo_routes_carry_the_written_fields(client, reader_returns) -> None:
    reader_returns(READ_WRITTEN)
    photo = {"photo": ("s.png", png(), "image/png")}
    read = client.post("/v1/read", files=photo).json()
    assert read["final_total_written"] == 13 and read["written_confidence"]["final"] == 0.42
    assert [c["code"] for c in read["checks"]] == ["final-sum"]
    scored = client.post("/v1/score", files=photo, data={"cards": ",".join(FOUR)}).json()
    assert [c["code"] for c in scored["score"]["checks"]] == ["final-sum", "winter-edicts"]
    assert scored["reading"]["checks"] == read["checks"]  # the reading is /v1/read's


def test_openapi_documents_the_written_fields(client) -> None:
    spec = client.get("/openapi.json").json()
    schemas = spec["components"]["schemas"]
    assert {"seasons_written", "final_total_written"} <= set(
        schemas["ScoreMapRequest"]["properties"]
    )
    assert "checks" in schemas["ScoreReport"]["properties"]
    assert "/v1/check-written" in spec["paths"]
    assert schemas["WrittenBox"]["properties"]["monsters"]["description"]


def test_score_map_all_cards_text_shows_the_written_boxes(capsys, tmp_path) -> None:
    path = sheet_file(tmp_path, seasons_written=boxes(spring_total=5), final_total_written=30)
    code, out, _ = run(capsys, "score-map", path, "--cards", "all")
    assert code == 0
    lines = out.splitlines()
    assert next(x for x in lines if x.startswith("spring ")).split() == [
        "spring",
        "6",
        "0",
        "4",
        "-6",
        "5",
    ]
    assert next(x for x in lines if x.startswith("summer ")).split() == ["summer"] + ["·"] * 5
    assert "check: spring: 6 + 0 + 4 − 6 is 4, written 5" in lines


# ---- fuzzing: any JSON either parses or is refused with WrittenError ----------------------------
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.floats(allow_nan=True)
    | st.text(max_size=8)
    | st.sampled_from(["spring", "summer", "fall", "winter", "edicts", "total"]),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=20,
)
box_like = st.fixed_dictionaries(
    {},
    optional={
        "season": json_values,
        "edicts": json_values | st.lists(json_values, min_size=2, max_size=2),
        "coins": json_values,
        "monsters": json_values,
        "total": json_values,
    },
)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    seasons=json_values | st.lists(box_like, max_size=5),
    final=json_values,
    confidence=json_values,
)
def test_any_written_json_parses_or_is_refused_by_name(seasons, final, confidence) -> None:
    data = {
        "seasons_written": seasons,
        "final_total_written": final,
        "written_confidence": confidence,
    }
    try:
        written = parse_written(data)
    except WrittenError as e:
        assert str(e) and "\n" not in str(e)
        return
    assert len(written.seasons) == 4
    check_written(written, SHEET, FOUR)  # whatever parsed can be checked
