"""The tournament benchmark (``benchmarks/tournaments.py``, ``tox -e bench-tournaments``) at
a tiny size: it must run every row as a user runs the command, count the slow bot's starts under
each ``--restart`` and write every figure; the times themselves are not judged here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tournaments


@pytest.mark.slow  # five tournaments from the command line: the slow lane runs it
def test_the_tournament_benchmark_runs_every_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t.json"
    argv = ["--rounds", "1", "--games-per-table", "8", "--start-delay", "0"]
    assert tournaments.main([*argv, "--default-games-per-table", "2", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    rows = {row["name"]: row for row in report["rows"]}
    assert len(rows) == 5
    assert all(len(row["seconds"]) == 1 and row["best"] > 0 for row in rows.values())
    starts = {name.rsplit(" ", 1)[1]: row["starts"] for name, row in rows.items() if row["starts"]}
    # 8 mirrored games are 4 deals, a task each (TABLE_TASKS), played leg after leg with one
    # process a leg; kept, a worker's last leg plays first in its next task: one start a task,
    # and one more for each worker's first.
    assert starts["failure"] in (5, 6) and starts["task"] == 8 and starts["game"] == 8
    assert report["speedup"] > 0
    assert "| tournament | seconds | bot starts |" in capsys.readouterr().out
