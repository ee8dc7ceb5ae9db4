"""The root of the engine's errors: ``except EngineError`` catches every error the engine raises
by a type of its own.

Each of them is also a built-in error, as python-chess's are: a ``ValueError`` for input the rules
or the notation reject (:class:`~engine.cards.CardError`, :class:`~engine.melds.MeldError`,
:class:`~engine.rules.RulesError`, :class:`~engine.actions.ActionError`,
:class:`~engine.hand.IllegalAction`, :class:`~engine.modes.FormatError`), a ``RuntimeError`` for a
game driven out of order (:class:`~engine.game.GameError`). So ``except ValueError`` still
catches a bad card, and ``except EngineError`` catches all of them but nothing from elsewhere.

>>> from engine.cards import CardError, parse_card
>>> try:
...     parse_card("1X")
... except EngineError as error:
...     isinstance(error, CardError), isinstance(error, ValueError)
(True, True)
"""

from __future__ import annotations


class EngineError(Exception):
    """An error of the engine. Never raised itself: every error of the engine is one of its
    subclasses, each also a ``ValueError`` or a ``RuntimeError``."""
