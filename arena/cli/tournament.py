"""``gin-arena tournament``: play a tournament into its database and print the standings."""

from __future__ import annotations

import argparse
import collections
import dataclasses
import datetime
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from arena.cli.layout import fit, terminal_columns
from arena.cli.options import (
    add_bot_argument,
    add_bots_file_argument,
    add_clock_arguments,
    add_concurrency_arguments,
    add_logs_argument,
    add_mode_argument,
    add_process_arguments,
    add_rules_arguments,
    add_seed_argument,
    add_standings_arguments,
    add_subprocess_argument,
    add_wire_argument,
    bot_options_from,
    bots_file_from,
    check_concurrency,
    clock_given,
    limits_given,
    logs_from,
    rules_given,
    sandbox_from,
    seed_given,
)
from arena.play.match import MatchError
from arena.seats import wire
from arena.seats.botspec import resolve
from arena.terminal import printable
from arena.tournament import cluster, event
from arena.tournament.config import (
    KINDS,
    RESTARTS,
    Config,
    Task,
    check_anchor,
    schedule,
)
from arena.tournament.standings import render, standings
from arena.tournament.store import GameRow
from bots import DEFAULT_TOURNAMENT
from engine.formats import TWO_PLAYER

HELP = "a round-robin or gauntlet of bots in any format, resumable, ranked by Elo"
DESCRIPTION = f"""\
Play a tournament and print the standings: Elo from a Bradley-Terry fit over all games, with 95%
intervals, the likelihood of superiority (LOS) over the next bot, and failure counts.

With no bots named: a round-robin of the quick built-in bots ({", ".join(DEFAULT_TOURNAMENT)}). The
`search` bot takes some 20 times as long a move: name the bots to include it, e.g.
--bot strong=strong --bot search=search.

examples:
  gin-arena tournament
  gin-arena tournament --bot mine="python3 mybot.py" --bot greedy=greedy --games-per-table 100
  gin-arena tournament --bots bots.toml --kind gauntlet --db gauntlet.sqlite
  gin-arena tournament --mode three-player --bots bots.toml --games-per-table 30
  gin-arena tournament --db gauntlet.sqlite --resume

Every game is committed to the SQLite database (--db) as it finishes. Interrupted in any way, the
same database with --resume plays exactly the games still missing. The configuration is stored in
the database; --resume refuses a different one.

formats (--mode): a table is the bots of one game. two-player and hollywood: every pair of bots;
three-player: every three bots; partnership: every four bots, split into two teams in each of the
three ways (every bot partners and faces every other equally often). A gauntlet plays only the
tables that seat the first bot. Mirrored, each deal of a table is played once in each seating: two
seats, twice; three-player, three times (every bot in every seat); partnership, twice (the teams
swapping sides); --games-per-table must then be a multiple of that. The ratings count a
partnership game as a game between the two teams (a team's strength is the sum of its bots'), and
a three-player game as one result against each of the other two players.
"""
BOTS_FILE = """\
bots files (--bots FILE; README.md, "Bots files"; an example: docs/examples/bots.toml): TOML, one
[[bot]] table a bot, every bot of the file playing in the file's order (the first is a gauntlet's),
then those of --bot:

  [[bot]]
  name = "mine"                 # required, unique: its name in tables and
                                # on the command line
  command = "python3 mybot.py"  # required: a command line (split like a
                                # shell would, never run by one), a list
                                # ["python3", "mybot.py"] or a built-in
                                # bot's name ("greedy")
  cwd = "bots/mine"             # optional: the directory it runs in
                                # (default: a new, empty one)
  env = { MYBOT_DEPTH = "4" }   # optional: variables added to its minimal
                                # environment

Relative paths are relative to the bots file's directory: cwd, and in command the program when it
is a path (./mybot) and every argument naming an existing file (mybot.py), against cwd if given.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = BOTS_FILE
    add_bot_argument(parser)
    add_bots_file_argument(parser)
    parser.add_argument(
        "--kind",
        choices=KINDS,
        help="round-robin (default) or gauntlet (the first bot against each of the others; in "
        "the three- and four-player formats, the tables that seat the first bot)",
    )
    add_mode_argument(parser)  # given or not: a resumed tournament keeps its own
    parser.add_argument(
        "--games-per-table",
        "--games-per-pair",
        dest="games_per_pair",
        type=int,
        metavar="N",
        help="games per table: per pair of bots in two-player and hollywood (default 60; "
        "mirrored, a multiple of 2, or of 3 in three-player)",
    )
    parser.add_argument(
        "--no-mirror",
        dest="mirror",
        action="store_const",
        const=False,
        help="do not replay each deal in every seating (seats swapped, teams swapped, or "
        "every bot in every seat), each game its own deal",
    )
    parser.add_argument(
        "--restart",
        choices=RESTARTS,
        help="when a bot's process starts afresh: failure (default: only after it failed, and "
        "for each seating of mirrored deals; a worker's bot process plays every game of its "
        "table and seating that the worker plays), task "
        "(also every 20 games or fewer, fixed by the configuration, so that a bot that keeps "
        "state from game to game plays reproducibly and a resumed run replays it exactly) or "
        "game (before every game)",
    )
    add_concurrency_arguments(parser)
    parser.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="play the games on a Ray cluster: its address (HOST:PORT), auto (the cluster "
        "this machine belongs to) or local (start one here); this process keeps the database "
        "(needs pip install 'gin-rummy-arena[ray]'; docs/DISTRIBUTED.md)",
    )
    add_seed_argument(parser)
    add_rules_arguments(parser)
    add_clock_arguments(parser)
    parser.add_argument(
        "--db",
        type=Path,
        help="the tournament database (default: a new "
        "tournament-DATE.sqlite in the current directory)",
    )
    parser.add_argument("--resume", action="store_true", help="finish the tournament in --db")
    add_standings_arguments(parser)
    add_subprocess_argument(parser)
    add_process_arguments(parser)
    add_logs_argument(parser)
    add_wire_argument(parser)


def _given(args: argparse.Namespace) -> dict[str, Any]:
    """The configuration options given on the command line, as :class:`Config` fields (the
    clock as a mapping of the fields given): what a new tournament sets, and what a resumed one
    may only repeat."""
    given: dict[str, Any] = {}
    bots = tuple(bots_file_from(args.bots).values()) + bot_options_from(args.bot)
    if bots:
        given["bots"] = bots
    for name in ("kind", "games_per_pair", "mirror", "restart"):
        if getattr(args, name) is not None:
            given[name] = getattr(args, name)
    if seed_given(args.seed) is not None:
        given["seed"] = args.seed
    given.update(limits_given(args))
    if args.mode is not None:
        given["mode"] = args.mode
    if args.subprocess is not None:
        given["in_process"] = not args.subprocess
    rules = rules_given(args.rules, args.options)
    if rules is not None:
        given["rules"] = rules
    clock = clock_given(args)
    if clock:
        given["clock"] = clock
    return given


def run(args: argparse.Namespace) -> int:
    wire.enable(args.log_wire)
    if args.ray is None:
        check_concurrency(args.concurrency, args.oversubscribe)
    logs = logs_from(args.logs)
    given = _given(args)
    if args.resume:
        opening = event.resume(args.db, event.TOURNAMENT, given)
    else:
        bots = given.pop("bots", None) or tuple(resolve(name) for name in DEFAULT_TOURNAMENT)
        default = datetime.datetime.now().strftime("tournament-%Y%m%d-%H%M%S.sqlite")
        opening = event.new(args.db, event.TOURNAMENT, bots, given, default)
    ray = None
    try:
        config = opening.config
        check_anchor(args.anchor, config)
        sandbox = sandbox_from(args.sandbox, config.bots, config.in_process)
        venue = event.venue_of(opening.db, sandbox, logs)
        if args.ray is not None:
            try:
                ray = cluster.connect(args.ray)
                found = cluster.probe(ray, config, venue)
            except cluster.ClusterError as error:
                _no_game(error)
                opening.close()
                return 1
            if args.format == "table":
                cpus = sum(node.cpus for node in found)
                where = printable(args.ray)
                print(f"Ray cluster {where}: {plural(len(found), 'node')}, {cpus} CPUs", flush=True)
        try:
            ready = opening.open(venue)
        except MatchError as error:
            _no_game(error)
            opening.close()
            return 1
        args.db = opening.db
        try:
            return _play(args, ready)
        finally:
            ready.close()
    except BaseException:
        opening.close()
        raise
    finally:
        if ray is not None:
            cluster.disconnect()


def _play(args: argparse.Namespace, ready: event.Event) -> int:
    config, store = ready.config, ready.store
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    tasks = schedule(config)
    total = sum(len(task.games) for task in tasks)
    done_before = len(store.done())
    names = config.names()
    resume = f"gin-arena tournament --db {shlex.quote(str(args.db))} --resume"
    quiet = args.format != "table"
    if not quiet:
        line = header(config, str(args.db), done_before, total, args.seed is not None)
        print(fit(line, terminal_columns()))
    console = Console(stderr=True)
    progress = Progress(
        TextColumn("[bold]games"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[status]}", markup=False),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )
    games: list[GameRow] = list(store.games(records=False))
    clock = Eta(tasks, games, args.concurrency)
    plain = not console.is_terminal and not quiet
    last_line = [time.monotonic()]
    with progress:
        bar = progress.add_task("games", total=total, completed=done_before, status="")

        def on_game(row: GameRow) -> None:
            games.append(dataclasses.replace(row, record=""))  # the record is in the database
            clock.finished(row)
            leader = max(names, key=lambda n: _score(games, n))
            status = f"{clock.rate()} eta {clock.remaining()}  leader: {printable(leader)}"
            progress.update(bar, advance=1, status=status)
            now = time.monotonic()
            if plain and now - last_line[0] >= PROGRESS_SECONDS:
                last_line[0] = now
                print(f"games {len(games)}/{total}  {status}", file=sys.stderr, flush=True)

        try:
            ready.play(args.concurrency, on_game, args.ray)
        except KeyboardInterrupt:
            progress.stop()
            print(
                f"\ninterrupted after {len(games)} of {total} games (all saved); "
                f"resume with:\n  {printable(resume)}",
                file=sys.stderr,
            )
            return 130
    shown = render(standings(names, games, args.anchor, config.mode.name), args.format, games)
    sys.stdout.write(fit(shown, terminal_columns()) if args.format == "table" else shown)
    if not quiet:
        database = printable(str(args.db))
        footer = f"seed {config.seed} (reproduce with --seed {config.seed}); database {database}"
        print(fit(footer, terminal_columns()))
    return 0


def header(config: Config, database: str, done_before: int, total: int, seed_given: bool) -> str:
    """The tournament's first line: its format and kind, the bots, the tables and games, the
    seed when ``seed_given`` or when resuming (the stored one; a new random seed is printed last,
    with how to reproduce the run) and the database."""
    names = config.names()
    tables = len(config.tables())
    players = config.mode.players
    where = (
        f"{plural(tables, 'pair')}, {plural(config.games_per_pair, 'game')} each"
        if players == 2
        else f"{plural(tables, 'table')} of {players} bots, {plural(config.games_per_pair, 'game')}"
        + (" a table" if tables > 1 else "")
    )
    return (
        ("" if config.mode is TWO_PLAYER else f"{config.mode} ")
        + f"{config.kind} of {plural(len(names), 'bot')} ({', '.join(map(printable, names))}): "
        + where
        + (", mirrored" if config.mirror else "")
        + (f", seed {config.seed}" if seed_given or done_before else "")
        + f"; database {printable(database)}"
        + (f"; resuming at {done_before} of {total} games" if done_before else "")
    )


def _no_game(error: Exception) -> None:
    """Say on stderr why the tournament stopped before its first game, escaped for a terminal."""
    print(
        f"gin-arena tournament: {printable(str(error), lines=True)}; no game was played",
        file=sys.stderr,
    )


PROGRESS_SECONDS = 10.0
"""How often a tournament whose stderr is not a terminal prints a progress line."""


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


RECENT = 30
"""The games the ETA's rate is taken over: the last ones, so that a slow table played late moves
the estimate within a few games, not by a whole run's average."""


class Eta:
    """The time left, weighted by the tables still to play: a table's games take as long as its
    games so far; a table not yet seen, as long as the last :data:`RECENT` games took. The work
    left is spread over the workers at the recent rate: the games per second of the last
    :data:`RECENT` games (a strong bot's table is slow and a random bot's quick, and the schedule
    plays tables in order, so a rate over the whole run would be far off when a slow table comes
    late). ``clock`` (seconds, monotonic) is for the tests."""

    def __init__(
        self,
        tasks: Sequence[Task],
        done: Sequence[GameRow],
        workers: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._table_of = {g.number: task.table for task in tasks for g in task.games}
        finished = {row.id for row in done}
        self._left: dict[tuple[int, ...], int] = {}
        for number, table in self._table_of.items():
            if number not in finished:
                self._left[table] = self._left.get(table, 0) + 1
        self._seconds: dict[tuple[int, ...], list[float]] = {}
        self._workers = max(1, workers)
        self._clock = clock
        self._recent: collections.deque[tuple[float, float]] = collections.deque(maxlen=RECENT)
        """(when it finished, how long it took) for each of the last games."""
        self._started = clock()

    def finished(self, row: GameRow) -> None:
        table = self._table_of.get(row.id)
        if table is None:
            return
        self._left[table] = max(0, self._left.get(table, 0) - 1)
        self._seconds.setdefault(table, []).append(row.seconds)
        self._recent.append((self._clock(), row.seconds))

    def games_per_second(self) -> float | None:
        """The recent rate: the last games over the time since the one before them finished
        (since the start while fewer than :data:`RECENT` have)."""
        if not self._recent:
            return None
        since = self._recent[0][0] if len(self._recent) == RECENT else self._started
        span = self._clock() - since
        count = len(self._recent) - 1 if len(self._recent) == RECENT else len(self._recent)
        return count / span if span > 0 and count else None

    def rate(self) -> str:
        rate = self.games_per_second()
        return "" if rate is None else f"{rate:.1f}/s"

    def remaining(self) -> str:
        rate = self.games_per_second()
        if rate is None:
            return "?"
        recent = sum(s for _, s in self._recent) / len(self._recent)
        work = 0.0  # game-seconds left, as the recent games count them
        for table, left in self._left.items():
            times = self._seconds.get(table)
            work += left * (sum(times) / len(times) if times else recent)
        # recent games finished at ``rate`` a second, each taking ``recent`` game-seconds: that
        # many games at once (at most a worker each); with no time measured, games a second
        parallel = min(recent * rate, float(self._workers))
        seconds = round(work / parallel if recent > 0 else sum(self._left.values()) / rate)
        return f"{seconds // 60}:{seconds % 60:02d}"


def _score(games: list[GameRow], name: str) -> float:
    """The share of its games ``name`` won (a drawn game half), for the progress line's leader."""
    played = [g for g in games if name in g.seats]
    if not played:
        return 0.0
    return sum(1.0 if name in g.winners else 0.5 if g.side is None else 0.0 for g in played) / len(
        played
    )
