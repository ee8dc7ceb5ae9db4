"""``gin-arena match``: games between bots in any format, a readable summary or one JSON
object."""

from __future__ import annotations

import argparse
import json
import math
import sys
import textwrap
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Final

from arena.cli.options import (
    DEFAULT_PRESET,
    add_bots_file_argument,
    add_clock_arguments,
    add_logs_argument,
    add_mode_argument,
    add_process_arguments,
    add_rules_arguments,
    add_seed_argument,
    add_subprocess_argument,
    add_wire_argument,
    bots_file_from,
    clock_from,
    logs_from,
    mode_from,
    positive_int,
    rules_from,
    sandbox_from,
    seed_from,
)
from arena.play.match import GameReport, Match, MatchError, MatchResult
from arena.play.referee import RecordWriteError
from arena.records.file import RecordFile
from arena.seats import wire
from arena.seats.botspec import BotSpec, resolve
from arena.stats.ratings import Z95
from arena.terminal import Interrupt, printable
from arena.tournament.standings import Column, Step, fit_table, terminal_width
from bots import BUILTIN
from engine.formats import TWO_PLAYER, Format, FormatResult

HELP = "play games between bots and summarise the result"
DESCRIPTION = f"""\
Play games between bots and print a summary (or, with --json, one JSON object): two bots, or
three or four in the formats that seat them (--mode).

A bot is the name of a built-in bot ({", ".join(BUILTIN)}), the name of an entry of the
--bots file, or a command line (split like a shell would, never run through a shell), e.g.
"python3 mybot.py --level 2". Built-in bots run in this process unless --subprocess is given.

examples:
  gin-arena match greedy random --games 20 --mirror
  gin-arena match greedy "python3 mybot.py" --hands 200 --mirror --seed 7 --record games.jsonl
  gin-arena match greedy random --rules oklahoma --set undercut_bonus=25 --json
  gin-arena match random greedy --mode hollywood --rules bonus
  gin-arena match random greedy strong --mode three-player --games 3 --mirror
  gin-arena match random greedy strong greedy --mode partnership

A bot that fails (timeout, crash, malformed output, protocol violation, illegal action) forfeits
the game and is restarted for the next one; a bot that cannot start stops the match (exit 1).

The output: a line for each game or hand when there are at most 20 (or with --verbose), then a
table of won, lost, drawn, score, points a game or hand and forfeits by bot (fitted to the
terminal), and, between the two sides, the mean difference in points a game or hand with its 95%
interval (each game or hand one observation; for mirrored hands, `gin-arena ab` pairs a deal's
two hands for a tighter one).
"""


PROGRESS_SECONDS: Final = 5.0
"""How often a match that prints no line a game says how far it is (on stderr)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "bot",
        metavar="BOT",
        nargs="+",
        help="the bots, one per player: two, three (--mode three-player) or four "
        "(--mode partnership)",
    )
    add_mode_argument(parser)
    count = parser.add_mutually_exclusive_group()
    count.add_argument("--games", type=positive_int, default=None, help="games to play (default 2)")
    count.add_argument(
        "--hands",
        type=positive_int,
        default=None,
        help="play this many single hands instead of games",
    )
    add_seed_argument(parser)
    add_rules_arguments(parser)
    add_clock_arguments(parser)
    parser.add_argument(
        "--mirror",
        action="store_true",
        help="play every deal in every seating: twice with the bots swapping seats (three "
        "times, every bot in every seat, with three players; twice, the teams swapping, in "
        "partnership); the first seating of every deal first, then the next, each by bot "
        "processes of its own",
    )
    parser.add_argument(
        "--record",
        type=Path,
        help="write the game records to this JSONL file (replaced once the match has started)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help=f"print a line for every game or hand (the default for {FEW} or fewer)",
    )
    add_bots_file_argument(parser)
    add_subprocess_argument(parser)
    add_process_arguments(parser)
    add_logs_argument(parser)
    add_wire_argument(parser)


def bot_specs(args: argparse.Namespace) -> tuple[BotSpec, ...]:
    known = bots_file_from(args.bots)
    return tuple(resolve(text, known) for text in args.bot)


def run(args: argparse.Namespace) -> int:
    wire.enable(args.log_wire)
    rules = rules_from(args.rules, args.options)
    clock = clock_from(args)
    count = args.hands if args.hands is not None else (args.games if args.games is not None else 2)
    seed = seed_from(args.seed)
    mode = mode_from(args.mode, len(args.bot), rules, args.hands is not None)
    specs = bot_specs(args)
    logs = logs_from(args.logs)
    record = RecordFile(args.record) if args.record else None
    sandbox = sandbox_from(args.sandbox, specs, not args.subprocess)
    match = Match(
        specs,
        rules,
        clock,
        games=count,
        single_hands=args.hands is not None,
        seed=seed,
        mirror=args.mirror,
        in_process=not args.subprocess,
        memory_mb=args.memory_mb,
        cpu_seconds=args.cpu_seconds,
        pids=args.pids,
        sandbox=sandbox,
        hidden=() if record is None else record.paths,
        workdir=logs,
        mode=mode,
    )
    names = match.names()
    shown = tuple(printable(name) for name in names)
    unit = "hand" if args.hands is not None else "game"
    played = 0
    lines = args.verbose or count <= FEW
    points = Points(len(names), mode)

    interrupt = Interrupt()

    last_note = time.monotonic()

    def progress(report: GameReport, result: MatchResult) -> None:
        nonlocal played, last_note
        played += 1
        points.add(report)
        if not args.json and lines:
            print(describe(report, names, unit), flush=True)
        elif not args.json and time.monotonic() - last_note >= PROGRESS_SECONDS:
            # Without a line a game, a line on stderr every few seconds says how far it is.
            last_note = time.monotonic()
            print(f"match: {played} of {plural(count, unit)} played", file=sys.stderr, flush=True)
        interrupt.check()

    if not args.json:
        print(_heading(args, side_names(mode, shown), count, unit, mode=mode, seed=seed))
    try:
        try:
            with interrupt:
                result = match.play(
                    record=None if record is None else record.open(),
                    on_game=progress,
                    keep=args.json,  # only --json prints every game: else memory stays flat
                )
        finally:
            if record is not None:
                record.close()
    except MatchError as error:
        print(f"gin-arena match: {printable(str(error), lines=True)}", file=sys.stderr)
        return 1
    except RecordWriteError as error:
        assert record is not None
        print(f"gin-arena match: {printable(f'{error} ({record.path})')}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        kept = f"; the record {str(record.path)!r} holds them" if record and played else ""
        print(
            f"\ninterrupted after {played} of {plural(count, unit)}, seed {seed}{kept}",
            file=sys.stderr,
        )
        return 130
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
    else:
        print()
        print(summary(result, unit, points, terminal_width()))
    return 0


def _heading(
    args: argparse.Namespace,
    sides: Sequence[str],
    count: int,
    unit: str,
    *,
    mode: Format,
    seed: int,
) -> str:
    """The first line of a match: who plays, how much, in which format, seed and rules."""
    return (
        f"{' v '.join(sides)}: {plural(count, unit)}"
        + ("" if mode is TWO_PLAYER else f", {mode}")
        + (f", seed {seed}" if args.seed is not None else "")
        + f", rules {args.rules or DEFAULT_PRESET}"
        + (f" ({printable(', '.join(args.options))})" if args.options else "")
        + (", mirrored" if args.mirror else "")
    )


def describe(report: GameReport, names: Sequence[str], unit: str) -> str:
    """One line for a finished game: who won, the scores (winners first) and any forfeit, the
    names and the failure's message escaped for a terminal."""
    o = report.outcome
    head = f"{unit} {report.number:>3}: "
    if report.winner is None:
        text = f"{head}drawn ({o.hands} hand{'s' if o.hands != 1 else ''})"
    else:
        winners = report.winners
        w = o.winner
        assert w is not None
        scores = [o.scores[w], *(s for k, s in enumerate(o.scores) if k != w)]
        who = " & ".join(printable(names[b]) for b in winners)
        text = f"{head}{who} win{'s' if len(winners) == 1 else ''} {'-'.join(map(str, scores))}"
        if unit == "game":
            games = o.result.games if isinstance(o.result, FormatResult) else ()
            split = "".join(f"{g.scores[w]}-{g.scores[1 - w]}, " for g in games)
            hands = f"{o.hands} hand{'s' if o.hands != 1 else ''}"
            text += f" ({'games ' + split if split else ''}{hands})"
    if o.failure is not None and report.failed is not None:
        rule = f" [{o.failure.rule}]" if o.failure.rule else ""
        failed, message = printable(names[report.failed]), printable(o.failure.message)
        text += f"; {failed} forfeits: {o.failure.reason}{rule}: {message}"
    return text


FEW = 20
"""A match of at most this many games or hands prints a line for each (more with --verbose)."""


def side_names(fmt: Format, names: Sequence[str]) -> list[str]:
    """The names of a format's sides: a bot's, or its team's (``a & b``)."""
    return [" & ".join(names[p] for p in fmt.members(side)) for side in range(fmt.side_count)]


class Points:
    """Each bot's points over a match's games or hands (its side's, a team's in partnership), and
    between the two sides of a two-sided format the mean and spread of the per-game difference
    (first bot's side minus the second's), in constant memory."""

    def __init__(self, bots: int, mode: Format) -> None:
        self.totals = [0] * bots
        self.pair = None if mode.side_count > 2 else (0, 1)
        self.count = 0
        self.forfeited = 0
        """Games or hands a bot forfeited: their scores stopped where the failure came, so they
        are counted apart (in the forfeits column) and not in the points."""
        self._sum = 0.0
        self._squares = 0.0

    def add(self, report: GameReport) -> None:
        if report.failed is not None:
            self.forfeited += 1
            return
        for bot in range(len(self.totals)):
            self.totals[bot] += report.points(bot)
        self.count += 1
        if self.pair is not None:
            first, second = self.pair
            d = report.points(first) - report.points(second)
            self._sum += d
            self._squares += d * d

    def mean_difference(self) -> float:
        """The mean difference a game or hand played out (first side minus second; 0 if none)."""
        return self._sum / self.count if self.count else 0.0

    def mean(self, bot: int) -> float:
        return self.totals[bot] / self.count if self.count else 0.0

    def difference(self) -> tuple[float, float] | None:
        """The mean difference a game and its standard error (normal approximation, each game
        or hand one observation); None for three players, or with fewer than two."""
        if self.pair is None or self.count < 2:
            return None
        n = self.count
        mean = self._sum / n
        variance = max(0.0, (self._squares - n * mean * mean) / (n - 1))
        return mean, math.sqrt(variance / n)


def summary(
    result: MatchResult, unit: str, points: Points | None = None, width: int | None = None
) -> str:
    """The table of wins, losses, draws, score, points a game or hand and forfeits by bot, fitted
    to ``width`` (see :func:`arena.tournament.standings.fit_table`); with ``points``, the mean
    difference
    between the two sides with its 95% interval; a word when the lead is shared; the count and
    the seed last. The names are escaped for a terminal."""
    games = result.played
    bots = range(len(result.names))
    names = [printable(name) for name in result.names]
    fails = [result.failures(bot) for bot in bots]
    wins = [result.wins(bot) for bot in bots]
    draws = result.draws()

    def column(key: str, cells: Iterable[object], left: bool = False) -> Column:
        return Column(key, key, tuple(map(str, cells)), left)

    columns = [
        column("bot", names, left=True),
        column("won", wins),
        column("lost", (result.losses(bot) for bot in bots)),
        column("drawn", (draws for _ in bots)),
        column(
            "score",
            (f"{(wins[bot] + draws / 2) / games if games else 0.0:.1%}" for bot in bots),
        ),
    ]
    if points is not None:
        columns.append(
            Column("points", f"points/{unit}", tuple(f"{points.mean(b):.1f}" for b in bots))
        )
    columns.append(
        column(
            "forfeits",
            (", ".join(f"{k} {v}" for k, v in sorted(f.items())) or "-" for f in fails),
            left=True,
        )
    )
    narrowing: list[Step] = [
        (("forfeits",), column("forfeits", (sum(f.values()) or "-" for f in fails))),
        (("drawn",), None),
        (("won", "lost"), None),
    ]
    lines = [fit_table(columns, narrowing, width, edge=False).rstrip("\n")]
    prose = []
    if points is not None and points.pair is not None:
        prose.extend(_difference(points, side_names(result.mode, names)[:2], unit))
    tie = _level(result, wins, points, unit)
    if tie:
        prose.append(tie)
    for text in prose:
        lines.extend(
            [text] if width is None else textwrap.wrap(text, width, subsequent_indent="  ")
        )
    lines.append(f"{plural(games, unit)}, seed {result.seed}")
    return "\n".join(lines)


FEWEST_FOR_INTERVAL = 10
"""Under this many games or hands played out, the difference in points is printed without an
interval: a 95% interval from the normal approximation needs a spread measured on more than a
handful (two games give a standard error from one degree of freedom, which reads far surer than
it is)."""


def _difference(points: Points, sides: Sequence[str], unit: str) -> list[str]:
    """The sentence on the points between the two sides: the mean difference a game or hand with
    its 95% interval, over the games played out; forfeited ones said apart."""
    first, second = sides
    apart = (
        f"; {plural(points.forfeited, unit)} forfeited, not counted in points"
        if points.forfeited
        else ""
    )
    if not points.count:
        return [f"{first} - {second}: no points, every {unit} forfeited"] if apart else []
    over = f"({plural(points.count, unit)}{apart})"
    difference = points.difference()
    if difference is None or points.count < FEWEST_FOR_INTERVAL:
        return [
            f"{first} - {second}: {points.mean_difference():+.2f} points a {unit} {over}; no "
            f"interval under "
            f"{FEWEST_FOR_INTERVAL} {unit}s played out (too few to measure the spread)"
        ]
    mean, error = difference
    low, high = mean - Z95 * error, mean + Z95 * error
    return [
        f"{first} - {second}: {mean:+.2f} ± {error:.2f} points a {unit}, 95% [{low:+.2f}, "
        f"{high:+.2f}] {over}"
    ]


def plural(count: int, noun: str) -> str:
    """``1 game``, ``2 games``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _level(
    result: MatchResult, wins: Sequence[int], points: Points | None, unit: str
) -> str | None:
    """A sentence when two sides or more share the most wins, which the table alone does not
    say, and whether points a game or hand part them."""
    names = [printable(name) for name in result.names]
    fmt = result.mode
    sides = [(fmt.members(side), name) for side, name in enumerate(side_names(fmt, names))]
    best = max(wins[members[0]] for members, _ in sides)
    level = [(members[0], name) for members, name in sides if wins[members[0]] == best]
    if len(level) < 2 or not result.played:
        return None
    text = f"{' and '.join(name for _, name in level)} are level on wins ({best} each)"
    if points is None:
        return f"{text}: tied"
    top = max(points.mean(bot) for bot, _ in level)
    ahead = [name for bot, name in level if points.mean(bot) == top]
    if len(ahead) == len(level):
        return f"{text} and on points: tied"
    return f"{text}; on points a {unit}, {' and '.join(ahead)} ahead"
