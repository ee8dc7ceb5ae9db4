"""The data behind a report: from a tournament database or a match record, every figure each
section shows, as plain JSON values (the page embeds them; ``gin-arena report --json`` prints
them; the tests check them).

:func:`from_store` and :func:`from_record` read the games and what was played
(:mod:`arena.report.facts`); :func:`build` makes the report's data of them: the event's facts
(``event``), standings (Elo with its 95% interval, LOS to the next) and the terminal's sentences on
them (``sentences``), the crosstable, Elo as the games went (:func:`elo_history`, a round at a
time outside a league), failures by bot and reason with examples, move times by bot, the game
list and, for every game whose record is kept, its replay (the deal, each action with the card it
moved, each hand's show-down and scores) played back through the engine
(:mod:`arena.records.playback`). A live page renders the same ``event`` and ``sentences``.
"""

from __future__ import annotations

import datetime
import math
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from arena.errors import ArenaError
from arena.records.playback import Deal, HandOver, Move, PlaybackError, play_back
from arena.records.record import (
    GameEndLine,
    RecordedGame,
    RecordError,
    group_games,
    parse_lines,
    read_games,
)
from arena.report import facts
from arena.stats.ratings import Result, table_results
from arena.tournament.standings import standings
from arena.tournament.store import GameRow, Store, winner_name
from engine import __version__ as engine_version
from engine.cards import CARD_NAMES, cards_of
from engine.hand import ActionKind, HandResult

HISTORY_POINTS: Final = 40
"""How many points the Elo-over-games plot has at most (a fit on the games up to each)."""
EXAMPLES_PER_FAILURE: Final = 3
"""How many example messages the failures section keeps for each bot and reason."""
HISTOGRAM_EDGES_MS: Final = (0.0, 0.1, 0.3, 1, 3, 10, 30, 100, 300, 1000, 3000, 10000)
"""Move-time histogram bins, in milliseconds (the last one is open)."""


Progress = Callable[[str, int, int], None]
"""A hook told how the long parts of the work go, as ``(what, done, total)``: first with ``done``
0 when a part starts, then as each of its ``total`` items is done (``what`` names the part:
"reading games", "fitting Elo over the games", "building replays")."""


def _quiet(what: str, done: int, total: int) -> None:
    pass


class ReportError(ArenaError, ValueError):
    """What a report cannot be made of: no games, an unreadable database or record."""


@dataclass
class Game:
    """A finished game as the report needs it: the row (names, result) and its record."""

    row: GameRow
    record: RecordedGame | None
    moves: dict[str, list[float]] = field(default_factory=dict)
    """Milliseconds of each bot's moves in this game (from the record)."""


def from_store(
    path: Path, progress: Progress = _quiet
) -> tuple[list[str], list[Game], dict[str, Any]]:
    """The bots, games (by id) and configuration (``rules``, ``mode``, ``event``: what
    :func:`arena.report.facts.of_store` says of it) of a tournament database, opened read-only
    (it may be in use by a running tournament); ``progress`` is told of each game read. A
    league's database gives every version as a bot, and its configuration has ``league``: the
    versions still scheduled (``active``) and the others (``retired``)."""
    from arena.tournament import league
    from arena.tournament.config import Config
    from arena.tournament.store import StoreError

    try:
        store = Store.open(path, readonly=True)
    except StoreError as error:
        raise ReportError(str(error)) from None
    try:
        if league.is_league(store):
            state = league.load(store)
            active = state.active_versions()
            names = list(state.specs)
            described: dict[str, Any] = {
                "rules": state.settings.rules.to_dict(),
                "mode": "two-player",
                "league": {"active": active, "retired": [v for v in names if v not in active]},
                "event": facts.of_store(store, state),
            }
        else:
            config = Config.from_stored(store.config(), repr(str(path)))
            names = config.names()
            described = {
                "rules": config.rules.to_dict(),
                "mode": str(config.mode),
                "event": facts.of_store(store),
            }
        games = []
        total = len(store.done())  # a game finished meanwhile is read too: done may pass total
        progress("reading games", 0, total)
        for row in store.games():
            record = None
            if row.record:
                where = f"{path}: game {row.id}"
                try:
                    record = group_games(parse_lines(row.record.splitlines(), where), where)[0]
                except RecordError as error:
                    raise ReportError(f"{error}: the database was changed by hand") from None
            games.append(Game(row, record))
            progress("reading games", len(games), max(total, len(games)))
    except league.LeagueDatabaseError as error:
        raise ReportError(str(error)) from None
    finally:
        store.close()
    return names, games, described


def from_record(path: Path) -> tuple[list[str], list[Game], dict[str, Any]]:
    """The bots, games and match tags of a record file (``gin-arena match --record``), with
    ``event``: what :func:`arena.report.facts.of_records` says of it."""
    try:
        records = read_games(path)
    except RecordError as error:
        raise ReportError(str(error)) from None
    names: list[str] = []
    games = []
    for number, rec in enumerate(records, 1):
        seats = tuple(b.name for b in rec.tags.bots)
        if not seats:
            raise ReportError(f"{path}:{rec.line}: the game names no bots")
        for name in seats:
            if name not in names:
                names.append(name)
        if rec.end is None:
            continue  # a game cut short: not rated, no replay to the end
        games.append(Game(_row_of(number, rec, seats, rec.end[1]), rec))
    if not games:
        raise ReportError(f"{path}: no finished game in this record")
    first = records[0].tags
    config = {
        "rules": first.rules,
        "mode": first.mode,
        "match": first.match,
        "event": facts.of_records(records),
    }
    return names, games, config


def _row_of(number: int, rec: RecordedGame, seats: tuple[str, ...], end: GameEndLine) -> GameRow:
    mode = str(rec.tags.mode)
    failed = end.failure
    return GameRow(
        id=number,
        seat0=seats[0],
        seat1=seats[1],
        seed=rec.tags.seed,
        winner=None if end.winner is None else winner_name(mode, seats, end.winner),
        reason=end.reason,
        failed=None if failed is None else seats[failed.seat],
        message="" if failed is None else failed.message,
        rule="" if failed is None else failed.rule,
        score0=end.scores[0],
        score1=end.scores[1],
        hands=end.hands,
        seconds=end.seconds,
        record="",
        mode=mode,
        seats=seats,
        scores=tuple(end.scores),
        side=end.winner,
    )


def build(
    names: Sequence[str],
    games: Sequence[Game],
    config: dict[str, Any],
    *,
    source: str,
    kind: str,
    replays: bool = True,
    progress: Progress = _quiet,
    title: str | None = None,
) -> dict[str, Any]:
    """The report's data (see the module); ``progress`` is told how its long parts go (the
    Elo history's fits, the replays); ``title`` is the page's (None: one naming the source).

    ``event`` holds what was played and how (:func:`arena.report.facts.of_store` or
    :func:`~arena.report.facts.of_records`, from ``config["event"]``; None when the config has
    none) and ``sentences`` how sure each place is and the head to head
    (:func:`arena.report.facts.sentences`): a live page renders the same facts from them."""
    if not games:
        raise ReportError(f"{source}: no finished game yet: nothing to report")
    rows = [g.row for g in games]
    mode = str(config.get("mode", "two-player"))
    table = standings(names, rows, mode=mode)
    ratings = table.fit.ratings
    data: dict[str, Any] = {
        "title": f"gin-arena report: {Path(source).name}" if title is None else title,
        "source": {"kind": kind, "path": source},
        "event": config.get("event"),
        "sentences": facts.sentences(table),
        "generated": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "engine_version": engine_version,
        "mode": mode,
        "rules": config.get("rules", {}),
        **({"league": config["league"]} if "league" in config else {}),
        "games": len(rows),
        "standings": [
            {
                "rank": rank,
                "name": r.name,
                # To 0.001: a page that shows whole numbers rounds them as the terminal's table
                # does (rounding 126.54 to 126.5 first would show 126, not 127).
                "elo": round(r.elo, 3),
                "low": round(r.low, 3),
                "high": round(r.high, 3),
                "games": table.played_by(r.name, r.games),
                "wins": r.wins,
                "losses": r.losses,
                "draws": r.draws,
                "score": round(r.score, 4),
                "los_next": None if r.los_next is None else round(r.los_next, 4),
            }
            for rank, r in enumerate(ratings, 1)
        ],
        "crosstable": crosstable([r.name for r in ratings], rows),
        "elo_history": elo_history(names, rows, mode, progress, played=kind == "league"),
        "failures": failures(names, rows),
        "move_times": move_times([r.name for r in ratings], games),
        "game_list": [game_entry(g) for g in games],
        "replays": {},
    }
    if replays:
        recorded = [game for game in games if game.record is not None]
        progress("building replays", 0, len(recorded))
        for done, game in enumerate(recorded, 1):
            data["replays"][str(game.row.id)] = replay(game)
            progress("building replays", done, len(recorded))
        for entry in data["game_list"]:
            entry["replay"] = str(entry["id"]) in data["replays"]
    return data


def crosstable(order: Sequence[str], rows: Sequence[GameRow]) -> dict[str, Any]:
    """Each bot's results against each other one (rows and columns in ``order``, the standings'),
    from the pairwise results the ratings are fitted on (a partnership game counts for each
    member against each opponent): games, wins, losses, draws and the score share, or None on
    the diagonal and for pairs that never met."""
    tally: dict[tuple[str, str], list[int]] = {}  # (a, b) -> [wins, losses, draws] of a
    for row in rows:
        for result in table_results(row.mode, row.seats, row.side, row.scores, row.failed_player):
            sides = (
                ((result.a,), (result.b,)) if isinstance(result, Result) else (result.a, result.b)
            )
            for a in sides[0]:
                for b in sides[1]:
                    if a == b:
                        continue
                    slot = 0 if result.score == 1 else 1 if result.score == 0 else 2
                    tally.setdefault((a, b), [0, 0, 0])[slot] += 1
                    tally.setdefault((b, a), [0, 0, 0])[(1, 0, 2)[slot]] += 1
    grid: list[list[dict[str, Any] | None]] = []
    for a in order:
        line: list[dict[str, Any] | None] = []
        for b in order:
            wins, losses, draws = tally.get((a, b), [0, 0, 0])
            played = wins + losses + draws
            if a == b or not played:
                line.append(None)
                continue
            line.append(
                {
                    "games": played,
                    "wins": wins,
                    "losses": losses,
                    "draws": draws,
                    "score": round((wins + draws / 2) / played, 4),
                }
            )
        grid.append(line)
    return {"bots": list(order), "cells": grid}


HISTORY_AXES: Final = {
    "rounds": (
        "games, a round at a time (the first game of every pair, then the second...)",
        "Each bot's Elo fitted on the games up to each point, the games taken a round at a time: "
        "the first game of every pair (or table), then the second, and so on, not in the order "
        "they were played. A round robin's schedule plays pair after pair, so the order played "
        "would show the schedule, not form; here each round adds a game of every pair.",
    ),
    "played": (
        "games, in the order the league played them",
        "Each version's Elo fitted on the games up to each point, in the order the league played "
        "them: a version's line starts at its first game (an update starts a new version's "
        "line) and goes on moving after its last, as games between the others refine the fit. "
        "A version is one program throughout: a line shows how its estimate settled, not form.",
    ),
}
"""The Elo history's x axis by the order its games are taken in: the axis label and the
caption that says what it is."""


def by_round(rows: Sequence[GameRow]) -> list[GameRow]:
    """The games a round at a time: the first game of every table (the same bots, in any
    seats), then the second game of every table, and so on, each round in game order. A
    round-robin's schedule plays table after table; taken like this, Elo over the games shows
    how the fit settles, not which pair happened to play first."""
    count: dict[frozenset[str], int] = {}
    keyed = []
    for row in rows:
        table = frozenset(row.seats)
        count[table] = count.get(table, 0) + 1
        keyed.append((count[table], row.id, row))
    return [row for _, _, row in sorted(keyed, key=lambda item: item[:2])]


def elo_history(
    names: Sequence[str],
    rows: Sequence[GameRow],
    mode: str,
    progress: Progress = _quiet,
    *,
    played: bool = False,
) -> dict[str, Any]:
    """Each bot's Elo fitted on the games up to each of (at most) :data:`HISTORY_POINTS`
    points, the games taken :func:`by_round` or, ``played``, in the order they finished (by id:
    a league's, whose versions come and go); ``progress`` is told of each fit. ``order`` names
    the order, ``axis`` and ``caption`` say it in words (:data:`HISTORY_AXES`)."""
    order = "played" if played else "rounds"
    rows = list(rows) if played else by_round(rows)
    count = len(rows)
    step = max(1, math.ceil(count / HISTORY_POINTS))
    marks = sorted({*range(step, count + 1, step), count})
    series: dict[str, list[float | None]] = {name: [] for name in names}
    progress("fitting Elo over the games", 0, len(marks))
    for done, mark in enumerate(marks, 1):
        part = rows[:mark]
        table = standings(names, part, mode=mode)
        by_name = {r.name: r for r in table.fit.ratings}
        for name in names:
            rating = by_name.get(name)
            played = rating is not None and rating.games > 0
            series[name].append(round(rating.elo, 3) if played and rating else None)
        progress("fitting Elo over the games", done, len(marks))
    axis, caption = HISTORY_AXES[order]
    return {"games": marks, "elo": series, "order": order, "axis": axis, "caption": caption}


def failures(names: Sequence[str], rows: Sequence[GameRow]) -> dict[str, Any]:
    """Forfeits by bot and reason, with up to :data:`EXAMPLES_PER_FAILURE` examples of each."""
    counts: dict[tuple[str, str], int] = {}
    examples: list[dict[str, Any]] = []
    shown: dict[tuple[str, str], int] = {}
    for row in rows:
        if row.failed is None:
            continue
        key = (row.failed, row.reason)
        counts[key] = counts.get(key, 0) + 1
        if shown.get(key, 0) < EXAMPLES_PER_FAILURE:
            shown[key] = shown.get(key, 0) + 1
            examples.append(
                {
                    "bot": row.failed,
                    "reason": row.reason,
                    "game": row.id,
                    "message": row.message,
                    "rule": row.rule or None,
                }
            )
    order = {name: i for i, name in enumerate(names)}
    return {
        "counts": [
            {"bot": bot, "reason": reason, "count": count}
            for (bot, reason), count in sorted(
                counts.items(), key=lambda item: (order.get(item[0][0], 0), -item[1])
            )
        ],
        "examples": examples,
    }


def move_times(order: Sequence[str], games: Iterable[Game]) -> list[dict[str, Any]]:
    """Each bot's move times over every recorded action: count, mean, median, 90th percentile,
    maximum and a histogram over :data:`HISTOGRAM_EDGES_MS`."""
    times: dict[str, list[float]] = {name: [] for name in order}
    for game in games:
        rec = game.record
        if rec is None:
            continue
        names = [b.name for b in rec.tags.bots] or list(game.row.seats)
        for _, hand in rec.hands:
            players = hand.header.players or [0, 1]
            for _, action in hand.actions:
                name = names[players[action.player]] if players else names[action.player]
                times.setdefault(name, []).append(action.ms)
    out = []
    for name, values in times.items():
        if not values:
            out.append({"bot": name, "moves": 0})
            continue
        values.sort()
        counts = [0] * len(HISTOGRAM_EDGES_MS)
        for value in values:
            slot = sum(1 for edge in HISTOGRAM_EDGES_MS[1:] if value >= edge)
            counts[slot] += 1
        out.append(
            {
                "bot": name,
                "moves": len(values),
                "mean_ms": round(statistics.fmean(values), 3),
                "median_ms": round(statistics.median(values), 3),
                "p90_ms": round(values[min(len(values) - 1, int(0.9 * len(values)))], 3),
                "max_ms": round(values[-1], 3),
                "histogram": {"edges_ms": list(HISTOGRAM_EDGES_MS), "counts": counts},
            }
        )
    return out


def game_entry(game: Game) -> dict[str, Any]:
    row = game.row
    return {
        "id": row.id,
        "players": list(row.seats),
        "winner": row.winner,
        "scores": list(row.scores),
        "reason": row.reason,
        "failed": row.failed,
        "hands": row.hands,
        "seconds": round(row.seconds, 3),
        "seed": str(row.seed),
        "replay": False,
    }


def _names(mask: int) -> list[str]:
    return [CARD_NAMES[c] for c in cards_of(mask)]


def replay(game: Game) -> dict[str, Any]:
    """A game as the replay viewer steps through it: for every hand the deal face up (both
    hands, the upcard, the stock), every action with the card it moved and its time, and the
    result with the show-down; ``error`` if the record cannot be played to its end."""
    rec = game.record
    assert rec is not None
    names = [b.name for b in rec.tags.bots] or list(game.row.seats)
    hands: list[dict[str, Any]] = []
    current: dict[str, Any] = {}
    out: dict[str, Any] = {
        "id": game.row.id,
        "players": names,
        "mode": str(rec.tags.mode),
        "seed": str(rec.tags.seed),
        "hands": hands,
        "result": {
            "winner": game.row.winner,
            "scores": list(game.row.scores),
            "reason": game.row.reason,
            "failed": game.row.failed,
            "message": game.row.message or None,
            "rule": game.row.rule or None,
        },
        "error": None,
    }
    try:
        for step in play_back(rec):
            if isinstance(step, Deal):
                hand = step.hand
                seated = [names[p] for p in step.game.seated]
                current = {
                    "number": step.record.header.hand,
                    "dealer": hand.dealer,
                    "seats": seated,
                    "hands": [_names(hand.hands[0]), _names(hand.hands[1])],
                    "upcard": CARD_NAMES[hand.pile[-1]],
                    "stock": len(hand.stock),
                    "knock_limit": hand.knock_limit,
                    "scores_before": list(step.game.hand_scores),
                    "steps": [],
                    "result": None,
                }
                hands.append(current)
            elif isinstance(step, Move):
                action = step.action
                kind = action.kind
                card = (
                    step.drawn
                    if kind in (ActionKind.DRAW_STOCK, ActionKind.DRAW_DISCARD)
                    else action.card
                )
                current["steps"].append(
                    {
                        "seat": step.player,
                        "kind": kind.value,
                        "action": str(action),
                        "card": None if card is None else CARD_NAMES[card],
                        "ms": round(step.record.ms, 3),
                    }
                )
            elif isinstance(step, HandOver):
                current["result"] = _hand_result(step.result, step.game.hand_scores)
    except PlaybackError as error:
        out["error"] = f"the record cannot be played on: {error}"
    return out


def _hand_result(result: HandResult | None, scores: Sequence[int]) -> dict[str, Any] | None:
    if result is None:
        return None
    show = result.show_down
    return {
        "end": result.end.value,
        "winner": result.winner,
        "points": result.points,
        "doubled": result.doubled,
        "scores": list(scores),
        "text": str(result),
        "show_down": None
        if show is None
        else {
            "knocker": show.knocker,
            "discard": None if show.discard is None else CARD_NAMES[show.discard],
            "knocker_melds": [_names(m) for m in show.knocker_melds],
            "knocker_deadwood_cards": _names(show.knocker_deadwood_cards),
            "knocker_deadwood": show.knocker_deadwood,
            "defender_melds": [_names(m) for m in show.defender_melds],
            "lay_offs": [
                {"card": CARD_NAMES[lay.card], "meld": lay.meld_index} for lay in show.lay_offs
            ],
            "defender_deadwood_cards": _names(show.defender_deadwood_cards),
            "defender_deadwood": show.defender_deadwood,
        },
    }


__all__ = ["Game", "Progress", "ReportError", "build", "from_record", "from_store", "replay"]
