"""Every scoring card on hand-built maps: the card's printed examples and the reference's decisions.

Side A prints mountains at B4 F6 C9 I3 J8 and ruins at B6 C2 C10 I2 I10 J6; side B prints
mountains at B9 C4 H6 I10 J3, ruins at B7 C3 E7 G2 H9 J4 and the rift D6 E5 E6 F5 F6 F7 G6.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring.cards import CARDS, score_card
from scoring.sheet import Sheet
from tests.conftest import cell, col_cells, make, row_cells

CASES = [
    # (card, sheet, expected stars, why)
    # ---- Sentinel Wood
    ("sentinel-wood", make(), 0, "empty map"),
    ("sentinel-wood", make(forest="A1"), 1, "card example: a corner forest counts once, not twice"),
    ("sentinel-wood", make(forest="A1 A2 B1"), 3, "three edge forests"),
    ("sentinel-wood", make(forest="A1 A11 K1 K11"), 4, "four corners"),
    ("sentinel-wood", make(forest="B2 E5"), 0, "inner forests"),
    (
        "sentinel-wood",
        make(
            forest=row_cells("A")
            + " "
            + row_cells("K")
            + " "
            + col_cells(1, "A1 K1")
            + " "
            + col_cells(11, "A11 K11")
        ),
        40,
        "the whole ring is 40 cells",
    ),
    ("sentinel-wood", make(village="A1 A2", farm="K11"), 0, "other terrains on the edge"),
    # ---- Greenbough
    ("greenbough", make(), 0, "empty map"),
    ("greenbough", make(forest="A1"), 2, "one forest: its row and its column"),
    ("greenbough", make(forest="A1 A2"), 3, "one row, two columns"),
    ("greenbough", make(forest="A1 B1"), 3, "two rows, one column"),
    ("greenbough", make(forest="A1 B2 C3"), 6, "a diagonal"),
    (
        "greenbough",
        make(forest=" ".join(f"{chr(65 + i)}{i + 1}" for i in range(11) if i != 5)),
        20,
        "ten diagonal cells (F6 is a mountain)",
    ),
    # ---- Treetower
    ("treetower", make(), 0, "empty map"),
    ("treetower", make(forest="A1"), 0, "a lone corner forest: open sides"),
    ("treetower", make(forest="A1", village="A2 B1"), 1, "corner: two edges and two filled"),
    (
        "treetower",
        make(forest="A4", farm="A3 A5"),
        1,
        "card example: top edge, a mountain below (B4)",
    ),
    ("treetower", make(forest="A4", farm="A3"), 0, "one side open"),
    ("treetower", make(forest="E5 D5 F5 E4 E6"), 1, "the centre of a plus scores, its arms do not"),
    # ---- Stoneside Forest
    ("stoneside-forest", make(), 0, "empty map"),
    ("stoneside-forest", make(forest="C4"), 0, "touches one mountain"),
    (
        "stoneside-forest",
        make(forest="C4 D4 E4 E5 E6"),
        6,
        "card example: one cluster, two mountains (B4, F6); C9 untouched earns nothing",
    ),
    (
        "stoneside-forest",
        make(forest="C4 D4 E4 E5 E6 E7 E8 E9 D9"),
        9,
        "a cluster touching three mountains",
    ),
    ("stoneside-forest", make(forest="C4 E6"), 0, "two clusters, one mountain each"),
    (
        "stoneside-forest",
        make(forest="C4 D4 E4 E5 E6 G6 H6 H7 H8 I8"),
        9,
        "two clusters share F6: a mountain scores at most once",
    ),
    (
        "stoneside-forest",
        make(forest="A4 A5 B5 C5 C4"),
        0,
        "B4 touched twice by one cluster is still one mountain",
    ),
    # ---- Canal Lake
    ("canal-lake", make(), 0, "empty map"),
    ("canal-lake", make(water="A1", farm="A2"), 2, "one pair"),
    ("canal-lake", make(water="A1", farm="A2 B1"), 3, "a water touching two farms counts once"),
    ("canal-lake", make(water="A1", farm="B2"), 0, "diagonal is not adjacency"),
    ("canal-lake", make(water="A1 A2", farm="B1 B2"), 4, "a 2×2 of two rows"),
    # ---- Mages Valley
    ("mages-valley", make(), 0, "empty map"),
    ("mages-valley", make(water="A4"), 2, "water above mountain B4"),
    ("mages-valley", make(farm="C4"), 1, "farm below mountain B4"),
    ("mages-valley", make(water="A4", farm="C4 B3"), 4, "2 + 1 + 1"),
    ("mages-valley", make(water="A3 A5"), 0, "diagonal to a mountain"),
    # ---- The Golden Granary
    ("golden-granary", make(), 0, "empty map"),
    ("golden-granary", make(water="B5"), 1, "card example: water next to an empty ruin"),
    (
        "golden-granary",
        make(water="B5", farm="B6"),
        4,
        "card example: water next to a ruin with a farm on it (1), the farm on the ruin (3)",
    ),
    ("golden-granary", make(water="B6"), 0, "water on a ruin does not touch it"),
    ("golden-granary", make(farm="J6"), 3, "a farm on a ruin"),
    ("golden-granary", make(farm="J5"), 0, "a farm beside a ruin"),
    ("golden-granary", make(water="A6 C6 B7"), 3, "three waters around one ruin"),
    # ---- Shoreside Expanse
    ("shoreside-expanse", make(), 0, "empty map"),
    ("shoreside-expanse", make(farm="A1 A2"), 0, "card example: a farm cluster touching the edge"),
    (
        "shoreside-expanse",
        make(farm="D4", water="D5"),
        0,
        "card example: water touching farm (and farm touching water)",
    ),
    (
        "shoreside-expanse",
        make(farm="D4 D3", water="H8"),
        6,
        "card example: an isolated farm cluster and an isolated water cluster",
    ),
    ("shoreside-expanse", make(farm="D4", water="E5"), 6, "diagonal contact is not touching"),
    ("shoreside-expanse", make(water="B2 B3", farm="D7"), 6, "touching a mountain is fine"),
    # ---- Wildholds
    ("wildholds", make(), 0, "empty map"),
    ("wildholds", make(village="D1 D2 D3 E1 E2 E3"), 8, "six cells"),
    ("wildholds", make(village="D1 D2 D3 E1 E2"), 0, "five cells"),
    ("wildholds", make(village="D1 D2 D3 E1 E2 E3 H5 H6 H7 H8 H9 H10"), 16, "two clusters of six"),
    ("wildholds", make(village=row_cells("K") + " J1"), 8, "twelve cells is still one cluster"),
    # ---- Great City
    ("great-city", make(), 0, "empty map"),
    (
        "great-city",
        make(village="D1 D2 D3 E1 E2 H8 H9 H10"),
        5,
        "card example: a 5-cell cluster beats a 3-cell one",
    ),
    (
        "great-city",
        make(village="A2 A3 A4 A5 A6 H8 H9 H10"),
        3,
        "card example: a cluster touching a mountain (B4) is out",
    ),
    ("great-city", make(village="A4"), 0, "the only cluster touches a mountain"),
    # ---- Greengold Plains
    ("greengold-plains", make(), 0, "empty map"),
    (
        "greengold-plains",
        make(village="E2", forest="D2", farm="E1", water="E3"),
        3,
        "forest, farm, water",
    ),
    (
        "greengold-plains",
        make(village="A4", forest="A3", farm="A5"),
        3,
        "forest, farm and the mountain below",
    ),
    ("greengold-plains", make(village="E2", forest="D2", farm="E1"), 0, "two types and empty"),
    (
        "greengold-plains",
        make(village="E2 E3", forest="D2", farm="D3", monster="F2"),
        3,
        "a cluster: types gathered over all its cells",
    ),
    (
        "greengold-plains",
        make(village="B2", forest="A2", farm="B1"),
        0,
        "Decision: an empty ruin (C2) is not a type",
    ),
    ("greengold-plains", make(village="A1", forest="A2"), 0, "the edge is not a type"),
    (
        "greengold-plains",
        make("B", village="C6", forest="C5", farm="C7"),
        0,
        "Decision: wasteland next to a village cluster is not a type",
    ),
    (
        "greengold-plains",
        make("B", village="C6", forest="C5", farm="C7", water="B6"),
        3,
        "…but forest, farm and water are",
    ),
    (
        "greengold-plains",
        make(village="E2 H8", forest="D2 G8", farm="E1 H7", water="E3 H9"),
        6,
        "two clusters score separately",
    ),
    # ---- Shieldgate
    ("shieldgate", make(), 0, "empty map"),
    (
        "shieldgate",
        make(village="D1 D2 D3 E1 E2 H8 H9 H10"),
        6,
        "card example: clusters of 5 and 3, the 3 scores",
    ),
    (
        "shieldgate",
        make(village="D1 D2 D3 E1 E2 H7 H8 H9 H10 H11"),
        10,
        "Decision: a tie for largest scores the tied size",
    ),
    ("shieldgate", make(village="D1 D2 D3 E1 E2"), 0, "one cluster scores 0"),
    (
        "shieldgate",
        make(village="D1 D2 D3 E1 E2 H8 H9 H10 K1 K2 K3"),
        6,
        "5, 3, 3: second entry is 3",
    ),
    ("shieldgate", make(village="D1 H8 H9 H10 K5 K6"), 4, "3, 2, 1: the 2 scores"),
    # ---- Borderlands
    ("borderlands", make(), 0, "empty map"),
    ("borderlands", make(forest=row_cells("A")), 6, "a full row"),
    (
        "borderlands",
        make(forest=row_cells("A") + " " + col_cells(1, "A1")),
        12,
        "a full row and a full column",
    ),
    (
        "borderlands",
        make(farm="B1 B2 B3 B5 B6 B7 B8 B9 B10 B11"),
        6,
        "row B: its mountain counts as filled",
    ),
    ("borderlands", make(forest=row_cells("A").replace("A6 ", "")), 0, "one empty cell"),
    # ---- Lost Barony
    ("lost-barony", make(), 3, "the empty map: a lone mountain is a 1×1 square"),
    ("lost-barony", make(forest="D1 D2 E1 E2"), 6, "card example: a 2×2 square earns 6"),
    ("lost-barony", make(forest="A3 A4 A5 B3 B5 C3 C4 C5"), 9, "a 3×3 around mountain B4"),
    ("lost-barony", make(farm="D1 D2 D3 E1 E2 E3"), 6, "a 2×3 rectangle holds a 2×2"),
    ("lost-barony", make(forest="A1 A2 B1"), 3, "an L has no 2×2"),
    ("lost-barony", make("B"), 6, "side B's rift holds a 2×2"),
    # ---- The Broken Road
    ("broken-road", make(), 0, "empty map"),
    ("broken-road", make(farm="K1"), 3, "card example: the lone bottom-left corner cell"),
    ("broken-road", make(farm="J1 K2"), 3, "the two-cell diagonal"),
    (
        "broken-road",
        make(farm=" ".join(f"{chr(65 + i)}{i + 1}" for i in range(11) if i != 5)),
        3,
        "the main diagonal (F6 is a mountain)",
    ),
    (
        "broken-road",
        make(farm=" ".join(f"{chr(65 + i)}{11 - i}" for i in range(11) if i not in (2, 5, 8))),
        3,
        "the anti-diagonal (its mountains C9 F6 I3 filled) runs the wrong way: only its K1 end "
        "scores",
    ),
    (
        "broken-road",
        make(farm=" ".join(f"{chr(65 + i)}{i + 2}" for i in range(10))),
        0,
        "a diagonal from the top edge does not count",
    ),
    ("broken-road", make(farm="J1 K1 K2"), 6, "two diagonals"),
    # ---- The Cauldrons
    ("cauldrons", make(), 0, "empty map: no cell touches two mountains"),
    (
        "cauldrons",
        make(forest="A2 B1"),
        1,
        "card example: an empty corner bounded by two edges and two filled cells",
    ),
    ("cauldrons", make(forest="D5 F5 E4 E6"), 1, "card example: four filled neighbours"),
    ("cauldrons", make(forest="D5 F5 E4"), 0, "three filled neighbours"),
    (
        "cauldrons",
        make(forest="A3 A5"),
        1,
        "an empty edge cell (A4) enclosed by two forests and mountain B4",
    ),
]


@pytest.mark.parametrize("slug, sheet, stars, why", CASES, ids=[f"{c[0]}:{c[3]}" for c in CASES])
def test_card(slug: str, sheet: Sheet, stars: int, why: str) -> None:
    assert score_card(slug, sheet).stars == stars, why


def test_every_card_has_cases() -> None:
    assert {c[0] for c in CASES} == set(CARDS)


@pytest.mark.parametrize("slug", list(CARDS))
def test_evidence_adds_up_and_lies_on_the_map(slug: str) -> None:
    sheet = Sheet.from_text(Path("samples/typical-a.txt").read_text())
    result = score_card(slug, sheet)
    assert result.stars == sum(e.stars for e in result.evidence)
    for e in result.evidence:
        assert e.stars > 0 and e.cells and e.note
        assert all(0 <= r < 11 and 0 <= c < 11 for r, c in e.cells)


TYPICAL = {  # samples/typical-a.txt, counted by hand
    "sentinel-wood": 6,
    "greenbough": 12,
    "treetower": 3,
    "stoneside-forest": 0,
    "canal-lake": 0,
    "mages-valley": 6,
    "golden-granary": 4,
    "shoreside-expanse": 3,
    "wildholds": 8,
    "great-city": 2,
    "greengold-plains": 0,
    "shieldgate": 4,
    "borderlands": 0,
    "lost-barony": 6,
    "broken-road": 6,
    "cauldrons": 1,
}


@pytest.mark.parametrize("slug, stars", TYPICAL.items())
def test_typical_map(slug: str, stars: int) -> None:
    sheet = Sheet.from_text(Path("samples/typical-a.txt").read_text())
    assert score_card(slug, sheet).stars == stars


def test_evidence_names_the_scoring_cells() -> None:
    result = score_card("stoneside-forest", make(forest="C4 D4 E4 E5 E6"))
    mountains = {e.cells[0] for e in result.evidence}
    assert mountains == {cell("B4"), cell("F6")}
    assert set(result.evidence[0].cells[1:]) == {cell(n) for n in "C4 D4 E4 E5 E6".split()}
