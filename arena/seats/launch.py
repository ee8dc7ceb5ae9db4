"""Making a bot's process: the environment it gets (:func:`minimal_env`), its working directory
(:func:`fresh_workdir`), the parent-death signal that ends it with the referee
(:func:`die_with_parent`), the check that its program can be run (:func:`check_program`) and the
command of a built-in bot (:func:`python_command`).
"""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import signal
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Final

from arena.seats.programs import needs_interpreter

_PASSED_ENV: Final = ("PATH", "LANG", "LC_ALL", "PYTHONPATH", "TZ", "SYSTEMROOT")
_PR_SET_PDEATHSIG: Final = 1


def _load_prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return prctl


_PRCTL: Final = _load_prctl()  # looked up here, so that a child between fork and exec only calls it


def die_with_parent(parent: int | None = None) -> None:
    """Ask Linux to SIGKILL this process when its parent dies (so that a referee killed with
    SIGKILL leaves no bot or worker behind); a no-op elsewhere. ``parent`` closes the race with
    a parent that died before the call."""
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if parent is not None and os.getppid() != parent:
            os._exit(1)


def minimal_env(extra: Mapping[str, str] | None, home: Path) -> dict[str, str]:
    """The environment a bot gets: a few variables from ours, HOME and TMPDIR set to its working
    directory, then the bot's own (from a bots file)."""
    env = {k: os.environ[k] for k in _PASSED_ENV if k in os.environ}
    env.setdefault("PATH", os.defpath)
    env.setdefault("LANG", "C.UTF-8")
    env["HOME"] = str(home)
    env["TMPDIR"] = str(home)
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra or {})
    return env


def check_program(program: str, env: Mapping[str, str], cwd: Path) -> None:
    """Raise the error ``exec`` would for a program that cannot be run."""
    if "/" in program:
        path = Path(program) if os.path.isabs(program) else cwd / program
        if not path.exists():
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), program)
        if path.is_dir() or not os.access(path, os.X_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), program)
        if needs_interpreter(path):  # which bwrap's execvp would run with /bin/sh
            raise OSError(errno.ENOEXEC, os.strerror(errno.ENOEXEC), program)
    elif shutil.which(program, path=env.get("PATH", os.defpath)) is None:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), program)


def fresh_workdir(workdir: Path, sandboxed: bool) -> None:
    """A bot's working directory, new and empty: nothing a process wrote there reaches a
    later one (a mirrored deal's replay, the next game after a restart). In the sandbox the
    bot gets a memory file system of its own there, so the directory is only made; without
    it, what an earlier process left is removed. (Workers of a tournament that keep logs in
    one directory start the same bot at once: neither may fail because the other is at it.)"""
    if workdir.is_symlink() or workdir.is_file():
        workdir.unlink(missing_ok=True)
    elif not sandboxed and workdir.exists():
        shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True, exist_ok=True)


def python_command(module: str, *args: str) -> list[str]:
    """The command that runs a built-in bot module with this interpreter."""
    return [sys.executable, "-m", module, *args]
