"""The program a bot's command runs, found before the sandbox starts, and what to say when a
sandboxed bot ends before it answers ``hello``.

The sandbox (:mod:`arena.seats.walls.sandbox`) shows a bot only what its command names. A version
manager's
shim (pyenv, rbenv, nodenv, goenv, jenv, asdf, mise, volta, ...) names none of what it runs: it
is a small script, or a link to the manager, that asks the manager, whose files the sandbox does
not show, which program to run, and fails there with the manager's own error.
:func:`resolve_command` asks the manager first, outside, and puts the program it names in the
command; :func:`sandbox_startup_hint` is the sentence to add when a sandboxed bot still ends
before it answers.

Recognised, by what they are rather than by where they live:

- a script whose line ``exec MANAGER exec PROGRAM "$@"`` hands over to a manager named ``asdf``
  or ``*env`` (pyenv, rbenv, nodenv, goenv, jenv, plenv, ...): the ``export``s it makes with
  literal values (the manager's root) and, for the rbenv family, the directory of the script
  argument (``RBENV_DIR="${arg%/*}"``) go with the question ``MANAGER which PROGRAM``;
- a link to ``mise`` (or ``rtx``) or to ``volta-shim`` under a program's name: ``mise which
  NAME``, ``volta which NAME``;
- a script whose ``#!`` line runs a shim (``#!/usr/bin/env python3``): the interpreter the shim
  stands for runs the script.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import re
import shlex
import shutil
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

SHIM_SECONDS: Final = 5.0
"""How long a version manager may take to say which program a shim runs."""

_HEAD_BYTES: Final = 8192  # a shim is a few hundred bytes
_WORD: Final = r"""(?:"[^"\n]+"|[^\s"'`;|&]+)"""
_EXEC: Final = re.compile(
    rf"""^[ \t]*exec[ \t]+(?P<manager>{_WORD})[ \t]+exec[ \t]+(?P<name>{_WORD})[ \t]+"\$@\"""",
    re.MULTILINE,
)
_EXPORT: Final = re.compile(
    r"""^[ \t]*export[ \t]+(?P<var>[A-Za-z_]\w*)="(?P<value>[^"$`\\\n]*)"[ \t]*$""", re.MULTILINE
)
_DIR_EXPORT: Final = re.compile(r"""export[ \t]+(?P<var>[A-Za-z_]\w*)="\$\{arg%/\*\}\"""")
_FILE_EXPORT: Final = re.compile(r"""export[ \t]+(?P<var>[A-Za-z_]\w*)="\$arg\"""")
_MANAGER: Final = re.compile(r"asdf|[a-z]+env")
_OWN_NAME: Final = ('"$program"', '"${0##*/}"')
"""How a shim says "the name I was run by"."""
_LINKED: Final = {"mise": "mise", "rtx": "rtx", "volta-shim": "volta"}
"""The programs that shims are links to, and the manager to ask."""
_DATA_DIR: Final = {
    "asdf": ("ASDF_DATA_DIR", "shims"),
    "mise": ("MISE_DATA_DIR", "shims"),
    "rtx": ("RTX_DATA_DIR", "shims"),
    "volta": ("VOLTA_HOME", "bin"),
}
"""The variable that tells a manager where its data is, and the directory there that holds its
shims: a bot's ``HOME`` is its working directory, where the manager would look by default, so the
variable is set from where the shim lives unless the bot's environment sets it."""


@dataclass(frozen=True, slots=True)
class Shim:
    """A version manager's shim: the program ``name`` run through ``path`` is whichever program
    ``manager which name`` names, asked with ``env`` in ``cwd``."""

    path: Path
    """The shim, as the command finds it."""
    manager: str
    """The manager's program: a path, or a bare name not found on the bot's PATH."""
    name: str
    """The program the shim stands for."""
    cwd: Path
    env: Mapping[str, str] = field(repr=False)

    @property
    def kind(self) -> str:
        """The manager's name: ``pyenv``, ``asdf``, ``mise``, ..."""
        return Path(self.manager).name

    @property
    def question(self) -> str:
        """The command that asks the manager, as a user would type it."""
        return shlex.join([self.kind, "which", self.name])

    def which(self) -> tuple[str | None, str]:
        """(the program the shim runs, or None; why not, or ""). At most :data:`SHIM_SECONDS`,
        after which the manager and its whole process group are killed."""
        if not os.path.isabs(self.manager):
            return None, f"{self.manager!r} is not on the bot's PATH"
        try:
            proc = subprocess.Popen(
                [self.manager, "which", self.name],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self.cwd,
                env=dict(self.env),
                start_new_session=True,
            )
        except OSError as error:
            return None, f"it cannot be run: {error.strerror or error}"
        try:
            out, err = proc.communicate(timeout=SHIM_SECONDS)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()
            return None, f"it did not answer within {SHIM_SECONDS:g} s"
        if proc.returncode != 0:
            said = err.decode("utf-8", "replace").strip().replace("\n", " ")[:200]
            return None, f"it exited with code {proc.returncode}: {said or 'no message'}"
        lines = out.decode("utf-8", "replace").strip().splitlines()
        answer = lines[-1].strip() if lines else ""
        if not os.path.isabs(answer) or not _runnable(Path(answer)):
            return None, f"it named no program: {answer[:200]!r}"
        if os.path.realpath(answer) == os.path.realpath(self.path) or _find_shim(
            Path(answer), {}, self.cwd, ()
        ):
            return None, f"it named a shim again: {answer!r}"
        return answer, ""


def resolve_command(argv: Sequence[str], env: Mapping[str, str], cwd: Path) -> list[str]:
    """``argv`` with its program resolved, to run in the sandbox: a version manager's shim
    (found on ``env["PATH"]``, or named by the ``#!`` line of the script ``argv[0]``) replaced by
    the program its manager names, asked with ``env`` in ``cwd``; unchanged when the program is no
    shim (no subprocess is run for it), when it cannot be found (``exec`` says so) or when the
    manager does not answer (the shim then fails as it would)."""
    command = list(argv)
    if not command:
        return command
    found = _shim_or_script(command[0], env, cwd, command[1:])
    if isinstance(found, Shim):
        real, _ = found.which()
        return [real, *command[1:]] if real is not None else command
    if found is not None:
        shim, extra, script = found
        real, _ = shim.which()
        return [real, *extra, script, *command[1:]] if real is not None else command
    return command


def find_shim(argv: Sequence[str], env: Mapping[str, str], cwd: Path) -> Shim | None:
    """The version manager's shim that ``argv`` runs, as its program or through its ``#!``
    line, or None. Reads files only."""
    if not argv:
        return None
    found = _shim_or_script(argv[0], env, cwd, argv[1:])
    return found if found is None or isinstance(found, Shim) else found[0]


def sandbox_startup_hint(
    argv: Sequence[str], env: Mapping[str, str] | None = None, cwd: Path | None = None
) -> str:
    """The sentence to add (no line end, no capital) when the sandboxed bot ``argv`` ended
    before it answered ``hello``: the sandbox may be why, what it shows, ``--sandbox none`` to
    check, and the fix; for a version manager's shim, what its manager said. ``env`` and ``cwd``
    are the bot's (default: ours)."""
    env = env if env is not None else {"PATH": os.environ.get("PATH", os.defpath)}
    shim = find_shim(argv, env, cwd or Path.cwd())
    if shim is not None:
        real, why = shim.which()
        if real is None:
            return (
                f"the sandbox may be why: {shim.name!r} is a {shim.kind} shim ({shim.path}), "
                f"which runs {shim.kind}'s own files, not shown in the sandbox, and "
                f"`{shim.question}` did not say what it runs ({why}); if the bot starts with "
                f"--sandbox none, give the absolute path of the program instead of "
                f"{shim.name!r} in its command"
            )
        ran = f"{shim.name!r}, a {shim.kind} shim, ran as {real}; "
    else:
        ran = ""
    return (
        f"the sandbox may be why: {ran}it shows a bot, read-only, only the system, this Python, "
        "the program, interpreter and files its command names (with their directories), its cwd "
        "and its PYTHONPATH; if the bot starts with --sandbox none, name what it needs in its "
        "command (the interpreter's absolute path, its files) or keep its files beside its "
        "script or in its cwd (`cwd` in a bots file)"
    )


INTERPRETERS: Final = {
    ".py": "python3",
    ".js": "node",
    ".mjs": "node",
    ".cjs": "node",
    ".rb": "ruby",
    ".pl": "perl",
    ".php": "php",
    ".lua": "lua",
    ".jl": "julia",
    ".r": "Rscript",
    ".sh": "sh",
    ".bash": "bash",
}
"""The interpreter a script is run with, by its suffix (lower case), for the hints below."""


def program_hint(program: str, path: Path, by_path: str | None = None) -> str | None:
    """Why the file at ``path``, named ``program`` in a bot's command, cannot be run as a
    program, and what to do instead (a sentence without a capital or a full stop): it is a
    directory, it is not executable, or it is a script without a ``#!`` line, which the system
    cannot run; None when it can be run, or is not there. ``by_path``: how to name it as a
    program, when ``program`` does not (a bare name, which is looked up on ``PATH``)."""
    if path.is_dir():
        return f"{program} is a directory, not a program"
    try:
        with open(path, "rb") as file:
            head = file.read(_HEAD_BYTES)
    except OSError:
        return None
    executable = os.access(path, os.X_OK)
    script = head.startswith(b"#!")
    if not script and (head.startswith(b"\x7fELF") or b"\0" in head):
        # A compiled program: only the permission can be missing.
        return None if executable else f"{program} is not executable: `chmod +x {program}`"
    interpreter = _interpreter(path, head if script else b"")
    run = f"`{interpreter or 'INTERPRETER'} {program}`"
    named = "" if by_path is None else f" and name it by its path (`{by_path}`)"
    line = f"`#!/usr/bin/env {interpreter}`" if interpreter else "naming its interpreter"
    if script and not executable:
        return (
            f"{program} is not executable: `chmod +x {program}`{named}, or run it with its "
            f"interpreter ({run})"
        )
    if not executable:
        return (
            f"{program} is not executable: run it with its interpreter ({run}), or `chmod +x` "
            f"it, give it a #! line ({line}){named}"
        )
    if not script:
        return (
            f"{program} has no #! line: run it with its interpreter ({run}), or make its first "
            f"line a #! line ({line}){named}"
        )
    return None


def needs_interpreter(path: Path) -> bool:
    """Whether the file at ``path`` is a script without a ``#!`` line (text, not a compiled
    program), which the system cannot run by itself."""
    try:
        with open(path, "rb") as file:
            head = file.read(_HEAD_BYTES)
    except OSError:
        return False
    return bool(head) and not head.startswith((b"#!", b"\x7fELF")) and b"\0" not in head


def missing_program_hint(program: str, env: Mapping[str, str]) -> str | None:
    """For a bare program name that ``env``'s ``PATH`` does not find: the sentence saying so,
    with the nearest names of programs there (a typing mistake: ``pyhton3``), or None when it
    is found or is a path."""
    if "/" in program or shutil.which(program, path=env.get("PATH", os.defpath)):
        return None
    near = nearest_programs(program, env)
    guess = f"; did you mean {' or '.join(map(repr, near))}?" if near else ""
    return f"{program!r} is not a program on PATH{guess}"


def cannot_run(
    argv: Sequence[str], error: OSError, bwrap: str | None, env: Mapping[str, str], cwd: Path
) -> str:
    """What to say when a bot's command (``argv``, with ``env`` in ``cwd``) could not be run,
    or the sandbox (``bwrap``) that runs it: the error, and the likely cause and fix."""
    how = f" (the sandbox {bwrap})" if bwrap and error.filename == bwrap else ""
    why = "" if how else cannot_run_hint(argv[0], env, cwd)
    return f"cannot run {' '.join(argv)!r}{how}: {error.strerror or error}{why}"


def cannot_run_hint(program: str, env: Mapping[str, str], cwd: Path) -> str:
    """What to add to "cannot run COMMAND: ERROR" (from ``"; "``, or nothing) when the program
    of a bot's command cannot be run, with ``env`` in ``cwd``: the likely cause and the fix."""
    if "/" in program:
        path = cwd / program
        shown = os.path.relpath(path)  # to type in the shell gin-arena was run from
        shown = str(path) if shown.startswith("..") else os.path.join(".", shown)
        hint = program_hint(shown, path)
    else:
        hint = missing_program_hint(program, env)
    return f"; {hint}" if hint else ""


def nearest_programs(name: str, env: Mapping[str, str]) -> list[str]:
    """The names of the files on ``env``'s ``PATH`` nearest to ``name`` (at most three, the
    nearest first): what ``name`` may be a typing mistake for."""
    names: set[str] = set()
    for folder in env.get("PATH", os.defpath).split(os.pathsep):
        with contextlib.suppress(OSError):
            names.update(os.listdir(folder or "."))
    return difflib.get_close_matches(name, sorted(names), n=3, cutoff=0.8)


def _interpreter(path: Path, head: bytes) -> str | None:
    """The interpreter of a script: the one its ``#!`` line names, else the one of its suffix."""
    line = head.split(b"\n", 1)[0][2:].decode("utf-8", "replace").split()
    if line:
        return line[1] if Path(line[0]).name == "env" and len(line) > 1 else line[0]
    return INTERPRETERS.get(path.suffix.lower())


def _shim_or_script(
    program: str, env: Mapping[str, str], cwd: Path, args: Sequence[str]
) -> Shim | tuple[Shim, list[str], str] | None:
    """The shim ``program`` is, or (the shim, its arguments, the script) when ``program`` is a
    script whose ``#!`` line runs a shim, or None."""
    path = _locate(program, env, cwd)
    if path is None:
        return None
    head = _head(path)
    shim = _find_shim(path, env, cwd, args, head)
    if shim is not None or head is None:
        return shim
    line = head.split(b"\n", 1)[0][2:].decode("utf-8", "replace").strip()
    interpreter, _, rest = line.replace("\t", " ").partition(" ")
    rest = rest.strip()
    if not interpreter.startswith("/"):
        return None
    script = program if "/" in program else str(path)  # what the kernel passes
    if Path(interpreter).name == "env":
        words = rest.split()
        if len(words) != 1 or words[0].startswith("-") or "=" in words[0]:
            return None
        interpreter, extra = words[0], []
    else:
        extra = [rest] if rest else []  # Linux passes the rest as one argument
    found = _locate(interpreter, env, cwd)
    if found is None:
        return None
    shim = _find_shim(found, env, cwd, [script, *args])
    return None if shim is None else (shim, extra, script)


def _find_shim(
    path: Path,
    env: Mapping[str, str],
    cwd: Path,
    args: Sequence[str],
    head: bytes | None = None,
) -> Shim | None:
    """The shim at ``path`` (as the command names it), run with ``args``, or None."""
    real = Path(os.path.realpath(path))
    ask = dict(env)
    if real.name in _LINKED and path.name != real.name:
        kind = _LINKED[real.name]
        program = real.with_name(kind)
        _default_data_dir(ask, kind, path)
        return Shim(path, str(program) if _runnable(program) else kind, path.name, cwd, ask)
    if head is None:
        head = _head(path)
    if head is None:
        return None
    text = head.decode("utf-8", "replace")
    match = _EXEC.search(text)
    if match is None:
        return None
    manager = match["manager"].strip('"')
    kind = Path(manager).name
    if not _MANAGER.fullmatch(kind):
        return None
    said = match["name"]
    name = path.name if said in _OWN_NAME else said.strip('"')
    if not name or "$" in name or "/" in name:
        return None
    _default_data_dir(ask, kind, path)
    ask.update((m["var"], m["value"]) for m in _EXPORT.finditer(text))
    script = _script_argument(args, cwd)
    if script is not None:
        for m in _DIR_EXPORT.finditer(text):
            ask[m["var"]] = script.rpartition("/")[0]  # ${arg%/*}
        for m in _FILE_EXPORT.finditer(text):
            ask[m["var"]] = script
    if "/" not in manager:
        manager = str(shutil.which(manager, path=env.get("PATH", os.defpath)) or manager)
    return Shim(path, manager, name, cwd, ask)


def _default_data_dir(env: dict[str, str], kind: str, shim: Path) -> None:
    if kind in _DATA_DIR:
        variable, folder = _DATA_DIR[kind]
        if shim.parent.name == folder:
            env.setdefault(variable, str(shim.parent.parent))


def _script_argument(args: Sequence[str], cwd: Path) -> str | None:
    """The script argument the rbenv family's shims look for: the first argument with a ``/``
    that names a file, before ``--``, ``-e...`` or ``-c...``."""
    for arg in args:
        if arg == "--" or arg.startswith(("-e", "-c")):
            return None
        if "/" in arg and (cwd / arg).is_file():
            return arg
    return None


def _locate(program: str, env: Mapping[str, str], cwd: Path) -> Path | None:
    """The file ``program`` names (relative to ``cwd``), or the one the bot's ``PATH`` finds."""
    if "/" in program:
        path = cwd / program
        return path if path.is_file() else None
    found = shutil.which(program, path=env.get("PATH", os.defpath))
    return None if found is None else Path(found)


def _head(path: Path) -> bytes | None:
    """The start of ``path`` when it is a script (``#!``), else None."""
    try:
        with open(path, "rb") as file:
            head = file.read(_HEAD_BYTES)
    except OSError:
        return None
    return head if head.startswith(b"#!") and b"\0" not in head else None


def _runnable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


__all__ = [
    "INTERPRETERS",
    "SHIM_SECONDS",
    "Shim",
    "cannot_run_hint",
    "find_shim",
    "missing_program_hint",
    "nearest_programs",
    "needs_interpreter",
    "program_hint",
    "resolve_command",
    "sandbox_startup_hint",
]
