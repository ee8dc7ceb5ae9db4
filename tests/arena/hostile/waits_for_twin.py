"""Not hostile: a bot that starts, and ends, only beside its twin. Run as ``waits_for_twin.py
FOLDER ME TWIN``: before it reads hello it marks ``FOLDER/ME.booted`` and waits (up to a minute)
for ``FOLDER/TWIN.booted``; on quit it marks ``FOLDER/ME.quit`` and waits for ``TWIN.quit``
before it exits. Two of them in one match start and end only if the referee starts both before
it waits for either (and tells both to quit before it waits for either to end): one at a time,
the first waits for a twin not started yet, until its start-up time is up."""

from __future__ import annotations

import os
import sys
import time

from _wire import messages, ready, reply

folder, me, twin = sys.argv[1:4]


def meet(mark: str) -> None:
    with open(os.path.join(folder, f"{me}.{mark}"), "w", encoding="utf-8"):
        pass
    give_up = time.monotonic() + 60
    while not os.path.exists(os.path.join(folder, f"{twin}.{mark}")):
        if time.monotonic() > give_up:
            sys.exit(f"{me}: no twin seen at {mark}")
        time.sleep(0.01)


meet("booted")
for message in messages():
    if message["type"] == "hello":
        ready(me)
    elif message["type"] == "request":
        reply(message)
    elif message["type"] == "quit":
        meet("quit")
        sys.exit(0)
