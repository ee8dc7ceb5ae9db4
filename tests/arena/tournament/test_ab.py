"""``gin-arena ab``: the statistics, the chunks, and the command as a user runs it (worker
processes, real bot subprocesses, a bot that crashes, Ctrl-C, bad input)."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from arena_support import hostile, process_alive, wait_until
from support import COMMAND, GONE, gin_arena, start_gin_arena

from arena.cli.main import main
from arena.play.match import Match, Planned
from arena.seats.botspec import BotSpec
from arena.tournament.ab import Estimate, chunks, estimate
from engine.rules import Rules


def ab_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["ab", *args, "--json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


# -- the statistics ------------------------------------------------------------------------------


def test_an_estimate_is_the_mean_of_the_deals_halved_with_its_standard_error() -> None:
    e = estimate([4.0, -2.0, 10.0, 0.0])  # deal sums over two hands
    assert e.points == pytest.approx(1.5)  # 12 / 4 deals / 2 hands
    sd = math.sqrt((1**2 + 5**2 + 7**2 + 3**2) / 3)  # about the mean deal, 3
    assert e.error == pytest.approx(sd / 2 / 2)  # / sqrt(4) / 2 hands
    assert e.deals == 4
    low, high = e.interval
    assert low == pytest.approx(1.5 - 1.959963984540054 * e.error)
    assert high == pytest.approx(1.5 + 1.959963984540054 * e.error)
    assert e.verdict == 0


def test_a_verdict_needs_the_whole_interval_on_one_side() -> None:
    assert Estimate(1.0, 0.5, 100).verdict == 1  # [0.02, 1.98]
    assert Estimate(1.0, 0.52, 100).verdict == 0  # [-0.02, 2.02]
    assert Estimate(-1.0, 0.5, 100).verdict == -1


def test_too_few_deals_have_no_error_and_no_verdict() -> None:
    assert estimate([]).deals == 0 and math.isinf(estimate([]).error)
    one = estimate([6.0])
    assert one.points == 3.0 and math.isinf(one.error) and one.verdict == 0
    assert one.to_json() == {
        "points": 3.0,
        "error": None,
        "interval": None,
        "deals": 1,
        "hands": 2,
    }


def number(game: Planned) -> int:
    return game.number


def test_chunks_keep_each_deal_whole_and_cover_the_plan() -> None:
    match = Match(
        (BotSpec("a", builtin="greedy"), BotSpec("b", builtin="random")),
        Rules(),
        games=46,
        single_hands=True,
        mirror=True,
    )
    plan = match.plan()
    pieces = chunks(plan, deals=10)
    assert [len(p) for p in pieces] == [20, 20, 6]
    assert sorted((g for p in pieces for g in p), key=number) == sorted(plan, key=number)
    # A piece's deals in order, played leg after leg: their first hands, then their mirrors.
    assert [g.number for g in pieces[2]] == [41, 43, 45, 42, 44, 46]
    for piece in pieces:
        half = len(piece) // 2
        assert [g.leg for g in piece] == [0] * half + [1] * half
        for first, second in zip(piece[:half], piece[half:], strict=True):
            assert first.seed == second.seed and first.seats == second.seats[::-1]
            assert second.number == first.number + 1


# -- the command ---------------------------------------------------------------------------------


# About 10 s of hands played twice: in the slow lane; the quick lane keeps the report and the
# zero difference of a bot against itself.
@pytest.mark.slow
def test_head_to_head_agrees_with_the_same_hands_played_as_a_match(
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = ab_json(capsys, "strong", "greedy", "--hands", "40", "--seed", "7", "--jobs", "2")
    match = Match(
        (BotSpec("strong", builtin="strong"), BotSpec("greedy", builtin="greedy")),
        Rules(),
        games=40,
        single_hands=True,
        seed=7,
        mirror=True,
    )
    games = match.play().games
    nets = [g.points(0) - g.points(1) for g in games]
    assert data["difference"]["points"] == pytest.approx(sum(nets) / 40)
    assert data["difference"]["deals"] == 20 and data["played"] == 40
    assert (data["new"], data["base"], data["against"]) == ("strong", "greedy", None)
    assert data["forfeits"] == {"strong": 0, "greedy": 0}
    expected = {1: "new", -1: "base", 0: "undecided"}[
        Estimate(data["difference"]["points"], data["difference"]["error"], 20).verdict
    ]
    assert data["verdict"] == expected != "forfeits"


def test_the_same_bot_against_an_opponent_differs_by_exactly_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The same cards come to both: a bot compared with itself scores the same on every deal
    (the built-in bots seed each hand from its number)."""
    data = ab_json(
        capsys, "strong", "strong", "--against", "greedy", "--hands", "40", "--seed", "3"
    )
    assert (data["new"], data["base"], data["against"]) == ("strong#new", "strong#base", "greedy")
    assert data["difference"] == {
        "points": 0.0,
        "error": 0.0,
        "interval": [0.0, 0.0],
        "deals": 20,
        "hands": 40,
    }
    assert data["verdict"] == "undecided"
    assert data["scores"]["strong#new"] == data["scores"]["strong#base"]
    assert data["played"] == 80


def test_the_number_of_workers_does_not_change_the_hands(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # random draws from a generator seeded by the hand's number: the same in any worker.
    args = ("greedy", "random", "--against", "greedy", "--hands", "64", "--seed", "11")
    one = ab_json(capsys, *args, "--jobs", "1")
    two = ab_json(capsys, *args, "--jobs", "3", "--oversubscribe")  # --concurrency, old name
    assert one == two
    assert one["scores"]["greedy"]["points"] > one["scores"]["random"]["points"]


def test_a_bot_that_crashes_forfeits_every_hand_and_the_test_goes_on(
    capsys: pytest.CaptureFixture[str],
) -> None:
    crash = " ".join(hostile("crash.py"))
    args = [crash, "greedy", "--hands", "4", "--seed", "1", "--jobs", "1", "--sandbox", "none"]
    # The command ran but found a problem: exit 1, and no verdict on points a forfeit decided.
    assert main(["ab", *args, "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    (name,) = (n for n in data["forfeits"] if n != "greedy")
    assert data["forfeits"] == {name: 4, "greedy": 0}
    assert data["played"] == 4
    assert data["verdict"] == "forfeits"
    assert main(["ab", *args]) == 1
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-2].startswith("no verdict: a forfeited hand scores no points")
    assert lines[-1] == f"forfeits: {name} 4"


def test_bad_input_is_a_usage_error_that_names_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ab", "strong", "greedy", "--hands", "7"]) == 2
    assert "--hands 7 is odd" in capsys.readouterr().err
    assert main(["ab", "strong", "greedy", "--hands", "0"]) == 2
    assert "--hands" in capsys.readouterr().err
    assert main(["ab", "strong", "greedy", "--seed", "-1"]) == 2
    assert "bad seed -1" in capsys.readouterr().err
    assert main(["ab", "strong", "greedy", "--set", "knock_limit=zero"]) == 2
    assert "knock_limit" in capsys.readouterr().err
    assert main(["ab", "strong", "greedy", "--bots", "/nonexistent/bots.toml"]) == 2
    assert "bots.toml" in capsys.readouterr().err


def test_a_bot_that_cannot_start_stops_the_test(tmp_path: Path) -> None:
    done = gin_arena(
        "ab", str(tmp_path / "no-such-bot"), "greedy", "--hands", "2", "--sandbox", "none"
    )
    assert done.returncode == 1, done.stderr
    assert "gin-arena ab:" in done.stderr and "no-such-bot" in done.stderr


def test_the_text_report_as_a_user_runs_it() -> None:
    greedy = f"{sys.executable} -m bots.greedy"  # a real subprocess
    named = Path(sys.executable).name  # a command's bot is named after its program
    done = gin_arena(
        "ab", "strong", greedy, "--against", "random", "--hands", "20", "--seed", "5",
        "--sandbox", "none",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0] == (
        f"A/B strong v {named} against random: 20 hands a pairing, mirrored, seed 5, "
        f"{os.cpu_count()} worker{'s' * (os.cpu_count() != 1)}"
    )
    assert lines[-5].startswith("strong against random: +")
    assert lines[-4].startswith(f"{named} against random: +")
    assert lines[-3].startswith(f"strong - {named}: ") and "10 deals" in lines[-3]
    assert "95% confidence" in lines[-2]
    assert lines[-1] == "forfeits: none"


def test_ctrl_c_reports_the_complete_deals_and_leaves_no_process() -> None:
    process = start_gin_arena(
        "ab", "strong", f"{sys.executable} -m bots.greedy",
        "--hands", "4000", "--seed", "2", "--jobs", "2", "--sandbox", "none", "--json",
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        # Wait until the workers have started their bots, then Ctrl-C the whole group.
        assert wait_until(lambda: len(_descendants(process.pid)) >= 4, timeout=COMMAND)
        time.sleep(1.0)
        started = _descendants(process.pid)
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=COMMAND)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 130, err
    assert "interrupted after" in err
    data = json.loads(out)
    assert data["played"] < 4000
    assert data["difference"]["hands"] == 2 * data["difference"]["deals"] <= data["played"]
    # The workers and the bots they started are gone with the test.
    assert wait_until(lambda: not any(process_alive(pid) for pid in started), timeout=GONE)


def _descendants(pid: int) -> set[int]:
    """The processes below ``pid`` (workers, and the bots they run), from /proc."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        parent = todo.pop()
        try:
            children = Path(f"/proc/{parent}/task/{parent}/children").read_text().split()
        except OSError:
            continue
        for child in map(int, children):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found
