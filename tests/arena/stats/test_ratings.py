"""The Bradley-Terry Elo fit (:mod:`arena.stats.ratings`) against hand-computed cases and synthetic
bots
of known strength."""

from __future__ import annotations

import math
import random
from collections.abc import Iterable

import pytest

from arena.stats.ratings import (
    ELO_PER_NAT,
    PRIOR_DRAWS,
    PRIOR_SD,
    Fit,
    Rating,
    RatingError,
    Result,
    expected_score,
    fit,
    virtual_draws,
)


def games(a: str, b: str, wins: int, losses: int, draws: int = 0) -> list[Result]:
    """``wins`` games won by ``a``, ``losses`` won by ``b`` and ``draws`` drawn, interleaved."""
    out = [Result(a, b, 1.0)] * wins + [Result(b, a, 1.0)] * losses
    out += [Result(a, b, 0.5)] * draws
    return out


def by_name(result: Fit) -> dict[str, Rating]:
    return {r.name: r for r in result.ratings}


def elo_of_score(score: float) -> float:
    """The Elo difference whose expected score is ``score``."""
    return 400 * math.log10(score / (1 - score))


def with_virtual_draw(wins: float, games: int, share: float = 1.0) -> float:
    """The score the fit sees: ``share`` of a virtual draw added (a whole one between two bots
    that met only each other; a bot's one draw is shared among the opponents it met)."""
    return (wins + share * PRIOR_DRAWS / 2) / (games + share * PRIOR_DRAWS)


def two_bot_exact(wins: float, games: int) -> float:
    """The exact maximum of the two-bot posterior, the Gaussian prior included, by bisection.

    With two bots the ratings are ``+d/2`` and ``-d/2`` (natural units); the maximum is where
    ``s - g * p(d) = prior * d / 2``, ``g`` and ``s`` counting the virtual draw."""
    g = games + PRIOR_DRAWS
    s = wins + PRIOR_DRAWS / 2
    prior = (PRIOR_SD / ELO_PER_NAT) ** -2
    low, high = -50.0, 50.0
    for _ in range(200):
        d = (low + high) / 2
        if s - g / (1 + math.exp(-d)) - prior * d / 2 > 0:
            low = d
        else:
            high = d
    return (low + high) / 2 * ELO_PER_NAT


# -- hand-computed cases ----------------------------------------------------------------------


@pytest.mark.parametrize(("wins", "losses"), [(70, 30), (55, 45), (90, 10), (20, 180)])
def test_two_bots_match_the_elo_formula_with_one_virtual_draw(wins: int, losses: int) -> None:
    n = wins + losses
    ratings = by_name(fit(["A", "B"], games("A", "B", wins, losses)))
    difference = ratings["A"].elo - ratings["B"].elo
    assert difference == pytest.approx(elo_of_score(with_virtual_draw(wins, n)), abs=0.5)
    # Not the raw score: the virtual draw is there (it moves 90-10 by about 8 Elo).
    if wins == 90:
        assert abs(difference - elo_of_score(wins / n)) > 4
    # And exactly the posterior maximum, the wide Gaussian prior included.
    assert difference == pytest.approx(two_bot_exact(wins, n), abs=1e-6)
    assert ratings["A"].elo == pytest.approx(difference / 2, abs=1e-9)


def test_draws_count_half_a_win_for_each_side() -> None:
    ratings = by_name(fit(["A", "B"], games("A", "B", 30, 10, draws=20)))
    difference = ratings["A"].elo - ratings["B"].elo
    assert difference == pytest.approx(elo_of_score(with_virtual_draw(40, 60)), abs=0.5)
    assert (ratings["A"].wins, ratings["A"].losses, ratings["A"].draws) == (30, 10, 20)
    assert (ratings["B"].wins, ratings["B"].losses, ratings["B"].draws) == (10, 30, 20)
    assert ratings["A"].games == ratings["B"].games == 60
    assert ratings["A"].score == pytest.approx(40 / 60)


def test_prior_draws_parameter_is_the_number_of_virtual_draws() -> None:
    ratings = by_name(fit(["A", "B"], games("A", "B", 9, 1), prior_draws=4.0))
    assert ratings["A"].elo - ratings["B"].elo == pytest.approx(elo_of_score(11 / 14), abs=0.5)


def test_symmetric_results_give_zero() -> None:
    ratings = by_name(fit(["A", "B"], games("A", "B", 25, 25)))
    assert ratings["A"].elo == pytest.approx(0, abs=1e-9)
    assert ratings["B"].elo == pytest.approx(0, abs=1e-9)
    # A rock-paper-scissors cycle is symmetric too.
    cycle = games("A", "B", 30, 10) + games("B", "C", 30, 10) + games("C", "A", 30, 10)
    for r in fit(["A", "B", "C"], cycle).ratings:
        assert r.elo == pytest.approx(0, abs=1e-9)


def test_the_mean_rating_is_zero() -> None:
    results = (
        games("A", "B", 12, 3)
        + games("A", "C", 9, 9)
        + games("B", "C", 2, 14, draws=3)
        + games("C", "D", 20, 1)
        + games("A", "D", 7, 0)
    )
    result = fit(["A", "B", "C", "D"], results)
    assert sum(r.elo for r in result.ratings) == pytest.approx(0, abs=1e-9)
    assert [r.name for r in result.ratings] == sorted(
        "ABCD", key=lambda name: -by_name(result)[name].elo
    )
    for r in result.ratings:
        assert r.low < r.elo < r.high
        assert r.elo - r.low == pytest.approx(r.high - r.elo)


def test_an_anchor_is_exactly_zero_and_shifts_the_others() -> None:
    names = ["A", "B", "C"]
    results = games("A", "B", 30, 10) + games("B", "C", 25, 15) + games("A", "C", 35, 5)
    mean = by_name(fit(names, results))
    anchored = by_name(fit(names, results, anchor="B"))
    assert anchored["B"].elo == 0.0
    assert anchored["B"].low == anchored["B"].high == 0.0
    for name in ("A", "C"):
        assert anchored[name].elo == pytest.approx(mean[name].elo - mean["B"].elo, abs=1e-9)
        assert anchored[name].low < anchored[name].elo < anchored[name].high
    assert sum(r.elo for r in anchored.values()) != pytest.approx(0, abs=1)


def test_an_unknown_anchor_is_refused() -> None:
    with pytest.raises(RatingError, match=r"unknown anchor bot 'Z'.*A, B"):
        fit(["A", "B"], games("A", "B", 1, 1), anchor="Z")
    assert issubclass(RatingError, ValueError)


def test_a_bot_that_wins_everything_stays_finite() -> None:
    ratings = by_name(fit(["A", "B"], games("A", "B", 50, 0)))
    difference = ratings["A"].elo - ratings["B"].elo
    assert math.isfinite(difference)
    # So few results near certainty that the wide prior pulls in a few Elo: compare exactly.
    assert difference == pytest.approx(two_bot_exact(50, 50), abs=1e-6)
    assert difference == pytest.approx(elo_of_score(with_virtual_draw(50, 50)), abs=10)
    assert all(math.isfinite(x) for r in ratings.values() for x in (r.low, r.high))
    # Against everyone, and with everyone else losing everything too.
    results = games("A", "B", 20, 0) + games("A", "C", 20, 0) + games("B", "C", 20, 0)
    result = by_name(fit(["A", "B", "C"], results))
    assert [result[n].elo > 0 for n in "AC"] == [True, False]
    assert all(math.isfinite(r.elo) and math.isfinite(r.high - r.low) for r in result.values())
    assert result["A"].elo > result["B"].elo > result["C"].elo


def test_a_bot_without_games_is_rated_zero_with_a_very_wide_interval() -> None:
    results = games("A", "B", 30, 10)
    with_idle = by_name(fit(["A", "B", "C"], results))
    alone = by_name(fit(["A", "B"], results))
    idle = with_idle["C"]
    assert (idle.games, idle.wins, idle.losses, idle.score) == (0, 0, 0, 0.0)
    assert idle.elo == pytest.approx(0, abs=1e-6)
    assert idle.high - idle.elo > 1000  # the prior's 2000 Elo, not a measurement
    # An idle bot changes nothing between the others.
    assert with_idle["A"].elo - with_idle["B"].elo == pytest.approx(
        alone["A"].elo - alone["B"].elo, abs=1e-6
    )
    assert with_idle["A"].elo == pytest.approx(alone["A"].elo, abs=1e-6)


def test_a_bot_without_games_does_not_widen_the_others_intervals() -> None:
    # A tournament interrupted before the last bot's first pairing has such a bot. What is known
    # about A and B is the same with or without it; the mean that anchors them should not take
    # in the idle bot's 2000-Elo prior (it widens A's interval from about 180 to 1600 Elo).
    results = games("A", "B", 30, 10)
    with_idle = by_name(fit(["A", "B", "C"], results))
    alone = by_name(fit(["A", "B"], results))
    for name in ("A", "B"):
        assert with_idle[name].high - with_idle[name].low == pytest.approx(
            alone[name].high - alone[name].low, rel=0.01
        )
    idle = with_idle["C"]
    assert idle.high - idle.elo > 5 * (alone["A"].high - alone["A"].elo)


def test_intervals_shrink_as_one_over_the_square_root_of_the_games() -> None:
    def half_width(n: int) -> float:
        r = by_name(fit(["A", "B"], games("A", "B", 6 * n // 10, 4 * n // 10)))["A"]
        return r.high - r.elo

    for n in (25, 100):
        assert half_width(n) / half_width(4 * n) == pytest.approx(2, rel=0.15)
    assert half_width(1000) < half_width(100) < half_width(10)


def test_the_interval_is_the_curvature_of_the_likelihood() -> None:
    # Two bots, mean anchored: each rating is half the difference, whose variance is
    # 1 / (g p (1 - p)) in natural units (the prior's curvature is negligible here).
    wins, n = 300, 500
    ratings = by_name(fit(["A", "B"], games("A", "B", wins, n - wins)))
    p = with_virtual_draw(wins, n)
    sd_difference = ELO_PER_NAT / math.sqrt((n + PRIOR_DRAWS) * p * (1 - p))
    assert ratings["A"].high - ratings["A"].elo == pytest.approx(
        1.959964 * sd_difference / 2, rel=0.01
    )


def test_likelihood_of_superiority() -> None:
    even = fit(["A", "B"], games("A", "B", 20, 20))
    assert even.ratings[0].los_next == pytest.approx(0.5, abs=1e-9)
    assert even.ratings[1].los_next is None

    def los(n: int) -> float:
        top = fit(["A", "B"], games("A", "B", 6 * n // 10, 4 * n // 10)).ratings[0]
        assert top.name == "A" and top.los_next is not None
        return top.los_next

    assert 0.5 < los(10) < los(100) < los(1000)
    assert los(1000) > 0.999
    clear = fit(["A", "B"], games("A", "B", 80, 20)).ratings[0]
    assert clear.los_next is not None and clear.los_next > 0.9999


def test_los_is_between_neighbours_down_the_table() -> None:
    results = games("A", "B", 50, 50) + games("B", "C", 90, 10) + games("A", "C", 90, 10)
    ratings = fit(["C", "B", "A"], results).ratings
    assert [r.name for r in ratings][2] == "C"
    assert ratings[0].los_next == pytest.approx(0.5, abs=0.01)  # A and B, equal
    assert ratings[1].los_next is not None and ratings[1].los_next > 0.9999  # over C
    assert ratings[2].los_next is None


def test_crosstable_counts_wins_and_losses_by_opponent() -> None:
    results = games("A", "B", 3, 2, draws=4) + games("C", "A", 1, 5) + games("B", "C", 0, 7)
    result = fit(["A", "B", "C"], results)
    assert result.crosstable == {
        "A": {"B": [3, 2], "C": [5, 1]},
        "B": {"A": [2, 3], "C": [0, 7]},
        "C": {"A": [1, 5], "B": [7, 0]},
    }
    ratings = by_name(result)
    for name, row in result.crosstable.items():
        assert sum(w for w, _ in row.values()) == ratings[name].wins
        assert sum(loss for _, loss in row.values()) == ratings[name].losses
    assert ratings["A"].draws == ratings["B"].draws == 4
    assert ratings["C"].draws == 0
    assert ratings["A"].games == 3 + 2 + 4 + 6


def test_a_transitive_chain_without_games_between_the_ends() -> None:
    results = games("A", "B", 30, 10) + games("B", "C", 30, 10)
    result = fit(["C", "A", "B"], results)
    assert [r.name for r in result.ratings] == ["A", "B", "C"]
    ratings = by_name(result)
    assert result.crosstable["A"]["C"] == [0, 0]
    # B met two bots: each pair is credited half a draw.
    step = elo_of_score(with_virtual_draw(30, 40, share=0.5))
    # A tree of games: each edge is fitted on its own games alone.
    assert ratings["A"].elo - ratings["B"].elo == pytest.approx(step, abs=0.5)
    assert ratings["B"].elo - ratings["C"].elo == pytest.approx(step, abs=0.5)
    assert ratings["B"].elo == pytest.approx(0, abs=0.5)
    # The ends are known less well than the middle: two links of uncertainty.
    width = {name: r.high - r.low for name, r in ratings.items()}
    assert width["A"] > width["B"] and width["C"] > width["B"]
    assert all(math.isfinite(w) for w in width.values())


# -- synthetic bots of known strength ---------------------------------------------------------

TRUE_ELO = {"w": -300.0, "x": -100.0, "y": 100.0, "z": 300.0}


def simulate(seed: int, per_pair: int, truth: dict[str, float]) -> Iterable[Result]:
    rng = random.Random(seed)
    names = list(truth)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            p = expected_score(truth[a] - truth[b])
            for k in range(per_pair):
                won = rng.random() < p
                # Alternate who is listed first, as seats would.
                if k % 2:
                    yield Result(a, b, 1.0 if won else 0.0)
                else:
                    yield Result(b, a, 0.0 if won else 1.0)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_synthetic_bots_of_known_strength_are_recovered(seed: int) -> None:
    names = ["x", "z", "w", "y"]
    result = fit(names, list(simulate(seed, 400, TRUE_ELO)))
    assert [r.name for r in result.ratings] == ["z", "y", "x", "w"]
    misses = 0
    for r in result.ratings:
        truth = TRUE_ELO[r.name]
        sd = (r.high - r.low) / (2 * 1.959964)
        assert 5 < sd < 40, r
        assert abs(r.elo - truth) < 3 * sd, (r, truth)
        misses += not r.low <= truth <= r.high
    assert misses <= 1


def test_synthetic_bots_with_an_anchor() -> None:
    result = by_name(fit(list(TRUE_ELO), list(simulate(7, 400, TRUE_ELO)), anchor="w"))
    assert result["w"].elo == 0.0
    for name in ("x", "y", "z"):
        truth = TRUE_ELO[name] - TRUE_ELO["w"]
        sd = (result[name].high - result[name].low) / (2 * 1.959964)
        assert abs(result[name].elo - truth) < 3 * sd, (result[name], truth)


def test_synthetic_even_bots_are_not_told_apart() -> None:
    truth = dict.fromkeys("abc", 0.0)
    result = fit(list(truth), list(simulate(11, 400, truth)))
    for r in result.ratings:
        assert r.low < 0 < r.high
        assert r.los_next is None or r.los_next < 0.99


def test_expected_score_is_the_elo_formula() -> None:
    assert expected_score(0) == 0.5
    assert expected_score(400) == pytest.approx(10 / 11)
    assert expected_score(-400) == pytest.approx(1 / 11)
    assert elo_of_score(expected_score(123.4)) == pytest.approx(123.4)


def test_a_bot_carries_one_virtual_draw_in_all_however_many_opponents_it_met() -> None:
    # A gauntlet: A met four bots, each of them only A. Each pair is credited 1/4 of a draw
    # (PRIOR_DRAWS / max(4, 1)), so A's virtual games add up to one; a full draw per pair would
    # add four and pull A's 40-0 record towards even twice as hard.
    others = ["B", "C", "D", "E"]
    results = [r for o in others for r in games("A", o, 10, 0)]
    star = by_name(fit(["A", *others], results))
    single = by_name(fit(["A", "B"], games("A", "B", 10, 0)))
    # Each pair's difference is that of a 10-0 record with a quarter of a draw, not a whole one
    # (the pairs hang on A alone, so each difference is fitted on its own pair's games).
    quarter = elo_of_score((10 + PRIOR_DRAWS / 8) / (10 + PRIOR_DRAWS / 4))
    whole = elo_of_score((10 + PRIOR_DRAWS / 2) / (10 + PRIOR_DRAWS))
    assert star["A"].elo - star["B"].elo == pytest.approx(quarter, rel=0.02)
    assert single["A"].elo - single["B"].elo == pytest.approx(whole, rel=0.02)
    assert virtual_draws(PRIOR_DRAWS, 4, 1) == PRIOR_DRAWS / 4
    assert virtual_draws(2.0, 1, 1) == 2.0
    assert virtual_draws(1.0, 0, 0) == 1.0


def test_a_round_robin_shares_each_bots_virtual_draw_among_its_opponents() -> None:
    # Three bots, each met two: every pair is credited half a draw. At the fit's maximum each
    # bot's gradient (its score less its expected score, virtual draws counted, less the
    # Gaussian prior's pull) is zero with half a draw a pair, and not with a whole one.
    records = {("A", "B"): (6, 0), ("B", "C"): (4, 2), ("A", "C"): (5, 1)}
    results = [r for (a, b), (won, lost) in records.items() for r in games(a, b, won, lost)]
    elo = {r.name: r.elo for r in fit(["A", "B", "C"], results).ratings}

    def gradient(name: str, virtual: float) -> float:
        total = -elo[name] / ELO_PER_NAT * (PRIOR_SD / ELO_PER_NAT) ** -2
        for (a, b), (won, lost) in records.items():
            if name in (a, b):
                wins = won if name == a else lost
                other = b if name == a else a
                p = expected_score(elo[name] - elo[other])
                total += wins + virtual / 2 - (won + lost + virtual) * p
        return total

    for name in "ABC":
        assert gradient(name, PRIOR_DRAWS / 2) == pytest.approx(0, abs=1e-6)
    assert abs(gradient("A", PRIOR_DRAWS)) > 0.05
