"""The memory benchmark (``benchmarks/memory.py``, ``tox -e bench-memory``) at a tiny size:
a 300-hand match and a 12-game tournament (3 pairs x 4 games) of bot processes, a few seconds.
It must run, exit 0 and write every figure; the figures themselves are not judged here."""

from __future__ import annotations

import json
from pathlib import Path

import memory
import pytest

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/status").exists(), reason="the memory benchmark reads /proc"
)

MATCH_FIGURES = (
    "hands",
    "seconds",
    "hands_per_s",
    "peak_rss_kib",
    "wait4_maxrss_kib",
    "hwm_at_last_sample_kib",
    "rss_10_kib",
    "rss_50_kib",
    "rss_end_kib",
)
TOURNAMENT_FIGURES = (
    "games",
    "games_per_pair",
    "concurrency",
    "seconds",
    "games_per_s",
    "main_peak_kib",
    "main_rss_10_kib",
    "main_rss_end_kib",
    "worker_peak_kib",
    "workers_seen",
    "worker_rss_10_kib",
    "worker_rss_end_kib",
    "bot_peak_kib",
    "bot_processes_seen",
    "tree_peak_kib",
    "tree_peak_processes",
    "any_process_peak_kib",
)


def test_games_per_pair_is_even_and_covers_the_request() -> None:
    assert memory.games_per_pair(1000) == 334  # 1,002 games
    assert memory.games_per_pair(12) == 4
    assert memory.games_per_pair(13) == 6
    assert memory.games_per_pair(1) == 2


@pytest.mark.slow  # a few seconds of bot processes: the slow lane runs it
def test_tiny_run_writes_every_figure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report_path = tmp_path / "memory.json"
    code = memory.main(["--hands", "300", "--games", "12", "--json", str(report_path)])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert "| peak RSS" in printed.out and "| games/s |" in printed.out

    report = json.loads(report_path.read_text())
    assert set(report) == {"machine", "match", "tournament"}
    assert report["machine"]["nproc"] >= 1
    match, tournament = report["match"], report["tournament"]
    assert match["command"] == "gin-arena match random random --hands 300 --seed 1"
    assert match["hands"] == 300
    for key in MATCH_FIGURES:
        assert isinstance(match[key], int | float) and match[key] > 0, key
    assert match["samples"] and all(rss > 0 for _, rss in match["samples"])
    assert "--games-per-table 4" in tournament["command"]
    assert tournament["games"] == 12
    for key in TOURNAMENT_FIGURES:
        assert isinstance(tournament[key], int | float) and tournament[key] > 0, key
    assert tournament["tree_peak_kib"] >= tournament["main_peak_kib"] * 0.9
    assert tournament["samples"]
