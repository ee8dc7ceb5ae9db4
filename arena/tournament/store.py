"""A tournament's SQLite database: its configuration, its bots and every game, committed as each
game finishes (WAL mode), so an interrupted tournament loses nothing and resumes exactly.

Database format 2 stores games of every format: besides ``seat0``/``seat1`` and ``score0``/
``score1`` (players 0 and 1, sides 0 and 1), each game has its ``mode``, ``seats`` (a JSON list of
the bots' names by player), ``scores`` (a JSON list of the final scores by side: a player, or a team
in partnership) and ``side`` (the winning side, NULL when drawn). ``winner`` is the winning bot's
name, or in partnership the winning team's two names joined by `` & `` (player ``side`` first).
A format-1 database (two-player games only, from before the formats) is migrated when it is opened
for writing, in one transaction; opened read-only, it is read as it is.

Opened read-only (:meth:`Store.open` with ``readonly``), a database is never written and nothing
is created beside it: each read is a connection of its own, chosen by
:func:`arena.tournament.access.read_uri` (SQLite's ``mode=ro`` beside a writer, ``immutable=1``
when none is connected), so it works in a read-only folder, on a read-only mount and beside a
running tournament. A database this process cannot write, or a folder it cannot create one in,
is refused in one line that says so before anything starts (:mod:`arena.tournament.access`).
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
from arena.tournament import access
from arena.tournament.schema import (
    FORMAT,
    LOG_TABLE,
    READS,
    SCHEMA,
    SNAPSHOT_TABLE,
    checked_formats,
    migrate,
)
from engine.formats import format_named

APPLICATION = "gin-rummy-arena"
TEAM_JOIN = " & "
"""Joins the names of a winning partnership in the ``winner`` column."""
READ_TRIES = 5
"""How many times a read-only query is asked when the file moves under it (a writer arriving)."""
_READONLY, _FULL, _CANTOPEN = 8, 13, 14
"""SQLite's primary result codes for a write refused, a disk full and a file it cannot open."""


class StoreError(ArenaError, ValueError):
    """A database that cannot be used: unreadable, read-only, foreign, damaged, in use by another
    run, or for another configuration."""


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
        connection: sqlite3.Connection | None,
        lock: int | None = None,
        legacy: bool = False,
    ) -> None:
        self.path = path
        self._db = connection
        """The connection that writes, or None: opened read-only, each read opens its own."""
        self._lock = lock
        self._legacy = legacy
        """A format-1 database opened read-only: its games have only the two-player columns."""

    @property
    def readonly(self) -> bool:
        """Whether this store was opened read-only (it writes nothing, creates nothing)."""
        return self._db is None

    def _read(self, sql: str, params: Sequence[object] = ()) -> list[Any]:
        """The rows of one query: on the store's connection when it writes; opened read-only, on
        a connection of its own that :func:`access.read_uri` chose, asked again when the file
        moved while it was read ``immutable=1`` (a writer arrived: the next try sees its log)."""
        if self._db is not None:
            return self._db.execute(sql, params).fetchall()
        for _ in range(READ_TRIES):
            try:
                uri, seen = access.read_uri(self.path)
                db = sqlite3.connect(uri, uri=True, isolation_level=None)
            except OSError as error:
                raise StoreError(f"cannot read {str(self.path)!r}: {error.strerror}") from None
            except sqlite3.Error as error:
                raise self._unopened(error) from None
            try:
                rows = db.execute(sql, params).fetchall()
            except sqlite3.DatabaseError as error:
                if seen is None or not self._moved(seen):
                    if error.sqlite_errorcode & 0xFF == _CANTOPEN:
                        raise self._unopened(error) from None
                    raise
                continue
            finally:
                db.close()
            if seen is None or not self._moved(seen):
                return rows
        raise StoreError(
            f"{str(self.path)!r} changed every time it was read ({READ_TRIES} tries): a writer "
            "is copying its log into it; run the command again"
        )

    def _moved(self, seen: access.Fingerprint) -> bool:
        try:
            return access.fingerprint(self.path) != seen
        except OSError:
            return True

    def _unopened(self, error: sqlite3.Error) -> StoreError:
        wal = access.beside(self.path, "-wal")
        if wal.exists() and not access.beside(self.path, "-shm").exists():
            return StoreError(
                f"cannot read {str(self.path)!r} ({error}): its -wal holds transactions that "
                "SQLite reads only with a -shm beside it, which this user cannot create there; "
                "open it once where it can be written (any command that writes it), or copy "
                "the database with its -wal to a folder you can write"
            )
        return StoreError(f"cannot read {str(self.path)!r} ({error})")

    @contextlib.contextmanager
    def _writing(self, *, callers: bool = False) -> Iterator[sqlite3.Connection]:
        """The connection to write on; a write that SQLite refuses is a :class:`StoreError` that
        says why (read-only, the disk full, or else damaged), but with ``callers`` a constraint
        that fails is the caller's mistake (a game stored twice), raised as it is."""
        if self._db is None:
            raise StoreError(f"{str(self.path)!r} was opened read-only: it is not written")
        try:
            yield self._db
        except sqlite3.IntegrityError as mistake:
            if callers:
                raise
            raise self._damaged(mistake) from None
        except sqlite3.Error as error:
            code = getattr(error, "sqlite_errorcode", 0) & 0xFF
            if code == _READONLY:
                why = access.unwritable(self.path) or "SQLite may not write it"
                raise read_only(self.path, f"{why}; {error}") from None
            if code == _FULL:
                raise StoreError(
                    f"cannot write {str(self.path)!r}: the disk is full ({error}); what was "
                    "saved before is kept: free some space and run the command again"
                ) from None
            if isinstance(error, sqlite3.DatabaseError):
                raise self._damaged(error) from None
            raise

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
        check_creatable(path)
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
                with contextlib.suppress(OSError):
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
            for statement in SCHEMA.split(";"):
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
        :meth:`close`. Not ``readonly``, a database this process cannot write (the file, or the
        folder of its ``-wal`` and ``-shm``) is a :class:`StoreError` that says it is read-only.

        ``readonly``: only read it (``ratings``, ``report``, a live page): it is never written,
        nothing is created beside it (no ``-wal``, ``-shm`` or lock file), and it works while
        another process writes it, in a read-only folder and on a read-only mount; each read
        sees what was committed when it started (see :mod:`arena.tournament.access`). Holding
        no connection between reads, such a store may be used from any thread at once."""
        if not path.is_file():
            raise StoreError(f"no tournament database at {str(path)!r}")
        why = access.unreadable(path) if readonly else access.unwritable(path)
        if why is not None and readonly:
            raise StoreError(f"cannot read {str(path)!r}: {why}")
        if why is not None:
            raise read_only(path, why)
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
        store = cls(path, None, held)
        try:
            if not readonly:
                store._db = sqlite3.connect(
                    path.absolute().as_uri() + "?mode=rw", uri=True, isolation_level=None
                )
            rows = dict(store._read("SELECT key, value FROM meta"))
        except sqlite3.DatabaseError as error:
            store._close_connection()
            raise StoreError(
                f"{str(path)!r} is not a gin-rummy-arena tournament database ({error})"
            ) from None
        except BaseException:
            store._close_connection()
            raise
        try:
            store._check(rows, readonly)
        except BaseException:
            store._close_connection()
            raise
        return store

    def _check(self, meta: Mapping[str, str], readonly: bool) -> None:
        """Check what :meth:`_connect` opened: this application's, a format this version reads,
        its tables there; opened to write, set WAL mode and migrate an older format."""
        path = self.path
        if meta.get("application") != APPLICATION:
            raise StoreError(f"{str(path)!r} is not a gin-rummy-arena tournament database")
        if meta.get("format") not in READS:
            raise StoreError(
                f"{str(path)!r} has database format {meta.get('format')}; this version reads "
                f"format {' or '.join(READS)}"
            )
        legacy = meta.get("format") != str(FORMAT)
        self._legacy = legacy and readonly
        if not readonly:
            with self._writing() as db:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
        try:
            for table in ("bots", "games"):
                self._read(f"SELECT * FROM {table} LIMIT 0")
        except sqlite3.DatabaseError as error:
            raise self._damaged(error) from None
        if legacy and not readonly:
            with self._writing() as db:
                migrate(db)

    def _close_connection(self) -> None:
        if self._db is not None:
            self._db.close()

    def close(self) -> None:
        self._close_connection()
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def config(self) -> dict[str, Any]:
        try:
            rows = self._read("SELECT value FROM meta WHERE key = 'config'")
        except sqlite3.DatabaseError as error:
            raise self._damaged(error) from None
        row = rows[0] if rows else None
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
            rows = self._read("SELECT value FROM meta WHERE key = ?", (key,))
        except sqlite3.DatabaseError as error:
            raise self._damaged(error) from None
        return str(rows[0][0]) if rows else None

    def set_meta(self, key: str, value: str) -> None:
        with self._writing() as db, db:
            db.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                (key, value),
            )

    def set_bot(self, name: str, command: str, version: str, digest: str) -> None:
        with self._writing() as db, db:
            db.execute(
                "INSERT INTO bots (name, command, version, digest) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(name) DO UPDATE SET command=excluded.command, "
                "version=excluded.version, digest=excluded.digest",
                (name, command, version, digest),
            )

    def bots(self) -> dict[str, tuple[str, str, str]]:
        try:
            rows = self._read("SELECT name, command, version, digest FROM bots")
        except sqlite3.DatabaseError as error:
            raise self._damaged(error) from None
        return {name: (command, version, digest) for name, command, version, digest in rows}

    @contextlib.contextmanager
    def immediate(self) -> Iterator[None]:
        """A write transaction taken at once (``BEGIN IMMEDIATE``): what it reads and writes is
        one step no other writer comes between."""
        with self._writing() as db:
            db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            db.execute("ROLLBACK")
            raise
        with self._writing():
            db.execute("COMMIT")

    def add_log(self, kind: str, data: Mapping[str, Any]) -> int:
        """Append an entry to the database's history (a league's joins, updates, retirements
        and batches: :mod:`arena.tournament.league`); return its sequence number."""
        now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        with self._writing() as db:
            db.execute(LOG_TABLE)
            cursor = db.execute(
                "INSERT INTO log (kind, data, at) VALUES (?, ?, ?)",
                (kind, json.dumps(data, sort_keys=True), now),
            )
        return int(cursor.lastrowid or 0)

    def log(self, after: int = 0) -> list[tuple[int, str, dict[str, Any]]]:
        """The history's entries after sequence number ``after``, in order (none in a database
        that has no history)."""
        try:
            if not self._has("log"):
                return []
            rows = self._read(
                "SELECT seq, kind, data FROM log WHERE seq > ? ORDER BY seq", (after,)
            )
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
        with self._writing() as db:
            db.execute(SNAPSHOT_TABLE)
            db.execute("DELETE FROM snapshot")
            db.execute("INSERT INTO snapshot (seq, data) VALUES (?, ?)", (seq, blob))

    def snapshot(self) -> tuple[int, Any] | None:
        """The last state :meth:`set_snapshot` kept, with its history entry, or None when there
        is none or it cannot be read (a cache: the caller replays the history instead)."""
        try:
            if not self._has("snapshot"):
                return None
            rows = self._read("SELECT seq, data FROM snapshot ORDER BY seq DESC LIMIT 1")
            if not rows:
                return None
            return int(rows[0][0]), json.loads(zlib.decompress(rows[0][1]))
        except (sqlite3.DatabaseError, zlib.error, ValueError, TypeError):
            return None

    def _has(self, table: str) -> bool:
        query = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
        return bool(self._read(query, (table,)))

    def add_game(self, game: GameRow) -> None:
        """Commit one finished game (at once: an interruption after this loses nothing)."""
        now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        with self._writing(callers=True) as db, db:
            db.execute(
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
            return {row[0] for row in self._read("SELECT id FROM games")}
        except sqlite3.DatabaseError as error:
            raise self._damaged(error) from None

    def watermark(self) -> tuple[int, int, int]:
        """What changes whenever anything is written: the number of games, the last history
        entry and the number of bots. One cheap read, for a reader that watches a database
        another process writes (``gin-arena serve``)."""
        try:
            log = "(SELECT coalesce(max(seq), 0) FROM log)" if self._has("log") else "0"
            ((games, last, bots),) = self._read(
                f"SELECT (SELECT count(*) FROM games), {log}, (SELECT count(*) FROM bots)"
            )
        except sqlite3.DatabaseError as error:
            raise self._damaged(error) from None
        return int(games), int(last), int(bots)

    def recorded(self) -> set[int]:
        """The ids of the games whose record is kept."""
        try:
            return {row[0] for row in self._read("SELECT id FROM games WHERE record != ''")}
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
            rows = self._read(
                "SELECT id, seat0, seat1, seed, winner, reason, failed, message, rule, score0,"
                f" score1, hands, seconds, {record}{formats} FROM games {where} ORDER BY id",
                arguments,
            )
        except sqlite3.DatabaseError as error:
            raise self._damaged(error) from None
        for row in rows:
            more: dict[str, Any] = {}
            if not self._legacy:
                try:
                    more = checked_formats(*row[14:])
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


def read_only(path: Path, why: str) -> StoreError:
    """The error of a database that cannot be written (``why``: :func:`access.unwritable`)."""
    return StoreError(
        f"{str(path)!r} cannot be written: {why}; reading it works (ratings, report, league "
        "standings); to write it, make it writable or copy it to a folder you can write"
    )


def check_creatable(path: Path) -> None:
    """Refuse, in one line, a new database where this process cannot create one (a read-only
    folder or mount): before anything is started for it."""
    why = access.uncreatable(path)
    if why is not None:
        raise StoreError(f"cannot create database {str(path)!r}: {why}; choose another --db")


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


__all__ = [
    "APPLICATION",
    "FORMAT",
    "READS",
    "READ_TRIES",
    "TEAM_JOIN",
    "GameRow",
    "Store",
    "StoreError",
    "check_creatable",
    "read_only",
    "side_bots",
    "winner_name",
]
