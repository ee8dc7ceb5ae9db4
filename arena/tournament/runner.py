"""Tournaments: round-robin or gauntlet, in any format, games run concurrently in worker processes,
every game committed to SQLite as it finishes, resumable after any interruption.

The schedule is a pure function of the configuration: tables in a fixed order, deal seeds from a
SplitMix64 stream seeded with the tournament seed, game ids numbered in schedule order. So the same
games are played whatever the concurrency, and ``--resume`` plays exactly the ids still missing.

A table is the bots of one game, by player (:meth:`Config.tables`):

- two-player and Hollywood: every pair of bots (a gauntlet: the first bot and each other);
- three-player: every three bots, so that every two bots meet at ``n - 2`` tables;
- partnership: for every four bots, the three ways to split them into two teams, so that every
  bot partners every other at ``C(n - 2, 2)`` tables and faces every other at twice as many (team
  0, players 0 and 2, against team 1, players 1 and 3).

A gauntlet keeps the tables that seat the first bot. Each deal of a table is played, with
``mirror``, in every seating of :func:`arena.play.match.rotations` (two players: the seats swapped;
three players: every bot in every seat; partnership: the teams swapping sides), and from one deal
to the next the table is turned (:func:`seatings`: three players, the other direction round the
table; partnership, each bot changing places with its partner), so that over every two deals each
bot sits in each seat equally often. Without ``mirror`` every game is a deal of its own, its
seating the next of that same cycle. Two-player schedules are those of the first tournaments,
byte for byte: the same games, deals, seats and game ids.

**Mirrored deals.** A task (:class:`Task`) holds whole deals of one table, and plays them leg
after leg (the first seating of every deal of the task, then the second...: the order of
:func:`arena.play.match.by_leg`), each leg by its own bot processes
(:meth:`arena.play.match.Match.play`
closes them where the leg changes). A worker keeps the processes of a task's last leg for its
next task of the same table (``restart="failure"``), whose games of that leg it then plays first
(:func:`run_task`): those processes have played the same seating of other deals, never a seating
of these. So every seating of a deal is played by processes that played no other seating of it
and started after every process that did had ended; in the sandbox, each with an empty working
directory and ``/tmp`` of its own. A bot learns nothing from the mirror of a deal that it could
not learn from a fresh deal.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import hashlib
import io
import itertools
import logging
import multiprocessing
import multiprocessing.connection
import multiprocessing.queues
import multiprocessing.util
import os
import queue as queue_module
import secrets
import signal
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from arena.errors import ArenaError
from arena.play.match import (
    GameReport,
    Lineup,
    Match,
    MatchError,
    MatchResult,
    Planned,
    by_leg,
    rotations,
)
from arena.play.referee import REFEREE, Clock, Referee
from arena.seats import wire
from arena.seats.botspec import BotSpec, Launch
from arena.seats.process import die_with_parent
from arena.seats.sandbox import resolve_sandbox
from arena.tournament.store import GameRow, Store, StoreError, winner_name
from engine.deck import SplitMix64
from engine.formats import TWO_PLAYER, Format, check_rules, format_named
from engine.modes import FormatError, Mode
from engine.rules import Rules

KINDS = ("round-robin", "gauntlet")
RESTARTS = ("failure", "task", "game")
"""When a tournament starts a bot's process afresh (``--restart``): ``failure``, only after it
failed, and (mirrored) for each seating of the deals (a worker's bots play every game of their
table and seating that the worker plays; the default); ``task``, also at each task (up to
:data:`TASK_GAMES` games of one table, fixed by the configuration, so that what a bot that keeps
state from game to game sees is reproducible and a resumed run replays it exactly); ``game``,
before every game."""

log = logging.getLogger(__name__)


class TournamentError(ArenaError, ValueError):
    """A tournament that cannot be set up as asked."""


def seatings(mode: Mode | Format) -> tuple[tuple[int, ...], ...]:
    """The cycle of seatings a table's games go through: each orientation, in every rotation
    (``seats[p]`` is the table place of the bot at player ``p``): the format's
    :meth:`~engine.formats.Format.seatings`. Three players turn the other way round the table from
    one deal to the next; partnership puts each bot in its partner's place, teams unchanged; two
    seats need no turning."""
    return format_named(mode).seatings()


@dataclass(frozen=True, slots=True)
class Config:
    """Everything that decides which games are played and how (not the concurrency).

    ``games_per_pair`` is the number of games of each table (a pair of bots in the two-seat
    formats; the name is kept for the databases that store it)."""

    bots: tuple[BotSpec, ...]
    kind: str = "round-robin"
    games_per_pair: int = 60
    mirror: bool = True
    seed: int = 0
    rules: Rules = Rules()
    clock: Clock = Clock()
    in_process: bool = True
    memory_mb: int | None = None
    cpu_seconds: int | None = None
    pids: int | None = None
    mode: Format = TWO_PLAYER
    """The format (a :class:`~engine.modes.Mode` or a format's name is taken too)."""
    restart: str = "failure"
    """One of :data:`RESTARTS`."""

    def __post_init__(self) -> None:
        if not isinstance(self.mode, Format):
            try:
                object.__setattr__(self, "mode", format_named(self.mode))
            except FormatError as error:
                raise TournamentError(str(error)) from None
        if self.kind not in KINDS:
            raise TournamentError(f"unknown tournament kind {self.kind!r}: {' or '.join(KINDS)}")
        if self.restart not in RESTARTS:
            raise TournamentError(
                f"unknown --restart {self.restart!r}: choose {', '.join(RESTARTS)}"
            )
        if self.mode is TWO_PLAYER and len(self.bots) < 2:
            raise TournamentError("a tournament needs at least two bots")
        if len(self.bots) < self.mode.players:
            raise TournamentError(
                f"a {self.mode} tournament needs at least {self.mode.players} bots (the "
                f"{self.mode.players} players of each game), got {len(self.bots)}"
            )
        names = [b.name for b in self.bots]
        for name in names:
            if names.count(name) > 1:
                raise TournamentError(f"duplicate bot name {name!r}: give each bot its own name")
        if self.games_per_pair < 1:
            raise TournamentError("--games-per-table must be at least 1")
        turns = len(rotations(self.mode))
        if self.mirror and self.games_per_pair % turns:
            if turns == 2:
                raise TournamentError(
                    f"--games-per-table {self.games_per_pair} is odd: mirrored deals need an "
                    "even number (each deal is played twice, the sides swapped), or --no-mirror"
                )
            raise TournamentError(
                f"--games-per-table {self.games_per_pair} is not a multiple of {turns}: a "
                f"mirrored {self.mode} deal is played {turns} times (every bot in every seat); "
                f"give a multiple of {turns}, or --no-mirror"
            )
        if not 0 <= self.seed < 2**64:
            raise TournamentError(f"bad seed {self.seed}: a seed is an integer from 0 to 2**64 - 1")
        try:
            check_rules(self.mode, self.rules)
        except FormatError as error:
            raise TournamentError(str(error)) from None

    def to_json(self) -> dict[str, Any]:
        return _config_json({f.name: getattr(self, f.name) for f in dataclasses.fields(self)})

    @classmethod
    def from_stored(cls, data: dict[str, Any], where: str) -> Config:
        """The configuration stored in a database; a damaged one is a :class:`StoreError`."""
        try:
            return cls.from_json(data)
        except KeyError as error:
            problem = f"has no {error.args[0]!r}"
        except (TypeError, ValueError, AttributeError, IndexError) as error:
            problem = f"is not valid ({error})"
        raise StoreError(
            f"the configuration stored in {where} {problem}: it was changed by hand; start a new "
            "tournament with another --db"
        )

    @classmethod
    def from_json(cls, data: dict[str, Any], *, load: bool = False) -> Config:
        """A configuration as stored. With ``load``, a format of one's own is imported by its name
        (a worker process given its parent's configuration); without, it must be loaded already
        (see :func:`engine.formats.format_named`)."""
        bots = tuple(
            BotSpec(
                b["name"],
                tuple(b["command"]),
                b["builtin"],
                None if b["cwd"] is None else Path(b["cwd"]),
                dict(b["env"]),
            )
            for b in data["bots"]
        )
        return cls(
            bots=bots,
            kind=data["kind"],
            games_per_pair=data["games_per_pair"],
            mirror=data["mirror"],
            seed=int(data["seed"]),
            rules=Rules.from_dict(data["rules"]),
            clock=Clock(**data["clock"]),
            in_process=data["in_process"],
            memory_mb=data["memory_mb"],
            cpu_seconds=data["cpu_seconds"],
            # Databases from before --pids have the default.
            pids=data.get("pids"),
            # Databases from before the formats have no mode: they are two-player tournaments.
            mode=format_named(data.get("mode", TWO_PLAYER.name), load=load),
            # Databases from before --restart started bots afresh at each task.
            restart=data.get("restart", "task"),
        )

    def names(self) -> list[str]:
        return [b.name for b in self.bots]

    def tables(self) -> list[tuple[int, ...]]:
        """The bots of each table, by player (indices into ``bots``), in schedule order: see the
        module's documentation."""
        players = range(len(self.bots))
        return [
            table
            for group in itertools.combinations(players, self.mode.players)
            if self.kind != "gauntlet" or 0 in group
            for table in self.mode.tables_of(group)
        ]

    def pairs(self) -> list[tuple[int, ...]]:
        """The tables of a two-seat format (:meth:`tables`), by their old name."""
        return self.tables()


def _config_json(c: dict[str, Any]) -> dict[str, Any]:
    """The JSON of a configuration's fields ``c`` (as stored in the database), valid or not."""
    clock: Clock = c["clock"]
    bots: tuple[BotSpec, ...] = c["bots"]
    return {
        "kind": c["kind"],
        "mode": format_named(c["mode"]).name,
        "bots": [
            {
                "name": b.name,
                "command": list(b.command),
                "builtin": b.builtin,
                "cwd": None if b.cwd is None else str(b.cwd),
                "env": dict(b.env),
            }
            for b in bots
        ],
        "games_per_pair": c["games_per_pair"],
        "mirror": c["mirror"],
        "seed": str(c["seed"]),
        "rules": c["rules"].to_dict(),
        "clock": {
            "move": clock.move,
            "bank": clock.bank,
            "grace": clock.grace,
            "startup": clock.startup,
        },
        "in_process": c["in_process"],
        "restart": c["restart"],
        "memory_mb": c["memory_mb"],
        "cpu_seconds": c["cpu_seconds"],
        "pids": c["pids"],
    }


@dataclass(frozen=True, slots=True)
class Task:
    """Whole deals of one table, which one worker plays, leg after leg, with one set of bot
    processes a leg."""

    table: tuple[int, ...]
    """The table's bots by place (indices into the configuration's bots)."""
    games: tuple[Planned, ...]
    """In the order they are played, leg after leg (:func:`arena.play.match.by_leg`).
    ``Planned.number`` is the game id; seats index ``table``."""


TASK_GAMES: Final = 20
"""The most games of one table a task holds (whole deals, at least one): a worker plays a task's
games one after another, with one set of bot processes a leg (the deals' first seating, then the
second...), and keeps the last leg's for its next task of the same table (``restart="failure"``),
to play that task's games of that leg first: a bot slow to start pays for it about once a task
(mirrored; without ``mirror``, once a worker and table). The tasks depend on the configuration
only; with ``restart="task"`` each task starts its bots afresh, and so what a bot that keeps state
from game to game sees depends on the configuration only too (a resumed run then replays a task
from its first game: :func:`missing_tasks`)."""
TABLE_TASKS: Final = 6
"""A table with enough deals is split into at least this many tasks, so that the workers still
share out the work evenly at the end of a short tournament."""


def schedule(config: Config) -> list[Task]:
    """Every game of the tournament, grouped into tasks: a table's deals in order, a mirrored
    deal's games in one task, at most :data:`TASK_GAMES` games a task and at least
    :data:`TABLE_TASKS` tasks a table when it has the deals. The game ids run table by table
    (a mirrored deal's games one after another); a task's games are played leg after leg.

    With ``restart="failure"`` the tasks come table by table too, so that a worker's next task
    is mostly of the table its bots are playing (at the end of a table, the workers share its
    last tasks). Otherwise they take the tables in turn (the first task of each table, then the
    second...), so that every table's standings grow together."""
    seeds = SplitMix64(config.seed)
    by_table: list[list[Task]] = []
    game_id = 0
    cycle = seatings(config.mode)
    turns = len(rotations(config.mode))
    deals = config.games_per_pair // turns if config.mirror else config.games_per_pair
    size = len(rotations(config.mode)) if config.mirror else 1  # games a deal
    per_task = max(1, min(TASK_GAMES // size, -(-deals // TABLE_TASKS)))  # deals a task
    for table in config.tables():
        tasks: list[Task] = []
        by_table.append(tasks)
        block: list[Planned] = []
        for deal in range(deals):
            seed = seeds.next()
            games: tuple[Planned, ...]
            if config.mirror:  # every rotation, the table turned from deal to deal
                first = deal * turns % len(cycle)
                games = tuple(
                    Planned(game_id + 1 + k, seed, cycle[first + k], k) for k in range(turns)
                )
            else:  # each game its own deal, the seating the next of the cycle
                games = (Planned(game_id + 1, seed, cycle[deal % len(cycle)]),)
            game_id += len(games)
            block.extend(games)
            if len(block) >= per_task * len(games) or deal == deals - 1:
                tasks.append(Task(table, tuple(by_leg(block))))
                block = []
    if config.restart == "failure":
        return [task for tasks in by_table for task in tasks]
    turns_of_tables = itertools.zip_longest(*by_table)
    return [task for turn in turns_of_tables for task in turn if task is not None]


CLOCK_FIELDS = ("move", "bank", "grace", "startup", "quit")


def new_config(bots: Sequence[BotSpec], **given: Any) -> Config:
    """The configuration of a new tournament: the options ``given`` (:class:`Config` fields;
    ``clock`` may be a mapping of some of :data:`CLOCK_FIELDS`), defaults for the rest, and a
    secret random seed unless one is given."""
    clock = Clock(**given.pop("clock", {}))
    given.setdefault("seed", secrets.randbits(63))
    return Config(bots=tuple(bots), clock=clock, **given)


def resume_config(stored: Config, where: str, **given: Any) -> Config:
    """The configuration to resume with: ``stored``, which the options ``given`` on the command
    line (as for :func:`new_config`) may only repeat. Any difference is a
    :class:`TournamentError` naming the fields, since the games already played would mix with
    games of another tournament."""
    clock = given.pop("clock", {})
    if "bots" in given:
        given["bots"] = tuple(given["bots"])
    # Compared as stored, without checking the asked configuration: a changed --mode or bot list
    # is named as a change rather than refused for a reason of its own.
    fields = {f.name: getattr(stored, f.name) for f in dataclasses.fields(stored)}
    asked = fields | given | {"clock": dataclasses.replace(stored.clock, **clock)}
    old, new = stored.to_json(), _config_json(asked)
    changed = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
    if changed:
        raise TournamentError(
            f"--resume with a changed configuration ({', '.join(changed)}): the database "
            f"{where} holds another tournament; drop those options to resume it"
        )
    return stored


def check_bots(config: Config, digests: Mapping[str, str], where: str) -> None:
    """Each bot of ``config`` must be the program whose digest (:func:`bot_digest`) the
    tournament recorded; else a :class:`TournamentError`: results would mix two bots."""
    for spec in config.bots:
        if spec.name not in digests:
            raise TournamentError(
                f"the database {where} does not record bot {spec.name!r}: it was changed by "
                "hand; start a new tournament with another --db"
            )
        if digests[spec.name] != bot_digest(spec):
            raise TournamentError(
                f"bot {spec.name!r} is not the program that started this tournament (its "
                "program or a file its command names has changed): results would mix two "
                "bots; start a new tournament instead"
            )


def check_anchor(anchor: str | None, config: Config) -> None:
    """``--anchor``, if given, must name a bot of the tournament (checked before playing)."""
    if anchor is not None and anchor not in config.names():
        raise TournamentError(
            f"--anchor {anchor!r} is not a bot of this tournament: choose one of "
            f"{', '.join(config.names())}"
        )


def bot_digest(spec: BotSpec) -> str:
    """A hash identifying the bot: its command line, and the contents of every file the command
    names, the program (``./mybot``) and its script arguments (``python3 bot.py``) alike, so that
    editing a bot's script changes it."""
    h = hashlib.sha256(spec.command_line.encode())
    base = spec.cwd or Path.cwd()
    for arg in spec.command:
        path = Path(arg) if Path(arg).is_absolute() else base / arg
        with contextlib.suppress(OSError):
            if path.is_file():
                h.update(b"\0" + arg.encode() + b"\0")
                h.update(path.read_bytes())
    return h.hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Venue:
    """Where the games run, beyond the configuration (may change on ``--resume``): the sandbox
    mode of the bots, the paths no bot may see, and where the bots' logs go."""

    sandbox: str = "auto"
    hidden: tuple[str, ...] = ()
    logs: str | None = None

    def launch(self, config: Config) -> Launch:
        return Launch(
            in_process=config.in_process,
            memory_mb=config.memory_mb,
            cpu_seconds=config.cpu_seconds,
            pids=config.pids,
            sandbox=resolve_sandbox(self.sandbox),
            hidden=tuple(Path(p) for p in self.hidden),
            quit_wait=config.clock.quit,
        )


def probe(config: Config, workdir: Path, venue: Venue = Venue("none")) -> dict[str, str]:
    """Start every bot once and complete its handshake; return the versions they report.

    Raises :class:`MatchError` naming the first bot that cannot start."""
    versions: dict[str, str] = {}
    referee = Referee(config.rules, config.clock)
    launch = venue.launch(config)
    hello = referee.hello(0, None, config.mode)
    for index, spec in enumerate(config.bots):
        connection = spec.connect(workdir, launch)
        try:
            ready = connection.start(hello, config.clock.startup)
            versions[spec.name] = ready.bot_version
        except Exception as error:
            detail = getattr(error, "detail", str(error))
            raise MatchError(f"bot {spec.name!r} could not start: {detail}", index) from None
        finally:
            connection.close()
    return versions


_finished: Callable[[GameRow], None] | None = None
"""Where :func:`run_task` sends each game's row as soon as it is played: the parent's queue in a
worker (:func:`_worker_start`), the commit itself when the tournament plays in one process. The
rows a task returns are committed too; a row committed already is skipped (:func:`run`)."""

_kept: Lineup | None = None
"""The bots of the last task this process played, still running, for its next task of the same
table (``restart="failure"``): they played one leg of the last task's deals (:attr:`Lineup.leg`),
and play that leg of the next task's deals first (:func:`run_task`). See :func:`close_kept`."""


def close_kept() -> None:
    """Close the bots kept from the last task (a worker does it as it exits)."""
    global _kept
    kept, _kept = _kept, None
    if kept is not None:
        kept.close()


def _lineup_for(match: Match, workdir: Path, keep: bool) -> Lineup:
    """The bots to play ``match`` with: those kept from the last task if they fit it, else new
    ones (the kept ones closed); kept for the next task when ``keep``."""
    global _kept  # noqa: PLW0603 - this process's own
    if _kept is not None and keep and _kept.fits(match, workdir):
        return _kept
    close_kept()
    lineup = match.lineup(workdir)
    if keep:
        _kept = lineup
    return lineup


def run_task(
    config_data: dict[str, Any],
    task: Task,
    workdir: str,
    venue: Venue = Venue("none"),
    keep: bool = True,
) -> list[GameRow]:
    """Play one task's games (in a worker process) and return them as database rows, one for
    every game of the task: whatever goes wrong, a game is played, forfeited or abandoned.

    The games are played leg after leg, each leg by bot processes of its own; with bots kept
    from this process's last task, from their leg on (:func:`arena.play.match.by_leg`). With
    ``restart="failure"`` and ``keep`` the bots of the last leg are kept running for this
    process's next task (:func:`close_kept` closes them); otherwise they are closed at the end of
    the task."""
    config = Config.from_json(config_data, load=True)
    bots = tuple(config.bots[k] for k in task.table)
    names = tuple(b.name for b in bots)
    stream = io.StringIO()
    rows: list[GameRow] = []

    def collect(report: GameReport, result: MatchResult) -> None:
        record = stream.getvalue()  # this game's lines: the stream is emptied after each game
        stream.seek(0)
        stream.truncate()
        row = _row(config.mode, report, names, record)
        rows.append(row)
        if _finished is not None:  # to be committed now, not when the whole task is done
            _finished(row)

    played: set[int] = set()

    def left(reason: str, failed: int | None, message: str) -> list[GameRow]:
        """Rows for the task's games not played: forfeited by ``failed``, or abandoned."""
        games = [g for g in task.games if g.number not in played]
        return _unplayed(config.mode, names, games, reason=reason, failed=failed, message=message)

    try:
        launch = venue.launch(config)
    except ValueError as error:  # the sandbox asked for is not available on this machine
        return left(REFEREE, None, f"cannot run the bots here: {error}")
    tags: dict[str, Any] = {
        "tournament": config.kind,
        "seed": str(config.seed),
        "mirror": config.mirror,
    }
    tags["pair" if config.mode.players == 2 else "table"] = list(names)
    match = Match(
        bots,
        config.rules,
        config.clock,
        games=len(task.games),
        in_process=launch.in_process,
        memory_mb=launch.memory_mb,
        cpu_seconds=launch.cpu_seconds,
        pids=launch.pids,
        sandbox=launch.sandbox,
        hidden=launch.hidden,
        workdir=Path(workdir),
        record_tags=tags,
        mode=config.mode,
        restart_each_game=config.restart == "game",
    )
    keep = keep and config.restart == "failure"
    lineup = _lineup_for(match, Path(workdir), keep)
    # The kept bots played this leg of other deals: they play it here first, then are closed.
    plan = task.games if lineup.leg is None else by_leg(task.games, lineup.leg)
    try:
        match.play(record=stream, on_game=collect, plan=plan, keep=False, lineup=lineup)
    except MatchError as error:  # a bot that no longer starts forfeits what is left
        played.update(row.id for row in rows)
        rows.extend(left("startup", error.bot, str(error)))
    except Exception as error:  # the referee's own failure: abandon what is left, go on
        log.exception("games %s abandoned by the referee", [g.number for g in task.games])
        played.update(row.id for row in rows)
        rows.extend(left(REFEREE, None, f"{type(error).__name__}: {error}"[:2000]))
        keep = False  # the bots may be confused: the next task starts them afresh
    finally:
        if not keep:
            if lineup is _kept:
                close_kept()
            else:
                lineup.close()
    return rows


def _row(mode: Format, report: GameReport, names: Sequence[str], record: str) -> GameRow:
    o = report.outcome
    seats = tuple(names[b] for b in report.seats)
    failure = o.failure
    message = (o.error or "") if failure is None else failure.message
    return GameRow(
        id=report.number,
        seat0=seats[0],
        seat1=seats[1],
        seed=report.seed,
        winner=None if o.winner is None else winner_name(mode.name, seats, o.winner),
        reason=o.reason,
        failed=None if failure is None else seats[failure.seat],
        message=message,
        rule="" if failure is None else failure.rule,
        score0=o.scores[0],
        score1=o.scores[1],
        hands=o.hands,
        seconds=round(o.seconds, 3),
        record=record,
        mode=mode.name,
        seats=seats,
        scores=tuple(o.scores),
        side=o.winner,
    )


class Committer:
    """Commits the rows of played games, each game once: a task replayed from its first game
    returns games committed before, which are skipped. ``played`` counts the games committed."""

    def __init__(
        self, store: Store, done: set[int], on_game: Callable[[GameRow], None] | None
    ) -> None:
        self.store, self.done, self.on_game = store, done, on_game
        self.played = 0

    def __call__(self, rows: Sequence[GameRow]) -> None:
        for row in rows:
            if row.id in self.done:
                continue  # replayed for the bots' sake; committed before
            self.done.add(row.id)
            self.store.add_game(row)
            self.played += 1
            if self.on_game:
                self.on_game(row)


def missing_tasks(config: Config, done: set[int]) -> list[Task]:
    """The tasks with a game still to play. With ``restart="task"`` they are whole: a task's
    games are played again from its first, so that bots that carry state from game to game (a
    random generator, what they learnt of the opponent) play its missing games exactly as in an
    uninterrupted run, and only the missing games are committed (:func:`run`). Otherwise a task
    keeps only its missing games."""
    tasks = []
    for task in schedule(config):
        missing = tuple(g for g in task.games if g.number not in done)
        if missing:
            tasks.append(task if config.restart == "task" else Task(task.table, missing))
    return tasks


def run(
    config: Config,
    store: Store,
    concurrency: int,
    on_game: Callable[[GameRow], None] | None = None,
    *,
    workdir: Path | None = None,
    venue: Venue = Venue("none"),
) -> int:
    """Play every missing game, committing each as it finishes; return how many were played.

    No game can stop the run: a worker process that dies takes no game with it. The tasks it
    may have been playing are played again one at a time, and a task whose worker dies when it
    runs alone is abandoned (its games are committed with reason ``referee``).

    A KeyboardInterrupt stops the workers and propagates; what finished is already committed."""
    done = store.done()
    tasks = missing_tasks(config, done)
    data = config.to_json()
    commit = Committer(store, done, on_game)
    with tempfile.TemporaryDirectory(prefix="gin-arena-") as scratch:
        base = str(workdir or Path(scratch))

        if concurrency <= 1 or len(tasks) <= 1:
            global _finished  # noqa: PLW0603 - the one place that sets it in this process

            def finished(row: GameRow) -> None:
                commit([row])

            _finished = finished
            try:
                for task in tasks:
                    commit(run_task(data, task, base, venue))
            finally:
                _finished = None
                close_kept()
            return commit.played
        rows: multiprocessing.queues.Queue[GameRow] = _CONTEXT.Queue()
        runner = _Runner(data, base, venue, commit, rows)
        queue: Iterator[Task] = iter(tasks)
        suspects: list[Task] = []
        while True:
            pool = _pool(concurrency, rows)
            try:
                suspects = runner.play_suspects(pool, suspects)
                if not suspects:
                    suspects = runner.play_all(pool, queue, concurrency)
                if suspects:  # the pool broke (its workers are gone): a new one for the rest
                    pool.shutdown(wait=True, cancel_futures=True)
                    continue
                runner.close(pool)
                return commit.played
            except BaseException:
                # Killed workers may have left half a row in the queue: it is not read again.
                stop_workers(pool)
                pool.shutdown(wait=True, cancel_futures=True)
                raise


_CONTEXT: Final = multiprocessing.get_context("spawn")


def _pool(
    concurrency: int, rows: multiprocessing.queues.Queue[GameRow]
) -> concurrent.futures.ProcessPoolExecutor:
    return concurrent.futures.ProcessPoolExecutor(
        concurrency,
        mp_context=_CONTEXT,
        initializer=_worker_start,
        initargs=(os.getpid(), rows),
    )


@dataclass(frozen=True, slots=True)
class _Runner:
    """Hands tasks to a pool of workers and commits what they return."""

    data: dict[str, Any]
    base: str
    venue: Venue
    commit: Callable[[Sequence[GameRow]], None]
    rows: multiprocessing.queues.Queue[GameRow]
    """Each game's row, sent by the worker that played it as soon as it is played."""

    def close(self, pool: concurrent.futures.ProcessPoolExecutor) -> None:
        """Shut the pool down, committing the rows its workers still send meanwhile: a worker
        cannot exit before the rows it queued are read (multiprocessing joins its queue's
        feeder at exit), so waiting for the workers without reading would wait for ever once
        the queue's pipe is full (large game records do it)."""
        workers = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False)
        while any(worker.is_alive() for worker in workers):
            self.drain()
            for worker in workers:
                worker.join(0.02)
        pool.shutdown(wait=True)
        self.drain()

    def drain(self) -> None:
        """Commit the rows the workers have sent so far."""
        while True:
            try:
                row = self.rows.get_nowait()
            except queue_module.Empty:
                return
            self.commit([row])

    def submit(
        self, pool: concurrent.futures.ProcessPoolExecutor, tasks: Sequence[Task]
    ) -> dict[concurrent.futures.Future[list[GameRow]], Task]:
        # The workers start on the first submissions and inherit the signal mask: with SIGINT
        # blocked they cannot be interrupted while importing (they ignore it from then on, and
        # this process stops them). A Ctrl-C meanwhile waits, then lands in the caller.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            return {
                pool.submit(run_task, self.data, task, self.base, self.venue): task
                for task in tasks
            }
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})

    def play_all(
        self,
        pool: concurrent.futures.ProcessPoolExecutor,
        queue: Iterator[Task],
        concurrency: int,
    ) -> list[Task]:
        """Play the queued tasks, ``2 * concurrency`` in flight; return the tasks that were in
        flight when a worker died (none if all went well)."""
        pending = self.submit(pool, _take(queue, concurrency * 2))
        broken: list[Task] = []
        while pending:
            finished, _ = concurrent.futures.wait(
                pending, timeout=0.05, return_when=concurrent.futures.FIRST_COMPLETED
            )
            self.drain()
            for future in finished:
                task = pending.pop(future)
                try:
                    rows = future.result()
                except BrokenProcessPool:
                    broken.append(task)
                    continue
                self.commit(rows)
                if not broken:
                    pending.update(self.submit(pool, _take(queue, 1)))
        if broken:
            log.warning("a worker process died; replaying %d tasks one at a time", len(broken))
        return sorted(broken, key=lambda t: t.games[0].number)

    def play_suspects(
        self, pool: concurrent.futures.ProcessPoolExecutor, suspects: list[Task]
    ) -> list[Task]:
        """Play the tasks that were in flight when a worker died, one at a time, so that a task
        that kills its worker again is known: it is abandoned. Return the suspects not yet
        played when the pool broke again (empty when all are done)."""
        for index, task in enumerate(suspects):
            (future,) = self.submit(pool, [task])
            try:
                while not future.done():
                    concurrent.futures.wait([future], timeout=0.05)
                    self.drain()
                rows = future.result()
            except BrokenProcessPool:
                self.drain()
                config = Config.from_json(self.data, load=True)
                self.commit(_abandoned(config, task, "the worker process playing it died"))
                return suspects[index + 1 :]
            self.commit(rows)
        return []


def _abandoned(config: Config, task: Task, why: str) -> list[GameRow]:
    log.error("games %s abandoned: %s", [g.number for g in task.games], why)
    names = [config.bots[k].name for k in task.table]
    return _unplayed(config.mode, names, task.games, reason=REFEREE, failed=None, message=why)


def _unplayed(
    mode: Format,
    table: Sequence[str],
    games: Iterable[Planned],
    *,
    reason: str,
    failed: int | None,
    message: str,
) -> list[GameRow]:
    """Rows for games of a table (``seats`` index ``table``) that were not played: forfeited by
    the bot ``failed`` (an index into ``table``; the other side wins, or with three players
    nobody, as when a bot fails before anyone has scored), or abandoned (``failed`` None:
    drawn)."""
    zeros = (0,) * mode.side_count
    rows = []
    for planned in games:
        seats = tuple(table[k] for k in planned.seats)
        side = None if failed is None else mode.forfeit_winner(planned.seats.index(failed), zeros)
        rows.append(
            GameRow(
                id=planned.number,
                seat0=seats[0],
                seat1=seats[1],
                seed=planned.seed,
                winner=None if side is None else winner_name(mode.name, seats, side),
                reason=reason,
                failed=None if failed is None else table[failed],
                message=message,
                rule="",
                score0=0,
                score1=0,
                hands=0,
                seconds=0.0,
                record="",
                mode=mode.name,
                seats=seats,
                scores=zeros,
                side=side,
            )
        )
    return rows


def _worker_start(parent: int, rows: multiprocessing.queues.Queue[GameRow]) -> None:
    """A worker dies with the tournament, leaves Ctrl-C to it and sends it each game's row as
    soon as it is played."""
    global _finished  # noqa: PLW0603 - a worker's own copy
    _finished = rows.put
    # Runs as the worker exits (multiprocessing runs its finalizers then): the kept bots are
    # told to quit rather than left to notice that their input is gone.
    multiprocessing.util.Finalize(None, close_kept, exitpriority=10)
    die_with_parent(parent)
    wire.enable()  # GIN_ARENA_LOG_WIRE, set by the tournament's --log-wire
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def stop_workers(pool: concurrent.futures.ProcessPoolExecutor) -> None:
    """Kill the workers at once: their games are not committed, and their bots die with them.

    A worker killed while it sends a task's result leaves half a message in the pool's result
    pipe, and the pool's manager thread blocked reading the rest, for ever: ``shutdown`` would
    wait for it, and so would the interpreter's exit. Once the workers are dead, this process
    closes its own copy of the pipe's write end (the pool never writes to it): with no writer
    left, the manager thread reads the end of the pipe instead, takes the pool for broken and
    stops."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for process in processes:
        with contextlib.suppress(OSError, ValueError):
            process.kill()
    # Dead when its sentinel is ready (not is_alive(): the pool's thread may have reaped it).
    living = {p.sentinel for p in processes}
    deadline = time.monotonic() + 10
    with contextlib.suppress(OSError, ValueError):
        while living and time.monotonic() < deadline:
            ready = multiprocessing.connection.wait(list(living), deadline - time.monotonic())
            living.difference_update(ready)
    results = getattr(pool, "_result_queue", None)
    writer = getattr(results, "_writer", None)
    if writer is not None and not living:
        with contextlib.suppress(OSError):
            writer.close()


def _take(tasks: Iterator[Task], count: int) -> list[Task]:
    out = []
    for task in tasks:
        out.append(task)
        if len(out) == count:
            break
    return out
