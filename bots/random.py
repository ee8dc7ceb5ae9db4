"""``random``: plays uniformly at random among the legal actions (seeded, so reproducible: its
choices in a game depend on its seed and the game's number only, see :func:`bots.sdk.game_seed`)."""

from __future__ import annotations

import argparse
import random
import sys

from bots.sdk import Bot, View, game_seed
from engine.hand import Action
from protocol import messages as m


class RandomBot(Bot):
    name = "random"
    author = "gin-rummy-arena"
    version = "1"

    def __init__(self, seed: int = 0) -> None:
        super().__init__()
        self.seed = seed
        self.rng = random.Random(seed)

    def on_game_start(self, message: m.GameStart) -> None:
        self.rng.seed(game_seed(self.seed, message.game))

    def choose(self, view: View) -> Action:
        return self.rng.choice(view.legal)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bots.random", description=__doc__)
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    args = parser.parse_args(argv)
    return RandomBot(args.seed).run()


if __name__ == "__main__":
    sys.exit(main())
