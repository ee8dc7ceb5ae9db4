"""One hand as a state machine: the deal, each phase, rule-tagged rejections, the show-down and its
score, action notation, observations and copies (R5-R19)."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
import reference
from scenarios import (
    DEFENDER_0,
    DEFENDER_5,
    DEFENDER_10,
    DEFENDER_73,
    DEFENDER_74,
    DEFENDER_LAYS_OFF,
    KNOCKER_4,
    KNOCKER_10,
    KNOCKER_GIN,
    RUN_9,
    SPREAD_60,
    deck_for,
    draw_stock_and_discard_it,
    pass_both,
    snapshot,
    time_limit,
)

from engine.cards import CARD_NAMES, FULL_DECK, VALUES, CardSet, parse_card, parse_cards
from engine.deck import shuffled_deck
from engine.hand import (
    BIG_GIN,
    DISCARDS,
    DRAW_DISCARD,
    DRAW_STOCK,
    KNOCKS,
    PASS,
    Action,
    ActionError,
    ActionKind,
    Hand,
    HandEnd,
    IllegalAction,
    Observation,
    Phase,
    score_knock,
)
from engine.rules import HOYLE, Rules

KNOCKER, DEFENDER = 1, 0


def dealt(
    non_dealer: str,
    dealer: str,
    upcard: str = "2H",
    stock: str = "9S",
    rules: Rules = HOYLE,
) -> Hand:
    """A hand from a constructed deck, both players passed and the non-dealer drawn."""
    hand = Hand(rules, DEFENDER, deck_for(non_dealer, dealer, upcard, stock))
    pass_both(hand)
    hand.apply(DRAW_STOCK)
    return hand


def expect_illegal(hand: Hand, action: Action, rule: str, words: str = "") -> IllegalAction:
    """Apply ``action``: it must raise IllegalAction for ``rule`` and change nothing at all."""
    before = snapshot(hand)
    with pytest.raises(IllegalAction) as info:
        hand.apply(action)
    assert info.value.rule == rule, str(info.value)
    assert str(info.value).startswith(f"{rule}: ")
    assert info.value.action == action
    assert words.lower() in str(info.value).lower()
    assert snapshot(hand) == before
    return info.value


def mask(text: str) -> int:
    return int(parse_cards(text))


# -- the deal (R5) -------------------------------------------------------------------------------


@pytest.mark.parametrize("dealer", [0, 1])
@pytest.mark.parametrize("seed", [0, 1, 99, 2**64 - 1])
def test_deal_layout(dealer: int, seed: int) -> None:
    hand = Hand(HOYLE, dealer, seed=seed)
    deck = shuffled_deck(seed)
    assert hand.deck == deck
    assert hand.hands[1 - dealer] == int(CardSet.of(deck[0:20:2]))
    assert hand.hands[dealer] == int(CardSet.of(deck[1:20:2]))
    assert hand.first_upcard == deck[20]
    assert hand.observation(0).discard_pile == (deck[20],)
    assert hand.observation(0).stock_size == 31
    assert hand.phase is Phase.FIRST_UPCARD
    assert hand.to_move == 1 - dealer
    assert hand.dealer == dealer
    assert hand.turn == 0
    assert hand.result is None
    assert hand.cards_in_play() == FULL_DECK


@pytest.mark.parametrize("dealer", [0, 1])
def test_stock_is_drawn_from_deck_21_onwards(dealer: int) -> None:
    hand = Hand(HOYLE, dealer, seed=11)
    pass_both(hand)
    drawn = [draw_stock_and_discard_it(hand) for _ in range(29)]
    assert drawn == list(hand.deck[21:50])
    assert hand.result is not None  # two stock cards left: drawn (R11)


def test_a_hand_needs_a_deck_or_a_seed_and_a_real_dealer() -> None:
    with pytest.raises(ValueError, match="deck order or a seed"):
        Hand()
    with pytest.raises(ValueError, match="dealer"):
        Hand(dealer=2, seed=1)
    assert Hand(deck=range(52), seed=5).deck == tuple(range(52))  # an explicit deck wins


# -- the first upcard (R6) ------------------------------------------------------------------------


def test_first_upcard_taken_by_the_non_dealer() -> None:
    hand = Hand(HOYLE, 0, seed=3)
    upcard = hand.first_upcard
    assert hand.legal_actions() == [DRAW_DISCARD, PASS]
    hand.apply(DRAW_DISCARD)
    assert hand.phase is Phase.DISCARD
    assert hand.to_move == 1
    assert hand.hands[1] >> upcard & 1
    assert hand.hands[1].bit_count() == 11
    assert hand.observation(1).discard_pile == ()
    assert hand.taken_card == upcard
    assert hand.turn == 1
    discard = next(c for c in CardSet(hand.hands[1]) if c != upcard)
    hand.apply(DISCARDS[discard])
    assert hand.phase is Phase.DRAW
    assert hand.to_move == 0  # then the dealer takes a normal turn
    assert hand.legal_actions() == [DRAW_STOCK, DRAW_DISCARD]
    assert hand.observation(0).discard_pile == (discard,)


def test_first_upcard_passed_then_taken_by_the_dealer() -> None:
    hand = Hand(HOYLE, 0, seed=3)
    upcard = hand.first_upcard
    hand.apply(PASS)
    assert hand.phase is Phase.FIRST_UPCARD
    assert hand.to_move == 0
    assert hand.legal_actions() == [DRAW_DISCARD, PASS]
    hand.apply(DRAW_DISCARD)
    assert hand.to_move == 0
    assert hand.hands[0] >> upcard & 1
    assert hand.taken_card == upcard
    discard = next(c for c in CardSet(hand.hands[0]) if c != upcard)
    hand.apply(DISCARDS[discard])
    assert hand.phase is Phase.DRAW
    assert hand.to_move == 1  # then the non-dealer takes a normal turn
    assert hand.legal_actions() == [DRAW_STOCK, DRAW_DISCARD]


def test_both_pass_then_the_non_dealer_must_draw_from_the_stock() -> None:
    hand = Hand(HOYLE, 1, seed=3)
    pass_both(hand)
    assert hand.phase is Phase.DRAW
    assert hand.to_move == 0
    assert hand.legal_actions() == [DRAW_STOCK]
    expect_illegal(hand, DRAW_DISCARD, "R6", "must draw from the stock")
    expect_illegal(hand, PASS, "R6")
    hand.apply(DRAW_STOCK)
    assert hand.hands[0] >> hand.deck[21] & 1
    assert hand.taken_card is None
    draw_card = hand.deck[21]
    hand.apply(DISCARDS[draw_card])  # a card drawn from the stock may go straight back (R8)
    assert hand.to_move == 1
    assert hand.legal_actions() == [DRAW_STOCK, DRAW_DISCARD]  # the restriction is over


def test_first_upcard_phase_rejects_everything_but_take_and_pass() -> None:
    hand = Hand(HOYLE, 0, seed=8)
    card = next(iter(CardSet(hand.hands[1])))
    expect_illegal(hand, DRAW_STOCK, "R6", "pass")
    expect_illegal(hand, DISCARDS[card], "R6")
    expect_illegal(hand, KNOCKS[card], "R6")
    expect_illegal(hand, BIG_GIN, "R6")
    hand.apply(PASS)
    expect_illegal(hand, DRAW_STOCK, "R6")


def test_draw_phase_rejects_pass_and_discards() -> None:
    hand = Hand(HOYLE, 0, seed=8)
    pass_both(hand)
    hand.apply(DRAW_STOCK)
    hand.apply(DISCARDS[hand.deck[21]])
    assert hand.phase is Phase.DRAW
    card = next(iter(CardSet(hand.hands[hand.to_move])))
    expect_illegal(hand, PASS, "R6", "only allowed on the first upcard")
    expect_illegal(hand, DISCARDS[card], "R7", "draw first")
    expect_illegal(hand, KNOCKS[card], "R7")
    expect_illegal(hand, BIG_GIN, "R7")


def test_discard_phase_rejects_draws_and_cards_not_held() -> None:
    hand = Hand(HOYLE, 0, seed=8)
    pass_both(hand)
    hand.apply(DRAW_STOCK)
    held = hand.hands[1]
    other = next(c for c in range(52) if not held >> c & 1)
    expect_illegal(hand, PASS, "R7", "discard or knock")
    expect_illegal(hand, DRAW_STOCK, "R7")
    expect_illegal(hand, DRAW_DISCARD, "R7")
    expect_illegal(hand, DISCARDS[other], "R7", f"{CARD_NAMES[other]} is not in your hand")
    expect_illegal(hand, KNOCKS[other], "R7", "not in your hand")
    expect_illegal(hand, Action(ActionKind.DISCARD), "R7", "needs a card")
    expect_illegal(hand, Action(ActionKind.DISCARD, 52), "R7")
    expect_illegal(hand, Action(ActionKind.DISCARD, -1), "R7")


def test_finished_hand_rejects_everything() -> None:
    hand = dealt(KNOCKER_4, DEFENDER_LAYS_OFF)
    hand.apply(KNOCKS[parse_card("9S")])
    assert hand.is_over
    assert hand.legal_actions() == []
    for action in (PASS, DRAW_STOCK, DRAW_DISCARD, DISCARDS[0], KNOCKS[0], BIG_GIN):
        expect_illegal(hand, action, "R7", "over")


# -- R8: the card just taken from the discard pile --------------------------------------------

R8_HAND = "AC 2C 3C 4D 5D 6D 7H 8H 9H KS"  # deadwood 10 (KS)
R8_DEALER = "2S 3S 5S 6S 8S 9S JC QC 4H 5H"


def r8_hand(rules: Rules = HOYLE) -> Hand:
    hand = Hand(rules, 0, deck_for(R8_HAND, R8_DEALER, "QD"))
    hand.apply(DRAW_DISCARD)  # the non-dealer takes QD
    return hand


def test_r8_taken_card_may_not_be_discarded_or_knocked_with() -> None:
    hand = r8_hand()
    qd = parse_card("QD")
    assert DISCARDS[qd] not in hand.legal_actions()
    assert KNOCKS[qd] not in hand.legal_actions()
    assert KNOCKS[parse_card("KS")] in hand.legal_actions()  # keeping QD: deadwood 10
    expect_illegal(hand, DISCARDS[qd], "R8", "QD was just taken")
    expect_illegal(hand, KNOCKS[qd], "R8")
    hand.apply(KNOCKS[parse_card("KS")])
    assert hand.result is not None
    assert hand.result.show_down is not None
    assert hand.result.show_down.knocker_deadwood == 10


def test_r8_lifted_by_option_o5() -> None:
    rules = HOYLE.replace(discard_taken_card=True)
    qd = parse_card("QD")
    hand = r8_hand(rules)
    assert DISCARDS[qd] in hand.legal_actions()
    assert KNOCKS[qd] in hand.legal_actions()
    hand.apply(DISCARDS[qd])
    assert hand.observation(0).discard_pile == (qd,)
    hand = r8_hand(rules)
    hand.apply(KNOCKS[qd])
    assert hand.result is not None
    assert hand.result.show_down is not None
    assert hand.result.show_down.discard == qd


def test_r8_only_lasts_the_turn_and_is_shown_to_the_taker_only() -> None:
    hand = r8_hand()
    qd = parse_card("QD")
    assert hand.observation(1).taken_card == qd
    assert hand.observation(0).taken_card is None
    assert hand.observation(0).opponent_known == 1 << qd  # a card taken from the pile is public
    hand.apply(DISCARDS[parse_card("KS")])
    assert hand.taken_card is None
    assert hand.observation(1).taken_card is None


# -- knocking (R9, R18) --------------------------------------------------------------------------


def test_knock_legality_is_exactly_deadwood_within_the_limit() -> None:
    hand = dealt(KNOCKER_10, DEFENDER_5)
    held = hand.hands[KNOCKER]
    want = {c for c in CardSet(held) if reference.deadwood(held & ~(1 << c)) <= 10}
    assert want == {parse_card("9S"), parse_card("TS")}  # 10 left, or 9 left
    legal = hand.legal_actions()
    assert {a.card for a in legal if a.kind is ActionKind.KNOCK} == want
    assert {a.card for a in legal if a.kind is ActionKind.DISCARD} == set(CardSet(held))


def test_knock_at_the_limit_is_legal_and_above_is_r9() -> None:
    # Eleven cards AC 2C 3C 7H 8H 9H KD KH KS TS + JS: out JS leaves 10, out TS leaves 10.
    hand = dealt(KNOCKER_10, DEFENDER_5, stock="JS")
    assert KNOCKS[parse_card("JS")] in hand.legal_actions()
    assert KNOCKS[parse_card("TS")] in hand.legal_actions()
    expect_illegal(hand, KNOCKS[parse_card("AC")], "R9", "knock limit is 10")
    hand = dealt(KNOCKER_10, DEFENDER_5, stock="JS", rules=HOYLE.replace(knock_limit=9))
    assert not [a for a in hand.legal_actions() if a.kind is ActionKind.KNOCK]
    expect_illegal(hand, KNOCKS[parse_card("JS")], "R9", "least deadwood is 10")


def test_knocking_is_allowed_on_the_first_turn() -> None:
    hand = Hand(HOYLE, 0, deck_for(R8_HAND, R8_DEALER, "3H"))
    hand.apply(DRAW_DISCARD)
    hand.apply(KNOCKS[parse_card("KS")])  # first action after taking the upcard
    assert hand.result is not None
    assert hand.result.end in (HandEnd.KNOCK, HandEnd.UNDERCUT)


def test_nobody_is_obliged_to_knock() -> None:
    hand = dealt(KNOCKER_GIN, DEFENDER_0)
    hand.apply(DISCARDS[parse_card("9S")])
    assert not hand.is_over


# -- declared melds (R3, R10) -------------------------------------------------------------------

TWO_WAYS = "5H 6H 7H 8H 8C 8D 8S AC 2D 3S"  # 8H fits the run or the set; deadwood 6
DEFENDER_9H = "9H TC JD QS 2S 4S 6S 9D KC 5D"  # 75, and 9H lays off on a 5H-8H run only


def test_declared_melds_are_used_for_lay_offs() -> None:
    hand = dealt(TWO_WAYS, DEFENDER_9H, stock="KD")
    hand.apply(Action.parse("knock KD / 5H 6H 7H 8H / 8C 8D 8S"))
    result = hand.result
    assert result is not None
    assert result.show_down is not None
    assert result.show_down.knocker_melds == tuple(sorted((mask("5H 6H 7H 8H"), mask("8C 8D 8S"))))
    assert [CARD_NAMES[lo.card] for lo in result.show_down.lay_offs] == ["9H"]
    assert (result.end, result.winner, result.points) == (HandEnd.KNOCK, KNOCKER, 66 - 6)

    hand = dealt(TWO_WAYS, DEFENDER_9H, stock="KD")
    hand.apply(Action.parse("knock KD / 5H 6H 7H / 8C 8D 8H 8S"))
    assert hand.result is not None
    assert hand.result.show_down is not None
    assert hand.result.show_down.lay_offs == ()
    assert hand.result.points == 75 - 6


@pytest.mark.parametrize(
    ("notation", "words"),
    [
        ("knock KD / 5H 6H 8H", "not a meld"),
        ("knock KD / 2S 3S 4S", "not in the hand"),
        ("knock KD / 5H 6H 7H 8H / 8C 8D 8H", "already used"),
        ("knock 8H / 5H 6H 7H 8H", "not in the hand"),  # the discard is not kept
        ("knock KD / 8C 8D", "at least 3"),
    ],
)
def test_bad_declared_melds_are_r3(notation: str, words: str) -> None:
    hand = dealt(TWO_WAYS, DEFENDER_9H, stock="KD")
    expect_illegal(hand, Action.parse(notation), "R3", words)


def test_a_declared_q_k_a_is_rejected_under_r1() -> None:
    hand = dealt(TWO_WAYS, DEFENDER_9H, stock="KD")
    expect_illegal(hand, Action.parse("knock KD / QS KS AS"), "R1", "Q-K-A")


def test_declared_melds_must_reach_the_knock_limit() -> None:
    hand = dealt(TWO_WAYS, DEFENDER_9H, stock="KD")
    assert KNOCKS[parse_card("KD")] in hand.legal_actions()
    expect_illegal(
        hand, Action.parse("knock KD / 5H 6H 7H / 8C 8D 8S"), "R9", "declared melds leave 14"
    )
    oklahoma = HOYLE.replace(oklahoma=True)
    hand = dealt(TWO_WAYS, DEFENDER_9H, upcard="5C", stock="KD", rules=oklahoma)
    expect_illegal(hand, Action.parse("knock KD / 5H 6H 7H 8H / 8C 8D 8S"), "R18", "limit is 5")


def test_malformed_meld_masks_are_illegal_actions_not_crashes() -> None:
    # Not reachable through Action.parse, but Action is a public constructor (e.g. for bots and
    # the protocol): the checked entry point should reject, not crash or hang.
    hand = dealt(TWO_WAYS, DEFENDER_9H, stock="KD")
    kd = parse_card("KD")
    too_big = mask("5H 6H 7H") | 1 << 60
    expect_illegal(hand, Action(ActionKind.KNOCK, kd, (too_big,)), "R3")


@pytest.mark.parametrize("kind", [ActionKind.PASS, ActionKind.DRAW_STOCK, ActionKind.DRAW_DISCARD])
def test_only_discards_and_knocks_name_a_card(kind: ActionKind) -> None:
    # As "only a knock declares melds": a pass or a draw carrying a card is malformed. Accepted,
    # it lands in the history as an action whose notation ("pass") does not say what it holds.
    hand = Hand(HOYLE, 0, seed=8)
    if kind is ActionKind.DRAW_STOCK:
        pass_both(hand)
    card = next(iter(CardSet(hand.hands[hand.to_move])))
    expect_illegal(hand, Action(kind, card), "R7")


def test_negative_meld_mask_does_not_hang_the_referee() -> None:
    hand = dealt(TWO_WAYS, DEFENDER_9H, stock="KD")
    with time_limit(0.5):
        expect_illegal(hand, Action(ActionKind.KNOCK, parse_card("KD"), (-1,)), "R3")


# -- big gin (R19) -------------------------------------------------------------------------------


def test_big_gin_off_by_default() -> None:
    hand = dealt(KNOCKER_GIN, DEFENDER_74, stock="5C")
    assert BIG_GIN not in hand.legal_actions()
    expect_illegal(hand, BIG_GIN, "R19", "needs a discard")


def test_big_gin_scores_its_bonus_without_lay_offs() -> None:
    rules = HOYLE.replace(big_gin=True)
    hand = dealt(KNOCKER_GIN, DEFENDER_74, stock="5C", rules=rules)
    assert BIG_GIN in hand.legal_actions()
    assert KNOCKS[parse_card("5C")] in hand.legal_actions()  # plain gin is still possible
    hand.apply(BIG_GIN)
    result = hand.result
    assert result is not None
    assert result.end is HandEnd.BIG_GIN
    assert result.winner == KNOCKER
    assert result.points == 74 + 31  # 6C would fit AC-5C, but nobody lays off against gin
    assert result.show_down is not None
    assert result.show_down.lay_offs == ()
    assert result.show_down.discard is None
    assert hand.hands[KNOCKER].bit_count() == 11


def test_big_gin_bonus_option_and_declared_melds() -> None:
    rules = HOYLE.replace(big_gin=True, big_gin_bonus=50)
    hand = dealt(KNOCKER_GIN, DEFENDER_0, stock="5C", rules=rules)
    hand.apply(Action.parse("knock / AC 2C 3C 4C 5C / 7H 8H 9H / KD KH KS"))
    assert hand.result is not None
    assert (hand.result.end, hand.result.points) == (HandEnd.BIG_GIN, 50)


def test_big_gin_needs_all_eleven_cards_melded() -> None:
    rules = HOYLE.replace(big_gin=True)
    hand = dealt(KNOCKER_4, DEFENDER_LAYS_OFF, rules=rules)
    assert BIG_GIN not in hand.legal_actions()
    expect_illegal(hand, BIG_GIN, "R19", "all eleven")
    hand = dealt(KNOCKER_GIN, DEFENDER_0, stock="5C", rules=rules)
    expect_illegal(hand, Action.parse("knock / AC 2C 3C 4C / 7H 8H 9H / KD KH KS"), "R19", "5")
    hand = dealt(KNOCKER_GIN, DEFENDER_0, stock="AD", rules=rules)  # one deadwood point
    assert BIG_GIN not in hand.legal_actions()
    assert KNOCKS[parse_card("AD")] in hand.legal_actions()  # gin, with a discard
    expect_illegal(hand, BIG_GIN, "R19", "1 deadwood")


# -- end of the stock (R11) and the turn limit (R17) --------------------------------------------


def test_r11_drawn_when_a_discard_leaves_two_stock_cards() -> None:
    hand = Hand(HOYLE, 0, deck_for(RUN_9, SPREAD_60, "KH"))
    pass_both(hand)
    for _ in range(28):
        draw_stock_and_discard_it(hand)
    assert not hand.is_over
    assert hand.observation(0).stock_size == 3
    draw_stock_and_discard_it(hand)
    result = hand.result
    assert result is not None
    assert (result.end, result.winner, result.points, result.show_down) == (
        HandEnd.DRAWN,
        None,
        0,
        None,
    )
    assert hand.observation(0).stock_size == 2


def test_r11_a_knock_on_the_last_turn_still_scores() -> None:
    hand = Hand(HOYLE, 0, deck_for(RUN_9, SPREAD_60, "KH"))
    pass_both(hand)
    for _ in range(28):
        draw_stock_and_discard_it(hand)
    assert hand.to_move == 1
    before = hand.hands[1]
    hand.apply(DRAW_STOCK)
    assert hand.observation(1).stock_size == 2
    card = (hand.hands[1] & ~before).bit_length() - 1
    hand.apply(KNOCKS[card])
    assert hand.result is not None
    assert (hand.result.end, hand.result.winner, hand.result.points) == (HandEnd.KNOCK, 1, 50)


@pytest.mark.parametrize("floor", [0, 5])
def test_r11_floor_is_an_option(floor: int) -> None:
    hand = Hand(HOYLE.replace(stock_exhausted_at=floor), 0, deck_for(RUN_9, SPREAD_60, "KH"))
    pass_both(hand)
    for _ in range(31 - floor - 1):
        draw_stock_and_discard_it(hand)
    assert not hand.is_over
    draw_stock_and_discard_it(hand)
    assert hand.result is not None
    assert hand.result.end is HandEnd.DRAWN
    assert hand.observation(0).stock_size == floor


def test_r17_turn_limit_counts_draws() -> None:
    rules = HOYLE.replace(turn_limit=3)
    hand = Hand(rules, 0, seed=4)
    pass_both(hand)
    draw_stock_and_discard_it(hand)
    draw_stock_and_discard_it(hand)
    assert not hand.is_over
    assert hand.turn == 2
    draw_stock_and_discard_it(hand)
    assert hand.result is not None
    assert (hand.result.end, hand.result.winner, hand.result.points) == (
        HandEnd.TURN_LIMIT,
        None,
        0,
    )


def test_r17_taking_the_first_upcard_is_a_turn() -> None:
    hand = Hand(HOYLE.replace(turn_limit=2), 0, seed=4)
    hand.apply(DRAW_DISCARD)
    assert hand.turn == 1
    hand.apply(DISCARDS[next(c for c in CardSet(hand.hands[1]) if c != hand.first_upcard)])
    assert not hand.is_over
    draw_stock_and_discard_it(hand)
    assert hand.result is not None
    assert hand.result.end is HandEnd.TURN_LIMIT


# -- Oklahoma (R18) ------------------------------------------------------------------------------


@pytest.mark.parametrize("rank", list("A23456789TJQK"))
@pytest.mark.parametrize("suit", ["H", "S"])
def test_oklahoma_knock_limit_is_the_upcard_value(rank: str, suit: str) -> None:
    upcard = parse_card(rank + suit)
    order = list(shuffled_deck(1))
    at = order.index(upcard)
    order[at], order[20] = order[20], order[at]
    rules = HOYLE.replace(oklahoma=True, knock_limit=3)  # knock_limit is ignored then
    hand = Hand(rules, 0, order)
    want = 0 if rank == "A" else VALUES[upcard]
    assert want == {"A": 0, "T": 10, "J": 10, "Q": 10, "K": 10}.get(rank, want)
    assert hand.knock_limit == want
    assert hand.observation(0).knock_limit == want
    assert Hand(HOYLE.replace(knock_limit=3), 0, order).knock_limit == 3


def test_oklahoma_limit_decides_knocks() -> None:
    oklahoma = HOYLE.replace(oklahoma=True)
    hand = dealt(KNOCKER_4, DEFENDER_LAYS_OFF, upcard="4H", rules=oklahoma)
    assert KNOCKS[parse_card("9S")] in hand.legal_actions()
    hand = dealt(KNOCKER_4, DEFENDER_LAYS_OFF, upcard="3H", rules=oklahoma)
    assert KNOCKS[parse_card("9S")] not in hand.legal_actions()
    expect_illegal(hand, KNOCKS[parse_card("9S")], "R18", "limit is 3")
    hand = dealt(KNOCKER_4, DEFENDER_LAYS_OFF, upcard="AH", rules=oklahoma)
    expect_illegal(hand, KNOCKS[parse_card("9S")], "R18", "limit is 0")
    hand = dealt(KNOCKER_GIN, DEFENDER_73, upcard="AH", rules=oklahoma)
    hand.apply(KNOCKS[parse_card("9S")])  # an Ace upcard: gin only
    assert hand.result is not None
    assert hand.result.end is HandEnd.GIN


@pytest.mark.parametrize(
    ("knocker", "defender", "upcard", "points"),
    [
        (KNOCKER_4, DEFENDER_LAYS_OFF, "TS", 44),
        (KNOCKER_10, DEFENDER_5, "JS", 15),
        (KNOCKER_GIN, DEFENDER_73, "JS", 98),
    ],
)
def test_oklahoma_spade_upcard_doubles_the_score(
    knocker: str, defender: str, upcard: str, points: int
) -> None:
    def play(rules: Rules, up: str) -> tuple[int, bool]:
        hand = dealt(knocker, defender, upcard=up, rules=rules)
        hand.apply(KNOCKS[parse_card("9S")])
        assert hand.result is not None
        return hand.result.points, hand.result.doubled

    oklahoma = HOYLE.replace(oklahoma=True)
    other_suit = upcard[0] + "D"
    assert play(oklahoma, upcard) == (2 * points, True)
    assert play(oklahoma, other_suit) == (points, False)
    assert play(oklahoma.replace(oklahoma_spades_double=False), upcard) == (points, False)
    assert play(HOYLE, upcard) == (points, False)


# -- scoring (R10, R12-R14) ----------------------------------------------------------------------


def knock_result(
    knocker: str, defender: str, rules: Rules = HOYLE, stock: str = "9S"
) -> tuple[HandEnd, int | None, int]:
    hand = dealt(knocker, defender, stock=stock, rules=rules)
    hand.apply(KNOCKS[parse_card(stock)])
    assert hand.result is not None
    assert hand.cards_in_play() == FULL_DECK
    return hand.result.end, hand.result.winner, hand.result.points


def test_knock_win_scores_the_difference_after_lay_offs() -> None:
    hand = dealt(KNOCKER_4, DEFENDER_LAYS_OFF)
    hand.apply(KNOCKS[parse_card("9S")])
    result = hand.result
    assert result is not None
    assert (result.end, result.winner, result.points) == (HandEnd.KNOCK, KNOCKER, 48 - 4)
    show = result.show_down
    assert show is not None
    assert show.knocker == KNOCKER
    assert show.discard == parse_card("9S")
    assert show.knocker_deadwood == 4
    assert show.knocker_deadwood_cards == mask("4S")
    assert sorted(CARD_NAMES[lo.card] for lo in show.lay_offs) == ["4C", "KC", "TH"]
    assert show.defender_deadwood == 48
    assert show.defender_deadwood_cards == mask("2D 6D 9D 5S 7S 9C JC")
    assert str(result) == "knock: player 1 scores 44"


def test_lay_offs_name_the_meld_they_extend() -> None:
    hand = dealt(KNOCKER_4, DEFENDER_LAYS_OFF)
    hand.apply(KNOCKS[parse_card("9S")])
    assert hand.result is not None
    show = hand.result.show_down
    assert show is not None
    targets = {
        CARD_NAMES[lo.card]: format(CardSet(show.knocker_melds[lo.meld_index]))
        for lo in show.lay_offs
    }
    assert targets == {"4C": "AC 2C 3C", "TH": "7H 8H 9H", "KC": "KD KH KS"}


def test_lay_offs_chain_along_a_run() -> None:
    # TH goes on 7H 8H 9H and JH on the TH: 10 + 10 off the defender's count (R10).
    hand = dealt(KNOCKER_4, "TH JH 2D 6D 9D 5S 7S 9C JC 4D")
    hand.apply(KNOCKS[parse_card("9S")])
    result = hand.result
    assert result is not None
    assert result.show_down is not None
    assert sorted(CARD_NAMES[lo.card] for lo in result.show_down.lay_offs) == ["JH", "TH"]
    assert (result.end, result.winner, result.points) == (HandEnd.KNOCK, KNOCKER, 52 - 4)


def test_undercut_scores_difference_plus_bonus_to_the_defender() -> None:
    assert knock_result(KNOCKER_10, DEFENDER_5) == (HandEnd.UNDERCUT, DEFENDER, 10 - 5 + 10)
    rules = HOYLE.replace(undercut_bonus=25)
    assert knock_result(KNOCKER_10, DEFENDER_5, rules) == (HandEnd.UNDERCUT, DEFENDER, 30)


def test_tie_is_an_undercut_by_default_and_a_zero_knock_under_o4() -> None:
    assert knock_result(KNOCKER_10, DEFENDER_10) == (HandEnd.UNDERCUT, DEFENDER, 10)
    rules = HOYLE.replace(undercut_on_tie=False)
    assert knock_result(KNOCKER_10, DEFENDER_10, rules) == (HandEnd.KNOCK, KNOCKER, 0)
    assert knock_result(KNOCKER_10, DEFENDER_5, rules) == (HandEnd.UNDERCUT, DEFENDER, 15)


def test_gin_scores_defender_deadwood_plus_bonus_without_lay_offs() -> None:
    assert knock_result(KNOCKER_GIN, DEFENDER_73) == (HandEnd.GIN, KNOCKER, 73 + 25)
    rules = HOYLE.replace(gin_bonus=20)
    assert knock_result(KNOCKER_GIN, DEFENDER_73, rules) == (HandEnd.GIN, KNOCKER, 93)
    hand = dealt(KNOCKER_GIN, DEFENDER_73)
    hand.apply(KNOCKS[parse_card("9S")])
    assert hand.result is not None
    assert hand.result.show_down is not None
    assert hand.result.show_down.lay_offs == ()
    assert hand.result.show_down.defender_deadwood == 73


def test_gin_beats_a_defender_with_no_deadwood() -> None:
    assert knock_result(KNOCKER_GIN, DEFENDER_0) == (HandEnd.GIN, KNOCKER, 25)


def test_dealer_can_knock_too() -> None:
    # The same knock with the seats swapped: player 0 deals, player 1 knocks; now player 1 deals.
    order = deck_for(KNOCKER_4, DEFENDER_LAYS_OFF, "2H", "9S")
    hand = Hand(HOYLE, 1, order)
    pass_both(hand)
    hand.apply(DRAW_STOCK)
    hand.apply(KNOCKS[parse_card("9S")])
    assert hand.result is not None
    assert (hand.result.winner, hand.result.points) == (0, 44)


# -- illegal actions change nothing -------------------------------------------------------------


def states() -> list[tuple[str, Callable[[], Hand]]]:
    def first() -> Hand:
        return Hand(HOYLE, 0, seed=21)

    def forced() -> Hand:
        hand = first()
        pass_both(hand)
        return hand

    def drawing() -> Hand:
        hand = forced()
        draw_stock_and_discard_it(hand)
        return hand

    def taken() -> Hand:
        return r8_hand()

    def finished() -> Hand:
        hand = dealt(KNOCKER_4, DEFENDER_LAYS_OFF)
        hand.apply(KNOCKS[parse_card("9S")])
        return hand

    def drawn() -> Hand:
        hand = Hand(HOYLE, 0, deck_for(RUN_9, SPREAD_60, "KH"))
        pass_both(hand)
        while not hand.is_over:
            draw_stock_and_discard_it(hand)
        return hand

    return [
        ("first", first),
        ("forced", forced),
        ("drawing", drawing),
        ("taken", taken),
        ("finished", finished),
        ("drawn", drawn),
    ]


POOL = [
    PASS,
    DRAW_STOCK,
    DRAW_DISCARD,
    BIG_GIN,
    *DISCARDS,
    *KNOCKS,
    Action.parse("knock QD / AC 2C 3C / 4D 5D 6D / 7H 8H 9H"),
    Action.parse("knock KS / AC 2C 3C 4C"),
    Action.parse("knock / AC 2C 3C"),
    Action(ActionKind.DISCARD),
]


@pytest.mark.parametrize(("name", "build"), states(), ids=[n for n, _ in states()])
def test_every_illegal_action_changes_nothing(name: str, build: Callable[[], Hand]) -> None:
    hand = build()
    legal = hand.legal_actions()
    rejected = 0
    for action in POOL:
        if action in legal:
            continue
        before = snapshot(hand)
        try:
            hand.apply(action)
        except IllegalAction as error:
            assert error.rule.startswith("R"), str(error)
            rejected += 1
        else:
            # Only a knock with a valid declared arrangement may be legal without being listed.
            assert action.melds is not None, f"{action} was accepted in state {name}"
            hand = build()
            continue
        assert snapshot(hand) == before, f"{action} changed the state {name}"
    assert rejected >= len(POOL) - len(legal) - 1


# -- notation ------------------------------------------------------------------------------------


def every_plain_action() -> list[Action]:
    return [PASS, DRAW_STOCK, DRAW_DISCARD, BIG_GIN, *DISCARDS, *KNOCKS]


def test_notation_round_trip_for_every_plain_action() -> None:
    texts = set()
    for action in every_plain_action():
        text = str(action)
        texts.add(text)
        assert Action.parse(text) == action
        assert eval(repr(action), {"Action": Action}) == action
    assert len(texts) == 4 + 52 + 52


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("pass", PASS),
        ("draw stock", DRAW_STOCK),
        ("draw discard", DRAW_DISCARD),
        ("discard 7H", DISCARDS[parse_card("7H")]),
        ("knock 7H", KNOCKS[parse_card("7H")]),
        ("knock", BIG_GIN),
        ("  PASS ", PASS),
        ("Draw   Stock", DRAW_STOCK),
        ("DISCARD 10h", DISCARDS[parse_card("TH")]),
        ("discard 7h", DISCARDS[parse_card("7H")]),
        ("Knock Ts", KNOCKS[parse_card("TS")]),
    ],
)
def test_parse_plain_notation(text: str, want: Action) -> None:
    assert Action.parse(text) == want


@pytest.mark.parametrize(
    "text",
    [
        "knock 7H / AS 2S 3S",
        "knock 7H / AS 2S 3S / 7C 7D 7S",
        "knock TD / 9C TC JC QC KC / 2C 2D 2H 2S",
        "knock / AC 2C 3C 4C 5C / 7H 8H 9H / KD KH KS",
    ],
)
def test_declared_melds_round_trip(text: str) -> None:
    action = Action.parse(text)
    assert action.kind is ActionKind.KNOCK
    assert action.melds is not None
    groups = [g.strip() for g in text.split("/")[1:]]
    assert action.melds == tuple(mask(g) for g in groups)
    assert str(action) == text
    assert Action.parse(str(action)) == action
    assert eval(repr(action), {"Action": Action}) == action


@pytest.mark.parametrize(("text", "card"), [("knock 7H /", "7H"), ("knock /", None)])
def test_an_empty_declaration_round_trips(text: str, card: str | None) -> None:
    action = Action.parse(text)
    assert action == Action(ActionKind.KNOCK, None if card is None else parse_card(card), ())
    assert action != Action.parse(text.rstrip(" /"))  # declaring nothing is not declaring none
    assert str(action) == text
    assert Action.parse(str(action)) == action


def test_declared_melds_accept_loose_spelling() -> None:
    action = Action.parse("KNOCK 7h/As 2s 3s /  10c 10d 10h")
    assert action == Action(
        ActionKind.KNOCK, parse_card("7H"), (mask("AS 2S 3S"), mask("TC TD TH"))
    )


@pytest.mark.parametrize(
    "text",
    [
        "",
        "fold",
        "pass now",
        "pass / AS 2S 3S",
        "draw",
        "draw deck",
        "draw stock / AS",
        "draw discard please",
        "discard",
        "discard 7H 8H",
        "discard 7X",
        "discard 7H / AS 2S 3S",
        "discard th",
        "knock 7H 8H",
        "knock 1H",
        "knock 7H / AS ZS 3S",
        "knock7H",
    ],
)
def test_bad_notation_is_an_action_error_naming_the_text(text: str) -> None:
    with pytest.raises(ActionError) as info:
        Action.parse(text)
    assert repr(text) in str(info.value)
    assert isinstance(info.value, ValueError)


def test_a_repeated_card_in_a_declared_meld_is_an_error() -> None:
    # Cards written twice are an error everywhere else (parse_cards); here "AS AS 2S 3S" is
    # silently read as the meld AS 2S 3S.
    with pytest.raises(ActionError, match="AS"):
        Action.parse("knock 7H / AS AS 2S 3S")


# -- observations -------------------------------------------------------------------------------


def test_observation_fields_hold_nothing_hidden() -> None:
    names = set(Observation._fields)
    assert names == {
        "player",
        "phase",
        "to_move",
        "dealer",
        "hand",
        "discard_pile",
        "stock_size",
        "opponent_known",
        "opponent_hand_size",
        "knock_limit",
        "first_upcard",
        "taken_card",
        "turn",
        "show_down",
        "result",
    }
    with pytest.raises(ValueError, match="player"):
        Hand(seed=1).observation(2)


def test_observation_fields_over_random_play() -> None:
    for seed in range(30):
        rng = random.Random(seed)
        hand = Hand(HOYLE, seed % 2, seed=seed)
        known = [0, 0]  # cards each player took from the pile and still holds, tracked here
        while True:
            for p in (0, 1):
                obs = hand.observation(p)
                assert obs.player == p
                assert obs.hand == hand.hands[p]
                assert obs.opponent_hand_size == hand.hands[1 - p].bit_count()
                assert obs.opponent_known == known[1 - p]
                assert obs.opponent_known & ~hand.hands[1 - p] == 0
                held = hand.hands[0].bit_count() + hand.hands[1].bit_count()
                assert obs.stock_size == 52 - held - len(obs.discard_pile)
                assert obs.first_upcard == hand.deck[20]
                if hand.to_move != p:
                    assert obs.taken_card is None
                if obs.result is None or obs.result.show_down is None:
                    assert obs.show_down is None
            if hand.is_over:
                break
            mover = hand.to_move
            top = hand.observation(mover).discard_pile[-1:]
            action = rng.choice(hand.legal_actions())
            hand.apply(action)
            if action.kind is ActionKind.DRAW_DISCARD:
                known[mover] |= 1 << top[0]
            if action.card is not None:
                known[mover] &= ~(1 << action.card)


def test_observation_is_blind_to_the_opponents_hidden_cards_and_the_stock() -> None:
    """Two deals with the same public history, differing in one hidden card of the opponent and
    in the order of the undrawn stock, look the same to the player."""
    trials = 0
    for seed in range(60):
        rng = random.Random(seed)
        dealer = seed % 2
        deck = list(shuffled_deck(seed))
        a = Hand(HOYLE, dealer, deck)
        actions: list[Action] = []
        for _ in range(rng.randrange(1, 70)):
            if a.is_over:
                break
            action = rng.choice([x for x in a.legal_actions() if x.kind is not ActionKind.KNOCK])
            a.apply(action)
            actions.append(action)
        player = rng.randrange(2)
        opponent = 1 - player
        dealt_to_opponent = deck[0:20:2] if opponent != dealer else deck[1:20:2]
        moved = {x.card for x in actions}
        hidden = [c for c in dealt_to_opponent if c not in moved]
        undrawn = len(a.stock)
        if not hidden or undrawn < 2:
            continue
        trials += 1
        other = list(deck)
        stock_positions = list(range(52 - undrawn, 52))
        swap_in = rng.choice(stock_positions)
        swap_out = deck.index(rng.choice(hidden))
        other[swap_in], other[swap_out] = other[swap_out], other[swap_in]
        tail = other[52 - undrawn :]
        rng.shuffle(tail)
        other[52 - undrawn :] = tail

        a = Hand(HOYLE, dealer, deck)
        b = Hand(HOYLE, dealer, other)
        assert a.observation(player) == b.observation(player)
        for action in actions:
            a.apply(action)
            b.apply(action)
            assert a.observation(player) == b.observation(player)
        assert a.hands[opponent] != b.hands[opponent]  # the deals really differ
        assert a.observation(opponent) != b.observation(opponent)
    assert trials >= 30


# -- copies --------------------------------------------------------------------------------------


def test_copy_is_equal_and_independent() -> None:
    hand = Hand(HOYLE, 0, seed=17)
    hand.apply(DRAW_DISCARD)
    copy = hand.copy()
    assert snapshot(copy) == snapshot(hand)
    original = snapshot(hand)
    rng = random.Random(2)
    while not copy.is_over:
        copy.apply(rng.choice(copy.legal_actions()))
    assert snapshot(hand) == original
    again = hand.copy()
    while not hand.is_over:
        hand.apply(rng.choice(hand.legal_actions()))
    assert snapshot(again) == original
    for name in ("hands", "pile", "stock", "known", "history"):
        assert getattr(again, name) is not getattr(hand, name), name


def test_copy_of_a_finished_hand() -> None:
    hand = dealt(KNOCKER_4, DEFENDER_LAYS_OFF)
    hand.apply(KNOCKS[parse_card("9S")])
    copy = hand.copy()
    assert snapshot(copy) == snapshot(hand)
    assert copy.result == hand.result


# ---------------------------------------------------------------------------------------------
# Scoring a knock: the pure function the hand and the strong bot share.

SPADE, HEART = parse_card("9S"), parse_card("9H")


@pytest.mark.parametrize(
    ("rules", "knocker", "defender", "big_gin", "upcard", "expected"),
    [
        (HOYLE, 4, 20, False, HEART, (HandEnd.KNOCK, 16, False)),  # R12
        (HOYLE, 6, 6, False, HEART, (HandEnd.UNDERCUT, 10, False)),  # a tie is an undercut, R13
        (HOYLE.replace(undercut_on_tie=False), 6, 6, False, HEART, (HandEnd.KNOCK, 0, False)),
        (HOYLE, 8, 3, False, HEART, (HandEnd.UNDERCUT, 5 + 10, False)),  # R13
        (HOYLE, 0, 0, False, HEART, (HandEnd.GIN, 25, False)),  # never undercut, R14
        (HOYLE, 0, 40, True, HEART, (HandEnd.BIG_GIN, 40 + 31, False)),  # R19
        (Rules.preset("oklahoma"), 4, 20, False, SPADE, (HandEnd.KNOCK, 32, True)),  # R18
        (Rules.preset("oklahoma"), 8, 3, False, SPADE, (HandEnd.UNDERCUT, 30, True)),
        (Rules.preset("oklahoma"), 0, 40, True, SPADE, (HandEnd.BIG_GIN, 142, True)),
        (Rules.preset("oklahoma"), 4, 20, False, HEART, (HandEnd.KNOCK, 16, False)),
        (HOYLE, 4, 20, False, SPADE, (HandEnd.KNOCK, 16, False)),  # no Oklahoma, no double
    ],
)
def test_score_knock(
    rules: Rules,
    knocker: int,
    defender: int,
    *,
    big_gin: bool,
    upcard: int,
    expected: tuple[HandEnd, int, bool],
) -> None:
    assert score_knock(rules, knocker, defender, first_upcard=upcard, big_gin=big_gin) == expected


def test_big_gin_with_deadwood_is_no_score() -> None:
    with pytest.raises(ValueError, match="R19"):
        score_knock(HOYLE, 3, 20, first_upcard=HEART, big_gin=True)


def test_a_hand_scores_its_knock_with_score_knock() -> None:
    hand = dealt(KNOCKER_4, DEFENDER_LAYS_OFF)
    hand.apply(KNOCKS[parse_card("9S")])
    result = hand.result
    assert result is not None and result.show_down is not None
    show = result.show_down
    end, points, doubled = score_knock(
        hand.rules, show.knocker_deadwood, show.defender_deadwood, first_upcard=hand.first_upcard
    )
    assert (result.end, result.points, result.doubled) == (end, points, doubled)
    assert result.winner == (1 - show.knocker if end is HandEnd.UNDERCUT else show.knocker)
