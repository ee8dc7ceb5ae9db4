"""Answers hello and its first two requests, then exits with code 3 in the middle of the hand."""

from __future__ import annotations

import sys

from _wire import handshake, reply

answered = 0
for message in handshake("crash"):
    if message["type"] == "request":
        if answered == 2:
            print("crash: exiting mid-hand", file=sys.stderr)
            sys.exit(3)
        reply(message)
        answered += 1
