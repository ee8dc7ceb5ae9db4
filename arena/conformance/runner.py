"""Run the conformance cases against an engine through the adapter protocol.

With :mod:`arena.conformance.caseformat` (the format, loading and checking the cases) and
:mod:`arena.conformance.compare` (cards, decks, comparisons), this module is the executable
description of the case format in docs/CONFORMANCE.md: the reading of each field, the
deck-building convention and every comparison are in these three modules and nowhere else. It
talks to the engine under test only through requests of the adapter protocol
(``subject.call({"op": ...})``), to this project's engine in this process
(:class:`~arena.conformance.reference.ReferenceEngine`) or to any engine behind an adapter
command (:class:`~arena.conformance.remote.AdapterProcess`), so that every engine is judged by the
same code.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Final, Protocol

from arena.conformance.caseformat import (
    STATE_KEYS,
    Case,
    CaseFailure,
    CaseSkipped,
    Outcome,
    check_format,
)
from arena.conformance.compare import (
    brief,
    build_deck,
    canon,
    canonical_action,
    card_set,
    check_game_result,
    expected_state,
    mismatches,
    observed,
    readable,
    said,
)
from arena.conformance.remote import AdapterError
from engine.cards import CardError

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
                    self.cid, where, f"{op} answered {key} {said(value)}: not {kinds}"
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


def run_steps(engine: _Engine, prefix: str, steps: Sequence[Mapping[str, Any]]) -> None:
    """Play ``steps`` on the engine's current hand."""
    cid = engine.cid
    for number, step in enumerate(steps, 1):
        where = f"{prefix}step {number} {json.dumps(step)}"
        if "do" in step:
            action = canonical_action(cid, where, step["do"])
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
                got = observed(cid, where, state, key)
                want = expected_state(key, value)
                if got != want:
                    raise CaseFailure(
                        cid, where, f"{key}: expected {readable(want)}, got {readable(got)}"
                    )
        else:
            listed = engine.ask(where, {"op": "legal"}, "actions")["actions"]
            if not isinstance(listed, list):
                raise CaseFailure(cid, where, f"legal actions are not a list: {listed!r}")
            got_legal = frozenset(canonical_action(cid, where + " (engine)", a) for a in listed)
            kind, wanted = next(iter(step.items()))
            want_legal = frozenset(canonical_action(cid, where, a) for a in wanted)
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


def check_result(
    engine: _Engine, prefix: str, result: Mapping[str, Any] | None, expected: object
) -> None:
    """Compare the end of a hand with ``expected`` (None: the hand must still be going on)."""
    cid = engine.cid
    where = f"{prefix}result"
    if expected is None:
        if result is not None:
            raise CaseFailure(cid, where, f"the hand ended ({brief(result)}), expected it to go on")
        return
    if result is None:
        raise CaseFailure(cid, where, "the hand is not over")
    assert isinstance(expected, Mapping)
    if "one_of" in expected:
        misses = [mismatches(cid, where, result, choice) for choice in expected["one_of"]]
        if all(misses):
            listed = "; ".join(f"{n}: {m}" for n, m in enumerate(misses, 1))
            raise CaseFailure(
                cid,
                where,
                f"matches none of the {len(misses)} results accepted "
                f"({expected['criterion']}): {listed} ({brief(result)})",
            )
        return
    miss = mismatches(cid, where, result, expected)
    if miss:
        raise CaseFailure(cid, where, f"{miss} ({brief(result)})")


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
    check_game_result(cid, "game_result", result, expected)
    if "games" in expected:  # hollywood only (check_format)
        games = result.get("games", [])
        if not isinstance(games, list) or not all(isinstance(g, dict) for g in games):
            raise CaseFailure(
                cid, "game_result", f"games {said(games)}: not a list of game results"
            )
        if len(games) != len(expected["games"]):
            raise CaseFailure(
                cid, "game_result", f"games: expected {len(expected['games'])}, got {len(games)}"
            )
        for number, (game, want) in enumerate(zip(games, expected["games"], strict=True), 1):
            check_game_result(cid, f"game_result, game {number}", game, want)


def _run_showdown(case: Case, engine: _Engine) -> None:
    data = case.data
    request: dict[str, Any] = {
        "op": "showdown",
        "rules": data["rules"],
        "knocker_cards": [canon(c) for c in data["knocker_cards"]],
        "defender_cards": [canon(c) for c in data["defender_cards"]],
        "knocker_melds": (
            None
            if data.get("knocker_melds") is None
            else [[canon(c) for c in meld] for meld in data["knocker_melds"]]
        ),
        "discard": None if data["discard"] is None else canon(data["discard"]),
        "discard_pile": [canon(c) for c in data.get("discard_pile", ())],
        "first_upcard": canon(data.get("first_upcard", "AC")),
    }
    result = engine.ask("showdown", request, "result")["result"]
    if not isinstance(result, dict):
        raise CaseFailure(case.id, "result", f"the show-down gave no result: {result!r}")
    check_result(engine, "", result, data["result"])


def _run_solver(case: Case, engine: _Engine) -> None:
    data, cid = case.data, case.id
    hand = [canon(c) for c in data["hand"]]
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
            raise CaseFailure(cid, "discards", f"expected {readable(want)}, got {readable(got)}")


def _run_meld(case: Case, engine: _Engine) -> None:
    for number, item in enumerate(case.data["melds"], 1):
        cards = [canon(c) for c in item["cards"]]
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
