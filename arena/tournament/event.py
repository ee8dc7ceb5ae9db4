"""An event: a run of many games between bots kept in a database, a tournament or an SPRT. Both
are opened the same way, here: a new event checks that its database does not exist yet, probes
its bots (each must start and say ``ready``) and creates the database with their versions and
digests; a resumed one opens its database for itself alone, takes its configuration from it
(what the command line repeats must agree), checks that no bot's program changed and probes the
bots if games are left. Either way the bots play where the configuration says (in the sandbox or
not, logs kept or not), the database hidden from them, and the games are played in this machine's
worker pool or on a Ray cluster (:meth:`Event.play`).

An A/B run (:mod:`arena.tournament.ab`) keeps no database: it shares the worker pool only.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.seats.botspec import BotSpec
from arena.seats.walls.sandbox import Sandbox
from arena.tournament import cluster
from arena.tournament.config import (
    Config,
    bot_digest,
    check_bots,
    new_config,
    resume_config,
    schedule,
)
from arena.tournament.runner import Venue, probe
from arena.tournament.runner import run as play_games
from arena.tournament.store import GameRow, Store, StoreError, check_creatable


@dataclass(frozen=True, slots=True)
class Kind:
    """The words an event's messages use: what it is (``tournament``, ``test``) and what
    ``--resume`` does to it (``finish``, ``continue``)."""

    noun: str
    resume_verb: str
    resume_word: str


TOURNAMENT = Kind("tournament", "finish", "resume")
SPRT = Kind("test", "continue", "continue")


@dataclass
class Opening:
    """An event being opened: its configuration, its database's path and, resumed, the database
    itself, open and locked by this process (:meth:`close` it if the event goes no further)."""

    config: Config
    db: Path
    store: Store | None = None

    def open(self, venue: Venue, *, meta: Mapping[str, str] | None = None) -> Event:
        """The event ready to play in ``venue``: a resumed event's bots probed if games are
        left; a new event's bots probed, then its database created (with ``meta``). A bot that
        does not start is a :class:`~arena.play.match.MatchError`, and no database is created
        (a resumed event's stays open: :meth:`close` it)."""
        store = self.store
        if store is not None:
            if len(store.done()) < sum(len(task.games) for task in schedule(self.config)):
                _probe(self.config, venue)
            return Event(self.config, store, venue, self.db, resumed=True)
        versions = _probe(self.config, venue)
        store = Store.create(
            self.db,
            self.config.to_json(),
            [
                (spec.name, spec.command_line, versions[spec.name], bot_digest(spec))
                for spec in self.config.bots
            ],
        )
        for key, value in (meta or {}).items():
            store.set_meta(key, value)
        return Event(self.config, store, venue, self.db, resumed=False)

    def close(self) -> None:
        if self.store is not None:
            self.store.close()


def resume(
    db: Path | None,
    kind: Kind,
    given: Mapping[str, Any],
    *,
    check: Callable[[Store], None] | None = None,
) -> Opening:
    """Open the database of an event to resume, for this process alone, with its configuration
    and what the command line gave checked against it (``check`` looks at anything else stored,
    such as an SPRT's parameters); no bot's program may have changed."""
    if db is None:
        raise ValueError(
            f"--resume needs --db PATH: the database of the {kind.noun} to {kind.resume_verb}"
        )
    where = repr(str(db))
    store = Store.open(db, lock=True)
    try:
        if check is not None:
            check(store)
        config = resume_config(Config.from_stored(store.config(), where), where, **given)
        check_bots(config, {name: row[2] for name, row in store.bots().items()}, where)
    except BaseException:
        store.close()
        raise
    return Opening(config, db, store)


def new(
    db: Path | None,
    kind: Kind,
    bots: Sequence[BotSpec],
    given: Mapping[str, Any],
    default_db: str,
) -> Opening:
    """A new event of ``bots``: its configuration and its database's path, which must not
    exist (``default_db`` when none is given) and must be in a folder this process can write."""
    config = new_config(bots, **given)
    path = db or Path(default_db)
    if path.exists():
        raise StoreError(
            f"{str(path)!r} already exists: {kind.resume_word} it with --resume, or choose "
            "another --db"
        )
    check_creatable(path)  # before any bot is started for it
    return Opening(config, path)


@dataclass
class Event:
    """An event ready to play: its configuration, its open database (this process holds its
    lock), where its bots play, and whether it was resumed."""

    config: Config
    store: Store
    venue: Venue
    db: Path
    resumed: bool

    def play(
        self,
        concurrency: int,
        on_game: Callable[[GameRow], None],
        ray: str | None = None,
    ) -> int:
        """Play every game still missing, in ``concurrency`` local workers or on the Ray cluster
        at ``ray``; return how many were played."""
        if ray is not None:
            return cluster.run(
                cluster.connect(ray), self.config, self.store, on_game, venue=self.venue
            )
        return play_games(
            self.config,
            self.store,
            concurrency,
            on_game,
            workdir=None if self.venue.logs is None else Path(self.venue.logs),
            venue=self.venue,
        )

    def close(self) -> None:
        self.store.close()


def venue_of(db: Path, sandbox: Sandbox | None, logs: Path | None) -> Venue:
    """Where an event's bots play: in the sandbox or not, the database (and its WAL files)
    hidden from them, their logs kept in ``logs`` or not."""
    secret = [db.resolve()] + [Path(f"{db.resolve()}{end}") for end in ("-wal", "-shm")]
    return Venue(
        sandbox="bwrap" if sandbox is not None else "none",
        hidden=tuple(str(p) for p in secret),
        logs=None if logs is None else str(logs),
    )


def _probe(config: Config, venue: Venue) -> dict[str, str]:
    with tempfile.TemporaryDirectory(prefix="gin-arena-probe-") as scratch:
        return probe(config, Path(scratch), venue)


__all__ = ["SPRT", "TOURNAMENT", "Event", "Kind", "Opening", "new", "resume", "venue_of"]
