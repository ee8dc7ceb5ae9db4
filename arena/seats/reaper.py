"""Orphans of bots: this process as their child subreaper, and the end of every one of them.

A bot starts in a session of its own; killing its process group does not reach a descendant that
moved to another session (a ``setsid`` grandchild) or a daemon that forked twice to be adopted by
init. On Linux, :func:`become_subreaper` makes such orphans our children instead of init's, and
:func:`reap_orphans` kills and reaps every child of ours that sits in a session other than ours and
is not a bot still open (:func:`register`). Every bot starts with ``start_new_session``, so each of
its descendants has a session id other than the referee's, while the referee's own helpers
(``subprocess.run``, a process pool) stay in the referee's session and are never touched.

A program that embeds the arena and starts children of its own in new sessions must
:func:`register` them, or the next bot to close will kill them too.

Elsewhere (no ``/proc``, no ``prctl``), :func:`become_subreaper` returns False and
:func:`reap_orphans` does nothing: orphans go to init, as before.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Final

MAX_ROUNDS: Final = 100
"""How many times :func:`reap_orphans` looks again for orphans (each kill of a middle process
hands its children to us)."""
REAP_SECONDS: Final = 5.0
"""How long :func:`reap_orphans` may spend in all, a bound on every wait."""

_PR_SET_CHILD_SUBREAPER: Final = 36
_PROC: Final = Path("/proc")

_lock = threading.RLock()
_live: set[int] = set()
_subreaper_of: list[int] = []  # the pid that made itself a subreaper (fork does not inherit it)


def become_subreaper() -> bool:
    """Make this process the child subreaper of its descendants (Linux ``PR_SET_CHILD_SUBREAPER``),
    so that orphans are reparented to it rather than to init. Idempotent, once per process (a
    forked child asks again); returns whether this process is a subreaper."""
    pid = os.getpid()
    with _lock:
        if pid in _subreaper_of:
            return True
        if not sys.platform.startswith("linux"):
            return False
        try:
            prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):
            return False
        if prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            return False
        _subreaper_of[:] = [pid]
        return True


@contextlib.contextmanager
def starting() -> Iterator[None]:
    """Hold off :func:`reap_orphans` (in any thread) while a bot is started and registered: a bot
    forked but not yet registered looks like an orphan."""
    with _lock:
        yield


def register(pid: int) -> None:
    """Leave ``pid`` alone: an open bot (or any child of ours started in a new session that is not
    a bot's descendant)."""
    with _lock:
        _live.add(pid)


def unregister(pid: int) -> None:
    with _lock:
        _live.discard(pid)


def registered() -> frozenset[int]:
    with _lock:
        return frozenset(_live)


def _stat(pid: int) -> tuple[int, int] | None:
    """(parent pid, session id) of ``pid``, or None if it is gone."""
    try:
        text = (_PROC / str(pid) / "stat").read_text()
    except (OSError, ValueError):
        return None
    # pid (comm) state ppid pgrp session ...; comm may hold spaces and parentheses.
    fields = text.rpartition(")")[2].split()
    try:
        return int(fields[1]), int(fields[3])
    except (IndexError, ValueError):
        return None


def children() -> list[int]:
    """The pids of this process's children (from ``/proc/self/task/*/children`` where the kernel
    has it, else from every process's parent pid); empty without ``/proc``."""
    me = os.getpid()
    found: set[int] = set()
    listed = False
    with contextlib.suppress(OSError):
        for task in (_PROC / str(me) / "task").iterdir():
            try:
                text = (task / "children").read_text()
            except OSError:
                continue
            listed = True
            found.update(int(pid) for pid in text.split())
    if listed:
        return sorted(found)
    with contextlib.suppress(OSError):
        for entry in _PROC.iterdir():
            if entry.name.isdigit():
                stat = _stat(int(entry.name))
                if stat is not None and stat[0] == me:
                    found.add(int(entry.name))
    return sorted(found)


def session_of(pid: int) -> int | None:
    """The session id of ``pid`` (field ``session`` of ``/proc/PID/stat``), or None."""
    stat = _stat(pid)
    return None if stat is None else stat[1]


def orphans() -> list[int]:
    """Our children that are in a session other than ours and are not registered: descendants of
    bots that escaped their bot's process group."""
    if not _PROC.is_dir():
        return []
    ours = os.getsid(0)
    live = registered()
    out = []
    for pid in children():
        if pid in live:
            continue
        session = session_of(pid)
        if session is not None and session != ours:
            out.append(pid)
    return out


def _reaped(pid: int) -> bool:
    """Reap ``pid`` if it has ended (never blocks); True once it is gone."""
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True  # reaped already, or not ours any more
    return done == pid


def reap_orphans(timeout: float = REAP_SECONDS) -> list[int]:
    """SIGKILL and reap every orphan (:func:`orphans`), again and again until none is left: a
    killed process hands its own children to us. Bounded by :data:`MAX_ROUNDS` and ``timeout``
    seconds; returns the pids killed."""
    deadline = time.monotonic() + timeout
    killed: list[int] = []
    with _lock:  # not while a bot is being started (see starting())
        for _ in range(MAX_ROUNDS):
            found = orphans()
            if not found:
                break
            for pid in found:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            killed.extend(found)
            waiting = set(found)
            while waiting and time.monotonic() < deadline:
                waiting = {pid for pid in waiting if not _reaped(pid)}
                if waiting:
                    time.sleep(0.005)
            if time.monotonic() >= deadline:
                break
    return killed


__all__ = [
    "MAX_ROUNDS",
    "REAP_SECONDS",
    "become_subreaper",
    "children",
    "orphans",
    "reap_orphans",
    "register",
    "registered",
    "session_of",
    "starting",
    "unregister",
]


def wait_exit(proc: subprocess.Popen[bytes], timeout: float) -> bool:
    """Wait up to ``timeout`` seconds for ``proc`` to end; whether it has. Woken by the kernel at
    the exit (a pidfd), where ``Popen.wait`` would look at growing intervals (a bot that ends
    10 ms after its ``quit`` was seen gone 30 ms after it: time a mirrored seating waits)."""
    if proc.poll() is not None:
        return True
    try:
        fd = os.pidfd_open(proc.pid)
    except OSError:  # gone meanwhile, or a kernel without pidfds
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout)
        return proc.poll() is not None
    try:
        ready = select.poll()
        ready.register(fd, select.POLLIN)
        ready.poll(max(0.0, timeout) * 1000)
    finally:
        os.close(fd)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(0.1)  # reap it: its exit has been seen, or the time is up
    return proc.poll() is not None
