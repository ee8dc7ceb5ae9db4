"""The change between two versions: the standard deviation of a difference of ratings, with
their covariance, is what :func:`arena.stats.ratings.fit` implies for the same games (its LOS
between neighbours is ``Phi(gap / sd)``); and two versions that never met but share opponents
are known better together than their own intervals added."""

from __future__ import annotations

import math
import random
from statistics import NormalDist

from arena.stats.league import Join, League, PairResult, Replace
from arena.stats.league_change import Contrasts
from arena.stats.ratings import Result, fit


def _played(league: League, names: list[str], pairings: int, seed: int) -> list[Result]:
    rng = random.Random(seed)
    strength = {n: rng.gauss(0, 1) for n in names}
    results = []
    for _ in range(pairings):
        a, b = rng.sample(names, 2)
        p = 1 / (1 + math.exp(strength[b] - strength[a]))
        wins = sum(rng.random() < p for _ in range(2))
        league.apply(PairResult(a, b, wins, 2 - wins))
        results += [Result(a, b, 1.0 if k < wins else 0.0) for k in range(2)]
    return results


def test_the_difference_s_sd_is_the_full_fit_s() -> None:
    names = [f"bot{k}" for k in range(7)]
    league = League(seed=1, population=False)  # ratings.fit's fixed prior: its covariance
    for name in names:
        league.apply(Join(name, name))
    results = _played(league, names, 150, seed=3)
    contrasts = Contrasts(league)
    exact = fit(names, results)
    for upper, lower in zip(exact.ratings, exact.ratings[1:], strict=False):
        assert upper.los_next is not None
        sd = (upper.elo - lower.elo) / NormalDist().inv_cdf(upper.los_next)
        assert math.isclose(contrasts.sd(upper.name, lower.name), sd, rel_tol=1e-6)


def test_two_versions_that_never_met_are_compared_through_their_opponents() -> None:
    """mine@1 and mine@2 never meet; the sd of their difference is the full fit's all the same
    (checked on neighbours: the seeds put the two versions next to each other)."""
    names = ["a", "b", "c", "d"]
    league = League(seed=2, population=False)  # ratings.fit's fixed prior: its covariance
    for name in names:
        league.apply(Join(name, name))
    league.apply(Join("mine", "mine@1"))
    results = _played(league, [*names, "mine@1"], 60, seed=4)
    league.apply(Replace("mine@1", "mine@2"))
    results += _played(league, [*names, "mine@2"], 60, seed=5)
    contrasts = Contrasts(league)
    exact = fit([*names, "mine@1", "mine@2"], results)
    order = [r.name for r in exact.ratings]
    assert abs(order.index("mine@1") - order.index("mine@2")) == 1, order
    upper, lower = sorted(
        (r for r in exact.ratings if r.name.startswith("mine")), key=lambda r: order.index(r.name)
    )
    assert upper.los_next is not None
    sd = (upper.elo - lower.elo) / NormalDist().inv_cdf(upper.los_next)
    assert math.isclose(contrasts.sd("mine@2", "mine@1"), sd, rel_tol=1e-6)
    rows = {row.version: row for row in league.standings(all_versions=True)}
    apart = math.hypot(rows["mine@1"].half_width, rows["mine@2"].half_width) / 1.96
    assert not math.isclose(sd, apart, rel_tol=0.05), "their covariance matters"
