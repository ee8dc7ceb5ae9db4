"""The strong bot: legal, deterministic play through the arena, and its judgement helpers."""

from __future__ import annotations

import io
import itertools
import json
import random
from collections.abc import Sequence

import pytest

from arena.play.match import Match, MatchResult
from arena.play.referee import Referee
from arena.seats.botspec import resolve
from bots import strong
from bots.strong import (
    KEPT_AT_LEAST,
    KEPT_DRAWS,
    HandMemory,
    StockOdds,
    StrongBot,
    Style,
    discard_danger,
    discard_gain,
    expected_deadwood,
    gin_outs,
    kept_opponent_hands,
    knock_score,
    lay_off_risk,
    meld_outs,
    opponent_odds,
    safest_arrangement,
    unseen_cards,
)
from engine.cards import CARD_NAMES, FULL_DECK, card_names, cards_of, parse_card, parse_cards
from engine.hand import DRAW_DISCARD, Action, ActionKind, Hand
from engine.melds import check_arrangement, deadwood, min_deadwood
from engine.rules import Rules
from protocol import messages as m
from protocol.convert import action_model, engine_action, legal_models
from protocol.views import observation_model

# -- through the arena ---------------------------------------------------------------------------


def play(opponent: str, games: int, seed: int, record: io.StringIO | None = None) -> MatchResult:
    match = Match(
        bots=(resolve("strong"), resolve(opponent)),
        rules=Rules(),
        games=games,
        seed=seed,
        mirror=True,
    )
    return match.play(record=record)


@pytest.mark.parametrize(("opponent", "games", "seed"), [("random", 6, 1), ("greedy", 4, 2)])
def test_plays_whole_games_legally(opponent: str, games: int, seed: int) -> None:
    """Every request answered legally: a bad discard (R8), an illegal knock or an invalid declared
    meld would forfeit the game, and the referee would record the failure."""
    result = play(opponent, games, seed)
    assert len(result.games) == games
    assert all(g.outcome.failure is None for g in result.games), result.to_json()["games"]
    assert all(g.winner is not None for g in result.games)


def test_beats_random() -> None:
    result = play("random", 4, 3)
    assert result.wins(0) == 4


def action_lines(record: str) -> list[tuple[int, str]]:
    lines = (json.loads(text) for text in record.splitlines())
    return [(line["player"], line["action"]) for line in lines if line["type"] == "action"]


def test_same_seed_same_record() -> None:
    first, second = io.StringIO(), io.StringIO()
    play("greedy", 2, 5, first)
    play("greedy", 2, 5, second)
    actions = action_lines(first.getvalue())
    assert actions == action_lines(second.getvalue())
    assert any(action.startswith("knock") for _, action in actions)


def game_actions(record: str, number: int) -> list[tuple[int, str]]:
    """The actions of game ``number`` of a record."""
    lines = [json.loads(text) for text in record.splitlines()]
    starts = [k for k, line in enumerate(lines) if line["type"] == "game"] + [len(lines)]
    for begin, end in itertools.pairwise(starts):
        if lines[begin]["game"] == number:
            return [(x["player"], x["action"]) for x in lines[begin:end] if x["type"] == "action"]
    raise AssertionError(f"no game {number} in the record")


def test_a_game_is_played_alike_whatever_the_bots_played_before() -> None:
    """The bots' generators are seeded by the game's number (``bots.sdk.game_seed``): game 3
    played alone, as by a fresh process, is game 3 played after game 1 (a mirrored match plays
    the first game of each deal, 1 and 3, then their mirrors)."""
    match = Match(
        bots=(resolve("strong"), resolve("random")), rules=Rules(), games=3, seed=8, mirror=True
    )
    whole, alone = io.StringIO(), io.StringIO()
    match.play(record=whole)
    match.play(record=alone, plan=[g for g in match.plan() if g.number == 3])
    assert game_actions(whole.getvalue(), 3) == game_actions(alone.getvalue(), 3)
    assert len(game_actions(alone.getvalue(), 3)) > 10


def test_runs_as_its_own_process() -> None:
    match = Match(
        bots=(resolve("strong"), resolve("greedy")),
        rules=Rules(),
        games=1,
        single_hands=True,
        in_process=False,
    )
    result = match.play()
    assert result.games[0].outcome.failure is None
    assert result.versions[0] == StrongBot.version


# -- one request at a time -----------------------------------------------------------------------


def deal(mine: str, theirs: str, upcard: str, stock: str = "") -> list[int]:
    """A deck order dealing ``mine`` to the non-dealer (seat 0 when seat 1 deals), ``theirs`` to
    the dealer, then ``upcard``, then the stock from the top."""
    bot, other = cards_of(parse_cards(mine)), cards_of(parse_cards(theirs))
    top = [parse_card(c) for c in stock.split()]
    order = [card for pair in zip(bot, other, strict=True) for card in pair]
    order += [parse_card(upcard), *top]
    return order + [c for c in range(52) if c not in order]


class Table:
    """One hand with the strong bot (or ``bot``) at seat 0 (the non-dealer), driven action by
    action."""

    def __init__(
        self,
        deck: Sequence[int],
        rules: Rules | None = None,
        seed: int = 0,
        bot: StrongBot | None = None,
    ) -> None:
        self.rules = rules or Rules()
        self.hand = Hand(self.rules, dealer=1, deck=deck)
        self.bot = StrongBot(seed) if bot is None else bot
        self.bot.handle(Referee(self.rules).hello(0))
        self.bot.handle(
            m.HandStart(
                type="hand_start",
                hand_number=1,
                dealer=1,
                hand=card_names(self.hand.hands[0]),
                upcard=CARD_NAMES[self.hand.first_upcard],
                stock_size=len(self.hand.stock),
                knock_limit=self.hand.knock_limit,
                scores=[0, 0],
            )
        )

    def apply(self, *actions: Action) -> None:
        """Apply actions for whoever is to move, telling the bot as the referee would."""
        for action in actions:
            player = self.hand.to_move
            top = self.hand.pile[-1]
            self.hand.apply(action)
            card = top if action.kind is ActionKind.DRAW_DISCARD else None
            self.bot.handle(
                m.Played(
                    type="played",
                    player=player,
                    action=action_model(action),
                    card=None if card is None else CARD_NAMES[card],
                )
            )

    def ask(self) -> Action:
        """The bot's answer to a request for the current state (the bot is to move)."""
        assert self.hand.to_move == 0
        request = m.Request(
            type="request",
            id=1,
            phase=self.hand.decision_phase,
            legal=legal_models(self.hand.legal_actions()),
            observation=observation_model(
                self.hand.observation(0), 1, [0, 0], self.rules.game_target
            ),
            clock=m.Clock(move_ms=1000, bank_ms=0),
        )
        reply = self.bot.handle(request)
        assert isinstance(reply, m.Reply)
        return engine_action(reply.action)


OTHER = "8C 9C TC 9D TD JD 2S 3S KH QH"


def test_never_discards_the_card_just_taken() -> None:
    """The king just taken is the card the hand needs least, but R8 forbids discarding it."""
    table = Table(deal("AC 2D 3H 4S 6C 6D 7H 8H TS QS", OTHER, "KC"))
    table.apply(DRAW_DISCARD)
    action = table.ask()
    assert action.kind is ActionKind.DISCARD
    assert action.card != parse_card("KC")
    assert action in table.hand.legal_actions()


def test_discards_the_card_just_taken_when_the_rules_allow() -> None:
    table = Table(
        deal("AC 2D 3H 4S 6C 6D 7H 8H TS QS", OTHER, "KC"),
        Rules().replace(discard_taken_card=True),
    )
    table.apply(DRAW_DISCARD)
    assert table.ask() == Action(ActionKind.DISCARD, parse_card("KC"))


def test_takes_an_upcard_that_makes_a_meld_and_passes_one_that_does_not() -> None:
    assert table_with_upcard("5H").ask() is DRAW_DISCARD
    assert table_with_upcard("KC").ask().kind is ActionKind.PASS


def table_with_upcard(upcard: str, bot: StrongBot | None = None) -> Table:
    return Table(deal("AC 2C 3C 6D 7D 8D 4H 6H 9S JS", OTHER, upcard), bot=bot)


def test_knocks_early_declaring_valid_melds() -> None:
    table = Table(deal("AC 2C 3C 4D 5D 6D 7H 7S 7C KS", OTHER, "5H"))
    table.apply(DRAW_DISCARD)
    action = table.ask()
    assert action.kind is ActionKind.KNOCK
    assert action.card == parse_card("KS")
    assert action.melds is not None
    kept = table.hand.hands[0] ^ (1 << action.card)
    assert check_arrangement(kept, action.melds) == 5
    table.hand.apply(action)  # the engine accepts it
    assert table.hand.result is not None


def test_judges_only_the_likeliest_knocks_on_the_sampled_hands(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With 5H drawn, AC 2C 3C 4D 5D 6D 7H 7S 7C 5H KS can knock discarding KS (5 deadwood) or 5H
    (10): with ``knock_shortlist=1`` only the first is scored against the sampled hands."""
    calls: list[int] = []
    real = strong.knock_score

    def counted(*args: object, **kwargs: object) -> int:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(strong, "knock_score", counted)
    table = Table(
        deal("AC 2C 3C 4D 5D 6D 7H 7S 7C KS", OTHER, "8H"),
        bot=StrongBot(0, Style(samples=10, knock_shortlist=1)),
    )
    table.apply(Action.parse("pass"), Action.parse("pass"))
    table.hand.stock.append(parse_card("5H"))
    table.apply(Action.parse("draw stock"))
    eleven = table.hand.hands[0]
    choices = [c for c in cards_of(eleven) if min_deadwood(eleven ^ 1 << c) <= 10]
    assert sorted(choices) == sorted(cards_of(parse_cards("KS 5H")))
    action = table.ask()
    assert action.kind is ActionKind.KNOCK and action.card == parse_card("KS")
    assert len(calls) == 10
    calls.clear()
    table.bot.style = Style(samples=10, knock_shortlist=2)
    assert table.ask() == action
    assert len(calls) == 20


def test_plays_on_for_gin_early_with_little_deadwood_and_knocks_late() -> None:
    """With 2 deadwood and three live cards that make gin (4C, 3D, 7D), it plays on early in the
    hand; with few stock cards left, it knocks."""
    early = Table(deal("AC 2C 3C 4D 5D 6D 7H 7S 7C KS", OTHER, "2H"))
    early.apply(DRAW_DISCARD)
    assert early.ask() == Action.parse("discard KS")
    late = Table(deal("AC 2C 3C 4D 5D 6D 7H 7S 7C KS", OTHER, "2H"))
    del late.hand.stock[:-8]
    late.apply(DRAW_DISCARD)
    assert late.ask().kind is ActionKind.KNOCK


def test_goes_gin_when_it_can() -> None:
    table = Table(deal("AC 2C 3C 4D 5D 6D 7H 7S 7C KS", OTHER, "8H"))
    table.apply(Action.parse("pass"), Action.parse("pass"))
    table.hand.stock.append(parse_card("7D"))  # the next stock card completes gin
    table.apply(Action.parse("draw stock"))
    action = table.ask()
    assert action.kind is ActionKind.KNOCK
    assert action.card == parse_card("KS")
    assert action.melds is not None
    assert check_arrangement(table.hand.hands[0] ^ (1 << action.card), action.melds) == 0


# -- following the hand --------------------------------------------------------------------------


def test_memory_follows_the_opponents_takes_discards_and_passes() -> None:
    table = Table(deal("AC 2C 3C 6D 7D 8D 4H 6H 9S JS", OTHER, "KC", stock="5C 4C"))
    # Both pass the king; the bot draws 5C and discards JS; the opponent takes JS, throws QH;
    # the bot draws 4C and throws 9S; the opponent leaves 9S for the stock.
    table.apply(Action.parse("pass"), Action.parse("pass"), Action.parse("draw stock"))
    table.apply(Action.parse("discard JS"), DRAW_DISCARD, Action.parse("discard QH"))
    table.apply(Action.parse("draw stock"), Action.parse("discard 9S"), Action.parse("draw stock"))
    memory = table.bot.memory
    assert memory.opponent_takes == parse_cards("JS")
    assert memory.opponent_discards == parse_cards("QH")
    assert memory.opponent_passes == parse_cards("KC 9S")
    assert memory.opponent_draws == 1
    assert memory.pile == [parse_card(c) for c in ("KC", "QH", "9S")]


# -- judgement -----------------------------------------------------------------------------------


def test_unseen_cards_exclude_what_the_bot_has_seen() -> None:
    hand = parse_cards("AC 2C 3C")
    unseen = unseen_cards(hand, [parse_card("KD"), parse_card("QD")], parse_cards("5H"))
    assert unseen.bit_count() == 52 - 6
    assert not unseen & (hand | parse_cards("KD QD 5H"))


def test_opponent_odds_share_its_hidden_cards_by_the_evidence() -> None:
    hand = parse_cards("AC 2C 3C 6D 7D 8D 4H 6H 9S JS")
    pile = [parse_card("QD")]
    known = parse_cards("5S")
    memory = HandMemory(
        pile=pile, opponent_discards=parse_cards("QD"), opponent_takes=parse_cards("5S")
    )
    odds = opponent_odds(unseen_cards(hand, pile, known), known, memory)
    assert sum(odds) == pytest.approx(10)
    assert odds[parse_card("5S")] == 1.0
    assert odds[parse_card("AC")] == 0.0 and odds[parse_card("QD")] == 0.0
    unrelated = odds[parse_card("9C")]
    assert odds[parse_card("QC")] < unrelated  # the rank it threw
    assert odds[parse_card("JD")] < unrelated  # next to the card it threw
    assert odds[parse_card("5C")] > unrelated  # the rank it took
    assert odds[parse_card("4S")] > unrelated  # next to the card it took


def kept_sample(draws: int, knock_limit: int = -1, count: int = 200) -> tuple[int, int, list[int]]:
    """Hands drawn by :func:`kept_opponent_hands` for one position: (unseen, known, hands)."""
    hand = parse_cards("AC 2C 3C 6D 7D 8D 4H 6H 9S JS")
    pile = [parse_card("QD"), parse_card("KH")]
    known = parse_cards("5S")
    memory = HandMemory(pile=pile, opponent_discards=parse_cards("KH"), opponent_takes=known)
    unseen = unseen_cards(hand, pile, known)
    odds = opponent_odds(unseen, known, memory)
    hands = kept_opponent_hands(
        random.Random(3), unseen, known, odds, count, draws=draws, knock_limit=knock_limit
    )
    return unseen, known, hands


def test_kept_hands_hold_the_known_cards_and_unseen_ones() -> None:
    unseen, known, hands = kept_sample(draws=6)
    assert len(hands) == 200
    for hand in hands:
        assert hand.bit_count() == 10
        assert hand & known == known
        assert hand & ~known & ~unseen == 0
    assert kept_sample(draws=6)[2] == hands  # the same generator, the same hands


def test_kept_hands_are_better_the_more_the_opponent_drew() -> None:
    """A player who drew cards and kept its best holds far less deadwood than a dealt hand
    (mid-hand, real opponents hold about 25 against about 40 for dealt hands). Only the first
    :data:`KEPT_DRAWS` draws are replayed."""

    def mean_deadwood(hands: list[int]) -> float:
        return sum(min_deadwood(h) for h in hands) / len(hands)

    dealt = mean_deadwood(kept_sample(draws=0)[2])
    four = mean_deadwood(kept_sample(draws=4)[2])
    six = mean_deadwood(kept_sample(draws=6)[2])
    assert dealt > four + 5 > six + 8
    assert six < 25
    assert kept_sample(draws=KEPT_DRAWS + 2) == kept_sample(draws=KEPT_DRAWS)


def test_kept_hands_that_could_have_knocked_are_redrawn() -> None:
    """An opponent who could have knocked would have: such hands are redrawn (up to ``count // 2``
    times in all, then kept, so that the sample always fills)."""

    def could_knock(hands: list[int]) -> int:
        return sum(min_deadwood(h) <= 10 for h in hands)

    assert could_knock(kept_sample(draws=4)[2]) > 20
    assert could_knock(kept_sample(draws=4, knock_limit=10)[2]) == 0
    many = could_knock(kept_sample(draws=6)[2])  # more than a third: 100 redraws fall short
    limited = kept_sample(draws=6, knock_limit=10)[2]
    assert 0 < could_knock(limited) < many / 3
    assert len(limited) == 200


def test_kept_hands_stop_at_the_deadline_with_a_few() -> None:
    hand = parse_cards("AC 2C 3C 6D 7D 8D 4H 6H 9S JS")
    unseen = unseen_cards(hand, [], 0)
    odds = [0.0 if hand >> c & 1 else 10 / 42 for c in range(52)]
    hands = kept_opponent_hands(random.Random(1), unseen, 0, odds, 100, draws=8, deadline=0.0)
    assert len(hands) == KEPT_AT_LEAST


def odds_of(held: str = "", dead: str = "", default: float = 0.3) -> list[float]:
    """Odds that are 1 for ``held`` cards, 0 for ``dead`` ones, ``default`` elsewhere."""
    odds = [default] * 52
    for card in cards_of(parse_cards(held)):
        odds[card] = 1.0
    for card in cards_of(parse_cards(dead)):
        odds[card] = 0.0
    return odds


def test_a_discard_whose_partners_are_dead_is_safe() -> None:
    assert discard_danger(parse_card("7H"), odds_of(dead="7C 7D 7S 6H 8H")) == 0.0


def test_a_discard_next_to_the_opponents_cards_is_dangerous() -> None:
    assert discard_danger(parse_card("7H"), odds_of(held="6H 8H")) == 1.0
    assert discard_danger(parse_card("7H"), odds_of(held="7C 7S")) == 1.0


def test_danger_grows_with_live_partners() -> None:
    some_dead = discard_danger(parse_card("7H"), odds_of(dead="7C 7D"))
    all_live = discard_danger(parse_card("7H"), odds_of())
    assert 0 < some_dead < all_live < 1


SQUARE = "4C 5C 6C 4D 5D 6D 4H 5H 6H AS"
"""Three sets or three runs, with the same deadwood (AS) either way."""


def test_prefers_sets_when_the_run_ends_are_live() -> None:
    kept = parse_cards(SQUARE)
    arrangement = safest_arrangement(kept, odds_of())
    assert {m.bit_count() for m in arrangement.melds} == {3}
    assert all(len({c % 13 for c in cards_of(m)}) == 1 for m in arrangement.melds)  # sets
    assert arrangement.deadwood == 1


def test_prefers_runs_when_the_fourth_cards_are_held_and_the_run_ends_dead() -> None:
    kept = parse_cards(SQUARE)
    odds = odds_of(held="4S 5S", dead="3C 7C 3D 7D 3H 7H")
    arrangement = safest_arrangement(kept, odds)
    assert all(len({c // 13 for c in cards_of(m)}) == 1 for m in arrangement.melds)  # runs
    assert lay_off_risk(arrangement.melds, kept, odds) == 0.0


def test_declares_sets_when_knocking_with_live_run_ends() -> None:
    table = Table(deal(SQUARE.replace("AS", "KS"), OTHER, "AS"))
    del table.hand.stock[:-8]  # late in the hand: knock rather than play on for gin
    table.apply(DRAW_DISCARD)
    action = table.ask()
    assert action.kind is ActionKind.KNOCK and action.melds is not None
    assert all(len({c % 13 for c in cards_of(m)}) == 1 for m in action.melds)


def test_lay_off_risk_weighs_each_exposed_card_by_its_value() -> None:
    run = parse_cards("4C 5C 6C")
    assert lay_off_risk([run], run, odds_of(default=0.5)) == pytest.approx(0.5 * 3 + 0.5 * 7)
    assert lay_off_risk([run], run, odds_of(dead="3C 7C")) == 0.0


def test_knock_score_counts_lay_offs_undercuts_and_gin() -> None:
    run = parse_cards("AC 2C 3C")
    defender = parse_cards("4C 5H")  # lays off 4C, keeps 5 deadwood
    upcard = parse_card("9H")
    assert knock_score([run], 2, defender, Rules(), upcard) == 3
    assert knock_score([run], 5, defender, Rules(), upcard) == -10  # a tie is an undercut (R13)
    assert knock_score([run], 5, defender, Rules().replace(undercut_on_tie=False), upcard) == 0
    assert knock_score([run], 7, defender, Rules(), upcard) == -12
    assert knock_score([run], 0, defender, Rules(), upcard) == 9 + 25  # gin: no lay-offs (R14)


def test_knock_score_is_the_engines_score_with_the_oklahoma_double() -> None:
    run = parse_cards("AC 2C 3C")
    defender = parse_cards("4C 5H")
    oklahoma = Rules.preset("oklahoma")
    assert knock_score([run], 2, defender, oklahoma, parse_card("9S")) == 2 * 3  # R18
    assert knock_score([run], 7, defender, oklahoma, parse_card("9S")) == -2 * 12
    assert knock_score([run], 2, defender, oklahoma, parse_card("9H")) == 3


def test_gin_outs() -> None:
    kept = parse_cards("AC 2C 3C 4D 5D 6D 7H 7S 7C 2H")
    assert gin_outs(kept, FULL_DECK & ~kept) == parse_cards("4C 3D 7D")
    assert gin_outs(kept, FULL_DECK & ~kept & ~parse_cards("4C 3D")) == parse_cards("7D")


def test_meld_outs() -> None:
    assert meld_outs(parse_cards("5H 6H 9C 9D KS")) == parse_cards("4H 7H 9H 9S")
    assert meld_outs(parse_cards("5H 7H")) == parse_cards("6H")
    assert meld_outs(parse_cards("AC 2C QS KS")) == parse_cards("3C JS")


def test_expected_deadwood_and_discard_gain_match_the_solver() -> None:
    rng = random.Random(11)
    for _ in range(500):
        cards = rng.sample(range(52), 25)
        hand = sum(1 << c for c in cards[:10])
        draws = [(c, 1 / 15) for c in cards[10:]]
        brute = sum(p * min_deadwood(hand | 1 << c) for c, p in draws)
        assert expected_deadwood(hand, StockOdds.of(draws)) == pytest.approx(brute)
        best = min(deadwood(hand ^ (1 << c)) for c in cards[:10])
        assert discard_gain(hand) == deadwood(hand) - best
