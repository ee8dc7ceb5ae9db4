"""A bot's last words: the end of its stderr, added to the message of a game it forfeited by
crashing or by breaking the protocol.

A bot that dies usually says why on its stderr (a Perl ``die``, a Python traceback's last line),
and the message of its failure alone (``exited with code 255``) does not. The stderr goes to a
log that only ``--logs DIR`` keeps, and processes of one bot may share it; so each process keeps
the end of its own stderr in memory (:class:`arena.seats.output.StderrTail`), and the referee asks
:func:`forfeit_message` once, where it builds the failure: every printer of a forfeit (``match``,
a tournament's lines, a league's standings, the game rows of a database) then shows the same
words. They are quoted (:func:`protocol.codec.quote`: control characters escaped) and bounded:
at most :data:`LINES` lines of at most :data:`LINE_CHARACTERS` characters.
"""

from __future__ import annotations

from typing import Final

from arena.seats.connection import (
    BotCrashed,
    BotError,
    Connection,
    MalformedMessage,
    ProtocolViolation,
)
from protocol.codec import quote

LINES: Final = 2
"""The lines of its stderr a message quotes, at most: the last ones that are not blank."""
LINE_CHARACTERS: Final = 120
"""The characters of each line a message quotes, at most (a longer one is cut, ``...``)."""
REASONS: Final = (BotCrashed.reason, MalformedMessage.reason, ProtocolViolation.reason)
"""The failures whose messages carry the bot's last words: a crash and the protocol errors (a
bot that times out or plays an illegal action is still running; its stderr tells less)."""
ENDED_WAIT: Final = 1.0
"""How long, at most, the referee waits for a crashed bot's stderr to end (its last words to be
read): the process is gone, so the end comes at once unless a child of it holds the stderr."""
QUIET_WAIT: Final = (0.25, 0.05)
"""For a bot that is still running (a protocol error): wait at most 0.25 s, until its stderr has
been quiet for 0.05 s."""


def forfeit_message(error: BotError, connection: Connection) -> str:
    """The message of a game forfeited for ``error`` by the bot on ``connection``: the error's
    detail, with the bot's last words for a crash or a protocol error (:data:`REASONS`)."""
    if error.reason not in REASONS:
        return error.detail
    return error.detail + last_words(connection, ended=error.reason == BotCrashed.reason)


def last_words(connection: Connection, *, ended: bool) -> str:
    """What to add to a failure's message about the bot's stderr: its last lines quoted; or
    that it wrote nothing; or, when the stderr was not kept, that ``--logs DIR`` keeps it; ``""``
    for a bot in this process, which has no stderr (its exception is its message). ``ended``:
    the bot has crashed, so its stderr is about to end (waited for, :data:`ENDED_WAIT`)."""
    tail = connection.stderr_tail
    if tail is None:
        return (
            ""
            if connection.log_path is None
            else ("; its stderr was not kept (rerun with --logs DIR to keep it)")
        )
    if ended:
        tail.settle(ENDED_WAIT, quiet=ENDED_WAIT)
    else:
        tail.settle(QUIET_WAIT[0], quiet=QUIET_WAIT[1])
    lines, written = tail.lines(LINES)
    if not lines:
        blank = " but blank lines" if written else ""
        return f"; it wrote nothing{blank} on its stderr"
    words = " / ".join(quote(line, LINE_CHARACTERS) for line in lines)
    return f"; its last words on stderr: {words}"


__all__ = ["LINES", "LINE_CHARACTERS", "REASONS", "forfeit_message", "last_words"]
