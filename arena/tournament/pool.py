"""The one worker pool of every run over many games (a tournament, its SPRT, an A/B run): spawned
processes that die with the process that started them, leave Ctrl-C to it, keep the bots of their
last task running for a next task that fits (:data:`kept`), close those bots as they exit, and can
all be stopped at once (:func:`stop`)."""

from __future__ import annotations

import concurrent.futures
import contextlib
import multiprocessing
import multiprocessing.connection
import multiprocessing.util
import os
import signal
import time
from collections.abc import Callable, Hashable, Iterator
from pathlib import Path
from typing import Any, Final

from arena.play.match import Lineup, Match
from arena.seats import wire
from arena.seats.launch import die_with_parent

CONTEXT: Final = multiprocessing.get_context("spawn")
"""How workers start: afresh (spawn), so that they hold nothing of this process but what they
are sent."""

kept: dict[Hashable, Lineup] = {}
"""In this process: the bots of its last task, still running, by a key of the run's choosing
(a tournament's table, an A/B run's pairing), for a next task they fit (:func:`take`); closed by
:func:`close_kept`, which a worker runs as it exits."""


def take(key: Hashable, match: Match, workdir: Path) -> Lineup | None:
    """The bots kept under ``key`` if they can play ``match`` with logs in ``workdir``
    (:meth:`Lineup.fits`), taken out of :data:`kept`; bots kept under it that do not fit are
    closed."""
    lineup = kept.pop(key, None)
    if lineup is not None and not lineup.fits(match, workdir):
        lineup.close()
        return None
    return lineup


def close_kept() -> None:
    """Close every kept bot (a worker does it as it exits)."""
    while kept:
        _, lineup = kept.popitem()
        lineup.close()


def start(
    count: int, setup: Callable[..., None] | None = None, *args: Any
) -> concurrent.futures.ProcessPoolExecutor:
    """A pool of ``count`` workers, each running ``setup(*args)`` (a module-level function) once
    it has started (:func:`_worker_start`). The workers start on the first submissions: make them
    inside :func:`interrupts_held`."""
    return concurrent.futures.ProcessPoolExecutor(
        count,
        mp_context=CONTEXT,
        initializer=_worker_start,
        initargs=(os.getpid(), setup, args),
    )


@contextlib.contextmanager
def interrupts_held() -> Iterator[None]:
    """SIGINT held while workers start: they inherit the mask and cannot be interrupted while
    importing (they ignore it from then on, and this process stops them). A Ctrl-C meanwhile
    waits, then lands here."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _worker_start(parent: int, setup: Callable[..., None] | None, args: tuple[Any, ...]) -> None:
    """A worker dies with its parent, leaves Ctrl-C to it, logs the wire when the run does
    (``GIN_ARENA_LOG_WIRE``) and closes its kept bots as it exits (multiprocessing runs its
    finalizers then: the bots are told to quit rather than left to notice that their input is
    gone)."""
    multiprocessing.util.Finalize(None, close_kept, exitpriority=10)
    die_with_parent(parent)
    wire.enable()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    if setup is not None:
        setup(*args)


def stop(pool: concurrent.futures.ProcessPoolExecutor) -> None:
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


__all__ = ["CONTEXT", "close_kept", "interrupts_held", "kept", "start", "stop", "take"]
