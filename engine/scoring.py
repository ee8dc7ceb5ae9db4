"""How a hand ends and what it scores: :class:`HandEnd`, :class:`HandResult` with the
:class:`ShowDown` of a knock, and the functions that show a knock down and score it (R10-R14,
R18-R20), for :class:`engine.hand.Hand` and for whoever scores a knock without a hand.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from engine.cards import SPADES, Card, deadwood_value
from engine.melds import LayOff, best_arrangement, knock_arrangement, lay_off
from engine.rules import Rules


class HandEnd(enum.StrEnum):
    """How a hand ended (R11-R14, R17, R19): the ``end`` of a :class:`HandResult`."""

    KNOCK = "knock"
    """The knocker had less deadwood than the defender after lay-offs (R12)."""
    UNDERCUT = "undercut"
    """The defender had as little deadwood as the knocker or less (R13)."""
    GIN = "gin"
    """The knocker melded all ten cards kept (R14)."""
    BIG_GIN = "big_gin"
    """The knocker melded all eleven cards, with no discard (R19)."""
    DRAWN = "drawn"
    """A discard left the stock at its floor with nobody knocking (R11)."""
    TURN_LIMIT = "turn_limit"
    """The hand reached the turn limit with nobody knocking (R17)."""


@dataclass(frozen=True, slots=True)
class ShowDown:
    """Both spreads after a knock (R10). Masks of cards; ``lay_offs`` name the knocker's melds by
    index into ``knocker_melds``."""

    knocker: int
    discard: int | None
    knocker_melds: tuple[int, ...]
    knocker_deadwood_cards: int
    knocker_deadwood: int
    defender_melds: tuple[int, ...]
    lay_offs: tuple[LayOff, ...]
    defender_deadwood_cards: int
    defender_deadwood: int


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand ended: who won (None for a drawn hand), the points scored and the show-down."""

    end: HandEnd
    winner: int | None
    points: int
    show_down: ShowDown | None = None
    doubled: bool = False

    def __str__(self) -> str:
        if self.winner is None:
            return f"{self.end.value}: no score"
        doubled = " (doubled: spade upcard)" if self.doubled else ""
        return f"{self.end.value}: player {self.winner} scores {self.points}{doubled}"


def knock_result(
    rules: Rules,
    kept: int,
    defender: int,
    *,
    discard: Card | None,
    melds: Sequence[int] | None = None,
    dead: int = 0,
    first_upcard: Card,
    knocker: int = 0,
) -> HandResult:
    """The show-down and score of a knock (R10, R12-R14, R18-R20): the knocker keeps ``kept``
    (after discarding ``discard``; None for big gin, R19) and shows ``melds`` or, when None, the
    engine's arrangement (R20), knowing the ``dead`` cards (the discard pile, the discard
    included); the ``defender`` lays off (none against gin, R14). ``knocker`` is the knocker's
    seat, the winner's reference. The arrangement is taken as given:
    :meth:`engine.hand.Hand.apply` checks a declared one (R3, R9) before it gets here."""
    if melds is not None:
        shown = tuple(sorted(int(m) for m in melds))
    else:
        shown = knock_arrangement(kept, dead).melds  # R20
    melded = 0
    for m in shown:
        melded |= m
    knocker_dead = kept & ~melded
    kd = deadwood_value(knocker_dead)
    if kd == 0:  # R14: no lay-offs against gin
        spread = best_arrangement(defender)
        lay_offs: tuple[LayOff, ...] = ()
    else:
        laid = lay_off(defender, shown)
        spread, lay_offs = laid.arrangement, laid.lay_offs
    dd = spread.deadwood
    show_down = ShowDown(
        knocker=knocker,
        discard=discard,
        knocker_melds=shown,
        knocker_deadwood_cards=knocker_dead,
        knocker_deadwood=kd,
        defender_melds=spread.melds,
        lay_offs=lay_offs,
        defender_deadwood_cards=spread.deadwood_cards,
        defender_deadwood=dd,
    )
    end, points, doubled = score_knock(
        rules, kd, dd, first_upcard=first_upcard, big_gin=discard is None
    )
    winner = 1 - knocker if end is HandEnd.UNDERCUT else knocker
    return HandResult(end, winner, points, show_down, doubled)


def score_knock(
    rules: Rules,
    knocker_deadwood: int,
    defender_deadwood: int,
    *,
    first_upcard: Card,
    big_gin: bool = False,
) -> tuple[HandEnd, int, bool]:
    """Score a knock: ``(end, points, doubled)``, the hand's end, the points its winner scores
    (the defender after an undercut, the knocker otherwise) and whether they were doubled.

    ``defender_deadwood`` is the defender's deadwood at the show-down: after lay-offs
    (:func:`engine.melds.lay_off`) against a knock with deadwood, without them against gin (R10,
    R14). ``big_gin``: the knocker melded all eleven cards and discarded none (R19).
    ``first_upcard`` decides the Oklahoma double (R18). Gin and big gin are never undercut (R14,
    R19); a tie is an undercut unless O4 says otherwise (R12, R13).

    >>> score_knock(Rules(), 4, 20, first_upcard=0)
    (<HandEnd.KNOCK: 'knock'>, 16, False)
    >>> score_knock(Rules(), 6, 6, first_upcard=0)
    (<HandEnd.UNDERCUT: 'undercut'>, 10, False)
    """
    kd, dd = knocker_deadwood, defender_deadwood
    if big_gin and kd:
        raise ValueError(f"big gin leaves no deadwood, not {kd} (R19)")
    if big_gin:  # R19
        end, points = HandEnd.BIG_GIN, dd + rules.big_gin_bonus
    elif kd == 0:  # R14: never undercut
        end, points = HandEnd.GIN, dd + rules.gin_bonus
    elif kd < dd or (kd == dd and not rules.undercut_on_tie):  # R12 (a tie: O4)
        end, points = HandEnd.KNOCK, dd - kd
    else:  # R13: the defender has as little deadwood or less
        end, points = HandEnd.UNDERCUT, kd - dd + rules.undercut_bonus
    # R18: a spade first upcard doubles every score of the hand under Oklahoma.
    doubled = rules.oklahoma and rules.oklahoma_spades_double and first_upcard // 13 == SPADES
    return end, points * 2 if doubled else points, doubled
