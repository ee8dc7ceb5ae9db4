"""Elo ratings from a Bradley-Terry fit over all games at once.

The model: bot ``i`` beats bot ``j`` with probability ``1 / (1 + 10 ** ((R_j - R_i) / 400))``. The
ratings maximise the likelihood of every game played under a weak prior, so that a bot that wins
or loses everything still gets a finite rating: every pair of bots that met is credited with
:data:`PRIOR_DRAWS` extra drawn game (as BayesElo does), and every rating has a very wide Gaussian
prior (standard deviation :data:`PRIOR_SD` Elo around 0), which only matters for a bot with no
games. A draw counts as half a win for each side. Newton's method finds the maximum; the
inverse of the curvature there gives the covariance, hence 95% intervals and the likelihood of
superiority (LOS) between neighbours. Ratings are shifted so that their mean is 0, or so that a
named anchor bot is at 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

ELO_PER_NAT = 400 / math.log(10)
PRIOR_DRAWS = 1.0
"""Virtual drawn games credited to every pair of bots that met."""
PRIOR_SD = 2000.0
"""Elo standard deviation of the Gaussian prior on each rating."""
Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class Result:
    """One game between two bots: ``score`` is 1 if ``a`` won, 0 if ``b`` won, 0.5 a draw."""

    a: str
    b: str
    score: float


@dataclass(frozen=True, slots=True)
class Rating:
    name: str
    elo: float
    low: float
    high: float
    games: int
    wins: int
    losses: int
    draws: int
    los_next: float | None = None
    """Likelihood that this bot is stronger than the next one down the table."""

    @property
    def score(self) -> float:
        return (self.wins + self.draws / 2) / self.games if self.games else 0.0


@dataclass
class Fit:
    ratings: list[Rating]
    crosstable: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    """``crosstable[bot][opponent] == [wins, losses]`` (draws are neither)."""


class RatingError(ValueError):
    """Ratings cannot be fitted as asked (an unknown anchor)."""


def fit(
    names: Sequence[str],
    results: Iterable[Result],
    anchor: str | None = None,
    prior_draws: float = PRIOR_DRAWS,
) -> Fit:
    """Fit ratings for ``names`` (every bot, even one with no games) from ``results``."""
    index = {name: i for i, name in enumerate(names)}
    if anchor is not None and anchor not in index:
        raise RatingError(f"unknown anchor bot {anchor!r}: the bots are {', '.join(names)}")
    n = len(names)
    pair_games: dict[tuple[int, int], list[float]] = {}  # (i, j), i < j -> [games, score of i]
    wins = [0] * n
    losses = [0] * n
    draws = [0] * n
    cross = {a: {b: [0, 0] for b in names if b != a} for a in names}
    for game in results:
        i, j = index[game.a], index[game.b]
        if i == j:
            continue
        key, s = ((i, j), game.score) if i < j else ((j, i), 1.0 - game.score)
        entry = pair_games.setdefault(key, [0.0, 0.0])
        entry[0] += 1
        entry[1] += s
        if game.score == 1:
            wins[i] += 1
            losses[j] += 1
            cross[game.a][game.b][0] += 1
            cross[game.b][game.a][1] += 1
        elif game.score == 0:
            wins[j] += 1
            losses[i] += 1
            cross[game.b][game.a][0] += 1
            cross[game.a][game.b][1] += 1
        else:
            draws[i] += 1
            draws[j] += 1
    for entry in pair_games.values():
        entry[0] += prior_draws
        entry[1] += prior_draws / 2
    prior = (PRIOR_SD / ELO_PER_NAT) ** -2  # precision, in natural units
    r = [0.0] * n
    hessian = [[0.0] * n for _ in range(n)]
    for _ in range(100):
        grad = [-prior * x for x in r]
        hessian = [[-prior if a == b else 0.0 for b in range(n)] for a in range(n)]
        for (i, j), (g, s) in pair_games.items():
            p = 1 / (1 + math.exp(r[j] - r[i]))
            grad[i] += s - g * p
            grad[j] -= s - g * p
            w = g * p * (1 - p)
            hessian[i][i] -= w
            hessian[j][j] -= w
            hessian[i][j] += w
            hessian[j][i] += w
        step = _solve([[-x for x in row] for row in hessian], grad)
        r = [x + d for x, d in zip(r, step, strict=True)]
        if max((abs(d) for d in step), default=0.0) < 1e-10:
            break
    covariance = _inverse([[-x for x in row] for row in hessian]) if n else []
    # Express every rating relative to the anchor (or the mean of the bots that played, so that a
    # bot without games, held only by the wide prior, does not blur everyone's interval).
    played = [k for k in range(n) if wins[k] + losses[k] + draws[k]] or list(range(n))
    if anchor is None:
        weights = [1.0 / len(played) if k in played else 0.0 for k in range(n)]
    else:
        weights = [float(k == index[anchor]) for k in range(n)]
    shift = sum(c * x for c, x in zip(weights, r, strict=True))

    def variance(contrast: list[float]) -> float:
        return max(
            0.0,
            sum(
                contrast[a] * covariance[a][b] * contrast[b]
                for a in range(n)
                for b in range(n)
                if contrast[a] and contrast[b]
            ),
        )

    rows = []
    for k, name in enumerate(names):
        contrast = [(1.0 if a == k else 0.0) - weights[a] for a in range(n)]
        sd = math.sqrt(variance(contrast)) * ELO_PER_NAT
        elo = (r[k] - shift) * ELO_PER_NAT
        rows.append((elo, sd, k, name))
    rows.sort(key=lambda row: (-row[0], row[3]))
    ratings = []
    for pos, (elo, sd, k, name) in enumerate(rows):
        los = None
        if pos + 1 < len(rows):
            k2 = rows[pos + 1][2]
            contrast = [(1.0 if a == k else 0.0) - (1.0 if a == k2 else 0.0) for a in range(n)]
            sd_diff = math.sqrt(variance(contrast))
            diff = r[k] - r[k2]
            los = 0.5 if sd_diff == 0 else 0.5 * (1 + math.erf(diff / sd_diff / math.sqrt(2)))
        ratings.append(
            Rating(
                name=name,
                elo=elo,
                low=elo - Z95 * sd,
                high=elo + Z95 * sd,
                games=wins[k] + losses[k] + draws[k],
                wins=wins[k],
                losses=losses[k],
                draws=draws[k],
                los_next=los,
            )
        )
    return Fit(ratings, cross)


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Solve ``matrix x = vector`` (symmetric positive definite) by Gaussian elimination."""
    n = len(vector)
    a = [[*row, vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda row: abs(a[row][col]))
        a[col], a[pivot] = a[pivot], a[col]
        p = a[col][col]
        for row in range(col + 1, n):
            f = a[row][col] / p
            if f:
                for c in range(col, n + 1):
                    a[row][c] -= f * a[col][c]
    x = [0.0] * n
    for row in range(n - 1, -1, -1):
        x[row] = (a[row][n] - sum(a[row][c] * x[c] for c in range(row + 1, n))) / a[row][row]
    return x


def _inverse(matrix: list[list[float]]) -> list[list[float]]:
    n = len(matrix)
    columns = [_solve(matrix, [1.0 if i == k else 0.0 for i in range(n)]) for k in range(n)]
    return [[columns[j][i] for j in range(n)] for i in range(n)]


def expected_score(elo_difference: float) -> float:
    """The expected score of a bot rated ``elo_difference`` above its opponent."""
    return 1 / (1 + 10 ** (-elo_difference / 400))
