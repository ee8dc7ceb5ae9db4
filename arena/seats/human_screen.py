"""What the human sees at the table of :class:`arena.seats.human.HumanBot`, drawn with rich: the
screen of a decision (:func:`situation`: the scores, the table, the hand with its melds and
deadwood, the menu), the events of the game in sentences (:func:`played_text`,
:func:`show_down_text`, :func:`score_words`, :func:`game_end_text`) and the rules in one line.
Everything is made from the bot's own :class:`~bots.sdk.View` and the protocol's messages: the
human sees exactly what any bot in that seat is told, nothing more.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.text import Text

from bots.sdk import View
from engine.cards import CARD_NAMES, cards_of, parse_card
from engine.hand import DRAW_DISCARD, ActionKind, Phase
from engine.hand import Action as EngineAction
from engine.hand import HandEnd as EngineHandEnd
from engine.melds import Arrangement, best_arrangement, deadwood
from engine.rules import Rules
from protocol import messages as m

SUIT_STYLES: Final = ("bold", "bold red", "bold red", "bold")
"""The style of each suit's cards (clubs, diamonds, hearts, spades): red suits red."""
DEADWOOD_STYLE: Final = "reverse"
"""Deadwood cards, in the hand and in the deadwood line (keeping their suit's colour)."""
MELD_STYLE: Final = "green"
"""The brackets around a meld."""
PILE_SHOWN: Final = 8
"""How many of the discard pile's top cards a screen shows."""


def rules_text(rules: Rules) -> str:
    """The rules that decide a hand's score, in one line (for the help)."""
    knock = (
        "Oklahoma: the first upcard sets the knock limit"
        if rules.oklahoma
        else f"knock limit {rules.knock_limit}"
    )
    return (
        f"Rules: {knock}, gin bonus {rules.gin_bonus}, undercut bonus {rules.undercut_bonus}"
        + (f", big gin bonus {rules.big_gin_bonus}" if rules.big_gin else "")
        + (", the card just taken may be discarded" if rules.discard_taken_card else "")
        + f", game to {rules.game_target}."
    )


# -- who is who -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Seating:
    """Who sits where: the human's ``seat`` and both players' names by seat (for the scores;
    sentences call the human "You")."""

    seat: int
    names: tuple[str, str]

    def who(self, seat: int) -> str:
        """The subject of a sentence about ``seat``."""
        return "You" if seat == self.seat else self.names[seat]

    def says(self, seat: int, you: str, other: str) -> str:
        """``seat`` as the subject of a verb: ``says(s, "knock", "knocks")``."""
        return f"{self.who(seat)} {you if seat == self.seat else other}"

    def scores(self, scores: Sequence[int], target: int | None = None) -> str:
        """The scores, the human's first: ``"you 25, random 40 (game to 100)"``."""
        order = (self.seat, 1 - self.seat)
        text = ", ".join(f"{self.names[s]} {scores[s]}" for s in order)
        return text if target is None else f"{text} (game to {target})"


# -- rendering ------------------------------------------------------------------------------------


def card_text(card: int, style: str = "") -> Text:
    """A card's name, in its suit's colour (and ``style``)."""
    suit_style = SUIT_STYLES[card // 13]
    return Text(CARD_NAMES[card], style=f"{suit_style} {style}".strip())


def cards_text(cards: Sequence[int] | int, style: str = "") -> Text:
    """Cards (a mask, or a list in its order) as names separated by spaces."""
    listed = cards_of(cards) if isinstance(cards, int) else list(cards)
    return Text(" ").join(card_text(c, style) for c in listed)


def melds_text(melds: Sequence[int]) -> Text:
    """Melds as ``[AS 2S 3S] [7C 7D 7H]``."""
    return Text(" ").join(
        Text.assemble(("[", MELD_STYLE), cards_text(meld), ("]", MELD_STYLE)) for meld in melds
    )


def hand_text(hand: int, arrangement: Arrangement, drawn: int | None = None) -> Text:
    """The hand by suit and rank, suits apart, its deadwood highlighted (``drawn``, the card just
    drawn, underlined)."""
    parts = []
    for suit in range(4):
        suit_cards = [c for c in cards_of(hand) if c // 13 == suit]
        if suit_cards:
            parts.append(
                Text(" ").join(
                    card_text(
                        c,
                        (DEADWOOD_STYLE if arrangement.deadwood_cards >> c & 1 else "")
                        + (" underline" if c == drawn else ""),
                    )
                    for c in suit_cards
                )
            )
    return Text("   ").join(parts)


def arrangement_lines(hand: int, drawn: int | None = None) -> list[Text]:
    """The hand, its best melds and its deadwood, one line each."""
    arrangement = best_arrangement(hand)
    dead = arrangement.deadwood_cards
    lines = [
        Text.assemble(("Your hand  ", "bold"), hand_text(hand, arrangement, drawn)),
        Text.assemble(
            ("  melds    ", "bold"),
            melds_text(arrangement.melds) if arrangement.melds else Text("none", style="dim"),
        ),
        Text.assemble(
            ("  deadwood ", "bold"),
            Text.assemble(cards_text(dead, DEADWOOD_STYLE), f" = {arrangement.deadwood}")
            if dead
            else Text("none: gin", style="bold green"),
        ),
    ]
    return lines


def pile_text(pile: Sequence[int]) -> Text:
    """The discard pile's top cards, bottom first, the top one marked."""
    if not pile:
        return Text("empty", style="dim")
    shown = pile[-PILE_SHOWN:]
    parts: list[Text] = []
    if len(pile) > len(shown):
        parts.append(Text(f"({len(pile) - len(shown)} more)", style="dim"))
    parts.extend(card_text(c) for c in shown[:-1])
    parts.append(Text.assemble("top: ", card_text(shown[-1], "underline")))
    return Text(" ").join(parts)


def action_label(action: EngineAction, view: View) -> str:
    """A legal action in words, for the menu."""
    kind = action.kind
    if kind is ActionKind.PASS:
        return "pass"
    if kind is ActionKind.DRAW_STOCK:
        return "draw from the stock"
    if kind is ActionKind.DRAW_DISCARD:
        return f"take {CARD_NAMES[view.upcard]}"
    if action.card is None:
        return "big gin (knock without a discard)"
    name = CARD_NAMES[action.card]
    if kind is ActionKind.DISCARD:
        return name
    left = deadwood(view.hand & ~(1 << action.card))
    return f"knock {name} (gin)" if left == 0 else f"knock {name} (deadwood {left})"


def menu(view: View) -> RenderableType:
    """The legal actions, numbered from 1: a digit picks one."""
    items = [Text(f"{n}) {action_label(a, view)}") for n, a in enumerate(view.legal, 1)]
    if view.phase is not Phase.DISCARD:
        return Text.assemble(("Choose  ", "bold"), Text("   ").join(items))
    discards = [i for i, a in zip(items, view.legal, strict=True) if a.kind is ActionKind.DISCARD]
    knocks = [i for i, a in zip(items, view.legal, strict=True) if a.kind is ActionKind.KNOCK]
    rows: list[RenderableType] = [Text("Discard", style="bold"), Columns(discards, padding=(0, 3))]
    if knocks:
        rows += [Text("Knock", style="bold"), Columns(knocks, padding=(0, 3))]
    return Group(*rows)


def situation(
    view: View,
    seating: Seating,
    scores: Sequence[int],
    target: int | None,
    hand_number: int,
    *,
    drawn: int | None = None,
) -> RenderableType:
    """The screen of a decision: the scores, the table (the discard pile, the stock, what is known
    of the opponent's hand), the human's hand with its melds and deadwood, and the menu."""
    other = 1 - seating.seat
    rules = view.rules
    title = f"Hand {hand_number} · {seating.scores(scores, target)}"
    known = view.opponent_known
    table = Text.assemble(
        (f"{seating.names[view.dealer]} dealt" if view.dealer == other else "You dealt"),
        f" · stock {view.stock_size} cards · knock limit "
        + (f"{view.knock_limit}" if view.knock_limit else "0 (gin only)"),
        " (Oklahoma)" if rules.oklahoma else "",
    )
    opponent = Text.assemble(
        (f"{seating.names[other]:<10} ", "bold"),
        f"{view.opponent_hand_size} cards",
        *(("; known: ", cards_text(known), " (taken from the pile)") if known else ()),
    )
    pile = Text.assemble(("Discards   ", "bold"), pile_text(view.discard_pile))
    if view.phase is Phase.FIRST_UPCARD:
        ask = f"Your turn: the first upcard {CARD_NAMES[view.upcard]} is offered. Take it or pass?"
    elif view.phase is Phase.DRAW:
        ask = "Your turn: draw from the stock" + (
            f" or take {CARD_NAMES[view.upcard]}."
            if DRAW_DISCARD in view.legal
            else " (both passed the upcard)."
        )
    else:
        ask = "Your turn: discard a card" + (", or knock." if view.can_knock() else ".")
        taken = view.taken_card
        if taken is not None and not rules.discard_taken_card:
            ask += f" ({CARD_NAMES[taken]}, just taken, may not be discarded.)"
    return Group(
        Rule(title, style="cyan"),
        table,
        opponent,
        pile,
        *arrangement_lines(view.hand, drawn),
        Text(ask, style="bold cyan"),
        menu(view),
    )


def played_text(message: m.Played, seating: Seating) -> Text:
    """An action as a sentence: ``"random discards 9C."``; the card drawn from the stock is
    named to its drawer only."""
    p, action = message.player, message.action
    mine = p == seating.seat
    if isinstance(action, m.PassAction):
        text = seating.says(p, "pass", "passes") + " on the first upcard."
    elif isinstance(action, m.DrawAction) and action.source == "stock":
        got = f" {message.card}" if message.card is not None else ""
        text = seating.says(p, "draw", "draws") + f"{got} from the stock."
    elif isinstance(action, m.DrawAction):
        text = seating.says(p, "take", "takes") + f" {message.card} from the discard pile."
    elif isinstance(action, m.DiscardAction):
        text = seating.says(p, "discard", "discards") + f" {action.card}."
    elif action.card is None:
        text = seating.says(p, "knock", "knocks") + " with big gin!"
    else:
        text = seating.says(p, "knock", "knocks") + f", discarding {action.card}."
    return Text(text, style="dim" if mine else "bold magenta")


def _names(cards: Sequence[str]) -> Text:
    return cards_text([parse_card(c) for c in cards])


def show_down_text(show: m.ShowDown, seating: Seating) -> RenderableType:
    """Both spreads after a knock: the knocker's melds and deadwood, the defender's melds,
    lay-offs and deadwood."""
    k, d = show.knocker, 1 - show.knocker
    width = max(len(seating.who(s)) for s in (0, 1)) + 2
    knocker_melds = [sum(1 << parse_card(c) for c in meld) for meld in show.knocker_melds]
    defender_melds = [sum(1 << parse_card(c) for c in meld) for meld in show.defender_melds]
    lines: list[RenderableType] = [
        Rule("Show-down", style="yellow"),
        Text.assemble(
            (f"{seating.who(k):<{width}}", "bold"),
            melds_text(knocker_melds) if knocker_melds else "no melds",
            "   deadwood ",
            _dead(show.knocker_deadwood_cards, show.knocker_deadwood),
        ),
        Text.assemble(
            (f"{seating.who(d):<{width}}", "bold"),
            melds_text(defender_melds) if defender_melds else "no melds",
            "   deadwood ",
            _dead(show.defender_deadwood_cards, show.defender_deadwood),
        ),
    ]
    if show.lay_offs:
        laid = Text(", ").join(
            Text.assemble(
                card_text(parse_card(lo.card)),
                " on ",
                melds_text([knocker_melds[lo.meld]]),
            )
            for lo in show.lay_offs
        )
        lines.append(
            Text.assemble((" " * width, ""), seating.says(d, "lay", "lays") + " off ", laid)
        )
    return Group(*lines)


def _dead(cards: Sequence[str], value: int) -> Text:
    if not cards:
        return Text("none (0)", style="bold green")
    return Text.assemble(_names(cards), f" = {value}")


def score_words(end: m.HandEnd, show: m.ShowDown | None, seating: Seating, rules: Rules) -> str:
    """How a hand ended and why it scores what it does, in words."""
    kind = end.end
    if kind is EngineHandEnd.DRAWN:
        return (
            f"The stock is down to {rules.stock_exhausted_at} cards with nobody knocking: the "
            "hand is drawn and nobody scores."
        )
    if kind is EngineHandEnd.TURN_LIMIT:
        return (
            f"The hand reached the turn limit ({rules.turn_limit} turns) with nobody knocking: "
            "it is drawn and nobody scores."
        )
    if show is None or end.winner is None:  # not sent by this referee; say what is known
        who = "Nobody" if end.winner is None else seating.who(end.winner)
        return f"{who} scores {end.points}."
    k, d = show.knocker, 1 - show.knocker
    kd, dd = show.knocker_deadwood, show.defender_deadwood
    winner = end.winner
    if kind is EngineHandEnd.BIG_GIN:
        head = seating.says(k, "have", "has") + " big gin: all eleven cards melded."
        sums, base = (
            f"{dd} (deadwood) + {rules.big_gin_bonus} (big gin bonus)",
            (dd + rules.big_gin_bonus),
        )
    elif kind is EngineHandEnd.GIN:
        head = seating.says(k, "go", "goes") + " gin: all ten cards melded, no lay-offs allowed."
        sums, base = f"{dd} (deadwood) + {rules.gin_bonus} (gin bonus)", dd + rules.gin_bonus
    elif kind is EngineHandEnd.UNDERCUT:
        head = (
            seating.says(k, "knock", "knocks")
            + f" with {kd} deadwood, but "
            + seating.says(d, "have", "has")
            + f" {dd} after laying off: "
            + seating.says(d, "undercut", "undercuts")
            + "."
        )
        sums, base = (
            f"{kd} - {dd} + {rules.undercut_bonus} (undercut bonus)",
            kd - dd + rules.undercut_bonus,
        )
    else:
        head = (
            seating.says(k, "knock", "knocks") + f" with {kd} deadwood against {dd} after lay-offs."
        )
        sums, base = f"{dd} - {kd}", dd - kd
    if end.doubled:
        sums, base = f"({sums}) x 2 (a spade upcard doubles)", base * 2
    score = seating.says(winner, "score", "scores")
    if base != end.points:  # rules this text does not know: the points alone
        return f"{head} {score} {end.points} points."
    return f"{head} {score} {sums} = {end.points} points."


def game_end_text(
    end: m.GameEnd, seating: Seating, before: Sequence[int] | None, single_hand: bool
) -> Text:
    """The end of a game in words: the winner, the final scores (and the end-of-game bonuses,
    the difference from the scores ``before`` them) and why it ended if not by the target."""
    scores = end.scores
    what = "hand" if single_hand else "game"
    reason = end.reason
    if end.winner is None:
        head = f"The {what} is drawn"
    else:
        head = seating.says(end.winner, "win", "wins") + f" the {what}"
    text = f"{head}: {seating.scores(scores)}."
    if reason == "hand_limit":
        text += " It reached the hand limit, so the points decide it."
    elif reason == "referee":
        text += " The referee could not go on, so it is drawn."
    elif reason != "normal" and end.winner is not None:
        text += f" It ended early: {seating.who(1 - end.winner)} forfeits ({reason})."
    if before is not None and list(before) != list(scores) and not single_hand:
        bonus = ", ".join(
            f"{seating.names[s]} +{scores[s] - before[s]}"
            for s in (seating.seat, 1 - seating.seat)
            if scores[s] != before[s]
        )
        text += f" End-of-game bonuses: {bonus}."
    return Text(text, style="bold")


__all__ = [
    "Seating",
    "action_label",
    "arrangement_lines",
    "game_end_text",
    "menu",
    "played_text",
    "rules_text",
    "score_words",
    "show_down_text",
    "situation",
]
