"""A bot written for the two-player game only: it plays the first legal action, keeps the seat
``game_start`` gave it (exit 4 if a request names another seat) and treats a message it does not
expect, ``sit_out``, as fatal (exit 3). ``gin-arena check-bot`` shows every hand from the bot's
own seat, so it passes every check but the three-player sit-out, which it must fail as a crash."""

from __future__ import annotations

import json
import sys

seat = 0
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        reply = {"type": "ready", "protocol_version": 1, "name": "seat-bound"}
    elif kind == "game_start":
        seat = message["seat"]
        continue
    elif kind == "sit_out":
        sys.exit(3)
    elif kind == "request":
        if message["observation"]["seat"] != seat:
            sys.exit(4)
        reply = {"type": "reply", "id": message["id"], "action": message["legal"][0]}
    elif kind == "quit":
        break
    else:
        continue
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
