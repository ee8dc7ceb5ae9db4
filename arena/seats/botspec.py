"""What the user names as a bot: a built-in bot, an entry of a bots file, or a command line.

A command line is split the way a shell would split it (:func:`shlex.split`) and never run through
a shell. A bots file is TOML::

    [[bot]]
    name = "mybot"
    command = "./mybot --level 3"      # or a list: ["./mybot", "--level", "3"]; or a built-in
                                       # bot's name: "greedy"
    cwd = "bots/mybot"                 # optional, relative to the bots file
    env = { MYBOT_DEPTH = "4" }        # optional, added to the minimal environment
"""

from __future__ import annotations

import difflib
import importlib
import os
import shlex
import shutil
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import bots
from arena.errors import ArenaError
from arena.seats.connection import Connection, InProcessConnection
from arena.seats.launch import python_command
from arena.seats.process import QUIT_WAIT_SECONDS, ProcessConnection
from arena.seats.programs import nearest_programs, program_hint
from arena.seats.walls.sandbox import Sandbox
from bots import BUILTIN
from bots.sdk import Bot


class BotSpecError(ArenaError, ValueError):
    """A bot name, command or bots file that cannot be used."""


@dataclass(frozen=True, slots=True)
class Launch:
    """How bot processes are run: built-in bots in this process or not, the limits of each
    process, its sandbox, the paths no bot may see, and the time a bot has to quit."""

    in_process: bool = True
    memory_mb: int | None = None
    cpu_seconds: int | None = None
    pids: int | None = None
    sandbox: Sandbox | None = None
    hidden: tuple[Path, ...] = ()
    """Files and directories hidden from sandboxed bots (the database, the record)."""
    quit_wait: float = QUIT_WAIT_SECONDS


@dataclass(frozen=True, slots=True)
class BotSpec:
    """How to run one bot. ``builtin`` names a built-in bot (run in-process unless asked not to)."""

    name: str
    command: tuple[str, ...] = ()
    builtin: str | None = None
    cwd: Path | None = None
    env: Mapping[str, str] = field(default_factory=dict)

    @property
    def command_line(self) -> str:
        if self.builtin is not None:
            return f"builtin:{self.builtin}"
        return shlex.join(self.command)

    def connect(
        self, workdir: Path, launch: Launch = Launch(), display_name: str | None = None
    ) -> Connection:
        """A fresh, unstarted connection to this bot (logs and scratch space under ``workdir``)."""
        name = display_name or self.name
        if self.builtin is not None and launch.in_process:
            return InProcessConnection(name, builtin_factory(self.builtin))
        env = dict(self.env)
        if self.builtin is None:
            argv = list(self.command)
        else:
            argv = python_command(f"bots.{self.builtin}")
            # The bot runs in a directory of its own: point it at the package it comes from.
            source = str(Path(bots.__file__).resolve().parent.parent)
            env["PYTHONPATH"] = os.pathsep.join(
                p for p in (source, os.environ.get("PYTHONPATH", "")) if p
            )
        safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)
        return ProcessConnection(
            name,
            argv,
            # A working directory of this process's own: a tournament's workers start the same
            # bot at once, and each empties its bot's directory first (beside the logs, which
            # they share: the sandbox hides that folder but for the bot's own directory).
            workdir=workdir / f"{safe}.{os.getpid()}",
            log_path=workdir / f"{safe}.stderr.log",
            env=env,
            cwd=self.cwd,
            memory_mb=launch.memory_mb,
            cpu_seconds=launch.cpu_seconds,
            pids=launch.pids,
            sandbox=launch.sandbox,
            hidden=launch.hidden,
            quit_wait=launch.quit_wait,
        )


def builtin_factory(name: str) -> Callable[[], Bot]:
    """The class of a built-in bot, by name."""
    try:
        module_name, class_name = BUILTIN[name].split(":")
    except KeyError:
        raise BotSpecError(
            f"unknown built-in bot {name!r}: the built-in bots are {', '.join(BUILTIN)}"
        ) from None
    factory: Callable[[], Bot] = getattr(importlib.import_module(module_name), class_name)
    return factory


def _toml_hint(error: ValueError) -> str:
    """What a TOML error most likely means, where tomllib's words do not say it."""
    if "Illegal character '\\n'" in str(error):
        return (
            ": an unterminated string? a quoted string must close on its own line (a command "
            "line of several lines is a list of strings)"
        )
    return ""


def load_bots_file(path: Path) -> dict[str, BotSpec]:
    """The bots of a TOML bots file, by name."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise BotSpecError(f"cannot read bots file {str(path)!r}: {error.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise BotSpecError(
            f"bots file {str(path)!r} is not valid TOML: {error}{_toml_hint(error)}"
        ) from None
    entries = data.get("bot")
    if not isinstance(entries, list) or not entries:
        raise BotSpecError(f"bots file {str(path)!r} has no [[bot]] entries")
    specs: dict[str, BotSpec] = {}
    for index, entry in enumerate(entries, 1):
        where = f"bots file {str(path)!r}, bot #{index}"
        if not isinstance(entry, dict):
            raise BotSpecError(f"{where}: expected a table")
        unknown = set(entry) - {"name", "command", "cwd", "env"}
        if unknown:
            raise BotSpecError(
                f"{where}: unknown key {sorted(unknown)[0]!r} (name, command, cwd, env)"
            )
        name = entry.get("name")
        if not isinstance(name, str) or not name.strip():
            raise BotSpecError(f"{where}: 'name' must be a non-empty string")
        if name in specs:
            raise BotSpecError(f"{where}: duplicate bot name {name!r}")
        command = entry.get("command")
        if isinstance(command, str) and command.strip() in BUILTIN:
            argv = []  # a built-in bot, by name
        elif isinstance(command, str):
            argv = _split(command, f"{where} ({name})")
        elif isinstance(command, list) and command and all(isinstance(a, str) for a in command):
            argv = list(command)
        else:
            raise BotSpecError(f"{where} ({name}): 'command' must be a string or a list of strings")
        cwd = entry.get("cwd")
        if cwd is not None and not isinstance(cwd, str):
            raise BotSpecError(f"{where} ({name}): 'cwd' must be a string")
        env = entry.get("env", {})
        if not isinstance(env, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in env.items()
        ):
            raise BotSpecError(f"{where} ({name}): 'env' must be a table of strings")
        if not argv:
            if cwd is not None:
                raise BotSpecError(f"{where} ({name}): a built-in bot has no 'cwd'")
            specs[name] = BotSpec(name, builtin=str(command).strip(), env=dict(env))
            continue
        base = path.parent
        workdir = (base / cwd).resolve() if cwd else None
        if workdir is not None and not workdir.is_dir():
            raise BotSpecError(
                f"{where} ({name}): working directory {str(workdir)!r} does not exist"
            )
        specs[name] = BotSpec(
            name, tuple(_absolute(argv, workdir or base)), None, workdir, dict(env)
        )
    return specs


def _split(command: str, where: str) -> list[str]:
    try:
        argv = shlex.split(command)
    except ValueError as error:
        raise BotSpecError(f"{where}: cannot split command {command!r}: {error}") from None
    if not argv:
        raise BotSpecError(f"{where}: empty command")
    return argv


def _absolute(argv: list[str], base: Path) -> list[str]:
    """Make relative paths absolute, so that the command works from the bot's own working
    directory: the program when it is a path (``./bot``), and every argument that names an
    existing file relative to ``base`` (``python3 mybot.py``, ``node bots/ginbot.js``)."""
    program, *args = argv
    if "/" in program and not Path(program).is_absolute():
        # Symbolic links kept: a virtual environment's python is a link to the interpreter it
        # was made from, and run by its own path it is the environment's.
        program = os.path.abspath(base / program)
    out = [program]
    for arg in args:
        if not arg.startswith("-") and not Path(arg).is_absolute() and (base / arg).is_file():
            arg = str((base / arg).resolve())
        out.append(arg)
    return out


def _default_name(argv: Sequence[str]) -> str:
    """A bot's name from its command: the first file it runs (``mybot`` for ``python3 mybot.py``),
    else the program's name."""
    for arg in argv[1:]:
        if Path(arg).is_absolute() and Path(arg).is_file():
            return Path(arg).stem
    return Path(argv[0]).name


def resolve(
    text: str, known: Mapping[str, BotSpec] | None = None, name: str | None = None
) -> BotSpec:
    """A bot given on the command line: a bots-file name, a built-in name, or a command."""
    if known and text in known:
        spec = known[text]
        return (
            spec if name is None else BotSpec(name, spec.command, spec.builtin, spec.cwd, spec.env)
        )
    if text in BUILTIN:
        return BotSpec(name or text, builtin=text)
    argv = _split(text, "bot command")
    _check_program(text, argv[0], single=len(argv) == 1, known=known or {})
    argv = _absolute(argv, Path.cwd())
    return BotSpec(name or _default_name(argv), tuple(argv))


def _check_program(text: str, program: str, single: bool, known: Mapping[str, BotSpec]) -> None:
    """Refuse a command whose program is a bare name that ``PATH`` does not find (the bot's
    ``PATH`` is ours), saying the likely cause: a file here of that name, which is not run by a
    bare name and may not be runnable at all (not executable, no ``#!`` line); or, for a single
    word, a mistyped bot name, with the nearest names. Anything else is left for the start to
    report (a path that does not exist may exist where the bot runs)."""
    if "/" in program or shutil.which(program, path=os.environ.get("PATH", os.defpath)):
        return
    here = Path.cwd() / program
    if here.exists():
        hint = program_hint(program, here, by_path=f"./{program}")
        raise BotSpecError(
            f"cannot run {text!r}: "
            + (hint or f"{program} is not a program on PATH: name it by its path (`./{program}`)")
        )
    if not single:
        return  # the start says so, with the nearest programs on PATH
    near = difflib.get_close_matches(program, [*BUILTIN, *known], n=3, cutoff=0.6)
    near = near or nearest_programs(program, os.environ)
    guess = (
        f"; did you mean {' or '.join(map(repr, near))}?"
        if near
        else f" (the built-in bots: {', '.join(BUILTIN)})"
    )
    raise BotSpecError(
        f"unknown bot {text!r}: not a built-in bot, a bots-file entry, a file or a program on "
        f"PATH{guess}"
    )
