"""``gin-arena replay`` and ``gin-arena judge``: read a game record back."""

from __future__ import annotations

import argparse
from pathlib import Path

from arena.judge import judge
from arena.record import read_games
from arena.replay import render

REPLAY_HELP = "show a recorded game hand by hand"
REPLAY_DESCRIPTION = """\
Show the games of a record file (written by gin-arena match --record) hand by hand: the deal,
every action with the card drawn and the time taken, the show-down and the scores.

examples:
  gin-arena replay games.jsonl
  gin-arena replay games.jsonl --game 3
"""

JUDGE_HELP = "re-check every action and score of a record from the record alone"
JUDGE_DESCRIPTION = """\
Re-judge a record file: every deal against its seed, every action against the rules, every hand's
score and every game's result recomputed. Prints the first disagreement with its line number and
exits 1 if there is one; exits 0 when everything agrees, 2 when the file cannot be read. A record
whose last game stops in the middle (an interrupted match) is INCOMPLETE (exit 1): everything it
holds is checked.
"""


def add_replay_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", type=Path, metavar="FILE", help="a record file (JSON Lines)")
    parser.add_argument("--game", type=int, help="show only this game (numbered from 1)")


def run_replay(args: argparse.Namespace) -> int:
    games = read_games(args.record)
    if args.game is not None:
        if not 1 <= args.game <= len(games):
            raise ValueError(f"no game {args.game}: the record holds {len(games)} games")
        games = [games[args.game - 1]]
    for index, game in enumerate(games):
        if index:
            print()
        for line in render(game):
            print(line)
    return 0


def add_judge_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", type=Path, metavar="FILE", help="a record file (JSON Lines)")


def run_judge(args: argparse.Namespace) -> int:
    verdict = judge(args.record)
    counts = f"{verdict.games} games, {verdict.hands} hands, {verdict.actions} actions"
    if verdict.disagreement is not None:
        print(f"{args.record}: {verdict.disagreement}")
        print(f"checked before it: {counts}")
        return 1
    if verdict.incomplete is not None:
        print(
            f"{args.record}: INCOMPLETE: the record stops in the middle of the game at line "
            f"{verdict.incomplete} (an interrupted match); what it holds agrees with the rules "
            f"({counts} checked)"
        )
        return 1
    print(f"{args.record}: OK ({counts} checked)")
    return 0
