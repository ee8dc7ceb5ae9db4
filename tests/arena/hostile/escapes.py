"""Puts terminal escape sequences in everything it controls: its ``ready`` fields, its stderr and
its replies, so that a test can check that none of them reaches a terminal raw.

``escapes.py`` answers hello with a ready whose name, author, version and ignored events hold
escape sequences, writes some to stderr, plays its first legal action twice, then replies with a
card that is an escape sequence (the referee forfeits it). ``escapes.py startup`` writes escape
sequences to stderr, then answers hello with protocol version 99: it cannot start, and the
referee prints the end of its stderr.
"""

from __future__ import annotations

import sys

from _wire import messages, note_pid, reply, send

HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x9b31m\u202e"
"""A retitle (OSC ... BEL), a clear screen (ESC [ 2J), an 8-bit CSI and a right-to-left override."""

note_pid()
startup = sys.argv[1:] == ["startup"]
sys.stderr.write(f"stderr {HOSTILE} one\n\x1b[31mstderr two\x1b[0m\x07\n")
sys.stderr.flush()
answered = 0
for message in messages():
    if message["type"] == "hello":
        send(
            {
                "type": "ready",
                "protocol_version": 99 if startup else 1,
                "name": f"name{HOSTILE}",
                "author": f"author{HOSTILE}",
                "bot_version": f"version{HOSTILE}",
                "ignores": [f"ignores{HOSTILE}"],
                "extra": f"extra{HOSTILE}",
            }
        )
    elif message["type"] == "request":
        if answered == 2:
            reply(message, {"kind": "discard", "card": HOSTILE})
        else:
            reply(message)
        answered += 1
