"""Running ``gin-arena`` as a user runs it, and the bounds every test waits within.

Importable by name from every test folder and from benchmarks/ (pytest puts tests/ on
``sys.path``: see ``conftest.py``)::

    from support import LONG, gin_arena

    done = gin_arena("match", "greedy", "random", "--games", "2", cwd=tmp_path, timeout=LONG)
    assert done.returncode == 0, done.stderr

**Timeouts** are bounds against hangs, never timings: a test that reaches one has failed anyway,
so each is generous, for a machine loaded by other test runs. There is one family of them, from
the shortest to the longest; ``bound(seconds)`` gives any other. ``GIN_TEST_TIMEOUT_SCALE``
(default 1) stretches them all on a slow machine.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
"""The checkout."""

SCALE = float(os.environ.get("GIN_TEST_TIMEOUT_SCALE", "1"))


def bound(seconds: float) -> float:
    """A bound of ``seconds`` against a hang, stretched by ``GIN_TEST_TIMEOUT_SCALE``."""
    return seconds * SCALE


GONE = bound(10.0)
"""For what follows at once: a process gone after its kill, a file written, a signal handled."""
QUICK = bound(30.0)
"""For a process to start or to end once told: bots started, a killed command's exit."""
COMMAND = bound(60.0)
"""For a command of a few games or checks: ``solve``, ``check-bot``, a short match."""
LONG = bound(120.0)
"""For a command that starts many bot processes or builds something: a match of walled bots, a
tournament's checks, a compiler."""
RUN = bound(180.0)
"""For a tournament, an SPRT or a long match from the command line."""
SOAK = bound(420.0)
"""For the soak's and the fault injection's tournaments of hundreds of games."""
LEAGUE = bound(600.0)
"""For a whole SPRT to its verdict, or a tournament on a Ray cluster."""


def cli_env(**extra: str) -> dict[str, str]:
    """Our environment with the checkout first on PYTHONPATH, so that ``python -m arena.cli``
    and the built-in bots it starts as subprocesses import this code from any directory; then
    ``extra``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env.update(extra)
    return env


def installed_env(**extra: str) -> dict[str, str]:
    """Our environment as it is, then ``extra``: ``python -m arena.cli`` in any other directory
    imports the package as installed (the wheel, under tox), not the checkout."""
    return {**os.environ, **extra}


def gin_arena_command(*args: str) -> list[str]:
    """The command line of ``gin-arena ARGS``: this interpreter, ``-m arena.cli``."""
    return [sys.executable, "-m", "arena.cli", *args]


def gin_arena(
    *args: str,
    cwd: Path = ROOT,
    env: Mapping[str, str] | None = None,
    stdin: str = "",
    timeout: float = COMMAND,
) -> subprocess.CompletedProcess[str]:
    """``gin-arena ARGS`` as a user runs it, to its end: a fresh interpreter in ``cwd``, with
    ``env`` (default :func:`cli_env`), typing ``stdin`` (then end of file), output captured as
    text; it must end within ``timeout`` seconds."""
    return subprocess.run(
        gin_arena_command(*args),
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=cli_env() if env is None else dict(env),
        timeout=timeout,
        check=False,
    )


def _interruptible() -> None:  # in the child, before exec
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_gin_arena(
    *args: str,
    cwd: Path = ROOT,
    env: Mapping[str, str] | None = None,
    **popen: Any,
) -> subprocess.Popen[Any]:
    """``gin-arena ARGS`` started and left running, in a session of its own (so that a signal
    can go to its whole process group, as a terminal's Ctrl-C does, and a clean-up can kill the
    group), with ``env`` (default :func:`cli_env`); ``popen`` gives its streams and anything else
    :class:`subprocess.Popen` takes."""
    popen.setdefault("start_new_session", True)
    # Ctrl-C as a terminal sends it, whatever this run inherited: a shell's background job
    # starts with SIGINT ignored, and Python then installs no handler for it.
    popen.setdefault("preexec_fn", _interruptible)
    return subprocess.Popen(
        gin_arena_command(*args),
        cwd=cwd,
        env=cli_env() if env is None else dict(env),
        **popen,
    )


@contextlib.contextmanager
def read_only_mount(folder: Path) -> Iterator[Path]:
    """``folder`` bind-mounted read-only on itself while the block runs, then unmounted: a
    read-only file system for real. Skips the test (with the reason) unless this is root on a
    system that allows the mount."""
    import pytest

    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("a read-only mount needs root and mount(8)")
    bind = subprocess.run(["mount", "--bind", folder, folder], check=False, capture_output=True)
    if bind.returncode != 0:
        pytest.skip(f"cannot bind-mount here: {bind.stderr.decode().strip()}")
    try:
        remount = ["mount", "-o", "remount,ro,bind", folder]
        done = subprocess.run(remount, check=False, capture_output=True)
        if done.returncode != 0:
            pytest.skip(f"cannot remount read-only here: {done.stderr.decode().strip()}")
        yield folder
    finally:
        subprocess.run(["umount", folder], check=True)
