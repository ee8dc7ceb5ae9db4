"""Two-player Gin Rummy as a PettingZoo AEC environment, played by the engine itself.

Agents ``player_0`` and ``player_1`` are the game's players 0 and 1 (the first dealer is drawn
from the seed, R4). Observations are dicts of ``observation`` (the vector of
:mod:`bots.encoding`) and ``action_mask``; actions are the ids of :mod:`bots.encoding`. The rules
are any :class:`engine.rules.Rules` (a preset's name, or a preset with options changed).

An episode is a whole game to the target (R15, with the hand limit R22) or, with
``episode="hand"``, one hand. Rewards, with ``reward="points"`` (the default): when a hand ends,
its winner gets the points it scored and the loser as many negative; when a game ends, the
game's bonuses (R16) the same way, so an agent's rewards over a game add up to its final score
minus its opponent's. With ``reward="game"``: +1 for the winner of the episode (the game, or the
hand), -1 for the loser, 0 for both in a drawn one, given when it ends.

An action whose mask entry is 0 raises :class:`IllegalAction` (with the rule it breaks) in
:class:`raw_env`; in :func:`env` (``illegal="forfeit"``) the mover forfeits instead, as in the
arena: the episode ends, the mover's reward is ``-forfeit`` and its opponent's ``+forfeit``
(default: the target with points rewards, else 1), and ``info["forfeit"]`` says why. Both check
their calls themselves (no PettingZoo wrappers, which would cost more than the game's own step).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any, Final, Literal

try:
    import gymnasium
    import numpy as np
    import numpy.typing as npt
    from pettingzoo import AECEnv
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "arena.rl needs the reinforcement-learning extra: pip install 'gin-rummy-arena[rl]'"
    ) from error

from bots.encoding import (
    ACTION_COUNT,
    ACTIONS,
    OBSERVATION_SIZE,
    action_mask,
    describe,
    encode,
)
from engine.cards import format_cards
from engine.deck import SplitMix64
from engine.game import Game
from engine.hand import HandResult, IllegalAction, Phase
from engine.rules import Rules

Episode = Literal["game", "hand"]
Reward = Literal["points", "game"]
Illegal = Literal["raise", "forfeit"]

AGENTS: Final = ("player_0", "player_1")
_NO_ACTIONS: Final = np.zeros(ACTION_COUNT, dtype=np.int8)


def rules_of(rules: Rules | str, options: Mapping[str, Any] | None = None) -> Rules:
    """``rules`` (a preset's name or a :class:`Rules`) with ``options`` changed (option names
    as in docs/RULES.md; a :class:`engine.rules.RulesError` names a bad one)."""
    base = Rules.preset(rules) if isinstance(rules, str) else rules
    return base.replace(**dict(options)) if options else base


def observation_space() -> gymnasium.spaces.Dict:
    """The space of one agent's observations: the vector and the action mask."""
    return gymnasium.spaces.Dict(
        {
            "observation": gymnasium.spaces.Box(0.0, 1.0, (OBSERVATION_SIZE,), np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (ACTION_COUNT,), np.int8),
        }
    )


def check_choice(episode: str, reward: str) -> None:
    if episode not in ("game", "hand"):
        raise ValueError(f"bad episode {episode!r}: choose 'game' (to the target) or 'hand'")
    if reward not in ("points", "game"):
        raise ValueError(f"bad reward {reward!r}: choose 'points' or 'game' (+1/-1/0)")


class raw_env(AECEnv[str, dict[str, npt.NDArray[Any]], int]):  # type: ignore[misc]  # noqa: N801
    """The environment (see the module). ``illegal``: what an action the mask forbids does,
    ``"raise"`` :class:`IllegalAction` or ``"forfeit"`` the game (worth ``forfeit``)."""

    metadata: dict[str, Any] = {  # noqa: RUF012 - PettingZoo reads it from the class
        "name": "gin_rummy_arena_v0",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: Rules | str = "hoyle",
        *,
        options: Mapping[str, Any] | None = None,
        episode: Episode = "game",
        reward: Reward = "points",
        render_mode: str | None = None,
        illegal: Illegal = "raise",
        forfeit: float | None = None,
    ) -> None:
        super().__init__()
        check_choice(episode, reward)
        if render_mode not in (None, "human", "ansi"):
            raise ValueError(f"bad render_mode {render_mode!r}: choose 'human', 'ansi' or None")
        if illegal not in ("raise", "forfeit"):
            raise ValueError(f"bad illegal {illegal!r}: choose 'raise' or 'forfeit'")
        self.rules = rules_of(rules, options)
        self.episode = episode
        self.reward_kind = reward
        self.illegal = illegal
        if forfeit is None:
            forfeit = float(self.rules.game_target) if reward == "points" else 1.0
        self.forfeit = forfeit
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        space = observation_space()
        self.observation_spaces = dict.fromkeys(AGENTS, space)
        self.action_spaces = {a: gymnasium.spaces.Discrete(ACTION_COUNT) for a in AGENTS}
        self._seeds = SplitMix64(secrets.randbits(64))
        self.game: Game | None = None
        self._mask = _NO_ACTIONS
        self._views: dict[str, dict[str, npt.NDArray[Any]] | None] = {}
        self._last = ""

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.action_spaces[agent]

    # -- the episode -----------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game. With ``seed``, the game and every later one reset without a seed
        follow from it."""
        if seed is not None:
            self._seeds = SplitMix64(seed)
        self.game = Game(self.rules, self._seeds.next())
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {a: {"hand_number": 1} for a in AGENTS}
        self._last = "dealt"
        self._moved()

    def _moved(self) -> None:
        """After a deal or an action: the next mover and its mask; observations made afresh."""
        assert self.game is not None
        hand = self.game.hand
        self._views = dict.fromkeys(AGENTS, None)
        if hand.phase is Phase.FINISHED:
            self._mask = _NO_ACTIONS
            return
        self.agent_selection = AGENTS[hand.to_move]
        self._mask = action_mask(hand.legal_actions())

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        view = self._views.get(agent)
        if view is None:
            game = self.game
            if game is None:
                raise RuntimeError("the environment has no game yet: call reset() first")
            player = AGENTS.index(agent)
            mask = self._mask if agent == self.agent_selection else _NO_ACTIONS
            view = {
                "observation": encode(
                    game.hand.observation(player), game.scores, self.rules.game_target
                ),
                "action_mask": mask.copy(),
            }
            self._views[agent] = view
        return view

    def step(self, action: int | None) -> None:
        game = self.game
        if game is None:
            raise RuntimeError("the environment has no game yet: call reset() first")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        hand = game.hand
        if action is None or not 0 <= action < ACTION_COUNT:
            raise ValueError(f"bad action {action!r} for {agent}: ids are 0 to {ACTION_COUNT - 1}")
        if not self._mask[action]:
            error = self._illegal(agent, int(action))
            if self.illegal == "raise":
                raise error
            self._forfeited(agent, error)
            return
        self._cumulative_rewards[agent] = 0.0
        chosen_action = ACTIONS[action]
        hand.apply_unchecked(chosen_action)
        self._last = f"{agent}: {chosen_action}"
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        result = hand.result
        if result is not None:
            self._hand_over(game, result)
        self._moved()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _illegal(self, agent: str, action: int) -> IllegalAction:
        """Why ``action`` is illegal now: the engine's checked entry point names the rule."""
        assert self.game is not None
        legal = ", ".join(describe(int(a)) for a in np.flatnonzero(self._mask))
        try:
            self.game.hand.copy().apply(ACTIONS[action])
        except IllegalAction as error:
            return IllegalAction(
                error.rule,
                f"{agent} chose {describe(action)}: {error.reason}; legal: {legal}",
                ACTIONS[action],
            )
        raise RuntimeError(f"the mask forbids {describe(action)} but the engine allows it")

    def _forfeited(self, agent: str, error: IllegalAction) -> None:
        """``agent`` forfeits the game (an illegal action): the episode ends."""
        other = AGENTS[1 - AGENTS.index(agent)]
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {agent: -self.forfeit, other: self.forfeit}
        self.terminations = dict.fromkeys(AGENTS, True)
        forfeit = {"by": agent, "rule": error.rule, "message": error.reason}
        for each in AGENTS:
            self.infos[each]["forfeit"] = forfeit
        self._last = f"{agent} forfeits: {error}"
        self._mask = _NO_ACTIONS
        self._views = dict.fromkeys(AGENTS, None)
        self._accumulate_rewards()

    def _hand_over(self, game: Game, result: HandResult) -> None:
        before = game.scores[0] - game.scores[1]
        game.record(result)
        over = game.result is not None or self.episode == "hand"
        winner = result.winner
        for agent in AGENTS:
            self.infos[agent] = {
                "hand_number": game.hand_number,
                "hand_result": str(result),
                "scores": tuple(game.scores),
            }
        if self.reward_kind == "points":
            if game.result is not None:  # the final scores carry the game's bonuses
                change = game.result.scores[0] - game.result.scores[1] - before
            else:
                change = game.scores[0] - game.scores[1] - before
            self.rewards = {AGENTS[0]: float(change), AGENTS[1]: float(-change)}
        elif over:
            if self.episode == "game":
                assert game.result is not None
                winner = game.result.winner
            if winner is not None:
                self.rewards = {AGENTS[winner]: 1.0, AGENTS[1 - winner]: -1.0}
        if over:
            self.terminations = dict.fromkeys(AGENTS, True)
            if game.result is not None:
                for agent in AGENTS:
                    self.infos[agent]["game_result"] = str(game.result)
        else:
            game.next_hand()

    # -- display -----------------------------------------------------------------------------

    def render(self) -> str | None:
        """Both hands face up, the pile's top, the stock, the scores and the last action."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        game = self.game
        if game is None:
            text = "no game yet: call reset()"
        else:
            hand = game.hand
            pile = hand.pile
            lines = [
                f"hand {game.hand_number}, turn {hand.turn}, dealer player_{hand.dealer}, "
                f"scores {game.scores[0]}-{game.scores[1]} (target {self.rules.game_target})",
                *(
                    f"  player_{p}: {format_cards(hand.hands[p])}"
                    + ("  <- to move" if hand.to_move == p and not hand.is_over else "")
                    for p in (0, 1)
                ),
                f"  pile top {format_cards(1 << pile[-1]) if pile else '-'}, "
                f"{len(pile)} in the pile, stock {len(hand.stock)}",
                f"  last: {self._last}",
            ]
            if hand.result is not None:
                lines.append(f"  {hand.result}")
            text = "\n".join(lines)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self.game = None


def env(
    rules: Rules | str = "hoyle",
    *,
    options: Mapping[str, Any] | None = None,
    episode: Episode = "game",
    reward: Reward = "points",
    render_mode: str | None = None,
    forfeit: float | None = None,
) -> raw_env:
    """The environment to train in: an action the mask forbids forfeits the game (the mover's
    reward ``-forfeit``, its opponent's ``+forfeit``; by default the target with points rewards,
    else 1) instead of raising."""
    return raw_env(
        rules,
        options=options,
        episode=episode,
        reward=reward,
        render_mode=render_mode,
        illegal="forfeit",
        forfeit=forfeit,
    )


__all__ = ["AGENTS", "env", "observation_space", "raw_env", "rules_of"]
