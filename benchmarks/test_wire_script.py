"""The wire benchmark (``benchmarks/wire.py``, ``tox -e bench-wire``) at a tiny size: the request
lines it replays are the match's own, as sent (the SDK's bots ask for the compact form), the
bare pipe answers every one, and the whole run prints every figure. The figures themselves are
not judged here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import wire

SCRIPT = Path(wire.__file__)


def test_the_lines_replayed_are_the_requests_the_bots_were_sent(tmp_path: Path) -> None:
    lines = wire.request_lines(3, 5, tmp_path)
    assert len(lines) > 50
    requests = [json.loads(line) for line in lines]
    assert all(r["type"] == "request" for r in requests)
    assert all("history_from" in r["observation"] for r in requests)  # the compact form
    path = tmp_path / "requests.jsonl"
    path.write_bytes(b"".join(lines))
    assert wire.pipe(path) == len(lines)


def test_the_benchmark_prints_each_figure(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--hands", "3", "--rounds", "1"],
        check=False,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    for row in ("pipe", "match, default sandbox", "match, --sandbox none", "the walls alone"):
        assert row in out, out
    assert "requests/s" in out and "of the pipe" in out
