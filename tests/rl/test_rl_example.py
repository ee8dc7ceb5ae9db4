"""docs/examples/rl: the training example trains (its quick run, in the slow lane) and its bot
beats the random bot in a real match; a bad weights file is a clear error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numpy")
pytest.importorskip("pettingzoo")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "arena"))
from arena_support import ROOT, cli_env, run_cli

EXAMPLE = ROOT / "docs" / "examples" / "rl"


@pytest.mark.slow
def test_the_quick_training_run_makes_a_bot_that_beats_random(tmp_path: Path) -> None:
    weights = tmp_path / "weights.npz"
    done = subprocess.run(
        [sys.executable, str(EXAMPLE / "train.py"), "--quick", "--out", str(weights)],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert weights.is_file()
    bot = f"{sys.executable} {EXAMPLE / 'bot.py'} {weights}"
    match = run_cli("match", bot, "random", "--games", "20", "--mirror", "--json", timeout=600)
    assert match.returncode == 0, match.stderr
    result = json.loads(match.stdout)
    summary = result["summary"][result["bots"][0]]
    assert summary["failures"] == {} or not any(summary["failures"].values())
    assert summary["wins"] >= 16, summary  # 200 of 200 in the measured runs


def test_a_missing_or_malformed_weights_file_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "bad.npz"
    bad.write_text("not numpy", encoding="utf-8")
    for path in (tmp_path / "missing.npz", bad):
        done = subprocess.run(
            [sys.executable, str(EXAMPLE / "bot.py"), str(path)],
            capture_output=True,
            text=True,
            env=cli_env(),
            input="",
            timeout=120,
            check=False,
        )
        assert done.returncode == 2
        assert str(path) in done.stderr and "Traceback" not in done.stderr
