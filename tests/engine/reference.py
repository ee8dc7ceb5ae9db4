"""A brute-force meld solver, written to be obviously correct rather than fast.

It shares nothing with :mod:`engine.melds` except the card numbering (``card = suit * 13 + rank``,
ranks ``A23456789TJQK`` as 0..12, suits ``CDHS`` as 0..3) and is the oracle the property tests in
``test_melds.py`` compare the engine against.

Method: list every meld of the deck once (every set of three or four cards of one rank, every run
of three or more consecutive cards of one suit, Ace low, King high, no wrap). An arrangement of a
hand is a collection of disjoint melds from it; the rest is deadwood. :func:`arrangements` lists
every arrangement of a hand exactly once by deciding, for the lowest card not yet decided, whether
it is deadwood or the lowest card of some meld that fits in the undecided cards. Everything else is
a minimum over that list.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence

Meld = frozenset[int]
"""A meld as the set of its cards (ints 0..51)."""

Arrangement = frozenset[Meld]
"""An arrangement as the set of its melds; the deadwood is whatever of the hand they leave."""


def rank(card: int) -> int:
    return card % 13


def suit(card: int) -> int:
    return card // 13


def value(card: int) -> int:
    """Ace 1, two to ten their pips, jack, queen and king 10."""
    return min(rank(card) + 1, 10)


def cards(mask: int) -> list[int]:
    """The cards of a mask, lowest first."""
    return [card for card in range(52) if mask >> card & 1]


def mask_of(group: Iterable[int]) -> int:
    mask = 0
    for card in group:
        mask |= 1 << card
    return mask


def total_value(group: Iterable[int]) -> int:
    return sum(value(card) for card in group)


def is_meld(group: Iterable[int]) -> bool:
    """A set (three or four cards, one rank) or a run (three or more consecutive, one suit)."""
    ordered = sorted(set(group))
    if len(ordered) < 3:
        return False
    if len({rank(card) for card in ordered}) == 1:
        return len(ordered) <= 4
    if len({suit(card) for card in ordered}) != 1:
        return False
    ranks = [rank(card) for card in ordered]
    return ranks == list(range(ranks[0], ranks[0] + len(ranks)))


def _every_meld() -> list[Meld]:
    melds: list[Meld] = []
    for r in range(13):
        same_rank = [s * 13 + r for s in range(4)]
        melds.append(frozenset(same_rank))
        melds.extend(frozenset(three) for three in itertools.combinations(same_rank, 3))
    for s in range(4):
        for low in range(13):
            for high in range(low + 2, 13):
                melds.append(frozenset(s * 13 + r for r in range(low, high + 1)))
    return melds


EVERY_MELD: list[Meld] = _every_meld()
"""Every meld of the deck: 13 * 5 sets and 4 * 66 runs."""

_MELDS_BY_LOWEST_CARD: dict[int, list[tuple[int, Meld]]] = {card: [] for card in range(52)}
for _meld in EVERY_MELD:
    _MELDS_BY_LOWEST_CARD[min(_meld)].append((mask_of(_meld), _meld))


def arrangements(hand: int) -> Iterator[Arrangement]:
    """Every arrangement of ``hand`` (every collection of disjoint melds), each exactly once."""

    def search(undecided: int, chosen: tuple[Meld, ...]) -> Iterator[Arrangement]:
        if not undecided:
            yield frozenset(chosen)
            return
        lowest = (undecided & -undecided).bit_length() - 1
        # The lowest undecided card is either deadwood ...
        yield from search(undecided & ~(1 << lowest), chosen)
        # ... or the lowest card of a meld made of undecided cards.
        for meld_mask, meld in _MELDS_BY_LOWEST_CARD[lowest]:
            if meld_mask & undecided == meld_mask:
                yield from search(undecided & ~meld_mask, (*chosen, meld))

    return search(hand, ())


def leftover(hand: int, arrangement: Arrangement) -> int:
    """The deadwood cards an arrangement leaves, as a mask."""
    melded = 0
    for meld in arrangement:
        melded |= mask_of(meld)
    return hand & ~melded


def deadwood_of(hand: int, arrangement: Arrangement) -> int:
    return total_value(cards(leftover(hand, arrangement)))


def deadwood(hand: int) -> int:
    """The least deadwood of ``hand``, every card kept: the same search as :func:`arrangements`,
    keeping only the least deadwood of each branch."""
    if not hand:
        return 0
    lowest = (hand & -hand).bit_length() - 1
    best = value(lowest) + deadwood(hand & ~(1 << lowest))
    for meld_mask, _ in _MELDS_BY_LOWEST_CARD[lowest]:
        if meld_mask & hand == meld_mask:
            best = min(best, deadwood(hand & ~meld_mask))
    return best


def optimal_arrangements(hand: int) -> set[Arrangement]:
    """Every arrangement of ``hand`` that reaches its least deadwood."""
    every = list(arrangements(hand))
    least = min(deadwood_of(hand, a) for a in every)
    return {a for a in every if deadwood_of(hand, a) == least}


def discard_deadwoods(hand: int) -> dict[int, int]:
    """For each card of ``hand``: the least deadwood of the other cards."""
    return {card: deadwood(hand & ~(1 << card)) for card in cards(hand)}


def min_deadwood(hand: int) -> int:
    """Up to ten cards: :func:`deadwood`. Eleven: the least over the eleven discards."""
    if len(cards(hand)) == 11:
        return min(discard_deadwoods(hand).values())
    return deadwood(hand)


def best_discards(hand: int, forbidden: int = 0) -> tuple[int, int]:
    """For eleven cards: the least deadwood after one discard that is not in ``forbidden``, and
    the mask of every such discard that reaches it."""
    return best_of(discard_deadwoods(hand), forbidden)


def best_of(by_discard: dict[int, int], forbidden: int = 0) -> tuple[int, int]:
    """:func:`best_discards` from the hand's :func:`discard_deadwoods`."""
    allowed = {card: dw for card, dw in by_discard.items() if not forbidden >> card & 1}
    least = min(allowed.values())
    return least, mask_of([card for card, dw in allowed.items() if dw == least])


def exposure(hand: int, arrangement: Arrangement) -> int:
    """Cards outside ``hand`` that an opponent could lay off directly on one of the melds."""
    exposed = 0
    for meld in arrangement:
        for card in range(52):
            if not hand >> card & 1 and card not in meld and is_meld(meld | {card}):
                exposed |= 1 << card
    return exposed


def _lay_off_choices(meld: Meld, defender: int) -> list[int]:
    """Every set of the defender's cards that may be laid off on ``meld``: the cards together with
    the meld form a meld again (a fourth card on a set of three, a run extended at either end)."""
    related = [
        card
        for card in cards(defender)
        if any(rank(card) == rank(m) or suit(card) == suit(m) for m in meld)
    ]
    choices = []
    for size in range(len(related) + 1):
        for extra in itertools.combinations(related, size):
            if is_meld(meld | set(extra)):
                choices.append(mask_of(extra))
    return choices


def lay_off_options(defender: int, knocker_melds: Sequence[Meld]) -> dict[int, int]:
    """Every set of cards the defender may lay off on ``knocker_melds`` at once, as a mask, with
    the least deadwood the defender is left with after laying it off."""
    per_meld = [_lay_off_choices(meld, defender) for meld in knocker_melds]
    options: dict[int, int] = {}
    for combination in itertools.product(*per_meld):
        laid = 0
        disjoint = True
        for extra in combination:
            disjoint = disjoint and not laid & extra
            laid |= extra
        if disjoint and laid not in options:
            options[laid] = deadwood(defender & ~laid)
    return options


def lay_off_deadwood(defender: int, knocker_melds: Sequence[Meld]) -> int:
    """The least deadwood the defender can reach by laying off and melding the rest."""
    return min(lay_off_options(defender, knocker_melds).values())
