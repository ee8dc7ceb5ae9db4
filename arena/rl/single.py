"""One seat of a two-player game against an arena bot, as a Gymnasium environment.

The opponent is any bot the arena runs (a built-in bot's name, a command line, a
:class:`arena.seats.botspec.BotSpec`), and the game is played by the arena's own referee: the
opponent's moves are timed, checked and judged as in ``gin-arena match``, and so are the
learner's. The referee runs in a thread of its own; the learner's seat is a connection that hands
each decision to :meth:`SeatEnv.step` and waits for its action (the learner is not on a clock).

Observations and actions are those of :mod:`bots.encoding` (the same dict of ``observation`` and
``action_mask`` as :mod:`arena.rl.aec`). An action the mask forbids is played all the same: the
referee finds it illegal and the learner forfeits the game, as any bot would (the episode ends
with the forfeit's reward, ``info["forfeit"]`` says why). Rewards are as in :mod:`arena.rl.aec`:
``points`` (the hand's points, signed, as each hand ends, and the game's bonuses at its end) or
``game`` (+1/-1/0 at the end); a forfeit is minus the target (``points``) or -1, and a game the
opponent forfeits the opposite.

A built-in opponent is started afresh (in this process) for every episode, so that an episode
follows from its seed alone; a bot process is kept from episode to episode (the protocol plays
many games in one process) and restarted only after it failed.
"""

from __future__ import annotations

import queue
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

try:
    import gymnasium
    import numpy as np
    import numpy.typing as npt
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "arena.rl needs the reinforcement-learning extra: pip install 'gin-rummy-arena[rl]'"
    ) from error

from arena.errors import ArenaError
from arena.play.match import log_tail
from arena.play.referee import Clock, GameOutcome, Referee
from arena.rl.aec import Episode, Reward, check_choice, observation_space, rules_of
from arena.seats.botspec import BotSpec, Launch, resolve
from arena.seats.connection import BotCrashed, BotError, Connection
from bots.encoding import ACTION_COUNT, ACTIONS, action_mask, describe, encode
from engine.cards import format_cards
from engine.deck import SplitMix64
from engine.game import GameResult
from engine.hand import Action as EngineAction
from engine.rules import Rules
from protocol import messages as m
from protocol.views import Decision

LEARNER: Final = "learner"
OPPONENT_RETRIES: Final = 3
"""Games in a row the opponent may lose by failing before the learner's first decision."""


class OpponentError(ArenaError, RuntimeError):
    """The opponent cannot play: it does not start, or it fails before the learner can move."""


_Event = tuple[str, Any]


class _LearnerSeat(Connection):
    """The learner's seat, as the referee sees it: each decision goes to the environment's
    thread, which answers with an action id (or ``None``: the episode is abandoned)."""

    def __init__(self, seat: int, reward: Reward) -> None:
        self.name = LEARNER
        self.seat = seat
        self.reward_kind = reward
        self.decisions: queue.SimpleQueue[_Event] = queue.SimpleQueue()
        self.actions: queue.SimpleQueue[int | None] = queue.SimpleQueue()
        self.reward = 0.0
        self.margin = 0  # own score minus the opponent's, as the hands ended
        self.hand_number = 1

    def start(self, hello: m.Hello, timeout: float) -> m.Ready:
        return m.Ready(type="ready", protocol_version=m.PROTOCOL_VERSIONS[-1], name=LEARNER)

    def heeds(self, kind: str) -> bool:
        return kind in ("hand_end", "hand_start")

    def send(self, message: m.Message) -> None:
        if isinstance(message, m.HandStart):
            self.hand_number = message.hand_number
        elif isinstance(message, m.HandEnd) and self.reward_kind == "points":
            margin = message.scores[self.seat] - message.scores[1 - self.seat]
            self.reward += margin - self.margin
            self.margin = margin

    def ask(self, request: m.Request, timeout: float) -> tuple[m.Reply, float]:
        raise NotImplementedError("the learner's seat is asked through decide()")

    def decide(self, decision: Decision) -> tuple[EngineAction, float]:
        self.decisions.put(("decide", decision))
        action = self.actions.get()
        if action is None:
            raise BotCrashed("the episode was abandoned before the game's end", self.name)
        return ACTIONS[action], 0.0

    def close(self) -> None:
        pass


class SeatEnv(gymnasium.Env[dict[str, Any], Any]):
    """The learner plays seat ``seat`` (0 or 1; ``None``: drawn from the seed every episode)
    against ``opponent`` under ``rules``. ``clock`` is the opponent's time control; ``launch``
    how its process is run (in this process for built-in bots by default)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"]}  # noqa: RUF012 - read by gymnasium

    def __init__(
        self,
        opponent: str | BotSpec = "random",
        rules: Rules | str = "hoyle",
        *,
        options: Mapping[str, Any] | None = None,
        seat: int | None = None,
        episode: Episode = "game",
        reward: Reward = "points",
        clock: Clock | None = None,
        launch: Launch | None = None,
        render_mode: str | None = None,
    ) -> None:
        check_choice(episode, reward)
        if seat not in (None, 0, 1):
            raise ValueError(f"bad seat {seat!r}: 0, 1 or None (drawn every episode)")
        if render_mode not in (None, "human", "ansi"):
            raise ValueError(f"bad render_mode {render_mode!r}: choose 'human', 'ansi' or None")
        self.rules = rules_of(rules, options)
        self.opponent = resolve(opponent) if isinstance(opponent, str) else opponent
        self.fixed_seat = seat
        self.episode = episode
        self.reward_kind = reward
        self.clock = clock or Clock()
        self.launch = launch or Launch()
        self.render_mode = render_mode
        self.observation_space = observation_space()
        self.action_space = gymnasium.spaces.Discrete(ACTION_COUNT)
        self._workdir: tempfile.TemporaryDirectory[str] | None = None
        self._opponent: Connection | None = None
        self._learner: _LearnerSeat | None = None
        self._thread: threading.Thread | None = None
        self._seeds: SplitMix64 | None = None
        self._decision: Decision | None = None
        self._observation: npt.NDArray[np.float32] | None = None
        self._last_outcome: GameOutcome | None = None

    # -- the opponent ------------------------------------------------------------------------

    def _connect(self, seat: int) -> Connection:
        """The opponent, started (kept from the last episode when it is a process that did not
        fail)."""
        if self._opponent is not None and not self._is_builtin_in_process():
            return self._opponent
        self._close_opponent()
        if self._workdir is None:
            self._workdir = tempfile.TemporaryDirectory(prefix="gin-arena-rl-")
        connection = self.opponent.connect(Path(self._workdir.name), self.launch)
        referee = Referee(self.rules, self.clock)
        try:
            connection.start(referee.hello(1 - seat, LEARNER), self.clock.startup)
        except BotError as error:
            connection.close()
            log = log_tail(connection.log_path, kept=False)
            raise OpponentError(
                f"the opponent {self.opponent.name!r} could not start: {error.detail}{log}"
            ) from None
        self._opponent = connection
        return connection

    def _is_builtin_in_process(self) -> bool:
        return self.opponent.builtin is not None and self.launch.in_process

    def _close_opponent(self) -> None:
        if self._opponent is not None:
            self._opponent.close()
            self._opponent = None

    # -- episodes ----------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start a new game (abandoning one in play, which the learner forfeits). With ``seed``,
        this episode and every later one reset without a seed follow from it."""
        super().reset(seed=seed)
        self._abandon()
        if seed is not None or self._seeds is None:
            self._seeds = SplitMix64(int(self.np_random.integers(2**63)))
        failures: list[str] = []
        for _ in range(OPPONENT_RETRIES):
            game_seed = self._seeds.next()
            seat = self.fixed_seat if self.fixed_seat is not None else int(game_seed >> 63)
            self._start_game(seat, game_seed)
            kind, value = self._next_event()
            if kind == "decide":
                return self._observe(value), self._info()
            outcome: GameOutcome = value
            failures.append(
                outcome.failure.message if outcome.failure else outcome.error or outcome.reason
            )
        raise OpponentError(
            f"the opponent {self.opponent.name!r} failed before the learner's first move in "
            f"{OPPONENT_RETRIES} games in a row; the last: {failures[-1]}"
        )

    def _start_game(self, seat: int, game_seed: int) -> None:
        opponent = self._connect(seat)
        learner = _LearnerSeat(seat, self.reward_kind)
        self._learner = learner
        seats = [learner, opponent] if seat == 0 else [opponent, learner]
        referee = Referee(self.rules, self.clock)

        def play() -> None:
            try:
                outcome = referee.play_game(seats, game_seed, single_hand=self.episode == "hand")
            except BaseException as error:  # handed to the environment's thread, raised there
                learner.decisions.put(("error", error))
            else:
                learner.decisions.put(("end", outcome))

        self._thread = threading.Thread(target=play, name="gin-arena-rl-referee", daemon=True)
        self._thread.start()

    def _next_event(self) -> _Event:
        assert self._learner is not None
        kind, value = self._learner.decisions.get()
        if kind == "error":
            self._thread = None
            raise RuntimeError(f"the referee failed: {value}") from value
        if kind == "end":
            assert self._thread is not None
            self._thread.join()
            self._thread = None
            self._last_outcome = value
            if value.failure is not None and value.failure.seat != self._learner.seat:
                self._close_opponent()  # restarted for the next episode
        else:
            self._decision = value
        return kind, value

    def step(self, action: int) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        learner = self._learner
        if learner is None or self._thread is None:
            raise RuntimeError("no game in play: call reset() first (and again after its end)")
        try:
            index = int(action)
        except (TypeError, ValueError):
            raise ValueError(f"bad action {action!r}: an action id is an int") from None
        if index != action or not 0 <= index < ACTION_COUNT:
            raise ValueError(f"bad action {action!r}: action ids are 0 to {ACTION_COUNT - 1}")
        learner.actions.put(index)
        kind, value = self._next_event()
        reward = learner.reward
        learner.reward = 0.0
        if kind == "decide":
            return self._observe(value), reward, False, False, self._info()
        outcome: GameOutcome = value
        reward += self._final_reward(learner, outcome)
        assert self._observation is not None
        final = {
            "observation": self._observation.copy(),
            "action_mask": np.zeros(ACTION_COUNT, dtype=np.int8),
        }
        info = self._info(outcome)
        return final, reward, True, False, info

    def _final_reward(self, learner: _LearnerSeat, outcome: GameOutcome) -> float:
        seat = learner.seat
        if outcome.failure is not None:
            sign = -1.0 if outcome.failure.seat == seat else 1.0
            return sign * (self.rules.game_target if self.reward_kind == "points" else 1.0)
        if self.reward_kind == "game":
            if outcome.winner is None:
                return 0.0
            return 1.0 if outcome.winner == seat else -1.0
        result = outcome.result
        if isinstance(result, GameResult):  # the game's bonuses, on top of the hands' points
            return float(result.scores[seat] - result.scores[1 - seat] - learner.margin)
        return 0.0

    def _observe(self, decision: Decision) -> dict[str, npt.NDArray[Any]]:
        self._observation = encode(decision.seen, decision.scores, decision.target)
        return {"observation": self._observation, "action_mask": action_mask(decision.legal)}

    def _mask(self) -> npt.NDArray[np.int8]:
        if self._decision is None:
            return np.zeros(ACTION_COUNT, dtype=np.int8)
        return action_mask(self._decision.legal)

    def _info(self, outcome: GameOutcome | None = None) -> dict[str, Any]:
        learner = self._learner
        assert learner is not None
        info: dict[str, Any] = {"seat": learner.seat, "hand_number": learner.hand_number}
        if outcome is None:
            decision = self._decision
            assert decision is not None
            info["action_mask"] = action_mask(decision.legal)
            info["scores"] = tuple(decision.scores)
            return info
        info["winner"] = outcome.winner
        info["scores"] = outcome.scores
        info["reason"] = outcome.reason
        if outcome.failure is not None:
            info["forfeit"] = {
                "by": LEARNER if outcome.failure.seat == learner.seat else "opponent",
                "reason": outcome.failure.reason,
                "message": outcome.failure.message,
                "rule": outcome.failure.rule,
            }
        return info

    def _abandon(self) -> None:
        """Stop a game in play: the learner's seat answers its pending decision with nothing
        (a forfeit), and the referee's thread ends."""
        learner, thread = self._learner, self._thread
        if learner is None or thread is None:
            return
        learner.actions.put(None)
        while True:
            kind, _ = self._next_event()
            if kind != "decide":
                break
            learner.actions.put(None)
        self._close_opponent()  # it saw a forfeit mid-game: start it afresh

    # -- display -----------------------------------------------------------------------------

    def render(self) -> str | None:
        """The learner's view: its hand, the pile's top, the stock, the scores, the legal moves."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        decision = self._decision
        if decision is None:
            text = "no game yet: call reset()"
        else:
            seen = decision.seen
            pile = seen.discard_pile
            text = "\n".join(
                [
                    f"seat {seen.player}, {seen.phase.value}, turn {seen.turn}, scores "
                    f"{decision.scores[0]}-{decision.scores[1]} (target {decision.target})",
                    f"  hand: {format_cards(seen.hand)}",
                    f"  pile top {format_cards(1 << pile[-1]) if pile else '-'}, "
                    f"stock {seen.stock_size}, opponent known: {format_cards(seen.opponent_known)}",
                    "  legal: " + ", ".join(describe(int(a)) for a in np.flatnonzero(self._mask())),
                ]
            )
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Forfeit a game in play, stop the opponent and remove its scratch directory."""
        self._abandon()
        self._learner = None
        self._close_opponent()
        if self._workdir is not None:
            self._workdir.cleanup()
            self._workdir = None


__all__ = ["OpponentError", "SeatEnv"]
