"""One hand of two-player Gin Rummy as a state machine with explicit phases.

``Hand.apply(action)`` is the checked entry point: an action that the rules forbid raises
:class:`IllegalAction` carrying the rule ID it breaks. ``Hand.apply_unchecked(action)`` trusts the
caller (simulations over :meth:`Hand.legal_actions`). Rule IDs (R1 ...) lead to docs/RULES.md.

Each vocabulary of the game is one enum (:class:`Phase` here, :class:`~engine.actions.ActionKind`
in :mod:`engine.actions`, :class:`~engine.scoring.HandEnd` in :mod:`engine.scoring`); the protocol,
the records and their schemas take their words from these enums. They are string enums: a member
equals its value (``Phase.DRAW == "draw"``).

The actions (:mod:`engine.actions`) and how a hand ends and scores (:mod:`engine.scoring`) live in
modules of their own; this one exports their names too, as it always has (``from engine.hand
import Action, HandResult`` still works). That list of names is why this module is a little over
600 lines: what is left is one state machine, whose phases read best side by side.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from functools import partial
from typing import Final, Literal, NamedTuple, get_args

from engine.actions import (
    BIG_GIN,
    DISCARDS,
    DRAW_DISCARD,
    DRAW_STOCK,
    KNOCKS,
    PASS,
    SUIT_DISCARDS,
    Action,
    ActionError,
    ActionKind,
)
from engine.cards import CARD_NAMES, FULL_DECK, VALUES, format_cards
from engine.deck import check_deck, shuffled_deck
from engine.errors import EngineError
from engine.melds import MeldError, check_arrangement, deadwood, min_deadwood
from engine.rules import HOYLE, Rules
from engine.scoring import HandEnd, HandResult, ShowDown, knock_result, score_knock

__all__ = [
    "BIG_GIN",
    "DECISION_PHASES",
    "DISCARDS",
    "DRAW_DISCARD",
    "DRAW_STOCK",
    "KNOCKS",
    "PASS",
    "Action",
    "ActionError",
    "ActionKind",
    "DecisionPhase",
    "Hand",
    "HandEnd",
    "HandResult",
    "IllegalAction",
    "Observation",
    "Phase",
    "ShowDown",
    "knock_result",
    "score_knock",
]


class Phase(enum.StrEnum):
    """Where a hand is. Every legal action and every apply step is per phase."""

    FIRST_UPCARD = "first_upcard"
    """The first upcard is offered: to the non-dealer, then to the dealer (R6)."""
    DRAW = "draw"
    """The player to move draws from the stock or the discard pile (R7)."""
    DISCARD = "discard"
    """The player to move, holding eleven cards, discards or knocks (R7, R9)."""
    FINISHED = "finished"
    """The hand is over: shown down and scored (R10-R14) or drawn (R11, R17)."""


DecisionPhase = Literal[Phase.FIRST_UPCARD, Phase.DRAW, Phase.DISCARD]
"""The phases in which the player to move has a decision to make: every phase but
:attr:`Phase.FINISHED`. A protocol request is always in one of them."""

DECISION_PHASES: Final[tuple[DecisionPhase, ...]] = get_args(DecisionPhase)
"""The members of :data:`DecisionPhase`, in the order of :class:`Phase`."""


_FIRST_UPCARD_ACTIONS: Final = (DRAW_DISCARD, PASS)
_DRAW_ACTIONS: Final = (DRAW_STOCK, DRAW_DISCARD)
_STOCK_ONLY: Final = (DRAW_STOCK,)
# Module-level names for the hot paths (a global read, not a class attribute look-up).
_FIRST_UPCARD: Final = Phase.FIRST_UPCARD
_DRAW: Final = Phase.DRAW
_DISCARD: Final = Phase.DISCARD
_DISCARD_KIND: Final = ActionKind.DISCARD
_DRAW_STOCK_KIND: Final = ActionKind.DRAW_STOCK
_DRAW_DISCARD_KIND: Final = ActionKind.DRAW_DISCARD
_KNOCK_KIND: Final = ActionKind.KNOCK


class IllegalAction(EngineError, ValueError):
    """An action the rules do not allow now. ``rule`` is the rule ID it breaks (docs/RULES.md)."""

    def __init__(self, rule: str, message: str, action: Action | None = None) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.action = action
        self.reason = message


class Observation(NamedTuple):
    """What one player may know (R5-R10): built from the player's own cards and public events only.

    ``opponent_known`` holds the cards the opponent took from the discard pile and still holds.
    ``show_down`` appears once the hand is shown down. No stock order, no seed, no hidden card.
    An immutable named tuple: one is made for every decision of every hand, and a tuple is made
    three times faster than a frozen dataclass.
    """

    player: int
    phase: Phase
    to_move: int
    dealer: int
    hand: int
    discard_pile: tuple[int, ...]
    stock_size: int
    opponent_known: int
    opponent_hand_size: int
    knock_limit: int
    first_upcard: int
    taken_card: int | None
    turn: int
    show_down: ShowDown | None
    result: HandResult | None


_new_observation: Final = partial(tuple.__new__, Observation)
"""An :class:`Observation` from a tuple of its fields in order (a third of the keyword call)."""


class Hand:
    """A hand from the deal to the score.

    >>> hand = Hand(dealer=0, seed=7)
    >>> hand.phase, hand.to_move
    (<Phase.FIRST_UPCARD: 'first_upcard'>, 1)
    >>> [str(a) for a in hand.legal_actions()]
    ['draw discard', 'pass']
    """

    __slots__ = (
        "_forced_stock",
        "_passes",
        "_taken",
        "dealer",
        "deck",
        "first_upcard",
        "hands",
        "history",
        "knock_limit",
        "known",
        "phase",
        "pile",
        "result",
        "rules",
        "stock",
        "to_move",
        "turn",
    )

    def __init__(
        self,
        rules: Rules = HOYLE,
        dealer: int = 0,
        deck: Sequence[int] | None = None,
        seed: int | None = None,
    ) -> None:
        """Deal a hand (R5) from an explicit ``deck`` order or from ``seed`` (see engine.deck)."""
        if dealer not in (0, 1):
            raise ValueError(f"bad dealer {dealer!r}: players are 0 and 1")
        if deck is None:
            if seed is None:
                raise ValueError("a hand needs a deck order or a seed")
            order = shuffled_deck(seed)
        else:
            order = check_deck(deck)
        self.rules = rules
        self.dealer = dealer
        self.deck = order
        non_dealer = 1 - dealer
        hands = [0, 0]
        for i in range(20):  # one at a time, the non-dealer first (R5)
            hands[non_dealer if i % 2 == 0 else dealer] |= 1 << order[i]
        self.hands = hands
        self.first_upcard = order[20]
        self.pile = [order[20]]
        self.stock = list(reversed(order[21:]))  # the top of the stock is the end of the list
        self.phase = Phase.FIRST_UPCARD
        self.to_move = non_dealer
        self.turn = 0
        self.known = [0, 0]
        self.history: list[Action] = []
        self.result: HandResult | None = None
        self._passes = 0
        self._taken = -1
        self._forced_stock = False
        upcard = order[20]
        if rules.oklahoma:  # R18: the upcard's value; an Ace allows gin only
            self.knock_limit = 0 if upcard % 13 == 0 else VALUES[upcard]
        else:
            self.knock_limit = rules.knock_limit

    # -- queries ---------------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.FINISHED

    @property
    def decision_phase(self) -> DecisionPhase:
        """The phase of the decision the player to move faces; a ``ValueError`` once the hand is
        over (:attr:`Phase.FINISHED`: nobody has a decision to make)."""
        phase = self.phase
        if phase is Phase.FINISHED:
            raise ValueError("the hand is over: nobody has a decision to make")
        return phase

    @property
    def taken_card(self) -> int | None:
        """The card taken from the discard pile this turn, if any (R8)."""
        return self._taken if self._taken >= 0 else None

    def legal_actions(self) -> list[Action]:
        """Every legal action now. Knocks are listed without a declared arrangement; any valid
        arrangement within the knock limit may be declared with the same discard."""
        phase = self.phase
        if phase is _DISCARD:
            h = self.hands[self.to_move]
            allowed = h
            if self._taken >= 0 and not self.rules.discard_taken_card:
                allowed &= ~(1 << self._taken)  # R8
            suits = SUIT_DISCARDS
            actions = [
                *suits[0][allowed & 8191],
                *suits[1][allowed >> 13 & 8191],
                *suits[2][allowed >> 26 & 8191],
                *suits[3][allowed >> 39],
            ]
            limit = self.knock_limit
            if min_deadwood(h) <= limit:  # R9: only then can some discard allow a knock
                rest = allowed
                while rest:
                    low = rest & -rest
                    rest ^= low
                    if deadwood(h ^ low) <= limit:
                        actions.append(KNOCKS[low.bit_length() - 1])
                if self.rules.big_gin and deadwood(h) == 0:
                    actions.append(BIG_GIN)
            return actions
        if phase is _DRAW:
            return list(_STOCK_ONLY if self._forced_stock else _DRAW_ACTIONS)
        if phase is _FIRST_UPCARD:
            return list(_FIRST_UPCARD_ACTIONS)
        return []

    def observation(self, player: int) -> Observation:
        """What ``player`` may know now."""
        if player not in (0, 1):
            raise ValueError(f"bad player {player!r}: players are 0 and 1")
        result = self.result
        to_move = self.to_move
        taken = self._taken
        return _new_observation(  # by position, in the order of Observation's fields
            (
                player,
                self.phase,
                to_move,
                self.dealer,
                self.hands[player],
                tuple(self.pile),
                len(self.stock),
                self.known[1 - player],
                self.hands[1 - player].bit_count(),
                self.knock_limit,
                self.first_upcard,
                taken if taken >= 0 and to_move == player else None,
                self.turn,
                None if result is None else result.show_down,
                result,
            )
        )

    def copy(self) -> Hand:
        """An independent copy (for search)."""
        other = Hand.__new__(Hand)
        other.rules = self.rules
        other.dealer = self.dealer
        other.deck = self.deck
        other.hands = self.hands[:]
        other.first_upcard = self.first_upcard
        other.pile = self.pile[:]
        other.stock = self.stock[:]
        other.phase = self.phase
        other.to_move = self.to_move
        other.turn = self.turn
        other.known = self.known[:]
        other.history = self.history[:]
        other.result = self.result
        other.knock_limit = self.knock_limit
        other._passes = self._passes
        other._taken = self._taken
        other._forced_stock = self._forced_stock
        return other

    @classmethod
    def from_observation(
        cls,
        seen: Observation,
        opponent: int,
        stock: Sequence[int],
        rules: Rules = HOYLE,
    ) -> Hand:
        """A hypothetical hand for search: what ``seen`` shows, with the cards its player cannot
        see dealt as given. The opponent holds ``opponent`` (a mask: its known cards and a choice
        of hidden ones) and the stock is ``stock`` (the top card last, as :attr:`stock`).

        The hand goes on under ``rules`` exactly as a real one would from the same position; only
        the hidden cards are invented, so the real deal never reaches a bot that searches this
        way (the one difference: the cards the player itself took from the pile are not marked as
        known to its opponent). ``seen`` must be a decision of its player (it is to move).
        Raises ``ValueError`` naming the mismatch unless the cards fit the observation: the
        opponent's known cards and hand size kept, the stock's size kept, and the hidden cards
        exactly the ones the player has not seen. A finished hand cannot be continued.

        >>> real = Hand(dealer=0, seed=7)
        >>> seen = real.observation(1)
        >>> again = Hand.from_observation(seen, real.hands[0], real.stock)
        >>> again.legal_actions() == real.legal_actions(), again.hands == real.hands
        (True, True)
        """
        _check_unseen(seen, opponent, stock)
        player = seen.player
        hand = cls.__new__(cls)
        hand.rules = rules
        hand.dealer = seen.dealer
        hand.deck = ()  # the real order is not known; a hypothetical hand has none
        hands = [0, 0]
        hands[player] = seen.hand
        hands[1 - player] = opponent
        hand.hands = hands
        hand.first_upcard = seen.first_upcard
        hand.pile = list(seen.discard_pile)
        hand.stock = list(stock)
        hand.phase = seen.phase
        hand.to_move = seen.to_move
        hand.turn = seen.turn
        known = [0, 0]
        known[1 - player] = seen.opponent_known
        hand.known = known  # the player's own taken cards show only in the opponent's view
        hand.history = []
        hand.result = None
        hand.knock_limit = seen.knock_limit
        first = seen.phase is Phase.FIRST_UPCARD
        hand._passes = 1 if first and seen.to_move == seen.dealer else 0
        taken = seen.taken_card
        hand._taken = -1 if taken is None else taken
        hand._forced_stock = seen.phase is Phase.DRAW and seen.turn == 0  # both passed (R6)
        return hand

    def cards_in_play(self) -> int:
        """All cards in hands, stock and pile: always the full deck (a conservation check)."""
        total = self.hands[0] | self.hands[1]
        for card in self.stock:
            total |= 1 << card
        for card in self.pile:
            total |= 1 << card
        return total

    # -- the checked entry point -----------------------------------------------------------

    def apply(self, action: Action) -> None:
        """Apply ``action`` for the player to move, or raise :class:`IllegalAction` (nothing
        changes then)."""
        self._check(action)
        self.apply_unchecked(action)

    def _check(self, action: Action) -> None:
        phase = self.phase
        kind = action.kind
        # The common legal moves first, in a few tests; anything else takes the full checks.
        if action.melds is None:
            if phase is _DISCARD and kind is _DISCARD_KIND:
                card = action.card
                if (
                    type(card) is int
                    and 0 <= card < 52
                    and self.hands[self.to_move] >> card & 1
                    and (card != self._taken or self.rules.discard_taken_card)
                ):
                    return
            elif (
                phase is _DRAW
                and action.card is None
                and (
                    kind is _DRAW_STOCK_KIND
                    or (kind is _DRAW_DISCARD_KIND and not self._forced_stock)
                )
            ):
                return
        if phase is Phase.FINISHED:
            raise IllegalAction("R7", "the hand is over: no more actions", action)
        if action.melds is not None and kind is not ActionKind.KNOCK:
            raise IllegalAction("R7", "only a knock declares melds", action)
        if action.card is not None and kind not in (ActionKind.DISCARD, ActionKind.KNOCK):
            raise IllegalAction(
                "R7", f"only a discard or a knock names a card, not {kind.value}", action
            )
        if phase is Phase.FIRST_UPCARD:
            self._check_first_upcard(action)
        elif phase is Phase.DRAW:
            self._check_draw(action)
        else:
            self._check_discard(action)

    def _check_first_upcard(self, action: Action) -> None:
        kind = action.kind
        if kind is ActionKind.DRAW_STOCK:
            raise IllegalAction(
                "R6",
                "the first upcard is offered: take it (draw discard) or pass; the stock is "
                "drawn only after both players pass",
                action,
            )
        if kind not in (ActionKind.PASS, ActionKind.DRAW_DISCARD):
            raise IllegalAction(
                "R6", f"the first upcard is offered: take it or pass, not {kind.value}", action
            )

    def _check_draw(self, action: Action) -> None:
        kind = action.kind
        if kind is ActionKind.PASS:
            raise IllegalAction("R6", "passing is only allowed on the first upcard", action)
        if kind not in (ActionKind.DRAW_STOCK, ActionKind.DRAW_DISCARD):
            raise IllegalAction(
                "R7", f"draw first (stock or discard pile), then {kind.value}", action
            )
        if kind is ActionKind.DRAW_DISCARD and self._forced_stock:
            raise IllegalAction(
                "R6",
                "both players passed the first upcard: the non-dealer must draw from the stock",
                action,
            )

    def _check_discard(self, action: Action) -> None:
        kind = action.kind
        if kind not in (ActionKind.DISCARD, ActionKind.KNOCK):
            raise IllegalAction(
                "R7", f"you hold eleven cards: discard or knock, not {kind.value}", action
            )
        h = self.hands[self.to_move]
        card = action.card
        if card is None:
            if kind is ActionKind.DISCARD:
                raise IllegalAction("R7", "a discard needs a card", action)
            self._check_big_gin(action, h)
            return
        if not 0 <= card < 52 or not h >> card & 1:
            name = CARD_NAMES[card] if 0 <= card < 52 else repr(card)
            raise IllegalAction("R7", f"{name} is not in your hand [{format_cards(h)}]", action)
        if card == self._taken and not self.rules.discard_taken_card:
            raise IllegalAction(
                "R8",
                f"{CARD_NAMES[card]} was just taken from the discard pile and may not be discarded "
                "this turn",
                action,
            )
        if kind is ActionKind.KNOCK:
            self._check_knock(action, h ^ (1 << card), card)

    def _check_knock(self, action: Action, kept: int, card: int) -> None:
        rule = "R18" if self.rules.oklahoma else "R9"
        if action.melds is not None:
            left = _declared_deadwood(action, kept, "knock")
            if left > self.knock_limit:
                raise IllegalAction(
                    rule,
                    f"the declared melds leave {left} deadwood; the knock limit is "
                    f"{self.knock_limit}",
                    action,
                )
        else:
            left = deadwood(kept)
            if left > self.knock_limit:
                raise IllegalAction(
                    rule,
                    f"after discarding {CARD_NAMES[card]} your least deadwood is {left}; the "
                    f"knock limit is {self.knock_limit}",
                    action,
                )

    def _check_big_gin(self, action: Action, h: int) -> None:
        if not self.rules.big_gin:
            raise IllegalAction(
                "R19", "a knock needs a discard (big gin is not played under these rules)", action
            )
        left = deadwood(h) if action.melds is None else _declared_deadwood(action, h, "big gin")
        if left:
            raise IllegalAction(
                "R19", f"big gin needs all eleven cards melded; {left} deadwood is left", action
            )

    # -- the unchecked fast path -----------------------------------------------------------

    def apply_unchecked(self, action: Action) -> None:
        """Apply a legal ``action`` without checking it (trusted callers only)."""
        kind = action.kind
        p = self.to_move
        self.history.append(action)
        if kind is _DISCARD_KIND:
            card = action.card
            assert card is not None
            bit = 1 << card
            self.hands[p] ^= bit
            known = self.known
            if known[p] & bit:
                known[p] ^= bit
            self.pile.append(card)
            self._taken = -1
            rules = self.rules
            if len(self.stock) <= rules.stock_exhausted_at:  # R11
                self._finish(HandResult(HandEnd.DRAWN, None, 0))
            elif self.turn >= rules.turn_limit:  # R17
                self._finish(HandResult(HandEnd.TURN_LIMIT, None, 0))
            else:
                self.to_move = 1 - p
                self.phase = _DRAW
        elif kind is _DRAW_STOCK_KIND:
            self.hands[p] |= 1 << self.stock.pop()
            self._taken = -1
            self._forced_stock = False
            self.turn += 1
            self.phase = _DISCARD
        elif kind is _DRAW_DISCARD_KIND:
            card = self.pile.pop()
            self.hands[p] |= 1 << card
            self.known[p] |= 1 << card
            self._taken = card
            self.turn += 1
            self.phase = _DISCARD
        elif kind is _KNOCK_KIND:
            self._knock(action)
        else:  # PASS (R6)
            self._passes += 1
            if self._passes == 1:
                self.to_move = self.dealer
            else:
                self.to_move = 1 - self.dealer
                self.phase = _DRAW
                self._forced_stock = True

    def _finish(self, result: HandResult) -> None:
        self.result = result
        self.phase = Phase.FINISHED
        self._taken = -1

    def _knock(self, action: Action) -> None:
        """Show down (R10) and score (R12-R14, R18, R19)."""
        knocker = self.to_move
        card = action.card
        h = self.hands[knocker]
        if card is not None:
            h ^= 1 << card
            self.hands[knocker] = h
            self.known[knocker] &= ~(1 << card)
            self.pile.append(card)
        dead = 0
        for c in self.pile:
            dead |= 1 << c
        result = knock_result(
            self.rules,
            h,
            self.hands[1 - knocker],
            discard=card,
            melds=action.melds,
            dead=dead,
            first_upcard=self.first_upcard,
            knocker=knocker,
        )
        self._finish(result)


def _check_unseen(seen: Observation, opponent: int, stock: Sequence[int]) -> None:
    """Raise ``ValueError`` unless ``opponent`` and ``stock`` can be the cards the player of
    ``seen`` has not seen, at a decision of that player (:meth:`Hand.from_observation`)."""
    if seen.phase is Phase.FINISHED:
        raise ValueError("a finished hand cannot be continued")
    player = seen.player
    if seen.to_move != player:
        raise ValueError(
            f"player {player} is not to move: a hand is continued from its player's decision"
        )
    pile = 0
    for card in seen.discard_pile:
        pile |= 1 << card
    stock_mask = 0
    for card in stock:
        stock_mask |= 1 << card
    hidden = FULL_DECK & ~(seen.hand | pile)
    if opponent & ~hidden or opponent & seen.opponent_known != seen.opponent_known:
        raise ValueError(
            f"the opponent's cards {format_cards(opponent)} must include its known cards "
            f"{format_cards(seen.opponent_known)} and none of the player's or the pile's"
        )
    if opponent.bit_count() != seen.opponent_hand_size:
        raise ValueError(
            f"the opponent holds {seen.opponent_hand_size} cards, not {opponent.bit_count()}"
        )
    if len(stock) != seen.stock_size or stock_mask.bit_count() != len(stock):
        raise ValueError(
            f"the stock must be {seen.stock_size} different cards, not {len(stock)} "
            f"({stock_mask.bit_count()} different)"
        )
    if stock_mask | opponent != hidden or stock_mask & opponent:
        raise ValueError(
            "the opponent's cards and the stock must be exactly the cards the player has "
            f"not seen: {format_cards(hidden)}"
        )


def _declared_deadwood(action: Action, kept: int, what: str) -> int:
    """The deadwood the melds declared with ``action`` leave of ``kept``; :class:`IllegalAction`
    with the meld rule broken when they are no arrangement of ``kept`` (R3)."""
    assert action.melds is not None
    try:
        return check_arrangement(kept, action.melds)
    except MeldError as error:
        raise IllegalAction(error.rule, f"bad {what} arrangement: {error}", action) from None
