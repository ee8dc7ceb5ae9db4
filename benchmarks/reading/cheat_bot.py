#!/usr/bin/env python3
"""A development variant of the reference bot told the opponent's real hand, one part at a time.

For measurement only (issue 47, "find the channel first"): where do the +7 to +9 points a hand
that the whole opposing hand is worth come from? The bot is given the match seed of a
``gin-arena ab`` or ``gin-arena match --mirror`` run (``--match-seed``); from it and the game's
number it deals the game again exactly as the referee did (:func:`arena.play.match.game_seeds`,
:class:`engine.game.Game`), replays the hand's history on that copy and so knows what the opponent
holds at every decision (never the stock's order: the cheat is the hand alone). Each ``--parts``
entry hands the truth to one consumer of the bot's odds:

- ``worlds``: the search's simulated worlds (the next two opponent turns: its takes of the bot's
  discards, its discards, its knocks) deal the real opponent hand, the stock still shuffled;
- ``takes``: the worlds keep sampled opponent hands, redrawn (up to :data:`TRIES` times) until a
  hand agrees with the real one on which of the candidate discards it could meld: only the
  opponent's take decisions are told;
- ``knock``: the bot's own knock is judged on the real hand (its samples and rollouts);
- ``danger``: the discard-danger term (the chance the opponent melds a discard) from the real hand;
- ``outs``: the stock odds of the appraisal (which of the bot's outs are dead in the opponent's
  hand) from the real hand.

Run as any command-line bot, never with a seed the bot was not given::

    gin-arena ab "python benchmarks/reading/cheat_bot.py --match-seed 100 --parts worlds" \\
        reference --against "python benchmarks/peer_bots/openspiel_simple.py" --seed 100 \\
        --hands 500 --sandbox none
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Sequence
from typing import Final

from arena.play.match import game_seeds
from bots.reference import ReferenceBot
from bots.sdk import View
from bots.strong import (
    Appraisal,
    StockOdds,
    discard_danger,
    meld_outs,
    sample_opponent_hands,
    stock_odds,
)
from engine.cards import cards_of
from engine.game import Game
from engine.hand import Action, Hand
from protocol import messages as m

PARTS: Final = ("worlds", "takes", "knock", "danger", "outs")
"""What can be told the real hand (see the module's documentation)."""

TRIES: Final = 64
"""Redraws of a world's opponent hand for ``takes`` before the last draw is used as it is."""


class CheatError(RuntimeError):
    """The copy of the deal does not match what the bot sees (a wrong ``--match-seed``)."""


def deal_seed(match_seed: int, game: int) -> int:
    """The deal seed of game ``game`` (from 1) of a mirrored match: deal ``k`` is games ``2k-1``
    and ``2k`` (:meth:`arena.play.match.Match.plan`)."""
    deal = (game + 1) // 2
    return next(itertools.islice(game_seeds(match_seed), deal - 1, None))


def real_opponent(view: View, dealt: Hand) -> int:
    """The opponent's hand now: ``dealt`` (a copy of the hand as dealt) with the view's history
    replayed on it. Raises :class:`CheatError` if the copy's own hand is not the bot's."""
    hand = dealt.copy()
    for _player, action, _card in view.history:
        hand.apply(action)
    me = view.seat
    if hand.hands[me] != view.hand:
        raise CheatError("the replayed deal does not give the bot its own hand: wrong match seed")
    return hand.hands[1 - me]


def melds_mask(hand: int, cards: int) -> int:
    """The cards of ``cards`` that ``hand`` can meld (two more of a rank, or a run's partners)."""
    return meld_outs(hand) & cards


class CheatBot(ReferenceBot):
    """The reference bot, told the opponent's real hand for the ``parts`` named."""

    name = "reference-cheat"

    def __init__(self, seed: int, match_seed: int, parts: Sequence[str]) -> None:
        super().__init__(seed)
        unknown = set(parts) - set(PARTS)
        if unknown:
            raise ValueError(f"unknown parts {sorted(unknown)}: choose from {', '.join(PARTS)}")
        self.match_seed = match_seed
        self.parts = frozenset(parts)
        self._dealt: Hand | None = None
        self._game = 0
        self._truth = 0
        self._candidates = 0

    def on_game_start(self, message: m.GameStart) -> None:
        super().on_game_start(message)
        self._game = message.game

    def on_hand_start(self, message: m.HandStart) -> None:
        super().on_hand_start(message)
        game = Game(self.rules, deal_seed(self.match_seed, self._game))
        self._dealt = game.hand.copy()

    def choose(self, view: View) -> Action:
        assert self._dealt is not None
        self._truth = real_opponent(view, self._dealt)
        return super().choose(view)

    def _situation(self, view: View) -> tuple[int, list[float], Appraisal, list[float]]:
        unseen, odds, appraisal, danger = super()._situation(view)
        truth = [float(self._truth >> c & 1) for c in range(52)]
        if "outs" in self.parts:
            appraisal = Appraisal(StockOdds.of(stock_odds(unseen, truth)), self.style.lookahead)
        if "danger" in self.parts:
            danger = [self.style.danger * discard_danger(c, truth) for c in range(52)]
        return unseen, odds, appraisal, danger

    def opponent_hands(
        self, view: View, unseen: int, odds: Sequence[float], count: int
    ) -> list[int]:
        if "knock" in self.parts:
            return [self._truth] * count
        return super().opponent_hands(view, unseen, odds, count)

    def expected_losses(
        self, view: View, actions: Sequence[Action], odds: Sequence[float], unseen: int
    ) -> list[float]:
        cards = 0
        for action in actions:
            if action.card is not None:
                cards |= 1 << action.card
        pile = view.discard_pile
        if pile and not cards:  # a draw: the upcard, taken or left
            cards |= 1 << pile[-1]
        self._candidates = cards
        return super().expected_losses(view, actions, odds, unseen)

    def world(self, view: View, odds: Sequence[float], unseen: int) -> Hand:
        opponent = self._truth if "worlds" in self.parts else self._sampled(view, odds, unseen)
        stock = cards_of(unseen & ~opponent)
        self.rng.shuffle(stock)
        return Hand.from_observation(view.seen, opponent, stock, self.rules)

    def _sampled(self, view: View, odds: Sequence[float], unseen: int) -> int:
        want = melds_mask(self._truth, self._candidates) if "takes" in self.parts else None
        opponent = 0
        for _ in range(TRIES if want is not None else 1):
            (opponent,) = sample_opponent_hands(
                self.rng, unseen, view.opponent_known, odds, 1, hand_size=view.opponent_hand_size
            )
            if want is None or melds_mask(opponent, self._candidates) == want:
                break
        return opponent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cheat_bot.py", description=__doc__)
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--match-seed", type=int, required=True, help="the match's --seed")
    parser.add_argument(
        "--parts", default="", help=f"comma-separated, from {', '.join(PARTS)} (default none)"
    )
    args = parser.parse_args(argv)
    parts = [p for p in args.parts.split(",") if p]
    try:
        bot = CheatBot(args.seed, args.match_seed, parts)
    except ValueError as error:
        parser.error(str(error))
    return bot.run()


if __name__ == "__main__":
    sys.exit(main())
