"""Any policy as a bot: a callable ``policy(observation, mask) -> action id`` plays through the
SDK, so a policy trained in :mod:`arena.rl` enters ``gin-arena match`` and ``tournament`` as a
command, unchanged::

    # mybot.py
    import sys
    import numpy as np
    from bots.policy import run_policy

    weights = np.load("weights.npy")

    def policy(observation, mask):
        scores = weights @ observation
        return int(np.argmax(np.where(mask == 1, scores, -np.inf)))

    sys.exit(run_policy(policy, name="linear"))

and ``gin-arena match "python mybot.py" random``. The observation and the mask are exactly
what the environments give (:func:`bots.encoding.encode` of the bot's own view and the game
scores, :func:`bots.encoding.action_mask` of its legal actions). Needs numpy (the ``rl`` extra).

The policy's answer must be an int (numpy's included) from 0 to ``ACTION_COUNT - 1``; anything
else stops the bot with an error naming it (the arena records a crash). An id the mask forbids
is sent as the action it names, and the referee judges it illegal (a forfeit, with the rule).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from bots.encoding import ACTION_COUNT, EncodingError, action_mask, action_of, encode
from bots.sdk import Bot, View
from engine.hand import Action

Policy = Callable[[npt.NDArray[np.float32], npt.NDArray[np.int8]], Any]
"""A policy: the observation vector and the action mask in, an action id out."""


class PolicyError(RuntimeError):
    """A policy answered something that is not an action id."""


class PolicyBot(Bot):
    """A bot that plays ``policy``'s choices."""

    author = ""
    version = ""

    def __init__(
        self, policy: Policy, name: str = "policy", author: str = "", version: str = ""
    ) -> None:
        super().__init__()
        self.policy = policy
        self.name = name
        self.author = author
        self.version = version

    def choose(self, view: View) -> Action:
        observation = encode(view.seen, view.scores, view.target)
        mask = action_mask(view.legal)
        chosen = self.policy(observation, mask)
        if isinstance(chosen, bool) or not isinstance(chosen, int | np.integer):
            raise PolicyError(
                f"the policy answered {chosen!r} ({type(chosen).__name__}), not an action id "
                f"(an int from 0 to {ACTION_COUNT - 1})"
            )
        try:
            return action_of(int(chosen))
        except EncodingError as error:
            raise PolicyError(f"the policy answered {chosen!r}: {error}") from None


def run_policy(policy: Policy, name: str = "policy", author: str = "", version: str = "") -> int:
    """Play ``policy`` as a bot over stdin and stdout until the referee says quit; the exit
    status to return (0 after a normal end)."""
    return PolicyBot(policy, name, author, version).run()


def first_legal(observation: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> int:
    """The policy that plays the legal action with the lowest id (a discard before a knock, a
    draw from the stock before one from the pile): a baseline and a test."""
    return int(np.flatnonzero(mask)[0])


if __name__ == "__main__":  # python -m bots.policy: the first-legal policy, as a bot
    sys.exit(run_policy(first_legal, name="first-legal"))


__all__ = ["Policy", "PolicyBot", "PolicyError", "first_legal", "run_policy"]
