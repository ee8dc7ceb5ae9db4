"""A game: first dealer from the seed, dealer rotation, drawn hands, the target, the end-of-game
bonuses, deterministic replay and the order of calls (R4, R11, R15, R16)."""

from __future__ import annotations

import random

import pytest
from scenarios import (
    DEFENDER_5,
    DEFENDER_LAYS_OFF,
    KNOCKER_4,
    KNOCKER_10,
    RUN_9,
    SPREAD_60,
    deck_for,
    drawn_card,
)

from engine.cards import parse_card
from engine.deck import SplitMix64
from engine.game import Game, GameError, GameResult
from engine.hand import (
    DISCARDS,
    DRAW_STOCK,
    KNOCKS,
    PASS,
    Action,
    HandEnd,
    HandResult,
    IllegalAction,
)
from engine.rules import HOYLE, PRESETS, Rules

# The non-dealer knocks and wins 48 - 4 = 44 (lay-offs included).
NON_DEALER_WINS = deck_for(KNOCKER_4, DEFENDER_LAYS_OFF, "2H", "9S")
# The non-dealer knocks with 10 and is undercut by the dealer's 5: the dealer wins 5 + bonus.
DEALER_WINS = deck_for(KNOCKER_10, DEFENDER_5, "2H", "9S")
# Nobody knocks: both draw from the stock and discard what they drew until it runs out (R11).
NOBODY_WINS = deck_for(RUN_9, SPREAD_60, "KH")


def knock_out(game: Game) -> HandResult:
    """Play the scripted knock on the current hand (dealt from NON_DEALER_WINS or DEALER_WINS)."""
    assert game.apply(PASS) is None
    assert game.apply(PASS) is None
    assert game.apply(DRAW_STOCK) is None
    result = game.apply(KNOCKS[parse_card("9S")])
    assert result is not None
    return result


def draw_out(game: Game) -> HandResult:
    """Play the current hand to a draw: nobody knocks (R11)."""
    game.apply(PASS)
    game.apply(PASS)
    while True:
        hand = game.hand
        player = hand.to_move
        before = hand.hands[player]
        game.apply(DRAW_STOCK)
        result = game.apply(DISCARDS[drawn_card(before, hand.hands[player])])
        if result is not None:
            return result


# -- the first dealer and the deals (R4, R5) ---------------------------------------------------


def test_first_dealer_is_the_low_bit_of_the_first_number() -> None:
    seen = set()
    for seed in range(40):
        game = Game(seed=seed)
        rng = SplitMix64(seed)
        assert game.dealer == rng.next() & 1
        assert game.hand.dealer == game.dealer
        assert game.hand.deck == rng.shuffled_deck()  # the first deal continues the stream
        seen.add(game.dealer)
    assert seen == {0, 1}


def test_every_deal_continues_the_one_stream() -> None:
    game = Game(seed=77)
    rng = SplitMix64(77)
    rng.next()
    for _ in range(3):
        assert game.hand.deck == rng.shuffled_deck()
        draw_out(game)
        game.next_hand()


def test_first_dealer_may_be_given() -> None:
    for dealer in (0, 1):
        game = Game(seed=5, first_dealer=dealer)
        assert game.dealer == game.hand.dealer == dealer
    with pytest.raises(ValueError, match="first dealer"):
        Game(seed=5, first_dealer=2)
    with pytest.raises(ValueError, match="seed"):
        Game(seed=-1)


def test_a_game_starts_empty() -> None:
    game = Game(seed=2)
    assert game.scores == [0, 0]
    assert game.hands_won == [0, 0]
    assert game.results == []
    assert game.result is None
    assert not game.is_over
    assert game.hand_number == 1


# -- dealer rotation (R4) ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("next_dealer", "deck", "same_dealer"),
    [
        ("winner", NON_DEALER_WINS, False),
        ("winner", DEALER_WINS, True),
        ("loser", NON_DEALER_WINS, True),
        ("loser", DEALER_WINS, False),
        ("alternate", NON_DEALER_WINS, False),
        ("alternate", DEALER_WINS, False),
    ],
)
@pytest.mark.parametrize("first", [0, 1])
def test_dealer_rotation(next_dealer: str, deck: list[int], same_dealer: bool, first: int) -> None:
    rules = HOYLE.with_options({"next_dealer": next_dealer})
    game = Game(rules, seed=1, first_dealer=first, deck=deck)
    result = knock_out(game)
    assert result.winner == (first if deck is DEALER_WINS else 1 - first)
    want = first if same_dealer else 1 - first
    assert game.dealer == want
    assert game.next_hand().dealer == want


@pytest.mark.parametrize("next_dealer", ["winner", "loser", "alternate"])
def test_a_drawn_hand_is_redealt_by_the_same_dealer(next_dealer: str) -> None:
    rules = HOYLE.with_options({"next_dealer": next_dealer})
    game = Game(rules, seed=3, first_dealer=1, deck=NOBODY_WINS)
    result = draw_out(game)
    assert result.end is HandEnd.DRAWN
    assert game.results == [result]
    assert game.scores == [0, 0]
    assert game.hands_won == [0, 0]
    assert game.dealer == 1
    hand = game.next_hand()
    assert hand.dealer == 1
    assert game.hand_number == 2


def test_hands_alternate_winners_under_the_winner_rule() -> None:
    game = Game(seed=0, first_dealer=0, deck=NON_DEALER_WINS)
    assert knock_out(game).winner == 1
    game.next_hand(NON_DEALER_WINS)
    assert game.hand.dealer == 1
    assert knock_out(game).winner == 0  # the non-dealer is now player 0
    assert game.scores == [44, 44]
    assert game.hands_won == [1, 1]


# -- the hand limit (R22) ------------------------------------------------------------------------


def test_players_who_never_knock_end_at_the_hand_limit_drawn() -> None:
    game = Game(HOYLE.replace(hand_limit=5), seed=3, first_dealer=1, deck=NOBODY_WINS)
    for number in range(1, 6):
        assert not game.is_over, f"the game ended before hand {number}"
        draw_out(game)
        if number < 5:
            game.next_hand(NOBODY_WINS)
    result = game.result
    assert result is not None
    assert (result.end, result.winner, result.hands_played) == ("hand_limit", None, 5)
    assert result.scores == (0, 0)
    assert "drawn" in str(result) and "hand limit" in str(result)
    with pytest.raises(GameError):
        game.next_hand()


def test_the_hand_limit_is_decided_on_points_without_the_game_bonus() -> None:
    rules = HOYLE.replace(hand_limit=2, game_bonus=100, shutout_bonus=100, line_bonus=20)
    game = Game(rules, seed=0, first_dealer=0, deck=NON_DEALER_WINS)
    assert knock_out(game).winner == 1  # 44 points, far from the target
    game.next_hand(NOBODY_WINS)
    draw_out(game)
    result = game.result
    assert result is not None
    assert (result.end, result.winner) == ("hand_limit", 1)
    assert result.hand_points == (0, 44)
    assert result.game_bonus == 0
    assert result.scores == (0, 64)  # the line bonus still counts


def test_the_default_hand_limit_is_far_above_a_real_game() -> None:
    assert HOYLE.hand_limit == 200
    assert all(rules.hand_limit == 200 for rules in PRESETS.values())


# -- the target (R15) and the bonuses (R16) ----------------------------------------------------


def two_wins_for_player_1(rules: Rules) -> Game:
    """Player 1 wins a knock as non-dealer, then (dealing) wins an undercut."""
    game = Game(rules, seed=0, first_dealer=0, deck=NON_DEALER_WINS)
    knock_out(game)
    if not game.is_over:
        game.next_hand(DEALER_WINS)
        assert game.hand.dealer == 1
        knock_out(game)
    return game


def test_the_game_ends_when_the_target_is_reached() -> None:
    game = two_wins_for_player_1(HOYLE.replace(game_target=59))  # 44 + 15 == 59
    assert game.is_over
    result = game.result
    assert isinstance(result, GameResult)
    assert result.winner == 1
    assert result.scores == (0, 59)
    assert result.hand_points == (0, 59)
    assert result.hands_won == (0, 2)
    assert result.hands_played == 2
    assert result.game_bonus == 0
    assert result.line_bonus == (0, 0)
    assert str(result) == "player 1 wins 0-59 after 2 hands"


def test_the_game_goes_on_below_the_target() -> None:
    game = two_wins_for_player_1(HOYLE.replace(game_target=60))
    assert not game.is_over
    assert game.scores == [0, 59]


def test_the_default_target_is_100() -> None:
    game = Game(seed=0, first_dealer=0, deck=NON_DEALER_WINS)
    knock_out(game)  # 44
    game.next_hand(DEALER_WINS)
    knock_out(game)  # 59
    game.next_hand(DEALER_WINS)
    knock_out(game)  # 74
    game.next_hand(DEALER_WINS)
    knock_out(game)  # 89
    assert not game.is_over
    game.next_hand(DEALER_WINS)
    knock_out(game)  # 104
    assert game.is_over
    assert game.result is not None
    assert game.result.scores == (0, 104)
    assert game.result.hands_played == 5


def test_shutout_doubles_the_game_bonus_and_lines_are_added_at_the_end() -> None:
    rules = PRESETS["bonus"].replace(game_target=74)  # undercut bonus 25: 44 + 30 == 74
    game = Game(rules, seed=0, first_dealer=0, deck=NON_DEALER_WINS)
    knock_out(game)
    assert game.scores == [0, 44]  # no line bonus after a hand
    game.next_hand(DEALER_WINS)
    knock_out(game)
    result = game.result
    assert result is not None
    assert result.hand_points == (0, 74)
    assert result.game_bonus == 100 + 100
    assert result.line_bonus == (0, 40)
    assert result.scores == (0, 74 + 40 + 200)


def test_game_and_line_bonus_without_a_shutout() -> None:
    rules = PRESETS["bonus"].replace(game_target=88)
    game = Game(rules, seed=0, first_dealer=0, deck=NON_DEALER_WINS)
    knock_out(game)  # player 1 wins 44 and deals
    game.next_hand(NON_DEALER_WINS)
    knock_out(game)  # player 0 wins 44 and deals
    game.next_hand(NON_DEALER_WINS)
    knock_out(game)  # player 1 wins 44: 88
    result = game.result
    assert result is not None
    assert result.winner == 1
    assert result.hand_points == (44, 88)
    assert result.hands_won == (1, 2)
    assert result.game_bonus == 100
    assert result.line_bonus == (20, 40)
    assert result.scores == (44 + 20, 88 + 40 + 100)


def test_bonus_options_are_independent() -> None:
    rules = HOYLE.replace(game_target=59, shutout_bonus=7, line_bonus=3)
    result = two_wins_for_player_1(rules).result
    assert result is not None
    assert result.game_bonus == 7
    assert result.scores == (0, 59 + 6 + 7)


# -- replay ------------------------------------------------------------------------------------


def play_random_game(seed: int, choices: random.Random) -> tuple[Game, list[list[Action]]]:
    game = Game(seed=seed)
    played: list[list[Action]] = [[]]
    while True:
        action = choices.choice(game.hand.legal_actions())
        played[-1].append(action)
        if game.apply(action) is not None:
            if game.is_over:
                return game, played
            game.next_hand()
            played.append([])


def replay_game(seed: int, played: list[list[Action]]) -> Game:
    game = Game(seed=seed)
    for number, actions in enumerate(played):
        if number:
            game.next_hand()
        for action in actions:
            game.apply(action)
    return game


@pytest.mark.parametrize("seed", [0, 12345])
def test_a_whole_game_replays_from_its_seed_and_actions(seed: int) -> None:
    game, played = play_random_game(seed, random.Random(seed))
    assert game.result is not None
    again = replay_game(seed, played)
    assert again.result == game.result
    assert again.results == game.results
    assert again.scores == game.scores
    assert again.hand.deck == game.hand.deck
    assert again.hand.history == game.hand.history
    assert len(played) == game.result.hands_played
    assert game.result.scores[game.result.winner] >= HOYLE.game_target


# -- the order of calls ------------------------------------------------------------------------


def test_next_hand_before_the_hand_ends_is_an_error() -> None:
    game = Game(seed=4)
    with pytest.raises(GameError, match="not over"):
        game.next_hand()
    game.apply(PASS)
    with pytest.raises(GameError):
        game.next_hand()
    assert game.hand_number == 1


def test_next_hand_after_the_game_ends_is_an_error() -> None:
    game = two_wins_for_player_1(HOYLE.replace(game_target=59))
    assert game.is_over
    with pytest.raises(GameError, match="over"):
        game.next_hand()


def test_game_error_is_a_runtime_error() -> None:
    assert issubclass(GameError, RuntimeError)


def test_a_hand_finished_outside_apply_must_be_recorded() -> None:
    game = Game(seed=0, first_dealer=0, deck=NON_DEALER_WINS)
    hand = game.hand
    for action in (PASS, PASS, DRAW_STOCK, KNOCKS[parse_card("9S")]):
        hand.apply_unchecked(action)
    assert hand.result is not None
    with pytest.raises(GameError, match="record"):
        game.next_hand()
    other = HandResult(HandEnd.KNOCK, 0, 44)
    with pytest.raises(GameError, match="current hand"):
        game.record(other)
    game.record(hand.result)
    assert game.scores == [0, 44]
    assert game.next_hand().dealer == 1


def test_a_hand_result_is_scored_once() -> None:
    # record() after apply() (or twice) adds the same hand's points again.
    game = Game(seed=0, first_dealer=0, deck=NON_DEALER_WINS)
    result = knock_out(game)
    assert game.scores == [0, 44]
    with pytest.raises(GameError):
        game.record(result)
    assert game.scores == [0, 44]
    assert game.hands_won == [0, 1]


def test_apply_after_the_hand_ends_is_illegal() -> None:
    game = Game(seed=0, first_dealer=0, deck=NON_DEALER_WINS)
    knock_out(game)
    with pytest.raises(IllegalAction):
        game.apply(PASS)
    assert game.scores == [0, 44]
