"""Answers hello, then writes a line that is not a protocol message when nothing was asked (on
game_start), and plays on."""

from __future__ import annotations

import sys

from _wire import handshake, reply

for message in handshake("stray"):
    if message["type"] == "game_start":
        sys.stdout.write("debug: my hand looks good\n")
        sys.stdout.flush()
    elif message["type"] == "request":
        reply(message)
