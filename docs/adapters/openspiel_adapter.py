"""OpenSpiel's ``gin_rummy`` behind the conformance adapter protocol of docs/CONFORMANCE.md.

An example of an outside engine put behind the protocol: it imports ``pyspiel`` (the
``open-spiel`` package) and nothing of this repository, reads one JSON request a line on standard
input and writes one JSON response a line on standard output, until ``quit`` or the end of its
input. Run the conformance cases through it with::

    tox -e conformance-openspiel
    gin-arena conformance --engine "python docs/adapters/openspiel_adapter.py"

the second with a ``python`` that has ``open-spiel`` installed (``.tox/bench-peers/bin/python``
has open-spiel 2.0.2). By hand: ``echo '{"op": "hello", "version": 1}' | python
docs/adapters/openspiel_adapter.py``.

**Game parameters.** Each ``hand`` loads ``gin_rummy`` with ``knock_card`` = O1 ``knock_limit``,
``gin_bonus`` = O2, ``undercut_bonus`` = O3 and ``oklahoma`` = O13, always passed explicitly (so
preset ``hoyle`` plays with undercut bonus 10 and gin bonus 25, where OpenSpiel's own default
undercut bonus is 25), and OpenSpiel's defaults for the rest (13 ranks, 4 suits, 10 cards).

**Rules OpenSpiel cannot express: ``unsupported``.** O6 ``big_gin`` true (OpenSpiel has no big
gin), O15 ``turn_limit`` other than 100 and O16 ``stock_exhausted_at`` other than 2 (no such
parameters), and Oklahoma's spade doubling (O13 and O14 true) on a hand whose first upcard is a
spade (OpenSpiel never doubles; on other upcards O14 changes nothing, so those hands are played).
The game-level options (O8-O12, O17) play no part in a hand and are accepted. Two options are
hard-wired in OpenSpiel, and both of their values are accepted so that a run shows where the
default differs: a deadwood tie scores 0 (like O4 ``undercut_on_tie`` false; this adapter reports
it as a knock win worth 0) and the card just taken from the discard pile may be discarded at once
(like O5 ``discard_taken_card`` true; but taking and throwing back the same card on two turns in a
row ends OpenSpiel's hand, reported as ``turn_limit``).

**How a hand is translated.**

- Seats: OpenSpiel's player 0 always moves first, so the non-dealer (seat ``1 - dealer``) is
  OpenSpiel's player 0 and the dealer its player 1; every seat in a response is translated.
- Cards: OpenSpiel numbers a card ``suit * 13 + rank`` with the suits in the order ``s c d h``;
  names are translated both ways. The deal is fed to OpenSpiel's chance nodes so that it equals
  the deck convention: ``d[0], d[2], ... d[18]`` to the non-dealer, the odd positions to the
  dealer, ``d[20]`` the upcard; each ``Draw stock`` chance node is given the next card of
  ``d[21..]``. Chance nodes are resolved after every action.
- ``knock C [/ melds]`` is OpenSpiel's ``Knock``, the discard ``C``, the knocker's meld
  declarations and ``Pass``. Undeclared, the adapter tries every declaration OpenSpiel allows and
  takes the least deadwood, ties broken by R20 (fewest exposed cards, fewest melds, smallest
  deadwood mask, smallest sorted meld masks). Then it plays the defender: it tries every sequence
  of lay-offs and meld declarations OpenSpiel allows and keeps the least deadwood (fewest cards
  laid off on a tie), and finishes the hand. The result comes from OpenSpiel's ``returns``
  (positive for the winner) and the melds and lay-offs played.
- The wall: a discard that leaves two stock cards puts OpenSpiel in its ``Wall`` phase, where the
  next player may take that discard and knock at once, or pass (the hand is drawn). When the knock
  is impossible the adapter passes by itself (the hand is ``drawn``, as R11 has it); otherwise it
  shows phase ``draw`` with the legal actions ``pass`` and ``draw discard`` (then ``knock C`` only).
- OpenSpiel ends a hand with no score at its 50th ``Draw upcard`` and after the same card is taken
  from the discard pile and thrown back twice in a row: both are reported as ``turn_limit``.

**Known limitations.** OpenSpiel's melds have at most five cards: a declared longer run is split
into runs of three to five cards, and the melds shown are OpenSpiel's. OpenSpiel does not say
which meld a lay-off goes onto: ``lay_offs`` places the cards laid off by R10's enumeration order.
Between lay-offs of equal deadwood the adapter takes the fewest cards, and then the first it finds
(not R10's enumeration order); the defender's own melds are any arrangement of least deadwood.
OpenSpiel lays off at most two cards at each end of a run (a third on the same end is never
offered); that does not change the defender's deadwood, since three or more such cards are a run
the defender can meld instead.
Illegal actions carry ``"rule": null`` (OpenSpiel has no rule IDs). ``game``, ``seating``,
``next_seat``, ``next_hand``, ``game_result`` and ``deal`` (OpenSpiel has no games of hands and
its own random deals) answer ``unsupported``. ``deadwood`` answers OpenSpiel's ``min_deadwood``,
whose eleven-card answer is not always the exact one (docs/PERFORMANCE.md); ``showdown`` deals a
hand built for it and plays it to the knock.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any, Final

import pyspiel

PROTOCOL_VERSION: Final = 1


def _installed_version() -> str:
    try:
        return metadata.version("open-spiel")
    except metadata.PackageNotFoundError:  # a build from source
        return "unknown"


OPENSPIEL_VERSION: Final = _installed_version()

NAME: Final = f"OpenSpiel gin_rummy {OPENSPIEL_VERSION}"
NOTES: Final = (
    "parameters: knock_card=knock_limit, gin_bonus, undercut_bonus, oklahoma (passed explicitly; "
    "hoyle: knock_card 10, gin_bonus 25, undercut_bonus 10); unsupported: big_gin, turn_limit "
    "!= 100, stock_exhausted_at != 2, oklahoma spade doubling on a spade upcard; hard-wired in "
    "OpenSpiel: ties score 0 (undercut_on_tie false), the taken card may be discarded "
    "(discard_taken_card true)"
)

GR: Final = pyspiel.gin_rummy
DRAW_UPCARD: Final[int] = GR.DRAW_UPCARD_ACTION  # 52
DRAW_STOCK: Final[int] = GR.DRAW_STOCK_ACTION  # 53
PASS: Final[int] = GR.PASS_ACTION  # 54
KNOCK: Final[int] = GR.KNOCK_ACTION  # 55
MELD_BASE: Final[int] = GR.MELD_ACTION_BASE  # 56: meld id m is action 56 + m
Phase = GR.Phase
UTILS: Final = GR.GinRummyUtils(13, 4, 10)
INT_TO_MELD: Final[dict[int, list[int]]] = dict(UTILS.int_to_meld)  # OpenSpiel card ids
MAX_MELD: Final = 5  # OpenSpiel's longest meld

RANKS: Final = "A23456789TJQK"
SUITS: Final = "CDHS"
CARD_NAMES: Final = [r + s for s in SUITS for r in RANKS]  # our index: suit * 13 + rank
SPADES: Final = 3

Response = dict[str, Any]


class BadRequest(Exception):
    """``bad_request``: the request cannot be carried out as asked."""


class Unsupported(Exception):
    """``unsupported``: OpenSpiel cannot play this (the case is skipped)."""


class Illegal(Exception):
    """``illegal``: OpenSpiel refuses the action (no rule ID: OpenSpiel has none)."""


# -- cards -----------------------------------------------------------------------------------


def os_card(card: int) -> int:
    """Our card index (suits C D H S) as OpenSpiel's (suits s c d h)."""
    suit, rank = divmod(card, 13)
    return (suit + 1) % 4 * 13 + rank


def our_card(card: int) -> int:
    """OpenSpiel's card id as our index."""
    suit, rank = divmod(card, 13)
    return (suit + 3) % 4 * 13 + rank


def value(card: int) -> int:
    return min(card % 13 + 1, 10)


def parse_card(name: object) -> int:
    if not isinstance(name, str):
        raise BadRequest(f"not a card: {name!r}")
    text = name.strip().upper()
    if text[:2] == "10":
        text = "T" + text[2:]
    if len(text) != 2 or text[0] not in RANKS or text[1] not in SUITS:
        raise BadRequest(f"not a card: {name!r}")
    return SUITS.index(text[1]) * 13 + RANKS.index(text[0])


def parse_cards(names: object, what: str = "cards") -> list[int]:
    if not isinstance(names, list):
        raise BadRequest(f"{what} must be a list of cards")
    cards = [parse_card(n) for n in names]
    if len(set(cards)) != len(cards):
        raise BadRequest(f"a card is given twice in {what}")
    return cards


def names(cards: Iterable[int]) -> list[str]:
    """Card names in canonical order."""
    return [CARD_NAMES[c] for c in sorted(cards)]


def mask(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


# -- rules -----------------------------------------------------------------------------------

DEFAULTS: Final[dict[str, Any]] = {  # preset hoyle (docs/RULES.md, options table)
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
PRESETS: Final[dict[str, dict[str, Any]]] = {
    "hoyle": {},
    "oklahoma": {"oklahoma": True, "oklahoma_spades_double": True},
    "bonus": {"undercut_bonus": 25, "game_bonus": 100, "shutout_bonus": 100, "line_bonus": 20},
    "big-gin": {"big_gin": True},
}
RANGES: Final[dict[str, tuple[int, int]]] = {
    "knock_limit": (0, 10),
    "gin_bonus": (0, 1000),
    "undercut_bonus": (0, 1000),
    "big_gin_bonus": (0, 1000),
    "game_target": (1, 100000),
    "game_bonus": (0, 100000),
    "shutout_bonus": (0, 100000),
    "line_bonus": (0, 1000),
    "turn_limit": (1, 10000),
    "stock_exhausted_at": (0, 30),
    "hand_limit": (1, 1000000),
}
DEALER_CHOICES: Final = ("winner", "loser", "alternate")


def rules_of(spec: object) -> dict[str, Any]:
    """Rules as a case writes them, ``{"preset": NAME, "options": {...}}``, as a full dict."""
    if not isinstance(spec, Mapping):
        raise BadRequest("rules must be an object")
    preset = spec.get("preset", "hoyle")
    if preset not in PRESETS:
        raise BadRequest(f"unknown preset {preset!r}")
    rules = {**DEFAULTS, **PRESETS[preset]}
    options = spec.get("options", {})
    if not isinstance(options, Mapping):
        raise BadRequest("rules.options must be an object")
    for key, val in options.items():
        if key not in DEFAULTS:
            raise BadRequest(f"unknown option {key!r}")
        if isinstance(DEFAULTS[key], bool):
            ok = isinstance(val, bool)
        elif isinstance(DEFAULTS[key], int):
            low, high = RANGES[key]
            ok = isinstance(val, int) and not isinstance(val, bool) and low <= val <= high
        else:
            ok = val in DEALER_CHOICES
        if not ok:
            raise BadRequest(f"bad value {val!r} for option {key}")
        rules[key] = val
    return rules


_games: dict[tuple[tuple[str, Any], ...], Any] = {}


def load_game(rules: Mapping[str, Any], first_upcard: int) -> Any:
    """OpenSpiel's game for these rules and this first upcard, or :class:`Unsupported`."""
    if rules["big_gin"]:
        raise Unsupported("OpenSpiel has no big gin (O6 big_gin)")
    if rules["turn_limit"] != DEFAULTS["turn_limit"]:
        raise Unsupported("OpenSpiel has no turn limit parameter (O15 turn_limit)")
    if rules["stock_exhausted_at"] != DEFAULTS["stock_exhausted_at"]:
        raise Unsupported("OpenSpiel's wall is fixed at two stock cards (O16 stock_exhausted_at)")
    if rules["oklahoma"] and rules["oklahoma_spades_double"] and first_upcard // 13 == SPADES:
        raise Unsupported("OpenSpiel never doubles a spade upcard (O14 oklahoma_spades_double)")
    params = {
        "knock_card": rules["knock_limit"],
        "gin_bonus": rules["gin_bonus"],
        "undercut_bonus": rules["undercut_bonus"],
        "oklahoma": rules["oklahoma"],
    }
    key = tuple(sorted(params.items()))
    if key not in _games:
        _games[key] = pyspiel.load_game("gin_rummy", params)
    return _games[key]


# -- actions ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Action:
    """An action in our notation: ``kind`` is pass, draw_stock, draw_discard, discard, knock."""

    kind: str
    card: int | None = None
    melds: tuple[tuple[int, ...], ...] | None = None  # declared melds of a knock

    @staticmethod
    def parse(text: object) -> Action:
        if not isinstance(text, str):
            raise BadRequest(f"not an action: {text!r}")
        head, *groups = text.split("/")
        words = head.lower().split()
        if not groups:
            if words == ["pass"]:
                return Action("pass")
            if words == ["draw", "stock"]:
                return Action("draw_stock")
            if words == ["draw", "discard"]:
                return Action("draw_discard")
            if len(words) == 2 and words[0] == "discard":
                return Action("discard", parse_card(words[1]))
        if words and words[0] == "knock" and len(words) <= 2:
            card = parse_card(words[1]) if len(words) == 2 else None
            melds: tuple[tuple[int, ...], ...] | None = None
            if groups:
                if len(groups) == 1 and not groups[0].strip():
                    melds = ()  # "knock 7H /": no melds
                else:
                    melds = tuple(tuple(parse_card(c) for c in g.split()) for g in groups)
                    if any(not m for m in melds):
                        raise BadRequest(f"an empty meld in {text!r}")
            return Action("knock", card, melds)
        raise BadRequest(f"not an action: {text!r}")


def exposed(melds: Sequence[Sequence[int]], dead: int) -> int:
    """How many cards R20 counts as exposed by these melds (our indices; ``dead``: a mask of the
    cards the defender cannot hold)."""
    out = 0
    for meld in melds:
        ranks = {c % 13 for c in meld}
        if len(ranks) == 1:
            if len(meld) == 3:
                suits = {c // 13 for c in meld}
                (missing,) = set(range(4)) - suits
                out |= 1 << (missing * 13 + meld[0] % 13)
        else:
            low, high = min(meld), max(meld)
            if low % 13 > 0:
                out |= 1 << (low - 1)
            if high % 13 < 12:
                out |= 1 << (high + 1)
    return (out & ~dead).bit_count()


def split_run(meld: Sequence[int]) -> list[list[int]]:
    """A run longer than OpenSpiel's five cards as consecutive runs of three to five."""
    cards = sorted(meld)
    if len(cards) <= MAX_MELD:
        return [cards]
    parts = -(-len(cards) // MAX_MELD)
    size, extra = divmod(len(cards), parts)
    out, start = [], 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        out.append(cards[start:end])
        start = end
    return out


def meld_action(meld: Sequence[int]) -> int:
    """OpenSpiel's action declaring ``meld`` (our indices), or :class:`Illegal`."""
    cards = [os_card(c) for c in meld]
    if not (UTILS.is_rank_meld(cards) or UTILS.is_suit_meld(cards)) or len(set(cards)) < 3:
        raise Illegal(f"{' '.join(names(meld))} is not a meld")
    return MELD_BASE + int(UTILS.meld_to_int(cards))


def meld_of(action: int) -> list[int]:
    return sorted(our_card(c) for c in INT_TO_MELD[action - MELD_BASE])


# -- a hand ----------------------------------------------------------------------------------


@dataclass
class ShowDown:
    """What the adapter remembers of a knock (our seats and card indices)."""

    knocker: int
    discard: int
    kept: list[int]  # the knocker's ten cards after the discard
    knocker_melds: list[list[int]] = field(default_factory=list)


class OpenSpielHand:
    """One hand of OpenSpiel's gin_rummy, seen through our seats, cards and actions."""

    def __init__(self, rules: dict[str, Any], dealer: int, deck: Sequence[int]) -> None:
        self.rules = rules
        self.dealer = dealer
        self.state: Any = load_game(rules, deck[20]).new_initial_state()
        order = [deck[i] for i in range(0, 20, 2)] + [deck[i] for i in range(1, 20, 2)]
        for card in [*order, deck[20]]:  # OpenSpiel deals player 0's ten, player 1's, the upcard
            self.state.apply_action(os_card(card))
        self.stock: list[int] = list(deck[21:])  # top first
        self.pile: list[int] = [deck[20]]  # bottom first
        self.turn = 0
        self.taken: int | None = None
        self.last_actor = 1 - dealer
        self.end: str | None = None  # the end of a hand nobody knocked
        self.show: ShowDown | None = None
        self.hands_shown: list[list[int]] | None = None  # the hands at the knock

    def copy(self) -> OpenSpielHand:
        other = object.__new__(OpenSpielHand)
        other.__dict__.update(self.__dict__)
        other.state = self.state.clone()
        other.stock = list(self.stock)
        other.pile = list(self.pile)
        return other

    # seats: OpenSpiel's player 0 is the non-dealer
    def seat(self, player: int) -> int:
        return player ^ (1 - self.dealer)

    @property
    def os_phase(self) -> Any:
        return self.state.current_phase()

    @property
    def finished(self) -> bool:
        return bool(self.state.is_terminal())

    def phase(self) -> str:
        ph = self.os_phase
        if self.finished:
            return "finished"
        if ph == Phase.FIRST_UPCARD:
            return "draw" if all(self.state.pass_on_first_upcard()) else "first_upcard"
        if ph in (Phase.DRAW, Phase.WALL):
            return "draw"
        if ph == Phase.DISCARD or (ph == Phase.KNOCK and self._holding() == 11):
            return "discard"
        raise RuntimeError(f"unexpected OpenSpiel phase {ph}")

    def _holding(self) -> int:
        return len(self.state.hands()[self.state.current_player()])

    def to_move(self) -> int:
        if self.finished:
            return self.last_actor
        return self.seat(self.state.current_player())

    def hands(self) -> list[list[int]]:
        if self.hands_shown is not None:
            return self.hands_shown
        os_hands = self.state.hands()
        return [[our_card(c) for c in os_hands[self.seat(s)]] for s in (0, 1)]

    # -- legal actions --------------------------------------------------------------------

    def _knock_discards(self) -> list[int]:
        """The discards OpenSpiel allows after ``Knock`` (OpenSpiel card ids), or none."""
        ph, legal = self.os_phase, self.state.legal_actions()
        if ph == Phase.KNOCK:
            return [a for a in legal if a < 52]
        if ph != Phase.DISCARD or KNOCK not in legal:
            return []
        after = self.state.clone()
        after.apply_action(KNOCK)
        return [a for a in after.legal_actions() if a < 52]

    def legal(self) -> list[str]:
        if self.finished:
            return []
        ph, legal = self.os_phase, self.state.legal_actions()
        out: list[str] = []
        if ph in (Phase.FIRST_UPCARD, Phase.DRAW):
            words = {PASS: "pass", DRAW_STOCK: "draw stock", DRAW_UPCARD: "draw discard"}
            out = [words[a] for a in legal if a in words]
        elif ph == Phase.WALL:
            out = ["pass"] + (["draw discard"] if KNOCK in legal else [])
        elif ph == Phase.DISCARD:
            out = [f"discard {CARD_NAMES[c]}" for c in sorted(our_card(a) for a in legal if a < 52)]
        knocks = sorted(our_card(c) for c in self._knock_discards())
        return out + [f"knock {CARD_NAMES[c]}" for c in knocks]

    # -- applying an action -------------------------------------------------------------

    def _do(self, action: int, what: str) -> None:
        """Apply one OpenSpiel action, which must be legal, then resolve chance nodes."""
        if action not in self.state.legal_actions():
            legal = [self.state.action_to_string(a) for a in self.state.legal_actions()]
            raise Illegal(f"OpenSpiel refuses {what} here (its legal actions: {', '.join(legal)})")
        self.state.apply_action(action)
        while self.state.is_chance_node():  # a draw from the stock: our next stock card
            if not self.stock:
                raise RuntimeError("OpenSpiel draws from an empty stock")
            self.state.apply_action(os_card(self.stock.pop(0)))

    def apply(self, action: Action) -> None:
        if self.finished:
            raise Illegal("the hand is over")
        actor = self.seat(self.state.current_player())
        ph = self.os_phase
        if action.kind == "pass":
            self._do(PASS, "pass")
            if ph == Phase.WALL:
                self.end = "drawn"
        elif action.kind == "draw_stock":
            self._do(DRAW_STOCK, "draw stock")
            self.turn += 1
            self.taken = None
        elif action.kind == "draw_discard":
            self._do(KNOCK if ph == Phase.WALL else DRAW_UPCARD, "draw discard")
            self.turn += 1
            if self.finished:  # OpenSpiel's 50th Draw upcard ends the hand
                self.end = "turn_limit"
            else:
                self.taken = self.pile.pop()
        elif action.kind == "discard":
            assert action.card is not None
            if ph != Phase.DISCARD:
                raise Illegal("OpenSpiel refuses a discard here")
            self._do(os_card(action.card), f"discard {CARD_NAMES[action.card]}")
            self.pile.append(action.card)
            self.taken = None
            if self.finished:  # the same card taken and thrown back twice in a row
                self.end = "turn_limit"
            elif self.os_phase == Phase.WALL and self.state.legal_actions() == [PASS]:
                self.state.apply_action(PASS)  # nobody can knock at the wall: drawn (R11)
                self.end = "drawn"
        elif action.card is None:
            raise Illegal("OpenSpiel has no big gin: a knock needs a discard")
        else:
            self._knock(action.card, action.melds)
        self.last_actor = actor

    def _knock(self, card: int, melds: Sequence[Sequence[int]] | None) -> None:
        s = self.state
        knocker = s.current_player()
        if self.os_phase == Phase.DISCARD:
            if KNOCK not in s.legal_actions():
                raise Illegal(
                    f"OpenSpiel refuses to knock: its deadwood of the eleven cards is "
                    f"{s.deadwood()[knocker]}, above the knock card {s.knock_card()}"
                )
            self._do(KNOCK, "knock")
        elif not (self.os_phase == Phase.KNOCK and self._holding() == 11):
            raise Illegal("OpenSpiel refuses a knock here")
        self._do(os_card(card), f"the knock's discard {CARD_NAMES[card]}")
        self.pile.append(card)
        self.taken = None
        self.hands_shown = self.hands()
        self.show = ShowDown(self.seat(knocker), card, [our_card(c) for c in s.hands()[knocker]])
        if melds is None:
            plan = self._arrange()
        else:
            plan = [meld_action(part) for m in melds for part in split_run(m)]
        for a in plan:
            self._do(a, f"the meld {' '.join(names(meld_of(a)))}" if a >= MELD_BASE else "")
        if PASS not in s.legal_actions():
            raise Illegal(
                f"the deadwood left, {s.deadwood()[knocker]}, is above the knock card "
                f"{s.knock_card()}"
            )
        self._do(PASS, "the end of the knocker's melds")
        melds_shown = [meld_of(MELD_BASE + m) for m in s.layed_melds()[knocker]]
        self.show.knocker_melds = sorted(melds_shown, key=mask)  # ascending masks, as R10 shows
        for a in self._defend():
            self._do(a, "the defender's play")
        if not self.finished:
            raise RuntimeError("the hand did not end after the defender's play")

    def _arrange(self) -> list[int]:
        """The knocker's meld declaration: least deadwood, then R20's tie-break."""
        s = self.state
        knocker = s.current_player()
        dead = mask(self.show.kept if self.show else []) | mask(self.pile)
        best: tuple[Any, ...] | None = None
        plan: list[int] = []
        seen: set[frozenset[int]] = set()

        def visit(node: Any, path: list[int]) -> None:
            nonlocal best, plan
            key = frozenset(path)
            if key in seen:
                return
            seen.add(key)
            legal = node.legal_actions()
            if PASS in legal:
                melds = [meld_of(a) for a in path]
                left = [our_card(c) for c in node.hands()[knocker]]
                rank = (
                    sum(value(c) for c in left),
                    exposed(melds, dead),
                    len(melds),
                    mask(left),
                    sorted(mask(m) for m in melds),
                )
                if best is None or rank < best:
                    best, plan = rank, list(path)
            for a in legal:
                if a >= MELD_BASE:
                    child = node.clone()
                    child.apply_action(a)
                    visit(child, [*path, a])

        visit(s, [])
        return plan

    def _defend(self) -> list[int]:
        """The defender's lay-offs and melds that leave the least deadwood (fewest lay-offs)."""
        defender = self.state.current_player()
        memo: dict[tuple[Any, ...], tuple[tuple[int, int], list[int]]] = {}

        def visit(node: Any) -> tuple[tuple[int, int], list[int]]:
            if node.is_terminal():
                return (node.deadwood()[defender], len(node.layoffs())), []
            key = (
                node.finished_layoffs(),
                frozenset(node.layoffs()),
                frozenset(node.layed_melds()[defender]),
            )
            if key not in memo:
                best: tuple[tuple[int, int], list[int]] | None = None
                for a in node.legal_actions():
                    child = node.clone()
                    child.apply_action(a)
                    score, rest = visit(child)
                    if best is None or score < best[0]:
                        best = score, [a, *rest]
                assert best is not None
                memo[key] = best
            return memo[key]

        return visit(self.state)[1]

    # -- the observable state and the result ----------------------------------------------

    def state_json(self) -> Response:
        return {
            "phase": self.phase(),
            "to_move": self.to_move(),
            "dealer": self.dealer,
            "turn": self.turn,
            "stock_size": len(self.stock),
            "stock_top": CARD_NAMES[self.stock[0]] if self.stock else None,
            "stock": [CARD_NAMES[c] for c in self.stock],
            "discard_top": CARD_NAMES[self.pile[-1]] if self.pile else None,
            "discard_pile": [CARD_NAMES[c] for c in self.pile],
            "knock_limit": self.state.knock_card(),
            "taken_card": None if self.taken is None else CARD_NAMES[self.taken],
            "hands": [names(h) for h in self.hands()],
        }

    def result_json(self) -> Response | None:
        if not self.finished:
            return None
        show = self.show
        if show is None:
            end = self.end or "drawn"
            return {"end": end, "winner": None, "points": 0, "doubled": False, "show_down": None}
        s = self.state
        knocker = self.seat(show.knocker)  # OpenSpiel's player (the map is its own inverse)
        defender = 1 - knocker
        k, d = s.deadwood()[knocker], s.deadwood()[defender]
        returns = round(s.returns()[knocker])
        if returns < 0:
            end, winner = "undercut", 1 - show.knocker
        else:  # a tie scores 0 in OpenSpiel: a knock win worth nothing (O4 false)
            end, winner = ("gin" if k == 0 else "knock"), show.knocker
        defender_melds = [meld_of(MELD_BASE + m) for m in s.layed_melds()[defender]]
        lay_offs = attribute([our_card(c) for c in s.layoffs()] if k else [], show.knocker_melds)
        return {
            "end": end,
            "winner": winner,
            "points": abs(returns),
            "doubled": False,
            "show_down": {
                "knocker": show.knocker,
                "discard": CARD_NAMES[show.discard],
                "knocker_melds": [names(m) for m in show.knocker_melds],
                "knocker_deadwood_cards": names(our_card(c) for c in s.hands()[knocker]),
                "knocker_deadwood": k,
                "defender_melds": [names(m) for m in sorted(defender_melds, key=mask)],
                "lay_offs": lay_offs,
                "defender_deadwood_cards": names(our_card(c) for c in s.hands()[defender]),
                "defender_deadwood": d,
            },
        }


def attribute(cards: Sequence[int], melds: Sequence[Sequence[int]]) -> list[Response]:
    """The lay-offs ``cards`` with the knocker's meld each goes onto (OpenSpiel does not say),
    in an order in which each can be laid off. Among the ways to place them, R10's enumeration
    order decides: per meld in order, for a set none then the fourth card, for a run the fewest
    cards below, then the fewest above (the first meld varying slowest)."""

    def choice(meld: Sequence[int], placed: list[int]) -> tuple[int, int] | None:
        if not placed:
            return (0, 0)
        if len({c % 13 for c in meld}) == 1:  # a set of three takes the fourth card only
            ok = len(meld) == 3 and len(placed) == 1 and placed[0] % 13 == meld[0] % 13
            return (0, 1) if ok else None
        run = sorted([*meld, *placed])
        if any(c // 13 != run[0] // 13 for c in run) or run[-1] - run[0] != len(run) - 1:
            return None
        below = sum(1 for c in placed if c < min(meld))
        return (below, len(placed) - below)

    best: tuple[tuple[tuple[int, int], ...], list[list[int]]] | None = None
    for assignment in itertools.product(range(len(melds)), repeat=len(cards)):
        placed: list[list[int]] = [[] for _ in melds]
        for card, i in zip(cards, assignment, strict=True):
            placed[i].append(card)
        choices = [choice(m, p) for m, p in zip(melds, placed, strict=True)]
        if all(c is not None for c in choices):
            key = tuple(c for c in choices if c is not None)
            if best is None or key < best[0]:
                best = key, placed
    if best is None:  # no way to place them: say so rather than guess
        return [{"card": CARD_NAMES[c], "meld": None} for c in cards]
    out: list[Response] = []
    for i, (meld, placed) in enumerate(zip(melds, best[1], strict=True)):
        low = min(meld)  # a run's cards below it outwards, then above it outwards
        for card in [
            *sorted((c for c in placed if c < low), reverse=True),
            *sorted(c for c in placed if c > low),
        ]:
            out.append({"card": CARD_NAMES[card], "meld": i})
    return out


# -- the protocol ----------------------------------------------------------------------------


def deck_of(cards: object) -> list[int]:
    deck = parse_cards(cards, "deck")
    if len(deck) != 52:
        raise BadRequest(f"a deck has 52 cards, not {len(deck)}")
    return deck


class Adapter:
    """Answers the protocol's requests (:meth:`call`) with OpenSpiel."""

    def __init__(self) -> None:
        self.hand: OpenSpielHand | None = None
        self.ops: dict[str, Callable[[Mapping[str, Any]], Response]] = {
            "hello": self.hello,
            "hand": self.new_hand,
            "apply": self.apply,
            "legal": self.legal,
            "state": self.state,
            "result": self.result,
            "deadwood": self.deadwood,
            "meld": self.meld,
            "showdown": self.showdown,
            "quit": lambda request: {},
        }

    def call(self, request: object) -> Response:
        """The response to one request; never raises."""
        op = request.get("op") if isinstance(request, Mapping) else None
        try:
            if not isinstance(request, Mapping) or not isinstance(op, str):
                raise BadRequest("a request is an object with an op")
            if op in ("game", "seating", "next_seat", "next_hand", "game_result", "deal"):
                raise Unsupported(f"{op}: OpenSpiel's gin_rummy plays single hands only")
            if op not in self.ops:
                raise BadRequest(f"unknown op {op!r}")
            return {"ok": True, **self.ops[op](request)}
        except Illegal as error:
            return {"ok": False, "error": "illegal", "rule": None, "message": str(error)}
        except Unsupported as error:
            return {"ok": False, "error": "unsupported", "message": str(error)}
        except BadRequest as error:
            return {"ok": False, "error": "bad_request", "message": f"{op}: {error}"}
        except KeyError as error:
            return {"ok": False, "error": "bad_request", "message": f"{op}: missing {error}"}
        except Exception as error:  # never crash on a request: say what went wrong
            text = f"{type(error).__name__}: {error}"
            return {"ok": False, "error": "bad_request", "message": f"{op}: {text}"}

    def current(self) -> OpenSpielHand:
        if self.hand is None:
            raise BadRequest("no hand: send hand first")
        return self.hand

    def hello(self, request: Mapping[str, Any]) -> Response:
        return {
            "name": NAME,  # no "version": the name has it, and the runner prints both
            "protocol": PROTOCOL_VERSION,
            "rule_ids": False,  # OpenSpiel's refusals name no rule
            "notes": NOTES,
        }

    def new_hand(self, request: Mapping[str, Any]) -> Response:
        dealer = request["dealer"]
        if dealer not in (0, 1) or isinstance(dealer, bool):
            raise BadRequest(f"dealer must be 0 or 1, not {dealer!r}")
        rules = rules_of(request["rules"])
        deck = deck_of(request["deck"])
        self.hand = None
        self.hand = OpenSpielHand(rules, dealer, deck)
        return {}

    def apply(self, request: Mapping[str, Any]) -> Response:
        action = Action.parse(request["action"])
        trial = self.current().copy()  # the state stays as it was if OpenSpiel refuses
        trial.apply(action)
        self.hand = trial
        return {}

    def legal(self, request: Mapping[str, Any]) -> Response:
        return {"actions": self.current().legal()}

    def state(self, request: Mapping[str, Any]) -> Response:
        return {"state": self.current().state_json()}

    def result(self, request: Mapping[str, Any]) -> Response:
        return {"result": self.current().result_json()}

    def deadwood(self, request: Mapping[str, Any]) -> Response:
        hand = parse_cards(request["hand"], "hand")
        if len(hand) > 11:
            raise BadRequest("a hand has at most eleven cards")
        cards = [os_card(c) for c in hand]
        least = int(UTILS.min_deadwood(cards))  # eleven cards: OpenSpiel's direct answer
        if len(hand) < 11:
            return {"deadwood": least}
        discards = [
            c for i, c in enumerate(hand) if UTILS.min_deadwood(cards[:i] + cards[i + 1 :]) == least
        ]
        return {"deadwood": least, "discards": names(discards)}

    def meld(self, request: Mapping[str, Any]) -> Response:
        cards = [os_card(c) for c in parse_cards(request["cards"])]
        return {"valid": bool(UTILS.is_rank_meld(cards) or UTILS.is_suit_meld(cards))}

    def showdown(self, request: Mapping[str, Any]) -> Response:
        """A show-down played out: the knocker (seat 0, the non-dealer) and the defender are dealt
        their cards, both pass the first upcard, the knocker draws the discard from the stock and
        knocks with it."""
        rules = rules_of(request["rules"])
        kept = parse_cards(request["knocker_cards"], "knocker_cards")
        defender = parse_cards(request["defender_cards"], "defender_cards")
        if request.get("discard") is None:
            raise Unsupported("OpenSpiel has no big gin")
        discard = parse_card(request["discard"])
        pile = parse_cards(request.get("discard_pile", []), "discard_pile")
        if len(kept) != 10 or len(defender) != 10:
            raise BadRequest("the knocker keeps ten cards and the defender holds ten")
        used = [*kept, *defender, discard, *pile]
        if len(set(used)) != len(used):
            raise BadRequest("a card is in two places")
        first = parse_card(request.get("first_upcard", "AC"))
        upcard = first
        if first in (*kept, *defender, discard):  # deal another card (Oklahoma: of its value)
            free = [
                c
                for c in range(52)
                if c not in used and (value(c) == value(first) or not rules["oklahoma"])
            ]
            if not free:
                raise Unsupported("no free card of the first upcard's value to deal as upcard")
            upcard = free[0]
        if rules["oklahoma"] and rules["oklahoma_spades_double"] and first // 13 == SPADES:
            raise Unsupported("OpenSpiel never doubles a spade upcard (O14 oklahoma_spades_double)")
        deck = [c for pair in zip(kept, defender, strict=True) for c in pair]
        deck += [upcard, discard]
        deck += [c for c in range(52) if c not in deck]
        hand = OpenSpielHand(rules, 1, deck)
        for text in ("pass", "pass", "draw stock"):
            hand.apply(Action.parse(text))
        hand.pile = pile  # what the knocker's R20 arrangement knows of the discard pile
        melds = request.get("knocker_melds")
        declared = None if melds is None else tuple(tuple(parse_cards(m)) for m in melds)
        try:
            hand.apply(Action("knock", discard, declared))
        except Illegal as error:
            raise BadRequest(f"OpenSpiel refuses the knock: {error}") from None
        return {"result": hand.result_json()}


def serve(reader: Iterable[bytes], writer: Any) -> int:
    """Answer requests, one JSON line each, until ``quit``, the end of the input, or a reader
    that went away."""
    adapter = Adapter()
    for line in reader:
        if not line.strip():
            continue
        request: object = None
        try:
            request = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            response: Response = {
                "ok": False,
                "error": "bad_request",
                "message": f"not JSON: {error}",
            }
        else:
            response = adapter.call(request)
        try:
            writer.write(json.dumps(response, separators=(",", ":")).encode() + b"\n")
            writer.flush()
        except BrokenPipeError:  # nobody reads the answers any more
            return 0
        if isinstance(request, dict) and request.get("op") == "quit":
            break
    return 0


if __name__ == "__main__":
    sys.exit(serve(sys.stdin.buffer, sys.stdout.buffer))
