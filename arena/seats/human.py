"""A person at the table: :class:`HumanBot`, a :class:`bots.sdk.Bot` whose decisions are typed in
a terminal (``gin-arena play``).

The human is an ordinary SDK bot, run in this process by the ordinary referee against any other
bot, so every rule is enforced by the same code as in any match: what the player types is read
here (:func:`parse_input`) and checked against the request's legal actions before it is sent, so
that a typing mistake asks again rather than forfeits. The screens are made with rich from the
bot's own :class:`~bots.sdk.View` and the events of the protocol (``played``, ``show_down``,
``hand_end``, ``game_end``): the human sees exactly what any bot in that seat is told, nothing
more.

The clock: the referee judges a bot in its process on its thread's CPU time
(:class:`arena.seats.connection.InProcessConnection`), and waiting for a line of input uses none, so
a
human may think as long as they like under the default clock; only the drawing of a screen (a few
milliseconds) is charged.

Leaving: ``quit`` at any prompt (confirmed at a decision, where it forfeits the game), or the end
of input, raises :class:`Quit` from the bot; the referee takes it as the human's forfeit of the
game in progress (a crash, as for any bot that raises), and :mod:`arena.cli.play` then stops the
match. Ctrl-C raises ``KeyboardInterrupt``,
which no part of the referee catches.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from rich.columns import Columns
from rich.console import Console, Group, RenderableType
from rich.rule import Rule
from rich.text import Text

from arena.errors import ArenaError
from arena.terminal import printable
from bots.sdk import Bot, View
from engine.cards import CARD_NAMES, CardError, cards_of, parse_card
from engine.hand import (
    BIG_GIN,
    DISCARDS,
    DRAW_DISCARD,
    DRAW_STOCK,
    KNOCKS,
    PASS,
    ActionKind,
    Phase,
)
from engine.hand import Action as EngineAction
from engine.hand import HandEnd as EngineHandEnd
from engine.melds import Arrangement, best_arrangement, deadwood
from engine.rules import Rules
from protocol import messages as m


class Quit(ArenaError, RuntimeError):
    """The human left the game: ``quit`` typed at a prompt, or the end of input."""


class InputError(ArenaError, ValueError):
    """What the human typed is not an action, or not a legal one now; the message says why and
    what to type instead."""


class Meta(enum.Enum):
    """An answer at a prompt that is not an action."""

    HELP = "help"
    QUIT = "quit"


SUIT_STYLES: Final = ("bold", "bold red", "bold red", "bold")
"""The style of each suit's cards (clubs, diamonds, hearts, spades): red suits red."""
DEADWOOD_STYLE: Final = "reverse"
"""Deadwood cards, in the hand and in the deadwood line (keeping their suit's colour)."""
MELD_STYLE: Final = "green"
"""The brackets around a meld."""
PILE_SHOWN: Final = 8
"""How many of the discard pile's top cards a screen shows."""

PROMPTS: Final = {
    Phase.FIRST_UPCARD: "upcard> ",
    Phase.DRAW: "draw> ",
    Phase.DISCARD: "discard> ",
}
"""The prompt of each decision: it names the decision asked for."""
PAUSE_PROMPT: Final = "[Enter] to go on> "
FORFEIT_PROMPT: Final = "forfeit this {what}? [y/N] "
"""Asked when the human types ``quit`` at a decision: only ``y`` or ``yes`` leaves."""

HELP_TEXT: Final = """\
Answer a prompt with one of:
  1, 2, ...         the action of that number in the menu
  7h, 10d, TD       discard that card (also: discard 7h)
  k 7h, knock 7h    discard 7H and knock (when your deadwood allows it)
  knock             big gin, when the rules play it and all eleven cards meld
  d, draw, stock    draw the top card of the stock
  t, take           take the top card of the discard pile (the upcard)
  p, pass           pass on the first upcard
  ?, help           this help
  q, quit           leave the game (asks first: the game in progress is forfeited)
Cards: a rank from A23456789TJQK (or 10) and a suit from CDHS, in either case."""

_QUIT_WORDS: Final = frozenset(("q", "quit", "exit"))
_HELP_WORDS: Final = frozenset(("?", "h", "help"))
_STOCK_WORDS: Final = frozenset(("d", "draw", "stock", "s", "draw stock"))
_TAKE_WORDS: Final = frozenset(
    ("t", "take", "discard pile", "pile", "draw discard", "take upcard", "upcard")
)
_PASS_WORDS: Final = frozenset(("p", "pass", "n", "no"))
_KNOCK_WORDS: Final = frozenset(("k", "knock"))


# -- reading what the human types ---------------------------------------------------------------


def parse_input(text: str, view: View) -> EngineAction | Meta:
    """The action (one of ``view.legal``) or :class:`Meta` answer that ``text`` asks for, or an
    :class:`InputError` that says why it is not one now and what to type instead."""
    words = " ".join(text.lower().replace(",", " ").split())
    if not words:
        raise InputError(f"Type an action ({_hint(view)}), or ? for help.")
    if words in _QUIT_WORDS:
        return Meta.QUIT
    if words in _HELP_WORDS:
        return Meta.HELP
    if words.isdigit():
        number = int(words)
        if not 1 <= number <= len(view.legal):
            raise InputError(
                f"There is no action {number} in the menu: choose 1 to {len(view.legal)}."
            )
        return view.legal[number - 1]
    return _legal(_action(words, view), view)


def _action(words: str, view: View) -> EngineAction:
    """The action ``words`` name (normalised: lower case, single spaces), legal or not."""
    if words in _STOCK_WORDS:
        return DRAW_STOCK
    if words in _PASS_WORDS:
        return PASS
    if words in _TAKE_WORDS or words in ("y", "yes"):
        return DRAW_DISCARD
    head, _, rest = words.partition(" ")
    if head in ("t", "take") and rest:
        card = _card(rest)
        if not view.discard_pile:
            raise InputError("The discard pile is empty: there is nothing to take.")
        if card != view.upcard:
            raise InputError(
                f"Only the top card of the discard pile can be taken: {CARD_NAMES[view.upcard]}."
            )
        return DRAW_DISCARD
    if head in _KNOCK_WORDS:
        if not rest:
            return BIG_GIN
        if "/" in rest:
            raise InputError(
                "Declare no melds: at a knock your cards are arranged for you, at least deadwood."
            )
        return KNOCKS[_card(rest)]
    if head.startswith("k") and len(head) > 1 and not rest and _is_card(head[1:]):
        return KNOCKS[_card(head[1:])]  # "k7h"
    if head == "discard" and rest:
        return DISCARDS[_card(rest)]
    if _is_card(words):
        return DISCARDS[_card(words)]
    raise InputError(
        f"{words!r} is not an action. Type {_hint(view)}, a number from the menu, or ? for help."
    )


def _is_card(word: str) -> bool:
    try:
        parse_card(word.upper())
    except CardError:
        return False
    return True


def _card(word: str) -> int:
    try:
        return parse_card(word.replace(" ", "").upper())
    except CardError:
        raise InputError(
            f"{word!r} is not a card: write a rank from A23456789TJQK (or 10) and a suit from "
            "CDHS, e.g. 7h, 10d or KS."
        ) from None


def _hint(view: View) -> str:
    """What can be typed now, in a few words."""
    if view.phase is Phase.FIRST_UPCARD:
        return f"t to take {CARD_NAMES[view.upcard]} or p to pass"
    if view.phase is Phase.DRAW:
        if DRAW_DISCARD in view.legal:
            return f"d to draw from the stock or t to take {CARD_NAMES[view.upcard]}"
        return "d to draw from the stock"
    if view.can_knock():
        return "a card to discard (e.g. 7h) or k and a card to knock"
    return "a card to discard, e.g. 7h"


def _legal(action: EngineAction, view: View) -> EngineAction:
    """``action`` if it is legal now, else an :class:`InputError` explaining the rule."""
    if action in view.legal:
        return action
    phase, kind = view.phase, action.kind
    if phase is Phase.FIRST_UPCARD:
        upcard = CARD_NAMES[view.upcard]
        raise InputError(
            f"The first upcard {upcard} is offered: take it (t) or pass (p); the stock is drawn "
            "only after both players pass."
        )
    if phase is Phase.DRAW:
        upcard = CARD_NAMES[view.upcard]  # a draw follows a discard: the pile is never empty
        if kind is ActionKind.DRAW_DISCARD:
            raise InputError(
                "Both players passed the first upcard: you must draw from the stock (d)."
            )
        if kind is ActionKind.PASS:
            raise InputError(
                "Passing is only for the first upcard: draw from the stock (d) or "
                f"take {upcard} (t)."
            )
        raise InputError(f"Draw first: {_hint(view)}; then discard.")
    # Phase.DISCARD
    if kind in (ActionKind.PASS, ActionKind.DRAW_STOCK, ActionKind.DRAW_DISCARD):
        raise InputError(f"You have drawn: now discard a card or knock ({_hint(view)}).")
    hand = view.hand
    card = action.card
    if card is None:  # big gin
        if not view.rules.big_gin:
            raise InputError("A knock needs a discard: type k and a card, e.g. k 7h.")
        raise InputError(
            f"Big gin needs all eleven cards melded; {deadwood(hand)} deadwood is left."
        )
    name = CARD_NAMES[card]
    if not hand >> card & 1:
        raise InputError(f"You do not hold {name}.")
    if card == view.taken_card:
        raise InputError(
            f"You just took {name} from the discard pile: you may not discard it this turn."
        )
    if kind is not ActionKind.KNOCK:
        raise InputError(f"You cannot discard {name} now ({_hint(view)}).")
    left = deadwood(hand & ~(1 << card))
    limit = view.knock_limit
    allowed = "only gin (no deadwood)" if limit == 0 else f"at most {limit}"
    raise InputError(
        f"You cannot knock discarding {name}: that leaves {left} deadwood, and a knock allows "
        f"{allowed}."
    )


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


# -- the bot --------------------------------------------------------------------------------------


class HumanBot(Bot):
    """A person at a terminal: every decision is shown on ``console`` and typed at a prompt
    (read with ``read``, the builtin :func:`input` by default); the events of the game are
    shown as they come. ``pause``: wait for Enter after each hand. :attr:`quit` is set to the
    :class:`Quit` raised when the human leaves."""

    name = "human"
    author = ""
    version = "1"

    def __init__(
        self,
        console: Console,
        read: Callable[[str], str] = input,
        names: tuple[str, str] = ("you", "bot"),
        pause: bool = True,
    ) -> None:
        """``names``: the human's, then the opponent's."""
        super().__init__()
        self.console = console
        self.read = read
        self.names = names
        self.pause = pause
        self.quit: Quit | None = None
        self.target: int | None = None
        self.single_hand = False
        self.hand_number = 0
        self.scores: list[int] = [0, 0]
        self.drawn: int | None = None
        self._show: m.ShowDown | None = None

    @property
    def shown_names(self) -> tuple[str, str]:
        """:attr:`names` as they are shown: control characters escaped (a bot's name may come
        from a file name or a bots file)."""
        me, other = self.names
        return printable(me), printable(other)

    @property
    def seating(self) -> Seating:
        me, other = self.shown_names
        return Seating(self.seat, (me, other) if self.seat == 0 else (other, me))

    # -- input --------------------------------------------------------------------------------

    def ask(self, prompt: str) -> str:
        """A line typed at ``prompt``; :class:`Quit` at the end of input."""
        self.console.file.flush()
        try:
            return self.read(prompt)
        except EOFError:
            raise self._leave("end of input") from None

    def wait(self, what: str) -> None:
        """Wait for Enter (``what`` says for what); ``q`` leaves."""
        if not self.pause:
            return
        self.console.print(Text(what, style="dim"))
        if self.ask(PAUSE_PROMPT).strip().lower() in _QUIT_WORDS:
            raise self._leave("you quit")

    def confirm_forfeit(self) -> bool:
        """Whether the human, who typed ``quit`` in the middle of a game, means to forfeit it
        (:data:`FORFEIT_PROMPT`; the end of input leaves)."""
        what = "hand" if self.single_hand else "game"
        return self.ask(FORFEIT_PROMPT.format(what=what)).strip().lower() in ("y", "yes")

    def _leave(self, why: str) -> Quit:
        self.quit = Quit(why)
        return self.quit

    def choose(self, view: View) -> EngineAction:
        self.console.print()
        self.console.print(
            situation(
                view, self.seating, self.scores, self.target, self.hand_number, drawn=self.drawn
            )
        )
        while True:
            try:
                answer = parse_input(self.ask(PROMPTS[view.phase]), view)
            except InputError as error:
                self.console.print(Text(str(error), style="bold red"))
                continue
            if answer is Meta.QUIT:
                if self.confirm_forfeit():
                    raise self._leave("you quit")
                continue
            if answer is Meta.HELP:
                self.console.print(Text(HELP_TEXT))
                self.console.print(Text(rules_text(self.rules)))
                self.console.print(menu(view))
                continue
            return answer

    # -- events -------------------------------------------------------------------------------

    def on_game_start(self, message: m.GameStart) -> None:
        self.target = None if message.single_hand else message.target
        self.single_hand = message.single_hand
        self.scores = [0, 0]
        me, other = self.shown_names
        what = (
            f"single hand {message.game}"
            if message.single_hand
            else f"game {message.game} to {message.target}"
        )
        self.console.print()
        self.console.print(Rule(Text(f"{me} v {other}: {what}"), style="bold cyan"))

    def on_hand_start(self, message: m.HandStart) -> None:
        self.hand_number = message.hand_number
        self.scores = list(message.scores)
        self.drawn = None
        self._show = None
        dealer = self.seating.says(message.dealer, "deal", "deals")
        self.console.print()
        self.console.print(
            Text(f"Hand {message.hand_number}: {dealer}; the first upcard is {message.upcard}.")
        )

    def on_played(self, message: m.Played) -> None:
        if message.player == self.seat:
            action = message.action
            self.drawn = (
                parse_card(message.card)
                if isinstance(action, m.DrawAction) and message.card
                else None
            )
        self.console.print(played_text(message, self.seating))

    def on_show_down(self, message: m.ShowDown) -> None:
        self._show = message
        self.console.print()
        self.console.print(show_down_text(message, self.seating))

    def on_hand_end(self, message: m.HandEnd) -> None:
        seating = self.seating
        self.console.print(
            Text(score_words(message, self._show, seating, self.rules), style="bold")
        )
        self.scores = list(message.scores)
        self.console.print(Text(f"Scores: {seating.scores(message.scores, self.target)}"))
        over = self.single_hand or (self.target is not None and max(message.scores) >= self.target)
        if not over:
            self.wait("The next hand is dealt when you are ready.")

    def on_game_end(self, message: m.GameEnd) -> None:
        if self.quit is not None:
            return  # the human left: the forfeit is theirs to know
        self.console.print()
        self.console.print(
            Rule("Hand over" if self.single_hand else "Game over", style="bold cyan")
        )
        self.console.print(game_end_text(message, self.seating, self.scores, self.single_hand))

    def on_error(self, message: m.ErrorNotice) -> None:
        if self.quit is not None:
            return
        self.console.print(
            Text(
                printable(f"The referee stops the game: {message.reason}: {message.message}"),
                style="red",
            )
        )


__all__ = [
    "HELP_TEXT",
    "HumanBot",
    "InputError",
    "Meta",
    "Quit",
    "Seating",
    "action_label",
    "arrangement_lines",
    "game_end_text",
    "menu",
    "parse_input",
    "played_text",
    "rules_text",
    "score_words",
    "show_down_text",
    "situation",
]
