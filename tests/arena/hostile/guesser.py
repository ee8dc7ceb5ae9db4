"""A bot that answers before it is asked: right after ``ready`` it writes a reply for the request
it expects next, with the id it guesses (1), then plays normally. The referee must never take the
early line as the answer, however the two lines cross in the pipes: the reason is ``protocol``."""

from __future__ import annotations

from _wire import handshake, reply, send

guessed = False
for message in handshake("guesser"):
    if not guessed and message["type"] == "game_start":
        send({"type": "reply", "id": 1, "action": {"kind": "pass"}})
        guessed = True
    elif message["type"] == "request":
        reply(message)
