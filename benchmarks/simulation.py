"""Side-by-side speed of whole random hands: our engine and referee against OpenSpiel and RLCard,
and our stdio referee against a bare pipe echo of the same lines.

Every implementation plays random-vs-random hands through the API its users would use, one after
another in the same process, in rounds that take them in turn; each rate is the best round. The
rows:

- gin-rummy-arena, engine: ``Hand.copy()`` of a dealt hand (as OpenSpiel clones one), or a new
  ``Hand`` dealt from a seed; then ``legal_actions()`` and ``apply_unchecked()``;
- gin-rummy-arena, referee: ``gin-arena match random random --hands N`` as a user runs it with
  in-process bots (:class:`arena.play.match.Match`): every request, reply and event as typed
  protocol
  messages, every action checked;
- OpenSpiel: ``state.clone()`` of a dealt state, or a new state dealt by chance nodes;
  ``legal_actions()`` and ``apply_action()``;
- RLCard: the raw ``GinRummyGame`` (``judge.get_legal_actions()``, ``step``) and its ``env``.

The stdio table: requests/s of a match between two SDK random bots as subprocesses (timed once
they have started, as the echo is once ``cat`` has), against a lockstep echo of the same request
lines through ``cat`` (write a line, read it back).

    tox -e bench-peers                        # with the peers' packages installed
    python benchmarks/simulation.py --seconds 2 --json sim.json

A peer that is not importable is skipped with a note.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from arena.play.match import Match  # noqa: E402
from arena.seats import wire  # noqa: E402
from arena.seats.botspec import BotSpec  # noqa: E402
from engine.hand import Hand  # noqa: E402
from engine.rules import HOYLE  # noqa: E402


@dataclass
class Row:
    """One implementation: ``play(n)`` plays ``n`` hands; the best rate over the rounds."""

    name: str
    how: str
    play: Callable[[int], None]
    best: float = 0.0
    rates: list[float] = field(default_factory=list)


def ours_copy(n: int) -> None:
    rng = random.Random(1)
    base = Hand(HOYLE, 0, seed=1)
    pick = rng.random
    for _ in range(n):
        hand = base.copy()
        while hand.result is None:
            legal = hand.legal_actions()
            hand.apply_unchecked(legal[int(pick() * len(legal))])


def ours_deal(n: int) -> None:
    rng = random.Random(2)
    pick = rng.random
    for i in range(n):
        hand = Hand(HOYLE, i & 1, seed=i)
        while hand.result is None:
            legal = hand.legal_actions()
            hand.apply_unchecked(legal[int(pick() * len(legal))])


def ours_referee(n: int) -> None:
    spec = BotSpec("random", builtin="random")
    Match((spec, spec), HOYLE, games=n, single_hands=True, seed=3).play()


def openspiel_rows() -> list[Row]:
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        print("- OpenSpiel (pyspiel) is not installed: its rows are skipped.")
        return []
    game = pyspiel.load_game("gin_rummy")
    rng = random.Random(4)
    pick = rng.random

    def finish(state: Any) -> None:
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(pick() * len(outcomes))][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(pick() * len(legal))])

    def dealt() -> Any:
        state = game.new_initial_state()
        while state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[int(pick() * len(outcomes))][0])
        return state

    base = dealt()

    def clone(n: int) -> None:
        for _ in range(n):
            finish(base.clone())

    def new(n: int) -> None:
        for _ in range(n):
            finish(game.new_initial_state())

    return [
        Row("OpenSpiel (C++)", "clone a dealt state", clone),
        Row("OpenSpiel (C++)", "new state, dealt by chance nodes", new),
    ]


def rlcard_rows() -> list[Row]:
    try:
        import rlcard  # type: ignore[import-not-found]
        from rlcard.games.gin_rummy.game import (  # type: ignore[import-not-found]
            GinRummyGame,
        )
    except ImportError:
        print("- RLCard is not installed: its rows are skipped.")
        return []
    rng = random.Random(5)
    pick = rng.random
    game = GinRummyGame()
    game.np_random.seed(5)
    env = rlcard.make("gin-rummy", config={"seed": 5})

    def raw(n: int) -> None:
        for _ in range(n):
            game.init_game()
            while not game.is_over():
                legal = game.judge.get_legal_actions()
                game.step(legal[int(pick() * len(legal))])

    def environment(n: int) -> None:
        for _ in range(n):
            state, _ = env.reset()
            while not env.is_over():
                legal = list(state["legal_actions"])
                state, _ = env.step(legal[int(pick() * len(legal))])

    return [
        Row("RLCard (Python)", "raw game engine", raw),
        Row("RLCard (Python)", "env", environment),
    ]


def measure(rows: list[Row], seconds: float, rounds: int) -> None:
    """Rounds of about ``seconds`` per row, the rows in turn; each row's best hands/s."""
    sizes = {}
    for row in rows:  # calibrate: hands in about a tenth of the round
        start = time.perf_counter()
        row.play(20)
        sizes[row.name + row.how] = max(20, int(20 * seconds / (time.perf_counter() - start)))
    for _ in range(rounds):
        for row in rows:
            n = sizes[row.name + row.how]
            gc.collect()
            start = time.perf_counter()
            row.play(n)
            rate = n / (time.perf_counter() - start)
            row.rates.append(rate)
            row.best = max(row.best, rate)


def stdio_rates(hands: int) -> dict[str, float]:
    """Requests/s of a subprocess match of two SDK random bots, and of a lockstep ``cat`` echo of
    the same request lines. The match is timed from its bots started (:meth:`Match.lineup`) to
    its end, as the echo is timed from ``cat`` started, and without the wire tap, as a user runs
    it; a second, tapped run of the same match gives the lines for the echo."""
    spec = BotSpec("random", builtin="random")
    match = Match((spec, spec), HOYLE, games=hands, single_hands=True, seed=6, in_process=False)
    with tempfile.TemporaryDirectory(prefix="gin-arena-bench-") as scratch:
        lineup = match.lineup(Path(scratch))
        try:
            start = time.perf_counter()
            lineup.start_all()
            started = time.perf_counter()
            match.play(lineup=lineup)
            seconds = time.perf_counter() - started
        finally:
            lineup.close()
    with wire.tap() as tapped:
        match.play()
    requests = [t.text.encode() + b"\n" for t in tapped if t.direction == wire.TO_BOT]
    asked = [line for line in requests if line.startswith(b'{"type":"request"')]
    echo = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert echo.stdin is not None and echo.stdout is not None
    write, flush, readline = echo.stdin.write, echo.stdin.flush, echo.stdout.readline
    start_echo = time.perf_counter()
    for line in asked:
        write(line)
        flush()
        readline()
    echo_seconds = time.perf_counter() - start_echo
    echo.stdin.close()
    echo.wait()
    return {
        "requests": len(asked),
        "bots_start_seconds": started - start,
        "match_requests_per_s": len(asked) / seconds,
        "echo_requests_per_s": len(asked) / echo_seconds,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="per row per round (default 1)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (default 5)")
    parser.add_argument("--stdio-hands", type=int, default=100, help="hands of the stdio match")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args(argv)
    rows = [
        Row("gin-rummy-arena", "engine: copy a dealt hand", ours_copy),
        Row("gin-rummy-arena", "engine: deal from a seed", ours_deal),
        Row("gin-rummy-arena", "referee, in-process bots (gin-arena match --hands)", ours_referee),
        *openspiel_rows(),
        *rlcard_rows(),
    ]
    measure(rows, args.seconds, args.rounds)
    reference = {r.how: r.best for r in rows if r.name.startswith("OpenSpiel")}
    clone = reference.get("clone a dealt state")
    rlcard_raw = next((r.best for r in rows if r.how == "raw game engine"), None)
    print(f"\n# Random hands side by side: best of {args.rounds} rounds\n")
    print("| implementation | how | hands/s | vs OpenSpiel clone | vs RLCard raw |")
    print("|---|---|--:|--:|--:|")
    for row in rows:
        vs_os = f"{row.best / clone:.2f}x" if clone else "-"
        vs_rl = f"{row.best / rlcard_raw:.2f}x" if rlcard_raw else "-"
        print(f"| {row.name} | {row.how} | {row.best:,.0f} | {vs_os} | {vs_rl} |")
    runs = [stdio_rates(args.stdio_hands) for _ in range(args.rounds)]
    ratios = sorted(r["match_requests_per_s"] / r["echo_requests_per_s"] for r in runs)
    stdio = sorted(runs, key=lambda r: r["match_requests_per_s"] / r["echo_requests_per_s"])[
        len(runs) // 2
    ]  # the run of the median ratio
    match_rate, echo_rate = stdio["match_requests_per_s"], stdio["echo_requests_per_s"]
    print(f"\n# stdio: the run of the median ratio of {args.rounds}\n")
    print("| stdio | requests/s |\n|---|--:|")
    print(f"| match of two SDK random bots as subprocesses, once started | {match_rate:,.0f} |")
    print(f"| lockstep echo of the same request lines through cat | {echo_rate:,.0f} |")
    print(f"| ratio | {match_rate / echo_rate:.2f} |")
    print(f"\nratios of the {args.rounds} runs: {', '.join(f'{r:.2f}' for r in ratios)}")
    print(f"the two bots' start: {stdio['bots_start_seconds']:.2f} s")
    if args.json:
        report = {
            "rows": [
                {"name": r.name, "how": r.how, "best": r.best, "rates": r.rates} for r in rows
            ],
            "stdio": stdio,
            "stdio_runs": runs,
        }
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
