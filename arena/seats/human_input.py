"""What the human types at a prompt of :class:`arena.seats.human.HumanBot`: :func:`parse_input`
reads it as one of the request's legal actions, or as a :class:`Meta` answer (help, quit), or
raises an :class:`InputError` that says why it is not one now and what to type instead, so that a
typing mistake asks again rather than forfeits.
"""

from __future__ import annotations

import enum
from typing import Final

from arena.errors import ArenaError
from bots.sdk import View
from engine.cards import CARD_NAMES, CardError, parse_card
from engine.hand import (
    BIG_GIN,
    DISCARDS,
    DRAW_DISCARD,
    DRAW_STOCK,
    KNOCKS,
    PASS,
    ActionKind,
    Phase,
)
from engine.hand import Action as EngineAction
from engine.melds import deadwood


class InputError(ArenaError, ValueError):
    """What the human typed is not an action, or not a legal one now; the message says why and
    what to type instead."""


class Meta(enum.Enum):
    """An answer at a prompt that is not an action."""

    HELP = "help"
    QUIT = "quit"


HELP_TEXT: Final = """\
Answer a prompt with one of:
  1, 2, ...         the action of that number in the menu
  7h, 10d, TD       discard that card (also: discard 7h)
  k 7h, knock 7h    discard 7H and knock (when your deadwood allows it)
  knock             big gin, when the rules play it and all eleven cards meld
  d, draw, stock    draw the top card of the stock
  t, take           take the top card of the discard pile (the upcard)
  p, pass           pass on the first upcard
  ?, help           this help
  q, quit           leave the game (asks first: the game in progress is forfeited)
Cards: a rank from A23456789TJQK (or 10) and a suit from CDHS, in either case."""

QUIT_WORDS: Final = frozenset(("q", "quit", "exit"))
_HELP_WORDS: Final = frozenset(("?", "h", "help"))
_STOCK_WORDS: Final = frozenset(("d", "draw", "stock", "s", "draw stock"))
_TAKE_WORDS: Final = frozenset(
    ("t", "take", "discard pile", "pile", "draw discard", "take upcard", "upcard")
)
_PASS_WORDS: Final = frozenset(("p", "pass", "n", "no"))
_KNOCK_WORDS: Final = frozenset(("k", "knock"))


# -- reading what the human types ---------------------------------------------------------------


def parse_input(text: str, view: View) -> EngineAction | Meta:
    """The action (one of ``view.legal``) or :class:`Meta` answer that ``text`` asks for, or an
    :class:`InputError` that says why it is not one now and what to type instead."""
    words = " ".join(text.lower().replace(",", " ").split())
    if not words:
        raise InputError(f"Type an action ({_hint(view)}), or ? for help.")
    if words in QUIT_WORDS:
        return Meta.QUIT
    if words in _HELP_WORDS:
        return Meta.HELP
    if words.isdigit():
        number = int(words)
        if not 1 <= number <= len(view.legal):
            raise InputError(
                f"There is no action {number} in the menu: choose 1 to {len(view.legal)}."
            )
        return view.legal[number - 1]
    return _legal(_action(words, view), view)


def _action(words: str, view: View) -> EngineAction:
    """The action ``words`` name (normalised: lower case, single spaces), legal or not."""
    if words in _STOCK_WORDS:
        return DRAW_STOCK
    if words in _PASS_WORDS:
        return PASS
    if words in _TAKE_WORDS or words in ("y", "yes"):
        return DRAW_DISCARD
    head, _, rest = words.partition(" ")
    if head in ("t", "take") and rest:
        card = _card(rest)
        if not view.discard_pile:
            raise InputError("The discard pile is empty: there is nothing to take.")
        if card != view.upcard:
            raise InputError(
                f"Only the top card of the discard pile can be taken: {CARD_NAMES[view.upcard]}."
            )
        return DRAW_DISCARD
    if head in _KNOCK_WORDS:
        if not rest:
            return BIG_GIN
        if "/" in rest:
            raise InputError(
                "Declare no melds: at a knock your cards are arranged for you, at least deadwood."
            )
        return KNOCKS[_card(rest)]
    if head.startswith("k") and len(head) > 1 and not rest and _is_card(head[1:]):
        return KNOCKS[_card(head[1:])]  # "k7h"
    if head == "discard" and rest:
        return DISCARDS[_card(rest)]
    if _is_card(words):
        return DISCARDS[_card(words)]
    raise InputError(
        f"{words!r} is not an action. Type {_hint(view)}, a number from the menu, or ? for help."
    )


def _is_card(word: str) -> bool:
    try:
        parse_card(word.upper())
    except CardError:
        return False
    return True


def _card(word: str) -> int:
    try:
        return parse_card(word.replace(" ", "").upper())
    except CardError:
        raise InputError(
            f"{word!r} is not a card: write a rank from A23456789TJQK (or 10) and a suit from "
            "CDHS, e.g. 7h, 10d or KS."
        ) from None


def _hint(view: View) -> str:
    """What can be typed now, in a few words."""
    if view.phase is Phase.FIRST_UPCARD:
        return f"t to take {CARD_NAMES[view.upcard]} or p to pass"
    if view.phase is Phase.DRAW:
        if DRAW_DISCARD in view.legal:
            return f"d to draw from the stock or t to take {CARD_NAMES[view.upcard]}"
        return "d to draw from the stock"
    if view.can_knock():
        return "a card to discard (e.g. 7h) or k and a card to knock"
    return "a card to discard, e.g. 7h"


def _legal(action: EngineAction, view: View) -> EngineAction:
    """``action`` if it is legal now, else an :class:`InputError` explaining the rule."""
    if action in view.legal:
        return action
    phase, kind = view.phase, action.kind
    if phase is Phase.FIRST_UPCARD:
        upcard = CARD_NAMES[view.upcard]
        raise InputError(
            f"The first upcard {upcard} is offered: take it (t) or pass (p); the stock is drawn "
            "only after both players pass."
        )
    if phase is Phase.DRAW:
        upcard = CARD_NAMES[view.upcard]  # a draw follows a discard: the pile is never empty
        if kind is ActionKind.DRAW_DISCARD:
            raise InputError(
                "Both players passed the first upcard: you must draw from the stock (d)."
            )
        if kind is ActionKind.PASS:
            raise InputError(
                "Passing is only for the first upcard: draw from the stock (d) or "
                f"take {upcard} (t)."
            )
        raise InputError(f"Draw first: {_hint(view)}; then discard.")
    # Phase.DISCARD
    if kind in (ActionKind.PASS, ActionKind.DRAW_STOCK, ActionKind.DRAW_DISCARD):
        raise InputError(f"You have drawn: now discard a card or knock ({_hint(view)}).")
    hand = view.hand
    card = action.card
    if card is None:  # big gin
        if not view.rules.big_gin:
            raise InputError("A knock needs a discard: type k and a card, e.g. k 7h.")
        raise InputError(
            f"Big gin needs all eleven cards melded; {deadwood(hand)} deadwood is left."
        )
    name = CARD_NAMES[card]
    if not hand >> card & 1:
        raise InputError(f"You do not hold {name}.")
    if card == view.taken_card:
        raise InputError(
            f"You just took {name} from the discard pile: you may not discard it this turn."
        )
    if kind is not ActionKind.KNOCK:
        raise InputError(f"You cannot discard {name} now ({_hint(view)}).")
    left = deadwood(hand & ~(1 << card))
    limit = view.knock_limit
    allowed = "only gin (no deadwood)" if limit == 0 else f"at most {limit}"
    raise InputError(
        f"You cannot knock discarding {name}: that leaves {left} deadwood, and a knock allows "
        f"{allowed}."
    )


__all__ = [
    "HELP_TEXT",
    "QUIT_WORDS",
    "InputError",
    "Meta",
    "parse_input",
]
