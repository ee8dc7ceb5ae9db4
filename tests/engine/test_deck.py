"""Reproducible deals: SplitMix64 reference outputs, unbiased bounded draws, the shuffle, and
explicit deck validation (R4, R5)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.cards import CARD_NAMES, CardError
from engine.deck import SplitMix64, check_deck, shuffled_deck
from engine.hand import Hand

M64 = (1 << 64) - 1


def reference_splitmix64(seed: int, count: int) -> list[int]:
    """SplitMix64 as published by Steele, Lea and Flood (and in Vigna's splitmix64.c)."""
    out = []
    x = seed
    for _ in range(count):
        x = (x + 0x9E3779B97F4A7C15) & M64
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        out.append(z ^ (z >> 31))
    return out


def reference_shuffle(seed: int) -> tuple[int, ...]:
    """The documented deal: Fisher-Yates from position 51 down to 1, swapping position i with
    position below(i + 1), below() by rejection of the top ``2**64 % bound`` outputs."""
    stream = iter(reference_splitmix64(seed, 10_000))
    deck = list(range(52))
    for i in range(51, 0, -1):
        bound = i + 1
        limit = (1 << 64) - (1 << 64) % bound
        while True:
            value = next(stream)
            if value < limit:
                break
        j = value % bound
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


class Scripted(SplitMix64):
    """A generator whose outputs are given, to check what below() does with each one."""

    def __init__(self, outputs: list[int]) -> None:
        super().__init__(0)
        self.outputs = list(outputs)
        self.used = 0

    def next(self) -> int:
        self.used += 1
        return self.outputs.pop(0)


# -- SplitMix64 --------------------------------------------------------------------------------


def test_seed_0_first_output() -> None:
    first = SplitMix64(0).next()
    assert first == 16294208416658607535
    assert hex(first) == "0xe220a8397b1dcdaf"


def test_seed_1234567_published_outputs() -> None:
    rng = SplitMix64(1234567)
    assert [rng.next() for _ in range(5)] == [
        6457827717110365317,
        3203168211198807973,
        9817491932198370423,
        4593380528125082431,
        16408922859458223821,
    ]


@pytest.mark.parametrize("seed", [0, 1, 42, 1234567, 2**32 - 1, 2**63, M64 - 1, M64])
def test_outputs_match_the_reference_algorithm(seed: int) -> None:
    rng = SplitMix64(seed)
    assert [rng.next() for _ in range(50)] == reference_splitmix64(seed, 50)


def test_outputs_are_64_bit() -> None:
    rng = SplitMix64(M64)
    for _ in range(1000):
        assert 0 <= rng.next() <= M64
    assert 0 <= rng.state <= M64


@pytest.mark.parametrize("seed", [-1, 2**64, True, 1.0, "1", None])
def test_bad_seeds_are_rejected(seed: Any) -> None:
    with pytest.raises(ValueError, match="seed"):
        SplitMix64(seed)
    with pytest.raises(ValueError, match="seed"):
        shuffled_deck(seed)


# -- below() -----------------------------------------------------------------------------------


@pytest.mark.parametrize("bound", [1, 2, 3, 7, 52, 2**32 + 1, 2**63 + 1, 2**64 - 1, 2**64])
def test_below_stays_in_bounds(bound: int) -> None:
    rng = SplitMix64(bound % 1000)
    values = [rng.below(bound) for _ in range(300)]
    assert all(0 <= v < bound for v in values)
    if bound <= 52:
        assert set(values) == set(range(bound))  # and reaches every value


def test_below_one_is_zero_and_consumes_one_output() -> None:
    rng = SplitMix64(9)
    assert [rng.below(1) for _ in range(5)] == [0] * 5
    assert rng.next() == reference_splitmix64(9, 6)[5]


def test_below_reduces_an_accepted_output_modulo_the_bound() -> None:
    rng = Scripted([7, 2**64 - 2])
    assert rng.below(3) == 1
    assert rng.below(3) == (2**64 - 2) % 3  # the largest output below the limit is kept


def test_below_rejects_the_biased_top_outputs() -> None:
    # 2**64 % 3 == 1, so exactly one output (2**64 - 1) would bias below(3) and is thrown away.
    rng = Scripted([2**64 - 1, 5])
    assert rng.below(3) == 2
    assert rng.used == 2
    # For 2**63 + 1 nearly half the outputs are rejected: the limit is 2**63 + 1 itself.
    bound = 2**63 + 1
    rng = Scripted([bound, M64, bound + 5, bound - 1])
    assert rng.below(bound) == bound - 1
    assert rng.used == 4


def test_below_accepts_everything_for_a_power_of_two() -> None:
    rng = Scripted([M64])
    assert rng.below(2**10) == M64 % 2**10
    assert rng.used == 1


# -- the shuffle -------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2, 1234567, M64])
def test_shuffle_is_the_documented_fisher_yates(seed: int) -> None:
    assert shuffled_deck(seed) == reference_shuffle(seed)
    assert SplitMix64(seed).shuffled_deck() == shuffled_deck(seed)


def test_shuffle_is_a_deterministic_permutation() -> None:
    decks = set()
    for seed in range(200):
        deck = shuffled_deck(seed)
        assert isinstance(deck, tuple)
        assert sorted(deck) == list(range(52))
        assert shuffled_deck(seed) == deck
        decks.add(deck)
    assert len(decks) == 200


def test_shuffle_positions_look_uniform() -> None:
    # Coarse: over 2000 deals every card reaches deck[0] (the first card dealt).
    firsts = {shuffled_deck(seed)[0] for seed in range(2000)}
    assert firsts == set(range(52))


def test_successive_shuffles_from_one_stream_differ() -> None:
    rng = SplitMix64(5)
    first = rng.shuffled_deck()
    second = rng.shuffled_deck()
    assert first != second
    assert first == shuffled_deck(5)


# -- explicit decks ----------------------------------------------------------------------------


def test_check_deck_returns_the_order_as_a_tuple() -> None:
    order = list(range(51, -1, -1))
    assert check_deck(order) == tuple(order)
    assert check_deck(iter(order)) == tuple(order)


def test_check_deck_names_a_missing_card() -> None:
    order = [c for c in range(52) if c != 17]
    with pytest.raises(CardError, match="51 cards") as info:
        check_deck(order)
    assert CARD_NAMES[17] in str(info.value)


def test_check_deck_names_a_duplicate() -> None:
    order = list(range(52))
    order[40] = 7
    with pytest.raises(CardError, match="twice") as info:
        check_deck(order)
    assert CARD_NAMES[7] in str(info.value)
    with pytest.raises(CardError, match="twice"):
        check_deck([*range(52), 3])


@pytest.mark.parametrize("bad", [52, -1, 99])
def test_check_deck_names_a_bad_index(bad: int) -> None:
    order: list[Any] = list(range(52))
    order[5] = bad
    with pytest.raises(CardError, match="not a card index") as info:
        check_deck(order)
    assert repr(bad) in str(info.value)


@pytest.mark.parametrize("bad", ["AS", None, 5.0])
def test_check_deck_rejects_entries_that_are_not_card_indices(bad: Any) -> None:
    # "AS" and None make sorted() raise TypeError; 5.0 == 5 passes the sorted() comparison and
    # is accepted, and Hand() then fails on ``1 << 5.0``. Each should be a CardError.
    order: list[Any] = list(range(52))
    order[5] = bad
    with pytest.raises(CardError):
        check_deck(order)


def test_an_empty_deck_is_rejected() -> None:
    with pytest.raises(CardError, match="0 cards"):
        check_deck([])


def test_hand_validates_an_explicit_deck() -> None:
    with pytest.raises(CardError):
        Hand(deck=list(range(51)))
    with pytest.raises(CardError):
        Hand(deck=[0] * 52)
    rng = random.Random(3)
    order = list(range(52))
    rng.shuffle(order)
    assert Hand(deck=order).deck == tuple(order)
