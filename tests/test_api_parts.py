"""The service's parts on their own: upload sniffing, settings from the environment, ``serve``."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from api.cli import main
from api.settings import MB, settings_from_env
from api.uploads import image_kind, image_size


@pytest.mark.parametrize(
    "ext,kind",
    [(".png", "png"), (".jpg", "jpeg"), (".webp", "webp"), (".bmp", "bmp"), (".tiff", "tiff")],
)
@pytest.mark.parametrize("width,height", [(1, 1), (37, 501), (640, 480), (1203, 77)])
def test_kind_and_size_come_from_the_file_header(ext, kind, width, height):
    rng = np.random.default_rng(width * height)
    ok, data = cv2.imencode(ext, rng.integers(0, 255, (height, width, 3), dtype=np.uint8))
    assert ok
    data = data.tobytes()
    assert image_kind(data) == kind
    if kind != "tiff":  # TIFF keeps its size in a tag table; the decoder's own limit applies there
        assert image_size(data, kind) == (width, height)


def test_a_progressive_jpeg_size_is_read_too():
    ok, data = cv2.imencode(
        ".jpg", np.zeros((123, 456, 3), np.uint8), [cv2.IMWRITE_JPEG_PROGRESSIVE, 1]
    )
    assert ok and image_size(data.tobytes(), "jpeg") == (456, 123)


@pytest.mark.parametrize(
    "data,kind",
    [
        (b"", None),
        (b"%PDF-1.7\n", None),
        (b"<html>", None),
        (b"GIF89a\x01\x00", "gif"),
        (b"\0\0\0\x18ftypheic\0\0\0\0", "heic"),
        (b"\0\0\0\x18ftypmif1\0\0\0\0", "heic"),
        (b"\0\0\0\x18ftypisom", None),
    ],
)
def test_other_files_are_told_apart(data, kind):
    assert image_kind(data) == kind


@pytest.mark.parametrize("kind", ["png", "jpeg", "webp", "bmp"])
def test_truncated_headers_give_no_size_instead_of_failing(kind):
    ok, data = cv2.imencode("." + {"jpeg": "jpg"}.get(kind, kind), np.zeros((20, 30, 3), np.uint8))
    head = data.tobytes()
    for cut in (0, 3, 12, 20):
        assert image_size(head[:cut], kind) in (None, (30, 20))


@pytest.mark.parametrize(
    "env,field,value",
    [
        ({"CARTOGRAPHERS_MAX_UPLOAD_MB": "5"}, "max_upload_bytes", 5 * MB),
        ({"CARTOGRAPHERS_MAX_UPLOAD_MB": "0.5"}, "max_upload_bytes", MB // 2),
        ({"CARTOGRAPHERS_MAX_PIXELS": "1000"}, "max_pixels", 1000),
        ({"CARTOGRAPHERS_TIME_LIMIT": "2.5"}, "time_limit", 2.5),
        (
            {"CARTOGRAPHERS_CORS_ORIGINS": "http://a.test, http://b.test"},
            "cors_origins",
            ("http://a.test", "http://b.test"),
        ),
        ({}, "cors_origins", ()),
        ({}, "max_upload_bytes", 20 * MB),
    ],
)
def test_settings_from_the_environment(env, field, value):
    assert getattr(settings_from_env(env), field) == value


@pytest.mark.parametrize(
    "env,word",
    [
        ({"CARTOGRAPHERS_MAX_PIXELS": "lots"}, "CARTOGRAPHERS_MAX_PIXELS"),
        ({"CARTOGRAPHERS_TIME_LIMIT": "-1"}, "time_limit"),
        ({"CARTOGRAPHERS_MAX_UPLOAD_MB": "0"}, "max_upload_bytes"),
    ],
)
def test_a_bad_setting_is_refused_by_name(env, word):
    with pytest.raises(ValueError, match=word):
        settings_from_env(env)


@pytest.mark.parametrize(
    "argv,field,value",
    [
        ([], "max_upload_bytes", 20 * MB),
        (["--max-upload-mb", "3"], "max_upload_bytes", 3 * MB),
        (["--max-pixels", "999"], "max_pixels", 999),
        (["--time-limit", "7"], "time_limit", 7.0),
        (
            ["--cors-origin", "http://x.test", "--cors-origin", "http://y.test"],
            "cors_origins",
            ("http://x.test", "http://y.test"),
        ),
    ],
)
def test_serve_passes_its_flags_to_the_app(monkeypatch, argv, field, value):
    seen = {}
    monkeypatch.setattr("uvicorn.run", lambda app, **kw: seen.update(app=app, **kw))
    assert main(["serve", "--port", "8123", *argv]) == 0
    assert getattr(seen["app"].state.settings, field) == value
    assert (seen["host"], seen["port"]) == ("127.0.0.1", 8123)


def test_serve_refuses_a_bad_limit_in_one_line(monkeypatch, capsys):
    monkeypatch.setattr("uvicorn.run", lambda app, **kw: None)
    assert main(["serve", "--time-limit", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert "time_limit" in err and "\n" not in err


@pytest.mark.parametrize("argv,expected", [([], 64), (["--limit-concurrency", "8"], 8)])
def test_serve_bounds_the_connections_it_serves_at_once(monkeypatch, argv, expected):
    seen = {}
    monkeypatch.setattr("uvicorn.run", lambda app, **kw: seen.update(kw))
    assert main(["serve", *argv]) == 0
    assert seen["limit_concurrency"] == expected


def test_serve_refuses_a_concurrency_below_one(monkeypatch, capsys):
    monkeypatch.setattr("uvicorn.run", lambda app, **kw: None)
    assert main(["serve", "--limit-concurrency", "0"]) == 2
    assert "--limit-concurrency" in capsys.readouterr().err


def test_python_dash_m_reports_a_user_error_like_the_installed_command(tmp_path) -> None:
    """``python -m api.cli`` runs cli.py as ``__main__``: the commands' CliError must still be the
    one it catches (it once answered "internal error: CliError", exit 1, for a photo without a
    sheet)."""
    import subprocess
    import sys

    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), np.full((300, 400, 3), 200, np.uint8))
    done = subprocess.run(
        [sys.executable, "-m", "api.cli", "read", str(photo)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == "cartographers read: no map grid found"


def test_help_lists_every_command_without_loading_the_database_or_the_solver() -> None:
    """``cartographers --help`` imports every command module to list it; the game and validate
    commands import SQLAlchemy and OR-Tools (about 0.9 s) only when they run."""
    import subprocess
    import sys

    code = (
        "import sys; from api.cli import main\n"
        "try: main(['--help'])\n"
        "except SystemExit: pass\n"
        "print(sorted(m for m in ('sqlalchemy', 'ortools', 'pandas') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "game" in done.stdout and "validate" in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.parametrize("outcome", ["read", "refused"])
def test_every_photo_read_hands_freed_memory_back(monkeypatch, outcome):
    """The service trims the C heap after each read, answered or refused, so bursts of uploads do
    not leave the resident memory grown (``release_freed_memory``; glibc keeps freed arenas)."""
    import vision
    from api import work
    from api.errors import ApiError

    def fake_read(data, side=None):
        if outcome == "refused":
            raise vision.PhotoError("no-grid", "no map grid found")
        return "reading"

    trims = []
    monkeypatch.setattr(vision, "read_photo", fake_read)
    monkeypatch.setattr(work, "_malloc_trim", lambda: trims.append)
    if outcome == "read":
        assert work.read_sheet_photo(b"photo", None) == "reading"
    else:
        with pytest.raises(ApiError):
            work.read_sheet_photo(b"photo", None)
    assert trims == [0]


def test_the_heap_trim_is_found_on_this_c_library():
    from api import work

    assert work._malloc_trim() is not None  # Debian's glibc (CI); musl or macOS would answer None
