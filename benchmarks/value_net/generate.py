"""Positions for a learned value of the kept hand (issue #35, step 3): the strong bot's discards.

Plays single hands (hoyle rules, in process, through the referee) of ``strong`` against itself
and of ``strong`` against ``greedy`` (a policy that knocks as soon as it may), in turn, and at
every discard of a strong bot that is not a knock records the position it leaves (its ten kept
cards and everything public, :func:`value_net.encode`), labelled with the
points that hand ended with for that bot (negative when the opponent scored, 0 for a drawn
hand). Writes an ``.npz`` (inputs as float16; checkpointed every ``--checkpoint`` hands, so a
run stopped by its ``--seconds`` or by Ctrl-C keeps what it played)::

    nice -n 10 python benchmarks/value_net/generate.py --seconds 2400 --out /tmp/vn.npz

Needs numpy (not a runtime dependency of the package); run from the repository root.
"""

from __future__ import annotations

import argparse
import random
import signal
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
for path in (ROOT, Path(__file__).resolve().parent):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import numpy as np  # noqa: E402
from value_net import encode, opponent_holds  # noqa: E402

from arena.play.referee import Referee  # noqa: E402
from arena.seats.connection import InProcessConnection  # noqa: E402
from bots.greedy import GreedyBot  # noqa: E402
from bots.sdk import View  # noqa: E402
from bots.strong import Appraisal, StrongBot  # noqa: E402
from engine.hand import Action, ActionKind  # noqa: E402
from engine.rules import HOYLE  # noqa: E402
from protocol import messages as m  # noqa: E402


class Recorder(StrongBot):
    """The strong bot, recording the position each of its discards leaves."""

    def __init__(self, seed: int, sink: list[tuple[int, list[float]]]) -> None:
        super().__init__(seed)
        self.sink = sink
        self.pending: list[list[float]] = []
        self._last: tuple[int, list[float], Appraisal, list[float]] | None = None

    def _situation(self, view: View) -> tuple[int, list[float], Appraisal, list[float]]:
        self._last = super()._situation(view)
        return self._last

    def on_hand_start(self, message: m.HandStart) -> None:
        super().on_hand_start(message)
        self.pending = []

    def discard(self, view: View) -> Action:
        action = super().discard(view)
        if action.kind is ActionKind.DISCARD and action.card is not None and self._last:
            _, odds, appraisal, danger = self._last
            self.pending.append(
                encode(
                    view.hand ^ (1 << action.card),
                    action.card,
                    pile=view.discard_pile,
                    opponent_holds=opponent_holds(self.memory, view.opponent_known),
                    opponent_discards=self.memory.opponent_discards,
                    opponent_passes=self.memory.opponent_passes,
                    odds=odds,
                    appraisal=appraisal,
                    danger=danger[action.card] / self.style.danger,
                    stock_size=view.stock_size,
                    knock_limit=view.knock_limit,
                )
            )
        return action

    def on_hand_end(self, message: m.HandEnd) -> None:
        if message.winner is None:
            points = 0
        else:
            points = message.points if message.winner == self.seat else -message.points
        for x in self.pending:
            self.sink.append((points, x))
        self.pending = []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2400.0, help="stop after this long")
    parser.add_argument("--hands", type=int, default=10**9, help="stop after this many hands")
    parser.add_argument("--seed", type=int, default=1, help="deals and bots' seed")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--checkpoint", type=int, default=2000, help="hands between saves")
    args = parser.parse_args(argv)

    rows: list[tuple[int, list[float]]] = []
    meta: list[tuple[int, int]] = []  # (hand number, matchup: 0 self-play, 1 v greedy)
    chunks: list[tuple[Any, Any, Any]] = []  # rows already packed: (x float16, y, meta)
    deals = random.Random(args.seed)
    stop = False

    def interrupted(*_: Any) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGINT, interrupted)
    signal.signal(signal.SIGTERM, interrupted)

    def save(hands: int, elapsed: float) -> None:
        if rows:
            chunks.append(
                (
                    np.array([r[1] for r in rows], dtype=np.float16),
                    np.array([r[0] for r in rows], dtype=np.float32),
                    np.array(meta, dtype=np.int32),
                )
            )
            rows.clear()
            meta.clear()
        if not chunks:
            return
        x = np.concatenate([c[0] for c in chunks])
        y = np.concatenate([c[1] for c in chunks])
        info = np.concatenate([c[2] for c in chunks])
        tmp = args.out.with_name(args.out.stem + ".tmp.npz")
        np.savez(tmp, x=x, y=y, hand=info[:, 0], matchup=info[:, 1], hands=hands, seconds=elapsed)
        tmp.replace(args.out)

    start = time.process_time()
    wall = time.perf_counter()
    hands = 0
    referee = Referee(HOYLE, ids=random.Random(args.seed))
    while hands < args.hands and not stop and time.perf_counter() - wall < args.seconds:
        matchup = hands % 2
        sink: list[tuple[int, list[float]]] = []
        bot_seed = args.seed * 1_000_003 + hands
        first = InProcessConnection("a", lambda s=bot_seed, k=sink: Recorder(s, k))
        if matchup == 0:
            second = InProcessConnection("b", lambda s=bot_seed, k=sink: Recorder(s + 500_000, k))
        else:
            second = InProcessConnection("b", GreedyBot)
        seats = [first, second] if deals.random() < 0.5 else [second, first]
        seats[0].start(referee.hello(0, "b"), 5.0)
        seats[1].start(referee.hello(1, "a"), 5.0)
        outcome = referee.play_game(seats, deals.getrandbits(63), single_hand=True)
        if outcome.failure is not None:
            print(f"hand {hands}: {outcome.failure}", file=sys.stderr)
        else:
            for points, x in sink:
                rows.append((points, x))
                meta.append((hands, matchup))
        hands += 1
        if hands % args.checkpoint == 0:
            save(hands, time.process_time() - start)
            print(
                f"{hands} hands, {sum(len(c[1]) for c in chunks)} positions, "
                f"{time.process_time() - start:.0f} s CPU, {time.perf_counter() - wall:.0f} s",
                flush=True,
            )
    save(hands, time.process_time() - start)
    print(
        f"done: {hands} hands, {sum(len(c[1]) for c in chunks)} positions, "
        f"{time.process_time() - start:.0f} s CPU, {time.perf_counter() - wall:.0f} s wall",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
