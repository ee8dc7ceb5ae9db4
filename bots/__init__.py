"""Bots: the Python SDK (:mod:`bots.sdk`) and the built-in bots, each runnable as
``python -m bots.NAME``."""

from __future__ import annotations

from typing import Final

BUILTIN: Final = {
    "random": "bots.random:RandomBot",
    "greedy": "bots.greedy:GreedyBot",
    "strong": "bots.strong:StrongBot",
}
"""Built-in bot names and their classes (``module:Class``)."""
