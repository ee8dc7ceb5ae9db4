"""What the hostile bots share: one JSON object per line each way, and the pid file.

Only the standard library, so the bots start fast and depend on nothing in the repository. Every
bot appends its pid to the file named by ``HOSTILE_PIDFILE`` (when set), so that a test can check
that no bot process outlives its match.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from typing import Any

Message = dict[str, Any]


def note_pid() -> None:
    path = os.environ.get("HOSTILE_PIDFILE")
    if path:
        with open(path, "a", encoding="utf-8") as file:
            file.write(f"{os.getpid()}\n")


def send(message: Message) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def messages() -> Iterator[Message]:
    """Every message from the referee until it closes our stdin."""
    for line in sys.stdin:
        yield json.loads(line)


def ready(name: str, version: int = 1) -> None:
    send({"type": "ready", "protocol_version": version, "name": name})


def reply(request: Message, action: Message | None = None) -> None:
    """Answer ``request`` (by default with its first legal action, which is always legal)."""
    send({"type": "reply", "id": request["id"], "action": action or request["legal"][0]})


def handshake(name: str) -> Iterator[Message]:
    """Note the pid, answer hello, then yield every later message."""
    note_pid()
    stream = messages()
    for message in stream:
        if message["type"] == "hello":
            ready(name)
            break
    yield from stream
