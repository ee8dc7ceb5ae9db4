"""The default rule each kind of check blames (arena.conformance.blame), in process."""

from __future__ import annotations

from arena.conformance.blame import (
    HandProgress,
    action_rule,
    legal_rule,
    result_rule,
    state_rule,
)

HOYLE = {"preset": "hoyle"}


def test_the_offer_then_the_turn() -> None:
    progress = HandProgress.dealt("9S")
    assert action_rule("pass", progress) == "R6"
    assert state_rule("phase", progress, HOYLE) == "R6"
    assert state_rule("hands", progress, HOYLE) == "R5", "nothing played yet: the deal"
    assert action_rule("draw discard", progress) == "R6"
    progress.done("draw discard")
    assert progress.taken == "9S" and not progress.offer
    assert action_rule("discard 9S", progress) == "O5", "discarding the card just taken"
    assert action_rule("discard 2C", progress) == "R7"
    assert action_rule("knock 2C", progress) == "R9"
    assert action_rule("knock / AS 2S 3S", progress) == "R19"
    assert legal_rule(["discard 9S"], progress) == "R8"
    assert legal_rule(["knock 2C"], progress) == "R9"
    assert legal_rule(["discard 2C"], progress) == "R7"
    assert legal_rule(["discard 2C"], progress, ["knock 3C"]) == "R9", "a forced knock"
    assert state_rule("hands", progress, HOYLE) == "R7"
    progress.done("discard 2C")
    assert progress.taken is None and progress.pile == ["2C"]
    progress.done("draw discard")
    assert progress.taken == "2C" and progress.pile == []


def test_state_keys() -> None:
    progress = HandProgress.dealt("9S", {"end": "drawn"})
    progress.done("draw stock")
    assert state_rule("phase", progress, HOYLE, "finished") == "R11"
    assert state_rule("phase", progress, HOYLE, "draw") == "R7"
    assert state_rule("turn", progress, HOYLE) == "R17"
    assert state_rule("taken_card", progress, HOYLE) == "R8"
    assert state_rule("knock_limit", progress, HOYLE) == "R9"
    assert state_rule("knock_limit", progress, {"preset": "oklahoma"}) == "R18"
    assert (
        state_rule("knock_limit", progress, {"preset": "hoyle", "options": {"oklahoma": True}})
        == "R18"
    )


def test_result_keys() -> None:
    assert result_rule("end", {"end": "undercut"}) == "R13"
    assert result_rule("points", {"end": "gin"}) == "R14"
    assert result_rule("points", {"end": "knock", "doubled": True}) == "R18"
    assert result_rule("lay_offs", {"end": "knock"}) == "R10"
    assert result_rule("knocker_melds", {"end": "knock"}) == "R20"
    assert result_rule("winner", {}) is None
