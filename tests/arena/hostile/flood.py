"""Answers hello, then floods stderr (``flood.py BYTES``, default 3 MiB), stops reading stdin and
never answers again."""

from __future__ import annotations

import sys
import time

from _wire import note_pid, ready

note_pid()
sys.stdin.readline()  # hello
ready("flood")
size = int(sys.argv[1]) if len(sys.argv) > 1 else 3 << 20
chunk = b"flood " * 10_000 + b"\n"
written = 0
while written < size:
    sys.stderr.buffer.write(chunk)
    written += len(chunk)
sys.stderr.buffer.flush()
time.sleep(86400)
