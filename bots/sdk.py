"""A small SDK for Python bots: subclass :class:`Bot`, implement the decision methods, call
:meth:`Bot.run`. It does the handshake, the framing, the request ids and the events, and hands the
bot a typed :class:`View` of its observation with cards as engine ints and masks.

While :meth:`Bot.run` is running, ``print()`` goes to stderr (the bot's free log), so stray output
can never corrupt the protocol on stdout.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from functools import partial, reduce
from operator import or_
from typing import IO, Any, Final

from bots.errors import BotsError
from engine.cards import CARD_INDEX
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
from engine.hand import Observation as EngineObservation
from engine.modes import Mode
from engine.rules import Rules
from protocol import messages as m
from protocol.codec import ProtocolError, UnknownMessage, decode, encode
from protocol.convert import (
    action_json,
    action_model,
    action_of_json,
    card_mask,
    card_of,
    engine_action,
    is_gin,
)
from protocol.views import Decision, Told, request_model, seat_zero_observation, told


class View:
    """What the bot sees when asked to act. Cards are engine ints, sets of cards int masks.

    ``seen`` is the bot's observation in the engine's own form (:class:`engine.hand.Observation`,
    the same values as the request's ``observation``), ``legal`` the legal actions as the
    engine's constants, ``scores`` the game scores by seat (its own at ``seat``) and ``target``
    the score that wins the game. A bot run by the referee in its own process is shown its
    observation straight from the engine, and the request message (``request``, ``observation``)
    is only built if the bot asks for it; a bot over stdio gets the decoded request, converted."""

    __slots__ = ("_history", "_make", "_request", "legal", "rules", "scores", "seen", "target")

    def __init__(
        self,
        seen: EngineObservation,
        rules: Rules,
        legal: tuple[EngineAction, ...],
        request: m.Request | Callable[[], m.Request],
        *,
        scores: tuple[int, ...],
        target: int,
    ) -> None:
        """``request``: the message, or how to make it when it is first asked for; ``scores``
        the game scores by seat as the bot sees them (its own at ``seen.player``), ``target`` the
        score that wins the game."""
        self.seen = seen
        self.rules = rules
        self.legal = legal
        self.scores = scores
        self.target = target
        if isinstance(request, m.Request):
            self._request: m.Request | None = request
            self._make: Callable[[], m.Request] | None = None
        else:
            self._request, self._make = None, request
        self._history: tuple[Told, ...] | Callable[[], tuple[Told, ...]] = self._history_of_request

    @classmethod
    def of_request(cls, request: m.Request, rules: Rules) -> View:
        """The view of a request message."""
        obs = request.observation
        taken = obs.taken_card
        seen = EngineObservation(
            player=obs.seat,
            phase=obs.phase,
            to_move=obs.seat,
            dealer=obs.dealer,
            hand=card_mask(obs.hand),
            discard_pile=tuple(map(card_of, obs.discard_pile)),
            stock_size=obs.stock_size,
            opponent_known=card_mask(obs.opponent_known),
            opponent_hand_size=obs.opponent_hand_size,
            knock_limit=obs.knock_limit,
            first_upcard=card_of(obs.first_upcard),
            taken_card=None if taken is None else card_of(taken),
            turn=obs.turn,
            show_down=None,
            result=None,
        )
        legal = tuple(map(engine_action, request.legal))
        return cls(seen, rules, legal, request, scores=tuple(obs.scores), target=obs.target)

    @classmethod
    def of_json(cls, data: dict[str, Any], rules: Rules, history: bytes | None = None) -> View:
        """The view of a request as JSON decodes it (a bot over stdio: the message is only
        validated if the bot asks for it; ``history``, the observation's history as the raw JSON
        of its list, kept apart and read only if asked for). Cards must be in the canonical
        notation the referee writes. Raises ``KeyError``, ``TypeError`` or ``ValueError`` for
        data that is not a request."""
        obs = data["observation"]
        taken = obs.get("taken_card")
        seat = obs["seat"]
        card, bit = CARD_INDEX.__getitem__, _CARD_BIT.__getitem__
        seen = EngineObservation._make(
            (
                seat,
                Phase(obs["phase"]),
                seat,
                obs["dealer"],
                reduce(or_, map(bit, obs["hand"]), 0),
                tuple(map(card, obs["discard_pile"])),
                obs["stock_size"],
                reduce(or_, map(bit, obs["opponent_known"]), 0),
                obs["opponent_hand_size"],
                obs["knock_limit"],
                card(obs["first_upcard"]),
                None if taken is None else card(taken),
                obs["turn"],
                None,
                None,
            )
        )
        legal = tuple(map(action_of_json, data["legal"]))
        scores, target = tuple(obs["scores"]), obs["target"]
        if history is None:
            make = partial(m.Request.model_validate, data)
            view = cls(seen, rules, legal, make, scores=scores, target=target)
            view._history = partial(_history_of_json, obs.get("history", ()))
            return view

        def entries() -> list[dict[str, Any]]:
            value = json.loads(history)
            if not isinstance(value, list):
                raise ValueError(f"a history is a list, not {value!r}")
            return value

        def request() -> m.Request:
            return m.Request.model_validate({**data, "observation": {**obs, "history": entries()}})

        view = cls(seen, rules, legal, request, scores=scores, target=target)
        view._history = lambda: _history_of_json(entries())
        return view

    @classmethod
    def of_decision(cls, decision: Decision, rules: Rules) -> View:
        """The view of a decision the referee has not made a message of (a bot in its
        process): the same values as :meth:`of_request` of its message."""
        view = cls.__new__(cls)  # as __init__ would, with no test: every in-process move
        seen = decision.seen
        view.seen = seat_zero_observation(seen) if decision.relabel else seen
        view.rules = rules
        view.legal = tuple(decision.legal)
        scores = tuple(decision.scores)
        view.scores = scores[::-1] if decision.relabel else scores
        view.target = decision.target
        view._request = None
        view._make = partial(request_model, decision)
        view._history = partial(told, decision)
        return view

    @property
    def request(self) -> m.Request:
        """The request message (made on first use when the bot was not handed one)."""
        request = self._request
        if request is None:
            assert self._make is not None
            request = self._request = self._make()
        return request

    @property
    def history(self) -> tuple[Told, ...]:
        """The hand's actions so far, oldest first, as this bot was told them: ``(player,
        action, card)`` with ``card`` the card drawn when the bot may know it (a card taken from
        the discard pile, or its own draw from the stock), else None. The first-upcard
        decisions, every draw and its source, every discard and who made it."""
        history = self._history
        if callable(history):
            history = self._history = history()
        return history

    def _history_of_request(self) -> tuple[Told, ...]:
        return tuple(
            (e.player, engine_action(e.action), None if e.card is None else card_of(e.card))
            for e in self.request.observation.history
        )

    def is_gin(self, action: EngineAction) -> bool:
        """Whether ``action`` is a knock that makes gin (R14) or big gin (R19)."""
        return is_gin(action, self.hand)

    def gin_knocks(self) -> int:
        """Mask of the cards whose discard with a knock makes gin."""
        mask = 0
        for a in self.legal:
            if a.kind is ActionKind.KNOCK and a.card is not None and is_gin(a, self.hand):
                mask |= 1 << a.card
        return mask

    @property
    def observation(self) -> m.Observation:
        """The request's observation, as a message (card names)."""
        return self.request.observation

    @property
    def phase(self) -> DecisionPhase:
        """The decision asked for: a :class:`~engine.hand.Phase` other than ``FINISHED`` (a
        string enum, so ``view.phase == "draw"`` holds as well as ``view.phase is Phase.DRAW``)."""
        return self.seen.phase  # type: ignore[return-value]  # never FINISHED when asked

    @property
    def seat(self) -> int:
        return self.seen.player

    @property
    def hand(self) -> int:
        """The bot's cards (a mask)."""
        return self.seen.hand

    @property
    def discard_pile(self) -> tuple[int, ...]:
        """The discard pile, bottom first."""
        return self.seen.discard_pile

    @property
    def upcard(self) -> int:
        """The top card of the discard pile."""
        return self.seen.discard_pile[-1]

    @property
    def opponent_known(self) -> int:
        """The cards the opponent took from the discard pile and still holds (a mask)."""
        return self.seen.opponent_known

    @property
    def opponent_hand_size(self) -> int:
        return self.seen.opponent_hand_size

    @property
    def taken_card(self) -> int | None:
        """The card taken from the discard pile this turn, if any (R8)."""
        return self.seen.taken_card

    @property
    def first_upcard(self) -> int:
        return self.seen.first_upcard

    @property
    def stock_size(self) -> int:
        return self.seen.stock_size

    @property
    def knock_limit(self) -> int:
        return self.seen.knock_limit

    @property
    def turn(self) -> int:
        return self.seen.turn

    @property
    def dealer(self) -> int:
        return self.seen.dealer

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

    def __repr__(self) -> str:
        return f"View({self.seen!r}, legal={[str(a) for a in self.legal]})"


def _history_of_json(entries: Sequence[dict[str, Any]]) -> tuple[Told, ...]:
    return tuple(
        (
            e["player"],
            action_of_json(e["action"]),
            None if e.get("card") is None else CARD_INDEX[e["card"]],
        )
        for e in entries
    )


def game_seed(seed: int, game: int) -> str:
    """The seed of a bot's random generator for game ``game`` of a match (``game_start``'s
    number), made from the bot's own seed: a bot that reseeds with it at each ``game_start``
    plays a game alike whatever games its process played before, so a tournament's games are the
    same whichever worker plays them, with bot processes restarted or not, and a resumed run
    plays the missing games as an uninterrupted one would have. (:class:`random.Random` hashes
    a string seed with SHA-512: the same on every machine and Python version.)"""
    return f"{seed}/game/{game}"


class SessionError(BotsError, RuntimeError):
    """The session with the referee cannot go on, on the bot's side (the referee speaks no protocol
    version this SDK knows): :meth:`Bot.run` prints it to stderr and returns 2. Not to be confused
    with the arena's ``arena.seats.connection.BotError``, the referee's verdict on a failing bot."""


_CARD_BIT: Final = {name: 1 << card for name, card in CARD_INDEX.items()}
_REQUEST: Final = b'{"type":"request",'
"""How the referee's request lines begin (its encoding writes ``type`` first)."""

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
    form = "compact"
    """The protocol form asked for in ``ready``: ``"compact"`` (each request carries the history
    entries since the bot's previous request, which the SDK adds to those it holds, so a view's
    history is always the whole hand's) or ``"plain"``."""

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

    @classmethod
    def answers_directly(cls) -> bool:
        """Whether this class answers requests through :meth:`choose` alone: it keeps the SDK's
        :meth:`handle`. The in-process referee then shows it a :class:`View` built straight
        from the engine's observation and takes its action as it is, with no messages."""
        return cls.handle is Bot.handle and cls._reply is Bot._reply

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
        ignored = self.ignored_events()
        return m.Ready(
            type="ready",
            protocol_version=max(common),
            name=self.name,
            author=self.author,
            bot_version=self.version,
            ignores=sorted(ignored) if ignored else None,
            form=None if self.form == "plain" else "compact",
        )

    def _held(self, start: int, new: list[Any]) -> list[Any]:
        """The hand's history so far: the entries held, up to ``start`` (the request's
        ``history_from``), and the ``new`` ones it carries (a copy: the list held grows on)."""
        held: list[Any] = self.__dict__.setdefault("_history_held", [])
        if start != len(held):
            if start > len(held):  # entries missed: the referee broke the compact form
                print(
                    f"{self.name}: a request's history starts at entry {start}, but "
                    f"{len(held)} are held: the history is missing some",
                    file=sys.stderr,
                )
            del held[min(start, len(held)) :]
        held += new
        return held[:]

    def _reply(self, request: m.Request) -> m.Reply:
        obs = request.observation
        if obs.history_from is not None:
            new = [e.model_dump(mode="json", exclude_none=True) for e in obs.history]
            entries = self._held(obs.history_from, new)
            full = [m.HistoryEntry.model_validate(e) for e in entries]
            seen = obs.model_copy(update={"history": full, "history_from": None})
            request = request.model_copy(update={"observation": seen})
        action = self.choose(View.of_request(request, self.rules))
        model = action_model(action)  # a protocol model by construction: no need to validate
        return m.trusted(m.Reply, type="reply", id=request.id, action=model)

    def _answer(self, line: bytes) -> bytes | None:
        """The reply line to a request line, read straight from its JSON (the referee's own
        encoding); None when the line does not read as a request: :func:`decode` then says
        what is wrong with it."""
        history = None  # read only if the bot asks: it is most of a late request's bytes
        cut = line.find(b',"history":[')
        if cut > 0:
            end = line.find(b']},"clock":', cut)
            if end > 0:
                history, line = line[cut + 11 : end + 1], line[:cut] + line[end + 1 :]
        try:
            data = json.loads(line)
            obs = data["observation"]
            start = obs.pop("history_from", None)
            if start is not None:  # the compact form: a few new entries, kept with the rest
                obs["history"] = self._held(start, obs.get("history", []))
            view = View.of_json(data, self.rules, history)
            number = data["id"]
            if type(number) is not int or number < 1:
                return None
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            return None
        action = self.choose(view)
        return b'{"type":"reply","id":%d,"action":%s}\n' % (number, action_json(action))

    def run(self, stdin: IO[bytes] | None = None, stdout: IO[bytes] | None = None) -> int:
        """Play over stdin/stdout until the referee says quit or closes stdin; return an exit
        status (0, or 2 when the referee speaks no version this SDK knows)."""
        reader = stdin if stdin is not None else sys.stdin.buffer
        writer = stdout if stdout is not None else sys.stdout.buffer
        saved = sys.stdout
        sys.stdout = sys.stderr  # print() in bot code goes to the log, never to the protocol
        # Events this bot ignores are skipped unread when they begin as the arena writes them.
        skipped = tuple(f'{{"type":"{event}"'.encode() for event in self.ignored_events())
        direct = self.answers_directly()
        try:
            for line in reader:
                if line.startswith(skipped) or not line.strip():
                    continue
                if direct and line.startswith(_REQUEST):
                    answer = self._answer(line)
                    if answer is not None:
                        writer.write(answer)
                        writer.flush()
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
