"""Plays properly, but first starts two processes that leave its process group: a grandchild that
moves to a session of its own (``setsid``) under a child that stays in the group, and a daemon
that forks twice (its middle process exits, so init, or the referee as subreaper, adopts it).

Their pids (as the bot sees them) are appended to ``$HOSTILE_CHILDFILE``, the grandchild's first;
each escapee runs ``python -c ... TOKEN`` with TOKEN from ``$HOSTILE_TOKEN``, so that a test can
find them from outside a PID namespace by their command line.
"""

from __future__ import annotations

import os
import sys
import time

from _wire import handshake, reply

TOKEN = os.environ.get("HOSTILE_TOKEN", "gin-arena-escapee")
SLEEPER = [sys.executable, "-c", "import time; time.sleep(600)", TOKEN]


def sleep_forever() -> None:
    os.execv(sys.executable, SLEEPER)


def setsid_grandchild(pipe: int) -> int:
    child = os.fork()
    if child == 0:  # the child: stays in the bot's group
        grandchild = os.fork()
        if grandchild == 0:
            os.setsid()
            sleep_forever()
        os.write(pipe, f"{grandchild}\n".encode())
        sleep_forever()
    return child


def sleeping(pid: int) -> bool:
    """Whether ``pid`` runs the sleeper yet (the referee stops a bot's processes between its
    moves: the escapees must be in place before the bot says it is ready)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            return TOKEN.encode() in file.read()
    except OSError:
        return False


def daemon(pipe: int) -> None:
    middle = os.fork()
    if middle == 0:
        os.setsid()
        second = os.fork()
        if second == 0:
            sleep_forever()
        os.write(pipe, f"{second}\n".encode())
        os._exit(0)
    os.waitpid(middle, 0)


read_end, write_end = os.pipe()
child = setsid_grandchild(write_end)
daemon(write_end)
os.close(write_end)
pids = []
with os.fdopen(read_end) as pipe:
    while len(pids) < 2:
        pids.append(int(pipe.readline()))
deadline = time.monotonic() + 30
while not all(map(sleeping, [child, *pids])) and time.monotonic() < deadline:
    time.sleep(0.01)
path = os.environ.get("HOSTILE_CHILDFILE")
if path:
    with open(path, "a", encoding="utf-8") as file:
        file.write("".join(f"{pid}\n" for pid in pids))

for message in handshake("escape"):
    if message["type"] == "request":
        reply(message)
