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

import contextlib
import dataclasses
import hashlib
import itertools
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from arena.errors import ArenaError
from arena.play.match import (
    Planned,
    by_leg,
    rotations,
)
from arena.play.referee import Clock
from arena.seats.botspec import BotSpec
from arena.tournament.store import StoreError
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
        """The configuration stored in a database; a damaged one is a :class:`StoreError`, and
        so is a league's (:mod:`arena.tournament.league`), which has no fixed bots."""
        if data.get("kind") == "league":
            raise StoreError(
                f"{where} is a league's database, not a tournament's: gin-arena league standings "
                "--db PATH shows its standings, gin-arena league run --db PATH plays it"
            )
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
