"""Answers its first request with a line that is not a message followed, in the same write, by a
valid reply and a stray message; then logs (on stderr) the type of every message it receives."""

from __future__ import annotations

import json
import sys

from _wire import handshake

burst = False
for message in handshake("burst"):
    print(f"got {message['type']}", file=sys.stderr, flush=True)
    if message["type"] == "request" and not burst:
        burst = True
        good = {"type": "reply", "id": message["id"], "action": message["legal"][0]}
        stray = {"type": "reply", "id": 0, "action": message["legal"][0]}
        sys.stdout.write("oops\n" + json.dumps(good) + "\n" + json.dumps(stray) + "\n")
        sys.stdout.flush()
