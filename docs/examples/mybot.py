#!/usr/bin/env python3
"""A gin-arena bot in plain Python: every request gets a legal action, a knock when it may."""

import json
import sys

SPEAKS = [1]  # the protocol versions this bot implements


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()  # the referee is waiting for this line


for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        print("ignoring a line that is not JSON:", line.rstrip(), file=sys.stderr)
        continue
    kind = message.get("type") if isinstance(message, dict) else None
    if kind == "hello":
        common = [version for version in message["versions"] if version in SPEAKS]
        if not common:
            print("no common protocol version in", message["versions"], file=sys.stderr)
            sys.exit(2)
        send({"type": "ready", "protocol_version": max(common), "name": "plain-python"})
    elif kind == "request":
        knocks = [action for action in message["legal"] if action["kind"] == "knock"]
        send({"type": "reply", "id": message["id"], "action": (knocks or message["legal"])[0]})
    elif kind == "quit":
        break
    # Every other message (events, and types added later) needs no answer.
