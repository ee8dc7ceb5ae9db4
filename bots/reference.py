"""``reference``: the search bot with a patient knock.

The search bot knocks as the strong bot does: whenever the expected score of the knock, over
opponent hands sampled as kept, is positive. That compares knocking now with nothing; the
alternative is playing on, for gin or a lower count, at the risk of the opponent knocking first.
The reference bot weighs the two. At a discard where it may knock (short of gin, which it always
takes) it deals *worlds* of the cards it cannot see: each an opponent hand from the same kept
samples and a shuffled stock, made into a hand by :meth:`engine.hand.Hand.from_observation`. In
each world the knock now scores what the engine would score it against that opponent hand, and
playing on is the same discard without the knock, then the rest of the hand played out: the
opponent by the fast policy of :func:`bots.search.rollout` (knock at once), the bot itself by a
*patient* policy that knocks only at ``limit`` deadwood or less (gin for a limit of 0). Several
limits are played in the same worlds, and playing on is worth the best of them: the bot knocks
when the knock's mean beats it by at least ``margin`` points.

Everything else (draws, discards, their simulation of the next turns) is the search bot's. With
``--read N`` (off by default) the search's worlds draw the opponent's hand from ``N`` hands
followed through the hand by :func:`bots.reading.filtered` instead of the strong bot's odds
(docs/LADDER.md, "Reading the opponent": it gains nothing measurable, so it is not the default).

Effort is counted in steps (actions applied, a show-down twenty), as the search bot counts it, so
the play depends only on the seed and the options; the move's budget is also a wall-clock bound
the bot keeps by itself (:data:`bots.search.SEARCH_SHARE` of it for all simulation, the knock's
included). docs/LADDER.md, "The reference bot", says what each part gains.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from bots import reading
from bots.reading import Reading
from bots.sdk import View, knock
from bots.search import (
    SAMPLING_SHARE,
    SEARCH_SHARE,
    SHOW_DOWN_STEPS,
    Effort,
    SearchBot,
    highest,
    melds_with,
)
from bots.strong import Style, knock_score, lay_off_risk, safest_arrangement
from engine.cards import cards_of
from engine.hand import (
    BIG_GIN,
    DISCARDS,
    DRAW_DISCARD,
    DRAW_STOCK,
    KNOCKS,
    PASS,
    Action,
    Hand,
    Phase,
)
from engine.melds import Arrangement, best_discards, deadwood
from protocol import messages as m

DEFAULT_BUDGET: Final = 0.25
"""Seconds a move, by default: the search bot's 0.1 s for draws and discards, and the rest for
the knock's rollouts (docs/LADDER.md)."""

_FINISHED: Final = Phase.FINISHED
_DISCARD: Final = Phase.DISCARD
_DRAW: Final = Phase.DRAW


@dataclass(frozen=True, slots=True)
class Patience:
    """How the reference bot weighs knocking now against playing on. The defaults are the
    ladder's (docs/LADDER.md)."""

    worlds: int = 96
    """At most this many worlds a knock decision (each opponent hand sampled for the knock is
    dealt with one or more shuffled stocks)."""
    limits: tuple[int, ...] = (10, 5, 0)
    """The deadwood at which the bot's own continuation knocks, one continuation per limit (10:
    at the first chance under hoyle rules; 0: gin only). Playing on is worth the best of them."""
    margin: float = 0.0
    """Points by which the knock's mean must beat playing on."""
    steps: int = 9_000
    """The step budget of one knock decision (actions applied in the rollouts, a show-down
    counting :data:`bots.search.SHOW_DOWN_STEPS`)."""
    rollouts: bool = True
    """Weigh the knock by rollouts; without them, the strong bot's rule with the turn limit
    below."""
    early_turns: int = 0
    """Without rollouts, 0 for the strong bot's rule; else the bot knocks short of gin only in
    its first ``early_turns`` turns of a hand, or with ``late_limit`` deadwood or less."""
    late_limit: int = 0
    read: int = 0
    """Opponent hands followed through the hand by :func:`bots.reading.filtered` for the
    search's worlds (and, with ``read_knock``, the knock's samples); 0: the strong bot's odds
    (the default, docs/LADDER.md: "Reading the opponent")."""
    read_knock: bool = False

    def __post_init__(self) -> None:
        if self.read < 0:
            raise ValueError(f"bad read {self.read!r}: particles, 0 or more")
        if self.worlds < 1 or self.steps < 1:
            raise ValueError("worlds and steps: at least 1")
        if not self.limits or any(not 0 <= limit <= 10 for limit in self.limits):
            raise ValueError(f"bad limits {self.limits!r}: deadwood from 0 to 10, at least one")


def play_out(hand: Hand, me: int, own_limit: int, budget: int = 1 << 30) -> tuple[int, int]:
    """Play ``hand`` to its end (or until ``budget`` steps), the opponent of ``me`` knocking as
    soon as it may and ``me`` only with ``own_limit`` deadwood or less; otherwise both play as
    :func:`bots.search.rollout`. ``(points for me, steps)``: the engine's score, 0 for a drawn
    hand or one cut short by the budget. Every action is legal by construction."""
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
        if steps >= budget:
            return 0, steps
        steps += 1
        p = hand.to_move
        h = hands[p]
        if phase is _DISCARD:
            taken = hand.taken_card
            forbidden = 1 << taken if forbid_taken and taken is not None else 0
            dead, best = best_discards(h, forbidden)
            limit = hand.knock_limit if p != me else min(own_limit, hand.knock_limit)
            if dead == 0 and big_gin and deadwood(h) == 0:
                apply(BIG_GIN)
            elif dead <= limit:
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
    steps += SHOW_DOWN_STEPS
    return (result.points if result.winner == me else -result.points), steps


def play_out_limits(
    hand: Hand, me: int, limits: Sequence[int], budget: int = 1 << 30
) -> tuple[list[int], int]:
    """:func:`play_out` for every own limit of ``limits`` at once, from one play: the
    continuations differ only in when ``me`` knocks, so they are the same play (the most patient)
    until ``me`` first has a limit's deadwood or less, where that limit's knock is scored on a
    copy. ``(points for me by limit, steps)``: the steps of the one play, and a show-down for
    each knock scored. Equal to ``[play_out(hand.copy(), me, limit)[0] for limit in limits]``
    (tests/bots/test_reference.py), in about a third of the actions for three limits."""
    rules = hand.rules
    forbid_taken = not rules.discard_taken_card
    big_gin = rules.big_gin
    knock_limit = hand.knock_limit
    apply = hand.apply_unchecked
    hands = hand.hands
    points: list[int | None] = [None] * len(limits)
    pending = [(min(limit, knock_limit), i) for i, limit in enumerate(limits)]
    lowest = min(limit for limit, _ in pending)
    steps = 0
    while True:
        phase = hand.phase
        if phase is _FINISHED:
            break
        if steps >= budget:
            return [0 if p is None else p for p in points], steps
        steps += 1
        p = hand.to_move
        h = hands[p]
        if phase is _DISCARD:
            taken = hand.taken_card
            forbidden = 1 << taken if forbid_taken and taken is not None else 0
            dead, best = best_discards(h, forbidden)
            if dead == 0 and big_gin and deadwood(h) == 0:
                apply(BIG_GIN)
            elif p != me:
                apply(KNOCKS[highest(best)] if dead <= knock_limit else DISCARDS[highest(best)])
            elif dead <= lowest:  # every continuation left knocks here
                apply(KNOCKS[highest(best)])
            else:
                waiting = []
                for limit, i in pending:
                    if dead <= limit:
                        branch = hand.copy()
                        branch.apply_unchecked(KNOCKS[highest(best)])
                        points[i] = _points(branch, me)
                        steps += SHOW_DOWN_STEPS
                    else:
                        waiting.append((limit, i))
                pending = waiting
                apply(DISCARDS[highest(best)])
        elif phase is _DRAW:
            if hand.turn and melds_with(h, hand.pile[-1], forbid_taken):
                apply(DRAW_DISCARD)
            else:
                apply(DRAW_STOCK)
        else:  # the first upcard
            apply(DRAW_DISCARD if melds_with(h, hand.pile[-1], forbid_taken) else PASS)
    final = _points(hand, me)
    if hand.result is not None and hand.result.winner is not None:
        steps += SHOW_DOWN_STEPS
    return [final if p is None else p for p in points], steps


def _points(hand: Hand, me: int) -> int:
    """The points of a finished ``hand`` for ``me`` (negative when the opponent scores)."""
    result = hand.result
    assert result is not None
    if result.winner is None:
        return 0
    return result.points if result.winner == me else -result.points


class ReferenceBot(SearchBot):
    name = "reference"
    author = "gin-rummy-arena"
    version = "1"

    def __init__(
        self,
        seed: int = 0,
        effort: Effort | None = None,
        style: Style | None = None,
        patience: Patience | None = None,
        budget: float = DEFAULT_BUDGET,
    ) -> None:
        super().__init__(seed, effort, style)
        if not budget > 0:
            raise ValueError(f"bad budget {budget!r}: seconds a move, more than 0")
        self.budget = budget
        """Seconds a move: the bound of the bot's own clock (the search's step budget is
        ``effort``'s)."""
        self.patience = patience or Patience()
        self.knock_searches = 0
        """Knock decisions weighed by rollouts."""
        self.knock_worlds = 0
        """Worlds dealt for them."""
        self.knocks_declined = 0
        """Knocks with a positive expected score the rollouts turned down."""
        self.last_knock_steps = 0
        """The steps of the last knock weighed."""
        self.reading = Reading()
        """The share of the rule-bound model in the opponent's play, over the match."""
        self._read: tuple[tuple[int, int], list[int], list[float]] | None = None
        self._credited = 0

    def on_hand_start(self, message: m.HandStart) -> None:
        super().on_hand_start(message)
        self._read = None
        self._credited = 0

    def read_hands(self, view: View, unseen: int) -> tuple[list[int], list[float]]:
        """The opponent hands of the forward filter and their weights, computed once for each
        opponent turn; a card the bot has drawn since is swapped out of the hands holding it."""
        turns = sum(1 for player, _, _ in view.history if player != view.seat)
        key = (turns, 0)
        cached = self._read
        if cached is None or cached[0] != key:
            history = view.history
            limit = view.knock_limit
            opponent_turns = reading.opponent_turns(history, view.seat, view.first_upcard)
            weighted = reading.filtered(
                self.rng,
                history,
                view.seat,
                view.first_upcard,
                unseen,
                count=self.patience.read,
                knock_limit=limit,
                share=self.reading.share,
                hand_size=view.opponent_hand_size,
            )
            if len(opponent_turns) > self._credited:
                self._credited = len(opponent_turns)
                hands = [h for h, _ in weighted]
                self.reading.update(*reading.turn_evidence(hands, opponent_turns, limit))
            cached = (key, [h for h, _ in weighted], [w for _, w in weighted])
            self._read = cached
        _, hands, weights = cached
        known = view.opponent_known
        out = []
        for hand in hands:
            stray = hand & ~(unseen | known)  # drawn by the bot since
            if stray:
                free = unseen & ~hand
                for card in cards_of(stray):
                    choices = cards_of(free)
                    if not choices:
                        break
                    new = choices[self.rng.randrange(len(choices))]
                    hand = (hand & ~(1 << card)) | 1 << new
                    free &= ~(1 << new)
            out.append(hand)
        return out, weights

    def world(self, view: View, odds: Sequence[float], unseen: int) -> Hand:
        if not self.patience.read:
            return super().world(view, odds, unseen)
        hands, weights = self.read_hands(view, unseen)
        if not hands:
            return super().world(view, odds, unseen)
        (opponent,) = self.rng.choices(hands, weights=weights)
        stock = cards_of(unseen & ~opponent)
        self.rng.shuffle(stock)
        return Hand.from_observation(view.seen, opponent, stock, self.rules)

    def opponent_hands(
        self, view: View, unseen: int, odds: Sequence[float], count: int
    ) -> list[int]:
        if not (self.patience.read and self.patience.read_knock):
            return super().opponent_hands(view, unseen, odds, count)
        hands, weights = self.read_hands(view, unseen)
        if not hands:
            return super().opponent_hands(view, unseen, odds, count)
        return self.rng.choices(hands, weights=weights, k=count)

    def choose(self, view: View) -> Action:
        # The search bot's clock, but over this bot's budget: the draws' and discards' searches
        # keep the search bot's step budget (``effort``), the knock's rollouts have their own.
        start, budget = time.perf_counter(), self.budget
        self.deadline = start + SEARCH_SHARE * budget
        self.sampling_deadline = start + SAMPLING_SHARE * budget
        try:
            return super(SearchBot, self).choose(view)
        finally:
            self.deadline = self.sampling_deadline = float("inf")

    def _knock(self, view: View, unseen: int, odds: list[float]) -> Action | None:
        """The best knock, if knocking beats playing on."""
        choices = view.knock_discards()
        if not choices:
            return None
        arranged: list[tuple[float, int, Arrangement]] = []
        for card in cards_of(choices):
            kept = view.hand ^ (1 << card)
            arrangement = safest_arrangement(kept, odds)
            if arrangement.deadwood == 0:
                return knock(card, arrangement.melds)
            cost = arrangement.deadwood + lay_off_risk(arrangement.melds, kept, odds)
            arranged.append((cost, card, arrangement))
        arranged.sort(key=lambda entry: entry[:2])
        opponents = self.opponent_hands(view, unseen, odds, self.style.samples)
        first_upcard = view.first_upcard
        best: tuple[float, int, Arrangement] | None = None
        for _, card, arrangement in arranged[: self.style.knock_shortlist]:
            scores = [
                knock_score(
                    arrangement.melds, arrangement.deadwood, opponent, self.rules, first_upcard
                )
                for opponent in opponents
            ]
            expected = sum(scores) / len(scores)
            if best is None or expected > best[0]:
                best = (expected, card, arrangement)
        assert best is not None
        expected, card, arrangement = best
        patience = self.patience
        if not patience.rollouts:
            if expected <= self.style.min_knock_edge:
                return None
            if patience.early_turns:
                own_turns = (view.turn + 1) // 2
                if own_turns > patience.early_turns and arrangement.deadwood > patience.late_limit:
                    return None
            elif self._play_for_gin(view, view.hand ^ (1 << card), arrangement.deadwood, unseen):
                return None
            return knock(card, arrangement.melds)
        now, later = self.knock_or_play_on(view, card, arrangement, opponents, unseen)
        if now >= later + patience.margin:
            return knock(card, arrangement.melds)
        if expected > 0:
            self.knocks_declined += 1
        return None

    def knock_or_play_on(
        self,
        view: View,
        card: int,
        arrangement: Arrangement,
        opponents: Sequence[int],
        unseen: int,
    ) -> tuple[float, float]:
        """The mean points of knocking now with ``card`` and ``arrangement``, and of playing on
        (discarding ``card`` without the knock, then the best of the patient continuations),
        over the same worlds."""
        patience = self.patience
        limits = patience.limits
        me = view.seat
        seen = view.seen
        rules = self.rules
        first_upcard = view.first_upcard
        discard_action = DISCARDS[card]
        knock_total = 0.0
        totals = [0.0] * len(limits)
        steps = worlds = 0
        deadline = self.deadline
        rng = self.rng
        self.knock_searches += 1
        while worlds < patience.worlds and steps < patience.steps:
            if time.perf_counter() >= deadline:
                self.cut_short += 1
                break
            opponent = opponents[worlds % len(opponents)]
            stock = cards_of(unseen & ~opponent)
            rng.shuffle(stock)
            base = Hand.from_observation(seen, opponent, stock, rules)
            base.apply_unchecked(discard_action)
            worlds += 1
            steps += 1
            knock_total += knock_score(
                arrangement.melds, arrangement.deadwood, opponent, rules, first_upcard
            )
            scores, used = play_out_limits(base, me, limits)
            for i, points in enumerate(scores):
                totals[i] += points
            steps += used + 1
        self.knock_worlds += worlds
        self.last_knock_steps = steps
        if not worlds:
            return 0.0, -float("inf")  # no time to weigh it: knock, as the strong bot would
        return knock_total / worlds, max(totals) / worlds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bots.reference", description=__doc__)
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--budget",
        type=float,
        default=DEFAULT_BUDGET,
        help=f"seconds a move, a limit the bot keeps by itself (default {DEFAULT_BUDGET})",
    )
    defaults = Patience()
    parser.add_argument("--worlds", type=int, default=defaults.worlds, help="worlds a knock")
    parser.add_argument(
        "--limits",
        default=",".join(map(str, defaults.limits)),
        help="the own continuations' knock limits, comma-separated",
    )
    parser.add_argument("--margin", type=float, default=defaults.margin, help="points")
    parser.add_argument("--knock-steps", type=int, default=defaults.steps, help="steps a knock")
    parser.add_argument(
        "--no-rollouts", action="store_true", help="knock by the strong bot's rule (and below)"
    )
    parser.add_argument("--early-turns", type=int, default=0)
    parser.add_argument("--late-limit", type=int, default=0)
    parser.add_argument(
        "--read",
        type=int,
        default=0,
        help="opponent hands followed through the hand for the worlds (default 0: off)",
    )
    parser.add_argument("--read-knock", action="store_true", help="and for the knock's samples")
    args = parser.parse_args(argv)
    try:
        patience = Patience(
            worlds=args.worlds,
            limits=tuple(int(x) for x in args.limits.split(",")),
            margin=args.margin,
            steps=args.knock_steps,
            rollouts=not args.no_rollouts,
            early_turns=args.early_turns,
            late_limit=args.late_limit,
            read=args.read,
            read_knock=args.read_knock,
        )
    except ValueError as error:
        parser.error(str(error))
    return ReferenceBot(args.seed, patience=patience, budget=args.budget).run()


if __name__ == "__main__":
    sys.exit(main())
