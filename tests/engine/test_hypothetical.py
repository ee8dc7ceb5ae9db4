"""``Hand.from_observation``: a hand continued from what one player sees, with the hidden cards
dealt as given (for search). From the real hidden cards it must go on exactly as the real hand;
from any other consistent deal it must be a legal hand; anything inconsistent is refused."""

from __future__ import annotations

import random

import pytest

from engine.cards import FULL_DECK, cards_of
from engine.hand import DRAW_STOCK, PASS, Hand, Phase
from engine.rules import PRESETS, Rules


def positions(rules: Rules, seed: int, count: int) -> list[tuple[Hand, list[int]]]:
    """Random positions with the decisions that follow them in the real hand: the hand at a
    random decision, and the seed of the random play after it."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        hand = Hand(rules, dealer=rng.randrange(2), seed=rng.randrange(1 << 30))
        stop = rng.randrange(40)
        for _ in range(stop):
            if hand.is_over:
                break
            hand.apply(rng.choice(hand.legal_actions()))
        if not hand.is_over:
            found.append((hand, [rng.randrange(1 << 30)]))
    return found


def play_out(hand: Hand, seed: int, player: int = 0) -> list[object]:
    """Random play to the end: every step's legal actions and both players' observations, and
    the result. The documented difference of a continued hand (the player's own taken cards are
    not marked as known to its opponent) is left out of the opponent's observation."""
    rng = random.Random(seed)
    trace: list[object] = []
    while not hand.is_over:
        legal = hand.legal_actions()
        theirs = hand.observation(1 - player)._replace(opponent_known=0)
        trace.append(([str(a) for a in legal], hand.observation(player), theirs))
        hand.apply(rng.choice(legal))
    trace.append(hand.result)
    return trace


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_from_the_real_hidden_cards_the_hand_goes_on_exactly(preset: str) -> None:
    rules = PRESETS[preset]
    for hand, (seed,) in positions(rules, len(preset), 60):
        player = hand.to_move
        seen = hand.observation(player)
        again = Hand.from_observation(seen, hand.hands[1 - player], hand.stock, rules)
        assert again.observation(player) == seen
        assert again.legal_actions() == hand.legal_actions()
        assert play_out(again, seed, player) == play_out(hand.copy(), seed, player)


def redeal(hand: Hand, rng: random.Random) -> tuple[int, list[int]]:
    """Another deal of the cards the player to move cannot see."""
    player = hand.to_move
    seen = hand.observation(player)
    pile = sum(1 << c for c in seen.discard_pile)
    hidden = cards_of(FULL_DECK & ~(seen.hand | pile | seen.opponent_known))
    rng.shuffle(hidden)
    extra = seen.opponent_hand_size - seen.opponent_known.bit_count()
    opponent = seen.opponent_known | sum(1 << c for c in hidden[:extra])
    return opponent, hidden[extra:]


def test_any_consistent_deal_is_a_legal_hand_keeping_every_public_fact() -> None:
    rng = random.Random(5)
    for hand, (seed,) in positions(PRESETS["hoyle"], 9, 120):
        player = hand.to_move
        seen = hand.observation(player)
        opponent, stock = redeal(hand, rng)
        guess = Hand.from_observation(seen, opponent, stock, hand.rules)
        assert guess.observation(player) == seen
        assert guess.cards_in_play() == FULL_DECK
        assert guess.hands[1 - player] == opponent and guess.stock == stock
        assert guess.deck == ()  # no real order travels with it
        play_out(guess, seed)  # checked play: every action legal to the end
        assert guess.is_over


def test_the_first_upcard_and_the_forced_stock_draw_carry_over() -> None:
    hand = Hand(dealer=0, seed=3)
    hand.apply(PASS)  # the non-dealer passes: the dealer is offered the upcard
    seen = hand.observation(0)
    guess = Hand.from_observation(seen, hand.hands[1], hand.stock)
    assert guess.legal_actions() == hand.legal_actions()
    guess.apply(PASS)  # both passed: the non-dealer must draw from the stock (R6)
    hand.apply(PASS)
    assert guess.phase is Phase.DRAW
    assert guess.legal_actions() == hand.legal_actions() == [DRAW_STOCK]
    again = Hand.from_observation(hand.observation(1), hand.hands[0], hand.stock)
    assert again.legal_actions() == [DRAW_STOCK]


def test_inconsistent_deals_are_refused_with_the_reason() -> None:
    hand = Hand(dealer=0, seed=11)
    player = hand.to_move
    seen = hand.observation(player)
    opponent, stock = hand.hands[1 - player], hand.stock
    mine = hand.hands[player]
    low = opponent & -opponent
    with pytest.raises(ValueError, match="holds 10 cards, not 9"):
        Hand.from_observation(seen, opponent ^ low, [*stock, low.bit_length() - 1])
    with pytest.raises(ValueError, match="none of the player's"):
        Hand.from_observation(seen, opponent ^ low | (mine & -mine), stock)
    with pytest.raises(ValueError, match="the stock must be 31 different cards, not 30"):
        Hand.from_observation(seen, opponent, stock[1:])
    with pytest.raises(ValueError, match="different"):
        Hand.from_observation(seen, opponent, [stock[0], *stock[1:-1], stock[0]])
    with pytest.raises(ValueError, match="not seen"):
        swapped = [c for c in stock]
        swapped[0] = low.bit_length() - 1
        Hand.from_observation(seen, opponent, swapped)
    with pytest.raises(ValueError, match="is not to move"):
        Hand.from_observation(hand.observation(1 - player), mine, stock)


def test_the_opponents_known_cards_must_stay_in_its_hand() -> None:
    hand = Hand(dealer=1, seed=2)
    hand.apply(hand.legal_actions()[0])  # the non-dealer takes the upcard
    assert str(hand.history[-1]) == "draw discard"
    hand.apply(next(a for a in hand.legal_actions() if a.kind == "discard"))
    seen = hand.observation(1)
    assert seen.opponent_known
    opponent, stock = hand.hands[0], list(hand.stock)
    known = seen.opponent_known
    swap = stock[0]
    with pytest.raises(ValueError, match="must include its known cards"):
        Hand.from_observation(
            seen, opponent ^ known | 1 << swap, [known.bit_length() - 1, *stock[1:]]
        )


def test_a_finished_hand_cannot_be_continued() -> None:
    hand = Hand(dealer=0, seed=4)
    rng = random.Random(1)
    while not hand.is_over:
        hand.apply(rng.choice(hand.legal_actions()))
    with pytest.raises(ValueError, match="finished"):
        Hand.from_observation(hand.observation(0), hand.hands[1], hand.stock)
