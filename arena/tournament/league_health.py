"""A league's forfeits, counted by reason as a tournament counts them, and its broken versions:
a version that forfeits every game of its first pairings (the league's ``broken_after``,
:data:`~arena.tournament.league_settings.BROKEN_AFTER` by default) is broken, and left out of
scheduling until an update enters a new version.

"Broken" is derived from the games, in the order the league applies their results
(:class:`Health` takes each pairing's games as :mod:`arena.tournament.league` applies it), never
from a clock or from a file that may vanish: so a league's replay
(:func:`arena.tournament.league.load`) finds the same versions broken at the same points of its
history, and issues the same pairings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.seats.connection import FAILURE_REASONS
from arena.stats.league import Pairing
from arena.tournament.store import GameRow


@dataclass(frozen=True, slots=True)
class Broken:
    """Version ``version`` forfeited all ``games`` games of its first ``pairings`` pairings;
    ``reason`` is the reason of most of them (the first game's, on a tie), and ``message`` the
    message of the first of them (game ``game``: its last words, for a crash)."""

    version: str
    reason: str
    message: str
    games: int
    pairings: int
    game: int

    def status(self) -> str:
        """How the standings show it: ``broken (crash: exited with code 255; ...)``."""
        return f"broken ({self.reason}: {self.message})"

    def sentence(self, bot: str) -> str:
        """What ``league run`` says when it happens."""
        return (
            f"{self.version} is broken: all {self.games} games of its first {self.pairings} "
            f"pairing{'s' if self.pairings != 1 else ''} forfeited ({self.reason}: "
            f"{self.message}); left out until `gin-arena league update {bot}`"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "reason": self.reason,
            "message": self.message,
            "games": self.games,
            "pairings": self.pairings,
            "first_game": self.game,
        }


@dataclass
class _Tally:
    """A version's first pairings so far: their games, its forfeits by reason, the first one."""

    pairings: int = 0
    games: int = 0
    forfeits: dict[str, int] = field(default_factory=dict)
    first: tuple[int, str, str] | None = None
    """The first forfeit's game, message and reason."""


class Health:
    """Each version's first ``after`` pairings, as their results are applied (:meth:`take`),
    and the versions found broken (:attr:`broken`, in the order they were found). ``after`` 0:
    no version is ever broken."""

    def __init__(self, after: int) -> None:
        self.after = after
        self.broken: dict[str, Broken] = {}
        self._tally: dict[str, _Tally] = {}
        self._judged: set[str] = set()

    def take(self, pairing: Pairing, rows: Sequence[GameRow]) -> list[Broken]:
        """Count pairing ``pairing``'s games ``rows``; return the versions it leaves broken."""
        if not self.after:
            return []
        out = []
        for version in (pairing.a, pairing.b):
            if version in self._judged:
                continue
            tally = self._tally.setdefault(version, _Tally())
            tally.pairings += 1
            tally.games += len(rows)
            for row in sorted(rows, key=lambda row: row.id):
                if row.failed == version:
                    tally.forfeits[row.reason] = tally.forfeits.get(row.reason, 0) + 1
                    tally.first = tally.first or (row.id, row.message, row.reason)
            if tally.pairings < self.after:
                continue
            del self._tally[version]
            self._judged.add(version)
            if tally.games and sum(tally.forfeits.values()) == tally.games:
                assert tally.first is not None
                game, message, first = tally.first
                reason = max(tally.forfeits, key=lambda r: (tally.forfeits[r], r == first))
                found = Broken(version, reason, message, tally.games, tally.pairings, game)
                self.broken[version] = found
                out.append(found)
        return out

    def to_json(self) -> dict[str, Any]:
        """For a snapshot of the league (:meth:`from_json` rebuilds it)."""
        return {
            "after": self.after,
            "broken": [
                [b.version, b.reason, b.message, b.games, b.pairings, b.game]
                for b in self.broken.values()
            ],
            "tally": [
                [v, t.pairings, t.games, t.forfeits, None if t.first is None else list(t.first)]
                for v, t in self._tally.items()
            ],
            "judged": sorted(self._judged),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], after: int) -> Health:
        """What :meth:`to_json` saved, for a league of rule ``after`` (a ValueError, KeyError or
        TypeError for data that does not fit: then the league is replayed instead)."""
        if int(data["after"]) != after:
            raise ValueError(f"a snapshot of broken_after {data['after']!r}, not {after}")
        health = cls(after)
        for version, reason, message, games, pairings, game in data["broken"]:
            health.broken[str(version)] = Broken(
                str(version), str(reason), str(message), int(games), int(pairings), int(game)
            )
        for version, pairings, games, forfeits, first in data["tally"]:
            health._tally[str(version)] = _Tally(
                int(pairings),
                int(games),
                {str(r): int(n) for r, n in dict(forfeits).items()},
                None if first is None else (int(first[0]), str(first[1]), str(first[2])),
            )
        health._judged = {str(v) for v in data["judged"]}
        return health


def count_forfeits(rows: Iterable[GameRow]) -> dict[str, dict[str, int]]:
    """Each version's forfeited games by reason (every reason of
    :data:`~arena.seats.connection.FAILURE_REASONS`, 0 where none), the versions that forfeited
    any, as a tournament's standings count them."""
    counts: dict[str, dict[str, int]] = {}
    for row in rows:
        if row.failed is not None:
            mine = counts.setdefault(row.failed, dict.fromkeys(FAILURE_REASONS, 0))
            mine[row.reason] = mine.get(row.reason, 0) + 1
    return counts


__all__ = ["Broken", "Health", "count_forfeits"]
