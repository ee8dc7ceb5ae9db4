"""The meld solver (:mod:`engine.melds`) against a brute-force reference (``reference.py``).

Three kinds of test: seeded random hands compared with the reference (5,000 hands of ten and
eleven cards in the default run and 195,000 more with ``--runslow``, plus samples for arrangements
and lay-offs), hypothesis invariants, and crafted traps with their exact expected answers.
"""

from __future__ import annotations

import contextlib
import itertools
import random
import signal
from collections.abc import Callable, Iterator, Sequence
from types import FrameType
from typing import Any

import pytest
import reference as ref
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    MAX_CARDS,
    Arrangement,
    CardError,
    LayOffResult,
    MeldError,
    all_arrangements,
    best_arrangement,
    best_discards,
    check_arrangement,
    deadwood,
    deadwood_value,
    discard_deadwoods,
    format_cards,
    is_meld,
    knock_arrangement,
    lay_off,
    melds,
    min_deadwood,
    parse_cards,
)
from engine.cards import FULL_DECK, CardSet
from engine.melds import all_melds, lay_off_exposure, meld_error


def h(text: str) -> int:
    """A mask from card notation."""
    return int(parse_cards(text))


def melds_of(*texts: str) -> list[int]:
    return [h(text) for text in texts]


def as_ref(melds: Sequence[int]) -> ref.Arrangement:
    """An engine arrangement's melds in the reference's form."""
    return frozenset(frozenset(ref.cards(meld)) for meld in melds)


def shown(melds: Sequence[int]) -> str:
    return " ".join(f"[{format_cards(meld)}]" for meld in melds)


# ---------------------------------------------------------------------------------------------
# Random hands.


def random_hand(rng: random.Random, size: int) -> int:
    """A random hand, often from a narrow part of the deck so that melds are common and overlap."""
    shape = rng.randrange(4)
    if shape == 0:  # any cards: few melds, as dealt
        pool = list(range(52))
    elif shape == 1:  # five neighbouring ranks in every suit: sets and runs cross
        low = rng.randrange(9)
        pool = [s * 13 + r for s in range(4) for r in range(low, low + 5)]
    elif shape == 2:  # eight neighbouring ranks in two suits: long runs
        low = rng.randrange(6)
        pool = [s * 13 + r for s in rng.sample(range(4), 2) for r in range(low, low + 8)]
    else:  # six neighbouring ranks in three suits
        low = rng.randrange(8)
        pool = [s * 13 + r for s in rng.sample(range(4), 3) for r in range(low, low + 6)]
    return ref.mask_of(rng.sample(pool, size))


# Each comparison runs as seeded chunks, so that a failure names its seed. The default run (the
# fast lane, run between edits) checks the first chunk of each: 5,000 hands (2,500 of ten cards and
# 2,500 of eleven), 500 hands' arrangements and 300 lay-offs. The `slow` chunks (run with
# --runslow, tox -e slow) check the other 39 of each, with other seeds: 195,000 more hands.
HANDS_PER_CHUNK = 2_500
DEFAULT_CHUNKS = 1
SLOW_CHUNKS = 39


def chunks(default: int = DEFAULT_CHUNKS, slow: int = SLOW_CHUNKS) -> Sequence[object]:
    """Chunk numbers (seeds) for ``parametrize``: ``default`` in the default run, ``slow`` more."""
    return [pytest.param(i, id=f"chunk{i}") for i in range(default)] + [
        pytest.param(i, id=f"chunk{i}", marks=pytest.mark.slow)
        for i in range(default, default + slow)
    ]


def check_arrangement_of(hand: int, arrangement: Arrangement, expected: int) -> str | None:
    """What is wrong with ``arrangement`` as an optimal arrangement of ``hand``, or None."""
    try:
        declared = check_arrangement(hand, arrangement.melds)
    except MeldError as error:
        return f"invalid arrangement {arrangement}: {error}"
    if not all(ref.is_meld(frozenset(ref.cards(meld))) for meld in arrangement.melds):
        return f"reference rejects a meld of {arrangement}"
    rest = ref.leftover(hand, as_ref(arrangement.melds))
    if arrangement.deadwood_cards != rest:
        return f"deadwood cards {format_cards(arrangement.deadwood_cards)} in {arrangement}"
    if not declared == arrangement.deadwood == expected:
        return f"{arrangement}: deadwood {arrangement.deadwood}/{declared}, expected {expected}"
    return None


def assert_no_failures(failures: list[str], checked: int) -> None:
    assert not failures, f"{len(failures)} of {checked} hands wrong, e.g.:\n" + "\n".join(
        failures[:10]
    )


@pytest.mark.parametrize("chunk", chunks())
def test_hands_of_up_to_ten_cards_match_the_reference(chunk: int) -> None:
    rng = random.Random(1_000 + chunk)
    failures: list[str] = []
    count = HANDS_PER_CHUNK
    for _ in range(count):
        size = 10 if rng.random() < 0.9 else rng.randint(1, 9)
        hand = random_hand(rng, size)
        expected = ref.deadwood(hand)
        got = (min_deadwood(hand), deadwood(hand))
        if got != (expected, expected):
            failures.append(f"{format_cards(hand)}: min_deadwood, deadwood {got}, want {expected}")
        problem = check_arrangement_of(hand, best_arrangement(hand), expected)
        if problem:
            failures.append(f"{format_cards(hand)}: best_arrangement {problem}")
    assert_no_failures(failures, count)


@pytest.mark.parametrize("chunk", chunks())
def test_eleven_card_hands_match_the_reference(chunk: int) -> None:
    rng = random.Random(2_000 + chunk)
    failures: list[str] = []
    count = HANDS_PER_CHUNK
    for i in range(count):
        hand = random_hand(rng, 11)
        name = format_cards(hand)
        by_discard = ref.discard_deadwoods(hand)
        least, discards = ref.best_of(by_discard)
        if min_deadwood(hand) != least:
            failures.append(f"{name}: min_deadwood {min_deadwood(hand)}, want {least}")
        if discard_deadwoods(hand) != by_discard:
            failures.append(f"{name}: discard_deadwoods {discard_deadwoods(hand)} != {by_discard}")
        got = best_discards(hand)
        if got != (least, discards):
            failures.append(
                f"{name}: best_discards {got[0]} [{format_cards(got[1])}], "
                f"want {least} [{format_cards(discards)}]"
            )
        # The card just taken may not be discarded (R8): forbid a best discard half the time,
        # which forces the solver off its fast path when that discard was the only best one.
        pool = ref.cards(discards) if i % 2 else ref.cards(hand)
        forbidden = 1 << rng.choice(pool)
        want = ref.best_of(by_discard, forbidden)
        got = best_discards(hand, forbidden)
        if got != want:
            failures.append(
                f"{name} forbidding {format_cards(forbidden)}: best_discards {got[0]} "
                f"[{format_cards(got[1])}], want {want[0]} [{format_cards(want[1])}]"
            )
        kept_all = ref.deadwood(hand)
        if deadwood(hand) != kept_all:
            failures.append(f"{name}: deadwood {deadwood(hand)}, want {kept_all}")
        problem = check_arrangement_of(hand, best_arrangement(hand), kept_all)
        if problem:
            failures.append(f"{name}: best_arrangement {problem}")
    assert_no_failures(failures, count)


@pytest.mark.parametrize("chunk", chunks())
def test_all_arrangements_are_exactly_the_optimal_ones(chunk: int) -> None:
    rng = random.Random(3_000 + chunk)
    failures: list[str] = []
    count = 500
    for _ in range(count):
        hand = random_hand(rng, rng.choice((8, 9, 10, 10, 10, 11)))
        name = format_cards(hand)
        expected = ref.deadwood(hand)
        found = all_arrangements(hand)
        for arrangement in found:
            problem = check_arrangement_of(hand, arrangement, expected)
            if problem:
                failures.append(f"{name}: all_arrangements {problem}")
        as_sets = [as_ref(a.melds) for a in found]
        want = ref.optimal_arrangements(hand)
        if len(set(as_sets)) != len(as_sets) or set(as_sets) != want:
            failures.append(
                f"{name}: all_arrangements gave {len(as_sets)} ({len(set(as_sets))} distinct), "
                f"the reference {len(want)}; missing {len(want - set(as_sets))}"
            )
        # knock_arrangement: optimal, then the fewest cards exposed to lay-offs, then fewest melds.
        chosen = knock_arrangement(hand)
        problem = check_arrangement_of(hand, chosen, expected)
        if problem:
            failures.append(f"{name}: knock_arrangement {problem}")
        key = [(ref.exposure(hand, a).bit_count(), len(a)) for a in want]
        chosen_key = (ref.exposure(hand, as_ref(chosen.melds)).bit_count(), len(chosen.melds))
        if chosen_key != min(key):
            failures.append(f"{name}: knock_arrangement {chosen} has {chosen_key}, best {min(key)}")
    assert_no_failures(failures, count)


def random_knocker_melds(rng: random.Random) -> list[ref.Meld]:
    """One to three disjoint melds of at most six cards, ten cards at most in all."""
    short = [meld for meld in ref.EVERY_MELD if len(meld) <= 6]
    while True:
        chosen: list[ref.Meld] = []
        used: set[int] = set()
        for _ in range(rng.randint(1, 3)):
            meld = rng.choice(short)
            if not meld & used:
                chosen.append(meld)
                used |= meld
        if len(used) <= 10:
            return chosen


def random_defender(rng: random.Random, knocker: int) -> int:
    """Ten cards not in ``knocker``, most of them near its cards so that lay-offs are common."""
    near = [
        card
        for card in range(52)
        if not knocker >> card & 1
        and any(
            ref.rank(card) == ref.rank(k) or (ref.suit(card) == ref.suit(k))
            for k in ref.cards(knocker)
        )
        and any(abs(ref.rank(card) - ref.rank(k)) <= 3 for k in ref.cards(knocker))
    ]
    chosen = set(rng.sample(near, min(len(near), rng.randint(4, 8))))
    rest = [card for card in range(52) if not knocker >> card & 1 and card not in chosen]
    chosen.update(rng.sample(rest, 10 - len(chosen)))
    return ref.mask_of(sorted(chosen))


def lay_off_problem(defender: int, melds: list[ref.Meld], result: LayOffResult) -> str | None:
    """What is wrong with ``result`` as the defender's optimal lay-off, or None."""
    options = ref.lay_off_options(defender, melds)
    least = min(options.values())
    fewest = min(mask.bit_count() for mask, dw in options.items() if dw == least)
    laid = result.laid_off
    if result.deadwood != least:
        return f"deadwood {result.deadwood}, want {least}"
    if laid not in options or options[laid] != least:
        return f"laid off {format_cards(laid)}, which is not an optimal lay-off"
    if laid.bit_count() != fewest or len(result.lay_offs) != fewest:
        return f"laid off {len(result.lay_offs)} cards, when {fewest} reach the least deadwood"
    for index, meld in enumerate(melds):
        extra = {lo.card for lo in result.lay_offs if lo.meld_index == index}
        if extra and not ref.is_meld(meld | extra):
            return f"{format_cards(ref.mask_of(extra))} do not fit meld {index}"
    if any(not 0 <= lo.meld_index < len(melds) for lo in result.lay_offs):
        return f"lay-off onto a meld that does not exist: {result.lay_offs}"
    return check_arrangement_of(defender & ~laid, result.arrangement, least)


@pytest.mark.parametrize("chunk", chunks())
def test_lay_off_is_optimal_against_the_reference(chunk: int) -> None:
    rng = random.Random(4_000 + chunk)
    failures: list[str] = []
    count = 300
    for _ in range(count):
        melds = random_knocker_melds(rng)
        masks = [ref.mask_of(meld) for meld in melds]
        defender = random_defender(rng, sum(masks))
        problem = lay_off_problem(defender, melds, lay_off(defender, masks))
        if problem:
            failures.append(f"{format_cards(defender)} onto {shown(masks)}: {problem}")
    assert_no_failures(failures, count)


# ---------------------------------------------------------------------------------------------
# Invariants (hypothesis).

PROPERTY = settings(max_examples=300, deadline=None)

any_cards = st.sets(st.integers(0, 51), max_size=11).map(ref.mask_of)
eleven_cards = st.sets(st.integers(0, 51), min_size=11, max_size=11).map(ref.mask_of)


@st.composite
def crowded_hands(draw: st.DrawFn, size: int = 10) -> int:
    """``size`` cards from five neighbouring ranks: sets and runs compete for the same cards."""
    low = draw(st.integers(0, 8))
    pool = [s * 13 + r for s in range(4) for r in range(low, low + 5)]
    chosen = draw(st.sets(st.sampled_from(pool), min_size=size, max_size=size))
    return ref.mask_of(sorted(chosen))


def permute_suits(hand: int, order: Sequence[int]) -> int:
    return ref.mask_of([order[ref.suit(c)] * 13 + ref.rank(c) for c in ref.cards(hand)])


@PROPERTY
@given(st.one_of(any_cards, crowded_hands()), st.permutations(range(4)))
def test_deadwood_does_not_depend_on_which_suit_is_which(hand: int, order: list[int]) -> None:
    assert deadwood(permute_suits(hand, order)) == deadwood(hand)
    assert min_deadwood(permute_suits(hand, order)) == min_deadwood(hand)


@PROPERTY
@given(st.one_of(eleven_cards, crowded_hands(11)))
def test_eleven_cards_min_deadwood_is_the_least_over_discards(hand: int) -> None:
    after = {card: deadwood(hand & ~(1 << card)) for card in ref.cards(hand)}
    least, discards = best_discards(hand)
    assert min_deadwood(hand) == least == min(after.values())
    assert discards == ref.mask_of([card for card, dw in after.items() if dw == least])
    # Holding an extra card never hurts: keeping all eleven is never better than the best discard.
    assert least <= deadwood(hand)


@PROPERTY
@given(st.one_of(eleven_cards, crowded_hands(11)), st.integers(0, 10))
def test_a_forbidden_card_is_never_a_best_discard(hand: int, which: int) -> None:
    forbidden = 1 << ref.cards(hand)[which]
    least, discards = best_discards(hand, forbidden)
    assert discards and not discards & forbidden and discards & ~hand == 0
    assert least >= min_deadwood(hand)
    for card in ref.cards(hand & ~forbidden):
        after = deadwood(hand & ~(1 << card))
        assert after >= least
        assert (after == least) == bool(discards >> card & 1)


@PROPERTY
@given(st.sets(st.integers(0, 51), max_size=10).map(ref.mask_of), st.integers(0, 51))
def test_one_more_card_costs_at_most_its_value(hand: int, card: int) -> None:
    more = hand | 1 << card
    assert deadwood(more) <= deadwood(hand & ~(1 << card)) + ref.value(card)


@PROPERTY
@given(st.sets(st.integers(0, 51), max_size=MAX_CARDS))
def test_deadwood_of_disjoint_parts_adds_up_at_most(cards: set[int]) -> None:
    ordered = sorted(cards)
    left, right = ref.mask_of(ordered[::2]), ref.mask_of(ordered[1::2])
    assert deadwood(left | right) <= deadwood(left) + deadwood(right)
    assert 0 <= deadwood(left | right) <= deadwood_value(left | right)


@PROPERTY
@given(st.one_of(any_cards, crowded_hands()))
def test_deadwood_equals_the_card_values_exactly_when_nothing_melds(hand: int) -> None:
    melds_fit = any(ref.mask_of(m) & hand == ref.mask_of(m) for m in ref.EVERY_MELD)
    assert (deadwood(hand) == deadwood_value(hand)) == (not melds_fit)


@PROPERTY
@given(st.lists(st.sampled_from(ref.EVERY_MELD), max_size=4))
def test_disjoint_melds_leave_no_deadwood(melds: list[ref.Meld]) -> None:
    hand = 0
    for meld in map(ref.mask_of, melds):
        if not meld & hand and (hand | meld).bit_count() <= MAX_CARDS:
            hand |= meld
    assert deadwood(hand) == 0
    assert best_arrangement(hand).deadwood_cards == 0


@PROPERTY
@given(st.one_of(any_cards, crowded_hands()))
def test_best_arrangement_is_among_all_arrangements(hand: int) -> None:
    best = best_arrangement(hand)
    every = all_arrangements(hand)
    assert as_ref(best.melds) in {as_ref(a.melds) for a in every}
    assert knock_arrangement(hand) in every
    for arrangement in every:
        melded = 0
        for meld in arrangement.melds:
            assert not melded & meld
            melded |= meld
        assert melded | arrangement.deadwood_cards == hand
        assert not melded & arrangement.deadwood_cards


@PROPERTY
@given(st.sets(st.integers(0, 51), max_size=6))
def test_is_meld_agrees_with_the_reference(cards: set[int]) -> None:
    mask = ref.mask_of(sorted(cards))
    assert is_meld(mask) == ref.is_meld(frozenset(cards))
    assert (meld_error(mask) is None) == ref.is_meld(frozenset(cards))


@PROPERTY
@given(crowded_hands(), st.lists(st.sampled_from(ref.EVERY_MELD), min_size=1, max_size=3))
def test_lay_off_never_raises_deadwood(defender: int, melds: list[ref.Meld]) -> None:
    knocker: list[int] = []
    for meld in map(ref.mask_of, melds):
        if not meld & (defender | sum(knocker)) and (sum(knocker) | meld).bit_count() <= MAX_CARDS:
            knocker.append(meld)
    result = lay_off(defender, knocker)
    assert result.deadwood <= deadwood(defender)
    assert result.laid_off & ~defender == 0
    assert result.arrangement.deadwood == deadwood(defender & ~result.laid_off)
    if not knocker:
        assert result.lay_offs == ()


# ---------------------------------------------------------------------------------------------
# Melds.


def test_is_meld_on_every_three_card_combination() -> None:
    wrong = [
        trio
        for trio in itertools.combinations(range(52), 3)
        if is_meld(ref.mask_of(trio)) != ref.is_meld(frozenset(trio))
    ]
    assert not wrong, [format_cards(ref.mask_of(t)) for t in wrong[:10]]
    assert sum(is_meld(ref.mask_of(t)) for t in itertools.combinations(range(52), 3)) == (
        13 * 4 + 4 * 11  # the sets of three, the runs of three
    )


def test_is_meld_on_every_meld_of_the_deck_and_beyond() -> None:
    assert len(ref.EVERY_MELD) == 13 * 5 + 4 * 66
    assert all(is_meld(ref.mask_of(meld)) for meld in ref.EVERY_MELD)
    assert not is_meld(h("QS KS AS"))
    assert not is_meld(h("KS AS 2S"))
    assert not is_meld(h("AS 2S 3S") | h("KH"))
    for not_a_card_set in ((1 << 52) | 0b111, -1):
        with pytest.raises(CardError, match="52-bit"):
            is_meld(not_a_card_set)


# ---------------------------------------------------------------------------------------------
# Crafted traps.


def assert_arrangements(hand: int, *expected: Sequence[str]) -> None:
    """``hand``'s optimal arrangements are exactly ``expected`` (each a list of melds)."""
    want = {frozenset(frozenset(ref.cards(h(m))) for m in melds) for melds in expected}
    assert {as_ref(a.melds) for a in all_arrangements(hand)} == want
    assert ref.optimal_arrangements(hand) == want
    assert as_ref(best_arrangement(hand).melds) in want


@pytest.mark.parametrize(
    ("text", "expected", "melds"),
    [
        # A set and a run cross at 7H: the run wins (greedy sets-first would leave 5H 6H 8H, 19).
        ("7C 7D 7H 5H 6H 8H", 14, ["5H 6H 7H 8H"]),
        # With the fourth seven both fit: a set of three and the run of four.
        ("7C 7D 7H 7S 5H 6H 8H", 0, ["7C 7D 7S", "5H 6H 7H 8H"]),
        # Four of a kind across two runs: both runs, two sevens dead (a set would leave 17 or 34).
        ("7C 8C 9C 7H 8H 9H 7D 7S", 14, ["7C 8C 9C", "7H 8H 9H"]),
        # Four of a kind across three runs, the fourth seven dead.
        ("5C 6C 7C 7D 8D 9D 7H 8H 9H 7S", 7, ["5C 6C 7C", "7D 8D 9D", "7H 8H 9H"]),
        # A run of six must give its ends to two sets (kept whole it leaves 3C 3D 8C 8D, 22).
        ("3C 3D 3H 4H 5H 6H 7H 8H 8C 8D", 0, ["3C 3D 3H", "4H 5H 6H 7H", "8C 8D 8H"]),
        # Ace low: A-2-3 is a run, Q-K-A and K-A-2 are not.
        ("AS 2S 3S", 0, ["AS 2S 3S"]),
        ("QS KS AS", 21, []),
        ("KS AS 2S", 13, []),
        ("JS QS KS AS", 1, ["JS QS KS"]),
        # AH is wanted by the set and by A-2-3: the run leaves AC AD (2), the set 2H 3H (5).
        ("AC AD AH 2H 3H", 2, ["AH 2H 3H"]),
    ],
)
def test_crafted_hands(text: str, expected: int, melds: list[str]) -> None:
    hand = h(text)
    assert deadwood(hand) == min_deadwood(hand) == ref.deadwood(hand) == expected
    assert_arrangements(hand, melds)


def test_a_run_of_six_is_one_arrangement_and_two_runs_of_three_another() -> None:
    hand = h("2D 3D 4D 5D 6D 7D")
    got = {as_ref(a.melds) for a in all_arrangements(hand)}
    assert got == {
        as_ref(melds_of("2D 3D 4D 5D 6D 7D")),
        as_ref(melds_of("2D 3D 4D", "5D 6D 7D")),
    }


def test_face_cards_tie_between_a_set_and_a_run() -> None:
    hand = h("JC JD JH QH KH")
    assert deadwood(hand) == min_deadwood(hand) == 20
    assert_arrangements(hand, ["JC JD JH"], ["JH QH KH"])


# Eleven-card gins: (hand, deadwood with all eleven kept, the discards that leave gin).
ELEVEN_CARD_GINS = [
    pytest.param("AS 2S 3S 4S 7C 7D 7H 9H TH JH KD", 10, "KD", id="4+3+3 and a spare"),
    pytest.param("KC KD KH 2S 3S 4S 5S 8C 8D 8H 8S", 0, "2S 5S 8C 8D 8H 8S", id="3+4+4"),
    pytest.param("3C 4C 5C 6C 7C QC QD QH 9D 9H 9S", 0, "3C 7C", id="3+3+5"),
    pytest.param("AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS", 0, "AS 4S 5S 6S 7S 8S JS", id="11-card run"),
    pytest.param("5C 5D 5H 5S 9C 9D 9H 9S KC KD KH", 0, "5C 5D 5H 5S 9C 9D 9H 9S", id="4+4+3 sets"),
    pytest.param("AH 2H 3H 4H 5H 6H 7H 7C 7D 7S 8S", 8, "8S", id="a seven shared, spare 8S"),
]


@pytest.mark.parametrize(("text", "kept_all", "discards"), ELEVEN_CARD_GINS)
def test_eleven_card_gins(text: str, kept_all: int, discards: str) -> None:
    hand = h(text)
    assert min_deadwood(hand) == ref.min_deadwood(hand) == 0
    assert best_discards(hand) == (0, h(discards))
    assert ref.best_discards(hand) == (0, h(discards))
    assert deadwood(hand) == ref.deadwood(hand) == kept_all  # 0: big gin, no discard needed
    assert best_arrangement(hand).deadwood == kept_all


def test_openspiel_defect_hand_is_gin_after_discarding_4d() -> None:
    # OpenSpiel's 11-card shortcut misses this gin: aces, four twos and threes are three sets.
    hand = h("AS 3D 2S 3H AH AC 4D 2H 2C 2D 3S")
    assert min_deadwood(hand) == 0
    least, discards = best_discards(hand)
    assert least == 0 and discards == h("4D")
    assert check_arrangement(hand & ~h("4D"), melds_of("AC AH AS", "2C 2D 2H 2S", "3D 3H 3S")) == 0
    # All eleven kept: three runs of A-2-3 / 2-3-4 and AC 2C dead (3).
    assert deadwood(hand) == 3
    # Taken from the discard pile, 4D may not be discarded (R8): the best is then 2C, leaving AC.
    assert best_discards(hand, forbidden=h("4D")) == (1, h("2C"))
    assert discard_deadwoods(hand) == {
        card: ref.deadwood(hand & ~(1 << card)) for card in ref.cards(hand)
    }


def test_best_discards_when_every_best_discard_is_forbidden() -> None:
    # Gin by discarding KD alone; KD was just taken, so the best allowed discard keeps KD dead.
    hand = h("AS 2S 3S 4S 7C 7D 7H 9H TH JH KD")
    assert best_discards(hand, forbidden=h("KD")) == (10, h("AS 4S"))


# ---------------------------------------------------------------------------------------------
# Lay-off traps (R10).

JUNK = "KC QD 2S 4D AD JC"  # 37 points of deadwood that no test below can meld or lay off
JUNK5 = "KC QD 2S 4D AD"  # 27 of them


def laid(result: LayOffResult) -> dict[str, int]:
    return {format_cards(1 << lo.card): lo.meld_index for lo in result.lay_offs}


def test_lay_off_three_cards_chained_onto_one_run() -> None:
    # 4H then 3H below 5H, 8H above 7H: none of the three is in a meld of the defender's.
    defender = h("3H 4H 8H 9S " + JUNK)
    assert deadwood(defender) == 61
    result = lay_off(defender, melds_of("5H 6H 7H"))
    assert laid(result) == {"3H": 0, "4H": 0, "8H": 0}
    assert result.deadwood == deadwood_value(h("9S " + JUNK)) == 46


def test_lay_off_chained_run_onto_a_run_keeps_the_fewest_cards() -> None:
    # 8H 9H TH could all go onto 5H 6H 7H, but they meld anyway: laying off saves nothing.
    defender = h("8H 9H TH 9S " + JUNK)
    result = lay_off(defender, melds_of("5H 6H 7H"))
    assert result.lay_offs == ()
    assert result.deadwood == deadwood(defender) == 46


def test_lay_off_a_card_that_fits_a_set_and_a_run() -> None:
    melds = melds_of("9C 9D 9H", "6S 7S 8S")
    alone = lay_off(h("9S " + JUNK), melds)
    assert set(laid(alone)) == {"9S"}
    assert alone.deadwood == deadwood_value(h(JUNK)) == 37
    # With TS too, 9S must go on the run so that TS can follow it.
    both = lay_off(h("9S TS " + JUNK), melds)
    assert laid(both) == {"9S": 1, "TS": 1}
    assert both.deadwood == 37


def test_defender_breaks_a_set_of_four_to_lay_off() -> None:
    # Kept whole the four eights leave 9H dead (9); laying off 8H and 9H leaves a set of three.
    defender = h("8C 8D 8H 8S 9H " + JUNK5)
    assert deadwood(defender) == 9 + 27
    result = lay_off(defender, melds_of("5H 6H 7H"))
    assert laid(result) == {"8H": 0, "9H": 0}
    assert result.deadwood == 27
    assert as_ref(result.arrangement.melds) == as_ref(melds_of("8C 8D 8S"))


def test_defender_breaks_its_run_to_lay_off_and_make_a_set() -> None:
    # Alone the defender melds 8H 9H TH and keeps 8C 8D (16). Against these melds: TH onto the
    # tens, 8H into a set with 8C 8D, 9H dead (9); laying off 8H 9H TH instead leaves 16.
    defender = h("8H 9H TH 8C 8D " + JUNK5)
    assert deadwood(defender) == 16 + 27
    knocker = melds_of("5H 6H 7H", "TC TD TS")
    result = lay_off(defender, knocker)
    assert laid(result) == {"TH": 1}
    assert result.deadwood == 9 + 27
    assert as_ref(result.arrangement.melds) == as_ref(melds_of("8C 8D 8H"))
    assert ref.lay_off_deadwood(defender, list(as_ref(knocker))) == 36


def test_lay_off_at_both_ends_of_a_run() -> None:
    result = lay_off(h("4H 8H " + JUNK), melds_of("5H 6H 7H"))
    assert laid(result) == {"4H": 0, "8H": 0}
    assert result.deadwood == 37


def test_lay_off_the_fourth_card_of_a_set_only() -> None:
    assert laid(lay_off(h("7S " + JUNK), melds_of("7C 7D 7H"))) == {"7S": 0}
    # A set of four takes nothing; 6H does not extend a set.
    assert lay_off(h("6H " + JUNK), melds_of("7C 7D 7H 7S")).lay_offs == ()


@pytest.mark.parametrize(
    ("defender", "run", "expected"),
    [
        ("AS 4C 9D", "JS QS KS", {}),  # no Ace above the King
        ("KS 4C 9D", "AS 2S 3S", {}),  # no King below the Ace
        ("AS KS 4C", "2S 3S 4S", {"AS": 0}),  # the Ace below a two is fine
        ("QS KS AS 4C", "9S TS JS", {"QS": 0, "KS": 0}),  # the chain stops at the King
    ],
)
def test_lay_off_does_not_wrap_around(defender: str, run: str, expected: dict[str, int]) -> None:
    result = lay_off(h(defender), melds_of(run))
    assert laid(result) == expected
    assert result.deadwood == deadwood(h(defender) & ~h(" ".join(expected)))


def test_lay_off_onto_no_melds_changes_nothing() -> None:
    defender = h("3H 4H 8H 9S " + JUNK)
    result = lay_off(defender, [])
    assert result.lay_offs == ()
    assert result.deadwood == deadwood(defender)


# ---------------------------------------------------------------------------------------------
# Bad input.


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Fail with TimeoutError instead of hanging (a card loop over a negative mask never ends).
    The limit is CPU time, not the wall clock, so that a busy machine does not trip it."""

    def expire(signum: int, frame: FrameType | None) -> None:
        raise TimeoutError(f"still running after {seconds} s of CPU time")

    previous = signal.signal(signal.SIGPROF, expire)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


TWELVE = h("AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS")
ELEVEN = h("AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS")
NOT_CARD_SETS = [-1, -8, 1 << 52, (1 << 52) | 0b111, 1 << 60]

# Every public solver function, as a function of one mask: the functions that search a hand and
# so take at most MAX_CARDS cards, then those whose cost is linear and take any card set.
LIMITED: list[tuple[str, Callable[[int], object]]] = [
    ("deadwood", deadwood),
    ("min_deadwood", min_deadwood),
    ("best_discards", best_discards),
    ("discard_deadwoods", discard_deadwoods),
    ("best_arrangement", best_arrangement),
    ("all_arrangements", all_arrangements),
    ("knock_arrangement", knock_arrangement),
    ("lay_off", lambda mask: lay_off(mask, melds_of("5H 6H 7H"))),
    ("lay_off melds", lambda mask: lay_off(h("2C"), [mask])),
]
UNLIMITED: list[tuple[str, Callable[[int], object]]] = [
    ("is_meld", is_meld),
    ("all_melds", all_melds),
    ("check_arrangement", lambda mask: check_arrangement(mask, [])),
    ("lay_off_exposure", lambda mask: lay_off_exposure([], mask)),
    ("lay_off_exposure melds", lambda mask: lay_off_exposure([mask], 0)),
    ("knock_arrangement dead", lambda mask: knock_arrangement(h("AS 2S 3S"), mask)),
    ("best_discards forbidden", lambda mask: best_discards(ELEVEN, mask)),
]
CHECKED = LIMITED + UNLIMITED


def test_the_checks_cover_every_public_solver_function() -> None:
    public = {
        name
        for name in melds.__all__
        if callable(getattr(melds, name)) and not isinstance(getattr(melds, name), type)
    }
    checked = {name.split()[0] for name, _ in CHECKED} | {"meld_error"}  # meld_error explains
    assert public == checked


@pytest.mark.parametrize("name", sorted(set(melds.__all__) - {"MAX_CARDS", "RANKS"}))
def test_every_public_solver_function_states_its_card_limit(name: str) -> None:
    doc = getattr(melds, name).__doc__ or ""
    if isinstance(getattr(melds, name), type):
        return  # a value type, not a solver function
    assert "MAX_CARDS" in doc or "any card set" in doc or "any value" in doc, doc


@pytest.mark.parametrize(("name", "function"), LIMITED[:-1])
def test_twelve_cards_are_not_a_hand(name: str, function: Callable[[int], object]) -> None:
    with time_limit(2), pytest.raises(CardError, match="12 cards"):
        function(TWELVE)


def test_twelve_cards_of_melds_are_too_many_to_lay_off_on() -> None:
    with pytest.raises(CardError, match=r"12 cards.*at most 11"):
        lay_off(h("2C"), melds_of("AS 2S 3S 4S 5S 6S", "7S 8S 9S TS JS QS"))


@pytest.mark.parametrize("mask", [FULL_DECK, FULL_DECK >> 12])  # 52 cards, 40 cards
@pytest.mark.parametrize(("name", "function"), LIMITED)
def test_a_large_card_set_fails_fast(
    name: str, function: Callable[[int], object], mask: int
) -> None:
    # Without the limit the full deck raised MemoryError and 32 cards took a second.
    with time_limit(0.5), pytest.raises(CardError, match=f"{mask.bit_count()} cards"):
        function(mask)


@pytest.mark.parametrize(("name", "function"), UNLIMITED)
def test_the_linear_functions_take_the_full_deck(
    name: str, function: Callable[[int], object]
) -> None:
    with time_limit(2):
        function(FULL_DECK)


@pytest.mark.parametrize(("name", "function"), LIMITED[:-1])
def test_eleven_cards_are_within_the_limit(name: str, function: Callable[[int], object]) -> None:
    function(ELEVEN)


def test_a_defender_lays_off_on_eleven_melded_cards() -> None:
    big_gin = melds_of("AC 2C 3C 4C", "7H 8H 9H", "KD KH KC KS")
    assert laid(lay_off(h("5C 6C TH 2D 3D 4D 9S 8S 7S 6S"), big_gin)) == {"5C": 0, "6C": 0, "TH": 1}


@pytest.mark.parametrize("name", ["best_discards", "discard_deadwoods"])
def test_discards_need_exactly_eleven_cards(name: str) -> None:
    with pytest.raises(CardError, match="exactly 11"):
        dict(CHECKED)[name](h("AS 2S 3S 4S 5S 6S 7S 8S 9S TS"))


@pytest.mark.parametrize("mask", NOT_CARD_SETS)
@pytest.mark.parametrize(("name", "function"), CHECKED)
def test_masks_outside_the_deck_are_card_errors(
    name: str, function: Callable[[int], object], mask: int
) -> None:
    with time_limit(2), pytest.raises(CardError, match="52-bit"):
        function(mask)


def test_a_card_set_is_a_mask() -> None:
    hand = parse_cards("AS 2S 3S 4S 7H 7D 7C KD QH 9C")
    assert deadwood(hand) == min_deadwood(hand) == deadwood(int(hand)) == 29
    assert best_arrangement(hand) == best_arrangement(int(hand))


def test_lay_off_refuses_overlapping_cards() -> None:
    with pytest.raises(CardError, match="share 5H"):
        lay_off(h("5H 9C"), melds_of("5H 6H 7H"))
    with pytest.raises(CardError, match="melds share 7H"):
        lay_off(h("9C"), melds_of("5H 6H 7H", "7C 7D 7H"))


def test_check_arrangement_names_the_cards_of_an_invalid_meld() -> None:
    hand = h("AS 2S 3S 4S QS KS 5D 5H 9C 9D")
    cases = {
        "AS 2S": ("at least 3", "R3"),
        "AS 2S 4S": ("consecutive", "R3"),
        "QS KS AS": ("Q-K-A", "R1"),
        "AS 2S 3S 5D": ("one suit", "R3"),
    }
    for meld, (reason, rule) in cases.items():
        with pytest.raises(MeldError, match=reason) as caught:
            check_arrangement(hand, [h(meld)])
        assert f"[{format_cards(h(meld))}]" in str(caught.value)
        assert caught.value.rule == rule


def test_check_arrangement_names_overlapping_cards() -> None:
    hand = h("7C 7D 7H 5H 6H 8H")
    with pytest.raises(MeldError, match=r"\[5H 6H 7H\]: 7H already used in another meld"):
        check_arrangement(hand, melds_of("7C 7D 7H", "5H 6H 7H"))


def test_check_arrangement_names_cards_not_in_the_hand() -> None:
    hand = h("7S 8S 5D 6D")
    with pytest.raises(MeldError, match=r"\[7S 8S 9S\]: 9S not in the hand \[5D 6D 7S 8S\]"):
        check_arrangement(hand, melds_of("7S 8S 9S"))


def test_check_arrangement_accepts_a_valid_arrangement_that_is_not_the_best() -> None:
    hand = h("7C 7D 7H 5H 6H 8H")
    assert check_arrangement(hand, melds_of("7C 7D 7H")) == 19
    assert check_arrangement(hand, []) == deadwood_value(hand) == 40


# Masks outside the deck given to check_arrangement or meld_error once hung (a negative mask: the
# card loop in cards_of never ended) or raised IndexError (bits above 51) instead of a ValueError.


@pytest.mark.parametrize("meld", NOT_CARD_SETS)
def test_check_arrangement_rejects_a_meld_mask_outside_the_deck(meld: int) -> None:
    with time_limit(2), pytest.raises(ValueError):
        check_arrangement(h("AC 2C 3C"), [meld])


@pytest.mark.parametrize("meld", NOT_CARD_SETS)
def test_meld_error_explains_a_mask_outside_the_deck(meld: int) -> None:
    with time_limit(2):
        why = meld_error(meld)
    assert isinstance(why, str) and "not a meld" in why


@pytest.mark.parametrize("hand", NOT_CARD_SETS)
def test_check_arrangement_rejects_a_hand_mask_outside_the_deck(hand: int) -> None:
    with time_limit(2), pytest.raises(ValueError):
        check_arrangement(hand, [])


@pytest.mark.parametrize(
    "call",
    [
        min_deadwood,
        deadwood,
        best_discards,
        best_arrangement,
        is_meld,
        lambda v: lay_off(v, []),
    ],
)
@pytest.mark.parametrize("value", ["AS 2S 3S", "2047", 3.0, None])
def test_a_value_that_is_no_card_set_is_a_card_error(call: Any, value: object) -> None:
    with pytest.raises(CardError, match="expected a card set"):
        call(value)


def test_a_card_set_and_its_int_give_the_same_answers() -> None:
    hand = CardSet.parse("AS 2S 3S 4S 7H 7D 7C KD QH 9C 9S")
    plain = int(hand)
    assert best_discards(hand) == best_discards(plain)
    assert min_deadwood(hand) == min_deadwood(plain)
    assert best_arrangement(hand - CardSet.parse("9S")) == best_arrangement(plain & ~(1 << 47))
