"""Reading the opponent: a weighted set of hands it may hold, judged by how it has played.

The strong bot's odds (:func:`bots.strong.opponent_odds`) read the public history card by card.
This module weighs whole hands by the *policy* that would have played them (policy-based
inference, as Rebstock et al. 2019 and Solinas et al. 2019 do for Skat): a *particle* is a
possible opponent hand, drawn as kept (:func:`bots.strong.kept_opponent_hands`), and its weight is
the chance, under a mixture of opponent models, of the opponent's recent turns: that it did not
knock with the hand it kept, that it threw the card it threw from the hand it held, and that it
took or left the card on the pile. Two models:

- :data:`RULE`: OpenSpiel's simple bot's rule (its family, with ``greedy``'s): take the pile's
  card when it lets it knock or falls in the best meld group, throw the highest-ranked card of the
  best meld group's deadwood, knock at once; anything else is a rare slip (``slip``).
- :data:`SOFT`: a careful player like ``strong``: throws weighted by ``exp(-extra / temper)``
  (``extra``, the deadwood a throw leaves over the best throw), takes likely when the card melds,
  knocks sometimes declined.

The mixture's share (:attr:`Reading.share`, the chance the opponent plays by the rule) is fitted
online from how well each model explains its turns, over the hand and the match.

The past hands are reconstructed from the current one by undoing the turns since: the cards it
threw since are put back, the cards it took since taken out (the cards it drew from the stock
since stay unknown: the reconstruction keeps them, so only the last :data:`TURNS` turns are used).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from bots.search import melds_with
from bots.strong import kept_opponent_hands
from engine.cards import cards_of
from engine.hand import ActionKind
from engine.melds import best_arrangement, best_discards, deadwood
from protocol.views import Told

TURNS: Final = 3
"""The opponent's most recent turns weighed (older ones are muddied by its unknown draws)."""


@dataclass(frozen=True, slots=True)
class Model:
    """An opponent model: how likely each observed choice is, given the hand it was made with."""

    name: str
    slip: float
    """Chance of a choice the rule would not make (spread over the alternatives)."""
    temper: float
    """Throws weighted by ``exp(-extra / temper)``; 0: the rule's throw only."""
    declines: float
    """Chance it plays on with a hand it could knock with."""
    takes: float
    """Chance it takes a card that melds and lowers its deadwood (one that does not: ``slip``)."""

    def knock_kept(self, hand: int, knock_limit: int) -> float:
        """The chance of not knocking with the 10-card ``hand`` it kept after its throw."""
        return self.declines if deadwood(hand) <= knock_limit else 1.0

    def throw(self, held: int, card: int, forbidden: int = 0) -> float:
        """The chance of throwing ``card`` from the 11-card ``held``."""
        if self.temper <= 0:  # the rule: the highest rank of the best meld group's deadwood
            dead = best_arrangement(held).deadwood_cards & ~forbidden
            if not dead:
                return (1.0 - self.slip) / 11
            top = max(c % 13 for c in cards_of(dead))
            ties = [c for c in cards_of(dead) if c % 13 == top]
            return (1.0 - self.slip) / len(ties) if card in ties else self.slip / 10
        best, _ = best_discards(held, forbidden)
        after = deadwood(held & ~(1 << card))
        weights = [
            math.exp(-(deadwood(held & ~(1 << c)) - best) / self.temper)
            for c in cards_of(held & ~forbidden)
        ]
        return math.exp(-(after - best) / self.temper) / sum(weights)

    def take(self, hand: int, card: int, took: bool, knock_limit: int = 10) -> float:
        """The chance of taking (``took``) or leaving ``card`` from the 10-card ``hand``: the
        rule takes a card that lets it knock or that the best meld group of the eleven cards
        melds (OpenSpiel's simple bot's rule); the soft model one that melds and lowers the
        deadwood."""
        if self.temper <= 0:
            with_card = hand | 1 << card
            wants = (
                best_discards(with_card, 1 << card)[0] <= knock_limit
                or not best_arrangement(with_card).deadwood_cards >> card & 1
            )
        else:
            wants = melds_with(hand, card, True)
        p = self.takes if wants else self.slip
        return p if took else 1.0 - p


RULE: Final = Model("rule", slip=0.02, temper=0.0, declines=0.02, takes=0.97)
SOFT: Final = Model("soft", slip=0.12, temper=2.0, declines=0.3, takes=0.8)


@dataclass(frozen=True, slots=True)
class Turn:
    """One opponent turn, as the bot saw it: the pile's top card when it drew (None when there
    was none), whether it took it, and the card it threw (None if the turn has not ended)."""

    top: int | None
    took: bool
    thrown: int | None


def opponent_turns(history: Sequence[Told], me: int, first: int) -> list[Turn]:
    """The opponent's turns of a hand's history (``View.history``), oldest first; ``first``, the
    hand's first upcard."""
    pile = [first]
    turns: list[Turn] = []
    top: int | None = None
    took = False
    for player, action, _card in history:
        kind = action.kind
        mine = player == me
        if kind is ActionKind.DRAW_DISCARD:
            if not mine:
                top, took = pile[-1], True
            pile.pop()
        elif kind in (ActionKind.DRAW_STOCK, ActionKind.PASS):
            if not mine and pile:
                top, took = pile[-1], False
                if kind is ActionKind.PASS:  # a pass of the first upcard is a turn of its own
                    turns.append(Turn(top, False, None))
                    top = None
        elif kind in (ActionKind.DISCARD, ActionKind.KNOCK):
            card = action.card
            assert card is not None
            pile.append(card)
            if not mine:
                turns.append(Turn(top, took, card))
                top, took = None, False
    return turns


def likelihood(model: Model, hand: int, turns: Sequence[Turn], knock_limit: int) -> float:
    """The chance under ``model`` of the opponent's ``turns`` (the last :data:`TURNS`) ending
    with the 10-card ``hand``: undone turn by turn, newest first."""
    p = 1.0
    now = hand
    recent = [t for t in turns if t.thrown is not None or t.top is not None][-TURNS:]
    for i, turn in enumerate(reversed(recent)):
        if turn.thrown is None:  # a pass of the first upcard
            p *= model.take(now, turn.top, False) if turn.top is not None else 1.0
            continue
        if i == 0:
            p *= model.knock_kept(now, knock_limit)
        held = now | 1 << turn.thrown
        if held.bit_count() != 11:  # the card is in this hand: it cannot have been thrown
            return 0.0
        taken = turn.top if turn.took and turn.top is not None else None
        p *= model.throw(held, turn.thrown, 0 if taken is None else 1 << taken)
        before = held & ~(1 << taken) if taken is not None else now
        if turn.top is not None and before.bit_count() == 10 and not before >> turn.top & 1:
            p *= model.take(before, turn.top, turn.took)
        now = before if taken is not None else now
    return p


@dataclass
class Reading:
    """The mixture's share of :data:`RULE`, fitted online: a Beta-like tally of how much better
    each model explained the opponent's turns (kept over the match)."""

    rule: float = 1.0
    soft: float = 1.0

    @property
    def share(self) -> float:
        return self.rule / (self.rule + self.soft)

    def update(self, rule_evidence: float, soft_evidence: float) -> None:
        """Credit the models by their marginal likelihoods of the latest evidence."""
        total = rule_evidence * self.share + soft_evidence * (1 - self.share)
        if total <= 0:
            return
        self.rule += rule_evidence * self.share / total
        self.soft += soft_evidence * (1 - self.share) / total


def turn_evidence(
    hands: Sequence[int], turns: Sequence[Turn], knock_limit: int
) -> tuple[float, float]:
    """The mean chance over ``hands`` of the opponent's newest turn under :data:`RULE` and under
    :data:`SOFT`: what :meth:`Reading.update` credits the models with, once a turn."""
    if not hands or not turns:
        return 1.0, 1.0
    last = turns[-1:]
    rule = sum(likelihood(RULE, h, last, knock_limit) for h in hands) / len(hands)
    soft = sum(likelihood(SOFT, h, last, knock_limit) for h in hands) / len(hands)
    return rule, soft


def particles(
    rng: random.Random,
    unseen: int,
    opponent_known: int,
    odds: Sequence[float],
    count: int,
    *,
    turns: Sequence[Turn],
    knock_limit: int,
    reading: Reading,
    draws: int = 0,
) -> list[tuple[int, float]]:
    """``count`` hands the opponent may hold (as kept) with their normalised weights under the
    mixture; every hand holds the cards it is known to hold and only unseen cards otherwise."""
    hands = kept_opponent_hands(
        rng, unseen, opponent_known, odds, count, draws=draws, knock_limit=knock_limit
    )
    share = reading.share
    weights = [
        share * likelihood(RULE, h, turns, knock_limit)
        + (1 - share) * likelihood(SOFT, h, turns, knock_limit)
        for h in hands
    ]
    total = sum(weights)
    if total <= 0:
        return [(h, 1.0 / len(hands)) for h in hands]
    return [(h, w / total) for h, w in zip(hands, weights, strict=True)]


def take_chance(weighted: Sequence[tuple[int, float]], card: int, reading: Reading) -> float:
    """The chance the opponent takes ``card`` if the bot throws it."""
    share = reading.share
    return sum(
        w * (share * RULE.take(h, card, True) + (1 - share) * SOFT.take(h, card, True))
        for h, w in weighted
    )


def knock_chance(
    weighted: Sequence[tuple[int, float]], card: int, unseen: int, knock_limit: int
) -> float:
    """The chance the opponent can knock on its next turn after the bot throws ``card``: it takes
    the card if it melds (the rule), else draws a stock card uniformly from the unseen cards it
    does not hold."""
    total = 0.0
    for hand, w in weighted:
        if melds_with(hand, card, True):
            dead, _ = best_discards(hand | 1 << card, 1 << card)
            total += w * (dead <= knock_limit)
            continue
        stock = cards_of(unseen & ~hand & ~(1 << card))
        if not stock:
            continue
        hits = sum(best_discards(hand | 1 << s, 0)[0] <= knock_limit for s in stock)
        total += w * hits / len(stock)
    return total


# -- the forward filter --------------------------------------------------------------------------


def _opponent_stock_draws(history: Sequence[Told], me: int) -> dict[int, int]:
    """For each opponent stock draw (its index in ``history``), the card it threw next."""
    out: dict[int, int] = {}
    waiting: int | None = None
    for i, (player, action, _card) in enumerate(history):
        if player == me:
            continue
        if action.kind is ActionKind.DRAW_STOCK:
            waiting = i
        elif action.kind in (ActionKind.DISCARD, ActionKind.KNOCK) and waiting is not None:
            assert action.card is not None
            out[waiting] = action.card
            waiting = None
    return out


@dataclass
class _Particle:
    hand: int
    rule: float = 0.0
    """Log-likelihood under :data:`RULE` (relative, since the last resampling)."""
    soft: float = 0.0


def _pick(rng: random.Random, mask: int) -> int:
    choices = cards_of(mask)
    return choices[rng.randrange(len(choices))]


def _mixture(p: _Particle, share: float) -> float:
    top = max(p.rule, p.soft)
    return math.exp(top) * (share * math.exp(p.rule - top) + (1 - share) * math.exp(p.soft - top))


def _resample(rng: random.Random, ps: list[_Particle], share: float) -> list[_Particle]:
    weights = [_mixture(p, share) for p in ps]
    total = sum(weights)
    if total <= 0 or not math.isfinite(total):
        return ps
    ess = total * total / sum(w * w for w in weights)
    if ess >= len(ps) / 2:
        return ps
    chosen = rng.choices(range(len(ps)), weights=weights, k=len(ps))
    out = []
    for i in chosen:
        log_w = math.log(weights[i])
        p = ps[i]
        out.append(_Particle(p.hand, p.rule - log_w, p.soft - log_w))
    return out


def _log(x: float) -> float:
    return math.log(x) if x > 0 else -1e9


def _weigh_take(ps: Sequence[_Particle], top: int, took: bool, knock_limit: int) -> None:
    for p in ps:
        p.rule += _log(RULE.take(p.hand, top, took, knock_limit))
        p.soft += _log(SOFT.take(p.hand, top, took))


def filtered(
    rng: random.Random,
    history: Sequence[Told],
    me: int,
    first_upcard: int,
    unseen: int,
    *,
    count: int,
    knock_limit: int,
    share: float = 0.5,
    hand_size: int = 10,
) -> list[tuple[int, float]]:
    """``count`` opponent hands followed through the whole hand's ``history`` (``View.history``)
    and their weights under the mixture (``share`` of :data:`RULE`): dealt at random from the
    cards it may have been dealt, each take adds the card, each stock draw adds the card it threw
    next if it did not hold it (else a card drawn at random), each choice (take or leave, throw,
    not knocking) weighs the hand by its chance under each model, and the hands are resampled when
    the weights run thin. ``unseen``: the cards the bot cannot see now. Impossible hands are
    left out (all of them: an empty list); :func:`story` gives the facts used."""
    facts = story(history, me, first_upcard, unseen, knock_limit)
    draws, took_all, dealable = facts.draws, facts.took_all, facts.dealable
    pool = cards_of(dealable)
    ps = [
        _Particle(sum(1 << c for c in rng.sample(pool, min(10, len(pool))))) for _ in range(count)
    ]
    pile = [first_upcard]
    passes = 0
    taken: int | None = None
    for i, (player, action, _card) in enumerate(history):
        kind = action.kind
        mine = player == me
        top = pile[-1] if pile else None
        if kind is ActionKind.PASS:
            passes += 1
            if not mine and top is not None:
                _weigh_take(ps, top, False, knock_limit)
            continue
        if kind is ActionKind.DRAW_DISCARD:
            pile.pop()
            if not mine and top is not None:
                taken = top
                _weigh_take(ps, top, True, knock_limit)
                for p in ps:
                    p.hand |= 1 << top
            continue
        if kind is ActionKind.DRAW_STOCK:
            if mine:
                passes = 0
                continue
            chose = top is not None and passes != 2
            thrown = draws.get(i)
            for p in ps:
                if chose and top is not None:
                    p.rule += _log(RULE.take(p.hand, top, False, knock_limit))
                    p.soft += _log(SOFT.take(p.hand, top, False))
                free = dealable & ~p.hand
                if thrown is not None and not p.hand >> thrown & 1:
                    p.hand |= 1 << thrown  # the card it threw came from the stock
                    n = free.bit_count()
                    p.rule -= math.log(n) if n else 0.0
                    p.soft -= math.log(n) if n else 0.0
                elif free & ~(0 if thrown is None else 1 << thrown):
                    p.hand |= 1 << _pick(rng, free & ~(0 if thrown is None else 1 << thrown))
            passes = 0
            continue
        # a discard or a knock
        card = action.card
        assert card is not None
        pile.append(card)
        if not mine:
            dealable &= ~(1 << card)  # in the pile now: no later stock draw gives it
            forbidden = 0 if taken is None else 1 << taken
            for p in ps:
                if not p.hand >> card & 1:
                    # it was dealt this card (or drew it earlier): swap it in for a card the
                    # hand holds by chance, neither taken from the pile nor thrown since
                    loose = p.hand & ~took_all
                    if loose:
                        p.hand = (p.hand & ~(1 << _pick(rng, loose))) | 1 << card
                if p.hand.bit_count() != 11 or not p.hand >> card & 1:
                    p.rule = p.soft = -1e9
                    p.hand = (p.hand | 1 << card) & ~(1 << card)
                    continue
                p.rule += _log(RULE.throw(p.hand, card, forbidden))
                p.soft += _log(SOFT.throw(p.hand, card, forbidden))
                p.hand &= ~(1 << card)
                if kind is ActionKind.DISCARD:
                    p.rule += _log(RULE.knock_kept(p.hand, knock_limit))
                    p.soft += _log(SOFT.knock_kept(p.hand, knock_limit))
            taken = None
            ps = _resample(rng, ps, share)
    alive = [p for p in ps if p.hand.bit_count() == hand_size and max(p.rule, p.soft) > -1e8]
    weights = [_mixture(p, share) for p in alive]
    total = sum(weights)
    if total <= 0:
        return [(p.hand, 1.0 / len(alive)) for p in alive]
    return [(p.hand, w / total) for p, w in zip(alive, weights, strict=True)]


# -- rejuvenated by Metropolis moves -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Story:
    """What :func:`replay` needs of a hand's history, worked out once."""

    history: tuple[Told, ...]
    me: int
    first_upcard: int
    draws: dict[int, int]
    dealable: int
    took_all: int
    knock_limit: int


def story(
    history: Sequence[Told], me: int, first_upcard: int, unseen: int, knock_limit: int
) -> _Story:
    """The facts of ``history`` that every replay uses (see :func:`filtered`)."""
    thrown = took_all = 0
    pile = [first_upcard]
    for player, action, _card in history:
        if action.kind is ActionKind.DRAW_DISCARD:
            if player != me:
                took_all |= 1 << pile[-1]
            pile.pop()
        elif action.kind in (ActionKind.DISCARD, ActionKind.KNOCK):
            assert action.card is not None
            pile.append(action.card)
            if player != me:
                thrown |= 1 << action.card
    dealable = (unseen | thrown) & ~took_all & ~(1 << first_upcard)
    draws = _opponent_stock_draws(history, me)
    return _Story(tuple(history), me, first_upcard, draws, dealable, took_all, knock_limit)


def replay(s: _Story, dealt: int, seed: int, share: float) -> tuple[int, int, float]:
    """Follow the opponent dealt ``dealt`` through the history (its stock draws that no throw
    shows drawn with ``seed``): ``(dealt, hand now, log-likelihood under the mixture)``. A card it
    threw that the hand lacks is swapped into ``dealt`` (the returned deal), so the replay always
    ends with a hand that could be the opponent's; -inf when none can."""
    rng = random.Random(seed)
    hand = dealt
    rule = soft = 0.0
    pile = [s.first_upcard]
    passes = 0
    taken: int | None = None
    dealable = s.dealable
    limit = s.knock_limit
    for i, (player, action, _card) in enumerate(s.history):
        kind = action.kind
        mine = player == s.me
        top = pile[-1] if pile else None
        if kind is ActionKind.PASS:
            passes += 1
            if not mine and top is not None:
                rule += _log(RULE.take(hand, top, False, limit))
                soft += _log(SOFT.take(hand, top, False))
        elif kind is ActionKind.DRAW_DISCARD:
            pile.pop()
            if not mine and top is not None:
                taken = top
                rule += _log(RULE.take(hand, top, True, limit))
                soft += _log(SOFT.take(hand, top, True))
                hand |= 1 << top
        elif kind is ActionKind.DRAW_STOCK:
            if not mine:
                if top is not None and passes != 2:
                    rule += _log(RULE.take(hand, top, False, limit))
                    soft += _log(SOFT.take(hand, top, False))
                thrown = s.draws.get(i)
                free = dealable & ~hand
                if thrown is not None and not hand >> thrown & 1:
                    hand |= 1 << thrown
                    n = free.bit_count()
                    rule -= math.log(n) if n else 0.0
                    soft -= math.log(n) if n else 0.0
                else:
                    rest = free & ~(0 if thrown is None else 1 << thrown)
                    if rest:
                        hand |= 1 << _pick(rng, rest)
            passes = 0
        else:
            card = action.card
            assert card is not None
            pile.append(card)
            if mine:
                continue
            dealable &= ~(1 << card)
            if not hand >> card & 1:
                loose = dealt & hand & ~s.took_all
                if not loose:
                    return dealt, hand, -math.inf
                out = _pick(rng, loose)
                dealt = (dealt & ~(1 << out)) | 1 << card
                hand = (hand & ~(1 << out)) | 1 << card
            if hand.bit_count() != 11:
                return dealt, hand, -math.inf
            forbidden = 0 if taken is None else 1 << taken
            rule += _log(RULE.throw(hand, card, forbidden))
            soft += _log(SOFT.throw(hand, card, forbidden))
            hand &= ~(1 << card)
            if kind is ActionKind.DISCARD:
                rule += _log(RULE.knock_kept(hand, limit))
                soft += _log(SOFT.knock_kept(hand, limit))
            taken = None
    best = max(rule, soft)
    mixed = best + math.log(share * math.exp(rule - best) + (1 - share) * math.exp(soft - best))
    return dealt, hand, mixed


def rejuvenated(
    rng: random.Random,
    s: _Story,
    *,
    count: int,
    moves: int,
    share: float = 0.5,
    hand_size: int = 10,
) -> list[tuple[int, float]]:
    """``count`` opponent hands from the posterior of the hand's history under the mixture, by
    Metropolis moves: each chain starts from a random deal and ``moves`` times proposes to swap
    one dealt card for another dealable one, kept with the likelihood ratio (the history replayed
    by :func:`replay` each time). Equal weights; hands that cannot be its hand left out."""
    chains = []
    pool = cards_of(s.dealable)
    for _ in range(count):
        dealt = sum(1 << c for c in rng.sample(pool, min(10, len(pool))))
        seed = rng.getrandbits(32)
        chains.append((seed, *replay(s, dealt, seed, share)))
    for _ in range(moves):
        moved = []
        for seed, dealt, hand, ll in chains:
            out = _pick(rng, dealt)
            into = s.dealable & ~dealt
            if not into:
                moved.append((seed, dealt, hand, ll))
                continue
            proposal = (dealt & ~(1 << out)) | 1 << _pick(rng, into)
            new_dealt, new_hand, new_ll = replay(s, proposal, seed, share)
            if new_ll > -math.inf and (
                ll == -math.inf or math.log(rng.random() or 1e-300) < new_ll - ll
            ):
                moved.append((seed, new_dealt, new_hand, new_ll))
            else:
                moved.append((seed, dealt, hand, ll))
        chains = moved
    alive = [hand for _, _, hand, ll in chains if ll > -math.inf and hand.bit_count() == hand_size]
    return [(hand, 1.0 / len(alive)) for hand in alive]
