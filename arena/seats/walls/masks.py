"""What a sandboxed bot sees of the host's kernel: a ``/dev`` without terminals and a ``/proc``
whose host-wide counters are masked.

Two bots that run at the same time (partners, two games of a tournament, a league's batch) could
otherwise talk through any number that one can move and the other can read, and that the kernel
keeps for the whole host rather than for a namespace: the count of pseudo-terminals
(``/proc/sys/kernel/pty/nr``, moved by opening ``/dev/ptmx``), of open files
(``/proc/sys/fs/file-nr``), the memory in use (``/proc/meminfo``), the CPU and I/O counters
(``/proc/stat``, ``vmstat``, ``diskstats``, ``interrupts``, ``softirqs``, ``schedstat``), the
load (``loadavg``, ``pressure/``), the free pages by zone (``zoneinfo``, ``buddyinfo``,
``pagetypeinfo``). As LXCFS does for containers, the sandbox lays files of its own over them
(:func:`proc_masks`):

- ``meminfo`` says the bot's own memory limit is all there is, and all of it free; the other
  figures are 0;
- the counters of the others are 0, in the host's own layout (a program that parses them still
  can); ``loadavg`` reads ``0.00 0.00 0.00 1/1 1``; ``uptime`` is the host's at the referee's
  start, with no idle time; the lists of locks and keys are empty;
- ``/proc/sys`` is a copy of the few settings programs read (the kernel's release, ``pid_max``,
  ``overcommit_memory``, ...: :data:`SYS_SETTINGS`), taken when the referee starts: settings, not
  counters, and nothing a bot can move.

The files are written once a referee process, in a private directory that every user may read
(the bot runs as ``nobody`` when the referee is root), and removed at its exit.

``/dev`` (:func:`dev_options`) holds ``null``, ``zero``, ``full``, ``random``, ``urandom`` and
``tty`` (the host's devices, as bubblewrap's own ``--dev`` has them), the links ``fd``,
``stdin``, ``stdout`` and ``stderr``, and a ``shm`` of the bot's own; no ``ptmx`` and no
``pts``: a bot has no terminal to open.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import multiprocessing.util
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Final

DEVICES: Final = ("null", "zero", "full", "random", "urandom", "tty")
"""The host's devices a bot's ``/dev`` shows."""

ZEROED: Final = (
    "stat",
    "vmstat",
    "diskstats",
    "interrupts",
    "softirqs",
    "schedstat",
    "zoneinfo",
    "buddyinfo",
    "pagetypeinfo",
    "cgroups",
)
"""Files of ``/proc`` whose every counter reads 0 (in the host's layout)."""
EMPTY: Final = ("locks", "keys", "key-users")
"""Files of ``/proc`` that read empty: the host's file locks and key rings."""
PRESSURE: Final = ("cpu", "io", "memory", "irq")
"""The files of ``/proc/pressure`` (those the host has), each reading no pressure at all."""

SYS_SETTINGS: Final = (
    "kernel/osrelease",
    "kernel/ostype",
    "kernel/version",
    "kernel/pid_max",
    "kernel/threads-max",
    "kernel/ngroups_max",
    "kernel/cap_last_cap",
    "kernel/overflowuid",
    "kernel/overflowgid",
    "kernel/randomize_va_space",
    "kernel/shmmax",
    "kernel/shmall",
    "kernel/shmmni",
    "kernel/msgmax",
    "kernel/msgmnb",
    "kernel/msgmni",
    "kernel/sem",
    "kernel/perf_event_paranoid",
    "kernel/yama/ptrace_scope",
    "kernel/random/poolsize",
    "vm/overcommit_memory",
    "vm/overcommit_ratio",
    "vm/max_map_count",
    "vm/mmap_min_addr",
    "fs/nr_open",
    "fs/file-max",
    "fs/pipe-max-size",
    "net/core/somaxconn",
)
"""The settings of ``/proc/sys`` a bot's copy holds (those the host has)."""

_NUMBER: Final = re.compile(r"(?<![\w.])\d+(?![\w.])")
_PROC: Final = Path("/proc")


def _zeroed(text: str, keep: int = 0) -> str:
    """``text`` with every whole number 0, but the first ``keep`` fields of each line."""
    lines = []
    for line in text.splitlines():
        fields = line.split(" ")
        kept, counted = 0, 0
        for index, field in enumerate(fields):
            if not field:
                continue
            if kept < keep:
                kept += 1
                continue
            fields[index] = _NUMBER.sub("0", field)
            counted += 1
        lines.append(" ".join(fields))
    return "\n".join(lines) + ("\n" if text.endswith("\n") else "")


def _stat(text: str) -> str:
    """``/proc/stat`` with every counter 0: the boot time kept, one process running."""
    lines = []
    for line in text.splitlines():
        key, _, rest = line.partition(" ")
        if key == "btime":
            lines.append(line)
        elif key == "procs_running":
            lines.append("procs_running 1")
        else:
            lines.append(key + " " + _zeroed(rest))
    return "\n".join(lines) + "\n"


def meminfo(text: str, memory_mb: int) -> str:
    """``/proc/meminfo`` for a bot with ``memory_mb`` MiB: all of it there and free, nothing
    else."""
    whole = {"MemTotal", "MemFree", "MemAvailable", "CommitLimit"}
    lines = []
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        value = memory_mb * 1024 if key in whole else 0
        unit = " kB" if rest.strip().endswith("kB") else ""
        lines.append(f"{key + ':':<16}{value:>8}{unit}")
    return "\n".join(lines) + "\n"


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:  # not this kernel's, or not for this user
        return None


def _remove(folder: Path, owner: int) -> None:
    if os.getpid() == owner:  # not a forked child's to remove
        shutil.rmtree(folder, ignore_errors=True)


@functools.cache
def _folder() -> Path:
    """The referee's directory of masks, made once a process, removed at its exit (a worker
    process of a tournament's pool ends without running ``atexit``: multiprocessing's own
    finalizers do it there)."""
    folder = Path(tempfile.mkdtemp(prefix="gin-arena-masks-"))
    atexit.register(_remove, folder, os.getpid())
    multiprocessing.util.Finalize(None, _remove, (folder, os.getpid()), exitpriority=0)
    folder.chmod(0o755)
    return folder


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
    path.parent.chmod(0o755)
    path.write_text(text)
    path.chmod(0o444)
    return path


@functools.cache
def _common() -> tuple[tuple[Path, Path], ...]:
    """(mask, what it covers) for everything but ``meminfo``."""
    folder = _folder()
    masks: list[tuple[Path, Path]] = []
    for name in ZEROED:
        text = _read(_PROC / name)
        if text is not None:
            body = _stat(text) if name == "stat" else _zeroed(text, 2 if name == "diskstats" else 0)
            masks.append((_write(folder / "proc" / name, body), _PROC / name))
    for name in EMPTY:
        if (_PROC / name).exists():
            masks.append((_write(folder / "proc" / name, ""), _PROC / name))
    if (_PROC / "loadavg").exists():
        masks.append(
            (_write(folder / "proc" / "loadavg", "0.00 0.00 0.00 1/1 1\n"), _PROC / "loadavg")
        )
    uptime = _read(_PROC / "uptime")
    if uptime is not None:
        since = uptime.split()[0]
        masks.append((_write(folder / "proc" / "uptime", f"{since} 0.00\n"), _PROC / "uptime"))
    if (_PROC / "pressure").is_dir():
        calm = "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
        calm += calm.replace("some", "full")
        for name in PRESSURE:
            if (_PROC / "pressure" / name).exists():
                _write(folder / "pressure" / name, calm)
        (folder / "pressure").mkdir(exist_ok=True, mode=0o755)
        masks.append((folder / "pressure", _PROC / "pressure"))
    sys_copy = folder / "sys"
    sys_copy.mkdir(mode=0o755)
    sys_copy.chmod(0o755)
    for setting in SYS_SETTINGS:
        text = _read(_PROC / "sys" / setting)
        if text is not None:
            _write(sys_copy / setting, text)
    masks.append((sys_copy, _PROC / "sys"))
    return tuple(masks)


@functools.cache
def _meminfo(memory_mb: int) -> Path | None:
    text = _read(_PROC / "meminfo")
    if text is None:
        return None
    return _write(_folder() / f"meminfo-{memory_mb}", meminfo(text, memory_mb))


def proc_masks(memory_mb: int) -> list[tuple[Path, Path]]:
    """(mask, the file or directory of ``/proc`` it covers) for a bot of ``memory_mb`` MiB."""
    masks = list(_common())
    mem = _meminfo(memory_mb)
    if mem is not None:
        masks.append((mem, _PROC / "meminfo"))
    return masks


def proc_options(memory_mb: int) -> list[str]:
    """bwrap's options that lay the masks over a fresh ``/proc`` (after ``--proc /proc``)."""
    opts: list[str] = []
    for mask, covered in proc_masks(memory_mb):
        opts += ["--ro-bind", str(mask), str(covered)]
    return opts


def dev_options(shm_bytes: int) -> list[str]:
    """bwrap's options that make the bot's ``/dev`` (see the module), with a ``shm`` of
    ``shm_bytes``; the caller makes ``/dev`` read-only at the end."""
    opts = ["--perms", "0755", "--tmpfs", "/dev"]
    for name in DEVICES:
        with contextlib.suppress(OSError):
            if Path("/dev", name).exists():
                opts += ["--dev-bind", f"/dev/{name}", f"/dev/{name}"]
    opts += ["--symlink", "/proc/self/fd", "/dev/fd"]
    for number, name in enumerate(("stdin", "stdout", "stderr")):
        opts += ["--symlink", f"/proc/self/fd/{number}", f"/dev/{name}"]
    opts += ["--size", str(shm_bytes), "--perms", "1777", "--tmpfs", "/dev/shm"]
    return opts


__all__ = [
    "DEVICES",
    "EMPTY",
    "PRESSURE",
    "SYS_SETTINGS",
    "ZEROED",
    "dev_options",
    "meminfo",
    "proc_masks",
    "proc_options",
]
