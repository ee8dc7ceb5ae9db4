"""Is the new version better? A league's *compares*: the sequential probability ratio test of
``gin-arena sprt`` between two versions of one bot, over mirrored pairings the league schedules
for that purpose, with the same hypotheses, error rates and words.

**Opening.** ``league compare NEW OLD`` logs an entry of kind :data:`KIND` (the two versions,
``elo0``, ``elo1``, ``alpha``, ``beta``, the most pairings) in the league's history; compares are
numbered 1, 2, ... in the order of the log. Like a join or a retirement, the run takes it in
between two batches, and the replay takes it at the same place.

**Scheduled for it.** While a compare is open, every batch the league schedules begins with
pairings of NEW against OLD reserved for it (:meth:`Compares.reserve`): :data:`SHARE` of the batch,
rounded up, in all open compares (dealt one at a time, the oldest compare first), never more than
its remaining ``max_pairings``; the scheduler fills the rest of the batch as it always does. Each
is a league pairing like any other (one deal, played twice with the seats swapped, by fresh bot
processes), its games count in the ratings like any other, and the schedule entry lists how many
it reserved for which compare (``"compares": [[number, count], ...]``), which the replay checks.

**The verdict** is derived, never stored, so that a replay, a resumed run or a read-only
``league standings`` all reach the same: the reserved pairings, in pairing order, each scored as
``sprt`` scores a pair (NEW's score over the deal's two games: the pentanomial of
:mod:`arena.stats.sprt`), the LLR checked after each as ``sprt`` checks after each pair. The first
to cross a bound decides: H1 (NEW is better by at least ``elo1``) or H0 (it is not better than
``elo0``); the pairings still in its batch are played and rated, but not counted (the test
stopped). The walk waits at a pairing not played yet, so concurrency never changes the verdict.
With every one of ``max_pairings`` played and no crossing, the compare is *undecided*; when NEW or
OLD retires before a verdict it is *stopped*. A compare that is not *running* reserves nothing;
one that is keeps ``league run`` going when every bot is settled.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from arena.stats.league import League, Pairing
from arena.stats.sprt import (
    Pentanomial,
    Verdict,
    bounds,
    decide,
    elo_estimate,
    elo_words,
    los,
    pair_index,
)
from arena.terminal import printable
from arena.tournament.store import GameRow, Store, StoreError

if TYPE_CHECKING:
    from arena.tournament.league import State

KIND: Final = "compare"
"""The kind of the log entry that opens a compare."""
ELO0: Final = 0.0
ELO1: Final = 10.0
ALPHA: Final = 0.05
BETA: Final = 0.05
"""The hypotheses and error rates by default: ``gin-arena sprt``'s."""
MAX_PAIRINGS: Final = 10_000
"""The most pairings a compare plays by default: ``gin-arena sprt``'s 20,000 games (docs/LEAGUE.md,
"Is the new version better?", argues it)."""
SHARE: Final = 0.5
"""The fraction of each batch reserved for the open compares (rounded up: at least one pairing)."""
STATES: Final = ("running", "H1", "H0", "undecided", "stopped")


def per_batch(batch: int) -> int:
    """The pairings a batch of ``batch`` reserves for the running compares, in all."""
    return min(batch, math.ceil(batch * SHARE))


class CompareError(StoreError):
    """A compare the league cannot open: a version unknown, retired or of another bot, the same
    version twice, hypotheses or error rates out of range, one of the same two still running."""


@dataclass(frozen=True, slots=True)
class Compare:
    """Compare ``number``: is version ``new`` better than ``old``? ``H0: elo = elo0`` against
    ``H1: elo = elo1``, accepting H1 wrongly with probability ``alpha`` and H0 ``beta``, over at
    most ``max_pairings`` pairings."""

    number: int
    new: str
    old: str
    elo0: float = ELO0
    elo1: float = ELO1
    alpha: float = ALPHA
    beta: float = BETA
    max_pairings: int = MAX_PAIRINGS

    def __post_init__(self) -> None:
        if not (math.isfinite(self.elo0) and math.isfinite(self.elo1)):
            raise CompareError(f"--elo0 and --elo1 must be numbers, not {self.elo0}, {self.elo1}")
        if self.elo1 <= self.elo0:
            raise CompareError(f"--elo1 ({self.elo1:g}) must be above --elo0 ({self.elo0:g})")
        for key, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < value < 0.5:
                raise CompareError(f"--{key} {value:g} must be between 0 and 0.5")
        if self.max_pairings < 1:
            raise CompareError(f"--max-pairings must be at least 1, not {self.max_pairings}")

    @property
    def bot(self) -> str:
        return self.new.rpartition("@")[0]

    def to_json(self) -> dict[str, Any]:
        """The log entry's data (the number is the entry's place among the compares)."""
        return {
            "new": self.new,
            "old": self.old,
            "elo0": self.elo0,
            "elo1": self.elo1,
            "alpha": self.alpha,
            "beta": self.beta,
            "max_pairings": self.max_pairings,
        }

    @classmethod
    def from_json(cls, number: int, data: Mapping[str, Any]) -> Compare:
        return cls(
            number,
            str(data["new"]),
            str(data["old"]),
            float(data["elo0"]),
            float(data["elo1"]),
            float(data["alpha"]),
            float(data["beta"]),
            int(data["max_pairings"]),
        )


@dataclass(frozen=True, slots=True)
class Outcome:
    """Where a compare stands: its state (one of :data:`STATES`), the pentanomial of the
    pairings counted (up to the one that decided), the LLR there and Wald's bounds, and how many
    pairings were scheduled for it."""

    compare: Compare
    state: str
    pentanomial: Pentanomial
    llr: float
    bounds: tuple[float, float]
    scheduled: int
    retired: tuple[str, ...] = ()
    """NEW or OLD or both, when they retired before a verdict (the state is then ``stopped``)."""

    @property
    def pairings(self) -> int:
        """The pairings the test counted."""
        return self.pentanomial.pairs


@dataclass(frozen=True, slots=True)
class Reservation:
    """The pairings a batch reserves: ``counts`` pairings for each compare, by number, in the
    order issued, each NEW v OLD."""

    counts: tuple[tuple[Compare, int], ...] = ()

    @property
    def pairs(self) -> list[tuple[str, str]]:
        return [(c.new, c.old) for c, count in self.counts for _ in range(count)]

    def entry(self) -> dict[str, Any]:
        """What the batch's schedule entry records of it (nothing when it reserves nothing)."""
        return {"compares": [[c.number, n] for c, n in self.counts]} if self.counts else {}


@dataclass
class _Walk:
    """How far the test has read a compare's pairings (they are only ever added to)."""

    at: int = 0
    p: Pentanomial = Pentanomial()
    llr: float = 0.0
    verdict: Verdict = Verdict.CONTINUE


@dataclass
class Compares:
    """A league's compares (``opened``, in log order), the pairings scheduled for each
    (``reserved``, pairing indices by compare number) and the scores of those played
    (``scores``: the pentanomial index, None for a pairing without its two games)."""

    opened: list[Compare] = field(default_factory=list)
    reserved: dict[int, list[int]] = field(default_factory=dict)
    scores: dict[int, int | None] = field(default_factory=dict)
    _walks: dict[int, _Walk] = field(default_factory=dict)

    def add(self, data: Mapping[str, Any]) -> Compare:
        """Take a ``compare`` entry of the log."""
        compare = Compare.from_json(len(self.opened) + 1, data)
        self.opened.append(compare)
        self.reserved[compare.number] = []
        self._walks[compare.number] = _Walk()
        return compare

    def record(self, results: Mapping[int, Sequence[GameRow]], done: Collection[int]) -> None:
        """Score the reserved pairings whose two games are played."""
        for compare in self.opened:
            for index in self.reserved[compare.number]:
                if index in self.scores or not (2 * index + 1 in done and 2 * index + 2 in done):
                    continue
                rows = results.get(index, [])
                game = [
                    1.0 if r.winner == compare.new else 0.5 if r.winner is None else 0.0
                    for r in rows
                ]
                self.scores[index] = pair_index(game[0], game[1]) if len(game) == 2 else None

    def outcome(self, compare: Compare, active: Collection[str]) -> Outcome:
        """Where ``compare`` stands, by the scores recorded; ``active``: the versions scheduled."""
        walk = self._walks[compare.number]
        indices = self.reserved[compare.number]
        c = compare
        while walk.verdict is Verdict.CONTINUE and walk.at < len(indices):
            if indices[walk.at] not in self.scores:
                break  # not played yet: the test reads the pairings in order
            score = self.scores[indices[walk.at]]
            walk.at += 1
            if score is not None:
                walk.p = walk.p.add(score)
                walk.verdict, walk.llr, _ = decide(walk.p, c.elo0, c.elo1, c.alpha, c.beta)
        retired = tuple(v for v in (c.new, c.old) if v not in active)
        if walk.verdict is not Verdict.CONTINUE:
            state = walk.verdict.value
        elif walk.at == len(indices) >= c.max_pairings:
            state = "undecided"
        else:
            state = "stopped" if retired else "running"
        scheduled = len(indices)
        return Outcome(c, state, walk.p, walk.llr, bounds(c.alpha, c.beta), scheduled, retired)

    def reserve(
        self,
        league: League,
        results: Mapping[int, Sequence[GameRow]],
        done: Collection[int],
        batch: int,
    ) -> Reservation:
        """What the next batch of ``batch`` pairings reserves for the running compares."""
        self.record(results, done)
        active = set(league.active)
        running = [c for c in self.opened if self.outcome(c, active).state == "running"]
        room = {c.number: c.max_pairings - len(self.reserved[c.number]) for c in running}
        slots = per_batch(batch)
        counts = dict.fromkeys(room, 0)
        while slots and any(room.values()):
            for number, left in room.items():
                if slots and left:
                    counts[number] += 1
                    room[number] = left - 1
                    slots -= 1
        by_number = {c.number: c for c in self.opened}
        return Reservation(tuple((by_number[n], k) for n, k in counts.items() if k))

    def took(self, reservation: Reservation, issued: Sequence[Pairing]) -> None:
        """The batch ``issued`` began with ``reservation``'s pairings: record them as its
        compares'."""
        at = 0
        for compare, count in reservation.counts:
            self.reserved[compare.number].extend(p.index for p in issued[at : at + count])
            at += count

    def replayed(self, data: Mapping[str, Any]) -> None:
        """A batch a snapshot holds: what it reserved, as its schedule entry says."""
        at = int(data["pairings"][0][0]) if data.get("pairings") else 0
        for number, count in data.get("compares", []):
            self.reserved[int(number)].extend(range(at, at + int(count)))
            at += int(count)


def reservation_of(data: Mapping[str, Any], compares: Compares) -> Reservation:
    """The reservation a schedule entry records (to compare with the one replayed)."""
    by_number = {c.number: c for c in compares.opened}
    return Reservation(tuple((by_number[int(n)], int(k)) for n, k in data.get("compares", [])))


# ---------------------------------------------------------------------------------------------
# Opening one, and what a person or a page reads.


def open_compare(store: Store, state: State, new: str, old: str, **given: Any) -> Compare:
    """Log a compare of versions ``new`` and ``old`` (``given``: :class:`Compare`'s other
    fields) after checking that it can be played: both versions of one bot, both scheduled, no
    compare of the same two running."""
    for version in (new, old):
        if version not in state.specs:
            raise CompareError(
                f"the league has no version {version!r}: {_versions_hint(state, version)}"
            )
    if new == old:
        raise CompareError(f"compare two versions, not {new} with itself")
    bots = new.rpartition("@")[0], old.rpartition("@")[0]
    if bots[0] != bots[1]:
        raise CompareError(
            f"{new} and {old} are versions of different bots ({bots[0]}, {bots[1]}): a compare "
            f"is between two versions of one bot (gin-arena league update {bots[0]} COMMAND "
            "--keep enters a new version beside the old)"
        )
    for version in (old, new):
        if not state.is_active(version):
            raise CompareError(
                f"{version} is retired: a compare plays both versions, so both must be "
                f"scheduled (gin-arena league update {bots[0]} COMMAND --keep enters a new "
                "version and keeps the older one scheduled)"
            )
    active = state.active_versions()
    for outcome in (state.compares.outcome(c, active) for c in state.compares.opened):
        if {outcome.compare.new, outcome.compare.old} == {new, old} and outcome.state == "running":
            raise CompareError(
                f"compare #{outcome.compare.number} of {outcome.compare.new} v "
                f"{outcome.compare.old} is still running: gin-arena league compare --db "
                f"{str(store.path)!r} shows it"
            )
    compare = Compare(len(state.compares.opened) + 1, new, old, **given)
    store.add_log(KIND, compare.to_json())
    return compare


def _versions_hint(state: State, name: str) -> str:
    bot = name.rpartition("@")[0] if "@" in name else name
    versions = [v for v in state.specs if v.rpartition("@")[0] == bot]
    if versions:
        return f"{bot}'s versions are {', '.join(versions)}"
    return "name two versions NAME@N of one bot (gin-arena league standings --all lists them)"


def outcomes(state: State) -> list[Outcome]:
    """Every compare of the league, as it stands, in the order opened."""
    active = state.active_versions()
    return [state.compares.outcome(c, active) for c in state.compares.opened]


def _percent(rate: float) -> str:
    return f"{100 * rate:g}%"


def summary(outcome: Outcome) -> str:
    """The compare in one sentence: its verdict, the LLR and its bound, the Elo of NEW over OLD
    with its 95% interval, the pairings counted and the error rates."""
    c, p = outcome.compare, outcome.pentanomial
    low, high = outcome.bounds
    rates = f"false positive at most {_percent(c.alpha)}, false negative at most {_percent(c.beta)}"
    elo = (
        f"{elo_words(*elo_estimate(p))} over {p.pairs} pairings"
        if p.pairs
        else "no pairings played yet"
    )
    head = f"{c.new} v {c.old}: "
    if outcome.state == "H1":
        return (
            f"{head}H1 accepted ({c.new} is better, by at least {c.elo1:g} Elo), LLR "
            f"{outcome.llr:+.2f} >= {high:+.2f}; {elo}; {rates}"
        )
    if outcome.state == "H0":
        return (
            f"{head}H0 accepted ({c.new} is not better by more than {c.elo0:g} Elo), LLR "
            f"{outcome.llr:+.2f} <= {low:+.2f}; {elo}; {rates}"
        )
    where = f"LLR {outcome.llr:+.2f} of [{low:+.2f}, {high:+.2f}]"
    if outcome.state == "undecided":
        what = f"undecided after its {c.max_pairings} pairings (--max-pairings)"
    elif outcome.state == "stopped":
        what = f"stopped without a verdict ({' and '.join(outcome.retired)} retired)"
    else:
        what = f"running, {outcome.scheduled} of at most {c.max_pairings} pairings scheduled"
    return f"{head}{what}, {where}; {elo}; {rates}"


def hypotheses(c: Compare) -> str:
    """``H0 Elo <= 0, H1 Elo >= 10, alpha 0.05, beta 0.05, at most 10000 pairings``."""
    return (
        f"H0 Elo <= {c.elo0:g}, H1 Elo >= {c.elo1:g}, alpha {c.alpha:g}, beta {c.beta:g}, at "
        f"most {c.max_pairings} pairings"
    )


def listed(state: State, *, tested: bool = True) -> list[str]:
    """Every compare, ``#N`` and its sentence, escaped for a terminal; with ``tested``, each
    followed by what it tests."""
    out = []
    for outcome in outcomes(state):
        out.append(f"#{outcome.compare.number} {printable(summary(outcome))}")
        if tested:
            out.append(f"   {hypotheses(outcome.compare)}")
    return out


def closed_since(state: State, seen: set[int]) -> list[str]:
    """The lines of the compares closed (decided, undecided or stopped) and not in ``seen``,
    which is updated: what a run says as each closes."""
    out = []
    for outcome in outcomes(state):
        if outcome.state != "running" and outcome.compare.number not in seen:
            seen.add(outcome.compare.number)
            out.append(f"compare #{outcome.compare.number}: {printable(summary(outcome))}")
    return out


def by_version(state: State) -> dict[str, list[dict[str, Any]]]:
    """:func:`compares_json`'s entries by the versions they compare (NEW and OLD), for the JSON
    standings."""
    out: dict[str, list[dict[str, Any]]] = {}
    for entry in compares_json(state):
        for version in (entry["new"], entry["old"]):
            out.setdefault(version, []).append(entry)
    return out


def compares_json(state: State) -> list[dict[str, Any]]:
    """Every compare of the league as JSON-ready data, in the order opened: the request, its
    state, the counts, the LLR and bounds, the Elo of NEW over OLD with its 95% interval, the
    likelihood of superiority, and :func:`summary`'s sentence (``league standings --format
    json`` gives each version the compares it is in). ``state`` as
    :func:`arena.tournament.league.view` gives it: with the games played since the last batch."""
    out = []
    for outcome in outcomes(state):
        c, p = outcome.compare, outcome.pentanomial
        elo = elo_estimate(p) if p.pairs else None
        out.append(
            {
                "number": c.number,
                "bot": c.bot,
                **c.to_json(),
                "state": outcome.state,
                "scheduled": outcome.scheduled,
                "pairings": p.pairs,
                "pentanomial": list(p.counts),
                "llr": round(outcome.llr, 4),
                "bounds": [round(b, 4) for b in outcome.bounds],
                "elo": None if elo is None else round(elo[0], 1),
                "elo_interval": None if elo is None else [round(elo[1], 1), round(elo[2], 1)],
                "los": round(los(p), 4),
                "summary": summary(outcome),
            }
        )
    return out


__all__ = [
    "ALPHA",
    "BETA",
    "ELO0",
    "ELO1",
    "KIND",
    "MAX_PAIRINGS",
    "SHARE",
    "STATES",
    "Compare",
    "CompareError",
    "Compares",
    "Outcome",
    "Reservation",
    "by_version",
    "closed_since",
    "compares_json",
    "hypotheses",
    "listed",
    "open_compare",
    "outcomes",
    "per_batch",
    "reservation_of",
    "summary",
]
