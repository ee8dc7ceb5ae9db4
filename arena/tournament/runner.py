"""Playing a tournament: its tasks in worker processes (or in this one), every game committed to
the store as it finishes, a worker that dies taking no game with it; the bots probed before the
first game. What is played, and in which order, is :mod:`arena.tournament.config`'s schedule.

A worker keeps the processes of a task's last leg for its next task of the same table
(``restart="failure"``), whose games of that leg it then plays first (:func:`run_task`): those
processes have played the same seating of other deals, never a seating of these (see
:mod:`arena.tournament.config`, "Mirrored deals").
"""

from __future__ import annotations

import concurrent.futures
import io
import logging
import multiprocessing
import multiprocessing.connection
import multiprocessing.queues
import multiprocessing.util
import queue as queue_module
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from arena.play.match import (
    GameReport,
    Lineup,
    Match,
    MatchError,
    MatchResult,
    Planned,
    by_leg,
)
from arena.play.referee import REFEREE, Referee
from arena.seats.botspec import BotSpec, Launch
from arena.seats.connection import BotError, close_together, start_together
from arena.seats.walls.sandbox import resolve_sandbox
from arena.tournament import pool as workers
from arena.tournament.config import Config, Task, missing_tasks
from arena.tournament.store import GameRow, Store, winner_name
from engine.formats import Format

log = logging.getLogger(__name__)


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


def probe(
    config: Config,
    workdir: Path,
    venue: Venue = Venue("none"),
    *,
    bots: Sequence[BotSpec] | None = None,
) -> dict[str, str]:
    """Start every bot once (``bots``, default the configuration's) and complete its handshake;
    return the versions they report.

    Raises :class:`MatchError` naming the first bot that cannot start."""
    referee = Referee(config.rules, config.clock)
    launch = venue.launch(config)
    hello = referee.hello(0, None, config.mode)
    specs = list(config.bots if bots is None else bots)
    versions: dict[str, str] = {}
    for first in range(0, len(specs), PROBE_TOGETHER):
        group = specs[first : first + PROBE_TOGETHER]
        connections = [spec.connect(workdir, launch) for spec in group]
        try:
            answers = start_together(connections, [hello] * len(group), config.clock.startup)
        finally:
            close_together(connections)
        for offset, (spec, answer) in enumerate(zip(group, answers, strict=True)):
            if isinstance(answer, BotError):
                raise MatchError(
                    f"bot {spec.name!r} could not start: {answer.detail}", first + offset
                ) from None
            versions[spec.name] = answer.bot_version
    return versions


PROBE_TOGETHER: Final = 4
"""Bots :func:`probe` starts side by side: a few at a time, so that a long list of bots boots
in a fraction of the time without starting all of them on a small machine at once."""


_finished: Callable[[GameRow], None] | None = None
"""Where :func:`run_task` sends each game's row as soon as it is played: the parent's queue in a
worker (:func:`_send_rows_to`), the commit itself when the tournament plays in one process. The
rows a task returns are committed too; a row committed already is skipped (:func:`run`)."""

_KEPT: Final = "task"
"""The key of a tournament's kept bots (:data:`arena.tournament.pool.kept`): those of the last
task this process played, still running, for its next task of the same table
(``restart="failure"``): they played one leg of the last task's deals (:attr:`Lineup.leg`), and
play that leg of the next task's deals first (:func:`run_task`)."""


def _lineup_for(match: Match, workdir: Path, keep: bool) -> Lineup:
    """The bots to play ``match`` with: those kept from the last task if they fit it, else new
    ones (the kept ones closed); kept for the next task when ``keep``."""
    lineup = workers.take(_KEPT, match, workdir) if keep else None
    workers.close_kept()  # whatever is kept that this task cannot use
    if lineup is None:
        lineup = match.lineup(workdir)
    if keep:
        workers.kept[_KEPT] = lineup
    return lineup


def _send_rows_to(rows: multiprocessing.queues.Queue[GameRow]) -> None:
    """A worker sends the tournament each game's row as soon as it is played."""
    global _finished  # noqa: PLW0603 - a worker's own copy
    _finished = rows.put


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
    process's next task (:func:`arena.tournament.pool.close_kept` closes them); otherwise they
    are closed at the end of the task."""
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
    match = _task_match(config, task, launch, Path(workdir))
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
            workers.kept.pop(_KEPT, None)
            lineup.close()
    return rows


def _task_match(config: Config, task: Task, launch: Launch, workdir: Path) -> Match:
    """The match of a task's games: its table's bots, launched as ``launch`` says, each game's
    record tagged with the tournament's kind, seed and the table."""
    bots = tuple(config.bots[k] for k in task.table)
    tags: dict[str, Any] = {
        "tournament": config.kind,
        "seed": str(config.seed),
        "mirror": config.mirror,
        ("pair" if config.mode.players == 2 else "table"): [b.name for b in bots],
    }
    return Match(
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
        workdir=workdir,
        record_tags=tags,
        mode=config.mode,
        restart_each_game=config.restart == "game",
    )


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
    data = config.to_json()
    commit = Committer(store, done, on_game)
    play(
        [(data, task) for task in missing_tasks(config, done)],
        commit,
        concurrency,
        workdir=workdir,
        venue=venue,
    )
    return commit.played


Job = tuple[dict[str, Any], Task]
"""A task with the configuration (as JSON) of the games it plays: a tournament's tasks share
one; a league's each have their pair's."""


def play(
    jobs: Sequence[Job],
    commit: Committer,
    concurrency: int,
    *,
    workdir: Path | None = None,
    venue: Venue = Venue("none"),
) -> None:
    """Play the tasks of ``jobs`` in ``concurrency`` worker processes (in this one when it is
    1), committing each game as it finishes (:func:`run` says what survives what)."""
    tasks = list(jobs)
    with tempfile.TemporaryDirectory(prefix="gin-arena-") as scratch:
        base = str(workdir or Path(scratch))

        if concurrency <= 1 or len(tasks) <= 1:
            global _finished  # noqa: PLW0603 - the one place that sets it in this process

            def finished(row: GameRow) -> None:
                commit([row])

            _finished = finished
            try:
                for data, task in tasks:
                    commit(run_task(data, task, base, venue))
            finally:
                _finished = None
                workers.close_kept()
            return
        rows: multiprocessing.queues.Queue[GameRow] = workers.CONTEXT.Queue()
        runner = _Runner(base, venue, commit, rows)
        queue: Iterator[Job] = iter(tasks)
        suspects: list[Job] = []
        while True:
            pool = workers.start(concurrency, _send_rows_to, rows)
            try:
                suspects = runner.play_suspects(pool, suspects)
                if not suspects:
                    suspects = runner.play_all(pool, queue, concurrency)
                if suspects:  # the pool broke (its workers are gone): a new one for the rest
                    pool.shutdown(wait=True, cancel_futures=True)
                    continue
                runner.close(pool)
                return
            except BaseException:
                # Killed workers may have left half a row in the queue: it is not read again.
                workers.stop(pool)
                pool.shutdown(wait=True, cancel_futures=True)
                raise


@dataclass(frozen=True, slots=True)
class _Runner:
    """Hands tasks to a pool of workers and commits what they return."""

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
        self, pool: concurrent.futures.ProcessPoolExecutor, jobs: Sequence[Job]
    ) -> dict[concurrent.futures.Future[list[GameRow]], Job]:
        with workers.interrupts_held():  # the workers start on the first submissions
            return {
                pool.submit(run_task, data, task, self.base, self.venue): (data, task)
                for data, task in jobs
            }

    def play_all(
        self,
        pool: concurrent.futures.ProcessPoolExecutor,
        queue: Iterator[Job],
        concurrency: int,
    ) -> list[Job]:
        """Play the queued tasks, ``2 * concurrency`` in flight; return the tasks that were in
        flight when a worker died (none if all went well)."""
        pending = self.submit(pool, _take(queue, concurrency * 2))
        broken: list[Job] = []
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
        return sorted(broken, key=lambda job: job[1].games[0].number)

    def play_suspects(
        self, pool: concurrent.futures.ProcessPoolExecutor, suspects: list[Job]
    ) -> list[Job]:
        """Play the tasks that were in flight when a worker died, one at a time, so that a task
        that kills its worker again is known: it is abandoned. Return the suspects not yet
        played when the pool broke again (empty when all are done)."""
        for index, (data, task) in enumerate(suspects):
            (future,) = self.submit(pool, [(data, task)])
            try:
                while not future.done():
                    concurrent.futures.wait([future], timeout=0.05)
                    self.drain()
                rows = future.result()
            except BrokenProcessPool:
                self.drain()
                config = Config.from_json(data, load=True)
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


def _take(jobs: Iterator[Job], count: int) -> list[Job]:
    out = []
    for job in jobs:
        out.append(job)
        if len(out) == count:
            break
    return out
