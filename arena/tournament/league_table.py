"""A league's standings as data and as a table: one JSON-ready row a version
(:func:`standings_json`, what ``league standings --format json`` prints, its CSV flattens and a
live page serves), and the table ``league standings`` and ``league run`` print from those rows
(:func:`render_table`).

Each row holds a version's rating and record, its forfeits by reason as a tournament counts them
(:data:`arena.seats.connection.FAILURE_REASONS`), whether it is broken
(:mod:`arena.tournament.league_health`), and where it stands among its bot's versions: the version
it replaces or was replaced by, the change from the version before it (``+N [lo, hi]``: the
difference of their Elo, its 95% interval from the fit's covariance,
:class:`arena.stats.league_change.Contrasts`), and, before it has played, where the scheduler
places it. docs/LEAGUE.md, "The standings", documents every field; a test holds the two together.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from arena.seats.connection import FAILURE_REASONS
from arena.stats.league import Standing
from arena.stats.league_change import Contrasts
from arena.stats.ratings import Z95
from arena.terminal import printable
from arena.tournament import compare
from arena.tournament.league import State
from arena.tournament.standings import FAILURE_COLUMNS, forfeits_note

FIELDS: Final = (
    "rank",
    "version",
    "bot",
    "elo",
    "ci95",
    "games",
    "wins",
    "losses",
    "draws",
    "active",
    "settled",
    "status",
    "forfeits",
    "broken",
    "replaces",
    "replaced_by",
    "change",
    "placed",
)
"""The fields of a row of :func:`standings_json`, in order."""
NESTED: Final[Mapping[str, tuple[str, ...]]] = {
    "forfeits": FAILURE_REASONS,
    "broken": ("reason", "message", "games", "pairings", "first_game"),
    "change": ("from", "elo", "ci95"),
    "placed": ("elo", "by"),
}
"""The fields of the rows' objects (each ``null`` when it does not apply, but ``forfeits``)."""


def standings_json(state: State, *, all_versions: bool = False) -> list[dict[str, Any]]:
    """The league's standings, best first: the active versions and the broken ones no update
    has followed yet (every version with ``all_versions``), one JSON-ready row each with the
    :data:`FIELDS` (docs/LEAGUE.md). Pure: it prints nothing and changes nothing but the fit's
    convergence."""
    league = state.league
    every = league.standings(all_versions=True)
    by = {row.version: row for row in every}
    previous = {v: p for v in by if (p := _before(v)) in by}
    successor = {p: v for v, p in previous.items() if v not in state.kept}
    unplayed = any(not row.games for row in every)
    contrasts = Contrasts(league) if previous or unplayed else None
    rows = []
    broken = state.health.broken
    shown = [  # a broken version is its bot's, until an update: shown with the active ones
        row
        for row in every
        if all_versions or row.active or (row.version in broken and _newest(state, row))
    ]
    for rank, row in enumerate(shown, 1):
        version = row.version
        found = broken.get(version)
        before = previous.get(version)
        rows.append(
            {
                "rank": rank,
                "version": version,
                "bot": row.bot,
                "elo": _tenths(row.elo),
                "ci95": [_tenths(row.low), _tenths(row.high)],
                "games": row.games,
                "wins": row.wins,
                "losses": row.losses,
                "draws": row.draws,
                "active": row.active,
                "settled": row.settled,
                "status": _status(row, found is not None, successor.get(version)),
                "forfeits": dict(state.forfeits.get(version, dict.fromkeys(FAILURE_REASONS, 0))),
                "broken": None if found is None or row.active else found.to_json(),
                "replaces": None if version in state.kept else before,
                "replaced_by": successor.get(version),
                "change": _change(row, by.get(before or ""), contrasts),
                "placed": _placed(row, state, contrasts),
            }
        )
    return rows


def standings_document(state: State, rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` (from :func:`standings_json`) with each version's compares
    (:func:`arena.tournament.compare.by_version`): what ``league standings --format json``
    prints and a live page's ``/api/standings`` serves."""
    compares = compare.by_version(state)
    return [{**row, "compares": compares.get(row["version"], [])} for row in rows]


def _tenths(elo: float) -> float:
    """``elo`` to a tenth, never ``-0.0``."""
    return round(elo, 1) + 0.0


def _newest(state: State, row: Standing) -> bool:
    return state.current(row.bot) == row.version


def _before(version: str) -> str:
    """The version before ``NAME@K``: ``NAME@K-1`` (``""`` for the first)."""
    name, _, count = version.rpartition("@")
    return f"{name}@{int(count) - 1}" if count.isdigit() and int(count) > 1 else ""


def _status(row: Standing, broken: bool, successor: str | None) -> str:
    if row.active:
        return "settled" if row.settled else "playing"
    if broken:
        return "broken"
    return "replaced" if successor is not None else "retired"


def _change(row: Standing, before: Standing | None, contrasts: Contrasts | None) -> Any:
    """The change from the version before: its Elo and 95% interval, once both have played."""
    if before is None or contrasts is None or not (row.games and before.games):
        return None
    change = row.elo - before.elo
    half = Z95 * contrasts.sd(row.version, before.version)
    return {
        "from": before.version,
        "elo": _tenths(change),
        "ci95": [_tenths(change - half), _tenths(change + half)],
    }


def _placed(row: Standing, state: State, contrasts: Contrasts | None) -> Any:
    """Where the scheduler places a version with no games yet (its predecessor's rating for
    an update, the centre for a newcomer), and by which version."""
    if row.games or contrasts is None:
        return None
    at = contrasts.placement(row.version)
    if at is None:
        return None
    old = state.replaced.get(row.version)
    # An update of a version found broken meanwhile enters as a newcomer (league._admit).
    return {"elo": _tenths(at), "by": None if old in state.health.broken else old}


def csv_rows(rows: Sequence[Mapping[str, Any]]) -> list[list[object]]:
    """The rows of :func:`standings_json` flattened for CSV, with their header first: each
    object's fields as columns of their own (``forfeits_crash``, ``change_elo``...), a list's
    items joined by a space, ``null`` an empty cell."""
    header: list[str] = []
    for name in FIELDS:
        header += [f"{name}_{sub}" for sub in NESTED[name]] if name in NESTED else [name]
    out: list[list[object]] = [list(header)]
    for row in rows:
        cells: list[object] = []
        for name in FIELDS:
            value = row[name]
            if name in NESTED:
                cells += [_cell((value or {}).get(sub)) for sub in NESTED[name]]
            else:
                cells.append(_cell(value))
        out.append(cells)
    return out


def _cell(value: object) -> object:
    if value is None:
        return ""
    return " ".join(map(str, value)) if isinstance(value, list) else value


def render_table(rows: Sequence[Mapping[str, Any]], state: State) -> str:
    """The standings table of ``rows`` (from :func:`standings_json`), every string a bot
    controls escaped: the versions with what they replace, the failure columns nobody forfeited
    for left out (as a tournament's), the change from the version before, the status (a broken
    version's reason and last words), and the notes on the columns shown under it."""
    shown = [
        (reason, title)
        for reason, title in FAILURE_COLUMNS
        if any(row["forfeits"].get(reason, 0) for row in rows)
    ]
    changes = [change_text(row) for row in rows]
    header = ["#", "bot", "Elo", "95% interval", "games", "won", "lost", "drawn"]
    header += [title for _, title in shown] + (["change"] if any(changes) else []) + ["status"]
    table = [header]
    for row, change in zip(rows, changes, strict=True):
        low, high = row["ci95"]
        interval = f"{_elo(low)} to {_elo(high)}" if row["games"] else "no games yet"
        cells = [str(row["rank"]), name_text(row, state), _elo(row["elo"]), interval]
        cells += [str(row[k]) for k in ("games", "wins", "losses", "draws")]
        cells += [str(row["forfeits"].get(reason, 0) or "-") for reason, _ in shown]
        table.append(cells + ([change] if any(changes) else []) + [status_text(row, state)])
    widths = [max(len(line[k]) for line in table) for k in range(len(header))]
    left = {1, len(header) - 1} | ({len(header) - 2} if any(changes) else set())
    lines = [
        "  ".join(
            cell.ljust(widths[k]) if k in left else cell.rjust(widths[k])
            for k, cell in enumerate(line)
        ).rstrip()
        for line in table
    ]
    notes = [forfeits_note([title for _, title in shown])] if shown else []
    if any(change[:1] in "+-" for change in changes if change):
        notes.append(
            "change: Elo over the version before, with its 95% interval (from the fit's "
            "covariance of the two)"
        )
    if any(change.startswith("placed") for change in changes):
        notes.append(
            "placed at: where the scheduler puts an update until it has played (the rating of "
            "the version it replaces, as the scheduler last fitted it)"
        )
    return "\n".join(lines + notes) + "\n"


def _elo(value: float) -> str:
    """``+12``, ``-3``, ``+0`` (never ``-0``)."""
    return f"{round(value):+d}"


def name_text(row: Mapping[str, Any], state: State) -> str:
    """A row's version as the table names it: with the version it replaces, or the one it was
    kept beside (``league update --keep``); escaped."""
    version = printable(row["version"])
    if row["replaces"] is not None:
        return f"{version} (replaces {printable(row['replaces'])})"
    before = _before(row["version"])
    return f"{version} (beside {printable(before)})" if before in state.specs else version


def change_text(row: Mapping[str, Any]) -> str:
    """The change from the version before (``+N [lo, hi]``), or where an update is placed
    before it has played; empty when neither applies."""
    change, placed = row["change"], row["placed"]
    if change is not None:
        low, high = change["ci95"]
        return f"{_elo(change['elo'])} [{_elo(low)}, {_elo(high)}]"
    if placed is not None and placed["by"] is not None:
        return f"placed at {_elo(placed['elo'])} by {printable(placed['by'])}; no games yet"
    return ""


def status_text(row: Mapping[str, Any], state: State) -> str:
    """A row's status in words: a broken version's reason and last words, "replaced by"."""
    replaced = row["replaced_by"]
    if row["status"] == "broken":
        broken = state.health.broken[row["version"]]
        text = printable(broken.status())
        return f"{text}; replaced by {printable(replaced)}" if replaced else text
    if row["status"] == "replaced":
        return f"replaced by {printable(replaced)}"
    return str(row["status"])


__all__ = [
    "FIELDS",
    "NESTED",
    "change_text",
    "csv_rows",
    "name_text",
    "render_table",
    "standings_document",
    "standings_json",
    "status_text",
]
