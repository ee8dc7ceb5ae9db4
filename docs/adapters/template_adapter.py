"""A conformance adapter to start from: put your engine behind gin-arena's conformance kit.

Run it as the kit does:

    gin-arena conformance --engine "python docs/adapters/template_adapter.py"

As shipped it answers one op for real, ``meld`` (whether some cards form one meld, R1 and R3), and
declares in ``hello`` that it has nothing else, so every other case is skipped with one line a
reason and the run passes. Make it yours op by op, following docs/CONFORMANCE.md:

1. In ``ENGINE_NAME`` and ``CAPABILITIES`` say what your engine is and what it has.
2. Replace ``Adapter.meld`` with a call into your engine; add a method per op you support
   (``hand``, ``apply``, ``legal``, ``state``, ``result``, ``deadwood``, ``showdown``, ...), named
   as the op, and list the op in ``CAPABILITIES["ops"]``.
3. Answer ``illegal`` (with ``rule`` if your engine knows it) for an action your engine refuses,
   ``unsupported`` only for what it truly cannot express, ``bad_request`` for anything else.

It needs nothing but Python 3.10 or later, and reads and writes one JSON object a line.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

ENGINE_NAME = "template"
ENGINE_VERSION = "0"
CAPABILITIES: dict[str, Any] = {
    "ops": ["meld"],  # add each op you implement
    # "modes": ["two-player"],
    # "first_upcard": False,
    # "rule_ids": False,
    # "result_keys": ["end", "winner", "points"],
}
NOTES = ["the template adapter: only the meld op is implemented"]

RANKS = "A23456789TJQK"
SUITS = "CDHS"

Response = dict[str, Any]


class BadRequest(Exception):
    """A request this adapter cannot read: answered ``bad_request``."""


def card(name: object) -> tuple[int, int]:
    """``"7H"`` -> (rank 6, suit 2): ranks A=0 .. K=12, suits C D H S."""
    if not isinstance(name, str) or len(name) != 2:
        raise BadRequest(f"not a card: {name!r}")
    rank, suit = RANKS.find(name[0].upper()), SUITS.find(name[1].upper())
    if rank < 0 or suit < 0:
        raise BadRequest(f"not a card: {name!r}")
    return rank, suit


class Adapter:
    """One method an op; each returns the response's keys beyond ``ok``."""

    def __init__(self) -> None:
        self.done = False

    def quit(self, request: dict[str, Any]) -> Response:
        self.done = True
        return {}

    def hello(self, request: dict[str, Any]) -> Response:
        return {
            "name": ENGINE_NAME,
            "version": ENGINE_VERSION,
            "capabilities": CAPABILITIES,
            "notes": NOTES,
        }

    def meld(self, request: dict[str, Any]) -> Response:
        # Replace with your engine's meld check. This one follows R1 and R3: three or four cards
        # of one rank, or three or more of one suit in consecutive ranks, the ace low only.
        cards = [card(name) for name in request.get("cards", [])]
        ranks = sorted(rank for rank, _ in cards)
        suits = {suit for _, suit in cards}
        same_rank = 3 <= len(cards) <= 4 and len(set(ranks)) == 1
        run = (
            len(cards) >= 3
            and len(suits) == 1
            and ranks == list(range(ranks[0], ranks[0] + len(ranks)))
        )
        return {"valid": same_rank or run}


def answer(adapter: Adapter, line: str) -> Response:
    """The response to one request line."""
    try:
        request = json.loads(line)
        if not isinstance(request, dict):
            raise BadRequest("a request is a JSON object")
        op = request.get("op")
        handler: Callable[[dict[str, Any]], Response] | None = (
            getattr(adapter, op, None) if isinstance(op, str) and not op.startswith("_") else None
        )
        if handler is None:
            return {"ok": False, "error": "unsupported", "message": f"{ENGINE_NAME} has no {op}"}
        return {"ok": True, **handler(request)}
    except (BadRequest, ValueError) as error:
        return {"ok": False, "error": "bad_request", "message": str(error)}


def main() -> int:
    adapter = Adapter()
    for line in sys.stdin:
        print(json.dumps(answer(adapter, line)), flush=True)
        if adapter.done:
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
