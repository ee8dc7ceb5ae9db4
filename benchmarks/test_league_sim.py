"""The league simulator (``benchmarks/league_sim.py``) at a tiny size: every scheduler runs,
the new-entrant experiment runs, and the report has its fields; no figure is judged here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("numpy", reason="the simulator's exact judge needs numpy (pip install numpy)")
import league_sim  # imported once numpy is known to be there


def test_the_league_simulator_reports_every_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "league.json"
    argv = ["--sizes", "6", "--target", "150", "--budgets", "4", "--step", "0.3"]
    argv += ["--entrant-size", "6", "--entrants", "1", "--json", str(out)]
    assert league_sim.main(argv) == 0
    report = json.loads(out.read_text())
    rows = {row["scheduler"]: row for row in report["rows"]}
    assert set(rows) == {"adaptive", "random", "round-robin"}
    for row in rows.values():
        assert row["size"] == 6
        assert row["games_to_target"] is None or row["games_to_target"] > 0
        assert set(row["spearman"]) == {"4.0"}
        assert row["ms_per_game"] >= 0 and row["ms_per_pairing"] >= 0
        assert "ratio_to_adaptive" in row and "oracle_games_to_target" in row
    low, high = rows["adaptive"]["approx_ratio"]
    assert 0 < low <= high
    assert all(run["curve"] for run in report["runs"])
    entrant = report["entrant"]
    assert entrant["size"] == 6 and len(entrant["entrants"]) == 1
    (one,) = entrant["entrants"]
    assert one["league_games"] > 0 and one["head_to_head_gauntlet"] > one["pooled_gauntlet"] > 0
    assert 0 < one["share"] < one["pooled_share"]
    assert "| bots | scheduler |" in capsys.readouterr().out


@pytest.mark.slow  # matplotlib's import alone takes seconds: the slow lane runs it
def test_plots_are_written_or_explained(tmp_path: Path) -> None:
    argv = ["--sizes", "4", "--target", "200", "--budgets", "2", "--entrant-size", "0"]
    assert league_sim.main([*argv, "--step", "0.5", "--plot", str(tmp_path / "plots")]) == 0
    pytest.importorskip("matplotlib")
    assert (tmp_path / "plots" / "league-4.png").stat().st_size > 0


def test_the_judge_is_the_fit_of_ratings_py() -> None:
    """The simulator judges every scheduler by its dense fit: it must be ``ratings.fit``'s (the
    virtual draws shared among the bots each met, the prior, intervals against the mean), or
    the figures in docs/LEAGUE.md would be about another model."""
    import random

    import numpy as np

    from arena.stats import ratings

    rng = random.Random(5)
    n = 9
    judge = league_sim.Exact(n)
    results: list[ratings.Result] = []
    # A sparse, uneven schedule: some bots meet many, some few (the degrees differ).
    for _ in range(60):
        i = rng.randrange(n)
        j = rng.choice([k for k in range(n) if k != i and (k < 4 or i < 4)])
        wins = rng.choice([0, 1, 1, 2])
        judge.add(np.array([i]), np.array([j]), np.array([float(wins)]))
        results += [ratings.Result(f"b{i}", f"b{j}", 1.0)] * wins
        results += [ratings.Result(f"b{j}", f"b{i}", 1.0)] * (2 - wins)
    elo, half = judge.fit()
    exact = {r.name: r for r in ratings.fit([f"b{k}" for k in range(n)], results).ratings}
    for k in range(n):
        assert elo[k] == pytest.approx(exact[f"b{k}"].elo, abs=1e-4)
        assert half[k] == pytest.approx((exact[f"b{k}"].high - exact[f"b{k}"].low) / 2, rel=1e-3)
