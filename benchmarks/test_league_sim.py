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
