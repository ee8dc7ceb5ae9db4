"""The ``gin-arena`` command line: one parser, one subcommand per tool.

Each command lives in its own module, which provides ``add_arguments(parser)`` to declare its
options and ``run(args) -> int`` to carry it out; :data:`COMMANDS` lists them and is the only thing
to extend when a command is added (``match``, ``tournament``, ``protocol``, ``replay``, ``judge``,
``check-bot`` ...). Exit codes are shared: 0 success, 1 the command ran but found a problem (a bad
input line, a failed check), 2 a usage error. A command reports bad arguments by raising
:class:`ValueError` (every engine error is one); :func:`main` prints it as
``gin-arena COMMAND: error: MESSAGE`` on stderr, the way argparse reports its own usage errors.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arena import checkbot, match_cmd, protocol_cmd, records_cmd, solve, tournament_cmd

PROG = "gin-arena"

EXIT_OK = 0
EXIT_PROBLEM = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


@dataclass(frozen=True, slots=True)
class Command:
    """A subcommand: its name, its one-line help, and the module functions that implement it."""

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    description: str | None = None


COMMANDS: tuple[Command, ...] = (
    Command(
        "tournament",
        tournament_cmd.HELP,
        tournament_cmd.add_arguments,
        tournament_cmd.run_command,
        tournament_cmd.DESCRIPTION,
    ),
    Command(
        "ratings",
        tournament_cmd.RATINGS_HELP,
        tournament_cmd.add_ratings_arguments,
        tournament_cmd.run_ratings,
        tournament_cmd.RATINGS_DESCRIPTION,
    ),
    Command("match", match_cmd.HELP, match_cmd.add_arguments, match_cmd.run, match_cmd.DESCRIPTION),
    Command(
        "replay",
        records_cmd.REPLAY_HELP,
        records_cmd.add_replay_arguments,
        records_cmd.run_replay,
        records_cmd.REPLAY_DESCRIPTION,
    ),
    Command(
        "judge",
        records_cmd.JUDGE_HELP,
        records_cmd.add_judge_arguments,
        records_cmd.run_judge,
        records_cmd.JUDGE_DESCRIPTION,
    ),
    Command("check-bot", checkbot.HELP, checkbot.add_arguments, checkbot.run, checkbot.DESCRIPTION),
    Command("solve", solve.HELP, solve.add_arguments, solve.run, solve.DESCRIPTION),
    Command(
        "protocol",
        protocol_cmd.HELP,
        protocol_cmd.add_arguments,
        protocol_cmd.run,
        protocol_cmd.DESCRIPTION,
    ),
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description="The reference referee for Gin Rummy bots."
    )
    subparsers = parser.add_subparsers(
        title="commands", dest="command", metavar="COMMAND", required=True
    )
    for command in COMMANDS:
        sub = subparsers.add_parser(
            command.name,
            help=command.help,
            description=command.description or command.help,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        command.add_arguments(sub)
        sub.set_defaults(command_run=command.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``gin-arena`` with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # argparse has printed the help or a usage error
        return stop.code if isinstance(stop.code, int) else EXIT_USAGE
    run: Callable[[argparse.Namespace], int] = args.command_run
    try:
        return run(args)
    except ValueError as error:
        print(f"{PROG} {args.command}: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:  # Ctrl-C: what was saved stays saved; no traceback
        print(f"\n{PROG} {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (``gin-arena solve --jsonl < hands | head``): stop quietly, and
        # point stdout at devnull so that the interpreter's final flush does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_PROBLEM


if __name__ == "__main__":
    raise SystemExit(main())
