"""Plays the first legal action every time, but does not exit on quit or at the end of its input:
it sleeps until it is killed. ``gin-arena check-bot`` must fail its 'exits on quit' check."""

from __future__ import annotations

import json
import sys
import time

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        reply = {"type": "ready", "protocol_version": 1, "name": "deaf"}
    elif message["type"] == "request":
        reply = {"type": "reply", "id": message["id"], "action": message["legal"][0]}
    else:
        continue
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
time.sleep(3600)
