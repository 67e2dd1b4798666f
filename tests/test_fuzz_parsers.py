"""Fuzzing the sheet and card-log parsers (hypothesis): arbitrary and mutated input never crashes.

The contract: a parser either returns a value or raises its documented error — ``SheetError`` for
sheets (JSON, text form, files), ``ValueError`` naming the field for card logs. Anything else
(``KeyError``, ``TypeError``, ``IndexError``, a recursion error, a hang) is a bug. Mutations start
from real inputs (the sample sheet, a simulated game's log) so they reach deep into the parsers.
A validation run on a mutated log must also come back within its time limit (plus start-up slack:
a hang guard, not a speed test).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.sheet_files import load_sheet
from scoring.sheet import Sheet, SheetError
from scoring.simulator import simulate
from scoring.validate import parse_log, validate

ROOT = Path(__file__).resolve().parents[1]
SHEET_JSON = json.loads((ROOT / "samples" / "typical-a.json").read_text())
SHEET_TEXT = (ROOT / "samples" / "typical-a.txt").read_text()
RECORD = simulate(2, "A", seed=5)
LOG_JSON = RECORD.card_log
FUZZ = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True)
    | st.text(max_size=20)
)
any_json = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=12) | st.dictionaries(st.text(max_size=8), inner, max_size=6)
    ),
    max_leaves=60,
)


def paths(obj: Any, prefix: tuple = ()) -> list[tuple]:
    """Every place inside a JSON value, as a tuple of keys and indexes."""
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += paths(v, prefix + (i,))
    return out


@st.composite
def mutated(draw, original: Any, max_edits: int = 4) -> Any:
    """``original`` with a few random edits: a value
    replaced, a key or item dropped, an item repeated."""
    obj = json.loads(json.dumps(original))
    for _ in range(draw(st.integers(1, max_edits))):
        where = draw(st.sampled_from(paths(obj)))
        if not where:
            obj = draw(any_json)
            continue
        parent = obj
        for key in where[:-1]:
            parent = parent[key]
        key, action = where[-1], draw(st.sampled_from(["replace", "drop", "repeat", "swap-type"]))
        if action == "replace":
            parent[key] = draw(any_json)
        elif action == "drop":
            del parent[key]
        elif action == "repeat" and isinstance(parent, list):
            parent.insert(key, parent[key])
        else:
            parent[key] = draw(
                st.sampled_from([None, "", 0, -1, 10**9, 1.5, [], {}, "A", "forest", ["spring"]])
            )
    return obj


def mutated_text(text: str) -> st.SearchStrategy[str]:
    """The text with characters replaced, inserted or lines dropped."""
    edits = st.lists(
        st.tuples(
            st.integers(0, len(text)), st.sampled_from(["put", "cut", "line"]), st.text(max_size=6)
        ),
        min_size=1,
        max_size=6,
    )

    def apply(ops) -> str:
        out = text
        for pos, op, chunk in ops:
            pos = min(pos, len(out))
            if op == "put":
                out = out[:pos] + chunk + out[pos:]
            elif op == "cut":
                out = out[:pos] + out[pos + len(chunk) + 1 :]
            else:
                lines = out.splitlines()
                if lines:
                    del lines[pos % len(lines)]
                out = "\n".join(lines)
        return out

    return edits.map(apply)


def parses_or_says_why(parse, data: Any, error: type[Exception]) -> Any:
    """``parse(data)``; the documented error is fine (with a message), any other exception fails."""
    try:
        return parse(data)
    except error as e:
        assert str(e).strip(), f"{type(e).__name__} without a message"
        return None


def check_sheet_round_trip(sheet: Sheet | None) -> None:
    if sheet is not None:
        assert Sheet.from_json(sheet.to_json()).to_json() == sheet.to_json()


@FUZZ
@given(any_json)
def test_sheet_json_parser_on_any_json(data):
    check_sheet_round_trip(parses_or_says_why(Sheet.from_json, data, SheetError))


@FUZZ
@given(mutated(SHEET_JSON))
def test_sheet_json_parser_on_mutated_sheets(data):
    check_sheet_round_trip(parses_or_says_why(Sheet.from_json, data, SheetError))


@FUZZ
@given(st.text(max_size=400) | mutated_text(SHEET_TEXT))
def test_sheet_text_parser_on_any_and_mutated_text(text):
    check_sheet_round_trip(parses_or_says_why(Sheet.from_text, text, SheetError))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    st.binary(max_size=3000)
    | mutated_text(json.dumps(SHEET_JSON)).map(str.encode)
    | mutated_text(SHEET_TEXT).map(lambda t: t.encode("utf-8", "surrogatepass"))
)
def test_sheet_files_on_any_bytes(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "sheet.json"
    path.write_bytes(data)
    check_sheet_round_trip(parses_or_says_why(load_sheet, path, SheetError))


@FUZZ
@given(any_json | mutated(LOG_JSON))
def test_card_log_parser_on_any_and_mutated_logs(data):
    parses_or_says_why(parse_log, data, ValueError)


def validate_in_thread(
    sheet: Sheet, log: Any, time_limit: float, guard_s: float
) -> Exception | None:
    """Run ``validate`` in a thread; fail if it has not
    come back after ``guard_s`` seconds (a hang)."""
    outcome: list = []

    def work() -> None:
        try:
            validate(sheet, log=log, time_limit=time_limit)
            outcome.append(None)
        except Exception as e:  # noqa: BLE001 — classified by the caller
            outcome.append(e)

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(guard_s)
    assert outcome, f"validate hung past {guard_s} s with a {time_limit} s limit"
    return outcome[0]


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
@given(mutated(LOG_JSON, max_edits=2))
def test_validation_with_a_mutated_log_ends_and_names_the_problem(log):
    error = validate_in_thread(RECORD.final_sheets[0], log, time_limit=0.5, guard_s=30.0)
    assert error is None or (isinstance(error, ValueError) and str(error)), repr(error)
