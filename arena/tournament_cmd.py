"""``gin-arena tournament`` and ``gin-arena ratings``."""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import os
import secrets
import shlex
import sys
import tempfile
from pathlib import Path
from typing import Any

from arena.botspec import BotSpec, BotSpecError, load_bots_file, resolve
from arena.match import MatchError
from arena.options import (
    add_clock_arguments,
    add_process_arguments,
    add_rules_arguments,
    clock_from,
    logs_from,
    positive_int,
    rules_from,
    sandbox_from,
)
from arena.standings import FORMATS, forfeits, render, standings
from arena.store import GameRow, Store, StoreError
from arena.tournament import KINDS, Config, Venue, bot_digest, probe, run, schedule
from bots import BUILTIN

HELP = "a round-robin or gauntlet of bots, resumable, ranked by Elo"
DESCRIPTION = f"""\
Play a tournament and print the standings: Elo from a Bradley-Terry fit over all games, with 95%
intervals, the likelihood of superiority (LOS) over the next bot, and failure counts.

With no arguments: a round-robin of the built-in bots ({", ".join(BUILTIN)}).

examples:
  gin-arena tournament
  gin-arena tournament --bot mine="python3 mybot.py" --bot greedy=greedy --games-per-pair 100
  gin-arena tournament --bots bots.toml --kind gauntlet --db league.sqlite
  gin-arena tournament --db league.sqlite --resume

Every game is committed to the SQLite database (--db) as it finishes. Interrupted in any way, the
same database with --resume plays exactly the games still missing. The configuration is stored in
the database; --resume refuses a different one.
"""

RATINGS_HELP = "print a tournament's standings again"
RATINGS_DESCRIPTION = """\
Print the standings of a tournament database: Elo with 95% intervals from a Bradley-Terry fit over
all its games, games, wins, losses, score, LOS and failure counts. --format json has, per bot:
name, elo, ci95 [low, high], games, wins, losses, crosstable {opponent: [wins, losses]}.
"""

# Options that are part of the stored configuration: None means "not given".
_CONFIG_OPTIONS = (
    "kind",
    "games_per_pair",
    "mirror",
    "seed",
    "rules",
    "options",
    "move_time",
    "time_bank",
    "grace",
    "startup_time",
    "quit_time",
    "subprocess",
    "memory_mb",
    "cpu_seconds",
    "bot",
    "bots",
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bot",
        action="append",
        metavar="NAME=COMMAND",
        help="a bot: a name and a command line or built-in bot name (repeatable)",
    )
    parser.add_argument("--bots", type=Path, help="a TOML bots file: every bot in it plays")
    parser.add_argument(
        "--kind",
        choices=KINDS,
        help="round-robin (default) or gauntlet (the first bot against each of the others)",
    )
    parser.add_argument("--games-per-pair", type=int, help="games per pair of bots (default 60)")
    parser.add_argument(
        "--no-mirror",
        dest="mirror",
        action="store_const",
        const=False,
        help="do not replay each deal with the seats swapped",
    )
    parser.add_argument(
        "--concurrency",
        type=positive_int,
        default=os.cpu_count() or 1,
        help="games at once, in worker processes (default and most: the number of cores)",
    )
    parser.add_argument(
        "--oversubscribe",
        action="store_true",
        help="allow --concurrency above the number of cores (bots then compete for the CPU "
        "and lose games on time that they would not lose alone)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        help="tournament seed (default: a random one, stored and printed at the end; a seed "
        "given here makes every deal predictable to anyone who knows it)",
    )
    add_rules_arguments(parser)
    add_clock_arguments(parser)
    for name in ("rules", "move_time", "time_bank", "grace", "startup_time", "quit_time"):
        parser.set_defaults(**{name: None})
    parser.set_defaults(options=None)
    parser.add_argument(
        "--db",
        type=Path,
        help="the tournament database (default: a new "
        "tournament-DATE.sqlite in the current directory)",
    )
    parser.add_argument("--resume", action="store_true", help="finish the tournament in --db")
    parser.add_argument("--anchor", help="rate this bot 0 (default: the mean is 0)")
    parser.add_argument("--format", choices=FORMATS, default="table", help="standings format")
    parser.add_argument(
        "--subprocess",
        action="store_const",
        const=True,
        help="run built-in bots as subprocesses too",
    )
    add_process_arguments(parser)


def _bots(args: argparse.Namespace) -> tuple[BotSpec, ...]:
    specs: list[BotSpec] = []
    if args.bots is not None:
        specs.extend(load_bots_file(args.bots).values())
    for text in args.bot or []:
        name, sep, command = text.partition("=")
        if not sep or not name.strip() or not command.strip():
            raise BotSpecError(f"bad --bot {text!r}: write NAME=COMMAND, e.g. mine='./mybot'")
        specs.append(resolve(command.strip(), name=name.strip()))
    if not specs:
        specs = [resolve(name) for name in BUILTIN]
    return tuple(specs)


def config_from(args: argparse.Namespace, stored: Config | None = None) -> Config:
    """The configuration the arguments ask for; unset options come from ``stored`` when
    resuming, else from the defaults."""
    base = stored or Config(bots=(BotSpec("a"), BotSpec("b")))
    namespace = argparse.Namespace(**vars(args))
    if namespace.rules is None and namespace.options is None and stored is not None:
        rules = stored.rules
    else:
        namespace.rules = namespace.rules or "hoyle"
        namespace.options = namespace.options or []
        rules = rules_from(namespace)
    clock = clock_from(
        argparse.Namespace(
            move_time=base.clock.move if args.move_time is None else args.move_time,
            time_bank=base.clock.bank if args.time_bank is None else args.time_bank,
            grace=base.clock.grace if args.grace is None else args.grace,
            startup_time=base.clock.startup if args.startup_time is None else args.startup_time,
            quit_time=base.clock.quit if args.quit_time is None else args.quit_time,
        )
    )
    bots = stored.bots if stored is not None and not args.bot and not args.bots else _bots(args)
    return Config(
        bots=bots,
        kind=args.kind or base.kind,
        games_per_pair=base.games_per_pair if args.games_per_pair is None else args.games_per_pair,
        mirror=base.mirror if args.mirror is None else args.mirror,
        seed=(secrets.randbits(63) if stored is None else base.seed)
        if args.seed is None
        else args.seed,
        rules=rules,
        clock=clock,
        in_process=base.in_process if args.subprocess is None else not args.subprocess,
        memory_mb=base.memory_mb if args.memory_mb is None else args.memory_mb,
        cpu_seconds=base.cpu_seconds if args.cpu_seconds is None else args.cpu_seconds,
    )


def _differences(stored: dict[str, Any], asked: dict[str, Any]) -> list[str]:
    return sorted(k for k in stored.keys() | asked.keys() if stored.get(k) != asked.get(k))


def run_command(args: argparse.Namespace) -> int:
    cores = os.cpu_count() or 1
    if args.concurrency > cores and not args.oversubscribe:
        raise ValueError(
            f"--concurrency {args.concurrency} is more than the {cores} cores of this machine: "
            "bots would compete for the CPU and lose games on time; use at most "
            f"--concurrency {cores}, or add --oversubscribe to run that many anyway"
        )
    logs = logs_from(args)
    if args.resume:
        if args.db is None:
            raise ValueError("--resume needs --db PATH: the database of the tournament to finish")
        store = Store.open(args.db, lock=True)
        try:
            config = _resumable(args, store)
        except BaseException:
            store.close()
            raise
        db: Path = args.db
    else:
        config = config_from(args)
        db = args.db or Path(datetime.datetime.now().strftime("tournament-%Y%m%d-%H%M%S.sqlite"))
        if db.exists():
            raise StoreError(
                f"{str(db)!r} already exists: resume it with --resume, or choose another --db"
            )
    _check_anchor(args.anchor, config)
    sandbox = sandbox_from(args.sandbox, config.bots, config.in_process)
    secret = [db.resolve()] + [Path(f"{db.resolve()}{end}") for end in ("-wal", "-shm")]
    venue = Venue(
        sandbox="bwrap" if sandbox is not None else "none",
        hidden=tuple(str(p) for p in secret),
        logs=None if logs is None else str(logs),
    )
    if args.resume:
        try:
            if len(store.done()) < sum(len(task.games) for task in schedule(config)):
                with tempfile.TemporaryDirectory(prefix="gin-arena-probe-") as scratch:
                    probe(config, Path(scratch), venue)
        except MatchError as error:
            store.close()
            print(f"gin-arena tournament: {error}; no game was played", file=sys.stderr)
            return 1
        except BaseException:
            store.close()
            raise
    else:
        with tempfile.TemporaryDirectory(prefix="gin-arena-probe-") as scratch:
            try:
                versions = probe(config, Path(scratch), venue)
            except MatchError as error:
                print(f"gin-arena tournament: {error}; no game was played", file=sys.stderr)
                return 1
        store = Store.create(
            db,
            config.to_json(),
            [
                (spec.name, spec.command_line, versions[spec.name], bot_digest(spec))
                for spec in config.bots
            ],
        )
        args.db = db
    try:
        return _play(args, config, store, venue)
    finally:
        store.close()


def _resumable(args: argparse.Namespace, store: Store) -> Config:
    """The configuration of the tournament in ``store``, with the options given to --resume;
    a change to what decides the games, or to a bot's program, is an error."""
    stored = Config.from_stored(store.config(), repr(str(args.db)))
    config = config_from(args, stored)
    changed = _differences(stored.to_json(), config.to_json())
    if changed:
        raise StoreError(
            f"--resume with a changed configuration ({', '.join(changed)}): the database "
            f"{str(args.db)!r} holds another tournament; drop those options to resume it"
        )
    recorded = store.bots()
    for spec in config.bots:
        if spec.name not in recorded:
            raise StoreError(
                f"the database {str(args.db)!r} does not record bot {spec.name!r}: it was "
                "changed by hand; start a new tournament with another --db"
            )
        if recorded[spec.name][2] != bot_digest(spec):
            raise StoreError(
                f"bot {spec.name!r} is not the program that started this tournament (its "
                "program or a file its command names has changed): results would mix two "
                "bots; start a new tournament instead"
            )
    return config


def _check_anchor(anchor: str | None, config: Config) -> None:
    if anchor is not None and anchor not in config.names():
        raise ValueError(
            f"--anchor {anchor!r} is not a bot of this tournament: choose one of "
            f"{', '.join(config.names())}"
        )


def _play(args: argparse.Namespace, config: Config, store: Store, venue: Venue) -> int:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    total = sum(len(task.games) for task in schedule(config))
    done_before = len(store.done())
    names = config.names()
    resume = f"gin-arena tournament --db {shlex.quote(str(args.db))} --resume"
    quiet = args.format != "table"
    if not quiet:
        pairs = len(config.pairs())
        print(
            f"{config.kind} of {len(names)} bots ({', '.join(names)}): {pairs} pairs, "
            f"{config.games_per_pair} games each{', mirrored' if config.mirror else ''}"
            + (f", seed {config.seed}" if args.seed is not None else "")
            + f"; database {args.db}"
            + (f"; resuming at {done_before} of {total} games" if done_before else ""),
            flush=True,
        )
    console = Console(stderr=True)
    progress = Progress(
        TextColumn("[bold]games"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[leader]}"),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )
    games: list[GameRow] = list(store.games(records=False))
    started = datetime.datetime.now()
    with progress:
        bar = progress.add_task("games", total=total, completed=done_before, rate="", leader="")

        def on_game(row: GameRow) -> None:
            games.append(dataclasses.replace(row, record=""))  # the record is in the database
            seconds = (datetime.datetime.now() - started).total_seconds()
            played = len(games) - done_before
            leader = max(names, key=lambda n: _score(games, n))
            progress.update(
                bar,
                advance=1,
                rate=f"{played / seconds:.1f}/s" if seconds > 0 else "",
                leader=f"leader: {leader}",
            )

        try:
            run(
                config,
                store,
                args.concurrency,
                on_game,
                workdir=None if venue.logs is None else Path(venue.logs),
                venue=venue,
            )
        except KeyboardInterrupt:
            progress.stop()
            print(
                f"\ninterrupted after {len(games)} of {total} games (all saved); "
                f"resume with:\n  {resume}",
                file=sys.stderr,
            )
            return 130
    sys.stdout.write(render(standings(names, games, args.anchor), args.format))
    if not quiet:
        for line in forfeits(games):
            print(line)
        print(f"seed {config.seed} (reproduce with --seed {config.seed}); database {args.db}")
    return 0


def _score(games: list[GameRow], name: str) -> float:
    played = [g for g in games if name in (g.seat0, g.seat1)]
    if not played:
        return 0.0
    return sum(1.0 if g.winner == name else 0.5 if g.winner is None else 0.0 for g in played) / len(
        played
    )


def add_ratings_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", type=Path, required=True, help="the tournament database")
    parser.add_argument("--anchor", help="rate this bot 0 (default: the mean is 0)")
    parser.add_argument("--format", choices=FORMATS, default="table", help="output format")


def run_ratings(args: argparse.Namespace) -> int:
    store = Store.open(args.db, readonly=True)
    try:
        config = Config.from_stored(store.config(), repr(str(args.db)))
        games = list(store.games(records=False))
    finally:
        store.close()
    _check_anchor(args.anchor, config)
    sys.stdout.write(render(standings(config.names(), games, args.anchor), args.format))
    if args.format == "table":
        for line in forfeits(games):
            print(line)
    return 0
