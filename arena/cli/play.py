"""``gin-arena play``: play Gin Rummy against a bot in the terminal.

The human is a :class:`arena.seats.human.HumanBot`, run in this process by the ordinary referee
(:class:`arena.play.match.Match`) against the bot named, so every rule is enforced by the same code
as
in any match. The human always sits in seat 0 of a two-player game; the deals and the first
dealer come from the seed.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from arena.cli.options import (
    DEFAULT_PRESET,
    add_bots_file_argument,
    add_clock_arguments,
    add_logs_argument,
    add_process_arguments,
    add_rules_arguments,
    add_seed_argument,
    bots_file_from,
    clock_from,
    logs_from,
    positive_int,
    rules_from,
    sandbox_from,
    seed_from,
)
from arena.seats.botspec import BotSpec, Launch, resolve
from arena.seats.connection import Connection, InProcessConnection
from arena.terminal import printable
from bots import BUILTIN

if TYPE_CHECKING:
    from collections.abc import Sequence

    from arena.play.match import GameReport, MatchResult
    from arena.play.referee import Clock
    from arena.records.file import RecordFile
    from arena.seats.human import HumanBot
    from arena.seats.walls.sandbox import Sandbox
    from engine.rules import Rules

HELP = "play a game against a bot in the terminal"
DESCRIPTION = f"""\
Play Gin Rummy against a bot in the terminal: one game to the rules' target score (or --games
games, or --hands single hands). The referee is the one every match uses, so every rule is
enforced: an action that is not legal now is refused with the reason, and asked for again.

A bot is the name of a built-in bot ({", ".join(BUILTIN)}), the name of an entry of the --bots
file, or a command line (split like a shell would, never run through a shell), e.g.
"python3 mybot.py --level 2".

At each decision the screen shows the scores, the discard pile, the stock, the cards the bot is
known to hold, and your hand sorted by suit with its best melds and deadwood, then a numbered
menu of the legal actions. Answer with the number of an action, or type it:
  7h, 10d, TD       discard that card          k 7h, knock 7h   discard 7H and knock
  d, draw, stock    draw from the stock        t, take          take the discard pile's top card
  p, pass           pass on the first upcard   ?, help          the commands
  q, quit           leave (asks first: the game in progress is forfeited)

examples:
  gin-arena play greedy
  gin-arena play strong --rules oklahoma --name Ann
  gin-arena play random --target 50 --seed 7
  gin-arena play "python3 mybot.py" --move-time 5
  gin-arena play strong --record mine.jsonl   # then: gin-arena replay mine.jsonl

The move clock applies to both players; yours counts only the CPU time this program uses to draw
the screen, never the time you take to think (a bot in this process is judged on CPU time), so
--move-time is for the bot (at least 0.25 s a move, with --grace and --time-bank). Exit status:
0 when the games are over or you quit (or the input ends), 1 when the bot cannot start, 2 for bad
arguments, 130 on Ctrl-C.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bot", metavar="BOT", help="the bot to play against")
    parser.add_argument("--name", default="you", help="your name in the scores (default: you)")
    count = parser.add_mutually_exclusive_group()
    count.add_argument("--games", type=positive_int, default=None, help="games to play (default 1)")
    count.add_argument(
        "--hands",
        type=positive_int,
        default=None,
        help="play this many single hands instead of games",
    )
    parser.add_argument(
        "--target",
        type=positive_int,
        default=None,
        help="the score that wins a game (the same as --set game_target=N)",
    )
    add_seed_argument(parser)
    parser.add_argument(
        "--record",
        type=Path,
        metavar="FILE",
        help="write the game records to this JSONL file, as match --record does (replaced once "
        "the first game has started; a game you left ends in your forfeit)",
    )
    add_rules_arguments(parser)
    add_clock_arguments(parser)
    add_bots_file_argument(parser)
    add_process_arguments(parser)
    add_logs_argument(parser)


HUMAN_SECONDS = 0.25
"""The least time a move may have here: the human's moves are charged the CPU time of drawing
their screens (about 2 ms, rarely over 15), never the time they think."""
_LAUNCH = Launch()


@dataclass(frozen=True, slots=True)
class HumanSpec(BotSpec):
    """The human's seat: its :class:`~arena.seats.human.HumanBot`, run in this process. The same bot
    is handed over whenever the seat is (re)connected, so what it shows carries over."""

    human: HumanBot | None = None

    @property
    def command_line(self) -> str:
        return "human"

    def connect(
        self, workdir: Path, launch: Launch = _LAUNCH, display_name: str | None = None
    ) -> Connection:
        human = self.human
        if human is None:
            raise RuntimeError("a HumanSpec needs its HumanBot")
        return InProcessConnection(display_name or self.name, lambda: human)


@dataclass(frozen=True, slots=True)
class _Setup:
    """What the arguments ask for, checked, before anything is played."""

    rules: Rules
    clock: Clock
    seed: int
    single: bool
    count: int
    opponent: BotSpec
    sandbox: Sandbox | None
    logs: Path | None
    record: RecordFile | None


def _setup(args: argparse.Namespace) -> _Setup:
    """The rules, clock, seed, count, opponent, sandbox, logs and record the arguments give;
    a ValueError for a bad one."""
    from arena.records.file import RecordFile

    rules = rules_from(args.rules, args.options)
    if args.target is not None:
        rules = rules.replace(game_target=args.target)
    clock = clock_from(args)
    if clock.move + clock.grace + clock.bank < HUMAN_SECONDS:
        raise ValueError(
            f"--move-time with --grace and --time-bank must give at least {HUMAN_SECONDS:g} s a "
            "move: your own moves are charged the CPU time of drawing the screen"
        )
    seed = seed_from(args.seed)
    if not args.name.strip():
        raise ValueError("--name must not be empty")
    single = args.hands is not None
    count = args.hands if single else (args.games if args.games is not None else 1)
    known = bots_file_from(args.bots)
    opponent = resolve(args.bot, known)
    sandbox = sandbox_from(args.sandbox, (opponent,), in_process=True)
    logs = logs_from(args.logs)
    record = RecordFile(args.record) if args.record else None
    return _Setup(rules, clock, seed, single, count, opponent, sandbox, logs, record)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from arena.play.match import Match, MatchError
    from arena.play.referee import RecordWriteError
    from arena.seats.human import HumanBot, Quit
    from arena.terminal import Interrupt

    setup = _setup(args)
    seed, count, record = setup.seed, setup.count, setup.record

    with contextlib.suppress(ImportError):
        import readline  # noqa: F401 - line editing and history for input()

    console = Console(highlight=False, emoji=False, markup=False)
    human = HumanBot(console)
    me = HumanSpec(args.name.strip(), human=human)
    match = Match(
        (me, setup.opponent),
        setup.rules,
        setup.clock,
        games=count,
        single_hands=setup.single,
        seed=seed,
        memory_mb=args.memory_mb,
        cpu_seconds=args.cpu_seconds,
        pids=args.pids,
        sandbox=setup.sandbox,
        hidden=() if record is None else record.paths,
        workdir=setup.logs,
    )
    names = match.names()
    human.names = (names[0], names[1])
    shown = [printable(name) for name in names]
    unit = "hand" if setup.single else "game"
    interrupt = Interrupt()
    finished = 0  # games over when the human left between two of them

    def on_game(report: GameReport, result: MatchResult) -> None:
        interrupt.check()
        if human.quit is not None:
            raise human.quit
        failure = report.outcome.failure
        if failure is not None and report.failed == 1:
            rule = f" [{failure.rule}]" if failure.rule else ""
            message = printable(failure.message)
            console.print(f"{shown[1]} forfeits: {failure.reason}{rule}: {message}")
        if result.played < count:
            nonlocal finished
            finished = result.played
            human.wait(f"{unit.capitalize()} {result.played + 1} of {count} is next.")
            finished = 0

    console.print(_title(args, setup, shown))
    kept = "" if record is None else f" The record is in {printable(str(record.path))}."
    try:
        try:
            with interrupt:
                result = match.play(
                    record=None if record is None else record.open(), on_game=on_game, keep=False
                )
        finally:
            if record is not None:
                record.close()
    except Quit as left:
        console.print()
        console.print(_left_line(str(left), finished, count, unit, seed) + kept)
        return 0
    except KeyboardInterrupt:
        print(f"\ninterrupted: the {unit} is abandoned (seed {seed})", file=sys.stderr)
        return 130
    except MatchError as error:
        print(f"gin-arena play: {printable(str(error), lines=True)}", file=sys.stderr)
        return 1
    except RecordWriteError as error:
        print(f"gin-arena play: {printable(str(error))}", file=sys.stderr)
        return 1
    console.print()
    console.print(_result_line(shown, result, unit, seed) + kept)
    return 0


def _title(args: argparse.Namespace, setup: _Setup, shown: Sequence[str]) -> str:
    """The first line: who plays whom, how many games or hands, the rules."""
    count, unit = setup.count, "hand" if setup.single else "game"
    return (
        f"{shown[0]} v {shown[1]}: {count} {unit}{'s' if count != 1 else ''}"
        + f", rules {args.rules or DEFAULT_PRESET}"
        + (f" ({printable(', '.join(args.options))})" if args.options else "")
        + ("" if setup.single else f", game to {setup.rules.game_target}")
        + ". Type ? at a prompt for help, q to quit."
    )


def _left_line(left: str, finished: int, count: int, unit: str, seed: int) -> str:
    """What the human leaving means: the games or hands finished, or the one forfeited."""
    if finished:
        return f"You left after {finished} of {count} {unit}s ({left}). Seed {seed}."
    return f"You left the {unit} ({left}): it counts as forfeited. Seed {seed}."


def _result_line(shown: Sequence[str], result: MatchResult, unit: str, seed: int) -> str:
    """Who won how many of the games or hands played, and the seed."""
    wins, losses = result.wins(0), result.losses(0)
    return (
        f"{shown[0]} won {wins} and {shown[1]} won {losses} of {result.played} {unit}"
        + ("s" if result.played != 1 else "")
        + (f" ({result.draws()} drawn)" if result.draws() else "")
        + f"; seed {seed}."
    )
