"""Hand-level A/B tests: how many points a hand is NEW better than BASE?

Whole games resolve small differences slowly: a game is a coin flip weighted by many hands, and
telling 52% from 50% takes thousands of them. Single hands, paired, resolve them in minutes. Every
deal is played twice, the seats swapped (mirrored), and a deal's two hands make one observation:

- **head to head** (no opponent): NEW plays BASE; the observation is NEW's points minus BASE's
  over the deal's two hands.
- **against a common opponent** (``against``): NEW plays OPP and BASE plays OPP on the same deals;
  the observation is NEW's net points over the deal's two hands minus BASE's. The same cards come
  to both, so what the cards decide cancels out, and two close versions of a bot are told apart
  far sooner than by playing each other.

:func:`estimate` turns the observations into points a hand with a standard error; a deal counts
once both of its hands (and, against an opponent, both pairings' hands) are in. The hands are
played in worker processes, a few deals at a time (:func:`chunks`); the deals depend on the seed
only, and the built-in bots seed each hand from its number, so a test gives the same hands with
any number of workers.

A chunk holds the same deals in every pairing (against an opponent, the opponent plays them
twice over) and plays them leg after leg: the deals' first hands in every pairing, then their
mirrors, each leg by bot processes of its own, started once the last leg's have all ended, as in
a mirrored match (:mod:`arena.play.match`, "Mirrored deals"): a bot that remembers its cards learns
nothing of its opponent's in the mirror, whichever pairing played the deal first. A worker keeps
the bots of a chunk's last leg for its next chunk, and plays that chunk's hands of the same leg
first (they are other deals), so a bot starts about once a chunk.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import math
import multiprocessing
import multiprocessing.util
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from arena.play.match import Lineup, Match, Planned, by_leg
from arena.tournament import pool as workers

Z95: Final = 1.959963984540054
"""The two-sided 95% quantile of the normal distribution."""

CHUNK_DEALS: Final = 10
"""Deals a worker plays at a time, in every pairing: their first hands with one set of bot
processes, then their mirrors with another (kept for the worker's next chunk)."""


@dataclass(frozen=True, slots=True)
class Estimate:
    """Points a hand, from per-deal observations (each the sum over a deal's two hands)."""

    points: float
    """The mean, in points a hand."""
    error: float
    """Its standard error, in points a hand (infinite with fewer than two deals)."""
    deals: int

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% confidence interval of :attr:`points` (normal approximation)."""
        return self.points - Z95 * self.error, self.points + Z95 * self.error

    @property
    def verdict(self) -> int:
        """+1 when the interval lies above 0, -1 when below, 0 when it holds 0."""
        low, high = self.interval
        return 1 if low > 0 else -1 if high < 0 else 0

    def to_json(self) -> dict[str, Any]:
        low, high = self.interval
        finite = math.isfinite(self.error)
        return {
            "points": self.points,
            "error": self.error if finite else None,
            "interval": [low, high] if finite else None,
            "deals": self.deals,
            "hands": 2 * self.deals,
        }


def estimate(observations: Sequence[float]) -> Estimate:
    """Points a hand from per-deal sums over two hands: mean / 2 and its standard error."""
    n = len(observations)
    if n == 0:
        return Estimate(0.0, math.inf, 0)
    mean = sum(observations) / n
    if n < 2:
        return Estimate(mean / 2, math.inf, n)
    variance = sum((x - mean) ** 2 for x in observations) / (n - 1)
    return Estimate(mean / 2, math.sqrt(variance / n) / 2, n)


@dataclass(frozen=True, slots=True)
class Hand:
    """One hand of a pairing: its game number, the first bot's points minus the second's, and
    which bot (0 or 1) forfeited it, if one did."""

    game: int
    net: int
    failed: int | None = None


@dataclass
class Pairing:
    """One match of the test (NEW v BASE, or NEW v OPP and BASE v OPP) and its hands so far."""

    first: str
    second: str
    match: Match
    hands: dict[int, Hand] = field(default_factory=dict)

    def deal_nets(self) -> dict[int, int]:
        """The first bot's net points by deal (its index in the plan), complete deals only."""
        by_deal: dict[int, list[int]] = {}
        for hand in self.hands.values():
            by_deal.setdefault((hand.game - 1) // 2, []).append(hand.net)
        return {deal: sum(nets) for deal, nets in by_deal.items() if len(nets) == 2}

    def forfeits(self) -> tuple[int, int]:
        """Hands forfeited by the first bot and by the second."""
        failed = [hand.failed for hand in self.hands.values()]
        return failed.count(0), failed.count(1)


@dataclass
class ABTest:
    """A test's pairings and what they have played: one pairing head to head, two against an
    opponent (NEW's first)."""

    new: str
    base: str
    against: str | None
    hands: int
    """Hands planned a pairing."""
    seed: int
    pairings: list[Pairing]

    def observations(self) -> list[float]:
        """The per-deal observations of the comparison, over the deals complete everywhere."""
        if self.against is None:
            return [float(v) for _, v in sorted(self.pairings[0].deal_nets().items())]
        new, base = self.pairings[0].deal_nets(), self.pairings[1].deal_nets()
        return [float(new[d] - base[d]) for d in sorted(new.keys() & base.keys())]

    def difference(self) -> Estimate:
        """NEW's edge over BASE, points a hand."""
        return estimate(self.observations())

    def scores(self) -> list[Estimate]:
        """Against an opponent: NEW's and BASE's own points a hand against it (net of the
        opponent's), each over its complete deals."""
        return [
            estimate([float(v) for _, v in sorted(p.deal_nets().items())]) for p in self.pairings
        ]

    def forfeits(self) -> dict[str, int]:
        """Hands forfeited, by bot name (the opponent's summed over both pairings)."""
        counts: dict[str, int] = {}
        for pairing in self.pairings:
            first, second = pairing.forfeits()
            counts[pairing.first] = counts.get(pairing.first, 0) + first
            counts[pairing.second] = counts.get(pairing.second, 0) + second
        return counts

    def verdict(self) -> str:
        """``new`` or ``base`` (the better, at 95% confidence), ``undecided``, or ``forfeits``
        when a bot forfeited a hand: a forfeit scores no points, so the points no longer say
        which bot plays better."""
        if any(self.forfeits().values()):
            return "forfeits"
        return {1: "new", -1: "base", 0: "undecided"}[self.difference().verdict]

    @property
    def played(self) -> int:
        """Hands played, over all pairings."""
        return sum(len(p.hands) for p in self.pairings)

    def to_json(self) -> dict[str, Any]:
        difference = self.difference()
        data: dict[str, Any] = {
            "new": self.new,
            "base": self.base,
            "against": self.against,
            "seed": self.seed,
            "hands": self.hands,
            "played": self.played,
            "difference": difference.to_json(),
            "verdict": self.verdict(),
            "forfeits": self.forfeits(),
        }
        if self.against is not None:
            new, base = self.scores()
            data["scores"] = {self.new: new.to_json(), self.base: base.to_json()}
        return data


def chunks(plan: Sequence[Planned], deals: int = CHUNK_DEALS) -> list[tuple[Planned, ...]]:
    """The plan of a mirrored match cut into runs of ``deals`` deals (two games each), the
    deals in order, each run's games leg after leg (:func:`arena.play.match.by_leg`)."""
    ordered = sorted(plan, key=lambda g: g.number)
    size = 2 * deals
    return [tuple(by_leg(ordered[i : i + size])) for i in range(0, len(ordered), size)]


_scratch: list[str] = []
"""In a worker: the directory of the kept bots' working directories and logs."""

Part = tuple[int, Match, tuple[Planned, ...]]
"""A pairing's share of a chunk: its index, its match and its games."""


def play_chunk(parts: Sequence[Part]) -> list[tuple[int, list[Hand]]]:
    """Play a chunk, ``parts`` holding the same deals in every pairing, leg after leg (every
    pairing's games of a leg, then the next leg's, every bot closed in between), and return each
    pairing's hands: their nets and forfeits. In a worker the bots of the last leg are kept for
    the next chunk, whose games of that leg are played first; elsewhere they are closed at the
    end."""
    keep = bool(_scratch)
    lineups: dict[int, Lineup] = {}
    match_dirs = {index: match.workdir for index, match, _ in parts}
    try:
        for index, match, _ in parts:
            # In a worker: the bots of its last chunk's last leg, by pairing, still running (see
            # the module's documentation); closed as the worker exits.
            # the pairing's kept logs (--logs), or a scratch directory
            scratch = Path(_scratch[0]) if keep else Path(tempfile.mkdtemp("gin-arena-ab-"))
            scratch = match.workdir or scratch
            lineup = workers.take(index, match, scratch) if keep else None
            if lineup is None:
                lineup = match.lineup(scratch)
            lineups[index] = lineup
        first = next((lineup.leg for lineup in lineups.values() if lineup.leg is not None), 0)
        legs = by_leg([game for _, _, games in parts for game in games], first)
        hands: dict[int, list[Hand]] = {index: [] for index, _, _ in parts}
        for leg in dict.fromkeys(game.leg for game in legs):
            for lineup in lineups.values():  # all of the last leg's bots end before any starts
                if lineup.leg not in (None, leg):
                    lineup.close()
            for index, match, games in parts:
                plan = [game for game in games if game.leg == leg]
                if plan:
                    result = match.play(plan=plan, lineup=lineups[index])
                    hands[index] += [
                        Hand(g.number, g.points(0) - g.points(1), g.failed) for g in result.games
                    ]
    except BaseException:
        keep = False
        raise
    finally:
        for index, lineup in lineups.items():
            if keep:
                workers.kept[index] = lineup
            else:
                lineup.close()
                if not _scratch and lineup.workdir != match_dirs.get(index):
                    shutil.rmtree(lineup.workdir, ignore_errors=True)
    return list(hands.items())


def _remove_scratch() -> None:
    for scratch in _scratch:
        shutil.rmtree(scratch, ignore_errors=True)


def _make_scratch() -> None:
    """A worker keeps bots from one chunk to the next (closed as it exits, before their
    directory is removed)."""
    _scratch.append(tempfile.mkdtemp(prefix="gin-arena-ab-"))
    multiprocessing.util.Finalize(None, _remove_scratch, exitpriority=5)


def _tasks(test: ABTest) -> Iterator[list[Part]]:
    """The chunks, each with every pairing's games of its deals (the pairings share the seed
    and so the deals)."""
    cut = [chunks(p.match.plan()) for p in test.pairings]
    for k in range(max(len(c) for c in cut)):
        yield [
            (i, test.pairings[i].match, pieces[k])
            for i, pieces in enumerate(cut)
            if k < len(pieces)
        ]


def play(test: ABTest, jobs: int, on_chunk: Callable[[ABTest], None] | None = None) -> ABTest:
    """Play every hand of ``test`` in ``jobs`` worker processes (two chunks a worker in flight),
    calling ``on_chunk`` as each chunk comes in. On Ctrl-C the workers are stopped at once (the
    hands in flight are lost) and KeyboardInterrupt is raised again: ``test`` holds what was
    played. A worker that dies (a crash of the arena itself, not of a bot: bots forfeit) raises
    :class:`concurrent.futures.process.BrokenProcessPool`."""
    pool = workers.start(jobs, _make_scratch)
    tasks = _tasks(test)
    pending: set[concurrent.futures.Future[list[tuple[int, list[Hand]]]]] = set()

    def submit(count: int) -> None:
        for parts in itertools.islice(tasks, count):
            pending.add(pool.submit(play_chunk, parts))

    try:
        with workers.interrupts_held():  # the workers start on the first submissions
            submit(2 * jobs)
        while pending:
            done, _ = concurrent.futures.wait(
                pending, return_when=concurrent.futures.FIRST_COMPLETED
            )
            for future in done:
                pending.discard(future)
                for index, hands in future.result():
                    for hand in hands:
                        test.pairings[index].hands[hand.game] = hand
                if on_chunk is not None:
                    on_chunk(test)
            submit(len(done))
    except BaseException:
        workers.stop(pool)
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return test
