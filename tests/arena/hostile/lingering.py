"""``lingering.py SECONDS``: answers hello, then on quit (or the end of its input) waits SECONDS
before it exits (a Python bot with a slow shutdown)."""

from __future__ import annotations

import sys
import time

from _wire import handshake

delay = float(sys.argv[1])
for message in handshake("lingering"):
    if message["type"] == "quit":
        break
time.sleep(delay)
