"""Pydantic models of every request and response body of the HTTP service (the OpenAPI schemas).

Structure is checked here; meaning (terrain names, the side's printed layout, card slugs) is
checked by ``scoring`` so the messages name the cell or card at fault. Response models allow
extra fields: ``docs/formats.md`` lets the JSON grow, and a client must ignore what it does not
know.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt

from scoring.sheet import Sheet
from scoring.terrain import Terrain

Pair = list[int]  # [row, col], 0-based; row 0 is printed row A, col 0 is printed column 1


class Open(BaseModel):
    """A response object that may carry more fields than documented."""

    model_config = ConfigDict(extra="allow")


# ---- requests ---------------------------------------------------------------------------------
#: The example in /docs: side A as printed, with a
#: forest in the A1 corner, 2 coins ("Try it out" works).
EXAMPLE_SHEET = Sheet.blank("A").with_cells({(0, 0): Terrain.FOREST}, coins=2).to_json()


class SheetJson(BaseModel):
    """One filled-in map sheet (docs/formats.md): 11
    rows of 11 terrain names, and the filled coins."""

    model_config = ConfigDict(extra="allow", json_schema_extra={"example": EXAMPLE_SHEET})

    side: str = Field(description="'A' or 'B'")
    cells: list[list[str]] = Field(
        description="cells[row][col]: empty, forest, village, farm, water, "
        "monster, mountain or wasteland"
    )
    coins: int = Field(0, description="filled coins on the coin track")


CardsField = Field(
    description="the four scoring cards under edicts A, B, C, D (a list of slugs or one "
    "comma-separated string), or 'all' for all sixteen (then no seasons)",
    examples=[["sentinel-wood", "canal-lake", "wildholds", "borderlands"]],
)


SeasonName = Literal["spring", "summer", "fall", "winter"]
#: The example in /docs: a player's four boxes and shield, with one slip in spring's sum.
EXAMPLE_WRITTEN = [
    {"season": "spring", "edicts": [1, 0], "coins": 1, "monsters": 0, "total": 3},
    {"season": "summer", "edicts": [0, 0], "coins": 2, "monsters": 0, "total": 2},
    {"season": "fall", "edicts": [0, 0], "coins": 2, "monsters": None, "total": 2},
    {"season": "winter", "edicts": [0, 1], "coins": 2, "monsters": 0, "total": 3},
]


class WrittenBox(BaseModel):
    """One season box as the player wrote it; ``null`` where a cell is blank."""

    model_config = ConfigDict(extra="forbid")

    season: SeasonName | None = Field(None, description="omitted: the box's place in the list")
    edicts: list[StrictInt | None] = Field(
        [None, None],
        min_length=2,
        max_length=2,
        description="the stars written for the season's two edicts, in the season's order "
        "(spring: A, B; summer: B, C; fall: C, D; winter: D, A)",
    )
    coins: StrictInt | None = Field(None, description="the coins written")
    monsters: StrictInt | None = Field(
        None, description="the monster penalty written, with or without its minus sign"
    )
    total: StrictInt | None = Field(None, description="the season total written")


class WrittenNumbers(BaseModel):
    """The numbers a player wrote on the sheet, typed in (docs/formats.md, "Written numbers")."""

    seasons_written: list[WrittenBox] | None = Field(
        None,
        max_length=4,
        description="the season boxes, in season order; null or omitted: nothing written",
        examples=[EXAMPLE_WRITTEN],
    )
    final_total_written: StrictInt | None = Field(
        None, description="the number in the final-total shield", examples=[10]
    )

    def written_json(self) -> dict[str, Any]:
        """The two fields as ``scoring.written.WrittenScores.from_json`` takes them."""
        boxes = self.seasons_written
        return {
            "seasons_written": None
            if boxes is None
            else [b.model_dump(exclude=None if b.season else {"season"}) for b in boxes],
            "final_total_written": self.final_total_written,
        }


class ScoreMapRequest(WrittenNumbers):
    sheet: SheetJson
    cards: list[str] | str = CardsField
    season: str | None = Field(
        None,
        description="spring, summer, fall or winter; omitted: all "
        "four seasons scored on this same sheet",
    )


class CheckWrittenRequest(WrittenNumbers):
    """A sheet and the numbers written on it; the cards, when known, add the winter edict check."""

    sheet: SheetJson
    cards: list[str] | str | None = Field(
        None,
        description="the four scoring cards under edicts A–D (slugs or printed names); omitted: "
        "the checks that need no cards",
        examples=[["sentinel-wood", "canal-lake", "wildholds", "borderlands"]],
    )


class ValidateRequest(BaseModel):
    sheet: SheetJson
    log: Any = Field(None, description="the game's card log (docs/game-engine.md), if kept")
    previous: SheetJson | None = Field(
        None, description="the same player's sheet at the end of the previous season"
    )


# ---- responses --------------------------------------------------------------------------------
class WrittenCheck(Open):
    code: str = Field(
        description="season-sum, final-sum, winter-edicts, winter-coins, winter-monsters, "
        'coins-decrease, coins-exceed or monsters-exceed (docs/rules.md, "Written scores")'
    )
    season: SeasonName | None = Field(description="the season box; null: the final total")
    message: str = Field(description="the discrepancy in words")


class WrittenFields(Open):
    """The written numbers and their checks, as every face answers them."""

    seasons_written: list[WrittenBox] | None = Field(
        None, description="the four season boxes in season order; null: nothing written"
    )
    final_total_written: int | None = None
    written_confidence: dict[str, float] = Field(
        default_factory=dict,
        description="'spring.edict1' … 'winter.total', 'final' → the reader's confidence; "
        "empty for typed-in numbers",
    )
    checks: list[WrittenCheck] = Field(
        default_factory=list, description="where the written numbers cannot be right"
    )


class Reading(WrittenFields):
    """What the reader saw in a photo, with the numbers written in the season boxes."""

    side: str
    cells: list[list[str]]
    coins: int
    confidence: list[list[float]] = Field(
        description="11 × 11, 0…1, how sure the reader is of each cell"
    )
    coin_confidence: Any = Field(None, description="how sure the reader is of the coin count")
    low_confidence_cells: list[Pair] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    grid_corners: list[list[float]] = Field(
        default_factory=list, description="the cell area's four corners in photo pixels"
    )
    cell_outlines: list[list[list[list[float]]]] = Field(
        default_factory=list,
        description="11 × 11 × 4 corners × [x, y] in photo pixels, for drawing the overlay",
    )


class Evidence(Open):
    cells: list[Pair]
    stars: int
    note: str


class EdictStars(Open):
    edict: Literal["A", "B", "C", "D"]
    card: str
    stars: int


class SeasonScore(Open):
    season: str
    edicts: list[EdictStars]
    coins: int
    monster_penalty: int
    monster_cells: list[Pair]
    total: int


class WrittenReport(WrittenFields):
    """``/v1/check-written``: the numbers, the checks, and the checked total."""

    checked_total: int | None = Field(
        None,
        description="winter scored on this map + the written spring, summer and fall totals "
        "(null without the four cards or with one of those totals blank)",
    )
    winter_on_map: SeasonScore | None = Field(
        None, description="winter scored on this map, to set beside the written winter box"
    )


class ScoreReport(WrittenFields):
    """The score JSON of docs/formats.md, with each card's evidence cells and the checks of the
    numbers written on the sheet."""

    side: str
    coins: int
    monster_penalty: int = Field(description="stars lost to monsters (≥ 0)")
    monster_cells: list[Pair] = Field(description="the empty cells that cost a star")
    warnings: list[str]
    cards: dict[str, int] = Field(description="card slug → stars on this sheet")
    evidence: dict[str, list[Evidence]] = Field(
        description="card slug → the cell groups that earned its stars"
    )
    edicts: dict[str, str] | None = Field(
        None, description="edict letter → card slug (not with 'all')"
    )
    seasons: list[SeasonScore] | None = None
    total: int | None = Field(None, description="sum of the seasons' totals (not with 'all')")


class Reason(Open):
    message: str
    cells: list[Pair] = Field(default_factory=list)


class Verdict(Open):
    """The legality check: could this sheet come from a real game?"""

    verdict: Literal["legal", "illegal", "cannot-tell"]
    level: str | None = None
    reasons: list[Reason] = Field(default_factory=list)


class PhotoScore(Open):
    reading: Reading
    score: ScoreReport
    legality: Verdict | None = Field(
        description="the sheet-only verdict; null when the validator is not installed"
    )


class Card(Open):
    slug: str
    name: str
    back: str
    solo: int = Field(description="the card's value in the solo rating")
    rule: str = Field(description="the rule in this project's words, in the answer's language")
    back_name: str | None = Field(None, description="the card back in the answer's language")


class SeasonInfo(Open):
    name: str
    title: str | None = Field(None, description="the season's name in the answer's language")
    time: int
    edicts: list[str]


class Cards(Open):
    language: str | None = Field(None, description="the catalog the names come from (en, es …)")
    cards: list[Card]
    backs: list[str]
    seasons: list[SeasonInfo]


class PageMessages(Open):
    language: str = Field(description="the catalog the words come from (en, pt_BR, es, uk)")
    languages: dict[str, str] = Field(description="every language, by code, named in itself")
    messages: dict[str, str] = Field(description="the page's English messages → this language")
    plurals: dict[str, list[str]] = Field(description="a plural message's singular → its forms")
    plural_index: list[int] = Field(description="the plural form for n = 0…199")


class Side(Open):
    name: str
    title: str
    size: int
    mountains: list[Pair]
    ruins: list[Pair]
    wasteland: list[Pair]


class Sides(Open):
    sides: list[Side]
    terrains: list[str]
    drawable: list[str] = Field(description="terrains a player can draw on an empty cell")


class Health(Open):
    status: Literal["ok"]
    version: str
    reader: bool = Field(description="the photo reader is installed")
    validator: bool = Field(description="the legality validator is installed")
