"""The root of the bots' errors: ``except BotsError`` catches every error the SDK and the built-in
bots raise by a type of their own.

Each of them is also a built-in error: a ``ValueError`` for a value out of its domain
(:class:`~bots.encoding.EncodingError`), a ``RuntimeError`` for a session or a policy that cannot
go on (:class:`~bots.sdk.SessionError`, :class:`~bots.policy.PolicyError`). Not to be confused
with the arena's ``arena.seats.connection.BotError``, the referee's verdict on a failing bot.
"""

from __future__ import annotations


class BotsError(Exception):
    """An error of the SDK or of a built-in bot. Never raised itself: every such error is one of
    its subclasses, each also a ``ValueError`` or a ``RuntimeError``."""
