"""A living league in its database: bot versions join, are updated and retire while it runs, and
each batch of games goes where :class:`arena.stats.league.League` says it informs most.

**The database** is a tournament database (:mod:`arena.tournament.store`) whose configuration has
``"kind": "league"`` and the settings fixed at creation (:class:`Settings`: the rules, the clock,
the seed, the stopping target, the batch size, the bots' limits). Its ``bots`` table holds one row
a *version* (``strong@1``, ``strong@2``: the name, ``@``, the count of versions of that name), its
``games`` every game played, committed as it finishes, and its ``log`` the league's history in
order: ``join``, ``replace`` (an update), ``retire``, ``compare`` (is a new version better? the
pairings it reserves in each batch and its verdict: :mod:`arena.tournament.compare`) and
``schedule`` (a batch of pairings issued).

**Replaying the history** rebuilds the league exactly (:func:`load`): membership events and
results are applied in the order the run applied them, and each ``schedule`` entry is checked
against what the scheduler issues again (same seed, same events, same order: same pairings). The
rule the run follows and the replay repeats: after a batch's games are all played, its results
are applied (pairing order; a version whose first pairings leave it broken retires there and then,
:mod:`arena.tournament.league_health`), then the membership events logged since the last
``schedule`` (log order), then the next batch is scheduled. So a league can be stopped in any
way (Ctrl-C, kill -9, a lost machine) and resumed with nothing lost or played twice: the games of
the last batch that are missing are played first.

**Snapshots.** Replaying costs what scheduling cost (a few ms a pairing at 1,000 bots), and every
command opens the league, so the run also keeps a snapshot of the league (``snapshot`` table: the
:meth:`~arena.stats.league.League.snapshot` after a ``schedule`` entry, with the pairings still
out) every :data:`SNAPSHOT_EVERY` pairings, written in the same transaction as that entry. Opening
starts from it and replays only what came after; the history stays the record, and a snapshot
that does not fit it (another format, other settings, an entry that is not that batch, damaged)
is passed over for the full replay.

**A pairing** ``p`` between versions ``a`` and ``b`` is one deal, from a seed derived from the
league's seed and ``p``, played twice with the seats swapped: games ``2p + 1`` (``a`` in seat 0)
and ``2p + 2``. Its two games run as one task of two legs, each leg by bot processes of its own
that saw no other seating (``restart="task"``).
"""

from __future__ import annotations

import dataclasses
import re
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Final

from arena.play.match import Planned, by_leg
from arena.seats.botspec import BotSpec
from arena.stats.league import (
    Join,
    League,
    LeagueError,
    Pairing,
    PairResult,
    Replace,
    Retire,
    Standing,
)
from arena.tournament import cluster, compare
from arena.tournament.config import Config, Task, bot_digest, seatings
from arena.tournament.league_health import Broken, Health, count_forfeits
from arena.tournament.league_settings import (
    BATCH,
    BROKEN_AFTER,
    KIND,
    MODEL,
    LeagueDatabaseError,
    Settings,
)
from arena.tournament.runner import Committer, Job, Venue, play, probe
from arena.tournament.store import GameRow, Store
from engine.deck import SplitMix64
from engine.formats import TWO_PLAYER

SNAPSHOT_EVERY: Final = 256
"""Pairings between two snapshots of the league: :func:`load` replays the batches of at most
this many pairings, and one batch more."""
_VERSION = re.compile(r"^(?P<name>.+)@(?P<count>[1-9][0-9]*)$")
_GOLDEN: Final = 0x9E3779B97F4A7C15


# ---------------------------------------------------------------------------------------------
# The database.


def create(path: Path, settings: Settings) -> Store:
    """A new league database (refusing an existing file), open and locked by this process."""
    return Store.create(path, settings.to_json())


def open_league(path: Path, *, lock: bool = False, readonly: bool = False) -> Store:
    """An existing league's database; a tournament's is a :class:`LeagueDatabaseError`."""
    store = Store.open(path, lock=lock, readonly=readonly)
    try:
        if store.config().get("kind") != KIND:
            raise LeagueDatabaseError(
                f"{str(path)!r} is a tournament database, not a league's: use gin-arena "
                "tournament or ratings with it, or create a league with gin-arena league create"
            )
    except BaseException:
        store.close()
        raise
    return store


def is_league(store: Store) -> bool:
    return store.config().get("kind") == KIND


def spec_json(spec: BotSpec) -> dict[str, Any]:
    return {
        "name": spec.name,
        "command": list(spec.command),
        "builtin": spec.builtin,
        "cwd": None if spec.cwd is None else str(spec.cwd),
        "env": dict(spec.env),
    }


def spec_from(data: Mapping[str, Any]) -> BotSpec:
    return BotSpec(
        data["name"],
        tuple(data["command"]),
        data["builtin"],
        None if data["cwd"] is None else Path(data["cwd"]),
        dict(data["env"]),
    )


def deal_seed(settings: Settings, pairing: int) -> int:
    """The deal of pairing ``pairing``: from the league's seed, a different one for each."""
    return SplitMix64((settings.seed + _GOLDEN * (pairing + 1)) % 2**64).next()


def game_ids(pairing: int) -> tuple[int, int]:
    return 2 * pairing + 1, 2 * pairing + 2


# ---------------------------------------------------------------------------------------------
# The league, rebuilt from its history.


@dataclass
class State:
    """A league as its database holds it: the settings, every version's program, the
    :class:`League` replayed to the end of the log, the pairings issued whose results are not
    applied yet, and the membership events logged since the last batch (not applied yet); the
    versions' first pairings and the broken ones (``health``); the versions an update entered
    beside the older one (``--keep``: ``kept``) or in its place (``replaced``); the compares with
    the pairings scheduled for them; and, for the standings (:func:`view`), every version's
    forfeits by reason and the games played."""

    settings: Settings
    specs: dict[str, BotSpec]
    digests: dict[str, str]
    league: League
    unapplied: list[Pairing]
    waiting: list[Join | Replace | Retire]
    last_seq: int
    batches: int
    health: Health = field(default_factory=lambda: Health(0))
    kept: set[str] = field(default_factory=set)
    replaced: dict[str, str] = field(default_factory=dict)
    """The version each update replaced (``replace`` in the log), by the new version."""
    forfeits: dict[str, dict[str, int]] = field(default_factory=dict)
    games: int = 0
    compares: compare.Compares = field(default_factory=compare.Compares)

    def current(self, name: str) -> str | None:
        """The newest version of bot ``name`` (active or not), or None."""
        versions = [v for v in self.specs if _VERSION.match(v) and v.rpartition("@")[0] == name]
        return max(versions, key=lambda v: int(v.rpartition("@")[2]), default=None)

    def is_active(self, version: str) -> bool:
        """Whether ``version`` is scheduled once the membership events waiting are applied."""
        on = version in self.league.active
        for event in self.waiting:
            if isinstance(event, Join) and event.version == version:
                on = True
            elif isinstance(event, Replace) and version in (event.old, event.new):
                on = version == event.new
            elif isinstance(event, Retire) and event.version == version:
                on = False
        return on

    def active_versions(self) -> list[str]:
        known = list(self.league.versions) + [
            e.version if isinstance(e, Join) else e.new
            for e in self.waiting
            if isinstance(e, Join | Replace)
        ]
        return [v for v in dict.fromkeys(known) if self.is_active(v)]


def load(store: Store, *, snapshot: bool = True) -> State:
    """Replay a league's history (see the module's documentation), from its last snapshot on
    when it has a usable one (``snapshot``)."""
    where = repr(str(store.path))
    settings = Settings.from_json(store.config(), where)
    league = League(**settings.league_options())
    saved = _restore(store, settings) if snapshot else None
    bots = store.bots()
    specs: dict[str, BotSpec] = {}
    digests: dict[str, str] = {}
    done = store.done()
    unapplied: list[Pairing] = []
    waiting: list[Join | Replace | Retire] = []
    results = _results_by_pairing(store)
    state = State(settings, specs, digests, league, unapplied, waiting, 0, 0)
    state.health = Health(settings.broken_after)
    for seq, kind, data in store.log():
        state.last_seq = seq
        try:
            if saved is not None and seq == saved.seq:
                if not saved.fits(kind, data):
                    return load(store, snapshot=False)
                state.league, state.unapplied = saved.league, saved.unapplied
                state.batches, state.waiting, state.health = saved.batches, [], saved.health
                state.compares.replayed(data)
            elif kind != "schedule":
                _member(state, kind, data, bots)
            elif saved is not None and seq < saved.seq:
                state.compares.replayed(data)  # a batch the snapshot holds
            else:
                _apply(state, results, done)
                _admit(state)
                count = int(data["count"])
                reserved = state.compares.reserve(state.league, results, done, count)
                issued = state.league.next_pairings(count, reserved.pairs)
                stored = [Pairing(int(i), a, b) for i, a, b in data["pairings"]]
                if issued != stored or reserved != compare.reservation_of(data, state.compares):
                    raise LeagueDatabaseError(
                        f"the history in {where} does not replay: batch {state.batches + 1} was "
                        f"{_listed(stored)} and the scheduler now issues {_listed(issued)}; the "
                        "file was changed by hand or by another version of gin-arena"
                    )
                state.compares.took(reserved, issued)
                state.unapplied.extend(issued)
                state.batches += 1
        except (KeyError, TypeError, ValueError, IndexError) as error:
            if isinstance(error, LeagueDatabaseError):
                raise
            raise LeagueDatabaseError(
                f"entry {seq} ({kind}) of the history in {where} is damaged ({error!r}): the "
                "file was changed by hand; create a new league with another --db"
            ) from None
    if saved is not None and state.league is league:
        return load(store, snapshot=False)  # the snapshot's entry is not in the history
    return state


@dataclass(frozen=True)
class _Saved:
    """A league as a snapshot kept it, just after history entry ``seq`` (a ``schedule``)."""

    seq: int
    league: League
    unapplied: list[Pairing]
    batches: int
    health: Health

    def fits(self, kind: str, data: Mapping[str, Any]) -> bool:
        """Whether the entry at ``seq`` is the batch the snapshot was taken after."""
        if kind != "schedule":
            return False
        issued = [Pairing(int(i), a, b) for i, a, b in data.get("pairings", [])]
        return (
            bool(issued)
            and issued[-1].index == self.league.issued - 1
            and all(p in self.unapplied for p in issued)
        )


def _restore(store: Store, settings: Settings) -> _Saved | None:
    """The league's last snapshot, or None when it has none or one that does not fit (another
    format, other settings, damaged): then the whole history is replayed."""
    kept = store.snapshot()
    if kept is None:
        return None
    seq, data = kept
    try:
        league = League.restore(data["league"], **settings.league_options())
        unapplied = [Pairing(int(i), str(a), str(b)) for i, a, b in data["unapplied"]]
        after = settings.broken_after
        # A snapshot from before broken versions, of a league that has none: nothing to restore.
        empty: dict[str, Any] = {"after": 0, "broken": [], "tally": [], "judged": []}
        health = Health.from_json(data["health"] if "health" in data or after else empty, after)
        return _Saved(seq, league, unapplied, int(data["batches"]), health)
    except (LeagueError, KeyError, TypeError, ValueError):
        return None


def _snapshot(state: State) -> dict[str, Any]:
    return {
        "league": state.league.snapshot(),
        "unapplied": [[p.index, p.a, p.b] for p in state.unapplied],
        "batches": state.batches,
        "health": state.health.to_json(),
    }


def _member(state: State, kind: str, data: Mapping[str, Any], bots: Mapping[str, Any]) -> None:
    """Take a membership entry of the log: it waits until the run admits it (:func:`_admit`)."""
    if kind in ("join", "replace"):
        spec = spec_from(data["spec"])
        state.specs[spec.name] = spec
        state.digests[spec.name] = bots[spec.name][2]
        event: Join | Replace | Retire = (
            Join(data["bot"], spec.name) if kind == "join" else Replace(data["old"], spec.name)
        )
        if data.get("keep"):
            state.kept.add(spec.name)
        if kind == "replace":
            state.replaced[spec.name] = data["old"]
    elif kind == "retire":
        event = Retire(data["version"])
    elif kind == compare.KIND:
        state.compares.add(data)  # it reserves pairings from the next batch on
        return
    else:
        raise KeyError(kind)
    state.waiting.append(event)


def _admit(state: State) -> None:
    """Apply the membership events waiting, in log order. A version found broken meanwhile is
    out already: retiring it changes nothing, and updating it enters the new version as a
    newcomer (its predecessor's rating is no placement)."""
    league = state.league
    for event in state.waiting:
        if isinstance(event, Retire) and event.version not in league.active:
            continue
        if isinstance(event, Replace) and event.old not in league.active:
            event = Join(league.bot(event.old), event.new)
        league.apply(event)
    state.waiting = []


def view(store: Store) -> State:
    """The league as it stands now, for its standings: the history replayed, then the results
    of the games played since the last batch and the membership events waiting applied."""
    state = load(store)
    rows, done = _results_by_pairing(store), store.done()
    _apply(state, rows, done)
    _admit(state)
    state.forfeits = count_forfeits(row for games in rows.values() for row in games)
    state.games = sum(map(len, rows.values()))
    state.compares.record(rows, done)
    return state


def _listed(pairings: Sequence[Pairing]) -> str:
    return ", ".join(f"{p.a} v {p.b}" for p in pairings) or "nothing"


def _results_by_pairing(store: Store) -> dict[int, list[GameRow]]:
    by: dict[int, list[GameRow]] = {}
    for row in store.games(records=False):
        by.setdefault((row.id - 1) // 2, []).append(row)
    return by


def _apply(state: State, results: Mapping[int, list[GameRow]], done: set[int]) -> list[Broken]:
    """Apply the results of the pairings of ``state.unapplied`` whose games are all played, in
    order; keep the others. A version a pairing leaves broken (:class:`Health`) is retired at
    once, before the next pairing's result: return those, in order."""
    league, unapplied = state.league, state.unapplied
    keep = []
    broken = []
    for pairing in unapplied:
        if not all(g in done for g in game_ids(pairing.index)):
            keep.append(pairing)
            continue
        rows = results.get(pairing.index, [])
        wins_a = sum(row.winner == pairing.a for row in rows)
        wins_b = sum(row.winner == pairing.b for row in rows)
        league.apply(
            PairResult(
                pairing.a,
                pairing.b,
                wins_a,
                wins_b,
                len(rows) - wins_a - wins_b,
                pairing=pairing.index,
            )
        )
        for found in state.health.take(pairing, rows):
            if found.version in league.active:
                league.apply(Retire(found.version))
            broken.append(found)
    unapplied[:] = keep
    return broken


# ---------------------------------------------------------------------------------------------
# Membership.


def version_name(name: str, count: int) -> str:
    return f"{name}@{count}"


def add(store: Store, spec: BotSpec, venue: Venue) -> str:
    """Enter a new bot (``spec.name`` is its name): probed (it must start and say ``ready``),
    then recorded as version ``NAME@1``; return the version."""
    state = load(store)
    if "@" in spec.name:
        raise LeagueDatabaseError(f"bad bot name {spec.name!r}: a league's bot names have no '@'")
    if state.current(spec.name) is not None:
        raise LeagueDatabaseError(
            f"the league has a bot {spec.name!r} already: gin-arena league update {spec.name} "
            "enters a new version of it"
        )
    version = version_name(spec.name, 1)
    _enter(
        store,
        state,
        dataclasses.replace(spec, name=version),
        venue,
        kind="join",
        data={"bot": spec.name},
    )
    return version


def update(
    store: Store, name: str, spec: BotSpec | None, venue: Venue, *, keep: bool = False
) -> str | None:
    """Enter a new version of bot ``name``: ``spec``'s program, or its current program read
    again (a file it names changed). The program's digest decides: the same as the current
    version's is no new version (None). The older version retires unless ``keep``."""
    state = view(store)  # the last games applied: a version they leave broken is out already
    old = state.current(name)
    if old is None:
        raise LeagueDatabaseError(
            f"the league has no bot {name!r}: gin-arena league add {name} COMMAND enters it"
        )
    program = state.specs[old] if spec is None else spec
    count = int(old.rpartition("@")[2]) + 1
    new_spec = dataclasses.replace(program, name=version_name(name, count))
    if bot_digest(new_spec) == state.digests[old]:
        return None
    if keep or not state.is_active(old):
        data: dict[str, Any] = {"bot": name, **({"keep": True} if keep else {})}
        _enter(store, state, new_spec, venue, kind="join", data=data)
    else:
        _enter(store, state, new_spec, venue, kind="replace", data={"old": old})
    return new_spec.name


def retire(store: Store, name: str) -> list[str]:
    """Stop scheduling bot ``name`` (every active version of it) or the one version named;
    return the versions retired."""
    state = view(store)  # the last games applied: a version they leave broken is out already
    if _VERSION.match(name) and name in state.specs:
        versions = [name]
    else:
        versions = [v for v in state.specs if v.rpartition("@")[0] == name]
        if not versions:
            raise LeagueDatabaseError(f"the league has no bot or version {name!r}")
    active = [v for v in versions if state.is_active(v)]
    if not active and versions[-1] in state.health.broken:
        raise LeagueDatabaseError(
            f"{versions[-1]} is broken: it is left out of scheduling already, its games kept"
        )
    if not active:
        raise LeagueDatabaseError(f"{name!r} is retired already")
    for version in active:
        store.add_log("retire", {"version": version})
    return active


def _enter(
    store: Store, state: State, spec: BotSpec, venue: Venue, *, kind: str, data: dict[str, Any]
) -> None:
    config = state.settings.pair_config(spec, dataclasses.replace(spec, name=spec.name + "~"))
    with tempfile.TemporaryDirectory(prefix="gin-arena-probe-") as scratch:
        declared = probe(config, Path(scratch), venue, bots=(spec,))
    store.set_bot(spec.name, spec.command_line, declared[spec.name], bot_digest(spec))
    store.add_log(kind, {**data, "spec": spec_json(spec)})


# ---------------------------------------------------------------------------------------------
# Running.


@dataclass(frozen=True, slots=True)
class Progress:
    """What a run did: the games it played, the pairings it scheduled, and why it stopped."""

    games: int
    pairings: int
    stopped: str


def check_programs(state: State) -> None:
    """Every active version must still be the program that joined: a changed program is an
    update, never a silent change."""
    for version in state.active_versions():
        if bot_digest(state.specs[version]) != state.digests[version]:
            name = version.rpartition("@")[0]
            raise LeagueDatabaseError(
                f"{version}'s program changed since it joined (its command or a file it names): "
                f"results would mix two programs; gin-arena league update {name} enters the new "
                f"program as a new version, or restore the old one"
            )


def run(
    store: Store,
    concurrency: int,
    venue: Venue,
    *,
    pairings: int | None = None,
    on_game: Callable[[GameRow], None] | None = None,
    on_batch: Callable[[State], None] | None = None,
    on_broken: Callable[[Broken], None] | None = None,
    workdir: Path | None = None,
    ray: ModuleType | None = None,
) -> Progress:
    """Play the league: the missing games of the last batch, then batch after batch until every
    active version is settled (its interval within the target), the scheduler has nothing to
    play, or ``pairings`` more pairings have been scheduled. Every game is committed as it
    finishes; a KeyboardInterrupt propagates with nothing lost. The games are played in
    ``concurrency`` local workers, or on the Ray cluster ``ray`` (connected:
    :func:`arena.tournament.cluster.connect`). ``on_broken`` hears of each version found broken
    (:mod:`arena.tournament.league_health`), once its results are applied.

    Between batches, in one transaction (so that no ``add`` slips in between), the run applies
    what was logged since its last batch and logs the next: the order the replay repeats."""
    commit = Committer(store, store.done(), on_game)
    scheduled = 0
    state = load(store)
    check_programs(state)
    bots = store.bots()
    while True:
        jobs = _jobs(store, state)
        if jobs and ray is not None:
            cluster.play(ray, jobs, commit, venue=venue)
        elif jobs:
            play(jobs, commit, concurrency, workdir=workdir, venue=venue)
        results, done = _results_by_pairing(store), store.done()
        for found in _apply(state, results, done):
            if on_broken is not None and jobs:  # (without: the last run applied and told it)
                on_broken(found)
        with store.immediate():
            fresh = store.log(after=state.last_seq)
            if any(kind in {"join", "replace"} for _, kind, _ in fresh):
                bots = store.bots()
            for seq, kind, data in fresh:
                state.last_seq = seq
                if kind == "schedule":
                    raise LeagueDatabaseError(
                        "another run scheduled games in this league meanwhile: one run at a time"
                    )
                _member(state, kind, data, bots)
            _admit(state)
            check_programs(state)
            count = state.settings.batch
            reserved = state.compares.reserve(state.league, results, done, count)
            if on_batch is not None:
                on_batch(state)
            stopped = _stop(state, scheduled, pairings, comparing=bool(reserved.counts))
            if stopped:
                return Progress(commit.played, scheduled, stopped)
            before = state.league.issued
            issued = state.league.next_pairings(count, reserved.pairs)
            if not issued:
                return Progress(commit.played, scheduled, "the scheduler has nothing to play")
            entry = {"count": count, "pairings": [[p.index, p.a, p.b] for p in issued]}
            state.last_seq = store.add_log("schedule", {**entry, **reserved.entry()})
            state.compares.took(reserved, issued)
            state.unapplied.extend(issued)
            state.batches += 1
            if state.league.issued // SNAPSHOT_EVERY > before // SNAPSHOT_EVERY:
                store.set_snapshot(state.last_seq, _snapshot(state))
        scheduled += len(issued)


def _stop(state: State, scheduled: int, pairings: int | None, *, comparing: bool) -> str:
    """Why the run stops before the next batch, or ``""`` (a compare running keeps it going)."""
    active = state.league.active
    if len(active) < 2:
        broken = [v for v in state.health.broken if state.current(v.rpartition("@")[0]) == v]
        if not broken:
            return "the league has fewer than two active bots"
        left = f"every active bot but {active[0]}" if active else "every bot"
        return (
            f"{left} is broken ({', '.join(broken)}): gin-arena league update NAME enters a "
            "new version"
        )
    if not (comparing or state.league.unsettled()):
        return f"every active bot is settled (95% interval within {state.settings.target:g} Elo)"
    if pairings is not None and scheduled >= pairings:
        return played(scheduled, pairings, state.settings.batch)
    return ""


def played(scheduled: int, pairings: int, batch: int) -> str:
    """What a run stopped by ``--pairings`` says it played: ``8 pairings: --pairings 4, rounded
    up to a whole batch of 8``."""
    if scheduled == pairings:
        return f"{pairings} pairings played, as --pairings asked"
    whole = "a whole batch" if scheduled <= batch else "whole batches"
    return f"{scheduled} pairings: --pairings {pairings}, rounded up to {whole} of {batch}"


def _jobs(store: Store, state: State) -> list[Job]:
    """The tasks of the pairings issued whose games are not all played: one task a pairing,
    its deal in both seatings, with the pair's configuration."""
    done = store.done()
    jobs: list[Job] = []
    for pairing in state.unapplied:
        if all(g in done for g in game_ids(pairing.index)):
            continue
        config = state.settings.pair_config(state.specs[pairing.a], state.specs[pairing.b])
        seed = deal_seed(state.settings, pairing.index)
        cycle = seatings(TWO_PLAYER)
        games = tuple(
            Planned(number, seed, cycle[leg], leg)
            for leg, number in enumerate(game_ids(pairing.index))
        )
        jobs.append((config.to_json(), Task((0, 1), tuple(by_leg(games)))))
    return jobs


def probe_config(state: State) -> Config:
    """A configuration of every active version (to probe them on a cluster's nodes)."""
    specs = [state.specs[v] for v in state.active_versions()]
    return dataclasses.replace(state.settings.pair_config(specs[0], specs[1]), bots=tuple(specs))


def standings(state: State, *, all_versions: bool = False) -> list[Standing]:
    """The league's table, best first (the active versions; every version with
    ``all_versions``)."""
    return state.league.standings(all_versions=all_versions)


def history(store: Store) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """The log, entry by entry: sequence number, kind, data."""
    yield from store.log()


__all__ = [
    "BATCH",
    "BROKEN_AFTER",
    "KIND",
    "MODEL",
    "Broken",
    "LeagueDatabaseError",
    "Progress",
    "Settings",
    "State",
    "add",
    "check_programs",
    "create",
    "deal_seed",
    "game_ids",
    "is_league",
    "load",
    "open_league",
    "played",
    "retire",
    "run",
    "standings",
    "update",
    "view",
]
