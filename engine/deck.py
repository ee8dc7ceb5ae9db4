"""Reproducible deals (R21): a SplitMix64 stream and a Fisher-Yates shuffle, specified exactly so
that any implementation can deal the same cards from the same seed (see docs/RULES.md). The deal
layout itself is R5; the first dealer (R4) is drawn from the game's stream in engine.game.

A deck order is a tuple of the 52 cards; ``deck[0]`` is dealt first (to the non-dealer), cards
alternate between the players until each has ten, ``deck[20]`` is the first upcard and
``deck[21]`` is the top of the stock.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from engine.cards import CARD_NAMES, FULL_DECK, CardError, format_cards

_MASK64: Final = (1 << 64) - 1


class SplitMix64:
    """The SplitMix64 generator (Steele, Lea and Flood, 2014): 64-bit outputs from a 64-bit seed."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= _MASK64:
            raise ValueError(f"bad seed {seed!r}: a seed is an integer from 0 to 2**64 - 1")
        self.state = seed

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)

    def below(self, bound: int) -> int:
        """A uniform integer in ``0..bound-1``, by rejection (no modulo bias)."""
        if bound < 1:
            raise ValueError(f"bad bound {bound!r}: below() needs a positive bound")
        limit = (1 << 64) - (1 << 64) % bound
        while True:
            value = self.next()
            if value < limit:
                return value % bound

    def shuffled_deck(self) -> tuple[int, ...]:
        """The 52 cards shuffled: Fisher-Yates from the last position down, swapping position
        ``i`` with position ``below(i + 1)``."""
        deck = list(range(52))
        for i in range(51, 0, -1):
            j = self.below(i + 1)
            deck[i], deck[j] = deck[j], deck[i]
        return tuple(deck)


def shuffled_deck(seed: int) -> tuple[int, ...]:
    """The deck order dealt from ``seed`` alone."""
    return SplitMix64(seed).shuffled_deck()


def check_deck(deck: Sequence[int]) -> tuple[int, ...]:
    """Validate an explicit deck order: the 52 cards, each once."""
    order = tuple(deck)
    seen = 0
    for card in order:
        if not isinstance(card, int) or isinstance(card, bool) or not 0 <= card < 52:
            raise CardError(f"bad deck: {card!r} is not a card index 0..51")
        if seen >> card & 1:
            raise CardError(f"bad deck: {CARD_NAMES[card]} appears twice")
        seen |= 1 << card
    if len(order) != 52:
        raise CardError(f"bad deck: {len(order)} cards, missing {format_cards(FULL_DECK & ~seen)}")
    return order
