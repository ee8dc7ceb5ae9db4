"""Train the linear policy of ``linear.py`` against the ``random`` bot, with numpy only, and save
its weights for ``bot.py``.

    python docs/examples/rl/train.py                  # about three minutes; writes weights.npz
    python docs/examples/rl/train.py --quick          # under a minute, for a test
    python docs/examples/rl/train.py --iterations 200 --seed 7 --out /tmp/w.npz
    python docs/examples/rl/train.py --seconds 60     # stop after a minute, whatever the count

then ``gin-arena match "python docs/examples/rl/bot.py weights.npz" random --games 200 --mirror``.

**Environment.** The PettingZoo AEC environment :class:`arena.rl.aec.raw_env`, one hand per
episode, rewards in points: the learner plays one seat (the seat alternates from hand to hand)
and this script plays the other one itself, uniformly at random among the legal actions, as the
``random`` bot does. Playing the opponent here is several times faster than
:class:`arena.rl.single.SeatEnv` (no referee thread, no protocol messages) and keeps a whole run
a function of ``--seed``: the deals, the opponent's moves and the learner's samples each come
from a generator seeded from it, so the same seed and ``--iterations`` give the same weights
(``--seconds`` stops a run when time is up, which depends on the machine).

**Algorithm.** REINFORCE (the likelihood-ratio policy gradient) with a baseline, on a linear
softmax policy over per-action features. Each iteration samples ``--batch`` hands with the
softmax policy; every decision of a hand is credited with that hand's reward (its points, signed,
/ 25) minus the batch's mean reward, the baseline; the gradient of the log-probability of a
softmax over features is simply the chosen action's features minus their expectation, and Adam
follows the averaged gradient. Why this rather than an evolution strategy: the policy has only
eleven weights and a hand gives a reward for every one of its twenty-odd decisions, so the
policy gradient learns from every decision of every hand it plays, where an evolution strategy
would spend a few hundred hands per weight vector to rank a population of perturbations; and it
starts from all-zero weights, which is the ``random`` bot itself, so the whole improvement is
learnt. The learnt policy plays greedily (the best-scoring action, :func:`linear.best_action`).

Each progress line gives the iteration, the hands played, the mean reward per hand (points, the
learner's minus the opponent's) and the share of hands the learner won against its training
opponent over the last ``--report`` iterations, with the sampling policy. At the end, the greedy
policy plays ``--eval-games`` whole games (to 100 points) against the random opponent, on deals
no training hand used, and the script prints its win rate.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import numpy as np

HERE: Final = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # linear.py, next to this file, whatever the working directory
    sys.path.insert(0, str(HERE))

from linear import (  # noqa: E402
    FEATURE_COUNT,
    FEATURE_NAMES,
    FloatArray,
    best_action,
    sample_action,
    save_weights,
)

from arena.rl.aec import AGENTS, raw_env  # noqa: E402

REWARD_SCALE: Final = 25.0
"""Points per unit of reward: a gin is worth 25 points and its deadwood on top."""
DEFAULT_ITERATIONS: Final = 500
QUICK_ITERATIONS: Final = 120
DEFAULT_EVAL_GAMES: Final = 100
QUICK_EVAL_GAMES: Final = 40
EVAL_SEED_OFFSET: Final = 1_000_003
"""Added to ``--seed`` for the evaluation's deals, which no training hand uses."""


@dataclass
class Adam:
    """Adam (Kingma and Ba, 2015) for gradient ascent on one weight vector."""

    learning_rate: float
    beta1: float = 0.9
    beta2: float = 0.999
    epsilon: float = 1e-8
    steps: int = 0
    first: FloatArray = field(default_factory=lambda: np.zeros(FEATURE_COUNT))
    second: FloatArray = field(default_factory=lambda: np.zeros(FEATURE_COUNT))

    def step(self, weights: FloatArray, gradient: FloatArray) -> FloatArray:
        """The weights moved up ``gradient``."""
        self.steps += 1
        self.first = self.beta1 * self.first + (1 - self.beta1) * gradient
        self.second = self.beta2 * self.second + (1 - self.beta2) * gradient**2
        first = self.first / (1 - self.beta1**self.steps)
        second = self.second / (1 - self.beta2**self.steps)
        moved: FloatArray = weights + self.learning_rate * first / (np.sqrt(second) + self.epsilon)
        return moved


@dataclass
class HandPlayed:
    """One training hand: the learner's reward (points), whether it won the hand, and the sum
    of the gradients of the log-probabilities of its actions."""

    reward: float
    won: bool
    score_gradient: FloatArray
    decisions: int


class Trainer:
    """Plays training hands against a random opponent and improves the weights."""

    def __init__(self, seed: int, batch: int, learning_rate: float) -> None:
        self.env = raw_env(episode="hand", reward="points")
        self.deals = np.random.default_rng([seed, 0])
        self.learner_choices = np.random.default_rng([seed, 1])
        self.opponent_choices = np.random.default_rng([seed, 2])
        self.batch = batch
        self.weights: FloatArray = np.zeros(FEATURE_COUNT)
        self.optimizer = Adam(learning_rate)
        self.hands = 0

    def play_hand(self) -> HandPlayed:
        env = self.env
        learner = AGENTS[self.hands % 2]
        self.hands += 1
        env.reset(seed=int(self.deals.integers(2**63)))
        gradient = np.zeros(FEATURE_COUNT)
        decisions = 0
        while not env.terminations[learner]:
            agent = env.agent_selection
            seen = env.observe(agent)
            if agent == learner:
                action, step_gradient = sample_action(
                    self.weights, seen["observation"], seen["action_mask"], self.learner_choices
                )
                gradient += step_gradient
                decisions += 1
            else:
                action = int(self.opponent_choices.choice(np.flatnonzero(seen["action_mask"])))
            env.step(action)
        reward = env.rewards[learner]
        return HandPlayed(reward, reward > 0, gradient, decisions)

    def iterate(self) -> list[HandPlayed]:
        """One policy-gradient step from a batch of hands; the hands played."""
        played = [self.play_hand() for _ in range(self.batch)]
        rewards = np.array([hand.reward for hand in played]) / REWARD_SCALE
        advantages = rewards - rewards.mean()
        gradient = sum(
            (advantage * hand.score_gradient for advantage, hand in zip(advantages, played)),
            start=np.zeros(FEATURE_COUNT),
        )
        self.weights = self.optimizer.step(self.weights, gradient / len(played))
        return played


def evaluate(weights: FloatArray, games: int, seed: int) -> tuple[int, int, int]:
    """Wins, losses and draws of the greedy policy in ``games`` whole games against a uniformly
    random opponent, seats alternating."""
    env = raw_env(episode="game", reward="game")
    deals = np.random.default_rng([seed + EVAL_SEED_OFFSET, 0])
    opponent_choices = np.random.default_rng([seed + EVAL_SEED_OFFSET, 2])
    wins = losses = 0
    for game in range(games):
        learner = AGENTS[game % 2]
        env.reset(seed=int(deals.integers(2**63)))
        while not env.terminations[learner]:
            agent = env.agent_selection
            seen = env.observe(agent)
            if agent == learner:
                action = best_action(weights, seen["observation"], seen["action_mask"])
            else:
                action = int(opponent_choices.choice(np.flatnonzero(seen["action_mask"])))
            env.step(action)
        outcome = env.rewards[learner]
        wins += outcome > 0
        losses += outcome < 0
    return wins, losses, games - wins - losses


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="train.py",
        description="Train a linear Gin Rummy policy against the random bot (REINFORCE, numpy).",
    )
    parser.add_argument(
        "--out", type=Path, default=Path("weights.npz"), help="weights file (default weights.npz)"
    )
    parser.add_argument(
        "--iterations",
        type=int,
        help=f"policy-gradient steps (default {DEFAULT_ITERATIONS}, {QUICK_ITERATIONS} with "
        "--quick)",
    )
    parser.add_argument(
        "--seconds",
        type=float,
        help="stop after this much training time, even before --iterations (makes the run's "
        "length, and so the weights, depend on the machine)",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--batch", type=int, default=32, help="hands per iteration (default 32)"
    )
    parser.add_argument(
        "--learning-rate", type=float, default=0.1, help="Adam's step size (default 0.1)"
    )
    parser.add_argument(
        "--eval-games",
        type=int,
        help=f"games against random at the end (default {DEFAULT_EVAL_GAMES}, "
        f"{QUICK_EVAL_GAMES} with --quick; 0: none)",
    )
    parser.add_argument(
        "--report", type=int, default=20, help="iterations per progress line (default 20)"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"a short run for a test: {QUICK_ITERATIONS} iterations, {QUICK_EVAL_GAMES} games",
    )
    args = parser.parse_args(argv)
    if args.iterations is None:
        args.iterations = QUICK_ITERATIONS if args.quick else DEFAULT_ITERATIONS
    if args.eval_games is None:
        args.eval_games = QUICK_EVAL_GAMES if args.quick else DEFAULT_EVAL_GAMES
    for name in ("iterations", "batch", "report"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    if args.eval_games < 0:
        parser.error("--eval-games must be 0 or more")
    if args.seconds is not None and args.seconds <= 0:
        parser.error("--seconds must be positive")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_arguments(argv)
    trainer = Trainer(args.seed, args.batch, args.learning_rate)
    started = time.perf_counter()
    window: list[HandPlayed] = []
    iteration = 0
    print(f"training {FEATURE_COUNT} weights against random, seed {args.seed}", flush=True)
    while iteration < args.iterations:
        if args.seconds is not None and time.perf_counter() - started >= args.seconds:
            print(f"time is up after {iteration} iterations", flush=True)
            break
        window.extend(trainer.iterate())
        iteration += 1
        if iteration % args.report == 0 or iteration == args.iterations:
            rewards = [hand.reward for hand in window]
            decisions = sum(hand.decisions for hand in window) / len(window)
            print(
                f"iteration {iteration:4d}  hands {trainer.hands:6d}  "
                f"mean reward {np.mean(rewards):+6.1f}  "
                f"hands won {np.mean([hand.won for hand in window]):5.1%}  "
                f"decisions/hand {decisions:4.1f}  "
                f"{time.perf_counter() - started:5.0f} s",
                flush=True,
            )
            window = []
    elapsed = time.perf_counter() - started
    save_weights(args.out, trainer.weights, args.seed, iteration)
    print(f"trained {iteration} iterations ({trainer.hands} hands) in {elapsed:.0f} s")
    print(f"wrote {args.out}")
    for name, weight in zip(FEATURE_NAMES, trainer.weights, strict=True):
        print(f"  {name:16s} {weight:+7.2f}")
    if args.eval_games:
        wins, losses, draws = evaluate(trainer.weights, args.eval_games, args.seed)
        print(
            f"greedy policy against random: {wins} wins, {losses} losses, {draws} draws "
            f"in {args.eval_games} games ({wins / args.eval_games:.0%} won)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
