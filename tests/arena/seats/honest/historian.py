"""An SDK bot that says on stderr, at every request, the whole history its view holds: the
greedy bot in the form named by its argument (``compact`` or ``plain``)."""

import json
import sys

from bots.greedy import GreedyBot
from bots.sdk import View
from engine.hand import Action


class Historian(GreedyBot):
    form = sys.argv[1]

    def choose(self, view: View) -> Action:
        told = [[p, str(a), c] for p, a, c in view.history]
        print("HISTORY " + json.dumps(told), file=sys.stderr, flush=True)
        return super().choose(view)


if __name__ == "__main__":
    sys.exit(Historian().run())
