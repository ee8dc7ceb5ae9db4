#!/usr/bin/env python3
"""How much of an opponent's hand can its play reveal, when it plays by a known rule?

Hands are played in process: seat 1 by :data:`bots.reading.RULE` exactly (OpenSpiel's simple
bot's rule: take a card that lets it knock or falls in the best meld group, throw the
highest-ranked card of the best meld group's deadwood, knock at once), seat 0 by the search's fast
policy (:func:`bots.search.rollout`). Each hand stops at a random point (``--min`` to ``--max``
actions) with seat 0 to move, and each reading is asked for the opponent's hand from seat 0's
history: the mean number of its hidden cards the weighted hands hold, against a uniform draw from
the unseen cards, and the CPU time::

    python benchmarks/reading/rule_reading.py --positions 40
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from typing import Any

from bots import reading
from bots.search import rollout
from bots.strong import unseen_cards
from engine.cards import cards_of
from engine.hand import DISCARDS, KNOCKS, Action, ActionKind, Hand, Phase
from engine.melds import best_arrangement
from engine.rules import HOYLE
from protocol.views import Told


def rule_action(hand: Hand) -> Action:
    """The rule's action for the player to move."""
    h = hand.hands[hand.to_move]
    legal = hand.legal_actions()
    if hand.phase is Phase.DISCARD:
        taken = hand.taken_card
        forbidden = 0 if taken is None else 1 << taken
        dead = best_arrangement(h).deadwood_cards & ~forbidden or h & ~forbidden
        card = max(cards_of(dead), key=lambda c: (c % 13, c))
        knock = KNOCKS[card]
        return knock if knock in legal else DISCARDS[card]
    top = hand.pile[-1] if hand.pile else None
    take = top is not None and reading.RULE.take(h, top, True, hand.knock_limit) > 0.5
    kinds = (ActionKind.DRAW_DISCARD,) if take else (ActionKind.DRAW_STOCK, ActionKind.PASS)
    return next((a for a in legal if a.kind in kinds), legal[0])


def fast_action(hand: Hand) -> Action:
    """The fast policy's action for the player to move (played on a copy)."""
    after = hand.copy()
    rollout(after, hand.to_move, 1)
    for action in hand.legal_actions():
        trial = hand.copy()
        trial.apply(action)
        if trial.hands == after.hands and trial.pile == after.pile:
            return action
    raise RuntimeError("the fast policy's action is not legal")


def position(rng: random.Random, low: int, high: int) -> tuple[Hand, list[Told]] | None:
    """A hand played to a random point with seat 0 to move, and seat 0's history; None if it
    ended first."""
    deck = list(range(52))
    rng.shuffle(deck)
    hand = Hand(HOYLE, 1, deck)
    told: list[Told] = []
    stop = rng.randint(low, high)
    while hand.phase is not Phase.FINISHED and (len(told) < stop or hand.to_move != 0):
        player = hand.to_move
        before = hand.hands[player]
        top = hand.pile[-1] if hand.pile else None
        action = rule_action(hand) if player == 1 else fast_action(hand)
        hand.apply(action)
        card = None
        if action.kind is ActionKind.DRAW_DISCARD:
            card = top
        elif action.kind is ActionKind.DRAW_STOCK and player == 0:
            (card,) = cards_of(hand.hands[0] & ~before)
        told.append((player, action, card))
    return None if hand.phase is Phase.FINISHED else (hand, told)


def measure(positions: int, seed: int, low: int, high: int) -> dict[str, Any]:
    rng = random.Random(seed)
    readers = {
        "forward_200": lambda s, h, t, u, n: reading.filtered(
            random.Random(s), t, 0, h.observation(0).first_upcard, u, count=200,
            knock_limit=10, share=0.95, hand_size=n,
        ),
        "forward_1000": lambda s, h, t, u, n: reading.filtered(
            random.Random(s), t, 0, h.observation(0).first_upcard, u, count=1000,
            knock_limit=10, share=0.95, hand_size=n,
        ),
        "metropolis_50x30": lambda s, h, t, u, n: reading.rejuvenated(
            random.Random(s),
            reading.story(t, 0, h.observation(0).first_upcard, u, 10),
            count=50, moves=30, share=0.95, hand_size=n,
        ),
    }  # fmt: skip
    totals: dict[str, list[float]] = {name: [0.0, 0.0] for name in readers}
    hidden_sum = uniform_sum = 0.0
    done = 0
    while done < positions:
        found = position(rng, low, high)
        if found is None:
            continue
        hand, told = found
        seen = hand.observation(0)
        unseen = unseen_cards(seen.hand, seen.discard_pile, seen.opponent_known)
        hidden = hand.hands[1] & ~seen.opponent_known
        size = hand.hands[1].bit_count()
        hidden_sum += hidden.bit_count()
        uniform_sum += hidden.bit_count() ** 2 / unseen.bit_count()
        for name, read in readers.items():
            start = time.process_time()
            weighted = read(done, hand, told, unseen, size)
            totals[name][1] += time.process_time() - start
            totals[name][0] += sum(w * (h & hidden).bit_count() for h, w in weighted)
        done += 1
    return {
        "positions": positions,
        "hidden": hidden_sum / positions,
        "uniform": uniform_sum / positions,
        "right": {name: t[0] / positions for name, t in totals.items()},
        "cpu_ms": {name: 1000 * t[1] / positions for name, t in totals.items()},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="rule_reading.py", description=__doc__)
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--min", type=int, default=12, help="actions into the hand, at least")
    parser.add_argument("--max", type=int, default=26, help="actions into the hand, at most")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = measure(args.positions, args.seed, args.min, args.max)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{args.positions} positions: {result['hidden']:.2f} hidden cards, a uniform draw")
        print(f"  names {result['uniform']:.2f}")
        for name, right in result["right"].items():
            print(f"  {name}: {right:.2f} right, {result['cpu_ms'][name]:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
