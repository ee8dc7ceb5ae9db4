"""What each seat may know: the one information boundary between the game and the bots.

Every message about the game that the referee sends a seat (``hand_start``, the ``observation``
of a ``request``, ``played``, ``show_down``, ``hand_end``) is built here, from that seat's own
:class:`engine.hand.Observation` and public results (the action played, the show-down, the
scores), never from the full hand state: a hidden card cannot reach a message that is not built
from it. The referee (:mod:`arena.play.referee`) sends what these functions return and nothing else
about the cards; ``tests/protocol/test_hidden_information.py`` checks that moving the cards a
seat never sees changes no byte that seat receives. Plain conversions of cards and actions are in
:mod:`protocol.convert`.

The messages are built unvalidated (:func:`protocol.messages.trusted`): the referee is their
author and every value comes from the engine already in the protocol's types;
``tests/arena/play/test_typed.py`` checks that every message of whole games equals its own encoding
decoded again, so an in-process bot, handed the objects, sees exactly what a subprocess bot
decodes. What a bot sends is always validated.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, NamedTuple, TypeVar

from engine.cards import CARD_NAMES, card_names
from engine.hand import Action as EngineAction
from engine.hand import ActionKind, DecisionPhase, HandResult, Phase
from engine.hand import Observation as EngineObservation
from engine.hand import ShowDown as EngineShowDown
from protocol.convert import action_json, action_model, legal_json, legal_models
from protocol.messages import (
    HISTORY_LIMIT,
    Clock,
    HandEnd,
    HandStart,
    HistoryEntry,
    LayOffModel,
    Observation,
    Played,
    Request,
    ShowDown,
    trusted,
)


def hand_start_model(
    obs: EngineObservation,
    hand_number: int,
    scores: Sequence[int],
    players: Sequence[int] | None = None,
    table: int | None = None,
) -> HandStart:
    """The deal as the seat of ``obs`` sees it: its own ten cards, the upcard, the stock's size
    (and in formats other than two-player the hand's ``players`` and ``table``)."""
    return trusted(
        HandStart,
        type="hand_start",
        hand_number=hand_number,
        dealer=obs.dealer,
        hand=card_names(obs.hand),
        upcard=CARD_NAMES[obs.first_upcard],
        stock_size=obs.stock_size,
        knock_limit=obs.knock_limit,
        scores=list(scores),
        players=None if players is None else list(players),
        table=table,
    )


Told = tuple[int, EngineAction, int | None]
"""An action of the hand as a seat was told it (its ``played`` event): the player, the action,
and the card drawn when the seat may know it."""


def history_models(history: Sequence[Told]) -> list[HistoryEntry]:
    return [
        trusted(
            HistoryEntry,
            player=player,
            action=action_model(action),
            card=None if card is None else CARD_NAMES[card],
        )
        for player, action, card in history
    ]


def observation_model(
    obs: EngineObservation,
    hand_number: int,
    scores: Sequence[int],
    target: int,
    history: Sequence[Told] = (),
    *,
    history_from: int | None = None,
) -> Observation:
    """The protocol observation for the player to move (``history``: the hand's actions as this
    player was told them; ``history_from``: where they start in the hand's, in the compact
    form)."""
    if obs.phase is Phase.FINISHED:
        raise ValueError("no observation is sent once the hand is over")
    return trusted(
        Observation,
        seat=obs.player,
        phase=obs.phase,
        hand=card_names(obs.hand),
        discard_pile=[CARD_NAMES[c] for c in obs.discard_pile],
        stock_size=obs.stock_size,
        opponent_known=card_names(obs.opponent_known),
        opponent_hand_size=obs.opponent_hand_size,
        taken_card=None if obs.taken_card is None else CARD_NAMES[obs.taken_card],
        first_upcard=CARD_NAMES[obs.first_upcard],
        knock_limit=obs.knock_limit,
        turn=obs.turn,
        dealer=obs.dealer,
        hand_number=hand_number,
        scores=list(scores),
        target=target,
        history=history_models(history),
        history_from=history_from,
    )


class Decision(NamedTuple):
    """A request before it is a message: what the referee asks the player to move, from that
    player's own :class:`engine.hand.Observation` (``seen``) and public values. A bot in this
    process is shown it as it is (``bots.sdk.View.of_decision``), with no message built;
    :func:`request_model` makes the message every other bot is sent. ``relabel``: the player is
    shown the hand from seat 0 (:func:`as_seat_zero`). The clock: ``free`` seconds for the move
    (its move time and grace) before its ``bank`` of seconds is drawn on; ``move_ms`` is the
    move time the request states."""

    id: int
    phase: DecisionPhase
    legal: Sequence[EngineAction]
    seen: EngineObservation
    hand_number: int
    scores: Sequence[int]
    target: int
    move_ms: int
    free: float
    bank: float
    relabel: bool = False
    told: Sequence[Told] = ()
    """The hand's actions as this player was told them; only the first ``told_count`` count
    (the referee appends to the list it passes as the hand goes on)."""
    told_count: int = 0


def told(decision: Decision) -> tuple[Told, ...]:
    """The hand's actions so far as the player of ``decision`` was told them, with its seat
    numbers (relabelled for a seat shown as seat 0)."""
    history = tuple(decision.told[_first(decision) : decision.told_count])
    if decision.relabel:
        return tuple((1 - player, action, card) for player, action, card in history)
    return history


def request_model(decision: Decision, start: int | None = None) -> Request:
    """The request message of ``decision``, as the player is to see it: in the plain form, or
    with ``start`` in the compact one (the history from entry ``start`` on, and its
    ``history_from``)."""
    first = _first(decision) if start is None else start
    request = trusted(
        Request,
        type="request",
        id=decision.id,
        phase=decision.phase,
        legal=legal_models(decision.legal, decision.seen.hand),
        observation=observation_model(
            decision.seen,
            decision.hand_number,
            decision.scores,
            decision.target,
            decision.told[first : decision.told_count],
            history_from=start,
        ),
        clock=trusted(Clock, move_ms=decision.move_ms, bank_ms=round(decision.bank * 1000)),
    )
    return as_seat_zero(request) if decision.relabel else request


def request_json(decision: Decision, start: int | None = None) -> bytes:
    """The line :func:`protocol.codec.encode` writes for :func:`request_model` of ``decision``
    (and ``start``), written straight from its values (the wire's hot path;
    ``tests/arena/play/test_typed.py`` holds the two equal over whole games in every format)."""
    seen = decision.seen
    seat, dealer, scores = seen.player, seen.dealer, decision.scores
    if decision.relabel:
        seat, dealer, scores = 1 - seat, 1 - dealer, scores[::-1]
    phase = seen.phase.value
    taken = seen.taken_card
    pile = seen.discard_pile
    head = f'{{"type":"request","id":{decision.id},"phase":"{phase}","legal":['
    observation = (
        f'],"observation":{{"seat":{seat},"phase":"{phase}","hand":{_cards_json(seen.hand)},'
        f'"discard_pile":{_names_json([CARD_NAMES[c] for c in pile])},'
        f'"stock_size":{seen.stock_size},"opponent_known":{_cards_json(seen.opponent_known)},'
        f'"opponent_hand_size":{seen.opponent_hand_size},'
        + ("" if taken is None else f'"taken_card":"{CARD_NAMES[taken]}",')
        + f'"first_upcard":"{CARD_NAMES[seen.first_upcard]}","knock_limit":{seen.knock_limit},'
        f'"turn":{seen.turn},"dealer":{dealer},"hand_number":{decision.hand_number},'
        f'"scores":[{",".join(map(str, scores))}],"target":{decision.target}'
    )
    tail = (
        f'}},"clock":{{"move_ms":{decision.move_ms},"bank_ms":{round(decision.bank * 1000)}}}}}\n'
    )
    hand = seen.hand
    legal = b",".join([legal_json(action, hand) for action in decision.legal])
    history = _history_json(decision, _first(decision) if start is None else start)
    since = b"" if start is None else b',"history_from":%d' % start
    parts = [head.encode(), legal, observation.encode(), b',"history":[', history, b"]"]
    return b"".join([*parts, since, tail.encode()])


class RequestForm:
    """The form of the requests one bot is sent (``ready.form``): plain, each with the hand's
    whole history, or compact, each with the entries since the bot's previous request of the
    hand; for the compact form, what the bot has been sent so far."""

    __slots__ = ("_sent", "compact")

    def __init__(self, compact: bool = False) -> None:
        self.compact = compact
        self._sent: tuple[Sequence[Told], int] | None = None

    def start(self, decision: Decision) -> int | None:
        """Where the history of ``decision``'s request starts (None: the plain form), and, in
        the compact form, the entries up to its end counted as sent."""
        if not self.compact:
            return None
        told, count = decision.told, decision.told_count
        sent = self._sent
        start = sent[1] if sent is not None and sent[0] is told and sent[1] <= count else 0
        self._sent = (told, count)
        return start


PLAIN: Final = RequestForm()
"""The plain form, which keeps no state."""


class History(list[Told]):
    """A seat's history of a hand, as the referee appends to it (a :class:`Decision`'s ``told``),
    keeping the JSON of each entry once it is written: each request of the hand then writes only
    the entries new since the last (:func:`request_json`), not the whole history again."""

    __slots__ = ("_json", "_relabel")

    def __init__(self) -> None:
        super().__init__()
        self._json: list[bytes] = []
        self._relabel = False


def _entry_json(entry: Told, relabel: bool) -> bytes:
    player, action, card = entry
    seat = 1 - player if relabel else player
    drawn = b"" if card is None else b',"card":"%s"' % CARD_NAMES[card].encode()
    return b'{"player":%d,"action":%s%s}' % (seat, action_json(action), drawn)


def _history_json(decision: Decision, first: int) -> bytes:
    told, relabel = decision.told, decision.relabel
    count = decision.told_count
    if type(told) is not History:
        return b",".join([_entry_json(entry, relabel) for entry in told[first:count]])
    written = told._json
    if told._relabel != relabel or len(written) > count:  # not this seat's: start again
        written.clear()
        told._relabel = relabel
    written.extend([_entry_json(entry, relabel) for entry in told[len(written) : count]])
    return b",".join(written[first:count])


def _first(decision: Decision) -> int:
    """Where the history a request carries starts: at most its last :data:`HISTORY_LIMIT`."""
    return max(0, decision.told_count - HISTORY_LIMIT)


def _names_json(names: list[str]) -> str:
    return '["' + '","'.join(names) + '"]' if names else "[]"


def _cards_json(mask: int) -> str:
    return _names_json(card_names(mask))


def seat_zero_observation(seen: EngineObservation) -> EngineObservation:
    """The engine observation of seat 1 relabelled as seat 0 sees its own (the counterpart of
    :func:`as_seat_zero` for a request's observation)."""
    return seen._replace(player=1 - seen.player, to_move=1 - seen.to_move, dealer=1 - seen.dealer)


def played_model(action: EngineAction, player: int, seat: int, drawn: int | None) -> Played:
    """``player``'s ``action`` as ``seat`` is told it. ``drawn`` is the card the action drew, if
    it drew: a card from the stock goes only to its drawer (``seat == player``), a card from the
    discard pile was public and goes to both."""
    visible = drawn if action.kind is ActionKind.DRAW_DISCARD or seat == player else None
    return trusted(
        Played,
        type="played",
        player=player,
        action=action_model(action),
        card=None if visible is None else CARD_NAMES[visible],
    )


def show_down_model(show: EngineShowDown) -> ShowDown:
    """The show-down, public by the rules (R10): the same for both seats."""
    return ShowDown.model_construct(
        type="show_down",
        knocker=show.knocker,
        discard=None if show.discard is None else CARD_NAMES[show.discard],
        knocker_melds=[card_names(m) for m in show.knocker_melds],
        knocker_deadwood_cards=card_names(show.knocker_deadwood_cards),
        knocker_deadwood=show.knocker_deadwood,
        defender_melds=[card_names(m) for m in show.defender_melds],
        lay_offs=[
            LayOffModel.model_construct(card=CARD_NAMES[lo.card], meld=lo.meld_index)
            for lo in show.lay_offs
        ],
        defender_deadwood_cards=card_names(show.defender_deadwood_cards),
        defender_deadwood=show.defender_deadwood,
    )


def hand_end_model(result: HandResult, scores: Sequence[int]) -> HandEnd:
    """The end of the hand, public: the same for both seats."""
    return trusted(
        HandEnd,
        type="hand_end",
        end=result.end,
        winner=result.winner,
        points=result.points,
        doubled=result.doubled,
        scores=list(scores),
    )


HandMessage = TypeVar("HandMessage", HandStart, Request, Played, ShowDown, HandEnd)


def as_seat_zero(message: HandMessage) -> HandMessage:
    """A hand message for seat 1, relabelled as seat 0 sees its own: seat numbers swapped and
    by-seat lists reversed. In the three-player and partnership formats every bot is shown its
    hands from seat 0 (R24, R25), so that a bot written for two players plays them unchanged; the
    cards and the public record are the same, only the labels move."""
    if isinstance(message, HandStart):
        return message.model_copy(
            update={
                "dealer": 1 - message.dealer,
                "scores": message.scores[::-1],
                "players": None if message.players is None else message.players[::-1],
            }
        )
    if isinstance(message, Request):
        obs = message.observation
        history = [e.model_copy(update={"player": 1 - e.player}) for e in obs.history]
        seen = obs.model_copy(
            update={
                "seat": 1 - obs.seat,
                "dealer": 1 - obs.dealer,
                "scores": obs.scores[::-1],
                "history": history,
            }
        )
        return message.model_copy(update={"observation": seen})
    if isinstance(message, Played):
        return message.model_copy(update={"player": 1 - message.player})
    if isinstance(message, ShowDown):
        return message.model_copy(update={"knocker": 1 - message.knocker})
    return message.model_copy(
        update={
            "winner": None if message.winner is None else 1 - message.winner,
            "scores": message.scores[::-1],
        }
    )
