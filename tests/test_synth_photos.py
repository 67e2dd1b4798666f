"""Synthetic photos: deterministic per seed, choosable
by family, with consistent truth; the CLIs."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from api.cli import main
from scoring.sheet import Sheet
from vision.synth import BACKGROUND_FAMILIES, STYLE_FAMILIES, make_photo, render_sheet
from vision.synth.maps import random_sheet
from vision.synth.photo import GEOMETRY_CONDITIONS, retake


def test_same_seed_same_photo_and_other_seed_other_photo():
    a, b, c = (make_photo(s, megapixels=0.5) for s in (11, 11, 12))
    assert a.jpeg == b.jpeg and a.truth == b.truth
    assert a.jpeg != c.jpeg


@pytest.mark.parametrize(
    "stop, n", [(0.0, 2), (1.0, 2), (3.0, 7), (0.7213, 19), (12.345678, 310), (5.0, 1)]
)
def test_fast_linspace_is_numpy_linspace_bit_for_bit(stop, n):
    """The strokes' resampling uses a lean linspace; any
    bit of difference would change every photo."""
    from vision.synth.strokes import _linspace

    assert np.array_equal(_linspace(stop, n), np.linspace(0, stop, n))


def test_a_retake_shows_the_same_drawing_from_the_same_place_in_another_light():
    first = make_photo(11, megapixels=1.0, style="colour-shading")
    again, other = retake(first, 1), retake(first, 2)
    assert retake(first, 1).jpeg == again.jpeg  # the same take is the same photo
    assert len({first.jpeg, again.jpeg, other.jpeg}) == 3
    for photo in (again, other):
        assert photo.truth["sheet"] == first.truth["sheet"]
        assert photo.truth["intersections"] == first.truth["intersections"]
        assert all(
            photo.truth["conditions"][k] == first.truth["conditions"][k]
            for k in GEOMETRY_CONDITIONS
        )
    light = [k for k in first.truth["conditions"] if k not in GEOMETRY_CONDITIONS]
    assert (
        sum(again.truth["conditions"][k] != first.truth["conditions"][k] for k in light)
        >= len(light) // 2
    )
    with pytest.raises(ValueError, match="take >= 1"):
        retake(first, 0)


@pytest.mark.parametrize("family", sorted(STYLE_FAMILIES))
def test_style_family_can_be_chosen(family):
    photo = make_photo(3, megapixels=0.5, style_family=family)
    assert photo.truth["style_family"] == family and photo.truth["style"] in STYLE_FAMILIES[family]


@pytest.mark.parametrize("family", sorted(BACKGROUND_FAMILIES))
def test_background_family_can_be_chosen(family):
    photo = make_photo(4, megapixels=0.5, background_family=family)
    assert photo.truth["background_family"] == family
    assert photo.truth["background"] in BACKGROUND_FAMILIES[family]


def test_truth_shapes_and_given_sheet_round_trip():
    sheet = random_sheet("B", np.random.default_rng(5), shapes=12)
    photo = make_photo(
        5, sheet=sheet, megapixels=0.6, condition={"fingers": 2, "second_sheet": True}
    )
    t = photo.truth
    assert Sheet.from_json(t["sheet"]) == sheet and t["coins"] == sheet.coins
    inter = np.array(t["intersections"])
    assert inter.shape == (12, 12, 2)
    corners = np.array(t["grid_corners"])
    assert np.allclose(corners, [inter[0, 0], inter[0, 11], inter[11, 11], inter[11, 0]], atol=0.01)
    img = photo.image
    assert img.shape[:2] == (t["height"], t["width"])
    assert abs(t["width"] * t["height"] / 1e6 - 0.6) < 0.05
    json.dumps(t)  # the truth is plain JSON


def test_grid_corners_show_the_dark_frame_corner():
    """Picture and truth agree: the printed frame's corner is darker than the paper in the cell."""
    photo = make_photo(
        8,
        sheet=Sheet.blank("A"),
        style="graphite-symbols",
        megapixels=1.0,
        condition={
            "defocus_px": 0.0,
            "motion_px": 0.0,
            "noise": 1.0,
            "shadow": 0.0,
            "fingers": 0,
            "jpeg_quality": 95,
            "exposure": 0.9,
        },
    )
    grey = cv2.cvtColor(photo.image, cv2.COLOR_BGR2GRAY).astype(float)
    inter = np.array(photo.truth["intersections"])
    for j, i in ((0, 0), (0, 11), (11, 11), (11, 0)):
        x, y = inter[j, i]
        inward = inter[5, 5] - inter[j, i]
        inside = inter[j, i] + inward * 0.08  # about half a cell inside the grid
        on_line = grey[int(round(y)), int(round(x))]
        in_cell = grey[int(round(inside[1])), int(round(inside[0]))]
        assert on_line < in_cell - 15


def test_unknown_names_are_refused():
    with pytest.raises(ValueError, match="style"):
        make_photo(1, style="crayon")
    with pytest.raises(ValueError, match="background family"):
        make_photo(1, background_family="lava")
    with pytest.raises(ValueError, match="condition"):
        make_photo(1, condition={"tilt": 3})
    with pytest.raises(ValueError, match="side"):
        render_sheet("C")


def test_synth_command_writes_photos_and_truth(tmp_path, capsys):
    assert (
        main(["synth", "--n", "2", "--seed", "3", "--out", str(tmp_path), "--megapixels", "0.4"])
        == 0
    )
    jpgs = sorted(tmp_path.glob("*.jpg"))
    truths = sorted(tmp_path.glob("*.truth.json"))
    assert len(jpgs) == 2 and len(truths) == 2
    t = json.loads(truths[0].read_text())
    assert Sheet.from_json(t["sheet"]).side in "AB"
    assert cv2.imread(str(jpgs[0])).shape[:2] == (t["height"], t["width"])


@pytest.mark.parametrize(
    "argv, message",
    [
        (["synth", "--n", "0", "--out", "OUT"], "--n must be at least 1"),
        (["synth", "--n", "1", "--out", "OUT", "--megapixels", "500"], "--megapixels"),
        (["sheet", "--side", "A", "--out", "OUT/x.jpg"], "must end in .pdf or .png"),
        (["sheet", "--side", "A", "--out", "OUT/missing/x.png"], "does not exist"),
    ],
)
def test_commands_refuse_bad_arguments_in_one_line(tmp_path, capsys, argv, message):
    argv = [a.replace("OUT", str(tmp_path)) for a in argv]
    assert main(argv) != 0
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "paper, dpi, size", [("a4", 300, (2480, 3508)), ("letter", 150, (1275, 1650))]
)
def test_sheet_command_writes_a_page_of_the_right_size(tmp_path, paper, dpi, size):
    out = tmp_path / "sheet.png"
    assert (
        main(["sheet", "--side", "B", "--out", str(out), "--paper", paper, "--dpi", str(dpi)]) == 0
    )
    img = cv2.imread(str(out))
    assert (img.shape[1], img.shape[0]) == size
    assert img[5, 5].min() == 255  # margin left white for the printer


def test_sheet_command_writes_a_pdf(tmp_path):
    out = tmp_path / "sheet.pdf"
    assert main(["sheet", "--side", "A", "--out", str(out), "--dpi", "100"]) == 0
    assert out.read_bytes()[:5] == b"%PDF-"


def test_synth_command_gives_the_same_photos_with_two_workers(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    assert main(["synth", "--n", "2", "--seed", "9", "--out", str(one), "--megapixels", "0.3"]) == 0
    assert (
        main(
            [
                "synth",
                "--n",
                "2",
                "--seed",
                "9",
                "--out",
                str(two),
                "--megapixels",
                "0.3",
                "--jobs",
                "2",
            ]
        )
        == 0
    )
    for a in sorted(one.iterdir()):
        assert a.read_bytes() == (two / a.name).read_bytes()
