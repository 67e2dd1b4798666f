"""The numbers the generator writes in the season boxes: plausible, exact, and their planted
mistakes listed."""

from __future__ import annotations

import numpy as np
import pytest

from scoring.seasons import score_season
from scoring.simulator import simulate
from scoring.written import PARTS, SEASON_NAMES, WrittenScores
from vision.synth.digits import GLYPHS, WritingHand, render_chars
from vision.synth.maps import random_sheet
from vision.synth.pens import Hand
from vision.synth.writing import Game, WrittenPlan, plan_written


def _checks(plan: WrittenPlan) -> list[str]:
    """The cells where the written arithmetic does not add up."""
    s = plan.scores
    bad = []
    for season in s.seasons:
        n = season.numbers()
        if n["total"] is None:
            continue
        parts = [v or 0 for v in (n["edict1"], n["edict2"], n["coins"])]
        if sum(parts) - (n["monsters"] or 0) != n["total"]:
            bad.append(f"{season.season}.total")
    if s.final_total is not None and s.final_total != sum(x.total or 0 for x in s.seasons):
        bad.append("final")
    return bad


def _mistake_explains(plan: WrittenPlan, bad: list[str]) -> bool:
    """Whether the listed mistake is the one inconsistency found."""
    (m,) = plan.mistakes
    season = m["cell"].split(".")[0]
    return bad == (["final"] if m["cell"] == "final" else [f"{season}.total"])


@pytest.mark.parametrize("seed", range(60))
def test_written_numbers_add_up_unless_a_mistake_is_listed(seed):
    rng = np.random.default_rng(seed)
    plan = plan_written(random_sheet("A", rng), None, rng)
    bad = _checks(plan)
    if plan.mistakes:
        assert _mistake_explains(plan, bad), (plan.mistakes, bad)
    else:
        assert bad == []


def test_about_one_sheet_in_ten_carries_a_mistake():
    rng = np.random.default_rng(7)
    plans = [plan_written(random_sheet("A", rng), None, rng) for _ in range(400)]
    written = [p for p in plans if not p.scores.is_blank()]
    share = sum(bool(p.mistakes) for p in written) / len(written)
    assert 0.05 < share < 0.16
    assert all(len(p.mistakes) <= 1 for p in plans)


@pytest.mark.parametrize("seed", [3, 11])
def test_a_simulated_game_writes_each_seasons_real_score(seed):
    record = simulate(2, "A", seed, "random")
    game = Game(tuple(record.cards), tuple(record.season_sheets[0]))
    rng = np.random.default_rng(seed)
    plans = [plan_written(game.season_sheets[-1], game, rng) for _ in range(12)]
    for plan in plans:
        planted = {m["cell"] for m in plan.mistakes}
        for k, season in enumerate(plan.scores.seasons):
            if season.is_blank():
                continue
            real = score_season(game.season_sheets[k], game.cards, SEASON_NAMES[k])
            expected = {
                "edict1": real.edicts[0].result.stars,
                "edict2": real.edicts[1].result.stars,
                "coins": real.coins,
                "monsters": real.monster_penalty,
                "total": real.total,
            }
            for part in PARTS:
                key = f"{season.season}.{part}"
                written = season.numbers()[part]
                if key in planted:
                    continue
                # a blank cell is a zero left out
                assert written == expected[part] or (written is None and expected[part] == 0)


def test_truth_json_round_trips_through_written_scores():
    rng = np.random.default_rng(5)
    for _ in range(30):
        plan = plan_written(random_sheet("A", rng), None, rng)
        truth = plan.truth()
        assert WrittenScores.from_json(truth).to_json() == plan.scores.to_json()
        assert set(truth) >= {"seasons_written", "final_total_written", "mistakes"}


@pytest.mark.parametrize("char", sorted(GLYPHS))
def test_every_character_renders_ink_of_its_shape(char):
    rng = np.random.default_rng(1)
    writer = WritingHand.random(rng, Hand.random(rng))
    ink = render_chars(char, rng, 60.0, writer)
    rows, cols = np.nonzero(ink > 0.2)
    assert len(rows) > 10
    height, width = np.ptp(rows), np.ptp(cols)
    if char == "-":
        assert width > 2 * height
    elif char != "1":
        assert height > width * 0.9  # digits stand taller than wide
