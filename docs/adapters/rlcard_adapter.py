"""RLCard's gin rummy (``rlcard`` 1.2.0) behind gin-arena's conformance adapter protocol.

Run it as ``gin-arena conformance --engine "python docs/adapters/rlcard_adapter.py"`` with
``rlcard`` installed. It speaks JSON Lines on stdin/stdout (docs/CONFORMANCE.md) and drives
``rlcard.games.gin_rummy`` (``GinRummyGame``, ``GinRummyRound``, ``GinRummyJudge``) action by
action. It never computes a rule itself: legality, melds, deadwood and the end of a hand are
RLCard's; the adapter only translates, and bridges the structural differences listed below.

How RLCard differs, and how each difference is bridged
------------------------------------------------------

* **No first upcard; an eleven-card deal** (``GinRummyGame.init_game``: the player after the
  dealer is dealt 11 cards, the dealer 10, the rest is the stock, the discard pile starts empty;
  the first action is a discard). Declared as ``"first_upcard": false``. The adapter keeps the
  case's upcard itself and plays the offer (``pass`` / ``draw discard``) out of RLCard, as
  docs/CONFORMANCE.md "Engines that differ in structure" says, then deals RLCard at the offer's
  end with its own dealing code (``GinRummyDealer.deal_cards``, from a deck order built so that
  RLCard's ``pop()`` deals the right cards):

  - the non-dealer takes the upcard: RLCard deals the non-dealer its ten cards plus the upcard;
  - the non-dealer passes and the dealer takes it: RLCard's ``dealer_id`` is set to the case's
    non-dealer, so that RLCard's first player (eleven cards: ten plus the upcard) is the case's
    dealer; the adapter still reports the case's dealer;
  - both pass and the non-dealer draws from the stock: RLCard deals the non-dealer its ten cards
    plus the stock's top card, and the stock from the next card on. The upcard, which RLCard
    never has, stays at the bottom of the discard pile the adapter reports (no RLCard action can
    reach it: every discard covers it).

  Because RLCard *deals* the eleventh card, RLCard's rule against discarding a card just taken
  from the discard pile (``is_allowed_to_discard_picked_up_card``) does not apply to the first
  upcard, and ``taken_card`` is ``null`` on that first turn: RLCard knows no taken card there.
* **Compulsory gin** (``GinRummyJudge.get_legal_actions``: when a gin is possible the only legal
  action is ``GinAction``, and ``GinRummyRound.gin`` chooses the discard itself, the first card of
  ``judge.get_going_out_cards``). ``legal`` lists it as ``knock C`` with RLCard's card; a plain
  discard, a knock or another gin discard then is answered ``illegal`` with rule ``R9`` ("nobody is
  ever obliged to knock"), as the document asks for compulsory moves.
* **Knock discards**: RLCard lists as knock actions only cards that are deadwood in one of its meld
  clusters (``judge._get_going_out_cards``), and it does not forbid knocking with the card just
  taken from the discard pile (only plain discards are filtered). RLCard's knock and gin do not put
  the discard on the discard pile (``GinRummyRound.knock`` / ``gin``); the adapter reports RLCard's
  pile as it is.
* **No declared arrangement** (``KnockAction`` carries only a card; the show-down is
  ``GinRummyRound.score_player_0`` / ``score_player_1``, each taking the first of
  ``melding.get_best_meld_clusters``). A knock with declared melds is played as RLCard's plain
  knock when the declaration is exactly the arrangement RLCard shows; otherwise it is answered
  ``unsupported`` (RLCard cannot express it).
* **No lay-offs, no undercut, no points.** RLCard's show-down scores each hand alone (best meld
  cluster and deadwood, ``ScoreNorthMove`` / ``ScoreSouthMove``) and its payoff
  (``scorers.get_payoff_gin_rummy_v1``) is 1 for gin, 0.2 for a knock and ``-deadwood / 100``
  otherwise. The adapter reports ``end`` (RLCard's going-out action: ``KnockAction`` -> ``knock``,
  ``GinAction`` -> ``gin``, ``DeclareDeadHandAction`` -> ``drawn`` / ``turn_limit``), ``winner``
  (the player RLCard's payoff rewards positively: whoever went out; nobody for a dead hand) and
  the show-down's keys with ``lay_offs: []``. ``points`` and ``doubled`` are not declared
  (``result_keys``): RLCard's payoffs are rewards in another unit and are not converted.
* **Engine-only actions.** ``ScoreNorthPlayerAction`` / ``ScoreSouthPlayerAction`` (always
  compulsory) and a ``DeclareDeadHandAction`` that is RLCard's only legal action (the move limit)
  are performed inside the adapter and never listed. At the stock floor RLCard offers the next
  player a *choice*: ``DeclareDeadHandAction`` or ``PickUpDiscardAction`` (the last discard can
  still be taken). That is a player's decision, not a compulsory engine step, so the adapter does
  not make it: the hand goes on, ``legal`` lists ``draw discard`` (the dead-hand declaration has
  no notation), and the case sees a hand that is not over (R11).
* **Options** mapped onto ``Settings``: O1 ``knock_limit`` -> ``going_out_deadwood_count``; O5
  ``discard_taken_card`` -> ``is_allowed_to_discard_picked_up_card``; O16 ``stock_exhausted_at`` ->
  ``stockpile_dead_card_count`` (same threshold: no draw from the stock once it holds that many);
  O15 ``turn_limit`` -> ``max_move_count = 2 * turn_limit`` (RLCard counts moves in its move
  sheet: the deal, then a discard, then a draw and a discard per later turn, so the discard that
  completes turn ``t`` is move ``2t``; RLCard's default 200 is the rules' default 100 turns). Every
  other option (bonuses, undercut on tie, big gin, game, Oklahoma, hand limit) has no RLCard
  setting and is declared absent.
* **No game, no seeded deals.** RLCard plays one hand at a time (no cumulative score, dealer
  rotation or formats) and shuffles with numpy's ``RandomState``, not SplitMix64: the ops
  ``game``, ``next_hand``, ``seating``, ``next_seat``, ``game_result`` and ``deal`` are not
  declared.
* **Solver and melds** come from RLCard's ``melding`` module (``get_meld_clusters``,
  ``get_best_meld_clusters``, ``get_all_set_melds``, ``get_all_run_melds``); an eleven-card hand's
  deadwood is the least over its eleven discards of RLCard's ten-card deadwood.
* **Rejections name no rule** (``"rule_ids": false``); the one exception is the compulsory gin
  above, where the document asks for the rule departed from.
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

try:
    import rlcard
    from rlcard.games.base import Card
    from rlcard.games.gin_rummy import judge as rl_judge
    from rlcard.games.gin_rummy.game import GinRummyGame
    from rlcard.games.gin_rummy.round import GinRummyRound
    from rlcard.games.gin_rummy.utils import melding
    from rlcard.games.gin_rummy.utils import utils as rl_utils
    from rlcard.games.gin_rummy.utils.action_event import (
        ActionEvent,
        DeclareDeadHandAction,
        DiscardAction,
        DrawCardAction,
        GinAction,
        KnockAction,
        PickUpDiscardAction,
        ScoreNorthPlayerAction,
        ScoreSouthPlayerAction,
    )
    from rlcard.games.gin_rummy.utils.move import ScoreNorthMove, ScoreSouthMove
    from rlcard.games.gin_rummy.utils.settings import Setting

    IMPORT_ERROR: str | None = None
except Exception as exc:  # pragma: no cover - reported to the runner, never a crash
    IMPORT_ERROR = f"{type(exc).__name__}: {exc}"

# --------------------------------------------------------------------------------------------
# Cards and notation
# --------------------------------------------------------------------------------------------

RANKS = "A23456789TJQK"
SUITS = "CDHS"
VALUES = {r: min(i + 1, 10) for i, r in enumerate(RANKS)}


class RequestError(Exception):
    """A request the adapter cannot serve; ``kind`` is the protocol's error name."""

    def __init__(self, kind: str, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.rule = rule


def bad(message: str) -> RequestError:
    return RequestError("bad_request", message)


def unsupported(message: str) -> RequestError:
    return RequestError("unsupported", message)


def illegal(message: str, rule: str | None = None) -> RequestError:
    return RequestError("illegal", message, rule)


def norm_card(text: Any) -> str:
    """The canonical name of a card (``"7H"``), or a bad_request."""
    if not isinstance(text, str):
        raise bad(f"not a card: {text!r}")
    t = text.strip()
    if t[:2] == "10":
        t = "T" + t[2:]
    if len(t) != 2 or t[0].upper() not in RANKS or t[1].upper() not in SUITS:
        raise bad(f"not a card: {text!r}")
    return t[0].upper() + t[1].upper()


def card_index(name: str) -> int:
    return SUITS.index(name[1]) * 13 + RANKS.index(name[0])


def canonical(cards: Iterable[str]) -> list[str]:
    return sorted(cards, key=card_index)


def to_rl(name: str) -> Card:
    return Card(suit=name[1], rank=name[0])


def from_rl(card: Card) -> str:
    return f"{card.rank}{card.suit}"


def names(cards: Iterable[Card]) -> list[str]:
    return canonical(from_rl(c) for c in cards)


def card_list(value: Any, what: str, max_len: int | None = None) -> list[str]:
    if not isinstance(value, list):
        raise bad(f"{what} must be a list of cards")
    cards = [norm_card(c) for c in value]
    if len(set(cards)) != len(cards):
        raise bad(f"{what} repeats a card")
    if max_len is not None and len(cards) > max_len:
        raise bad(f"{what} has more than {max_len} cards")
    return cards


@dataclass(frozen=True)
class Action:
    """A parsed action of the protocol's notation."""

    kind: str  # pass, draw_stock, draw_discard, discard, knock
    card: str | None = None
    melds: tuple[tuple[str, ...], ...] | None = None

    @staticmethod
    def parse(text: Any) -> Action:
        if not isinstance(text, str):
            raise bad(f"an action must be a string: {text!r}")
        head, slash, tail = text.partition("/")
        words = head.split()
        if not words:
            raise bad(f"not an action: {text!r}")
        kw = [w.lower() for w in words]
        if slash and kw[0] != "knock":
            raise bad(f"only a knock declares melds: {text!r}")
        if kw == ["pass"]:
            return Action("pass")
        if kw == ["draw", "stock"]:
            return Action("draw_stock")
        if kw == ["draw", "discard"]:
            return Action("draw_discard")
        if kw[0] == "discard" and len(words) == 2:
            return Action("discard", norm_card(words[1]))
        if kw[0] == "knock" and len(words) <= 2:
            card = norm_card(words[1]) if len(words) == 2 else None
            melds = None
            if slash:
                groups = [g.split() for g in tail.split("/")]
                if groups == [[]]:
                    groups = []
                melds = tuple(tuple(canonical(norm_card(c) for c in g)) for g in groups)
            return Action("knock", card, melds)
        raise bad(f"not an action: {text!r}")


# --------------------------------------------------------------------------------------------
# Rules: the presets and options of docs/CONFORMANCE.md, mapped onto RLCard's Settings
# --------------------------------------------------------------------------------------------

DEFAULTS: dict[str, Any] = {
    "knock_limit": 10,
    "gin_bonus": 25,
    "undercut_bonus": 10,
    "undercut_on_tie": True,
    "discard_taken_card": False,
    "big_gin": False,
    "big_gin_bonus": 31,
    "game_target": 100,
    "game_bonus": 0,
    "shutout_bonus": 0,
    "line_bonus": 0,
    "next_dealer": "winner",
    "oklahoma": False,
    "oklahoma_spades_double": True,
    "turn_limit": 100,
    "stock_exhausted_at": 2,
    "hand_limit": 200,
}
PRESETS: dict[str, dict[str, Any]] = {
    "hoyle": {},
    "oklahoma": {"oklahoma": True, "oklahoma_spades_double": True},
    "bonus": {"undercut_bonus": 25, "game_bonus": 100, "shutout_bonus": 100, "line_bonus": 20},
    "big-gin": {"big_gin": True},
}
# Options RLCard has a setting for (the rest exist only at their defaults in RLCard).
SUPPORTED_OPTIONS = ("knock_limit", "discard_taken_card", "turn_limit", "stock_exhausted_at")
RANGES: dict[str, tuple[int, int]] = {
    "knock_limit": (0, 10),
    "turn_limit": (1, 10000),
    "stock_exhausted_at": (0, 30),
}


def read_rules(rules: Any) -> dict[str, Any]:
    """The options in force (defaults, preset, overrides); unsupported beyond RLCard's settings."""
    if not isinstance(rules, dict) or not isinstance(rules.get("preset"), str):
        raise bad('rules must be {"preset": NAME, "options": {...}}')
    preset = rules["preset"]
    if preset not in PRESETS:
        raise bad(f"unknown preset {preset!r}")
    overrides = rules.get("options") or {}
    if not isinstance(overrides, dict):
        raise bad("rules.options must be an object")
    opts = dict(DEFAULTS)
    opts.update(PRESETS[preset])
    for name, value in overrides.items():
        if name not in DEFAULTS:
            raise bad(f"unknown option {name!r}")
        opts[name] = value
    for name in SUPPORTED_OPTIONS:
        value = opts[name]
        if name == "discard_taken_card":
            if not isinstance(value, bool):
                raise bad("discard_taken_card must be a boolean")
        else:
            lo, hi = RANGES[name]
            if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
                raise bad(f"{name} must be an integer in {lo}..{hi}")
    missing = [n for n, v in opts.items() if n not in SUPPORTED_OPTIONS and v != DEFAULTS[n]]
    if missing:
        raise unsupported("RLCard has no setting for " + ", ".join(sorted(missing)))
    return opts


def new_game(opts: dict[str, Any]) -> GinRummyGame:
    game = GinRummyGame()
    game.settings.change_settings(
        {
            Setting.going_out_deadwood_count: int(opts["knock_limit"]),
            Setting.is_allowed_to_discard_picked_up_card: bool(opts["discard_taken_card"]),
            Setting.stockpile_dead_card_count: int(opts["stock_exhausted_at"]),
            Setting.max_move_count: 2 * int(opts["turn_limit"]),
        }
    )
    game.actions = []
    return game


def deal_round(
    game: GinRummyGame, rl_dealer: int, first: list[str], second: list[str], stock: list[str]
) -> None:
    """Start an RLCard round whose own dealing code gives ``first`` (11 cards) to the player after
    ``rl_dealer``, ``second`` (10) to ``rl_dealer``, and leaves ``stock`` (top first)."""
    rnd = GinRummyRound(dealer_id=rl_dealer, np_random=game.np_random)
    order = first + second + stock  # the order the cards come off the deck
    deck = [to_rl(c) for c in reversed(order)]  # GinRummyDealer.deal_cards pops from the end
    rnd.dealer.shuffled_deck = deck
    rnd.dealer.stock_pile = deck.copy()
    rnd.move_sheet[0].shuffled_deck = deck
    game.round = rnd
    game.actions = []
    for i in range(2):  # as GinRummyGame.init_game deals
        num = 11 if i == 0 else 10
        player = rnd.players[(rl_dealer + 1 + i) % 2]
        rnd.dealer.deal_cards(player=player, num=num)


# --------------------------------------------------------------------------------------------
# One hand: the first-upcard offer (kept by the adapter), then RLCard
# --------------------------------------------------------------------------------------------

ENGINE_ONLY = (ScoreNorthPlayerAction, ScoreSouthPlayerAction) if IMPORT_ERROR is None else ()


@dataclass
class HandSession:
    opts: dict[str, Any]
    dealer: int
    hands: list[list[str]]  # by seat, as dealt (ten each)
    upcard: str
    stock: list[str]  # top first, before any draw
    passes: int = 0
    game: GinRummyGame | None = None
    upcard_under_pile: bool = False  # both passed: the upcard stays at the bottom of the pile
    last_actor: int | None = None
    move_limit_hit: bool = False
    knock_discard: str | None = None

    # ----- construction -----

    @staticmethod
    def from_request(req: dict[str, Any]) -> HandSession:
        opts = read_rules(req.get("rules"))
        dealer = req.get("dealer")
        if dealer not in (0, 1) or isinstance(dealer, bool):
            raise bad("dealer must be 0 or 1")
        deck = card_list(req.get("deck"), "deck")
        if len(deck) != 52:
            raise bad("deck must hold the 52 cards")
        non_dealer = 1 - dealer
        hands: list[list[str]] = [[], []]
        hands[non_dealer] = deck[0:20:2]
        hands[dealer] = deck[1:20:2]
        return HandSession(opts, dealer, hands, deck[20], deck[21:])

    # ----- where we are -----

    @property
    def non_dealer(self) -> int:
        return 1 - self.dealer

    @property
    def g(self) -> GinRummyGame:
        """RLCard's game, once the offer is over and RLCard has dealt."""
        if self.game is None:
            raise bad("RLCard has not dealt yet")
        return self.game

    @property
    def rnd(self) -> GinRummyRound:
        return self.g.round

    def in_offer(self) -> bool:
        return self.game is None

    def offer_to_move(self) -> int:
        return self.dealer if self.passes == 1 else self.non_dealer

    def finished(self) -> bool:
        return self.game is not None and self.rnd.is_over

    def rl_legal(self) -> list[ActionEvent]:
        return list(self.g.judge.get_legal_actions())

    def gin_card(self) -> str:
        """The card RLCard's GinAction would discard (``GinRummyRound.gin``)."""
        player = self.rnd.players[self.rnd.current_player_id]
        _, gin_cards = rl_judge.get_going_out_cards(
            player.hand, self.g.settings.going_out_deadwood_count
        )
        return from_rl(gin_cards[0])

    def turn(self) -> int:
        """Turns so far (R17): the deal's eleventh card is the first turn's draw, then one per
        RLCard draw (``DrawCardAction``, ``PickUpDiscardAction``) in ``GinRummyGame.actions``."""
        if self.in_offer():
            return 0
        draws = (DrawCardAction, PickUpDiscardAction)
        return 1 + sum(isinstance(a, draws) for a in self.g.actions)

    def phase(self) -> str:
        if self.in_offer():
            return "first_upcard" if self.passes < 2 else "draw"
        if self.rnd.is_over:
            return "finished"
        last = self.g.get_last_action()
        if last is None or isinstance(last, (DrawCardAction, PickUpDiscardAction)):
            return "discard"
        return "draw"

    # ----- the engine-only steps -----

    def settle(self) -> None:
        """Perform RLCard's compulsory engine-only actions (scoring; a forced dead hand)."""
        while not self.rnd.is_over:
            legal = self.rl_legal()
            if len(legal) == 1 and isinstance(legal[0], ENGINE_ONLY):
                self.g.step(legal[0])
            elif len(legal) == 1 and isinstance(legal[0], DeclareDeadHandAction):
                self.move_limit_hit = len(self.rnd.move_sheet) >= self.g.settings.max_move_count
                self.g.step(legal[0])
            else:
                return

    # ----- legal actions -----

    def legal(self) -> list[str]:
        if self.in_offer():
            return ["draw discard", "pass"] if self.passes < 2 else ["draw stock"]
        if self.rnd.is_over:
            return []
        out: list[str] = []
        for a in self.rl_legal():
            if isinstance(a, DrawCardAction):
                out.append("draw stock")
            elif isinstance(a, PickUpDiscardAction):
                out.append("draw discard")
            elif isinstance(a, DiscardAction):
                out.append(f"discard {from_rl(a.card)}")
            elif isinstance(a, KnockAction):
                out.append(f"knock {from_rl(a.card)}")
            elif isinstance(a, GinAction):
                out.append(f"knock {self.gin_card()}")
            # DeclareDeadHandAction and the score actions have no notation: engine-only.
        return out

    # ----- applying an action -----

    def apply(self, text: Any) -> None:
        action = Action.parse(text)
        if self.in_offer():
            self._apply_offer(action)
            return
        if self.rnd.is_over:
            raise illegal("the hand is over")
        event = self._to_event(action)
        mover = self.rnd.current_player_id
        if isinstance(event, (KnockAction, GinAction)):
            self.knock_discard = action.card
        self.g.step(event)
        self.last_actor = mover
        self.settle()

    def _apply_offer(self, action: Action) -> None:
        mover = self.offer_to_move()
        if self.passes < 2 and action.kind == "pass":
            self.passes += 1
            self.last_actor = mover
            return
        if self.passes < 2 and action.kind == "draw_discard":
            # The taker is dealt the upcard as RLCard's eleventh card; RLCard's first player is
            # the player after its dealer, so RLCard's dealer is the other seat.
            game = new_game(self.opts)
            taker, other = mover, 1 - mover
            deal_round(
                game, other, self.hands[taker] + [self.upcard], self.hands[other], self.stock
            )
            self.game = game
        elif self.passes == 2 and action.kind == "draw_stock":
            game = new_game(self.opts)
            deal_round(
                game,
                self.dealer,
                self.hands[self.non_dealer] + [self.stock[0]],
                self.hands[self.dealer],
                self.stock[1:],
            )
            self.game = game
            self.upcard_under_pile = True
        else:
            where = "the first upcard is offered" if self.passes < 2 else "both passed the upcard"
            raise illegal(
                f"{action.kind.replace('_', ' ')} is not possible: {where} "
                "(the adapter's offer; RLCard has no first upcard)"
            )
        self.last_actor = mover
        self.settle()

    def _to_event(self, action: Action) -> ActionEvent:
        legal = self.rl_legal()
        player = self.rnd.players[self.rnd.current_player_id]
        held = {from_rl(c) for c in player.hand}
        gin_forced = len(legal) == 1 and isinstance(legal[0], GinAction)
        if action.kind == "pass":
            raise illegal("RLCard has no pass: there is no first upcard after the deal")
        if action.kind in ("draw_stock", "draw_discard"):
            cls = DrawCardAction if action.kind == "draw_stock" else PickUpDiscardAction
            for a in legal:
                if isinstance(a, cls):
                    return a
            raise illegal(f"RLCard does not allow {action.kind.replace('_', ' ')} now")
        if action.kind == "knock" and action.card is None:
            raise illegal("RLCard has no big gin: every knock discards a card")
        assert action.card is not None
        if action.card not in held or len(player.hand) != 11:
            raise illegal(f"RLCard does not allow {action.kind} {action.card} now")
        if action.kind == "knock":
            if action.melds is not None:
                self._check_declaration(action)
            for a in legal:
                if isinstance(a, KnockAction) and from_rl(a.card) == action.card:
                    return a
                if isinstance(a, GinAction) and self.gin_card() == action.card:
                    return a
        else:
            for a in legal:
                if isinstance(a, DiscardAction) and from_rl(a.card) == action.card:
                    return a
        if gin_forced:
            raise illegal(
                f"RLCard's gin is compulsory: the only legal action is its gin, "
                f"discarding {self.gin_card()} (GinRummyJudge.get_legal_actions)",
                rule="R9",
            )
        raise illegal(f"RLCard does not allow {action.kind} {action.card} now")

    def _check_declaration(self, action: Action) -> None:
        """A declared arrangement is played only when it is the one RLCard shows anyway."""
        player = self.rnd.players[self.rnd.current_player_id]
        kept = [c for c in player.hand if from_rl(c) != action.card]
        shown = rl_arrangement(kept)
        declared = {frozenset(m) for m in (action.melds or ())}
        if declared != {frozenset(m) for m in shown}:
            raise unsupported(
                "RLCard's knock takes no declared melds (KnockAction has only a card) "
                "and it shows another arrangement: " + melds_text(shown)
            )

    # ----- observable state -----

    def state(self) -> dict[str, Any]:
        if self.in_offer():
            return {
                "phase": self.phase(),
                "to_move": self.offer_to_move(),
                "dealer": self.dealer,
                "turn": 0,
                "stock_size": len(self.stock),
                "stock_top": self.stock[0] if self.stock else None,
                "stock": list(self.stock),
                "discard_top": self.upcard,
                "discard_pile": [self.upcard],
                "knock_limit": self.opts["knock_limit"],
                "taken_card": None,
                "hands": [canonical(self.hands[0]), canonical(self.hands[1])],
            }
        rnd = self.rnd
        pile = ([self.upcard] if self.upcard_under_pile else []) + [
            from_rl(c) for c in rnd.dealer.discard_pile
        ]
        stock = [from_rl(c) for c in reversed(rnd.dealer.stock_pile)]
        last = self.g.get_last_action()
        taken = None
        if isinstance(last, PickUpDiscardAction) and not rnd.is_over:
            taken = from_rl(rnd.move_sheet[-1].card)
        if rnd.is_over:
            to_move = self.last_actor if self.last_actor is not None else self.non_dealer
        else:
            to_move = rnd.current_player_id
        return {
            "phase": self.phase(),
            "to_move": to_move,
            "dealer": self.dealer,
            "turn": self.turn(),
            "stock_size": len(stock),
            "stock_top": stock[0] if stock else None,
            "stock": stock,
            "discard_top": pile[-1] if pile else None,
            "discard_pile": pile,
            "knock_limit": self.g.settings.going_out_deadwood_count,
            "taken_card": taken,
            "hands": [names(rnd.players[0].hand), names(rnd.players[1].hand)],
        }

    # ----- the result -----

    def result(self) -> dict[str, Any] | None:
        if not self.finished():
            return None
        rnd = self.rnd
        going_out = rnd.going_out_action
        if isinstance(going_out, DeclareDeadHandAction):
            return {
                "end": "turn_limit" if self.move_limit_hit else "drawn",
                "winner": None,
                "show_down": None,
            }
        knocker = rnd.going_out_player_id
        end = "gin" if isinstance(going_out, GinAction) else "knock"
        discard = (
            from_rl(going_out.card) if isinstance(going_out, KnockAction) else self.knock_discard
        )
        return {
            "end": end,
            "winner": payoff_winner(self.g),
            "show_down": show_down_from_moves(rnd, knocker, discard),
        }


def payoff_winner(game: GinRummyGame) -> int | None:
    """The player RLCard's payoff rewards positively (who went out), else None."""
    payoffs = game.judge.scorer.get_payoffs(game=game)
    positive = [i for i in (0, 1) if payoffs[i] > 0]
    return positive[0] if len(positive) == 1 else None


def show_down_from_moves(rnd: GinRummyRound, knocker: int, discard: str | None) -> dict[str, Any]:
    """RLCard's show-down: the score moves' best meld cluster and deadwood of each player."""
    by_player: dict[int, Any] = {}
    for move in rnd.move_sheet:
        if isinstance(move, ScoreNorthMove):
            by_player[0] = move
        elif isinstance(move, ScoreSouthMove):
            by_player[1] = move
    defender = 1 - knocker

    def side(p: int) -> tuple[list[list[str]], list[str], int]:
        move = by_player[p]
        melds = [names(m) for m in move.best_meld_cluster]
        melded = {c for m in melds for c in m}
        dead = canonical(from_rl(c) for c in rnd.players[p].hand if from_rl(c) not in melded)
        return melds, dead, int(move.deadwood_count)

    k_melds, k_dead, k_count = side(knocker)
    d_melds, d_dead, d_count = side(defender)
    return {
        "knocker": knocker,
        "discard": discard,
        "knocker_melds": k_melds,
        "knocker_deadwood_cards": k_dead,
        "knocker_deadwood": k_count,
        "defender_melds": d_melds,
        "lay_offs": [],
        "defender_deadwood_cards": d_dead,
        "defender_deadwood": d_count,
    }


# --------------------------------------------------------------------------------------------
# Solver, melds, show-downs
# --------------------------------------------------------------------------------------------


def rl_arrangement(cards: list[Card]) -> list[list[str]]:
    """The arrangement RLCard shows for ten cards (``score_player_0``: the first best cluster)."""
    clusters = melding.get_best_meld_clusters(hand=cards)
    return [names(m) for m in (clusters[0] if clusters else [])]


def melds_text(melds: list[list[str]]) -> str:
    return " / ".join(" ".join(m) for m in melds) or "no melds"


def rl_deadwood(cards: list[str]) -> int:
    """The least deadwood of up to ten cards, by RLCard's meld clusters."""
    hand = [to_rl(c) for c in cards]
    if len(hand) == 10:
        clusters = melding.get_best_meld_clusters(hand=hand)
        return int(
            rl_utils.get_deadwood_count(hand=hand, meld_cluster=clusters[0] if clusters else [])
        )
    best = int(sum(rl_utils.get_deadwood_value(c) for c in hand))
    for cluster in melding.get_meld_clusters(hand=hand):
        melded = {from_rl(c) for m in cluster for c in m}
        best = min(
            best, int(sum(rl_utils.get_deadwood_value(c) for c in hand if from_rl(c) not in melded))
        )
    return best


def op_deadwood(req: dict[str, Any]) -> dict[str, Any]:
    cards = card_list(req.get("hand"), "hand", 11)
    if len(cards) < 11:
        return {"deadwood": rl_deadwood(cards)}
    by_discard = {c: rl_deadwood([k for k in cards if k != c]) for c in cards}
    best = min(by_discard.values())
    return {"deadwood": best, "discards": canonical(c for c, v in by_discard.items() if v == best)}


def op_meld(req: dict[str, Any]) -> dict[str, Any]:
    cards = card_list(req.get("cards"), "cards")
    hand = [to_rl(c) for c in cards]
    target = set(cards)
    found = melding.get_all_set_melds(hand=hand) + melding.get_all_run_melds(hand=hand)
    return {"valid": any({from_rl(c) for c in m} == target for m in found)}


def op_showdown(req: dict[str, Any]) -> dict[str, Any]:
    """Play the knock through RLCard: the knocker (seat 0) holds the kept cards and the discard
    after a draw, takes RLCard's going-out action, then RLCard scores both hands."""
    opts = read_rules(req.get("rules"))
    kept = card_list(req.get("knocker_cards"), "knocker_cards")
    defender = card_list(req.get("defender_cards"), "defender_cards")
    if req.get("discard") is None:
        raise unsupported("RLCard has no big gin: every knock discards a card")
    discard = norm_card(req.get("discard"))
    if len(kept) != 10 or len(defender) != 10:
        raise bad("a show-down with a discard needs ten knocker cards and ten defender cards")
    if len(set(kept) | set(defender) | {discard}) != 21:
        raise bad("the show-down repeats a card")
    game = new_game(opts)
    others = [
        c
        for c in canonical(f"{r}{s}" for s in SUITS for r in RANKS)
        if c not in set(kept) | set(defender) | {discard}
    ]
    deal_round(game, 1, [*kept, discard], defender, others)  # seat 0 is dealt eleven cards
    game.actions = [DrawCardAction()]  # as after a draw: RLCard's discard phase
    session = HandSession(opts, 1, [kept, defender], discard, [], game=game)
    melds = req.get("knocker_melds")
    declared = None
    if melds is not None:
        if not isinstance(melds, list):
            raise bad("knocker_melds must be a list of lists of cards")
        declared = tuple(tuple(canonical(card_list(m, "a meld"))) for m in melds)
    legal = session.rl_legal()
    if len(legal) == 1 and isinstance(legal[0], GinAction):
        # RLCard's gin is compulsory and picks its own discard: play what RLCard plays.
        session.apply(str_action(session.gin_card(), declared))
    else:
        try:
            session.apply(str_action(discard, declared))
        except RequestError as err:
            if err.kind == "illegal":
                raise bad("RLCard does not play this knock: " + err.message) from None
            raise
    result = session.result()
    if result is None:
        raise bad("RLCard's hand did not end at the knock")
    return {"result": result}


def str_action(discard: str, melds: tuple[tuple[str, ...], ...] | None) -> str:
    if melds is None:
        return f"knock {discard}"
    return f"knock {discard} / " + " / ".join(" ".join(m) for m in melds)


# --------------------------------------------------------------------------------------------
# The protocol loop
# --------------------------------------------------------------------------------------------

STATE_KEYS = [
    "phase",
    "to_move",
    "dealer",
    "turn",
    "stock_size",
    "stock_top",
    "discard_top",
    "discard_pile",
    "knock_limit",
    "taken_card",
    "hands",
]
RESULT_KEYS = [
    "end",
    "winner",
    "knocker_melds",
    "knocker_deadwood_cards",
    "knocker_deadwood",
    "defender_melds",
    "lay_offs",
    "laid_off",
    "defender_deadwood_cards",
    "defender_deadwood",
]
OPS = ["hand", "apply", "legal", "state", "result", "deadwood", "meld", "showdown"]
NOTES = [
    "RLCard deals 11 cards to the first player and has no first upcard: the adapter plays the "
    "offer and deals RLCard the eleventh card (the upcard, or the stock's top after two passes).",
    "RLCard's gin is compulsory and chooses its own discard; its knock has no declared melds.",
    "RLCard has no lay-offs, undercut or points: results give end, winner and each hand's melds "
    "and deadwood.",
    "At the stock floor RLCard lets the next player take the last discard; the adapter does not "
    "declare the dead hand for that player.",
]


class Adapter:
    def __init__(self) -> None:
        self.hand: HandSession | None = None

    def handle(self, req: Any) -> dict[str, Any]:
        if not isinstance(req, dict) or not isinstance(req.get("op"), str):
            raise bad("a request is an object with an op")
        op = req["op"]
        if op == "hello":
            return self.hello()
        if IMPORT_ERROR is not None:
            raise bad("rlcard cannot be imported: " + IMPORT_ERROR)
        handler: Callable[[dict[str, Any]], dict[str, Any]] | None = {
            "hand": self.op_hand,
            "apply": self.op_apply,
            "legal": self.op_legal,
            "state": self.op_state,
            "result": self.op_result,
            "deadwood": op_deadwood,
            "meld": op_meld,
            "showdown": op_showdown,
        }.get(op)
        if handler is None:
            if op in ("game", "next_hand", "seating", "next_seat", "game_result"):
                raise unsupported("RLCard plays single hands: no game, scores or dealer rotation")
            if op == "deal":
                raise unsupported("RLCard shuffles with numpy's RandomState, not SplitMix64 (R21)")
            raise bad(f"unknown op {op!r}")
        return handler(req)

    def hello(self) -> dict[str, Any]:
        version = getattr(rlcard, "__version__", "unknown") if IMPORT_ERROR is None else "absent"
        return {
            "name": "RLCard gin_rummy",
            "version": str(version),
            "capabilities": {
                "ops": OPS,
                "modes": [],
                "options": list(SUPPORTED_OPTIONS),
                "first_upcard": False,
                "rule_ids": False,
                "declared_melds": False,  # KnockAction carries a card only
                "state_keys": STATE_KEYS,
                "result_keys": RESULT_KEYS,
                "game_result_keys": [],
            },
            "notes": NOTES,
        }

    def current(self) -> HandSession:
        if self.hand is None:
            raise bad("no hand: send a hand request first")
        return self.hand

    def op_hand(self, req: dict[str, Any]) -> dict[str, Any]:
        self.hand = None
        self.hand = HandSession.from_request(req)
        return {}

    def op_apply(self, req: dict[str, Any]) -> dict[str, Any]:
        self.current().apply(req.get("action"))
        return {}

    def op_legal(self, req: dict[str, Any]) -> dict[str, Any]:
        return {"actions": self.current().legal()}

    def op_state(self, req: dict[str, Any]) -> dict[str, Any]:
        return {"state": self.current().state()}

    def op_result(self, req: dict[str, Any]) -> dict[str, Any]:
        return {"result": self.current().result()}


def respond(out: Any, obj: dict[str, Any]) -> None:
    out.write(json.dumps(obj, separators=(",", ":")) + "\n")
    out.flush()


def main() -> int:
    adapter = Adapter()
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
        except ValueError as exc:
            respond(
                sys.stdout, {"ok": False, "error": "bad_request", "message": f"not JSON: {exc}"}
            )
            continue
        if isinstance(req, dict) and req.get("op") == "quit":
            respond(sys.stdout, {"ok": True})
            return 0
        try:
            body = adapter.handle(req)
            respond(sys.stdout, {"ok": True, **body})
        except RequestError as err:
            reply: dict[str, Any] = {"ok": False, "error": err.kind, "message": err.message}
            if err.kind == "illegal":
                reply["rule"] = err.rule
            respond(sys.stdout, reply)
        except Exception as exc:  # never crash on a request
            traceback.print_exc(file=sys.stderr)
            respond(
                sys.stdout,
                {
                    "ok": False,
                    "error": "bad_request",
                    "message": f"adapter error: {type(exc).__name__}: {exc}",
                },
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
