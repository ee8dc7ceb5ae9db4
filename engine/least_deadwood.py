"""The least deadwood of a hand, by table look-ups: :func:`deadwood` (every card kept),
:func:`min_deadwood` (after the best discard, for eleven cards), :func:`best_discards` and
:func:`discard_deadwoods`; with the per-suit tables they read and the checks of every input of
the meld solver. :mod:`engine.melds` is the solver's public face: it gives these too.

How it is fast in pure Python: a hand's four 13-bit suit patterns index tables computed once at
import (:data:`RUN_DEADWOOD` is the least deadwood a suit pattern leaves when only runs are made in
it, :data:`DISCARD_GAIN` the most one discard from it can save). A hand with no rank held in three
or four suits can only meld runs, so its answer is four table look-ups. Otherwise only the choices
for those few ranks (no set, each set of three, the set of four) are enumerated, each again by
look-ups. Every function here takes and returns plain int masks (see :mod:`engine.cards`).
"""

from __future__ import annotations

from typing import Final

from engine.cards import FULL_DECK, VALUES, CardError, cards_of, format_cards

MAX_CARDS: Final = 11
"""The most cards a solver function searches: a player's hand after the draw. It covers every use
in the engine: a hand of ten or eleven cards, the ten a knocker keeps, the defender's ten against
the knocker's melds (at most eleven cards, after big gin)."""


# ---------------------------------------------------------------------------------------------
# Per-suit tables.

_RANK_VALUES: Final = VALUES[:13]  # the value of each rank (R2): the clubs' values
_PATTERNS: Final = 1 << 13
_NONE: Final = -1000  # a gain that never wins: an empty suit has nothing to discard


def _build_run_tables() -> tuple[list[int], list[int], list[int], list[int]]:
    """RUN_DEADWOOD, RUN_CHOICE, DISCARD_GAIN and BEST_DISCARDS for every 13-bit suit pattern.

    RUN_CHOICE[p] describes an optimal first decision for the lowest card of ``p``: 0 if it stays
    deadwood, otherwise the length of the run it starts (preferring the longest run).
    """
    deadwood = [0] * _PATTERNS
    choice = [0] * _PATTERNS
    for p in range(1, _PATTERNS):
        low = p & -p
        r = low.bit_length() - 1
        best = _RANK_VALUES[r] + deadwood[p ^ low]
        best_choice = 0
        length = 1
        run = low
        while r + length < 13 and p >> (r + length) & 1:
            run |= 1 << (r + length)
            length += 1
            if length >= 3 and deadwood[p ^ run] <= best:
                best = deadwood[p ^ run]
                best_choice = length
        deadwood[p] = best
        choice[p] = best_choice
    gain = [_NONE] * _PATTERNS
    best_discards = [0] * _PATTERNS
    for p in range(1, _PATTERNS):
        best_after = 1000
        mask = 0
        rest = p
        while rest:
            low = rest & -rest
            rest ^= low
            after = deadwood[p ^ low]
            if after < best_after:
                best_after, mask = after, low
            elif after == best_after:
                mask |= low
        gain[p] = deadwood[p] - best_after
        best_discards[p] = mask
    return deadwood, choice, gain, best_discards


RUN_DEADWOOD, RUN_CHOICE, DISCARD_GAIN, BEST_DISCARDS = _build_run_tables()
"""``RUN_DEADWOOD[p]``: least deadwood of suit pattern ``p`` with runs only. ``DISCARD_GAIN[p]``:
the most that discarding one card of ``p`` lowers it. ``BEST_DISCARDS[p]``: the cards that do."""

RANK_MASKS: Final = tuple(sum(1 << (s * 13 + r) for s in range(4)) for r in range(13))


def _set_options_table() -> dict[int, tuple[int, ...]]:
    """For every 3- or 4-card group of one rank: the set choices (no set, each set of 3, the 4)."""
    table: dict[int, tuple[int, ...]] = {}
    for r in range(13):
        full = RANK_MASKS[r]
        cards = [1 << (s * 13 + r) for s in range(4)]
        for missing in cards:
            table[full ^ missing] = (0, full ^ missing)
        table[full] = (0, full, *(full ^ c for c in cards))
    return table


_SET_OPTIONS: Final = _set_options_table()


def set_choices(h: int, a: int, b: int, c: int, d: int) -> list[int]:
    """Every combination of set choices for the ranks that ``h`` holds in three or four suits."""
    triples = (a & b & (c | d)) | (c & d & (a | b))
    combos = [0]
    while triples:
        low = triples & -triples
        triples ^= low
        options = _SET_OPTIONS[h & RANK_MASKS[low.bit_length() - 1]]
        combos = [m | o for m in combos for o in options]
    return combos


# ---------------------------------------------------------------------------------------------
# Deadwood.


def deadwood(cards: int, _dw: list[int] = RUN_DEADWOOD) -> int:
    """Least deadwood of ``cards``, up to :data:`MAX_CARDS` (11), with every card kept: no
    discard. Raises :class:`~engine.cards.CardError` for more cards or a mask that is not a card
    set."""
    try:
        h = +cards  # a CardSet becomes its plain mask: the arithmetic below stays in C
        a = h & 8191
    except TypeError:  # no int at all (a str, a float...)
        check_cards(cards, MAX_CARDS)
        raise
    b = h >> 13 & 8191
    c = h >> 26 & 8191
    d = h >> 39
    if d >> 13 or h.bit_count() > MAX_CARDS:  # outside the deck (negative too), or too many
        check_cards(h, MAX_CARDS)
    if not ((a & b & (c | d)) | (c & d & (a | b))):
        return _dw[a] + _dw[b] + _dw[c] + _dw[d]
    best = 1000
    for m in set_choices(h, a, b, c, d):
        r = h ^ m
        v = _dw[r & 8191] + _dw[r >> 13 & 8191] + _dw[r >> 26 & 8191] + _dw[r >> 39]
        best = min(best, v)
    return best


def min_deadwood(cards: int, _dw: list[int] = RUN_DEADWOOD, _gain: list[int] = DISCARD_GAIN) -> int:
    """Minimum deadwood of a hand: for up to 10 cards, of the hand itself; for 11 cards
    (:data:`MAX_CARDS`, a hand after the draw), the exact minimum over all 11 discards of the
    remaining ten cards' optimum.

    Raises :class:`~engine.cards.CardError` for more than 11 cards or a mask that is not a card set.
    """
    # The tables are default arguments so that the hot path reads locals, not globals.
    try:
        h = +cards  # a CardSet becomes its plain mask: the arithmetic below stays in C
        a = h & 8191
    except TypeError:  # no int at all (a str, a float...)
        check_cards(cards, MAX_CARDS)
        raise
    n = h.bit_count()
    b = h >> 13 & 8191
    c = h >> 26 & 8191
    d = h >> 39
    if n > MAX_CARDS or d >> 13:
        check_cards(h, MAX_CARDS)
    t = (a & b & (c | d)) | (c & d & (a | b))  # ranks held in three or four suits
    if not t:
        if n == 11:
            return _dw[a] + _dw[b] + _dw[c] + _dw[d] - max(_gain[a], _gain[b], _gain[c], _gain[d])
        return _dw[a] + _dw[b] + _dw[c] + _dw[d]
    if not t & (t - 1) and not (a & b & c & d):
        # One rank can make a set, of three: keep those cards in their suits or meld them.
        u = ~t
        if n == 11:
            keep = _dw[a] + _dw[b] + _dw[c] + _dw[d] - max(_gain[a], _gain[b], _gain[c], _gain[d])
            a &= u
            b &= u
            c &= u
            d &= u
            meld = _dw[a] + _dw[b] + _dw[c] + _dw[d] - max(_gain[a], _gain[b], _gain[c], _gain[d])
        else:
            keep = _dw[a] + _dw[b] + _dw[c] + _dw[d]
            meld = _dw[a & u] + _dw[b & u] + _dw[c & u] + _dw[d & u]
        return keep if keep < meld else meld
    best = 1000
    for m in set_choices(h, a, b, c, d):
        r = h ^ m
        a = r & 8191
        b = r >> 13 & 8191
        c = r >> 26 & 8191
        d = r >> 39
        v = _dw[a] + _dw[b] + _dw[c] + _dw[d]
        if n == 11:
            v -= max(_gain[a], _gain[b], _gain[c], _gain[d])
        best = min(best, v)
    return best


def best_discards(cards: int, forbidden: int = 0) -> tuple[int, int]:
    """For an 11-card hand: ``(deadwood, discards)``, the least deadwood of the ten cards kept and
    the mask of every discard that reaches it. Cards in ``forbidden`` (any card set) are never
    discarded (the card just taken from the discard pile, R8).

    Raises :class:`~engine.cards.CardError` unless ``cards`` is exactly 11 cards
    (:data:`MAX_CARDS`) and both masks are card sets."""
    h = as_mask(cards)
    forbidden = as_mask(forbidden, "forbidden cards")
    if h >> 52 or h.bit_count() != MAX_CARDS or forbidden >> 52:
        check_cards(h, MAX_CARDS, exact=True)
        check_cards(forbidden, 52, what="forbidden cards")
    a, b, c, d = h & 8191, h >> 13 & 8191, h >> 26 & 8191, h >> 39
    best = 1000
    mask = 0
    if not ((a & b & (c | d)) | (c & d & (a | b))):  # runs only: no set choice to weigh
        gain = max(DISCARD_GAIN[a], DISCARD_GAIN[b], DISCARD_GAIN[c], DISCARD_GAIN[d])
        best = RUN_DEADWOOD[a] + RUN_DEADWOOD[b] + RUN_DEADWOOD[c] + RUN_DEADWOOD[d] - gain
        for s, p in enumerate((a, b, c, d)):
            if DISCARD_GAIN[p] == gain:
                mask |= BEST_DISCARDS[p] << (13 * s)
        choices: list[int] = []
    else:
        choices = set_choices(h, a, b, c, d)
    for m in choices:
        r = h ^ m
        pats = (r & 8191, r >> 13 & 8191, r >> 26 & 8191, r >> 39)
        total = sum(RUN_DEADWOOD[p] for p in pats)
        gain = max(DISCARD_GAIN[p] for p in pats)
        v = total - gain
        if v > best:
            continue
        found = 0
        for s, p in enumerate(pats):
            if DISCARD_GAIN[p] == gain:
                found |= BEST_DISCARDS[p] << (13 * s)
        if v < best:
            best, mask = v, found
        else:
            mask |= found
    allowed = mask & ~forbidden
    if allowed or not mask:
        return best, allowed
    # Every best discard is forbidden: look at each allowed discard on its own.
    best = 1000
    for card in cards_of(h & ~forbidden):
        v = deadwood(h ^ (1 << card))
        if v < best:
            best, allowed = v, 1 << card
        elif v == best:
            allowed |= 1 << card
    return best, allowed


def discard_deadwoods(cards: int) -> dict[int, int]:
    """For an 11-card hand: the least deadwood of the ten cards kept, for each possible discard.

    Raises :class:`~engine.cards.CardError` unless ``cards`` is a card set of exactly 11 cards
    (:data:`MAX_CARDS`)."""
    h = as_mask(cards)
    check_cards(h, MAX_CARDS, exact=True)
    return {card: deadwood(h ^ (1 << card)) for card in cards_of(h)}


# ---------------------------------------------------------------------------------------------
# Checking the inputs.


def as_mask(value: object, what: str = "hand") -> int:
    """``value`` as a plain int mask (a :class:`~engine.cards.CardSet` becomes its own int, so that
    the arithmetic on it runs at int speed); :class:`CardError` if it is not an int at all."""
    if isinstance(value, int) and not isinstance(value, bool):
        return +value
    check_cards(value, 52, what=what)
    raise AssertionError("unreachable: check_cards rejects every non-int")


def check_cards(h: object, most: int, exact: bool = False, what: str = "hand") -> None:
    """Raise :class:`CardError` unless ``h`` is a card set of at most (``exact``: exactly)
    ``most`` cards, naming it as ``what``."""
    if not isinstance(h, int) or isinstance(h, bool) or h < 0 or h > FULL_DECK:
        raise CardError(
            f"bad {what} {h!r}: expected a card set, a 52-bit mask from 0 to 2**52 - 1 "
            "(see engine.parse_cards)"
        )
    n = h.bit_count()
    if exact and n != most:
        raise CardError(
            f"wrong {what} size: {n} cards [{format_cards(h)}], expected exactly {most} "
            "(a hand after the draw)"
        )
    if n > most:
        raise CardError(
            f"too many cards in the {what}: {n} cards [{format_cards(h)}], the solver takes at "
            f"most {most} (MAX_CARDS: a hand after the draw; the cost grows exponentially)"
        )
