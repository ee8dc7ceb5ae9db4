"""The report's plots, as inline SVG: the Elo ratings with their 95% intervals, Elo as the games
went and the move-time distributions (the crosstable is a table in the page, its cells coloured by
:func:`score_colour`).

Why matplotlib: it is a well-kept plotting library whose SVG backend makes self-contained vector
plots (no script, no font file, no image: paths and text), small and sharp at any width and in
print. It is heavy, so it is an optional extra (``pip install 'gin-rummy-arena[report]'``): without
it the report still has every table, and :func:`missing` says what to install.

The figures are drawn with matplotlib's object API (:class:`matplotlib.figure.Figure` on an Agg
canvas), never pyplot's global state, and written with text kept as text (``svg.fonttype`` none:
small and selectable) and no date, so that the same data gives the same bytes. Each SVG's ids are
prefixed with its key, so that the plots inlined in one page never clash. Every bot has the
same colour (and, past the palette, line style and marker) in every plot, in standings order, from
a colour-blind-safe palette (Okabe and Ito).

This module imports matplotlib only in :func:`draw`: the palette and the score colours
(:func:`score_colour`, the HTML crosstable's) need nothing.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from arena.terminal import printable

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.typing import RcKeyType

INSTALL_NOTE: Final = (
    "The plots need matplotlib, which is not installed: "
    "pip install 'gin-rummy-arena[report]' and make the report again."
)

PALETTE: Final = (
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#000000",  # black
)
"""Okabe and Ito's colour-blind-safe colours (their yellow left out: too pale on white)."""
LINE_STYLES: Final = ("-", "--", ":", "-.")
MARKERS: Final = ("o", "s", "^", "D")

SCORE_COLOURS: Final = (
    "#b2182b",
    "#d6604d",
    "#f4a582",
    "#fddbc7",
    "#f7f7f7",
    "#f7f7f7",
    "#d1e5f0",
    "#92c5de",
    "#4393c3",
    "#2166ac",
)
"""Ten bins of a score share, 0-10% to 90-100%: ColorBrewer's RdBu (colour-blind safe), red for
a losing score, blue for a winning one, near-white around 50%."""
DARK_SCORE_BINS: Final = frozenset({0, 9})
"""The bins dark enough to need white text."""

WIDTH: Final = 9.0
"""Figure width in inches (648 pt): reads well scaled to 700-900 px."""
FONT_SIZE: Final = 10.0
LABEL_CHARS: Final = 24
"""Bot names longer than this are cut (with an ellipsis) in the plots; the tables show them in
full."""


def missing() -> str | None:
    """None when matplotlib can be imported (the plots can be drawn), else the sentence to show
    in the page instead of them."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return INSTALL_NOTE
    return None


def score_bin(score: float) -> int:
    """Which of the :data:`SCORE_COLOURS` bins a score share (0 to 1) falls in."""
    return min(len(SCORE_COLOURS) - 1, max(0, math.floor(score * len(SCORE_COLOURS))))


def score_colour(score: float) -> tuple[str, str]:
    """The background and text colours of a crosstable cell with this score share."""
    index = score_bin(score)
    return SCORE_COLOURS[index], "#ffffff" if index in DARK_SCORE_BINS else "#1a1a1a"


def bot_style(index: int) -> tuple[str, str, str]:
    """The colour, line style and marker of the bot ranked ``index`` (from 0)."""
    cycle = index // len(PALETTE)
    return (
        PALETTE[index % len(PALETTE)],
        LINE_STYLES[cycle % len(LINE_STYLES)],
        MARKERS[cycle % len(MARKERS)],
    )


def label(name: str) -> str:
    """A bot's name as the plots show it: control characters escaped (no font has them, and
    matplotlib's warning about a missing glyph would print them raw), cut to
    :data:`LABEL_CHARS`."""
    name = printable(name)
    return name if len(name) <= LABEL_CHARS else name[: LABEL_CHARS - 1] + "…"


def draw(data: dict[str, Any]) -> dict[str, str]:
    """The plots of a report's data (:func:`arena.report.data.build`) as inline ``<svg>``
    elements, by key: ``elo``, ``elo_history`` and ``move_times`` (the crosstable is the page's
    table, coloured as a heatmap: one copy of its numbers)."""
    import matplotlib

    order = [row["name"] for row in data["standings"]]
    drawers = {
        "elo": (_elo, "Elo ratings with their 95% intervals"),
        "elo_history": (_elo_history, "Elo as the games were played"),
        "move_times": (_move_times, "Move times of each bot"),
    }
    out = {}
    with matplotlib.rc_context(_RC):
        for key, (drawer, title) in drawers.items():
            figure = drawer(data, order)
            out[key] = _svg(figure, key.replace("_", "-"), title)
    return out


_RC: Final[dict[RcKeyType, Any]] = {
    "svg.fonttype": "none",
    "svg.hashsalt": "gin-arena-report",
    "svg.id": None,
    "text.parse_math": False,  # a bot named "$x$" is a name, not a formula
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans"],
    "font.size": FONT_SIZE,
    "axes.titlesize": FONT_SIZE,
    "axes.labelsize": FONT_SIZE,
    "axes.edgecolor": "#555555",
    "axes.labelcolor": "#222222",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "xtick.color": "#444444",
    "ytick.color": "#444444",
    "xtick.labelcolor": "#222222",
    "ytick.labelcolor": "#222222",
    "grid.color": "#dddddd",
    "grid.linewidth": 0.6,
    "legend.frameon": False,
    "legend.fontsize": 8.5,
    "figure.facecolor": "#ffffff",
    "path.simplify": True,
}


def _figure(height: float, width: float = WIDTH) -> tuple[Figure, Axes]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure, figure.add_subplot()


def _elo(data: dict[str, Any], order: list[str]) -> Figure:
    rows = data["standings"]
    count = len(rows)
    figure, ax = _figure(max(2.0, 0.9 + 0.3 * count))
    ax.axvline(0, color="#999999", linewidth=0.8, linestyle="--", zorder=1)
    span = max([abs(r["high"]) for r in rows] + [abs(r["low"]) for r in rows] + [50.0])
    for index, row in enumerate(rows):
        colour, _, marker = bot_style(index)
        y = count - 1 - index
        elo, low, high = row["elo"], row["low"], row["high"]
        ax.errorbar(
            [elo],
            [y],
            xerr=[[max(0.0, elo - low)], [max(0.0, high - elo)]],
            fmt=marker,
            color=colour,
            markersize=6,
            elinewidth=1.6,
            capsize=4,
            zorder=3,
        )
        ax.annotate(
            f"{_signed(elo)}",
            (high, y),
            xytext=(6, 0),
            textcoords="offset points",
            va="center",
            fontsize=8.5,
            color="#444444",
        )
    ax.set_yticks(range(count), [label(name) for name in reversed(order)])
    ax.set_ylim(-0.7, count - 0.3)
    ax.set_xlim(-span * 1.12, span * 1.12)
    ax.set_xlabel("Elo, with its 95% interval")
    ax.grid(axis="x")
    ax.tick_params(axis="y", length=0)
    return figure


def _elo_history(data: dict[str, Any], order: list[str]) -> Figure:
    from matplotlib.ticker import MaxNLocator

    history = data["elo_history"]
    marks: list[int] = history["games"]
    series: dict[str, list[float | None]] = history["elo"]
    names = [name for name in order if name in series]
    names += [name for name in series if name not in names]
    figure, ax = _figure(4.2)
    ax.axhline(0, color="#999999", linewidth=0.8, linestyle="--", zorder=1)
    few = len(marks) <= 24
    for index, name in enumerate(names):
        colour, style, marker = bot_style(index)
        values = [math.nan if v is None else float(v) for v in series[name]]
        ax.plot(
            marks,
            values,
            color=colour,
            linestyle=style,
            linewidth=1.6,
            marker=marker if few or len(names) > len(PALETTE) else None,
            markersize=3.5,
            label=label(name),
        )
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(history.get("axis", "games played"))
    ax.set_ylabel("Elo")
    ax.grid(True)
    if marks:
        ax.set_xlim(0, max(marks) * 1.01 + 0.5)
    if len(names) <= 5:
        ax.legend(loc="best")
    else:
        columns = math.ceil(len(names) / 22)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), ncols=columns, borderaxespad=0)
    return figure


_TICKS_MS: Final = ((0.01, "0.01 ms"), (0.1, "0.1 ms"), (1, "1 ms"), (10, "10 ms"), (100, "100 ms"))
_TICKS_MS_LONG: Final = ((1000, "1 s"), (10000, "10 s"), (100000, "100 s"))


def _move_times(data: dict[str, Any], order: list[str]) -> Figure:
    from matplotlib.lines import Line2D

    rows: list[dict[str, Any]] = list(data["move_times"])
    count = len(rows)
    figure, ax = _figure(max(2.2, 1.0 + 0.42 * count))
    edges: Sequence[float] = next(
        (row["histogram"]["edges_ms"] for row in rows if row.get("moves")), [0.0, 1.0]
    )
    low = edges[1] / 10 if edges[0] <= 0 else edges[0]
    last = max(
        (
            i
            for row in rows
            if row.get("moves")
            for i, c in enumerate(row["histogram"]["counts"])
            if c
        ),
        default=0,
    )
    high = edges[last + 1] if last + 1 < len(edges) else edges[-1] * 3
    high = max(high, 100.0 if low < 100.0 else low * 100)
    index_of = {name: i for i, name in enumerate(order)}
    for place, row in enumerate(rows):
        base = count - 1 - place
        colour, _, _ = bot_style(index_of.get(row["bot"], place))
        if not row.get("moves"):
            ax.text(low * 1.3, base, "no moves recorded", va="center", fontsize=8.5, color="#666")
            continue
        counts: list[int] = row["histogram"]["counts"]
        peak = max(counts) or 1
        lefts = [max(low, edge) for edge in edges]
        rights = [*edges[1:], high]
        ax.bar(
            lefts,
            [0.8 * c / peak for c in counts],
            width=[r - left for left, r in zip(lefts, rights, strict=True)],
            bottom=base - 0.4,
            align="edge",
            color=colour,
            alpha=0.85,
            edgecolor="#ffffff",
            linewidth=0.6,
        )
        median = min(max(row["median_ms"], low), high)
        p90 = min(max(row["p90_ms"], low), high)
        ax.vlines(median, base - 0.45, base + 0.45, color="#000000", linewidth=1.6)
        ax.vlines(p90, base - 0.45, base + 0.45, color="#000000", linewidth=1.2, linestyle=":")
        ax.axhline(base - 0.4, color="#cccccc", linewidth=0.6, zorder=0)
    ax.set_xscale("log")
    ax.set_xlim(low, high)
    ticks = [t for t in (*_TICKS_MS, *_TICKS_MS_LONG) if low <= t[0] <= high]
    ax.set_xticks([t[0] for t in ticks], [t[1] for t in ticks])
    ax.minorticks_off()
    ax.set_yticks(range(count), [label(row["bot"]) for row in reversed(rows)])
    ax.set_ylim(-0.6, count - 0.35)
    ax.tick_params(axis="y", length=0)
    ax.grid(axis="x")
    ax.set_xlabel("time per move (log scale; bars: share of each bot's moves, scaled per bot)")
    ax.legend(
        handles=[
            Line2D([], [], color="#000000", linewidth=1.6, label="median"),
            Line2D([], [], color="#000000", linewidth=1.2, linestyle=":", label="90th percentile"),
        ],
        loc="lower left",
        bbox_to_anchor=(0.0, 1.0),
        ncols=2,
        borderaxespad=0.2,
    )
    return figure


def _signed(value: float) -> str:
    text = f"{value:+.0f}"
    return "0" if text in ("+0", "-0") else text


_PROLOG = re.compile(r"\A.*?(?=<svg[\s>])", re.DOTALL)
_METADATA = re.compile(r"\s*<metadata>.*?</metadata>", re.DOTALL)
_STYLE = re.compile(r"\s*<style type=\"text/css\">[^<]*</style>")
_EMPTY_DEFS = re.compile(r"\s*<defs>\s*</defs>")
_REFERENCE = re.compile(r"(?:url\(#|href=\"#)([^)\"]+)")
_ID = re.compile(r" id=\"([^\"]+)\"")
_ROOT = re.compile(r"<svg\b[^>]*>")
_ATTRIBUTE = re.compile(r"([\w:]+)=\"([^\"]*)\"")


def _svg(figure: Figure, prefix: str, title: str) -> str:
    """``figure`` as an ``<svg>`` element for an HTML page: no prolog, metadata or namespace
    declarations, ids that nothing refers to dropped and the others prefixed with
    ``prefix``, its size in points kept (the page's CSS scales it down to the width), with a title
    for screen readers."""
    buffer = io.StringIO()
    # A tight box: no blank margins round the labels.
    figure.savefig(
        buffer, format="svg", metadata={"Date": None}, bbox_inches="tight", pad_inches=0.08
    )
    svg = buffer.getvalue()
    svg = _PROLOG.sub("", svg, count=1)
    svg = _METADATA.sub("", svg, count=1)
    svg = _STYLE.sub("", svg, count=1)  # *{stroke-linejoin: round; ...}: page.css has it
    svg = _EMPTY_DEFS.sub("", svg, count=1)
    svg = svg.replace("xlink:href=", "href=")
    used = set(_REFERENCE.findall(svg))

    def rename(match: re.Match[str]) -> str:
        name = match.group(1)
        return f' id="{prefix}-{name}"' if name in used else ""

    svg = _ID.sub(rename, svg)
    svg = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}-{m.group(1)})", svg)
    svg = re.sub(r"href=\"#([^\"]+)\"", lambda m: f'href="#{prefix}-{m.group(1)}"', svg)
    found = _ROOT.search(svg)
    attributes = dict(_ATTRIBUTE.findall(found.group(0))) if found else {}
    size = "".join(
        f' {name}="{attributes[name]}"' for name in ("width", "height") if name in attributes
    )
    root = (
        f'<svg class="plot" id="plot-{prefix}"{size}'
        f' viewBox="{attributes.get("viewBox", "0 0 648 324")}" role="img"'
        f' aria-labelledby="plot-{prefix}-title">'
        f'<title id="plot-{prefix}-title">{title}</title>'
    )
    svg = _ROOT.sub(lambda _: root, svg, count=1)
    # Path data comes one command a line: one space is enough.
    svg = re.sub(r" ?\n(?=[A-Za-z])", " ", svg)
    return svg.strip()
