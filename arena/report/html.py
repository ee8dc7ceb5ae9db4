"""The report as one self-contained HTML page: the data of :func:`arena.report.data.build`, the
plots of :func:`arena.report.plots.draw` (inline SVG) and a replay viewer, with nothing fetched
from anywhere (inline CSS, inline script, no font, image or link outside the file).

:func:`render` fills ``page.html`` (next to this module, package data, as ``page.css`` and
``viewer.js`` are) with the sections' HTML, made here with every value from the data escaped. The
data itself is embedded once, as JSON in ``<script type="application/json" id="report-data">``
with every ``<`` written ``\\u003c``: no text in it (a bot's name, a failure's message) can close
the script element. The viewer (``viewer.js``) reads it with ``JSON.parse`` and builds the replay
with ``textContent`` and ``createElement``, never ``innerHTML``.

The tables are in the HTML (they read without script, in print and with a screen reader); the
script adds the game list's filter and the replay viewer.
"""

from __future__ import annotations

import functools
import html
import importlib.resources
import json
import re
from collections.abc import Iterable, Sequence
from typing import Any, Final

from arena.report.facts import when
from arena.report.plots import bot_style, score_colour
from arena.tournament.standings import likelihood

_PLACEHOLDER: Final = re.compile(r"\{\{(\w+)\}\}")
SOURCE_KINDS: Final = {
    "tournament": "tournament database",
    "league": "league database",
    "record": "match record",
}
"""How the header names the source of each kind."""


def render(data: dict[str, Any], plots: dict[str, str] | None, note: str | None = None) -> str:
    """The whole page of a report's ``data``, with ``plots`` (inline SVG by key, as
    :func:`arena.report.plots.draw` makes them; None: no plots) and ``note`` (shown under the
    header: e.g. why the plots are missing)."""
    figures = plots or {}
    colours = {row["name"]: bot_style(i)[0] for i, row in enumerate(data["standings"])}
    values = {
        "title": _e(data["title"]),
        "engine_version": _e(data["engine_version"]),
        "generated": _e(when(data["generated"])),
        "css": _asset("page.css"),
        "js": _asset("viewer.js"),
        "header": _header(data, note),
        "standings": _standings(data, figures.get("elo"), colours),
        "crosstable": _crosstable(data),
        "elo_history": _elo_history(data, figures.get("elo_history"), colours),
        "failures": _failures(data),
        "move_times": _move_times(data, figures.get("move_times"), colours),
        "games": _games(data),
        "data": script_json(data),
    }
    # One pass: what is put in is never scanned for placeholders again.
    return _PLACEHOLDER.sub(lambda match: values[match.group(1)], _asset("page.html"))


def script_json(data: Any) -> str:
    """``data`` as JSON safe inside a ``<script>`` element: ``<`` is written ``\\u003c`` (so
    neither ``</script>`` nor ``<!--`` can appear), ``>`` and ``&`` likewise; ``JSON.parse``
    reads it back unchanged."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


@functools.cache
def _asset(name: str) -> str:
    text = importlib.resources.files("arena.report").joinpath(name).read_text(encoding="utf-8")
    if name != "page.html" and re.search(r"</(script|style)", text, re.IGNORECASE):
        raise ValueError(f"{name} must not contain </script or </style: it is inlined")
    return text


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _signed(value: float) -> str:
    text = f"{value:+.0f}"
    return "0" if text in ("+0", "-0") else text.replace("-", "\u2212")


def _percent(share: float, digits: int = 1) -> str:
    return f"{share * 100:.{digits}f}%"


def _ms(value: float) -> str:
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    if value >= 1:
        return f"{value:.2f}"
    return f"{value:.3f}"


def _rule_value(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value) if isinstance(value, (int, float, str)) else json.dumps(value)


def _swatch(colour: str | None) -> str:
    if colour is None:
        return ""
    return f'<span class="swatch" style="background:{colour}" aria-hidden="true"></span>'


def _table(
    table_id: str,
    caption: str,
    head: Iterable[str],
    rows: Iterable[str],
    *,
    numeric: Sequence[int] = (),
    css: str = "data",
) -> str:
    cells = "".join(
        f'<th scope="col"{" class=num" if i in numeric else ""}>{h}</th>'
        for i, h in enumerate(head)
    )
    return (
        f'<p class="table-note" id="{table_id}-note">{caption}</p>'
        f'<div class="scroll" tabindex="0" role="region" aria-labelledby="{table_id}-note">'
        f'<table id="{table_id}" class="{css}" aria-labelledby="{table_id}-note">'
        f"<thead><tr>{cells}</tr></thead>\n<tbody>\n" + "\n".join(rows) + "\n</tbody></table></div>"
    )


def _figure(svg: str | None, caption: str) -> str:
    if not svg:
        return ""
    return f'<figure class="plot-figure">{svg}<figcaption>{caption}</figcaption></figure>'


def _header(data: dict[str, Any], note: str | None) -> str:
    source = data.get("source", {})
    kind = SOURCE_KINDS.get(source.get("kind", ""), source.get("kind", "source"))
    event = data.get("event") or {}
    items = [
        ("Source", f"{_e(kind)} <code>{_e(source.get('path', ''))}</code>"),
        (
            "Generated",
            f'<time datetime="{_e(data["generated"])}">{_e(when(data["generated"]))}</time>',
        ),
        ("Engine", _e(data["engine_version"])),
        ("Games", _e(data["games"])),
    ]
    if not event:  # data from before the facts: the mode at least
        items.append(("Mode", _e(data["mode"])))
    meta = "".join(f"<div><dt>{k}</dt><dd>{v}</dd></div>" for k, v in items)
    out = f'<dl class="meta">{meta}</dl>'
    if event:
        facts = "".join(
            f'<div data-fact="{_e(label)}"><dt>{_e(label)}</dt><dd>{_e(text)}</dd></div>'
            for label, text in event.get("summary", [])
        )
        out += f'<dl class="facts" id="event-facts">{facts}</dl>'
    rules = (event.get("rules") or {}).get("options") or data.get("rules") or {}
    chips = "".join(
        f"<li><span class=key>{_e(str(key).replace('_', ' '))}</span> {_e(_rule_value(value))}</li>"
        for key, value in rules.items()
    )
    if chips:
        out += (
            '<details class="rules"><summary>Every rules option</summary>'
            f"<ul>{chips}</ul></details>"
        )
    out += _bots(event.get("bots") or [])
    if note:
        out += f'<p class="note" id="report-note" role="note">{_e(note)}</p>'
    return out


BOTS_OPEN: Final = 12
"""A header lists this many bots open; more are folded (a league's thousand versions)."""


def _bots(bots: Sequence[dict[str, Any]]) -> str:
    """The bots as the database (or record) has them: name, command, version and digest (the
    first characters, the whole in its title), and a league version's status."""
    if not bots:
        return ""
    status = any("status" in bot for bot in bots)
    rows = []
    for bot in bots:
        digest = (
            f'<code title="{_e(bot["digest"])}">{_e(bot["digest_short"])}</code>'
            if bot.get("digest")
            else '<span class="muted">not recorded</span>'
        )
        rows.append(
            f'<tr data-bot="{_e(bot["name"])}"><th scope="row">{_e(bot["name"])}</th>'
            f'<td class="command"><code>{_e(bot["command"])}</code></td>'
            f"<td>{_e(bot['version'])}</td><td>{digest}</td>"
            + (f"<td>{_e(bot.get('status', ''))}</td>" if status else "")
            + "</tr>"
        )
    table = _table(
        "bots-table",
        "The bots: each one's command, the version it declared and the digest of its program "
        "(its command and the files it names; hover for the whole).",
        ["Bot", "Command", "Version", "Digest", *(["Status"] if status else [])],
        rows,
    )
    if len(bots) <= BOTS_OPEN:
        return f'<div class="bots">{table}</div>'
    return f'<details class="bots"><summary>The {len(bots)} bots</summary>{table}</details>'


def _standings(data: dict[str, Any], svg: str | None, colours: dict[str, str]) -> str:
    rows = []
    for r in data["standings"]:
        name = _e(r["name"])
        los = "\u2013" if r["los_next"] is None else likelihood(r["los_next"])
        rows.append(
            f'<tr data-bot="{name}"><td class="num">{r["rank"]}</td>'
            f'<th scope="row">{_swatch(colours.get(r["name"]))}{name}</th>'
            f'<td class="num strong">{_signed(r["elo"])}</td>'
            f'<td class="num">[{_signed(r["low"])}, {_signed(r["high"])}]</td>'
            f'<td class="num">{r["games"]}</td><td class="num">{r["wins"]}</td>'
            f'<td class="num">{r["losses"]}</td><td class="num">{r["draws"]}</td>'
            f'<td class="num">{_percent(r["score"])}</td><td class="num">{los}</td></tr>'
        )
    table = _table(
        "standings-table",
        "Elo from a Bradley-Terry fit over all games, with its 95% interval; LOS: the likelihood "
        "that the bot is stronger than the next one down (two bots are called separated at a LOS "
        "of 95% or more, which overlapping 95% intervals can still give).",
        ["#", "Bot", "Elo", "95% interval", "Games", "Wins", "Losses", "Draws", "Score", "LOS"],
        rows,
        numeric=(0, 2, 3, 4, 5, 6, 7, 8, 9),
    )
    return table + _figure(svg, "Elo with its 95% interval, best first.") + _certainty(data)


def _certainty(data: dict[str, Any]) -> str:
    """How sure each place is, in the terminal's words: what LOS is, then a sentence for each
    bot and the next one down."""
    lines = (data.get("sentences") or {}).get("certainty") or []
    if not lines:
        return ""
    return _sentences("certainty", "How sure each place is", lines[1:], lines[0])


def _head_to_head(data: dict[str, Any]) -> str:
    """Each pair's results in words (the terminal's, under a heading of its own)."""
    lines = (data.get("sentences") or {}).get("head_to_head") or []
    if not lines:
        return ""
    return _sentences("head-to-head", lines[0].rstrip(":"), lines[1:])


def _sentences(block: str, heading: str, lines: Sequence[str], lead: str | None = None) -> str:
    items = "".join(f"<li>{_e(line)}</li>" for line in lines)
    first = "" if lead is None else f'<p class="muted">{_e(lead)}</p>'
    return (
        f'<div class="sentences" id="{block}"><h3>{_e(heading)}</h3>{first}<ul>{items}</ul></div>'
    )


HEAD_CHARS: Final = 9
"""A crosstable column's head shows a bot's name to this many characters (longer ones are cut,
with the whole name in its title)."""


def _column_head(name: str) -> str:
    if len(name) <= HEAD_CHARS:
        return f'<span title="{_e(name)}">{_e(name)}</span>'
    short = name[: HEAD_CHARS - 1] + "\u2026"
    return (
        f'<abbr title="{_e(name)}" aria-hidden="true">{_e(short)}</abbr>'
        f'<span class="sr-only">{_e(name)}</span>'
    )


def _crosstable(data: dict[str, Any]) -> str:
    table = data["crosstable"]
    bots: list[str] = table["bots"]
    head = ["Bot"] + [_column_head(name) for name in bots]
    rows = []
    for i, (name, line) in enumerate(zip(bots, table["cells"], strict=True), 1):
        cells = []
        for j, cell in enumerate(line):
            if cell is None:
                css = "blank self" if j == i - 1 else "blank"
                cells.append(f'<td class="{css}"></td>')
                continue
            background, ink = score_colour(cell["score"])
            title = (
                f"{name} against {bots[j]}: {cell['wins']} won, {cell['losses']} lost, "
                f"{cell['draws']} drawn"
            )
            cells.append(
                f'<td class="num" style="background:{background};color:{ink}" title="{_e(title)}">'
                f"{_percent(cell['score'], 0)} ({cell['games']})</td>"
            )
        rows.append(
            f'<tr data-bot="{_e(name)}"><th scope="row"><span class="rank">{i}</span> '
            f"{_e(name)}</th>{''.join(cells)}</tr>"
        )
    out = _table(
        "crosstable-table",
        "The row bot's score against the column bot (games played), coloured from red (the row "
        "bot scored less) through white (even) to blue (it scored more); rows and columns by "
        "rank. Blank: the bots never met.",
        head,
        rows,
        css="data crosstable",
    )
    return out + _head_to_head(data)


def _elo_history(data: dict[str, Any], svg: str | None, colours: dict[str, str]) -> str:
    history = data["elo_history"]
    marks: list[int] = history["games"]
    series: dict[str, list[float | None]] = history["elo"]
    names = [r["name"] for r in data["standings"] if r["name"] in series]
    names += [name for name in series if name not in names]
    rows = []
    for index, mark in enumerate(marks):
        values = "".join(
            f'<td class="num">{"" if series[n][index] is None else _signed(series[n][index] or 0)}'
            "</td>"
            for n in names
        )
        rows.append(f'<tr><th scope="row" class="num">{mark}</th>{values}</tr>')
    caption = _e(history.get("caption", "Elo fitted on the games up to each point."))
    table = _table(
        "elo-history-table",
        f"The plot's figures: each bot's Elo at each point, by {_e(history.get('axis', 'games'))}"
        " (blank: not played yet).",
        ["Games"] + [f"{_swatch(colours.get(n))}{_e(n)}" for n in names],
        rows,
        numeric=tuple(range(len(names) + 1)),
    )
    if svg:
        figures = f"<details><summary>The figures</summary>{table}</details>"
        return _figure(svg, caption) + figures
    return f'<p class="muted">{caption} No plot (see the note at the top): the figures.</p>{table}'


def _failures(data: dict[str, Any]) -> str:
    failures = data["failures"]
    if not failures["counts"]:
        return (
            '<p class="ok" id="no-failures">'
            "No forfeits: no bot crashed, timed out or broke a rule.</p>"
        )
    counts = _table(
        "failures-table",
        "Forfeits by bot and reason.",
        ["Bot", "Reason", "Forfeits"],
        [
            f'<tr data-bot="{_e(f["bot"])}"><th scope="row">{_e(f["bot"])}</th>'
            f'<td>{_e(f["reason"])}</td><td class="num">{f["count"]}</td></tr>'
            for f in failures["counts"]
        ],
        numeric=(2,),
    )
    replays = data.get("replays") or {}
    examples = []
    for x in failures["examples"]:
        game = _e(x["game"])
        link = (
            f'<a href="#replay-{game}" class="replay-link" data-replay="{game}">{game}</a>'
            if str(x["game"]) in replays
            else game
        )
        rule = f'<span class="rule">{_e(x["rule"])}</span>' if x.get("rule") else ""
        examples.append(
            f'<tr data-game="{game}"><td class="num">{link}</td><th scope="row">{_e(x["bot"])}</th>'
            f"<td>{_e(x['reason'])}</td><td>{rule}</td>"
            f'<td class="message">{_e(x["message"])}</td></tr>'
        )
    listed = _table(
        "failure-examples",
        "Examples: the first few of each bot and reason (the game links to its replay).",
        ["Game", "Bot", "Reason", "Rule", "Message"],
        examples,
        numeric=(0,),
    )
    return counts + listed


def _move_times(data: dict[str, Any], svg: str | None, colours: dict[str, str]) -> str:
    rows = []
    for m in data["move_times"]:
        name = _e(m["bot"])
        if not m.get("moves"):
            stats = '<td class="num">0</td>' + '<td class="num">\u2013</td>' * 4
        else:
            stats = f'<td class="num">{m["moves"]}</td>' + "".join(
                f'<td class="num">{_ms(m[key])}</td>'
                for key in ("mean_ms", "median_ms", "p90_ms", "max_ms")
            )
        rows.append(
            f'<tr data-bot="{name}"><th scope="row">{_swatch(colours.get(m["bot"]))}{name}</th>'
            f"{stats}</tr>"
        )
    table = _table(
        "move-times-table",
        "Each bot's time per move, in milliseconds, over every recorded action.",
        ["Bot", "Moves", "Mean", "Median", "90th percentile", "Max"],
        rows,
        numeric=(1, 2, 3, 4, 5),
    )
    return table + _figure(svg, "Move times: how each bot's moves spread over the time bins.")


def _pairs(data: dict[str, Any]) -> list[tuple[str, str, int]]:
    order = {r["name"]: i for i, r in enumerate(data["standings"])}
    counts: dict[tuple[str, str], int] = {}
    for game in data["game_list"]:
        players = sorted(set(game["players"]), key=lambda n: (order.get(n, len(order)), n))
        for i, a in enumerate(players):
            for b in players[i + 1 :]:
                counts[(a, b)] = counts.get((a, b), 0) + 1
    ranked = sorted(counts, key=lambda p: (order.get(p[0], 0), order.get(p[1], 0), p))
    return [(a, b, counts[(a, b)]) for a, b in ranked]


def _games(data: dict[str, Any]) -> str:
    games = data["game_list"]
    options = [f'<option value="">all pairs ({len(games)})</option>']
    for i, (a, b, count) in enumerate(_pairs(data)):
        options.append(
            f'<option value="{i}" data-a="{_e(a)}" data-b="{_e(b)}">'
            f"{_e(a)} v {_e(b)} ({count})</option>"
        )
    rows = []
    for g in games:
        gid = _e(g["id"])
        link = (
            f'<a href="#replay-{gid}" class="replay-link" data-replay="{gid}">{gid}</a>'
            if g.get("replay")
            else gid
        )
        players = g["players"]
        joined = " v " if len(players) == 2 else ", "
        reason = _e(g["reason"])
        if g.get("failed"):
            reason += f' <span class="muted">({_e(g["failed"])})</span>'
        winner = "draw" if g["winner"] is None else _e(g["winner"])
        scores = "\u2013".join(str(s) for s in g["scores"])
        css = ' class="forfeit"' if g.get("failed") else ""
        rows.append(
            f'<tr data-game="{gid}"{css}><td class="num">{link}</td>'
            f"<td>{joined.join(_e(p) for p in players)}</td><td>{winner}</td>"
            f'<td class="num">{scores}</td><td>{reason}</td><td class="num">{g["hands"]}</td>'
            f'<td class="num">{g["seconds"]:.3f}</td>'
            f'<td class="num"><code>{_e(g.get("seed", ""))}</code></td></tr>'
        )
    table = _table(
        "games-table",
        "Every game (the number links to its replay): the players in their seats, the scores in "
        "the same order, and the seed of its deal (a mirrored game shares its deal's).",
        ["Game", "Players", "Winner", "Scores", "Reason", "Hands", "Seconds", "Deal seed"],
        rows,
        numeric=(0, 3, 5, 6, 7),
        css="data games",
    )
    return (
        '<div class="filter"><label for="pair-filter">Show</label> '
        f'<select id="pair-filter" data-testid="pair-filter">{"".join(options)}</select> '
        f'<output id="games-shown" aria-live="polite">{len(games)} games</output></div>'
        + table.replace('<div class="scroll"', '<div class="scroll tall"', 1)
    )


__all__ = ["render", "script_json"]
