"""``strong``: plays like a careful human.

It remembers the hand's public history (the discard pile, the cards the opponent took, discarded
or passed) and turns it into odds that each unseen card is in the opponent's hand. With those odds
it

- values a hand by its deadwood and by the deadwood it can expect after one more draw from the
  stock (which counts the live outs of every card kept),
- draws from the discard pile only when that beats the expected stock card,
- discards the card that leaves the best hand, less the risk that the opponent can meld it,
- knocks when the expected score of the knock, over sampled opponent hands, beats playing on,
- and declares the arrangement that leaves the opponent the fewest likely lay-offs.

Decisions are deterministic for a given seed: the only randomness (the sampled opponent hands)
comes from a :class:`random.Random` seeded afresh at each game from the bot's seed and the game's
number (:func:`bots.sdk.game_seed`), so that a game is played alike whatever games the process
played before it.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from bots.sdk import Bot, View, discard, game_seed, knock
from engine.cards import FULL_DECK, SUIT_MASK, VALUES, Card, cards_of, parse_card
from engine.hand import BIG_GIN, Action, ActionKind, HandEnd, score_knock
from engine.melds import (
    DISCARD_GAIN,
    Arrangement,
    all_arrangements,
    best_discards,
    deadwood,
    lay_off,
    lay_off_exposure,
    min_deadwood,
)
from engine.rules import Rules
from protocol import messages as m
from protocol.convert import engine_action

HAND_SIZE = 10


@dataclass(frozen=True, slots=True)
class Style:
    """The weights behind the strong bot's judgement. The defaults were chosen by mirrored games
    against ``greedy``; benchmarks/ladder.py measures the result."""

    lookahead: float = 1.0
    """Share of a hand's value that is the expected deadwood after one more stock draw; the rest
    is its deadwood now."""
    danger: float = 3.0
    """Deadwood points charged for a discard the opponent is sure to meld."""
    shortlist: int = 4
    """Discards appraised in full for each possible stock card when weighing a draw."""
    trust: float = 1.0
    """How far the opponent's takes, discards and passes move the odds of what it holds."""
    samples: int = 48
    """Opponent hands sampled to judge a knock."""
    knock_shortlist: int = 3
    """Knocks judged on those samples: the ones with the least deadwood plus likely lay-offs."""
    min_knock_edge: float = 0.0
    """A knock is made when its expected score beats this many points."""
    gin_hold: int = 3
    """With this much deadwood or less (but some), at least ``gin_hold_stock`` cards in the
    stock and a live card that makes gin, play on for gin instead of knocking."""
    gin_hold_stock: int = 12
    kept: bool = True
    """Sample the opponent hands as kept through its draws (:func:`kept_opponent_hands`), not as
    dealt."""


@dataclass
class HandMemory:
    """The public history of the current hand, as the bot has followed it."""

    pile: list[int] = field(default_factory=list)
    opponent_discards: int = 0
    """Cards the opponent threw: it had no use for them."""
    opponent_passes: int = 0
    """Upcards the opponent could have taken and did not (the first upcard, or a top card it left
    for the stock)."""
    opponent_takes: int = 0
    """Cards the opponent took from the discard pile: it wanted them for a meld."""
    opponent_draws: int = 0
    """Cards the opponent drew from the stock."""


# -- what the opponent may hold ------------------------------------------------------------------


def unseen_cards(hand: int, discard_pile: Sequence[int], opponent_known: int) -> int:
    """Cards in the stock or hidden in the opponent's hand."""
    pile = 0
    for card in discard_pile:
        pile |= 1 << card
    return FULL_DECK & ~(hand | pile | opponent_known)


def _neighbours(card: int) -> tuple[list[int], list[int], list[int]]:
    """Same rank, one rank away in the suit, two ranks away in the suit."""
    rank, suit = card % 13, card // 13
    same = [s * 13 + rank for s in range(4) if s != suit]
    near = [suit * 13 + r for r in (rank - 1, rank + 1) if 0 <= r < 13]
    far = [suit * 13 + r for r in (rank - 2, rank + 2) if 0 <= r < 13]
    return same, near, far


NEIGHBOURS = tuple(_neighbours(c) for c in range(52))

# How much each kind of evidence scales the odds of a card's meld partners being held.
_TAKEN = (2.0, 2.0, 1.4)
_DISCARDED = (0.5, 0.6, 0.8)
_PASSED = (0.75, 0.8, 0.9)


def opponent_odds(
    unseen: int,
    opponent_known: int,
    memory: HandMemory,
    trust: float = 1.0,
    hand_size: int = HAND_SIZE,
) -> list[float]:
    """For every card, the chance that the opponent holds it: 1 for the cards it took and kept,
    0 for cards the bot has seen elsewhere, and for the unseen cards a share of its hidden cards
    weighted by its takes, discards and passes (each piece of evidence counts to the power
    ``trust``)."""
    weight = [0.0] * 52
    unseen_list = cards_of(unseen)
    for card in unseen_list:
        weight[card] = 1.0
    for evidence, factors in (
        ((memory.opponent_takes & ~memory.opponent_discards) | opponent_known, _TAKEN),
        (memory.opponent_discards, _DISCARDED),
        (memory.opponent_passes & ~memory.opponent_discards, _PASSED),
    ):
        for card in cards_of(evidence):
            for group, factor in zip(NEIGHBOURS[card], factors, strict=True):
                for partner in group:
                    weight[partner] *= factor**trust
    hidden = max(0, hand_size - opponent_known.bit_count())
    total = sum(weight)
    odds = [0.0] * 52
    if total > 0:
        scale = hidden / total
        for card in unseen_list:
            odds[card] = min(1.0, weight[card] * scale)
    for card in cards_of(opponent_known):
        odds[card] = 1.0
    return odds


def discard_danger(card: int, odds: Sequence[float]) -> float:
    """The chance that the opponent can meld ``card``: it holds two more of its rank, or two
    suit neighbours that make a run with it."""
    same, _, _ = NEIGHBOURS[card]
    a, b, c = (odds[x] for x in same)
    in_set = a * b + a * c + b * c - 2 * a * b * c
    rank, suit = card % 13, card // 13

    def held(r: int) -> float:
        return odds[suit * 13 + r] if 0 <= r < 13 else 0.0

    in_run = (
        held(rank - 2) * held(rank - 1)
        + held(rank - 1) * held(rank + 1)
        + held(rank + 1) * held(rank + 2)
    )
    return min(1.0, in_set + in_run)


def stock_odds(unseen: int, odds: Sequence[float]) -> list[tuple[int, float]]:
    """The chance of each unseen card being the next stock card (the cards the opponent is likely
    to hold are less likely to be in the stock)."""
    cards = cards_of(unseen)
    weights = [max(0.0, 1.0 - odds[c]) for c in cards]
    total = sum(weights)
    if total <= 0:
        return [(c, 1.0 / len(cards)) for c in cards] if cards else []
    return [(c, w / total) for c, w in zip(cards, weights, strict=True) if w > 0]


# -- the bot's own hand --------------------------------------------------------------------------


def meld_outs(hand: int) -> int:
    """Cards not in ``hand`` that would make a meld with two of its cards: the third or fourth of
    a rank held twice, or a card next to two suit neighbours in a run."""
    a, b, c, d = hand & SUIT_MASK, hand >> 13 & SUIT_MASK, hand >> 26 & SUIT_MASK, hand >> 39
    pairs = (a & b) | (a & c) | (a & d) | (b & c) | (b & d) | (c & d)
    outs = 0
    for suit, p in enumerate((a, b, c, d)):
        runs = (p << 1 & p << 2) | (p << 1 & p >> 1) | (p >> 1 & p >> 2)
        outs |= ((runs | pairs) & SUIT_MASK & ~p) << (13 * suit)
    return outs


def discard_gain(hand: int) -> int:
    """How much deadwood the best single discard from ``hand`` removes."""
    a, b, c, d = hand & SUIT_MASK, hand >> 13 & SUIT_MASK, hand >> 26 & SUIT_MASK, hand >> 39
    if not (a & b & (c | d)) | (c & d & (a | b)):  # no set possible: the suit tables answer
        return max(DISCARD_GAIN[a], DISCARD_GAIN[b], DISCARD_GAIN[c], DISCARD_GAIN[d])
    now = deadwood(hand)
    return now - min(deadwood(hand ^ (1 << card)) for card in cards_of(hand))


@dataclass(frozen=True, slots=True)
class StockOdds:
    """The next stock card's distribution, with a table for the cards that meld with nothing."""

    draws: tuple[tuple[int, float], ...]
    chance: tuple[float, ...]
    """``chance[card]``: the chance that ``card`` is the next stock card."""
    relief: tuple[float, ...]
    """``relief[g]``: the expected deadwood saved by keeping a card that melds with nothing in
    place of a card whose discard saves ``g``."""

    @classmethod
    def of(cls, draws: Sequence[tuple[int, float]]) -> StockOdds:
        chance = [0.0] * 52
        for card, p in draws:
            chance[card] = p
        relief = tuple(sum(p * max(0, g - VALUES[c]) for c, p in draws) for g in range(11))
        return cls(tuple(draws), tuple(chance), relief)


def expected_deadwood(hand: int, stock: StockOdds) -> float:
    """The deadwood ``hand`` (ten cards) can expect after one more draw from the stock and the best
    discard: the live outs of its cards lower it.

    A card that melds with nothing in the hand stays deadwood whatever is kept, so it is kept only
    in place of a worse card; only the :func:`meld_outs` need the solver.
    """
    now = deadwood(hand)
    if not stock.draws:
        return float(now)
    gain = discard_gain(hand)
    expected = now - stock.relief[gain]  # one discard saves at most a card's value, 10
    chance = stock.chance
    for card in cards_of(meld_outs(hand)):
        p = chance[card]
        if p:
            after = min_deadwood(hand | 1 << card)
            expected += p * (after - now + max(0, gain - VALUES[card]))
    return expected


@dataclass
class Appraisal:
    """The value of ten-card hands in one situation (lower is better), memoised."""

    stock: StockOdds
    lookahead: float
    cache: dict[int, float] = field(default_factory=dict)

    def value(self, hand: int) -> float:
        known = self.cache.get(hand)
        if known is None:
            now = deadwood(hand)
            later = expected_deadwood(hand, self.stock) if self.lookahead else now
            known = (1 - self.lookahead) * now + self.lookahead * later
            self.cache[hand] = known
        return known


def best_discard(
    hand: int,
    allowed: int,
    appraisal: Appraisal,
    danger: Sequence[float],
    shortlist: int = 0,
) -> tuple[int, float]:
    """For eleven cards: the discard among ``allowed`` that leaves the best hand, counting the
    danger of feeding the opponent; and that score. With ``shortlist``, only that many discards,
    the best by deadwood and danger alone, are appraised in full."""
    candidates = cards_of(allowed)
    if shortlist and len(candidates) > shortlist:
        candidates.sort(key=lambda c: deadwood(hand ^ (1 << c)) + danger[c])
        candidates = candidates[:shortlist]
    best_card, best_score = -1, float("inf")
    for card in candidates:
        score = appraisal.value(hand ^ (1 << card)) + danger[card]
        if score < best_score or (score == best_score and VALUES[card] > VALUES[best_card]):
            best_card, best_score = card, score
    return best_card, best_score


def might_help(hand: int, card: int) -> bool:
    """Could ``card`` be worth taking into ``hand``: it melds, or lowers the deadwood, or pairs
    with a card of its rank or a suit neighbour?"""
    same, near, _ = NEIGHBOURS[card]
    if any(hand >> c & 1 for c in same) or any(hand >> c & 1 for c in near):
        return True
    return min_deadwood(hand | 1 << card) < deadwood(hand)


# -- knocking ------------------------------------------------------------------------------------


def gin_outs(kept: int, unseen: int) -> int:
    """The unseen cards that would give ``kept`` (ten cards) gin on the next draw."""
    return sum(
        1 << card
        for card in cards_of(meld_outs(kept) & unseen)
        if not min_deadwood(kept | 1 << card)
    )


def lay_off_risk(melds: Sequence[int], hand: int, odds: Sequence[float]) -> float:
    """Deadwood the defender can expect to shed on ``melds``: each exposed card's value times the
    chance that the defender holds it."""
    return sum(odds[c] * VALUES[c] for c in cards_of(lay_off_exposure(melds, hand)))


def safest_arrangement(kept: int, odds: Sequence[float]) -> Arrangement:
    """Among the least-deadwood arrangements of the knocker's ``kept`` cards, the one with the
    smallest :func:`lay_off_risk` (then the fewest melds, then the lowest masks)."""
    return min(
        all_arrangements(kept),
        key=lambda a: (lay_off_risk(a.melds, kept, odds), len(a.melds), a.melds),
    )


def sample_opponent_hands(
    rng: random.Random,
    unseen: int,
    opponent_known: int,
    odds: Sequence[float],
    count: int,
    *,
    hand_size: int = HAND_SIZE,
) -> list[int]:
    """``count`` opponent hands drawn from the odds: its known cards plus a weighted sample of the
    unseen ones."""
    hidden = hand_size - opponent_known.bit_count()
    pool = [(c, odds[c]) for c in cards_of(unseen) if odds[c] > 0]
    if hidden <= 0 or len(pool) < hidden:
        return [opponent_known] * count
    hands = []
    for _ in range(count):
        # Weighted sampling without replacement (Efraimidis and Spirakis).
        keyed = sorted(pool, key=lambda cw: rng.random() ** (1.0 / cw[1]), reverse=True)
        hand = opponent_known
        for card, _weight in keyed[:hidden]:
            hand |= 1 << card
        hands.append(hand)
    return hands


KEPT_DRAWS: Final = 6
"""At most this many of the opponent's stock draws are replayed by :func:`kept_opponent_hands`
(each costs a solver call a hand; more barely lowers the deadwood further)."""

KEPT_AT_LEAST: Final = 8
"""The fewest hands :func:`kept_opponent_hands` draws, however late."""


def kept_opponent_hands(
    rng: random.Random,
    unseen: int,
    opponent_known: int,
    odds: Sequence[float],
    count: int,
    *,
    hand_size: int = HAND_SIZE,
    draws: int = 0,
    knock_limit: int = -1,
    deadline: float = math.inf,
) -> list[int]:
    """``count`` opponent hands as a player who keeps its best cards would hold them: its hidden
    cards drawn from the odds as dealt, then improved by ``draws`` more cards from the same odds
    (its stock draws, at most :data:`KEPT_DRAWS`), each time giving up the card that leaves the
    least deadwood (never a card it is known to hold). A hand with ``knock_limit`` deadwood or
    less is redrawn, up to ``count // 2`` times in all: the opponent would have knocked with it.
    Past ``deadline`` (:func:`time.perf_counter`) it stops early, with at least
    :data:`KEPT_AT_LEAST` hands.

    Hands drawn from the odds alone (:func:`sample_opponent_hands`) look dealt: about 40
    deadwood in mid-hand (20 to 25 stock cards left) where real opponents hold about 25; these
    hold about 24 (docs/LADDER.md)."""
    hidden = hand_size - opponent_known.bit_count()
    pool = [(c, odds[c]) for c in cards_of(unseen) if odds[c] > 0]
    if hidden <= 0 or len(pool) < hidden:
        return [opponent_known] * count
    drawn = min(draws, KEPT_DRAWS) if hand_size == HAND_SIZE else 0
    seen = min(hidden + drawn, len(pool))
    hands: list[int] = []
    redraws = count // 2
    while len(hands) < count:
        if len(hands) >= KEPT_AT_LEAST and time.perf_counter() >= deadline:
            break
        keyed = sorted(pool, key=lambda cw: rng.random() ** (1.0 / cw[1]), reverse=True)
        hand = opponent_known
        for card, _weight in keyed[:hidden]:
            hand |= 1 << card
        for card, _weight in keyed[hidden:seen]:
            _, worst = best_discards(hand | 1 << card, opponent_known)
            hand = (hand | 1 << card) & ~(worst & -worst)
        if redraws and min_deadwood(hand) <= knock_limit:
            redraws -= 1
            continue
        hands.append(hand)
    return hands


def knock_score(
    melds: Sequence[int],
    knocker_deadwood: int,
    defender: int,
    rules: Rules,
    first_upcard: Card,
) -> int:
    """The knocker's score against one defender hand (negative when undercut), scored by the
    engine (:func:`engine.hand.score_knock`: R12-R14, the Oklahoma double R18). ``melds`` are the
    knocker's ten cards kept, arranged; against gin the defender lays nothing off (R14)."""
    if knocker_deadwood == 0:
        defender_deadwood = deadwood(defender)
    else:
        defender_deadwood = lay_off(defender, melds).deadwood
    end, points, _ = score_knock(
        rules, knocker_deadwood, defender_deadwood, first_upcard=first_upcard
    )
    return -points if end is HandEnd.UNDERCUT else points


# -- the bot -------------------------------------------------------------------------------------


class StrongBot(Bot):
    name = "strong"
    author = "gin-rummy-arena"
    version = "1"

    def __init__(self, seed: int = 0, style: Style | None = None) -> None:
        super().__init__()
        self.seed = seed
        self.rng = random.Random(seed)
        self.style = style or Style()
        self.memory = HandMemory()
        self.sampling_deadline = math.inf
        """When sampling the opponent's hands must stop (:func:`time.perf_counter`): never for
        this bot, which has no clock; the search bot sets one each move."""

    # -- events: following the hand ------------------------------------------------------------

    def on_game_start(self, message: m.GameStart) -> None:
        self.rng.seed(game_seed(self.seed, message.game))

    def on_hand_start(self, message: m.HandStart) -> None:
        self.memory = HandMemory(pile=[parse_card(message.upcard)])

    def on_played(self, message: m.Played) -> None:
        action = engine_action(message.action)
        memory = self.memory
        top = memory.pile[-1] if memory.pile else None
        mine = message.player == self.seat
        if action.kind is ActionKind.DRAW_DISCARD:
            if memory.pile:
                memory.pile.pop()
            if not mine and top is not None:
                memory.opponent_takes |= 1 << top
        elif action.kind in (ActionKind.DISCARD, ActionKind.KNOCK) and action.card is not None:
            memory.pile.append(action.card)
            if not mine:
                memory.opponent_discards |= 1 << action.card
        elif not mine and top is not None:  # a pass, or the stock drawn over the top card
            memory.opponent_passes |= 1 << top
            if action.kind is ActionKind.DRAW_STOCK:
                memory.opponent_draws += 1

    # -- decisions -----------------------------------------------------------------------------

    def _situation(self, view: View) -> tuple[int, list[float], Appraisal, list[float]]:
        unseen = unseen_cards(view.hand, view.discard_pile, view.opponent_known)
        odds = opponent_odds(
            unseen,
            view.opponent_known,
            self.memory,
            self.style.trust,
            view.opponent_hand_size,
        )
        appraisal = Appraisal(StockOdds.of(stock_odds(unseen, odds)), self.style.lookahead)
        danger = [self.style.danger * discard_danger(c, odds) for c in range(52)]
        return unseen, odds, appraisal, danger

    def _take_upcard(self, view: View) -> bool:
        """Would the upcard leave a better hand than the expected stock card?"""
        if not might_help(view.hand, view.upcard):
            return False
        _, _, appraisal, danger = self._situation(view)
        take, stock = self._draw_scores(view, appraisal, danger)
        return take < stock

    def _draw_scores(
        self, view: View, appraisal: Appraisal, danger: Sequence[float]
    ) -> tuple[float, float]:
        """The score (lower is better) of the hand after taking the upcard and the best discard,
        and the expected score after a stock card and the best discard."""
        hand, upcard = view.hand, view.upcard
        forbidden = 0 if self.rules.discard_taken_card else 1 << upcard
        with_upcard = hand | 1 << upcard
        _, take = best_discard(with_upcard, with_upcard & ~forbidden, appraisal, danger)
        stock = 0.0
        for card, p in appraisal.stock.draws:
            drawn = hand | 1 << card
            stock += p * best_discard(drawn, drawn, appraisal, danger, self.style.shortlist)[1]
        return take, stock

    def first_upcard(self, view: View) -> bool:
        return self._take_upcard(view)

    def draw(self, view: View) -> m.DrawSource:
        may_take = any(a.kind is ActionKind.DRAW_DISCARD for a in view.legal)
        return "discard" if may_take and self._take_upcard(view) else "stock"

    def discard(self, view: View) -> Action:
        if any(a is BIG_GIN for a in view.legal):
            return BIG_GIN
        unseen, odds, appraisal, danger = self._situation(view)
        knock_action = self._knock(view, unseen, odds)
        if knock_action is not None:
            return knock_action
        card, _ = best_discard(view.hand, view.discardable(), appraisal, danger)
        return discard(card)

    def opponent_hands(
        self, view: View, unseen: int, odds: Sequence[float], count: int
    ) -> list[int]:
        """``count`` hands the opponent may hold, from everything public."""
        if not self.style.kept:
            return sample_opponent_hands(
                self.rng,
                unseen,
                view.opponent_known,
                odds,
                count,
                hand_size=view.opponent_hand_size,
            )
        memory = self.memory
        return kept_opponent_hands(
            self.rng,
            unseen,
            view.opponent_known,
            odds,
            count,
            hand_size=view.opponent_hand_size,
            draws=memory.opponent_draws,
            knock_limit=view.knock_limit if memory.opponent_discards else -1,
            deadline=self.sampling_deadline,
        )

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
            # What the knock can expect to lose: its deadwood and the defender's likely lay-offs.
            cost = arrangement.deadwood + lay_off_risk(arrangement.melds, kept, odds)
            arranged.append((cost, card, arrangement))
        arranged.sort(key=lambda entry: entry[:2])
        opponents = self.opponent_hands(view, unseen, odds, self.style.samples)
        first_upcard = view.first_upcard
        best: tuple[float, int, Arrangement] | None = None
        for _, card, arrangement in arranged[: self.style.knock_shortlist]:
            expected = sum(
                knock_score(
                    arrangement.melds, arrangement.deadwood, opponent, self.rules, first_upcard
                )
                for opponent in opponents
            ) / len(opponents)
            if best is None or expected > best[0]:
                best = (expected, card, arrangement)
        if best is None or best[0] <= self.style.min_knock_edge:
            return None
        _, card, arrangement = best
        if self._play_for_gin(view, view.hand ^ (1 << card), arrangement.deadwood, unseen):
            return None
        return knock(card, arrangement.melds)

    def _play_for_gin(self, view: View, kept: int, knocker_deadwood: int, unseen: int) -> bool:
        """Early in the hand, with very little deadwood and a live card that would make gin, play
        on: gin scores a bonus and suffers no lay-offs, and an opponent who knocks first is likely
        to be undercut."""
        style = self.style
        if knocker_deadwood > style.gin_hold or view.stock_size < style.gin_hold_stock:
            return False
        return bool(gin_outs(kept, unseen))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bots.strong", description=__doc__)
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    args = parser.parse_args(argv)
    return StrongBot(args.seed).run()


if __name__ == "__main__":
    sys.exit(main())
