"""``gin-arena ab``: how many points a hand is NEW better than BASE? Mirrored single hands,
paired by deal, head to head or against a common opponent (:mod:`arena.tournament.ab`)."""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from arena.cli.options import (
    add_bots_file_argument,
    add_clock_arguments,
    add_concurrency_arguments,
    add_logs_argument,
    add_process_arguments,
    add_rules_arguments,
    add_seed_argument,
    add_subprocess_argument,
    bots_file_from,
    check_concurrency,
    clock_from,
    logs_from,
    positive_int,
    rules_from,
    sandbox_from,
    seed_from,
)
from arena.play.match import Match, MatchError
from arena.seats.botspec import BotSpec, resolve
from arena.terminal import printable
from arena.tournament.ab import ABTest, Estimate, Pairing, play

HELP = "how many points a hand is one bot better than another? paired single hands"
DESCRIPTION = """\
Play single hands, every deal twice with the seats swapped, and estimate how many points a hand
NEW gains over BASE, with a 95% interval. Head to head, NEW plays BASE. With --against OPP, NEW
and BASE each play OPP on the same deals and the test compares their results deal by deal: the
cards cancel out, so two versions of a bot are told apart in far fewer hands (differences of a
few tenths of a point a hand in a few thousand hands), where games need hours (gin-arena sprt).

A bot is the name of a built-in bot, the name of an entry of the --bots file, or a command line.
The hands are played in --concurrency worker processes; the deals depend on --seed only. A bot
that fails forfeits the hand (it scores no points) and is counted under "forfeits"; the test then
gives no verdict and exits with 1 (gin-arena check-bot finds what makes a bot fail).

examples:
  gin-arena ab "python3 mybot.py" "python3 mybot_v1.py" --against strong --hands 2000
  gin-arena ab strong greedy --hands 400 --seed 7
  gin-arena ab "python3 mybot.py --knock 8" "python3 mybot.py" --against greedy --json
"""

PROGRESS_STEPS = 10
"""Progress lines a test prints (without --json)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("new", metavar="NEW", help="the bot under test (a name or a command)")
    parser.add_argument("base", metavar="BASE", help="the bot it is compared with")
    parser.add_argument(
        "--against",
        metavar="OPP",
        help="play NEW and BASE each against OPP on the same deals, rather than each other",
    )
    parser.add_argument(
        "--hands",
        type=positive_int,
        default=1000,
        help="hands each pairing plays (default 1000; even: a deal is played twice)",
    )
    add_seed_argument(parser)
    add_concurrency_arguments(parser)
    add_bots_file_argument(parser)
    add_subprocess_argument(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object at the end")
    add_rules_arguments(parser)
    add_clock_arguments(parser)
    add_process_arguments(parser)
    add_logs_argument(parser)


def _specs(args: argparse.Namespace) -> tuple[BotSpec, BotSpec, BotSpec | None]:
    known = bots_file_from(args.bots)
    texts = [args.new, args.base] + ([args.against] if args.against is not None else [])
    specs = [resolve(text, known) for text in texts]
    names = [spec.name for spec in specs]
    if names[0] == names[1]:  # strong v strong: the two sides named apart
        specs[0] = resolve(args.new, known, name=f"{names[0]}#new")
        specs[1] = resolve(args.base, known, name=f"{names[1]}#base")
    if len(specs) == 3 and specs[2].name in (specs[0].name, specs[1].name):
        specs[2] = resolve(args.against, known, name=f"{specs[2].name}#against")
    return specs[0], specs[1], specs[2] if len(specs) == 3 else None


def build(args: argparse.Namespace) -> ABTest:
    """The test the arguments describe, nothing played. Raises ValueError for a bad one."""
    if args.hands % 2:
        raise ValueError(
            f"--hands {args.hands} is odd: each deal is played twice, the seats swapped; "
            "give an even number"
        )
    seed = seed_from(args.seed)
    rules = rules_from(args.rules, args.options)
    clock = clock_from(args)
    new, base, against = _specs(args)
    everyone = [new, base] + ([against] if against is not None else [])
    sandbox = sandbox_from(args.sandbox, everyone, not args.subprocess)
    logs = logs_from(args.logs)

    def match(first: BotSpec, second: BotSpec) -> Pairing:
        # a folder a pairing, so that the opponent's logs of the two pairings stay apart
        kept = None if logs is None else logs / f"{first.name}-v-{second.name}".replace("/", "_")
        return Pairing(
            first.name,
            second.name,
            Match(
                (first, second),
                rules,
                clock,
                games=args.hands,
                single_hands=True,
                seed=seed,
                mirror=True,
                in_process=not args.subprocess,
                memory_mb=args.memory_mb,
                cpu_seconds=args.cpu_seconds,
                pids=args.pids,
                sandbox=sandbox,
                workdir=kept,
            ),
        )

    if against is None:
        pairings = [match(new, base)]
    else:
        pairings = [match(new, against), match(base, against)]
    return ABTest(
        new.name,
        base.name,
        None if against is None else against.name,
        args.hands,
        seed,
        pairings,
    )


def _signed(x: float) -> str:
    return f"{x:+.2f}"


def describe(e: Estimate) -> str:
    """``+0.41 ± 0.19 a hand, 95% [+0.04, +0.78], 500 deals``"""
    if e.deals < 2:
        return f"{_signed(e.points)} a hand ({e.deals} deal{'s' * (e.deals != 1)})"
    low, high = e.interval
    return (
        f"{_signed(e.points)} ± {e.error:.2f} a hand, 95% [{_signed(low)}, {_signed(high)}], "
        f"{e.deals} deals"
    )


def report(test: ABTest) -> str:
    """The text report: the scores against the opponent, the difference, the verdict and the
    forfeits; the bots' names escaped for a terminal."""
    lines = []
    new, base = printable(test.new), printable(test.base)
    if test.against is not None:
        width = max(len(new), len(base))
        against = printable(test.against)
        for name, score in zip((new, base), test.scores(), strict=True):
            lines.append(f"{name:<{width}} against {against}: {describe(score)}")
    difference = test.difference()
    lines.append(f"{new} - {base}: {describe(difference)}")
    verdict = test.verdict()
    forfeits = {printable(name): n for name, n in test.forfeits().items() if n}
    if verdict == "new":
        lines.append(f"{new} is better than {base} (95% confidence)")
    elif verdict == "base":
        lines.append(f"{new} is worse than {base} (95% confidence)")
    elif verdict == "undecided":
        lines.append(
            "no difference shown at 95% confidence: more hands (--hands) resolve smaller ones"
        )
    else:
        lines.append(
            "no verdict: a forfeited hand scores no points, so the points do not compare the "
            "bots; gin-arena check-bot BOT finds what makes a bot fail"
        )
    lines.append(
        "forfeits: "
        + (", ".join(f"{name} {n}" for name, n in forfeits.items()) if forfeits else "none")
    )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    check_concurrency(args.concurrency, args.oversubscribe)
    test = build(args)
    total = args.hands * len(test.pairings)
    new, base = printable(test.new), printable(test.base)
    if not args.json:
        opponent = "" if test.against is None else f" against {printable(test.against)}"
        print(
            f"A/B {new} v {base}{opponent}: {args.hands} hands a pairing, mirrored, "
            f"seed {test.seed}, {args.concurrency} worker{'s' * (args.concurrency != 1)}",
            flush=True,
        )
    shown = 0

    def progress(t: ABTest) -> None:
        nonlocal shown
        step = t.played * PROGRESS_STEPS // total
        if args.json or step <= shown or t.played == total:
            return
        shown = step
        print(f"  {t.played}/{total} hands: {new} - {base} {describe(t.difference())}")
        sys.stdout.flush()

    try:
        play(test, args.concurrency, progress)
    except KeyboardInterrupt:
        print(
            f"\ninterrupted after {test.played} of {total} hands (seed {test.seed}); "
            "the complete deals so far:",
            file=sys.stderr,
        )
        _print(test, args.json)
        return 130
    except MatchError as error:  # a bot that cannot start
        print(f"gin-arena ab: {printable(str(error), lines=True)}", file=sys.stderr)
        return 1
    except BrokenProcessPool as error:
        print(f"gin-arena ab: a worker process died ({error}); no result", file=sys.stderr)
        return 1
    _print(test, args.json)
    return 1 if test.verdict() == "forfeits" else 0


def _print(test: ABTest, as_json: bool) -> None:
    if as_json:
        data: dict[str, Any] = test.to_json()
        print(json.dumps(data, indent=2))
    else:
        print(report(test))
