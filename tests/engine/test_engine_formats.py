"""The formats above the two-player game (engine.formats): Hollywood (R23), three players (R24) and
partnership (R25), with the hand limit counted in rounds (R22).

A small model of each format, written from the rules and not from the engine, takes the outcome of
every hand (the winning hand seat, or none, and the points) and says who must play and deal each
hand and how the format ends. Random legal play and scripted hands (hypothesis) are checked
against it hand by hand; the rest pins the construction errors, determinism and the deal stream.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from scenarios import deck_for

from engine.deck import SplitMix64, check_deck
from engine.formats import (
    HOLLYWOOD_GAMES,
    FormatError,
    FormatResult,
    Hollywood,
    Mode,
    Partnership,
    Session,
    ThreePlayer,
    check_rules,
    new_session,
)
from engine.game import Game, GameEnd, GameError, GameResult
from engine.hand import Action, HandResult, Phase
from engine.rules import HOYLE, PRESETS, Rules

FORMATS = (Mode.HOLLYWOOD, Mode.THREE_PLAYER, Mode.PARTNERSHIP)
TEAM = {0: 0, 1: 1, 2: 0, 3: 1}
PAIRINGS = (((0, 1), (2, 3)), ((0, 3), (2, 1)))  # (table 0, table 1): rounds 1, 3, ...; 2, 4, ...


# -- the model ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """A finished hand as the model sees it: the winning hand seat (None: drawn) and the points."""

    seat: int | None
    points: int


Seating = tuple[tuple[int, int], int, int]
"""The players in hand seats 0 and 1, the dealing seat and the table of one hand."""


@dataclass
class Model:
    """What a format must have done after some hands: the seating of every hand, the running
    points (Hollywood: of each of its games), and the result once over."""

    seatings: list[Seating] = field(default_factory=list)
    points: list[list[int]] = field(default_factory=list)
    result: FormatResult | None = None


def next_dealer(rules: Rules, dealer: int, winner: int) -> int:
    """O12 between two sides."""
    return {"winner": winner, "loser": 1 - winner, "alternate": 1 - dealer}[rules.next_dealer]


def leader(points: Sequence[int]) -> int | None:
    top = max(points)
    return points.index(top) if list(points).count(top) == 1 else None


def closing(
    rules: Rules, points: Sequence[int], won: Sequence[int], winner: int | None, by_target: bool
) -> tuple[tuple[int, ...], int, tuple[int, ...]]:
    """R16 at a game's end: the final scores, the winner's game bonus and the line bonuses."""
    bonus = 0
    if by_target:
        assert winner is not None
        others = [p for side, p in enumerate(points) if side != winner]
        bonus = rules.game_bonus + (rules.shutout_bonus if all(p == 0 for p in others) else 0)
    line = tuple(w * rules.line_bonus for w in won)
    scores = tuple(
        p + b + (bonus if side == winner else 0)
        for side, (p, b) in enumerate(zip(points, line, strict=True))
    )
    return scores, bonus, line


def totals_result(
    mode: Mode,
    rules: Rules,
    points: list[int],
    won: list[int],
    *,
    winner: int | None,
    hands: int,
    by_target: bool,
) -> FormatResult:
    scores, bonus, line = closing(rules, points, won, winner, by_target)
    return FormatResult(
        mode=mode,
        winner=winner,
        scores=scores,
        hand_points=tuple(points),
        hands_won=tuple(won),
        game_bonus=bonus,
        line_bonus=line,
        hands_played=hands,
        end=GameEnd.TARGET if by_target else GameEnd.HAND_LIMIT,
    )


def hollywood_model(rules: Rules, dealer: int, outcomes: Sequence[Outcome]) -> Model:
    model = Model(points=[[0, 0] for _ in range(HOLLYWOOD_GAMES)])
    scored = [[False, False] for _ in range(HOLLYWOOD_GAMES)]
    won = [[0, 0] for _ in range(HOLLYWOOD_GAMES)]
    games: list[GameResult | None] = [None] * HOLLYWOOD_GAMES
    wins = [0, 0]

    def decide(g: int, winner: int | None, by_target: bool, hands: int) -> GameResult:
        points = model.points[g]
        scores, bonus, line = closing(rules, points, won[g], winner, by_target)
        return GameResult(
            winner=winner,
            scores=(scores[0], scores[1]),
            hand_points=(points[0], points[1]),
            hands_won=(won[g][0], won[g][1]),
            game_bonus=bonus,
            line_bonus=(line[0], line[1]),
            hands_played=hands,
            end=GameEnd.TARGET if by_target else GameEnd.HAND_LIMIT,
        )

    for number, outcome in enumerate(outcomes, 1):
        assert model.result is None, "the model is over: no more hands"
        model.seatings.append(((0, 1), dealer, 0))
        w = outcome.seat
        if w is not None:
            wins[w] += 1
            open_games = [g for g in range(HOLLYWOOD_GAMES) if games[g] is None]
            into = [g for g in open_games if scored[g][w]]
            into += [g for g in open_games if not scored[g][w]][:1]
            for g in into:
                model.points[g][w] += outcome.points
                scored[g][w] = True
                won[g][w] += 1
                if model.points[g][w] >= rules.game_target:
                    games[g] = decide(g, w, True, number)
            dealer = next_dealer(rules, dealer, w)
        if number >= rules.hand_limit:
            for g in range(HOLLYWOOD_GAMES):
                if games[g] is None:
                    games[g] = decide(g, leader(model.points[g]), False, number)
        decided = [g for g in games if g is not None]
        if len(decided) == HOLLYWOOD_GAMES:
            scores = tuple(sum(g.scores[p] for g in decided) for p in (0, 1))
            winner = leader(scores)
            model.result = FormatResult(
                mode=Mode.HOLLYWOOD,
                winner=winner,
                scores=scores,
                hand_points=tuple(sum(g.hand_points[p] for g in decided) for p in (0, 1)),
                hands_won=tuple(wins),
                game_bonus=sum(g.game_bonus for g in decided if g.winner == winner),
                line_bonus=tuple(sum(g.line_bonus[p] for g in decided) for p in (0, 1)),
                hands_played=number,
                end=(
                    GameEnd.HAND_LIMIT
                    if any(g.end is GameEnd.HAND_LIMIT for g in decided)
                    else GameEnd.TARGET
                ),
                games=tuple(decided),
            )
    return model


def three_player_model(rules: Rules, dealer: int, outcomes: Sequence[Outcome]) -> Model:
    model = Model(points=[[0, 0, 0]])
    points, won = model.points[0], [0, 0, 0]
    for number, outcome in enumerate(outcomes, 1):
        assert model.result is None, "the model is over: no more hands"
        players = ((dealer + 1) % 3, (dealer + 2) % 3)  # the dealer sits out
        model.seatings.append((players, 1, 0))
        winner = None
        if outcome.seat is not None:
            winner = players[outcome.seat]
            points[winner] += outcome.points
            won[winner] += 1
            dealer = players[1 - outcome.seat]  # the loser deals next
        if winner is not None and points[winner] >= rules.game_target:
            model.result = totals_result(
                Mode.THREE_PLAYER, rules, points, won, winner=winner, hands=number, by_target=True
            )
        elif number >= rules.hand_limit:
            model.result = totals_result(
                Mode.THREE_PLAYER,
                rules,
                points,
                won,
                winner=leader(points),
                hands=number,
                by_target=False,
            )
    return model


def partnership_model(rules: Rules, team: int, outcomes: Sequence[Outcome]) -> Model:
    model = Model(points=[[0, 0]])
    points, won = model.points[0], [0, 0]
    this_round = [0, 0]
    for number, outcome in enumerate(outcomes, 1):
        assert model.result is None, "the model is over: no more hands"
        rounds, table = divmod(number - 1, 2)
        players = PAIRINGS[rounds % 2][table]
        model.seatings.append((players, team, table))  # the team's player sits in its seat
        if outcome.seat is not None:
            this_round[TEAM[players[outcome.seat]]] += outcome.points
        if table == 0:
            continue
        a, b = this_round
        this_round = [0, 0]
        credited = None if a == b else (0 if a > b else 1)
        if credited is not None:
            points[credited] += abs(a - b)
            won[credited] += 1
            team = next_dealer(rules, team, credited)
        if credited is not None and points[credited] >= rules.game_target:
            model.result = totals_result(
                Mode.PARTNERSHIP, rules, points, won, winner=credited, hands=number, by_target=True
            )
        elif rounds + 1 >= rules.hand_limit:
            model.result = totals_result(
                Mode.PARTNERSHIP,
                rules,
                points,
                won,
                winner=leader(points),
                hands=number,
                by_target=False,
            )
    return model


def model_of(mode: Mode, rules: Rules, first_dealer: int, outcomes: Sequence[Outcome]) -> Model:
    models = {
        Mode.HOLLYWOOD: hollywood_model,
        Mode.THREE_PLAYER: three_player_model,
        Mode.PARTNERSHIP: partnership_model,
    }
    return models[mode](rules, first_dealer, outcomes)


def engine_points(session: Session) -> list[list[int]]:
    """The running points the model keeps, read from the engine."""
    if isinstance(session, Hollywood):
        return [list(column.points) for column in session.columns]
    assert isinstance(session, ThreePlayer | Partnership)
    return [list(session.scores)]


def seating_of(session: Session) -> Seating:
    return session.seated, session.hand.dealer, session.table


# -- random legal play -------------------------------------------------------------------------


def play_randomly(
    session: Session, choices: random.Random, max_hands: int = 400
) -> tuple[list[Seating], list[Outcome]]:
    """Play legal actions (knocking more often than chance) until the format ends, checking the
    seating invariants and the deck of every hand; the seatings and outcomes of the hands."""
    seatings: list[Seating] = []
    outcomes: list[Outcome] = []
    for _ in range(max_hands):
        check_seating_invariants(session)
        check_deck(session.hand.deck)
        seatings.append(seating_of(session))
        while True:
            legal = session.hand.legal_actions()
            knocks = [a for a in legal if a.kind.value == "knock"]
            pick = knocks if knocks and choices.random() < 0.7 else legal
            result = session.apply(choices.choice(pick))  # apply checks: IllegalAction if not
            if result is not None:
                break
        outcomes.append(Outcome(result.winner, result.points))
        assert session.results[-1] is result
        if session.is_over:
            return seatings, outcomes
        players, seat = session.next_seating
        session.next_hand()
        assert (session.seated, session.hand.dealer) == (players, seat)
    raise AssertionError(f"not over after {max_hands} hands")


def check_seating_invariants(session: Session) -> None:
    a, b = session.seated
    assert a != b
    if isinstance(session, ThreePlayer):
        dealer = session.dealer
        assert session.sitting_out == dealer and dealer not in (a, b)
        assert (a, b) == ((dealer + 1) % 3, (dealer + 2) % 3)
        assert session.hand.dealer == 1
    elif isinstance(session, Partnership):
        assert TEAM[a] == 0 and TEAM[b] == 1  # the team-0 player always in seat 0
        assert session.hand.dealer == session.dealer  # the dealing team's player deals
        assert (a, b) in PAIRINGS[session.rounds % 2]
        assert (a, b) == PAIRINGS[session.rounds % 2][session.table]
    else:
        assert (a, b) == (0, 1)
        assert session.hand.dealer == session.dealer


def check_result_consistency(session: Session) -> None:
    result = session.result
    assert isinstance(result, FormatResult)
    assert result.hands_played == len(session.results)
    sides = 2 if result.mode is not Mode.THREE_PLAYER else 3
    assert len(result.scores) == len(result.hand_points) == len(result.line_bonus) == sides
    if result.mode is Mode.HOLLYWOOD:
        assert len(result.games) == HOLLYWOOD_GAMES
        for p in (0, 1):
            assert result.scores[p] == sum(g.scores[p] for g in result.games)
            assert result.hand_points[p] == sum(g.hand_points[p] for g in result.games)
            assert result.line_bonus[p] == sum(g.line_bonus[p] for g in result.games)
            assert result.hands_won[p] == sum(1 for r in session.results if r.winner == p)
        for game in result.games:
            if game.end is GameEnd.TARGET:
                assert game.winner is not None
                assert game.hand_points[game.winner] >= session.rules.game_target
    else:
        assert not result.games
        bonus = [0] * sides
        if result.winner is not None:
            bonus[result.winner] = result.game_bonus
        for side in range(sides):
            assert result.scores[side] == (
                result.hand_points[side] + result.line_bonus[side] + bonus[side]
            )
    if result.end is GameEnd.TARGET and result.mode is not Mode.HOLLYWOOD:
        assert result.winner is not None
        assert result.hand_points[result.winner] >= session.rules.game_target


RANDOM_RULES = {
    "hoyle-60": HOYLE.replace(game_target=60),
    "bonus-loser-40": PRESETS["bonus"].replace(game_target=40, next_dealer="loser"),
    "alternate-limit-6": HOYLE.replace(game_target=80, next_dealer="alternate", hand_limit=6),
    "bonus-limit-3": PRESETS["bonus"].replace(game_target=100, hand_limit=3),
}


@pytest.mark.parametrize("mode", FORMATS)
@pytest.mark.parametrize("rules_name", sorted(RANDOM_RULES))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_play_to_the_end_agrees_with_the_model(
    mode: Mode, rules_name: str, seed: int
) -> None:
    rules = RANDOM_RULES[rules_name]
    if mode is Mode.THREE_PLAYER:  # R24: the loser deals, O12 stays at its default
        rules = rules.replace(next_dealer="winner")
    session = new_session(mode, rules, seed=seed)
    first_dealer = session.dealer
    seatings, outcomes = play_randomly(session, random.Random(f"{seed} {rules_name}"))
    model = model_of(mode, rules, first_dealer, outcomes)
    assert seatings == model.seatings
    assert session.result == model.result
    check_result_consistency(session)


# -- scripted hands (hypothesis) ---------------------------------------------------------------

GIN = "6C 7C 8C 9C TD TH TS JH QH KH"  # all melded
JUNK = {  # no meld: a gin against it scores 25 + its deadwood
    30: "AD AH 2S 2H 3D 3C 4S 4H 5C 5D",
    35: "AD AH 2S 2H 3D 3C 4S 4H 5C KD",
    40: "AD AH 2S 2H 3D 3C 4S 4H KC KD",
}
NON_DEALER_GINS = ["pass", "pass", "draw stock", "knock QS"]
DEALER_GINS = ["pass", "pass", "draw stock", "discard QS", "draw stock", "knock JS"]
NOBODY_KNOCKS = ["pass", "pass", "draw stock", "discard QS", "draw stock", "discard JS"]
SCRIPT_RULES = {"stock_exhausted_at": 29}  # NOBODY_KNOCKS is drawn at its second discard (R11)


@dataclass(frozen=True)
class Script:
    """A scripted hand: ``seat`` goes gin against ``junk`` (None: nobody knocks, drawn)."""

    seat: int | None
    junk: int = 30

    def deck(self, dealer: int) -> list[int]:
        seats = [GIN, JUNK[self.junk]] if self.seat in (0, None) else [JUNK[self.junk], GIN]
        return deck_for(seats[1 - dealer], seats[dealer], "KS", "QS JS")

    def actions(self, dealer: int) -> list[Action]:
        if self.seat is None:
            script = NOBODY_KNOCKS
        else:
            script = DEALER_GINS if self.seat == dealer else NON_DEALER_GINS
        return [Action.parse(text) for text in script]

    @property
    def outcome(self) -> Outcome:
        return Outcome(self.seat, 0 if self.seat is None else 25 + self.junk)


def play_script(
    mode: Mode, rules: Rules, seed: int, first_dealer: int | None, scripts: Sequence[Script]
) -> tuple[Session, list[Seating], list[Outcome]]:
    """Play the scripts in order until they run out or the format ends."""
    probe = new_session(mode, rules, seed, first_dealer)  # who deals the first hand, from where
    session = new_session(mode, rules, seed, first_dealer, scripts[0].deck(probe.hand.dealer))
    seatings: list[Seating] = []
    outcomes: list[Outcome] = []
    for number, script in enumerate(scripts):
        if number:
            if session.is_over:
                break
            session.next_hand(script.deck(session.next_seating[1]))
        seatings.append(seating_of(session))
        *moves, last = script.actions(session.hand.dealer)
        for action in moves:
            assert session.apply(action) is None
        result = session.apply(last)
        assert result is not None
        assert Outcome(result.winner, result.points) == script.outcome
        outcomes.append(script.outcome)
    return session, seatings, outcomes


scripts_strategy = st.lists(
    st.builds(Script, st.sampled_from([0, 1, 1, 0, None]), st.sampled_from([30, 35, 40])),
    min_size=1,
    max_size=24,
)


@st.composite
def format_rules(draw: st.DrawFn, mode: Mode) -> Rules:
    base = PRESETS[draw(st.sampled_from(["hoyle", "bonus"]))]
    next_dealer = "winner"
    if mode is not Mode.THREE_PLAYER:
        next_dealer = draw(st.sampled_from(["winner", "loser", "alternate"]))
    return base.replace(
        game_target=draw(st.integers(20, 200)),
        hand_limit=draw(st.integers(1, 12)),
        next_dealer=next_dealer,
        line_bonus=draw(st.sampled_from([0, 20])),
        shutout_bonus=draw(st.sampled_from([0, 100])),
        **SCRIPT_RULES,
    )


@st.composite
def format_games(draw: st.DrawFn) -> tuple[Mode, Rules, int | None, list[Script]]:
    mode = draw(st.sampled_from(FORMATS))
    dealers = 3 if mode is Mode.THREE_PLAYER else 2
    first = draw(st.none() | st.integers(0, dealers - 1))
    return mode, draw(format_rules(mode)), first, draw(scripts_strategy)


@settings(max_examples=120)
@given(game=format_games(), seed=st.integers(0, 2**64 - 1))
def test_scripted_hands_agree_with_the_model(
    game: tuple[Mode, Rules, int | None, list[Script]], seed: int
) -> None:
    mode, rules, first_dealer, scripts = game
    start = new_session(mode, rules, seed, first_dealer).dealer  # the first dealer, or team
    session, seatings, outcomes = play_script(mode, rules, seed, first_dealer, scripts)
    model = model_of(mode, rules, start, outcomes)
    assert seatings == model.seatings
    assert engine_points(session) == model.points
    assert session.result == model.result
    if session.result is not None:
        check_result_consistency(session)
    event(f"{mode}: {'going on' if session.result is None else session.result.end}")


def test_scripted_hands_reach_the_interesting_cases() -> None:
    """The scripts above can close one Hollywood game and not the others, split a round, level
    it, and end a format on the hand limit (so the property is not vacuous)."""
    rules = HOYLE.replace(game_target=60, **SCRIPT_RULES)
    session, _, _ = play_script(Mode.HOLLYWOOD, rules, 1, 0, [Script(0), Script(0)])
    assert isinstance(session, Hollywood)
    assert [c.result is not None for c in session.columns] == [True, False, False]
    assert [c.points for c in session.columns] == [[110, 0], [55, 0], [0, 0]]
    session, _, _ = play_script(Mode.PARTNERSHIP, rules, 1, 0, [Script(0), Script(1)])
    assert isinstance(session, Partnership)
    assert session.scores == [0, 0] and session.dealer == 0 and session.rounds == 1
    session, _, _ = play_script(Mode.PARTNERSHIP, rules, 1, 0, [Script(0, 35), Script(1)])
    assert isinstance(session, Partnership)
    assert session.scores == [5, 0] and session.hands_won == [1, 0]
    limited = rules.replace(hand_limit=2)
    session, _, _ = play_script(Mode.THREE_PLAYER, limited, 1, 0, [Script(None), Script(0)])
    assert session.result is not None and session.result.end is GameEnd.HAND_LIMIT
    assert session.result.winner == 1  # hand 2: dealer 0 again after the draw, seat 0 is 1


# -- the deal stream, the first dealer, determinism --------------------------------------------


@pytest.mark.parametrize("mode", FORMATS)
def test_every_hand_continues_the_one_deal_stream(mode: Mode) -> None:
    rules = HOYLE.replace(game_target=40)
    session = new_session(mode, rules, seed=99)
    stream = SplitMix64(99)
    stream.next()  # the first dealer's number
    decks = [session.hand.deck]
    choices = random.Random(5)
    while not session.is_over:
        while session.hand.phase is not Phase.FINISHED:
            session.apply(choices.choice(session.hand.legal_actions()))
        if not session.is_over:
            decks.append(session.next_hand().deck)
    assert decks == [stream.shuffled_deck() for _ in decks]


def test_the_first_dealer_comes_from_the_first_number() -> None:
    seen: dict[Mode, set[int]] = {mode: set() for mode in FORMATS}
    for seed in range(30):
        first = SplitMix64(seed).next()
        want = {
            Mode.HOLLYWOOD: first & 1,
            Mode.THREE_PLAYER: first % 3,
            Mode.PARTNERSHIP: first & 1,
        }
        for mode in FORMATS:
            session = new_session(mode, seed=seed)
            assert session.dealer == want[mode]
            seen[mode].add(session.dealer)
        assert new_session(Mode.HOLLYWOOD, seed=seed).dealer == Game(seed=seed).dealer
    assert seen == {Mode.HOLLYWOOD: {0, 1}, Mode.THREE_PLAYER: {0, 1, 2}, Mode.PARTNERSHIP: {0, 1}}


def test_a_given_first_dealer_does_not_change_the_deals() -> None:
    """The first number is drawn all the same (R4), so the first deck is the same."""
    for mode in FORMATS:
        decks = {new_session(mode, seed=8, first_dealer=d).hand.deck for d in (0, 1)}
        assert len(decks) == 1


def test_hollywood_deals_the_hands_of_a_two_player_game() -> None:
    """Same seed, same actions: the same decks, dealers and hand results, hand by hand, for as
    long as the two-player game lasts (it ends first: Hollywood needs three games decided)."""
    for seed in (4, 21):
        game, hollywood = Game(seed=seed), Hollywood(seed=seed)
        choices = random.Random(seed)
        hands = 0
        while not game.is_over:
            assert hollywood.hand.deck == game.hand.deck
            assert hollywood.hand.dealer == game.hand.dealer == hollywood.dealer == game.dealer
            while game.hand.phase is not Phase.FINISHED:
                action = choices.choice(game.hand.legal_actions())
                assert game.apply(action) == hollywood.apply(action)
            hands += 1
            if not game.is_over:
                game.next_hand()
                hollywood.next_hand()
        assert hands > 1
        # every win goes into game 1 while it is open: it is the two-player game, bonuses and all
        assert hollywood.columns[0].points == game.scores
        assert hollywood.columns[0].result == game.result


@pytest.mark.parametrize("mode", FORMATS)
def test_a_seed_and_the_actions_replay_the_same_game(mode: Mode) -> None:
    rules = HOYLE.replace(game_target=50)
    runs = []
    for _ in range(2):
        session = new_session(mode, rules, seed=2024)
        seatings, outcomes = play_randomly(session, random.Random(11))
        runs.append((seatings, outcomes, session.result, [r for r in session.results]))
    assert runs[0] == runs[1]


# -- errors -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "bad"),
    [
        (Mode.HOLLYWOOD, 2),
        (Mode.HOLLYWOOD, -1),
        (Mode.THREE_PLAYER, 3),
        (Mode.THREE_PLAYER, -1),
        (Mode.PARTNERSHIP, 2),
        (Mode.PARTNERSHIP, 3),
    ],
)
def test_a_first_dealer_out_of_range_is_an_error(mode: Mode, bad: int) -> None:
    with pytest.raises(ValueError, match="bad first dealer"):
        new_session(mode, seed=1, first_dealer=bad)


def test_every_first_dealer_in_range_is_accepted() -> None:
    assert [ThreePlayer(first_dealer=d).seated for d in range(3)] == [(1, 2), (2, 0), (0, 1)]
    assert [Partnership(first_dealer=t).hand.dealer for t in (0, 1)] == [0, 1]
    assert [Hollywood(first_dealer=p).hand.dealer for p in (0, 1)] == [0, 1]


@pytest.mark.parametrize("next_dealer", ["loser", "alternate"])
def test_three_players_refuse_a_next_dealer_option(next_dealer: str) -> None:
    rules = HOYLE.replace(next_dealer=next_dealer)
    with pytest.raises(FormatError, match="next_dealer"):
        check_rules(Mode.THREE_PLAYER, rules)
    with pytest.raises(FormatError, match="R24"):
        new_session(Mode.THREE_PLAYER, rules)
    with pytest.raises(FormatError):
        ThreePlayer(rules)
    for mode in (Mode.TWO_PLAYER, Mode.HOLLYWOOD, Mode.PARTNERSHIP):
        check_rules(mode, rules)
        assert new_session(mode, rules).rules == rules


def test_mode_parse() -> None:
    for mode in Mode:
        assert Mode.parse(mode.value) is mode
    assert [m.players for m in Mode] == [2, 2, 3, 4]
    assert [m for m in Mode if m.teams] == [Mode.PARTNERSHIP]
    assert [m for m in Mode if m.relative_seats] == [Mode.THREE_PLAYER, Mode.PARTNERSHIP]
    with pytest.raises(FormatError, match="unknown mode 'holywood': choose one of two-player"):
        Mode.parse("holywood")
    assert issubclass(FormatError, ValueError)


@given(text=st.text(max_size=20))
def test_mode_parse_refuses_every_other_name(text: str) -> None:
    if text in {m.value for m in Mode}:
        assert Mode.parse(text).value == text
    else:
        with pytest.raises(FormatError, match="unknown mode"):
            Mode.parse(text)


@pytest.mark.parametrize("mode", FORMATS)
def test_the_order_of_calls(mode: Mode) -> None:
    session = new_session(mode, seed=6)
    with pytest.raises(GameError, match="not over"):
        session.next_hand()
    hand = session.hand
    while hand.phase is not Phase.FINISHED:  # outside apply: the result must be recorded
        hand.apply_unchecked(hand.legal_actions()[0])
    assert hand.result is not None
    with pytest.raises(GameError, match="record"):
        session.next_hand()
    with pytest.raises(GameError, match="current hand"):
        session.record(HandResult(hand.result.end, hand.result.winner, hand.result.points))
    session.record(hand.result)
    with pytest.raises(GameError, match="already scored"):
        session.record(hand.result)
    assert session.results == [hand.result]
    session.next_hand()
    assert session.hand_number == 2


@pytest.mark.parametrize("mode", FORMATS)
def test_nothing_after_the_end(mode: Mode) -> None:
    rules = HOYLE.replace(hand_limit=1)
    session = new_session(mode, rules, seed=6)
    play_randomly(session, random.Random(1), max_hands=2)
    assert session.is_over and session.result is not None
    with pytest.raises(GameError, match="over"):
        session.next_hand()
    assert "after" in str(session.result)


def test_new_session_two_player_is_a_game() -> None:
    session = new_session(Mode.TWO_PLAYER, HOYLE, seed=3, first_dealer=1)
    assert isinstance(session, Game)
    assert (session.seated, session.table, session.next_seating) == ((0, 1), 0, ((0, 1), 1))
    assert session.hand.deck == Game(seed=3).hand.deck


def test_a_format_result_reads_well() -> None:
    result = FormatResult(Mode.PARTNERSHIP, 1, (30, 203), (10, 83), (1, 1), 100, (20, 20), 4)
    assert str(result) == "team 1 wins 30-203 after 4 hands"
    drawn = FormatResult(
        Mode.THREE_PLAYER,
        None,
        (55, 55, 0),
        (55, 55, 0),
        (1, 1, 0),
        0,
        (0, 0, 0),
        2,
        GameEnd.HAND_LIMIT,
    )
    assert str(drawn) == "drawn 55-55-0 after 2 hands (the hand limit)"
