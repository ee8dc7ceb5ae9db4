"""The search bot's cost script (``benchmarks/search_cost.py``) at a tiny size: the efforts asked
for are measured, and the built-in bot is left as it was; no time is judged."""

from __future__ import annotations

import json
from pathlib import Path

import search_cost

from bots import search


def test_every_effort_is_measured_and_the_bot_restored(tmp_path: Path) -> None:
    out = tmp_path / "cost.json"
    argv = ["--hands", "2", "--efforts", "w5", "w15", "--json", str(out)]
    assert search_cost.main(argv) == 0
    efforts = json.loads(out.read_text())["efforts"]
    assert set(efforts) == {"w5", "w15"}
    for row in efforts.values():
        assert row["decisions"] > 0 and row["cpu_ms_a_decision"] > 0
    assert efforts["w5"]["worlds_a_search"] <= 5 < efforts["w15"]["worlds_a_search"]
    assert search.SearchBot.__name__ == "SearchBot"
