"""arena.rl.single: Gymnasium's checker, rewards against the referee's scores, forfeits both
ways, seeds, abandoned episodes, and opponents as real bot processes (kept between episodes,
restarted after a failure, stopped on close)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")
gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402 - after the skip

from arena.play.referee import Clock  # noqa: E402
from arena.rl.single import OpponentError, SeatEnv  # noqa: E402
from arena.seats.botspec import BotSpec, Launch  # noqa: E402
from arena.seats.process import ProcessConnection  # noqa: E402
from bots.encoding import ACTIONS  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from arena_support import assert_gone, hostile  # noqa: E402 - the arena tests' helpers
from support import LONG, cli_env  # noqa: E402

CLOCK = Clock(move=2.0, startup=10.0)


def run_episode(env: Any, seed: int | None = None, pick: str = "random") -> tuple[float, dict]:
    """Play one episode with legal actions; the summed reward and the last info."""
    rng = np.random.default_rng(seed)
    observation, info = env.reset(seed=seed)
    total = 0.0
    while True:
        legal = np.flatnonzero(observation["action_mask"])
        assert (legal == np.flatnonzero(info["action_mask"])).all()
        action = legal[rng.integers(len(legal))] if pick == "random" else legal[0]
        observation, reward, terminated, truncated, info = env.step(action)
        total += reward
        assert not truncated
        if terminated:
            return total, info


@pytest.mark.filterwarnings("ignore:.*render fps")
@pytest.mark.filterwarnings("ignore:.*alternative render modes")
def test_gymnasium_check_env() -> None:
    env = SeatEnv("random", render_mode="ansi")
    check_env(env)
    env.close()


def test_registered_with_gymnasium() -> None:
    import arena.rl  # noqa: F401 - registers the environment

    env = gymnasium.make("gin_rummy_arena/Seat-v0", opponent="greedy", episode="hand")
    observation, _ = env.reset(seed=1)
    assert observation["observation"].shape == (269,)
    env.close()


MAKE_AFTER_IMPORT_GYMNASIUM_ALONE = """
import sys
import gymnasium

env = gymnasium.make("arena.rl:gin_rummy_arena/Seat-v0", opponent="greedy", episode="hand")
observation, _ = env.reset(seed=1)
print(env.spec.id, observation["observation"].shape, env.unwrapped.opponent.name)
env.close()
again = gymnasium.make("gin_rummy_arena/Seat-v0")  # registered now, by the first make
print(type(again.unwrapped).__name__)
"""


def test_gymnasium_make_works_after_import_gymnasium_alone(tmp_path: Path) -> None:
    """A fresh interpreter, run outside the checkout, imports nothing of ours before
    ``gymnasium.make``: the id names its module (Gymnasium 1.x has no entry-point plugins)."""
    done = subprocess.run(
        [sys.executable, "-c", MAKE_AFTER_IMPORT_GYMNASIUM_ALONE],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=cli_env(),
        timeout=LONG,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == [
        "gin_rummy_arena/Seat-v0 (269,) greedy",
        "SeatEnv",
    ]


@pytest.mark.parametrize("seat", [0, 1])
def test_points_rewards_add_up_to_the_final_margin(seat: int) -> None:
    env = SeatEnv("greedy", seat=seat)
    for seed in range(3):
        total, info = run_episode(env, seed)
        assert info["seat"] == seat and info["reason"] == "normal"
        scores = info["scores"]
        assert total == scores[seat] - scores[1 - seat]
        assert info["winner"] in (0, 1)
    env.close()


def test_game_rewards_and_hand_episodes() -> None:
    env = SeatEnv("greedy", reward="game")
    total, info = run_episode(env, 4)
    assert total == (1.0 if info["winner"] == info["seat"] else -1.0)
    env.close()
    env = SeatEnv("random", episode="hand")
    for seed in range(5):
        total, info = run_episode(env, seed)
        assert info["hand_number"] == 1
        seat, scores = info["seat"], info["scores"]
        assert total == scores[seat] - scores[1 - seat]
    env.close()


def test_same_seed_same_episode_and_seats_drawn_from_it() -> None:
    env = SeatEnv("greedy")
    first = run_episode(env, 9)
    again = run_episode(env, 9)
    assert first[0] == again[0] and first[1]["scores"] == again[1]["scores"]
    seats = set()
    for seed in range(12):
        _, info = env.reset(seed=seed)
        seats.add(info["seat"])
    assert seats == {0, 1}
    env.close()


def test_an_illegal_action_forfeits_with_the_rule() -> None:
    env = SeatEnv("greedy", seat=0)
    observation, info = env.reset(seed=2)
    forbidden = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    observation, reward, terminated, _, info = env.step(forbidden)
    assert terminated and reward == -100.0
    assert not observation["action_mask"].any()
    assert info["forfeit"]["by"] == "learner" and info["forfeit"]["reason"] == "illegal"
    assert info["forfeit"]["rule"] in ("R6", "R7")
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    with pytest.raises(ValueError, match="0 to 107"):
        env.reset(seed=2)
        env.step(108)
    env.close()


def test_reset_and_close_in_mid_game_leave_no_thread() -> None:
    import threading

    env = SeatEnv("greedy")
    for seed in range(3):
        observation, _ = env.reset(seed=seed)
        env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    env.close()
    env.close()
    assert not [t for t in threading.enumerate() if t.name == "gin-arena-rl-referee"]


def test_a_process_opponent_is_kept_between_episodes_and_stopped_on_close() -> None:
    spec = BotSpec("greedy", builtin="greedy")
    env = SeatEnv(spec, launch=Launch(in_process=False), clock=CLOCK)
    run_episode(env, 1, pick="first")
    opponent = env._opponent
    assert isinstance(opponent, ProcessConnection)
    pid = opponent.pid
    run_episode(env, 2, pick="first")
    assert env._opponent is opponent and opponent.pid == pid
    env.close()
    assert env._opponent is None and pid is not None
    assert_gone([pid])


def test_an_opponent_that_crashes_loses_and_is_restarted() -> None:
    crash = BotSpec("crash", hostile("crash.py"))
    env = SeatEnv(crash, seat=1, clock=CLOCK, launch=Launch(sandbox=None))
    observation, _ = env.reset(seed=1)
    total = 0.0
    while True:
        action = int(np.flatnonzero(observation["action_mask"])[0])
        observation, reward, terminated, _, info = env.step(action)
        total += reward
        if terminated:
            break
    assert info["forfeit"]["by"] == "opponent" and info["forfeit"]["reason"] == "crash"
    assert reward == 100.0
    observation, _ = env.reset()  # a fresh process
    assert observation["action_mask"].any()
    env.close()


def test_an_opponent_that_cannot_start_is_an_error_naming_it() -> None:
    env = SeatEnv(BotSpec("gone", (sys.executable, "-c", "import sys; sys.exit(3)")), clock=CLOCK)
    with pytest.raises(OpponentError, match="'gone' could not start"):
        env.reset(seed=1)
    env.close()
    with pytest.raises(ValueError, match="seat"):
        SeatEnv(seat=2)


def test_actions_reach_the_referee_as_chosen() -> None:
    env = SeatEnv("greedy", seat=0, render_mode="ansi")
    observation, _ = env.reset(seed=3)
    text = env.render()
    assert text is not None and "hand:" in text and "legal:" in text
    action = int(np.flatnonzero(observation["action_mask"])[-1])
    decision = env._decision
    assert decision is not None and ACTIONS[action] in decision.legal
    env.step(np.int64(action))
    env.close()
