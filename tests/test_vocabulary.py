"""Each vocabulary of the game is one engine enum, and everything else is derived from it.

The enums: :class:`engine.hand.HandEnd` (how a hand ends), :class:`engine.hand.Phase` (where a
hand is; a protocol request is in one of :data:`engine.hand.DECISION_PHASES`) and
:class:`engine.hand.ActionKind` (what a player does; the protocol writes the two draws as one
``draw`` kind with a ``source``); the formats are :class:`engine.modes.Mode`. Every member is
walked through the engine, the protocol (model validation, the wire, the committed JSON Schema),
the records (line model, the committed record schema) and the docs tables, so that a member added
to an enum fails here until it flows everywhere.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path
from typing import Any

import pydantic
import pytest

from arena.cli.main import build_parser
from arena.conformance.caseformat import load_cases
from arena.records.record import LINE_ADAPTER, ActionLine, HandEndLine
from engine.formats import new_session
from engine.hand import (
    BIG_GIN,
    DECISION_PHASES,
    DISCARDS,
    DRAW_DISCARD,
    DRAW_STOCK,
    KNOCKS,
    PASS,
    Action,
    ActionKind,
    Hand,
    HandEnd,
    HandResult,
    Phase,
)
from engine.modes import Mode
from engine.rules import Rules
from protocol import messages as m
from protocol.codec import decode, encode
from protocol.convert import action_model, engine_action
from protocol.schema import committed_schema_text

ROOT = Path(__file__).resolve().parent.parent
PROTOCOL_MD = (ROOT / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")
RECORDS_MD = (ROOT / "docs" / "RECORDS.md").read_text(encoding="utf-8")
RULES_MD = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
PROTOCOL_SCHEMA: dict[str, Any] = json.loads(committed_schema_text())
RECORD_SCHEMA: dict[str, Any] = json.loads(
    (ROOT / "docs" / "record.schema.json").read_text(encoding="utf-8")
)
CASES = [dict(case.data) for case in load_cases()[0]]  # the cases the package ships


def first_column(markdown: str, header: str) -> list[str]:
    """The first cell of every row of the one table whose header starts with ``| header |``,
    backticks and quotes removed."""
    lines = markdown.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith(f"| {header} |")]
    starts = [i for i in starts if lines[i + 1].startswith("|--")]
    assert len(starts) == 1, f"expected one table headed {header!r}, found {len(starts)}"
    cells = []
    for line in lines[starts[0] + 2 :]:
        if not line.startswith("|"):
            break
        cells.append(line.split("|")[1].strip().strip('`"'))
    return cells


def row_after(markdown: str, marker: str, first_cell: str) -> str:
    """The first table row after ``marker`` whose first cell is ``first_cell``."""
    start = markdown.index(marker)
    for line in markdown[start:].splitlines():
        if line.startswith(f"| {first_cell} |"):
            return line
    raise AssertionError(f"no row {first_cell!r} after {marker!r}")


def quoted(cell_row: str, column: int) -> list[str]:
    """The words quoted (``"x"`` or `` `x` ``) in one cell of a table row."""
    cell = cell_row.split("|")[column + 1]
    return re.findall(r"[`\"]([a-z_]+)[`\"]", cell)


def schema_property(schema: dict[str, Any], model: str, field: str) -> dict[str, Any]:
    prop: dict[str, Any] = schema["$defs"][model]["properties"][field]
    return prop


# -- HandEnd ----------------------------------------------------------------------------------

HAND_ENDS = list(HandEnd)


def test_every_hand_end_is_a_string_enum_member_equal_to_its_value() -> None:
    for end in HAND_ENDS:
        assert end == end.value and HandEnd(end.value) is end


@pytest.mark.parametrize("end", HAND_ENDS, ids=str)
def test_the_engine_ends_a_conformance_hand_this_way(end: HandEnd) -> None:
    ends = {case["result"]["end"] for case in CASES if case["kind"] == "hand" and "result" in case}
    assert end.value in ends, f"no conformance case pins a hand that ends {end.value!r}"
    assert end.value in str(HandResult(end, None, 0))


@pytest.mark.parametrize("end", HAND_ENDS, ids=str)
def test_the_protocol_sends_and_reads_every_hand_end(end: HandEnd) -> None:
    message = m.HandEnd(type="hand_end", end=end, winner=None, points=0, scores=[0, 0])
    line = encode(message)
    assert f'"end":"{end.value}"'.encode() in line
    back = decode(line)
    assert isinstance(back, m.HandEnd) and back.end is end and back == message


def test_the_protocol_schema_lists_exactly_the_hand_ends() -> None:
    prop = schema_property(PROTOCOL_SCHEMA, "HandEnd", "end")
    assert prop["enum"] == [end.value for end in HAND_ENDS]
    with pytest.raises(pydantic.ValidationError):
        m.HandEnd.model_validate({"type": "hand_end", "end": "shutout", "points": 0, "scores": []})


@pytest.mark.parametrize("end", HAND_ENDS, ids=str)
def test_a_record_keeps_every_hand_end(end: HandEnd) -> None:
    line = HandEndLine(type="hand_end", hand=1, end=end, points=0, scores=[0, 0])
    text = line.model_dump_json(exclude_none=True)
    assert f'"end":"{end.value}"' in text
    back = LINE_ADAPTER.validate_json(text)
    assert isinstance(back, HandEndLine) and back.end is end


def test_the_record_schema_lists_exactly_the_hand_ends() -> None:
    prop = schema_property(RECORD_SCHEMA, "HandEndLine", "end")
    assert prop["enum"] == [end.value for end in HAND_ENDS]


def test_the_docs_list_every_hand_end() -> None:
    values = [end.value for end in HAND_ENDS]
    assert first_column(PROTOCOL_MD, "`end`") == values  # docs/PROTOCOL.md, hand_end
    assert quoted(row_after(PROTOCOL_MD, "<!-- fields:HandEnd -->", "`end`"), 1) == values
    assert quoted(row_after(RECORDS_MD, "## `hand_end`", "`end`"), 2) == values


# -- Phase ------------------------------------------------------------------------------------


def test_the_decision_phases_are_every_phase_but_finished() -> None:
    assert tuple(p for p in Phase if p is not Phase.FINISHED) == DECISION_PHASES
    for phase in Phase:
        assert phase == phase.value and Phase(phase.value) is phase


def test_the_engine_goes_through_every_phase_and_asks_in_the_decision_phases() -> None:
    seen: set[Phase] = set()
    asked: set[Phase] = set()
    rng = random.Random(11)
    for seed in range(30):
        hand = Hand(Rules(), dealer=seed % 2, seed=seed)
        while True:
            seen.add(hand.phase)
            if hand.is_over:
                with pytest.raises(ValueError, match="over"):
                    hand.decision_phase  # noqa: B018
                break
            asked.add(hand.decision_phase)
            assert hand.decision_phase is hand.phase
            actions = hand.legal_actions()
            knocks = [a for a in actions if a.kind is ActionKind.KNOCK]
            hand.apply(knocks[0] if knocks else rng.choice(actions))
    assert seen == set(Phase)
    assert asked == set(DECISION_PHASES)


def observation(phase: object) -> dict[str, Any]:
    return {
        "seat": 0,
        "phase": phase,
        "hand": ["AS"],
        "discard_pile": ["2S"],
        "stock_size": 31,
        "opponent_known": [],
        "opponent_hand_size": 10,
        "first_upcard": "2S",
        "knock_limit": 10,
        "turn": 0,
        "dealer": 1,
        "hand_number": 1,
        "scores": [0, 0],
        "target": 100,
    }


def request(phase: object) -> dict[str, Any]:
    return {
        "type": "request",
        "id": 1,
        "phase": phase,
        "legal": [{"kind": "pass"}],
        "observation": observation(phase),
        "clock": {"move_ms": 1000, "bank_ms": 0},
    }


@pytest.mark.parametrize("phase", DECISION_PHASES, ids=str)
def test_the_protocol_asks_in_every_decision_phase(phase: Phase) -> None:
    line = json.dumps(request(phase.value))
    message = decode(line)
    assert isinstance(message, m.Request)
    assert message.phase is phase and message.observation.phase is phase
    assert decode(encode(message)) == message


def test_the_protocol_never_asks_in_a_finished_hand() -> None:
    with pytest.raises(pydantic.ValidationError):
        m.MESSAGE_ADAPTER.validate_python(request(Phase.FINISHED.value))


@pytest.mark.parametrize("model", ["Request", "Observation"])
def test_the_protocol_schema_lists_exactly_the_decision_phases(model: str) -> None:
    prop = schema_property(PROTOCOL_SCHEMA, model, "phase")
    assert prop["enum"] == [phase.value for phase in DECISION_PHASES]


def test_records_hold_no_phase() -> None:
    # A record replays a hand from its deal and actions: the phases follow from the engine.
    assert "phase" not in json.dumps(RECORD_SCHEMA)


def test_the_docs_list_every_phase() -> None:
    decisions = [phase.value for phase in DECISION_PHASES]
    assert first_column(PROTOCOL_MD, "`phase`") == decisions  # docs/PROTOCOL.md, a session
    for model in ("Request", "Observation"):
        assert quoted(row_after(PROTOCOL_MD, f"<!-- fields:{model} -->", "`phase`"), 1) == decisions
    assert first_column(RULES_MD, "Phase | Who moves") == [p.value for p in Phase]  # of a hand


# -- ActionKind -------------------------------------------------------------------------------

EVERY_ACTION = [PASS, DRAW_STOCK, DRAW_DISCARD, *DISCARDS, *KNOCKS, BIG_GIN]
"""The engine's action constants: every action without declared melds."""


def an_action(kind: ActionKind) -> Action:
    return next(a for a in EVERY_ACTION if a.kind is kind)


def test_every_action_kind_has_its_engine_constants() -> None:
    assert {a.kind for a in EVERY_ACTION} == set(ActionKind)
    for kind in ActionKind:
        assert kind == kind.value and ActionKind(kind.value) is kind


@pytest.mark.parametrize("kind", list(ActionKind), ids=str)
def test_every_action_kind_has_a_notation_the_engine_reads_back(kind: ActionKind) -> None:
    for action in (a for a in EVERY_ACTION if a.kind is kind):
        assert Action.parse(str(action)) == action


@pytest.mark.parametrize("kind", list(ActionKind), ids=str)
def test_the_protocol_carries_every_action_kind(kind: ActionKind) -> None:
    action = an_action(kind)
    model = action_model(action)
    reply = m.Reply(type="reply", id=1, action=model)
    back = decode(encode(reply))
    assert isinstance(back, m.Reply) and engine_action(back.action) == action
    mapping = PROTOCOL_SCHEMA["$defs"]["Reply"]["properties"]["action"]["discriminator"]["mapping"]
    assert model.kind in mapping


@pytest.mark.parametrize("kind", list(ActionKind), ids=str)
def test_a_record_keeps_every_action_kind(kind: ActionKind) -> None:
    action = an_action(kind)
    line = LINE_ADAPTER.validate_json(
        ActionLine(type="action", player=0, action=str(action)).model_dump_json()
    )
    assert isinstance(line, ActionLine) and Action.parse(line.action) == action


def test_the_docs_list_every_action_kind() -> None:
    rules_kinds = first_column(RULES_MD, "Kind | Notation")  # docs/RULES.md, actions
    assert sorted(set(rules_kinds)) == sorted(kind.value for kind in ActionKind)
    protocol_kinds = {action_model(an_action(kind)).kind for kind in ActionKind}
    assert set(first_column(PROTOCOL_MD, "`kind`")) == protocol_kinds  # docs/PROTOCOL.md, actions


# -- formats ------------------------------------------------------------------------------------

MODES = list(Mode)


def test_every_mode_is_a_string_enum_member_equal_to_its_value() -> None:
    assert all(isinstance(mode, str) and mode == mode.value for mode in MODES)
    assert [mode.players for mode in MODES] == [2, 2, 3, 4]


@pytest.mark.parametrize("mode", MODES, ids=str)
def test_every_mode_is_a_session_the_engine_plays(mode: Mode) -> None:
    session = new_session(mode, Rules(), seed=1)
    assert session.mode is mode and len(set(session.seated)) == 2
    assert all(0 <= p < mode.players for p in session.seated)


@pytest.mark.parametrize("model", ["Hello", "GameStart"])
def test_the_protocol_schema_lists_exactly_the_modes(model: str) -> None:
    prop = schema_property(PROTOCOL_SCHEMA, model, "mode")
    (enum,) = [option["enum"] for option in prop["anyOf"] if "enum" in option]
    assert enum == [mode.value for mode in MODES]


@pytest.mark.parametrize("mode", MODES, ids=str)
def test_the_protocol_and_the_records_read_every_mode(mode: Mode) -> None:
    start = {"type": "game_start", "game": 1, "seat": 0, "target": 100, "mode": mode.value}
    assert decode(json.dumps(start)).mode is mode  # type: ignore[union-attr]
    assert encode(decode(json.dumps(start))).decode().count(f'"mode":"{mode.value}"') == 1
    pattern = RECORD_SCHEMA["$defs"]["GameLine"]["properties"]["mode"]["pattern"]
    assert re.fullmatch(pattern, mode.value)


def test_the_record_schema_names_exactly_the_modes_and_formats_of_ones_own() -> None:
    # The built-in formats by name, any other as module:ATTRIBUTE (engine.formats.format_named).
    pattern = RECORD_SCHEMA["$defs"]["GameLine"]["properties"]["mode"]["pattern"]
    named = re.match(r"\^\((.*?)\|\[", pattern)
    assert named is not None and named.group(1).split("|") == [mode.value for mode in MODES]
    assert re.fullmatch(pattern, "my_formats.best:BEST_OF_THREE")
    assert not re.fullmatch(pattern, "four-player")


@pytest.mark.parametrize("mode", MODES, ids=str)
def test_the_docs_the_cli_and_the_cases_name_every_mode(mode: Mode) -> None:
    assert f"`{mode.value}`" in RULES_MD
    assert mode.value in PROTOCOL_MD and mode.value in RECORDS_MD
    assert mode.value in main_help("match")
    if mode is not Mode.TWO_PLAYER:
        assert any(case.get("mode") == mode.value for case in CASES)


def main_help(command: str) -> str:
    parser = build_parser()
    sub = next(
        action for action in parser._actions if isinstance(action, argparse._SubParsersAction)
    )
    return str(sub.choices[command].format_help())
