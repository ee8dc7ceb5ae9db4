"""Cards, card notation and card sets.

A card is an int from 0 to 51: ``suit * 13 + rank`` with ranks ``A23456789TJQK`` as 0..12 and
suits ``CDHS`` as 0..3. A set of cards (a hand, the stock, a meld) is an int with bit ``card`` set
for each card in it, so every suit occupies 13 consecutive bits and set algebra is integer
arithmetic.

:class:`CardSet` wraps such an int for readability at the edges (it *is* an int, so every engine
function accepts it); hot loops use plain ints.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator
from typing import Final, SupportsIndex

from engine.errors import EngineError

Card = int
"""A card, 0..51 (``suit * 13 + rank``)."""

RANKS: Final = "A23456789TJQK"
SUITS: Final = "CDHS"

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
ACE, JACK, QUEEN, KING = 0, 10, 11, 12

FULL_DECK: Final = (1 << 52) - 1
SUIT_MASK: Final = (1 << 13) - 1

CARD_NAMES: Final = tuple(r + s for s in SUITS for r in RANKS)
"""``CARD_NAMES[card]`` is the card's notation, e.g. ``CARD_NAMES[0] == "AC"``."""

VALUES: Final = tuple(min(rank + 1, 10) for _ in SUITS for rank in range(13))
"""``VALUES[card]`` is the card's deadwood value (R2): Ace 1, pips at face value, J/Q/K 10."""

_BY_NAME: dict[str, int] = {}
for _card, _name in enumerate(CARD_NAMES):
    _rank, _suit = _name[0], _name[1]
    for _r in (_rank, "10") if _rank == "T" else (_rank,):
        for _s in (_suit, _suit.lower()):
            _BY_NAME[_r + _s] = _card


CARD_INDEX: Final[dict[str, int]] = {name: card for card, name in enumerate(CARD_NAMES)}
"""``CARD_INDEX[name]`` is the card of a name in canonical notation (``"TD"``, not ``"10d"``): the
one-look-up path for names the arena itself wrote; :func:`parse_card` reads every notation."""


class CardError(EngineError, ValueError):
    """A card, a list of cards or a hand could not be understood."""


def rank_of(card: Card) -> int:
    return card % 13


def suit_of(card: Card) -> int:
    return card // 13


def card_value(card: Card) -> int:
    """Deadwood value of ``card`` (R2)."""
    return VALUES[card]


def parse_card(token: str) -> Card:
    """Parse one card such as ``"TD"``, ``"10D"`` or ``"As"``; raise :class:`CardError` if not."""
    if not isinstance(token, str):
        raise CardError(f"bad card {token!r}: expected a string such as 'AS'")
    card = _BY_NAME.get(token.strip())
    if card is None:
        raise CardError(
            f"bad card {token!r}: write a rank from {RANKS} (or 10) followed by a suit "
            f"from {SUITS}, e.g. 'AS', 'TD' or '7h'"
        )
    return card


def card_name(card: Card) -> str:
    """Notation of ``card``, e.g. ``"TD"``."""
    if not 0 <= card < 52:
        raise CardError(f"bad card index {card!r}: cards are numbered 0..51")
    return CARD_NAMES[card]


def parse_cards(text: str | Iterable[str]) -> CardSet:
    """Parse cards written as one string (``"AS 2S 3S"``, commas allowed) or as tokens.

    The result is a :class:`CardSet`, accepted by every engine function. Duplicates are an error.
    """
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    mask = 0
    for token in tokens:
        if not isinstance(token, str):
            raise CardError(f"bad card {token!r}: expected a string such as 'AS'")
        bit = 1 << parse_card(token)
        if mask & bit:
            raise CardError(f"duplicate card {token!r} in {' '.join(tokens)!r}")
        mask |= bit
    return CardSet(mask)


def _check_mask(mask: int) -> None:
    if not 0 <= mask <= FULL_DECK:
        raise CardError(f"bad card set {mask!r}: a card set is a 52-bit mask (0 to 2**52 - 1)")


def cards_of(mask: int) -> list[Card]:
    """The cards of a set, lowest index first."""
    _check_mask(mask)
    mask = +mask  # a CardSet's plain int: its own operators would build a CardSet per step
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class _SuitNames(dict[int, tuple[str, ...]]):
    """The names of the cards of a 13-bit pattern of one suit, lowest rank first, filled in as
    patterns are met."""

    def __init__(self, suit: int) -> None:
        super().__init__()
        self.names = CARD_NAMES[13 * suit : 13 * suit + 13]

    def __missing__(self, pattern: int) -> tuple[str, ...]:
        found = tuple(name for rank, name in enumerate(self.names) if pattern >> rank & 1)
        self[pattern] = found
        return found


_SUIT_NAMES: Final = tuple(_SuitNames(suit) for suit in range(4))


def card_names(mask: int) -> list[str]:
    """The cards of a set as notation, by suit then rank: ``["AS", "2S", "3S"]``."""
    _check_mask(mask)
    mask = +mask  # a CardSet's plain int: its own operators would build a CardSet per step
    names = _SUIT_NAMES
    return [
        *names[0][mask & 8191],
        *names[1][mask >> 13 & 8191],
        *names[2][mask >> 26 & 8191],
        *names[3][mask >> 39],
    ]


def format_cards(mask: int) -> str:
    """The cards of a set as one string of notation, by suit then rank: ``"AS 2S 3S"``."""
    return " ".join(card_names(mask))


def deadwood_value(mask: int) -> int:
    """Sum of the values of the cards in ``mask``."""
    _check_mask(mask)
    mask = +mask  # a CardSet's plain int: its own operators would build a CardSet per step
    total = 0
    while mask:
        low = mask & -mask
        total += VALUES[low.bit_length() - 1]
        mask ^= low
    return total


class CardSet(int):
    """An immutable set of cards that is also its 52-bit int mask.

    >>> hand = CardSet.parse("AS 2S 3S")
    >>> len(hand), str(hand), "2S" in hand
    (3, 'AS 2S 3S', True)
    >>> hand | CardSet.parse("4S")
    CardSet.parse('AS 2S 3S 4S')
    """

    __slots__ = ()

    def __new__(cls, mask: SupportsIndex = 0) -> CardSet:
        value = operator.index(mask)
        if value < 0 or value > FULL_DECK:
            raise CardError(f"bad card set {value!r}: a card set is a 52-bit mask")
        return super().__new__(cls, value)

    @classmethod
    def parse(cls, text: str | Iterable[str]) -> CardSet:
        return parse_cards(text)

    @classmethod
    def of(cls, cards: Iterable[Card]) -> CardSet:
        mask = 0
        for card in cards:
            card_name(card)  # validates the index
            mask |= 1 << card
        return cls(mask)

    def __iter__(self) -> Iterator[Card]:
        return iter(cards_of(self))

    def __len__(self) -> int:
        return self.bit_count()

    def __contains__(self, card: object) -> bool:
        if isinstance(card, str):
            card = parse_card(card)
        if isinstance(card, int) and 0 <= card < 52:
            return bool(self >> card & 1)
        return False

    def __and__(self, other: int) -> CardSet:
        return CardSet(int(self) & int(other))

    def __or__(self, other: int) -> CardSet:
        return CardSet(int(self) | int(other))

    def __xor__(self, other: int) -> CardSet:
        return CardSet(int(self) ^ int(other))

    def __sub__(self, other: int) -> CardSet:
        return CardSet(int(self) & ~int(other))

    def __invert__(self) -> CardSet:
        return CardSet(FULL_DECK & ~int(self))

    __rand__ = __and__
    __ror__ = __or__
    __rxor__ = __xor__

    def deadwood(self) -> int:
        """Sum of the card values (all cards counted as deadwood)."""
        return deadwood_value(self)

    def __str__(self) -> str:
        return format_cards(self)

    def __repr__(self) -> str:
        return f"CardSet.parse({format_cards(self)!r})"
