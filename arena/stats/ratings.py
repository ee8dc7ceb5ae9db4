"""Elo ratings from a Bradley-Terry fit over all games at once, between bots or teams of bots.

The model: bot ``i`` beats bot ``j`` with probability ``1 / (1 + 10 ** ((R_j - R_i) / 400))``; a
team's strength is the sum of its members' ratings, so team ``A`` beats team ``B`` with probability
``1 / (1 + 10 ** ((sum R_B - sum R_A) / 400))`` (team Bradley-Terry). The ratings maximise the
likelihood of every game played under a weak prior, so that a bot that wins or loses everything
still gets a finite rating: virtual drawn games between the sides that met (two bots, or two teams,
each team taken as the sorted set of its members), :data:`PRIOR_DRAWS` of them per side in all at
most (:func:`virtual_draws`), and a very wide Gaussian prior on every rating (standard deviation
:data:`PRIOR_SD` Elo around 0), which only matters for a bot with no games. A draw counts as half a
win for each side; a result's ``weight`` scales its evidence (see :func:`table_results`). Newton's
method finds the maximum; the inverse of the curvature there gives the covariance, hence 95%
intervals and the likelihood of superiority (LOS) between neighbours. Ratings are shifted so that
their mean is 0, or so that a named anchor bot is at 0.

A multi-player game becomes results with :func:`table_results`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from arena.errors import ArenaError
from engine.formats import Format, format_named
from engine.modes import FormatError

ELO_PER_NAT = 400 / math.log(10)
PRIOR_DRAWS = 1.0
"""Virtual drawn games a side (a bot, or a team) carries in all, at most, shared among the sides it
met (:func:`virtual_draws`)."""
PRIOR_SD = 2000.0
"""Elo standard deviation of the Gaussian prior on each rating."""
Z95 = 1.959963984540054
THREE_PLAYER_WEIGHT = 2 / 3
"""The weight of each of the three pairwise results of a three-player game (see
:func:`table_results`): one table counts as two two-player games' worth of evidence.

Why 2/3: a table's three comparisons are not three independent games but one ranking (a player who
beats one opponent is likely to beat the other), so counting them as full games would overstate the
evidence. The pairwise fit is a composite likelihood, whose true covariance is the sandwich
``H^-1 J H^-1`` (per table, ``H`` the curvature of the three pairwise terms, ``J`` the covariance of
their gradient), while the fit reports ``(w H)^-1``; the weight ``w`` makes them agree where
``J = H / w``. If the places at a table follow Plackett-Luce (each place goes, in turn, to one of
the players left with probability proportional to ``10 ** (R / 400)``), every pairwise comparison
follows this module's Elo formula exactly, so the decomposition is consistent, and ``J`` lies
between about ``H`` and ``3/2 H`` whatever the strengths: ``4/3 H`` between evenly matched players
(for any ranking model symmetric in the players), ``3/2 H`` for a player far weaker than two equal
others (its two losses, or two wins, come together). ``w = 2/3`` is therefore the largest weight
whose intervals are never too narrow: about 6% too wide between evenly matched players (where
``w = 3/4`` would be exact, but 6% too narrow for that weak player), while ``w = 1`` would be up to
22% too narrow (15% between evenly matched players). Ties on score between the other two only make
``J`` smaller. At even strength the pairwise fit keeps 96% of the information of the full
Plackett-Luce likelihood (``9/16`` against ``7/12`` per table). The weight moves no rating except
through the balance with the prior draws and with other formats' games."""


@dataclass(frozen=True, slots=True)
class Result:
    """One game between two bots: ``score`` is 1 if ``a`` won, 0 if ``b`` won, 0.5 a draw.

    ``weight`` scales the game's evidence in the fit (1: one two-player game); it does not change
    the counts, where every result is one game. A bot against itself tells nothing and is ignored.
    """

    a: str
    b: str
    score: float
    weight: float = 1.0


@dataclass(frozen=True, slots=True)
class TeamResult:
    """One game between two teams of bots: ``score`` is 1 if team ``a`` won, 0 if team ``b`` won,
    0.5 a draw; ``weight`` as for :class:`Result`.

    A team's strength is the sum of its members' ratings; the order of the members does not
    matter. Both teams must have the same number of members (ratings are known up to a common
    shift, which would change the odds between teams of different sizes), and no bot may be on
    both sides. A bot may appear twice in one team (two copies of it partnering each other): the
    team's strength then counts its rating twice.
    """

    a: tuple[str, ...]
    b: tuple[str, ...]
    score: float
    weight: float = 1.0


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


class RatingError(ArenaError, ValueError):
    """Ratings cannot be fitted as asked (an unknown anchor or bot, a malformed team or table)."""


_Side = tuple[int, ...]
"""A side of a game as the sorted indices of its members (one for a bot)."""


def virtual_draws(prior_draws: float, met_a: int, met_b: int) -> float:
    """The virtual drawn games credited to a pair of sides that met, when one of them met
    ``met_a`` different sides and the other ``met_b``: ``prior_draws / max(met_a, met_b)``.

    A full ``prior_draws`` for a match between two bots; ``prior_draws / (n - 1)`` for each pair
    of a round-robin of ``n``; and never more than ``prior_draws`` for any side in all, however
    many opponents it met. BayesElo credits a full draw to every pair that met instead; then the
    pseudo-evidence grows with the number of different opponents, and a schedule that spreads its
    games over more opponents (random pairing in a league of 1,000 bots: about 370 each) gets
    narrower intervals from games nobody played (docs/LEAGUE.md, "The virtual draws")."""
    return prior_draws / max(1, met_a, met_b)


def fit(
    names: Sequence[str],
    results: Iterable[Result | TeamResult],
    anchor: str | None = None,
    prior_draws: float = PRIOR_DRAWS,
) -> Fit:
    """Fit ratings for ``names`` (every bot, even one with no games) from ``results``.

    Every result is one game for each member of each side (a bot listed twice in a team counts it
    once): a win, a loss or a draw in its record, whatever its weight. The crosstable counts a team
    game once for each member against each member of the other team.
    """
    index = {name: i for i, name in enumerate(names)}
    if anchor is not None and anchor not in index:
        raise RatingError(f"unknown anchor bot {anchor!r}: the bots are {', '.join(names)}")
    tally = _tally(names, index, results)
    met: dict[_Side, int] = {}
    for a, b in tally.pair_games:
        met[a] = met.get(a, 0) + 1
        met[b] = met.get(b, 0) + 1
    for (a, b), entry in tally.pair_games.items():
        virtual = virtual_draws(prior_draws, met[a], met[b])
        entry[0] += virtual
        entry[1] += virtual / 2
    r, covariance = _maximise(len(names), tally.pair_games)
    ratings = _ratings(names, tally, r, covariance, None if anchor is None else index[anchor])
    return Fit(ratings, tally.cross)


@dataclass
class _Tally:
    """What the results add up to: per pair of sides ``(A, B)``, ``A < B``, the games (weighted)
    and ``A``'s score; each bot's record; the crosstable."""

    pair_games: dict[tuple[_Side, _Side], list[float]]
    wins: list[int]
    losses: list[int]
    draws: list[int]
    cross: dict[str, dict[str, list[int]]]


def _tally(
    names: Sequence[str], index: dict[str, int], results: Iterable[Result | TeamResult]
) -> _Tally:
    """Add up ``results`` (see :class:`_Tally`), before the prior draws."""
    n = len(names)
    pair_games: dict[tuple[_Side, _Side], list[float]] = {}  # (A, B), A < B -> [games, score of A]
    wins = [0] * n
    losses = [0] * n
    draws = [0] * n
    cross = {a: {b: [0, 0] for b in names if b != a} for a in names}
    for game in results:
        sides = _sides(game, index)
        if sides is None:
            continue
        a, b = sides
        weight = game.weight
        if not (math.isfinite(weight) and weight > 0):
            raise RatingError(f"{game!r}: the weight must be a positive number")
        key, s = ((a, b), game.score) if a < b else ((b, a), 1.0 - game.score)
        entry = pair_games.setdefault(key, [0.0, 0.0])
        entry[0] += weight
        entry[1] += weight * s
        won, lost = (a, b) if game.score == 1 else (b, a)
        if game.score in (0, 1):
            for i in dict.fromkeys(won):
                wins[i] += 1
                for j in dict.fromkeys(lost):
                    cross[names[i]][names[j]][0] += 1
                    cross[names[j]][names[i]][1] += 1
            for j in dict.fromkeys(lost):
                losses[j] += 1
        else:
            for i in dict.fromkeys(a + b):
                draws[i] += 1
    return _Tally(pair_games, wins, losses, draws, cross)


def _maximise(
    n: int, pair_games: dict[tuple[_Side, _Side], list[float]]
) -> tuple[list[float], list[list[float]]]:
    """The ratings of ``n`` bots (in natural units) that maximise the likelihood of
    ``pair_games`` under the prior, by Newton's method, and their covariance."""
    # Each pair of sides as the contrast c (members of A +1, of B -1): A beats B with probability
    # p = 1 / (1 + exp(-c.r)); its log-likelihood s log p + (g - s) log(1 - p) has gradient
    # (s - g p) c and Hessian -g p (1 - p) c c^T.
    contrasts = [(_contrast(a, b), g, s) for (a, b), (g, s) in pair_games.items()]
    prior = (PRIOR_SD / ELO_PER_NAT) ** -2  # precision, in natural units
    r = [0.0] * n
    hessian = [[0.0] * n for _ in range(n)]
    for _ in range(100):
        grad = [-prior * x for x in r]
        hessian = [[-prior if a == b else 0.0 for b in range(n)] for a in range(n)]
        for c, g, s in contrasts:
            p = 1 / (1 + math.exp(-sum(ck * r[k] for k, ck in c)))
            for k, ck in c:
                grad[k] += ck * (s - g * p)
            w = g * p * (1 - p)
            for k, ck in c:
                row = hessian[k]
                for m, cm in c:
                    row[m] -= w * ck * cm
        step = _solve([[-x for x in row] for row in hessian], grad)
        r = [x + d for x, d in zip(r, step, strict=True)]
        if max((abs(d) for d in step), default=0.0) < 1e-10:
            break
    covariance = _inverse([[-x for x in row] for row in hessian]) if n else []
    return r, covariance


def _ratings(
    names: Sequence[str],
    tally: _Tally,
    r: list[float],
    covariance: list[list[float]],
    anchor: int | None,
) -> list[Rating]:
    """The table of ratings, best first, from the fitted ``r`` (natural units) and their
    ``covariance``: in Elo, relative to the bot ``anchor`` (an index) or to the mean, with 95%
    intervals and the likelihood of superiority over the next bot down."""
    n = len(names)
    wins, losses, draws = tally.wins, tally.losses, tally.draws
    # Express every rating relative to the anchor (or the mean of the bots that played, so that a
    # bot without games, held only by the wide prior, does not blur everyone's interval).
    played = [k for k in range(n) if wins[k] + losses[k] + draws[k]] or list(range(n))
    if anchor is None:
        weights = [1.0 / len(played) if k in played else 0.0 for k in range(n)]
    else:
        weights = [float(k == anchor) for k in range(n)]
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
    # Level bots by name: a fit of the same games in another order can differ in the last bits.
    rows.sort(key=lambda row: (-round(row[0], 6), row[3]))
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
    return ratings


def table_results(
    mode: str,
    players: Sequence[str],
    winner: int | None,
    scores: Sequence[int],
    failed: int | None = None,
) -> list[Result | TeamResult]:
    """The results one finished game in ``mode`` gives the fit.

    ``players`` are the bots by player index; ``winner`` is a player index (two-player, Hollywood,
    three-player) or a team index (partnership: team 0 is players 0 and 2, team 1 players 1 and 3),
    ``None`` for a drawn game; ``scores`` are the final scores by player (by team in a
    partnership); ``failed`` is the player who forfeited, if one did.

    - Two-player and Hollywood: one :class:`Result` between players 0 and 1, scored 1, 0 or 0.5
      (drawn). A Hollywood match is one result, however many of its three games each won.
    - Three-player: the three pairwise :class:`Result` s, each of weight :data:`THREE_PLAYER_WEIGHT`
      (why 2/3: see there). The winner beats each of the others, and the other two are compared by
      final score (the higher wins, equal scores draw). A player who failed loses to both others,
      who are compared by score (a forfeit ends the game before anyone reached the target, so it has
      no winner of its own). A drawn game (``winner`` None) compares all three pairs by score.
    - Partnership: one :class:`TeamResult`, ``(players[0], players[2])`` against
      ``(players[1], players[3])``, scored 1, 0 or 0.5; a forfeit by either member loses for the
      team.

    Counts stay integers: each pairwise result is one game in each bot's record and crosstable, so
    a table adds two games to each player's record (the winner two wins, the last two losses) and a
    bot's score is the share of opponents it finished above, 0.5 between equals as in every other
    format.

    The same bot may appear twice only as its own partner in a partnership (two copies of one bot
    in a team, whose strength is then twice its rating); anything else, like a player count,
    winner, failed player or score count that does not fit the mode, is a :class:`RatingError`.
    """
    fmt, loser = _table_format(mode, players, winner, scores, failed)
    sides = fmt.side_count
    if fmt.teams:
        if sides != 2:
            raise RatingError(f"{fmt}: teams are rated two at a time, not {sides}")
        team0, team1 = (
            tuple(players[p] for p in range(fmt.players) if fmt.side_of(p) == side)
            for side in (0, 1)
        )
        both = set(team0) & set(team1)
        if both:
            raise RatingError(f"{', '.join(sorted(both))} on both teams of a {fmt}")
        if loser is not None:
            winner = 1 - loser
        return [TeamResult(team0, team1, _score(winner))]
    if len(set(players)) != len(players):
        raise RatingError(f"the same bot twice in a {fmt} game: {', '.join(players)}")
    if sides == 2:
        if failed is not None:
            winner = 1 - failed
        return [Result(players[0], players[1], _score(winner))]
    if sides != 3:
        raise RatingError(f"{fmt}: no rating rule for {sides} players on their own (only 2 or 3)")
    out: list[Result | TeamResult] = []
    for i, j in ((0, 1), (0, 2), (1, 2)):
        if failed in (i, j):
            score = 0.0 if failed == i else 1.0
        elif failed is None and winner in (i, j):
            score = 1.0 if winner == i else 0.0
        else:
            score = 1.0 if scores[i] > scores[j] else 0.0 if scores[i] < scores[j] else 0.5
        out.append(Result(players[i], players[j], score, THREE_PLAYER_WEIGHT))
    return out


def _table_format(
    mode: str,
    players: Sequence[str],
    winner: int | None,
    scores: Sequence[int],
    failed: int | None,
) -> tuple[Format, int | None]:
    """The format of a game for :func:`table_results`, and the side of the player who failed (if
    one did); a :class:`RatingError` if the game does not fit the format."""
    try:
        fmt = format_named(mode)
    except FormatError as error:
        raise RatingError(str(error)) from None
    if len(players) != fmt.players:
        raise RatingError(f"{fmt} seats {fmt.players} players, not {len(players)}")
    sides, by = fmt.side_count, ("team" if fmt.teams else "player")
    if len(scores) != sides:
        raise RatingError(f"{fmt} has {sides} scores (by {by}), not {len(scores)}")
    if winner is not None and not 0 <= winner < sides:
        raise RatingError(f"bad winner {winner!r} in {fmt}: expected 0..{sides - 1} or None")
    if failed is not None and not 0 <= failed < fmt.players:
        raise RatingError(f"bad failed player {failed!r}: expected 0..{fmt.players - 1} or None")
    loser = None if failed is None else fmt.side_of(failed)
    if loser is not None and winner == loser:
        raise RatingError(f"the winner {winner} is the {by} that failed")
    return fmt, loser


def _score(winner: int | None) -> float:
    """Side 0's score when ``winner`` (0, 1 or None for a draw) won."""
    return 0.5 if winner is None else 1.0 - winner


def _bot(name: str, index: dict[str, int]) -> int:
    try:
        return index[name]
    except (KeyError, TypeError):
        raise RatingError(
            f"a result names the unknown bot {name!r}: the bots are {', '.join(index)}"
        ) from None


def _sides(game: Result | TeamResult, index: dict[str, int]) -> tuple[_Side, _Side] | None:
    """The two sides of a game as sorted member indices; None for a bot against itself (as a
    :class:`Result`, which tells nothing)."""
    if isinstance(game, Result):
        i, j = _bot(game.a, index), _bot(game.b, index)
        return None if i == j else ((i,), (j,))
    for team in (game.a, game.b):
        if isinstance(team, str):
            raise RatingError(f"{game!r}: a team is a tuple of bot names, not a string")
        if not team:
            raise RatingError(f"{game!r}: a team without members")
    if len(game.a) != len(game.b):
        raise RatingError(
            f"{game!r}: teams of {len(game.a)} and {len(game.b)} bots: ratings are known up to "
            "a common shift, which would change the odds between teams of different sizes"
        )
    both = set(game.a) & set(game.b)
    if both:
        raise RatingError(f"{game!r}: {', '.join(sorted(both))} on both sides")
    a = tuple(sorted(_bot(name, index) for name in game.a))
    b = tuple(sorted(_bot(name, index) for name in game.b))
    return a, b


def _contrast(a: _Side, b: _Side) -> list[tuple[int, float]]:
    """The sparse vector whose product with the ratings is side ``a``'s strength minus ``b``'s."""
    c: dict[int, float] = {}
    for k in a:
        c[k] = c.get(k, 0.0) + 1.0
    for k in b:
        c[k] = c.get(k, 0.0) - 1.0
    return list(c.items())


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
