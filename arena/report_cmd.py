"""``gin-arena report``: a tournament or a match as one self-contained HTML page."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from arena.report.data import ReportError, build, from_record, from_store
from arena.terminal import printable

HELP = "write a tournament or a match as one self-contained HTML page"
DESCRIPTION = """\
Write a report of a tournament database (--db) or of a match record (--record, from gin-arena
match --record): one HTML file that opens offline in any browser, with the standings (Elo, 95%
interval, LOS) and an Elo plot with error bars, the crosstable as a heatmap, Elo over the games
played, failures by bot and reason with example messages, move-time distributions, the game list
filterable by pair, and a replay viewer that steps through any game face up (arrow keys, Home/End,
n/p for hands) to its score.

The plots need matplotlib (pip install 'gin-rummy-arena[report]'); without it the page has every
table and says what is missing. --json writes the data behind the page instead. The database is
opened read-only: a report can be made while a tournament is playing into it.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--db", type=Path, help="a tournament database")
    source.add_argument("--record", type=Path, metavar="FILE", help="a match record (JSON Lines)")
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        default=Path("report.html"),
        help="where to write the page (default report.html; - for standard output)",
    )
    parser.add_argument(
        "--json", action="store_true", help="write the report's data as JSON instead of HTML"
    )
    parser.add_argument(
        "--no-replays",
        action="store_true",
        help="leave the replays out (a smaller page for a very long tournament)",
    )


def run(args: argparse.Namespace) -> int:
    if args.db is not None:
        names, games, config = from_store(args.db)
        source, kind = str(args.db), "tournament"
    else:
        names, games, config = from_record(args.record)
        source, kind = str(args.record), "record"
    data = build(names, games, config, source=source, kind=kind, replays=not args.no_replays)
    if args.json:
        text = json.dumps(data, indent=1) + "\n"
    else:
        from arena.report import html, plots

        note = plots.missing()
        if note is not None:
            print(f"gin-arena report: {note}", file=sys.stderr)
        text = html.render(data, None if note else plots.draw(data), note)
    if str(args.output) == "-":
        sys.stdout.write(text)
        return 0
    write_atomically(args.output, text)
    what = "data" if args.json else "report"
    print(f"{what} of {data['games']} games written to {printable(str(args.output))}")
    return 0


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same directory, so that a
    failure leaves any earlier file as it was."""
    directory = path.parent if str(path.parent) else Path(".")
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=directory)
    except OSError as error:
        raise ReportError(f"cannot write {str(path)!r}: {error.strerror}") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # as a file opened for writing would be
        os.replace(temporary, path)
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        raise ReportError(f"cannot write {str(path)!r}: {error.strerror}") from None
