"""A game: hands played until a player reaches the target score (R15), with dealer rotation (R4),
drawn hands redealt by the same dealer, the end-of-game bonuses (R16) and the hand limit (R22).

Deals come from one SplitMix64 stream seeded with the game seed (engine.deck): its first number's
lowest bit picks the first dealer, then every deal, drawn ones included, shuffles a new deck.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from engine.deck import SplitMix64
from engine.errors import EngineError
from engine.hand import Action, Hand, HandResult, Phase
from engine.modes import Mode
from engine.rules import HOYLE, Rules


class GameError(EngineError, RuntimeError):
    """A game was driven out of order (a new hand before the last one ended, or after the end)."""


class GameEnd(enum.StrEnum):
    """How a game ended."""

    TARGET = "target"
    """A player reached the target (R15)."""
    HAND_LIMIT = "hand_limit"
    """Nobody had after O17 hands: decided on points, or drawn (R22)."""


@dataclass(frozen=True, slots=True)
class GameResult:
    """The end of a game. ``scores`` are the final totals, bonuses included (R16).

    ``end`` is ``"target"`` when the winner reached the target (R15), ``"hand_limit"`` when the
    game was cut at O17 hands (R22); only then can ``winner`` be ``None`` (a drawn game)."""

    winner: int | None
    scores: tuple[int, int]
    hand_points: tuple[int, int]
    hands_won: tuple[int, int]
    game_bonus: int
    line_bonus: tuple[int, int]
    hands_played: int
    end: GameEnd = GameEnd.TARGET

    def __str__(self) -> str:
        after = f"after {self.hands_played} hands"
        if self.end is GameEnd.HAND_LIMIT:
            after += " (the hand limit)"
        if self.winner is None:
            return f"drawn {self.scores[0]}-{self.scores[1]} {after}"
        return f"player {self.winner} wins {self.scores[0]}-{self.scores[1]} {after}"


Outcome = TypeVar("Outcome")
"""What a series of hands ends with: a :class:`GameResult`, or a format's own result."""


class HandSeries(Generic[Outcome]):
    """Hands dealt one after another from one seed's stream (R21), each scored as it ends: what a
    two-player :class:`Game` and every format of :mod:`engine.formats` share, generic in the
    result the series ends with.

    A subclass sets ``rules``, ``seed`` and ``_rng`` (and whatever its seating needs), then deals
    the first hand with :meth:`_deal`; it scores a hand in :meth:`_score`, says who plays and deals
    the next hand in :attr:`next_seating`, and has a ``result`` once the game is over."""

    rules: Rules
    seed: int
    _rng: SplitMix64
    hand: Hand
    hand_number: int
    results: list[HandResult]
    _seated: tuple[int, int] = (0, 1)

    @property
    def result(self) -> Outcome | None:
        raise NotImplementedError

    @property
    def is_over(self) -> bool:
        return self.result is not None

    @property
    def seated(self) -> tuple[int, int]:
        """The players in the current hand's seats 0 and 1."""
        return self._seated

    @property
    def next_seating(self) -> tuple[tuple[int, int], int]:
        """The players of the hand :meth:`next_hand` deals, by seat, and the seat that deals."""
        raise NotImplementedError

    def _deal(self, deck: Sequence[int] | None) -> Hand:
        order = self._rng.shuffled_deck() if deck is None else deck
        self.hand_number += 1
        self._seated, dealer_seat = self.next_seating
        return Hand(self.rules, dealer_seat, order)

    def apply(self, action: Action) -> HandResult | None:
        """Apply a checked action to the current hand; when it ends the hand, score it and return
        its result."""
        hand = self.hand
        hand.apply(action)
        if hand.result is None:
            return None
        self._scored(hand.result)
        return hand.result

    def record(self, result: HandResult) -> None:
        """Score a hand that was finished outside :meth:`apply` (e.g. with apply_unchecked)."""
        if self.hand.result is not result:
            raise GameError("record() takes the result of the current hand")
        if self.results and self.results[-1] is result:
            raise GameError("this hand's result is already scored")
        self._scored(result)

    def _scored(self, result: HandResult) -> None:
        self.results.append(result)
        self._score(result)

    def _score(self, result: HandResult) -> None:
        raise NotImplementedError

    def next_hand(self, deck: Sequence[int] | None = None) -> Hand:
        """Deal the next hand after the current one ended (from ``deck`` if given)."""
        if self.result is not None:
            raise GameError(f"the game is over ({self.result})")
        if self.hand.phase is not Phase.FINISHED:
            raise GameError("the current hand is not over yet")
        if self.hand.result is not None and (
            not self.results or self.results[-1] is not self.hand.result
        ):
            raise GameError("the current hand's result was not scored: call record() first")
        self.hand = self._deal(deck)
        return self.hand


class Game(HandSeries[GameResult]):
    """A game between players 0 and 1.

    >>> game = Game(seed=1)
    >>> hand = game.hand
    >>> hand.phase.value, game.scores
    ('first_upcard', [0, 0])
    """

    def __init__(
        self,
        rules: Rules = HOYLE,
        seed: int = 0,
        first_dealer: int | None = None,
        deck: Sequence[int] | None = None,
    ) -> None:
        """Start a game and deal its first hand (from ``deck`` if given, else from the seed)."""
        self.rules = rules
        self.seed = seed
        self._rng = SplitMix64(seed)
        pick = self._rng.next() & 1
        self.dealer = pick if first_dealer is None else first_dealer
        if self.dealer not in (0, 1):
            raise ValueError(f"bad first dealer {first_dealer!r}: players are 0 and 1")
        self.scores = [0, 0]
        self.hands_won = [0, 0]
        self.results: list[HandResult] = []
        self._result: GameResult | None = None
        self.hand_number = 0
        self.hand = self._deal(deck)

    mode: Mode = Mode.TWO_PLAYER
    """The format (:mod:`engine.formats` has the others)."""

    @property
    def result(self) -> GameResult | None:
        """The end of the game, once it is over."""
        return self._result

    @property
    def table(self) -> int:
        return 0

    @property
    def next_seating(self) -> tuple[tuple[int, int], int]:
        return (0, 1), self.dealer

    @property
    def totals(self) -> tuple[int, ...]:
        """The scores so far, by player (no bonuses)."""
        return tuple(self.scores)

    @property
    def hand_scores(self) -> tuple[int, int]:
        """The game scores of the current hand's seats."""
        return (self.scores[0], self.scores[1])

    def _score(self, result: HandResult) -> None:
        rules = self.rules
        winner = result.winner
        if winner is None:  # R4, R11, R17: drawn; the same dealer deals again
            self._check_hand_limit()
            return
        self.scores[winner] += result.points
        self.hands_won[winner] += 1
        self.dealer = next_dealer(rules, self.dealer, winner)
        if self.scores[winner] >= rules.game_target:  # R15
            self._end(winner)
        else:
            self._check_hand_limit()

    def _check_hand_limit(self) -> None:
        """R22: a game still undecided after O17 hands ends on the points so far."""
        if len(self.results) < self.rules.hand_limit:
            return
        a, b = self.scores
        self._end(None if a == b else (0 if a > b else 1), GameEnd.HAND_LIMIT)

    def _end(self, winner: int | None, end: GameEnd = GameEnd.TARGET) -> None:
        self._result = game_result(
            self.rules, self.scores, self.hands_won, winner, end=end, hands_played=len(self.results)
        )


def next_dealer(rules: Rules, dealer: int, winner: int) -> int:
    """R4, O12: who deals after a hand (in partnership, a round) that side ``winner`` won."""
    if rules.next_dealer == "winner":
        return winner
    if rules.next_dealer == "loser":
        return 1 - winner
    return 1 - dealer


def game_result(
    rules: Rules,
    points: Sequence[int],
    won: Sequence[int],
    winner: int | None,
    *,
    end: GameEnd,
    hands_played: int,
) -> GameResult:
    """The end of a game between two sides with its R16 bonuses: the game bonus (and the shutout
    bonus when the loser has no points) to a winner who reached the target, the line bonus to
    each side for every hand it won."""
    bonus = 0
    if end is GameEnd.TARGET:  # R16: the game bonuses go to a player who reached the target
        assert winner is not None
        bonus = rules.game_bonus + (rules.shutout_bonus if points[1 - winner] == 0 else 0)
    line = (won[0] * rules.line_bonus, won[1] * rules.line_bonus)
    final = [points[0] + line[0], points[1] + line[1]]
    if winner is not None:
        final[winner] += bonus
    return GameResult(
        winner=winner,
        scores=(final[0], final[1]),
        hand_points=(points[0], points[1]),
        hands_won=(won[0], won[1]),
        game_bonus=bonus,
        line_bonus=line,
        hands_played=hands_played,
        end=end,
    )
