"""Side-by-side speed of reinforcement-learning environments: ours (PettingZoo and Gymnasium)
against OpenSpiel's and RLCard's gin rummy, in environment steps per second of random play.

Every environment is stepped through the API an RL user would use, with a uniformly random legal
action at every step (the same random-number call for all), one after another in the same
process, in rounds that take them in turn so that a loaded machine slows all alike; each rate is
the median of the rounds (the best is printed too). A step is one decision of a player, the cost
of dealing and of resetting at an episode's end included. The rows:

- gin-rummy-arena, ``arena.rl.aec.env()`` (PettingZoo AEC, an episode is a game to the target;
  an illegal action would forfeit it): ``agent_iter()``, ``last()`` (the observation vector and
  the action mask), a random action among the mask's ones, ``step(action)``; the ``step(None)``
  of the finished agents at an episode's end are not counted;
- the same with ``env(episode="hand")``: an episode is one hand, as the peers' are;
- gin-rummy-arena, ``arena.rl.single.SeatEnv("random")`` (Gymnasium): one seat against the
  built-in random bot, in this process, through the arena's referee; ``reset()`` and
  ``step(action)``. Only the learner's steps are counted: the opponent's moves are made (and
  checked) inside ``step``, so each counted step is about two decisions of play;
- OpenSpiel, ``pyspiel.load_game("gin_rummy")`` (an episode is one hand): chance nodes sampled
  (not counted); at a decision node ``observation_tensor(current_player())`` (an agent needs its
  observation at every step, as ours and RLCard's give one), ``legal_actions()``,
  ``apply_action(action)``;
- RLCard, ``rlcard.make("gin-rummy")`` (an episode is one hand): ``reset()``, then
  ``step(action)`` among ``state["legal_actions"]`` until ``is_over()``; its env builds the
  observation at every step.

    tox -e bench-peers                        # with the peers' packages installed
    python benchmarks/rl_env.py --seconds 2 --json rl.json

A peer that is not importable is skipped with a note; our rows always run (they need the
reinforcement-learning extra: ``pip install 'gin-rummy-arena[rl]'``).
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import sys
import time
from collections import deque
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from peers import machine, version_of  # noqa: E402

from arena.rl.aec import env  # noqa: E402
from arena.rl.single import SeatEnv  # noqa: E402

SEED = 1

OURS = "gin-rummy-arena"
OPENSPIEL = "OpenSpiel (C++)"
RLCARD = "RLCard (Python)"


@dataclass
class Row:
    """One environment: ``steps`` yields once per counted step, forever (closed at the end)."""

    name: str
    how: str
    counts: str
    steps: Generator[None, None, None]
    rates: list[float] = field(default_factory=list)

    def run(self, n: int) -> None:
        deque(islice(self.steps, n), maxlen=0)

    @property
    def median(self) -> float:
        return statistics.median(self.rates) if self.rates else 0.0

    @property
    def best(self) -> float:
        return max(self.rates, default=0.0)


def picker(seed: int) -> Callable[[], float]:
    """The random-number call every row picks its action with: ``legal[int(pick() * n)]``."""
    return random.Random(seed).random


# ---------------------------------------------------------------------------------------------
# Our environments.


def aec_steps(environment: Any) -> Generator[None, None, None]:
    """Random play in a PettingZoo AEC environment, resetting it when an episode ends."""
    pick = picker(SEED)
    flatnonzero = np.flatnonzero
    environment.reset(seed=SEED)
    try:
        while True:
            for _agent in environment.agent_iter():
                observation, _reward, termination, truncation, _info = environment.last()
                if termination or truncation:
                    environment.step(None)
                    continue
                legal = flatnonzero(observation["action_mask"])
                environment.step(int(legal[int(pick() * len(legal))]))
                yield
            environment.reset()
    finally:
        environment.close()


def seat_steps() -> Generator[None, None, None]:
    """Random play of one seat against the built-in random bot; the learner's steps only."""
    pick = picker(SEED)
    flatnonzero = np.flatnonzero
    environment = SeatEnv("random")
    try:
        observation, _info = environment.reset(seed=SEED)
        while True:
            legal = flatnonzero(observation["action_mask"])
            action = int(legal[int(pick() * len(legal))])
            observation, _reward, termination, truncation, _info = environment.step(action)
            yield
            if termination or truncation:
                observation, _info = environment.reset()
    finally:
        environment.close()


def our_rows() -> list[Row]:
    both = "decisions of both players"
    return [
        Row(OURS, "PettingZoo AEC, env() (episode: a game)", both, aec_steps(env())),
        Row(OURS, "PettingZoo AEC, env(episode='hand')", both, aec_steps(env(episode="hand"))),
        Row(
            OURS,
            "Gymnasium SeatEnv('random'), referee in a thread",
            "the learner's decisions (the opponent's moves are made inside step)",
            seat_steps(),
        ),
    ]


# ---------------------------------------------------------------------------------------------
# The peers.


def openspiel_rows() -> list[Row]:
    try:
        import pyspiel  # type: ignore[import-not-found]

        game = pyspiel.load_game("gin_rummy")
    except Exception as error:  # not installed, no wheel for this platform, an ABI mismatch
        print(f"- OpenSpiel is not available ({error!r}): its row is skipped.")
        return []

    def steps() -> Generator[None, None, None]:
        pick = picker(SEED)
        while True:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():  # uniform outcomes: the deal and the draws
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[int(pick() * len(outcomes))][0])
                    continue
                state.observation_tensor(state.current_player())
                legal = state.legal_actions()
                state.apply_action(legal[int(pick() * len(legal))])
                yield

    return [
        Row(
            OPENSPIEL,
            "pyspiel gin_rummy, observation_tensor + legal_actions + apply_action (a hand)",
            "decisions of both players (chance nodes not counted)",
            steps(),
        )
    ]


def rlcard_rows() -> list[Row]:
    try:
        import rlcard  # type: ignore[import-not-found]

        environment = rlcard.make("gin-rummy", config={"seed": SEED})
    except Exception as error:
        print(f"- RLCard is not available ({error!r}): its row is skipped.")
        return []

    def steps() -> Generator[None, None, None]:
        pick = picker(SEED)
        while True:
            state, _player = environment.reset()
            while not environment.is_over():
                legal = list(state["legal_actions"])
                state, _player = environment.step(legal[int(pick() * len(legal))])
                yield

    return [
        Row(
            RLCARD,
            "rlcard.make('gin-rummy') env (episode: a hand)",
            "decisions of both players",
            steps(),
        )
    ]


# ---------------------------------------------------------------------------------------------
# Measuring and reporting.


def measure(rows: list[Row], seconds: float, rounds: int) -> None:
    """Rounds of about ``seconds`` per row, the rows in turn; every round's steps/s kept."""
    sizes = {}
    for row in rows:  # calibrate (and warm up): double the steps until a fifth of a round
        n = 64
        while True:
            start = time.perf_counter()
            row.run(n)
            elapsed = time.perf_counter() - start
            if elapsed >= seconds / 5 or n >= 1 << 30:
                break
            n *= 2
        sizes[id(row)] = max(64, int(n * seconds / elapsed))
    for _ in range(rounds):
        for row in rows:
            n = sizes[id(row)]
            gc.collect()
            start = time.perf_counter()
            row.run(n)
            row.rates.append(n / (time.perf_counter() - start))


def ratio(rate: float, reference: Row | None) -> str:
    return f"{rate / reference.median:.2f}x" if reference and reference.median else "-"


def table(rows: list[Row], rounds: int) -> list[dict[str, Any]]:
    """Print the table; return its rows. Ratios are of the medians."""
    rlcard = next((r for r in rows if r.name == RLCARD), None)
    openspiel = next((r for r in rows if r.name == OPENSPIEL), None)
    rounds_text = f"{rounds} rounds" if rounds != 1 else "1 round"
    print(f"\n# RL environments side by side: random play, median of {rounds_text}\n")
    print(
        "| environment | how | a step is | steps/s (median) | best | vs RLCard env | vs OpenSpiel |"
    )
    print("|---|---|---|--:|--:|--:|--:|")
    report = []
    for row in rows:
        vs_rlcard, vs_openspiel = ratio(row.median, rlcard), ratio(row.median, openspiel)
        print(
            f"| {row.name} | {row.how} | {row.counts} | {row.median:,.0f} | {row.best:,.0f} | "
            f"{vs_rlcard} | {vs_openspiel} |"
        )
        report.append(
            {
                "name": row.name,
                "how": row.how,
                "step": row.counts,
                "median_steps_per_s": row.median,
                "best_steps_per_s": row.best,
                "rates": row.rates,
                "vs_rlcard_env": vs_rlcard,
                "vs_openspiel": vs_openspiel,
            }
        )
    print(
        "\nA step is one call of the environment's step with an action, the observation of the "
        "next mover built; OpenSpiel's observation is asked for explicitly at every step."
    )
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="per row per round (default 1)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (default 5)")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.rounds < 1:
        parser.error("--seconds must be positive and --rounds at least 1")

    info = machine()
    versions = {
        name: version_of(*distributions)
        for name, distributions in {
            "gin-rummy-arena": ("gin-rummy-arena",),
            "pettingzoo": ("pettingzoo",),
            "gymnasium": ("gymnasium",),
            "numpy": ("numpy",),
            "open-spiel": ("open-spiel", "open_spiel"),
            "rlcard": ("rlcard",),
        }.items()
    }
    print(f"{info['cpu']}, {info['nproc']} CPUs, {info['python']}, {info['platform']}")
    print(", ".join(f"{name} {version}" for name, version in versions.items()), flush=True)
    rows = [*our_rows(), *openspiel_rows(), *rlcard_rows()]
    try:
        measure(rows, args.seconds, args.rounds)
    finally:
        for row in rows:
            row.steps.close()
    report_rows = table(rows, args.rounds)
    if args.json:
        report = {
            "seconds": args.seconds,
            "rounds": args.rounds,
            "machine": info,
            "versions": versions,
            "rows": report_rows,
        }
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
