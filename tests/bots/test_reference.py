"""The reference bot: legal and deterministic whole games through the arena, its knock weighed
by rollouts within a step budget, and the rollouts themselves (legal, scored by the engine, the
bot's own continuation knocking only at its limit)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_search import CheckedHand, play_games

from bots import BUILTIN
from bots.greedy import GreedyBot
from bots.reference import DEFAULT_BUDGET, Patience, ReferenceBot, play_out, play_out_limits
from bots.search import SHOW_DOWN_STEPS, Effort
from bots.strong import StrongBot
from engine.hand import ActionKind, Hand
from engine.rules import HOYLE, PRESETS

QUICK = Effort(budget=10.0, worlds=8)
"""Few search worlds and a clock that never runs out: deterministic and quick."""
PATIENT = Patience(worlds=12)
"""Few knock worlds."""
SHORT = HOYLE.replace(game_target=40)
"""Hoyle rules, shorter games: the tests stay quick."""


def quick(seed: int, patience: Patience = PATIENT) -> ReferenceBot:
    return ReferenceBot(seed, QUICK, patience=patience, budget=10.0)


@pytest.mark.parametrize(
    "preset",
    [p if p == "hoyle" else pytest.param(p, marks=pytest.mark.slow) for p in sorted(PRESETS)],
)
def test_plays_whole_games_legally(preset: str) -> None:
    """An illegal action (a knock above the limit, a bad declared meld, the card just taken)
    would forfeit the game; play_games fails on any failure."""
    play_games(PRESETS[preset].replace(game_target=40), lambda: quick(1), StrongBot, [12])


def test_same_seed_same_games_and_another_seed_other_games() -> None:
    def run(seed: int) -> list[tuple[str, bytes]]:
        return play_games(SHORT, lambda: quick(seed), GreedyBot, [23])

    first = run(5)
    assert run(5) == first
    assert any(b"knock" in line for _, line in first)
    assert run(6) != first


def test_is_a_builtin_bot_with_its_default_budget() -> None:
    assert BUILTIN["reference"] == "bots.reference:ReferenceBot"
    bot = ReferenceBot()
    assert bot.budget == DEFAULT_BUDGET <= 0.5
    assert bot.effort == Effort()  # the search bot's draws and discards


class Counted(ReferenceBot):
    """Records the steps and worlds of every knock weighed."""

    def __init__(self, patience: Patience) -> None:
        super().__init__(3, QUICK, patience=patience, budget=10.0)
        self.weighed: list[tuple[int, int]] = []

    def knock_or_play_on(self, *args: object, **kwargs: object) -> tuple[float, float]:
        before = self.knock_worlds
        result = super().knock_or_play_on(*args, **kwargs)  # type: ignore[arg-type]
        self.weighed.append((self.knock_worlds - before, self.last_knock_steps))
        return result


def test_a_knock_is_weighed_within_its_step_budget() -> None:
    """The step budget, not the clock, ends the rollouts of a knock: it runs over by one world
    at most (a world's continuations, each at most a hand's actions and a show-down)."""
    patience = Patience(worlds=1000, steps=400)
    bot = Counted(patience)
    play_games(SHORT, lambda: bot, GreedyBot, [34])
    assert bot.weighed and bot.cut_short == 0
    one_world = 1 + len(patience.limits) * (2 * 50 + SHOW_DOWN_STEPS + 1)
    for worlds, steps in bot.weighed:
        assert 0 < worlds < patience.worlds
        assert patience.steps <= steps < patience.steps + one_world


def test_an_exhausted_clock_still_plays_legally() -> None:
    bot = ReferenceBot(4, Effort(budget=1e-9), budget=1e-9)
    play_games(SHORT, lambda: bot, GreedyBot, [45])
    assert bot.cut_short > 0 and bot.knock_worlds == 0


def test_without_rollouts_knocks_late_only_at_the_late_limit() -> None:
    """The cheap rule: short of gin, knocks only in the first turns, or at the late limit."""
    bot = Counted(Patience(rollouts=False, early_turns=1, late_limit=0))
    lines = play_games(SHORT, lambda: bot, GreedyBot, [56])
    assert not bot.weighed
    assert any(b"knock" in line for _, line in lines)


# -- the rollouts --------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    prefix=st.integers(0, 30),
    own_limit=st.integers(0, 10),
    preset=st.sampled_from(sorted(PRESETS)),
)
def test_play_out_is_legal_scored_by_the_engine_and_patient(
    seed: int, prefix: int, own_limit: int, preset: str
) -> None:
    """From any position of a real hand: every action legal (checked by the engine), the
    points the engine's, the steps the actions and a show-down, and the bot's own knocks only
    at its limit."""
    rules = PRESETS[preset]
    hand = CheckedHand(rules, dealer=seed % 2, seed=seed)
    for _ in range(prefix):  # a few moves of the hand first, by its first legal action
        if hand.is_over:
            return
        hand.apply(
            hand.legal_actions()[0]
            if hand.phase.value != "discard"
            else next(a for a in hand.legal_actions() if a.kind is ActionKind.DISCARD)
        )
    if hand.is_over:
        return
    me = (seed >> 1) % 2
    start = len(hand.history)
    points, steps = play_out(hand, me, own_limit)
    result = hand.result
    assert hand.is_over and result is not None
    shown = SHOW_DOWN_STEPS if result.winner is not None else 0
    assert steps == len(hand.history) - start + shown
    expected = 0 if result.winner is None else result.points
    assert points == (expected if result.winner in (me, None) else -expected)
    show_down = result.show_down
    if show_down is not None and show_down.knocker == me:
        assert show_down.knocker_deadwood <= own_limit


def test_play_out_stops_at_its_budget_unscored() -> None:
    for seed in range(20):
        whole = Hand(seed=seed)
        play_out(whole, 0, 0)
        n = len(whole.history)
        cut = Hand(seed=seed)
        assert play_out(cut, 0, 0, n - 1) == (0, n - 1)
        assert not cut.is_over


def test_a_patient_continuation_plays_on_where_an_eager_one_knocks() -> None:
    """Gin only (limit 0) plays longer hands than knocking at the first chance (limit 10), and
    its own knocks are gin."""
    eager = patient = 0
    for seed in range(40):
        a, b = Hand(seed=seed), Hand(seed=seed)
        play_out(a, 0, 10)
        play_out(b, 0, 0)
        eager += len(a.history)
        patient += len(b.history)
        show_down = b.result.show_down if b.result else None
        if show_down is not None and show_down.knocker == 0:
            assert show_down.knocker_deadwood == 0
    assert patient > eager


def test_runs_as_its_own_process() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bots.reference", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and "--budget" in done.stdout


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    prefix=st.integers(0, 30),
    limits=st.lists(st.integers(0, 10), min_size=1, max_size=4),
    preset=st.sampled_from(sorted(PRESETS)),
)
def test_play_out_limits_is_play_out_for_each_limit(
    seed: int, prefix: int, limits: list[int], preset: str
) -> None:
    hand = Hand(PRESETS[preset], dealer=seed % 2, seed=seed)
    for _ in range(prefix):
        if hand.is_over:
            return
        hand.apply(next(a for a in hand.legal_actions() if a.kind is not ActionKind.KNOCK))
    if hand.is_over:
        return
    me = (seed >> 1) % 2
    one_by_one = [play_out(hand.copy(), me, limit)[0] for limit in limits]
    together, steps = play_out_limits(hand.copy(), me, limits)
    assert together == one_by_one
    assert steps <= sum(play_out(hand.copy(), me, limit)[1] for limit in limits)


def test_reading_the_opponent_plays_legally_and_its_worlds_come_from_the_filter() -> None:
    """--read: the worlds' opponent hands are the forward filter's, a hand the bot drew since
    swapped out; whole games stay legal (play_games fails on any failure) and repeatable."""
    read = Patience(worlds=12, read=30, read_knock=True)
    made: list[ReferenceBot] = []

    def make() -> ReferenceBot:
        bot = quick(3, read)
        made.append(bot)
        return bot

    first = play_games(SHORT, make, GreedyBot, [31])
    assert made[0]._read is not None  # the filter was consulted
    assert play_games(SHORT, lambda: quick(3, read), GreedyBot, [31]) == first
    assert play_games(SHORT, lambda: quick(3), GreedyBot, [31]) != first
    with pytest.raises(ValueError, match="bad read"):
        Patience(read=-1)
