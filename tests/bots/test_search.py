"""The search bot: legal and deterministic play under every preset, the worlds it deals (only
public facts kept), its rollouts (legal, scored by the engine, cut at the horizon), its budget
(steps, and the wall clock it keeps by itself), its options, and its process."""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Callable, Sequence

import pytest
from support import COMMAND
from test_strong import OTHER, Table, deal, table_with_upcard

from arena.play.match import Match
from arena.play.referee import Referee
from arena.seats import wire
from arena.seats.botspec import resolve
from arena.seats.connection import InProcessConnection
from bots import strong
from bots.greedy import GreedyBot
from bots.random import RandomBot
from bots.sdk import Bot, View
from bots.search import SHOW_DOWN_STEPS, STEPS_PER_SECOND, Effort, SearchBot, highest, rollout
from bots.strong import KEPT_AT_LEAST, StrongBot
from engine.cards import FULL_DECK, VALUES, parse_card, parse_cards
from engine.hand import DRAW_DISCARD, DRAW_STOCK, PASS, Action, ActionKind, Hand
from engine.rules import HOYLE, PRESETS, Rules

QUICK = Effort(budget=10.0, worlds=12)
"""Few worlds and a clock that never runs out: deterministic, and quick enough for the default
run."""


def play_games(
    rules: Rules, make: Callable[[], Bot], other: Callable[[], Bot], seeds: Sequence[int]
) -> list[tuple[str, bytes]]:
    """Whole games of ``make`` (named "search") against ``other``, seats alternating; every
    failure fails the test. The wire, as (bot, line), for comparing runs, ending with a
    ("winner", name) line per game."""
    referee = Referee(rules, ids=random.Random(0))
    first, second = InProcessConnection("search", make), InProcessConnection("other", other)
    winners: list[bytes] = []
    with wire.tap() as lines:
        first.start(referee.hello(0, "other"), 1.0)
        second.start(referee.hello(1, "search"), 1.0)
        for number, seed in enumerate(seeds, start=1):
            seats = [first, second] if number % 2 else [second, first]
            outcome = referee.play_game(seats, seed, number=number)
            assert outcome.failure is None, outcome.failure
            assert outcome.winner is not None
            winners.append(seats[outcome.winner].name.encode())
    return [(line.bot, line.line) for line in lines] + [("winner", w) for w in winners]


@pytest.mark.parametrize(
    "preset",
    [p if p == "hoyle" else pytest.param(p, marks=pytest.mark.slow) for p in sorted(PRESETS)],
)
def test_plays_whole_games_legally_under_every_preset(preset: str) -> None:
    """A discard of the card just taken (R8), a knock above the limit (R9, R18), a bad declared
    meld or a missed big gin would forfeit the game; play_games fails on any failure."""
    play_games(PRESETS[preset], lambda: SearchBot(1, QUICK), GreedyBot, [11])


def test_discards_the_card_just_taken_only_when_the_rules_allow() -> None:
    rules = HOYLE.replace(discard_taken_card=True)
    play_games(rules, lambda: SearchBot(2, QUICK), StrongBot, [3])


def test_same_seed_same_games_and_another_seed_other_games() -> None:
    def run(seed: int) -> list[tuple[str, bytes]]:
        return play_games(HOYLE, lambda: SearchBot(seed, QUICK), GreedyBot, [22])

    first = run(5)
    assert run(5) == first
    assert any(b"knock" in line for _, line in first)
    assert run(6) != first


def test_beats_random() -> None:
    lines = play_games(HOYLE, lambda: SearchBot(3, QUICK), RandomBot, [4, 5, 6])
    assert [w for bot, w in lines if bot == "winner"] == [b"search"] * 3


# -- the worlds ----------------------------------------------------------------------------------


class Recorder(SearchBot):
    """A search bot that keeps the views it searched and the worlds it dealt."""

    def __init__(self, effort: Effort = QUICK) -> None:
        super().__init__(7, effort)
        self.dealt: list[tuple[View, Hand]] = []

    def world(self, view: View, odds: Sequence[float], unseen: int) -> Hand:
        hand = super().world(view, odds, unseen)
        self.dealt.append((view, hand.copy()))
        return hand


def test_every_world_keeps_what_the_bot_has_seen_and_deals_only_the_unseen_cards() -> None:
    recorder = Recorder()
    play_games(HOYLE, lambda: recorder, StrongBot, [31])
    assert len(recorder.dealt) > 50
    opponents = set()
    for view, world in recorder.dealt:
        seen = view.seen
        assert world.observation(seen.player) == seen
        assert world.cards_in_play() == FULL_DECK
        opponent = world.hands[1 - seen.player]
        assert opponent & seen.opponent_known == seen.opponent_known
        opponents.add((seen, opponent))
    # The hidden cards are dealt anew each time: many different opponent hands per position.
    positions = {seen for seen, _ in opponents}
    assert len(opponents) > 3 * len(positions)


@pytest.mark.slow
def test_worlds_come_from_the_bots_seed_alone() -> None:
    first, second = Recorder(), Recorder()
    play_games(HOYLE, lambda: first, GreedyBot, [41])
    play_games(HOYLE, lambda: second, GreedyBot, [41])
    assert [w.hands for _, w in first.dealt] == [w.hands for _, w in second.dealt]
    assert [w.stock for _, w in first.dealt] == [w.stock for _, w in second.dealt]


# -- the rollouts --------------------------------------------------------------------------------


class CheckedHand(Hand):
    """A hand whose unchecked entry point checks anyway: a rollout's illegal action raises."""

    __slots__ = ()

    def apply_unchecked(self, action: Action) -> None:
        self._check(action)
        Hand.apply_unchecked(self, action)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_rollouts_play_legal_actions_to_the_engines_score(preset: str) -> None:
    rules = PRESETS[preset]
    for seed in range(60):
        hand = CheckedHand(rules, dealer=seed % 2, seed=seed)
        me = seed % 2
        points, steps = rollout(hand, me)
        result = hand.result
        assert hand.is_over and result is not None
        shown = SHOW_DOWN_STEPS if result.winner is not None else 0
        assert steps == len(hand.history) + shown
        expected = 0 if result.winner is None else result.points
        assert points == (expected if result.winner in (me, None) else -expected)


def test_a_rollout_stops_at_its_limit_unscored() -> None:
    for seed in range(30):
        whole = Hand(seed=seed)
        points, steps = rollout(whole, 0)
        n = len(whole.history)
        cut = Hand(seed=seed)
        assert rollout(cut, 0, n - 1) == (0, n - 1)
        assert not cut.is_over and cut.history == whole.history[: n - 1]
        assert rollout(Hand(seed=seed), 0, n) == (points, steps)


def test_highest_prefers_value_then_rank_then_suit() -> None:
    assert highest(int(parse_cards("TC JD 9S"))) == parse_card("JD")
    assert highest(int(parse_cards("KC KS"))) == parse_card("KS")
    assert VALUES[highest(int(parse_cards("AC 2C")))] == 2


# -- the budget ----------------------------------------------------------------------------------


def test_the_step_budget_follows_the_time_budget() -> None:
    assert Effort().steps == round(0.1 * STEPS_PER_SECOND)
    assert Effort(budget=0.5).steps == 5 * Effort().steps


def test_an_exhausted_clock_stops_every_search_and_the_bot_still_plays() -> None:
    """With a budget that is over before the first world, each search is cut short (counted)
    and the strong bot's appraisal alone decides: the games are still legal."""
    bot = SearchBot(4, Effort(budget=1e-9))
    play_games(HOYLE, lambda: bot, GreedyBot, [51])
    assert bot.searches > 0 and bot.cut_short == bot.searches and bot.worlds == 0


def test_an_exhausted_clock_judges_a_knock_on_the_fewest_samples(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The opponent hands for a knock stop at half the budget, with
    :data:`bots.strong.KEPT_AT_LEAST` of them: the clock bounds the knock as well as the search
    (the strong bot, with no clock, draws all its samples)."""
    drawn: list[int] = []
    real = strong.kept_opponent_hands

    def counted(*args: object, **kwargs: object) -> list[int]:
        hands = real(*args, **kwargs)  # type: ignore[arg-type]
        drawn.append(len(hands))
        return hands

    monkeypatch.setattr(strong, "kept_opponent_hands", counted)
    for bot, expected in ((SearchBot(0, Effort(budget=1e-9)), KEPT_AT_LEAST), (StrongBot(0), 48)):
        drawn.clear()
        table = Table(deal("AC 2C 3C 4D 5D 6D 7H 7S 7C KS", OTHER, "8H"), bot=bot)
        table.apply(Action.parse("pass"), Action.parse("pass"))
        table.hand.stock.append(parse_card("5H"))
        table.apply(Action.parse("draw stock"))
        action = table.ask()
        assert action.kind is ActionKind.KNOCK and action.card == parse_card("KS")
        assert drawn == [expected]


def test_the_step_budget_ends_searches_that_the_clock_does_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """30 s a move at 10 steps a second: 300 steps, reached long before the clock or the world
    cap, and the same games twice."""
    monkeypatch.setattr("bots.search.STEPS_PER_SECOND", 10)
    bots = [SearchBot(4, Effort(budget=30.0, worlds=10_000)) for _ in range(2)]
    runs = [play_games(HOYLE, lambda bot=bot: bot, GreedyBot, [52]) for bot in bots]
    assert runs[0] == runs[1]
    bot = bots[0]
    assert bot.searches > 0 and bot.cut_short == 0
    # A world costs at least 3 steps (the deal, a candidate, one action), at most ~140.
    assert 2 * bot.searches <= bot.worlds <= 100 * bot.searches


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"budget": 0}, "bad budget 0"),
        ({"budget": -1.0}, "bad budget -1.0"),
        ({"worlds": 0}, "bad worlds 0"),
        ({"shortlist": 0}, "bad shortlist 0"),
        ({"horizon": 0}, "bad horizon 0"),
    ],
)
def test_bad_effort_is_refused_naming_the_option(options: dict[str, float], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        Effort(**options)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("option", "words"), [("--budget=0", "bad budget 0.0"), ("--worlds=0", "bad worlds 0")]
)
def test_the_command_line_refuses_a_bad_effort(option: str, words: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bots.search", option],
        check=False,
        capture_output=True,
        text=True,
        timeout=COMMAND,
    )
    assert done.returncode == 2
    assert words in done.stderr


def test_runs_as_its_own_process() -> None:
    match = Match(
        bots=(resolve("search"), resolve("greedy")),
        rules=Rules(),
        games=1,
        single_hands=True,
        in_process=False,
    )
    result = match.play()
    assert result.games[0].outcome.failure is None
    assert result.versions[0] == SearchBot.version


def test_an_upcard_that_cannot_help_is_passed_without_a_search() -> None:
    bot = SearchBot(1, QUICK)
    assert table_with_upcard("KC", bot).ask().kind is ActionKind.PASS
    assert bot.searches == 0
    assert table_with_upcard("5H", bot).ask() is DRAW_DISCARD  # it makes a run: searched
    assert bot.searches == 1 and bot.worlds == QUICK.worlds


def test_a_decision_is_the_same_for_the_same_seed_and_position() -> None:
    answers = set()
    for _ in range(2):
        table = Table(deal("AC 2C 3C 6D 7D 8D 4H 6H 9S JS", OTHER, "KC"), bot=SearchBot(8, QUICK))
        table.apply(PASS, PASS, DRAW_STOCK)
        answers.add(str(table.ask()))
    assert len(answers) == 1


def test_knocks_early_as_the_strong_bot_does() -> None:
    table = Table(deal("AC 2C 3C 4D 5D 6D 7H 7S 7C KS", OTHER, "5H"), bot=SearchBot(1, QUICK))
    table.apply(DRAW_DISCARD)
    action = table.ask()
    assert action.kind is ActionKind.KNOCK and action.card == parse_card("KS")
    assert action in table.hand.legal_actions() or action.melds is not None
