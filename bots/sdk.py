"""A small SDK for Python bots: subclass :class:`Bot`, implement the decision methods, call
:meth:`Bot.run`. It does the handshake, the framing, the request ids and the events, and hands the
bot a typed :class:`View` of its observation with cards as engine ints and masks.

While :meth:`Bot.run` is running, ``print()`` goes to stderr (the bot's free log), so stray output
can never corrupt the protocol on stdout.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, Final

from engine.hand import (
    DISCARDS,
    DRAW_DISCARD,
    DRAW_STOCK,
    KNOCKS,
    PASS,
    ActionKind,
    DecisionPhase,
    Phase,
)
from engine.hand import Action as EngineAction
from engine.modes import Mode
from engine.rules import Rules
from protocol import messages as m
from protocol.codec import ProtocolError, UnknownMessage, decode, encode
from protocol.convert import action_model, card_mask, card_of, engine_action


@dataclass(frozen=True, slots=True)
class View:
    """What the bot sees when asked to act. Cards are engine ints, sets of cards int masks."""

    request: m.Request
    rules: Rules
    legal: tuple[EngineAction, ...]
    hand: int
    discard_pile: tuple[int, ...]
    opponent_known: int
    taken_card: int | None

    @property
    def observation(self) -> m.Observation:
        return self.request.observation

    @property
    def phase(self) -> DecisionPhase:
        """The decision asked for: a :class:`~engine.hand.Phase` other than ``FINISHED`` (a
        string enum, so ``view.phase == "draw"`` holds as well as ``view.phase is Phase.DRAW``)."""
        return self.request.phase

    @property
    def seat(self) -> int:
        return self.request.observation.seat

    @property
    def upcard(self) -> int:
        """The top card of the discard pile."""
        return self.discard_pile[-1]

    @property
    def stock_size(self) -> int:
        return self.request.observation.stock_size

    @property
    def knock_limit(self) -> int:
        return self.request.observation.knock_limit

    def can_knock(self) -> bool:
        return any(a.kind is ActionKind.KNOCK for a in self.legal)

    def knock_discards(self) -> int:
        """Mask of the cards whose discard allows a knock."""
        mask = 0
        for a in self.legal:
            if a.kind is ActionKind.KNOCK and a.card is not None:
                mask |= 1 << a.card
        return mask

    def discardable(self) -> int:
        """Mask of the cards that may be discarded now."""
        mask = 0
        for a in self.legal:
            if a.kind is ActionKind.DISCARD and a.card is not None:
                mask |= 1 << a.card
        return mask


class SessionError(RuntimeError):
    """The session with the referee cannot go on, on the bot's side (the referee speaks no protocol
    version this SDK knows): :meth:`Bot.run` prints it to stderr and returns 2. Not to be confused
    with the arena's ``arena.connection.BotError``, the referee's verdict on a failing bot."""


EVENT_HOOKS: Final = {
    "hand_start": "on_hand_start",
    "played": "on_played",
    "show_down": "on_show_down",
    "hand_end": "on_hand_end",
    "sit_out": "on_sit_out",
    "round_end": "on_round_end",
}
"""The events of a hand and a round, by the :class:`Bot` hook that receives each."""


class Bot:
    """Base class of a bot. Override :meth:`first_upcard`, :meth:`draw` and :meth:`discard`
    (or :meth:`choose` for full control); the ``on_*`` event hooks are optional."""

    name = "bot"
    author = ""
    version = "0"

    def __init__(self) -> None:
        self.seat = 0
        self.rules = Rules()
        self.time: m.TimeControl | None = None
        self.mode = Mode.TWO_PLAYER
        """The format of the game (R23-R25). In three-player and partnership games every hand
        is shown from seat 0: ``seat`` stays 0 and ``player`` says who the bot is."""
        self.player: int | None = None
        self.partner: int | None = None

    # -- decisions --------------------------------------------------------------------------

    def first_upcard(self, view: View) -> bool:
        """Take the first upcard (True) or pass (False)."""
        raise NotImplementedError(f"{type(self).__name__} must implement first_upcard()")

    def draw(self, view: View) -> m.DrawSource:
        """Draw from the stock or take the top of the discard pile."""
        raise NotImplementedError(f"{type(self).__name__} must implement draw()")

    def discard(self, view: View) -> EngineAction:
        """Return ``DISCARDS[card]``, ``KNOCKS[card]`` (see :meth:`knock`), or a big gin."""
        raise NotImplementedError(f"{type(self).__name__} must implement discard()")

    def choose(self, view: View) -> EngineAction:
        """The action for a request; by default dispatches on the phase."""
        if view.phase is Phase.FIRST_UPCARD:
            return DRAW_DISCARD if self.first_upcard(view) else PASS
        if view.phase is Phase.DRAW:
            return DRAW_DISCARD if self.draw(view) == "discard" else DRAW_STOCK
        return self.discard(view)

    # -- events -----------------------------------------------------------------------------

    def on_game_start(self, message: m.GameStart) -> None:
        """A game begins."""

    def on_hand_start(self, message: m.HandStart) -> None:
        """A hand is dealt."""

    def on_played(self, message: m.Played) -> None:
        """Either player acted."""

    def on_show_down(self, message: m.ShowDown) -> None:
        """Both spreads after a knock."""

    def on_hand_end(self, message: m.HandEnd) -> None:
        """A hand ended."""

    def on_game_end(self, message: m.GameEnd) -> None:
        """A game ended."""

    def on_sit_out(self, message: m.SitOut) -> None:
        """Three players: the bot deals this hand and sits it out (R24)."""

    def on_round_end(self, message: m.RoundEnd) -> None:
        """Formats other than two-player: the public results of a round (R23-R25)."""

    def on_error(self, message: m.ErrorNotice) -> None:
        """The referee explains why the bot forfeits."""
        print(f"referee: {message.reason}: {message.message}", file=sys.stderr)

    @classmethod
    def ignored_events(cls) -> frozenset[str]:
        """The events this class does nothing with: it keeps the SDK's :meth:`handle` and the
        event's hook (``on_played`` for ``played``...), the SDK's own no-ops. The in-process
        referee does not build them for it, and :meth:`run` does not decode them."""
        if cls.handle is not Bot.handle:
            return frozenset()
        return frozenset(
            event for event, hook in EVENT_HOOKS.items() if getattr(cls, hook) is getattr(Bot, hook)
        )

    # -- the protocol -----------------------------------------------------------------------

    def handle(self, message: m.Message) -> m.Message | None:
        """React to one referee message; return the reply to send, if any."""
        if isinstance(message, m.Request):
            return self._reply(message)
        if isinstance(message, m.Played):
            self.on_played(message)
        elif isinstance(message, m.HandStart):
            self.on_hand_start(message)
        elif isinstance(message, m.ShowDown):
            self.on_show_down(message)
        elif isinstance(message, m.HandEnd):
            self.on_hand_end(message)
        elif isinstance(message, m.GameStart):
            self.seat = message.seat
            self.mode = message.mode or Mode.TWO_PLAYER
            self.player, self.partner = message.player, message.partner
            self.on_game_start(message)
        elif isinstance(message, m.RoundEnd):
            self.on_round_end(message)
        elif isinstance(message, m.SitOut):
            self.on_sit_out(message)
        elif isinstance(message, m.GameEnd):
            self.on_game_end(message)
        elif isinstance(message, m.ErrorNotice):
            self.on_error(message)
        elif isinstance(message, m.Hello):
            return self._hello(message)
        return None

    def _hello(self, hello: m.Hello) -> m.Ready:
        common = set(hello.versions) & set(m.PROTOCOL_VERSIONS)
        if not common:
            raise SessionError(
                f"no common protocol version: the referee speaks {hello.versions}, this SDK "
                f"speaks {list(m.PROTOCOL_VERSIONS)}"
            )
        self.seat = hello.seat
        self.rules = Rules.from_dict(hello.rules)
        self.time = hello.time
        return m.Ready(
            type="ready",
            protocol_version=max(common),
            name=self.name,
            author=self.author,
            bot_version=self.version,
        )

    def _reply(self, request: m.Request) -> m.Reply:
        obs = request.observation
        view = View(
            request=request,
            rules=self.rules,
            legal=tuple(map(engine_action, request.legal)),
            hand=card_mask(obs.hand),
            discard_pile=tuple(map(card_of, obs.discard_pile)),
            opponent_known=card_mask(obs.opponent_known),
            taken_card=None if obs.taken_card is None else card_of(obs.taken_card),
        )
        action = self.choose(view)
        model = action_model(action)  # a protocol model by construction: no need to validate
        return m.trusted(m.Reply, type="reply", id=request.id, action=model)

    def run(self, stdin: IO[bytes] | None = None, stdout: IO[bytes] | None = None) -> int:
        """Play over stdin/stdout until the referee says quit or closes stdin; return an exit
        status (0, or 2 when the referee speaks no version this SDK knows)."""
        reader = stdin if stdin is not None else sys.stdin.buffer
        writer = stdout if stdout is not None else sys.stdout.buffer
        saved = sys.stdout
        sys.stdout = sys.stderr  # print() in bot code goes to the log, never to the protocol
        # Events this bot ignores are skipped unread when they begin as the arena writes them.
        skipped = tuple(f'{{"type":"{event}"'.encode() for event in self.ignored_events())
        try:
            for line in reader:
                if line.startswith(skipped) or not line.strip():
                    continue
                try:
                    message = decode(line)
                except UnknownMessage:
                    continue  # the protocol may grow: unknown messages are ignored
                except ProtocolError as error:
                    print(
                        f"{self.name}: ignoring a bad line from the referee: {error}",
                        file=sys.stderr,
                    )
                    continue
                if isinstance(message, m.Quit):
                    break
                try:
                    reply = self.handle(message)
                except SessionError as error:
                    print(f"{self.name}: {error}", file=sys.stderr)
                    return 2
                if reply is not None:
                    writer.write(encode(reply))
                    writer.flush()
        finally:
            sys.stdout = saved
        return 0


def knock(card: int, melds: Sequence[int] | None = None) -> EngineAction:
    """A knock discarding ``card``, optionally declaring ``melds`` (masks)."""
    if melds is None:
        return KNOCKS[card]
    return EngineAction(ActionKind.KNOCK, card, tuple(melds))


def discard(card: int) -> EngineAction:
    return DISCARDS[card]
