"""The tables of a tournament database, and the migration of a format-1 database to format 2:
what :mod:`arena.tournament.store` creates, checks and migrates (its documentation describes the
formats).
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

FORMAT = 2
"""The database format this version writes."""
READS = ("1", "2")
"""The database formats this version reads (format 1 is migrated when opened for writing)."""
NEW_COLUMNS = (
    ("mode", "TEXT NOT NULL DEFAULT 'two-player'"),
    ("seats", "TEXT NOT NULL DEFAULT '[]'"),
    ("scores", "TEXT NOT NULL DEFAULT '[]'"),
    ("side", "INTEGER"),
)
"""The columns format 2 added to ``games`` (the migration adds them in this order)."""

SCHEMA = """
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


LOG_TABLE = """CREATE TABLE IF NOT EXISTS log (
    seq INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    at TEXT NOT NULL
)"""
SNAPSHOT_TABLE = """CREATE TABLE IF NOT EXISTS snapshot (
    seq INTEGER PRIMARY KEY,
    data BLOB NOT NULL
)"""


def checked_formats(mode: object, seats: object, scores: object, side: object) -> dict[str, Any]:
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


def migrate(db: sqlite3.Connection) -> None:
    """Bring a format-1 database (two-player games only) to format 2, in one transaction: add the
    columns of :data:`NEW_COLUMNS`, fill them in from ``seat0``, ``seat1``, ``score0``,
    ``score1`` and ``winner``, and record the new format. Another process that migrated it first
    leaves nothing to do."""
    with db:
        db.execute("BEGIN IMMEDIATE")
        (format_text,) = db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        if format_text == str(FORMAT):
            return
        have = {row[1] for row in db.execute("PRAGMA table_info(games)")}
        for name, definition in NEW_COLUMNS:
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


__all__ = [
    "FORMAT",
    "LOG_TABLE",
    "NEW_COLUMNS",
    "READS",
    "SCHEMA",
    "SNAPSHOT_TABLE",
    "checked_formats",
    "migrate",
]
