"""The options several commands share are one option: the same spellings, help, default, type,
choices and checks through every command that offers them (arena/cli/options.py declares each
once). A command that declares one of them itself, or a helper that drifts for one command, fails
here."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest

from arena.cli.main import build_parser, main
from arena.cli.options import clock_from, rules_from
from arena.play.referee import Clock
from engine.rules import Rules

OTHER_OPTIONS: dict[str, str] = {
    "--json": "each command prints its own JSON (one object, one at the end, a list of checks)",
    "--db": "a new or resumed tournament, an SPRT, or a database to read",
    "--resume": "what is resumed: a tournament or an SPRT",
    "--games": "a match's games, the games of play (default 1), check-bot's full games",
    "--hands": "a match's or play's single hands, or each pairing's hands in ab",
    "--record": "a record to write (match, play) or to read (report)",
    "--name": "your name in play, case ids in conformance",
    "--verbose": "a line a game (match) or the passing cases (conformance)",
    "-v": "--verbose",
}
"""Options spelled alike in several commands that are different options, and why."""
OTHER_OPTION_IN: dict[tuple[str, str], str] = {
    ("judge", "--mode"): "the format a record must be in (a filter, default any), not the "
    "format to play",
}
"""A command whose option of a shared spelling is another option, and why."""

FAMILIES: dict[str, tuple[str, ...]] = {
    "clock": ("--move-time", "--time-bank", "--grace", "--startup-time", "--quit-time"),
    "limits": ("--memory-mb", "--cpu-seconds", "--pids"),
    "concurrency": ("--concurrency", "--jobs", "--oversubscribe"),
    "rules": ("--rules", "--set"),
    "standings": ("--anchor", "--format"),
}
"""Options a command offers all together or not at all."""
OFFERED: dict[str, set[str]] = {
    "--concurrency": {"tournament", "sprt", "ab"},
    "--seed": {"tournament", "sprt", "ab", "match", "play"},
    "--rules": {"tournament", "sprt", "ab", "match", "play"},
    "--mode": {"tournament", "match"},
    "--move-time": {"tournament", "sprt", "ab", "match", "play", "check-bot"},
    "--sandbox": {"tournament", "sprt", "ab", "match", "play", "check-bot"},
    "--memory-mb": {"tournament", "sprt", "ab", "match", "play", "check-bot"},
    "--logs": {"tournament", "sprt", "match", "play", "check-bot"},
    "--log-wire": {"tournament", "match", "check-bot"},
    "--bots": {"tournament", "sprt", "ab", "match", "play", "check-bot"},
    "--bot": {"tournament"},
    "--subprocess": {"tournament", "sprt", "ab", "match"},
    "--format": {"tournament", "ratings"},
}
"""At least these commands offer these options (the test would pass vacuously otherwise)."""
ARGS: dict[str, tuple[str, ...]] = {
    "ab": ("greedy", "random"),
    "match": ("greedy", "random"),
    "play": ("greedy",),
    "check-bot": ("greedy",),
    "ratings": ("--db", "none.sqlite"),
    "judge": ("none.jsonl",),
}
"""What a command needs besides the option under test to parse."""


def commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def actions(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {s: a for a in parser._actions for s in a.option_strings}


def shared() -> dict[str, dict[str, argparse.Action]]:
    """Each option string offered by more than one command: the commands' actions for it."""
    by_option: dict[str, dict[str, argparse.Action]] = {}
    for command, parser in commands().items():
        for option, action in actions(parser).items():
            if option in OTHER_OPTIONS or (command, option) in OTHER_OPTION_IN:
                continue
            by_option.setdefault(option, {})[command] = action
    return {o: by for o, by in by_option.items() if len(by) > 1}


def signature(action: argparse.Action) -> dict[str, object]:
    return {
        "kind": type(action).__name__,
        "option_strings": action.option_strings,
        "dest": action.dest,
        "help": action.help,
        "default": action.default,
        "type": action.type,
        "choices": action.choices,
        "nargs": action.nargs,
        "const": action.const,
        "metavar": action.metavar,
        "required": action.required,
    }


def offering(option: str) -> list[str]:
    return sorted(c for c, p in commands().items() if option in actions(p))


def test_the_shared_options_are_offered_where_expected() -> None:
    for option, expected in OFFERED.items():
        assert expected <= set(offering(option)), option
    assert "--help" in shared() and "--concurrency" in shared()


@pytest.mark.parametrize("option", sorted(shared()))
def test_a_shared_option_is_the_same_option_in_every_command(option: str) -> None:
    by_command = shared()[option]
    first, *rest = by_command
    for command in rest:
        assert signature(by_command[command]) == signature(by_command[first]), (
            f"{option}: {command} and {first} differ; declare it once in arena/cli/options.py"
        )


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_a_command_offers_a_family_whole_or_not_at_all(family: str) -> None:
    for command, parser in commands().items():
        offered = set(FAMILIES[family]) & set(actions(parser))
        assert offered in (set(), set(FAMILIES[family])), (command, family)


def test_jobs_is_an_alias_of_concurrency_everywhere() -> None:
    for command in offering("--concurrency"):
        parser = commands()[command]
        args = parser.parse_args([*ARGS.get(command, ()), "--jobs", "1"])
        assert args.concurrency == 1, command
        assert "--jobs" in actions(parser)["--concurrency"].option_strings


@pytest.mark.parametrize("command", offering("--move-time"))
def test_the_defaults_left_unset_are_those_the_help_names(command: str) -> None:
    args = commands()[command].parse_args(list(ARGS.get(command, ())))
    assert clock_from(args) == Clock()
    help_text = actions(commands()[command])["--move-time"].help
    assert help_text is not None and "(default 1)" in help_text
    if "--rules" in actions(commands()[command]):
        assert rules_from(args.rules, args.options) == Rules.preset("hoyle")


def usage_error(capsys: pytest.CaptureFixture[str], command: str, argv: list[str]) -> str:
    """The message of the usage error ``gin-arena COMMAND ARGV`` ends with, without its
    command's name."""
    assert main([command, *ARGS.get(command, ()), *argv]) == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    prefix = f"gin-arena {command}: error: "
    assert last.startswith(prefix), last
    return last.removeprefix(prefix)


BAD_VALUES = [
    ("--move-time", "-1"),
    ("--time-bank", "x"),
    ("--grace", "inf"),
    ("--startup-time", "1e9"),
    ("--quit-time", "-0.5"),
    ("--memory-mb", "0"),
    ("--cpu-seconds", "x"),
    ("--pids", "0"),
    ("--concurrency", "0"),
    ("--jobs", "x"),
    ("--sandbox", "maybe"),
    ("--mode", "solo"),
    ("--format", "xml"),
    ("--seed", "x"),
]


@pytest.mark.parametrize(("option", "value"), BAD_VALUES)
def test_a_bad_value_is_the_same_error_through_every_command(
    capsys: pytest.CaptureFixture[str], option: str, value: str
) -> None:
    errors = {
        command: usage_error(capsys, command, [option, value])
        for command in offering(option)
        if (command, option) not in OTHER_OPTION_IN
    }
    assert len(errors) > 1
    assert len(set(errors.values())) == 1, errors


RUN_TIME_CHECKS = [
    ("--seed", ["--seed", "-1"], "bad seed -1: a seed is an integer from 0 to 2**64 - 1"),
    ("--rules", ["--rules", "nosuch"], "nosuch"),
    ("--rules", ["--set", "nosuch=1"], "nosuch"),
    ("--logs", ["--logs", "a-file"], "is a file"),
    ("--concurrency", ["--concurrency", str((os.cpu_count() or 1) + 1)], "--oversubscribe"),
]
"""Values refused when a command runs (before any bot starts): an option, the arguments and a
part of the error."""


@pytest.mark.parametrize("case", RUN_TIME_CHECKS, ids=lambda case: " ".join(case[1]))
def test_a_value_refused_on_running_is_the_same_error_through_every_command(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    case: tuple[str, list[str], str],
) -> None:
    option, argv, part = case
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    errors: dict[str, str] = {}
    for command in offering(option):
        extra = ["--sandbox", "none"]
        if "--concurrency" in actions(commands()[command]) and option != "--concurrency":
            extra += ["--concurrency", "1"]
        if command == "sprt":
            extra = ["greedy", "random", *extra]
        errors[command] = usage_error(capsys, command, [*argv, *extra])
    assert len(errors) > 1
    assert len(set(errors.values())) == 1, errors
    assert part in next(iter(errors.values()))
    assert not list(tmp_path.glob("*.sqlite")), "refused before a database is made"
