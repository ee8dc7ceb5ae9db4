"""What the search bot's effort costs: CPU time a move and worlds a search, at each effort of the
compute curve in docs/LADDER.md ("The curve of each step").

Plays single hands in this process (``search`` at each effort against ``greedy``, then the
reference bot's knock on top of the default), timing every decision of the bot by the CPU time
of this process (``time.process_time``: a loaded machine does not inflate it, though its wall
clock can still cut a search short, which the ``cut short`` column counts).

    python benchmarks/search_cost.py                     # 200 hands an effort
    python benchmarks/search_cost.py --hands 40 --json cost.json
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

from arena.play.match import Match
from arena.seats.botspec import BotSpec
from bots import search
from engine.rules import Rules

EFFORTS: dict[str, dict[str, Any]] = {
    "w5": {"worlds": 5},
    "w15": {"worlds": 15},
    "w45": {"worlds": 45},
    "default": {},
    "b0.3": {"budget": 0.3},
}
"""The efforts of the curve, by name, as :class:`bots.search.Effort` options (``w5``: at most 5
worlds a search; ``default``: the bot's, a budget of 0.1 s; ``b0.3``: a budget of 0.3 s)."""


def measure(effort: search.Effort, hands: int, seed: int) -> dict[str, float]:
    """Play ``hands`` single hands of the search bot at ``effort`` against greedy (mirrored);
    its CPU milliseconds a decision, worlds a search and searches the clock cut short."""
    bots: list[search.SearchBot] = []
    seconds = [0.0]
    decisions = [0]

    class Timed(search.SearchBot):
        def __init__(self, seed: int = 0) -> None:
            super().__init__(seed, effort)
            bots.append(self)

        def choose(self, view: Any) -> Any:
            start = time.process_time()
            try:
                return super().choose(view)
            finally:
                seconds[0] += time.process_time() - start
                decisions[0] += 1

    original = search.SearchBot
    setattr(search, "SearchBot", Timed)  # noqa: B010 (the built-in "search" is looked up there)
    try:
        match = Match(
            bots=(BotSpec("search", builtin="search"), BotSpec("greedy", builtin="greedy")),
            rules=Rules(),
            games=hands,
            single_hands=True,
            seed=seed,
            mirror=True,
            in_process=True,
        )
        match.play(record=io.StringIO())
    finally:
        setattr(search, "SearchBot", original)  # noqa: B010
    searches = sum(b.searches for b in bots)
    return {
        "decisions": decisions[0],
        "cpu_ms_a_decision": 1000 * seconds[0] / max(1, decisions[0]),
        "searches": searches,
        "worlds_a_search": sum(b.worlds for b in bots) / max(1, searches),
        "cut_short": sum(b.cut_short for b in bots),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="search_cost.py", description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--hands", type=int, default=200, help="hands an effort (even)")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument(
        "--efforts", nargs="+", choices=EFFORTS, default=list(EFFORTS), help="(default: all)"
    )
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args(argv)
    if args.hands < 2 or args.hands % 2:
        parser.error("--hands must be an even number of at least 2 (deals are mirrored)")
    rows = {}
    print("| effort | CPU ms a decision | worlds a search | searches | cut short |")
    print("|---|--:|--:|--:|--:|")
    for name in args.efforts:
        row = measure(search.Effort(**EFFORTS[name]), args.hands, args.seed)
        rows[name] = row
        print(
            f"| {name} | {row['cpu_ms_a_decision']:.1f} | {row['worlds_a_search']:.1f} | "
            f"{row['searches']:,} | {row['cut_short']:,} |",
            flush=True,
        )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as stream:
            json.dump({"hands": args.hands, "seed": args.seed, "efforts": rows}, stream, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
