"""The change between two versions of a league: the difference of their ratings and its
uncertainty, with the covariance the two ratings share.

Two versions of one bot rarely meet (an update retires the older), so their difference is known
through the opponents they share, and the two ratings are correlated: adding their variances (as
if they were independent) is wrong either way, too wide where shared opponents correlate them,
too narrow where the ratings' centring on their mean does (a small league). The variance of
``r_a - r_b`` is ``c^T F^-1 c`` for the contrast ``c = e_a - e_b`` and ``F`` the fit's Fisher
information, the weighted graph Laplacian of :mod:`arena.stats.league` (``w_ij = g_ij p_ij (1 -
p_ij)``, the virtual draws included) plus the prior's precision (the pool's spread, as the fit
estimates it); :class:`Contrasts` solves ``F x = c`` by
conjugate gradients on the sparse graph of the pairs that met, at the league's own maximum (for
two neighbours among 1,000 versions that each met their 6 nearest, a chain, the slowest kind of
graph: 360 products with ``F``, half a second; docs/LEAGUE.md). Pure arithmetic: nothing is
played or stored.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence

from arena.stats.league import League
from arena.stats.ratings import ELO_PER_NAT, virtual_draws

_TOLERANCE = 1e-12
"""Conjugate gradients stop when the residual's squared norm is below this times the contrast's
(2, for two versions)."""


class Contrasts:
    """The fit of ``league`` as it stands (its standings' maximum), ready to answer the standard
    deviation of the difference between any two of its versions (:meth:`sd`), and where the
    scheduler places a version that has not played (:meth:`placement`)."""

    def __init__(self, league: League) -> None:
        r, spread = league.maximum()  # the full fit the standings show, not the scheduler's
        data = league.snapshot()
        names: list[str] = list(data["names"])
        adj: list[dict[int, float]] = [{int(j): float(g) for j, g, _ in row} for row in data["adj"]]
        self._index = {name: k for k, name in enumerate(names)}
        self._played = [bool(row) for row in adj]
        played = [r[k] for k, row in enumerate(adj) if row]
        shift = sum(played) / len(played) if played else 0.0
        self._placed = [(float(g) - shift) * ELO_PER_NAT for g in data["guess"]]
        prior_draws = float(data["prior_draws"])
        self._columns: list[list[int]] = []
        self._weights: list[list[float]] = []
        self._diagonal: list[float] = []
        for i, row in enumerate(adj):
            weights = []
            for j, games in row.items():
                p = 1 / (1 + math.exp(r[j] - r[i]))
                draws = virtual_draws(prior_draws, len(row), len(adj[j]))
                weights.append((games + draws) * p * (1 - p))
            self._columns.append(list(row))
            self._weights.append(weights)
            self._diagonal.append(1 / spread + sum(weights))

    def played(self, version: str) -> bool:
        return self._played[self._index[version]]

    def placement(self, version: str) -> float | None:
        """Where the scheduler places ``version`` until it has played, in Elo relative to the
        mean as the standings are (its predecessor's rating when an update replaced it, the
        fit's centre otherwise); None once it has played (its rating places it)."""
        k = self._index[version]
        return None if self._played[k] else self._placed[k]

    def sd(self, a: str, b: str) -> float:
        """The standard deviation of ``elo(a) - elo(b)``, in Elo, with their covariance."""
        i, j = self._index[a], self._index[b]
        c = [0.0] * len(self._diagonal)
        c[i], c[j] = 1.0, -1.0
        x = self._solve(c)
        return ELO_PER_NAT * math.sqrt(max(x[i] - x[j], 0.0))

    def _times(self, x: Sequence[float]) -> list[float]:
        """``F x``."""
        at = x.__getitem__
        return [
            d * x[k] - sum(map(operator.mul, weights, map(at, columns)))
            for k, (d, weights, columns) in enumerate(
                zip(self._diagonal, self._weights, self._columns, strict=True)
            )
        ]

    def _solve(self, c: list[float]) -> list[float]:
        """``F^-1 c`` by conjugate gradients, preconditioned by the diagonal of ``F``."""
        size = len(c)
        x = [0.0] * size
        residual = list(c)
        z = [residual[k] / self._diagonal[k] for k in range(size)]
        direction = list(z)
        rz = sum(residual[k] * z[k] for k in range(size))
        goal = _TOLERANCE * sum(v * v for v in c)
        for _ in range(10 * size + 10):
            if sum(v * v for v in residual) <= goal:
                break
            fd = self._times(direction)
            step = rz / sum(direction[k] * fd[k] for k in range(size))
            for k in range(size):
                x[k] += step * direction[k]
                residual[k] -= step * fd[k]
            z = [residual[k] / self._diagonal[k] for k in range(size)]
            rz, before = sum(residual[k] * z[k] for k in range(size)), rz
            direction = [z[k] + rz / before * direction[k] for k in range(size)]
        return x


__all__ = ["Contrasts"]
