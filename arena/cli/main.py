"""The ``gin-arena`` command line: one parser, one subcommand per command module.

A command module provides ``HELP`` (one line), ``DESCRIPTION`` (the ``--help`` text),
``add_arguments(parser)`` to declare its options and ``run(args) -> int`` to carry it out; adding
a command is one new module and one line in :data:`COMMANDS`. Options shared by several commands
are in :mod:`arena.cli.options`. Exit codes are shared: 0 success, 1 the command ran but found a
problem (a bad input line, a failed check, a bot that cannot start), 2 a usage error, 130
interrupted (Ctrl-C). A command reports a bad argument or input by raising :class:`ValueError`
(rule, card, bots-file, database and sandbox errors are all ValueErrors); :func:`main` prints it
as ``gin-arena COMMAND: error: MESSAGE`` on stderr, the way argparse reports its own usage errors.
``gin-arena`` alone is a usage error too, answered with the help (every command with its one-line
help) on stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, NoReturn

from arena.cli import (
    ab,
    check_bot,
    conformance,
    judge,
    league,
    match,
    play,
    protocol,
    ratings,
    replay,
    report,
    serve,
    solve,
    sprt,
    tournament,
)
from arena.cli.layout import HelpFormatter
from arena.terminal import printable
from engine import __version__

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

    @classmethod
    def of(cls, name: str, module: ModuleType) -> Command:
        """The command a command module implements (see the module docstring)."""
        return cls(name, module.HELP, module.add_arguments, module.run, module.DESCRIPTION)


COMMANDS: tuple[Command, ...] = (
    Command.of("tournament", tournament),
    Command.of("ratings", ratings),
    Command.of("match", match),
    Command.of("play", play),
    Command.of("replay", replay),
    Command.of("report", report),
    Command.of("judge", judge),
    Command.of("check-bot", check_bot),
    Command.of("solve", solve),
    Command.of("protocol", protocol),
    Command.of("conformance", conformance),
    Command.of("sprt", sprt),
    Command.of("ab", ab),
    Command.of("league", league),
    Command.of("serve", serve),
)


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors show the arguments they quote with control
    characters escaped (argparse quotes some arguments raw: ``unrecognized arguments: ...``),
    and whose help is laid out for the terminal's width (:class:`arena.cli.layout.HelpFormatter`,
    for the parsers of subcommands too)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        super().error(printable(message, lines=True))


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog=PROG,
        description="The reference referee for Gin Rummy bots.",
        epilog=f"{PROG} COMMAND --help explains a command's options; the README's tour of the "
        "CLI shows them at work.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    subparsers = parser.add_subparsers(
        title="commands", dest="command", metavar="COMMAND", required=True
    )
    for command in COMMANDS:
        sub = subparsers.add_parser(
            command.name,
            help=command.help,
            description=command.description or command.help,
        )
        command.add_arguments(sub)
        sub.set_defaults(command_run=command.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``gin-arena`` with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    parser = build_parser()
    if not (sys.argv[1:] if argv is None else argv):
        parser.print_help(sys.stderr)  # bare gin-arena: the commands, each with its one-line help
        return EXIT_USAGE
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # argparse has printed the help or a usage error
        return stop.code if isinstance(stop.code, int) else EXIT_USAGE
    run: Callable[[argparse.Namespace], int] = args.command_run
    try:
        return run(args)
    except ValueError as error:
        print(f"{PROG} {args.command}: error: {printable(str(error), lines=True)}", file=sys.stderr)
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
