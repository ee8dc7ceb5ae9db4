"""A living league's arithmetic: bot versions join, retire and replace each other, mirrored pairs
of games are reported, and the next pairings go where they inform most.

Pure arithmetic, like the rest of :mod:`arena.stats`: no games are played and nothing is stored
here. A caller (the league's store and command) feeds :class:`League` the events in the order
they happened and asks it for the next pairings; the same seed and the same events, asked in the
same order, give the same pairings, so a league can be replayed from its history.

**Events.** :class:`Join` (a version of a bot enters), :class:`Retire` (a version stops being
scheduled), :class:`Replace` (a new version of the same bot enters and the old one retires: an
update) and :class:`PairResult` (a pairing was played: one deal twice, seats swapped, so 0, 1 or 2
wins of 2, draws possible). A version is named by an id unique in the league (a digest, or
``name@7``); its bot is the name versions of one program share. History is kept: a retired
version keeps its games, its rating and its place in the fit, so its results still inform the
ratings of the versions it played.

**The model** is :mod:`arena.stats.ratings`' Bradley-Terry Elo with the same conventions: virtual
drawn games between versions that met, one per version in all at most, shared among the versions it
met (:func:`~arena.stats.ratings.virtual_draws`), ratings relative to the mean of the versions
that played. The Gaussian prior on every rating is the pool's own spread, estimated from the fit
(``League(population=True)``, the default: an adaptive design pins the global scale weakly, and
the benchmark against the true strengths showed the scale stretched without it), or
:data:`~arena.stats.ratings.PRIOR_SD` Elo as in ``ratings.fit``. The fit differs in how it is
computed, so that it scales to thousands of versions (see :meth:`League.standings`):
:mod:`arena.stats.league_fit` holds it.

**The scheduler** (:class:`Adaptive`) is described in docs/LEAGUE.md, "How games are scheduled";
:class:`RandomPairing` and :class:`RoundRobin` are the baselines behind the same interface.
"""

from __future__ import annotations

import bisect
import heapq
import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from arena.errors import ArenaError
from arena.stats.league_fit import PRIOR_PRECISION, population_spread, sweep, variances
from arena.stats.ratings import ELO_PER_NAT, PRIOR_DRAWS, Z95

TARGET_ELO = 30.0
"""The default stopping target: a version whose 95% interval is within this many Elo of its
rating either way is settled."""
MIN_SHARE = 0.25
"""The default guaranteed share: every active version plays at least this fraction of a fair
share of pairings (see :class:`Adaptive`)."""
_FULL_SWEEPS = 10_000
_FULL_TOLERANCE = 1e-9
"""A full fit: sweeps until no rating moves by more than this (natural units)."""
SNAPSHOT_FORMAT = 2
"""The version of :meth:`League.snapshot`'s data (a snapshot of another is refused, and the
events replayed instead)."""


class LeagueError(ArenaError, ValueError):
    """An event or a request the league cannot take: an unknown or duplicate version, a result
    that does not add up, a version retired twice."""


@dataclass(frozen=True, slots=True)
class Join:
    """Version ``version`` of bot ``bot`` enters the league (and is scheduled from now on)."""

    bot: str
    version: str


@dataclass(frozen=True, slots=True)
class Retire:
    """Version ``version`` stops being scheduled; its games stay in the fit."""

    version: str


@dataclass(frozen=True, slots=True)
class Replace:
    """Version ``new`` of the same bot as ``old`` enters and ``old`` retires (an update). Until it
    has played, the scheduler places ``new`` where ``old`` stood."""

    old: str
    new: str


@dataclass(frozen=True, slots=True)
class PairResult:
    """A pairing played: ``wins_a`` games won by ``a``, ``wins_b`` by ``b``, ``draws`` drawn; one
    deal twice with the seats swapped, so two games (one when a pairing was cut short).

    ``pairing`` is the :attr:`Pairing.index` it answers, if it answers one; without it the
    result answers the oldest pending pairing of the same two versions, if there is one.
    """

    a: str
    b: str
    wins_a: int
    wins_b: int
    draws: int = 0
    pairing: int | None = None

    @property
    def games(self) -> int:
        return self.wins_a + self.wins_b + self.draws


Event = Join | Retire | Replace | PairResult


@dataclass(frozen=True, slots=True)
class Pairing:
    """Play ``a`` against ``b`` on one deal twice, seats swapped. ``index`` counts the pairings
    the league has issued (0, 1, 2, ...): a caller may derive the deal from it."""

    index: int
    a: str
    b: str


@dataclass(frozen=True, slots=True)
class Standing:
    """A version's place: Elo relative to the mean of the versions that played, its 95%
    interval, its record in games, whether it is still scheduled and whether it is settled (its
    interval within the league's target)."""

    version: str
    bot: str
    elo: float
    low: float
    high: float
    games: int
    wins: int
    losses: int
    draws: int
    active: bool
    settled: bool

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2


class Scheduler(Protocol):
    """Chooses pairings; :meth:`League.next_pairings` records what it chooses."""

    name: str
    informed: bool
    """Whether it reads the fit (then the league keeps what the fit does not hold yet)."""

    def choose(self, league: League, k: int, rng: random.Random) -> list[tuple[int, int]]:
        """Up to ``k`` pairings as pairs of version indices (fewer, or none, when nothing needs
        playing)."""
        ...


class League:
    """The state of a league, built from events (:meth:`apply`), and its next pairings
    (:meth:`next_pairings`).

    ``seed`` seeds every random choice of the scheduler; ``target`` is the stopping rule's
    half-width in Elo; ``share`` the guaranteed fraction of a fair share of pairings;
    ``scheduler`` chooses the pairings (default :class:`Adaptive`); ``prior_draws`` is the
    virtual drawn games each version carries in all, at most, as in :func:`arena.stats.ratings.fit`.
    With ``population`` (the default) the prior on every rating is normal with the spread of
    the pool, estimated from the fit (:func:`arena.stats.league_fit.population_spread`);
    without, it is :mod:`arena.stats.ratings`' fixed prior of
    :data:`~arena.stats.ratings.PRIOR_SD` Elo, and the standings are ``ratings.fit``'s.
    """

    def __init__(
        self,
        *,
        seed: int = 0,
        target: float = TARGET_ELO,
        share: float = MIN_SHARE,
        scheduler: Scheduler | None = None,
        prior_draws: float = PRIOR_DRAWS,
        population: bool = True,
    ) -> None:
        if not (math.isfinite(target) and target > 0):
            raise LeagueError(f"the target half-width must be a positive number of Elo: {target!r}")
        if not (math.isfinite(share) and 0 < share <= 1):
            raise LeagueError(f"the guaranteed share must be in (0, 1]: {share!r}")
        if not (math.isfinite(prior_draws) and prior_draws >= 0):
            raise LeagueError(f"the prior draws must be a number at least 0: {prior_draws!r}")
        self.seed = seed
        self.prior_draws = prior_draws
        self.population = population
        self._spread = 1 / PRIOR_PRECISION
        """The variance of the prior on each rating (natural units): the pool's spread as the
        last fit estimated it, with :attr:`population`."""
        self.target = target
        self.share = share
        self.scheduler: Scheduler = Adaptive() if scheduler is None else scheduler
        self._index: dict[str, int] = {}
        self._names: list[str] = []
        self._bots: list[str] = []
        self._active: list[bool] = []
        self._adj: list[dict[int, list[float]]] = []
        """``_adj[i][j] == [games, score of i]`` of the games played (the virtual draws are added
        where the fit reads them: they depend on how many versions each side met)."""
        self._wins: list[int] = []
        self._losses: list[int] = []
        self._draws: list[int] = []
        self._guess: list[float] = []
        """Where the scheduler places a version that has not played (its predecessor's rating)."""
        self._last: list[int] = []
        """The index of the last pairing issued to each version (its entry, before any)."""
        self._issued = 0
        self._pending: dict[int, Pairing] = {}
        self._results = 0
        self._r: list[float] = []
        self._v: list[float] = []
        self._fitted_at = -1
        """:attr:`_results` when :attr:`_r` and :attr:`_v` were last computed (-1: never)."""
        self._converged = False
        """Whether the last fit swept to the full tolerance."""
        self._read: tuple[tuple[int, int, float, int], list[float], list[float], float] | None = (
            None
        )
        """A fit computed for a reader (:meth:`_fitted`): its inputs (results, sweeps,
        tolerance, rounds), ratings, variances and pool spread."""
        self._unfitted: dict[tuple[int, int], float] = {}
        """Games whose information the last fit does not hold (pairings issued since, pending
        then, or reported without a pairing since), by pair: an informed scheduler counts them
        ahead."""

    # Snapshots

    def snapshot(self) -> dict[str, Any]:
        """Everything the league holds, as JSON-ready data: :meth:`restore` rebuilds a league
        that behaves exactly as this one from here on (the same pairings for the same events:
        the fit's warm start and every order are kept, floats exactly).

        So a caller that stores a league's history need not replay all of it each time it opens
        it (:mod:`arena.tournament.league` stores one every few batches)."""
        return {
            "format": SNAPSHOT_FORMAT,
            "seed": self.seed,
            "target": self.target,
            "share": self.share,
            "prior_draws": self.prior_draws,
            "population": self.population,
            "spread": self._spread,
            "scheduler": self.scheduler.name,
            "names": self._names,
            "bots": self._bots,
            "active": self._active,
            "adj": [[[j, g, sc] for j, (g, sc) in row.items()] for row in self._adj],
            "wins": self._wins,
            "losses": self._losses,
            "draws": self._draws,
            "guess": self._guess,
            "last": self._last,
            "issued": self._issued,
            "pending": [[p.index, p.a, p.b] for p in self._pending.values()],
            "results": self._results,
            "r": self._r,
            "v": self._v,
            "fitted_at": self._fitted_at,
            "converged": self._converged,
            "unfitted": [[i, j, g] for (i, j), g in self._unfitted.items()],
        }

    @classmethod
    def restore(
        cls,
        data: Mapping[str, Any],
        *,
        seed: int = 0,
        target: float = TARGET_ELO,
        share: float = MIN_SHARE,
        scheduler: Scheduler | None = None,
        prior_draws: float = PRIOR_DRAWS,
        population: bool = True,
    ) -> League:
        """The league :meth:`snapshot` saved, for a league of these settings (the arguments of
        :class:`League`); a :class:`LeagueError` for data of another format or other settings,
        or data that does not hang together (then replay the events instead)."""
        league = cls(
            seed=seed,
            target=target,
            share=share,
            scheduler=scheduler,
            prior_draws=prior_draws,
            population=population,
        )
        if not isinstance(data, Mapping) or data.get("format") != SNAPSHOT_FORMAT:
            found = data.get("format") if isinstance(data, Mapping) else type(data).__name__
            raise LeagueError(f"not a league snapshot of format {SNAPSHOT_FORMAT}: {found!r}")
        for key, mine in (
            ("seed", seed),
            ("target", target),
            ("share", share),
            ("prior_draws", prior_draws),
            ("population", population),
            ("scheduler", league.scheduler.name),
        ):
            if data.get(key) != mine:
                raise LeagueError(
                    f"the snapshot is of a league with {key} {data.get(key)!r}, not {mine!r}"
                )
        try:
            league._load(data)
        except (KeyError, TypeError, ValueError, IndexError) as error:
            raise LeagueError(f"the snapshot does not hang together ({error!r})") from None
        return league

    def _load(self, data: Mapping[str, Any]) -> None:
        names = [str(n) for n in data["names"]]
        size = len(names)
        self._names = names
        self._index = {n: k for k, n in enumerate(names)}
        if len(self._index) != size:
            raise ValueError("duplicate versions")
        self._bots = [str(b) for b in data["bots"]]
        self._active = [bool(a) for a in data["active"]]
        self._adj = [{int(j): [float(g), float(sc)] for j, g, sc in row} for row in data["adj"]]
        self._wins = [int(x) for x in data["wins"]]
        self._losses = [int(x) for x in data["losses"]]
        self._draws = [int(x) for x in data["draws"]]
        self._guess = [float(x) for x in data["guess"]]
        self._last = [int(x) for x in data["last"]]
        self._r = [float(x) for x in data["r"]]
        self._v = [float(x) for x in data["v"]]
        lengths = {len(self._bots), len(self._active), len(self._adj), len(self._wins)}
        lengths |= {len(self._losses), len(self._draws), len(self._guess), len(self._last)}
        if lengths | {len(self._r), len(self._v)} != {size}:
            raise ValueError("columns of different lengths")
        if any(not 0 <= j < size or j == i for i, row in enumerate(self._adj) for j in row):
            raise ValueError("a pair with an unknown version")
        self._issued = int(data["issued"])
        self._pending = {}
        for index, a, b in data["pending"]:
            if a not in self._index or b not in self._index:
                raise ValueError(f"a pending pairing of an unknown version: {a!r} v {b!r}")
            self._pending[int(index)] = Pairing(int(index), str(a), str(b))
        self._results = int(data["results"])
        self._spread = float(data["spread"])
        self._fitted_at = int(data["fitted_at"])
        self._converged = bool(data["converged"])
        self._unfitted = {(int(i), int(j)): float(g) for i, j, g in data["unfitted"]}

    # Events

    def apply(self, event: Event) -> None:
        """Take one event; a :class:`LeagueError` (nothing changed) if it does not fit."""
        if isinstance(event, PairResult):
            self._result(event)
        elif isinstance(event, Join):
            self._join(event.bot, event.version, None)
        elif isinstance(event, Retire):
            self._retire(self._known(event.version, event))
        elif isinstance(event, Replace):
            old = self._known(event.old, event)
            if not self._active[old]:
                raise LeagueError(f"{event!r}: {event.old!r} is retired already")
            self._join(self._bots[old], event.new, old, event)
            self._retire(old)
        else:
            raise LeagueError(f"not a league event: {event!r}")

    def extend(self, events: Iterable[Event]) -> None:
        """Take ``events`` in order."""
        for event in events:
            self.apply(event)

    def _known(self, version: str, event: Event) -> int:
        try:
            return self._index[version]
        except (KeyError, TypeError):
            raise LeagueError(f"{event!r}: unknown version {version!r}") from None

    def _join(self, bot: str, version: str, old: int | None, event: Event | None = None) -> None:
        what = event if event is not None else Join(bot, version)
        for value, field in ((bot, "bot"), (version, "version")):
            if not isinstance(value, str) or not value:
                raise LeagueError(f"{what!r}: the {field} must be a non-empty string")
        if version in self._index:
            raise LeagueError(f"{what!r}: duplicate version {version!r} (already in the league)")
        self._index[version] = len(self._names)
        self._names.append(version)
        self._bots.append(bot)
        self._active.append(True)
        self._adj.append({})
        for counts in (self._wins, self._losses, self._draws):
            counts.append(0)
        self._guess.append(0.0 if old is None else self._location(old))
        self._last.append(self._issued)
        self._r.append(0.0)
        self._v.append(self._spread)
        self._read = None

    def _retire(self, i: int) -> None:
        if not self._active[i]:
            raise LeagueError(f"{Retire(self._names[i])!r}: {self._names[i]!r} is retired already")
        self._active[i] = False

    def _result(self, result: PairResult) -> None:
        i, j = self._known(result.a, result), self._known(result.b, result)
        if i == j:
            raise LeagueError(f"{result!r}: a version cannot play itself")
        counts = (result.wins_a, result.wins_b, result.draws)
        if not all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in counts):
            raise LeagueError(f"{result!r}: wins and draws must be counts (integers, at least 0)")
        if result.games not in (1, 2):
            raise LeagueError(
                f"{result!r}: a pairing is 2 games (1 if cut short), not {result.games}"
            )
        pending = self._answered(result, i, j)
        if pending is not None:
            del self._pending[pending]
        g = float(result.games)
        s = result.wins_a + result.draws / 2
        entry = self._adj[i].get(j)
        if entry is None:
            entry = self._adj[i][j] = [0.0, 0.0]
            self._adj[j][i] = [0.0, 0.0]
        entry[0] += g
        entry[1] += s
        back = self._adj[j][i]
        back[0] += g
        back[1] += g - s
        self._wins[i] += result.wins_a
        self._losses[i] += result.wins_b
        self._wins[j] += result.wins_b
        self._losses[j] += result.wins_a
        self._draws[i] += result.draws
        self._draws[j] += result.draws
        self._results += 1
        if pending is None and self.scheduler.informed:
            _add(self._unfitted, i, j, g)

    def _answered(self, result: PairResult, i: int, j: int) -> int | None:
        """The pending pairing ``result`` answers, if any."""
        if result.pairing is not None:
            pairing = self._pending.get(result.pairing)
            if pairing is None:
                raise LeagueError(f"{result!r}: no pending pairing {result.pairing}")
            if {pairing.a, pairing.b} != {result.a, result.b}:
                raise LeagueError(f"{result!r}: pairing {result.pairing} is {pairing!r}")
            return result.pairing
        for index, pairing in self._pending.items():  # issued order: the oldest first
            if {self._index[pairing.a], self._index[pairing.b]} == {i, j}:
                return index
        return None

    # What the league knows

    @property
    def versions(self) -> tuple[str, ...]:
        """Every version that ever joined, in the order they joined."""
        return tuple(self._names)

    @property
    def active(self) -> tuple[str, ...]:
        """The versions being scheduled, in the order they joined."""
        return tuple(name for name, on in zip(self._names, self._active, strict=True) if on)

    @property
    def issued(self) -> int:
        """How many pairings :meth:`next_pairings` has issued."""
        return self._issued

    @property
    def pending(self) -> tuple[Pairing, ...]:
        """Pairings issued and not yet answered by a result, oldest first."""
        return tuple(self._pending.values())

    def bot(self, version: str) -> str:
        return self._bots[self._known(version, Retire(version))]

    def maximum(
        self, *, tolerance: float = _FULL_TOLERANCE, max_sweeps: int = _FULL_SWEEPS
    ) -> tuple[list[float], float]:
        """The fit the standings show, as :meth:`standings` makes it (nothing the scheduler uses
        changes): every version's rating in natural units, in the order of :meth:`snapshot`'s
        ``names``, and the variance of the prior on each rating (the pool's spread, estimated
        with :attr:`population`)."""
        r, _, spread = self._fitted(sweeps=max_sweeps, tolerance=tolerance, steps=_READER_STEPS)
        return list(r), spread

    def standings(
        self,
        *,
        all_versions: bool = False,
        tolerance: float = _FULL_TOLERANCE,
        max_sweeps: int = _FULL_SWEEPS,
    ) -> list[Standing]:
        """The table, best first: the active versions (every version with ``all_versions``).

        The ratings are the fit's maximum to within ``tolerance`` (natural units, the largest
        step of a sweep) or ``max_sweeps`` sweeps; the intervals as in the module's docstring.
        Reading them changes nothing the scheduler uses: the same events give the same pairings
        whether or not the table was read in between.
        """
        r, v, _ = self._fitted(sweeps=max_sweeps, tolerance=tolerance, steps=_READER_STEPS)
        played = [k for k in range(len(self._names)) if self._adj[k]]
        shift = sum(r[k] for k in played) / len(played) if played else 0.0
        rows = []
        for k, name in enumerate(self._names):
            if not (all_versions or self._active[k]):
                continue
            elo = (r[k] - shift) * ELO_PER_NAT
            half = Z95 * ELO_PER_NAT * math.sqrt(v[k])
            rows.append(
                Standing(
                    version=name,
                    bot=self._bots[k],
                    elo=elo,
                    low=elo - half,
                    high=elo + half,
                    games=self._wins[k] + self._losses[k] + self._draws[k],
                    wins=self._wins[k],
                    losses=self._losses[k],
                    draws=self._draws[k],
                    active=self._active[k],
                    settled=half <= self.target,
                )
            )
        rows.sort(key=lambda row: (-round(row.elo, 6), row.version))
        return rows

    def half_widths(self) -> dict[str, float]:
        """Every version's 95% half-width in Elo from the last fit (refitted if stale, with the
        scheduler's few sweeps, as the scheduler would refit now; read without changing what
        the scheduler uses), by version, in the order they joined."""
        _, v, _ = self._fitted(sweeps=_SWEEPS, tolerance=_SCHEDULER_TOLERANCE, only_if_stale=True)
        return {n: Z95 * ELO_PER_NAT * math.sqrt(x) for n, x in zip(self._names, v, strict=True)}

    def unsettled(self) -> tuple[str, ...]:
        """The active versions whose interval is wider than the target (by the last fit, refitted
        if stale), in the order they joined."""
        widths = self.half_widths()
        return tuple(n for n in self.active if widths[n] > self.target)

    # Scheduling

    def next_pairings(self, k: int, reserved: Sequence[tuple[str, str]] = ()) -> list[Pairing]:
        """The next ``k`` pairings (fewer, or none, when nothing needs playing), pending until a
        :class:`PairResult` answers each: the ``reserved`` pairs as given, then the scheduler's."""
        if not isinstance(k, int) or isinstance(k, bool) or not 0 <= len(reserved) <= k:
            raise LeagueError(f"pairings: a count, no fewer than the reserved ones, not {k!r}")
        rng = random.Random(f"league:{self.seed}:{self._issued}")
        ends = [(self._known(a, Retire(a)), self._known(b, Retire(b))) for a, b in reserved]
        chosen = self.scheduler.choose(self, k - len(ends), rng) if k > len(ends) else []
        out = []
        for i, j in [*ends, *chosen[: k - len(ends)]]:
            pairing = Pairing(self._issued, self._names[i], self._names[j])
            self._pending[self._issued] = pairing
            self._last[i] = self._last[j] = self._issued
            self._issued += 1
            if self.scheduler.informed:
                _add(self._unfitted, i, j, 2.0)
            out.append(pairing)
        return out

    def _location(self, k: int) -> float:
        """Where the scheduler places version ``k``: its rating, or its guess before it plays."""
        return self._r[k] if self._adj[k] else self._guess[k]

    # The fit

    def _stale(self, sweeps: int, only_if_stale: bool) -> bool:
        """Whether :meth:`_fit` would refit: unless nothing changed since the last fit; with
        ``only_if_stale``, not while the fit is only a little behind (the scheduler's rule)."""
        new = self._results - self._fitted_at
        if new == 0 and (self._converged or sweeps < _FULL_SWEEPS):
            return False
        return not (only_if_stale and self._fitted_at >= 0 and new < self._refit_every())

    def _fitted(
        self, sweeps: int, tolerance: float, only_if_stale: bool = False, steps: int = 1
    ) -> tuple[list[float], list[float], float]:
        """The ratings, variances and pool spread :meth:`_fit` would leave now, without changing
        the league (readers: the scheduler's warm start is the scheduler's alone). Kept until
        the next result or fit, and taken over by :meth:`_fit` when it is asked for the same fit
        (the same inputs: the same floats).

        With :attr:`population`, each of up to ``steps`` rounds fits with the spread so far and
        then re-estimates it (one step of EM); a reader's fit takes rounds until the spread
        moves by less than 0.01%, the scheduler's one a fit (it refits often, so the spread
        follows the games)."""
        if not self._stale(sweeps, only_if_stale):
            return self._r, self._v, self._spread
        key = (self._results, sweeps, tolerance, steps)
        if self._read is None or self._read[0] != key:
            r, spread = list(self._r), self._spread
            for _ in range(steps):
                sweep(r, self._adj, self.prior_draws, sweeps, tolerance, prior=1 / spread)
                v = variances(r, self._adj, self.prior_draws, prior=1 / spread)
                before, spread = spread, population_spread(r, v, self._adj)
                if not self.population:
                    spread = before
                if abs(spread - before) <= 1e-4 * before:
                    break
            self._read = (key, r, v, spread)
        return self._read[1], self._read[2], self._read[3]

    def _fit(self, sweeps: int, tolerance: float, only_if_stale: bool = False) -> None:
        """Refit (warm-started) the fit the scheduler reads, if :meth:`_stale`."""
        if not self._stale(sweeps, only_if_stale):
            return
        r, v, spread = self._fitted(sweeps, tolerance, only_if_stale)
        self._read = None
        self._converged = sweeps >= _FULL_SWEEPS
        self._r, self._v, self._spread = r, v, spread
        self._fitted_at = self._results
        self._unfitted = {}
        for p in self._pending.values():
            _add(self._unfitted, self._index[p.a], self._index[p.b], 2.0)

    def _refit_every(self) -> int:
        """Results between two fits for the scheduler: a quarter of the active versions."""
        return max(1, sum(self._active) // 4)


def _add(games: dict[tuple[int, int], float], i: int, j: int, g: float) -> None:
    key = (i, j) if i < j else (j, i)
    games[key] = games.get(key, 0.0) + g


_SWEEPS = 3
"""Gauss-Seidel sweeps the scheduler spends on a refit (warm-started, so a batch of results)."""
_SCHEDULER_TOLERANCE = 1e-4
_READER_STEPS = 50
"""Rounds of the pool spread's estimate a reader's fit takes at most (:meth:`League._fitted`)."""


class Adaptive:
    """Pairings chosen by the information they bring where it is needed (docs/LEAGUE.md, "How
    games are scheduled").

    ``candidates`` opponents are drawn for each version served, around its rating with a
    logistic spread of ``spread`` natural units (widened by its own uncertainty), and the best
    is kept. A version counts as unsettled for the scheduler until its half-width is within
    ``aim`` times the league's target: the intervals are estimates (within about 5% of the
    exact ones at 1,000 versions in ``benchmarks/league_sim.py``, 2% at 100), and the margin
    lets the exact interval reach the target too.

    ``blind`` is the share of the pairings of unsettled versions whose opponent is drawn
    uniformly from the active versions, whatever the fit says: outcome-blind games that tie
    distant parts of the pool together and are not steered by early results.
    """

    name = "adaptive"
    informed = True

    def __init__(
        self, *, candidates: int = 8, spread: float = 0.75, aim: float = 0.95, blind: float = 0.25
    ) -> None:
        bad = not (math.isfinite(spread) and spread > 0) or not 0 < aim <= 1
        if candidates < 1 or bad or not 0 <= blind <= 1:
            raise LeagueError(
                f"bad adaptive scheduler: candidates={candidates}, spread={spread}, aim={aim}, "
                f"blind={blind}"
            )
        self.candidates = candidates
        self.spread = spread
        self.aim = aim
        self.blind = blind

    def choose(self, league: League, k: int, rng: random.Random) -> list[tuple[int, int]]:
        league._fit(sweeps=_SWEEPS, tolerance=_SCHEDULER_TOLERANCE, only_if_stale=True)
        view = _View(league, self.aim)
        for (i, j), g in league._unfitted.items():
            view.inform(i, j, g)
        active = [i for i, on in enumerate(league._active) if on]
        if len(active) < 2:
            return []
        v, location = view.v, view.location
        order = sorted(active, key=lambda i: (location[i], i))
        keys = [location[i] for i in order]
        gap = math.ceil(len(active) / (2 * league.share))
        owed = sorted(
            (i for i in active if league._issued - league._last[i] >= gap),
            key=lambda i: (league._last[i], i),
        )
        unfinished = [i for i in active if v[i] > view.limit]
        if not unfinished and not (league._converged and league._fitted_at == league._results):
            # Settled by a fit that is behind or not converged: make sure before stopping.
            league._fit(sweeps=_FULL_SWEEPS, tolerance=1e-6)
            return self.choose(league, k, rng)
        cap = max(1, math.ceil(2 * k / max(1, len(unfinished))))
        served = dict.fromkeys(active, 0)
        picks: list[tuple[int, int]] = []

        def pick(i: int, extra: Sequence[int] = (), blind: bool = False) -> int:
            if blind and self.blind and rng.random() < self.blind:
                j = order[rng.randrange(len(order) - 1)]
                j = order[-1] if j == i else j
            else:
                drawn = self._draw(i, view, order, keys, rng)
                j = max(
                    (j for j in (*drawn, *extra) if j != i),
                    key=lambda j: view.gain(i, j),
                    default=drawn[0],
                )
            picks.append((i, j) if rng.random() < 0.5 else (j, i))
            served[i] += 1
            served[j] += 1
            view.inform(i, j, 2.0)
            return j

        # An owed version meets, if it can, an unsettled one near it: the nearest on each side
        # are candidates besides the draws.
        loose = sorted(unfinished, key=lambda i: (location[i], i))
        loose_keys = [location[i] for i in loose]
        for i in owed[:k]:
            at = bisect.bisect_left(loose_keys, location[i])
            pick(i, loose[max(0, at - 2) : at + 2])
        heap = [(-v[i], i) for i in unfinished]
        heapq.heapify(heap)
        while heap and len(picks) < k:
            neg, i = heapq.heappop(heap)
            if v[i] <= view.limit or served[i] >= cap:
                continue
            if -neg != v[i]:  # its variance fell since it was pushed
                heapq.heappush(heap, (-v[i], i))
                continue
            j = pick(i, blind=True)
            heapq.heappush(heap, (-v[i], i))
            if v[j] > view.limit and served[j] < cap:
                heapq.heappush(heap, (-v[j], j))
        return picks

    def _draw(
        self, i: int, view: _View, order: list[int], keys: list[float], rng: random.Random
    ) -> list[int]:
        """Candidate opponents for ``i``: the versions nearest to points drawn around it."""
        spread = self.spread * math.sqrt(1 + math.pi * view.v[i] / 8)
        out = []
        for _ in range(self.candidates):
            u = min(max(rng.random(), 1e-12), 1 - 1e-12)
            at = view.location[i] + spread * math.log(u / (1 - u))
            pos = bisect.bisect_left(keys, at)
            if pos == len(keys) or (pos > 0 and at - keys[pos - 1] < keys[pos] - at):
                pos -= 1
            if order[pos] == i:  # the nearest is itself: a neighbour, either side
                up = pos + 1 < len(order) and (pos == 0 or rng.random() < 0.5)
                pos = pos + 1 if up else pos - 1
            out.append(order[pos])
        return out


class _View:
    """What the adaptive scheduler believes while it fills a batch: each version's variance
    (the fit's, lowered by the games counted ahead of it) and the information each pair has
    exchanged.

    A pair's games tell one side about itself only as well as the other side is known: ``F``
    (the pair's Fisher information, ``sum p (1 - p)`` over its games) between ``i`` and ``j``
    informs ``i`` by ``h(F) = F / (1 + F v_j)``, which saturates at ``1 / v_j``. A pairing's
    value to ``i`` is the rise of ``h`` it brings; its gain is the variance it takes off the
    unsettled side or sides (``v^2 x / (1 + v x)`` for a rise ``x``)."""

    def __init__(self, league: League, aim: float) -> None:
        self.league = league
        self.v = list(league._v)
        self.location = [league._location(i) for i in range(len(self.v))]
        self.limit = (aim * league.target / (Z95 * ELO_PER_NAT)) ** 2
        self.ahead: dict[tuple[int, int], float] = {}

    def pair(self, i: int, j: int) -> float:
        """The Fisher information ``i`` and ``j`` have exchanged (counted ahead included)."""
        entry = self.league._adj[i].get(j)
        games = (entry[0] if entry else 0.0) + self.ahead.get((i, j) if i < j else (j, i), 0.0)
        return games * _fisher(self.location[i] - self.location[j], 0.0)

    def rise(self, other: int, before: float, after: float) -> float:
        """What a pair's information rising from ``before`` to ``after`` tells the side that is
        not ``other`` about itself."""
        vo = self.v[other]
        return after / (1 + after * vo) - before / (1 + before * vo)

    def gain(self, i: int, j: int) -> float:
        v = self.v
        f = 2 * _fisher(self.location[i] - self.location[j], v[i] + v[j])
        before = self.pair(i, j)
        total = 0.0
        for me, other in ((i, j), (j, i)):
            if v[me] > self.limit:
                x = self.rise(other, before, before + f)
                total += v[me] * v[me] * x / (1 + v[me] * x)
        # Between settled versions (an owed pairing): the most informative game.
        return total if total > 0 else 1e-12 * f

    def inform(self, i: int, j: int, games: float) -> None:
        """Count ``games`` between ``i`` and ``j`` ahead of the fit."""
        before = self.pair(i, j)
        after = before + games * _fisher(self.location[i] - self.location[j], 0.0)
        xi = self.rise(j, before, after)
        xj = self.rise(i, before, after)
        self.v[i] = 1 / (1 / self.v[i] + xi)
        self.v[j] = 1 / (1 / self.v[j] + xj)
        key = (i, j) if i < j else (j, i)
        self.ahead[key] = self.ahead.get(key, 0.0) + games


def _fisher(difference: float, variance: float) -> float:
    """The expected information ``p (1 - p)`` of one game between two versions whose rating
    difference is ``difference`` give or take ``variance`` (natural units; the probit
    approximation of the logistic averaged over a normal)."""
    kappa = math.sqrt(1 + math.pi * variance / 8)
    p = 1 / (1 + math.exp(-difference / kappa))
    return p * (1 - p) / kappa


class RandomPairing:
    """A baseline: every pairing two distinct active versions drawn uniformly; no stopping rule
    (every version's expected share is equal)."""

    name = "random"
    informed = False

    def choose(self, league: League, k: int, rng: random.Random) -> list[tuple[int, int]]:
        active = [i for i, on in enumerate(league._active) if on]
        if len(active) < 2:
            return []
        out = []
        for _ in range(k):
            i, j = rng.sample(active, 2)
            out.append((i, j))
        return out


class RoundRobin:
    """A baseline: round after round of the circle method over the active versions (every
    version plays every other once a cycle, one game-pair a round); a version that joins waits
    for the next cycle, a pairing with a version that left is skipped. No stopping rule."""

    name = "round-robin"
    informed = False

    def __init__(self) -> None:
        self._cycle: list[tuple[int, int]] = []
        self._at = 0

    def choose(self, league: League, k: int, rng: random.Random) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        while len(out) < k:
            if self._at >= len(self._cycle):
                active = [i for i, on in enumerate(league._active) if on]
                if len(active) < 2:
                    break
                self._cycle = _circle(active)
                self._at = 0
            i, j = self._cycle[self._at]
            self._at += 1
            if league._active[i] and league._active[j]:
                out.append((i, j))
        return out


def _circle(players: list[int]) -> list[tuple[int, int]]:
    """Every pair of ``players`` once, round by round (the circle method; a bye when odd)."""
    ring: list[int | None] = [*players, None] if len(players) % 2 else list(players)
    n = len(ring)
    out = []
    for _ in range(n - 1):
        for a in range(n // 2):
            x, y = ring[a], ring[n - 1 - a]
            if x is not None and y is not None:
                out.append((x, y))
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return out


SCHEDULERS = {"adaptive": Adaptive, "random": RandomPairing, "round-robin": RoundRobin}
"""The schedulers by name (each a class called without arguments for its defaults)."""


__all__ = [
    "MIN_SHARE",
    "SCHEDULERS",
    "TARGET_ELO",
    "Adaptive",
    "Event",
    "Join",
    "League",
    "LeagueError",
    "PairResult",
    "Pairing",
    "RandomPairing",
    "Replace",
    "Retire",
    "RoundRobin",
    "Scheduler",
    "Standing",
]
