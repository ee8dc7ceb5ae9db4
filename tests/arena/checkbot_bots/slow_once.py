"""``slow_once.py MARKER SECONDS``: plays the first legal action at once, but sleeps SECONDS
before answering its first ``draw`` request, once over all its runs (it creates the file MARKER
when it does): ``gin-arena check-bot`` must name that request and count it as timed out."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

marker, delay = Path(sys.argv[1]), float(sys.argv[2])
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        reply = {"type": "ready", "protocol_version": 1, "name": "slow once"}
    elif message["type"] == "request":
        if message["phase"] == "draw" and not marker.exists():
            marker.touch()
            time.sleep(delay)
        reply = {"type": "reply", "id": message["id"], "action": message["legal"][0]}
    elif message["type"] == "quit":
        break
    else:
        continue
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
