"""``gin-arena judge``: re-judge a record from the record alone."""

from __future__ import annotations

import argparse
from pathlib import Path

from arena.cli.options import add_mode_filter_argument
from arena.records.judge import judge
from arena.terminal import printable

HELP = "re-check every action and score of a record from the record alone"
DESCRIPTION = """\
Re-judge a record file: every deal against its seed, every action against the rules, every hand's
score and every game's result recomputed. Prints the first disagreement with its line number and
exits 1 if there is one; exits 0 when everything agrees, 2 when the file cannot be read. A record
whose last game stops in the middle (an interrupted match) is INCOMPLETE (exit 1): everything it
holds is checked.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", type=Path, metavar="FILE", help="a record file (JSON Lines)")
    add_mode_filter_argument(parser, required_of="every game of the record")


def run(args: argparse.Namespace) -> int:
    verdict = judge(args.record, args.mode)
    counts = f"{verdict.games} games, {verdict.hands} hands, {verdict.actions} actions"
    record = printable(str(args.record))
    if verdict.disagreement is not None:
        print(f"{record}: {printable(str(verdict.disagreement))}")
        print(f"checked before it: {counts}")
        return 1
    if verdict.incomplete is not None:
        print(
            f"{record}: INCOMPLETE: the record stops in the middle of the game at line "
            f"{verdict.incomplete} (an interrupted match); what it holds agrees with the rules "
            f"({counts} checked)"
        )
        return 1
    print(f"{record}: OK ({counts} checked)")
    return 0
