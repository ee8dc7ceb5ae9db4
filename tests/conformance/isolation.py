"""Whether a conformance case's deal isolates the rules it covers (docs/CONFORMANCE.md, "Writing a
case"): played through this project's engine, no player could knock (gin included) at any turn of
the script before the knock the hand is about, if it ends with one. An engine that forces gin, or
a player who knocks at the first chance, then plays each hand as the case means it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.conformance.caseformat import Case
from arena.conformance.compare import build_deck, canonical_action
from arena.conformance.reference import ReferenceEngine
from arena.conformance.runner import first_seat

PLAYLESS = frozenset({"showdown", "solver", "meld", "deal"})
"""Kinds of case with no play: nothing in them can be incidental."""


def incidental_knock(case: Case) -> str | None:
    """Where the script passes a knock it does not play (``"hand 2, step 7: knock 4S"``), or
    ``None`` when the case isolates its rules."""
    if case.kind in PLAYLESS:
        return None
    data = case.data
    engine = ReferenceEngine()
    if case.kind == "hand":
        dealer = int(data["deal"]["dealer"])
        deck = build_deck(data["deal"], dealer)
        _ok(engine.call({"op": "hand", "rules": data["rules"], "dealer": dealer, "deck": deck}))
        return _first_knock(engine, "", data["steps"])
    mode = str(data.get("mode", "two-player"))
    first = data["hands"][0]["deal"]
    if data.get("first_dealer") is None:
        seat = int(first["expect_dealer"])
    else:
        seat = int(first.get("expect_dealer", first_seat(mode, data["first_dealer"])))
    request = {
        "op": "game",
        "mode": mode,
        "rules": data["rules"],
        "seed": str(data.get("seed", "0")),
        "first_dealer": data.get("first_dealer"),
        "deck": build_deck(first, seat),
    }
    _ok(engine.call(request))
    for number, spec in enumerate(data["hands"], 1):
        if number > 1:
            seat = _ok(engine.call({"op": "next_seat"}))["seat"]
            _ok(engine.call({"op": "next_hand", "deck": build_deck(spec["deal"], seat)}))
        found = _first_knock(engine, f"hand {number}, ", spec["steps"])
        if found:
            return found
    return None


def _first_knock(
    engine: ReferenceEngine, prefix: str, steps: Sequence[Mapping[str, Any]]
) -> str | None:
    played = [s for s in steps if "do" in s and "error" not in s]
    last = canonical_action("", "", played[-1]["do"]) if played else ""
    count = 0
    for number, step in enumerate(steps, 1):
        if "do" not in step or "error" in step:
            continue
        count += 1
        action = canonical_action("", "", step["do"])
        knocks = [a for a in _ok(engine.call({"op": "legal"}))["actions"] if a.startswith("knock")]
        if knocks and not (count == len(played) and last.startswith("knock")):
            return f"{prefix}step {number} ({action}): {knocks[0]} was possible"
        _ok(engine.call({"op": "apply", "action": action}))
    return None


def _ok(response: dict[str, Any]) -> dict[str, Any]:
    assert response["ok"], response
    return response
