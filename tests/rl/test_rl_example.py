"""docs/examples/rl: the training example trains (its quick run, in the slow lane) and its bot
beats the random bot in a real match; a bad weights file is a clear error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("pettingzoo")

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs" / "examples" / "rl"))
from linear import FEATURE_COUNT, save_weights  # noqa: E402
from rl_support import ready_name  # noqa: E402
from support import LEAGUE, LONG, ROOT, bound, cli_env, gin_arena  # noqa: E402 - after the skips

EXAMPLE = ROOT / "docs" / "examples" / "rl"


@pytest.mark.slow
def test_the_quick_training_run_makes_a_bot_that_beats_random(tmp_path: Path) -> None:
    weights = tmp_path / "weights.npz"
    done = subprocess.run(
        [sys.executable, str(EXAMPLE / "train.py"), "--quick", "--out", str(weights)],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=bound(900),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert weights.is_file()
    bot = f"{sys.executable} {EXAMPLE / 'rl_linear.py'} {weights}"
    match = gin_arena("match", bot, "random", "--games", "20", "--mirror", "--json", timeout=LEAGUE)
    assert match.returncode == 0, match.stderr
    result = json.loads(match.stdout)
    assert result["bots"][0] == "rl_linear"  # the script's name, not "bot"
    summary = result["summary"][result["bots"][0]]
    assert summary["failures"] == {} or not any(summary["failures"].values())
    assert summary["wins"] >= 16, summary  # 200 of 200 in the measured runs


def test_a_missing_or_malformed_weights_file_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "bad.npz"
    bad.write_text("not numpy", encoding="utf-8")
    for path in (tmp_path / "missing.npz", bad):
        done = subprocess.run(
            [sys.executable, str(EXAMPLE / "rl_linear.py"), str(path)],
            capture_output=True,
            text=True,
            env=cli_env(),
            input="",
            timeout=LONG,
            check=False,
        )
        assert done.returncode == 2
        assert str(path) in done.stderr and "Traceback" not in done.stderr


def test_the_bot_is_named_rl_linear_unless_named(tmp_path: Path) -> None:
    weights = tmp_path / "zero.npz"
    save_weights(weights, np.zeros(FEATURE_COUNT), seed=0, iterations=0, opponent="self")
    bot = [sys.executable, str(EXAMPLE / "rl_linear.py"), str(weights)]
    assert ready_name(bot, tmp_path) == "rl_linear"
    assert ready_name([*bot, "--name", "selfplay-800"], tmp_path) == "selfplay-800"


def test_the_progress_lines_fit_80_columns_and_give_the_total() -> None:
    import importlib.util

    # by its path: benchmarks/value_net has a train.py too, first on sys.path in some runs
    spec = importlib.util.spec_from_file_location("rl_example_train", EXAMPLE / "train.py")
    assert spec and spec.loader
    train = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = train  # its dataclasses look their module up
    spec.loader.exec_module(train)
    progress_lines = train.progress_lines

    versus = {"greedy": (-12.3, 0.41), "strong": (-25.0, 0.3), "random": (30.1, 0.9)}
    lines = progress_lines(
        40, 200, 12800, training=(1.25, 0.45), decisions=9.14, seconds=123.4, versus=versus
    )
    assert lines[0].startswith("iteration 40/200  hands 12800  reward +1.2")
    assert all(len(line) <= 80 for line in lines), lines
    assert lines[1].startswith("  against greedy -12.3 (41% won)")
    alone = progress_lines(40, 200, 1, training=(0.0, 0.0), decisions=9.0, seconds=1.0, versus={})
    assert len(alone) == 1
