"""Command-line options shared by several commands, each declared here once: the bots (``--bot``,
``--bots``), the concurrency (``--concurrency``, ``--oversubscribe``), the seed, the rules
(``--rules``, ``--set``, ``--mode``), the clock, the sandbox, the limits of a bot process, the
logs (``--logs``, ``--log-wire``), ``--subprocess`` and the standings (``--anchor``,
``--format``). A command offers a family by calling its ``add_*`` function, never by declaring
one of these options itself: ``tests/arena/cli/test_options.py`` fails when two commands offer an
option with other spellings, help, default, type or choices.

An option whose value a resumed run keeps (``tournament --resume``, ``sprt --resume``) must tell
"not given" from its default, so the clock and the rules default to None everywhere and the
``*_from`` functions fill in the defaults the help names; ``*_given`` functions return only what
was given. Each ``*_from`` or ``*_given`` function takes the parsed values (the clock and the
limits, with a handful of values each, read their own attributes of the namespace) and returns
the domain object, raising :class:`ValueError` with a message that names the option
(``gin-arena`` prints it as a usage error). The ``type=`` converters reject a bad value while
parsing, so the error names the option the way argparse does.
"""

from __future__ import annotations

import argparse
import math
import os
import secrets
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from arena.play.referee import GRACE_SECONDS, QUIT_SECONDS, Clock
from arena.seats import wire
from arena.seats.botspec import BotSpec, BotSpecError, load_bots_file, resolve
from arena.seats.walls import limits
from arena.seats.walls.sandbox import (
    SANDBOX_MODES,
    Sandbox,
    SandboxError,
    resolve_sandbox,
    sandbox_warning,
    unsandboxed_root,
)
from arena.tournament.standings import FORMATS
from engine.formats import TWO_PLAYER, Format, check_rules, format_named
from engine.modes import FormatError
from engine.rules import PRESETS, Rules, option_names, parse_option

# -- value types ---------------------------------------------------------------------------------


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


# -- bots: --bot, --bots -------------------------------------------------------------------------


def add_bot_argument(parser: argparse.ArgumentParser) -> None:
    """``--bot NAME=COMMAND`` (repeatable): the bots of a command that plays a list of them."""
    parser.add_argument(
        "--bot",
        action="append",
        metavar="NAME=COMMAND",
        help="a bot: a name and a command line or built-in bot name (repeatable)",
    )


def add_bots_file_argument(parser: argparse.ArgumentParser) -> None:
    """``--bots FILE``: a TOML bots file."""
    parser.add_argument(
        "--bots",
        type=Path,
        metavar="FILE",
        help='a TOML bots file (README.md, "Bots files"): a bot named on the command line is '
        "looked up in it; a tournament plays every bot in it",
    )


def bots_file_from(path: Path | None) -> dict[str, BotSpec]:
    """The bots of ``--bots FILE`` by name (none without it)."""
    return load_bots_file(path) if path is not None else {}


def bot_options_from(texts: Iterable[str] | None) -> tuple[BotSpec, ...]:
    """The bots of the ``--bot NAME=COMMAND`` options, in order."""
    specs: list[BotSpec] = []
    for text in texts or []:
        name, sep, command = text.partition("=")
        if not sep or not name.strip() or not command.strip():
            raise BotSpecError(f"bad --bot {text!r}: write NAME=COMMAND, e.g. mine='./mybot'")
        specs.append(resolve(command.strip(), name=name.strip()))
    return tuple(specs)


# -- concurrency: --concurrency (alias --jobs), --oversubscribe ---------------------------------


def add_concurrency_arguments(parser: argparse.ArgumentParser) -> None:
    """``--concurrency N`` (``--jobs N``, its old name in ``ab``) and ``--oversubscribe``; check
    them with :func:`check_concurrency`."""
    parser.add_argument(
        "--concurrency",
        "--jobs",
        dest="concurrency",
        type=positive_int,
        default=os.cpu_count() or 1,
        metavar="N",
        help="worker processes playing at once (default and most: the number of cores; more "
        "with --oversubscribe)",
    )
    parser.add_argument(
        "--oversubscribe",
        action="store_true",
        help="allow --concurrency above the number of cores (bots then compete for the CPU "
        "and lose games on time that they would not lose alone)",
    )


def check_concurrency(concurrency: int, oversubscribe: bool) -> None:
    """Refuse more workers than cores, unless ``--oversubscribe``."""
    cores = os.cpu_count() or 1
    if concurrency > cores and not oversubscribe:
        raise ValueError(
            f"--concurrency {concurrency} is more than the {cores} cores of this machine: "
            "bots would compete for the CPU and lose games on time; use at most "
            f"--concurrency {cores}, or add --oversubscribe to run that many anyway"
        )


# -- seed ----------------------------------------------------------------------------------------


def add_title_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--title",
        metavar="TEXT",
        help="the page's title and heading (default: the command's name and the file's name)",
    )


def title_from(title: str | None) -> str | None:
    """``--title`` checked: None when it is not given, never empty."""
    if title is not None and not title.strip():
        raise ValueError("--title is empty: give the page a title, or leave --title out")
    return title


def add_seed_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--seed",
        type=int,
        help="the deals' seed, an integer from 0 to 2**64 - 1 (default: a random one); the "
        "same seed deals the same cards, and a seed given here makes every deal predictable "
        "to anyone who knows it",
    )


def seed_given(seed: int | None) -> int | None:
    """``--seed`` checked; None when it is not given."""
    if seed is not None and not 0 <= seed < 2**64:
        raise ValueError(f"bad seed {seed}: a seed is an integer from 0 to 2**64 - 1")
    return seed


def seed_from(seed: int | None) -> int:
    """The deals' seed: ``--seed`` checked, or a random one when it is not given."""
    given = seed_given(seed)
    return secrets.randbits(63) if given is None else given


# -- rules: --rules, --set, --mode ---------------------------------------------------------------

DEFAULT_PRESET: Final = "hoyle"


def add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rules",
        metavar="PRESET",
        help=f"rules preset: {', '.join(PRESETS)} (default hoyle; docs/RULES.md, Presets)",
    )
    parser.add_argument(
        "--set",
        dest="options",
        action="append",
        metavar="OPTION=VALUE",
        help="change one rules option (repeatable), e.g. --set knock_limit=7; the options: "
        f"{', '.join(option_names())} (docs/RULES.md, Options)",
    )


def rules_from(preset: str | None, options: Iterable[str] | None) -> Rules:
    """The rules of ``--rules PRESET`` (default hoyle) with each ``--set OPTION=VALUE`` applied."""
    return Rules.preset(preset or DEFAULT_PRESET).with_options(
        dict(parse_option(text) for text in options or ())
    )


def rules_given(preset: str | None, options: Iterable[str] | None) -> Rules | None:
    """The rules as :func:`rules_from`, or None when neither ``--rules`` nor ``--set`` is given."""
    if preset is None and options is None:
        return None
    return rules_from(preset, options)


MODE_METAVAR = "FORMAT"
"""``--mode``'s placeholder: the formats themselves are listed in its help, where they wrap by
words (the list in braces argparse would print is one word, wider than 80 columns)."""


def format_argument(text: str) -> Format:
    """A ``--mode`` value: a built-in format, or ``MODULE:FORMAT``, a :class:`Format` of one's own
    (its module imported: the user named it)."""
    try:
        return format_named(text, load=True)
    except FormatError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_mode_argument(parser: argparse.ArgumentParser) -> None:
    """``--mode``: the format to play (default two-player; see :func:`mode_from`)."""
    parser.add_argument(
        "--mode",
        type=format_argument,
        metavar=MODE_METAVAR,
        help="the format: two-player (default), hollywood (two bots a game, three games scored "
        "at once), three-player (three bots a game) or partnership (two teams of two a game; "
        "in a match, the first and third bots against the second and fourth); docs/RULES.md "
        "R23-R25; or MODULE:FORMAT, a format of your own (engine.formats.Format)",
    )


def add_mode_filter_argument(parser: argparse.ArgumentParser, required_of: str) -> None:
    """``--mode`` of a command that reads records (``judge``): the format ``required_of`` must be
    in. Another option than the format to play, under the same name."""
    parser.add_argument(
        "--mode",
        default=None,
        type=format_argument,
        metavar=MODE_METAVAR,
        help=f"the format {required_of} must be in (default: any)",
    )


def mode_from(given: Format | None, bots: int, rules: Rules, single_hands: bool = False) -> Format:
    """The ``--mode`` (default two-player), checked against the number of bots given, the rules
    and ``--hands``."""
    mode = TWO_PLAYER if given is None else given
    if bots != mode.players:
        raise ValueError(
            f"--mode {mode} takes {mode.players} bots, got {bots}: name one bot per player"
        )
    if single_hands and not mode.single_hands:
        raise ValueError(f"--hands does not apply to --mode {mode}: it plays whole games (--games)")
    check_rules(mode, rules)
    return mode


# -- clock ---------------------------------------------------------------------------------------

CLOCK_OPTIONS: Final = (
    ("move_time", "move"),
    ("time_bank", "bank"),
    ("grace", "grace"),
    ("startup_time", "startup"),
    ("quit_time", "quit"),
)
"""Each clock option's attribute in the parsed arguments and the :class:`Clock` field it sets."""


def add_clock_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--move-time", type=seconds, help="seconds per move (default 1)")
    parser.add_argument("--time-bank", type=seconds, help="extra seconds per game (default 0)")
    parser.add_argument(
        "--grace",
        type=seconds,
        help=f"transport margin per move, never charged (default {GRACE_SECONDS})",
    )
    parser.add_argument(
        "--startup-time", type=seconds, help="seconds for the handshake (default 10)"
    )
    parser.add_argument(
        "--quit-time",
        type=seconds,
        help="seconds a bot has to exit after quit before its processes are killed "
        f"(default {QUIT_SECONDS:g})",
    )


def clock_given(args: argparse.Namespace) -> dict[str, float]:
    """The clock options given, by :class:`Clock` field (what a resumed run may only repeat)."""
    values = {field: getattr(args, dest) for dest, field in CLOCK_OPTIONS}
    return {field: value for field, value in values.items() if value is not None}


def clock_from(args: argparse.Namespace) -> Clock:
    """The time control of the clock options, the defaults for those not given."""
    return Clock(**clock_given(args))


# -- sandbox and limits --------------------------------------------------------------------------


def add_sandbox_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sandbox",
        choices=SANDBOX_MODES,
        default=None,
        help="isolate each bot process with bubblewrap: auto (default: when bwrap is "
        "installed), bwrap (required), none",
    )


def sandbox_from(mode: str | None, bots: Iterable[BotSpec], in_process: bool) -> Sandbox | None:
    """The sandbox for ``--sandbox`` (default ``auto``). With ``auto`` and no usable bubblewrap,
    print one warning line on stderr, but only when some bot will run as a process (as root,
    refuse instead, with :class:`SandboxError`: a bot outside the sandbox would be root); with a
    sandbox asked for and no bot to run as a process, one note line saying it isolates nothing."""
    sandbox = resolve_sandbox(mode or "auto")
    processes = any(spec.builtin is None or not in_process for spec in bots)
    if sandbox is None and (mode or "auto") == "auto" and processes:
        if os.geteuid() == 0:
            raise SandboxError(unsandboxed_root())
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


LIMIT_OPTIONS: Final = ("memory_mb", "cpu_seconds", "pids")
"""The limits' attributes in the parsed arguments, named as the fields they set."""


def add_limits_arguments(parser: argparse.ArgumentParser) -> None:
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


def limits_given(args: argparse.Namespace) -> dict[str, int]:
    """The limits given, by field name (``memory_mb``, ``cpu_seconds``, ``pids``)."""
    values = {name: getattr(args, name) for name in LIMIT_OPTIONS}
    return {name: value for name, value in values.items() if value is not None}


def limits_warning(why: str) -> str:
    """The one line to print when bots get no control groups here (no line end)."""
    return (
        f"warning: bot limits are per process, not per bot ({why}): --memory-mb bounds each "
        "process's address space, --cpu-seconds each process's CPU time, --pids and stopping "
        "bots between their moves are not available, and what a bot brings into the kernel's "
        "caches is not evicted after it, so a mirrored deal's seatings may share it; run as "
        "root, or in a delegated cgroup v2 subtree, for limits per bot"
    )


def add_process_arguments(parser: argparse.ArgumentParser) -> None:
    """The sandbox and the limits of each bot process."""
    add_sandbox_argument(parser)
    add_limits_arguments(parser)


def add_subprocess_argument(parser: argparse.ArgumentParser) -> None:
    """``--subprocess``: True when given, else None (a resumed tournament keeps its own)."""
    parser.add_argument(
        "--subprocess",
        action="store_const",
        const=True,
        help="run built-in bots as subprocesses too",
    )


# -- logs: --logs, --log-wire --------------------------------------------------------------------


def add_logs_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--logs", type=Path, help="keep the bots' stderr logs in this directory")


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


def add_wire_argument(parser: argparse.ArgumentParser) -> None:
    """``--log-wire FILE`` (:func:`arena.seats.wire.add_wire_argument`; pass its value to
    :func:`arena.seats.wire.enable`)."""
    wire.add_wire_argument(parser)


# -- standings: --anchor, --format ---------------------------------------------------------------


def add_standings_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--anchor", help="rate this bot 0 (default: the mean is 0)")
    parser.add_argument(
        "--format", choices=FORMATS, default="table", help="standings format (default table)"
    )


__all__ = [
    "CLOCK_OPTIONS",
    "DEFAULT_PRESET",
    "LIMIT_OPTIONS",
    "add_bot_argument",
    "add_bots_file_argument",
    "add_clock_arguments",
    "add_concurrency_arguments",
    "add_limits_arguments",
    "add_logs_argument",
    "add_mode_argument",
    "add_mode_filter_argument",
    "add_process_arguments",
    "add_rules_arguments",
    "add_sandbox_argument",
    "add_seed_argument",
    "add_standings_arguments",
    "add_subprocess_argument",
    "add_wire_argument",
    "bot_options_from",
    "bots_file_from",
    "check_concurrency",
    "clock_from",
    "clock_given",
    "limits_given",
    "limits_warning",
    "logs_from",
    "mode_from",
    "positive_int",
    "rules_from",
    "rules_given",
    "sandbox_from",
    "seconds",
    "seed_from",
    "seed_given",
]
