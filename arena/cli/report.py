"""``gin-arena report``: a tournament or a match as one self-contained HTML page."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Final

from arena.cli.options import add_title_argument, title_from
from arena.report.data import ReportError, build, from_record, from_store
from arena.terminal import printable

if TYPE_CHECKING:
    from rich.progress import TaskID

HELP = "write a tournament or a match as one self-contained HTML page"
DESCRIPTION = """\
Write a report of a tournament database (--db) or of a match record (--record, from gin-arena
match --record): one HTML file that opens offline in any browser. Its header says what was
played and how, as the database (or record) has it: the kind (round-robin, gauntlet, SPRT,
league, match), the seed, the games per pair or the league's pairings, the time control, the
limits, the rules (the nearest preset and every option changed from it) and each bot's command,
version and digest. Then the standings (Elo, 95% interval, LOS) with an Elo plot with error bars
and how sure each place is in words, the crosstable coloured as a heatmap with the head to head,
Elo over the games (a round at a time, so that a round robin's schedule does not read as form; a
league's in the order played), failures by bot and reason with example messages, move-time
distributions, the game list filterable by pair, and a replay viewer that steps through any game
face up (arrow keys, Home/End, n/p for hands) to its score.

The plots need matplotlib (pip install 'gin-rummy-arena[report]'); without it the page has every
table and says what is missing. --json writes the data behind the page instead. The database is
opened read-only: a report can be made while a tournament is playing into it, and of a database
in a read-only folder or on a read-only mount (nothing is written or created beside it).

A long report (a league of thousands of games takes some seconds a thousand) shows how it goes on
standard error: a bar on a terminal; otherwise a line as each part starts (reading the games,
fitting Elo over them, building the replays, drawing the plots, writing the page) and every 5 s
within one, e.g. "report: building replays: 120 of 400".
"""

PROGRESS_SECONDS: Final = 5.0
"""How often a line says how a part of the work goes when standard error is not a terminal."""


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
    add_title_argument(parser)
    parser.add_argument(
        "--no-replays",
        action="store_true",
        help="leave the replays out (a smaller page for a very long tournament)",
    )


def run(args: argparse.Namespace) -> int:
    title_from(args.title)
    with Progress() as progress:
        if args.db is not None:
            names, games, config = from_store(args.db, progress)
            source, kind = str(args.db), "league" if "league" in config else "tournament"
        else:
            progress.part("reading the record")
            names, games, config = from_record(args.record)
            source, kind = str(args.record), "record"
        data = build(
            names,
            games,
            config,
            source=source,
            kind=kind,
            replays=not args.no_replays,
            progress=progress,
            title=args.title,
        )
        if args.json:
            text = json.dumps(data, indent=1) + "\n"
        else:
            from arena.report import html, plots

            note = plots.missing()
            if note is not None:
                progress.say(f"gin-arena report: {note}")
            else:
                progress.part("drawing the plots")
            drawn = None if note else plots.draw(data)
            progress.part("writing the page")
            text = html.render(data, drawn, note)
        if str(args.output) == "-":
            sys.stdout.write(text)
            return 0
        write_atomically(args.output, text)
    what = "data" if args.json else "report"
    print(f"{what} of {data['games']} games written to {printable(str(args.output))}")
    return 0


class Progress:
    """How the report's work goes, on standard error: a transient bar on a terminal; otherwise
    a line as each part starts and every :data:`PROGRESS_SECONDS` within one. Called as the
    :data:`arena.report.data.Progress` hook, or told of a part without a count (:meth:`part`)."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, SpinnerColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as Bar

        console = Console(stderr=True)
        self._terminal = console.is_terminal
        self._bar = Bar(
            SpinnerColumn(),
            TextColumn("report: {task.description}"),
            BarColumn(),
            TextColumn("{task.fields[count]}"),
            TimeElapsedColumn(),
            console=console,
            transient=True,
            disable=not self._terminal,
        )
        self._task: TaskID | None = None
        self._what = ""
        self._said = 0.0

    def __enter__(self) -> Progress:
        self._bar.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._bar.stop()

    def __call__(self, what: str, done: int, total: int) -> None:
        if what != self._what:
            self.part(what, total)
        if self._task is not None:
            self._bar.update(self._task, completed=done, total=total, count=f"{done}/{total}")
        if not self._terminal and time.monotonic() - self._said >= PROGRESS_SECONDS:
            self._line(f"report: {what}: {done} of {total}")

    def part(self, what: str, total: int | None = None) -> None:
        """A part of the work starts, of ``total`` items (None: not counted)."""
        self._what = what
        if self._task is not None:
            self._bar.remove_task(self._task)
        self._task = self._bar.add_task(
            what, total=total, count="" if total is None else f"0/{total}"
        )
        if not self._terminal:
            self._line(f"report: {what}" + ("" if total is None else f": 0 of {total}"))

    def say(self, text: str) -> None:
        """A line on standard error, above the bar."""
        self._bar.console.print(text, markup=False, highlight=False, soft_wrap=True)

    def _line(self, text: str) -> None:
        self._said = time.monotonic()
        print(text, file=sys.stderr, flush=True)


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
