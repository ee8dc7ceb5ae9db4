"""``gin-arena check-bot``: well-behaved bots pass every check, and each kind of broken bot fails
the right check with its failure named."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from arena_support import CLOCK, HOSTILE, hostile
from support import LONG, ROOT, gin_arena

from arena.cli.check_bot import Check, check_bot
from arena.play.referee import Clock
from arena.seats.botspec import BotSpec

HERE = Path(__file__).resolve().parents[1] / "checkbot_bots"


def run_checks(tmp_path: Path, command: tuple[str, ...], clock: Clock = CLOCK) -> dict[str, Check]:
    spec = BotSpec("bot", command, env={"PYTHONPATH": str(ROOT)})
    checks = check_bot(spec, clock, tmp_path, games=1)
    return {c.name: c for c in checks}


def failed(checks: dict[str, Check]) -> dict[str, str]:
    return {name: c.detail for name, c in checks.items() if not c.ok}


@pytest.mark.parametrize("module", ["bots.greedy", "bots.random"])
def test_the_built_in_bots_pass_every_check(tmp_path: Path, module: str) -> None:
    checks = run_checks(tmp_path, (sys.executable, "-m", module))
    assert not failed(checks)
    assert {"handshake", "situations covered", "response times", "exits on quit"} <= set(checks)
    assert "every phase" in checks["situations covered"].detail


def test_the_javascript_example_passes_from_the_command_line(tmp_path: Path) -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the JavaScript example cannot run")
    script = ROOT / "bots" / "examples" / "javascript" / "ginbot.js"
    done = gin_arena(
        "check-bot", f"node {script}", "--games", "1", "--json", cwd=tmp_path, timeout=LONG
    )
    assert done.returncode == 0, done.stdout + done.stderr
    rows = json.loads(done.stdout)
    assert all(row["ok"] for row in rows) and len(rows) >= 9


@pytest.mark.parametrize(
    ("script", "args", "check", "words"),
    [
        ("silent.sh", (), "handshake", "startup"),
        ("wrong_version.py", (), "handshake", "version 99"),
        ("crash.py", (), "first upcard and a knock", "crash"),
        ("garbage.py", (), "first upcard and a knock", "malformed"),
        ("illegal.py", ("held",), "full game 1 against greedy", "illegal [R7]"),
        ("wrong_id.py", (), "first upcard and a knock", "protocol"),
        pytest.param(  # a timeout's wait: the slow lane (silent.sh times out in the default run)
            "mute.py", (), "first upcard and a knock", "timeout", marks=pytest.mark.slow
        ),
    ],
)
def test_each_broken_bot_fails_with_its_failure_named(
    tmp_path: Path, script: str, args: tuple[str, ...], check: str, words: str
) -> None:
    # A bot that never answers hello costs the whole start-up time: a short one here.
    clock = dataclasses.replace(CLOCK, startup=1.0) if words == "startup" else CLOCK
    checks = run_checks(tmp_path, hostile(script, *args), clock)
    problems = failed(checks)
    assert check in problems, problems
    assert words in problems[check], problems[check]


def test_a_bot_that_ignores_quit_fails_that_check(tmp_path: Path) -> None:
    checks = run_checks(tmp_path, (sys.executable, str(HERE / "deaf.py")))
    assert set(failed(checks)) == {"exits on quit"}, failed(checks)


def test_the_command_exits_1_and_prints_a_line_per_check_on_failure(tmp_path: Path) -> None:
    done = gin_arena(
        "check-bot", f"/bin/sh {HOSTILE / 'silent.sh'}", "--startup-time", "1", cwd=tmp_path
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.startswith("FAIL  handshake") and "0 passed, 1 failed" in done.stdout


def test_a_bot_named_like_its_opponent_passes_every_check(tmp_path: Path) -> None:
    """The checks read the bot's lines off the wire by its name: the built-in greedy, checked
    against greedy, is told apart from its opponent (the wire names them greedy and opponent,
    tests/arena/seats/test_wire.py)."""
    spec = BotSpec("greedy", builtin="greedy")
    checks = {c.name: c for c in check_bot(spec, CLOCK, tmp_path, in_process=True, games=1)}
    assert not failed(checks)
    assert "every phase" in checks["situations covered"].detail
    assert int(checks["response times"].detail.split()[0]) > 20


def test_a_bot_that_keeps_its_game_start_seat_passes_partnership_and_a_bad_sit_out_fails(
    tmp_path: Path,
) -> None:
    """Every hand of a partnership game is shown from the bot's seat, so a bot that assumes it
    never changes seat plays it; the same bot crashing on the three-player ``sit_out`` notice
    fails exactly that check, named."""
    checks = run_checks(tmp_path, (sys.executable, str(HERE / "seat_bound.py")))
    problems = failed(checks)
    assert set(problems) == {"three-player sit-out"}, problems
    assert "crash" in problems["three-player sit-out"]


def test_a_slow_reply_is_named_and_counted_in_the_response_times(tmp_path: Path) -> None:
    """A bot that misses its time once: the check that failed names the request (its phase,
    hand and id), and the response times count it rather than leave it out."""
    bot = f"{sys.executable} {HERE / 'slow_once.py'} {tmp_path / 'slept'} 0.6"
    done = gin_arena(
        "check-bot", bot, "--move-time", "0.2", "--games", "1", "--quit-time", "0.5",
        "--sandbox", "none", "--json", cwd=tmp_path, timeout=LONG,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    problems = {row["check"]: row["detail"] for row in json.loads(done.stdout) if not row["ok"]}
    assert set(problems) == {"first upcard and a knock", "response times"}, problems
    assert re.fullmatch(
        r"the bot failed: timeout: no reply within 0\.300 s to the draw request of hand 1 "
        r"\(request id \d+\)",
        problems["first upcard and a knock"],
    ), problems
    assert re.fullmatch(
        r"1 of \d+ requests timed out; slowest answered [\d.]+ ms \(move time 200 ms\)",
        problems["response times"],
    ), problems


def test_a_bot_asking_for_the_compact_form_is_also_sent_plain_requests(tmp_path: Path) -> None:
    """The SDK's bots ask for the compact form and pass a game of plain requests too; a bot that
    needs ``history_from`` in every request fails that check alone."""
    checks = run_checks(tmp_path / "sdk", (sys.executable, "-m", "bots.greedy"))
    assert "asks for the compact form" in checks["handshake"].detail
    assert checks["plain requests, though compact asked for"].ok
    fussy = run_checks(tmp_path / "fussy", (sys.executable, str(HERE / "compact_only.py")))
    assert set(failed(fussy)) == {"plain requests, though compact asked for"}, failed(fussy)
    assert "crash" in fussy["plain requests, though compact asked for"].detail
