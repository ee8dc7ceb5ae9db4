"""The players' actions: their kinds, the :class:`Action` value and its notation, and the shared
constants the engine, the protocol and the bots hand around (:data:`PASS`, :data:`DISCARDS` ...).

An action is a small immutable value: ``str(action)`` writes its notation and :meth:`Action.parse`
reads it back, as ``repr`` shows. Whether an action is legal now is the hand's question
(:meth:`engine.hand.Hand.apply`, :class:`engine.hand.IllegalAction`).

>>> Action.parse("knock 7h / AS 2s 3S")
Action.parse('knock 7H / AS 2S 3S')
>>> Action.parse("discard TD") is DISCARDS[parse_card("TD")]
True
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Final

from engine.cards import CARD_NAMES, CardError, format_cards, parse_card, parse_cards
from engine.errors import EngineError


class ActionKind(enum.StrEnum):
    """What a player does: the kinds of :class:`Action`, each with its notation (R6-R9, R19)."""

    PASS = "pass"
    """Decline the first upcard (R6)."""
    DRAW_STOCK = "draw_stock"
    """Take the top card of the stock (R7)."""
    DRAW_DISCARD = "draw_discard"
    """Take the top card of the discard pile, the first upcard included (R6, R7)."""
    DISCARD = "discard"
    """Discard a card, ending the turn (R7)."""
    KNOCK = "knock"
    """Discard a card and knock (R9); with no card, big gin (R19)."""


@dataclass(frozen=True, slots=True)
class Action:
    """A player's action. ``card`` is the card discarded (discard, knock); ``melds`` an optional
    arrangement declared with a knock (card masks).

    Notation (``str(action)`` and :meth:`parse`): ``pass``, ``draw stock``, ``draw discard``,
    ``discard 7H``, ``knock 7H``, ``knock 7H / AS 2S 3S / 7C 7D 7H`` (declared melds), ``knock``
    (big gin, no discard).
    """

    kind: ActionKind
    card: int | None = None
    melds: tuple[int, ...] | None = None

    def __str__(self) -> str:
        kind = self.kind
        if kind is ActionKind.PASS:
            return "pass"
        if kind is ActionKind.DRAW_STOCK:
            return "draw stock"
        if kind is ActionKind.DRAW_DISCARD:
            return "draw discard"
        text = kind.value if self.card is None else f"{kind.value} {CARD_NAMES[self.card]}"
        if self.melds is not None:
            text += "".join(f" / {format_cards(m)}" for m in self.melds) if self.melds else " /"
        return text

    def __repr__(self) -> str:
        return f"Action.parse({str(self)!r})"

    @classmethod
    def parse(cls, text: str) -> Action:
        """Parse the notation above; raise :class:`ActionError` naming what is wrong."""
        head, *groups = (part.strip() for part in text.strip().split("/"))
        words = head.lower().split()
        try:
            if words == ["pass"] and not groups:
                return PASS
            if words == ["draw", "stock"] and not groups:
                return DRAW_STOCK
            if words == ["draw", "discard"] and not groups:
                return DRAW_DISCARD
            if len(words) == 2 and words[0] == "discard" and not groups:
                return DISCARDS[parse_card(head.split()[1])]
            if words and words[0] == "knock" and len(words) <= 2:
                card = parse_card(head.split()[1]) if len(words) == 2 else None
                if not groups:
                    return BIG_GIN if card is None else KNOCKS[card]
                melds = []
                if groups == [""]:  # "knock 7H /": declared, no melds at all
                    groups = []
                for group in groups:
                    melds.append(int(parse_cards(group)))
                return cls(ActionKind.KNOCK, card, tuple(melds))
        except CardError as error:
            raise ActionError(f"bad action {text!r}: {error}") from None
        raise ActionError(
            f"bad action {text!r}: expected pass, draw stock, draw discard, discard CARD, "
            "knock CARD [/ MELD / MELD ...] or knock (big gin)"
        )


class ActionError(EngineError, ValueError):
    """An action's notation could not be understood."""


# The actions without declared melds, each made once: the legal actions and the parser hand out
# these values rather than build new ones.
PASS: Final = Action(ActionKind.PASS)
DRAW_STOCK: Final = Action(ActionKind.DRAW_STOCK)
DRAW_DISCARD: Final = Action(ActionKind.DRAW_DISCARD)
DISCARDS: Final = tuple(Action(ActionKind.DISCARD, c) for c in range(52))
"""``DISCARDS[card]`` discards ``card``."""
KNOCKS: Final = tuple(Action(ActionKind.KNOCK, c) for c in range(52))
"""``KNOCKS[card]`` discards ``card`` and knocks, declaring no melds (the engine arranges them)."""
BIG_GIN: Final = Action(ActionKind.KNOCK)
"""A knock with no discard (R19)."""


class _SuitDiscards(dict[int, tuple[Action, ...]]):
    """The discard actions of the cards of a 13-bit pattern of one suit, lowest rank first, filled
    in as patterns are met (a hit is one dict look-up; building all 8,192 would slow imports)."""

    def __init__(self, suit: int) -> None:
        super().__init__()
        self.base = 13 * suit

    def __missing__(self, pattern: int) -> tuple[Action, ...]:
        found = tuple(DISCARDS[self.base + r] for r in range(13) if pattern >> r & 1)
        self[pattern] = found
        return found


SUIT_DISCARDS: Final = tuple(_SuitDiscards(suit) for suit in range(4))
"""``SUIT_DISCARDS[suit][pattern]``: the discards of the cards of ``suit`` whose ranks are the bits
of ``pattern``, lowest first. A hand's discards are its four suits' entries, in card order."""
