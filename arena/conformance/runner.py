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
from typing import Any, Final, NoReturn, Protocol

from arena.conformance.blame import (
    DEAL,
    TURN,
    HandProgress,
    action_rule,
    end_rule,
    game_result_rule,
    game_rule,
    legal_rule,
    refusal_rule,
    result_rule,
    state_rule,
)
from arena.conformance.capabilities import Capabilities
from arena.conformance.caseformat import (
    GAME_RESULT_KEYS,
    STATE_KEYS,
    Case,
    CaseFailure,
    CaseSkipped,
    Outcome,
    check_format,
    known_ids,
)
from arena.conformance.compare import (
    brief,
    build_deck,
    canon,
    canonical_action,
    card_set,
    expected_state,
    mismatches,
    observed,
    printable_value,
    readable,
    said,
    state_changes,
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
    """An engine under test: it answers the adapter protocol's requests, and has the
    capabilities its ``hello`` declared (:class:`Capabilities`: everything, unless it said)."""

    name: str
    capabilities: Capabilities

    def call(self, request: Mapping[str, Any]) -> dict[str, Any]: ...


# ---------------------------------------------------------------------------------------------
# Talking to the engine.


class _Engine:
    """A subject with the case at hand: the messages name the case, the checks that passed
    and those the engine could not make are counted here."""

    def __init__(self, subject: Subject, case: Case) -> None:
        self.subject = subject
        self.case = case
        self.cid = case.id
        self.caps: Capabilities = getattr(subject, "capabilities", Capabilities())
        self.passed: set[str] = set()
        self.skipped: list[tuple[str | None, str]] = []

    def fail(self, where: str, message: str, rule: str | None) -> NoReturn:
        raise CaseFailure(self.cid, where, message, rule)

    def skip(self, rule: str | None, reason: str) -> None:
        """A check the engine cannot make (a partial result): skipped, not failed."""
        self.skipped.append((rule, reason))

    def ask(
        self, where: str, request: Mapping[str, Any], *needs: str, rule: str | None = None
    ) -> dict[str, Any]:
        """The response to ``request``; it must be ``ok`` and hold every key of ``needs``; a
        refusal blames ``rule``."""
        return self.check(where, request["op"], self.call(where, request), *needs, rule=rule)

    def check(
        self, where: str, op: str, response: dict[str, Any], *needs: str, rule: str | None = None
    ) -> dict[str, Any]:
        """``response`` to ``op``, if it is ``ok`` and holds every key of ``needs``; else the
        case is skipped (``unsupported``) or fails (a refusal blames ``rule``; an answer the
        kit cannot read blames no rule)."""
        if not response["ok"]:
            error = response.get("error")
            message = response.get("message", "")
            if error == "unsupported":
                raise CaseSkipped(f"{op}: {message}" if message else op)
            self.fail(where, f"{op} refused: {error}: {message}", rule)
        missing = [key for key in needs if key not in response]
        if missing:
            self.fail(where, f"{op} answered without {', '.join(missing)}", None)
        for key in needs:
            value, types = response[key], _ANSWER_TYPES.get(key, (object,))
            # JSON's true and false are not numbers, though Python's bool is an int
            if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
                kinds = " or ".join(_TYPE_NAMES[t] for t in types)
                self.fail(where, f"{op} answered {key} {said(value)}: not {kinds}", None)
        return response

    def call(self, where: str, request: Mapping[str, Any]) -> dict[str, Any]:
        try:
            return self.subject.call(request)
        except AdapterError as error:
            raise CaseFailure(self.cid, where, str(error)) from None

    def state(self, where: str) -> dict[str, Any]:
        state = self.ask(where, {"op": "state"}, "state")["state"]
        if not isinstance(state, dict):
            self.fail(where, f"state is not an object: {said(state)}", None)
        return state

    def result(self, where: str) -> dict[str, Any] | None:
        result = self.ask(where, {"op": "result"}, "result")["result"]
        if result is not None and not isinstance(result, dict):
            self.fail(where, f"result is not an object: {said(result)}", None)
        return result


def run_steps(
    engine: _Engine,
    prefix: str,
    steps: Sequence[Mapping[str, Any]],
    rules: Mapping[str, Any],
    progress: HandProgress,
) -> None:
    """Play ``steps`` on the engine's current hand."""
    cid = engine.cid
    for number, step in enumerate(steps, 1):
        where = f"{prefix}step {number} {json.dumps(step)}"
        named: str | None = step.get("rule")
        if "do" in step and "error" not in step:
            action = canonical_action(cid, where, step["do"])
            rule = named or action_rule(action, progress)
            response = engine.call(where, {"op": "apply", "action": action})
            if not response["ok"] and response.get("error") == "illegal":
                cited = response.get("rule")
                why = response.get("message", "")
                if named is None:  # the rule the refusal's difference explains
                    rule = refusal_rule(
                        action,
                        progress,
                        _legal_now(engine, where),
                        cited if cited in known_ids() else None,
                    )
                engine.fail(where, f"rejected ({_cited(cited)}): {why}", rule)
            engine.check(where, "apply", response, rule=rule)
            progress.done(action)
            engine.passed.add(rule)
        elif "do" in step:
            _run_rejection(engine, where, step)
        elif "state" in step:
            _check_state(
                engine, where, wanted=step["state"], named=named, rules=rules, progress=progress
            )
        else:
            _check_legal(engine, where, step, named, progress)


def _legal_now(engine: _Engine, where: str) -> list[str] | None:
    """The engine's legal actions where it refused an action, canonical; None if it gives none
    (a refusal, an answer the kit cannot read): the blame then falls back on the action's rule."""
    try:
        response = engine.call(where, {"op": "legal"})
    except CaseFailure:
        return None
    listed = response.get("actions") if response.get("ok") else None
    if not isinstance(listed, list):
        return None
    try:
        return [canonical_action(engine.cid, where, a) for a in listed]
    except CaseFailure:
        return None


def _cited(rule: object) -> str:
    if rule is None:
        return "no rule named"
    return f"rule {rule}" if isinstance(rule, str) else f"rule {printable_value(rule)}"


def _run_rejection(engine: _Engine, where: str, step: Mapping[str, Any]) -> None:
    """A ``do`` step with ``error``: the action must be refused, naming that rule, and leave the
    hand as it was."""
    action = canonical_action(engine.cid, where, step["do"])
    rule = str(step["error"])
    watch = sorted(engine.caps.state_keys) if "state" in engine.caps.ops else []
    before = _watched(engine.state(where), watch) if watch else {}
    response = engine.call(where, {"op": "apply", "action": action})
    if response["ok"]:
        engine.fail(where, f"accepted, expected rejection with {rule}", rule)
    if response.get("error") != "illegal":
        engine.check(where, "apply", response, rule=rule)  # skipped or failed, as it says
    got = response.get("rule")
    if got != rule and not (got is None and not engine.caps.rule_ids):
        why = response.get("message", "")
        engine.fail(where, f"rejected ({_cited(got)}), expected {rule}: {why}", rule)
    if watch:
        changes = state_changes(before, _watched(engine.state(where), watch))
        if changes:
            engine.fail(where, f"the rejected action changed the hand: {changes}", rule)
    engine.passed.add(rule)


def _watched(state: Mapping[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    return {key: state.get(key) for key in (*keys, "stock") if key in state or key != "stock"}


def _check_state(
    engine: _Engine,
    where: str,
    *,
    wanted: Mapping[str, Any],
    named: str | None,
    rules: Mapping[str, Any],
    progress: HandProgress,
) -> None:
    state = engine.state(where)
    misses: list[tuple[str, str]] = []
    for key, value in wanted.items():
        if key not in STATE_KEYS:
            engine.fail(where, f"unknown state key {key!r}", None)
        rule = named or state_rule(key, progress, rules, value)
        if key not in engine.caps.state_keys:
            engine.skip(rule, f"the engine does not report the state's {key}")
            continue
        got = observed(engine.cid, where, state, key)
        want = expected_state(key, value)
        if got != want:
            misses.append((rule, f"{key}: expected {readable(want)}, got {readable(got)}"))
        else:
            engine.passed.add(rule)
    if misses:
        engine.fail(where, "; ".join(text for _, text in misses), misses[0][0])


def _check_legal(
    engine: _Engine,
    where: str,
    step: Mapping[str, Any],
    named: str | None,
    progress: HandProgress,
) -> None:
    cid = engine.cid
    listed = engine.ask(where, {"op": "legal"}, "actions")["actions"]
    got_legal = frozenset(canonical_action(cid, where + " (engine)", a) for a in listed)
    kind, wanted = next((k, v) for k, v in step.items() if k != "rule")
    want_legal = frozenset(canonical_action(cid, where, a) for a in wanted)
    if kind == "legal" and got_legal != want_legal:
        missing = sorted(want_legal - got_legal)
        extra = sorted(got_legal - want_legal)
        rule = named or legal_rule([*missing, *extra], progress, got_legal)
        engine.fail(
            where, f"legal actions: missing {_actions(missing)}, extra {_actions(extra)}", rule
        )
    if kind == "legal_includes" and not want_legal <= got_legal:
        missing = sorted(want_legal - got_legal)
        engine.fail(
            where,
            f"not legal: {_actions(missing)}",
            named or legal_rule(missing, progress, got_legal),
        )
    if kind == "legal_excludes" and want_legal & got_legal:
        extra = sorted(want_legal & got_legal)
        engine.fail(
            where,
            f"legal, expected not: {_actions(extra)}",
            named or legal_rule(extra, progress, got_legal),
        )
    engine.passed.add(named or legal_rule(sorted(want_legal ^ got_legal), progress))


def _actions(actions: Sequence[str]) -> str:
    return "[" + ", ".join(actions) + "]" if actions else "none"


def check_result(
    engine: _Engine,
    prefix: str,
    result: Mapping[str, Any] | None,
    expected: object,
    named: Mapping[str, str] | None = None,
) -> None:
    """Compare the end of a hand with ``expected`` (None: the hand must still be going on);
    ``named`` are the case's ``result_rules``."""
    where = f"{prefix}result"
    named = named or {}
    if expected is None:
        if result is not None:
            rule = end_rule(result.get("end")) or TURN
            engine.fail(where, f"the hand ended ({brief(result)}), expected it to go on", rule)
        return
    assert isinstance(expected, Mapping)
    choices = list(expected["one_of"]) if "one_of" in expected else [expected]
    if result is None:
        want_end = choices[0].get("end")
        rule = named.get("end") or end_rule(want_end) or "R12"
        engine.fail(where, "the hand is not over", rule)
    reports = [_compare_result(engine, where, result, choice, named) for choice in choices]
    if any(not misses for misses, _ in reports):
        for misses, report in reports:
            if not misses:
                engine.passed.update(report.passed)
                engine.skipped.extend(report.skipped)
                return
    closest = min(range(len(reports)), key=lambda n: len(reports[n][0]))
    blamed: str | None = reports[closest][0][0][0]
    if len(choices) == 1:
        text = "; ".join(m for _, m in reports[0][0])
        engine.fail(where, f"{text} ({brief(result)})", blamed)
    listed = "; ".join(
        f"{n}: {', '.join(m for _, m in misses)}" for n, (misses, _) in enumerate(reports, 1)
    )
    engine.fail(
        where,
        f"matches none of the {len(choices)} results accepted ({expected['criterion']}): "
        f"{listed} ({brief(result)})",
        blamed,
    )


class _Report:
    """What one comparison of a result proved and could not check."""

    def __init__(self) -> None:
        self.passed: set[str] = set()
        self.skipped: list[tuple[str | None, str]] = []


def _compare_result(
    engine: _Engine,
    where: str,
    result: Mapping[str, Any],
    expected: Mapping[str, Any],
    named: Mapping[str, str],
) -> tuple[list[tuple[str | None, str]], _Report]:
    report = _Report()
    misses: list[tuple[str | None, str]] = []
    for key, miss in mismatches(engine.cid, where, result, expected, engine.caps.result_keys):
        rule = named.get(key) or result_rule(key, expected)
        if miss is None:
            report.skipped.append((rule, f"the engine does not compute the result's {key}"))
        elif miss:
            misses.append((rule, miss))
        elif rule is not None:
            report.passed.add(rule)
    return misses, report


# ---------------------------------------------------------------------------------------------
# Running.


def run_case(case: Case, subject: Subject) -> Outcome:
    """Run one case against ``subject``."""
    caps: Capabilities = getattr(subject, "capabilities", Capabilities())
    engine = _Engine(subject, case)
    try:
        check_format(case)
        reason = caps.skip_reason(case)
        if reason is not None:  # what the engine declared it lacks
            return Outcome(case, "skip", "", reason)
        try:
            _RUNNERS[case.kind](case, engine)
        except (KeyError, TypeError, ValueError, CardError) as error:
            raise CaseFailure(case.id, "format", f"malformed case: {error!r}") from error
    except CaseFailure as failure:
        return Outcome(case, "fail", failure.where, failure.message, failure.rule)
    except CaseSkipped as skipped:
        return Outcome(case, "skip", "", f"unsupported by the engine: {skipped}")
    except Exception as error:  # a bug fails one case, whatever the engine answered, not the run
        message = f"the runner failed on this case: {error!r} (a bug of the runner: report it)"
        return Outcome(case, "fail", "", message)
    outcome = Outcome(case, "pass", skipped=tuple(engine.skipped), passed=frozenset(engine.passed))
    if engine.skipped and set(outcome.verdicts().values()) == {"skip"}:
        why = "the engine computes none of what the case checks (partial results)"
        return Outcome(case, "skip", "", why, skipped=tuple(engine.skipped))
    return outcome


def _run_hand(case: Case, engine: _Engine) -> None:
    data = case.data
    dealer = int(data["deal"]["dealer"])
    deck = build_deck(data["deal"], dealer)
    request = {"op": "hand", "rules": data["rules"], "dealer": dealer, "deck": deck}
    engine.ask("deal", request, rule=DEAL)
    progress = HandProgress.dealt(canon(data["deal"]["upcard"]), data.get("result"))
    run_steps(engine, "", data["steps"], data["rules"], progress)
    result = engine.result("result")
    check_result(engine, "", result, data.get("result"), data.get("result_rules"))


def first_seat(mode: str, first_dealer: int) -> int:
    """The seat that deals a format's first hand when ``first_dealer`` deals it: the dealer is in
    seat 1 in three-player (the dealing player sits out; the player after them holds the dealer's
    seat); elsewhere it is ``first_dealer``'s seat, which is the player (two-player, Hollywood) or
    the dealing team (partnership: team 0's player always sits in seat 0)."""
    return 1 if mode == "three-player" else first_dealer


def _run_game(case: Case, engine: _Engine) -> None:
    data = case.data
    mode = str(data.get("mode", "two-player"))
    specs = data["hands"]
    first_dealer: int | None = data.get("first_dealer")
    first = specs[0]["deal"]
    if first_dealer is None:  # check_format: then the first hand gives expect_dealer
        seat = int(first["expect_dealer"])
    else:
        seat = int(first.get("expect_dealer", first_seat(mode, first_dealer)))
    request = {
        "op": "game",
        "mode": mode,
        "rules": data["rules"],
        "seed": str(data.get("seed", "0")),
        "first_dealer": first_dealer,
        "deck": build_deck(first, seat),
    }
    engine.ask("game", request, rule=DEAL)
    game_over = game_rule(mode, "R15")
    for number, spec in enumerate(specs, 1):
        prefix, here = f"hand {number}, ", f"hand {number}"
        deal = spec["deal"]
        if number > 1:
            nxt = engine.ask(here, {"op": "next_seat"}, "over")
            if nxt["over"]:
                engine.fail(here, "the game is already over", game_over)
            seat = engine.check(here, "next_seat", nxt, "seat")["seat"]
            if seat not in (0, 1):
                engine.fail(here, f"next_seat answered seat {said(seat)}", None)
            engine.ask(here, {"op": "next_hand", "deck": build_deck(deal, seat)}, rule=DEAL)
        seating = engine.ask(here, {"op": "seating"}, "dealer", "players", "table")
        got = {
            "expect_dealer": seating["dealer"],
            "expect_players": list(seating["players"]),
            "expect_table": seating["table"],
        }
        for key, value in got.items():
            rule = (
                "R4" if key == "expect_dealer" and mode == "two-player" else game_rule(mode, "R4")
            )
            if key in deal and deal[key] != value:
                engine.fail(
                    here, f"{key[7:]}: expected {readable(deal[key])}, got {readable(value)}", rule
                )
            if key in deal:
                engine.passed.add(rule)
        progress = HandProgress.dealt(canon(deal["upcard"]), spec.get("result"))
        run_steps(engine, prefix, spec["steps"], data["rules"], progress)
        result = engine.result(f"{prefix}result")
        check_result(engine, prefix, result, spec.get("result"), spec.get("result_rules"))
    result = engine.ask("game_result", {"op": "game_result"}, "result")["result"]
    if result is None:
        engine.fail("game_result", f"the game is not over after {len(specs)} hands", game_over)
    expected = data["game_result"]
    named = data.get("game_result_rules") or {}
    _check_game_result(
        engine, "game_result", result=result, expected=expected, mode=mode, named=named
    )
    if "games" in expected:  # hollywood only (check_format)
        games = result.get("games", [])
        if not isinstance(games, list) or not all(isinstance(g, dict) for g in games):
            engine.fail("game_result", f"games {said(games)}: not a list of game results", None)
        if len(games) != len(expected["games"]):
            engine.fail(
                "game_result",
                f"games: expected {len(expected['games'])}, got {len(games)}",
                game_over,
            )
        for number, (game, want) in enumerate(zip(games, expected["games"], strict=True), 1):
            where = f"game_result, game {number}"
            _check_game_result(engine, where, result=game, expected=want, mode=mode, named=named)


def _check_game_result(
    engine: _Engine,
    where: str,
    *,
    result: Mapping[str, Any],
    expected: Mapping[str, Any],
    mode: str,
    named: Mapping[str, str],
) -> None:
    misses: list[tuple[str, str]] = []
    for key, want in expected.items():
        if key == "games":
            continue
        rule = named.get(key) or game_result_rule(key, want, mode)
        if key not in GAME_RESULT_KEYS:
            engine.fail(where, f"unknown key {key!r}", None)
        if key not in engine.caps.game_result_keys:
            engine.skip(rule, f"the engine does not compute the game result's {key}")
            continue
        if key not in result:
            misses.append((rule, f"{key}: {_absent(key, 'game_result_keys')}"))
        elif result[key] != want:
            misses.append((rule, f"{key}: expected {readable(want)}, got {readable(result[key])}"))
        else:
            engine.passed.add(rule)
    if misses:
        engine.fail(where, "; ".join(text for _, text in misses), misses[0][0])


def _absent(key: str, capability: str) -> str:
    return (
        f"the engine gave no {key} (if it does not compute it, leave it out of hello's "
        f"capabilities.{capability})"
    )


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
        engine.fail("result", f"the show-down gave no result: {said(result)}", None)
    check_result(engine, "", result, data["result"], data.get("result_rules"))


def _run_solver(case: Case, engine: _Engine) -> None:
    data, cid = case.data, case.id
    rule = case.covers[0]
    hand = [canon(c) for c in data["hand"]]
    if len(hand) > 11:
        raise CaseFailure(cid, "format", "a solver hand has at most eleven cards")
    if "discards" in data and len(hand) != 11:
        raise CaseFailure(cid, "format", "discards are for eleven-card hands")
    answer = engine.ask("deadwood", {"op": "deadwood", "hand": hand}, "deadwood")
    if answer["deadwood"] != data["deadwood"]:
        engine.fail(
            "deadwood", f"expected {data['deadwood']}, got {said(answer['deadwood'])}", rule
        )
    if "discards" in data:
        want = card_set(data["discards"])
        listed = engine.check("discards", "deadwood", answer, "discards")["discards"]
        try:
            got = card_set(listed)
        except ValueError as error:  # CardError too
            engine.fail("discards", f"the engine's discards are not cards: {error}", None)
        if got != want:
            engine.fail("discards", f"expected {readable(want)}, got {readable(got)}", rule)
    engine.passed.add(rule)


def _run_meld(case: Case, engine: _Engine) -> None:
    rule = case.covers[0]
    for number, item in enumerate(case.data["melds"], 1):
        cards = [canon(c) for c in item["cards"]]
        where = f"meld {number}"
        got = engine.ask(where, {"op": "meld", "cards": cards}, "valid")["valid"]
        if got != item["valid"]:
            verdict = "a meld" if item["valid"] else "not a meld"
            engine.fail(where, f"[{' '.join(cards)}] is {verdict}; the engine says otherwise", rule)
    engine.passed.add(rule)


def _run_deal(case: Case, engine: _Engine) -> None:
    data = case.data
    rule = "R21"
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
        engine.fail("splitmix64", f"expected {len(want_outputs)} outputs", rule)
    for number, (want, got) in enumerate(zip(want_outputs, outputs, strict=True), 1):
        if str(got) != str(want):
            engine.fail(f"splitmix64 output {number}", f"expected {want}, got {said(got)}", rule)
    if "deck" in data and list(answer["deck"]) != list(data["deck"]):
        engine.fail("deck", f"expected {' '.join(data['deck'])}, got {said(answer['deck'])}", rule)
    if "game" in data:
        want_game, got_game = data["game"], answer["game"]
        if got_game.get("first_dealer") != want_game["first_dealer"]:
            engine.fail(
                "game first_dealer",
                f"expected {want_game['first_dealer']}, got {said(got_game.get('first_dealer'))}",
                rule,
            )
        if got_game.get("deck") != list(want_game["deck"]):
            engine.fail(
                "game deck",
                f"expected {' '.join(want_game['deck'])}, got {said(got_game.get('deck'))}",
                rule,
            )
    engine.passed.add(rule)


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
