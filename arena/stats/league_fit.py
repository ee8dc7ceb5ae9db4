"""The league's fit, computed so that it scales to thousands of versions: the ratings by sparse
Gauss-Seidel sweeps, the intervals by a truncated random-walk series and a coarse correction.

The model is :mod:`arena.stats.ratings`' (see :mod:`arena.stats.league`); only how it is
computed differs. ``adj[i][j] == [games, score of i]`` is the graph of the pairs that met, as
:class:`arena.stats.league.League` keeps it; ratings are in natural units.

- *Ratings*: the same maximum, found by Gauss-Seidel Newton sweeps over the sparse graph of pairs
  that met (each rating in turn takes the Newton step of its own likelihood, the others held),
  warm-started from the previous fit: a handful of sweeps absorb a batch of new results, and a
  full fit sweeps until no rating moves by more than ``tolerance``.
- *Intervals*: the variance of ``r_k - mean(r)`` is the ``k``-th diagonal entry of the inverse of
  the Fisher information (a weighted graph Laplacian ``L = D - W``, ``w_ij = g_ij p_ij (1 -
  p_ij)``, plus the prior) in the direction of that contrast ``c = e_k - 1/n``. Writing the
  inverse as the random-walk series ``sum_m D^-1 (W D^-1)^m`` (valid for contrasts, which are
  orthogonal to the constant), :func:`variances` sums its first three terms (``m = 0, 1, 2``:
  the bot's own information, its opponents' uncertainty, theirs) over the pairs that met, and
  :func:`coarse_tail` the rest on a coarse copy of the graph (groups of versions consecutive in
  rating), which carries the slowly-decaying smooth differences between distant parts of the
  pool. Exact (up to rounding) with at most :data:`GROUPS` versions that played;
  ``tests/arena/stats/test_league.py`` holds the half-widths to 3% of
  :func:`arena.stats.ratings.fit`'s on leagues of 10 to 50 bots, and
  ``benchmarks/league_sim.py`` compares them with an exact inverse at 100 and 1,000 (within 2%,
  5% without the virtual draws: docs/LEAGUE.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from arena.stats.ratings import ELO_PER_NAT, PRIOR_SD

PRIOR_PRECISION = (PRIOR_SD / ELO_PER_NAT) ** -2
"""The prior's precision on each rating, in natural units (as in :mod:`arena.stats.ratings`)."""


def with_virtual(
    adj: list[dict[int, list[float]]], i: int, prior_draws: float
) -> list[tuple[int, float, float]]:
    """Version ``i``'s pairs as the fit reads them: ``(j, games, score of i)`` with the virtual
    draws added (:func:`arena.stats.ratings.virtual_draws`)."""
    mine = adj[i]
    met = len(mine)
    out = []
    for j, (g, s) in mine.items():
        v = prior_draws / max(1, met, len(adj[j]))
        out.append((j, g + v, s + v / 2))
    return out


def sweep(
    r: list[float],
    adj: list[dict[int, list[float]]],
    prior_draws: float,
    sweeps: int,
    tolerance: float,
    *,
    prior: float = PRIOR_PRECISION,
) -> None:
    """Move ``r`` (natural units, in place) towards the maximum of the posterior: Gauss-Seidel
    Newton sweeps over the versions that played, until the largest step is below ``tolerance``
    or ``sweeps`` sweeps; ``prior`` is the precision of the normal prior on each rating."""
    exp = math.exp
    order = [k for k in range(len(r)) if adj[k]]
    parts = components(order, adj)
    pairs = {i: with_virtual(adj, i, prior_draws) for i in order}
    for _ in range(sweeps):
        # A common shift of a connected group changes none of its games' odds: only the prior
        # pins it, far too weakly for sweeps to find it, so it is set exactly (the prior's
        # maximum is the group's mean at 0).
        for part in parts:
            mean = sum(r[k] for k in part) / len(part)
            for k in part:
                r[k] -= mean
        largest = 0.0
        for i in order:
            ri = r[i]
            grad = -prior * ri
            curvature = prior
            for j, g, s in pairs[i]:
                p = 1.0 / (1.0 + exp(r[j] - ri))
                grad += s - g * p
                curvature += g * p * (1.0 - p)
            # At most one natural unit (174 Elo) a step: far from the maximum (few games, a
            # cold start) a full Newton step can overshoot.
            step = max(-1.0, min(1.0, grad / curvature))
            r[i] = ri + step
            largest = max(largest, abs(step))
        if largest < tolerance:
            break


def components(order: list[int], adj: list[dict[int, list[float]]]) -> list[list[int]]:
    """The connected groups of the versions in ``order`` (those that played), each in order."""
    seen: set[int] = set()
    parts = []
    for start in order:
        if start in seen:
            continue
        seen.add(start)
        part, todo = [start], [start]
        while todo:
            for j in adj[todo.pop()]:
                if j not in seen:
                    seen.add(j)
                    part.append(j)
                    todo.append(j)
        parts.append(sorted(part))
    return parts


def variances(
    r: Sequence[float],
    adj: list[dict[int, list[float]]],
    prior_draws: float,
    *,
    prior: float = PRIOR_PRECISION,
) -> list[float]:
    """The variance of each ``r_k - mean(r over the versions that played)`` (natural units), by the
    first three terms of the random-walk series (module docstring) and the rest from a coarse
    copy of the graph (:func:`coarse_tail`); a version that has not played gets the prior's variance
    and that of the mean.

    With ``d_k`` the information of version ``k`` (the sum of its ``w_kj`` plus the prior),
    ``a_k = sum_j w_kj / d_j``, ``b_k = sum_j w_kj^2 / d_j``, ``c_k = sum_j w_kj a_j / d_j`` and
    ``n`` versions that played, the terms ``c^T D^-1 (W D^-1)^m c`` for ``c = e_k - 1/n`` are:
    ``m = 0``: ``1/d_k - 2/(n d_k) + sum(1/d)/n^2``; ``m = 1``: ``-2 a_k/(n d_k) + sum(a/d)/n^2``;
    ``m = 2``: ``b_k/d_k^2 - 2 c_k/(n d_k) + sum(a^2/d)/n^2``.
    """
    exp = math.exp
    size = len(r)
    played = [k for k in range(size) if adj[k]]
    n = len(played)
    # Without games: the prior's variance, plus that of the mean it is measured from.
    out = [(1 + (1 / n if n else 0)) / prior] * size
    if n == 0:
        return out
    weights: list[list[tuple[int, float]]] = [[] for _ in range(size)]
    d = [prior] * size
    for i in played:
        ri = r[i]
        row = weights[i]
        total = prior
        for j, g, _s in with_virtual(adj, i, prior_draws):
            p = 1.0 / (1.0 + exp(r[j] - ri))
            w = g * p * (1.0 - p)
            row.append((j, w))
            total += w
        d[i] = total
    inv = [1 / x for x in d]
    a = [0.0] * size
    b = [0.0] * size
    for i in played:
        sa = sb = 0.0
        for j, w in weights[i]:
            t = w * inv[j]
            sa += t
            sb += w * t
        a[i] = sa
        b[i] = sb
    c = [0.0] * size
    ad = [a[k] * inv[k] for k in range(size)]
    for i in played:
        c[i] = sum(w * ad[j] for j, w in weights[i])
    mean_terms = sum(inv[k] + ad[k] + a[k] * ad[k] for k in played) / (n * n)
    tail = coarse_tail(r, played, d, weights)
    for k in played:
        own = inv[k] * (1 - 2 / n) + b[k] * inv[k] * inv[k]
        cross = 2 / n * inv[k] * (a[k] + c[k])
        # Never below what its own games alone leave (its variance given every other rating).
        out[k] = max(own - cross + mean_terms + tail[k], inv[k] * (1 - 1 / n) ** 2)
    return out


MIN_SPREAD = (10 / ELO_PER_NAT) ** 2
"""The least variance of the pool's strengths :func:`population_spread` gives (10 Elo squared,
in natural units): a league of near-equal versions is not shrunk to one rating."""


MIN_POPULATION = 10
"""The fewest versions that played from which :func:`population_spread` estimates the pool's
spread; below, the fixed prior. From a handful of versions the estimate is noise, and it can
collapse: with two equal versions of three the spread fell to :data:`MIN_SPREAD`, every interval
narrowed to it and the league called itself settled with a 131-Elo gap fitted as 0
(tests/arena/tournament/test_league_command.py, the full round robin)."""


def population_spread(
    r: Sequence[float], v: Sequence[float], adj: list[dict[int, list[float]]]
) -> float:
    """The variance of the pool's strengths (natural units) that the fit's ratings ``r`` and
    variances ``v`` imply: one step of expectation-maximisation for the normal prior
    ``N(0, tau^2)`` on every rating, ``tau^2 = mean over the versions that played of
    (r_k - mean r)^2 + v_k``; between :data:`MIN_SPREAD` and the fixed prior's variance, which
    is also the answer while fewer than :data:`MIN_POPULATION` versions have played."""
    played = [k for k in range(len(r)) if adj[k]]
    n = len(played)
    if n < MIN_POPULATION:
        return 1 / PRIOR_PRECISION
    mean = sum(r[k] for k in played) / n
    spread = sum((r[k] - mean) ** 2 + v[k] for k in played) / n
    return min(1 / PRIOR_PRECISION, max(MIN_SPREAD, spread))


GROUPS = 40
"""Groups of the coarse correction (:func:`coarse_tail`), at least (``2 sqrt(n)`` for ``n`` versions
that played, when that is more): with at most this many versions that played, the intervals are
exact (up to rounding)."""


def coarse_tail(
    r: Sequence[float], played: list[int], d: list[float], weights: list[list[tuple[int, float]]]
) -> list[float]:
    """The terms ``m >= 3`` of the series (:func:`variances`), by version, from a coarse copy of
    the graph: the versions that played, in rating order, cut into groups of consecutive ones
    (:data:`GROUPS`, or ``2 sqrt(n)`` when more, at most; one version a group when there are no
    more of them than that), half by rank and half by rating, so that the sparse tails of the
    pool get groups of their own.

    In the eigenvectors ``u`` of ``N = D^-1/2 W D^-1/2`` those terms are ``sum (c^T D^-1/2 u)^2
    l^3 / (1 - l)`` over the non-constant modes; the slowly-decaying ones (``l`` near 1: the
    smooth differences between distant groups, a chain's drift) are what the first three terms
    miss. The coarse graph (``Wc = P^T W P``, ``Dc = P^T D P``, ``P`` the groups' indicator)
    carries them: with ``M = Dc^-1/2 Wc Dc^-1/2`` and ``y = Dc^-1/2 (e_g - s / n)`` (``s`` the
    groups' sizes), a version of group ``g`` gets ``y^T (I - M + u0 u0^T)^-1 y - y^T (I + M +
    M^2) y``, ``u0`` the constant mode (deflated; ``y`` is orthogonal to it). Exact when each
    version is its own group."""
    n = len(played)
    out = [0.0] * len(r)
    if n < 3:
        return out
    wanted = min(n, max(GROUPS, round(2 * math.sqrt(n))))
    order = sorted(played, key=lambda k: (r[k], k))
    # Cut half by rank, half by rating: the sparse tails of the pool (a chain of a few strong or
    # weak versions far apart) get groups of their own.
    low, span = r[order[0]], (r[order[-1]] - r[order[0]]) or 1.0
    label = [
        pos if wanted == n else min(wanted - 1, int(wanted * (pos / n + (r[k] - low) / span) / 2))
        for pos, k in enumerate(order)
    ]
    renumber = {g: new for new, g in enumerate(dict.fromkeys(label))}
    count = len(renumber)
    group = {}
    size = [0] * count
    for k, g in zip(order, label, strict=True):
        group[k] = renumber[g]
        size[renumber[g]] += 1
    dc = [0.0] * count
    wc = [[0.0] * count for _ in range(count)]
    for i in played:
        gi = group[i]
        dc[gi] += d[i]
        row = wc[gi]
        for j, w in weights[i]:
            row[group[j]] += w
    root = [math.sqrt(x) for x in dc]
    norm = math.sqrt(sum(dc))
    u0 = [x / norm for x in root]
    m = [[wc[g][h] / (root[g] * root[h]) for h in range(count)] for g in range(count)]
    # Columns y_g, one per group, stored as rows: y[g][a].
    y = [[((a == g) - size[a] / n) / root[a] for a in range(count)] for g in range(count)]
    system = [[(g == h) - m[g][h] + u0[g] * u0[h] for h in range(count)] for g in range(count)]
    z = solve_many(system, y)
    tail = [0.0] * count
    for g in range(count):
        yg = y[g]
        my = [sum(row[a] * yg[a] for a in range(count)) for row in m]
        tail[g] = sum(yg[a] * (z[g][a] - yg[a] - my[a]) - my[a] * my[a] for a in range(count))
    for k in played:
        out[k] = tail[group[k]]
    return out


def solve_many(matrix: list[list[float]], rights: list[list[float]]) -> list[list[float]]:
    """``matrix^-1 b`` for each ``b`` of ``rights`` (Gaussian elimination, partial pivoting)."""
    size = len(matrix)
    a = [row[:] for row in matrix]
    b = [[rhs[i] for rhs in rights] for i in range(size)]  # b[i][col]
    for col in range(size):
        pivot = max(range(col, size), key=lambda row: abs(a[row][col]))
        a[col], a[pivot] = a[pivot], a[col]
        b[col], b[pivot] = b[pivot], b[col]
        p = a[col][col]
        top, btop = a[col], b[col]
        for row in range(col + 1, size):
            f = a[row][col] / p
            if f:
                ar, br = a[row], b[row]
                for c in range(col, size):
                    ar[c] -= f * top[c]
                for c in range(len(br)):
                    br[c] -= f * btop[c]
    x = [[0.0] * size for _ in rights]
    for row in range(size - 1, -1, -1):
        ar, br = a[row], b[row]
        for c in range(len(rights)):
            acc = br[c] - sum(ar[k] * x[c][k] for k in range(row + 1, size))
            x[c][row] = acc / ar[row]
    return x


__all__ = [
    "GROUPS",
    "MIN_SPREAD",
    "PRIOR_PRECISION",
    "coarse_tail",
    "components",
    "population_spread",
    "solve_many",
    "sweep",
    "variances",
    "with_virtual",
]
