"""The league's scheduling core (:mod:`arena.stats.league`): events in, pairings out, the fit
against :func:`arena.stats.ratings.fit`, the guarantees of the adaptive scheduler."""

from __future__ import annotations

import math
import random

import pytest

from arena.errors import ArenaError
from arena.stats import ratings
from arena.stats.league import (
    Adaptive,
    Join,
    League,
    LeagueError,
    Pairing,
    PairResult,
    RandomPairing,
    Replace,
    Retire,
    RoundRobin,
)
from arena.stats.league_fit import sweep
from arena.stats.ratings import ELO_PER_NAT, Z95


def strengths(n: int, seed: int, spread: float = 250.0) -> dict[str, float]:
    rng = random.Random(seed)
    return {f"v{k}": rng.gauss(0, spread) for k in range(n)}


def outcome(
    pairing: Pairing, elo: dict[str, float], rng: random.Random, answer: bool = True
) -> PairResult:
    """Two games drawn from the Bradley-Terry model (answering ``pairing`` if ``answer``)."""
    p = ratings.expected_score(elo[pairing.a] - elo[pairing.b])
    wins = sum(rng.random() < p for _ in range(2))
    index = pairing.index if answer else None
    return PairResult(pairing.a, pairing.b, wins, 2 - wins, pairing=index)


def joined(n: int, **options: object) -> League:
    league = League(**options)  # type: ignore[arg-type]
    league.extend(Join(f"bot{k}", f"v{k}") for k in range(n))
    return league


def play(league: League, elo: dict[str, float], batches: int, k: int, seed: int) -> list[Pairing]:
    rng = random.Random(seed)
    out = []
    for _ in range(batches):
        pairings = league.next_pairings(k)
        for pairing in pairings:
            league.apply(outcome(pairing, elo, rng))
        out += pairings
    return out


def test_the_same_seed_and_events_give_the_same_pairings() -> None:
    elo = strengths(12, 1)
    runs = [play(joined(12, seed=7), elo, 20, 3, seed=5) for _ in range(2)]
    assert runs[0] == runs[1]
    assert [p.index for p in runs[0]] == list(range(60))
    assert play(joined(12, seed=8), elo, 20, 3, seed=5) != runs[0]


def test_pending_pairings_are_counted_until_answered() -> None:
    league = joined(6, seed=1)
    first = league.next_pairings(3)
    assert league.pending == tuple(first)
    league.apply(PairResult(first[0].b, first[0].a, 1, 1))  # answers the oldest of that pair
    assert league.pending == tuple(first[1:])
    league.apply(PairResult(first[2].a, first[2].b, 2, 0, pairing=first[2].index))
    assert league.pending == (first[1],)


@pytest.mark.parametrize("scheduler", [Adaptive, RandomPairing, RoundRobin])
def test_retired_and_replaced_versions_are_not_scheduled(scheduler: type) -> None:
    elo = strengths(8, 2)
    league = joined(8, seed=3, scheduler=scheduler())
    play(league, elo, 5, 4, seed=1)
    league.apply(Retire("v1"))
    league.apply(Replace("v2", "v2b"))
    elo["v2b"] = elo["v2"] + 50
    later = play(league, elo, 20, 4, seed=2)
    seen = {p.a for p in later} | {p.b for p in later}
    assert not seen & {"v1", "v2"}
    assert "v2b" in seen
    assert league.bot("v2b") == "bot2"
    assert league.active == ("v0", "v3", "v4", "v5", "v6", "v7", "v2b")
    table = {s.version: s for s in league.standings(all_versions=True)}
    assert not table["v1"].active and table["v1"].games > 0
    assert "v1" not in {s.version for s in league.standings()}


def test_a_result_of_a_version_retired_while_it_played_still_counts() -> None:
    league = joined(4, seed=1)
    (pairing,) = league.next_pairings(1)
    league.apply(Retire(pairing.a))
    league.apply(PairResult(pairing.a, pairing.b, 2, 0, pairing=pairing.index))
    table = {s.version: s for s in league.standings(all_versions=True)}
    assert table[pairing.a].wins == 2 and table[pairing.b].losses == 2


def settled_league(n: int, target: float) -> tuple[League, dict[str, float]]:
    """``n`` bots with a round-robin's worth of games behind them: settled at ``target``."""
    elo = strengths(n, 4, spread=100)
    league = joined(n, seed=9, target=target)
    rng = random.Random(3)
    for i in range(n):
        for j in range(i + 1, n):
            for _ in range(12):
                league.apply(outcome(Pairing(0, f"v{i}", f"v{j}"), elo, rng, answer=False))
    assert not league.unsettled()
    return league, elo


def test_a_newcomer_is_scheduled_settled_bots_only_for_their_share() -> None:
    n, k = 12, 3
    league, elo = settled_league(n, target=60)
    league.apply(Join("new", "new"))
    elo["new"] = 40.0
    gap = -(-len(league.active) // (2 * league.share))  # ceil: 26 pairings
    last = {v: league.issued for v in league.active}
    rng = random.Random(8)
    rounds = 0
    while pairings := league.next_pairings(k):
        start = pairings[0].index
        for pairing in pairings:
            if "new" not in (pairing.a, pairing.b):
                # the stopping rule: two settled versions meet only when one of them is owed
                assert start - min(last[pairing.a], last[pairing.b]) >= gap
            for v in (pairing.a, pairing.b):
                # the guaranteed share: no active version waits more than gap + k pairings
                assert pairing.index - last[v] <= gap + k
                last[v] = pairing.index
            league.apply(outcome(pairing, elo, rng))
        rounds += 1
        assert rounds < 200
    assert league.issued > gap + k  # long enough for the share to show
    assert not league.unsettled()
    assert league.next_pairings(k) == []  # settled: nothing more to play


def test_the_share_rule_serves_every_active_version() -> None:
    n, k = 12, 3
    league, elo = settled_league(n, target=60)
    league.apply(Join("new", "new"))
    elo["new"] = 40.0
    played = play(league, elo, 60, k, seed=4)
    seen = {p.a for p in played} | {p.b for p in played}
    if len(played) > 2 * len(league.active):
        assert seen == set(league.active)


def random_results(
    n: int, pairs: int, seed: int, population: bool = False
) -> tuple[League, list[ratings.Result]]:
    """Random pairings' results, in a league (by default with ``ratings.fit``'s fixed prior)
    and as ``ratings.fit`` takes them."""
    elo = strengths(n, seed)
    rng = random.Random(seed)
    league = joined(n, population=population)
    games: list[ratings.Result] = []
    for _ in range(pairs):
        a, b = rng.sample(sorted(elo), 2)
        result = outcome(Pairing(0, a, b), elo, rng, answer=False)
        if rng.random() < 0.05:  # a drawn game now and then
            won = result.wins_a > 0
            result = PairResult(a, b, result.wins_a - won, result.wins_b - (not won), 1)
        league.apply(result)
        games += [ratings.Result(a, b, 1.0)] * result.wins_a
        games += [ratings.Result(b, a, 1.0)] * result.wins_b
        games += [ratings.Result(a, b, 0.5)] * result.draws
    return league, games


@pytest.mark.parametrize(("n", "pairs"), [(10, 30), (10, 400), (30, 200), (50, 400)])
def test_the_fit_agrees_with_ratings_fit(n: int, pairs: int) -> None:
    """The same ratings (to 1e-6 Elo) and the same records; the intervals' half-widths within
    3% (exact up to rounding while no more than ``GROUPS`` versions played)."""
    league, games = random_results(n, pairs, seed=n + pairs)
    mine = {s.version: s for s in league.standings()}
    theirs = {r.name: r for r in ratings.fit(league.versions, games).ratings}
    assert list(mine) == list(theirs)  # the same order
    for name, exact in theirs.items():
        s = mine[name]
        assert s.elo == pytest.approx(exact.elo, abs=1e-6)
        assert (s.wins, s.losses, s.draws, s.games) == (
            exact.wins,
            exact.losses,
            exact.draws,
            exact.games,
        )
        assert s.half_width == pytest.approx((exact.high - exact.low) / 2, rel=0.03)


def test_the_fit_of_an_adaptive_schedule_agrees_with_ratings_fit() -> None:
    """The adaptive scheduler's own graph (near neighbours, many games a pair) is where a
    truncated estimate would go wrong: the intervals still agree within 3%."""
    elo = strengths(24, 6)
    league = joined(24, seed=2, population=False)
    rng = random.Random(3)
    games: list[ratings.Result] = []
    for _ in range(40):
        for pairing in league.next_pairings(6):
            result = outcome(pairing, elo, rng)
            league.apply(result)
            games += [ratings.Result(pairing.a, pairing.b, 1.0)] * result.wins_a
            games += [ratings.Result(pairing.b, pairing.a, 1.0)] * result.wins_b
    mine = {s.version: s for s in league.standings()}
    theirs = {r.name: r for r in ratings.fit(league.versions, games).ratings}
    for name, exact in theirs.items():
        # 1e-5 Elo: a version far out (near 900 Elo, almost all wins, held by a small share of a
        # virtual draw) is where Gauss-Seidel converges slowest.
        assert mine[name].elo == pytest.approx(exact.elo, abs=1e-5)
        assert mine[name].half_width == pytest.approx((exact.high - exact.low) / 2, rel=0.03)


def test_a_version_without_games_has_the_prior_interval() -> None:
    league = joined(3, population=False)
    league.apply(PairResult("v0", "v1", 1, 1))
    table = {s.version: s for s in league.standings()}
    exact = {
        r.name: r
        for r in ratings.fit(
            league.versions, [ratings.Result("v0", "v1", 1.0), ratings.Result("v1", "v0", 1.0)]
        ).ratings
    }
    assert table["v2"].games == 0
    assert table["v2"].half_width == pytest.approx(
        (exact["v2"].high - exact["v2"].low) / 2, rel=1e-3
    )
    assert not table["v2"].settled


def test_the_pools_spread_is_estimated_and_shrinks_the_ratings() -> None:
    """With the pool's spread estimated (the default), the prior on each rating is normal with
    the variance the fit implies (its EM fixed point: the mean over the versions of the squared
    rating plus its variance), the ratings are that prior's maximum, and they are pulled towards
    the mean, the far ones most, compared with the fixed prior of ``ratings.fit``."""
    fixed, _ = random_results(20, 150, seed=4)
    pooled, _ = random_results(20, 150, seed=4, population=True)
    before = pooled.snapshot()
    rows = {row.version: row for row in pooled.standings()}
    assert pooled.snapshot() == before  # read, not changed
    r = [rows[name].elo / ELO_PER_NAT for name in pooled.versions]
    v = [(rows[name].half_width / (Z95 * ELO_PER_NAT)) ** 2 for name in pooled.versions]
    spread = sum(x * x + y for x, y in zip(r, v, strict=True)) / len(r)
    assert 150 < math.sqrt(spread) * ELO_PER_NAT < 400  # the pool: 250 Elo
    best = [0.0] * len(r)
    sweep(best, pooled._adj, pooled.prior_draws, 10_000, 1e-12, prior=1 / spread)
    for mine, exact in zip(r, best, strict=True):
        assert mine * ELO_PER_NAT == pytest.approx(exact * ELO_PER_NAT, abs=0.05)
    theirs = {row.version: row for row in fixed.standings()}
    far = sorted(rows, key=lambda name: abs(theirs[name].elo))[-3:]
    for name in far:
        assert abs(rows[name].elo) < abs(theirs[name].elo) - 1
        assert rows[name].half_width < theirs[name].half_width


def test_round_robin_plays_every_pair_once_a_cycle() -> None:
    league = joined(7, scheduler=RoundRobin())
    pairs = [frozenset((p.a, p.b)) for p in league.next_pairings(21)]
    assert len(set(pairs)) == 21


@pytest.mark.parametrize(
    ("event", "words"),
    [
        (Join("bot0", "v0"), "duplicate version 'v0'"),
        (Join("", "x"), "non-empty"),
        (Retire("nope"), "unknown version 'nope'"),
        (Replace("nope", "v9"), "unknown version 'nope'"),
        (Replace("v0", "v1"), "duplicate version 'v1'"),
        (PairResult("v0", "ghost", 1, 1), "unknown version 'ghost'"),
        (PairResult("v0", "v0", 1, 1), "cannot play itself"),
        (PairResult("v0", "v1", 2, 1), "not 3"),
        (PairResult("v0", "v1", 0, 0), "not 0"),
        (PairResult("v0", "v1", -1, 3), "counts"),
        (PairResult("v0", "v1", 1, 1, pairing=99), "no pending pairing 99"),
    ],
)
def test_bad_events_are_arena_errors_and_change_nothing(event: object, words: str) -> None:
    league = joined(3)
    before = (league.versions, league.active, league.standings(all_versions=True))
    with pytest.raises(LeagueError, match=words) as caught:
        league.apply(event)  # type: ignore[arg-type]
    assert isinstance(caught.value, ArenaError) and isinstance(caught.value, ValueError)
    assert (league.versions, league.active, league.standings(all_versions=True)) == before


def test_retiring_twice_and_bad_requests_are_errors() -> None:
    league = joined(4)
    league.apply(Retire("v0"))
    with pytest.raises(LeagueError, match="retired already"):
        league.apply(Retire("v0"))
    with pytest.raises(LeagueError, match="retired already"):
        league.apply(Replace("v0", "v0b"))
    with pytest.raises(LeagueError, match="count"):
        league.next_pairings(-1)
    with pytest.raises(LeagueError, match="target"):
        League(target=0)
    (pairing,) = league.next_pairings(1)
    other = next(v for v in league.active if v not in (pairing.a, pairing.b))
    with pytest.raises(LeagueError, match=f"pairing {pairing.index} is"):
        league.apply(PairResult(pairing.a, other, 1, 1, pairing=pairing.index))


def test_a_league_of_one_schedules_nothing() -> None:
    assert joined(1).next_pairings(5) == []
    assert joined(1, scheduler=RoundRobin()).next_pairings(5) == []
    assert joined(1, scheduler=RandomPairing()).next_pairings(5) == []


def test_reading_the_standings_never_changes_later_pairings() -> None:
    """A library caller may read the table, the half-widths and the unsettled versions between
    batches (the league command does): the pairings must be those of a league never read (the
    fit the reading needs is its own, not the scheduler's warm start)."""
    elo = strengths(24, 3)
    rng = [random.Random(8), random.Random(8)]
    leagues = [joined(24, seed=2, target=60.0), joined(24, seed=2, target=60.0)]
    issued: list[list[Pairing]] = [[], []]
    for batch in range(30):
        for k, league in enumerate(leagues):
            if k == 1:  # the one that is read, in a different way each batch
                if batch % 3 == 0:
                    league.standings()
                elif batch % 3 == 1:
                    league.half_widths()
                else:
                    league.unsettled()
                    league.standings(all_versions=True, tolerance=1e-3)
            pairings = league.next_pairings(5)
            for pairing in pairings:
                league.apply(outcome(pairing, elo, rng[k]))
            issued[k] += pairings
    assert issued[0] == issued[1]
    assert leagues[0].snapshot() == leagues[1].snapshot()


# -- snapshots ----------------------------------------------------------------------------------


def test_a_restored_snapshot_plays_on_exactly_as_the_league_it_was_taken_from() -> None:
    import json

    elo = strengths(14, 9)
    elo["v14"] = elo["v3"] + 40.0
    league = joined(14, seed=11, target=60.0)
    play(league, elo, 6, 4, seed=1)
    league.apply(Replace("v3", "v14"))
    league.apply(Retire("v5"))
    waiting = league.next_pairings(3)  # pending when the snapshot is taken
    league.standings()  # a full fit, for the reader alone (the scheduler's warm start stays)
    data = json.loads(json.dumps(league.snapshot()))
    copy = League.restore(data, seed=11, target=60.0)
    assert copy.pending == league.pending == tuple(waiting)
    # The next batch while those are still out: the scheduler counts them ahead.
    ahead = copy.next_pairings(4)
    assert ahead == league.next_pairings(4)
    waiting += ahead
    rng = [random.Random(4), random.Random(4)]
    for one in (league, copy):
        for pairing in waiting:
            one.apply(outcome(pairing, elo, rng[one is copy]))
    assert play(copy, elo, 12, 4, seed=2) == play(league, elo, 12, 4, seed=2)
    assert copy.standings(all_versions=True) == league.standings(all_versions=True)
    assert copy.snapshot() == league.snapshot()


def test_a_snapshot_of_another_league_or_damaged_is_refused() -> None:
    league = joined(5, seed=3)
    play(league, strengths(5, 1), 3, 2, seed=1)
    data = league.snapshot()
    with pytest.raises(LeagueError, match="seed 3, not 4"):
        League.restore(data, seed=4)
    with pytest.raises(LeagueError, match="format"):
        League.restore({**data, "format": 99}, seed=3)
    with pytest.raises(LeagueError, match="format"):
        League.restore([1, 2], seed=3)  # type: ignore[arg-type]
    with pytest.raises(LeagueError, match="does not hang together"):
        League.restore({**data, "wins": data["wins"][:-1]}, seed=3)
    with pytest.raises(LeagueError, match="does not hang together"):
        League.restore({**data, "adj": [[[99, 2.0, 1.0]]] * 5}, seed=3)
    with pytest.raises(LeagueError, match="does not hang together"):
        League.restore({k: v for k, v in data.items() if k != "r"}, seed=3)
    with pytest.raises(ArenaError):
        League.restore({**data, "pending": [[0, "v0", "nobody"]]}, seed=3)
