"""The statistics of a sequential probability ratio test (SPRT) over mirrored game pairs.

This is the test chess engine testing frameworks run to accept or reject a change (fishtest,
fastchess, cutechess-cli): Wald's sequential probability ratio test (A. Wald, "Sequential Tests of
Statistical Hypotheses", 1945) in its generalized form, the GSPRT, on the **pentanomial model** of
fishtest, as worked out by Michel Van den Bergh in his notes "A note on the generalized sequential
probability ratio test" (the maths behind fishtest's ``LLRcalc.py`` and ``stat_util.py``). The code
here is written from that mathematics, not taken from fishtest.

**Pairs.** Games are played in *pairs*: the same deal twice, with the seats swapped, so that the
luck of the deal largely cancels (each game of a pair by bot processes that never saw the other:
:mod:`arena.tournament.runner`, "Mirrored deals"). A pair's outcome for the NEW bot is its score
over
the two games (a win 1, a draw 1/2, a loss 0): 0, 1/2, 1, 3/2 or 2. :class:`Pentanomial` counts
pairs by that score: ``counts[i]`` is the number of pairs that scored ``i / 2`` (index
``i = 2 * pair score``).
The two games of a pair are correlated (the same cards); treating the pair, not the game, as the
unit of observation keeps the test honest about that correlation, and because mirrored pairs
usually have a *smaller* variance than two independent games, it also makes the test faster than
the game-by-game (trinomial) model.

**Hypotheses.** The per-game expected score of the new bot against the old is
``s = 1 / (1 + 10 ** (-elo / 400))`` (logistic Elo, :func:`elo_to_score`). The test weighs
``H0: elo = elo0`` (typically 0: "no better") against ``H1: elo = elo1`` (the smallest gain worth
detecting, e.g. 5 or 10). ``alpha`` is the probability of accepting H1 when H0 is true (a false
positive), ``beta`` the probability of accepting H0 when H1 is true (a false negative). After each
pair (or each batch) the log-likelihood ratio (LLR) of the data is compared with Wald's bounds
(:func:`bounds`): ``log(beta / (1 - alpha))`` below, ``log((1 - beta) / alpha)`` above; crossing
the upper bound accepts H1, crossing the lower accepts H0, anything between means "play on"
(:func:`decide`). For a true Elo between elo0 and elo1 either verdict may come out; at or beyond
them the wrong one comes out with probability about alpha (at elo0) or beta (at elo1), or less:
Wald's bounds are approximations, and the overshoot past a bound makes the true error rates a little
smaller than the nominal ones, the more so when the LLR is checked only every few pairs.

**The LLR** (:func:`llr`). The pentanomial distribution has five unknown probabilities; a
hypothesis fixes only their mean (the per-pair score / 2 equals ``s``). The GSPRT replaces each
composite hypothesis by its best member: the distribution ``q`` over the five outcomes that
maximises the likelihood of the observed frequencies ``p_hat`` under the constraint
``sum_i q_i a_i = s`` (``a_i = i / 4``, the pair score per game). Lagrange multipliers give
``q_i = p_hat_i / (1 + x (a_i - s))``, where ``x`` is the unique root, on the interval where every
denominator is positive, of the decreasing function ``sum_i p_hat_i (a_i - s) / (1 + x (a_i - s))``
(found by safeguarded Newton iteration: Newton steps, bisection when a step leaves the bracket).
Then ``LLR = N * sum_i p_hat_i * log(q1_i / q0_i)``. Empty cells are regularised as fishtest does:
a count of 0 is replaced by :data:`REGULARIZATION` (1e-3) pair (and ``N``, ``p_hat`` are those of
the regularised counts), so that the constrained MLE always exists and the LLR is finite, and small,
from the first pair; once every outcome has occurred the regularisation no longer plays any part.
With no pairs at all the LLR is 0. :func:`llr_normal` is the normal (Gaussian) approximation of the
same quantity, for checks.

**Estimates** (:func:`elo_estimate`, :func:`los`) use the per-pair mean and variance: a 95% interval
``mean +- 1.96 * sd / sqrt(pairs)`` on the score, mapped to Elo; the likelihood of superiority is
``Phi((mean - 0.5) / (sd / sqrt(pairs)))``. The mean is the observed score; the standard deviation
is that of the regularised counts, so that it is not 0 when every pair so far scored the same.
:func:`elo_words` says an estimate as ``gin-arena sprt`` and ``league compare`` print it.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from arena.errors import ArenaError

__all__ = [
    "CLAMP_ELO",
    "OUTCOMES",
    "PAIR_SCORES",
    "REGULARIZATION",
    "SCORE_CLAMP",
    "Z95",
    "Pentanomial",
    "SprtError",
    "Verdict",
    "bounds",
    "constrained_mle",
    "decide",
    "elo_estimate",
    "elo_text",
    "elo_to_score",
    "elo_words",
    "llr",
    "llr_normal",
    "los",
    "pair_index",
    "score_to_elo",
]

OUTCOMES = 5
"""The number of pair outcomes: pair scores 0, 1/2, 1, 3/2, 2."""
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
"""The score per game of each pair outcome (pair score / 2): the values ``a_i`` of the model."""
REGULARIZATION = 1e-3
"""The count an empty pentanomial cell is given in the LLR and the variance (as fishtest's
``regularize``): every outcome then has a positive frequency, so the constrained MLE exists."""
SCORE_CLAMP = 1e-3
"""Scores are clamped to ``[SCORE_CLAMP, 1 - SCORE_CLAMP]`` before conversion to Elo in
:func:`elo_estimate` (as fishtest's ``stat_util.elo``): Elo then stays within about +-1200."""
Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""

_MAX_ITERATIONS = 200


class SprtError(ArenaError, ValueError):
    """Invalid input to the SPRT statistics: negative counts, bad alpha/beta, ..."""


class Verdict(enum.StrEnum):
    """The state of the test: H0 accepted, H1 accepted, or keep playing."""

    H0 = "H0"
    H1 = "H1"
    CONTINUE = "continue"


@dataclass(frozen=True, slots=True)
class Pentanomial:
    """Counts of pairs by the NEW bot's pair score: ``counts[i]`` pairs scored ``i / 2``.

    >>> p = Pentanomial((1, 2, 4, 2, 1)).add(4)
    >>> p.counts, p.pairs, p.games
    ((1, 2, 4, 2, 2), 11, 22)
    """

    counts: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)

    def __post_init__(self) -> None:
        counts: object = self.counts
        if not isinstance(counts, tuple) or len(counts) != OUTCOMES:
            raise SprtError(f"a pentanomial has {OUTCOMES} counts, got {counts!r}")
        for c in counts:
            if isinstance(c, bool) or not isinstance(c, int):
                raise SprtError(f"pentanomial counts are integers, got {c!r}")
            if c < 0:
                raise SprtError(f"pentanomial counts cannot be negative, got {counts!r}")

    @property
    def pairs(self) -> int:
        """The number of pairs played."""
        return sum(self.counts)

    @property
    def games(self) -> int:
        """The number of games played: two per pair."""
        return 2 * self.pairs

    @property
    def score(self) -> float:
        """The NEW bot's mean score per game, 0..1. Raises :class:`SprtError` with no pairs."""
        pairs = self.pairs
        if pairs == 0:
            raise SprtError("no pairs played: the score is undefined")
        return sum(i * c for i, c in enumerate(self.counts)) / (4 * pairs)

    def add(self, pair_score_index: int) -> Pentanomial:
        """A new pentanomial with one more pair whose score is ``pair_score_index / 2``."""
        if (
            isinstance(pair_score_index, bool)
            or not isinstance(pair_score_index, int)
            or not 0 <= pair_score_index < OUTCOMES
        ):
            raise SprtError(
                f"a pair score index is 0..{OUTCOMES - 1} (2 * pair score), "
                f"got {pair_score_index!r}"
            )
        c = list(self.counts)
        c[pair_score_index] += 1
        return Pentanomial((c[0], c[1], c[2], c[3], c[4]))


def pair_index(first: float, second: float) -> int:
    """The pentanomial index (``2 * pair score``) of a pair from the NEW bot's two game scores,
    each 0 (loss), 0.5 (draw) or 1 (win).

    >>> pair_index(1, 0.5), pair_index(0, 1), pair_index(0, 0)
    (3, 2, 0)
    """
    for g in (first, second):
        if g not in (0, 0.5, 1):
            raise SprtError(f"a game score is 0, 0.5 or 1, got {g!r}")
    return round(2 * (first + second))


# -- Elo and score -------------------------------------------------------------------------------


def elo_to_score(elo: float) -> float:
    """The expected score per game of a bot ``elo`` points stronger: ``1 / (1 + 10**(-elo/400))``.

    >>> elo_to_score(0.0)
    0.5
    """
    if math.isnan(elo):
        raise SprtError("elo is NaN")
    # Written two ways so that the power never overflows (it may underflow to 0).
    if elo >= 0:
        return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))
    t = math.pow(10.0, elo / 400.0)
    return t / (1.0 + t)


def score_to_elo(score: float) -> float:
    """The inverse of :func:`elo_to_score`: ``400 * log10(score / (1 - score))``; a score of 0
    gives ``-inf`` and 1 gives ``+inf``.

    >>> round(score_to_elo(0.75), 3)
    190.849
    """
    if not 0.0 <= score <= 1.0:  # also rejects NaN
        raise SprtError(f"a score is between 0 and 1, got {score!r}")
    if score == 0.0:
        return -math.inf
    if score == 1.0:
        return math.inf
    return 400.0 * math.log10(score / (1.0 - score))


# -- the test ------------------------------------------------------------------------------------


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's bounds on the LLR: ``(log(beta / (1 - alpha)), log((1 - beta) / alpha))``.

    >>> [round(b, 4) for b in bounds(0.05, 0.05)]
    [-2.9444, 2.9444]
    """
    if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0):
        raise SprtError(f"alpha and beta must be in (0, 1), got alpha={alpha!r}, beta={beta!r}")
    if alpha + beta >= 1.0:
        raise SprtError(f"alpha + beta must be below 1, got alpha={alpha!r}, beta={beta!r}")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def _regularized(p: Pentanomial) -> tuple[float, list[float]]:
    """The regularised total count and frequencies: every empty cell counts
    :data:`REGULARIZATION` pair."""
    counts = [float(c) if c > 0 else REGULARIZATION for c in p.counts]
    total = sum(counts)
    return total, [c / total for c in counts]


def _mean_variance(pdf: Sequence[float]) -> tuple[float, float]:
    """The mean and variance of the per-game pair score under ``pdf``."""
    mean = sum(q * a for q, a in zip(pdf, PAIR_SCORES, strict=True))
    var = sum(q * (a - mean) ** 2 for q, a in zip(pdf, PAIR_SCORES, strict=True))
    return mean, var


def _multiplier(pdf: Sequence[float], s: float) -> float:
    """The Lagrange multiplier ``x`` of the MLE of ``pdf`` with mean ``s``: the root of
    ``f(x) = sum_i p_i d_i / (1 + x d_i)`` with ``d_i = a_i - s``, on the open interval where
    every ``1 + x d_i`` with ``p_i > 0`` is positive. ``f`` decreases there from ``+inf`` to
    ``-inf`` (``f'(x) = -sum_i p_i d_i**2 / (1 + x d_i)**2``), so the root is unique; Newton's
    method is safeguarded by bisection on the bracket."""
    support = [(q, a - s) for q, a in zip(pdf, PAIR_SCORES, strict=True) if q > 0]
    low_value = min(d for _, d in support)
    high_value = max(d for _, d in support)
    if not low_value < 0 < high_value:
        raise SprtError(f"the score {s!r} is outside the range of the observed outcomes")
    lo, hi = -1.0 / high_value, -1.0 / low_value  # open bracket
    x = 0.0
    for _ in range(_MAX_ITERATIONS):
        f = 0.0
        df = 0.0
        for q, d in support:
            t = d / (1.0 + x * d)
            f += q * t
            df -= q * t * t
        if f == 0.0:
            return x
        if f > 0.0:
            lo = x
        else:
            hi = x
        step = x - f / df
        new = step if lo < step < hi else 0.5 * (lo + hi)
        if abs(new - x) <= 1e-15 * max(1.0, abs(x)):
            return new
        x = new
    return x  # the bracket is tiny by now: two hundred halvings or quadratic steps


def constrained_mle(p: Pentanomial, score: float) -> tuple[float, float, float, float, float]:
    """The maximum-likelihood pentanomial distribution, given the (regularised) counts of ``p``,
    among those whose mean score per game is ``score`` (strictly between 0 and 1).

    >>> [round(q, 4) for q in constrained_mle(Pentanomial((1, 1, 1, 1, 1)), 0.5)]
    [0.2, 0.2, 0.2, 0.2, 0.2]
    """
    if not 0.0 < score < 1.0:
        raise SprtError(f"the constrained score must be strictly between 0 and 1, got {score!r}")
    _, pdf = _regularized(p)
    x = _multiplier(pdf, score)
    q = [pi / (1.0 + x * (a - score)) for pi, a in zip(pdf, PAIR_SCORES, strict=True)]
    return q[0], q[1], q[2], q[3], q[4]


def _hypothesis_scores(elo0: float, elo1: float) -> tuple[float, float]:
    for elo in (elo0, elo1):
        if not math.isfinite(elo):
            raise SprtError(f"elo0 and elo1 must be finite, got {elo!r}")
    s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
    for elo, s in ((elo0, s0), (elo1, s1)):
        if not 0.0 < s < 1.0:
            raise SprtError(f"elo {elo!r} is too extreme: its score rounds to {s!r}")
    return s0, s1


def llr(p: Pentanomial, elo0: float, elo1: float) -> float:
    """The generalised log-likelihood ratio of ``H1: elo = elo1`` against ``H0: elo = elo0``
    under the pentanomial model (see the module docstring); 0 with no pairs.

    ``N * sum_i p_i * log(q1_i / q0_i)``, where ``N`` and ``p`` are the regularised count and
    frequencies and ``q0``, ``q1`` the constrained MLEs (:func:`constrained_mle`) at the scores of
    ``elo0`` and ``elo1``. Positive values favour H1.
    """
    s0, s1 = _hypothesis_scores(elo0, elo1)
    if p.pairs == 0 or s0 == s1:
        return 0.0
    total, pdf = _regularized(p)
    x0, x1 = _multiplier(pdf, s0), _multiplier(pdf, s1)
    # log(q1_i / q0_i) = log(1 + x0 d0_i) - log(1 + x1 d1_i); log1p keeps the small terms exact.
    return total * sum(
        pi * (math.log1p(x0 * (a - s0)) - math.log1p(x1 * (a - s1)))
        for pi, a in zip(pdf, PAIR_SCORES, strict=True)
    )


def llr_normal(p: Pentanomial, elo0: float, elo1: float) -> float:
    """The normal approximation of :func:`llr`: ``N * (s1 - s0) * (2 * mean - s0 - s1) / (2 *
    var)``, with the mean and variance of the per-game pair score of the regularised counts (the
    variance is then positive); 0 with no pairs."""
    s0, s1 = _hypothesis_scores(elo0, elo1)
    if p.pairs == 0:
        return 0.0
    total, pdf = _regularized(p)
    mean, var = _mean_variance(pdf)
    return total * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)


def _score_sd(p: Pentanomial) -> tuple[float, float]:
    """The mean score per game of ``p`` and the standard error of that mean (per-pair standard
    deviation / sqrt(pairs), the standard deviation from the regularised counts, so that it is
    positive even when every pair had the same score)."""
    if p.pairs == 0:
        raise SprtError("no pairs played: nothing to estimate")
    _, pdf = _regularized(p)
    _, var = _mean_variance(pdf)
    return p.score, math.sqrt(var / p.pairs)


def elo_estimate(p: Pentanomial) -> tuple[float, float, float]:
    """``(elo, low, high)``: the Elo of the NEW bot relative to the old and its 95% confidence
    interval, from the per-pair score mean and variance.

    The interval is ``score +- 1.96 * sd / sqrt(pairs)`` mapped through :func:`score_to_elo`,
    with scores clamped to ``[SCORE_CLAMP, 1 - SCORE_CLAMP]`` (Elo within about +-1200) so that a
    clean sweep still gives finite numbers. Raises :class:`SprtError` with no pairs.

    >>> [round(e, 2) for e in elo_estimate(Pentanomial((2, 5, 8, 6, 4)))]
    [34.86, -44.92, 118.55]
    """
    mean, se = _score_sd(p)

    def elo(score: float) -> float:
        return score_to_elo(min(max(score, SCORE_CLAMP), 1.0 - SCORE_CLAMP))

    return elo(mean), elo(mean - Z95 * se), elo(mean + Z95 * se)


def los(p: Pentanomial) -> float:
    """The likelihood of superiority: the probability that the NEW bot's true score is above 1/2,
    ``Phi((score - 0.5) / (sd / sqrt(pairs)))`` (normal approximation); 0.5 with no pairs."""
    if p.pairs == 0:
        return 0.5
    mean, se = _score_sd(p)
    return 0.5 * math.erfc(-(mean - 0.5) / (se * math.sqrt(2.0)))


def decide(
    p: Pentanomial, elo0: float, elo1: float, alpha: float, beta: float
) -> tuple[Verdict, float, tuple[float, float]]:
    """The verdict of the SPRT of ``H0: elo = elo0`` against ``H1: elo = elo1`` (``elo0 <
    elo1``) with error rates ``alpha`` (false H1) and ``beta`` (false H0) after the pairs of
    ``p``: ``(verdict, llr, (lower, upper))``. H1 when the LLR reaches the upper bound, H0 when
    it reaches the lower, :attr:`Verdict.CONTINUE` in between."""
    if not elo0 < elo1:
        raise SprtError(f"elo0 must be below elo1, got elo0={elo0!r}, elo1={elo1!r}")
    lower, upper = bounds(alpha, beta)
    value = llr(p, elo0, elo1)
    if value >= upper:
        verdict = Verdict.H1
    elif value <= lower:
        verdict = Verdict.H0
    else:
        verdict = Verdict.CONTINUE
    return verdict, value, (lower, upper)


# -- in words ------------------------------------------------------------------------------------


CLAMP_ELO: Final = score_to_elo(1 - SCORE_CLAMP)
"""The Elo at which :func:`arena.stats.sprt.elo_estimate` clamps (about 1200): a value there is a
bound, never a measurement."""


def elo_text(value: float) -> str:
    """An Elo estimate or bound for people: at the clamp, ``> +1199`` or ``< -1199``, since the
    true value lies beyond it."""
    bound = math.floor(CLAMP_ELO)
    if value >= CLAMP_ELO - 1e-6:
        return f"> +{bound}"
    if value <= -CLAMP_ELO + 1e-6:
        return f"< -{bound}"
    return f"{value:+.1f}"


def elo_words(elo: float, low: float, high: float) -> str:
    """``Elo +82.3, 95% [+51.0, +115.0]``, with a clamped value as a bound."""
    shown = elo_text(elo)
    if elo_text(low) == elo_text(high) == shown:
        return f"Elo {shown}, its 95% interval too"
    return f"Elo {shown}, 95% [{elo_text(low)}, {elo_text(high)}]"
