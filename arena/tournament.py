"""Tournaments: round-robin or gauntlet, games run concurrently in worker processes, every game
committed to SQLite as it finishes, resumable after any interruption.

The schedule is a pure function of the configuration: pairs in a fixed order, deal seeds from a
SplitMix64 stream seeded with the tournament seed, game ids numbered in schedule order. So the same
games are played whatever the concurrency, and ``--resume`` plays exactly the ids still missing.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import hashlib
import io
import multiprocessing
import os
import signal
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.botspec import BotSpec
from arena.match import GameReport, Match, MatchError, MatchResult, Planned
from arena.process import die_with_parent
from arena.referee import Clock, Referee
from arena.store import GameRow, Store
from engine.deck import SplitMix64
from engine.rules import Rules

KINDS = ("round-robin", "gauntlet")


class TournamentError(ValueError):
    """A tournament that cannot be set up as asked."""


@dataclass(frozen=True, slots=True)
class Config:
    """Everything that decides which games are played and how (not the concurrency)."""

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

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise TournamentError(f"unknown tournament kind {self.kind!r}: {' or '.join(KINDS)}")
        if len(self.bots) < 2:
            raise TournamentError("a tournament needs at least two bots")
        names = [b.name for b in self.bots]
        for name in names:
            if names.count(name) > 1:
                raise TournamentError(f"duplicate bot name {name!r}: give each bot its own name")
        if self.games_per_pair < 1:
            raise TournamentError("--games-per-pair must be at least 1")
        if self.mirror and self.games_per_pair % 2:
            raise TournamentError(
                f"--games-per-pair {self.games_per_pair} is odd: mirrored deals need an even number"
            )
        if not 0 <= self.seed < 2**64:
            raise TournamentError(f"bad seed {self.seed}: a seed is an integer from 0 to 2**64 - 1")

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "bots": [
                {
                    "name": b.name,
                    "command": list(b.command),
                    "builtin": b.builtin,
                    "cwd": None if b.cwd is None else str(b.cwd),
                    "env": dict(b.env),
                }
                for b in self.bots
            ],
            "games_per_pair": self.games_per_pair,
            "mirror": self.mirror,
            "seed": str(self.seed),
            "rules": self.rules.to_dict(),
            "clock": {
                "move": self.clock.move,
                "bank": self.clock.bank,
                "grace": self.clock.grace,
                "startup": self.clock.startup,
            },
            "in_process": self.in_process,
            "memory_mb": self.memory_mb,
            "cpu_seconds": self.cpu_seconds,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Config:
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
        )

    def names(self) -> list[str]:
        return [b.name for b in self.bots]

    def pairs(self) -> list[tuple[int, int]]:
        n = len(self.bots)
        if self.kind == "gauntlet":  # the first bot against each of the others
            return [(0, k) for k in range(1, n)]
        return [(i, j) for i in range(n) for j in range(i + 1, n)]


@dataclass(frozen=True, slots=True)
class Task:
    """Games between one pair that one worker plays with the same two bot processes."""

    a: int
    b: int
    games: tuple[Planned, ...]
    """``Planned.number`` is the game id; seats index (a, b)."""


def schedule(config: Config) -> list[Task]:
    """Every game of the tournament, grouped into tasks (a mirrored deal's two games together)."""
    seeds = SplitMix64(config.seed)
    tasks: list[Task] = []
    game_id = 0
    deals = config.games_per_pair // 2 if config.mirror else config.games_per_pair
    for a, b in config.pairs():
        for deal in range(deals):
            seed = seeds.next()
            games: tuple[Planned, ...]
            if config.mirror:
                games = (
                    Planned(game_id + 1, seed, (0, 1)),
                    Planned(game_id + 2, seed, (1, 0)),
                )
            else:  # alternate seats from deal to deal
                games = (Planned(game_id + 1, seed, (0, 1) if deal % 2 == 0 else (1, 0)),)
            game_id += len(games)
            tasks.append(Task(a, b, games))
    return tasks


def bot_digest(spec: BotSpec) -> str:
    """A hash identifying the bot's program: its file's contents when the command names a file,
    else its command line."""
    h = hashlib.sha256(spec.command_line.encode())
    program = Path(spec.command[0]) if spec.command else None
    if program is not None and program.is_file():
        h.update(program.read_bytes())
    return h.hexdigest()[:16]


def probe(config: Config, workdir: Path) -> dict[str, str]:
    """Start every bot once and complete its handshake; return the versions they report.

    Raises :class:`MatchError` naming the first bot that cannot start."""
    versions: dict[str, str] = {}
    referee = Referee(config.rules, config.clock)
    for index, spec in enumerate(config.bots):
        connection = spec.connect(workdir, config.in_process, config.memory_mb, config.cpu_seconds)
        try:
            ready = connection.start(referee.hello(0), config.clock.startup)
            versions[spec.name] = ready.bot_version
        except Exception as error:
            detail = getattr(error, "detail", str(error))
            raise MatchError(f"bot {spec.name!r} could not start: {detail}", index) from None
        finally:
            connection.close()
    return versions


def run_task(config_data: dict[str, Any], task: Task, workdir: str) -> list[GameRow]:
    """Play one task's games (in a worker process) and return them as database rows."""
    config = Config.from_json(config_data)
    pair = (config.bots[task.a], config.bots[task.b])
    names = (pair[0].name, pair[1].name)
    stream = io.StringIO()
    rows: list[GameRow] = []
    marks = [0]

    def collect(report: GameReport, result: MatchResult) -> None:
        text = stream.getvalue()
        record, marks[0] = text[marks[0] :], len(text)
        rows.append(_row(report, names, record))

    match = Match(
        pair,
        config.rules,
        config.clock,
        games=len(task.games),
        in_process=config.in_process,
        memory_mb=config.memory_mb,
        cpu_seconds=config.cpu_seconds,
        workdir=Path(workdir),
        record_tags={
            "tournament": config.kind,
            "seed": str(config.seed),
            "mirror": config.mirror,
            "pair": [names[0], names[1]],
        },
    )
    try:
        match.play(record=stream, on_game=collect, plan=task.games)
    except MatchError as error:  # a bot that no longer starts forfeits what is left
        played = {row.id for row in rows}
        for planned in task.games:
            if planned.number in played:
                continue
            seat_names = (names[planned.seats[0]], names[planned.seats[1]])
            failed = names[error.bot]
            winner = names[1 - error.bot]
            rows.append(
                GameRow(
                    id=planned.number,
                    seat0=seat_names[0],
                    seat1=seat_names[1],
                    seed=planned.seed,
                    winner=winner,
                    reason="startup",
                    failed=failed,
                    message=str(error),
                    rule="",
                    score0=0,
                    score1=0,
                    hands=0,
                    seconds=0.0,
                    record="",
                )
            )
    return rows


def _row(report: GameReport, names: tuple[str, str], record: str) -> GameRow:
    o = report.outcome
    seat_names = (names[report.seats[0]], names[report.seats[1]])
    failure = o.failure
    return GameRow(
        id=report.number,
        seat0=seat_names[0],
        seat1=seat_names[1],
        seed=report.seed,
        winner=None if o.winner is None else seat_names[o.winner],
        reason=o.reason,
        failed=None if failure is None else seat_names[failure.seat],
        message="" if failure is None else failure.message,
        rule="" if failure is None else failure.rule,
        score0=o.scores[0],
        score1=o.scores[1],
        hands=o.hands,
        seconds=round(o.seconds, 3),
        record=record,
    )


def missing_tasks(config: Config, done: set[int]) -> list[Task]:
    """The tasks (trimmed to their games) still to play."""
    out = []
    for task in schedule(config):
        games = tuple(g for g in task.games if g.number not in done)
        if games:
            out.append(Task(task.a, task.b, games))
    return out


def run(
    config: Config,
    store: Store,
    concurrency: int,
    on_game: Callable[[GameRow], None] | None = None,
    workdir: Path | None = None,
) -> int:
    """Play every missing game, committing each as it finishes; return how many were played.

    A KeyboardInterrupt stops the workers and propagates; what finished is already committed."""
    tasks = missing_tasks(config, store.done())
    data = config.to_json()
    played = 0
    with tempfile.TemporaryDirectory(prefix="gin-arena-") as scratch:
        base = workdir or Path(scratch)

        def commit(rows: Sequence[GameRow]) -> None:
            nonlocal played
            for row in rows:
                store.add_game(row)
                played += 1
                if on_game:
                    on_game(row)

        if concurrency <= 1 or len(tasks) <= 1:
            for task in tasks:
                commit(run_task(data, task, str(base)))
            return played
        context = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(
            concurrency, mp_context=context, initializer=_worker_start, initargs=(os.getpid(),)
        ) as pool:
            pending: set[concurrent.futures.Future[list[GameRow]]] = set()
            queue: Iterator[Task] = iter(tasks)
            try:
                # The workers start on the first submissions and inherit the signal mask: with
                # SIGINT blocked they cannot be interrupted while importing (they ignore it from
                # then on, and this process stops them). A Ctrl-C meanwhile waits, then lands here.
                signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
                try:
                    for task in _take(queue, concurrency * 2):
                        pending.add(pool.submit(run_task, data, task, str(base)))
                finally:
                    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
                while pending:
                    finished, pending = concurrent.futures.wait(
                        pending, return_when=concurrent.futures.FIRST_COMPLETED
                    )
                    for future in finished:
                        commit(future.result())
                        for task in _take(queue, 1):
                            pending.add(pool.submit(run_task, data, task, str(base)))
            except BaseException:
                for future in pending:
                    future.cancel()
                _stop_workers(pool)
                pool.shutdown(wait=True, cancel_futures=True)
                raise
    return played


def _worker_start(parent: int) -> None:
    """A worker dies with the tournament and leaves Ctrl-C to it."""
    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _stop_workers(pool: concurrent.futures.ProcessPoolExecutor) -> None:
    """Kill the workers at once: their games are not committed, and their bots die with them."""
    processes = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        with contextlib.suppress(OSError, ValueError):
            process.kill()


def _take(tasks: Iterator[Task], count: int) -> list[Task]:
    out = []
    for task in tasks:
        out.append(task)
        if len(out) == count:
            break
    return out
