"""Bots in a bubblewrap sandbox: each bot sees a read-only system, its own files and nothing of the
referee, the other bots or the network.

:func:`resolve_sandbox` turns a ``--sandbox`` mode (:data:`SANDBOX_MODES`) into a
:class:`Sandbox` or None; :meth:`Sandbox.wrap` turns a bot's command into the ``bwrap`` command
that runs it. Inside, the bot has:

- its own PID, mount, IPC, UTS and network namespaces: it sees only its own processes (a fresh
  ``/proc``), has no network but a loopback of its own, and all its descendants die with it;
- no capabilities (``--cap-drop ALL`` when the referee runs as root);
- a read-only view of the system (``/usr``, ``/bin``, ``/sbin``, ``/lib*``, ``/etc``, ``/opt``),
  of this Python (``sys.base_prefix``, ``sys.prefix``) and of the SDK's packages (``bots``,
  ``engine``, ``protocol``, wherever they are installed), of the bot's program, interpreter and
  file arguments, of its ``cwd`` and ``PYTHONPATH``, and of any ``read_only`` extras;
- its private working directory, writable, at its own path (``HOME`` and ``TMPDIR``), an empty
  ``/tmp`` and a minimal ``/dev``;
- nothing of the directory holding the bots' working directories and logs but its own working
  directory, nothing of the ``hidden`` paths (the tournament database, the record file) and of the
  system's password hashes, and not bwrap's own arguments (passed through ``--args FD``, so that
  ``/proc/1/cmdline`` does not list them).

See docs/PROTOCOL.md, "Hidden information and security", for what it does not do.
"""

from __future__ import annotations

import functools
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

SANDBOX_MODES: Final = ("auto", "bwrap", "none")
"""``auto``: bubblewrap when it works here, else none (with a warning); ``bwrap``: bubblewrap or
an error; ``none``: no sandbox."""

INSTALL_HINT: Final = "apt-get install bubblewrap"
PROBE_SECONDS: Final = 10.0
"""How long the one trial run of bwrap may take."""

_SYSTEM_DIRS: Final = ("/usr", "/etc", "/opt")
_SYSTEM_LINKS: Final = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_SYSTEM_SECRETS: Final = (
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/ssh",
)
_SQLITE_COMPANIONS: Final = ("-wal", "-shm", "-journal")
_ROOT: Final = Path("/")
_NOT_SHOWN_WHOLE: Final = (_ROOT, Path("/tmp"))
"""Directories a file argument's own directory may be but that are never shown whole: the
file alone is."""


class SandboxError(ValueError):
    """The sandbox asked for cannot be used here."""


@dataclass(frozen=True, slots=True)
class Sandbox:
    """Bubblewrap, found and known to work here (see :func:`resolve_sandbox`)."""

    bwrap: str
    """The path of the ``bwrap`` program."""

    def wrap(
        self,
        argv: Sequence[str],
        *,
        workdir: Path,
        cwd: Path | None = None,
        read_only: Sequence[Path] = (),
        hidden: Sequence[Path] = (),
        env: Mapping[str, str] | None = None,
        die_with_parent: bool = True,
    ) -> tuple[list[str], tuple[int, ...]]:
        """The command that runs ``argv`` in the sandbox, and the file descriptors to pass to it
        (``subprocess.Popen(..., pass_fds=fds)``). The caller closes the descriptors once the
        process has started.

        ``workdir`` is the bot's private directory (it must exist); its parent directory is
        hidden (the other bots' directories and logs live there). ``cwd`` is where the bot
        starts (default ``workdir``), visible read-only. ``read_only`` paths are visible
        read-only, ``hidden`` paths (files or directories; a database's ``-wal``, ``-shm`` and
        ``-journal`` files go with it) are not visible. ``env`` is the bot's environment: its
        ``PATH`` finds a program given by name, its ``PYTHONPATH`` is made visible.
        ``die_with_parent``: kill the sandbox when the thread that starts it ends (only from a
        thread that lives as long as the bot, as Linux ties the signal to the thread).

        Raises :class:`SandboxError` when the bot needs the very directory that the sandbox
        hides (its program kept in the logs directory).
        """
        options = self.options(
            argv,
            workdir=workdir,
            cwd=cwd,
            read_only=read_only,
            hidden=hidden,
            env=env,
            die_with_parent=die_with_parent,
        )
        fd = _args_fd(options)
        return [self.bwrap, "--args", str(fd), "--", *argv], (fd,)

    def options(
        self,
        argv: Sequence[str],
        *,
        workdir: Path,
        cwd: Path | None = None,
        read_only: Sequence[Path] = (),
        hidden: Sequence[Path] = (),
        env: Mapping[str, str] | None = None,
        die_with_parent: bool = True,
    ) -> list[str]:
        """bwrap's options for :meth:`wrap` (what goes through ``--args``), for inspection."""
        if not argv:
            raise ValueError("cannot sandbox an empty command")
        workdir = _absolute(workdir)
        start = _absolute(cwd, workdir) if cwd is not None else workdir
        opts = [
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-net",
            "--unshare-cgroup-try",
            "--hostname",
            "gin-arena",
            "--new-session",
        ]
        if die_with_parent:
            opts.append("--die-with-parent")
        if os.geteuid() == 0:
            opts += ["--cap-drop", "ALL"]
        # Fresh /proc, /dev and /tmp first: a bind below /tmp (a bot kept there) goes on top.
        opts += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
        visible = [Path(d) for d in _SYSTEM_DIRS if os.path.isdir(d)]
        links = []
        for link in _SYSTEM_LINKS:
            if os.path.islink(link):
                opts += ["--symlink", os.readlink(link), link]
                links.append(Path(link))
            elif os.path.isdir(link):
                visible.append(Path(link))
        visible += [Path(sys.base_prefix), Path(sys.prefix), *sdk_paths()]
        visible += _program_paths(argv[0], start, env)
        for arg in argv[1:]:
            path = _absolute(Path(arg), start)
            if not arg.startswith("-") and path.is_file():
                visible += _file_paths(path)
        if cwd is not None:
            visible.append(start)
        for entry in (env or {}).get("PYTHONPATH", "").split(os.pathsep):
            if entry and os.path.isabs(entry):
                visible.append(_absolute(Path(entry)))
        visible += [_absolute(p) for p in read_only]

        arena = workdir.parent  # the other bots' directories and logs are there
        binds = [form for p in visible for form in _forms(p, links) if _bindable(form)]
        if arena in binds:
            raise SandboxError(
                f"the directory of the bots' working directories and logs, {str(arena)!r}, also "
                f"holds what the command {shlex.join(argv)!r} needs (its program, cwd or "
                "PYTHONPATH), and the sandbox hides it: give the bots' logs a directory of "
                "their own"
            )
        outside = _outermost(b for b in binds if not _inside(arena, b))
        within = _outermost(b for b in binds if _inside(arena, b) and b != arena)
        opts += _ro_binds(outside)
        if arena != _ROOT:
            # Cover the arena directory, then put back what must show inside it.
            opts += ["--tmpfs", str(arena)]
            opts += _ro_binds(within)

        def shown(path: Path) -> bool:
            if any(_inside(b, path) for b in within):
                return True
            return any(_inside(b, path) for b in outside) and not _inside(arena, path)

        secret = [Path(p) for p in _SYSTEM_SECRETS]
        for path in hidden:
            for form in dict.fromkeys((_absolute(path), Path(os.path.realpath(path)))):
                secret += [form, *(Path(f"{form}{end}") for end in _SQLITE_COMPANIONS)]
        for path in _outermost(secret):
            # Nothing in the bot's own directory is secret; what is not shown needs no cover.
            if not path.exists() or _inside(workdir, path) or not shown(path):
                continue
            if path.is_dir():
                opts += ["--tmpfs", str(path)]
            else:
                opts += ["--ro-bind", "/dev/null", str(path)]

        opts += ["--bind", str(workdir), str(workdir), "--chdir", str(start)]
        return opts


@functools.cache
def sdk_paths() -> tuple[Path, ...]:
    """The directories of the packages a Python bot written with the SDK imports (``bots``,
    ``engine``, ``protocol``): inside this Python's prefix when installed, but anywhere in an
    editable install of a checkout, whose other files stay hidden."""
    import bots
    import engine
    import protocol

    return tuple(Path(str(p.__file__)).resolve().parent for p in (bots, engine, protocol))


def _absolute(path: Path, base: Path | None = None) -> Path:
    """``path`` made absolute (against ``base``) and normalised, symbolic links kept."""
    if not path.is_absolute():
        path = (base or Path.cwd()) / path
    return Path(os.path.normpath(path))


def _inside(parent: Path, path: Path) -> bool:
    return path == parent or parent in path.parents


def _forms(path: Path, links: Sequence[Path]) -> list[Path]:
    """Where ``path`` must show: at its real path, and at the path as named unless that goes
    through a system link the sandbox recreates (``/bin`` to ``usr/bin``)."""
    real = Path(os.path.realpath(path))
    if real == path or any(_inside(link, path) for link in links):
        return [real]
    return [real, path]


def _bindable(path: Path) -> bool:
    """Whether ``path`` may be shown read-only: it exists and is not the root, ``/tmp`` or under
    ``/proc`` or ``/dev`` (the sandbox has its own)."""
    if path in (_ROOT, Path("/tmp")) or _inside(Path("/proc"), path) or _inside(Path("/dev"), path):
        return False
    return path.exists()


def _outermost(paths: Iterable[Path]) -> list[Path]:
    """The paths without duplicates and without those inside another, parents first."""
    out: list[Path] = []
    for path in sorted(set(paths), key=lambda p: (len(p.parts), str(p))):
        if not any(_inside(kept, path) for kept in out):
            out.append(path)
    return out


def _ro_binds(paths: Iterable[Path]) -> list[str]:
    opts: list[str] = []
    for path in paths:
        opts += ["--ro-bind", str(path), str(path)]
    return opts


def _file_paths(path: Path) -> list[Path]:
    """What must be visible to run or read the file ``path``: its directory (the file alone if it
    lies in ``/`` or ``/tmp``, which are not shown whole), the same for the file its symbolic links
    lead to, the virtual environment either lives in, and the interpreter its ``#!`` line names."""
    out: list[Path] = []
    for candidate in dict.fromkeys((path, Path(os.path.realpath(path)))):
        folder = candidate.parent
        out.append(candidate if folder in _NOT_SHOWN_WHOLE else folder)
        if (folder.parent / "pyvenv.cfg").is_file():
            out.append(folder.parent)
    interpreter = _shebang(path)
    if interpreter is not None and interpreter != path and interpreter.is_file():
        for candidate in dict.fromkeys((interpreter, Path(os.path.realpath(interpreter)))):
            folder = candidate.parent
            out.append(candidate if folder in _NOT_SHOWN_WHOLE else folder)
            if (folder.parent / "pyvenv.cfg").is_file():
                out.append(folder.parent)
    return out


def _shebang(path: Path) -> Path | None:
    try:
        with open(path, "rb") as file:
            head = file.readline(512)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].decode("utf-8", "replace").split()
    return Path(words[0]) if words and words[0].startswith("/") else None


def _program_paths(program: str, start: Path, env: Mapping[str, str] | None) -> list[Path]:
    """What must be visible to run the program: the file it names, or the one ``PATH`` finds."""
    if "/" in program:
        path = _absolute(Path(program), start)
    else:
        found = shutil.which(program, path=(env or {}).get("PATH", os.defpath))
        if found is None:
            return []
        path = _absolute(Path(found))
    return _file_paths(path) if path.is_file() else []


def _args_fd(options: Sequence[str]) -> int:
    """A file descriptor, at offset 0, holding ``options`` NUL-separated (bwrap's ``--args``); a
    memory file, so that no length blocks and nothing lands on disk."""
    data = b"".join(os.fsencode(option) + b"\0" for option in options)
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("gin-arena-bwrap-args")
    else:  # pragma: no cover - bubblewrap is Linux-only, and Linux has memfd_create
        with tempfile.TemporaryFile() as file:
            fd = os.dup(file.fileno())
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd


@functools.cache
def _probe(bwrap: str) -> str | None:
    """Why ``bwrap`` cannot sandbox here (its own words), or None when a trial run works. Run once
    per program and process."""
    true = shutil.which("true") or "/bin/true"
    command = [
        bwrap,
        "--ro-bind",
        "/",
        "/",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-net",
        "--new-session",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        *(["--cap-drop", "ALL"] if os.geteuid() == 0 else []),
        "--",
        true,
    ]
    try:
        done = subprocess.run(
            command,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=PROBE_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"a trial run did not end within {PROBE_SECONDS:g} s"
    except OSError as error:
        return f"it cannot be run: {error.strerror or error}"
    if done.returncode == 0:
        return None
    said = done.stderr.decode("utf-8", "replace").strip().replace("\n", " ")[:300]
    return f"a trial run failed with code {done.returncode}: {said or 'no message'}"


def _problem() -> tuple[str | None, str | None]:
    """(the bwrap program, or None; why it cannot be used, or None)."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return None, "bubblewrap (bwrap) is not installed"
    why = _probe(bwrap)
    if why is not None:
        return bwrap, f"bubblewrap ({bwrap}) cannot create namespaces here: {why}"
    return bwrap, None


def resolve_sandbox(mode: str) -> Sandbox | None:
    """The sandbox for a ``--sandbox`` mode: ``none`` gives None; ``bwrap`` gives a
    :class:`Sandbox` or raises :class:`SandboxError` saying what is wrong and how to fix it;
    ``auto`` gives a :class:`Sandbox` when bubblewrap works here, else None (then print
    :func:`sandbox_warning`)."""
    if mode not in SANDBOX_MODES:
        raise SandboxError(
            f"unknown sandbox mode {mode!r}: choose one of {', '.join(SANDBOX_MODES)}"
        )
    if mode == "none":
        return None
    bwrap, why = _problem()
    if why is None and bwrap is not None:
        return Sandbox(bwrap)
    if mode == "auto":
        return None
    hint = (
        f"install it with `{INSTALL_HINT}`"
        if bwrap is None
        else "allow unprivileged user namespaces, or run the arena where it may create them"
    )
    raise SandboxError(f"cannot sandbox the bots: {why}; {hint}, or run with --sandbox none")


def sandbox_warning() -> str:
    """The one line to print when ``auto`` found no usable bubblewrap (no line end)."""
    _, why = _problem()
    reason = why or "no sandbox was asked for"
    return (
        f"warning: bots run without a sandbox and are not isolated from each other or from this "
        f"machine ({reason}); to isolate them: `{INSTALL_HINT}` (--sandbox none hides this)"
    )


__all__ = [
    "INSTALL_HINT",
    "SANDBOX_MODES",
    "Sandbox",
    "SandboxError",
    "resolve_sandbox",
    "sandbox_warning",
]
