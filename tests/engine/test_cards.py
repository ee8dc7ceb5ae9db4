"""Card notation, card sets and card values (R1, R2)."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from scenarios import Hung, time_limit

from engine.cards import (
    CARD_NAMES,
    FULL_DECK,
    RANKS,
    SUITS,
    CardError,
    CardSet,
    card_name,
    card_names,
    card_value,
    cards_of,
    deadwood_value,
    format_cards,
    parse_card,
    parse_cards,
    rank_of,
    suit_of,
)

ALL_NAMES = [r + s for s in SUITS for r in RANKS]


# -- notation ------------------------------------------------------------------------------------


def test_ranks_and_suits_are_the_documented_alphabets() -> None:
    assert RANKS == "A23456789TJQK"
    assert SUITS == "CDHS"


@pytest.mark.parametrize("name", ALL_NAMES)
def test_every_card_parses_to_suit_times_13_plus_rank(name: str) -> None:
    card = parse_card(name)
    assert card == SUITS.index(name[1]) * 13 + RANKS.index(name[0])
    assert rank_of(card) == RANKS.index(name[0])
    assert suit_of(card) == SUITS.index(name[1])
    assert card_name(card) == name
    assert CARD_NAMES[card] == name


def test_card_numbering_corners() -> None:
    assert parse_card("AC") == 0
    assert parse_card("KC") == 12
    assert parse_card("AD") == 13
    assert parse_card("KS") == 51
    assert tuple(ALL_NAMES) == CARD_NAMES


@pytest.mark.parametrize("name", ALL_NAMES)
def test_lower_case_suit_is_accepted(name: str) -> None:
    assert parse_card(name[0] + name[1].lower()) == parse_card(name)


@pytest.mark.parametrize("suit", SUITS + SUITS.lower())
def test_ten_may_be_written_10(suit: str) -> None:
    assert parse_card("10" + suit) == parse_card("T" + suit.upper())


def test_surrounding_whitespace_is_ignored() -> None:
    assert parse_card(" 7H ") == parse_card("7H")


@pytest.mark.parametrize(
    "token",
    [
        "as",  # lower-case ranks are rejected
        "tD",
        "jh",
        "qS",
        "kc",
        "",
        "A",
        "S",
        "1C",
        "0D",
        "11H",
        "1OD",
        "ZS",
        "AX",
        "ASS",
        "A S",
        "10",
        "T",
        "10X",
        "SA",
        "♠A",
    ],
)
def test_bad_tokens_are_rejected_naming_the_token(token: str) -> None:
    with pytest.raises(CardError) as info:
        parse_card(token)
    assert repr(token) in str(info.value)


def test_card_error_is_a_value_error() -> None:
    assert issubclass(CardError, ValueError)


@pytest.mark.parametrize("index", [-1, 52, 100])
def test_card_name_rejects_indices_outside_the_deck(index: int) -> None:
    with pytest.raises(CardError, match=str(index)):
        card_name(index)


# -- lists of cards -----------------------------------------------------------------------------


def test_parse_cards_accepts_spaces_commas_and_token_lists() -> None:
    want = {parse_card("AS"), parse_card("TD"), parse_card("7H")}
    assert set(parse_cards("AS TD 7H")) == want
    assert set(parse_cards("AS,TD, 7h")) == want
    assert set(parse_cards(["AS", "10D", "7H"])) == want
    assert parse_cards("") == CardSet(0)
    assert isinstance(parse_cards("AS"), CardSet)


@pytest.mark.parametrize(
    ("text", "token"),
    [("AS 2S AS", "AS"), ("AS As", "As"), ("TD 10D", "10D"), ("7h 7H", "7H")],
)
def test_duplicate_cards_are_rejected(text: str, token: str) -> None:
    with pytest.raises(CardError, match="duplicate") as info:
        parse_cards(text)
    assert repr(token) in str(info.value)


def test_parse_cards_names_the_bad_token() -> None:
    with pytest.raises(CardError, match="'XS'"):
        parse_cards("AS XS 2S")
    with pytest.raises(CardError, match="5"):
        parse_cards(["AS", 5])  # type: ignore[list-item]


def test_cards_of_card_names_and_format_cards_go_by_suit_then_rank() -> None:
    mask = parse_cards("KS AC 2D QC TH")
    assert cards_of(mask) == [0, 11, 14, 35, 51]
    assert card_names(mask) == ["AC", "QC", "2D", "TH", "KS"]
    assert format_cards(mask) == "AC QC 2D TH KS"
    assert parse_cards(card_names(mask)) == mask
    assert cards_of(0) == [] and card_names(0) == []
    assert format_cards(0) == ""


@pytest.mark.parametrize("function", [cards_of, card_names, format_cards, deadwood_value])
def test_mask_helpers_reject_a_negative_mask(function: Callable[[int], object]) -> None:
    # A negative int never reaches zero by clearing its lowest bit: without a check these loops
    # run forever (reachable from Hand.apply through a declared meld, see test_hand.py).
    with time_limit(0.25), pytest.raises(CardError):
        function(-1)


@pytest.mark.parametrize("function", [card_names, format_cards, deadwood_value])
def test_mask_helpers_reject_bits_above_the_deck(function: Callable[[int], object]) -> None:
    with pytest.raises(CardError):
        function(int(parse_cards("AS")) | 1 << 52)


# -- CardSet ------------------------------------------------------------------------------------


def test_cardset_iterates_lowest_card_first_and_counts() -> None:
    hand = CardSet.parse("KS 2D AC")
    assert list(hand) == [0, 14, 51]
    assert len(hand) == 3
    assert str(hand) == "AC 2D KS"
    assert len(CardSet(0)) == 0
    assert list(CardSet(0)) == []
    assert len(CardSet(FULL_DECK)) == 52
    assert list(CardSet(FULL_DECK)) == list(range(52))


def test_cardset_is_its_int_mask() -> None:
    hand = CardSet.parse("AC 2C")
    assert hand == 0b11
    assert isinstance(hand, int)
    assert hash(hand) == hash(3)
    assert CardSet.of([0, 1]) == hand
    assert CardSet(hand) == hand


def test_cardset_contains_strings_and_ints() -> None:
    hand = CardSet.parse("AS TD 7h")
    assert "AS" in hand
    assert "TD" in hand
    assert "10D" in hand
    assert "7H" in hand
    assert "7h" in hand
    assert "2S" not in hand
    assert parse_card("AS") in hand
    assert 0 not in hand
    assert 52 not in hand
    assert -1 not in hand
    assert None not in hand
    assert 1.5 not in hand


def test_cardset_set_operators_return_cardsets() -> None:
    a = CardSet.parse("AS 2S 3S")
    b = CardSet.parse("3S 4S")
    cases = {
        "and": (a & b, "3S"),
        "or": (a | b, "AS 2S 3S 4S"),
        "xor": (a ^ b, "AS 2S 4S"),
        "sub": (a - b, "AS 2S"),
        "rand": (int(b) & a, "3S"),
        "ror": (int(b) | a, "AS 2S 3S 4S"),
        "rxor": (int(b) ^ a, "AS 2S 4S"),
    }
    for name, (result, want) in cases.items():
        assert isinstance(result, CardSet), name
        assert result == CardSet.parse(want), name
    inverse = ~a
    assert isinstance(inverse, CardSet)
    assert len(inverse) == 49
    assert inverse & a == 0
    assert inverse | a == FULL_DECK
    assert ~CardSet(0) == FULL_DECK
    assert ~CardSet(FULL_DECK) == 0


def test_cardset_operators_agree_with_python_sets() -> None:
    rng = random.Random(5)
    for _ in range(200):
        x = set(rng.sample(range(52), rng.randint(0, 52)))
        y = set(rng.sample(range(52), rng.randint(0, 52)))
        a, b = CardSet.of(x), CardSet.of(y)
        assert set(a & b) == x & y
        assert set(a | b) == x | y
        assert set(a ^ b) == x ^ y
        assert set(a - b) == x - y
        assert set(~a) == set(range(52)) - x
        assert len(a) == len(x)
        assert list(a) == sorted(x)


@pytest.mark.parametrize("text", ["", "AS", "AC 2D KS", " ".join(ALL_NAMES), "TD 9C 10H"])
def test_cardset_repr_rebuilds_it(text: str) -> None:
    hand = CardSet.parse(text)
    rebuilt = eval(repr(hand), {"CardSet": CardSet})
    assert rebuilt == hand
    assert type(rebuilt) is CardSet


@pytest.mark.parametrize("mask", [-1, 1 << 52, FULL_DECK + 1, 1 << 60])
def test_cardset_bounds(mask: int) -> None:
    with pytest.raises(CardError):
        CardSet(mask)


def test_cardset_operations_stay_in_bounds() -> None:
    with pytest.raises(CardError):
        CardSet.parse("AS") | (1 << 52)
    with pytest.raises(CardError):
        CardSet.of([52])
    with pytest.raises(CardError):
        CardSet.of([-1])
    assert CardSet(FULL_DECK) == FULL_DECK


# -- values (R2) --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL_NAMES)
def test_card_values(name: str) -> None:
    want = {"A": 1, "T": 10, "J": 10, "Q": 10, "K": 10}.get(name[0])
    if want is None:
        want = int(name[0])
    assert card_value(parse_card(name)) == want


def test_deadwood_value_sums_the_cards() -> None:
    assert deadwood_value(parse_cards("AS 2D 9H TC JD QH KS")) == 1 + 2 + 9 + 40
    assert CardSet.parse("AS 5S KH").deadwood() == 16
    assert deadwood_value(0) == 0
    assert deadwood_value(FULL_DECK) == 4 * (45 + 40)


def test_time_limit_guard_itself_fires() -> None:
    # The guard used above must be able to fail, or the hang tests prove nothing.
    with pytest.raises(Hung), time_limit(0.05):
        while True:
            pass
