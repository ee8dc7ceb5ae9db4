"""The policy trained by ``train.py``, as a stdio bot for the arena.

    python docs/examples/rl/rl_linear.py weights.npz
    gin-arena match "python docs/examples/rl/rl_linear.py weights.npz" random --games 200 --mirror

It loads the weights file, builds the greedy policy of ``linear.py`` (the module ``train.py``
trained, imported from this script's own directory, so the bot plays exactly what was trained)
and plays it through :func:`bots.policy.run_policy`. A missing or malformed weights file is
reported on stderr, naming the file, and the bot exits with status 2 before the handshake.

The arena names a command by the script it runs, so this bot is ``rl_linear`` in its tables, and
it says the same in its ``ready`` message; ``--name`` changes the latter (to tell weights files
apart in ``check-bot`` or on stderr; in a tournament, ``--bot NAME=COMMAND`` names the entry).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final

HERE: Final = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # linear.py, next to this file, whatever the working directory
    sys.path.insert(0, str(HERE))

from linear import WeightsError, load_weights, make_policy  # noqa: E402

from bots.policy import run_policy  # noqa: E402


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="rl_linear.py", description="Play the linear policy of train.py as a gin-arena bot."
    )
    parser.add_argument("weights", type=Path, help="the weights file train.py wrote (.npz)")
    parser.add_argument(
        "--name",
        help="the name in the bot's ready message (default: the script's, rl_linear, as the "
        "arena names the command)",
    )
    args = parser.parse_args(argv)
    try:
        weights = load_weights(args.weights)
    except WeightsError as error:
        print(f"rl_linear.py: {error}", file=sys.stderr)
        return 2
    return run_policy(make_policy(weights), name=args.name, version="1")


if __name__ == "__main__":
    sys.exit(main())
