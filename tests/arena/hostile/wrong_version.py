"""Answers hello choosing protocol version 99, which the referee does not offer."""

from __future__ import annotations

import sys

from _wire import note_pid, ready

note_pid()
sys.stdin.readline()  # hello
ready("wrong-version", version=99)
for _ in sys.stdin:
    pass
