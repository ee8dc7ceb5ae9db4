"""Answers hello, then replies to each request with an id that is not the request's."""

from __future__ import annotations

from _wire import handshake, send

for message in handshake("wrong-id"):
    if message["type"] == "request":
        send({"type": "reply", "id": message["id"] + 1, "action": message["legal"][0]})
