"""A person at the table: :class:`HumanBot`, a :class:`bots.sdk.Bot` whose decisions are typed in
a terminal (``gin-arena play``).

The human is an ordinary SDK bot, run in this process by the ordinary referee against any other
bot, so every rule is enforced by the same code as in any match: what the player types is read
by :mod:`~arena.seats.human_input` and checked against the request's legal actions before it is
sent, so that a typing mistake asks again rather than forfeits. The screens
(:mod:`~arena.seats.human_screen`) are made with rich from the bot's own :class:`~bots.sdk.View`
and the events of the protocol (``played``, ``show_down``, ``hand_end``, ``game_end``): the human
sees exactly what any bot in that seat is told, nothing more. This module is the seat: the
prompts, the events shown as they come, and leaving.

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

from collections.abc import Callable
from typing import Final

from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from arena.errors import ArenaError
from arena.seats.human_input import HELP_TEXT, QUIT_WORDS, InputError, Meta, parse_input
from arena.seats.human_screen import (
    Seating,
    game_end_text,
    menu,
    played_text,
    rules_text,
    score_words,
    show_down_text,
    situation,
)
from arena.terminal import printable
from bots.sdk import Bot, View
from engine.cards import parse_card
from engine.hand import Action as EngineAction
from engine.hand import Phase
from protocol import messages as m


class Quit(ArenaError, RuntimeError):
    """The human left the game: ``quit`` typed at a prompt, or the end of input."""


PROMPTS: Final = {
    Phase.FIRST_UPCARD: "upcard> ",
    Phase.DRAW: "draw> ",
    Phase.DISCARD: "discard> ",
}
"""The prompt of each decision: it names the decision asked for."""
PAUSE_PROMPT: Final = "[Enter] to go on> "
FORFEIT_PROMPT: Final = "forfeit this {what}? [y/N] "
"""Asked when the human types ``quit`` at a decision: only ``y`` or ``yes`` leaves."""


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
        if self.ask(PAUSE_PROMPT).strip().lower() in QUIT_WORDS:
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
    "FORFEIT_PROMPT",
    "PAUSE_PROMPT",
    "PROMPTS",
    "HumanBot",
    "Quit",
]
