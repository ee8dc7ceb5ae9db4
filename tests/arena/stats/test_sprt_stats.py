"""The SPRT statistics (:mod:`arena.stats.sprt`): the pentanomial GSPRT log-likelihood ratio, Wald's
bounds, the Elo estimate, and the error rates of the whole test, simulated.

The simulation draws pair outcomes straight from a pentanomial distribution of known true Elo (no
games are played), runs the SPRT until it stops, and counts verdicts over many runs with a fixed
seed. The thresholds on the counts are binomial quantiles at a one-sided 1e-4 tail (about 3.7
sigma): if the true error rates are the nominal ones, each check would also pass with any other
seed but for a chance of about 1 in 10,000.
"""

from __future__ import annotations

import dataclasses
import doctest
import math
import random
from collections.abc import Sequence

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import arena.stats.sprt
from arena.stats.sprt import (
    PAIR_SCORES,
    REGULARIZATION,
    SCORE_CLAMP,
    Pentanomial,
    SprtError,
    Verdict,
    bounds,
    constrained_mle,
    decide,
    elo_estimate,
    elo_to_score,
    llr,
    llr_normal,
    los,
    pair_index,
    score_to_elo,
)

counts_strategy = st.tuples(*[st.integers(0, 5000)] * 5).filter(lambda c: sum(c) > 0)
elos = st.floats(-300, 300, allow_nan=False)


def penta(*counts: int) -> Pentanomial:
    assert len(counts) == 5
    return Pentanomial((counts[0], counts[1], counts[2], counts[3], counts[4]))


def test_docstring_examples() -> None:
    result = doctest.testmod(arena.stats.sprt)
    assert result.attempted >= 8 and result.failed == 0


# -- the value type ------------------------------------------------------------------------------


def test_pentanomial_counts_pairs_games_and_score() -> None:
    p = penta(1, 2, 3, 4, 5)
    assert (p.pairs, p.games) == (15, 30)
    assert p.score == pytest.approx((2 * 0.5 + 3 * 1 + 4 * 1.5 + 5 * 2) / 30)
    assert Pentanomial().counts == (0, 0, 0, 0, 0) and Pentanomial().pairs == 0


def test_add_returns_a_new_pentanomial() -> None:
    p = Pentanomial()
    q = p.add(4).add(4).add(0)
    assert p.counts == (0, 0, 0, 0, 0)
    assert q.counts == (1, 0, 0, 0, 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        q.counts = (0, 0, 0, 0, 0)  # type: ignore[misc]


@pytest.mark.parametrize("index", [-1, 5, 2.0, True])
def test_add_rejects_a_bad_index(index: object) -> None:
    with pytest.raises(SprtError):
        Pentanomial().add(index)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "counts",
    [(0, 0, -1, 0, 0), (1, 2, 3, 4), (1, 2, 3, 4, 5, 6), (0, 0, 1.0, 0, 0), [1, 1, 1, 1, 1]],
    ids=["negative", "four", "six", "float", "list"],
)
def test_bad_counts_are_rejected(counts: object) -> None:
    with pytest.raises(SprtError, match="pentanomial"):
        Pentanomial(counts)  # type: ignore[arg-type]
    assert issubclass(SprtError, ValueError)


def test_the_score_of_no_pairs_is_an_error() -> None:
    with pytest.raises(SprtError, match="no pairs"):
        _ = Pentanomial().score


def test_pair_index() -> None:
    pairs = [(0, 0), (0, 0.5), (1, 0), (0.5, 0.5), (0, 1), (1, 0.5), (1, 1)]
    assert [pair_index(a, b) for a, b in pairs] == [0, 1, 2, 2, 2, 3, 4]
    with pytest.raises(SprtError):
        pair_index(0.25, 1)


# -- Elo and score -------------------------------------------------------------------------------


@given(st.floats(-3000, 3000, allow_nan=False))
def test_elo_score_round_trip(elo: float) -> None:
    assert score_to_elo(elo_to_score(elo)) == pytest.approx(elo, abs=1e-6)


@given(st.floats(1e-6, 1 - 1e-6))
def test_score_elo_round_trip(score: float) -> None:
    assert elo_to_score(score_to_elo(score)) == pytest.approx(score, rel=1e-12, abs=1e-15)


def test_elo_and_score_known_values() -> None:
    assert elo_to_score(0) == 0.5
    assert elo_to_score(400) == pytest.approx(10 / 11)
    assert elo_to_score(-400) == pytest.approx(1 / 11)
    assert score_to_elo(0.5) == 0.0
    assert (score_to_elo(0.0), score_to_elo(1.0)) == (-math.inf, math.inf)
    assert elo_to_score(-1e6) == 0.0 and elo_to_score(1e6) == 1.0  # no overflow


@pytest.mark.parametrize("score", [-0.1, 1.1, math.nan])
def test_score_to_elo_rejects_a_bad_score(score: float) -> None:
    with pytest.raises(SprtError):
        score_to_elo(score)


# -- bounds --------------------------------------------------------------------------------------


def test_bounds_for_five_percent_are_plus_minus_log_19() -> None:
    lower, upper = bounds(0.05, 0.05)
    assert lower == pytest.approx(-math.log(19), rel=1e-15)
    assert upper == pytest.approx(math.log(19), rel=1e-15)


def test_asymmetric_bounds() -> None:
    lower, upper = bounds(0.05, 0.1)
    assert lower == pytest.approx(math.log(0.1 / 0.95))
    assert upper == pytest.approx(math.log(0.9 / 0.05))


@pytest.mark.parametrize(
    ("alpha", "beta"),
    [
        (0, 0.05),
        (0.05, 0),
        (1, 0.05),
        (0.05, 1),
        (-0.1, 0.05),
        (0.5, 0.5),
        (0.7, 0.4),
        (math.nan, 0.1),
    ],
)
def test_bad_alpha_beta_are_rejected(alpha: float, beta: float) -> None:
    with pytest.raises(SprtError):
        bounds(alpha, beta)


# -- the LLR -------------------------------------------------------------------------------------

# Computed by an independent plain-bisection solver of the same constrained MLE (fishtest's
# formulas, with the same 1e-3 regularisation), to 1e-15 relative bracket width.
PINNED = [
    ((3, 5, 8, 5, 3), 0.0, 50.0, -0.6885485524865324),
    ((1, 2, 4, 10, 15), 0.0, 100.0, 6.680471281827828),
    ((15, 10, 4, 2, 1), -50.0, 0.0, -3.741764774025664),
    ((0, 0, 24, 0, 0), 0.0, 10.0, -0.69367081749791),
    ((10, 0, 0, 0, 10), 0.0, 20.0, -0.03312768763801436),
    ((0, 0, 0, 0, 10), 0.0, 5.0, 0.1429044325441585),
    ((2, 3, 5, 7, 3), -20.0, 20.0, 0.8800139576417187),
    ((50, 60, 80, 60, 50), 0.0, 4.0, -0.04587840043236875),
    ((0, 0, 0, 0, 1), 0.0, 10.0, 0.028423811539487056),
    ((1200, 5300, 9100, 5600, 1300), 0.0, 5.0, 5.460520447353475),
]


@pytest.mark.parametrize(("counts", "elo0", "elo1", "expected"), PINNED)
def test_llr_pinned_values(
    counts: tuple[int, int, int, int, int], elo0: float, elo1: float, expected: float
) -> None:
    assert llr(Pentanomial(counts), elo0, elo1) == pytest.approx(expected, rel=1e-9, abs=1e-12)


def _max_log_profile(pdf: Sequence[float], s: float) -> float:
    """``max_x sum_i p_i log(1 + x (a_i - s))`` by golden-section search: the constrained MLE's
    log-likelihood deficit (its dual), found without the module's Newton iteration."""
    d = [a - s for a in PAIR_SCORES]
    lo, hi = -1 / max(d), -1 / min(d)

    def g(x: float) -> float:
        return sum(p * math.log1p(x * di) for p, di in zip(pdf, d, strict=True))

    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(200):
        m1, m2 = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        if g(m1) < g(m2):
            lo = m1
        else:
            hi = m2
    return g((lo + hi) / 2)


@given(counts_strategy, elos, elos)
def test_llr_equals_the_dual_form(
    counts: tuple[int, int, int, int, int], elo0: float, elo1: float
) -> None:
    """``LLR = N * (G(s0) - G(s1))`` with ``G(s) = max_x sum p log(1 + x (a - s))``: the maximum
    of ``sum p log q`` under the mean constraint is ``sum p log p - G(s)``."""
    regularized = [c if c else REGULARIZATION for c in counts]
    total = sum(regularized)
    pdf = [c / total for c in regularized]
    s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
    expected = total * (_max_log_profile(pdf, s0) - _max_log_profile(pdf, s1))
    assert llr(Pentanomial(counts), elo0, elo1) == pytest.approx(expected, rel=1e-6, abs=1e-6)


@given(counts_strategy, st.floats(0.02, 0.98), st.integers(0, 2**32))
def test_constrained_mle_is_feasible_and_optimal(
    counts: tuple[int, int, int, int, int], s: float, seed: int
) -> None:
    q = constrained_mle(Pentanomial(counts), s)
    assert all(x > 0 for x in q)
    # The multiplier x is known to a relative 1e-15, but a cell whose observed frequency is tiny
    # (a regularised empty cell among thousands of pairs) has 1 + x d ~ 1e-7 and so a relative
    # error ~1e-8; it weighs ~1e-7 in the log-likelihood, so the LLR does not feel it.
    assert sum(q) == pytest.approx(1, abs=1e-7)
    assert sum(x * a for x, a in zip(q, PAIR_SCORES, strict=True)) == pytest.approx(s, abs=1e-7)
    regularized = [c if c else REGULARIZATION for c in counts]
    pdf = [c / sum(regularized) for c in regularized]

    def loglik(r: Sequence[float]) -> float:
        return sum(p * math.log(x) for p, x in zip(pdf, r, strict=True))

    # Any move that keeps the sum and the mean (a combination of second differences) does worse.
    rng = random.Random(seed)
    best = loglik(q)
    for _ in range(10):
        c = [rng.uniform(-1, 1) for _ in range(3)]
        v = [0.0] * 5
        for k in range(3):
            v[k] += c[k]
            v[k + 1] -= 2 * c[k]
            v[k + 2] += c[k]
        step = 1e-3 * min(q)
        moved = [x + step * vi for x, vi in zip(q, v, strict=True)]
        assert loglik(moved) <= best + 1e-15


@given(counts_strategy, elos)
def test_llr_is_zero_when_the_hypotheses_coincide(
    counts: tuple[int, int, int, int, int], elo: float
) -> None:
    assert llr(Pentanomial(counts), elo, elo) == 0.0


@given(counts_strategy, elos, elos)
def test_llr_is_antisymmetric(
    counts: tuple[int, int, int, int, int], elo0: float, elo1: float
) -> None:
    p = Pentanomial(counts)
    assert llr(p, elo0, elo1) == pytest.approx(-llr(p, elo1, elo0), rel=1e-9, abs=1e-9)


@given(counts_strategy, st.floats(-100, 100), st.floats(1, 100))
def test_llr_sign_follows_the_data(
    counts: tuple[int, int, int, int, int], elo0: float, width: float
) -> None:
    """Data scoring above the H1 score favour H1, data scoring below the H0 score favour H0."""
    p = Pentanomial(counts)
    elo1 = elo0 + width
    s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
    assume(p.score > s1 + 0.01 or p.score < s0 - 0.01)
    if p.score > s1:
        assert llr(p, elo0, elo1) > 0
    else:
        assert llr(p, elo0, elo1) < 0


def test_llr_of_no_pairs_is_zero_and_of_one_pair_finite_and_small() -> None:
    assert llr(Pentanomial(), 0, 10) == 0.0
    for index in range(5):
        value = llr(Pentanomial().add(index), 0, 10)
        assert math.isfinite(value) and abs(value) < 0.1
    assert llr(Pentanomial().add(4), 0, 10) > 0 > llr(Pentanomial().add(0), 0, 10)


@pytest.mark.parametrize(
    "counts",
    [(1200, 5300, 9100, 5600, 1300), (4000, 4000, 4000, 4000, 4000), (100, 3000, 20000, 3300, 90)],
)
@pytest.mark.parametrize(("elo0", "elo1"), [(0, 5), (0, 10), (-5, 5), (2, 3)])
def test_llr_is_close_to_the_normal_approximation_for_large_samples(
    counts: tuple[int, int, int, int, int], elo0: float, elo1: float
) -> None:
    p = Pentanomial(counts)
    exact, approx = llr(p, elo0, elo1), llr_normal(p, elo0, elo1)
    # The two differ at third order in (s1 - s0) and (score - s): a few hundredths of an LLR unit
    # here, against bounds of +-2.94.
    assert exact == pytest.approx(approx, rel=0.02, abs=0.05)


def test_llr_normal_by_hand() -> None:
    p = penta(10, 20, 40, 20, 10)
    s0, s1 = elo_to_score(0), elo_to_score(10)
    mean, var = 0.5, (10 * 0.25 + 20 * 0.0625 + 0 + 20 * 0.0625 + 10 * 0.25) / 100
    assert llr_normal(p, 0, 10) == pytest.approx(100 * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var))


@pytest.mark.parametrize("elo", [math.inf, -math.inf, math.nan, 1e6])
def test_llr_rejects_bad_elo(elo: float) -> None:
    with pytest.raises(SprtError):
        llr(penta(1, 1, 1, 1, 1), 0, elo)
    with pytest.raises(SprtError):
        llr_normal(penta(1, 1, 1, 1, 1), elo, 0)


# -- estimates -----------------------------------------------------------------------------------


@given(st.tuples(*[st.integers(0, 1000)] * 3))
def test_elo_of_a_symmetric_pentanomial_is_zero_with_a_symmetric_interval(
    half: tuple[int, int, int],
) -> None:
    a, b, c = half
    assume(a + b + c > 0)
    elo, low, high = elo_estimate(penta(a, b, c, b, a))
    assert elo == pytest.approx(0, abs=1e-9)
    assert low == pytest.approx(-high, abs=1e-9)
    assert low < 0 < high


def test_elo_estimate_by_hand() -> None:
    p = penta(10, 20, 30, 25, 15)  # 100 pairs, no empty cells: no regularisation at all
    mean = (20 * 0.25 + 30 * 0.5 + 25 * 0.75 + 15 * 1) / 100
    var = (
        sum(c * (a - mean) ** 2 for c, a in zip((10, 20, 30, 25, 15), PAIR_SCORES, strict=True))
        / 100
    )
    half = 1.959963984540054 * math.sqrt(var / 100)
    elo, low, high = elo_estimate(p)
    assert elo == pytest.approx(score_to_elo(mean))
    assert low == pytest.approx(score_to_elo(mean - half))
    assert high == pytest.approx(score_to_elo(mean + half))
    assert los(p) == pytest.approx(0.5 * math.erfc(-(mean - 0.5) / math.sqrt(2 * var / 100)))


@given(counts_strategy)
def test_elo_interval_contains_the_estimate_and_is_finite(
    counts: tuple[int, int, int, int, int],
) -> None:
    elo, low, high = elo_estimate(Pentanomial(counts))
    limit = score_to_elo(1 - SCORE_CLAMP) + 1e-9
    assert -limit <= low <= elo <= high <= limit


def test_a_sweep_gives_finite_numbers() -> None:
    elo, low, high = elo_estimate(penta(0, 0, 0, 0, 10))
    assert elo == high == pytest.approx(score_to_elo(1 - SCORE_CLAMP))
    assert low < elo
    elo, low, high = elo_estimate(penta(7, 0, 0, 0, 0))
    assert elo == low == pytest.approx(-score_to_elo(1 - SCORE_CLAMP))


def test_elo_estimate_of_no_pairs_is_an_error() -> None:
    with pytest.raises(SprtError, match="no pairs"):
        elo_estimate(Pentanomial())


def test_los() -> None:
    assert los(Pentanomial()) == 0.5
    assert los(penta(5, 5, 5, 5, 5)) == pytest.approx(0.5)
    assert los(penta(0, 0, 1, 0, 0)) == pytest.approx(0.5)
    assert los(penta(10, 20, 40, 25, 12)) > 0.5 > los(penta(12, 25, 40, 20, 10))
    assert los(penta(0, 0, 0, 5, 50)) > 0.9999
    assert los(penta(50, 20, 40, 20, 10)) < 0.01


# -- decide --------------------------------------------------------------------------------------


def test_decide() -> None:
    verdict, value, (lower, upper) = decide(Pentanomial(), 0, 10, 0.05, 0.05)
    assert (verdict, value, (lower, upper)) == (Verdict.CONTINUE, 0.0, bounds(0.05, 0.05))
    verdict, value, _ = decide(penta(100, 400, 800, 600, 200), 0, 10, 0.05, 0.05)
    assert verdict is Verdict.H1 and value >= upper
    verdict, value, _ = decide(penta(200, 600, 800, 400, 100), 0, 10, 0.05, 0.05)
    assert verdict is Verdict.H0 and value <= lower
    verdict, value, _ = decide(penta(10, 20, 40, 20, 10), 0, 10, 0.05, 0.05)
    assert verdict is Verdict.CONTINUE and lower < value < upper
    assert str(Verdict.CONTINUE) == "continue" and Verdict("H1") is Verdict.H1


@pytest.mark.parametrize(("elo0", "elo1"), [(5, 5), (10, 0)])
def test_decide_wants_elo0_below_elo1(elo0: float, elo1: float) -> None:
    with pytest.raises(SprtError, match="elo0"):
        decide(penta(1, 1, 1, 1, 1), elo0, elo1, 0.05, 0.05)


def test_decide_checks_alpha_and_beta() -> None:
    with pytest.raises(SprtError):
        decide(penta(1, 1, 1, 1, 1), 0, 10, 0.5, 0.5)


# -- the simulation ------------------------------------------------------------------------------

DRAW_RATE = 0.1
"""The probability that a game is drawn, whatever the strength difference."""
CORRELATION = 0.3
"""The probability that the second game of a pair repeats the first one's result for the NEW bot (a
deal that suits one bot's play does so in both seats); otherwise it is drawn independently."""
ALPHA = BETA = 0.05
ELO0, ELO1 = 0.0, 10.0
STRONG = 50.0
"""The true Elo of a clearly stronger bot: the test should stop early, with H1."""
TAIL = 1e-4
"""The one-sided binomial tail probability behind every count threshold."""


def pair_probabilities(elo: float) -> tuple[float, ...]:
    """The pentanomial distribution of a NEW bot ``elo`` points stronger than the old: each game a
    win, draw or loss with per-game score ``elo_to_score(elo)`` and draw rate :data:`DRAW_RATE`;
    the second game of the pair repeats the first with probability :data:`CORRELATION`."""
    s = elo_to_score(elo)
    game = {1.0: s - DRAW_RATE / 2, 0.5: DRAW_RATE, 0.0: 1 - s - DRAW_RATE / 2}
    assert min(game.values()) >= 0
    probs = [0.0] * 5
    for first, p_first in game.items():
        probs[pair_index(first, first)] += CORRELATION * p_first
        for second, p_second in game.items():
            probs[pair_index(first, second)] += (1 - CORRELATION) * p_first * p_second
    return tuple(probs)


def run_sprt(
    rng: random.Random, probs: Sequence[float], batch: int, max_pairs: int
) -> tuple[Verdict, int]:
    """One SPRT of ELO0 against ELO1, checked after every ``batch`` pairs, until it stops or
    ``max_pairs`` pairs have been played: the verdict and the number of pairs."""
    cumulative = [sum(probs[: i + 1]) for i in range(5)]
    counts = [0] * 5
    pairs = 0
    while pairs < max_pairs:
        for index in rng.choices(range(5), cum_weights=cumulative, k=batch):
            counts[index] += 1
        pairs += batch
        verdict, _, _ = decide(penta(*counts), ELO0, ELO1, ALPHA, BETA)
        if verdict is not Verdict.CONTINUE:
            return verdict, pairs
    return Verdict.CONTINUE, pairs


def binomial_tail_quantiles(n: int, p: float) -> tuple[int, int]:
    """``(low, high)`` for ``Binomial(n, p)``: the smallest count whose lower tail probability
    exceeds :data:`TAIL` and the largest whose upper tail exceeds it, so that a count outside
    ``[low, high]`` has probability below ``TAIL`` on either side."""

    def pmf(k: int) -> float:
        log = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
        return math.exp(log + k * math.log(p) + (n - k) * math.log1p(-p))

    low, tail = 0, pmf(0)
    while tail <= TAIL:
        low += 1
        tail += pmf(low)
    high, tail = n, pmf(n)
    while tail <= TAIL:
        high -= 1
        tail += pmf(high)
    return low, high


def test_binomial_tail_quantiles() -> None:
    assert binomial_tail_quantiles(300, 0.05) == (3, 31)
    assert binomial_tail_quantiles(300, 0.95) == (269, 297)
    low, high = binomial_tail_quantiles(2000, 0.05)
    assert 100 - 3.9 * math.sqrt(95) < low < 100 - 3.4 * math.sqrt(95)
    assert 100 + 3.4 * math.sqrt(95) < high < 100 + 4.1 * math.sqrt(95)


def simulate(
    elo: float, runs: int, seed: int, batch: int, max_pairs: int
) -> list[tuple[Verdict, int]]:
    rng = random.Random(seed)
    probs = pair_probabilities(elo)
    return [run_sprt(rng, probs, batch, max_pairs) for _ in range(runs)]


def test_the_simulated_pentanomial_has_the_true_score() -> None:
    for elo in (-50, 0, 10, 50):
        probs = pair_probabilities(elo)
        assert sum(probs) == pytest.approx(1)
        mean = sum(p * a for p, a in zip(probs, PAIR_SCORES, strict=True))
        assert mean == pytest.approx(elo_to_score(elo))


def check_error_rates(runs: int, seed: int, batch: int) -> None:
    max_pairs = 100_000  # ~25 times the mean length at elo0 or elo1: practically never reached
    cases = (ELO0, ELO1, STRONG)
    results = {elo: simulate(elo, runs, seed + k, batch, max_pairs) for k, elo in enumerate(cases)}

    def count(elo: float, verdict: Verdict) -> int:
        return sum(1 for v, _ in results[elo] if v is verdict)

    # True Elo = elo1: H1 in at least 1 - beta of the runs (up to binomial noise).
    low, _ = binomial_tail_quantiles(runs, 1 - BETA)
    assert count(ELO1, Verdict.H1) >= low
    # True Elo = elo0: H1 (a false positive) in at most alpha of the runs.
    _, high = binomial_tail_quantiles(runs, ALPHA)
    assert count(ELO0, Verdict.H1) <= high
    # Nothing ran out of pairs.
    assert all(v is not Verdict.CONTINUE for rs in results.values() for v, _ in rs)
    # A clearly stronger bot: H1 practically always, and several times sooner than at elo1.
    _, high = binomial_tail_quantiles(runs, 0.01)
    assert runs - count(STRONG, Verdict.H1) <= high
    mean_pairs = {elo: sum(n for _, n in rs) / runs for elo, rs in results.items()}
    assert mean_pairs[STRONG] < mean_pairs[ELO1] / 4


def test_simulated_sprt_error_rates() -> None:
    """300 runs of each case, the LLR checked every 32 pairs (as a runner updating per batch
    would): in practice the overshoot past a bound this adds makes both errors slightly rarer."""
    check_error_rates(runs=300, seed=20240611, batch=32)


@pytest.mark.slow
def test_simulated_sprt_error_rates_many_runs() -> None:
    """2,000 runs of each case, the LLR checked every 8 pairs (a minute or two)."""
    check_error_rates(runs=2000, seed=7, batch=8)
