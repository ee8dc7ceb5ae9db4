"""This project's engine behind the conformance adapter protocol (docs/CONFORMANCE.md): every
request the runner can make, answered by :mod:`engine`. The runner drives an outside engine the
same way, through :class:`arena.conformance.remote.AdapterProcess`; ``python -m
arena.conformance.adapter`` serves this class over standard input and output.

Requests and responses are the protocol's JSON objects (cards as names, actions in the action
notation); nothing here knows about cases.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final

from arena.conformance.capabilities import Capabilities
from arena.errors import ArenaError
from engine import __version__ as engine_version
from engine.cards import CARD_NAMES, parse_card
from engine.deck import SplitMix64, shuffled_deck
from engine.formats import FormatResult, Session, new_session
from engine.game import Game, GameResult
from engine.hand import Action, Hand, HandResult, IllegalAction, ShowDown, knock_result
from engine.melds import best_discards, check_arrangement, deadwood, is_meld, min_deadwood
from engine.modes import Mode
from engine.rules import Rules

PROTOCOL_VERSION: Final = 1
"""The version of the adapter protocol this module speaks."""

Response = dict[str, Any]


class BadRequest(ArenaError, ValueError):
    """A request this engine cannot carry out as asked: ``bad_request`` on the wire."""


def names(mask: int) -> list[str]:
    """The cards of a mask, in canonical order."""
    return [CARD_NAMES[c] for c in range(52) if mask >> c & 1]


def mask_of(cards: Iterable[str]) -> int:
    """The mask of card names; a name given twice is a bad request."""
    mask = 0
    for name in cards:
        bit = 1 << parse_card(name)
        if mask & bit:
            raise BadRequest(f"card {name} given twice")
        mask |= bit
    return mask


def deck_of(cards: Sequence[str]) -> list[int]:
    return [parse_card(name) for name in cards]


def rules_of(spec: Mapping[str, Any]) -> Rules:
    """Rules as a case writes them: ``{"preset": NAME, "options": {...}}``."""
    return Rules.preset(spec["preset"]).with_options(spec.get("options", {}))


def show_down_json(show: ShowDown) -> Response:
    return {
        "knocker": show.knocker,
        "discard": None if show.discard is None else CARD_NAMES[show.discard],
        "knocker_melds": [names(m) for m in show.knocker_melds],
        "knocker_deadwood_cards": names(show.knocker_deadwood_cards),
        "knocker_deadwood": show.knocker_deadwood,
        "defender_melds": [names(m) for m in show.defender_melds],
        "lay_offs": [{"card": CARD_NAMES[lo.card], "meld": lo.meld_index} for lo in show.lay_offs],
        "defender_deadwood_cards": names(show.defender_deadwood_cards),
        "defender_deadwood": show.defender_deadwood,
    }


def result_json(result: HandResult) -> Response:
    return {
        "end": result.end.value,
        "winner": result.winner,
        "points": result.points,
        "doubled": result.doubled,
        "show_down": None if result.show_down is None else show_down_json(result.show_down),
    }


def game_result_json(result: GameResult | FormatResult) -> Response:
    data: Response = {
        key: getattr(result, key)
        for key in ("winner", "scores", "hands_won", "game_bonus", "line_bonus", "hand_points")
    }
    data = {k: list(v) if isinstance(v, tuple) else v for k, v in data.items()}
    data["end"] = str(result.end)
    if isinstance(result, FormatResult) and result.games:
        data["games"] = [game_result_json(game) for game in result.games]
    return data


class ReferenceEngine:
    """The engine of this project, answering adapter requests (:meth:`call`)."""

    name = "gin-rummy-arena"
    capabilities = Capabilities()

    def __init__(self) -> None:
        self._hand: Hand | None = None
        self._session: Session | None = None
        self._ops: dict[str, Callable[[Mapping[str, Any]], Response]] = {
            "hello": self._hello,
            "hand": self._new_hand,
            "apply": self._apply,
            "legal": self._legal,
            "state": self._state,
            "result": self._result,
            "game": self._game,
            "seating": self._seating,
            "next_seat": self._next_seat,
            "next_hand": self._next_hand,
            "game_result": self._game_result,
            "deadwood": self._deadwood,
            "meld": self._meld,
            "deal": self._deal,
            "showdown": self._showdown,
            "quit": lambda request: {},
        }

    def call(self, request: Mapping[str, Any]) -> Response:
        """The response to one request (never raises for a bad one)."""
        op = request.get("op") if isinstance(request, Mapping) else None
        handler = self._ops.get(op) if isinstance(op, str) else None
        if handler is None:
            return {"ok": False, "error": "bad_request", "message": f"unknown op {op!r}"}
        try:
            return {"ok": True, **handler(request)}
        except IllegalAction as error:
            return {"ok": False, "error": "illegal", "rule": error.rule, "message": str(error)}
        except (KeyError, TypeError, ValueError, IndexError) as error:
            text = f"missing {error}" if isinstance(error, KeyError) else str(error)
            return {"ok": False, "error": "bad_request", "message": f"{op}: {text}"}

    # -- hands ------------------------------------------------------------------------------

    @property
    def hand(self) -> Hand:
        if self._session is not None:
            return self._session.hand
        if self._hand is None:
            raise BadRequest("no hand: send hand or game first")
        return self._hand

    def _hello(self, request: Mapping[str, Any]) -> Response:
        return {"name": self.name, "version": engine_version, "protocol": PROTOCOL_VERSION}

    def _new_hand(self, request: Mapping[str, Any]) -> Response:
        dealer = request["dealer"]
        if dealer not in (0, 1):
            raise BadRequest(f"dealer must be 0 or 1, not {dealer!r}")
        self._hand = Hand(rules_of(request["rules"]), dealer, deck_of(request["deck"]))
        self._session = None
        return {}

    def _apply(self, request: Mapping[str, Any]) -> Response:
        action = Action.parse(request["action"])
        if self._session is not None:
            self._session.apply(action)
        else:
            self.hand.apply(action)
        return {}

    def _legal(self, request: Mapping[str, Any]) -> Response:
        return {"actions": [str(a) for a in self.hand.legal_actions()]}

    def _state(self, request: Mapping[str, Any]) -> Response:
        hand = self.hand
        taken = hand.taken_card
        return {
            "state": {
                "phase": hand.phase.value,
                "to_move": hand.to_move,
                "dealer": hand.dealer,
                "turn": hand.turn,
                "stock_size": len(hand.stock),
                "stock_top": CARD_NAMES[hand.stock[-1]] if hand.stock else None,
                "stock": [CARD_NAMES[c] for c in reversed(hand.stock)],
                "discard_top": CARD_NAMES[hand.pile[-1]] if hand.pile else None,
                "discard_pile": [CARD_NAMES[c] for c in hand.pile],
                "knock_limit": hand.knock_limit,
                "taken_card": None if taken is None else CARD_NAMES[taken],
                "hands": [names(h) for h in hand.hands],
            }
        }

    def _result(self, request: Mapping[str, Any]) -> Response:
        result = self.hand.result
        return {"result": None if result is None else result_json(result)}

    # -- games ------------------------------------------------------------------------------

    @property
    def session(self) -> Session:
        if self._session is None:
            raise BadRequest("no game: send game first")
        return self._session

    def _game(self, request: Mapping[str, Any]) -> Response:
        self._session = new_session(
            Mode.parse(request.get("mode", "two-player")),
            rules_of(request["rules"]),
            int(request.get("seed", "0")),
            request.get("first_dealer"),
            deck_of(request["deck"]),
        )
        self._hand = None
        return {}

    def _seating(self, request: Mapping[str, Any]) -> Response:
        session = self.session
        return {
            "dealer": session.hand.dealer,
            "players": list(session.seated),
            "table": session.table,
        }

    def _next_seat(self, request: Mapping[str, Any]) -> Response:
        session = self.session
        if session.is_over:
            return {"over": True}
        _, seat = session.next_seating
        return {"over": False, "seat": seat}

    def _next_hand(self, request: Mapping[str, Any]) -> Response:
        self.session.next_hand(deck_of(request["deck"]))
        return {}

    def _game_result(self, request: Mapping[str, Any]) -> Response:
        result = self.session.result
        return {"result": None if result is None else game_result_json(result)}

    # -- the solver, melds, deals, show-downs ------------------------------------------------

    def _deadwood(self, request: Mapping[str, Any]) -> Response:
        cards = request["hand"]
        mask = mask_of(cards)
        if len(cards) > 11:
            raise BadRequest("a hand has at most eleven cards")
        if len(cards) < 11:
            return {"deadwood": deadwood(mask)}
        least, discards = best_discards(mask)
        assert least == min_deadwood(mask)
        return {"deadwood": least, "discards": names(discards)}

    def _meld(self, request: Mapping[str, Any]) -> Response:
        return {"valid": is_meld(mask_of(request["cards"]))}

    def _deal(self, request: Mapping[str, Any]) -> Response:
        seed = int(request["seed"])
        rng = SplitMix64(seed)
        outputs = [str(rng.next()) for _ in range(int(request.get("outputs", 0)))]
        game = Game(seed=seed)
        return {
            "splitmix64": outputs,
            "deck": [CARD_NAMES[c] for c in shuffled_deck(seed)],
            "game": {
                "first_dealer": game.dealer,
                "deck": [CARD_NAMES[c] for c in game.hand.deck],
            },
        }

    def _showdown(self, request: Mapping[str, Any]) -> Response:
        rules = rules_of(request["rules"])
        kept = mask_of(request["knocker_cards"])
        defender = mask_of(request["defender_cards"])
        discard_name = request.get("discard")
        discard = None if discard_name is None else parse_card(discard_name)
        pile = mask_of(request.get("discard_pile", ()))
        dead = pile | (0 if discard is None else 1 << discard)
        if kept & defender or kept & dead or defender & dead:
            raise BadRequest("a card is in two places")
        given = request.get("knocker_melds")
        melds = None
        if given is not None:
            melds = [mask_of(m) for m in given]
            check_arrangement(kept, melds)  # a MeldError (ValueError): a bad request
        result = knock_result(
            rules,
            kept,
            defender,
            discard=discard,
            melds=melds,
            dead=dead,
            first_upcard=parse_card(request.get("first_upcard", "AC")),
        )
        return {"result": result_json(result)}
