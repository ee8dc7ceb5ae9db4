"""Connections to bots, and the failures a bot can commit.

A :class:`Connection` carries protocol messages to one bot and its replies back, with every wait
bounded. :class:`InProcessConnection` runs a built-in Python bot in this process, handing it the
typed messages themselves, on the same referee code path as a subprocess bot
(:mod:`arena.seats.process`)
for the rules, the checks of its replies and its failures. Both log every line they carry when
the wire is logged (:mod:`arena.seats.wire`).
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from typing import ClassVar

from arena.errors import ArenaError
from arena.seats import wire
from arena.seats.output import StderrTail
from bots.sdk import Bot, View
from engine.hand import Action as EngineAction
from protocol import messages as m
from protocol.codec import ProtocolError, decode, encode, quote
from protocol.convert import engine_action, own_action
from protocol.views import PLAIN, Decision, RequestForm, request_model


class BotError(ArenaError, RuntimeError):
    """A bot failed. ``reason`` is the stable name used in results and records."""

    reason: ClassVar[str] = "error"

    def __init__(self, message: str, bot: str = "") -> None:
        super().__init__(f"{bot}: {message}" if bot else message)
        self.bot = bot
        self.detail = message
        self.seat: int | None = None  # set by the referee


class BotStartupError(BotError):
    """The bot could not be started, or did not complete the handshake in time."""

    reason = "startup"


class BotTimeout(BotError):
    """The bot did not answer within its move time, grace and time bank."""

    reason = "timeout"


class BotCrashed(BotError):
    """The bot exited or closed its stdout."""

    reason = "crash"


class MalformedMessage(BotError):
    """The bot sent a line that is not a valid protocol message (the text is quoted)."""

    reason = "malformed"


class ProtocolViolation(BotError):
    """The bot sent a valid message at the wrong time: a wrong id, a reply to nothing, a second
    hello, an unsupported protocol version."""

    reason = "protocol"


class IllegalMove(BotError):
    """The bot's action is not legal now (``rule`` is the rule ID it breaks)."""

    reason = "illegal"

    def __init__(self, message: str, bot: str = "", rule: str = "") -> None:
        super().__init__(message, bot)
        self.rule = rule


FAILURE_REASONS: tuple[str, ...] = (
    BotStartupError.reason,
    BotTimeout.reason,
    BotCrashed.reason,
    MalformedMessage.reason,
    ProtocolViolation.reason,
    IllegalMove.reason,
)


class Connection(ABC):
    """One bot, as the referee sees it."""

    name: str
    form: RequestForm = PLAIN
    """The form of the bot's requests, as its ``ready`` asked (set once it has started)."""
    _starting: tuple[m.Hello, float]
    stderr_tail: StderrTail | None = None
    """The end of the bot's stderr, for a process once started (:mod:`arena.seats.last_words`);
    None for a bot in this process, which has none."""

    @abstractmethod
    def start(self, hello: m.Hello, timeout: float) -> m.Ready:
        """Start the bot and complete the handshake within ``timeout`` seconds."""

    def begin(self, hello: m.Hello, timeout: float) -> None:
        """The first half of :meth:`start`: the bot started, not waited for, so that bots begun
        one after another boot side by side (:func:`start_together`). Here nothing starts
        before :meth:`finish_start`; a bot process starts now."""
        self._starting = (hello, timeout)

    def finish_start(self) -> m.Ready:
        """The second half of :meth:`start`: the handshake, within the time :meth:`begin` was
        given (counted from then)."""
        hello, timeout = self._starting
        return self.start(hello, timeout)

    @abstractmethod
    def send(self, message: m.Message) -> None:
        """Send an event (no reply expected)."""

    @abstractmethod
    def ask(self, request: m.Request, timeout: float) -> tuple[m.Reply, float]:
        """Send a request; return the reply and the seconds from sending to the full reply.
        Raises a :class:`BotError` subclass on failure."""

    def decide(self, decision: Decision) -> tuple[EngineAction, float]:
        """Ask the bot to act: send the request of ``decision`` (:meth:`ask`, with the time
        ``decision.free + decision.bank``) and return the action it chose, as the engine's, with
        the seconds it took. Its legality is the referee's to check."""
        request = request_model(decision, self.form.start(decision))
        reply, elapsed = self.ask(request, decision.free + decision.bank)
        return engine_action(reply.action), elapsed

    @abstractmethod
    def close(self) -> None:
        """Stop the bot, leaving nothing behind. Safe to call twice."""

    def part(self) -> bool:
        """Tell the bot to quit without waiting for it (:meth:`close` waits): bots told one
        after another end side by side (:func:`close_together`). Whether it was told."""
        return False

    def heeds(self, kind: str) -> bool:
        """Whether events of this ``type`` can change anything the bot does: always for a
        process; the referee need not build an event nobody heeds."""
        return True

    def flush(self) -> None:  # noqa: B027 - a no-op where events are not held
        """Deliver the events held back to go with the next request (the referee calls it at the
        end of every game)."""

    def discard_pending(self) -> None:  # noqa: B027 - a no-op where nothing can be pending
        """Drop whatever the bot has written and the referee has not read yet (after a failure,
        so that the ``error`` and ``game_end`` notices still reach it)."""

    @property
    def log_path(self) -> str | None:
        """Where the bot's stderr went, if anywhere."""
        return None


def start_together(
    connections: Sequence[Connection], hellos: Sequence[m.Hello], timeout: float
) -> list[m.Ready | BotError]:
    """Start the bots side by side: each begun (its process started), then each handshake
    completed, within ``timeout`` seconds of its start; a bot's boot overlaps the others'
    (bots that take 200 ms each start in 200 ms, not 200 ms a bot). Each bot's ``ready``, or the
    :class:`BotError` it failed with (the caller closes every connection it was given)."""
    out: list[m.Ready | BotError | None] = [None] * len(connections)
    for index, (connection, hello) in enumerate(zip(connections, hellos, strict=True)):
        try:
            connection.begin(hello, timeout)
        except BotError as error:
            out[index] = error
    for index, connection in enumerate(connections):
        if out[index] is None:
            try:
                out[index] = connection.finish_start()
            except BotError as error:
                out[index] = error
    return [item for item in out if item is not None]


def close_together(connections: Iterable[Connection]) -> None:
    """Close the bots side by side: each told to quit, then each waited for and closed."""
    parted = list(connections)
    for connection in parted:
        connection.part()
    for connection in parted:
        connection.close()


def check_ready(message: m.Message, hello: m.Hello, bot: str) -> m.Ready:
    """Validate the bot's answer to hello."""
    if not isinstance(message, m.Ready):
        raise ProtocolViolation(f"expected a ready message, got {message.type}", bot)
    if message.protocol_version not in hello.versions:
        raise ProtocolViolation(
            f"chose protocol version {message.protocol_version}, but the referee speaks "
            f"{hello.versions}",
            bot,
        )
    return message


def check_reply(message: m.Message, request_id: int, bot: str) -> m.Reply:
    """Validate a reply against the id of the request it answers."""
    if not isinstance(message, m.Reply):
        raise ProtocolViolation(
            f"expected a reply to request {request_id}, got {message.type}", bot
        )
    if message.id != request_id:
        raise ProtocolViolation(
            f"reply has id {message.id}, but the open request is {request_id}", bot
        )
    return message


def decode_bot_line(line: bytes, bot: str) -> m.Message:
    try:
        return decode(line)
    except ProtocolError as error:
        raise MalformedMessage(str(error), bot) from None


class InProcessConnection(Connection):
    """A built-in Python bot run in this process. It is handed the referee's typed messages
    themselves (immutable pydantic models, the same objects a subprocess bot's SDK would decode
    from their JSON) and its replies are taken as objects, so no JSON is written or parsed unless
    the wire is logged (then every line is encoded for the log, as a subprocess bot's would be).
    Its replies go through the same checks as a subprocess bot's (:func:`check_ready`,
    :func:`check_reply`, then the engine's rules). A move is judged on the CPU time of this
    thread while the bot works (``time.thread_time``), not the wall clock, so that a loaded
    machine or other games running at once do not cost it; it cannot be interrupted, so an
    overrun is judged when the bot returns. (A move decided within its free time on the wall
    clock is charged that: its CPU time can only be less, and it is not read.)"""

    def __init__(self, name: str, factory: Callable[[], Bot]) -> None:
        self.name = name
        self._factory = factory
        self._bot: Bot | None = None
        self._ignored: frozenset[str] = frozenset()
        self._direct = False

    def heeds(self, kind: str) -> bool:
        """False for an event the bot ignores: its class leaves both :meth:`Bot.handle` and the
        event's hook (``on_played`` for ``played``...) as the SDK defines them, which do nothing
        with it. Handing it over would change nothing; the wire log, when on, still gets it."""
        return kind not in self._ignored or wire.enabled()

    def _deliver(self, message: m.Message) -> m.Message | None:
        assert self._bot is not None
        tapped = wire.enabled()  # once: this is the hot path of in-process matches
        if tapped:
            wire.sent(self.name, encode(message))
        try:
            reply = self._bot.handle(message)
        except Exception as error:  # a built-in bot that raises has crashed
            raise BotCrashed(f"raised {type(error).__name__}: {error}", self.name) from error
        if reply is None:
            return None
        if tapped:
            wire.received(self.name, encode(reply))
        return reply

    def start(self, hello: m.Hello, timeout: float) -> m.Ready:
        try:
            self._bot = self._factory()
        except Exception as error:
            raise BotStartupError(f"could not be created: {error}", self.name) from error
        self._ignored = type(self._bot).ignored_events()
        self._direct = type(self._bot).answers_directly()
        answer = self._deliver(hello)
        if answer is None:
            raise BotStartupError("did not answer hello", self.name)
        try:
            ready = check_ready(answer, hello, self.name)
        except ProtocolViolation as error:
            raise BotStartupError(error.detail, self.name) from None
        self.form = RequestForm(ready.form == "compact")
        return ready

    def send(self, message: m.Message) -> None:
        if self._bot is None:
            raise BotCrashed("is not running", self.name)
        if self._deliver(message) is not None:
            raise ProtocolViolation(f"replied to a {message.type} event", self.name)

    def ask(self, request: m.Request, timeout: float) -> tuple[m.Reply, float]:
        if self._bot is None:
            raise BotCrashed("is not running", self.name)
        start = time.thread_time()
        answer = self._deliver(request)
        elapsed = time.thread_time() - start
        if answer is None:
            raise ProtocolViolation(f"did not reply to request {request.id}", self.name)
        if elapsed > timeout:
            raise BotTimeout(
                f"used {elapsed:.3f} s of CPU time, over the limit of {timeout:.3f} s", self.name
            )
        return check_reply(answer, request.id, self.name), elapsed

    def decide(self, decision: Decision) -> tuple[EngineAction, float]:
        """A bot that answers requests through :meth:`Bot.choose` alone
        (:meth:`Bot.answers_directly`) is shown the decision as a :class:`View` straight from
        the engine's observation, and its action is taken as the engine's: no request or reply
        message is made (but for the wire log, when on). Any other bot is asked the request
        message. The failures are the same either way: an exception is a crash, an action that
        is not one is what the SDK would have failed to send (a crash), the clock the same."""
        bot = self._bot
        if not self._direct or bot is None or wire.enabled():
            return super().decide(decision)
        view = View.of_decision(decision, bot.rules)
        start = time.thread_time()
        wall = time.perf_counter()
        try:
            action = own_action(bot.choose(view))
        except Exception as error:  # a built-in bot that raises has crashed
            raise BotCrashed(f"raised {type(error).__name__}: {error}", self.name) from error
        elapsed = time.perf_counter() - wall
        if elapsed > decision.free:  # only then can its CPU time matter: it is never more
            elapsed = time.thread_time() - start
        timeout = decision.free + decision.bank
        if elapsed > timeout:
            raise BotTimeout(
                f"used {elapsed:.3f} s of CPU time, over the limit of {timeout:.3f} s", self.name
            )
        return action, elapsed

    def close(self) -> None:
        self._bot = None


__all__ = [
    "FAILURE_REASONS",
    "BotCrashed",
    "BotError",
    "BotStartupError",
    "BotTimeout",
    "Connection",
    "IllegalMove",
    "InProcessConnection",
    "MalformedMessage",
    "ProtocolViolation",
    "quote",
]
