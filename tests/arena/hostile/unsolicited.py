"""Answers hello, then sends a reply when nothing was asked (on game_start), and plays on."""

from __future__ import annotations

from _wire import handshake, reply, send

for message in handshake("unsolicited"):
    if message["type"] == "game_start":
        send({"type": "reply", "id": 0, "action": {"kind": "draw", "source": "stock"}})
    elif message["type"] == "request":
        reply(message)
