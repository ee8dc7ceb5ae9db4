"""The ladder script (``benchmarks/ladder.py``) at a tiny size: the table and the JSON have their
fields, the deals do not depend on where the bots run, and ``--sandbox`` runs every bot as a
walled-in process; no strength is judged here."""

from __future__ import annotations

import json
from pathlib import Path

import ladder
import pytest

from arena.seats.walls.sandbox import resolve_sandbox


def run(tmp_path: Path, name: str, *extra: str) -> dict[str, object]:
    out = tmp_path / name
    argv = ["--pairs", "greedy:random", "--games", "2", "--seed", "11", "--jobs", "1"]
    assert ladder.main([*argv, *extra, "--json", str(out)]) == 0
    report: dict[str, object] = json.loads(out.read_text())
    return report


def test_the_ladder_plays_the_same_games_in_process_and_as_sandboxed_processes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inside = run(tmp_path, "inside.json")
    assert inside["sandbox"] is None
    (row,) = inside["pairs"]  # type: ignore[misc]
    assert row["pair"] == "greedy:random" and row["games"] == 2
    assert row["wins"] + row["losses"] <= 2 and row["failures"] == {}
    assert "| greedy v random | 2 |" in capsys.readouterr().out
    mode = "bwrap" if resolve_sandbox("auto") is not None else "none"
    apart = run(tmp_path, "apart.json", "--sandbox", mode)
    assert apart["sandbox"] == mode
    (other,) = apart["pairs"]  # type: ignore[misc]
    assert "each bot a process" in capsys.readouterr().out
    # The built-in bots seed each game from its number: the same games wherever they run.
    keys = ("wins", "losses", "hands", "failures")
    assert {k: other[k] for k in keys} == {k: row[k] for k in keys}


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(SystemExit):
        ladder.main(["--pairs", "strong:strong"])  # a bot against itself is refused
    with pytest.raises(SystemExit):
        ladder.main(["--games", "3"])  # games are mirrored: an even number
