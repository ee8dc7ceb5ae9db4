"""Load the conformance cases and run them against an engine through the adapter protocol.

This module is the executable description of the case format in docs/CONFORMANCE.md: the
reading of each field, the deck-building convention and every comparison are here and nowhere
else. It talks to the engine under test only through requests of the adapter protocol
(``subject.call({"op": ...})``), to this project's engine in this process
(:class:`~arena.conformance.reference.ReferenceEngine`) or to any engine behind an adapter
command (:class:`~arena.conformance.remote.AdapterProcess`), so that every engine is judged by the
same code.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Final, Protocol

from arena.conformance.remote import AdapterError
from engine.cards import CARD_NAMES, RANKS, SUITS, CardError, parse_card
from engine.hand import Action, ActionError
from engine.rules import option_ids
from protocol.codec import QUOTE_LIMIT

RULE_IDS: Final = tuple(f"R{n}" for n in range(1, 26))
"""The rule IDs R1..R25 of docs/RULES.md."""
KINDS: Final = ("hand", "game", "showdown", "solver", "meld", "deal")
MODES: Final = {"two-player": 2, "hollywood": 2, "three-player": 3, "partnership": 4}
"""The formats a ``game`` case may name (``"mode"``), with how many players each seats."""
HOLLYWOOD_GAMES: Final = 3
"""How many games a Hollywood result holds (R23)."""

_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_CANONICAL = [r + s for s in SUITS for r in RANKS]  # AC 2C .. KC AD .. KS: the fill order
STATE_KEYS: Final = (
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
)
RESULT_KEYS: Final = (
    "end",
    "winner",
    "points",
    "doubled",
    "knocker_deadwood",
    "defender_deadwood",
    "laid_off",
    "knocker_melds",
    "knocker_deadwood_cards",
    "defender_melds",
    "defender_deadwood_cards",
    "lay_offs",
)
GAME_RESULT_KEYS: Final = (
    "winner",
    "scores",
    "hands_won",
    "game_bonus",
    "line_bonus",
    "hand_points",
    "end",
)
_HOLLYWOOD_RESULT_KEYS = (*GAME_RESULT_KEYS, "games")
_DEAL_KEYS = frozenset(
    {"hands", "upcard", "stock", "expect_dealer", "expect_players", "expect_table"}
)
_STEP_KEYS = (
    frozenset({"do"}),
    frozenset({"do", "error"}),
    frozenset({"legal"}),
    frozenset({"legal_includes"}),
    frozenset({"legal_excludes"}),
    frozenset({"state"}),
)
_SHOWDOWN_KEYS = frozenset(
    {
        "rules",
        "knocker_cards",
        "discard",
        "knocker_melds",
        "discard_pile",
        "first_upcard",
        "defender_cards",
        "result",
    }
)
_COMMON_KEYS = frozenset({"id", "title", "covers", "kind", "notes", "tags"})
_ANSWER_TYPES: Final[dict[str, tuple[type, ...]]] = {
    "actions": (list,),
    "state": (dict,),
    "result": (dict, type(None)),
    "dealer": (int,),
    "players": (list,),
    "table": (int,),
    "over": (bool,),
    "seat": (int,),
    "deadwood": (int,),
    "discards": (list,),
    "valid": (bool,),
    "splitmix64": (list,),
    "deck": (list,),
    "game": (dict,),
}
"""The JSON type of each key an op's response must hold (adapter.schema.json has the rest)."""
_TYPE_NAMES: Final[dict[type, str]] = {
    list: "a list",
    dict: "an object",
    int: "an integer",
    bool: "true or false",
    type(None): "null",
}


class Subject(Protocol):
    """An engine under test: it answers the adapter protocol's requests. An engine whose
    rejections carry no rule IDs says so (``rule_ids = False``, from ``hello``): its rejections
    are then judged on being rejections that leave the hand as it was."""

    name: str

    def call(self, request: Mapping[str, Any]) -> dict[str, Any]: ...


class CaseFailure(AssertionError):
    """A case failed: the engine disagrees with it, or the case itself is malformed.

    ``where`` names the place in the case (``"hand 2, step 5 {'do': 'knock 7H'}"``)."""

    def __init__(self, case_id: str, where: str, message: str) -> None:
        text = f"{case_id}: {where}: {message}" if where else f"{case_id}: {message}"
        super().__init__(text)
        self.case_id = case_id
        self.where = where
        self.message = message


class CaseSkipped(Exception):
    """The engine under test does not support what the case needs (``unsupported``)."""


@dataclass(frozen=True, slots=True)
class Case:
    """One case as read from its file."""

    data: Mapping[str, Any]
    path: str

    @property
    def id(self) -> str:
        return str(self.data.get("id", f"<no id in {Path(self.path).name}>"))

    @property
    def kind(self) -> str:
        return str(self.data.get("kind", ""))

    @property
    def covers(self) -> tuple[str, ...]:
        covers = self.data.get("covers", ())
        return tuple(str(c) for c in covers) if isinstance(covers, list) else ()

    @property
    def title(self) -> str:
        return str(self.data.get("title", ""))

    @property
    def tags(self) -> tuple[str, ...]:
        """The case's ``tags`` and its kind (``--tag showdown`` selects every show-down)."""
        tags = self.data.get("tags", ())
        return (self.kind, *(str(t) for t in tags)) if isinstance(tags, list) else (self.kind,)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How one case went: ``status`` is ``pass``, ``fail`` or ``skip``."""

    case: Case
    status: str
    where: str = ""
    message: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.case.id,
            "kind": self.case.kind,
            "covers": list(self.case.covers),
            "status": self.status,
            "where": self.where,
            "message": self.message,
        }


# ---------------------------------------------------------------------------------------------
# Loading and checking the format.


def shipped_cases_dir() -> Path:
    """The cases installed with the package."""
    return Path(str(resources.files("arena.conformance").joinpath("cases")))


def load_cases(*paths: Path | str) -> tuple[list[Case], list[Outcome]]:
    """Every case in the given files and directories (default: the shipped cases), sorted by
    id, and a failed outcome for each file that cannot be read as cases."""
    files: list[Path] = []
    for path in map(Path, paths or (shipped_cases_dir(),)):
        files.extend(sorted(path.glob("*.json")) if path.is_dir() else [path])
    cases: list[Case] = []
    broken: list[Outcome] = []
    for file in files:
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            bad = Case({"id": file.stem}, str(file))
            broken.append(Outcome(bad, "fail", "file", f"cannot read {file}: {error}"))
            continue
        items = data["cases"] if isinstance(data, dict) and "cases" in data else [data]
        if not isinstance(items, list):
            bad = Case({"id": file.stem}, str(file))
            broken.append(Outcome(bad, "fail", "file", f"{file}: cases must be a list"))
            continue
        cases.extend(Case(item if isinstance(item, Mapping) else {}, str(file)) for item in items)
    return sorted(cases, key=lambda case: case.id), broken


def known_ids() -> frozenset[str]:
    """The IDs a case may cover: R1..R25 and the option IDs of engine.rules."""
    return frozenset(RULE_IDS) | frozenset(option_ids().values())


def select(
    cases: Iterable[Case],
    *,
    rules: Sequence[str] = (),
    tags: Sequence[str] = (),
    names: Sequence[str] = (),
) -> list[Case]:
    """The cases that cover one of ``rules``, carry one of ``tags`` and whose id matches one of
    the ``names`` patterns (``fnmatch``); an empty filter selects everything."""
    wanted_rules = {r.upper() for r in rules}
    return [
        case
        for case in cases
        if (not wanted_rules or wanted_rules & set(case.covers))
        and (not tags or set(tags) & set(case.tags))
        and (not names or any(fnmatch.fnmatchcase(case.id, pattern) for pattern in names))
    ]


def check_format(case: Case) -> None:
    """Raise :class:`CaseFailure` if the case does not follow docs/CONFORMANCE.md's format."""
    data, cid = case.data, case.id

    def need(condition: bool, message: str) -> None:
        if not condition:
            raise CaseFailure(cid, "format", message)

    need(isinstance(data, Mapping) and bool(data), "a case is a JSON object")
    need(isinstance(data.get("id"), str) and bool(_ID.fullmatch(data["id"])), "bad or no id")
    need(isinstance(data.get("title"), str) and bool(data["title"]), "no title")
    covers = data.get("covers")
    if not isinstance(covers, list) or not covers:
        raise CaseFailure(cid, "format", "covers must be a non-empty list")
    unknown = sorted(set(map(str, covers)) - known_ids())
    need(not unknown, f"covers names unknown IDs {unknown}")
    need(case.kind in KINDS, f"kind must be one of {', '.join(KINDS)}")
    tags = data.get("tags", [])
    need(isinstance(tags, list) and all(isinstance(t, str) for t in tags), "tags is a list")
    if case.kind in ("hand", "game", "showdown"):
        rules = data.get("rules")
        need(isinstance(rules, Mapping) and "preset" in rules, "rules needs a preset")
    if case.kind == "hand":
        need("dealer" in data.get("deal", {}), "a hand's deal needs a dealer")
        _check_steps(cid, "", data.get("steps"))
        _check_result_format(cid, "result", data.get("result"))
    need(case.kind == "game" or "mode" not in data, "only a game names a mode")
    if case.kind == "game":
        _check_game_format(cid, data)
    if case.kind == "showdown":
        unknown = sorted(set(data) - _SHOWDOWN_KEYS - _COMMON_KEYS)
        need(not unknown, f"unknown keys {unknown}")
        for key in ("knocker_cards", "defender_cards", "result"):
            need(key in data, f"a show-down needs {key}")
        need("discard" in data, "a show-down names the discard (null for big gin)")
        _check_result_format(cid, "result", data["result"])


def _check_result_format(cid: str, where: str, result: object) -> None:
    if result is None:
        return
    if not isinstance(result, Mapping):
        raise CaseFailure(cid, "format", f"{where} must be an object")
    if "one_of" in result:
        choices = result["one_of"]
        if set(result) != {"one_of", "criterion"} or not isinstance(result["criterion"], str):
            raise CaseFailure(cid, "format", f"{where}: one_of goes with a criterion, alone")
        if not isinstance(choices, list) or len(choices) < 2:
            raise CaseFailure(cid, "format", f"{where}: one_of lists two results or more")
        for number, choice in enumerate(choices, 1):
            _check_result_format(cid, f"{where}, one_of {number}", choice)
            if "one_of" in choice:
                raise CaseFailure(cid, "format", f"{where}: one_of cannot nest")
        return
    unknown = sorted(set(result) - set(RESULT_KEYS))
    if unknown:
        raise CaseFailure(cid, "format", f"{where}: unknown result keys {unknown}")


def _check_game_format(cid: str, data: Mapping[str, Any]) -> None:
    def need(condition: bool, message: str) -> None:
        if not condition:
            raise CaseFailure(cid, "format", message)

    mode = data.get("mode", "two-player")
    need(mode in MODES, f"mode must be one of {', '.join(MODES)}")
    players = MODES[mode]
    hands = data.get("hands")
    if not isinstance(hands, list) or not hands:
        raise CaseFailure(cid, "format", "a game needs hands")
    need(isinstance(data.get("game_result"), Mapping), "a game needs a game_result")
    first_dealer = data.get("first_dealer")
    dealers = 2 if mode == "partnership" else players  # partnership: the dealing team
    need(
        first_dealer is None or first_dealer in range(dealers),
        f"first_dealer must be 0..{dealers - 1} in {mode}",
    )
    need(
        first_dealer is not None or "expect_dealer" in hands[0].get("deal", {}),
        "without first_dealer the first hand needs expect_dealer",
    )
    for index, spec in enumerate(hands, 1):
        deal = spec.get("deal", {})
        need("dealer" not in deal, f"hand {index}: the game picks the dealer")
        need(
            set(deal) <= _DEAL_KEYS,
            f"hand {index}: unknown deal keys {sorted(set(deal) - _DEAL_KEYS)}",
        )
        need(deal.get("expect_dealer", 0) in (0, 1), f"hand {index}: expect_dealer is a seat")
        need(deal.get("expect_table", 0) in (0, 1), f"hand {index}: expect_table is 0 or 1")
        seated = deal.get("expect_players", [0, 1])
        need(
            isinstance(seated, list)
            and len(seated) == 2
            and all(p in range(players) for p in seated)
            and seated[0] != seated[1],
            f"hand {index}: expect_players is two different players 0..{players - 1}",
        )
        _check_steps(cid, f"hand {index}, ", spec.get("steps"))
        _check_result_format(cid, f"hand {index}, result", spec.get("result"))
    keys = _HOLLYWOOD_RESULT_KEYS if mode == "hollywood" else GAME_RESULT_KEYS
    unknown = sorted(set(data["game_result"]) - set(keys))
    need(not unknown, f"game_result has unknown keys {unknown} for {mode}")
    games = data["game_result"].get("games", [{}] * HOLLYWOOD_GAMES)
    need(
        isinstance(games, list)
        and len(games) == HOLLYWOOD_GAMES
        and all(isinstance(g, Mapping) and set(g) <= set(GAME_RESULT_KEYS) for g in games),
        f"game_result.games is a list of {HOLLYWOOD_GAMES} game results",
    )


def _check_steps(cid: str, where: str, steps: object) -> None:
    if not isinstance(steps, list):
        raise CaseFailure(cid, "format", f"{where}steps must be a list")
    for index, step in enumerate(steps, 1):
        if not isinstance(step, dict) or frozenset(step) not in _STEP_KEYS:
            raise CaseFailure(cid, "format", f"{where}step {index}: bad step {step!r}")


# ---------------------------------------------------------------------------------------------
# Cards and decks.


def _canon(name: object) -> str:
    """A card name in canonical notation (``"10h"`` -> ``"TH"``)."""
    if not isinstance(name, str):
        raise ValueError(f"a card is a string, not {name!r}")
    return CARD_NAMES[parse_card(name)]


def card_set(names: Iterable[object]) -> frozenset[str]:
    return frozenset(_canon(name) for name in names)


def full_deal(deal: Mapping[str, Any]) -> tuple[list[str], list[str], str, list[str]]:
    """The two hands, the upcard and the whole stock (top first) of a deal: the listed stock cards,
    then every card not yet placed in canonical order (suits C, D, H, S; ranks A..K)."""
    hands = [list(deal["hands"][0]), list(deal["hands"][1])]
    upcard = deal["upcard"]
    stock = list(deal.get("stock", ()))
    names = [_canon(name) for name in [*hands[0], *hands[1], upcard, *stock]]
    if len(hands[0]) != 10 or len(hands[1]) != 10:
        raise ValueError("each hand has exactly ten cards")
    if len(set(names)) != len(names):
        raise ValueError(f"a card is placed twice: {' '.join(names)}")
    placed = set(names)
    stock = names[21:] + [c for c in _CANONICAL if c not in placed]
    return names[:10], names[10:20], names[20], stock


def build_deck(deal: Mapping[str, Any], dealer: int) -> list[str]:
    """The deck order for ``deal`` dealt by ``dealer`` (R5): ``deck[2i]`` is the non-dealer's
    i-th card, ``deck[2i + 1]`` the dealer's, ``deck[20]`` the upcard and ``deck[21:]`` the stock,
    top first."""
    p0, p1, upcard, stock = full_deal(deal)
    non_dealer, dealer_cards = (p1, p0) if dealer == 0 else (p0, p1)
    order: list[str] = []
    for mine, theirs in zip(non_dealer, dealer_cards, strict=True):
        order += [mine, theirs]
    return [*order, upcard, *stock]


def _canonical_action(cid: str, where: str, text: object) -> str:
    """An action in the notation's canonical spelling (so that spellings compare by meaning)."""
    try:
        return str(Action.parse(str(text)))
    except ActionError as error:
        raise CaseFailure(cid, where, f"bad action notation {text!r}: {error}") from None


def _show(value: object) -> str:
    """Cards in canonical order, sets of cards (melds) sorted, for readable failure messages."""
    if isinstance(value, frozenset):
        if all(isinstance(v, str) for v in value):
            return "{" + " ".join(sorted(value, key=_order)) + "}"
        return "{" + ", ".join(sorted(_show(v) for v in value)) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    return repr(value)


def _said(value: object) -> str:
    """A value the engine gave, for a message: its repr, cut short."""
    text = repr(value)
    return text if len(text) <= QUOTE_LIMIT else text[:QUOTE_LIMIT] + "..."


def _order(name: str) -> int:
    return _CANONICAL.index(name) if name in _CANONICAL else 99


# ---------------------------------------------------------------------------------------------
# Talking to the engine.


class _Engine:
    """A subject with the case and the place in it at hand, for the messages."""

    def __init__(self, subject: Subject, cid: str) -> None:
        self.subject = subject
        self.cid = cid

    def ask(self, where: str, request: Mapping[str, Any], *needs: str) -> dict[str, Any]:
        """The response to ``request``; it must be ``ok`` and hold every key of ``needs``."""
        return self.check(where, request["op"], self.call(where, request), *needs)

    def check(self, where: str, op: str, response: dict[str, Any], *needs: str) -> dict[str, Any]:
        """``response`` to ``op``, if it is ``ok`` and holds every key of ``needs``; else the
        case is skipped (``unsupported``) or fails."""
        if not response["ok"]:
            error = response.get("error")
            message = response.get("message", "")
            if error == "unsupported":
                raise CaseSkipped(f"{op}: {message}" if message else op)
            raise CaseFailure(self.cid, where, f"{op} refused: {error}: {message}")
        missing = [key for key in needs if key not in response]
        if missing:
            raise CaseFailure(self.cid, where, f"{op} answered without {', '.join(missing)}")
        for key in needs:
            value, types = response[key], _ANSWER_TYPES.get(key, (object,))
            # JSON's true and false are not numbers, though Python's bool is an int
            if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
                kinds = " or ".join(_TYPE_NAMES[t] for t in types)
                raise CaseFailure(
                    self.cid, where, f"{op} answered {key} {_said(value)}: not {kinds}"
                )
        return response

    def call(self, where: str, request: Mapping[str, Any]) -> dict[str, Any]:
        try:
            return self.subject.call(request)
        except AdapterError as error:
            raise CaseFailure(self.cid, where, str(error)) from None

    def state(self, where: str) -> dict[str, Any]:
        state = self.ask(where, {"op": "state"}, "state")["state"]
        if not isinstance(state, dict):
            raise CaseFailure(self.cid, where, f"state is not an object: {state!r}")
        return state

    def result(self, where: str) -> dict[str, Any] | None:
        result = self.ask(where, {"op": "result"}, "result")["result"]
        if result is not None and not isinstance(result, dict):
            raise CaseFailure(self.cid, where, f"result is not an object: {result!r}")
        return result


def _observed(cid: str, where: str, state: Mapping[str, Any], key: str) -> object:
    if key not in state:
        raise CaseFailure(cid, where, f"the engine's state has no {key!r}")
    value = state[key]
    try:
        if key == "hands":
            return [card_set(cards) for cards in value]
        if key == "discard_pile":
            return [_canon(name) for name in value]
        if key in ("stock_top", "discard_top", "taken_card") and value is not None:
            return _canon(value)
    except (TypeError, ValueError) as error:
        raise CaseFailure(cid, where, f"the engine's {key} is not cards: {error}") from None
    return value


def _expected_state(key: str, value: object) -> object:
    if key == "hands" and isinstance(value, list):
        return [card_set(cards) for cards in value]
    if key == "discard_pile" and isinstance(value, list):
        return [_canon(name) for name in value]
    if key in ("stock_top", "discard_top", "taken_card") and isinstance(value, str):
        return _canon(value)
    return value


def run_steps(engine: _Engine, prefix: str, steps: Sequence[Mapping[str, Any]]) -> None:
    """Play ``steps`` on the engine's current hand."""
    cid = engine.cid
    for number, step in enumerate(steps, 1):
        where = f"{prefix}step {number} {json.dumps(step)}"
        if "do" in step:
            action = _canonical_action(cid, where, step["do"])
            rule = step.get("error")
            if rule is None:
                response = engine.call(where, {"op": "apply", "action": action})
                if not response["ok"] and response.get("error") == "illegal":
                    message = response.get("message", "")
                    raise CaseFailure(cid, where, f"rejected ({response.get('rule')}): {message}")
                engine.check(where, "apply", response)
                continue
            before = engine.state(where)
            response = engine.call(where, {"op": "apply", "action": action})
            if response["ok"]:
                raise CaseFailure(cid, where, f"accepted, expected rejection with {rule}")
            if response.get("error") != "illegal":
                engine.check(where, "apply", response)  # skipped or failed, as it says
            got = response.get("rule")
            if got != rule and not (got is None and not getattr(engine.subject, "rule_ids", True)):
                message = response.get("message", "")
                raise CaseFailure(cid, where, f"rejected with {got}, expected {rule}: {message}")
            if engine.state(where) != before:
                raise CaseFailure(cid, where, "the rejected action changed the hand")
        elif "state" in step:
            state = engine.state(where)
            for key, value in step["state"].items():
                if key not in STATE_KEYS:
                    raise CaseFailure(cid, where, f"unknown state key {key!r}")
                got = _observed(cid, where, state, key)
                want = _expected_state(key, value)
                if got != want:
                    raise CaseFailure(
                        cid, where, f"{key}: expected {_show(want)}, got {_show(got)}"
                    )
        else:
            listed = engine.ask(where, {"op": "legal"}, "actions")["actions"]
            if not isinstance(listed, list):
                raise CaseFailure(cid, where, f"legal actions are not a list: {listed!r}")
            got_legal = frozenset(_canonical_action(cid, where + " (engine)", a) for a in listed)
            kind, wanted = next(iter(step.items()))
            want_legal = frozenset(_canonical_action(cid, where, a) for a in wanted)
            if kind == "legal" and got_legal != want_legal:
                missing = sorted(want_legal - got_legal)
                extra = sorted(got_legal - want_legal)
                raise CaseFailure(cid, where, f"legal actions: missing {missing}, extra {extra}")
            if kind == "legal_includes" and not want_legal <= got_legal:
                raise CaseFailure(cid, where, f"not legal: {sorted(want_legal - got_legal)}")
            if kind == "legal_excludes" and want_legal & got_legal:
                raise CaseFailure(
                    cid, where, f"legal, expected not: {sorted(want_legal & got_legal)}"
                )


def _lay_off_fits(card: str, meld: set[str]) -> bool:
    """Whether ``card`` can be laid off onto ``meld`` as it stands (R10): the fourth card of a
    set of three, or the card next to either end of a run."""
    index = _CANONICAL.index(card)
    cards = [_CANONICAL.index(c) for c in meld]
    ranks = {c % 13 for c in cards}
    if len(ranks) == 1:  # a set
        return len(cards) == 3 and index % 13 in ranks
    suits = {c // 13 for c in cards}
    if suits != {index // 13}:
        return False
    low, high = min(c % 13 for c in cards), max(c % 13 for c in cards)
    return index % 13 in (low - 1, high + 1)


def _compare_show_down(
    cid: str, where: str, key: str, want: object, show: Mapping[str, Any]
) -> tuple[object, object]:
    """The engine's value of a show-down key and the case's, in comparable form."""
    melds = [card_set(m) for m in show["knocker_melds"]]
    if key in ("knocker_deadwood", "defender_deadwood"):
        return show[key], want
    if key in ("knocker_melds", "defender_melds"):
        got = frozenset(card_set(m) for m in show[key])
        return got, frozenset(card_set(m) for m in want)  # type: ignore[attr-defined]
    if key in ("knocker_deadwood_cards", "defender_deadwood_cards"):
        return card_set(show[key]), card_set(want)  # type: ignore[arg-type]
    lay_offs = show["lay_offs"]
    if key == "laid_off":
        return card_set(lo["card"] for lo in lay_offs), card_set(want)  # type: ignore[arg-type]
    # lay_offs: the same (card, meld) pairs, in an order in which each card can be laid off
    extended = [set(m) for m in melds]
    for step, lo in enumerate(lay_offs, 1):
        card, index = _canon(lo["card"]), lo["meld"]
        if not isinstance(index, int) or not 0 <= index < len(melds):
            raise CaseFailure(cid, where, f"lay-off {step}: no knocker meld {index!r}")
        if not _lay_off_fits(card, extended[index]):
            order = [lo["card"] for lo in lay_offs]
            raise CaseFailure(
                cid,
                where,
                f"lay_offs: {card} cannot go onto {_show(frozenset(extended[index]))} "
                f"when it is laid off (order {order})",
            )
        extended[index].add(card)
    pairs: frozenset[tuple[str, frozenset[str]]] = frozenset(
        (_canon(lo["card"]), melds[lo["meld"]]) for lo in lay_offs
    )
    wanted: list[Mapping[str, Any]] = list(want)  # type: ignore[call-overload]
    expected = frozenset((_canon(lo["card"]), card_set(lo["meld"])) for lo in wanted)
    return pairs, expected


def _mismatches(
    cid: str, where: str, result: Mapping[str, Any], expected: Mapping[str, Any]
) -> str:
    """What differs between the engine's result and ``expected`` (empty when it matches)."""
    show = result.get("show_down")
    for key, want in expected.items():
        if key in ("end", "winner", "points", "doubled"):
            got: object = result.get(key)
        elif show is None:
            return f"{key}: expected {want!r}, but there was no show-down"
        else:
            try:
                got, want = _compare_show_down(cid, where, key, want, show)
            except (KeyError, TypeError, ValueError) as error:
                return f"{key}: the engine's show-down is incomplete or not cards ({error!r})"
        if got != want:
            return f"{key}: expected {_show(want)}, got {_show(got)}"
    return ""


def check_result(
    engine: _Engine, prefix: str, result: Mapping[str, Any] | None, expected: object
) -> None:
    """Compare the end of a hand with ``expected`` (None: the hand must still be going on)."""
    cid = engine.cid
    where = f"{prefix}result"
    if expected is None:
        if result is not None:
            raise CaseFailure(
                cid, where, f"the hand ended ({_brief(result)}), expected it to go on"
            )
        return
    if result is None:
        raise CaseFailure(cid, where, "the hand is not over")
    assert isinstance(expected, Mapping)
    if "one_of" in expected:
        misses = [_mismatches(cid, where, result, choice) for choice in expected["one_of"]]
        if all(misses):
            listed = "; ".join(f"{n}: {m}" for n, m in enumerate(misses, 1))
            raise CaseFailure(
                cid,
                where,
                f"matches none of the {len(misses)} results accepted "
                f"({expected['criterion']}): {listed} ({_brief(result)})",
            )
        return
    miss = _mismatches(cid, where, result, expected)
    if miss:
        raise CaseFailure(cid, where, f"{miss} ({_brief(result)})")


def _brief(result: Mapping[str, Any]) -> str:
    return f"{result.get('end')}, winner {result.get('winner')}, {result.get('points')} points"


# ---------------------------------------------------------------------------------------------
# Running.


def run_case(case: Case, subject: Subject) -> Outcome:
    """Run one case against ``subject``."""
    try:
        check_format(case)
        engine = _Engine(subject, case.id)
        try:
            _RUNNERS[case.kind](case, engine)
        except (KeyError, TypeError, ValueError, CardError) as error:
            raise CaseFailure(case.id, "format", f"malformed case: {error!r}") from error
    except CaseFailure as failure:
        return Outcome(case, "fail", failure.where, failure.message)
    except CaseSkipped as skipped:
        return Outcome(case, "skip", "", f"unsupported by the engine: {skipped}")
    except Exception as error:  # a bug fails one case, whatever the engine answered, not the run
        message = f"the runner failed on this case: {error!r} (a bug of the runner: report it)"
        return Outcome(case, "fail", "", message)
    return Outcome(case, "pass")


def _run_hand(case: Case, engine: _Engine) -> None:
    data = case.data
    dealer = int(data["deal"]["dealer"])
    deck = build_deck(data["deal"], dealer)
    engine.ask("deal", {"op": "hand", "rules": data["rules"], "dealer": dealer, "deck": deck})
    run_steps(engine, "", data["steps"])
    check_result(engine, "", engine.result("result"), data.get("result"))


def first_seat(mode: str, first_dealer: int) -> int:
    """The seat that deals a format's first hand when ``first_dealer`` deals it: the dealer is in
    seat 1 in three-player (the dealing player sits out; the player after them holds the dealer's
    seat); elsewhere it is ``first_dealer``'s seat, which is the player (two-player, Hollywood) or
    the dealing team (partnership: team 0's player always sits in seat 0)."""
    return 1 if mode == "three-player" else first_dealer


def _run_game(case: Case, engine: _Engine) -> None:
    data, cid = case.data, case.id
    mode = str(data.get("mode", "two-player"))
    specs = data["hands"]
    first_dealer: int | None = data.get("first_dealer")
    first = specs[0]["deal"]
    if first_dealer is None:  # check_format: then the first hand gives expect_dealer
        seat = int(first["expect_dealer"])
    else:
        seat = int(first.get("expect_dealer", first_seat(mode, first_dealer)))
    engine.ask(
        "game",
        {
            "op": "game",
            "mode": mode,
            "rules": data["rules"],
            "seed": str(data.get("seed", "0")),
            "first_dealer": first_dealer,
            "deck": build_deck(first, seat),
        },
    )
    for number, spec in enumerate(specs, 1):
        prefix = f"hand {number}, "
        deal = spec["deal"]
        if number > 1:
            nxt = engine.ask(f"hand {number}", {"op": "next_seat"}, "over")
            if nxt["over"]:
                raise CaseFailure(cid, f"hand {number}", "the game is already over")
            seat = engine.check(f"hand {number}", "next_seat", nxt, "seat")["seat"]
            if seat not in (0, 1):
                raise CaseFailure(cid, f"hand {number}", f"next_seat answered seat {seat}")
            engine.ask(f"hand {number}", {"op": "next_hand", "deck": build_deck(deal, seat)})
        seating = engine.ask(f"hand {number}", {"op": "seating"}, "dealer", "players", "table")
        got = {
            "expect_dealer": seating["dealer"],
            "expect_players": list(seating["players"]),
            "expect_table": seating["table"],
        }
        for key, value in got.items():
            if key in deal and deal[key] != value:
                raise CaseFailure(
                    cid, f"hand {number}", f"{key[7:]}: expected {deal[key]!r}, got {value!r}"
                )
        run_steps(engine, prefix, spec["steps"])
        check_result(engine, prefix, engine.result(f"{prefix}result"), spec.get("result"))
    result = engine.ask("game_result", {"op": "game_result"}, "result")["result"]
    if result is None:
        raise CaseFailure(cid, "game_result", f"the game is not over after {len(specs)} hands")
    expected = data["game_result"]
    _check_game_result(cid, "game_result", result, expected)
    if "games" in expected:  # hollywood only (check_format)
        games = result.get("games", [])
        if not isinstance(games, list) or not all(isinstance(g, dict) for g in games):
            raise CaseFailure(
                cid, "game_result", f"games {_said(games)}: not a list of game results"
            )
        if len(games) != len(expected["games"]):
            raise CaseFailure(
                cid, "game_result", f"games: expected {len(expected['games'])}, got {len(games)}"
            )
        for number, (game, want) in enumerate(zip(games, expected["games"], strict=True), 1):
            _check_game_result(cid, f"game_result, game {number}", game, want)


def _check_game_result(
    cid: str, where: str, result: Mapping[str, Any], expected: Mapping[str, Any]
) -> None:
    for key, want in expected.items():
        if key == "games":
            continue
        if key not in GAME_RESULT_KEYS:
            raise CaseFailure(cid, where, f"unknown key {key!r}")
        got = result.get(key)
        if got != want:
            raise CaseFailure(cid, where, f"{key}: expected {want!r}, got {got!r}")


def _run_showdown(case: Case, engine: _Engine) -> None:
    data = case.data
    request: dict[str, Any] = {
        "op": "showdown",
        "rules": data["rules"],
        "knocker_cards": [_canon(c) for c in data["knocker_cards"]],
        "defender_cards": [_canon(c) for c in data["defender_cards"]],
        "knocker_melds": (
            None
            if data.get("knocker_melds") is None
            else [[_canon(c) for c in meld] for meld in data["knocker_melds"]]
        ),
        "discard": None if data["discard"] is None else _canon(data["discard"]),
        "discard_pile": [_canon(c) for c in data.get("discard_pile", ())],
        "first_upcard": _canon(data.get("first_upcard", "AC")),
    }
    result = engine.ask("showdown", request, "result")["result"]
    if not isinstance(result, dict):
        raise CaseFailure(case.id, "result", f"the show-down gave no result: {result!r}")
    check_result(engine, "", result, data["result"])


def _run_solver(case: Case, engine: _Engine) -> None:
    data, cid = case.data, case.id
    hand = [_canon(c) for c in data["hand"]]
    if len(hand) > 11:
        raise CaseFailure(cid, "format", "a solver hand has at most eleven cards")
    if "discards" in data and len(hand) != 11:
        raise CaseFailure(cid, "format", "discards are for eleven-card hands")
    answer = engine.ask("deadwood", {"op": "deadwood", "hand": hand}, "deadwood")
    if answer["deadwood"] != data["deadwood"]:
        raise CaseFailure(cid, "deadwood", f"expected {data['deadwood']}, got {answer['deadwood']}")
    if "discards" in data:
        want = card_set(data["discards"])
        listed = engine.check("discards", "deadwood", answer, "discards")["discards"]
        try:
            got = card_set(listed)
        except ValueError as error:  # CardError too
            raise CaseFailure(
                cid, "discards", f"the engine's discards are not cards: {error}"
            ) from None
        if got != want:
            raise CaseFailure(cid, "discards", f"expected {_show(want)}, got {_show(got)}")


def _run_meld(case: Case, engine: _Engine) -> None:
    for number, item in enumerate(case.data["melds"], 1):
        cards = [_canon(c) for c in item["cards"]]
        where = f"meld {number}"
        got = engine.ask(where, {"op": "meld", "cards": cards}, "valid")["valid"]
        if got != item["valid"]:
            raise CaseFailure(case.id, where, f"[{' '.join(cards)}]: expected {item['valid']}")


def _run_deal(case: Case, engine: _Engine) -> None:
    data, cid = case.data, case.id
    want_outputs = list(data.get("splitmix64", ()))
    answer = engine.ask(
        "deal",
        {"op": "deal", "seed": str(data["seed"]), "outputs": len(want_outputs)},
        "splitmix64",
        "deck",
        "game",
    )
    outputs = list(answer["splitmix64"])
    if len(outputs) != len(want_outputs):
        raise CaseFailure(cid, "splitmix64", f"expected {len(want_outputs)} outputs")
    for number, (want, got) in enumerate(zip(want_outputs, outputs, strict=True), 1):
        if str(got) != str(want):
            raise CaseFailure(cid, f"splitmix64 output {number}", f"expected {want}, got {got}")
    if "deck" in data and list(answer["deck"]) != list(data["deck"]):
        raise CaseFailure(cid, "deck", f"expected {data['deck']}, got {answer['deck']}")
    if "game" in data:
        want_game, got_game = data["game"], answer["game"]
        if got_game.get("first_dealer") != want_game["first_dealer"]:
            raise CaseFailure(
                cid,
                "game first_dealer",
                f"expected {want_game['first_dealer']}, got {got_game.get('first_dealer')}",
            )
        if got_game.get("deck") != list(want_game["deck"]):
            raise CaseFailure(
                cid, "game deck", f"expected {want_game['deck']}, got {got_game.get('deck')}"
            )


_RUNNERS = {
    "hand": _run_hand,
    "game": _run_game,
    "showdown": _run_showdown,
    "solver": _run_solver,
    "meld": _run_meld,
    "deal": _run_deal,
}


def run_cases(cases: Iterable[Case], subject: Subject) -> Iterator[Outcome]:
    for case in cases:
        yield run_case(case, subject)


def coverage(cases: Iterable[Case]) -> dict[str, list[str]]:
    """ID to the ids of the cases that cover it, for every known ID (R1..R25, O1..O17)."""
    table: dict[str, list[str]] = {
        i: [] for i in sorted(known_ids(), key=lambda i: (i[0] == "O", int(i[1:])))
    }
    for case in cases:
        for rule_id in case.covers:
            table.setdefault(rule_id, []).append(case.id)
    return table


def summary(outcomes: Iterable[Outcome]) -> dict[str, dict[str, int]]:
    """Per rule and option ID: how many of the cases covering it passed, failed, were skipped."""
    table: dict[str, dict[str, int]] = {}
    for outcome in outcomes:
        for rule_id in outcome.case.covers or ("-",):
            counts = table.setdefault(rule_id, {"pass": 0, "fail": 0, "skip": 0})
            counts[outcome.status] += 1
    return dict(sorted(table.items(), key=lambda kv: _id_order(kv[0])))


def _id_order(rule_id: str) -> tuple[int, int]:
    if len(rule_id) > 1 and rule_id[0] in "RO" and rule_id[1:].isdigit():
        return (0 if rule_id[0] == "R" else 1, int(rule_id[1:]))
    return (2, 0)
