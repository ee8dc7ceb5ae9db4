"""Plays an illegal discard. ``illegal.py held``: discards a card it does not hold (R7).
``illegal.py taken``: takes the top of the discard pile whenever it may and discards that very card
in the same turn (R8, under rules that forbid it)."""

from __future__ import annotations

import sys

from _wire import handshake, reply

RANKS, SUITS = "A23456789TJQK", "CDHS"
mode = sys.argv[1]
for message in handshake(f"illegal-{mode}"):
    if message["type"] != "request":
        continue
    take = {"kind": "draw", "source": "discard"}
    if message["phase"] != "discard":
        reply(message, take if take in message["legal"] else None)
        continue
    observation = message["observation"]
    if mode == "taken" and observation.get("taken_card"):
        card = observation["taken_card"]
    else:
        held = set(observation["hand"])
        card = next(r + s for s in SUITS for r in RANKS if r + s not in held)
    reply(message, {"kind": "discard", "card": card})
