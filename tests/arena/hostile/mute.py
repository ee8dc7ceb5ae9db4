"""Answers hello, then reads every message and never answers a request."""

from __future__ import annotations

from _wire import handshake

for _ in handshake("mute"):
    pass
