"""A bot that asks for the compact form and cannot do without it: a request with no
``history_from`` (a plain one) makes it exit. It plays the first legal action."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        reply = {"type": "ready", "protocol_version": 1, "name": "compact-only", "form": "compact"}
    elif message["type"] == "request":
        if "history_from" not in message["observation"]:
            sys.exit("compact-only: a request without history_from")
        reply = {"type": "reply", "id": message["id"], "action": message["legal"][0]}
    elif message["type"] == "quit":
        break
    else:
        continue
    print(json.dumps(reply), flush=True)
