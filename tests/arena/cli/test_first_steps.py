"""What a new user meets first: ``gin-arena`` alone lists the commands, and a sandbox asked for
where no bot runs as a process says that it isolates nothing."""

from __future__ import annotations

import pytest
from support import gin_arena

from arena.cli import options
from arena.cli.main import COMMANDS
from arena.seats.botspec import BotSpec
from arena.seats.walls.sandbox import resolve_sandbox, sandbox_warning

NOTE = "no bot runs as a process here: the sandbox applies to bot processes only"
BUILT_IN = (BotSpec("greedy", builtin="greedy"), BotSpec("random", builtin="random"))
PROGRAM = BotSpec("mine", ("python3", "mybot.py"))


def test_gin_arena_alone_lists_every_command_with_its_one_line_help() -> None:
    done = gin_arena()
    assert (done.returncode, done.stdout) == (2, "")  # no command: a usage error
    text = " ".join(done.stderr.split())
    for command in COMMANDS:
        assert f"{command.name} {command.help}" in text, command.name
    assert "gin-arena COMMAND --help" in text


CASES = [
    ("bwrap", BUILT_IN, True, True),
    ("auto", BUILT_IN, True, True),
    (None, BUILT_IN, True, False),  # not asked for: the default says nothing
    ("bwrap", BUILT_IN, False, False),  # --subprocess: the built-in bots are processes
    ("bwrap", (BUILT_IN[0], PROGRAM), True, False),
]


@pytest.mark.parametrize("case", CASES)
def test_a_sandbox_with_no_bot_process_to_isolate_says_so(
    case: tuple[str | None, tuple[BotSpec, ...], bool, bool],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    mode, bots, in_process, noted = case
    sandbox = object()  # what bubblewrap would give, whether or not it works here
    monkeypatch.setattr(options, "resolve_sandbox", lambda mode: sandbox)
    assert options.sandbox_from(mode, bots, in_process) is sandbox
    assert (NOTE in capsys.readouterr().err) == noted


def test_no_sandbox_no_note(capsys: pytest.CaptureFixture[str]) -> None:
    assert options.sandbox_from("none", BUILT_IN, True) is None
    assert capsys.readouterr().err == ""


@pytest.mark.skipif(
    resolve_sandbox("auto") is None, reason=f"no usable bubblewrap here: {sandbox_warning()}"
)
def test_a_match_of_built_in_bots_in_the_sandbox_says_it_isolates_nothing() -> None:
    done = gin_arena("match", "greedy", "random", "--games", "1", "--sandbox", "bwrap")
    assert done.returncode == 0, done.stderr
    assert done.stderr.count(NOTE) == 1, done.stderr
    assert "(--subprocess" in done.stderr
