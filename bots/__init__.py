"""Bots: the Python SDK (:mod:`bots.sdk`) and the built-in bots, each runnable as
``python -m bots.NAME``. Every error they raise by a type of their own is a :class:`BotsError`
(:mod:`bots.errors`)."""

from __future__ import annotations

from typing import Final

from bots.errors import BotsError

__all__ = ["BUILTIN", "DEFAULT_TOURNAMENT", "BotsError"]

BUILTIN: Final = {
    "random": "bots.random:RandomBot",
    "greedy": "bots.greedy:GreedyBot",
    "strong": "bots.strong:StrongBot",
    "search": "bots.search:SearchBot",
    "reference": "bots.reference:ReferenceBot",
}
"""Built-in bot names and their classes (``module:Class``)."""

DEFAULT_TOURNAMENT: Final = ("random", "greedy", "strong")
"""The bots of a tournament given none: the quick built-in bots (``search`` thinks up to 0.1 s a
move, some 20 times as long as ``strong``; name it to add it)."""
