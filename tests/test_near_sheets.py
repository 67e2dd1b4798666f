"""Photos that are almost a map sheet (tests/near_sheets.py): every face answers a reading or a
clear "no map grid/sheet found", never another exception, never a 5xx.

Hypothesis draws the kind and the seed (a bounded number of examples: each read takes about a
second); the table tests run every kind once through the CLI and the HTTP service.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.cli import main as cli_main
from api.service import create_app
from api.settings import Settings
from tests.near_sheets import NEAR_SHEETS, as_jpeg
from vision import grid, lattice
from vision.grid import linefit
from vision.grid.profiles import THIN_KERNEL_U, THIN_PX
from vision.grid.tuning import SHIPPED
from vision.layout import GRID
from vision.load import PhotoError
from vision.reader import Reading, read_photo

#: what the reader may say when it reads no sheet: a player's words, never an exception's
NO_SHEET = re.compile(
    r"^(no map grid found|no map sheet found: the printed mountains are missing"
    r"|the photo is only \d+×\d+ px: no map grid can be read)$"
)


def outcome(data: bytes) -> str:
    """``read`` or ``no-grid``; anything else fails the test."""
    try:
        reading = read_photo(data)
    except PhotoError as e:
        assert e.code == "no-grid" and NO_SHEET.match(e.message), (e.code, e.message)
        return "no-grid"
    assert isinstance(reading, Reading) and len(reading.sheet.cells) == 11
    return "read"


@settings(
    max_examples=16, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(kind=st.sampled_from(sorted(NEAR_SHEETS)), seed=st.integers(0, 10_000))
def test_a_near_sheet_gives_a_reading_or_no_grid(kind: str, seed: int) -> None:
    outcome(as_jpeg(NEAR_SHEETS[kind](seed)))


@pytest.mark.parametrize("kind", ["bare-lattice", "two-lattices"])
def test_a_lattice_without_printed_mountains_is_no_map_sheet(kind: str) -> None:
    found = [s for s in range(4) if grid.fit_grid(NEAR_SHEETS[kind](s)) is not None]
    assert found, "no lattice found at all: the case tests nothing"
    with pytest.raises(PhotoError, match="no map sheet found: the printed mountains are missing"):
        read_photo(as_jpeg(NEAR_SHEETS[kind](found[0])))


@pytest.mark.parametrize("kind", sorted(NEAR_SHEETS))
def test_the_cli_answers_a_near_sheet_in_one_line(kind: str, tmp_path, capsys) -> None:
    photo = tmp_path / f"{kind}.jpg"
    photo.write_bytes(as_jpeg(NEAR_SHEETS[kind](1)))
    status = cli_main(["read", str(photo), "--json"])
    err = capsys.readouterr().err.strip()
    assert status in (0, 2)
    if status == 2:
        assert re.fullmatch(r"cartographers read: [^\n]+", err) and NO_SHEET.match(
            err.split(": ", 1)[1]
        ), err
        assert not re.search(r"Error|Exception|Traceback", err)


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(Settings()), raise_server_exceptions=False)


@pytest.mark.parametrize("kind", sorted(NEAR_SHEETS))
def test_the_service_never_answers_5xx_to_a_near_sheet(kind: str, client: TestClient) -> None:
    r = client.post(
        "/v1/read", files={"photo": (f"{kind}.jpg", as_jpeg(NEAR_SHEETS[kind](2)), "image/jpeg")}
    )
    assert r.status_code in (200, 422), r.text
    if r.status_code == 422:
        assert r.json()["code"] == "no-grid" and NO_SHEET.match(r.json()["message"])


def test_lines_of_one_axis_give_no_line_fit_rather_than_a_singular_matrix() -> None:
    """The thin-line fit on a rectified image crossed by lines of one axis only: each axis fixes its
    own terms, so there is no fit (the search moves on), not ``LinAlgError`` from inverting a
    singular one."""
    px, m = THIN_PX, linefit.LINE_FIT_MARGIN_U
    size = int((GRID + 2 * m) * px)
    image = np.full((size, size), 200, np.uint8)
    for i in range(1, GRID):
        x = int((m + i) * px)
        image[:, x - 1 : x + 1] = 20  # lines of constant x only
    to_px = np.array([[px, 0, m * px], [0, px, m * px], [0, 0, 1.0]])
    canon = lattice.warp_canonical(image, to_px, px, -m, -m, GRID + m, GRID + m)
    thin = lattice.black_hat(canon, int(THIN_KERNEL_U * px)).astype(np.float32)
    measures = linefit.line_measures(thin, 0.45)
    assert len(measures) >= 12 and set(measures[:, 0]) == {
        0.0
    }  # plenty of measurements, all on one axis
    # before: a "fit" whose y row was rounding noise (1e-17) or exact zeros, inverted into nonsense
    # or LinAlgError depending on the BLAS build
    correction, kept = linefit.lines_homography(measures, SHIPPED.line_fit)
    assert correction is None and kept == 0.0
    assert linefit.thin_line_fit(image, to_px, SHIPPED.line_fit) is None


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    vertical=st.integers(0, 40),
    horizontal=st.integers(0, 40),
    seed=st.integers(0, 2**32 - 1),
    noise=st.floats(0.0, 0.3),
)
def test_a_line_fit_is_none_or_a_well_conditioned_homography(
    vertical, horizontal, seed, noise
) -> None:
    """Any mix of strip measurements (of either axis, any count, noisy) gives no fit or one that
    inverts."""
    rng = np.random.default_rng(seed)
    rows = []
    for axis, n in ((0, vertical), (1, horizontal)):
        index = rng.integers(1, GRID, n)
        rows += [
            (axis, i + rng.normal(0, noise), rng.uniform(0, GRID), i, rng.uniform(0.1, 2))
            for i in index
        ]
    correction, kept = linefit.lines_homography(np.array(rows).reshape(-1, 5), SHIPPED.line_fit)
    if correction is None:
        assert kept == 0.0
    else:
        assert np.linalg.cond(correction) < lattice.MAX_HOMOGRAPHY_CONDITION and 0 < kept <= 1
