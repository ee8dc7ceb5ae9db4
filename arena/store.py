"""A tournament's SQLite database: its configuration, its bots and every game, committed as each
game finishes (WAL mode), so an interrupted tournament loses nothing and resumes exactly."""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

APPLICATION = "gin-rummy-arena"
FORMAT = 1

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
    record TEXT NOT NULL
);
"""


class StoreError(ValueError):
    """A database that cannot be used: unreadable, foreign, or for another configuration."""


@dataclass(frozen=True, slots=True)
class GameRow:
    """One finished game, by bot name."""

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


class Store:
    """An open tournament database."""

    def __init__(self, path: Path, connection: sqlite3.Connection) -> None:
        self.path = path
        self._db = connection

    @classmethod
    def create(cls, path: Path, config: Mapping[str, Any]) -> Store:
        """A new database for ``config``; refuses to touch an existing file. The database is
        built under a temporary name and linked into place whole, so an interruption leaves
        either nothing or a complete, empty tournament."""
        if path.exists():
            raise StoreError(
                f"{str(path)!r} already exists: resume it with --resume, or choose another --db"
            )
        temporary = path.with_name(f".{path.name}.{os.getpid()}.new")
        try:
            db = sqlite3.connect(temporary, isolation_level=None)
            try:
                cls._initialise(db, config)
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
        return cls.open(path)

    @staticmethod
    def _initialise(db: sqlite3.Connection, config: Mapping[str, Any]) -> None:
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

    @classmethod
    def open(cls, path: Path) -> Store:
        """An existing database of this application."""
        if not path.is_file():
            raise StoreError(f"no tournament database at {str(path)!r}")
        try:
            db = sqlite3.connect(
                path.absolute().as_uri() + "?mode=rw", uri=True, isolation_level=None
            )
            rows = dict(db.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError as error:
            raise StoreError(
                f"{str(path)!r} is not a gin-rummy-arena tournament database ({error})"
            ) from None
        if rows.get("application") != APPLICATION:
            raise StoreError(f"{str(path)!r} is not a gin-rummy-arena tournament database")
        if rows.get("format") != str(FORMAT):
            raise StoreError(
                f"{str(path)!r} has database format {rows.get('format')}; this version reads "
                f"format {FORMAT}"
            )
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        return cls(path, db)

    def close(self) -> None:
        self._db.close()

    def config(self) -> dict[str, Any]:
        (value,) = self._db.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
        config: dict[str, Any] = json.loads(value)
        return config

    def set_bot(self, name: str, command: str, version: str, digest: str) -> None:
        with self._db:
            self._db.execute(
                "INSERT INTO bots (name, command, version, digest) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(name) DO UPDATE SET command=excluded.command, "
                "version=excluded.version, digest=excluded.digest",
                (name, command, version, digest),
            )

    def bots(self) -> dict[str, tuple[str, str, str]]:
        rows = self._db.execute("SELECT name, command, version, digest FROM bots").fetchall()
        return {name: (command, version, digest) for name, command, version, digest in rows}

    def add_game(self, game: GameRow) -> None:
        """Commit one finished game (at once: an interruption after this loses nothing)."""
        now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        with self._db:
            self._db.execute(
                "INSERT INTO games (id, seat0, seat1, seed, winner, reason, failed, message, rule,"
                " score0, score1, hands, seconds, finished_at, record)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                ),
            )

    def done(self) -> set[int]:
        return {row[0] for row in self._db.execute("SELECT id FROM games")}

    def games(self) -> Iterator[GameRow]:
        for row in self._db.execute(
            "SELECT id, seat0, seat1, seed, winner, reason, failed, message, rule, score0, score1,"
            " hands, seconds, record FROM games ORDER BY id"
        ):
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
            )
