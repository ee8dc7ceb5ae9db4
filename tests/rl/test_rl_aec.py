"""arena.rl.aec: PettingZoo's API and seed tests, the rewards against the engine's scores, the
episode kinds, illegal actions with their rule, and the same games as the arena's referee."""

from __future__ import annotations

from typing import Any

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test  # noqa: E402 - after the skip

from arena.play.referee import Referee  # noqa: E402
from arena.rl.aec import AGENTS, env, raw_env  # noqa: E402
from arena.seats.connection import InProcessConnection  # noqa: E402
from bots.encoding import ACTIONS, encode  # noqa: E402
from bots.policy import PolicyBot  # noqa: E402
from engine import PRESETS, IllegalAction, Rules  # noqa: E402
from engine.deck import SplitMix64  # noqa: E402


# Both warnings are about dict observations (the observation and its action mask), the form
# PettingZoo's own card games use.
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.parametrize("episode", ["game", "hand"])
@pytest.mark.parametrize("reward", ["points", "game"])
def test_pettingzoo_api_and_seed_tests(episode: Any, reward: Any) -> None:
    api_test(env(episode=episode, reward=reward), num_cycles=300)
    api_test(raw_env(episode=episode, reward=reward), num_cycles=100)
    seed_test(lambda: env(episode=episode, reward=reward), num_cycles=300)


def play(aec: Any, seed: int, choose: Any = None) -> dict[str, float]:
    """Play one episode with ``choose(observation, mask, rng)`` (default uniform); the rewards
    each agent received, summed."""
    rng = np.random.default_rng(seed)
    aec.reset(seed=seed)
    totals = dict.fromkeys(AGENTS, 0.0)
    for agent in aec.agent_iter():
        observation, reward, terminated, truncated, _ = aec.last()
        totals[agent] += reward
        if terminated or truncated:
            aec.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        if choose is None:
            aec.step(int(legal[rng.integers(len(legal))]))
        else:
            aec.step(choose(observation["observation"], observation["action_mask"], rng))
    return totals


@pytest.mark.parametrize("preset", list(PRESETS))
def test_points_rewards_add_up_to_the_final_score_margin(preset: str) -> None:
    aec = raw_env(preset)
    for seed in range(6):
        totals = play(aec, seed)
        game = aec.game
        assert game is not None and game.result is not None
        a, b = game.result.scores
        assert totals == {"player_0": a - b, "player_1": b - a}


def test_game_rewards_are_one_for_the_winner() -> None:
    aec = raw_env(reward="game")
    for seed in range(4):
        totals = play(aec, seed)
        game = aec.game
        assert game is not None and game.result is not None
        winner = game.result.winner
        expected = dict.fromkeys(AGENTS, 0.0)
        if winner is not None:
            expected = {AGENTS[winner]: 1.0, AGENTS[1 - winner]: -1.0}
        assert totals == expected


def test_a_hand_episode_ends_with_the_hand_and_pays_its_points() -> None:
    aec = raw_env(episode="hand")
    for seed in range(10):
        totals = play(aec, seed)
        game = aec.game
        assert game is not None and len(game.results) == 1
        result = game.results[0]
        if result.winner is None:
            assert totals == dict.fromkeys(AGENTS, 0.0)
        else:
            assert totals[AGENTS[result.winner]] == result.points
            assert totals[AGENTS[1 - result.winner]] == -result.points


def test_an_illegal_action_names_its_rule_or_forfeits() -> None:
    aec = raw_env()
    aec.reset(seed=3)
    mover = aec.agent_selection
    observation = aec.observe(mover)
    forbidden = int(np.flatnonzero(observation["action_mask"] == 0)[0])  # a discard, before a draw
    with pytest.raises(IllegalAction) as raised:
        aec.step(forbidden)
    assert raised.value.rule == "R6"
    assert "legal: " in str(raised.value)
    with pytest.raises(ValueError, match="ids are 0 to 107"):
        aec.step(500)

    for reward, worth in (("points", 100.0), ("game", 1.0)):
        training = env(reward=reward)
        training.reset(seed=3)
        mover = training.agent_selection
        other = AGENTS[1 - AGENTS.index(mover)]
        training.step(forbidden)
        assert all(training.terminations.values())
        assert training.rewards == {mover: -worth, other: worth}
        assert training.infos[other]["forfeit"]["rule"] == "R6"
        assert not training.observe(mover)["action_mask"].any()
        totals = dict.fromkeys(AGENTS, 0.0)
        for agent in training.agent_iter():
            totals[agent] += training.last()[1]
            training.step(None)
        assert totals == {mover: -worth, other: worth}
    assert env(forfeit=7.5).forfeit == 7.5
    with pytest.raises(RuntimeError, match="reset"):
        env().step(0)


def test_discarding_the_card_just_taken_is_r8() -> None:
    aec = raw_env()
    aec.reset(seed=11)
    game = aec.game
    assert game is not None
    upcard = game.hand.pile[-1]
    aec.step(105)  # take the first upcard
    with pytest.raises(IllegalAction) as raised:
        aec.step(upcard)
    assert raised.value.rule == "R8"


def test_observations_are_the_mover_s_own_with_its_mask() -> None:
    aec = raw_env()
    aec.reset(seed=5)
    game = aec.game
    assert game is not None
    for _ in range(30):
        mover = aec.agent_selection
        other = AGENTS[1 - AGENTS.index(mover)]
        seen = aec.observe(mover)
        player = AGENTS.index(mover)
        expected = encode(game.hand.observation(player), game.scores, 100)
        assert (seen["observation"] == expected).all()
        assert {ACTIONS[i] for i in np.flatnonzero(seen["action_mask"])} == set(
            game.hand.legal_actions()
        )
        assert not aec.observe(other)["action_mask"].any()
        aec.step(int(np.flatnonzero(seen["action_mask"])[-1]))


def test_render_shows_both_hands_and_bad_settings_are_refused() -> None:
    aec = raw_env(render_mode="ansi")
    aec.reset(seed=7)
    text = aec.render()
    assert text is not None and "player_0:" in text and "player_1:" in text and "stock 31" in text
    with pytest.raises(ValueError, match="episode"):
        raw_env(episode="match")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="reward"):
        raw_env(reward="elo")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown rules preset"):
        raw_env("nope")
    with pytest.raises(ValueError, match="knock_limit"):
        raw_env(options={"knock_limit": 99})


def chooser(observation: Any, mask: Any) -> int:
    """A deterministic policy that depends on the whole observation: equal observations, equal
    choices, and different ones spread over the legal actions."""
    legal = np.flatnonzero(mask)
    digest = int(observation.sum() * 1000) + int(observation[:52] @ np.arange(52))
    return int(legal[digest % len(legal)])


@pytest.mark.parametrize("seed", [1, 2])
def test_the_environment_plays_the_referees_game(seed: int) -> None:
    """The same policy in both seats: in the environment and through the referee (as in-process
    policy bots), the same observations, the same actions and the same final scores."""
    seen_in_env: list[bytes] = []

    def in_env(observation: Any, mask: Any, rng: Any) -> int:
        seen_in_env.append(observation.tobytes() + mask.tobytes())
        return chooser(observation, mask)

    aec = raw_env()
    play(aec, seed, in_env)
    assert aec.game is not None and aec.game.result is not None

    seen_by_bots: list[bytes] = []

    def as_bot(observation: Any, mask: Any) -> int:
        seen_by_bots.append(observation.tobytes() + mask.tobytes())
        return chooser(observation, mask)

    connections = [InProcessConnection(f"p{i}", lambda: PolicyBot(as_bot)) for i in (0, 1)]
    referee = Referee(Rules())
    for seat, connection in enumerate(connections):
        connection.start(referee.hello(seat, f"p{1 - seat}"), 5.0)
    game_seed = SplitMix64(seed).next()  # the environment's first game from its seed
    outcome = referee.play_game(connections, game_seed)
    assert outcome.failure is None
    assert outcome.scores == aec.game.result.scores
    assert len(seen_by_bots) > 50
    assert seen_by_bots == seen_in_env
