"""The channel study's tools: the cheat bot knows the opponent's real hand (or forfeits when told a
wrong match seed), and the runner pairs every variant with the base over the deals both played."""

from __future__ import annotations

import sys
from pathlib import Path

import channel
import cheat_bot
import pytest
import rule_reading

from arena.play.match import Match
from arena.seats.botspec import BotSpec
from engine.game import Game
from engine.rules import HOYLE

HERE = Path(__file__).resolve().parent


def _match(match_seed: int, seed: int, parts: str, workdir: Path | None = None) -> Match:
    command = (sys.executable, str(HERE / "cheat_bot.py"), "--match-seed", str(match_seed))
    cheat = BotSpec("cheat", (*command, "--parts", parts))
    return Match(
        (cheat, BotSpec("greedy", builtin="greedy")),
        HOYLE,
        games=4,
        single_hands=True,
        seed=seed,
        mirror=True,
        workdir=workdir,
    )


def test_deal_seed_is_the_plans_seed_of_each_game() -> None:
    match = _match(31, 31, "")
    for planned in match.plan():
        assert cheat_bot.deal_seed(31, planned.number) == planned.seed


@pytest.mark.parametrize("parts", ["worlds,knock,danger,outs", "takes"])
def test_the_cheat_follows_the_real_hand_through_whole_hands(tmp_path: Path, parts: str) -> None:
    # real_opponent raises (and the bot forfeits) on any decision where the replayed deal does
    # not give the bot its own hand
    result = _match(7, 7, parts, tmp_path).play()
    assert all(game.failed is None for game in result.games)


def test_a_wrong_match_seed_is_caught(tmp_path: Path) -> None:
    result = _match(8, 7, "", tmp_path).play()
    assert all(game.failed is not None for game in result.games)


def test_the_dealt_copy_is_the_referees() -> None:
    seed = cheat_bot.deal_seed(5, 3)
    assert Game(HOYLE, seed).hand.hands == Game(HOYLE, seed).hand.hands


def test_unknown_parts_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown parts"):
        cheat_bot.CheatBot(0, 1, ["stock-order"])


def test_summary_pairs_over_the_deals_both_completed() -> None:
    nets = {"base": {0: 10, 1: -4, 2: 6}, "v": {0: 14, 1: 0}}
    rows = {name: (own, edge) for name, own, edge in channel.summary(nets, "base")}
    own, edge = rows["v"]
    assert edge.deals == 2 and edge.points == pytest.approx((4 + 4) / 2 / 2)
    assert own.deals == 2 and rows["base"][1].points == 0


def test_rule_reading_measures_every_reader_on_positions_seat_zero_moves_in() -> None:
    result = rule_reading.measure(2, 3, 8, 14)
    assert result["positions"] == 2
    assert 0 < result["uniform"] < result["hidden"] <= 10
    assert set(result["right"]) == {"forward_200", "forward_1000", "metropolis_50x30"}
    assert all(0 <= r <= result["hidden"] for r in result["right"].values())


def test_the_rule_opponent_plays_legal_hands_to_the_end() -> None:
    import random

    from engine.hand import Hand, Phase

    deck = list(range(52))
    random.Random(4).shuffle(deck)
    hand = Hand(HOYLE, 0, deck)
    while hand.phase is not Phase.FINISHED:
        hand.apply(rule_reading.rule_action(hand))  # apply checks legality
    assert hand.result is not None
