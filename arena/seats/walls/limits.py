"""Limits per bot, not per process: a control group for each bot process and all it starts.

A bot's process and every descendant (its children, threads, the memory file systems of its
sandbox) share one control group (:class:`BotGroup`), which bounds what they hold together:

- memory, the pages of its ``/tmp`` and working directory included (``--memory-mb``, default
  :data:`MEMORY_MB`): over it, the kernel's out-of-memory killer ends a process of the bot;
- the number of processes and threads (``--pids``, default :data:`PIDS`): ``fork`` and thread
  creation fail past it;
- CPU: at most :data:`CPU_CORES` core at a time, and, with ``--cpu-seconds``, a total over all
  its processes that the referee watches while the bot computes (read from the group's CPU
  account, :meth:`BotGroup.cpu_seconds`) and after every reply;
- and between its moves the whole group is frozen by the kernel's freezer of control groups v2
  (:meth:`BotGroup.freeze`: one write to ``cgroup.freeze``; its processes stop where they are,
  and a process forked meanwhile is born frozen), so a bot computes only while a request is
  open to it and can take no CPU from the other games of a tournament. Machines that mount the
  v1 controllers mostly mount a v2 hierarchy beside them (``/sys/fs/cgroup/unified``, where the
  freezer needs no controller): the bot's group has a directory there too. The v1 freezer is
  not used: a process it froze does not die of ``SIGKILL`` until thawed, so the bots of a
  referee killed between two moves would stay frozen for good; one frozen by v2 dies. Where
  there is no v2 hierarchy at all, every process of the group is stopped with ``SIGSTOP``
  instead, again until none is left running (a bot that forks and exits in a loop can outrun
  that for a moment; docs/PROTOCOL.md says so).

Control groups v2 (one hierarchy with the ``memory``, ``pids`` and ``cpu`` controllers) and v1
(one hierarchy a controller, as on machines that mount ``/sys/fs/cgroup/memory`` and so on) are
both used, each as the machine has it: a bot's group is made below the referee's own group in
each hierarchy, so that the limits the referee itself runs under still hold. This needs the
right to make groups there: root, or a subtree delegated to the user. Without it
(:func:`unavailable` says why), the limits are the kernel's per-process ones (``RLIMIT_AS`` for
``--memory-mb``, ``RLIMIT_CPU`` for ``--cpu-seconds``, ``RLIMIT_FSIZE``) and the sizes of the
sandbox's memory file systems: per process, not per bot, no bound on processes, and no freezing.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from arena.errors import ArenaError

MEMORY_MB: Final = 1024
"""A bot's memory when ``--memory-mb`` is not given (where control groups are available)."""
PIDS: Final = 64
"""A bot's processes and threads when ``--pids`` is not given."""
CPU_CORES: Final = 1
"""The CPU a bot may use at a time, in cores."""
FILE_MB: Final = 1024
"""The largest file a bot may write (``RLIMIT_FSIZE``), with or without control groups."""

ROOT: Final = Path("/sys/fs/cgroup")
_PERIOD_US: Final = 100_000
_V1: Final = ("memory", "pids", "cpu", "cpuacct")


class LimitError(ArenaError, RuntimeError):
    """A bot's control group could not be made or set (the path and the system's words)."""


@dataclass(frozen=True, slots=True)
class Limits:
    """What a bot may use (None: unbounded)."""

    memory_mb: int | None = MEMORY_MB
    pids: int | None = PIDS
    cpu_seconds: int | None = None
    cpu_cores: float | None = CPU_CORES


@dataclass(frozen=True, slots=True)
class Hierarchy:
    """Where a bot's group goes: v2, one directory; v1, a directory per controller."""

    version: int
    parents: tuple[tuple[str, Path], ...]
    """(controller, the referee's own group in its hierarchy): for v2, one entry ``("", path)``;
    for v1, with ``("freeze", path)`` for the referee's group in the v2 hierarchy mounted beside
    them, when there is one to use (the kernel's freezer)."""


def _own_groups() -> dict[str, str]:
    """The referee's group in each hierarchy, from ``/proc/self/cgroup``: controller (or
    ``""`` for v2) to path."""
    groups: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            for name in controllers.split(",") if controllers else [""]:
                groups[name] = path
    return groups


def _v1_dir(controller: str) -> Path | None:
    """The mount of a v1 controller (``cpu`` may share one with ``cpuacct``)."""
    for name in (controller, "cpu,cpuacct", "cpuacct,cpu"):
        path = ROOT / name
        if controller in name.split(",") and (path / "cgroup.procs").exists():
            return path
    return None


@functools.cache
def _find() -> Hierarchy | str:
    """The hierarchy to use here, or why there is none."""
    own = _own_groups()
    if (ROOT / "cgroup.controllers").exists():  # v2 alone, at the usual place
        parent = ROOT / own.get("", "/").lstrip("/")
        needed = {"memory", "pids", "cpu"}
        have = set((parent / "cgroup.controllers").read_text().split())
        if not needed <= have:
            missing = ", ".join(sorted(needed - have))
            return f"the control group {parent} lacks the {missing} controller"
        if not os.access(parent, os.W_OK):
            return f"the control group {parent} is not writable by this user (no delegation)"
        return Hierarchy(2, (("", parent),))
    parents = []
    for controller in _V1:
        mount = _v1_dir(controller)
        if mount is None:
            if controller == "cpuacct":
                continue
            return f"no {controller} control group hierarchy is mounted under {ROOT}"
        parent = mount / own.get(controller, "/").lstrip("/")
        if not os.access(parent, os.W_OK):
            return f"the control group {parent} is not writable by this user (not root)"
        parents.append((controller, parent))
    unified = ROOT / "unified" / own.get("", "/").lstrip("/")
    if (unified / "cgroup.procs").exists() and os.access(unified, os.W_OK):
        parents.append(("freeze", unified))
    return Hierarchy(1, tuple(parents))


def unavailable() -> str | None:
    """Why bots get no control groups here, or None when they do. Checked once a process, and
    with a trial group (made and removed), so that a hierarchy that cannot be used is found."""
    found = _find()
    if isinstance(found, str):
        return found
    return _trial()


@functools.cache
def _trial() -> str | None:
    try:
        group = BotGroup.create("probe", Limits())
    except LimitError as error:
        return str(error)
    group.remove()
    return None


_serial = 0


class BotGroup:
    """One bot process's control group (in each hierarchy), with its limits set."""

    def __init__(self, dirs: dict[str, Path], version: int, limits: Limits) -> None:
        self.dirs = dirs
        """Controller (``""`` for v2) to the group's directory."""
        self.version = version
        self.limits = limits
        self._join: list[int] = []
        self._freezer: int | None = None
        self._cpu: int | None = None
        self._cpu_v2 = False
        self.frozen = False

    @classmethod
    def create(cls, name: str, limits: Limits) -> BotGroup:
        """A new group for a bot called ``name`` (made unique), below the referee's own.
        Raises :class:`LimitError` when it cannot be made or its limits set, or when this
        machine has no usable control groups."""
        global _serial  # noqa: PLW0603 - a counter of this process's groups
        found = _find()
        if isinstance(found, str):
            raise LimitError(found)
        if _serial == 0:
            sweep()
        _serial += 1
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:64]
        leaf = f"gin-arena-{os.getpid()}-{_serial}-{safe}"
        dirs: dict[str, Path] = {}
        group = cls(dirs, found.version, limits)
        try:
            for controller, parent in found.parents:
                path = parent / leaf
                path.mkdir()
                dirs[controller] = path
            group._set_limits()
        except OSError as error:
            group.remove()
            raise LimitError(
                f"cannot make a control group for bot {name!r}: "
                f"{error.strerror or error} ({error.filename or ''})"
            ) from None
        return group

    def _write(self, controller: str, name: str, value: str) -> None:
        path = self.dirs[controller] / name
        with open(path, "w") as file:
            file.write(value)

    def _set_limits(self) -> None:
        limits = self.limits
        memory = None if limits.memory_mb is None else limits.memory_mb * 1024 * 1024
        quota = None if limits.cpu_cores is None else int(limits.cpu_cores * _PERIOD_US)
        if self.version == 2:
            if memory is not None:
                self._write("", "memory.max", str(memory))
                with contextlib.suppress(OSError):  # no swap accounting: nothing to bound
                    self._write("", "memory.swap.max", "0")
            if limits.pids is not None:
                self._write("", "pids.max", str(limits.pids))
            if quota is not None:
                self._write("", "cpu.max", f"{quota} {_PERIOD_US}")
            return
        if memory is not None:
            self._write("memory", "memory.limit_in_bytes", str(memory))
            with contextlib.suppress(OSError):  # only with swap accounting
                self._write("memory", "memory.memsw.limit_in_bytes", str(memory))
        if limits.pids is not None:
            self._write("pids", "pids.max", str(limits.pids))
        if quota is not None:
            self._write("cpu", "cpu.cfs_period_us", str(_PERIOD_US))
            self._write("cpu", "cpu.cfs_quota_us", str(quota))

    # -- joining ------------------------------------------------------------------------------

    def open_join(self) -> None:
        """Open the files through which a new process joins the group (:meth:`join`), in the
        parent, before it forks (the child only writes)."""
        self._join = [os.open(path / "cgroup.procs", os.O_WRONLY) for path in self.dirs.values()]

    def join(self) -> None:
        """Put the calling process in the group: for a child between fork and exec (so that
        everything it starts is in the group from its first instruction)."""
        for fd in self._join:
            os.write(fd, b"0")

    def close_join(self) -> None:
        for fd in self._join:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._join = []

    # -- reading --------------------------------------------------------------------------------

    def _freeze_dir(self) -> Path | None:
        """The group's directory in a v2 hierarchy, where the kernel's freezer is (None: no v2
        hierarchy here)."""
        return self.dirs.get("") if self.version == 2 else self.dirs.get("freeze")

    def cpu_seconds(self) -> float | None:
        """The CPU time the group has used, all its processes together (None if unknown): one
        read, of a file kept open, as this is done while the bot computes."""
        try:
            if self._cpu is None:
                v2 = self._freeze_dir()
                if v2 is not None and (v2 / "cpu.stat").exists():
                    self._cpu = os.open(v2 / "cpu.stat", os.O_RDONLY)
                    self._cpu_v2 = True
                elif "cpuacct" in self.dirs:
                    self._cpu = os.open(self.dirs["cpuacct"] / "cpuacct.usage", os.O_RDONLY)
                    self._cpu_v2 = False
                else:
                    return None
            text = os.pread(self._cpu, 4096, 0)
            if not self._cpu_v2:
                return int(text) / 1e9
            for line in text.splitlines():
                key, _, value = line.partition(b" ")
                if key == b"usage_usec":
                    return int(value) / 1e6
        except (OSError, ValueError):
            return None
        return None

    def oom_killed(self) -> bool:
        """Whether the kernel's out-of-memory killer ended a process of the group."""
        try:
            if self.version == 2:
                text = (self.dirs[""] / "memory.events").read_text()
                return any(
                    line.split()[0] == "oom_kill" and int(line.split()[1]) > 0
                    for line in text.splitlines()
                )
            text = (self.dirs["memory"] / "memory.oom_control").read_text()
            return any(
                line.split()[0] == "oom_kill" and int(line.split()[1]) > 0
                for line in text.splitlines()
            )
        except (OSError, ValueError, IndexError):
            return False

    def pids(self) -> list[int]:
        """The processes in the group now: read from a fresh open each time, since a v1
        hierarchy keeps the list it gave a descriptor (for a second after its last read) and
        would go on showing a process that has ended."""
        try:
            where = self._freeze_dir() or self.dirs.get("pids") or next(iter(self.dirs.values()))
            with open(where / "cgroup.procs", "rb") as file:
                return [int(p) for p in file.read().split()]
        except (OSError, ValueError, StopIteration):
            return []

    # -- pausing -------------------------------------------------------------------------------

    def freeze(self) -> None:
        """Stop every process of the group until :meth:`thaw`: with the kernel's freezer where
        there is a v2 hierarchy (one write; a process forked meanwhile is born frozen), else
        with ``SIGSTOP`` to each (a process forked while the others are being stopped is found
        on the next round: once all are stopped, none can fork)."""
        if self.frozen:
            return
        self.frozen = True
        if not self._kernel_freeze(b"1"):
            self._signal_all(signal.SIGSTOP)

    def thaw(self) -> None:
        if not self.frozen:
            return
        self.frozen = False
        if not self._kernel_freeze(b"0"):
            self._signal_all(signal.SIGCONT)

    def _kernel_freeze(self, state: bytes) -> bool:
        """Write ``state`` to the group's ``cgroup.freeze``; False where there is none."""
        if self._freezer is None:
            where = self._freeze_dir()
            if where is None:
                return False
            try:
                self._freezer = os.open(where / "cgroup.freeze", os.O_WRONLY)
            except OSError:
                return False
        try:
            os.pwrite(self._freezer, state, 0)
        except OSError:
            return False
        return True

    def _signal_all(self, signum: int, rounds: int = 4) -> None:
        """Send ``signum`` to every process of the group; for ``SIGSTOP``, again to those that
        appeared meanwhile, until there are none (a ``SIGCONT`` needs one round: stopped
        processes fork nothing)."""
        done: set[int] = set()
        for _ in range(rounds if signum == signal.SIGSTOP else 1):
            pids = [pid for pid in self.pids() if pid not in done]
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signum)
            done.update(pids)

    # -- ending ---------------------------------------------------------------------------------

    def kill(self) -> None:
        """SIGKILL every process of the group, whatever session or process group it moved to."""
        v2 = self._freeze_dir()
        if v2 is not None:  # kills frozen processes too
            with contextlib.suppress(OSError):
                (v2 / "cgroup.kill").write_text("1")
        for _ in range(3):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)

    def remove(self, wait: float = 2.0) -> None:
        """Remove the group (its processes killed first), waiting up to ``wait`` seconds for
        them to be gone; a group that cannot be removed yet is left for :func:`sweep` in the
        next referee to start."""
        self.close_join()
        if not self.dirs:
            return
        if self.pids():
            self.kill()
        deadline = time.monotonic() + wait
        self._forget(deadline)
        for _controller, path in reversed(list(self.dirs.items())):
            while True:
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError as error:
                    if error.errno != errno.EBUSY or time.monotonic() > deadline:
                        break
                    self.kill()
                    time.sleep(0.01)
        for fd in (self._freezer, self._cpu):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._freezer = self._cpu = None
        self.dirs.clear()

    def _forget(self, deadline: float) -> None:
        """Evict from the kernel's caches what the group's processes brought into them: the
        pages of files they read first (the page cache charges a page to the group of the
        process that read it in) and the directory entries and inodes they looked up first, so
        that no later process (the bot of a deal's next seating) can tell from the caches what
        this one read. Done once its processes are gone; pages that were cached before are
        charged elsewhere and stay."""
        while self.pids() and time.monotonic() < deadline:
            time.sleep(0.005)
        with contextlib.suppress(OSError):
            if self.version == 2:
                current = (self.dirs[""] / "memory.current").read_text().strip()
                if current != "0":
                    (self.dirs[""] / "memory.reclaim").write_text(current)
            elif "memory" in self.dirs:
                (self.dirs["memory"] / "memory.force_empty").write_text("0")


def sweep() -> None:
    """Remove the empty groups that referees no longer running left behind (a referee killed
    with SIGKILL cannot remove its bots' groups; its bots died with it). Done once a process,
    before its first group."""
    for path in list(groups_left()):
        owner = path.name.split("-")[2]
        if not owner.isdigit() or int(owner) == os.getpid():
            continue
        try:
            os.kill(int(owner), 0)
            continue  # its referee still runs
        except ProcessLookupError:
            pass
        except PermissionError:
            continue
        with contextlib.suppress(OSError, ValueError):
            for pid in (path / "cgroup.procs").read_text().split():
                os.kill(int(pid), signal.SIGKILL)  # a bot its dead referee left behind
        with contextlib.suppress(OSError):
            path.rmdir()


def groups_left(prefix: str = "gin-arena-") -> Iterator[Path]:
    """The bot groups below the referee's own that still exist (for tests and clean-up)."""
    found = _find()
    if isinstance(found, str):
        return
    for _, parent in found.parents:
        with contextlib.suppress(OSError):
            for child in parent.iterdir():
                if child.is_dir() and child.name.startswith(prefix):
                    yield child


__all__ = [
    "CPU_CORES",
    "FILE_MB",
    "MEMORY_MB",
    "PIDS",
    "BotGroup",
    "LimitError",
    "Limits",
    "groups_left",
    "sweep",
    "unavailable",
]
