"""``gin-arena play``: a person against a bot in the terminal.

The input parser and the screens are tested directly, on hands built card by card; the command
is driven in a pseudo-terminal (pexpect) as a person would drive it: a whole game to its end,
answering every prompt from the menu printed on the screen, bad input asked again, quit, the end
of input and Ctrl-C. ``TERM=dumb`` keeps rich from writing colour codes into the screens read
back.
"""

from __future__ import annotations

import argparse
import io
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from support import QUICK, ROOT, cli_env, gin_arena_command

# rich is a dependency of the package (pip install -e '.[test]' brings it); in an interpreter
# without it, these tests are skipped with the reason instead of stopping the whole collection.
pytest.importorskip("rich", reason="rich is not installed: pip install -e '.[test]'")
from rich.console import Console, RenderableType

from arena.cli import play as play_cmd
from arena.cli.play import HumanSpec
from arena.play.match import Match
from arena.play.referee import Clock
from arena.seats.botspec import BotSpec
from arena.seats.human import PAUSE_PROMPT, HumanBot, Quit
from arena.seats.human_input import InputError, Meta, parse_input
from arena.seats.human_screen import (
    Seating,
    action_label,
    game_end_text,
    menu,
    played_text,
    rules_text,
    score_words,
    show_down_text,
    situation,
)
from bots.sdk import View
from engine.cards import VALUES, cards_of, parse_card, parse_cards
from engine.hand import (
    BIG_GIN,
    DISCARDS,
    DRAW_DISCARD,
    DRAW_STOCK,
    KNOCKS,
    PASS,
    Action,
    Hand,
)
from engine.rules import Rules
from protocol import messages as m
from protocol.views import Decision

SEATING = Seating(0, ("ann", "random"))


# -- hands built card by card -------------------------------------------------------------------


def deal(mine: str, theirs: str, upcard: str, stock: str = "") -> list[int]:
    """A deck dealing ``mine`` to the non-dealer (seat 0, seat 1 deals), ``theirs`` to the
    dealer, then ``upcard``, then the stock from the top."""
    own, other = cards_of(parse_cards(mine)), cards_of(parse_cards(theirs))
    order = [card for pair in zip(own, other, strict=True) for card in pair]
    order += [parse_card(upcard), *(parse_card(c) for c in stock.split())]
    return order + [c for c in range(52) if c not in order]


MINE = "AS 2S 3S 7C 7D 7H 9C KD QH 4D"
"""Melds AS 2S 3S and 7C 7D 7H; deadwood 4D 9C KD QH = 33."""
THEIRS = "5C 6C 8C 2H 3H 4H 5H JS QS KS"


def hand_of(
    *actions: Action, mine: str = MINE, upcard: str = "8S", stock: str = "5D", **rules: Any
) -> tuple[Hand, Rules]:
    """A hand with seat 0 (the human) the non-dealer, after ``actions``."""
    chosen = Rules().replace(**rules)
    hand = Hand(chosen, dealer=1, deck=deal(mine, THEIRS, upcard, stock))
    for action in actions:
        hand.apply(action)
    return hand, chosen


def view_of(hand: Hand, rules: Rules) -> View:
    """The view the referee shows the player to move, as it shows a bot in its process."""
    decision = Decision(
        1,
        hand.decision_phase,
        hand.legal_actions(),
        hand.observation(hand.to_move),
        1,
        [0, 0],
        rules.game_target,
        1000,
        1.1,
        0.0,
    )
    return View.of_decision(decision, rules)


def rendered(item: RenderableType) -> str:
    console = Console(file=io.StringIO(), width=100, color_system=None, highlight=False)
    console.print(item)
    out = console.file.getvalue()
    assert isinstance(out, str)
    return out


# -- the input parser -----------------------------------------------------------------------------


def test_the_first_upcard_is_taken_or_passed() -> None:
    view = view_of(*hand_of())
    for text in ("t", "take", "T", " yes ", "take 8s", "1"):
        assert parse_input(text, view) == DRAW_DISCARD, text
    for text in ("p", "pass", "PASS", "n", "2"):
        assert parse_input(text, view) == PASS, text
    with pytest.raises(InputError, match="first upcard 8S is offered: take it"):
        parse_input("d", view)
    with pytest.raises(InputError, match="first upcard 8S is offered"):
        parse_input("7h", view)
    with pytest.raises(InputError, match="Only the top card of the discard pile can be taken: 8S"):
        parse_input("take 9c", view)


def test_help_quit_numbers_and_nonsense() -> None:
    view = view_of(*hand_of())
    assert parse_input("?", view) is Meta.HELP
    assert parse_input("help", view) is Meta.HELP
    assert parse_input("q", view) is Meta.QUIT
    assert parse_input(" Quit ", view) is Meta.QUIT
    with pytest.raises(InputError, match=r"Type an action \(t to take 8S or p to pass\)"):
        parse_input("   ", view)
    with pytest.raises(InputError, match="no action 3 in the menu: choose 1 to 2"):
        parse_input("3", view)
    with pytest.raises(InputError, match="no action 0"):
        parse_input("0", view)
    with pytest.raises(InputError, match="'fold' is not an action"):
        parse_input("fold", view)


def test_the_draw() -> None:
    view = view_of(*hand_of(PASS, DRAW_DISCARD, DISCARDS[parse_card("QS")]))
    for text in ("d", "draw", "stock", "Draw Stock", "1"):
        assert parse_input(text, view) == DRAW_STOCK, text
    for text in ("t", "take", "discard pile", "take qs", "2"):
        assert parse_input(text, view) == DRAW_DISCARD, text
    with pytest.raises(InputError, match="Passing is only for the first upcard"):
        parse_input("p", view)
    with pytest.raises(InputError, match="Draw first"):
        parse_input("9c", view)
    with pytest.raises(InputError, match="Draw first"):
        parse_input("k 9c", view)


def test_after_both_pass_the_stock_must_be_drawn() -> None:
    view = view_of(*hand_of(PASS, PASS))
    assert view.legal == (DRAW_STOCK,)
    assert parse_input("d", view) == DRAW_STOCK
    with pytest.raises(InputError, match="Both players passed the first upcard"):
        parse_input("t", view)


def test_discards_in_every_notation() -> None:
    view = view_of(*hand_of(PASS, PASS, DRAW_STOCK, stock="TD"))
    for text in ("TD", "td", "10d", "10D", "discard 10d", "discard TD"):
        assert parse_input(text, view) == DISCARDS[parse_card("TD")], text
    assert parse_input("1", view) == view.legal[0]
    with pytest.raises(InputError, match="You do not hold 8S"):
        parse_input("8s", view)
    with pytest.raises(InputError, match="You have drawn: now discard a card or knock"):
        parse_input("d", view)
    with pytest.raises(InputError, match="'1x' is not an action"):
        parse_input("1x", view)
    with pytest.raises(InputError, match="'zz' is not a card"):
        parse_input("discard zz", view)


def test_the_card_just_taken_may_not_be_discarded() -> None:
    view = view_of(*hand_of(DRAW_DISCARD))
    with pytest.raises(InputError, match="You just took 8S from the discard pile"):
        parse_input("8s", view)
    with pytest.raises(InputError, match="You just took 8S"):
        parse_input("k 8s", view)
    with pytest.raises(InputError, match="You have drawn"):
        parse_input("t", view)
    with pytest.raises(InputError, match="The discard pile is empty"):
        parse_input("take 8s", view)
    allowed = view_of(*hand_of(DRAW_DISCARD, discard_taken_card=True))
    assert parse_input("8s", allowed) == DISCARDS[parse_card("8S")]


def test_knocks() -> None:
    # 5D from the stock: melds AS 2S 3S, 7C 7D 7H; discarding KD leaves 4D 5D 9C QH = 28 (no
    # knock); with knock_limit 10 and the hand below, 9C QH KD go and a knock is offered.
    view = view_of(*hand_of(PASS, PASS, DRAW_STOCK, stock="5D"))
    assert not view.can_knock()
    with pytest.raises(
        InputError, match="cannot knock discarding KD: that leaves 28 deadwood, and a knock "
    ):
        parse_input("k kd", view)
    near = "AS 2S 3S 7C 7D 7H 9C 9D 9H 4D"  # deadwood 4D
    view = view_of(*hand_of(PASS, PASS, DRAW_STOCK, mine=near, stock="KC"))
    knock = KNOCKS[parse_card("KC")]
    for text in ("k kc", "knock KC", "k KC", "kkc", "K Kc"):
        assert parse_input(text, view) == knock, text
    assert parse_input(str(view.legal.index(knock) + 1), view) == knock
    assert action_label(knock, view) == "knock KC (deadwood 4)"
    assert action_label(KNOCKS[parse_card("4D")], view) == "knock 4D (deadwood 10)"
    with pytest.raises(InputError, match="Declare no melds"):
        parse_input("k kc / AS 2S 3S", view)
    with pytest.raises(InputError, match="A knock needs a discard"):
        parse_input("knock", view)
    gin_only = view_of(*hand_of(PASS, PASS, DRAW_STOCK, mine=near, stock="KC", knock_limit=0))
    with pytest.raises(InputError, match=r"leaves 4 deadwood, and a knock allows only gin"):
        parse_input("k kc", gin_only)


def test_big_gin_is_a_knock_without_a_card() -> None:
    melded = "AS 2S 3S 7C 7D 7H 9C 9D 9H 4S"
    view = view_of(*hand_of(PASS, PASS, DRAW_STOCK, mine=melded, stock="5S", big_gin=True))
    assert parse_input("knock", view) == BIG_GIN
    assert action_label(BIG_GIN, view) == "big gin (knock without a discard)"
    assert action_label(KNOCKS[parse_card("5S")], view) == "knock 5S (gin)"
    short = view_of(*hand_of(PASS, PASS, DRAW_STOCK, mine=melded, stock="KC", big_gin=True))
    with pytest.raises(InputError, match="Big gin needs all eleven cards melded; 10 deadwood"):
        parse_input("knock", short)


# -- the screens ----------------------------------------------------------------------------------


def test_the_screen_of_a_decision() -> None:
    hand, rules = hand_of(PASS, DRAW_DISCARD, DISCARDS[parse_card("QS")])
    text = rendered(situation(view_of(hand, rules), SEATING, [12, 30], 100, 2))
    assert "Hand 2 · ann 12, random 30 (game to 100)" in text
    assert "random dealt · stock 31 cards · knock limit 10" in text
    assert "random     10 cards; known: 8S (taken from the pile)" in text
    assert "Discards   top: QS" in text
    assert "Your hand  7C 9C   4D 7D KD   7H QH   AS 2S 3S" in text  # by suit, then rank
    assert "melds    [7C 7D 7H] [AS 2S 3S]" in text
    assert "deadwood 9C 4D KD QH = 33" in text
    assert "Your turn: draw from the stock or take QS." in text
    assert "1) draw from the stock   2) take QS" in text


def test_the_screen_of_a_discard_shows_knocks_and_the_taken_card() -> None:
    near = "AS 2S 3S 7C 7D 7H 9C 9D 9H 4D"
    hand, rules = hand_of(DRAW_DISCARD, mine=near, upcard="KC")
    view = view_of(hand, rules)
    text = rendered(situation(view, SEATING, [0, 0], None, 1, drawn=parse_card("KC")))
    assert "(game to" not in text
    assert "Discards   empty" in text
    assert "deadwood KC 4D = 14" in text
    assert "Your turn: discard a card, or knock. (KC, just taken, may not be discarded.)" in text
    assert "Discard\n" in text and "Knock\n" in text
    items = dict(re.findall(r"(\d+)\) (knock \w\w \(deadwood \d+\)|\w\w\b)", text))
    assert len(items) == len(view.legal)
    assert items[str(view.legal.index(KNOCKS[parse_card("4D")]) + 1)] == "knock 4D (deadwood 10)"
    assert "knock 4D (deadwood 10)" in rendered(menu(view))
    assert "KC" not in [items[k] for k in items]  # the taken card is not offered


def test_gin_and_no_melds_on_the_screen() -> None:
    gin = "AS 2S 3S 7C 7D 7H 9C 9D 9H TH"
    text = rendered(situation(view_of(*hand_of(mine=gin, upcard="TS")), SEATING, [0, 0], 100, 1))
    assert "deadwood TH = 10" in text
    loose = "AS 3S 5S 7C 9D JH KC 2D 6H TD"
    text = rendered(situation(view_of(*hand_of(mine=loose)), SEATING, [0, 0], 100, 1))
    assert "melds    none" in text


def test_the_rules_in_the_help() -> None:
    assert rules_text(Rules()) == (
        "Rules: knock limit 10, gin bonus 25, undercut bonus 10, game to 100."
    )
    assert rules_text(Rules.preset("oklahoma").replace(big_gin=True)).startswith(
        "Rules: Oklahoma: the first upcard sets the knock limit, gin bonus"
    )
    assert "big gin bonus 31" in rules_text(Rules(big_gin=True))


def test_the_played_events_in_words() -> None:
    def said(player: int, action: dict[str, Any], card: str | None = None) -> str:
        message = m.Played.model_validate(
            {"type": "played", "player": player, "action": action, "card": card}
        )
        return played_text(message, SEATING).plain

    assert said(1, {"kind": "pass"}) == "random passes on the first upcard."
    assert said(0, {"kind": "pass"}) == "You pass on the first upcard."
    assert said(1, {"kind": "draw", "source": "stock"}) == "random draws from the stock."
    assert said(0, {"kind": "draw", "source": "stock"}, "5D") == "You draw 5D from the stock."
    assert said(1, {"kind": "draw", "source": "discard"}, "QS") == (
        "random takes QS from the discard pile."
    )
    assert said(1, {"kind": "discard", "card": "9C"}) == "random discards 9C."
    assert said(0, {"kind": "discard", "card": "9C"}) == "You discard 9C."
    assert said(1, {"kind": "knock", "card": "4D"}) == "random knocks, discarding 4D."
    assert said(0, {"kind": "knock"}) == "You knock with big gin!"


def show_down(**fields: Any) -> m.ShowDown:
    base: dict[str, Any] = {
        "type": "show_down",
        "knocker": 1,
        "discard": "KD",
        "knocker_melds": [["AS", "2S", "3S"], ["7C", "7D", "7H"]],
        "knocker_deadwood_cards": ["4D"],
        "knocker_deadwood": 4,
        "defender_melds": [["9C", "9D", "9H"]],
        "lay_offs": [{"card": "4S", "meld": 0}, {"card": "7S", "meld": 1}],
        "defender_deadwood_cards": ["2C", "5H", "8D"],
        "defender_deadwood": 15,
    }
    return m.ShowDown.model_validate(base | fields)


def hand_end(end: str, winner: int | None, points: int, **fields: Any) -> m.HandEnd:
    return m.HandEnd.model_validate(
        {"type": "hand_end", "end": end, "winner": winner, "points": points, "scores": [0, 0]}
        | fields
    )


def test_the_show_down_with_lay_offs() -> None:
    text = rendered(show_down_text(show_down(), SEATING))
    assert "Show-down" in text
    assert "random  [AS 2S 3S] [7C 7D 7H]   deadwood 4D = 4" in text
    assert "You     [9C 9D 9H]   deadwood 2C 5H 8D = 15" in text
    assert "You lay off 4S on [AS 2S 3S], 7S on [7C 7D 7H]" in text
    gin = show_down(knocker=0, knocker_deadwood_cards=[], knocker_deadwood=0, lay_offs=[])
    text = rendered(show_down_text(gin, SEATING))
    assert "You     [AS 2S 3S] [7C 7D 7H]   deadwood none (0)" in text
    assert "lay" not in text


def test_the_score_explained() -> None:
    rules = Rules()
    knock = score_words(hand_end("knock", 1, 11), show_down(), SEATING, rules)
    assert knock == (
        "random knocks with 4 deadwood against 15 after lay-offs. random scores 15 - 4 = 11 points."
    )
    undercut = show_down(knocker=0, knocker_deadwood=9, defender_deadwood=5)
    assert score_words(hand_end("undercut", 1, 14), undercut, SEATING, rules) == (
        "You knock with 9 deadwood, but random has 5 after laying off: random undercuts. "
        "random scores 9 - 5 + 10 (undercut bonus) = 14 points."
    )
    gin = show_down(knocker=0, knocker_deadwood=0, defender_deadwood=15)
    assert score_words(hand_end("gin", 0, 40), gin, SEATING, rules) == (
        "You go gin: all ten cards melded, no lay-offs allowed. You score 15 (deadwood) + 25 "
        "(gin bonus) = 40 points."
    )
    big = show_down(knocker=1, discard=None, knocker_deadwood=0, defender_deadwood=15)
    assert score_words(hand_end("big_gin", 1, 46), big, SEATING, rules) == (
        "random has big gin: all eleven cards melded. random scores 15 (deadwood) + 31 (big gin "
        "bonus) = 46 points."
    )
    doubled = score_words(hand_end("knock", 1, 22, doubled=True), show_down(), SEATING, rules)
    assert doubled.endswith("random scores (15 - 4) x 2 (a spade upcard doubles) = 22 points.")
    assert score_words(hand_end("drawn", None, 0), None, SEATING, rules) == (
        "The stock is down to 2 cards with nobody knocking: the hand is drawn and nobody scores."
    )
    assert "turn limit (100 turns)" in score_words(
        hand_end("turn_limit", None, 0), None, SEATING, rules
    )
    odd = score_words(hand_end("knock", 1, 99), show_down(), SEATING, rules)
    assert odd.endswith("random scores 99 points.")  # sums it cannot explain: the points alone


def test_the_end_of_a_game_in_words() -> None:
    def end(winner: int | None, scores: list[int], reason: str = "normal") -> m.GameEnd:
        return m.GameEnd(type="game_end", winner=winner, scores=scores, reason=reason)

    assert game_end_text(end(0, [112, 40]), SEATING, [112, 40], False).plain == (
        "You win the game: ann 112, random 40."
    )
    assert game_end_text(end(1, [60, 205]), SEATING, [60, 105], False).plain == (
        "random wins the game: ann 60, random 205. End-of-game bonuses: random +100."
    )
    assert game_end_text(end(0, [10, 5], "timeout"), SEATING, [10, 5], False).plain == (
        "You win the game: ann 10, random 5. It ended early: random forfeits (timeout)."
    )
    assert (
        "hand limit" in game_end_text(end(None, [50, 50], "hand_limit"), SEATING, None, False).plain
    )
    assert game_end_text(end(1, [0, 25], "normal"), SEATING, [0, 25], True).plain == (
        "random wins the hand: ann 0, random 25."
    )
    other_seat = Seating(1, ("random", "ann"))
    assert game_end_text(end(1, [3, 112]), other_seat, None, False).plain == (
        "You win the game: ann 112, random 3."
    )


# -- the human in a match, in this process ------------------------------------------------------


class Script:
    """Answers for a :class:`HumanBot`: each prompt is answered by ``answer(prompt, screen)``,
    the screen being everything printed since the previous prompt."""

    def __init__(self, console: Console, answers: Sequence[str] = ()) -> None:
        self.console = console
        self.answers = list(answers)
        self.prompts: list[str] = []
        self.seen = 0

    def screen(self) -> str:
        out = self.console.file.getvalue()
        assert isinstance(out, str)
        screen, self.seen = out[self.seen :], len(out)
        return screen

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        screen = self.screen()
        if self.answers:
            return self.answers.pop(0)
        return answer(prompt, screen)


def answer(prompt: str, screen: str) -> str:
    """A plain strategy read off the screen: pass the first upcard, draw from the stock, knock
    when the menu offers it (typed as ``k CARD``), else discard the deadwood card of highest value
    (by its menu number)."""
    if prompt == PAUSE_PROMPT:
        return ""
    if prompt == "upcard> ":
        return "p"
    if prompt == "draw> ":
        return "d"
    assert prompt == "discard> ", prompt
    knocks = re.findall(r"\d+\) knock (\w\w) \(", screen)
    if knocks:
        return f"k {knocks[0]}"
    items = {card: number for number, card in re.findall(r"(\d+)\) (\w\w)\b", screen)}
    dead = re.findall(r"deadwood ((?:\w\w )+)=", screen)
    assert dead, screen
    choices = [c for c in dead[-1].split() if c in items] or list(items)
    return items[max(choices, key=lambda c: (VALUES[parse_card(c)], c))]


def test_a_whole_game_in_this_process() -> None:
    console = Console(file=io.StringIO(), width=100, color_system=None, highlight=False)
    script = Script(console, ["zz", "?"])
    human = HumanBot(console, read=script, names=("ann", "random"))
    match = Match(
        (HumanSpec("ann", human=human), BotSpec("random", builtin="random")),
        Rules(game_target=30),
        Clock(),
        games=1,
        seed=11,
    )
    result = match.play()
    out = console.file.getvalue()
    assert isinstance(out, str)
    assert result.played == 1 and result.games[0].outcome.failure is None
    assert "'zz' is not an action" in out and "Answer a prompt with one of" in out
    assert "Show-down" in out and "Game over" in out
    assert re.search(r"(You win|random wins) the game: ann \d+, random \d+\.", out)
    assert human.quit is None


def test_quitting_forfeits_the_game_and_is_reported() -> None:
    console = Console(file=io.StringIO(), width=100, color_system=None, highlight=False)
    human = HumanBot(console, read=Script(console, ["q", "y"]), names=("ann", "random"))
    match = Match(
        (HumanSpec("ann", human=human), BotSpec("random", builtin="random")),
        Rules(),
        games=1,
        seed=1,
    )
    reports = []
    result = match.play(on_game=lambda report, result: reports.append(report))
    assert isinstance(human.quit, Quit) and str(human.quit) == "you quit"
    outcome = reports[0].outcome
    assert outcome.failure is not None and outcome.failure.seat == 0
    assert outcome.winner == 1 and result.played == 1
    out = console.file.getvalue()
    assert isinstance(out, str)
    assert "Game over" not in out and "referee" not in out


def test_quit_asks_first_and_a_no_plays_on() -> None:
    console = Console(file=io.StringIO(), width=100, color_system=None, highlight=False)
    script = Script(console, ["q", "", "quit", "n"])
    human = HumanBot(console, read=script, names=("ann", "random"))
    match = Match(
        (HumanSpec("ann", human=human), BotSpec("random", builtin="random")),
        Rules(game_target=30),
        games=1,
        seed=11,
    )
    result = match.play()
    assert human.quit is None and result.games[0].outcome.failure is None
    forfeit = "forfeit this game? [y/N] "
    first = script.prompts[0]  # the same decision asked again after each no
    assert script.prompts[:5] == [first, forfeit, first, forfeit, first], script.prompts


def test_the_end_of_input_leaves() -> None:
    console = Console(file=io.StringIO(), width=100, color_system=None, highlight=False)

    def read(prompt: str) -> str:
        raise EOFError

    human = HumanBot(console, read=read)
    with pytest.raises(Quit, match="end of input"):
        human.ask("draw> ")
    assert isinstance(human.quit, Quit)


def test_the_command_checks_its_arguments() -> None:
    parser = argparse.ArgumentParser()
    play_cmd.add_arguments(parser)
    with pytest.raises(ValueError, match="bad seed -1"):
        play_cmd.run(parser.parse_args(["random", "--seed", "-1"]))
    with pytest.raises(ValueError, match="--name must not be empty"):
        play_cmd.run(parser.parse_args(["random", "--name", " "]))
    with pytest.raises(ValueError, match="unknown rules option 'nonsense'"):
        play_cmd.run(parser.parse_args(["random", "--set", "nonsense=1"]))
    with pytest.raises(ValueError, match=r"must give at least 0\.25 s a move"):
        play_cmd.run(parser.parse_args(["random", "--move-time", "0.1", "--grace", "0.1"]))
    args = parser.parse_args(["greedy", "--target", "50", "--hands", "3"])
    assert (args.bot, args.target, args.hands, args.games) == ("greedy", 50, 3, None)
    with pytest.raises(SystemExit):
        parser.parse_args(["greedy", "--hands", "3", "--games", "2"])
    with pytest.raises(RuntimeError, match="needs its HumanBot"):
        HumanSpec("x").connect(ROOT)


# -- in a pseudo-terminal, as a person plays ----------------------------------------------------

PROMPT = r"(upcard|draw|discard)> |" + re.escape(PAUSE_PROMPT)


def spawn(*args: str) -> Any:
    pexpect = pytest.importorskip("pexpect")
    command = gin_arena_command("play", *args)
    child = pexpect.spawn(
        command[0],
        command[1:],
        cwd=str(ROOT),
        env=cli_env(TERM="dumb", NO_COLOR="1"),
        dimensions=(50, 120),
        encoding="utf-8",
        timeout=QUICK,  # each expected screen
    )
    return child


def finish(child: Any) -> str:
    """The rest of the output, once the program has exited."""
    pexpect = pytest.importorskip("pexpect")
    child.expect(pexpect.EOF)
    rest = str(child.before)
    child.close()
    return rest


def play(child: Any, until: str = "") -> tuple[str, int]:
    """Answer every prompt with :func:`answer` until the program exits, or until a screen holds
    ``until`` (its prompt is left unanswered); return the transcript and how many times the
    program waited for Enter."""
    pexpect = pytest.importorskip("pexpect")
    transcript = []
    prompts = pauses = 0
    while True:
        index = child.expect([PROMPT, pexpect.EOF])
        screen = str(child.before)
        transcript.append(screen)
        if index == 1:
            break
        prompt = str(child.after)
        transcript.append(prompt)
        if until and until in screen:
            break
        pauses += prompt == PAUSE_PROMPT
        if prompt != PAUSE_PROMPT:
            assert "Your hand" in screen and "melds" in screen and "deadwood" in screen
            assert "Discards" in screen and "1) " in screen
        prompts += 1
        assert prompts < 1000, "the game does not end"
        child.sendline(answer(prompt, screen))
    return "".join(transcript), pauses


@pytest.mark.slow  # a whole game through a terminal, several hands: the slow lane
def test_a_whole_game_in_a_terminal() -> None:
    child = spawn("random", "--seed", "12", "--set", "game_target=50", "--name", "ann")
    text, pauses = play(child)
    child.close()
    assert child.exitstatus == 0, text
    assert "Traceback" not in text
    assert "ann v random: 1 game, rules hoyle (game_target=50), game to 50." in text
    assert "Hand 1: random deals; the first upcard is" in text
    assert "Hand 2: " in text and pauses >= 1  # Enter between hands
    assert "Show-down" in text
    assert re.search(r"scores? [^.]*= \d+\s+points\.", text)
    assert re.search(r"Scores: ann \d+, random \d+ \(game to 50\)", text)
    assert "Game over" in text
    assert re.search(r"(You win|random wins) the game: ann \d+, random \d+\.", text)
    assert re.search(r"ann won [01] and random won [01] of 1 game; seed 12\.", text)


def test_bad_input_is_asked_again_and_quit_exits_0() -> None:
    child = spawn("random", "--seed", "4")
    child.expect("upcard> ")
    assert "Your hand" in str(child.before)
    child.sendline("fold")
    child.expect("'fold' is not an action")
    child.expect("upcard> ")
    child.sendline("d")
    child.expect("is offered: take it \\(t\\) or pass \\(p\\)")
    child.expect("upcard> ")
    child.sendline("7")
    child.expect("There is no action 7 in the menu: choose 1 to 2.")
    child.expect("upcard> ")
    child.sendline("?")
    child.expect("Answer a prompt with one of")
    child.expect("Rules: knock limit 10, gin bonus 25")
    child.expect("upcard> ")
    child.sendline("q")
    child.expect(re.escape("forfeit this game? [y/N] "))
    child.sendline("n")
    child.expect("upcard> ")
    child.sendline("q")
    child.expect(re.escape("forfeit this game? [y/N] "))
    child.sendline("y")
    rest = finish(child)
    assert "You left the game (you quit): it counts as forfeited. Seed 4." in rest
    assert "Traceback" not in rest
    assert child.exitstatus == 0


def test_leaving_between_games_forfeits_nothing() -> None:
    child = spawn("random", "--seed", "3", "--games", "2", "--target", "1")
    text, _ = play(child, until="Game 2 of 2 is next.")
    assert "Game over" in text
    child.sendline("quit")
    rest = finish(child)
    assert "You left after 1 of 2 games (you quit). Seed 3." in rest
    assert "Traceback" not in rest
    assert child.exitstatus == 0


def test_the_end_of_input_exits_cleanly() -> None:
    child = spawn("random", "--seed", "4")
    child.expect("upcard> ")
    child.sendeof()
    rest = finish(child)
    assert "You left the game (end of input)" in rest
    assert "Traceback" not in rest
    assert child.exitstatus == 0


def test_ctrl_c_exits_130() -> None:
    child = spawn("random", "--seed", "4")
    child.expect("upcard> ")
    child.sendintr()
    rest = finish(child)
    assert "interrupted: the game is abandoned (seed 4)" in rest
    assert "Traceback" not in rest
    assert child.exitstatus == 130


def test_the_games_are_recorded(tmp_path: Path) -> None:
    """``--record FILE``: the games as ``match --record`` writes them, a game left ending in the
    human's forfeit."""
    record = tmp_path / "left.jsonl"
    child = spawn("random", "--seed", "4", "--name", "ann", "--record", str(record))
    child.expect("upcard> ")
    child.sendline("q")
    child.expect(re.escape("forfeit this game? [y/N] "))
    child.sendline("y")
    rest = finish(child)
    assert child.exitstatus == 0 and "The record is in" in rest, rest
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert [bot["name"] for bot in lines[0]["bots"]] == ["ann", "random"]
    assert (lines[-1]["type"], lines[-1]["winner"], lines[-1]["failure"]["seat"]) == (
        "game_end",
        1,
        0,
    )
