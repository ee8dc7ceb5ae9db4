"""The fixed, seeded deals that the solver benchmarks and the peer comparison (``peers.py``) run on.

A deal is eleven distinct cards in deal order (the 10-card hand is the first ten; the eleventh is
the card drawn) and a knocker's melds, made only of cards outside those eleven, for the lay-off
solver: the defender holds the 10-card hand. ``deals(n)`` is always a prefix of ``deals(m)`` for
``n < m``, so the benchmarks' 2,000 deals are the first 2,000 of the peer comparison's 20,000.

Only :meth:`random.Random.random` is used, whose sequence Python guarantees across versions, so
the deals (and the golden checksums of the results on them) do not change with the interpreter.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

SEED: Final = 20_240_601

_MELD_TRIES: Final = 40


@dataclass(frozen=True, slots=True)
class Deal:
    """Eleven cards in deal order, and a knocker's melds disjoint from them."""

    cards: tuple[int, ...]
    knocker_melds: tuple[int, ...]

    @property
    def hand10(self) -> int:
        """The first ten cards as a mask: a hand before the draw, and the defender's hand."""
        return _mask(self.cards[:10])

    @property
    def hand11(self) -> int:
        """All eleven cards as a mask: a hand after the draw."""
        return _mask(self.cards)


def _mask(cards: Iterable[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def _below(rng: random.Random, n: int) -> int:
    return int(rng.random() * n)


def _random_meld(rng: random.Random) -> int:
    """A run of 3 to 5 cards (two times in three) or a set of 3 (sometimes 4), uniformly placed."""
    if _below(rng, 3) < 2:
        length = 3 + _below(rng, 3)
        start = _below(rng, 14 - length)
        return ((1 << length) - 1) << (13 * _below(rng, 4) + start)
    rank = _below(rng, 13)
    full = sum(1 << (13 * suit + rank) for suit in range(4))
    if _below(rng, 4) == 0:
        return full
    return full ^ (1 << (13 * _below(rng, 4) + rank))


def _knocker_melds(rng: random.Random, taken: int) -> tuple[int, ...]:
    """One to three disjoint melds of at most ten cards in all, avoiding the cards in ``taken``."""
    wanted = 1 + _below(rng, 3)
    melds: list[int] = []
    used = taken
    for _ in range(_MELD_TRIES):
        meld = _random_meld(rng)
        if meld & used or (used & ~taken).bit_count() + meld.bit_count() > 10:
            continue
        melds.append(meld)
        used |= meld
        if len(melds) == wanted:
            break
    return tuple(melds)


def deals(n: int, seed: int = SEED) -> list[Deal]:
    """``n`` deals from one seeded stream: each a fresh Fisher-Yates shuffle of the deck."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        deck = list(range(52))
        for i in range(51, 40, -1):  # only the last eleven places are needed
            j = _below(rng, i + 1)
            deck[i], deck[j] = deck[j], deck[i]
        cards = tuple(deck[41:])
        out.append(Deal(cards, _knocker_melds(rng, _mask(cards))))
    return out


def fingerprint(results: Iterable[object]) -> str:
    """A short digest of a sequence of results (ints or tuples of ints), stable across runs."""
    text = ",".join(repr(r) for r in results)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def has_set_rank(mask: int) -> bool:
    """True if the hand holds some rank in three or four suits (the solver's slower path)."""
    a, b, c, d = mask & 8191, mask >> 13 & 8191, mask >> 26 & 8191, mask >> 39 & 8191
    return bool((a & b & (c | d)) | (c & d & (a | b)))
