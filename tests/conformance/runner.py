"""Load and run the conformance cases (``cases/*.json``) against the reference engine.

This module is the executable description of the case format in ``README.md``: the reading of
each field, the deck-building convention and every comparison are here and nowhere else. Another
implementation runs the same cases by replacing the few engine calls marked ``# engine:`` with its
own.

Run every case from the repository root with ``python -m tests.conformance.runner`` (or name case
files or directories after it); ``pytest tests/conformance`` runs one test per case.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.cards import CARD_NAMES, RANKS, SUITS, parse_card
from engine.deck import SplitMix64, shuffled_deck
from engine.formats import FormatResult, Mode, Session, new_session
from engine.game import Game
from engine.hand import Action, Hand, IllegalAction
from engine.melds import best_discards, deadwood, is_meld, min_deadwood
from engine.rules import Rules, option_ids

CASES_DIR = Path(__file__).resolve().parent / "cases"
"""Where the cases live: one JSON file per case (a file may also hold ``{"cases": [...]}``)."""

RULE_IDS = tuple(f"R{n}" for n in range(1, 26))
"""The rule IDs R1..R25 of docs/RULES.md."""

KINDS = ("hand", "game", "solver", "meld", "deal")

MODES = {"two-player": 2, "hollywood": 2, "three-player": 3, "partnership": 4}
"""The formats a ``game`` case may name (``"mode"``), with how many players each seats."""

HOLLYWOOD_GAMES = 3
"""How many games a Hollywood result holds (R23)."""

_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_CANONICAL = [r + s for s in SUITS for r in RANKS]  # AC 2C .. KC AD .. KS: the fill order
_STATE_KEYS = (
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
_RESULT_KEYS = (
    "end",
    "winner",
    "points",
    "doubled",
    "knocker_deadwood",
    "defender_deadwood",
    "laid_off",
    "knocker_melds",
)
_GAME_RESULT_KEYS = (
    "winner",
    "scores",
    "hands_won",
    "game_bonus",
    "line_bonus",
    "hand_points",
    "end",
)
_HOLLYWOOD_RESULT_KEYS = (*_GAME_RESULT_KEYS, "games")
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


class CaseFailure(AssertionError):
    """A case failed: the engine disagrees with it, or the case itself is malformed.

    ``where`` names the place in the case (``"hand 2, step 5 {'do': 'knock 7H'}"``)."""

    def __init__(self, case_id: str, where: str, message: str) -> None:
        text = f"{case_id}: {where}: {message}" if where else f"{case_id}: {message}"
        super().__init__(text)
        self.case_id = case_id
        self.where = where
        self.message = message


@dataclass(frozen=True, slots=True)
class Case:
    """One case as read from its file."""

    data: Mapping[str, Any]
    path: Path

    @property
    def id(self) -> str:
        return str(self.data.get("id", f"<no id in {self.path.name}>"))

    @property
    def kind(self) -> str:
        return str(self.data.get("kind", ""))

    @property
    def covers(self) -> tuple[str, ...]:
        return tuple(self.data.get("covers", ()))

    @property
    def title(self) -> str:
        return str(self.data.get("title", ""))


# ---------------------------------------------------------------------------------------------
# Loading and checking the format.


def load_cases(*paths: Path | str) -> list[Case]:
    """Every case in the given files and directories (default: :data:`CASES_DIR`), sorted by id."""
    files: list[Path] = []
    for path in map(Path, paths or (CASES_DIR,)):
        files.extend(sorted(path.glob("*.json")) if path.is_dir() else [path])
    cases: list[Case] = []
    for file in files:
        data = json.loads(file.read_text(encoding="utf-8"))
        items = data["cases"] if isinstance(data, dict) and "cases" in data else [data]
        cases.extend(Case(item, file) for item in items)
    return sorted(cases, key=lambda case: case.id)


def known_ids() -> frozenset[str]:
    """The IDs a case may cover: R1..R25 and the option IDs of engine.rules."""
    return frozenset(RULE_IDS) | frozenset(option_ids().values())


def check_format(case: Case) -> None:
    """Raise :class:`CaseFailure` if the case does not follow README.md's format."""
    data, cid = case.data, case.id

    def need(condition: bool, message: str) -> None:
        if not condition:
            raise CaseFailure(cid, "format", message)

    need(isinstance(data, Mapping), "a case is a JSON object")
    need(isinstance(data.get("id"), str) and bool(_ID.fullmatch(data["id"])), "bad or no id")
    need(isinstance(data.get("title"), str) and bool(data["title"]), "no title")
    covers = data.get("covers")
    if not isinstance(covers, list) or not covers:
        raise CaseFailure(cid, "format", "covers must be a non-empty list")
    unknown = sorted(set(covers) - known_ids())
    need(not unknown, f"covers names unknown IDs {unknown}")
    need(case.kind in KINDS, f"kind must be one of {', '.join(KINDS)}")
    if case.kind in ("hand", "game"):
        rules = data.get("rules")
        need(isinstance(rules, Mapping) and "preset" in rules, "rules needs a preset")
    if case.kind == "hand":
        need("dealer" in data.get("deal", {}), "a hand's deal needs a dealer")
        _check_steps(cid, "", data.get("steps"))
    need(case.kind == "game" or "mode" not in data, "only a game names a mode")
    if case.kind == "game":
        _check_game_format(cid, data)


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
    keys = _HOLLYWOOD_RESULT_KEYS if mode == "hollywood" else _GAME_RESULT_KEYS
    unknown = sorted(set(data["game_result"]) - set(keys))
    need(not unknown, f"game_result has unknown keys {unknown} for {mode}")
    games = data["game_result"].get("games", [{}] * HOLLYWOOD_GAMES)
    need(
        isinstance(games, list)
        and len(games) == HOLLYWOOD_GAMES
        and all(isinstance(g, Mapping) and set(g) <= set(_GAME_RESULT_KEYS) for g in games),
        f"game_result.games is a list of {HOLLYWOOD_GAMES} game results",
    )


def _check_steps(cid: str, where: str, steps: object) -> None:
    if not isinstance(steps, list):
        raise CaseFailure(cid, "format", f"{where}steps must be a list")
    for index, step in enumerate(steps, 1):
        if not isinstance(step, dict) or frozenset(step) not in _STEP_KEYS:
            raise CaseFailure(cid, "format", f"{where}step {index}: bad step {step!r}")


# ---------------------------------------------------------------------------------------------
# Decks.


def full_deal(deal: Mapping[str, Any]) -> tuple[list[str], list[str], str, list[str]]:
    """The two hands, the upcard and the whole stock (top first) of a deal: the listed stock cards,
    then every card not yet placed in canonical order (suits C, D, H, S; ranks A..K)."""
    hands = [list(deal["hands"][0]), list(deal["hands"][1])]
    upcard = str(deal["upcard"])
    stock = list(deal.get("stock", ()))
    placed = hands[0] + hands[1] + [upcard] + stock
    names = [CARD_NAMES[parse_card(name)] for name in placed]  # normalises "10h" and the like
    if len(hands[0]) != 10 or len(hands[1]) != 10:
        raise ValueError("each hand has exactly ten cards")
    if len(set(names)) != len(names):
        raise ValueError(f"a card is placed twice: {' '.join(names)}")
    placed_set = set(names)
    stock = names[21:] + [c for c in _CANONICAL if c not in placed_set]
    return names[:10], names[10:20], names[20], stock


def build_deck(deal: Mapping[str, Any], dealer: int) -> list[int]:
    """The deck order for ``deal`` dealt by ``dealer`` (engine.deck's convention, R5):
    ``deck[2i]`` is the non-dealer's i-th card, ``deck[2i + 1]`` the dealer's, ``deck[20]`` the
    upcard and ``deck[21:]`` the stock, top first."""
    p0, p1, upcard, stock = full_deal(deal)
    non_dealer, dealer_cards = (p1, p0) if dealer == 0 else (p0, p1)
    order: list[str] = []
    for mine, theirs in zip(non_dealer, dealer_cards, strict=True):
        order += [mine, theirs]
    return [parse_card(name) for name in [*order, upcard, *stock]]


def rules_of(data: Mapping[str, Any]) -> Rules:
    spec = data.get("rules", {"preset": "hoyle"})
    return Rules.preset(spec["preset"]).with_options(spec.get("options", {}))  # engine:


# ---------------------------------------------------------------------------------------------
# Running.


def run_case(case: Case) -> None:
    """Run one case; raise :class:`CaseFailure` on the first disagreement."""
    check_format(case)
    try:
        _run(case)
    except (KeyError, TypeError, ValueError) as error:  # CaseFailure is an AssertionError
        raise CaseFailure(case.id, "format", f"malformed case: {error!r}") from error


def _run(case: Case) -> None:
    runners: dict[str, Callable[[Case], None]] = {
        "hand": _run_hand_case,
        "game": _run_game_case,
        "solver": _run_solver_case,
        "meld": _run_meld_case,
        "deal": _run_deal_case,
    }
    runners[case.kind](case)


def _card_set(names: Iterable[str]) -> frozenset[str]:
    return frozenset(CARD_NAMES[parse_card(name)] for name in names)


def _mask(names: Iterable[str]) -> int:
    mask = 0
    for name in names:
        mask |= 1 << parse_card(name)
    return mask


def _names(mask: int) -> frozenset[str]:
    return frozenset(CARD_NAMES[c] for c in range(52) if mask >> c & 1)


def _canonical_action(cid: str, where: str, text: str) -> str:
    try:
        return str(Action.parse(text))  # engine:
    except ValueError as error:
        raise CaseFailure(cid, where, f"bad action notation {text!r}: {error}") from None


def _snapshot(hand: Hand) -> tuple[object, ...]:
    """Everything an illegal action must leave unchanged."""
    return (
        hand.phase,
        hand.to_move,
        tuple(hand.hands),
        tuple(hand.pile),
        tuple(hand.stock),
        hand.turn,
        hand.taken_card,
        hand.result,
        len(hand.history),
    )


def _observed_state(hand: Hand, key: str) -> object:
    if key == "phase":
        return hand.phase.value
    if key in ("to_move", "dealer", "turn", "knock_limit"):
        return getattr(hand, key)
    if key == "stock_size":
        return len(hand.stock)
    if key == "stock_top":
        return CARD_NAMES[hand.stock[-1]] if hand.stock else None
    if key == "discard_top":
        return CARD_NAMES[hand.pile[-1]] if hand.pile else None
    if key == "discard_pile":
        return [CARD_NAMES[c] for c in hand.pile]
    if key == "taken_card":
        taken = hand.taken_card
        return None if taken is None else CARD_NAMES[taken]
    if key == "hands":
        return [_names(h) for h in hand.hands]
    raise KeyError(key)


def _expected_state(key: str, value: object) -> object:
    if key == "hands" and isinstance(value, list):
        return [_card_set(cards) for cards in value]
    if key == "discard_pile" and isinstance(value, list):
        return [CARD_NAMES[parse_card(name)] for name in value]
    if key in ("stock_top", "discard_top", "taken_card") and isinstance(value, str):
        return CARD_NAMES[parse_card(value)]
    return value


def _show(value: object) -> str:
    """Cards in canonical order, sets of cards (melds) sorted, for readable failure messages."""
    if isinstance(value, frozenset):
        if all(isinstance(v, str) for v in value):
            return "{" + " ".join(sorted(value, key=_CANONICAL.index)) + "}"
        return "{" + ", ".join(sorted(_show(v) for v in value)) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    return repr(value)


def run_steps(
    cid: str,
    prefix: str,
    hand: Callable[[], Hand],
    steps: Sequence[Mapping[str, Any]],
    apply: Callable[[Action], object],
) -> None:
    """Play ``steps`` on the current hand (``hand()``), applying actions with ``apply``."""
    for number, step in enumerate(steps, 1):
        where = f"{prefix}step {number} {json.dumps(step)}"
        current = hand()
        if "do" in step:
            action = Action.parse(_canonical_action(cid, where, step["do"]))
            rule = step.get("error")
            if rule is None:
                try:
                    apply(action)  # engine:
                except IllegalAction as error:
                    raise CaseFailure(cid, where, f"rejected: {error}") from None
                continue
            before = _snapshot(current)
            try:
                apply(action)  # engine:
            except IllegalAction as error:
                if error.rule != rule:
                    raise CaseFailure(
                        cid, where, f"rejected with {error.rule}, expected {rule}: {error}"
                    ) from None
            else:
                raise CaseFailure(cid, where, f"accepted, expected rejection with {rule}")
            if _snapshot(current) != before:
                raise CaseFailure(cid, where, "the rejected action changed the hand")
        elif "state" in step:
            for key, value in step["state"].items():
                if key not in _STATE_KEYS:
                    raise CaseFailure(cid, where, f"unknown state key {key!r}")
                got = _observed_state(current, key)
                want = _expected_state(key, value)
                if got != want:
                    raise CaseFailure(
                        cid, where, f"{key}: expected {_show(want)}, got {_show(got)}"
                    )
        else:
            got_legal = frozenset(str(a) for a in current.legal_actions())  # engine:
            kind, listed = next(iter(step.items()))
            want_legal = frozenset(_canonical_action(cid, where, a) for a in listed)
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


def check_result(cid: str, prefix: str, hand: Hand, expected: Mapping[str, Any] | None) -> None:
    """Compare the end of the hand with ``expected`` (None: the hand must still be going on)."""
    where = f"{prefix}result"
    result = hand.result
    if expected is None:
        if result is not None:
            raise CaseFailure(cid, where, f"the hand ended ({result}), expected it to go on")
        return
    if result is None:
        raise CaseFailure(cid, where, f"the hand is not over (phase {hand.phase.value})")
    show_down = result.show_down
    for key, want in expected.items():
        got: object
        if key not in _RESULT_KEYS:
            raise CaseFailure(cid, where, f"unknown result key {key!r}")
        if key == "end":
            got = result.end.value
        elif key in ("winner", "points", "doubled"):
            got = getattr(result, key)
        elif show_down is None:
            raise CaseFailure(cid, where, f"{key}: expected {want!r}, but there was no show-down")
        elif key in ("knocker_deadwood", "defender_deadwood"):
            got = getattr(show_down, key)
        elif key == "laid_off":
            got = frozenset(CARD_NAMES[lay_off.card] for lay_off in show_down.lay_offs)
            want = _card_set(want)
        else:  # knocker_melds
            got = frozenset(_names(m) for m in show_down.knocker_melds)
            want = frozenset(_card_set(m) for m in want)
        if got != want:
            raise CaseFailure(
                cid, where, f"{key}: expected {_show(want)}, got {_show(got)} ({result})"
            )


def _run_hand_case(case: Case) -> None:
    data = case.data
    rules = rules_of(data)
    dealer = int(data["deal"]["dealer"])
    hand = Hand(rules, dealer, build_deck(data["deal"], dealer))  # engine:
    run_steps(case.id, "", lambda: hand, data["steps"], hand.apply)
    check_result(case.id, "", hand, data.get("result"))


def first_seat(mode: str, first_dealer: int) -> int:
    """The seat that deals a format's first hand when ``first_dealer`` deals it: the dealer is in
    seat 1 in three-player (the dealing player sits out; the player after them holds the dealer's
    seat); elsewhere it is ``first_dealer``'s seat, which is the player (two-player, Hollywood) or
    the dealing team (partnership: team 0's player always sits in seat 0)."""
    return 1 if mode == "three-player" else first_dealer


def _run_game_case(case: Case) -> None:
    data, cid = case.data, case.id
    rules = rules_of(data)
    mode = str(data.get("mode", "two-player"))
    specs = data["hands"]
    first_dealer: int | None = data.get("first_dealer")
    first = specs[0]["deal"]
    if first_dealer is None:  # check_format: then the first hand gives expect_dealer
        seat = int(first["expect_dealer"])
    else:
        seat = int(first.get("expect_dealer", first_seat(mode, first_dealer)))
    seed = int(data.get("seed", "0"))
    session: Session = new_session(  # engine:
        Mode.parse(mode), rules, seed, first_dealer, build_deck(first, seat)
    )
    for number, spec in enumerate(specs, 1):
        prefix = f"hand {number}, "
        deal = spec["deal"]
        if number > 1:
            if session.is_over:  # engine:
                raise CaseFailure(
                    cid, f"hand {number}", f"the game is already over: {session.result}"
                )
            _, seat = session.next_seating  # engine: the seat that deals the next hand (R4)
            session.next_hand(build_deck(deal, seat))  # engine:
        _check_seating(cid, f"hand {number}", session, deal)
        run_steps(cid, prefix, lambda: session.hand, spec["steps"], session.apply)
        check_result(cid, prefix, session.hand, spec.get("result"))
    result = session.result  # engine:
    if result is None:
        raise CaseFailure(cid, "game_result", f"the game is not over after {len(specs)} hands")
    expected = data["game_result"]
    _check_game_result(cid, "game_result", result, expected)
    if "games" in expected:  # hollywood only (check_format)
        games = result.games if isinstance(result, FormatResult) else ()
        if len(games) != len(expected["games"]):
            raise CaseFailure(
                cid, "game_result", f"games: expected {len(expected['games'])}, got {len(games)}"
            )
        for number, (game, want) in enumerate(zip(games, expected["games"], strict=True), 1):
            _check_game_result(cid, f"game_result, game {number}", game, want)


def _check_seating(cid: str, where: str, session: Session, deal: Mapping[str, Any]) -> None:
    """Compare the hand just dealt with the deal's ``expect_dealer`` (the dealing seat),
    ``expect_players`` (the players in seats 0 and 1) and ``expect_table``."""
    got: dict[str, object] = {
        "expect_dealer": session.hand.dealer,  # engine:
        "expect_players": list(session.seated),  # engine:
        "expect_table": session.table,  # engine:
    }
    for key, value in got.items():
        if key in deal and deal[key] != value:
            raise CaseFailure(cid, where, f"{key[7:]}: expected {deal[key]!r}, got {value!r}")


def _check_game_result(cid: str, where: str, result: object, expected: Mapping[str, Any]) -> None:
    """Compare a game's result (a two-player game, a format, or one of Hollywood's games) with
    the keys of ``expected`` other than ``games``."""
    for key, want in expected.items():
        if key == "games":
            continue
        if key not in _GAME_RESULT_KEYS:
            raise CaseFailure(cid, where, f"unknown key {key!r}")
        got = getattr(result, key)
        got = list(got) if isinstance(got, tuple) else got
        if key == "end":
            got = str(got)
        if got != want:
            raise CaseFailure(cid, where, f"{key}: expected {want!r}, got {got!r}")


def _run_solver_case(case: Case) -> None:
    data, cid = case.data, case.id
    cards = _mask(data["hand"])
    size = len(data["hand"])
    if size > 11:
        raise CaseFailure(cid, "format", "a solver hand has at most eleven cards")
    got = min_deadwood(cards) if size == 11 else deadwood(cards)  # engine:
    if got != data["deadwood"]:
        raise CaseFailure(cid, "deadwood", f"expected {data['deadwood']}, got {got}")
    if "discards" in data:
        if size != 11:
            raise CaseFailure(cid, "format", "discards are for eleven-card hands")
        least, mask = best_discards(cards)  # engine:
        want = _card_set(data["discards"])
        if least != data["deadwood"] or _names(mask) != want:
            raise CaseFailure(
                cid,
                "discards",
                f"expected {_show(want)} leaving {data['deadwood']}, "
                f"got {_show(_names(mask))} leaving {least}",
            )


def _run_meld_case(case: Case) -> None:
    for number, item in enumerate(case.data["melds"], 1):
        got = is_meld(_mask(item["cards"]))  # engine:
        if got != item["valid"]:
            cards = " ".join(item["cards"])
            raise CaseFailure(case.id, f"meld {number}", f"[{cards}]: expected {item['valid']}")


def _run_deal_case(case: Case) -> None:
    data, cid = case.data, case.id
    seed = int(data["seed"])
    rng = SplitMix64(seed)  # engine:
    for number, want in enumerate(data.get("splitmix64", ()), 1):
        got = rng.next()
        if got != int(want):
            raise CaseFailure(cid, f"splitmix64 output {number}", f"expected {want}, got {got}")
    if "deck" in data:
        got_deck = [CARD_NAMES[c] for c in shuffled_deck(seed)]  # engine:
        if got_deck != list(data["deck"]):
            raise CaseFailure(cid, "deck", f"expected {data['deck']}, got {got_deck}")
    if "game" in data:
        game = Game(seed=seed)  # engine:
        want_game = data["game"]
        if game.dealer != want_game["first_dealer"]:
            raise CaseFailure(
                cid, "game first_dealer", f"expected {want_game['first_dealer']}, got {game.dealer}"
            )
        got_deck = [CARD_NAMES[c] for c in game.hand.deck]
        if got_deck != list(want_game["deck"]):
            raise CaseFailure(cid, "game deck", f"expected {want_game['deck']}, got {got_deck}")


# ---------------------------------------------------------------------------------------------


def iter_failures(cases: Iterable[Case]) -> Iterator[tuple[Case, CaseFailure | None]]:
    for case in cases:
        try:
            run_case(case)
        except CaseFailure as failure:
            yield case, failure
        else:
            yield case, None


def coverage(cases: Iterable[Case]) -> dict[str, list[str]]:
    """ID to the ids of the cases that cover it, for every known ID (R1..R21, O1..O16)."""
    table: dict[str, list[str]] = {
        i: [] for i in sorted(known_ids(), key=lambda i: (i[0] == "O", int(i[1:])))
    }
    for case in cases:
        for rule_id in case.covers:
            table.setdefault(rule_id, []).append(case.id)
    return table


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m tests.conformance.runner [--coverage] [FILE_OR_DIR ...]``"""
    args = list(sys.argv[1:] if argv is None else argv)
    show_coverage = "--coverage" in args
    cases = load_cases(*[a for a in args if a != "--coverage"])
    if show_coverage:
        for rule_id, ids in coverage(cases).items():
            print(f"{rule_id:4} {len(ids):3}  {' '.join(ids)}")
        return 0
    failed = 0
    for case, failure in iter_failures(cases):
        if failure is None:
            print(f"PASS {case.id}")
        else:
            failed += 1
            print(f"FAIL {failure}")
    print(f"{len(cases) - failed} passed, {failed} failed, {len(cases)} cases")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
