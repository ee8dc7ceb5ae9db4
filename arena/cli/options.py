"""Command-line options shared by several commands (``match``, ``tournament``, ``check-bot``):
the rules, the time control, the limits of a bot process and its sandbox.

Each ``add_*`` function declares a group of options on a parser; each ``*_from`` function takes
the parsed values (never the whole namespace) and returns the domain object, raising
:class:`ValueError` with a message that names the option (``gin-arena`` prints it as a usage
error). The ``type=`` converters reject a bad value while parsing, so the error names the option
the way argparse does.
"""

from __future__ import annotations

import argparse
import math
import secrets
import sys
from collections.abc import Iterable
from pathlib import Path

from arena.play.referee import GRACE_SECONDS, QUIT_SECONDS, Clock
from arena.seats import limits
from arena.seats.botspec import BotSpec
from arena.seats.sandbox import SANDBOX_MODES, Sandbox, resolve_sandbox, sandbox_warning
from engine.formats import check_rules
from engine.modes import Mode
from engine.rules import PRESETS, Rules, option_names, parse_option


def positive_int(text: str) -> int:
    """An integer of at least 1 (``--memory-mb``, ``--cpu-seconds``, ``--concurrency``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def seconds(text: str) -> float:
    """A finite, non-negative number of seconds, at most :attr:`Clock.LIMIT`."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not math.isfinite(value) or not 0 <= value <= Clock.LIMIT:
        raise argparse.ArgumentTypeError(
            f"expected seconds from 0 to {Clock.LIMIT:.0f} (a day), got {text!r}"
        )
    return value


def seed_from(seed: int | None) -> int:
    """The deals' seed: ``--seed`` checked, or a random one when it is not given."""
    if seed is None:
        return secrets.randbits(63)
    if not 0 <= seed < 2**64:
        raise ValueError(f"bad seed {seed}: a seed is an integer from 0 to 2**64 - 1")
    return seed


def add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rules",
        default="hoyle",
        metavar="PRESET",
        help=f"rules preset: {', '.join(PRESETS)} (default hoyle; docs/RULES.md, Presets)",
    )
    parser.add_argument(
        "--set",
        dest="options",
        action="append",
        default=[],
        metavar="OPTION=VALUE",
        help="change one rules option (repeatable), e.g. --set knock_limit=7; the options: "
        f"{', '.join(option_names())} (docs/RULES.md, Options)",
    )


def rules_from(preset: str, options: Iterable[str]) -> Rules:
    """The rules of ``--rules PRESET`` with each ``--set OPTION=VALUE`` applied."""
    return Rules.preset(preset).with_options(dict(parse_option(text) for text in options))


def add_clock_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--move-time", type=seconds, default=1.0, help="seconds per move (default 1)"
    )
    parser.add_argument(
        "--time-bank", type=seconds, default=0.0, help="extra seconds per game (default 0)"
    )
    parser.add_argument(
        "--grace",
        type=seconds,
        default=GRACE_SECONDS,
        help=f"transport margin per move, never charged (default {GRACE_SECONDS})",
    )
    parser.add_argument(
        "--startup-time",
        type=seconds,
        default=10.0,
        help="seconds for the handshake (default 10)",
    )
    parser.add_argument(
        "--quit-time",
        type=seconds,
        default=QUIT_SECONDS,
        help="seconds a bot has to exit after quit before its processes are killed "
        f"(default {QUIT_SECONDS:g})",
    )


def add_process_arguments(parser: argparse.ArgumentParser, logs: bool = True) -> None:
    """The limits and sandbox of each bot process, and (with ``logs``) where their logs go."""
    parser.add_argument(
        "--sandbox",
        choices=SANDBOX_MODES,
        default=None,
        help="isolate each bot process with bubblewrap: auto (default: when bwrap is "
        "installed), bwrap (required), none",
    )
    parser.add_argument(
        "--memory-mb",
        type=positive_int,
        help=f"memory of each bot, all its processes and its /tmp together (MiB; default "
        f"{limits.MEMORY_MB}); without control groups, the address space of each process "
        "(default: none)",
    )
    parser.add_argument(
        "--cpu-seconds",
        type=positive_int,
        help="CPU time of each bot process, all its children together where control groups "
        "are available (seconds), over all the games it plays (in a tournament, see --restart)",
    )
    parser.add_argument(
        "--pids",
        type=positive_int,
        help=f"processes and threads each bot may run at once (default {limits.PIDS}; needs "
        "control groups)",
    )
    if logs:
        parser.add_argument(
            "--logs", type=Path, help="keep the bots' stderr logs in this directory"
        )


def sandbox_from(mode: str | None, bots: Iterable[BotSpec], in_process: bool) -> Sandbox | None:
    """The sandbox for ``--sandbox`` (default ``auto``). With ``auto`` and no usable bubblewrap,
    print one warning line on stderr, but only when some bot will run as a process; with a
    sandbox asked for and no bot to run as a process, one note line saying it isolates nothing."""
    sandbox = resolve_sandbox(mode or "auto")
    processes = any(spec.builtin is None or not in_process for spec in bots)
    if sandbox is None and (mode or "auto") == "auto" and processes:
        print(sandbox_warning(), file=sys.stderr)
    if sandbox is not None and mode is not None and not processes:
        print(
            "note: no bot runs as a process here: the sandbox applies to bot processes only "
            "(--subprocess, where a command has it, runs built-in bots as processes)",
            file=sys.stderr,
        )
    why = limits.unavailable()
    if processes and why is not None:
        print(limits_warning(why), file=sys.stderr)
    return sandbox


def limits_warning(why: str) -> str:
    """The one line to print when bots get no control groups here (no line end)."""
    return (
        f"warning: bot limits are per process, not per bot ({why}): --memory-mb bounds each "
        "process's address space, --cpu-seconds each process's CPU time, --pids and stopping "
        "bots between their moves are not available; run as root, or in a delegated cgroup v2 "
        "subtree, for limits per bot"
    )


def logs_from(logs: Path | None) -> Path | None:
    """The ``--logs`` directory, created if needed; a file there is an error."""
    if logs is None:
        return None
    if logs.exists() and not logs.is_dir():
        raise ValueError(f"--logs {str(logs)!r} is a file: give a directory for the bots' logs")
    try:
        logs.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ValueError(f"cannot create --logs {str(logs)!r}: {error.strerror}") from None
    return logs


__all__ = [
    "add_clock_arguments",
    "add_process_arguments",
    "add_rules_arguments",
    "logs_from",
    "positive_int",
    "rules_from",
    "sandbox_from",
    "seconds",
    "seed_from",
]


def add_mode_argument(
    parser: argparse.ArgumentParser, required_of: str = "", help: str = ""
) -> None:
    """``--mode``: the format to play (``help`` replaces the match's wording), or
    (``required_of``) the format a record must be in."""
    if required_of:
        parser.add_argument(
            "--mode",
            default=None,
            choices=[m.value for m in Mode],
            help=f"the format {required_of} must be in (default: any)",
        )
        return
    parser.add_argument(
        "--mode",
        default=Mode.TWO_PLAYER.value,
        choices=[m.value for m in Mode],
        help=help
        or "the format: two-player (default), hollywood (two bots, three games scored at once), "
        "three-player (three bots) or partnership (four bots: the first and third against the "
        "second and fourth); docs/RULES.md R23-R25",
    )


def mode_from(text: str, bots: int, rules: Rules, single_hands: bool = False) -> Mode:
    """The ``--mode``, checked against the number of bots given, the rules and ``--hands``."""
    mode = Mode.parse(text)
    if bots != mode.players:
        raise ValueError(
            f"--mode {mode} takes {mode.players} bots, got {bots}: name one bot per player"
        )
    if single_hands and mode is not Mode.TWO_PLAYER:
        raise ValueError(f"--hands does not apply to --mode {mode}: it plays whole games (--games)")
    check_rules(mode, rules)
    return mode
