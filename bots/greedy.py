"""``greedy``: takes the upcard when that lowers its deadwood, discards to minimise deadwood
(the highest card among equals) and knocks as soon as it may."""

from __future__ import annotations

import sys

from bots.sdk import Bot, View
from engine.cards import VALUES, cards_of
from engine.hand import BIG_GIN, DISCARDS, KNOCKS, Action, ActionKind
from engine.melds import best_discards, deadwood
from protocol.messages import DrawSource


def improves(hand: int, card: int, forbid_taken: bool) -> bool:
    """Would taking ``card`` and then discarding at best lower the deadwood of ``hand``?"""
    after, _ = best_discards(hand | 1 << card, (1 << card) if forbid_taken else 0)
    return after < deadwood(hand)


def highest(mask: int) -> int:
    """The card of ``mask`` with the highest value (then the highest index)."""
    return max(cards_of(mask), key=lambda c: (VALUES[c], c % 13, c))


class GreedyBot(Bot):
    name = "greedy"
    author = "gin-rummy-arena"
    version = "1"

    def first_upcard(self, view: View) -> bool:
        return improves(view.hand, view.upcard, not self.rules.discard_taken_card)

    def draw(self, view: View) -> DrawSource:
        take = improves(view.hand, view.upcard, not self.rules.discard_taken_card)
        return (
            "discard"
            if take and any(a.kind is ActionKind.DRAW_DISCARD for a in view.legal)
            else "stock"
        )

    def discard(self, view: View) -> Action:
        if any(a is BIG_GIN for a in view.legal):
            return BIG_GIN
        forbidden = 0 if view.taken_card is None else 1 << view.taken_card
        _, best = best_discards(view.hand, forbidden & ~view.discardable())
        if view.can_knock():
            return KNOCKS[highest(best & view.knock_discards() or view.knock_discards())]
        return DISCARDS[highest(best & view.discardable())]


def main() -> int:
    return GreedyBot().run()


if __name__ == "__main__":
    sys.exit(main())
