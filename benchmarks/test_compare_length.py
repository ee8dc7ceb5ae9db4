"""The compare-length benchmark (``benchmarks/compare_length.py``) at a tiny size: a gap far
beyond the hypotheses is decided, the right way, in few pairings; nothing is timed."""

from __future__ import annotations

import json
from pathlib import Path

import compare_length


def test_the_length_benchmark_decides_a_large_gap_quickly(tmp_path: Path) -> None:
    out = tmp_path / "length.json"
    argv = ["--elo", "400", "-400", "--runs", "5", "--cap", "2000", "--json", str(out)]
    assert compare_length.main(argv) == 0
    better, worse = json.loads(out.read_text())
    assert better["H1"] == 5 and worse["H0"] == 5
    assert better["p90"] < 300 and worse["p90"] < 300
