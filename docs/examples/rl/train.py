"""Train the linear policy of ``linear.py`` by self-play (or against an arena bot), with numpy
only, and save its weights for ``rl_linear.py``.

    python docs/examples/rl/train.py                    # 2.5 to 8 minutes; writes weights.npz
    python docs/examples/rl/train.py --quick            # a fifth of that, for a test
    python docs/examples/rl/train.py --iterations 300 --seed 7 --out /tmp/rl/w.npz
    python docs/examples/rl/train.py --seconds 60       # stop after a minute, whatever the count
    python docs/examples/rl/train.py --opponent random  # train against the random bot instead

then play the weights in the arena with ``rl_linear.py``::

    gin-arena match "python docs/examples/rl/rl_linear.py weights.npz" greedy --games 1000 --mirror

**Environments.** Training hands are single-hand episodes with rewards in points. By default the
policy plays both seats of the PettingZoo AEC environment :class:`arena.rl.aec.raw_env` and both
seats learn from every hand (self-play: no threads, no protocol, the engine alone). With
``--opponent`` naming an arena bot (``random``, ``greedy``, ``strong`` or a command line), the
policy plays one seat of the Gymnasium environment :class:`arena.rl.single.SeatEnv` and the bot
the other, refereed as in ``gin-arena match``. The progress lines and the final evaluation play
the trained policy against ``--eval-against`` bots in :class:`~arena.rl.single.SeatEnv` too.

Self-play is the default because what a policy learns against a weak opponent is what pays
against that opponent: trained against ``random``, which seldom knocks, the policy learns to wait
for gin, and it then beats ``greedy`` (which knocks as soon as it may) in 13% to 45% of the games
depending on the seed (400 mirrored games each); trained by self-play, in about 60%: 60.3%,
60.2% and 58.7% of 1,000 mirrored games for seeds 0 to 2 (95% intervals of about 3.8 points
either way; docs/RL.md has the commands). Either way it beats ``random`` in every game.

**Determinism.** The deals and every sampled move come from generators seeded from ``--seed``
(the built-in bots are seeded by the environment), so the same seed and ``--iterations`` give the
same weights; ``--seconds`` stops a run when time is up, which depends on the machine.

**Algorithm.** REINFORCE (the likelihood-ratio policy gradient) with a baseline, on a linear
softmax policy over per-action features. Each iteration samples ``--batch`` hands with the
softmax policy; every decision of a hand is credited with that hand's reward to the seat that
made it (its points, signed, / 25) minus the batch's mean reward, the baseline. The gradient of
the log-probability of a softmax over features is simply the chosen action's features minus
their expectation under the policy, and Adam follows the batch's mean gradient. Why this rather
than an evolution strategy: the policy gradient learns from every decision of every hand it plays
(each one is a gradient term, weighted by its hand's advantage), where an evolution strategy sees
only each perturbed weight vector's mean result and needs a few hundred hands per population
member to rank them through the noise of the deals. With eleven weights and a dense signal (each
hand's points) the policy gradient gets there in a few thousand hands. It starts from all-zero
weights, which make the sampling policy the ``random`` bot itself, so the whole improvement is
learnt. The trained policy plays the best-scoring action (:func:`linear.best_action`).

**Output.** Each progress line gives, over the training hands since the last line, the mean
reward per hand (points, the policy's minus its opponent's) and the share of hands won against
the training opponent, with the sampling policy (in self-play, the policy against itself: a mean
reward of 0 and about half the hands, less the drawn ones), and the policy's decisions per hand;
then, for each ``--eval-against`` bot, the trained policy's mean reward and share of hands won
over the same ``--eval-hands`` deals at every line. At the end the trained policy plays
``--eval-games`` whole games (to 100 points) against each of them.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
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

from arena.rl.aec import AGENTS, Episode, raw_env  # noqa: E402
from arena.rl.single import OpponentError, SeatEnv  # noqa: E402
from arena.seats.botspec import BotSpecError  # noqa: E402

SELF_PLAY: Final = "self"
REWARD_SCALE: Final = 25.0
"""Points per unit of reward: a gin is worth 25 points and the opponent's deadwood on top."""
DEFAULT_ITERATIONS: Final = 800
QUICK_ITERATIONS: Final = 150
DEFAULT_EVAL_GAMES: Final = 100
QUICK_EVAL_GAMES: Final = 40
# The streams of random numbers drawn from the seed, one per use: [seed, stream].
TRAINING_DEALS, TRAINING_MOVES, EVAL_HANDS, EVAL_GAMES = range(4)


def stream_seed(seed: int, stream: int) -> int:
    """A 63-bit seed of its own for each use of the run's seed."""
    return int(np.random.default_rng([seed, stream]).integers(2**63))


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
    """One training hand, from one seat the policy played: the reward (points, the seat's minus
    the opponent's), the sum of the gradients of the log-probabilities of its actions and how
    many actions it chose."""

    reward: float
    score_gradient: FloatArray
    decisions: int


class Trainer:
    """Plays training hands against ``opponent`` (:data:`SELF_PLAY`, or an arena bot) and
    improves the weights."""

    def __init__(self, seed: int, batch: int, learning_rate: float, opponent: str) -> None:
        self.seed = seed
        self.batch = batch
        self.moves = np.random.default_rng([seed, TRAINING_MOVES])
        self.weights: FloatArray = np.zeros(FEATURE_COUNT)
        self.optimizer = Adam(learning_rate)
        self.hands = 0
        self.self_play = raw_env(episode="hand", reward="points")
        self.seat_env: SeatEnv | None = None
        if opponent != SELF_PLAY:
            self.seat_env = SeatEnv(opponent, episode="hand", reward="points")

    def close(self) -> None:
        if self.seat_env is not None:
            self.seat_env.close()

    def play_hand(self) -> list[HandPlayed]:
        """One hand; what each seat the policy played saw of it."""
        first = self.hands == 0
        self.hands += 1
        seed = stream_seed(self.seed, TRAINING_DEALS) if first else None
        if self.seat_env is None:
            return self.play_itself(seed)
        return [self.play_against(self.seat_env, seed)]

    def play_itself(self, seed: int | None) -> list[HandPlayed]:
        """A hand of self-play: both seats play the sampling policy, and both are learnt from."""
        env = self.self_play
        env.reset(seed=seed)
        gradients = {agent: np.zeros(FEATURE_COUNT) for agent in AGENTS}
        decisions = dict.fromkeys(AGENTS, 0)
        while not env.terminations[AGENTS[0]]:
            agent = env.agent_selection
            seen = env.observe(agent)
            action, gradient = sample_action(
                self.weights, seen["observation"], seen["action_mask"], self.moves
            )
            gradients[agent] += gradient
            decisions[agent] += 1
            env.step(action)
        return [HandPlayed(env.rewards[a], gradients[a], decisions[a]) for a in AGENTS]

    def play_against(self, env: SeatEnv, seed: int | None) -> HandPlayed:
        """A hand against the environment's bot, with the sampling policy."""
        seen, _ = env.reset(seed=seed)
        gradient = np.zeros(FEATURE_COUNT)
        reward = 0.0
        decisions = 0
        while True:
            action, step_gradient = sample_action(
                self.weights, seen["observation"], seen["action_mask"], self.moves
            )
            gradient += step_gradient
            decisions += 1
            seen, step_reward, terminated, truncated, _ = env.step(action)
            reward += step_reward
            if terminated or truncated:
                return HandPlayed(reward, gradient, decisions)

    def iterate(self) -> list[HandPlayed]:
        """One policy-gradient step from a batch of hands; the hands played, seat by seat."""
        played = [seat for _ in range(self.batch) for seat in self.play_hand()]
        rewards = np.array([hand.reward for hand in played]) / REWARD_SCALE
        advantages = rewards - rewards.mean()
        gradient = advantages @ np.stack([hand.score_gradient for hand in played])
        self.weights = self.optimizer.step(self.weights, gradient / len(played))
        return played


def evaluate(
    weights: FloatArray, opponent: str, episodes: int, episode: Episode, seed: int
) -> FloatArray:
    """The trained policy's rewards (the best-scoring action each time) in ``episodes`` hands
    (points) or games (+1 won, -1 lost, 0 drawn) against the arena bot ``opponent``; the same
    deals at every call with the same ``seed``."""
    env = SeatEnv(opponent, episode=episode, reward="points" if episode == "hand" else "game")
    rewards = np.zeros(episodes)
    try:
        for number in range(episodes):
            seen, _ = env.reset(seed=seed if number == 0 else None)
            done = False
            while not done:
                action = best_action(weights, seen["observation"], seen["action_mask"])
                seen, reward, terminated, truncated, _ = env.step(action)
                rewards[number] += reward
                done = terminated or truncated
    finally:
        env.close()
    return rewards


def report(
    trainer: Trainer, window: Sequence[HandPlayed], arguments: argparse.Namespace, seconds: float
) -> None:
    """The progress lines: the training hands of ``window``, then the trained policy against
    each evaluation bot on the evaluation deals."""
    rewards = np.array([hand.reward for hand in window])
    versus: dict[str, tuple[float, float]] = {}
    if arguments.eval_hands:
        for opponent in arguments.eval_against:
            points = evaluate(
                trainer.weights,
                opponent,
                arguments.eval_hands,
                "hand",
                stream_seed(arguments.seed, EVAL_HANDS),
            )
            versus[opponent] = (float(points.mean()), float(np.mean(points > 0)))
    lines = progress_lines(
        trainer.optimizer.steps,
        arguments.iterations,
        trainer.hands,
        training=(float(rewards.mean()), float(np.mean(rewards > 0))),
        decisions=float(np.mean([hand.decisions for hand in window])),
        seconds=seconds,
        versus=versus,
    )
    print("\n".join(lines), flush=True)


def progress_lines(
    step: int,
    iterations: int,
    hands: int,
    *,
    training: tuple[float, float],
    decisions: float,
    seconds: float,
    versus: dict[str, tuple[float, float]],
) -> list[str]:
    """Progress as lines of at most 80 columns: the iteration of the total, the hands so far,
    the training hands' mean reward and share won, decisions a hand and the time; then, under
    it, the policy against each evaluation bot (mean points a hand, share won)."""
    mean, won = training
    lines = [
        f"iteration {step}/{iterations}  hands {hands}  reward {mean:+.1f}  won {won:.0%}  "
        f"{decisions:.1f} decisions a hand  {seconds:.0f} s"
    ]
    if versus:
        lines.append(
            "  against "
            + ", ".join(
                f"{name} {points:+.1f} ({share:.0%} won)"
                for name, (points, share) in versus.items()
            )
        )
    return [piece for line in lines for piece in textwrap.wrap(line, 80, subsequent_indent="    ")]


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="train.py",
        description="Train a linear Gin Rummy policy with REINFORCE (numpy only), by self-play "
        "or against an arena bot, and save its weights for rl_linear.py.",
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
        help="start no iteration after this many seconds, even before --iterations (makes the "
        "run's length, and so the weights, depend on the machine)",
    )
    parser.add_argument(
        "--opponent",
        default=SELF_PLAY,
        help="the training opponent: self (default: both seats play the policy being trained "
        "and both learn), or an arena bot: random, greedy, strong, or a command line",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--batch", type=int, default=32, help="hands per iteration (default 32)")
    parser.add_argument(
        "--learning-rate", type=float, default=0.1, help="Adam's step size (default 0.1)"
    )
    parser.add_argument(
        "--report", type=int, default=50, help="iterations per progress line (default 50)"
    )
    parser.add_argument(
        "--eval-against",
        nargs="+",
        default=["random", "greedy"],
        metavar="BOT",
        help="arena bots the trained policy plays on each progress line and at the end "
        "(default: random greedy)",
    )
    parser.add_argument(
        "--eval-hands",
        type=int,
        default=100,
        help="hands against each of them on every progress line (default 100; 0: none)",
    )
    parser.add_argument(
        "--eval-games",
        type=int,
        help=f"games against each of them at the end (default {DEFAULT_EVAL_GAMES}, "
        f"{QUICK_EVAL_GAMES} with --quick; 0: none)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"a short run for a test: {QUICK_ITERATIONS} iterations, {QUICK_EVAL_GAMES} games",
    )
    arguments = parser.parse_args(argv)
    if arguments.iterations is None:
        arguments.iterations = QUICK_ITERATIONS if arguments.quick else DEFAULT_ITERATIONS
    if arguments.eval_games is None:
        arguments.eval_games = QUICK_EVAL_GAMES if arguments.quick else DEFAULT_EVAL_GAMES
    for name in ("iterations", "batch", "report"):
        if getattr(arguments, name) < 1:
            parser.error(f"--{name} must be at least 1")
    for name in ("eval_hands", "eval_games"):
        if getattr(arguments, name) < 0:
            parser.error(f"--{name.replace('_', '-')} must be 0 or more")
    if arguments.seconds is not None and arguments.seconds <= 0:
        parser.error("--seconds must be positive")
    if arguments.learning_rate <= 0:
        parser.error("--learning-rate must be positive")
    if not arguments.out.parent.is_dir():  # found now, not after minutes of training
        parser.error(f"--out {arguments.out}: no directory {arguments.out.parent}")
    return arguments


def train(arguments: argparse.Namespace) -> int:
    """Train, save the weights, evaluate them; the exit status."""
    trainer = Trainer(arguments.seed, arguments.batch, arguments.learning_rate, arguments.opponent)
    against = "itself" if arguments.opponent == SELF_PLAY else arguments.opponent
    print(f"training {FEATURE_COUNT} weights against {against}, seed {arguments.seed}")
    print("each report: the training hands since the last (mean reward in points, share")
    print("won, decisions a hand)")
    if arguments.eval_hands:
        print(
            f"then the trained policy against {', '.join(arguments.eval_against)} on\n"
            f"{arguments.eval_hands} hands each (mean reward in points, share won)"
        )
    started = time.perf_counter()
    window: list[HandPlayed] = []
    try:
        while trainer.optimizer.steps < arguments.iterations:
            if arguments.seconds is not None and time.perf_counter() - started >= arguments.seconds:
                print(f"time is up after {trainer.optimizer.steps} iterations", flush=True)
                break
            window.extend(trainer.iterate())
            steps = trainer.optimizer.steps
            if steps % arguments.report == 0 or steps == arguments.iterations:
                report(trainer, window, arguments, time.perf_counter() - started)
                window = []
    finally:
        trainer.close()
    if window:  # time was up between two lines
        report(trainer, window, arguments, time.perf_counter() - started)
    elapsed = time.perf_counter() - started
    try:
        save_weights(
            arguments.out,
            trainer.weights,
            seed=arguments.seed,
            iterations=trainer.optimizer.steps,
            opponent=arguments.opponent,
        )
    except OSError as error:
        print(f"train.py: cannot write {arguments.out}: {error}", file=sys.stderr)
        return 1
    print(
        f"trained {trainer.optimizer.steps} iterations ({trainer.hands} hands) in {elapsed:.0f} s"
    )
    print(f"wrote {arguments.out}")
    for name, weight in zip(FEATURE_NAMES, trainer.weights, strict=True):
        print(f"  {name:16s} {weight:+7.2f}")
    for opponent in arguments.eval_against if arguments.eval_games else ():
        outcomes = evaluate(
            trainer.weights,
            opponent,
            arguments.eval_games,
            "game",
            stream_seed(arguments.seed, EVAL_GAMES),
        )
        wins, losses = int(np.sum(outcomes > 0)), int(np.sum(outcomes < 0))
        print(
            f"against {opponent}: {wins} wins, {losses} losses, "
            f"{len(outcomes) - wins - losses} draws in {len(outcomes)} games "
            f"({wins / len(outcomes):.0%} won)"
        )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    arguments = parse_arguments(argv)
    try:
        return train(arguments)
    except (BotSpecError, OpponentError) as error:  # an --opponent or --eval-against bot
        print(f"train.py: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
