"""Plays properly, but first looks around for what a bot must not see, and reports all it found
as one line ``SNOOP {json}`` on stderr (its log):

- ``procs``: every process in /proc with its command line and environment (where readable);
- ``parent``: its parent's pid and command line;
- ``env``: its own environment; ``fds``: its open file descriptors and what they lead to;
- ``dirs``: its working directory and each directory above it, with their listings;
- ``targets``: for each path of ``$SNOOP_TARGETS`` (a JSON list), the listing of a directory or
  the first bytes of a file, or the error;
- ``connect``: what a TCP connection to 127.0.0.1 port ``$SNOOP_PORT`` gave.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from typing import Any

from _wire import handshake, reply


def read(path: str, limit: int = 4096) -> str:
    try:
        with open(path, "rb") as file:
            return file.read(limit).decode("utf-8", "replace")
    except OSError as error:
        return f"error: {error.strerror}"


def listing(path: str) -> list[str] | str:
    try:
        return sorted(os.listdir(path))
    except OSError as error:
        return f"error: {error.strerror}"


def look(path: str) -> Any:
    if os.path.isdir(path):
        return {"dir": listing(path)}
    return {"file": read(path)}


def processes() -> dict[str, dict[str, str]]:
    found = {}
    for entry in listing("/proc"):
        if entry.isdigit():
            found[entry] = {
                "cmdline": read(f"/proc/{entry}/cmdline").replace("\0", " "),
                "environ": read(f"/proc/{entry}/environ", 65536).replace("\0", " "),
            }
    return found


def descriptors() -> dict[str, str]:
    out = {}
    for fd in listing("/proc/self/fd"):
        try:
            out[fd] = os.readlink(f"/proc/self/fd/{fd}")
        except OSError as error:
            out[fd] = f"error: {error.strerror}"
    return out


def directories() -> dict[str, Any]:
    out: dict[str, Any] = {}
    path = os.getcwd()
    while True:
        out[path] = listing(path)
        if path == "/":
            return out
        path = os.path.dirname(path)


def connect() -> str:
    port = os.environ.get("SNOOP_PORT")
    if not port:
        return "not tried"
    try:
        with socket.create_connection(("127.0.0.1", int(port)), timeout=3) as conn:
            conn.sendall(b"hello from a bot\n")
        return "connected"
    except OSError as error:
        return f"error: {error}"


def snoop() -> dict[str, Any]:
    targets = json.loads(os.environ.get("SNOOP_TARGETS", "[]"))
    ppid = os.getppid()
    return {
        "pid": os.getpid(),
        "procs": processes(),
        "parent": {"pid": ppid, "cmdline": read(f"/proc/{ppid}/cmdline").replace("\0", " ")},
        "env": dict(os.environ),
        "fds": descriptors(),
        "cwd": os.getcwd(),
        "dirs": directories(),
        "targets": {path: look(path) for path in targets},
        "connect": connect(),
    }


print("SNOOP " + json.dumps(snoop()), file=sys.stderr, flush=True)
for message in handshake("snoop"):
    if message["type"] == "request":
        reply(message)
