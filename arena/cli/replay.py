"""``gin-arena replay``: a record's games, hand by hand, for people."""

from __future__ import annotations

import argparse
from pathlib import Path

from arena.records.record import read_games
from arena.records.replay import render
from arena.terminal import printable

HELP = "show a recorded game hand by hand"
DESCRIPTION = """\
Show the games of a record file (written by gin-arena match --record) hand by hand: the deal,
every action with the card drawn and the time taken, the show-down and the scores.

examples:
  gin-arena replay games.jsonl
  gin-arena replay games.jsonl --game 3
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", type=Path, metavar="FILE", help="a record file (JSON Lines)")
    parser.add_argument(
        "--game",
        type=int,
        help="show only the game of this number (as the match numbered it, from 1; a mirrored "
        "match records its games as it played them, not in their numbers' order)",
    )


def run(args: argparse.Namespace) -> int:
    games = read_games(args.record)
    if args.game is not None:
        chosen = [game for game in games if game.tags.game == args.game]
        if not chosen:
            raise ValueError(f"no game {args.game}: the record holds {len(games)} games")
        games = chosen
    for index, game in enumerate(games):
        if index:
            print()
        for line in render(game):
            print(printable(line))  # names, dates and messages are the record's
    return 0
