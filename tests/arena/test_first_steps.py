"""What a new user meets first: ``gin-arena`` alone lists the commands."""

from __future__ import annotations

from arena_support import run_cli

from arena.cli import COMMANDS


def test_gin_arena_alone_lists_every_command_with_its_one_line_help() -> None:
    done = run_cli()
    assert (done.returncode, done.stdout) == (2, "")  # no command: a usage error
    text = " ".join(done.stderr.split())
    for command in COMMANDS:
        assert f"{command.name} {command.help}" in text, command.name
    assert "gin-arena COMMAND --help" in text
