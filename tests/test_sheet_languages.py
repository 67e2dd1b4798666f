"""The printable sheet in every language: its words translated, set in a real font beyond ASCII,
nothing but the words changed, the reader reading it as the English one, and a clean refusal when
no font can print the words."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from api.cli import main
from api.commands.sheet import page_image, page_scale, sheet_words
from api.i18n import language_of, speaking
from scoring.sheet import Sheet
from vision import read_photo
from vision.classify import MODEL_FILE
from vision.layout import GEOMETRY
from vision.synth import lettering, make_photo
from vision.synth.paper import Pen, SheetWords, render_sheet

needs_model = pytest.mark.skipif(not MODEL_FILE.exists(), reason="no trained model in models/")

LANGS = ["pt", "es", "uk"]  # as players type them after --lang
WORDS = {
    "en": SheetWords("CARTOGRAPHER:", "TITLE:", "N"),
    "pt": SheetWords("CARTÓGRAFO:", "TÍTULO:", "N"),
    "es": SheetWords("CARTÓGRAFO:", "TÍTULO:", "N"),
    "uk": SheetWords("КАРТОГРАФ:", "ТИТУЛ:", "Пн"),
}
DPI = 72  # small pages keep the tests fast; the drawing is the same at any size
HEADER_END_U = -0.4  # the header's lower edge (docs/printed-sheet.md); the frame starts below


@pytest.mark.parametrize("lang", ["en", *LANGS])
def test_the_sheet_words_are_those_of_the_language_in_force(lang):
    with speaking(str(language_of(lang))):
        assert sheet_words() == WORDS[lang]
    assert SheetWords() == WORDS["en"]  # the generator's default is the English pad


def _page(tmp_path, side: str, lang: str) -> np.ndarray:
    out = tmp_path / f"{side}-{lang}.png"
    assert (
        main(["sheet", "--side", side, "--out", str(out), "--dpi", str(DPI), "--lang", lang]) == 0
    )
    return cv2.imread(str(out))


@pytest.fixture(scope="module")
def english_pages(tmp_path_factory):
    folder = tmp_path_factory.mktemp("english")
    return {side: _page(folder, side, "en") for side in "AB"}


@pytest.mark.parametrize("side", ["A", "B"])
@pytest.mark.parametrize("lang", LANGS)
def test_a_translated_page_differs_from_the_english_one_in_the_header_words_only(
    tmp_path, english_pages, side, lang
):
    page, english = _page(tmp_path, side, lang), english_pages[side]
    assert page.shape == english.shape
    page_w, page_h, s = page_scale("a4", DPI)
    top = (page_h - int(round(GEOMETRY.sheet.height * s))) // 2
    left = (page_w - int(round(GEOMETRY.sheet.width * s))) // 2
    header_end = top + int((HEADER_END_U - GEOMETRY.sheet.y0) * s)
    rows, cols = np.nonzero((page != english).any(axis=2))
    assert len(rows) > 50  # the words did change
    assert rows.max() < header_end  # ... and nothing below the header did
    assert np.array_equal(page[header_end:], english[header_end:])
    # the name and title words left of the crest, the compass's north right of it when it changes
    by_the_lines = cols < left + (5.0 - GEOMETRY.sheet.x0) * s
    assert by_the_lines.any() and (WORDS[lang].north == "N") == by_the_lines.all()


def _read_page(side: str, words: SheetWords):
    return read_photo(
        cv2.imencode(".png", page_image(side, "a4", DPI, "print", words))[1].tobytes()
    )


@pytest.fixture(scope="module")
def english_readings():
    return {side: _read_page(side, WORDS["en"]) for side in "AB"}


@pytest.mark.slow
@needs_model
@pytest.mark.parametrize("side", ["A", "B"])
@pytest.mark.parametrize("lang", LANGS)
def test_the_reader_reads_a_translated_print_out_as_the_english_one(english_readings, lang, side):
    """A blank print-out reads as a blank sheet, grid and all, exactly as the English one does."""
    english, reading = english_readings[side], _read_page(side, WORDS[lang])
    assert reading.sheet == english.sheet == Sheet.blank(side)
    assert reading.sheet.coins == 0 and reading.side == side
    assert reading.low_confidence_cells == english.low_confidence_cells
    assert np.allclose(reading.intersections, english.intersections, atol=0.5)


PHOTO_SEED = 50_000_003  # benchmark range, never trained on
STEADY = {"defocus_px": 0.0, "motion_px": 0.0, "glare": 0.0}


def _printed_in(words: SheetWords):
    return lambda side, px_per_u, variant, rng: render_sheet(
        side, px_per_u=px_per_u, variant=variant, rng=rng, words=words
    )


@pytest.fixture(scope="module")
def english_photo():
    return make_photo(PHOTO_SEED, megapixels=1.0, condition=STEADY)


@pytest.fixture(scope="module")
def english_photo_reading(english_photo):
    return read_photo(english_photo.jpeg)


@pytest.mark.slow
def test_the_english_words_given_make_the_generator_s_own_photo(english_photo):
    """Handing the English words in changes nothing: the generator's photos stay as they were."""
    printed = make_photo(
        PHOTO_SEED, megapixels=1.0, condition=STEADY, printing=_printed_in(WORDS["en"])
    )
    assert printed.jpeg == english_photo.jpeg


@pytest.mark.slow
@needs_model
@pytest.mark.parametrize("lang", LANGS)
def test_a_filled_in_translated_sheet_photographed_reads_as_the_english_one(
    english_photo, english_photo_reading, lang
):
    english, english_reading = english_photo, english_photo_reading
    photo = make_photo(
        PHOTO_SEED, megapixels=1.0, condition=STEADY, printing=_printed_in(WORDS[lang])
    )
    assert photo.jpeg != english.jpeg and photo.truth["sheet"] == english.truth["sheet"]
    reading = read_photo(photo.jpeg)
    assert reading.sheet == english_reading.sheet
    assert reading.sheet.coins == english_reading.sheet.coins
    assert reading.low_confidence_cells == english_reading.low_confidence_cells
    assert np.allclose(reading.intersections, english_reading.intersections, atol=0.5)


def test_without_a_font_a_translated_sheet_is_refused_in_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(lettering, "font_for", lambda text: None)
    out = tmp_path / "uk.png"
    assert main(["sheet", "--side", "A", "--out", str(out), "--lang", "uk", "--dpi", "72"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("cartographers sheet: ")
    assert "fonts-dejavu-core" in err and "КАРТОГРАФ:" in err and not out.exists()
    # English needs no font: the Hershey lettering draws it
    assert main(["sheet", "--side", "A", "--out", str(out), "--lang", "en", "--dpi", "72"]) == 0


def test_a_font_is_used_only_if_it_has_every_letter(monkeypatch):
    found = lettering.font_for("КАРТОГРАФ: ТÍТULO")
    assert found is not None and found.name.startswith("DejaVuSans")
    monkeypatch.setattr(lettering, "_fontconfig_candidates", lambda text: [])
    monkeypatch.setattr(lettering, "FONT_DIRS", (str(found.parent),))
    assert lettering.font_for.__wrapped__("地図") is None  # DejaVu has no CJK letters
    with pytest.raises(lettering.FontMissing, match="fonts-dejavu-core"):
        lettering.draw_text(np.zeros((20, 80, 3), np.uint8), "地図", (40, 10), 8, (0, 0, 0), False)


def _title_ink(words: SheetWords, px_per_u: int) -> tuple[int, int, float]:
    """The top and bottom row of the title word's ink, as the header prints it on plain paper,
    and how much ink it is (in cap-height squares)."""
    image = np.full((px_per_u, 4 * px_per_u, 3), 200, np.uint8)
    Pen(image, px_per_u, (0.0, 0.0)).text(
        words.title, (0.1, 0.5), 0.26, (40, 52, 70), left=True, weight_u=0.03
    )
    ink = 200 - cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    rows = np.nonzero(ink.max(axis=1) > 40)[0]
    return int(rows.min()), int(rows.max()), float(ink.sum() / 255 / (0.26 * px_per_u) ** 2)


@pytest.mark.parametrize("px_per_u", [40, 60, 177])  # a photo's sheet … a 300 dpi print
def test_words_beyond_ascii_stand_where_the_hershey_ones_do(px_per_u):
    """Set in the font, the words stand on the English words' baseline, capitals as tall, about as
    heavy."""
    top, bottom, ink = _title_ink(WORDS["en"], px_per_u)
    uk_top, uk_bottom, uk_ink = _title_ink(WORDS["uk"], px_per_u)
    assert abs(uk_bottom - bottom) <= 1 and abs(uk_top - top) <= 1 + px_per_u // 60
    assert 0.6 < uk_ink / ink < 2.0  # at 40 px per unit the Hershey strokes are one pixel thin
    es_top, es_bottom, _ink = _title_ink(WORDS["es"], px_per_u)
    assert abs(es_bottom - bottom) <= 1 and es_top < top  # the accent stands above the capitals
