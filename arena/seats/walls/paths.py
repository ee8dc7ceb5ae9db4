"""What a sandboxed bot sees of the host: the system (:func:`system_view`), this Python and the
SDK's packages (:func:`sdk_paths`), what its command needs (:func:`needed_paths`: its program,
interpreter and file arguments, its ``cwd`` and ``PYTHONPATH``), and the helpers with which
:meth:`arena.seats.walls.sandbox.Sandbox.options` shows paths read-only (:func:`ro_binds`) and tells
them apart.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import stat
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Final

_SYSTEM_DIRS: Final = ("/usr", "/etc", "/opt")
_SYSTEM_LINKS: Final = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ROOT: Final = Path("/")
_NOT_SHOWN_WHOLE: Final = (ROOT, Path("/tmp"))
"""Directories a file argument's own directory may be but that are never shown whole: the
file alone is."""


def system_view() -> tuple[list[str], list[Path], list[Path]]:
    """The system a bot sees: bwrap's options that recreate the system's links (``/bin`` to
    ``usr/bin``), those links, and the directories to show read-only (this Python's and the
    SDK's packages included)."""
    opts: list[str] = []
    visible = [Path(d) for d in _SYSTEM_DIRS if os.path.isdir(d)]
    links = []
    for link in _SYSTEM_LINKS:
        if os.path.islink(link):
            opts += ["--symlink", os.readlink(link), link]
            links.append(Path(link))
        elif os.path.isdir(link):
            visible.append(Path(link))
    visible += [Path(sys.base_prefix), Path(sys.prefix), *sdk_paths()]
    return opts, links, visible


def needed_paths(
    argv: Sequence[str],
    start: Path,
    cwd: Path | None,
    env: Mapping[str, str] | None,
    read_only: Sequence[Path],
) -> list[Path]:
    """What the command ``argv``, started in ``start``, needs shown read-only: its program and
    interpreter, its file arguments, its ``cwd`` (if given), its ``PYTHONPATH`` and the
    ``read_only`` extras."""
    visible = program_paths(argv[0], start, env)
    for arg in argv[1:]:
        path = absolute(Path(arg), start)
        if not arg.startswith("-") and path.is_file():
            visible += file_paths(path)
    if cwd is not None:
        visible.append(start)
    for entry in (env or {}).get("PYTHONPATH", "").split(os.pathsep):
        if entry and os.path.isabs(entry):
            visible.append(absolute(Path(entry)))
    visible += [absolute(p) for p in read_only]
    return visible


@functools.cache
def sdk_paths() -> tuple[Path, ...]:
    """The directories of the packages a Python bot written with the SDK imports (``bots``,
    ``engine``, ``protocol``): inside this Python's prefix when installed, but anywhere in an
    editable install of a checkout, whose other files stay hidden."""
    import bots
    import engine
    import protocol

    return tuple(Path(str(p.__file__)).resolve().parent for p in (bots, engine, protocol))


def absolute(path: Path, base: Path | None = None) -> Path:
    """``path`` made absolute (against ``base``) and normalised, symbolic links kept."""
    if not path.is_absolute():
        path = (base or Path.cwd()) / path
    return Path(os.path.normpath(path))


def inside(parent: Path, path: Path) -> bool:
    """Whether ``path`` is ``parent`` or lies below it."""
    return path == parent or parent in path.parents


def forms(path: Path, links: Sequence[Path]) -> list[Path]:
    """Where ``path`` must show: at its real path, and at the path as named unless that goes
    through a system link the sandbox recreates (``/bin`` to ``usr/bin``)."""
    real = Path(os.path.realpath(path))
    if real == path or any(inside(link, path) for link in links):
        return [real]
    return [real, path]


def bindable(path: Path) -> bool:
    """Whether ``path`` may be shown read-only: it exists and is not the root, ``/tmp`` or under
    ``/proc`` or ``/dev`` (the sandbox has its own)."""
    if path in (ROOT, Path("/tmp")) or inside(Path("/proc"), path) or inside(Path("/dev"), path):
        return False
    return path.exists()


def outermost(paths: Iterable[Path]) -> list[Path]:
    """The paths without duplicates and without those inside another, parents first."""
    out: list[Path] = []
    for path in sorted(set(paths), key=lambda p: (len(p.parts), str(p))):
        if not any(inside(kept, path) for kept in out):
            out.append(path)
    return out


def private_steps(shown: Sequence[Path], needed: Sequence[Path]) -> list[tuple[Path, list[Path]]]:
    """The directories between a directory in ``shown`` and a path in ``needed`` below it that
    others may not enter, outermost first, each with the needed paths (outermost) below it."""
    private: set[Path] = set()
    for path in needed:
        outer = next((d for d in shown if inside(d, path) and d != path), None)
        if outer is None:
            continue
        for step in reversed(path.parents):
            if step == outer or not inside(outer, step) or step in private:
                continue
            with contextlib.suppress(OSError):
                if not os.stat(step).st_mode & stat.S_IXOTH:
                    private.add(step)
    steps = []
    for step in outermost(private):
        below = [p for p in needed if inside(step, p) and p != step]
        steps.append((step, outermost(below)))
    return steps


def parents(path: Path, made: set[Path]) -> list[str]:
    """Options that make the directories leading to ``path`` (those not made yet), readable by
    all: bwrap would make them readable by root alone, which a bot dropped to another uid cannot
    pass. (A directory that exists already, in a directory shown, is left as it is.)"""
    opts: list[str] = []
    for parent in reversed(path.parents):
        if parent == ROOT or parent in made:
            continue
        made.add(parent)
        opts += ["--perms", "0755", "--dir", str(parent)]
    return opts


def ro_binds(paths: Iterable[Path], made: set[Path]) -> list[str]:
    """Options that show each of ``paths`` read-only at its own path (see :func:`parents`)."""
    opts: list[str] = []
    for path in paths:
        opts += [*parents(path, made), "--ro-bind", str(path), str(path)]
    return opts


def file_paths(path: Path) -> list[Path]:
    """What must be visible to run or read the file ``path``: its directory (the file alone if it
    lies in ``/`` or ``/tmp``, which are not shown whole), the same for the file its symbolic links
    lead to, the virtual environment either lives in, and the interpreter its ``#!`` line names."""
    out: list[Path] = []
    for candidate in dict.fromkeys((path, Path(os.path.realpath(path)))):
        folder = candidate.parent
        out.append(candidate if folder in _NOT_SHOWN_WHOLE else folder)
        if (folder.parent / "pyvenv.cfg").is_file() or _installation(folder):
            out.append(folder.parent)
    interpreter = _shebang(path)
    if interpreter is not None and interpreter != path and interpreter.is_file():
        for candidate in dict.fromkeys((interpreter, Path(os.path.realpath(interpreter)))):
            folder = candidate.parent
            out.append(candidate if folder in _NOT_SHOWN_WHOLE else folder)
            if (folder.parent / "pyvenv.cfg").is_file():
                out.append(folder.parent)
    return out


def _installation(folder: Path) -> bool:
    """Whether ``folder`` is the ``bin`` of an installation whose programs need its ``lib``
    (an interpreter that a version manager installed in a directory of its own)."""
    return (
        folder.name == "bin"
        and folder.parent not in (ROOT, Path("/usr"), Path("/usr/local"))
        and (folder.parent / "lib").is_dir()
    )


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


def program_paths(program: str, start: Path, env: Mapping[str, str] | None) -> list[Path]:
    """What must be visible to run the program: the file it names, or the one ``PATH`` finds."""
    if "/" in program:
        path = absolute(Path(program), start)
    else:
        found = shutil.which(program, path=(env or {}).get("PATH", os.defpath))
        if found is None:
            return []
        path = absolute(Path(found))
    return file_paths(path) if path.is_file() else []
