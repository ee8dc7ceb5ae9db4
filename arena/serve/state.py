"""What the live page shows, read from a league's or a tournament's database as plain JSON
values: the standings with their intervals and the sentences on how sure each place is, each
bot's versions, forfeits by reason, the total of games, the recent games and the head to head.

A :class:`Source` reads the database only through read-only opens
(:meth:`arena.tournament.store.Store.open` with ``readonly``), a fresh one for each read, so it
works beside the ``league run`` or ``tournament`` that writes the file and never changes it. It
keeps the last page it built with the database's :meth:`~arena.tournament.store.Store.watermark`
(games, history, bots): a read that finds the same watermark costs one query, so any number of
open pages cost one build for each change of the database.
"""

from __future__ import annotations

import datetime
import itertools
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist
from typing import Any, Final

from arena.errors import ArenaError
from arena.records.record import RecordError, group_games, parse_lines
from arena.report import data as report
from arena.report import facts
from arena.stats.league import LeagueError, Standing
from arena.tournament import compare, league_table
from arena.tournament import league as leagues
from arena.tournament.config import Config
from arena.tournament.standings import (
    SEPARATED,
    forfeits,
    head_to_head,
    likelihood,
    standings,
)
from arena.tournament.store import GameRow, Store, StoreError

RECENT: Final = 30
"""How many of the last games the page lists."""
NEW_GAMES: Final = 10
"""A version with fewer games than this is shown as new: its place is still a placement."""
Token = tuple[int, int, int]


class ServeError(ArenaError, ValueError):
    """A database the page cannot be made of: missing, not this application's, damaged."""


@dataclass(frozen=True, slots=True)
class Page:
    """A page's data and the watermark of the database it was read at."""

    token: Token
    data: dict[str, Any]


class Source:
    """A database the page watches: ``path``, read-only; ``title`` for the page's heading."""

    def __init__(self, path: Path, title: str | None = None) -> None:
        self.path = path
        self.title = title or f"gin-arena live: {path.name}"
        self._page: Page | None = None
        self._lock = threading.Lock()

    def _open(self) -> Store:
        try:
            return Store.open(self.path, readonly=True)
        except StoreError as error:
            raise ServeError(str(error)) from None

    def token(self) -> Token:
        """The database's watermark now (one query)."""
        store = self._open()
        try:
            return store.watermark()
        except StoreError as error:
            raise ServeError(str(error)) from None
        finally:
            store.close()

    def page(self) -> Page:
        """The page as the database stands: the last one built while nothing has changed, else
        a new one (one build at a time, whoever asks)."""
        with self._lock:
            store = self._open()
            try:
                token = store.watermark()
                if self._page is None or self._page.token != token:
                    self._page = Page(token, self._build(store))
                return self._page
            except (StoreError, LeagueError) as error:
                raise ServeError(str(error)) from None
            finally:
                store.close()

    def standings_json(self) -> Any:
        """What ``league standings --format json`` prints for a league (every version), what
        ``ratings --format json`` prints for a tournament."""
        return self.page().data["standings_json"]

    def replay(self, game_id: int) -> dict[str, Any] | None:
        """The report viewer's data of game ``game_id``: ``replays`` and ``game_list`` of that
        one game (None: no such game, or it has no record)."""
        store = self._open()
        try:
            rows = list(store.games(only=game_id))
        except StoreError as error:
            raise ServeError(str(error)) from None
        finally:
            store.close()
        if not rows or not rows[0].record:
            return None
        where = f"{self.path}: game {game_id}"
        try:
            record = group_games(parse_lines(rows[0].record.splitlines(), where), where)[0]
        except RecordError as error:
            raise ServeError(f"{error}: the database was changed by hand") from None
        game = report.Game(rows[0], record)
        return {"replays": {str(game_id): report.replay(game)}, "game_list": [_entry(game)]}

    def _build(self, store: Store) -> dict[str, Any]:
        rows = list(store.games(records=False))
        recorded = store.recorded()
        if leagues.is_league(store):
            state = leagues.view(store)
            data = _league(state, rows)
            data["facts"] = facts.of_store(store, state)
        else:
            config = Config.from_stored(store.config(), repr(str(self.path)))
            data = _tournament(config, rows)
            data["facts"] = facts.of_store(store)
        data.update(
            title=self.title,
            source=self.path.name,
            read=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            games=len(rows),
            forfeits=_forfeits(rows),
            recent=[_recent(row, row.id in recorded) for row in reversed(rows[-RECENT:])],
        )
        return data


def _tournament(config: Config, rows: Sequence[GameRow]) -> dict[str, Any]:
    mode = str(config.mode)
    table = standings(config.names(), rows, mode=mode)
    order = [r.name for r in table.fit.ratings]
    return {
        "kind": "tournament",
        "standings": [
            {
                "rank": rank,
                "name": r.name,
                "elo": round(r.elo, 1),
                "ci95": [round(r.low, 1), round(r.high, 1)],
                "games": table.played_by(r.name, r.games),
                "wins": r.wins,
                "losses": r.losses,
                "draws": r.draws,
                "change": "",
                "status": "",
                "new": False,
            }
            for rank, r in enumerate(table.fit.ratings, 1)
        ],
        "certainty": _certainty(
            [(r.name, r.elo, 0.5 if r.los_next is None else r.los_next) for r in table.fit.ratings]
        ),
        "head_to_head": [line.strip() for line in head_to_head(table)],
        "crosstable": report.crosstable(order, rows),
        "versions": [],
        "compares": [],
        "standings_json": table.to_json(),
    }


def _league(state: leagues.State, rows: Sequence[GameRow]) -> dict[str, Any]:
    """The page of a league: its own standings (:func:`league_table.standings_json`, every
    version), in the words of ``league standings``."""
    table_rows = league_table.standings_json(state, all_versions=True)
    every = {r.version: r for r in leagues.standings(state, all_versions=True)}
    active = [every[r["version"]] for r in table_rows if r["active"] and r["games"]]
    table = standings(list(state.specs), rows, mode="two-player")
    return {
        "kind": "league",
        "standings": [
            {
                "rank": row["rank"],
                "name": row["version"],
                "label": league_table.name_text(row, state),
                "bot": row["bot"],
                "elo": row["elo"],
                "ci95": row["ci95"],
                "games": row["games"],
                "wins": row["wins"],
                "losses": row["losses"],
                "draws": row["draws"],
                "change": league_table.change_text(row),
                "status": league_table.status_text(row, state),
                "new": row["active"] and row["games"] < NEW_GAMES,
            }
            for row in table_rows
        ],
        "certainty": _certainty(_league_los(active)),
        "head_to_head": [line.strip() for line in head_to_head(table)],
        "crosstable": report.crosstable([r["version"] for r in table_rows if r["games"]], rows),
        "versions": _versions(table_rows),
        "standings_json": league_table.standings_document(state, table_rows),
        "compares": compare.compares_json(state),
    }


def _league_los(rows: Sequence[Standing]) -> list[tuple[str, float, float]]:
    """Each version with its Elo and the LOS over the next one down, from the league's own
    ratings and intervals: the two ratings taken as independent normals with the standard
    errors their 95% intervals give (their covariance is left out: for neighbours that played
    each other it makes the LOS a little lower than the fit's)."""
    z95 = NormalDist().inv_cdf(0.975)
    out = []
    for k, row in enumerate(rows):
        los = 0.5
        if k + 1 < len(rows):
            below = rows[k + 1]
            spread = math.hypot(row.half_width, below.half_width) / z95
            gap = row.elo - below.elo
            los = NormalDist().cdf(gap / spread) if spread > 0 else 0.5 + math.copysign(0.5, gap)
        out.append((row.version, row.elo, los))
    return out


def _certainty(ratings: Sequence[tuple[str, float, float]]) -> list[str]:
    """A sentence for each bot and the next one down: how likely the order is (LOS), in the
    words of the terminal's standings (``>99%``, never 100%)."""
    lines = []
    for (a, elo, los), (b, below, _) in itertools.pairwise(ratings):
        if f"{elo:+.0f}" == f"{below:+.0f}":
            lines.append(f"{a} and {b} are level on Elo ({elo:+.0f}); LOS {likelihood(los)}.")
        elif los >= SEPARATED:
            lines.append(f"{a} is ahead of {b} with {likelihood(los)} likelihood (LOS): separated.")
        else:
            lines.append(
                f"{a} is ahead of {b} with {likelihood(los)} likelihood (LOS): not separated "
                f"yet (separated means a LOS of {SEPARATED:.0%} or more)."
            )
    return lines


def _versions(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each bot with more than one version: its versions in order, with the change in Elo from
    each to the next (the standings' ``change``: its interval from the fit's covariance)."""
    bots: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        bots.setdefault(row["bot"], []).append(row)
    out = []
    for bot, versions in bots.items():
        if len(versions) < 2:
            continue
        versions.sort(key=lambda row: int(row["version"].rpartition("@")[2] or 0))
        out.append(
            {
                "bot": bot,
                "versions": [
                    {"version": v["version"], "status": v["status"], "games": v["games"]}
                    for v in versions
                ],
                "changes": [
                    {
                        "from": old["version"],
                        "to": new["version"],
                        "elo": None if new["change"] is None else new["change"]["elo"],
                        "ci95": None if new["change"] is None else new["change"]["ci95"],
                    }
                    for old, new in itertools.pairwise(versions)
                ],
            }
        )
    return out


def _forfeits(rows: Sequence[GameRow]) -> dict[str, Any]:
    """Forfeits by bot and reason, and the tournament's sentences on them."""
    counts: dict[str, dict[str, int]] = {}
    for row in rows:
        if row.failed is not None:
            mine = counts.setdefault(row.failed, {})
            mine[row.reason] = mine.get(row.reason, 0) + 1
    return {"counts": counts, "lines": forfeits(rows)}


def _recent(row: GameRow, replay: bool) -> dict[str, Any]:
    return {
        "id": row.id,
        "players": list(row.seats),
        "winner": row.winner,
        "scores": list(row.scores),
        "reason": row.reason,
        "failed": row.failed,
        "message": row.message,
        "hands": row.hands,
        "replay": replay,
    }


def _entry(game: report.Game) -> dict[str, Any]:
    entry = report.game_entry(game)
    entry["replay"] = True
    return entry
