"""Reading the season boxes: the character classifier, blank boxes of every printing, numbers on
synthetic photos, the reading JSON, and training the classifier."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import cv2
import numpy as np
import pytest

from scoring.written import SEASON_NAMES, WrittenScores, WrittenSeason
from vision.bench_written import cell_values
from vision.digits import CLASSES, MODEL_DIR, default_digit_model, load_digit_model
from vision.seasons import (
    BOX_PX,
    DOES_NOT_ADD_UP,
    FLAG_BELOW,
    CellRead,
    arithmetic_confidence,
    decode_boxes,
    find_blobs,
    number_from_blobs,
    read_strip,
    remove_borders,
    unsure_numbers,
)

#: the stand-in cells below are drawn at 48 px/u and scaled to the reader's BOX_PX
DRAWN_PX = 48
K = BOX_PX / DRAWN_PX


def _at_box_px(d: np.ndarray) -> np.ndarray:
    """A cell drawn at ``DRAWN_PX`` per u, at ``BOX_PX`` per u."""
    h, w = d.shape
    return cv2.resize(d, (round(w * K), round(h * K)), interpolation=cv2.INTER_NEAREST)


needs_model = pytest.mark.skipif(
    not (MODEL_DIR / "digits.npz").exists(), reason="no digit model in models/"
)

#: floors well under the shipped model's validation figures (models/digits.json), far above a
#: broken pipeline (a constant answer scores 0.1 on digits)
LOAD_DIGITS_FLOOR = 0.8
GENERATOR_FLOOR = 0.85


@needs_model
def test_the_model_reads_held_out_generator_characters():
    from vision.digits_train import _stack, generated_examples

    x, y = _stack(*generated_examples(12, 0, np.random.default_rng(424242)))
    read = default_digit_model().probabilities(x).argmax(axis=1)
    assert float((read == y).mean()) >= GENERATOR_FLOOR


@needs_model
def test_the_model_reads_the_held_out_load_digits_split():
    from sklearn.datasets import load_digits

    from vision.digits_train import _stack, sklearn_digit_examples

    bunch = load_digits()
    test = np.random.default_rng(0).permutation(len(bunch.target))[: len(bunch.target) // 4]
    x, y = _stack(
        sklearn_digit_examples(bunch.data[test], np.random.default_rng(3)), list(bunch.target[test])
    )
    read = default_digit_model().probabilities(x).argmax(axis=1)
    assert float((read == y).mean()) >= LOAD_DIGITS_FLOOR


def _flat_strip(family: str, side: str, variant: str) -> np.ndarray:
    """The box strip of an empty flat printing, as the reader samples it."""
    from vision.digits_train import flat_strip
    from vision.synth.art import render_art

    return flat_strip(render_art(family, side, BOX_PX, variant, np.random.default_rng(9)))


@needs_model
@pytest.mark.parametrize(
    "family, side, variant",
    [
        ("lookalike", "A", "print"),
        ("lookalike", "B", "photocopy"),
        ("line-art", "A", "white-print"),
        ("engraved", "B", "print"),
        ("woodcut", "A", "print"),
    ],
)
def test_empty_boxes_of_every_printing_read_blank(family, side, variant):
    written = read_strip(_flat_strip(family, side, variant), default_digit_model())
    # a printed letter of our bolder printings may still pass for a digit (docs/reader.md,
    # "Season boxes"), and leave the blanks of its box in doubt
    assert sum(v is not None for v in cell_values(written).values()) <= 1, cell_values(written)
    assert len(unsure_numbers(written)) <= 8


def _box_reads(cells: dict[str, tuple]) -> dict[str, CellRead]:
    """Every writing cell blank and surely read, but ``cells``: key → candidates, best first."""
    from vision.season_boxes import writing_cells

    reads = {k: CellRead(None, 1.0, "", ((None, 1.0),)) for k in writing_cells()}
    for key, candidates in cells.items():
        reads[key] = CellRead(candidates[0][0], candidates[0][1], "", candidates)
    return reads


# spring 5 + 3 + 2 - 1 = 9; the edict's best reading is given first, its runner-up second
@pytest.mark.parametrize(
    "edict, expected, flagged",
    [
        (((8, 0.9), (5, 0.1)), 5, True),  # a misread 5 whose runner-up adds up: taken, doubted
        (((5, 0.99), (8, 0.01)), 5, False),  # read right and adding up: kept, sure
        (((8, 0.999), (5, 0.001)), 8, True),  # a surely read slip stays as written, flagged
    ],
)
def test_the_boxes_arithmetic_chooses_between_a_cells_readings(edict, expected, flagged):
    reads = _box_reads(
        {
            "spring.edict1": edict,
            "spring.edict2": ((3, 0.99),),
            "spring.coins": ((2, 0.99),),
            "spring.monsters": ((1, 0.99),),
            "spring.total": ((9, 0.99),),
        }
    )
    values, confidence = decode_boxes(reads)
    assert values["spring.edict1"] == expected
    assert values["spring.total"] == 9
    written = [
        WrittenSeason(
            s,
            (values[f"{s}.edict1"], values[f"{s}.edict2"]),
            values[f"{s}.coins"],
            values[f"{s}.monsters"],
            values[f"{s}.total"],
        )
        for s in SEASON_NAMES
    ]
    confidence = arithmetic_confidence(tuple(written), values["final"], confidence)
    assert bool(confidence["spring.edict1"] < FLAG_BELOW) == flagged
    if expected == 8:
        assert confidence["spring.total"] <= DOES_NOT_ADD_UP  # the whole box is checked


def test_the_final_total_chooses_the_reading_that_sums_the_seasons():
    reads = _box_reads(
        {
            "spring.total": ((4, 0.99),),
            "spring.edict1": ((4, 0.99),),
            "summer.total": ((6, 0.99),),
            "summer.edict1": ((6, 0.99),),
            "final": ((16, 0.7), (10, 0.3)),  # "10" read as "16"
        }
    )
    values, _ = decode_boxes(reads)
    assert values["final"] == 10


def test_border_lines_are_removed_but_a_one_written_beside_them_is_kept():
    h, w = 38, 43  # a small writing cell with its border band
    d = np.zeros((h, w), np.float32)
    band = 5
    d[:, band - 1 : band + 2] = 0.8  # the left border, the cell's whole height
    d[band - 1 : band + 2, :] = 0.8  # the top border
    d[12:30, 11:13] = 0.6  # a "1" 0.37 u tall, two pixels inside the border's band
    out = remove_borders(_at_box_px(d), BOX_PX)
    assert out.max() > 0.5  # the "1" is still there…
    ys, xs = np.nonzero(out > 0.3)
    assert xs.max() - xs.min() <= 2 * K and ys.max() - ys.min() >= 15 * K  # …whole, alone


def test_a_long_upright_border_inside_a_cell_is_removed_but_a_tall_one_is_kept():
    from vision.seasons import BORDER_RUN_U

    def px(u: float) -> int:
        return round(u * BOX_PX)

    d = np.zeros((px(1.37), px(0.98)), np.float32)  # a total cell with its border band
    border_x, one_x, tall = px(0.7), px(0.35), px(0.6)
    # a box's right border, well inside where it was looked for, and a tall "1"
    d[px(0.2) : px(0.2) + px(BORDER_RUN_U) + 4, border_x : border_x + 3] = 0.8
    d[px(0.4) : px(0.4) + tall, one_x : one_x + 3] = 0.6
    out = remove_borders(d, BOX_PX)
    ys, xs = np.nonzero(out > 0.3)
    e = (d.shape[1] - out.shape[1]) // 2
    assert set(xs + e) <= set(range(one_x, one_x + 3))  # the border is gone…
    assert ys.max() - ys.min() >= tall - 2  # …and the "1" whole


def _box_places(affines: list[np.ndarray]) -> np.ndarray:
    """(4, 2): how far (u) each box's fit moves its centre from the coin track's mapping."""
    from vision.season_boxes import box_places

    return box_places(affines) / BOX_PX


def test_a_box_snapped_out_of_line_with_the_others_is_snapped_again_from_their_line():
    from vision.layout import GEOMETRY
    from vision.season_boxes import STRIP, _box_lines, darkness, snap_box, snap_boxes

    strip = _flat_strip("lookalike", "A", "print").copy()
    # a darker copy of the spring box's borders 0.3 u to the left and 0.1 u up: alone, the box
    # snaps onto it (as onto the colour sheet's dark edge beside it)
    spring, (dx, dy) = GEOMETRY.season_boxes[0], (-0.3, -0.1)

    def at(u: float, v: float) -> tuple[int, int]:
        return round((u + dx - STRIP[0]) * BOX_PX), round((v + dy - STRIP[2]) * BOX_PX)

    xs, ys = _box_lines(spring)
    for x in xs:
        cv2.line(strip, at(x, spring.y0), at(x, spring.y1), 0, 3)
    for y in ys:
        cv2.line(strip, at(spring.x0, y), at(spring.x1, y), 0, 3)
    dark = darkness(strip)

    alone = _box_places([snap_box(dark, b) for b in GEOMETRY.season_boxes])
    together = _box_places(snap_boxes(dark))
    assert np.linalg.norm(alone[0]) > 0.3  # on the lure
    assert abs(together[0][0]) < 0.03  # back on its borders across (its lines along the lure's
    assert np.linalg.norm(together[0]) < 0.12  # stay within the second search's reach)
    assert np.abs(together[1:]).max() < 0.03 and np.allclose(together[1:], alone[1:])


class _WholeCellStub:
    """Whole-cell networks that read a "7" in every cell: in an edict cell where the cell is
    (no ink) only 0.6 surely (blank 0.4), anywhere with ink in its picture surely; other cells
    surely."""

    cell_networks = (object(),)

    def cell_probabilities(self, rows: np.ndarray) -> np.ndarray:
        from vision.cell_numbers import CELL_PARTS, CELL_SIDE, HEADS, LAYOUTS

        area = CELL_SIDE * CELL_SIDE
        out = np.zeros((len(rows), sum(HEADS)), np.float32)
        for row, o in zip(rows, out):
            edict = row[area + CELL_PARTS.index("edict1")] or row[area + CELL_PARTS.index("edict2")]
            sure = 1.0 if row[:area].max() > 0 or not edict else 0.6
            o[LAYOUTS.index("d")], o[LAYOUTS.index("")] = sure, 1.0 - sure
            o[len(LAYOUTS) + 7] = 1.0
        return out


def test_an_unsure_cell_is_read_again_moved_each_way_and_its_readings_averaged():
    from vision.seasons import WHOLE_CELL_SHIFT_U, whole_cell_numbers

    keys = ("spring.edict1", "spring.coins", "final")
    inks = {k: np.zeros((40, 50), np.float32) for k in keys}
    inked = np.zeros((40, 50), np.float32)
    inked[15:25, 20:26] = 0.5  # a stroke in the middle of the cell: read surely
    asked = []

    def moved(shift: tuple[float, float]) -> dict[str, np.ndarray]:
        asked.append(shift)
        return {k: inked for k in keys}

    numbers = whole_cell_numbers(_WholeCellStub(), inks, moved, 0.3, 0.02)
    sureness = {k: n.get(7, 0.0) for k, n in numbers.items()}
    s = WHOLE_CELL_SHIFT_U
    assert sorted(asked) == sorted([(s, 0.0), (-s, 0.0), (0.0, s), (0.0, -s)])
    assert sureness["spring.edict1"] == pytest.approx((0.6 + 4 * 1.0) / 5)  # five readings
    assert sureness["spring.coins"] == sureness["final"] == 1.0  # sure cells: read once

    asked.clear()
    whole_cell_numbers(_WholeCellStub(), {k: inked for k in keys}, moved, 0.3, 0.02)
    assert asked == []  # every cell sure: nothing is read again


@pytest.mark.parametrize(
    "cells, key",
    [
        ({"winter.edict1": ((0, 0.7), (None, 0.3))}, "winter.edict1"),  # a letter read as "0"
        ({"final": ((5, 0.95), (None, 0.05))}, "final"),  # print in the shield read as "5"
    ],
)
def test_numbers_in_a_box_without_its_total_read_blank_when_blank_may_be_read(cells, key):
    values, _ = decode_boxes(_box_reads(cells))
    assert values[key] is None


def test_a_box_written_whole_keeps_its_numbers():
    reads = _box_reads(
        {
            "winter.edict1": ((0, 0.7), (None, 0.3)),
            "winter.edict2": ((4, 0.99),),
            "winter.total": ((4, 0.99),),
        }
    )
    values, _ = decode_boxes(reads)
    assert values["winter.edict1"] == 0 and values["winter.total"] == 4


def test_a_cell_without_ink_has_no_blobs_and_reads_blank():
    rng = np.random.default_rng(0)
    paper = np.abs(rng.normal(0, 0.01, (30, 40))).astype(np.float32)
    blobs = find_blobs(paper, BOX_PX)
    assert blobs == []
    read = number_from_blobs(blobs, np.zeros((0, len(CLASSES))), signed=True)
    assert read.value is None and read.confidence == 1.0


def _width_u(features: np.ndarray) -> np.ndarray:
    """The blobs' widths in u, from their feature rows (for the stand-in classifiers)."""
    from vision.digits import SHAPE_COLUMNS, SHAPE_NAMES

    return np.asarray(features)[:, SHAPE_COLUMNS.start + SHAPE_NAMES.index("width_u")]


class _WidthModel:
    """A stand-in classifier: a blob under 0.18 u wide is a "1" (``sure`` so), a wider one a sure
    crossed-out number."""

    def __init__(self, sure: float) -> None:
        self.sure = sure

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        from vision.digits import NOISE, SCRIBBLE

        width = _width_u(features)
        out = np.zeros((len(features), len(CLASSES)), np.float32)
        out[width < 0.18, CLASSES.index("1")] = self.sure
        out[width < 0.18, NOISE] = 1 - self.sure
        out[width >= 0.18, SCRIBBLE] = 0.97
        return out


@pytest.mark.parametrize("sure, expected", [(0.97, ["1", "1"]), (0.6, ["scribble"])])
def test_touching_strokes_read_as_crossed_out_are_cut_when_both_pieces_read_surely(
    sure: float, expected: list
):
    from vision.seasons import SCRIBBLE_CUT_SURE, best_reading

    ink = np.zeros((30, 40), np.float32)
    ink[10:20, 10:14] = ink[10:20, 16:20] = 1.0  # two short bars…
    ink[14:16, 14:16] = 0.6  # …touching: one blob, as wide as tall
    (blob,) = find_blobs(_at_box_px(ink), BOX_PX)
    pieces, probs = best_reading(blob, _WidthModel(sure), BOX_PX)
    assert [CLASSES[int(k)] for k in probs.argmax(axis=1)] == expected
    assert len(pieces) == len(expected)
    assert (sure >= SCRIBBLE_CUT_SURE) == (len(pieces) == 2)


class _TouchingModel:
    """A stand-in classifier: a blob over 0.22 u wide is a fairly sure "8", a narrower one a "1"
    when under 0.1 u wide, else an "8"."""

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        width = _width_u(features)
        out = np.full((len(features), len(CLASSES)), 0.001, np.float32)
        out[:, CLASSES.index("8")] = np.where(width < 0.1, 0.05, 0.9)
        out[:, CLASSES.index("1")] = np.where(width < 0.1, 0.9, 0.05)
        return out


class _WideEightModel:
    """A stand-in classifier, by the blob's width: over 0.35 u an "8" sure enough to stand whole
    (0.75), 0.25–0.35 u a very sure "8", 0.1–0.25 u an unsure "8", under 0.1 u a very sure "1"."""

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        width = _width_u(features)
        eight = np.select([width > 0.35, width > 0.25, width >= 0.1], [0.75, 0.99, 0.3], 0.0)
        out = np.full((len(features), len(CLASSES)), 0.001, np.float32)
        out[:, CLASSES.index("8")] = eight
        out[:, CLASSES.index("1")] = np.where(width < 0.1, 0.99, 0.0)
        return out


@pytest.mark.parametrize("height, expected", [(16, ["1", "8"]), (24, ["8"])])
def test_a_blob_wider_than_tall_is_tried_cut_even_when_read_surely_whole(height, expected):
    from vision.seasons import best_reading

    d = np.zeros((40, 40), np.float32)
    d[8 : 8 + height, 10:13] = 0.8  # a "1"…
    d[8 : 8 + height, 15:28] = 0.8  # …touching a wide "8": 18 px wide
    d[14:16, 13:15] = 0.8
    (blob,) = find_blobs(_at_box_px(d), BOX_PX)
    pieces, probs = best_reading(blob, _WideEightModel(), BOX_PX)
    assert [CLASSES[int(k)] for k in probs.argmax(axis=1)] == expected
    assert len(pieces) == len(expected)


def test_a_blob_read_whole_offers_its_two_piece_reading_to_the_arithmetic():
    from vision.seasons import read_ink, remove_borders

    d = np.zeros((38, 43), np.float32)
    d[10:26, 12:15] = 0.8  # a "1"…
    d[10:26, 17:27] = 0.8  # …touching an "8"-sized blot: one blob, read whole as "8"
    d[17:19, 15:17] = 0.8
    read = read_ink(remove_borders(_at_box_px(d), BOX_PX), BOX_PX, _TouchingModel(), signed=False)
    assert read.value == 8
    assert 18 in [v for v, _ in read.candidates]  # the cut reading, less probable
    reads = _box_reads(
        {
            "spring.edict1": read.candidates,
            "spring.edict2": ((3, 0.99),),
            "spring.total": ((21, 0.99),),
        }
    )
    values, _ = decode_boxes(reads)
    assert values["spring.edict1"] == 18  # 18 + 3 = 21 chooses the cut reading


class _CountingModel:
    """A stand-in classifier that reads as ``_TouchingModel`` and counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        self.calls += 1
        return _TouchingModel().probabilities(features)


def _touching_cells() -> list[np.ndarray]:
    """Three cells: a "1" touching an "8"-sized blot, a lone bar, and the two apart."""
    touching = np.zeros((38, 43), np.float32)
    touching[10:26, 12:15] = 0.8
    touching[10:26, 17:27] = 0.8
    touching[17:19, 15:17] = 0.8
    bar = np.zeros((38, 43), np.float32)
    bar[10:26, 20:23] = 0.8
    apart = np.zeros((38, 43), np.float32)
    apart[10:26, 8:11] = 0.8
    apart[10:26, 17:27] = 0.8
    return [remove_borders(_at_box_px(d), BOX_PX) for d in (touching, bar, apart)]


def test_cells_read_together_read_as_each_alone_with_a_few_classifier_calls():
    from vision.seasons import read_ink, read_inks

    cells = _touching_cells()
    signed = [False, True, False]
    alone = [read_ink(ink, BOX_PX, _TouchingModel(), sign) for ink, sign in zip(cells, signed)]
    model = _CountingModel()
    together = read_inks(cells, signed, BOX_PX, model)
    assert together == alone
    assert [r.value for r in together] == [8, 1, 18]
    # whole blobs, single cuts, pairs of cuts, the other way: one call each for every cell
    assert model.calls <= 4


class _MinusModel:
    """A stand-in classifier that reads every blob as a sure minus sign."""

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        out = np.zeros((len(features), len(CLASSES)), np.float32)
        out[:, CLASSES.index("-")] = 1.0
        return out


def test_a_cell_no_reading_of_which_spells_a_number_reads_blank_and_unsure():
    from vision.seasons import read_ink, remove_borders

    d = np.zeros((38, 43), np.float32)
    d[15:19, 10:20] = d[15:19, 23:33] = 0.8  # two dashes: "--" whole or cut, never a number
    read = read_ink(remove_borders(d, BOX_PX), BOX_PX, _MinusModel(), signed=True)
    assert read.value is None and read.confidence == 0.0
    assert read.candidates == ()
    values, confidence = decode_boxes(_box_reads({}) | {"spring.monsters": read})
    assert values["spring.monsters"] is None and confidence["spring.monsters"] < FLAG_BELOW


def test_a_digit_model_of_another_layout_is_refused_with_a_clear_error(tmp_path):
    from vision.inference import Network, to_arrays

    old = Network(
        np.zeros(3),
        np.ones(3),
        (np.eye(3, dtype=np.float32),),
        (np.zeros(3, np.float32),),
        np.arange(3),
    )
    np.savez_compressed(tmp_path / "digits.npz", **to_arrays(old, "digits/"))  # one bare network
    with pytest.raises(ValueError, match="train-digits"):
        load_digit_model(tmp_path)
    np.savez_compressed(tmp_path / "digits.npz", **to_arrays(old, "digits/0/"))  # 3 features
    with pytest.raises(ValueError, match="features"):
        load_digit_model(tmp_path)


# benchmark-range seeds whose sheets have all four seasons and the final total written (20
# numbers each); small photos keep it fast
PHOTO_SEEDS = [50_000_005, 50_000_008, 50_000_014]
MIN_NUMBERS_EXACT = 0.9  # these read 1.0 (the character reader alone 0.83); broken ~0


@pytest.fixture(scope="module")
def photos():
    from vision.synth import make_photo

    return [
        make_photo(s, megapixels=3.0, condition={"defocus_px": 0.0, "motion_px": 0.0})
        for s in PHOTO_SEEDS
    ]


@needs_model
def test_the_boxes_of_synthetic_photos_read_as_written(photos):
    from vision import read_photo

    right = total = blank_right = blanks = 0
    for photo in photos:
        reading = read_photo(photo.jpeg, digits=True)
        truth = cell_values(WrittenScores.from_json(photo.truth["written"]))
        read = cell_values(reading.written)
        for key, value in truth.items():
            if value is None:
                blanks += 1
                blank_right += read[key] is None
            else:
                total += 1
                right += read[key] == value
        out = reading.to_json()
        assert set(out["written_confidence"]) == set(truth)
        assert out["seasons_written"] == reading.written.to_json()["seasons_written"]
    assert total >= 30
    assert right / total >= MIN_NUMBERS_EXACT
    assert blank_right == blanks


def test_train_digits_quick_saves_a_model_that_loads_without_pickle(tmp_path):
    from vision.cell_numbers import HEADS, N_CELL_INPUTS
    from vision.digits import N_FEATURES
    from vision.digits_train import train_digits
    from vision.inference import ConvNet, Network

    model = train_digits(3, quick=True, log=lambda _: None)
    model.save(tmp_path)
    back = load_digit_model(tmp_path)
    assert {type(n) for n in back.networks} == {Network, ConvNet}  # both kinds, both saved
    x = np.random.default_rng(0).random(size=(5, N_FEATURES)).astype(np.float32)
    assert np.allclose(back.probabilities(x), model.probabilities(x), atol=1e-5)
    assert len(back.cell_networks) == 1 and back.cell_networks[0].heads == HEADS
    cells = np.random.default_rng(1).random(size=(3, N_CELL_INPUTS)).astype(np.float32)
    assert np.allclose(back.cell_probabilities(cells), model.cell_probabilities(cells), atol=1e-5)
    assert np.allclose(back.cell_probabilities(cells).sum(axis=1), len(HEADS), atol=1e-4)
    assert back.meta["command"].endswith("--quick")
    assert back.meta["validation"]["load_digits_test_accuracy"] > 0.3  # far above chance (0.1)


def test_the_numpy_convnet_computes_what_pytorch_computes():
    torch = pytest.importorskip("torch")  # the training extra: pip install -e '.[train]'
    from vision.convnet_train import ConvNetRecipe, _module, export_convnet

    torch.manual_seed(0)
    side, n_numbers = 24, 5
    net = _module(side, n_numbers, 4, ConvNetRecipe(width=4, hidden=8)).eval()
    with torch.no_grad():  # larger weights than a fresh start's: outputs far from uniform
        for parameter in net.parameters():
            parameter.mul_(2.0)
    rng = np.random.default_rng(1)
    density = rng.uniform(0.02, 0.6, size=(6, 1))  # pictures from nearly blank to dark
    pictures = (rng.random((6, side * side)) < density).astype(np.float32)
    numbers = rng.normal(size=(6, n_numbers)).astype(np.float32)
    mean, scale = numbers.mean(axis=0), numbers.std(axis=0) + 0.5
    ours = export_convnet(net, mean, scale, np.arange(4), side)
    with torch.no_grad():
        theirs = torch.softmax(
            net(
                torch.from_numpy(pictures).view(-1, 1, side, side),
                torch.from_numpy(((numbers - mean) / scale).astype(np.float32)),
            ),
            1,
        ).numpy()
    got = ours.predict_proba(np.hstack([pictures, numbers]))
    assert np.abs(np.log(got) - np.log(theirs)).max() < 1e-3
    assert np.ptp(np.log(theirs), axis=0).max() > 0.1  # the rows differ: the match means something


def test_a_convnet_survives_the_model_file():
    from vision.inference import ConvNet, from_arrays, to_arrays

    rng = np.random.default_rng(2)
    net = ConvNet(
        side=8,
        kernels=(rng.normal(size=(2, 1, 3, 3)).astype(np.float32),),
        kernel_biases=(rng.normal(size=2).astype(np.float32),),
        mean=np.array([0.5]),
        scale=np.array([2.0]),
        weights=(rng.normal(size=(2 * 4 * 4 + 1, 3)).astype(np.float32),),
        biases=(np.zeros(3, np.float32),),
        classes=np.array([0, 1, 2]),
    )
    back = from_arrays(to_arrays(net, "n/"), "n/")
    x = rng.random((4, 65)).astype(np.float32)
    assert back.side == 8 and np.array_equal(back.predict_proba(x), net.predict_proba(x))
    assert back.heads == () and np.allclose(back.predict_proba(x).sum(axis=1), 1.0)
    grouped = replace(net, heads=(1, 2))  # a softmax of its own for each group of outputs
    back = from_arrays(to_arrays(grouped, "n/"), "n/")
    assert back.heads == (1, 2)
    p = back.predict_proba(x)
    assert np.allclose(p[:, 0], 1.0) and np.allclose(p[:, 1:].sum(axis=1), 1.0)
    assert not np.allclose(p, net.predict_proba(x))


def test_the_numpy_convnet_computes_pytorchs_softmax_per_head():
    torch = pytest.importorskip("torch")
    from vision.convnet_train import ConvNetRecipe, _module, export_convnet

    torch.manual_seed(3)
    side, heads = 16, (3, 4)
    net = _module(side, 2, sum(heads), ConvNetRecipe(width=4, hidden=8)).eval()
    rng = np.random.default_rng(4)
    pictures = rng.random((5, side * side)).astype(np.float32)
    numbers = rng.normal(size=(5, 2)).astype(np.float32)
    ours = export_convnet(net, np.zeros(2), np.ones(2), np.arange(7), side, heads)
    with torch.no_grad():
        raw = net(torch.from_numpy(pictures).view(-1, 1, side, side), torch.from_numpy(numbers))
    theirs = np.hstack([torch.softmax(raw[:, :3], 1).numpy(), torch.softmax(raw[:, 3:], 1).numpy()])
    assert np.abs(ours.predict_proba(np.hstack([pictures, numbers])) - theirs).max() < 1e-5


_READ_BOXES_IN_A_FRESH_PROCESS = """
import sys
import cv2, numpy as np
from vision.season_boxes import BOX_PX
from vision.seasons import blob_features, find_blobs
from vision.digits import default_digit_model
ink = np.zeros((BOX_PX, BOX_PX), np.uint8)
cv2.putText(ink, "7", (20, 50), cv2.FONT_HERSHEY_SIMPLEX, 1.2, 200, 4)
blobs = find_blobs(ink.astype(np.float32) / 255, BOX_PX)
p = default_digit_model().probabilities(blob_features(blobs, BOX_PX))
print(len(blobs), p.shape[1], "torch" in sys.modules, "sklearn" in sys.modules)
"""


@needs_model
def test_reading_the_boxes_never_imports_pytorch_or_scikit_learn():
    """The convolutional networks were fitted with PyTorch; reading runs their numpy copy."""
    done = subprocess.run(
        [sys.executable, "-c", _READ_BOXES_IN_A_FRESH_PROCESS],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", "14", "False", "False"]


def test_train_digits_without_pytorch_says_how_to_get_it(monkeypatch, capsys, tmp_path):
    from api.cli import main

    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` raises ImportError
    assert main(["train-digits", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "PyTorch" in err and ".[train]" in err and len(err.splitlines()) == 1
    assert not any(tmp_path.iterdir())  # nothing written
