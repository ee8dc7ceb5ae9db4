"""``slow.py SECONDS``: sleeps SECONDS before answering its first request, then answers at once.
Writes the time bank it is told of with each request (``bank_ms=N``) to stderr."""

from __future__ import annotations

import sys
import time

from _wire import handshake, reply

delay = float(sys.argv[1])
for message in handshake("slow"):
    if message["type"] == "request":
        print(f"bank_ms={message['clock']['bank_ms']}", file=sys.stderr, flush=True)
        if delay:
            time.sleep(delay)
            delay = 0.0
        reply(message)
