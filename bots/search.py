"""``search``: the strong bot's judgement, corrected by simulating the next turns.

At each decision with more than one sensible answer it deals the cards it cannot see many times
over. Each deal is a *world*: an opponent hand drawn from the strong bot's odds of what the
opponent holds (everything public: cards seen, taken from the pile and kept, passed, discarded)
and a shuffled stock, made into a hand by :meth:`engine.hand.Hand.from_observation`. In every world
it plays each candidate action and then the next turns (the opponent's, its own, the opponent's
again: ``horizon``) with a fast policy for both players, and the engine scores any hand that ends
in them: a knock, gin or undercut. A candidate's score is the strong bot's appraisal of the hand
it leaves (its expected deadwood, in deadwood points) plus ``threat`` times the points it can
expect to lose in those turns; the lowest wins. All candidates are played in the same worlds
(common random numbers), so their differences are measured far more precisely than their values.

Knocks are the strong bot's: gin at once, otherwise a knock whose expected score over sampled
opponent hands is positive, unless it is early and gin is one live card away.

Its effort is counted in engine steps, not seconds, so its play depends only on its seed and
options: ``budget`` (seconds a move, default 0.1) is turned into steps at a fixed rate, and is
also a wall-clock limit the bot keeps by itself. Only a search the clock stops before its step
budget (on a slow or busy machine) depends on timing; :attr:`SearchBot.cut_short` counts them
(and the opponent hands drawn to judge a knock stop at half the budget, rarely reached).
docs/LADDER.md says why this design, what was tried before it, and what it gains.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from bots.sdk import View
from bots.strong import (
    Appraisal,
    StrongBot,
    Style,
    meld_outs,
    might_help,
    sample_opponent_hands,
)
from engine.cards import VALUES, cards_of
from engine.hand import (
    BIG_GIN,
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
from engine.melds import best_discards, deadwood
from protocol import messages as m

DEFAULT_BUDGET: Final = 0.1
"""Seconds a move, by default."""

STEPS_PER_SECOND: Final = 60_000
"""The rate at which a time budget becomes a step budget (actions applied in simulation, a world
dealt counting one and a scored show-down :data:`SHOW_DOWN_STEPS`). A 2-core shared VM does 90,000
to 260,000 a second (median 210,000), so there the step budget, not the clock, ends a search,
after about 30 ms of the default 0.1 s and 70 ms at most."""

SHOW_DOWN_STEPS: Final = 20
"""The steps a scored show-down counts for in a rollout: what scoring a knock costs, in actions."""

SEARCH_SHARE: Final = 0.8
"""The share of a move's budget, from the request, after which no new world is dealt."""

SAMPLING_SHARE: Final = 0.5
"""The share of a move's budget, from the request, after which no more opponent hands are drawn
to judge a knock (the knock is then judged on those drawn, at least
:data:`bots.strong.KEPT_AT_LEAST`, and scoring them takes time too)."""

_FINISHED: Final = Phase.FINISHED
_DISCARD: Final = Phase.DISCARD
_DRAW: Final = Phase.DRAW


@dataclass(frozen=True, slots=True)
class Effort:
    """How the search bot searches. The defaults are the ladder's (docs/LADDER.md)."""

    budget: float = DEFAULT_BUDGET
    """Seconds a decision may take; also the step budget, at :data:`STEPS_PER_SECOND`."""
    worlds: int = 400
    """At most this many worlds a decision."""
    shortlist: int = 5
    """Discards simulated: the best by the strong bot's appraisal."""
    horizon: int = 2
    """Opponent turns simulated after each candidate (with the bot's own turns between them)."""
    threat: float = 1.0
    """Deadwood points a candidate is charged for each hand point it can expect to lose within
    the horizon (or credited for each it can expect to win)."""
    danger: float = 0.5
    """Share of the strong bot's discard danger kept in the appraisal (the simulation sees the
    rest: the opponent taking the discard)."""

    def __post_init__(self) -> None:
        if not self.budget > 0:
            raise ValueError(f"bad budget {self.budget!r}: seconds a move, more than 0")
        for name in ("worlds", "shortlist", "horizon"):
            if getattr(self, name) < 1:
                raise ValueError(f"bad {name} {getattr(self, name)!r}: at least 1")

    @property
    def steps(self) -> int:
        """The step budget of one decision."""
        return max(1, round(self.budget * STEPS_PER_SECOND))


# -- the rollout policy --------------------------------------------------------------------------


def highest(mask: int) -> int:
    """The card of ``mask`` with the highest value (then the highest rank, then the suit)."""
    best, key = -1, (-1, -1, -1)
    while mask:
        low = mask & -mask
        mask ^= low
        card = low.bit_length() - 1
        k = (VALUES[card], card % 13, card)
        if k > key:
            best, key = card, k
    return best


def melds_with(hand: int, card: int, forbid_taken: bool) -> bool:
    """Would ``card`` make a meld with two cards of ``hand`` and lower its deadwood after the
    best discard? (Taking a card only to swap it for a higher one shows it for little gain.)"""
    if not meld_outs(hand) >> card & 1:
        return False
    after, _ = best_discards(hand | 1 << card, (1 << card) if forbid_taken else 0)
    return after < deadwood(hand)


def rollout(hand: Hand, me: int, limit: int = 1 << 30) -> tuple[int, int]:
    """Play ``hand`` on for at most ``limit`` actions, both players with the fast policy: take
    the top of the pile only when it melds and lowers the deadwood, discard the highest card
    among those that leave the least deadwood, knock as soon as the limit allows (big gin and gin
    included). ``(points for me, steps)``: the engine's score if the hand ended, else
    0. The actions applied count one step each and a show-down :data:`SHOW_DOWN_STEPS` (the
    second number), the search's measure of effort. Every action is legal by construction."""
    rules = hand.rules
    forbid_taken = not rules.discard_taken_card
    big_gin = rules.big_gin
    apply = hand.apply_unchecked
    hands = hand.hands
    steps = 0
    while True:
        phase = hand.phase
        if phase is _FINISHED:
            break
        if steps >= limit:
            return 0, steps
        steps += 1
        h = hands[hand.to_move]
        if phase is _DISCARD:
            taken = hand.taken_card
            forbidden = 1 << taken if forbid_taken and taken is not None else 0
            dead, best = best_discards(h, forbidden)
            if dead == 0 and big_gin and deadwood(h) == 0:
                apply(BIG_GIN)
            elif dead <= hand.knock_limit:
                apply(KNOCKS[highest(best)])
            else:
                apply(DISCARDS[highest(best)])
        elif phase is _DRAW:
            if hand.turn and melds_with(h, hand.pile[-1], forbid_taken):
                apply(DRAW_DISCARD)
            else:
                apply(DRAW_STOCK)
        else:  # the first upcard
            apply(DRAW_DISCARD if melds_with(h, hand.pile[-1], forbid_taken) else PASS)
    result = hand.result
    assert result is not None
    if result.winner is None:
        return 0, steps
    # A show-down (arrangements, lay-offs) costs as much as many actions: count it so.
    steps += SHOW_DOWN_STEPS
    return (result.points if result.winner == me else -result.points), steps


# -- the bot -------------------------------------------------------------------------------------


class SearchBot(StrongBot):
    name = "search"
    author = "gin-rummy-arena"
    version = "1"

    def __init__(
        self, seed: int = 0, effort: Effort | None = None, style: Style | None = None
    ) -> None:
        super().__init__(seed, style)
        self.effort = effort or Effort()
        self.searches = 0
        """Decisions searched (the others had one sensible answer)."""
        self.worlds = 0
        """Worlds dealt, over all searches."""
        self.cut_short = 0
        """Searches the wall clock stopped before their step budget."""
        self.deadline = float("inf")
        """When the current decision's simulation must stop (``time.perf_counter``)."""

    def world(self, view: View, odds: Sequence[float], unseen: int) -> Hand:
        """One world: this position with the cards the bot cannot see dealt anew, the opponent's
        hand drawn from ``odds``."""
        (opponent,) = sample_opponent_hands(
            self.rng, unseen, view.opponent_known, odds, 1, hand_size=view.opponent_hand_size
        )
        stock = cards_of(unseen & ~opponent)
        self.rng.shuffle(stock)
        return Hand.from_observation(view.seen, opponent, stock, self.rules)

    def expected_losses(
        self, view: View, actions: Sequence[Action], odds: Sequence[float], unseen: int
    ) -> list[float]:
        """For each action, the hand points the bot can expect to lose (negative: to win) in the
        next ``horizon`` opponent turns, over the same worlds."""
        effort = self.effort
        deadline = self.deadline
        limit = 2 + 4 * (effort.horizon - 1)  # a turn is a draw and a discard
        me = view.seat
        losses = [0.0] * len(actions)
        steps = worlds = 0
        self.searches += 1
        while worlds < effort.worlds and steps < effort.steps:
            if time.perf_counter() >= deadline:
                self.cut_short += 1
                break
            base = self.world(view, odds, unseen)
            worlds += 1
            steps += 1
            for i, action in enumerate(actions):
                hand = base.copy()
                hand.apply_unchecked(action)
                points, used = rollout(hand, me, limit)
                losses[i] -= points
                steps += used + 1
        self.worlds += worlds
        if not worlds:  # out of time before the first world: the appraisal alone decides
            return losses
        return [loss / worlds for loss in losses]

    def best(
        self,
        view: View,
        actions: Sequence[Action],
        scores: Sequence[float],
        odds: Sequence[float],
        unseen: int,
    ) -> Action:
        """The action with the lowest appraisal ``scores`` plus the threat of the next turns
        (the first among equals)."""
        losses = self.expected_losses(view, actions, odds, unseen)
        threat = self.effort.threat
        totals = [score + threat * loss for score, loss in zip(scores, losses, strict=True)]
        return actions[totals.index(min(totals))]

    # -- decisions -----------------------------------------------------------------------------

    def choose(self, view: View) -> Action:
        # The clock starts with the request: the appraisal and the knock's samples come out of
        # the same budget, and the simulation stops with a fifth of it to spare.
        start, budget = time.perf_counter(), self.effort.budget
        self.deadline = start + SEARCH_SHARE * budget
        self.sampling_deadline = start + SAMPLING_SHARE * budget
        try:
            return super().choose(view)
        finally:
            # A decision method called directly has steps only.
            self.deadline = self.sampling_deadline = float("inf")

    def _draw(self, view: View, take: Action, other: Action) -> Action:
        """Take the upcard (``take``) or not (``other``: the stock, or a pass)."""
        if not might_help(view.hand, view.upcard):
            return other
        unseen, odds, appraisal, danger = self._situation(view)
        scores = self._draw_scores(view, appraisal, danger)
        return self.best(view, (take, other), scores, odds, unseen)

    def first_upcard(self, view: View) -> bool:
        return self._draw(view, DRAW_DISCARD, PASS) is DRAW_DISCARD

    def draw(self, view: View) -> m.DrawSource:
        if not any(a.kind is ActionKind.DRAW_DISCARD for a in view.legal):
            return "stock"  # both passed the first upcard (R6)
        return "discard" if self._draw(view, DRAW_DISCARD, DRAW_STOCK) is DRAW_DISCARD else "stock"

    def discard(self, view: View) -> Action:
        if any(a is BIG_GIN for a in view.legal):
            return BIG_GIN
        unseen, odds, appraisal, danger = self._situation(view)
        knock_action = self._knock(view, unseen, odds)
        if knock_action is not None:
            return knock_action
        shortlist = self._shortlist(view, appraisal, danger)
        if len(shortlist) == 1:
            return DISCARDS[shortlist[0][1]]
        actions = [DISCARDS[card] for _, card in shortlist]
        return self.best(view, actions, [score for score, _ in shortlist], odds, unseen)

    def _shortlist(
        self, view: View, appraisal: Appraisal, danger: Sequence[float]
    ) -> list[tuple[float, int]]:
        """The discards worth simulating with their appraisal (lower is better), best first; the
        higher card first among equals."""
        hand, weight = view.hand, self.effort.danger
        scored = sorted(
            (appraisal.value(hand ^ (1 << card)) + weight * danger[card], -VALUES[card], card)
            for card in cards_of(view.discardable())
        )
        return [(score, card) for score, _, card in scored[: self.effort.shortlist]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bots.search", description=__doc__)
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--budget",
        type=float,
        default=DEFAULT_BUDGET,
        help=f"seconds a move, a limit the bot keeps by itself (default {DEFAULT_BUDGET})",
    )
    parser.add_argument(
        "--worlds",
        type=int,
        default=Effort().worlds,
        help=f"deals of the unseen cards a decision, at most (default {Effort().worlds}; the "
        "budget usually ends the search first)",
    )
    args = parser.parse_args(argv)
    try:
        effort = Effort(budget=args.budget, worlds=args.worlds)
    except ValueError as error:
        parser.error(str(error))
    return SearchBot(args.seed, effort).run()


if __name__ == "__main__":
    sys.exit(main())
