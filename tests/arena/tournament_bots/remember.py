"""A greedy bot that remembers the hands it is dealt and, at each new hand, predicts its
opponent's: the most recent hand it remembers of the same hand number that shares no card with
its own hand and the upcard (the hand it held in the other seating of this deal, if it played
that one). On its standard error (the referee's log of it, ``--logs``) it writes, at each hand,

    TOKEN TIME predict GAME HAND CARDS      (or ``-`` when it has no guess)
    TOKEN TIME own GAME HAND CARDS

the cards space-separated, TOKEN a random one per process (a sandbox's PID namespace gives every
bot the same pid) and TIME the system's monotonic clock, in seconds; and ``TOKEN TIME start 0 0
-`` when it starts, ``TOKEN TIME end 0 0 -`` when it ends, so that the lines of a process span
its life. ``--memory mem`` (the
default) remembers in the process; ``--memory disk`` only in files, in its home directory and in
``/tmp``, read back at each hand: what a bot could carry from one process to the next if they
shared a disk. ``--out FILE`` writes the lines to FILE too (appended; for ``gin-arena ab``,
which keeps no logs).

    python remember.py [--memory mem|disk] [--out FILE]
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from bots.greedy import GreedyBot
from protocol import messages as m

TOKEN = secrets.token_hex(4)
FILES = ("hands.txt", "/tmp/gin-arena-remember.txt")
"""Where ``--memory disk`` keeps the hands: relative to the home directory, or absolute."""


class RememberBot(GreedyBot):
    name = "remember"

    def __init__(self, disk: bool, out: str | None) -> None:
        super().__init__()
        self.disk = disk
        self.out = out
        self.hands: list[tuple[int, frozenset[str]]] = []  # (hand number, cards), oldest first
        self.game = 0

    def write(self, text: str) -> None:
        line = f"{TOKEN} {time.monotonic():.6f} {text}\n"
        sys.stderr.write(line)
        sys.stderr.flush()
        if self.out is not None:
            with open(self.out, "a", encoding="utf-8") as out:
                out.write(line)

    def remembered(self) -> list[tuple[int, frozenset[str]]]:
        if not self.disk:
            return self.hands
        hands = []
        for name in FILES:
            path = Path(os.environ.get("HOME", "."), name)
            try:
                lines = path.read_text(encoding="utf-8").splitlines()
            except OSError:
                continue
            for line in lines:
                number, *cards = line.split()
                hands.append((int(number), frozenset(cards)))
        return hands

    def remember(self, number: int, cards: frozenset[str]) -> None:
        if not self.disk:
            self.hands.append((number, cards))
            return
        line = f"{number} {' '.join(sorted(cards))}\n"
        for name in FILES:
            try:
                with Path(os.environ.get("HOME", "."), name).open("a", encoding="utf-8") as out:
                    out.write(line)
            except OSError:
                pass

    def on_game_start(self, message: m.GameStart) -> None:
        super().on_game_start(message)
        self.game = message.game

    def on_hand_start(self, message: m.HandStart) -> None:
        super().on_hand_start(message)
        mine = frozenset(message.hand)
        seen = mine | {message.upcard}
        guess = next(
            (
                cards
                for number, cards in reversed(self.remembered())
                if number == message.hand_number and not cards & seen
            ),
            None,
        )
        where = f"{self.game} {message.hand_number}"
        self.write(f"predict {where} {' '.join(sorted(guess)) if guess else '-'}")
        self.write(f"own {where} {' '.join(sorted(mine))}")
        self.remember(message.hand_number, mine)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memory", choices=("mem", "disk"), default="mem")
    parser.add_argument("--out")
    args = parser.parse_args()
    bot = RememberBot(args.memory == "disk", args.out)
    bot.write("start 0 0 -")
    code = bot.run()
    bot.write("end 0 0 -")
    return code


if __name__ == "__main__":
    sys.exit(main())
