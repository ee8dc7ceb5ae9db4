"""The root of every error the arena raises by a type of its own.

Each keeps the standard base that says whose fault it is, :class:`ValueError` for bad input (a
bots file, a database, an option), :class:`RuntimeError` for something that went wrong while
running (a bot, a record that cannot be written), and gains :class:`ArenaError`, so a caller can
catch the arena's errors in one ``except`` and every older ``except ValueError`` still works.
"""

from __future__ import annotations


class ArenaError(Exception):
    """An error of the arena (the referee, bots' processes, records, tournaments, the CLI)."""


__all__ = ["ArenaError"]
