"""``gin-arena sprt`` as a user runs it: identical bots accept H0, a stronger one H1 (slow), the
test is stored and resumable, and bad parameters are usage errors."""

from __future__ import annotations

import json
import re
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
from support import COMMAND, LEAGUE, LONG, bound, gin_arena, installed_env, start_gin_arena


def sprt(cwd: Path, *args: str, timeout: float = LEAGUE) -> subprocess.CompletedProcess[str]:
    return gin_arena("sprt", *args, cwd=cwd, env=installed_env(), timeout=timeout)


def stored_games(db: Path) -> int:
    try:
        with sqlite3.connect(db.absolute().as_uri() + "?mode=ro", uri=True) as connection:
            return int(connection.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.Error:
        return 0


# An SPRT played to its verdict (about 10 s): in the slow lane; the quick lane resumes one.
@pytest.mark.slow
def test_identical_bots_accept_h0(tmp_path: Path) -> None:
    done = sprt(tmp_path, "greedy", "greedy", "--seed", "1", "--db", "s.sqlite", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["verdict"] == "H0"
    assert (report["new"], report["base"]) == ("greedy#new", "greedy#base")
    assert report["llr"] <= report["bounds"][0]
    assert report["games"] == 2 * report["pairs"] < 1000
    # The games in flight at the decision may be stored too; the verdict counts complete pairs.
    assert report["games"] <= stored_games(tmp_path / "s.sqlite")
    # Resuming a decided test plays nothing and says the same.
    again = sprt(tmp_path, "--db", "s.sqlite", "--resume", "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout) == report


@pytest.mark.slow  # another whole test from the command line: the slow lane
def test_the_text_report_names_the_verdict_and_the_estimate(tmp_path: Path) -> None:
    done = sprt(tmp_path, "greedy", "greedy", "--seed", "2", "--db", "s.sqlite")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0].startswith("SPRT greedy#new v greedy#base: H0 Elo <= 0, H1 Elo >= 10")
    assert (
        lines[-3] == "H0 accepted: greedy#new is not stronger than greedy#base by more than 0 Elo"
    )
    assert re.fullmatch(
        r"\d+ games, \d+ pairs, greedy#new's two games of each deal: \d+ won-won, \d+ won-drawn, "
        r"\d+ won-lost or drawn-drawn, \d+ lost-drawn, \d+ lost-lost",
        lines[-2],
    )
    assert re.fullmatch(
        r"LLR -\d\.\d\d of \[-\d\.\d\d, \+\d\.\d\d\]; Elo [+-]\d+\.\d, 95% \[[+-]\d+\.\d, "
        r"[+-]\d+\.\d\]; LOS \d+\.\d%",
        lines[-1],
    )
    assert "LLR" in done.stderr, "progress lines with the LLR and its bounds"


def test_an_interrupted_test_resumes_to_the_same_verdict_and_games(tmp_path: Path) -> None:
    whole = sprt(
        tmp_path,
        "greedy",
        "random",
        "--seed",
        "3",
        "--db",
        "whole.sqlite",
        "--concurrency",
        "1",
        "--json",
    )
    assert whole.returncode == 0, whole.stderr
    expected = json.loads(whole.stdout)
    assert expected["verdict"] == "H1"
    proc = start_gin_arena(
        *("sprt", "greedy", "random", "--seed", "3", "--db", "cut.sqlite", "--concurrency", "1"),
        cwd=tmp_path,
        env=installed_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=False,
    )
    deadline = time.monotonic() + LONG
    while stored_games(tmp_path / "cut.sqlite") < 6 and proc.poll() is None:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=COMMAND) in (0, 130)
    resumed = sprt(tmp_path, "--db", "cut.sqlite", "--resume", "--json")
    assert resumed.returncode == 0, resumed.stderr
    report = json.loads(resumed.stdout)
    for key in ("verdict", "games", "pentanomial", "llr"):
        assert report[key] == expected[key], key


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("greedy", "random", "--elo0", "5", "--elo1", "5"), "--elo1 (5) must be above --elo0 (5)"),
        (("greedy", "random", "--max-games", "7"), "--max-games 7 is odd"),
        (("greedy", "random", "--alpha", "0.7"), "--alpha 0.7 must be between 0 and 0.5"),
        (("greedy",), "name the two bots"),
        (("--resume",), "--resume needs --db"),
    ],
)
def test_bad_parameters_are_usage_errors(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    done = sprt(tmp_path, *args)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_a_resume_may_not_change_the_test(tmp_path: Path) -> None:
    first = sprt(tmp_path, "greedy", "greedy", "--seed", "1", "--db", "s.sqlite", "--json")
    assert first.returncode == 0
    done = sprt(tmp_path, "--db", "s.sqlite", "--resume", "--elo1", "20")
    assert done.returncode == 2
    assert "--elo1 differ from the stored parameters" in done.stderr


@pytest.mark.slow
def test_a_stronger_bot_accepts_h1(tmp_path: Path) -> None:
    done = sprt(
        tmp_path,
        "strong",
        "greedy",
        "--seed",
        "1",
        "--db",
        "s.sqlite",
        "--json",
        timeout=bound(1800),
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["verdict"] == "H1"
    assert report["elo_interval"][0] > 0
