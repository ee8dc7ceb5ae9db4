"""Shared helpers for the engine tests: decks built from chosen hands, state snapshots, scripted
and random play, and a time limit for calls that could hang.

Imported by ``test_hand.py``, ``test_game.py`` and ``test_properties.py`` (pytest puts this
directory on ``sys.path``, as it does for ``reference.py``).
"""

from __future__ import annotations

import random
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from engine.cards import parse_card
from engine.hand import DISCARDS, DRAW_STOCK, PASS, Action, Hand, Phase

# Hands for constructed deals (see deck_for). In the scripted hands both players pass, the
# non-dealer draws the stock top (9S unless said) and knocks with it; "defender": the dealer's hand.
KNOCKER_4 = "AC 2C 3C 7H 8H 9H KD KH KS 4S"  # deadwood 4 (4S)
KNOCKER_10 = "AC 2C 3C 7H 8H 9H KD KH KS TS"  # deadwood 10 (TS)
KNOCKER_GIN = "AC 2C 3C 4C 7H 8H 9H KD KH KS"  # no deadwood
DEFENDER_LAYS_OFF = "4C TH KC 2D 6D 9D 5S 7S 9C JC"  # 4C, TH, KC lay off on KNOCKER_4: 48 left
DEFENDER_5 = "4D 5D 6D 2S 3S 4S QC QD QH 5C"  # deadwood 5, nothing to lay off
DEFENDER_10 = "4D 5D 6D 2S 3S 4S QC QD QH JS"  # deadwood 10, nothing to lay off
DEFENDER_0 = "4D 5D 6D 2S 3S 4S QC QD QH QS"  # no deadwood
DEFENDER_73 = "5C TH KC 2D 6D 9D 5S 7S 9C JC"  # would lay off 5C, TH, KC; 73 without
DEFENDER_74 = "6C TH KC 2D 6D 9D 5S 7S 9C JC"  # the same with 6C (5C is the big gin draw)
RUN_9 = "AC 2C 3C 4C 5C 6C 7C 8C 9C KD"  # deadwood 10
SPREAD_60 = "2D 4D 6D 8D TD 2S 4S 6S 8S TS"  # no meld, 60


def deck_for(non_dealer: str, dealer: str, upcard: str, stock: str = "") -> list[int]:
    """A deck order that deals ``non_dealer`` and ``dealer`` (ten cards each, as notation), turns
    ``upcard`` and puts ``stock`` (first card on top) on top of the stock; the other cards follow
    in ascending order. ``deck[0]`` goes to the non-dealer, then the cards alternate (R5)."""
    first = [parse_card(t) for t in non_dealer.split()]
    second = [parse_card(t) for t in dealer.split()]
    top = [parse_card(t) for t in stock.split()]
    if len(first) != 10 or len(second) != 10:
        raise ValueError(f"each player needs ten cards, got {len(first)} and {len(second)}")
    chosen = [c for pair in zip(first, second, strict=True) for c in pair]
    chosen += [parse_card(upcard), *top]
    if len(set(chosen)) != len(chosen):
        raise ValueError("a card is chosen twice")
    rest = sorted(set(range(52)) - set(chosen))
    return chosen + rest


def snapshot(hand: Hand) -> dict[str, Any]:
    """Every field of ``hand``, public and private, copied so that later changes cannot leak in."""
    out: dict[str, Any] = {}
    for name in Hand.__slots__:
        value = getattr(hand, name)
        out[name] = tuple(value) if isinstance(value, list) else value
    return out


def drawn_card(before: int, after: int) -> int:
    """The single card that ``after`` holds and ``before`` does not."""
    new = after & ~before
    assert new.bit_count() == 1, "expected exactly one new card"
    return new.bit_length() - 1


def pass_both(hand: Hand) -> None:
    """Both players pass the first upcard (R6)."""
    hand.apply(PASS)
    hand.apply(PASS)


def draw_stock_and_discard_it(hand: Hand) -> int:
    """One turn: draw from the stock and discard the card drawn (always legal). Returns it."""
    player = hand.to_move
    before = hand.hands[player]
    hand.apply(DRAW_STOCK)
    card = drawn_card(before, hand.hands[player])
    hand.apply(DISCARDS[card])
    return card


def random_play(hand: Hand, rng: random.Random, knocks: bool = True, limit: int = 10_000) -> None:
    """Play legal actions chosen by ``rng`` until the hand ends (or ``limit`` actions)."""
    for _ in range(limit):
        if hand.phase is Phase.FINISHED:
            return
        actions = hand.legal_actions()
        if not knocks:
            actions = [a for a in actions if a.kind.value != "knock"]
        hand.apply(rng.choice(actions))


def replay(hand: Hand, actions: list[Action]) -> Hand:
    for action in actions:
        hand.apply(action)
    return hand


class Hung(Exception):
    """A call did not return within its time limit."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`Hung` inside the block if it uses more than ``seconds`` of CPU time (POSIX
    only). CPU time, not the wall clock: an endless loop still trips it, a busy machine does not."""

    def on_alarm(signum: int, frame: object) -> None:
        raise Hung(f"no answer within {seconds} s of CPU time (an endless loop?)")

    previous = signal.signal(signal.SIGPROF, on_alarm)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
