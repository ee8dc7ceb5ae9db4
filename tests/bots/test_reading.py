"""bots.reading: the opponent's turns read from a history, the models' likelihoods, the mixture
fitted online, and particles consistent with everything known."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bots import reading
from bots.reading import RULE, SOFT, Reading, Turn
from bots.search import rollout
from bots.strong import HandMemory, opponent_odds, unseen_cards
from engine.cards import cards_of, parse_card, parse_cards
from engine.hand import (
    DISCARDS,
    DRAW_DISCARD,
    DRAW_STOCK,
    KNOCKS,
    PASS,
    Action,
    ActionKind,
    Hand,
    Phase,
)
from engine.rules import HOYLE


def cards(text: str) -> int:
    return int(parse_cards(text))


def test_turns_are_read_from_the_history() -> None:
    first, ks, qd = parse_card("KS"), parse_card("QD"), parse_card("9H")
    history = [
        (1, PASS, None),  # the opponent (seat 1) passes the first upcard
        (0, PASS, None),
        (1, DRAW_STOCK, None),
        (1, DISCARDS[qd], None),
        (0, DRAW_DISCARD, qd),
        (0, DISCARDS[ks], None),
        (1, DRAW_DISCARD, ks),
        (1, KNOCKS[parse_card("9H")], None),
    ]
    turns = reading.opponent_turns(history, 0, first)
    assert turns == [Turn(first, False, None), Turn(first, False, qd), Turn(ks, True, qd)]


def test_the_rule_knows_a_throw_it_would_not_make() -> None:
    kept = cards("2C 3C 4C 7H 7D 7S 9D TH JS QS")
    held_low = kept | 1 << parse_card("KD")
    assert RULE.throw(held_low, parse_card("KD")) > 0.9  # the highest deadwood card
    assert RULE.throw(held_low, parse_card("3C")) < 0.01  # breaks a run
    soft_good = SOFT.throw(held_low, parse_card("KD"))
    assert soft_good > SOFT.throw(held_low, parse_card("3C"))


def test_a_hand_holding_the_card_thrown_is_impossible() -> None:
    hand = cards("2C 3C 4C 7H 7D 7S 9D TH JS KD")
    assert reading.likelihood(SOFT, hand, [Turn(None, False, parse_card("KD"))], 10) == 0.0


def test_a_hand_it_could_have_knocked_with_is_unlikely() -> None:
    low = cards("2C 3C 4C 7H 7D 7S AD AH 2S 3H")  # 9 deadwood
    high = cards("2C 3C 4C 7H 7D 7S 9D TH JS QS")
    assert RULE.knock_kept(low, 10) == RULE.declines
    assert RULE.knock_kept(high, 10) == 1.0
    turn = [Turn(parse_card("KD"), False, parse_card("KD"))]
    assert reading.likelihood(RULE, low, turn, 10) < reading.likelihood(RULE, high, turn, 10)


def test_takes_follow_the_melds() -> None:
    hand = cards("2C 3C 7H 7D 9S TH JS QD KD AS")
    assert RULE.take(hand, parse_card("4C"), True) == RULE.takes
    assert RULE.take(hand, parse_card("4H"), True) == RULE.slip
    assert RULE.take(hand, parse_card("4H"), False) == pytest.approx(1 - RULE.slip)


def test_the_mixture_moves_to_the_model_that_explains_the_play() -> None:
    mix = Reading()
    assert mix.share == 0.5
    for _ in range(5):
        mix.update(0.9, 0.1)
    assert mix.share > 0.8
    for _ in range(20):
        mix.update(0.01, 0.5)
    assert mix.share < 0.5


def _position(seed: int) -> tuple[int, int, list[float]]:
    rng = random.Random(seed)
    deck = list(range(52))
    rng.shuffle(deck)
    mine = sum(1 << c for c in deck[:10])
    pile = deck[10:14]
    known = 1 << deck[14]
    memory = HandMemory(pile=list(pile), opponent_discards=1 << pile[0])
    unseen = unseen_cards(mine, pile, known)
    return unseen, known, opponent_odds(unseen, known, memory)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000))
def test_particles_hold_the_known_cards_and_only_unseen_ones(seed: int) -> None:
    unseen, known, odds = _position(seed)
    turns = [Turn(None, False, max(c for c in range(52) if not unseen >> c & 1))]
    weighted = reading.particles(
        random.Random(seed), unseen, known, odds, 24, turns=turns, knock_limit=10, reading=Reading()
    )
    assert len(weighted) == 24
    assert sum(w for _, w in weighted) == pytest.approx(1.0)
    for hand, w in weighted:
        assert w >= 0
        assert hand.bit_count() == 10
        assert hand & known == known
        assert hand & ~known & ~unseen == 0


def test_take_and_knock_chances_of_a_known_hand() -> None:
    hand = cards("2C 3C 4C 7H 7D 7S 9D 9H JS QS")  # 38 deadwood: 9D 9H JS QS
    one = [(hand, 1.0)]
    mix = Reading(1.0, 0.0)
    assert reading.take_chance(one, parse_card("9S"), mix) == RULE.takes
    assert reading.take_chance(one, parse_card("KH"), mix) == RULE.slip
    # it takes the 9S (a set of nines) and throws a queen: 10 deadwood, a knock
    assert reading.knock_chance(one, parse_card("9S"), cards("9C KC"), 10) == 1.0
    # it leaves the KH and draws 9C (a knock, as above) or KC (none), one chance in two
    assert reading.knock_chance(one, parse_card("KH"), cards("9C KC"), 10) == 0.5
    assert reading.knock_chance(one, parse_card("KH"), cards("KC"), 10) == 0.0


def _played_hand(seed: int, stop: int) -> tuple[Hand, list[tuple[int, Action, int | None]]]:
    """A hand of two fast-policy players (bots.search.rollout's) up to ``stop`` actions, and its
    history as seat 0 was told it."""
    deck = list(range(52))
    random.Random(seed).shuffle(deck)
    hand = Hand(HOYLE, 1, deck)
    told: list[tuple[int, Action, int | None]] = []
    while hand.phase is not Phase.FINISHED and len(told) < stop:
        player = hand.to_move
        before = hand.hands[player]
        top = hand.pile[-1] if hand.pile else None
        copy = hand.copy()
        rollout(copy, player, 1)  # the fast policy's next action, applied on a copy
        action = next(a for a in hand.legal_actions() if _same(hand, a, copy))
        hand.apply(action)
        card = None
        if action.kind is ActionKind.DRAW_DISCARD:
            card = top
        elif action.kind is ActionKind.DRAW_STOCK and player == 0:
            (card,) = cards_of(hand.hands[0] & ~before)
        told.append((player, action, card))
    return hand, told


def _same(hand: Hand, action: Action, after: Hand) -> bool:
    trial = hand.copy()
    trial.apply(action)
    return trial.hands == after.hands and trial.phase is after.phase and trial.pile == after.pile


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.integers(4, 30))
def test_filtered_hands_are_consistent_with_what_seat_zero_knows(seed: int, stop: int) -> None:
    hand, told = _played_hand(seed, stop)
    if hand.phase is Phase.FINISHED:
        return
    seen = hand.observation(0)
    unseen = unseen_cards(seen.hand, seen.discard_pile, seen.opponent_known)
    size = hand.hands[1].bit_count()
    weighted = reading.filtered(
        random.Random(seed),
        told,
        0,
        seen.first_upcard,
        unseen,
        count=40,
        knock_limit=10,
        hand_size=size,
    )
    assert weighted, "every hand followed was ruled out"
    assert sum(w for _, w in weighted) == pytest.approx(1.0)
    for opponent, _w in weighted:
        assert opponent.bit_count() == size
        assert opponent & seen.opponent_known == seen.opponent_known
        assert opponent & ~(unseen | seen.opponent_known) == 0


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000), st.integers(4, 30))
def test_rejuvenated_hands_are_consistent_with_what_seat_zero_knows(seed: int, stop: int) -> None:
    hand, told = _played_hand(seed, stop)
    if hand.phase is Phase.FINISHED:
        return
    seen = hand.observation(0)
    unseen = unseen_cards(seen.hand, seen.discard_pile, seen.opponent_known)
    size = hand.hands[1].bit_count()
    story = reading.story(told, 0, seen.first_upcard, unseen, 10)
    weighted = reading.rejuvenated(
        random.Random(seed), story, count=8, moves=3, share=0.9, hand_size=size
    )
    assert weighted, "every chain was ruled out"
    assert sum(w for _, w in weighted) == pytest.approx(1.0)
    for opponent, _w in weighted:
        assert opponent.bit_count() == size
        assert opponent & seen.opponent_known == seen.opponent_known
        assert opponent & ~(unseen | seen.opponent_known) == 0
