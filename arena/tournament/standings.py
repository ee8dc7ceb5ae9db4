"""Standings: ratings fitted on every game of a tournament, with the failure counts, as a table
for people or JSON/CSV for machines.

Every game, in any format, gives the fit its results through
:func:`arena.stats.ratings.table_results`:
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
import itertools
import json
import math
import shutil
import sys
import textwrap
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

from arena.errors import ArenaError
from arena.play.referee import HAND_LIMIT, REFEREE
from arena.seats.connection import FAILURE_REASONS
from arena.stats.ratings import Fit, RatingError, Result, TeamResult, fit, table_results
from arena.terminal import printable
from arena.tournament.store import GameRow

FORMATS = ("table", "json", "csv")


class StandingsError(ArenaError, ValueError):
    """A stored game that cannot be rated (a database changed by hand)."""


@dataclass(frozen=True, slots=True)
class Standings:
    fit: Fit
    failures: dict[str, dict[str, int]]
    games: int
    mode: str = "two-player"
    played: dict[str, int] | None = None
    """Games each bot sat in (None: as many as its rated results)."""
    drawn: dict[str, dict[str, int]] | None = None
    """``drawn[bot][opponent]``: their drawn results, counted as the crosstable counts wins (None:
    not counted)."""

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
    drawn = {a: {b: 0 for b in names if b != a} for a in names}
    for result in results:
        if result.score != 0.5:
            continue
        a: tuple[str, ...]
        b: tuple[str, ...]
        if isinstance(result, Result):
            a, b = (result.a,), (result.b,)
        else:
            a, b = result.a, result.b
        for x in dict.fromkeys(a):
            for y in dict.fromkeys(b):
                if x != y and x in drawn and y in drawn:
                    drawn[x][y] += 1
                    drawn[y][x] += 1
    return Standings(fit(names, results, anchor), failures, len(games), str(mode), played, drawn)


FAILURE_COLUMNS = (
    ("timeout", "t/o"),
    ("crash", "crash"),
    ("illegal", "illegal"),
    ("malformed", "malformed"),
    ("protocol", "protocol"),
    ("startup", "startup"),
)
"""The failure reasons the table counts, with their headers (``t/o``: the games forfeited on time,
a count, never a time); a league's standings count them the same."""


def forfeits_note(titles: Sequence[str]) -> str:
    """The note under a table that shows the failure columns headed ``titles``."""
    return f"{', '.join(titles)}: games forfeited for that reason (t/o: on time)"


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
            *(reason for reason, _ in FAILURE_COLUMNS),
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
                *(table.failures[r.name].get(reason, 0) for reason, _ in FAILURE_COLUMNS),
                table.played_by(r.name, r.games),
            ]
        )
    return out.getvalue()


def render_json(table: Standings) -> str:
    return json.dumps(table.to_json(), indent=2) + "\n"


@dataclass(frozen=True, slots=True)
class Column:
    """A column of a text table; ``key`` names it in the steps of a narrowing."""

    key: str
    header: str
    cells: tuple[str, ...]
    left: bool = False
    """Left-aligned (a name: the one kind of cell that may wrap, and only when nothing else
    fits); numbers are right-aligned."""


Step = tuple[tuple[str, ...], Column | None]
"""One step of narrowing a table: the columns with these keys give way to one column (an
abbreviation, in the place of the first of them) or to none."""


def fit_table(
    columns: Sequence[Column],
    narrowing: Sequence[Step],
    width: int | None,
    *,
    title: str | None = None,
    caption: Callable[[frozenset[str]], str | None] | None = None,
    edge: bool = True,
) -> str:
    """``columns`` as a plain-text table, one row a line: rich draws it without colour codes, so
    that it reads the same in a file, and never reads a cell as markup.

    With ``width`` None the table is as wide as it needs (for a pipe or a file: every row whole on
    its line). Given a ``width``, the steps of ``narrowing`` are taken in order, each dropping or
    abbreviating whole columns, until the table fits; no cell is ever cut short. If it still does
    not fit, the left-aligned columns (the names) wrap onto more lines, every character kept.
    ``caption`` makes the text under the table from the keys of the columns shown; without
    ``edge``, the rows start at the line's start and nothing follows the table."""
    layout = list(columns)
    steps = iter(narrowing)

    def draw(layout: Sequence[Column], wrap: int | None) -> str:
        return _draw_table(layout, title, caption, wrap, edge)

    text = draw(layout, None)
    while width is not None and _widest(text) > width:
        step = next(steps, None)
        if step is None:
            return draw(layout, width)
        keys, replacement = step
        at = [i for i, column in enumerate(layout) if column.key in keys]
        if not at:
            continue
        layout = [column for column in layout if column.key not in keys]
        if replacement is not None:
            layout.insert(at[0], replacement)
        text = draw(layout, None)
    return text


def _widest(text: str) -> int:
    """The columns the widest line takes on a terminal (a wide character takes two)."""
    from rich.cells import cell_len

    return max((cell_len(line) for line in text.splitlines()), default=0)


def _draw_table(
    layout: Sequence[Column],
    title: str | None,
    caption: Callable[[frozenset[str]], str | None] | None,
    wrap: int | None,
    edge: bool,
) -> str:
    """The table, as wide as it needs (``wrap`` None) or wrapping its names at ``wrap``."""
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    grid = Table(
        title=None if title is None else Text(title),
        title_justify="left",
        caption=None if caption is None else caption(frozenset(c.key for c in layout)),
        caption_justify="left",
        box=box.SIMPLE_HEAD,
        collapse_padding=True,  # two spaces between columns
        show_edge=edge,
        pad_edge=edge,
    )
    for column in layout:
        wraps = wrap is not None and column.left
        widest = max(map(len, (column.header, *column.cells)))
        grid.add_column(
            Text(column.header),
            justify="left" if column.left else "right",
            no_wrap=not wraps,
            overflow="fold",
            min_width=min(widest, 10) if wraps else widest,
        )
    for cells in zip(*(column.cells for column in layout), strict=True):
        grid.add_row(*(Text(cell) for cell in cells))
    out = io.StringIO()
    Console(
        file=out, width=wrap or _UNBOUNDED, color_system=None, force_terminal=False, emoji=False
    ).print(grid)
    return "\n".join(line.rstrip() for line in out.getvalue().splitlines()) + "\n"


_UNBOUNDED = 100_000
"""The width a table is drawn at when it may be as wide as it needs."""

NARROWING = (
    "the failure columns (t/o, crash, illegal, malformed, protocol, startup) become one, "
    "forfeits, their total (the lines under the table name each bot's reasons)",
    "95% interval becomes 95% ±, its half width (the interval is symmetric about the Elo)",
    "games goes (won + lost + drawn)",
    "forfeits goes (the lines under the table count them)",
    "LOS goes (the sentences under the table give it for each pair of neighbours)",
    "drawn goes (the score counts each draw as half a win)",
    "# goes (the rows are in rank order)",
    "won and lost go",
)
"""What gives way, in this order, when the standings are wider than the terminal (least
important first, each step taken only while the table does not fit): bot, Elo, its interval and
score always stay, and if even they do not fit, the names wrap. :func:`render_table` follows
these steps; ``gin-arena ratings --help`` shows them."""


def render_table(table: Standings, width: int | None = None) -> str:
    """The standings as a plain-text table, fitted to ``width`` columns by the steps of
    :data:`NARROWING` (never by cutting a name or a number), or with None as wide as it needs: a
    row a line, every column shown but the failure reasons nobody forfeited a game for. The bots'
    names are shown with control characters escaped."""
    ratings = table.fit.ratings
    failures = [table.failures[r.name] for r in ratings]
    shown = [
        (reason, title)
        for reason, title in FAILURE_COLUMNS
        if any(f.get(reason, 0) for f in failures)
    ]

    def column(key: str, cells: Iterable[object], left: bool = False) -> Column:
        return Column(key, key, tuple(map(str, cells)), left)

    def count(n: int) -> str:
        return str(n) if n else "-"

    interval = [f"[{r.low:+.0f}, {r.high:+.0f}]" for r in ratings]
    columns = [
        column("#", range(1, len(ratings) + 1)),
        column("bot", (printable(r.name) for r in ratings), left=True),
        column("Elo", (f"{r.elo:+.0f}" for r in ratings)),
        Column("interval", "95% interval", tuple(interval)),
        column("games", (r.games for r in ratings)),
        column("won", (r.wins for r in ratings)),
        column("lost", (r.losses for r in ratings)),
        column("drawn", (r.draws for r in ratings)),
        column("score", (f"{r.score:.1%}" for r in ratings)),
        column("LOS", ("" if r.los_next is None else likelihood(r.los_next) for r in ratings)),
        *(
            Column(reason, title, tuple(count(f.get(reason, 0)) for f in failures))
            for reason, title in shown
        ),
    ]
    total = column("forfeits", (count(sum(f.values())) for f in failures))
    half = Column("±", "95% ±", tuple(f"±{(r.high - r.low) / 2:.0f}" for r in ratings))
    narrowing: list[Step] = [
        (tuple(reason for reason, _ in shown), total),
        (("interval",), half),
        (("games",), None),
        (("forfeits",), None),
        (("LOS",), None),
        (("drawn",), None),
        (("#",), None),
        (("won", "lost"), None),
    ]
    assert len(narrowing) == len(NARROWING)

    def caption(keys: frozenset[str]) -> str | None:
        notes = [_CAPTIONS[table.mode]] if table.mode in _CAPTIONS else []
        titles = [title for reason, title in shown if reason in keys]
        if titles:
            notes.append(forfeits_note(titles))
        elif "forfeits" in keys:
            notes.append("forfeits: games forfeited, for any reason")
        return "; ".join(notes) or None

    title = f"Standings after {table.games} games" + (
        "" if table.mode == "two-player" else f" ({table.mode})"
    )
    return fit_table(columns, narrowing, width, title=title, caption=caption)


_CAPTIONS = {
    "three-player": "games, won, lost and drawn count a result against each of the other two "
    "players of every game (two a game)",
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
            f"limit (R22) and {'were' if len(cut) != 1 else 'was'} decided on points "
            f"[hand_limit], first game {cut[0].id}"
        )
    return lines


HEAD_TO_HEAD_BOTS = 6
"""Standings of at most this many bots list every pair's results against each other."""
SEPARATED = 0.95
"""The LOS at which the certainty sentences call two neighbours separated."""
_FAR = 100
"""Neighbours that would need more than this many times the games played are called level."""


def head_to_head(table: Standings) -> list[str]:
    """Each pair's results against each other (won-lost-drawn, the winner of the pair first),
    when there are at most :data:`HEAD_TO_HEAD_BOTS` bots; pairs that never met are left out."""
    ratings = table.fit.ratings
    if not 2 <= len(ratings) <= HEAD_TO_HEAD_BOTS:
        return []
    cross, drawn = table.fit.crosstable, table.drawn or {}
    lines = []
    for k, first in enumerate(ratings):
        for second in ratings[k + 1 :]:
            won, lost = cross[first.name][second.name]
            draws = drawn.get(first.name, {}).get(second.name, 0)
            if not won + lost + draws:
                continue
            a, b = printable(first.name), printable(second.name)
            if won > lost:
                lines.append(f"  {a} beat {b} {won}-{lost}-{draws}")
            elif lost > won:
                lines.append(f"  {b} beat {a} {lost}-{won}-{draws}")
            else:
                lines.append(f"  {a} and {b} are level {won}-{lost}-{draws}")
    if not lines:
        return []
    how = {
        "three-player": " (won-lost-drawn; each three-player game is a result between every two "
        "of its players)",
        "partnership": " (won-lost-drawn, in the games they played on opposite teams)",
    }.get(table.mode, " (won-lost-drawn)")
    return [f"Head to head{how}:", *lines]


def certainty(table: Standings) -> list[str]:
    """How sure the order is: what LOS is, then a sentence for each bot and the next one down.

    The games that would separate two neighbours at :data:`SEPARATED` are an approximation: the
    standard error of their difference shrinks as one over the square root of the games played,
    at the same mix of tables, and their Elo gap is taken to hold. LOS is ``Phi(gap / error)``, so
    with ``z = Phi^-1(LOS)`` now and ``z95 = Phi^-1(0.95)``, the games needed are ``G (z95 /
    z) ** 2`` for the ``G`` played: ``G ((z95 / z) ** 2 - 1)`` more."""
    ratings = table.fit.ratings
    if len(ratings) < 2:
        return []
    lines = [
        "LOS, the likelihood of superiority: the chance that a bot is stronger than the next one "
        f"down, from the ratings and their uncertainty. Separated means a LOS of {SEPARATED:.0%} "
        "or more, which two 95% intervals that overlap can still give."
    ]
    games = table.games
    target = NormalDist().inv_cdf(SEPARATED)
    for k, (first, second) in enumerate(itertools.pairwise(ratings)):
        a, b = printable(first.name), printable(second.name)
        los = 0.5 if first.los_next is None else first.los_next
        if f"{first.elo:+.0f}" == f"{second.elo:+.0f}":
            order = (
                "tied, listed by name"
                if round(first.elo, 6) == round(second.elo, 6)
                else f"{a} ahead by less than a point"
            )
            lines.append(
                f"{a} and {b} are level{' at the top' if k == 0 else ''} on Elo "
                f"({first.elo:+.0f}): {order}; LOS {likelihood(los)}."
            )
        elif los >= SEPARATED:
            lines.append(
                f"{a} is ahead of {b} with {likelihood(los)} likelihood (LOS): separated (LOS "
                f"{SEPARATED:.0%} or more)."
            )
        else:
            z = NormalDist().inv_cdf(max(los, 0.5))
            more = games * ((target / z) ** 2 - 1) if z > 0 else math.inf
            if more > _FAR * max(games, 1):
                lines.append(
                    f"{a} is ahead of {b} with {likelihood(los)} likelihood (LOS): about level; "
                    f"more than {_FAR} times the games played would be needed to separate them."
                )
            else:
                lines.append(
                    f"{a} is ahead of {b} with {likelihood(los)} likelihood (LOS); about "
                    f"{_about(more)} more games like these would separate them (LOS "
                    f"{SEPARATED:.0%}), if the gap holds."
                )
    return lines


def likelihood(los: float) -> str:
    """A LOS as a percentage, with a decimal where a whole percentage would hide which side of
    :data:`SEPARATED` it is on, and never 100% or 0% (a fit over finite games is never certain,
    even when the float rounds to 1): ``>99%`` and ``<1%`` at the ends. The table, the sentences
    and the report's page all print a LOS with it."""
    if los >= 0.995:
        return ">99%"
    if los < 0.005:
        return "<1%"
    if abs(los - SEPARATED) < 0.005:
        return f"{math.floor(los * 1000) / 10:.1f}%"
    return f"{los:.0%}"


def _about(count: float) -> str:
    """``count`` to two significant figures (at least 1): ``1,234.5`` is ``"1,200"``."""
    n = max(1, math.ceil(count))
    digits = len(str(n))
    return f"{n if digits <= 2 else round(n, 2 - digits):,}"


def render_notes(table: Standings, width: int | None = None) -> str:
    """What follows the table: the head-to-head results and the certainty sentences, a line each
    (wrapped to ``width`` when one is given)."""
    blocks = [_wrap(block, width) for block in (head_to_head(table), certainty(table)) if block]
    return "\n\n".join("\n".join(block) for block in blocks) + "\n" if blocks else ""


def _wrap(lines: Sequence[str], width: int | None) -> list[str]:
    """``lines`` wrapped at ``width`` (None: left whole, a line each), each continuation
    indented two more spaces; a word longer than the width is left whole."""
    if width is None:
        return list(lines)
    out = []
    for line in lines:
        indent = line[: len(line) - len(line.lstrip())]
        out.extend(
            textwrap.wrap(
                line,
                width,
                subsequent_indent=indent + "  ",
                break_long_words=False,
                break_on_hyphens=False,
            )
        )
    return out


def terminal_width() -> int | None:
    """The width of the terminal standard output is, or None when it is not one (a pipe, a
    file: then tables are as wide as they need, a row a line)."""
    return shutil.get_terminal_size().columns if sys.stdout.isatty() else None


def render(table: Standings, fmt: str, games: Sequence[GameRow] = ()) -> str:
    """The standings as ``fmt``. A table fits the terminal when standard output is one, and is
    followed by the forfeits (see :func:`forfeits`) of ``games`` and :func:`render_notes`. CSV
    keeps the names exactly, but for a terminal, where their control characters are escaped
    (JSON escapes them itself)."""
    if fmt == "json":
        return render_json(table)
    if fmt == "csv":
        text = render_csv(table)
        return printable(text, lines=True) if sys.stdout.isatty() else text
    width = terminal_width()
    lines = "".join(f"{line}\n" for line in _wrap([printable(x) for x in forfeits(games)], width))
    parts = (render_table(table, width).rstrip("\n") + "\n", lines, render_notes(table, width))
    return "\n".join(part for part in parts if part) + "\n"
