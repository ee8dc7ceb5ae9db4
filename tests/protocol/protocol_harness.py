"""Test doubles for the protocol tests: a bot stand-in that records, byte for byte, every line the
referee sends it, and answers from an SDK bot or from a script of actions.

(The module name is unique across the test folders, which are not packages.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from arena.connection import Connection
from bots.sdk import Bot
from protocol import messages as m
from protocol.codec import encode

Answer = Callable[[m.Message], m.Message | None]
"""How a stand-in reacts to a message from the referee: a ready, a reply, or nothing."""


class Scripted(Connection):
    """A connection to nothing: ``answer`` plays the bot. ``received`` holds every line the
    referee sent, exactly as it would travel; ``actions`` every action answered."""

    def __init__(self, name: str, answer: Answer) -> None:
        self.name = name
        self.answer = answer
        self.received: list[bytes] = []
        self.actions: list[m.Action] = []

    def start(self, hello: m.Hello, timeout: float) -> m.Ready:
        self.received.append(encode(hello))
        ready = self.answer(hello)
        assert isinstance(ready, m.Ready)
        return ready

    def send(self, message: m.Message) -> None:
        self.received.append(encode(message))
        assert self.answer(message) is None, f"answered a {message.type} event"

    def ask(self, request: m.Request, timeout: float) -> tuple[m.Reply, float]:
        self.received.append(encode(request))
        reply = self.answer(request)
        assert isinstance(reply, m.Reply)
        self.actions.append(reply.action)
        return reply, 0.0

    def close(self) -> None:
        pass


def sdk_bot(bot: Bot) -> Answer:
    """Answers from an SDK bot, fed the models directly."""
    return bot.handle


def replaying(actions: Sequence[m.Action]) -> Answer:
    """Answers every request with the next of ``actions``, whatever it is asked."""
    script = iter(actions)

    def answer(message: m.Message) -> m.Message | None:
        if isinstance(message, m.Hello):
            return m.Ready(type="ready", protocol_version=1, name="replay")
        if isinstance(message, m.Request):
            return m.Reply(type="reply", id=message.id, action=next(script))
        return None

    return answer
