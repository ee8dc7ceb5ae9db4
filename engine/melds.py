"""The meld solver: exact minimum deadwood, optimal arrangements, best discards and lay-offs.

This module finds the melds: whether cards meld, the arrangements of a hand, the one a knocker
declares, and the defender's lay-offs. How much deadwood a hand leaves, with or without a discard,
is computed by table look-ups in :mod:`engine.least_deadwood` (how it is fast in pure Python is
told there) and given here too: :func:`deadwood`, :func:`min_deadwood`, :func:`best_discards`,
:func:`discard_deadwoods`. Every function takes and returns plain int masks (see
:mod:`engine.cards`).

Inputs are checked first, cheaply (a shift and a popcount): a mask must be a card set (an int from
0 to 2**52 - 1; a :class:`~engine.cards.CardSet` is one), and a function that searches a hand takes
at most :data:`MAX_CARDS` cards, since its cost grows exponentially with the cards (each rank held
in three or four suits multiplies the choices; the full deck would not fit in memory). Anything else
raises :class:`~engine.cards.CardError` naming the problem. Each docstring states its limit.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from engine.cards import (
    CARD_NAMES,
    FULL_DECK,
    RANKS,
    SUIT_MASK,
    VALUES,
    CardError,
    cards_of,
    deadwood_value,
    format_cards,
)
from engine.errors import EngineError

# DISCARD_GAIN is read from here (bots.strong): an explicit re-export.
from engine.least_deadwood import DISCARD_GAIN as DISCARD_GAIN  # noqa: PLC0414
from engine.least_deadwood import (
    MAX_CARDS,
    RANK_MASKS,
    RUN_CHOICE,
    RUN_DEADWOOD,
    as_mask,
    best_discards,
    check_cards,
    deadwood,
    discard_deadwoods,
    min_deadwood,
    set_choices,
)


class MeldError(EngineError, ValueError):
    """A declared meld or arrangement is not valid for the hand (R3)."""

    def __init__(self, message: str, rule: str = "R3") -> None:
        super().__init__(message)
        self.rule = rule


# ---------------------------------------------------------------------------------------------
# Arrangements.


def is_meld(meld: int) -> bool:
    """True if ``meld`` is a set (3 or 4 cards of one rank) or a run (3+ consecutive, one suit)
    (R3). The Ace is low: ranks never wrap from King to Ace (R1).

    Takes any card set (a meld has 3 to 13 cards; the cost does not grow with the cards); raises
    :class:`~engine.cards.CardError` for a mask that is not a card set."""
    meld = as_mask(meld, "meld")
    if meld >> 52:
        check_cards(meld, 52, what="meld")
    n = meld.bit_count()
    if n < 3:
        return False
    low = (meld & -meld).bit_length() - 1
    rank_mask = RANK_MASKS[low % 13]
    if meld & rank_mask == meld:
        return n <= 4
    suit = low // 13
    run = meld >> (13 * suit)
    if run > SUIT_MASK:
        return False
    run >>= low % 13
    return run & (run + 1) == 0  # consecutive ones from the lowest card


def meld_error(meld: int) -> str | None:
    """Why ``meld`` is not a meld, in words, or None if it is one. Takes any value: one that is
    not a card set is not a meld (no error)."""
    if not isinstance(meld, int) or isinstance(meld, bool) or not 0 <= meld <= FULL_DECK:
        return f"{meld!r} is not a meld: not a 52-bit card mask"
    if is_meld(meld):
        return None
    cards = format_cards(meld)
    n = meld.bit_count()
    if n < 3:
        return f"[{cards}] is not a meld: a meld has at least 3 cards"
    ranks = {c % 13 for c in cards_of(meld)}
    suits = {c // 13 for c in cards_of(meld)}
    if len(ranks) == 1:
        return f"[{cards}] is not a meld: a set has at most 4 cards"
    if len(suits) == 1 and {0, 12} <= ranks:
        return f"[{cards}] is not a meld: the Ace is low, so Q-K-A is not a run (R1)"
    if len(suits) == 1:
        return f"[{cards}] is not a meld: a run's cards must be consecutive"
    return f"[{cards}] is not a meld: a set is one rank, a run is one suit"


def check_arrangement(cards: int, melds: Sequence[int]) -> int:
    """Validate a declared arrangement of ``cards``; return the deadwood it leaves.

    Takes any card set (the cost is linear in the melds). Raises :class:`MeldError` naming the
    first meld that is invalid (a value that is not a card set included), overlaps another, or
    holds a card that is not in the hand; :class:`~engine.cards.CardError` if ``cards`` is not a
    card set.
    """
    cards = as_mask(cards)
    check_cards(cards, 52)
    used = 0
    for meld in melds:
        why = meld_error(meld)
        if why:
            raise MeldError(why, "R1" if "(R1)" in why else "R3")
        meld = +meld
        if meld & ~cards:
            raise MeldError(
                f"[{format_cards(meld)}]: {format_cards(meld & ~cards)} not in the hand "
                f"[{format_cards(cards)}]"
            )
        if meld & used:
            raise MeldError(
                f"[{format_cards(meld)}]: {format_cards(meld & used)} already used in another meld "
                "(a card belongs to at most one meld)"
            )
        used |= meld
    return deadwood_value(cards & ~used)


def _suit_runs(pattern: int, suit: int) -> list[int]:
    runs = []
    p = pattern
    while p:
        low = p & -p
        length = RUN_CHOICE[p]
        if length:
            r = low.bit_length() - 1
            run = ((1 << length) - 1) << r
            runs.append(run << (13 * suit))
            p ^= run
        else:
            p ^= low
    return runs


@dataclass(frozen=True, slots=True)
class Arrangement:
    """Melds chosen in a hand and the deadwood they leave."""

    melds: tuple[int, ...]
    deadwood_cards: int
    deadwood: int

    def __str__(self) -> str:
        parts = [f"[{format_cards(m)}]" for m in self.melds]
        if self.deadwood_cards:
            parts.append(f"deadwood {format_cards(self.deadwood_cards)} = {self.deadwood}")
        else:
            parts.append("no deadwood")
        return " ".join(parts)


def _arrangement(h: int, melds: Sequence[int]) -> Arrangement:
    melded = 0
    for m in melds:
        melded |= m
    rest = h & ~melded
    return Arrangement(tuple(sorted(melds)), rest, deadwood_value(rest))


def best_arrangement(cards: int) -> Arrangement:
    """One arrangement of ``cards`` (no discard) reaching the least deadwood.

    Takes up to :data:`MAX_CARDS` (11) cards; raises :class:`~engine.cards.CardError` for more or
    for a mask that is not a card set."""
    h = as_mask(cards)
    check_cards(h, MAX_CARDS)
    a, b, c, d = h & 8191, h >> 13 & 8191, h >> 26 & 8191, h >> 39
    best, best_sets = 1000, 0
    for m in set_choices(h, a, b, c, d):
        r = h ^ m
        v = sum(RUN_DEADWOOD[r >> (13 * s) & 8191] for s in range(4))
        if v < best:
            best, best_sets = v, m
    melds = [best_sets & rm for rm in RANK_MASKS if best_sets & rm]
    r = h ^ best_sets
    for s in range(4):
        melds.extend(_suit_runs(r >> (13 * s) & 8191, s))
    return _arrangement(h, melds)


def all_melds(cards: int) -> list[int]:
    """Every meld that can be made from ``cards``: sets of 3 and 4, and runs of every length.

    Takes any card set (at most 288 melds come out of the full deck); raises
    :class:`~engine.cards.CardError` for a mask that is not a card set."""
    h = as_mask(cards)
    check_cards(h, 52)
    out = []
    for rm in RANK_MASKS:
        group = h & rm
        n = group.bit_count()
        if n == 4:
            out.append(group)
        if n >= 3:
            out.extend(group ^ (1 << c) for c in cards_of(group)) if n == 4 else out.append(group)
    for s in range(4):
        p = h >> (13 * s) & 8191
        for start in range(11):
            length = 0
            while start + length < 13 and p >> (start + length) & 1:
                length += 1
                if length >= 3:
                    out.append(((1 << length) - 1) << (start + 13 * s))
    return out


def all_arrangements(cards: int) -> list[Arrangement]:
    """Every arrangement of ``cards`` that reaches the least deadwood (a run of six and two runs of
    three count as different arrangements), in a deterministic order.

    Takes up to :data:`MAX_CARDS` (11) cards; raises :class:`~engine.cards.CardError` for more or
    for a mask that is not a card set."""
    h = as_mask(cards)
    check_cards(h, MAX_CARDS)
    target = deadwood(h)
    melds = all_melds(h)
    by_card: dict[int, list[int]] = {}
    for m in melds:
        for c in cards_of(m):
            by_card.setdefault(c, []).append(m)
    found: list[Arrangement] = []

    def search(rest: int, chosen: list[int], dead: int) -> None:
        if dead > target:
            return
        if not rest:
            if dead == target:
                found.append(_arrangement(h, chosen))
            return
        low = rest & -rest
        card = low.bit_length() - 1
        for m in by_card.get(card, ()):
            if m & rest == m:
                chosen.append(m)
                search(rest ^ m, chosen, dead)
                chosen.pop()
        search(rest ^ low, chosen, dead + VALUES[card])

    search(h, [], 0)
    return found


def lay_off_exposure(melds: Sequence[int], hand: int) -> int:
    """Cards outside ``hand`` that could be laid off directly on ``melds`` (R10): the fourth card
    of each set of three and the card at each open end of each run.

    Takes any card sets (the cost is linear in the melds): ``hand`` may be every card the defender
    cannot hold. Raises :class:`~engine.cards.CardError` for a mask that is not a card set."""
    hand = as_mask(hand)
    check_cards(hand, 52)
    exposed = 0
    for meld in (as_mask(m, "meld") for m in melds):
        if meld >> 52:
            check_cards(meld, 52, what="meld")
        rank_mask = RANK_MASKS[((meld & -meld).bit_length() - 1) % 13]
        if meld & rank_mask != meld:
            exposed |= _run_ends(meld)
        elif meld.bit_count() == 3:
            exposed |= rank_mask & ~meld
    return exposed & ~hand


def _run_ends(run: int) -> int:
    low = (run & -run).bit_length() - 1
    high = run.bit_length() - 1
    ends = 0
    if low % 13 != 0:
        ends |= 1 << (low - 1)
    if high % 13 != 12:
        ends |= 1 << (high + 1)
    return ends


def knock_arrangement(cards: int, dead: int = 0) -> Arrangement:
    """The arrangement the engine declares for a knocker who declares none (R20).

    Among the arrangements with least deadwood: the fewest cards a defender could lay off directly
    (:func:`lay_off_exposure`, not counting the ``dead`` cards, which the defender cannot hold:
    the discard pile, the knock's discard included), then the fewest melds, then the deadwood
    cards with the lowest mask, then the melds (each as its mask, in ascending order) first in
    lexicographic order.

    Takes up to :data:`MAX_CARDS` (11) cards (eleven after big gin) and any card set ``dead``;
    raises :class:`~engine.cards.CardError` for more cards or a mask that is not a card set.
    """
    dead = as_mask(dead, "dead cards")
    check_cards(dead, 52, what="dead cards")
    h = as_mask(cards)
    options = all_arrangements(h)
    unavailable = h | dead
    return min(
        options,
        key=lambda a: (
            lay_off_exposure(a.melds, unavailable).bit_count(),
            len(a.melds),
            a.deadwood_cards,
            a.melds,
        ),
    )


# ---------------------------------------------------------------------------------------------
# Lay-offs.


@dataclass(frozen=True, slots=True)
class LayOff:
    """One card laid off by the defender onto the knocker's meld ``meld_index``."""

    card: int
    meld_index: int

    def __str__(self) -> str:
        return f"{CARD_NAMES[self.card]} on meld {self.meld_index}"


@dataclass(frozen=True, slots=True)
class LayOffResult:
    """The defender's side of a show-down: lay-offs, own melds and the deadwood that counts."""

    lay_offs: tuple[LayOff, ...]
    arrangement: Arrangement

    @property
    def deadwood(self) -> int:
        return self.arrangement.deadwood

    @property
    def laid_off(self) -> int:
        mask = 0
        for lo in self.lay_offs:
            mask |= 1 << lo.card
        return mask


def _meld_lay_off_options(meld: int, hand: int) -> list[list[tuple[int, int]]]:
    """The ways the defender holding ``hand`` may lay off onto one meld: lists of (card, mask)."""
    low = (meld & -meld).bit_length() - 1
    rm = RANK_MASKS[low % 13]
    if meld & rm == meld:  # a set: the fourth card, if the meld has three and the hand has it
        fourth = rm & ~meld & hand
        return [[]] + (
            [[(fourth.bit_length() - 1, fourth)]] if meld.bit_count() == 3 and fourth else []
        )
    suit_base = 13 * (low // 13)
    high = meld.bit_length() - 1
    below: list[tuple[int, int]] = []
    card = low - 1
    while card >= suit_base and hand >> card & 1:  # chained extension downwards
        below.append((card, 1 << card))
        card -= 1
    above: list[tuple[int, int]] = []
    card = high + 1
    while card < suit_base + 13 and hand >> card & 1:  # and upwards
        above.append((card, 1 << card))
        card += 1
    return [below[:i] + above[:j] for i in range(len(below) + 1) for j in range(len(above) + 1)]


def lay_off(defender: int, knocker_melds: Sequence[int]) -> LayOffResult:
    """The defender's optimal show-down against ``knocker_melds`` (R10): every combination of
    lay-offs
    (a fourth card onto a set of three, chained extensions at either end of a run) is weighed
    together with the defender's own melds, breaking them when that lowers the deadwood.

    Ties keep the fewest cards laid off, then the first found in meld order.

    Takes a defender of up to :data:`MAX_CARDS` (11) cards and melds of up to 11 cards in all,
    none of them the defender's (the cost grows with the product of each meld's choices). Raises
    :class:`~engine.cards.CardError` for more cards, overlapping cards or a mask that is not a card
    set.
    """
    h = as_mask(defender, "defender's hand")
    melds = [as_mask(m, "meld") for m in knocker_melds]
    melded = 0
    for m in melds:
        if m >> 52 or m & melded:
            _check_melds(melds)
        melded |= m
    if h >> 52 or h.bit_count() > MAX_CARDS or melded.bit_count() > MAX_CARDS or h & melded:
        check_cards(h, MAX_CARDS, what="defender's hand")
        _check_melds(melds)
        raise CardError(
            f"the knocker's melds and the defender's hand share {format_cards(h & melded)}"
        )
    per_meld = [_meld_lay_off_options(m, h) for m in melds]
    seen: dict[int, tuple[tuple[int, int], ...]] = {}
    for combo in itertools.product(*per_meld):
        laid: list[tuple[int, int]] = []
        mask = 0
        for index, option in enumerate(combo):
            for card, bit in option:
                if not mask & bit:
                    mask |= bit
                    laid.append((card, index))
        if mask not in seen:
            seen[mask] = tuple(laid)
    best_mask, best_value = 0, deadwood(h)
    for mask in seen:
        v = deadwood(h & ~mask)
        if v < best_value or (v == best_value and mask.bit_count() < best_mask.bit_count()):
            best_mask, best_value = mask, v
    lay_offs = tuple(LayOff(card, index) for card, index in seen.get(best_mask, ()))
    return LayOffResult(lay_offs, best_arrangement(h & ~best_mask))


def _check_melds(melds: Sequence[int]) -> None:
    """Raise :class:`CardError` unless ``melds`` are disjoint card sets of at most
    :data:`MAX_CARDS` cards in all."""
    melded = 0
    for meld in melds:
        check_cards(meld, 52, what="meld")
        if meld & melded:
            raise CardError(
                f"the knocker's melds share {format_cards(meld & melded)}: a card belongs to at "
                "most one meld"
            )
        melded |= meld
    check_cards(melded, MAX_CARDS, what="knocker's melds")


__all__ = [
    "MAX_CARDS",
    "RANKS",
    "Arrangement",
    "LayOff",
    "LayOffResult",
    "MeldError",
    "all_arrangements",
    "all_melds",
    "best_arrangement",
    "best_discards",
    "check_arrangement",
    "deadwood",
    "discard_deadwoods",
    "is_meld",
    "knock_arrangement",
    "lay_off",
    "lay_off_exposure",
    "meld_error",
    "min_deadwood",
]
