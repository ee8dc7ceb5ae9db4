"""A crash or a protocol error carries the bot's last words: the end of its own stderr, quoted,
escaped and bounded, in the failure's message (so in ``match``'s lines, a tournament's, a
league's), or that it wrote nothing; real bot processes (a Perl bot that dies, Python ones)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from arena_support import CLOCK, GREEDY, HOSTILE, assert_gone, hostile_spec, read_pids
from support import QUICK, gin_arena

from arena.play.match import Match
from arena.seats.botspec import BotSpec
from arena.seats.connection import InProcessConnection
from arena.seats.last_words import LINE_CHARACTERS, last_words
from arena.seats.output import TAIL_BYTES, StderrTail
from engine.rules import HOYLE

PERL = shutil.which("perl")
CRASH_FIRST = HOSTILE / "crash_first.pl"
WORDS = (
    "its last words on stderr: 'crashy: thinking about the first move' / "
    "'Can\\'t locate object method \"think\" \\x1b]0;pwned\\x07 at crash_first.pl line 15.'"
)


@pytest.mark.skipif(PERL is None, reason="needs perl")
def test_match_prints_a_crashed_perl_bot_s_last_words_escaped(tmp_path: Path) -> None:
    done = gin_arena(
        "match", f"perl {CRASH_FIRST}", "greedy", "--sandbox", "none", cwd=tmp_path, timeout=QUICK
    )
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("game ")]
    assert len(lines) == 2, done.stdout
    for line in lines:
        assert f"crash_first forfeits: crash: exited with code 255; {WORDS}" in line, line
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout


def test_a_crash_in_mid_hand_carries_the_words_of_that_process(tmp_path: Path) -> None:
    """The log file gathers every run's words; each message quotes its own process's."""
    pidfile = tmp_path / "pids"
    spec = hostile_spec("crash", "crash.py", pidfile=pidfile)
    result = Match((GREEDY, spec), HOYLE, CLOCK, games=2, seed=2, workdir=tmp_path).play()
    for game in result.games:
        failure = game.outcome.failure
        assert failure is not None and failure.reason == "crash"
        assert failure.message == (
            "exited with code 3; its last words on stderr: 'crash: exiting mid-hand'"
        ), "one line: only its own process's words, not the earlier game's"
    log = (tmp_path / "crash.stderr.log").read_text()
    assert log.count("crash: exiting mid-hand") == 2
    assert_gone(read_pids(pidfile))


def test_a_bot_that_says_nothing_is_said_to_have_said_nothing(tmp_path: Path) -> None:
    spec = hostile_spec("garbage", "garbage.py", "long", pidfile=tmp_path / "pids")
    result = Match((GREEDY, spec), HOYLE, CLOCK, games=1, workdir=tmp_path).play()
    failure = result.games[0].outcome.failure
    assert failure is not None and failure.reason == "malformed"
    assert failure.message.endswith("; it wrote nothing on its stderr"), failure.message


def test_a_built_in_bot_has_no_stderr_to_quote() -> None:
    connection = InProcessConnection("greedy", lambda: None)  # type: ignore[arg-type,return-value]
    assert last_words(connection, ended=True) == ""


def test_the_tail_keeps_the_end_of_the_words_bounded() -> None:
    tail = StderrTail()
    for n in range(1000):
        tail.feed(f"line {n}\n".encode())
    tail.feed(b"\n   \n")
    tail.end()
    tail.settle(5.0, quiet=5.0)  # ended: returns at once
    lines, written = tail.lines(2)
    assert lines == ["line 998", "line 999"]
    assert written > TAIL_BYTES

    long = InProcessConnection("long", lambda: None)  # type: ignore[arg-type,return-value]
    long.stderr_tail = StderrTail()
    long.stderr_tail.feed(b"x" * 5000 + b"\n")
    long.stderr_tail.end()
    words = last_words(long, ended=True)
    quoted = re.fullmatch(r"; its last words on stderr: '(x+)\.\.\.'", words)
    assert quoted is not None and len(quoted[1]) == LINE_CHARACTERS


def test_a_python_bot_that_raises_has_its_traceback_s_end_quoted(tmp_path: Path) -> None:
    """A Python bot that raises on its first request: the traceback's last line is its words."""
    bot = tmp_path / "raises.py"
    bot.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    message = json.loads(line)\n"
        "    if message['type'] == 'hello':\n"
        "        print(json.dumps({'type': 'ready', 'protocol_version': 1, 'name': 'r'}),"
        " flush=True)\n"
        "    elif message['type'] == 'request':\n"
        "        raise ValueError('no idea what to play')\n"
    )
    bot.chmod(0o644)
    spec = BotSpec("raises", ("python3", str(bot)))
    result = Match((GREEDY, spec), HOYLE, CLOCK, games=1, workdir=tmp_path).play()
    failure = result.games[0].outcome.failure
    assert failure is not None and failure.reason == "crash"
    assert failure.message.startswith("exited with code 1; its last words on stderr: ")
    assert failure.message.endswith(" / 'ValueError: no idea what to play'"), failure.message
