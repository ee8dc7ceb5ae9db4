"""``gin-arena match``: games between two bots, a readable summary or one JSON object."""

from __future__ import annotations

import argparse
import json
import secrets
import sys
from pathlib import Path

from arena.botspec import BotSpec, load_bots_file, resolve
from arena.match import GameReport, Match, MatchError, MatchResult
from arena.referee import GRACE_SECONDS, Clock
from bots import BUILTIN
from engine.rules import Rules, parse_option

HELP = "play games between two bots and summarise the result"
DESCRIPTION = f"""\
Play games between two bots and print a summary (or, with --json, one JSON object).

A bot is the name of a built-in bot ({", ".join(BUILTIN)}), the name of an entry of the
--bots file, or a command line (split like a shell would, never run through a shell), e.g.
"python3 mybot.py --level 2". Built-in bots run in this process unless --subprocess is given.

examples:
  gin-arena match greedy random --games 20 --mirror
  gin-arena match greedy "python3 mybot.py" --hands 200 --mirror --seed 7 --record games.jsonl
  gin-arena match greedy random --rules oklahoma --set undercut_bonus=25 --json

A bot that fails (timeout, crash, malformed output, protocol violation, illegal action) forfeits
the game and is restarted for the next one; a bot that cannot start stops the match (exit 1).
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bot_a", metavar="BOT_A", help="the first bot")
    parser.add_argument("bot_b", metavar="BOT_B", help="the second bot")
    count = parser.add_mutually_exclusive_group()
    count.add_argument("--games", type=int, default=None, help="games to play (default 2)")
    count.add_argument(
        "--hands", type=int, default=None, help="play this many single hands instead of games"
    )
    parser.add_argument("--seed", type=int, default=None, help="match seed (default: random)")
    add_rules_arguments(parser)
    add_clock_arguments(parser)
    parser.add_argument(
        "--mirror", action="store_true", help="play every deal twice, the bots swapping seats"
    )
    parser.add_argument("--record", type=Path, help="write the game records to this JSONL file")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--bots", type=Path, help="a TOML bots file (name, command, cwd, env)")
    parser.add_argument(
        "--subprocess", action="store_true", help="run built-in bots as subprocesses too"
    )
    parser.add_argument("--logs", type=Path, help="keep bot stderr logs in this directory")
    parser.add_argument("--memory-mb", type=int, help="address-space limit per bot process")
    parser.add_argument("--cpu-seconds", type=int, help="CPU-time limit per bot process")


def add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rules", default="hoyle", help="rules preset (default hoyle)")
    parser.add_argument(
        "--set",
        dest="options",
        action="append",
        default=[],
        metavar="OPTION=VALUE",
        help="change one rules option (repeatable), e.g. --set knock_limit=7",
    )


def add_clock_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--move-time", type=float, default=1.0, help="seconds per move (default 1)")
    parser.add_argument(
        "--time-bank", type=float, default=0.0, help="extra seconds per game (default 0)"
    )
    parser.add_argument(
        "--grace",
        type=float,
        default=GRACE_SECONDS,
        help=f"transport margin per move, never charged (default {GRACE_SECONDS})",
    )
    parser.add_argument(
        "--startup-time", type=float, default=10.0, help="seconds for the handshake (default 10)"
    )


def rules_from(args: argparse.Namespace) -> Rules:
    options = dict(parse_option(text) for text in args.options)
    return Rules.preset(args.rules).with_options(options)


def clock_from(args: argparse.Namespace) -> Clock:
    return Clock(
        move=args.move_time, bank=args.time_bank, grace=args.grace, startup=args.startup_time
    )


def bot_specs(args: argparse.Namespace) -> tuple[BotSpec, BotSpec]:
    known = load_bots_file(args.bots) if args.bots else {}
    return resolve(args.bot_a, known), resolve(args.bot_b, known)


def run(args: argparse.Namespace) -> int:
    rules = rules_from(args)
    clock = clock_from(args)
    count = args.hands if args.hands is not None else (args.games if args.games is not None else 2)
    if count < 1:
        unit = "hands" if args.hands is not None else "games"
        raise ValueError(f"the number of {unit} must be at least 1")
    seed = args.seed if args.seed is not None else secrets.randbits(63)
    if not 0 <= seed < 2**64:
        raise ValueError(f"bad seed {seed}: a seed is an integer from 0 to 2**64 - 1")
    match = Match(
        bot_specs(args),
        rules,
        clock,
        games=count,
        single_hands=args.hands is not None,
        seed=seed,
        mirror=args.mirror,
        in_process=not args.subprocess,
        memory_mb=args.memory_mb,
        cpu_seconds=args.cpu_seconds,
        workdir=args.logs,
    )
    names = match.names()
    unit = "hand" if args.hands is not None else "game"

    def progress(report: GameReport, result: MatchResult) -> None:
        if not args.json:
            print(describe(report, names, unit), flush=True)

    if not args.json:
        print(
            f"{names[0]} v {names[1]}: {count} {unit}s, seed {seed}, rules {args.rules}"
            + (f" ({', '.join(args.options)})" if args.options else "")
            + (", mirrored" if args.mirror else "")
        )
    try:
        if args.record:
            try:
                stream = args.record.open("w", encoding="utf-8")
            except OSError as error:
                raise ValueError(
                    f"cannot write record {str(args.record)!r}: {error.strerror}"
                ) from None
            with stream:
                result = match.play(record=stream, on_game=progress)
        else:
            result = match.play(on_game=progress)
    except MatchError as error:
        print(f"gin-arena match: {error}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
    else:
        print()
        print(summary(result, unit))
    return 0


def describe(report: GameReport, names: tuple[str, str], unit: str) -> str:
    o = report.outcome
    a, b = report.points(0), report.points(1)
    head = f"{unit} {report.number:>3}: "
    if report.winner is None:
        text = f"{head}drawn ({o.hands} hand{'s' if o.hands != 1 else ''})"
    else:
        text = f"{head}{names[report.winner]} wins {a}-{b}"
        if unit == "game":
            text += f" ({o.hands} hands)"
    if o.failure is not None and report.failed is not None:
        rule = f" [{o.failure.rule}]" if o.failure.rule else ""
        text += f"; {names[report.failed]} forfeits: {o.failure.reason}{rule}: {o.failure.message}"
    return text


def summary(result: MatchResult, unit: str) -> str:
    games = len(result.games)
    lines = [f"{'bot':<20} {'wins':>5} {'losses':>6} {'draws':>5} {'score':>7}  failures"]
    for bot in (0, 1):
        wins, losses, draws = result.wins(bot), result.wins(1 - bot), result.draws()
        score = (wins + draws / 2) / games if games else 0.0
        fails = ", ".join(f"{k} {v}" for k, v in sorted(result.failures(bot).items())) or "-"
        lines.append(
            f"{result.names[bot]:<20} {wins:>5} {losses:>6} {draws:>5} {score:>6.1%}  {fails}"
        )
    lines.append(f"{games} {unit}s, seed {result.seed}")
    return "\n".join(lines)
