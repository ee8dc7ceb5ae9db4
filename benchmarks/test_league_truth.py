"""The league judged against the truth (``benchmarks/league_truth.py``) on small leagues, in the
fast lane: its reported 95% intervals must hold the true strengths about as often as they say,
and its Elo scale must be right. Pure Python (the games drawn with :mod:`random`), so that it
runs where numpy is not installed.

**The bound.** Four leagues of 30 bots (true Elo drawn with a standard deviation of 200), each
run by the adaptive scheduler to its own stop: 120 intervals. Were each a true 95% interval
(independent: the shared mean couples them only by ``1/30``), the count holding the truth would
be binomial(120, 0.95): mean 114, standard deviation 2.4, and fewer than 104 (86.7%) has a
probability of 1.0e-4. So coverage of at least 86.7% is asked: a calibrated league fails it once
in ten thousand choices of seeds, and intervals halved (which hold the truth for
``P(|Z| < 0.98)``, 67% of bots: 80 of 120, the chance of 104 or more 7e-7) always fail it,
as the test shows with the same leagues.

**The slope** of reported on true ratings: a league's has a standard error of about 0.04 here
(the eight seeds 0-7 gave 0.92-1.02), so the mean of four about 0.02, and it is asked to be
within 0.94-1.06, three of those around 1. Before issue 44's changes these leagues gave
coverage 79% and a mean slope of 1.11 (1.06-1.16: early lopsided results frozen in by the
adaptive pairing); the test failed on both counts, as it should.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Iterator

import league_truth
import pytest

from arena.stats.league import League, Pairing, PairResult, Standing

SIZE = 30
SEEDS = (0, 1, 2, 3)
COVERAGE_BOUND = 104 / 120


def binomial_below(count: int, n: int, p: float) -> float:
    """P(X < count) for X ~ binomial(n, p)."""
    return sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(count))


def settled(seed: int) -> tuple[League, list[float], int]:
    """A league of :data:`SIZE` bots run by the adaptive scheduler until it asks for nothing,
    the true strengths and the games played."""
    rng = random.Random(seed)
    truth = [rng.gauss(0, 200) for _ in range(SIZE)]
    args = league_truth.parser().parse_args(["--target", "45"])
    league = league_truth.new_league(SIZE, "adaptive", seed, args)
    strength = dict(zip(league.versions, truth, strict=True))
    games = 0
    while pairings := league.next_pairings(10):
        games += 2 * len(pairings)
        for pairing in pairings:
            league.apply(outcome(pairing, strength, rng))
    return league, truth, games


def outcome(pairing: Pairing, strength: dict[str, float], rng: random.Random) -> PairResult:
    p = 1 / (1 + 10 ** ((strength[pairing.b] - strength[pairing.a]) / 400))
    wins = (rng.random() < p) + (rng.random() < p)
    return PairResult(pairing.a, pairing.b, wins, 2 - wins, pairing=pairing.index)


@pytest.fixture(scope="module")
def leagues() -> list[tuple[League, list[float], int]]:
    return [settled(seed) for seed in SEEDS]


@pytest.fixture
def halved(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every reported interval half as wide as the league computes it (a broken interval)."""
    real = League.standings

    def standings(self: League, **options: object) -> list[Standing]:
        rows = real(self, **options)  # type: ignore[arg-type]
        return [
            dataclasses.replace(
                row, low=row.elo - row.half_width / 2, high=row.elo + row.half_width / 2
            )
            for row in rows
        ]

    monkeypatch.setattr(League, "standings", standings)
    yield


def test_the_bound_is_what_the_binomial_spread_allows() -> None:
    assert binomial_below(104, 120, 0.95) < 1.1e-4
    assert 1 - binomial_below(104, 120, 0.67) < 1e-6


def coverage(leagues: list[tuple[League, list[float], int]]) -> float:
    points = [league_truth.judge(league, truth, games) for league, truth, games in leagues]
    return sum(p.coverage for p in points) / len(points)


def test_the_intervals_hold_the_truth_as_often_as_they_say(
    leagues: list[tuple[League, list[float], int]],
) -> None:
    points = [league_truth.judge(league, truth, games) for league, truth, games in leagues]
    assert all(p.widest <= 45 for p in points)  # each at its own stop
    assert coverage(leagues) >= COVERAGE_BOUND
    slope = sum(p.slope for p in points) / len(points)
    assert 0.94 <= slope <= 1.06


def test_the_check_fails_for_intervals_halved(
    leagues: list[tuple[League, list[float], int]], halved: None
) -> None:
    assert coverage(leagues) < COVERAGE_BOUND
