"""Standings: ratings fitted on every game of a tournament, with the failure counts, as a table
for people or JSON/CSV for machines.

Every game, in any format, gives the fit its results through :func:`arena.ratings.table_results`:
a two-player or Hollywood game one result between the two bots, a three-player game one result
against each of the other two players, a partnership game one result between the two teams (a
team's strength is the sum of its bots' ratings). A bot's rating therefore comes from all its
games, with any partner at any table. Its games, wins, losses and draws count those results (a
three-player game is two of them), its ``played`` the games it sat in, and its crosstable its
results against each bot it faced (a partnership game counts against both opponents).
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena.connection import FAILURE_REASONS
from arena.ratings import Fit, RatingError, Result, TeamResult, fit, table_results
from arena.referee import HAND_LIMIT, REFEREE
from arena.store import GameRow
from arena.terminal import printable

FORMATS = ("table", "json", "csv")


class StandingsError(ValueError):
    """A stored game that cannot be rated (a database changed by hand)."""


@dataclass(frozen=True, slots=True)
class Standings:
    fit: Fit
    failures: dict[str, dict[str, int]]
    games: int
    mode: str = "two-player"
    played: dict[str, int] | None = None
    """Games each bot sat in (None: as many as its rated results)."""

    def played_by(self, name: str, results: int) -> int:
        return results if self.played is None else self.played.get(name, 0)

    def to_json(self) -> dict[str, Any]:
        bots = []
        for rank, r in enumerate(self.fit.ratings, 1):
            bots.append(
                {
                    "rank": rank,
                    "name": r.name,
                    "elo": round(r.elo, 1),
                    "ci95": [round(r.low, 1), round(r.high, 1)],
                    "games": r.games,
                    "played": self.played_by(r.name, r.games),
                    "wins": r.wins,
                    "losses": r.losses,
                    "draws": r.draws,
                    "score": round(r.score, 4),
                    "los_next": None if r.los_next is None else round(r.los_next, 4),
                    "failures": self.failures[r.name],
                    "crosstable": self.fit.crosstable[r.name],
                }
            )
        return {"games": self.games, "mode": self.mode, "bots": bots}


def standings(
    names: Sequence[str],
    games: Sequence[GameRow],
    anchor: str | None = None,
    mode: str = "two-player",
) -> Standings:
    """The standings of the bots ``names`` from ``games`` (of any format: each row's own mode
    decides its results), rated 0 at ``anchor`` or on average; ``mode`` is the tournament's."""
    results: list[Result | TeamResult] = []
    failures = {name: dict.fromkeys(FAILURE_REASONS, 0) for name in names}
    played = dict.fromkeys(names, 0)
    for g in games:
        try:
            results.extend(table_results(g.mode, g.seats, g.side, g.scores, g.failed_player))
        except RatingError as error:
            raise StandingsError(
                f"game {g.id} cannot be rated ({error}): the database was changed by hand"
            ) from None
        for name in set(g.seats):
            if name in played:
                played[name] += 1
        if g.failed is not None and g.failed in failures:
            failures[g.failed][g.reason] = failures[g.failed].get(g.reason, 0) + 1
    return Standings(fit(names, results, anchor), failures, len(games), str(mode), played)


_FAILURE_COLUMNS = (
    ("timeout", "time"),
    ("crash", "crash"),
    ("illegal", "illegal"),
    ("malformed", "malformed"),
    ("protocol", "protocol"),
    ("startup", "startup"),
)


def render_csv(table: Standings) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        [
            "rank",
            "name",
            "elo",
            "low",
            "high",
            "games",
            "wins",
            "losses",
            "draws",
            "score",
            "los_next",
            *(reason for reason, _ in _FAILURE_COLUMNS),
            "played",
        ]
    )
    for rank, r in enumerate(table.fit.ratings, 1):
        writer.writerow(
            [
                rank,
                r.name,
                f"{r.elo:.1f}",
                f"{r.low:.1f}",
                f"{r.high:.1f}",
                r.games,
                r.wins,
                r.losses,
                r.draws,
                f"{r.score:.4f}",
                "" if r.los_next is None else f"{r.los_next:.4f}",
                *(table.failures[r.name].get(reason, 0) for reason, _ in _FAILURE_COLUMNS),
                table.played_by(r.name, r.games),
            ]
        )
    return out.getvalue()


def render_json(table: Standings) -> str:
    return json.dumps(table.to_json(), indent=2) + "\n"


def render_table(table: Standings, width: int | None = None) -> str:
    """A plain-text table (rich renders it; no colour codes, so it reads the same in a file),
    fitted to ``width`` columns (rich shortens the columns that can be), or as wide as it needs
    with None. The bots' names are shown with control characters escaped, and never read as
    rich markup."""
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    caption = _CAPTIONS.get(table.mode)
    grid = Table(
        title=f"Standings after {table.games} games"
        + ("" if table.mode == "two-player" else f" ({table.mode})"),
        title_justify="left",
        caption=caption,
        caption_justify="left",
        box=box.SIMPLE_HEAD,
    )
    for header, justify in (
        ("#", "right"),
        ("bot", "left"),
        ("Elo", "right"),
        ("95% interval", "right"),
        ("games", "right"),
        ("won", "right"),
        ("lost", "right"),
        ("score", "right"),
        ("LOS", "right"),
    ):
        grid.add_column(header, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    # In a narrow terminal, the failure columns nobody has a count in go first.
    columns = [
        (reason, title)
        for reason, title in _FAILURE_COLUMNS
        if width is None or any(f.get(reason, 0) for f in table.failures.values())
    ]
    for _, title in columns:
        grid.add_column(title, justify="right", no_wrap=True)
    for rank, r in enumerate(table.fit.ratings, 1):
        grid.add_row(
            str(rank),
            Text(printable(r.name)),
            f"{r.elo:+.0f}",
            f"[{r.low:+.0f}, {r.high:+.0f}]",
            str(r.games),
            str(r.wins),
            str(r.losses),
            f"{r.score:.1%}",
            "" if r.los_next is None else f"{r.los_next:.0%}",
            *(str(table.failures[r.name].get(reason, 0) or "-") for reason, _ in columns),
        )
    out = io.StringIO()
    Console(file=out, width=width or 400, color_system=None, force_terminal=False).print(grid)
    return "\n".join(line.rstrip() for line in out.getvalue().splitlines()) + "\n"


_CAPTIONS = {
    "three-player": "games, won and lost count a result against each of the other two players "
    "of every game (two a game)",
    "partnership": "each game is a result between the two teams, for both bots of each",
}


_REASON_WORDS = {
    "timeout": "on time",
    "crash": "by crashing",
    "malformed": "by malformed output",
    "protocol": "by breaking the protocol",
    "illegal": "by illegal actions",
    "startup": "by failing to start",
}


def forfeits(games: Sequence[GameRow]) -> list[str]:
    """One line for each bot and reason it forfeited games for, with the first game's number
    and message, and one for the games the referee abandoned: what went wrong, in words."""
    seen: dict[tuple[str, str], list[GameRow]] = {}
    abandoned: list[GameRow] = []
    cut: list[GameRow] = []
    for g in games:
        if g.failed is not None:
            seen.setdefault((g.failed, g.reason), []).append(g)
        elif g.reason == REFEREE:
            abandoned.append(g)
        elif g.reason == HAND_LIMIT:
            cut.append(g)
    lines = []
    for (bot, reason), rows in sorted(seen.items()):
        first = rows[0]
        words = _REASON_WORDS.get(reason, f"({reason})")
        lines.append(
            f"forfeits: {bot} lost {len(rows)} game{'s' if len(rows) != 1 else ''} {words} "
            f"[{reason}], first game {first.id}: {first.message}"
        )
    if abandoned:
        first = abandoned[0]
        lines.append(
            f"abandoned: {len(abandoned)} game{'s' if len(abandoned) != 1 else ''} the referee "
            f"could not finish (counted as draws) [referee], first game {first.id}: "
            f"{first.message}"
        )
    if cut:
        lines.append(
            f"hand limit: {len(cut)} game{'s' if len(cut) != 1 else ''} ended at the hand "
            f"limit (R22) and were decided on points [hand_limit], first game {cut[0].id}"
        )
    return lines


def render(table: Standings, fmt: str) -> str:
    """The standings as ``fmt``; a table fits the terminal when standard output is one. CSV keeps
    the names exactly, but for a terminal, where their control characters are escaped (JSON
    escapes them itself)."""
    if fmt == "json":
        return render_json(table)
    if fmt == "csv":
        text = render_csv(table)
        return printable(text, lines=True) if sys.stdout.isatty() else text
    width = None
    if sys.stdout.isatty():
        width = shutil.get_terminal_size().columns
    return render_table(table, width)
