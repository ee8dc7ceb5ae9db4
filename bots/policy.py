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

    sys.exit(run_policy(policy))

and ``gin-arena match "python mybot.py" random``. The bot's name (in its ``ready`` message,
which ``check-bot`` shows, and on its stderr lines) is ``name``, by default the stem of the
script that runs it (``mybot``), the name the arena gives the command in its tables.

The observation and the mask are exactly what the environments give
(:func:`bots.encoding.encode` of the bot's own view and the game scores,
:func:`bots.encoding.action_mask` of its legal actions). Needs numpy (the ``rl`` extra).

The policy's answer must be an int (numpy's included) from 0 to ``ACTION_COUNT - 1``; anything
else stops the bot with an error naming it (the arena records a crash). An id the mask forbids
is sent as the action it names, and the referee judges it illegal (a forfeit, with the rule).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from bots.encoding import ACTION_COUNT, EncodingError, action_mask, action_of, encode
from bots.errors import BotsError
from bots.sdk import Bot, View
from engine.hand import Action

Policy = Callable[[npt.NDArray[np.float32], npt.NDArray[np.int8]], Any]
"""A policy: the observation vector and the action mask in, an action id out."""

DEFAULT_NAME: Final = "policy"
"""A policy bot's name when no other is known."""


class PolicyError(BotsError, RuntimeError):
    """A policy answered something that is not an action id."""


class PolicyBot(Bot):
    """A bot that plays ``policy``'s choices."""

    author = ""
    version = ""

    def __init__(
        self, policy: Policy, name: str = DEFAULT_NAME, author: str = "", version: str = ""
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


def script_name(argv0: str | None = None) -> str:
    """The name of the script ``argv0`` (by default ``sys.argv[0]``) as the arena names a bot
    command: its stem (``mybot`` for ``python mybot.py``); :data:`DEFAULT_NAME` when there is no
    script (``python -c``, an interactive session)."""
    script = sys.argv[0] if argv0 is None and sys.argv else argv0 or ""
    stem = Path(script).stem if script not in ("", "-", "-c", "-m") else ""
    return stem if stem.strip() else DEFAULT_NAME


def run_policy(policy: Policy, name: str | None = None, author: str = "", version: str = "") -> int:
    """Play ``policy`` as a bot over stdin and stdout until the referee says quit; the exit
    status to return (0 after a normal end). ``name`` is the bot's name, by default the stem of
    the script run (:func:`script_name`)."""
    return PolicyBot(policy, script_name() if name is None else name, author, version).run()


def first_legal(observation: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> int:
    """The policy that plays the legal action with the lowest id (a discard before a knock, a
    draw from the stock before one from the pile): a baseline and a test."""
    return int(np.flatnonzero(mask)[0])


if __name__ == "__main__":  # python -m bots.policy: the first-legal policy, as a bot
    sys.exit(run_policy(first_legal, name="first-legal"))


__all__ = [
    "DEFAULT_NAME",
    "Policy",
    "PolicyBot",
    "PolicyError",
    "first_legal",
    "run_policy",
    "script_name",
]
