#!/usr/bin/env python3
"""The offline gate of issue 47: how well does the bot foresee the opponent's next turn?

The reference bot, playing as it does, writes a line (JSONL, ``--log``) at each of its discards
that is not a knock: its predictions, from the public history only, that the opponent takes the
card thrown and that it knocks on its next turn, and what the opponent then did. Predictions:

- ``odds``: the strong bot's (and so the search's) reading: P(take) the chance the card melds
  with the opponent's hand by the card-by-card odds (:func:`bots.strong.discard_danger`); P(knock)
  over hands drawn from those odds as dealt, every one weighing the same;
- ``kept``: the same over hands drawn as kept (:func:`bots.strong.kept_opponent_hands`), every one
  weighing the same (the take by :data:`bots.reading.RULE`);
- ``filter``: those hands weighted by the mixture of opponent models (:mod:`bots.reading`);
- ``forward``: hands followed through the whole hand by :func:`bots.reading.filtered`.

``python benchmarks/reading/gate.py LOG`` scores them (Brier skill against the base rate).
Run it as a command-line bot, with time to spare for the logging::

    gin-arena match "python benchmarks/reading/gate_bot.py --log /tmp/gate.jsonl" \\
        "python benchmarks/peer_bots/openspiel_simple.py" --hands 200 --mirror --seed 4711 \\
        --move-time 10 --sandbox none
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import cheat_bot

from bots import reading
from bots.reference import ReferenceBot
from bots.sdk import View
from bots.strong import discard_danger, sample_opponent_hands
from engine.game import Game
from engine.hand import Action, ActionKind, Hand
from protocol import messages as m
from protocol.convert import engine_action

PARTICLES = 48
FORWARD = 200


class GateBot(ReferenceBot):
    name = "reference-gate"

    def __init__(self, seed: int, log: Path, match_seed: int | None = None) -> None:
        super().__init__(seed)
        self.log = log
        self.match_seed = match_seed
        self.dealt: Hand | None = None
        self.game = 0
        self.reading = reading.Reading()
        self.pending: dict[str, Any] | None = None
        self.credited = 0

    def on_game_start(self, message: m.GameStart) -> None:
        super().on_game_start(message)
        self.game = message.game

    def on_hand_start(self, message: m.HandStart) -> None:
        self._flush()
        super().on_hand_start(message)
        self.credited = 0
        if self.match_seed is not None:
            seed = cheat_bot.deal_seed(self.match_seed, self.game)
            self.dealt = Game(self.rules, seed).hand.copy()

    def on_played(self, message: m.Played) -> None:
        super().on_played(message)
        pending = self.pending
        if pending is None or message.player == self.seat:
            return
        kind = engine_action(message.action).kind
        if "took" not in pending:
            pending["took"] = int(kind is ActionKind.DRAW_DISCARD)
        elif kind in (ActionKind.DISCARD, ActionKind.KNOCK):
            pending["knocked"] = int(kind is not ActionKind.DISCARD)
            self._flush()

    def on_hand_end(self, message: m.HandEnd) -> None:
        self._flush()

    def _flush(self) -> None:
        pending, self.pending = self.pending, None
        if pending is not None and "took" in pending:
            pending.setdefault("knocked", 0)
            with self.log.open("a", encoding="utf-8") as out:
                out.write(json.dumps(pending) + "\n")

    def discard(self, view: View) -> Action:
        action = super().discard(view)
        if action.kind is ActionKind.DISCARD and action.card is not None:
            self.pending = self.predict(view, action.card)
        return action

    def predict(self, view: View, card: int) -> dict[str, Any]:
        unseen, odds, _, _ = self._situation(view)
        turns = reading.opponent_turns(view.history, view.seat, view.first_upcard)
        limit = view.knock_limit
        size = view.opponent_hand_size
        dealt = sample_opponent_hands(
            self.rng, unseen, view.opponent_known, odds, PARTICLES, hand_size=size
        )
        if len(turns) > self.credited:  # credit the models once a turn, on hands as kept
            self.credited = len(turns)
            plain = [(h, 1.0) for h in self.opponent_hands(view, unseen, odds, PARTICLES)]
            self.reading.update(*reading.turn_evidence([h for h, _ in plain], turns, limit))
        weighted = reading.particles(
            self.rng,
            unseen,
            view.opponent_known,
            odds,
            PARTICLES,
            turns=turns,
            knock_limit=limit,
            reading=self.reading,
            draws=self.memory.opponent_draws,
        )
        forward = reading.filtered(
            self.rng,
            view.history,
            view.seat,
            view.first_upcard,
            unseen,
            count=FORWARD,
            knock_limit=limit,
            share=self.reading.share,
        )
        even = [(h, 1.0 / len(weighted)) for h, _ in weighted]
        rule = reading.Reading(1.0, 0.0)
        d = [(h, 1.0 / len(dealt)) for h in dealt]
        row: dict[str, Any] = {}
        if self.dealt is not None:  # the truth, to score the reading itself (never played on)
            truth = cheat_bot.real_opponent(view, self.dealt)
            hidden = truth & ~view.opponent_known
            row["hidden"] = hidden.bit_count()
            row["take_true"] = reading.RULE.take(truth, card, True)
            row["knock_true"] = reading.knock_chance([(truth, 1.0)], card, unseen, limit)
            for name, hands in (("odds", d), ("kept", even), ("filter", weighted)):
                row[f"right_{name}"] = sum(w * (h & hidden).bit_count() for h, w in hands)
            row["right_forward"] = sum(w * (h & hidden).bit_count() for h, w in forward)
        return row | {
            "stock": view.stock_size,
            "share": self.reading.share,
            "take_odds": discard_danger(card, odds),
            "take_kept": reading.take_chance(even, card, rule),
            "take_filter": reading.take_chance(weighted, card, self.reading),
            "knock_odds": reading.knock_chance(d, card, unseen, limit),
            "knock_kept": reading.knock_chance(even, card, unseen, limit),
            "knock_filter": reading.knock_chance(weighted, card, unseen, limit),
            "take_forward": reading.take_chance(forward, card, self.reading),
            "knock_forward": reading.knock_chance(forward, card, unseen, limit),
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gate_bot.py", description=__doc__)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--log", type=Path, required=True, help="JSONL file appended to")
    parser.add_argument(
        "--match-seed", type=int, help="the match's seed: also log the truth (cheat_bot.py)"
    )
    args = parser.parse_args(argv)
    return GateBot(args.seed, args.log.resolve(), args.match_seed).run()


if __name__ == "__main__":
    sys.exit(main())
