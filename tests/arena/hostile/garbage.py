"""Answers hello, then prints garbage instead of a reply: ``garbage.py`` a short line,
``garbage.py long`` a 5,000-character line, ``garbage.py huge`` a line over the 64 KiB limit."""

from __future__ import annotations

import sys

from _wire import handshake

size = {"long": 5_000, "huge": 100_000}.get(sys.argv[1] if len(sys.argv) > 1 else "", 0)
line = "I fold! {not json" if not size else "x" * size
for message in handshake("garbage"):
    if message["type"] == "request":
        sys.stdout.write(line + "\n")
        sys.stdout.flush()
