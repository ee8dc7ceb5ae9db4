"""Bots in a bubblewrap sandbox: each bot sees a read-only system, its own files and nothing of the
referee, the other bots or the network, and is never the host's root.

:func:`resolve_sandbox` turns a ``--sandbox`` mode (:data:`SANDBOX_MODES`) into a
:class:`Sandbox` or None; :meth:`Sandbox.wrap` turns a bot's command into the ``bwrap`` command
that runs it. Inside, the bot has:

- its own PID, mount, IPC, UTS and network namespaces: it sees only its own processes (a fresh
  ``/proc``, read-only), has no network but a loopback of its own, and all its descendants die
  with it;
- no privilege: when the referee is an ordinary user, bwrap puts the bot in a user namespace of
  its own (and forbids it to make more); when the referee is root, bwrap sets the sandbox up as
  root and ``setpriv`` then drops the bot to :data:`BOT_UID`/:data:`BOT_GID` (``nobody``) with
  no capabilities, no supplementary groups and no way back (``no_new_privs``), so that a bot is
  never uid 0 of the host and cannot write a kernel setting (``/proc/sys``), load a module or
  mount anything;
- seccomp filters (:mod:`arena.seats.walls.seccomp`) refusing the system calls bots never need
  and making file locks, file watches and the page cache useless as a channel between bots or
  across a mirrored deal;
- a ``/dev`` without terminals and a ``/proc`` whose host-wide counters are masked
  (:mod:`arena.seats.walls.masks`);
- a read-only view of the system (``/usr``, ``/bin``, ``/sbin``, ``/lib*``, ``/etc``, ``/opt``),
  of this Python (``sys.base_prefix``, ``sys.prefix``) and of the SDK's packages (``bots``,
  ``engine``, ``protocol``, wherever they are installed), of the bot's program, interpreter and
  file arguments, of its ``cwd`` and ``PYTHONPATH``, and of any ``read_only`` extras;
- a private, empty, writable working directory at its own path (``HOME`` and ``TMPDIR``), an empty
  ``/tmp`` and ``/dev/shm``: memory file systems of a bounded size (``tmpfs_mb``), new for every
  process, so that nothing a bot writes reaches the host's disk or a later process;
  everything else (the root, ``/dev``, ``/proc``) read-only;
- nothing of the directory holding the bots' working directories and logs, nothing of the
  ``hidden`` paths (the tournament database, the record file), of the wire log and of the
  system's password hashes, and not bwrap's own arguments (passed through ``--args FD``, so that
  ``/proc/1/cmdline`` does not list them).

bwrap itself keeps no copy of the bot's stdin and stdout (they reach the bot as other descriptors,
moved into place by ``/bin/sh`` inside the sandbox), so a bot that closes its stdout is seen to
have done so at once.

See docs/PROTOCOL.md, "Hidden information and security", for what it does not do.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from arena.errors import ArenaError
from arena.seats import wire
from arena.seats.walls import masks, seccomp
from arena.seats.walls.paths import (
    ROOT,
    absolute,
    bindable,
    forms,
    inside,
    needed_paths,
    outermost,
    parents,
    private_steps,
    ro_binds,
    sdk_paths,
    system_view,
)

SANDBOX_MODES: Final = ("auto", "bwrap", "none")
"""``auto``: bubblewrap when it works here, else none (with a warning); ``bwrap``: bubblewrap or
an error; ``none``: no sandbox."""

INSTALL_HINT: Final = "apt-get install bubblewrap"
PROBE_SECONDS: Final = 10.0
"""How long the one trial run of bwrap may take."""

_SYSTEM_SECRETS: Final = (
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/ssh",
)
_SQLITE_COMPANIONS: Final = ("-wal", "-shm", "-journal")


BOT_UID: Final = 65534
"""The uid a bot runs as when the referee is root (``nobody``): it owns nothing on the host and,
in a PID namespace of its own, can signal no host process."""
BOT_GID: Final = 65534
"""The gid a bot runs as when the referee is root (``nogroup``)."""
TMPFS_MB: Final = 1024
"""The default size of each writable file system a bot has (its working directory, ``/tmp``)."""
SHM_MB: Final = 64
"""The size of a bot's ``/dev/shm``."""


class SandboxError(ArenaError, ValueError):
    """The sandbox asked for cannot be used here."""


@dataclass(frozen=True, slots=True)
class Sandbox:
    """Bubblewrap, found and known to work here (see :func:`resolve_sandbox`)."""

    bwrap: str
    """The path of the ``bwrap`` program."""
    setpriv: str | None = None
    """The path of ``setpriv``, which drops a bot's privileges when the referee is root (None
    otherwise: bwrap's user namespace does it)."""
    bash: str | None = None
    """The path of ``bash``, which moves the bot's stdin and stdout into place inside the
    sandbox (``stdio``; ``/bin/sh`` may not take descriptors above 9). Without it, bwrap is
    given them directly and holds a copy: a bot that closes its stdout but runs on is then
    only judged when its move time is up."""

    def give(self, fds: Sequence[int]) -> None:
        """Make pipes the bot's own when it runs as another user (as root, with ``setpriv``):
        a bot that opens ``/dev/stdout``, ``/dev/stderr`` or ``/proc/self/fd/N`` by name opens
        the pipe afresh, and is refused one that belongs to root and only root may use."""
        if self.setpriv is not None:
            for fd in fds:
                os.fchown(fd, BOT_UID, BOT_GID)

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
        stdio: tuple[int, int] | None = None,
        tmpfs_mb: int = TMPFS_MB,
    ) -> tuple[list[str], tuple[int, ...]]:
        """The command that runs ``argv`` in the sandbox, and the file descriptors to pass to it
        (``subprocess.Popen(..., pass_fds=fds)``). The caller closes the descriptors once the
        process has started.

        ``workdir`` is the bot's private directory (it must exist); its parent directory is
        hidden (the other bots' directories and logs live there), and the bot gets an empty
        memory file system at its path instead. ``cwd`` is where the bot starts (default
        ``workdir``), visible read-only. ``read_only`` paths are visible read-only, ``hidden``
        paths (files or directories; a database's ``-wal``, ``-shm`` and ``-journal`` files go
        with it) are not visible: a hidden file must exist when the bot starts, and must not be
        replaced while it runs. ``env`` is the bot's environment: its ``PATH`` finds a program
        given by name, its ``PYTHONPATH`` is made visible. ``die_with_parent``: kill the sandbox
        when the thread that starts it ends (only from a thread that lives as long as the bot,
        as Linux ties the signal to the thread). ``stdio``: the bot's stdin and stdout as two
        descriptors, also to pass to the process, which are moved to 0 and 1 inside the sandbox
        (give bwrap itself ``/dev/null``), so that bwrap holds no copy of them.
        ``tmpfs_mb``: the size of the working directory and of ``/tmp``, each. Without
        :attr:`bash`, ``stdio`` is ignored: give bwrap the bot's pipes.

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
            tmpfs_mb=tmpfs_mb,
        )
        warm_shared()
        fds: list[int] = []
        try:
            for filter_fd in seccomp.bot_filters():
                fds.append(filter_fd)
                options += ["--add-seccomp-fd", str(filter_fd)]
            fds.append(_args_fd(options))
        except BaseException:
            for fd in fds:
                os.close(fd)
            raise
        command = [self.bwrap, "--args", str(fds[-1]), "--"]
        if stdio is not None and self.bash is not None:
            stdin, stdout = stdio
            command += [
                self.bash,
                "-c",
                f'exec 0<&{stdin} 1>&{stdout} {stdin}<&- {stdout}>&- && exec env -u SHLVL "$@"',
                "sh",
            ]
        return [*command, *self.drop(), *argv], tuple(fds)

    def drop(self) -> list[str]:
        """What goes before the bot's command to drop its privileges (root only)."""
        if self.setpriv is None:
            return []
        return [
            self.setpriv,
            f"--reuid={BOT_UID}",
            f"--regid={BOT_GID}",
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
            "--no-new-privs",
            "--",
        ]

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
        tmpfs_mb: int = TMPFS_MB,
    ) -> list[str]:
        """bwrap's options for :meth:`wrap` (what goes through ``--args``), for inspection: the
        bot's namespaces and privileges, the system and what its command needs shown read-only,
        the arena directory and the secrets covered, the bot's own directory, then what was
        covered made read-only."""
        if not argv:
            raise ValueError("cannot sandbox an empty command")
        workdir = absolute(workdir)
        start = absolute(cwd, workdir) if cwd is not None else workdir
        size = str(tmpfs_mb * 1024 * 1024)
        opts = _isolation(
            die_with_parent, root=self.setpriv is not None, size=size, memory_mb=tmpfs_mb
        )
        covers = [Path("/"), Path("/proc"), Path("/dev")]  # made read-only at the end
        links_opts, links, visible = system_view()
        opts += links_opts
        visible += needed_paths(argv, start, cwd, env, read_only)
        made: set[Path] = set()
        shown, outside, within = self._show(argv, visible, links, workdir, covers=covers, made=made)
        opts += shown
        opts += _hide(hidden, workdir, outside, within, covers=covers, made=made)
        # The bot's own directory: new, empty and of a bounded size at every start.
        opts += [*parents(workdir, made), "--size", size, "--perms", "0777"]
        opts += ["--tmpfs", str(workdir)]
        for cover in covers:
            opts += ["--remount-ro", str(cover)]
        opts += ["--chdir", str(start)]
        return opts

    def _show(
        self,
        argv: Sequence[str],
        visible: Sequence[Path],
        links: Sequence[Path],
        workdir: Path,
        *,
        covers: list[Path],
        made: set[Path],
    ) -> tuple[list[str], list[Path], list[Path]]:
        """bwrap's options that show ``visible`` read-only and cover the arena directory (the
        parent of ``workdir``, where the other bots' directories and logs are) but for what must
        show inside it; with the paths shown outside the arena directory and within it. Adds the
        directories it covers to ``covers``, those it makes to ``made``."""
        arena = workdir.parent  # the other bots' directories and logs are there
        binds = [form for p in visible for form in forms(p, links) if bindable(form)]
        if arena in binds:
            raise SandboxError(
                f"the directory of the bots' working directories and logs, {str(arena)!r}, also "
                f"holds what the command {shlex.join(argv)!r} needs (its program, cwd or "
                "PYTHONPATH), and the sandbox hides it: give the bots' logs a directory of "
                "their own"
            )
        outside = outermost(b for b in binds if not inside(arena, b) and b != workdir)
        within = outermost(b for b in binds if inside(arena, b) and b != arena)
        within = [b for b in within if not inside(workdir, b)]
        if self.setpriv is not None:
            _check_readable([*outside, *within], argv)
        opts = ro_binds(outside, made)
        if self.setpriv is not None:
            # A path needed inside a directory shown whole, behind a directory that others may
            # not enter (a checkout's .tox, made 0700): nobody could not reach it. Cover that
            # directory (nobody could see nothing of it anyway) and show the path again.
            needed = [b for b in binds if not inside(arena, b) and b != workdir]
            for private, inner in private_steps(outside, needed):
                opts += ["--perms", "0755", "--tmpfs", str(private)]
                covers.append(private)
                made.add(private)
                opts += ro_binds(inner, made)
        if arena != ROOT:
            # Cover the arena directory, then put back what must show inside it.
            opts += [*parents(arena, made), "--tmpfs", str(arena)]
            covers.append(arena)
            opts += ro_binds(within, made)
        return opts, outside, within


WARM_BYTES: Final = 256 * 1024 * 1024
"""The most :func:`warm_shared` reads."""


@functools.cache
def warm_shared() -> int:
    """Read, once a referee process and before its first bot, the files nearly every Python bot
    loads: this Python's compiled standard library and extension modules, and the SDK's packages
    (``bots``, ``engine``, ``protocol``); returns the bytes read. The kernel charges a page to
    the control group of the process that first reads it, and a bot's group has what it read
    first evicted when it ends (:mod:`arena.seats.walls.limits`); read by the referee, these
    pages stay cached in every seating, so a bot does not read them from disk at every start,
    and, being cached all along, they tell no seating anything."""
    sdk = [Path(p) for p in sdk_paths()]
    stdlib = Path(sys.base_prefix) / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    roots = [*sdk, stdlib / "__pycache__", stdlib / "lib-dynload", stdlib / "json"]
    roots.append(stdlib / "encodings")
    tag = sys.implementation.cache_tag
    done = 0
    for root in roots:
        sources = root in sdk  # read as well where no bytecode is written (PYTHONDONTWRITEBYTECODE)
        for path in sorted(root.rglob("*")) if root.is_dir() else ():
            name = path.name
            wanted = (
                (name.endswith(".pyc") and tag in name)
                or name.endswith(".so")
                or (sources and name.endswith(".py"))
            )
            if not wanted or done > WARM_BYTES:
                continue
            with contextlib.suppress(OSError), open(path, "rb") as file:
                while chunk := file.read(1 << 20):
                    done += len(chunk)
    return done


def _isolation(die_with_parent: bool, root: bool, size: str, memory_mb: int) -> list[str]:
    """bwrap's options that give the bot namespaces of its own and no privilege
    (:func:`_privileges`), and a fresh ``/proc``, ``/dev``, ``/dev/shm`` and ``/tmp`` (``size``
    bytes)."""
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
    opts += _privileges(root)
    # Fresh /proc, /dev and /tmp first: a bind below /tmp (a bot kept there) goes on top.
    opts += ["--proc", "/proc", *masks.proc_options(memory_mb)]
    opts += masks.dev_options(SHM_MB * 1024 * 1024)
    opts += ["--size", size, "--perms", "1777", "--tmpfs", "/tmp"]
    return opts


def _hide(
    hidden: Sequence[Path],
    workdir: Path,
    outside: Sequence[Path],
    within: Sequence[Path],
    *,
    covers: list[Path],
    made: set[Path],
) -> list[str]:
    """bwrap's options that cover what is secret among what is shown (``outside`` and ``within``
    the arena directory): the ``hidden`` paths with their SQLite companions, the wire log and the
    system's password hashes. Adds the directories it covers to ``covers``."""
    arena = workdir.parent

    def shown(path: Path) -> bool:
        if any(inside(b, path) for b in within):
            return True
        return any(inside(b, path) for b in outside) and not inside(arena, path)

    opts: list[str] = []
    secret = [Path(p) for p in _SYSTEM_SECRETS]
    wire_log = wire.target_file()
    for path in [*hidden, *([] if wire_log is None else [wire_log])]:
        for form in dict.fromkeys((absolute(path), Path(os.path.realpath(path)))):
            secret += [form, *(Path(f"{form}{end}") for end in _SQLITE_COMPANIONS)]
    for path in outermost(secret):
        # Nothing in the bot's own directory is secret; what is not shown needs no cover.
        if not path.exists() or inside(workdir, path) or not shown(path):
            continue
        if path.is_dir():
            opts += [*parents(path, made), "--tmpfs", str(path)]
            covers.append(path)
        else:
            opts += ["--ro-bind", "/dev/null", str(path)]
    return opts


def _privileges(root: bool) -> list[str]:
    """bwrap's options that take every privilege from the bot: as root, the capabilities
    ``setpriv`` needs to drop the bot's uid and groups for good, and no other; as a user, a user
    namespace in which the bot may not make another."""
    if root:
        opts = ["--cap-drop", "ALL"]
        for cap in ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP"):
            opts += ["--cap-add", cap]
        return opts
    return ["--unshare-user", "--disable-userns"]


def _check_readable(paths: Iterable[Path], argv: Sequence[str]) -> None:
    """Raise :class:`SandboxError` naming the first of ``paths`` that a bot dropped to
    :data:`BOT_UID` cannot read (a directory it cannot list and enter, a file it cannot read):
    as root, a bot reads what every user may read, and no more."""
    for path in paths:
        try:
            mode = path.stat().st_mode
        except OSError:
            continue
        if stat.S_ISDIR(mode):
            needed, what, fix = stat.S_IROTH | stat.S_IXOTH, "directory", "o+rx"
        else:
            needed, what, fix = stat.S_IROTH, "file", "o+r"
        if mode & needed != needed:
            raise SandboxError(
                f"the {what} {str(path)!r}, which the command {shlex.join(argv)!r} needs, is not "
                f"readable by all users: when the arena runs as root, the sandbox runs bots as "
                f"nobody (uid {BOT_UID}), never as root; make it readable "
                f"(chmod {fix} {shlex.quote(str(path))}), or run the bot with --sandbox none"
            )


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
def _probe(bwrap: str, setpriv: str | None) -> str | None:
    """Why ``bwrap`` cannot sandbox here (its own words), or None when a trial run works: the
    namespaces, the privileges taken away (``setpriv`` when root) and the seccomp filter, as a
    bot gets them. Run once per program and process."""
    sandbox = Sandbox(bwrap, setpriv, shutil.which("bash"))
    true = shutil.which("true") or "/bin/true"
    with tempfile.TemporaryDirectory(prefix="gin-arena-probe-") as scratch:
        workdir = Path(scratch) / "bot"
        workdir.mkdir()
        try:
            command, fds = sandbox.wrap(
                [true], workdir=workdir, die_with_parent=False, stdio=(0, 1)
            )
        except (OSError, SandboxError, seccomp.SeccompError) as error:
            return f"its options cannot be built: {error}"
        try:
            done = subprocess.run(
                command,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=PROBE_SECONDS,
                check=False,
                pass_fds=fds,
            )
        except subprocess.TimeoutExpired:
            return f"a trial run did not end within {PROBE_SECONDS:g} s"
        except OSError as error:
            return f"it cannot be run: {error.strerror or error}"
        finally:
            for fd in fds:
                os.close(fd)
    if done.returncode == 0:
        return None
    said = done.stderr.decode("utf-8", "replace").strip().replace("\n", " ")[:300]
    return f"a trial run failed with code {done.returncode}: {said or 'no message'}"


def _problem() -> tuple[str | None, str | None, str | None]:
    """(the bwrap program, or None; ``setpriv`` when root, else None; why the sandbox cannot be
    used, or None)."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return None, None, "bubblewrap (bwrap) is not installed"
    setpriv = None
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            return (
                bwrap,
                None,
                ("setpriv (util-linux), which drops a bot's root privileges, is not installed"),
            )
    why = _probe(bwrap, setpriv)
    if why is not None:
        return bwrap, setpriv, f"bubblewrap ({bwrap}) cannot create namespaces here: {why}"
    return bwrap, setpriv, None


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
    bwrap, setpriv, why = _problem()
    if why is None and bwrap is not None:
        return Sandbox(bwrap, setpriv, shutil.which("bash"))
    if mode == "auto":
        return None
    if bwrap is None:
        hint = f"install it with `{INSTALL_HINT}`"
    elif os.geteuid() == 0 and setpriv is None:
        hint = "install it with `apt-get install util-linux`"
    else:
        hint = "allow unprivileged user namespaces, or run the arena where it may create them"
    raise SandboxError(f"cannot sandbox the bots: {why}; {hint}, or run with --sandbox none")


def unsandboxed_root() -> str:
    """Why ``auto`` refuses to run bot processes as root without a usable bubblewrap (no line
    end): outside the sandbox a bot would be the host's root."""
    _, _, why = _problem()
    return (
        f"cannot sandbox the bots ({why or 'no sandbox'}), and this arena runs as root: a bot "
        f"outside the sandbox would run as root; install it (`{INSTALL_HINT}`), or run with "
        "--sandbox none to run the bots as root all the same"
    )


def sandbox_warning() -> str:
    """The one line to print when ``auto`` found no usable bubblewrap (no line end)."""
    _, _, why = _problem()
    reason = why or "no sandbox was asked for"
    return (
        f"warning: bots run without a sandbox and are not isolated from each other or from this "
        f"machine ({reason}); to isolate them: `{INSTALL_HINT}` (--sandbox none hides this)"
    )


__all__ = [
    "BOT_GID",
    "BOT_UID",
    "INSTALL_HINT",
    "SANDBOX_MODES",
    "SHM_MB",
    "TMPFS_MB",
    "Sandbox",
    "SandboxError",
    "resolve_sandbox",
    "sandbox_warning",
    "unsandboxed_root",
]
