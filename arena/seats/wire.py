"""The wire: every line between the referee and a bot, through the standard :mod:`logging` module.

Both kinds of connection (:class:`arena.seats.connection.InProcessConnection` and
:class:`arena.seats.process.ProcessConnection`) log each line they write to a bot or read from it on
the logger ``arena.seats.wire`` at DEBUG, as ``NAME >> LINE`` (to the bot) or ``NAME << LINE`` (from
it), the line quoted and cut to :data:`QUOTE_LIMIT` characters. A record also carries the line's
bytes exactly as they travelled (``record.line``), the bot's name (``record.bot``) and the
direction (``record.direction``); ``record.created`` is when the line was written or read (a
process bot's lines are logged by the thread that reads them, as they arrive). Nothing is built
while the logger is off (the default), so the wire costs nothing unless someone listens.

Three ways to listen:

- ``gin-arena match|tournament|check-bot ... --log-wire FILE`` (``-``: standard error), or the
  environment variable ``GIN_ARENA_LOG_WIRE=FILE``, which tournament workers read too
  (:func:`enable`);
- :func:`tap`, which collects the lines while a block runs (the bot checker, the transcript in
  docs/PROTOCOL.md, the tests);
- any handler of your own on ``logging.getLogger("arena.seats.wire")`` with the level at DEBUG.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from protocol import messages as m
from protocol.codec import decode, quote

log: Final = logging.getLogger("arena.seats.wire")
DEBUG: Final = logging.DEBUG
TO_BOT: Final = ">>"
FROM_BOT: Final = "<<"
ENV: Final = "GIN_ARENA_LOG_WIRE"
"""The environment variable naming where the wire goes when no ``--log-wire`` is given."""
QUOTE_LIMIT: Final = 4096
"""The characters of a line shown in a log message (the referee's own lines are shorter; a bot's
may be garbage up to the 64 KiB line limit). The record's ``line`` keeps all of it."""
FORMAT: Final = "%(asctime)s.%(msecs)03d [%(process)d] %(message)s"

Direction = Literal[">>", "<<"]


def enabled() -> bool:
    """Whether anyone listens: check it before building a line to log (the hot path)."""
    return log.isEnabledFor(DEBUG)


class _Quoted:
    """A line as log text, quoted only when a handler formats the message."""

    __slots__ = ("line",)

    def __init__(self, line: bytes) -> None:
        self.line = line

    def __str__(self) -> str:
        return quote(self.line.rstrip(b"\n"), QUOTE_LIMIT)


def _log(bot: str, direction: Direction, line: bytes) -> None:
    # log.debug() without its search of the stack for the caller's file and line, which would
    # name this module anyway: a quarter of the cost of a line.
    record = log.makeRecord(
        log.name,
        DEBUG,
        __file__,
        0,
        "%s %s %s",
        (bot, direction, _Quoted(line)),
        None,
        extra={"bot": bot, "direction": direction, "line": line},
    )
    log.handle(record)


def sent(bot: str, line: bytes) -> None:
    """Log ``line``, written to ``bot``. Call it only when :func:`enabled`."""
    _log(bot, TO_BOT, line)


def received(bot: str, line: bytes) -> None:
    """Log ``line``, read from ``bot``. Call it only when :func:`enabled`."""
    _log(bot, FROM_BOT, line)


@dataclass(frozen=True, slots=True)
class WireLine:
    """One line on the wire, as :func:`tap` collects it."""

    bot: str
    direction: Direction
    line: bytes
    """Exactly as it travelled, its line end included (a bot's line cut at the line limit)."""
    time: float
    """When it was written or read (``time.time()``)."""

    @property
    def text(self) -> str:
        """The line as text, without its line end."""
        return self.line.decode("utf-8", errors="replace").rstrip("\r\n")

    def message(self) -> m.Message:
        """The line decoded (raises :class:`protocol.codec.ProtocolError` if it is not one)."""
        return decode(self.line)


class _Collector(logging.Handler):
    def __init__(self, lines: list[WireLine], bot: str | None) -> None:
        super().__init__(DEBUG)
        self.lines = lines
        self.bot = bot

    def emit(self, record: logging.LogRecord) -> None:
        bot: str | None = getattr(record, "bot", None)
        line: bytes | None = getattr(record, "line", None)
        if bot is None or line is None or (self.bot is not None and bot != self.bot):
            return
        self.lines.append(WireLine(bot, getattr(record, "direction", TO_BOT), line, record.created))


class _Listeners:
    """Who listens through this module: the taps and the target of :func:`enable`. The first
    turns the logger on (saving its level and propagation), the last restores them; a wire turned
    on only for us stays out of the root logger's handlers."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.count = 0
        self.saved = (logging.NOTSET, True)
        self.target: tuple[str, logging.Handler] | None = None

    def add(self) -> None:
        with self.lock:
            if self.count == 0:
                self.saved = (log.level, log.propagate)
                if not log.isEnabledFor(DEBUG):
                    log.setLevel(DEBUG)
                    log.propagate = False
            self.count += 1

    def remove(self) -> None:
        with self.lock:
            self.count -= 1
            if self.count == 0:
                log.setLevel(self.saved[0])
                log.propagate = self.saved[1]


_listeners = _Listeners()


@contextlib.contextmanager
def tap(bot: str | None = None) -> Iterator[list[WireLine]]:
    """Collect every line on the wire (of the bot named ``bot`` only, if given) while the block
    runs, in the order they were logged::

        with wire.tap() as lines:
            referee.play_game(connections, seed)
        sent = [line.message() for line in lines if line.direction == wire.TO_BOT]
    """
    lines: list[WireLine] = []
    collector = _Collector(lines, bot)
    _listeners.add()
    log.addHandler(collector)
    try:
        yield lines
    finally:
        log.removeHandler(collector)
        _listeners.remove()


def enable(target: str | None = None) -> None:
    """Write the wire to ``target``: a file (appended to) or ``-`` for standard error; without a
    target, to the one :data:`ENV` names, if it is set (a no-op otherwise). The target is put in
    :data:`ENV`, so that the processes started from here on (tournament workers, which call this
    at start) write there too; bots never see it (:func:`arena.seats.launch.minimal_env`). Raises
    :class:`ValueError` naming the file if it cannot be opened. Calling it again with another
    target moves the wire there."""
    if target is None:
        target = os.environ.get(ENV) or None
        if target is None:
            return
    if target != "-":
        target = os.path.abspath(target)
    current = _listeners.target
    if current is not None and current[0] == target:
        return
    handler: logging.Handler
    if target == "-":
        handler = logging.StreamHandler(sys.stderr)
    else:
        try:
            handler = logging.FileHandler(target, encoding="utf-8")
        except OSError as error:
            raise ValueError(
                f"--log-wire: cannot write {target!r}: {error.strerror or error}"
            ) from None
    handler.setFormatter(logging.Formatter(FORMAT, datefmt="%Y-%m-%d %H:%M:%S"))
    handler.setLevel(DEBUG)
    if current is None:
        _listeners.add()
    else:
        log.removeHandler(current[1])
        current[1].close()
    log.addHandler(handler)
    _listeners.target = (target, handler)
    os.environ[ENV] = target


def target_file() -> Path | None:
    """The file the wire is written to (:func:`enable`), if any: a sandboxed bot never sees it
    (:mod:`arena.seats.walls.sandbox`)."""
    current = _listeners.target
    if current is None or current[0] == "-":
        return None
    return Path(current[0])


def disable() -> None:
    """Stop writing the wire where :func:`enable` sent it, and take it out of :data:`ENV`."""
    current = _listeners.target
    if current is None:
        return
    log.removeHandler(current[1])
    current[1].close()
    _listeners.target = None
    _listeners.remove()
    os.environ.pop(ENV, None)


def add_wire_argument(parser: argparse.ArgumentParser) -> None:
    """Declare ``--log-wire FILE`` (pass its value to :func:`enable`)."""
    parser.add_argument(
        "--log-wire",
        metavar="FILE",
        help=f"log every line sent to and read from the bots, with the time, to FILE (appended "
        f"to; '-': standard error); default: ${ENV} if set",
    )


__all__ = [
    "ENV",
    "FROM_BOT",
    "TO_BOT",
    "WireLine",
    "add_wire_argument",
    "disable",
    "enable",
    "enabled",
    "log",
    "received",
    "sent",
    "tap",
    "target_file",
]
