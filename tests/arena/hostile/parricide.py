"""A bot that kills the process that started it (its referee, a tournament worker) with SIGKILL
at its first request: possible wherever bots run unsandboxed as the referee's own user."""

from __future__ import annotations

import os
import signal

from _wire import handshake

for message in handshake("parricide"):
    if message["type"] == "request":
        os.kill(os.getppid(), signal.SIGKILL)
