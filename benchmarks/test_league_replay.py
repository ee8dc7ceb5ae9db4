"""The league-opening benchmark (``benchmarks/league_replay.py``) at a tiny size: it builds a
league through the real run, finds a snapshot in it, and the league opened from the snapshot is
the one the whole history replays to; no time is judged here."""

from __future__ import annotations

import json
from pathlib import Path

import league_replay
import pytest

from arena.tournament import league as leagues


def test_the_replay_benchmark_builds_a_league_with_snapshots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(leagues, "SNAPSHOT_EVERY", 10)
    monkeypatch.setattr(leagues, "play", leagues.play)  # the script replaces it: put it back
    out = tmp_path / "replay.json"
    argv = ["--bots", "12", "--pairings", "40", "--batch", "4", "--db", str(tmp_path / "l.sqlite")]
    assert league_replay.main([*argv, "--json", str(out)]) == 0
    figures = json.loads(out.read_text())
    assert figures["bots"] == 12 and figures["pairings"] == 40 and figures["games"] == 80
    assert figures["snapshot_bytes"] > 0 and figures["database_bytes"] > 0
    assert figures["load_from_snapshot_seconds"] > 0 and figures["load_full_replay_seconds"] > 0
    with pytest.raises(SystemExit):
        league_replay.main([*argv])  # the database exists now: refused, not overwritten
