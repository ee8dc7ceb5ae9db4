"""A greedy bot that logs its process: a line ``PID.TOKEN game N`` at each game start (TOKEN a
random one per process: a sandbox's PID namespace gives every bot the same pid) and, as it ends,
``PID.TOKEN end quit`` (the referee said quit) or ``PID.TOKEN end eof`` (its input closed
without one). With ``--crash-at N`` it exits at its first decision of game N; with
``--start-delay S`` it takes S seconds to start (a bot that loads a model, say).

    python pids.py LOG_FILE [--crash-at N] [--start-delay S]

A LOG_FILE of ``-`` is standard error (the referee's log of the bot: what a sandboxed bot can
write).
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from bots.greedy import GreedyBot
from bots.sdk import View
from engine.hand import Action
from protocol import messages as m

TOKEN = secrets.token_hex(4)


class PidBot(GreedyBot):
    name = "pids"

    def __init__(self, log: Path, crash_at: int | None) -> None:
        super().__init__()
        self.log = log
        self.crash_at = crash_at
        self.game = 0

    def write(self, text: str) -> None:
        line = f"{os.getpid()}.{TOKEN} {text}\n"
        if str(self.log) == "-":
            sys.stderr.write(line)
            sys.stderr.flush()
            return
        with self.log.open("a") as out:
            out.write(line)

    def on_game_start(self, message: m.GameStart) -> None:
        self.game = message.game
        self.write(f"game {message.game}")

    def choose(self, view: View) -> Action:
        if self.game == self.crash_at:
            os._exit(5)
        return super().choose(view)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("log", type=Path)
    parser.add_argument("--crash-at", type=int)
    parser.add_argument("--start-delay", type=float, default=0.0)
    args = parser.parse_args()
    time.sleep(args.start_delay)
    bot = PidBot(args.log, args.crash_at)
    quit_seen = False

    def lines() -> Iterator[bytes]:
        nonlocal quit_seen
        for line in sys.stdin.buffer:
            quit_seen = quit_seen or line.startswith(b'{"type":"quit"')
            yield line

    code = bot.run(lines())  # type: ignore[arg-type]
    bot.write("end quit" if quit_seen else "end eof")
    return code


if __name__ == "__main__":
    sys.exit(main())
