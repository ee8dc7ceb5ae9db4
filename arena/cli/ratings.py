"""``gin-arena ratings``: the standings of a tournament database, again, while it runs or after."""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

from arena.cli.layout import fit, terminal_columns
from arena.cli.options import add_standings_arguments
from arena.tournament.config import Config, check_anchor
from arena.tournament.standings import NARROWING, render, standings
from arena.tournament.store import Store

NAME = "ratings"
HELP = "print a tournament's standings again"
DESCRIPTION = (
    """\
Print the standings of a tournament database: Elo with 95% intervals from a Bradley-Terry fit over
all its games, games, won, lost, drawn, score, LOS (the likelihood of superiority over the next bot
down) and the games forfeited for each reason (t/o: on time); then the forfeits in words, with
six bots or fewer each pair's results against each other, and a sentence for each bot and the
next one down on how sure their order is. --format json has the mode and, per bot: name, elo,
ci95 [low, high], games, played, wins, losses, crosstable {opponent: [wins, losses]}.

On a terminal the table fits its width: whole columns give way, in this order, until it does
(a name or a number is never cut; if bot, Elo, its interval and score alone do not fit, the
names wrap):
"""
    + "".join(
        textwrap.fill(step, 99, initial_indent=f"  {k}. ", subsequent_indent="     ") + "\n"
        for k, step in enumerate(NARROWING, 1)
    )
    + """
Piped or in a file, the table is as wide as it needs, a row a line (the failure reasons nobody
forfeited a game for left out): for machines, --format csv or json have every column, always.

Every format is rated: a partnership game is a game between the two teams (a team's strength is
the sum of its bots' ratings), a three-player game one result against each of the other two
players (games, wins and losses count those results; played counts the games a bot sat in).

The database is opened read-only: this works while a tournament is playing into it, on a
database in a read-only folder or on a read-only mount (nothing is written or created beside it),
and on a database of an older version of gin-arena.
"""
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", type=Path, required=True, help="the tournament database")
    add_standings_arguments(parser)


def run(args: argparse.Namespace) -> int:
    store = Store.open(args.db, readonly=True)
    try:
        config = Config.from_stored(store.config(), repr(str(args.db)))
        games = list(store.games(records=False))
    finally:
        store.close()
    check_anchor(args.anchor, config)
    table = standings(config.names(), games, args.anchor, config.mode.name)
    shown = render(table, args.format, games)
    sys.stdout.write(fit(shown, terminal_columns()) if args.format == "table" else shown)
    return 0
