"""A bot that never knocks: it passes the first upcard, draws from the stock and throws the card
it drew (or its highest card), so two of them play drawn hands for ever but for the hand limit.

    python never_knock.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from bots.sdk import Bot, View
from engine.hand import Action, ActionKind


class NeverKnock(Bot):
    name = "never-knock"
    version = "1"

    def choose(self, view: View) -> Action:
        legal = [a for a in view.legal if a.kind is not ActionKind.KNOCK]
        for kind in (ActionKind.PASS, ActionKind.DRAW_STOCK):
            for action in legal:
                if action.kind is kind:
                    return action
        return legal[-1]


if __name__ == "__main__":
    sys.exit(NeverKnock().run())
