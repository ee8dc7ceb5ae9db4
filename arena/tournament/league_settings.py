"""What a league fixes when it is created (:class:`Settings`: everything but its bots), and the
error of a league database that cannot be used as asked; :mod:`arena.tournament.league` keeps
the rest of the league's database (its history, its runs) and re-exports these.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from arena.play.referee import Clock
from arena.seats.botspec import BotSpec
from arena.stats.league import MIN_SHARE, TARGET_ELO, Adaptive
from arena.tournament.config import Config
from arena.tournament.store import StoreError
from engine.formats import TWO_PLAYER
from engine.rules import Rules

KIND: Final = "league"
BATCH: Final = 8
"""Pairings a batch by default: the scheduler decides this many at a time (fixed at creation, so
that a league replays the same whatever the concurrency of each run)."""
BROKEN_AFTER: Final = 2
"""A new league's rule for broken versions: a version that forfeits every game of its first this
many pairings is broken, left out of scheduling until an update (docs/LEAGUE.md, "Broken
versions"). A league created before the rule has 0 in its settings (never): its history must
replay as it was played."""
MODEL: Final = 2
"""The league's model, kept from its creation so that its history replays (stored without: 1).
1: ``ratings.fit``'s fixed prior, no outcome-blind pairings; 2: the pool's spread estimated, a
quarter of the unsettled versions' pairings against an outcome-blind opponent (docs/LEAGUE.md,
"Judged against the truth")."""


class LeagueDatabaseError(StoreError):
    """A league database that cannot be used as asked: not a league, a history that does not
    replay, a bot unknown or already there, a program changed without an update."""


@dataclass(frozen=True, slots=True)
class Settings:
    """What is fixed when a league is created: everything but its bots. ``broken_after``: the
    pairings a version must forfeit every game of, its first ones, to be broken (0: never;
    :data:`BROKEN_AFTER` for a new league)."""

    seed: int
    rules: Rules = Rules()
    clock: Clock = Clock()
    target: float = TARGET_ELO
    share: float = MIN_SHARE
    batch: int = BATCH
    in_process: bool = True
    memory_mb: int | None = None
    cpu_seconds: int | None = None
    pids: int | None = None
    broken_after: int = BROKEN_AFTER
    model: int = MODEL

    def __post_init__(self) -> None:
        if not 0 <= self.seed < 2**64:
            raise LeagueDatabaseError(f"bad seed {self.seed}: an integer from 0 to 2**64 - 1")
        if not (math.isfinite(self.target) and self.target > 0):
            raise LeagueDatabaseError(
                f"--target must be a positive number of Elo, not {self.target}"
            )
        if not 0 < self.share <= 1:
            raise LeagueDatabaseError(
                f"--share must be more than 0 and at most 1, not {self.share}"
            )
        if self.batch < 1:
            raise LeagueDatabaseError(f"--batch must be at least 1, not {self.batch}")
        if self.broken_after < 0:
            raise LeagueDatabaseError(
                f"the pairings that make a version broken must be at least 0, not "
                f"{self.broken_after}"
            )
        if self.model not in {1, MODEL}:
            raise LeagueDatabaseError(
                f"a league of model {self.model}: this gin-arena knows models 1 and {MODEL}; "
                "open it with the version that created it"
            )

    def league_options(self) -> dict[str, Any]:
        """The :class:`~arena.stats.league.League` arguments of this league's model."""
        old = {"scheduler": Adaptive(blind=0.0), "population": False} if self.model == 1 else {}
        return {"seed": self.seed, "target": self.target, "share": self.share, **old}

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": KIND,
            "seed": str(self.seed),
            "rules": self.rules.to_dict(),
            "clock": dataclasses.asdict(self.clock),
            "target": self.target,
            "share": self.share,
            "batch": self.batch,
            "in_process": self.in_process,
            "memory_mb": self.memory_mb,
            "cpu_seconds": self.cpu_seconds,
            "pids": self.pids,
            "broken_after": self.broken_after,
            "model": self.model,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str) -> Settings:
        try:
            return cls(
                seed=int(data["seed"]),
                rules=Rules.from_dict(data["rules"]),
                clock=Clock(**data["clock"]),
                target=float(data["target"]),
                share=float(data["share"]),
                batch=int(data["batch"]),
                in_process=bool(data["in_process"]),
                memory_mb=data["memory_mb"],
                cpu_seconds=data["cpu_seconds"],
                pids=data["pids"],
                # A league created before the rule: never, so that its history replays.
                broken_after=int(data.get("broken_after", 0)),
                model=int(data.get("model", 1)),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise LeagueDatabaseError(
                f"the league settings stored in {where} are not valid ({error!r}): the file was "
                "changed by hand; create a new league with another --db"
            ) from None

    def pair_config(self, a: BotSpec, b: BotSpec) -> Config:
        """The configuration of one pairing's games: the two versions, this league's rules and
        limits, whole mirrored deals, bots started afresh for each seating."""
        return Config(
            bots=(a, b),
            kind="round-robin",
            games_per_pair=2,
            mirror=True,
            seed=self.seed,
            rules=self.rules,
            clock=self.clock,
            in_process=self.in_process,
            memory_mb=self.memory_mb,
            cpu_seconds=self.cpu_seconds,
            pids=self.pids,
            mode=TWO_PLAYER,
            restart="task",
        )


__all__ = ["BATCH", "BROKEN_AFTER", "KIND", "MODEL", "LeagueDatabaseError", "Settings"]
