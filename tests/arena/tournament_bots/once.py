"""A bot that starts only once: the first time it runs it plays, and crashes at its first
decision; every later start exits at once, as a bot whose program has gone away would.

    python once.py MARKER_FILE
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from bots.sdk import Bot, View
from engine.hand import Action


class CrashAtFirstMove(Bot):
    name = "once"
    version = "1"

    def choose(self, view: View) -> Action:
        os._exit(5)


def main() -> int:
    marker = Path(sys.argv[1])
    if marker.exists():
        return 3
    marker.touch()
    return CrashAtFirstMove().run()


if __name__ == "__main__":
    sys.exit(main())
