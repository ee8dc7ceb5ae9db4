"""A tournament's SQLite database: its configuration, its bots and every game, committed as each
game finishes (WAL mode), so an interrupted tournament loses nothing and resumes exactly.

Database format 2 stores games of every format: besides ``seat0``/``seat1`` and ``score0``/
``score1`` (players 0 and 1, sides 0 and 1), each game has its ``mode``, ``seats`` (a JSON list of
the bots' names by player), ``scores`` (a JSON list of the final scores by side: a player, or a team
in partnership) and ``side`` (the winning side, NULL when drawn). ``winner`` is the winning bot's
name, or in partnership the winning team's two names joined by `` & `` (player ``side`` first).
A format-1 database (two-player games only, from before the formats) is migrated when it is opened
for writing, in one transaction; opened read-only, it is read as it is.
"""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import json
import os
import sqlite3
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from engine.formats import format_named

APPLICATION = "gin-rummy-arena"
FORMAT = 2
"""The database format this version writes."""
READS = ("1", "2")
"""The database formats this version reads (format 1 is migrated when opened for writing)."""
TEAM_JOIN = " & "
"""Joins the names of a winning partnership in the ``winner`` column."""

_NEW_COLUMNS = (
    ("mode", "TEXT NOT NULL DEFAULT 'two-player'"),
    ("seats", "TEXT NOT NULL DEFAULT '[]'"),
    ("scores", "TEXT NOT NULL DEFAULT '[]'"),
    ("side", "INTEGER"),
)
"""The columns format 2 added to ``games`` (the migration adds them in this order)."""

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE bots (
    name TEXT PRIMARY KEY,
    command TEXT NOT NULL,
    version TEXT NOT NULL,
    digest TEXT NOT NULL
);
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    seat0 TEXT NOT NULL,
    seat1 TEXT NOT NULL,
    seed TEXT NOT NULL,
    winner TEXT,
    reason TEXT NOT NULL,
    failed TEXT,
    message TEXT,
    rule TEXT,
    score0 INTEGER NOT NULL,
    score1 INTEGER NOT NULL,
    hands INTEGER NOT NULL,
    seconds REAL NOT NULL,
    finished_at TEXT NOT NULL,
    record TEXT NOT NULL,
    mode TEXT NOT NULL DEFAULT 'two-player',
    seats TEXT NOT NULL DEFAULT '[]',
    scores TEXT NOT NULL DEFAULT '[]',
    side INTEGER
);
"""


_LOG_TABLE = """CREATE TABLE IF NOT EXISTS log (
    seq INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    at TEXT NOT NULL
)"""
_SNAPSHOT_TABLE = """CREATE TABLE IF NOT EXISTS snapshot (
    seq INTEGER PRIMARY KEY,
    data BLOB NOT NULL
)"""


class StoreError(ArenaError, ValueError):
    """A database that cannot be used: unreadable, foreign, damaged, in use by another run, or
    for another configuration."""


@dataclass(frozen=True, slots=True)
class GameRow:
    """One finished game, by bot name.

    ``seats`` are the bots by player and ``scores`` the final scores by side (a player, or a team
    in partnership: team 0 is players 0 and 2); ``seat0``/``seat1`` and ``score0``/``score1`` are
    their first two. ``side`` is the winning side (None when drawn) and ``winner`` its bot, or in
    partnership its two bots joined by :data:`TEAM_JOIN`. ``failed`` is the bot that forfeited.
    Left out, ``seats``, ``scores`` and ``side`` are those of a two-player game (from ``seat0``,
    ``seat1``, ``score0``, ``score1`` and ``winner``)."""

    id: int
    seat0: str
    seat1: str
    seed: int
    winner: str | None
    reason: str
    failed: str | None
    message: str
    rule: str
    score0: int
    score1: int
    hands: int
    seconds: float
    record: str
    mode: str = "two-player"
    seats: tuple[str, ...] = ()
    scores: tuple[int, ...] = ()
    side: int | None = None

    def __post_init__(self) -> None:
        if not self.seats:
            object.__setattr__(self, "seats", (self.seat0, self.seat1))
        if not self.scores:
            object.__setattr__(self, "scores", (self.score0, self.score1))
        if self.side is None and self.winner is not None:
            sides = range(format_named(self.mode).side_count)
            found = [s for s in sides if winner_name(self.mode, self.seats, s) == self.winner]
            if found:
                object.__setattr__(self, "side", found[0])

    @property
    def winners(self) -> tuple[str, ...]:
        """The bots of the winning side (none when drawn; two in partnership)."""
        if self.side is None:
            return ()
        return side_bots(self.mode, self.seats, self.side)

    @property
    def failed_player(self) -> int | None:
        """The player who forfeited (an index into ``seats``), if one did."""
        return self.seats.index(self.failed) if self.failed in self.seats else None


def side_bots(mode: str, seats: Sequence[str], side: int) -> tuple[str, ...]:
    """The bots of ``side``: a player, or a team (:meth:`engine.formats.Format.side_of`)."""
    fmt = format_named(mode)
    return tuple(bot for player, bot in enumerate(seats) if fmt.side_of(player) == side)


def winner_name(mode: str, seats: Sequence[str], side: int) -> str:
    """What the ``winner`` column holds when ``side`` won."""
    return TEAM_JOIN.join(side_bots(mode, seats, side))


class Store:
    """An open tournament database."""

    def __init__(
        self,
        path: Path,
        connection: sqlite3.Connection,
        lock: int | None = None,
        legacy: bool = False,
    ) -> None:
        self.path = path
        self._db = connection
        self._lock = lock
        self._legacy = legacy
        """A format-1 database opened read-only: its games have only the two-player columns."""

    def _damaged(self, error: sqlite3.Error) -> StoreError:
        return StoreError(
            f"the tournament database {str(self.path)!r} is damaged ({error}): it was changed "
            "by hand or by another program; start a new tournament with another --db"
        )

    @classmethod
    def create(
        cls,
        path: Path,
        config: Mapping[str, Any],
        bots: Sequence[tuple[str, str, str, str]] = (),
    ) -> Store:
        """A new database for ``config`` and its ``bots`` (name, command, version, digest);
        refuses to touch an existing file. The database is built under a temporary name and
        linked into place whole, so an interruption leaves either nothing or a complete, empty
        tournament (a temporary file that a killed run left behind is removed by the next)."""
        if path.exists():
            raise StoreError(
                f"{str(path)!r} already exists: resume it with --resume, or choose another --db"
            )
        _sweep(path)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.new")
        try:
            db = sqlite3.connect(temporary, isolation_level=None)
            try:
                cls._initialise(db, config, bots)
            finally:
                db.close()
            os.link(temporary, path)
        except FileExistsError:
            raise StoreError(
                f"{str(path)!r} already exists: resume it with --resume, or choose another --db"
            ) from None
        except (sqlite3.Error, OSError) as error:
            raise StoreError(f"cannot create database {str(path)!r}: {error}") from None
        finally:
            for leftover in (temporary, Path(f"{temporary}-wal"), Path(f"{temporary}-shm")):
                with contextlib.suppress(FileNotFoundError):
                    leftover.unlink()
        return cls.open(path, lock=True)

    @staticmethod
    def _initialise(
        db: sqlite3.Connection,
        config: Mapping[str, Any],
        bots: Sequence[tuple[str, str, str, str]],
    ) -> None:
        with db:
            db.execute("BEGIN")
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
            db.executemany(
                "INSERT INTO meta (key, value) VALUES (?, ?)",
                [
                    ("application", APPLICATION),
                    ("format", str(FORMAT)),
                    ("created", now),
                    ("config", json.dumps(config, sort_keys=True)),
                ],
            )
            db.executemany(
                "INSERT INTO bots (name, command, version, digest) VALUES (?, ?, ?, ?)", bots
            )

    @classmethod
    def open(cls, path: Path, *, lock: bool = False, readonly: bool = False) -> Store:
        """An existing database of this application.

        ``lock``: this process will play games into it; another process that holds the lock
        (a tournament running on it) makes this a :class:`StoreError`, and the lock is held until
        :meth:`close`. ``readonly``: only read it (``ratings``), which works while a tournament
        runs on it and on a file this process may not write."""
        if not path.is_file():
            raise StoreError(f"no tournament database at {str(path)!r}")
        held = _lock(path) if lock else None
        if held is not None:
            _sweep(path)
        try:
            return cls._connect(path, held, readonly)
        except BaseException:
            if held is not None:
                os.close(held)
            raise

    @classmethod
    def _connect(cls, path: Path, held: int | None, readonly: bool) -> Store:
        mode = "ro" if readonly else "rw"
        try:
            db = sqlite3.connect(
                path.absolute().as_uri() + f"?mode={mode}", uri=True, isolation_level=None
            )
            rows = dict(db.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError as error:
            raise StoreError(
                f"{str(path)!r} is not a gin-rummy-arena tournament database ({error})"
            ) from None
        if rows.get("application") != APPLICATION:
            raise StoreError(f"{str(path)!r} is not a gin-rummy-arena tournament database")
        if rows.get("format") not in READS:
            raise StoreError(
                f"{str(path)!r} has database format {rows.get('format')}; this version reads "
                f"format {' or '.join(READS)}"
            )
        if not readonly:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
        legacy = rows.get("format") != str(FORMAT)
        store = cls(path, db, held, legacy=legacy and readonly)
        try:
            for table in ("bots", "games"):
                db.execute(f"SELECT * FROM {table} LIMIT 0")
            if legacy and not readonly:
                _migrate(db)
        except sqlite3.DatabaseError as error:
            db.close()
            raise store._damaged(error) from None
        return store

    def close(self) -> None:
        self._db.close()
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def config(self) -> dict[str, Any]:
        try:
            row = self._db.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
        except sqlite3.DatabaseError as error:
            raise self._damaged(error) from None
        if row is None:
            raise StoreError(
                f"the tournament database {str(self.path)!r} has no configuration: it was "
                "changed by hand; start a new tournament with another --db"
            )
        try:
            config = json.loads(row[0])
        except (json.JSONDecodeError, TypeError) as error:
            raise StoreError(
                f"the configuration in {str(self.path)!r} is not valid JSON ({error}); start a "
                "new tournament with another --db"
            ) from None
        if not isinstance(config, dict):
            raise StoreError(f"the configuration in {str(self.path)!r} is not a JSON object")
        return config

    def meta(self, key: str) -> str | None:
        """A value kept beside the configuration (an SPRT's parameters), or None."""
        try:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        except sqlite3.DatabaseError as error:
            raise self._damaged(error) from None
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        with self._db:
            self._db.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                (key, value),
            )

    def set_bot(self, name: str, command: str, version: str, digest: str) -> None:
        with self._db:
            self._db.execute(
                "INSERT INTO bots (name, command, version, digest) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(name) DO UPDATE SET command=excluded.command, "
                "version=excluded.version, digest=excluded.digest",
                (name, command, version, digest),
            )

    def bots(self) -> dict[str, tuple[str, str, str]]:
        try:
            rows = self._db.execute("SELECT name, command, version, digest FROM bots").fetchall()
        except sqlite3.DatabaseError as error:
            raise self._damaged(error) from None
        return {name: (command, version, digest) for name, command, version, digest in rows}

    @contextlib.contextmanager
    def immediate(self) -> Iterator[None]:
        """A write transaction taken at once (``BEGIN IMMEDIATE``): what it reads and writes is
        one step no other writer comes between."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def add_log(self, kind: str, data: Mapping[str, Any]) -> int:
        """Append an entry to the database's history (a league's joins, updates, retirements
        and batches: :mod:`arena.tournament.league`); return its sequence number."""
        now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        try:
            self._db.execute(_LOG_TABLE)
            cursor = self._db.execute(
                "INSERT INTO log (kind, data, at) VALUES (?, ?, ?)",
                (kind, json.dumps(data, sort_keys=True), now),
            )
        except sqlite3.DatabaseError as error:
            raise self._damaged(error) from None
        return int(cursor.lastrowid or 0)

    def log(self, after: int = 0) -> list[tuple[int, str, dict[str, Any]]]:
        """The history's entries after sequence number ``after``, in order (none in a database
        that has no history)."""
        try:
            has = self._db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'log'"
            ).fetchone()
            if has is None:
                return []
            rows = self._db.execute(
                "SELECT seq, kind, data FROM log WHERE seq > ? ORDER BY seq", (after,)
            ).fetchall()
            return [(int(seq), str(kind), json.loads(data)) for seq, kind, data in rows]
        except (sqlite3.DatabaseError, json.JSONDecodeError) as error:
            raise StoreError(
                f"the history in {str(self.path)!r} is damaged ({error}): it was changed by hand"
            ) from None

    def set_snapshot(self, seq: int, data: Mapping[str, Any]) -> None:
        """Keep ``data`` (JSON-ready) as the state after history entry ``seq``, in place of any
        earlier one: a cache that saves replaying the history up to there (a league's:
        :mod:`arena.tournament.league`). Written compressed; inside the caller's transaction
        when there is one."""
        blob = zlib.compress(json.dumps(data, separators=(",", ":")).encode(), 6)
        try:
            self._db.execute(_SNAPSHOT_TABLE)
            self._db.execute("DELETE FROM snapshot")
            self._db.execute("INSERT INTO snapshot (seq, data) VALUES (?, ?)", (seq, blob))
        except sqlite3.DatabaseError as error:
            raise self._damaged(error) from None

    def snapshot(self) -> tuple[int, Any] | None:
        """The last state :meth:`set_snapshot` kept, with its history entry, or None when there
        is none or it cannot be read (a cache: the caller replays the history instead)."""
        try:
            has = self._db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'snapshot'"
            ).fetchone()
            if has is None:
                return None
            row = self._db.execute(
                "SELECT seq, data FROM snapshot ORDER BY seq DESC LIMIT 1"
            ).fetchone()
            if row is None:
                return None
            return int(row[0]), json.loads(zlib.decompress(row[1]))
        except (sqlite3.DatabaseError, zlib.error, ValueError, TypeError):
            return None

    def add_game(self, game: GameRow) -> None:
        """Commit one finished game (at once: an interruption after this loses nothing)."""
        now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        with self._db:
            self._db.execute(
                "INSERT INTO games (id, seat0, seat1, seed, winner, reason, failed, message, rule,"
                " score0, score1, hands, seconds, finished_at, record, mode, seats, scores, side)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    game.id,
                    game.seat0,
                    game.seat1,
                    str(game.seed),
                    game.winner,
                    game.reason,
                    game.failed,
                    game.message,
                    game.rule,
                    game.score0,
                    game.score1,
                    game.hands,
                    game.seconds,
                    now,
                    game.record,
                    str(game.mode),
                    json.dumps(list(game.seats)),
                    json.dumps(list(game.scores)),
                    game.side,
                ),
            )

    def done(self) -> set[int]:
        try:
            return {row[0] for row in self._db.execute("SELECT id FROM games")}
        except sqlite3.DatabaseError as error:
            raise self._damaged(error) from None

    def watermark(self) -> tuple[int, int, int]:
        """What changes whenever anything is written: the number of games, the last history
        entry and the number of bots. One cheap read, for a reader that watches a database
        another process writes (``gin-arena serve``)."""
        try:
            has_log = self._db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'log'"
            ).fetchone()
            log = "(SELECT coalesce(max(seq), 0) FROM log)" if has_log else "0"
            games, last, bots = self._db.execute(
                f"SELECT (SELECT count(*) FROM games), {log}, (SELECT count(*) FROM bots)"
            ).fetchone()
        except sqlite3.DatabaseError as error:
            raise self._damaged(error) from None
        return int(games), int(last), int(bots)

    def recorded(self) -> set[int]:
        """The ids of the games whose record is kept."""
        try:
            return {row[0] for row in self._db.execute("SELECT id FROM games WHERE record != ''")}
        except sqlite3.DatabaseError as error:
            raise self._damaged(error) from None

    def games(self, records: bool = True, *, only: int | None = None) -> Iterator[GameRow]:
        """Every game, by id; without ``records`` their records are left out (empty), which is
        all standings need and keeps a long league's games small in memory. ``only``: just the
        game of that id (none if it is not there)."""
        record = "record" if records else "''"
        formats = "" if self._legacy else ", mode, seats, scores, side"
        where, arguments = ("WHERE id = ?", (only,)) if only is not None else ("", ())
        try:
            rows = self._db.execute(
                "SELECT id, seat0, seat1, seed, winner, reason, failed, message, rule, score0,"
                f" score1, hands, seconds, {record}{formats} FROM games {where} ORDER BY id",
                arguments,
            ).fetchall()
        except sqlite3.DatabaseError as error:
            raise self._damaged(error) from None
        for row in rows:
            more: dict[str, Any] = {}
            if not self._legacy:
                try:
                    more = _formats(*row[14:])
                except (ValueError, TypeError) as error:
                    raise StoreError(
                        f"the tournament database {str(self.path)!r} is damaged (game {row[0]}: "
                        f"{error}): it was changed by hand or by another program; start a new "
                        "tournament with another --db"
                    ) from None
            yield GameRow(
                id=row[0],
                seat0=row[1],
                seat1=row[2],
                seed=int(row[3]),
                winner=row[4],
                reason=row[5],
                failed=row[6],
                message=row[7] or "",
                rule=row[8] or "",
                score0=row[9],
                score1=row[10],
                hands=row[11],
                seconds=row[12],
                record=row[13],
                **more,
            )


def _formats(mode: object, seats: object, scores: object, side: object) -> dict[str, Any]:
    """The format-2 columns of a game, checked (a ValueError or TypeError if one is damaged)."""
    if not isinstance(mode, str) or not isinstance(seats, str) or not isinstance(scores, str):
        raise TypeError("mode, seats and scores must be text")
    names, points = json.loads(seats), json.loads(scores)
    if not (
        isinstance(names, list)
        and 2 <= len(names) <= 4
        and all(isinstance(n, str) for n in names)
        and isinstance(points, list)
        and len(points) >= 2
        and all(isinstance(p, int) and not isinstance(p, bool) for p in points)
    ):
        raise ValueError(f"bad seats {seats} or scores {scores}")
    if side is not None and not (isinstance(side, int) and 0 <= side < len(points)):
        raise ValueError(f"bad winning side {side!r}")
    return {"mode": mode, "seats": tuple(names), "scores": tuple(points), "side": side}


def _migrate(db: sqlite3.Connection) -> None:
    """Bring a format-1 database (two-player games only) to format 2, in one transaction: add the
    columns of :data:`_NEW_COLUMNS`, fill them in from ``seat0``, ``seat1``, ``score0``,
    ``score1`` and ``winner``, and record the new format. Another process that migrated it first
    leaves nothing to do."""
    with db:
        db.execute("BEGIN IMMEDIATE")
        (format_text,) = db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        if format_text == str(FORMAT):
            return
        have = {row[1] for row in db.execute("PRAGMA table_info(games)")}
        for name, definition in _NEW_COLUMNS:
            if name not in have:
                db.execute(f"ALTER TABLE games ADD COLUMN {name} {definition}")
        old = db.execute("SELECT id, seat0, seat1, score0, score1, winner FROM games").fetchall()
        db.executemany(
            "UPDATE games SET mode = 'two-player', seats = ?, scores = ?, side = ? WHERE id = ?",
            [
                (
                    json.dumps([seat0, seat1]),
                    json.dumps([score0, score1]),
                    0 if winner == seat0 else 1 if winner == seat1 else None,
                    game_id,
                )
                for game_id, seat0, seat1, score0, score1, winner in old
            ],
        )
        db.execute("UPDATE meta SET value = ? WHERE key = 'format'", (str(FORMAT),))


def _lock(path: Path) -> int:
    """Take the exclusive lock of a tournament database (``flock`` on the file itself, which
    SQLite's own locks do not use), or raise :class:`StoreError` if another process has it. The
    lock goes with the process: a run killed with SIGKILL leaves no stale lock behind."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError as error:
        raise StoreError(f"cannot open {str(path)!r}: {error.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise StoreError(
            f"the tournament in {str(path)!r} is being played by another gin-arena process: "
            "wait for it to finish (or stop it) before resuming; `gin-arena ratings --db "
            f"{path}` shows the standings meanwhile"
        ) from None
    except OSError as error:
        os.close(fd)
        raise StoreError(f"cannot lock {str(path)!r}: {error.strerror}") from None
    return fd


def _sweep(path: Path) -> None:
    """Remove the temporary files of :meth:`Store.create` (``.NAME.PID.new``, with SQLite's
    ``-journal``, ``-wal`` and ``-shm``) left beside ``path`` by a run killed while creating it:
    those whose process is gone."""
    prefix = f".{path.name}."
    try:
        entries = list(path.parent.iterdir())
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if not name.startswith(prefix) or ".new" not in name:
            continue
        pid_text, _, rest = name[len(prefix) :].partition(".")
        if not pid_text.isdigit() or not rest.startswith("new") or _alive(int(pid_text)):
            continue
        with contextlib.suppress(OSError):
            entry.unlink()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
