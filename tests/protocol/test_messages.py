"""The message models, the committed JSON Schema and docs/PROTOCOL.md agree with each other.

- every message type round-trips through encode/decode;
- ``type`` (and an action's ``kind``) is required in the schema for every message: a tag with a
  default would drop out of ``required``;
- the committed schema is the one the models generate;
- every JSON example, every transcript line and every field table of docs/PROTOCOL.md matches the
  models (and validates against the schema, when ``jsonschema`` is installed).
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from pydantic import BaseModel

from protocol import messages as m
from protocol.codec import decode, encode
from protocol.schema import committed_schema_text, schema_text

ROOT = Path(__file__).resolve().parents[2]
DOC_PATH = ROOT / "docs" / "PROTOCOL.md"
DOC = DOC_PATH.read_text(encoding="utf-8")
SCHEMA: dict[str, Any] = json.loads(committed_schema_text())

OBSERVATION: dict[str, Any] = {
    "seat": 1,
    "phase": "discard",
    "hand": ["AC", "3C", "4C", "5C", "8C", "8D", "9D", "TD", "JD", "2H", "4H"],
    "discard_pile": ["QC", "JS"],
    "stock_size": 29,
    "opponent_known": ["TH"],
    "opponent_hand_size": 10,
    "taken_card": "8D",
    "first_upcard": "QC",
    "knock_limit": 10,
    "turn": 4,
    "dealer": 1,
    "hand_number": 1,
    "scores": [0, 0],
    "target": 100,
    "history": [
        {"player": 0, "action": {"kind": "pass"}},
        {"player": 1, "action": {"kind": "pass"}},
        {"player": 0, "action": {"kind": "draw", "source": "stock"}},
        {"player": 0, "action": {"kind": "discard", "card": "JS"}},
        {"player": 1, "action": {"kind": "draw", "source": "stock"}, "card": "4H"},
        {"player": 1, "action": {"kind": "discard", "card": "TH"}},
        {"player": 0, "action": {"kind": "draw", "source": "discard"}, "card": "TH"},
        {"player": 0, "action": {"kind": "discard", "card": "8D"}},
        {"player": 1, "action": {"kind": "draw", "source": "discard"}, "card": "8D"},
    ],
}
SAMPLES: dict[str, dict[str, Any]] = {
    "hello": {
        "type": "hello",
        "protocol": "gin-arena",
        "versions": [1],
        "seat": 0,
        "rules": {"knock_limit": 10, "big_gin": False, "next_dealer": "winner"},
        "time": {"move_ms": 1000, "bank_ms": 0, "grace_ms": 100, "startup_ms": 10000},
        "opponent": "greedy",
    },
    "ready": {
        "type": "ready",
        "protocol_version": 1,
        "name": "mybot",
        "author": "Ada",
        "bot_version": "0.3.1",
    },
    "game_start": {"type": "game_start", "game": 3, "seat": 1, "target": 100, "single_hand": False},
    "hand_start": {
        "type": "hand_start",
        "hand_number": 2,
        "dealer": 0,
        "hand": ["2C", "7C", "3D", "8D", "5H", "9H", "2S", "3S", "7S", "JS"],
        "upcard": "QC",
        "stock_size": 31,
        "knock_limit": 10,
        "scores": [25, 0],
    },
    "request": {
        "type": "request",
        "id": 10,
        "phase": "discard",
        "legal": [
            {"kind": "discard", "card": "AC"},
            {"kind": "knock", "card": "8C"},
            {"kind": "knock", "gin": True},
        ],
        "observation": OBSERVATION,
        "clock": {"move_ms": 1000, "bank_ms": 5000},
    },
    "reply": {
        "type": "reply",
        "id": 10,
        "action": {"kind": "knock", "card": "8C", "melds": [["3C", "4C", "5C"]]},
    },
    "played": {
        "type": "played",
        "player": 0,
        "action": {"kind": "draw", "source": "stock"},
        "card": "8H",
    },
    "show_down": {
        "type": "show_down",
        "knocker": 1,
        "discard": "8C",
        "knocker_melds": [["3C", "4C", "5C"], ["8D", "9D", "TD", "JD"]],
        "knocker_deadwood_cards": ["AC", "2H", "4H"],
        "knocker_deadwood": 7,
        "defender_melds": [["8H", "9H", "TH"]],
        "lay_offs": [{"card": "2C", "meld": 0}],
        "defender_deadwood_cards": ["7C", "3D", "5H", "2S", "3S", "7S"],
        "defender_deadwood": 27,
    },
    "hand_end": {
        "type": "hand_end",
        "end": "undercut",
        "winner": 0,
        "points": 14,
        "doubled": False,
        "scores": [14, 20],
    },
    "game_end": {"type": "game_end", "winner": 1, "scores": [40, 103], "reason": "normal"},
    "sit_out": {"type": "sit_out", "hand_number": 4, "players": [0, 1]},
    "round_end": {
        "type": "round_end",
        "round": 2,
        "tables": [
            {"table": 0, "players": [0, 3], "dealer": 3, "end": "knock", "winner": 0, "points": 12},
            {"table": 1, "players": [2, 1], "dealer": 1, "end": "gin", "winner": 1, "points": 40},
        ],
        "credited": 1,
        "points": 28,
        "scores": [35, 58],
    },
    "error": {"type": "error", "reason": "timeout", "message": "no reply within 1.100 s"},
    "quit": {"type": "quit"},
}
MORE_SAMPLES: list[dict[str, Any]] = [
    {"type": "ready", "protocol_version": 1, "name": "x", "author": "", "bot_version": ""},
    {"type": "reply", "id": 1, "action": {"kind": "pass"}},
    {"type": "reply", "id": 2, "action": {"kind": "draw", "source": "discard"}},
    {"type": "reply", "id": 3, "action": {"kind": "discard", "card": "TD"}},
    {"type": "reply", "id": 4, "action": {"kind": "knock"}},
    {"type": "reply", "id": 5, "action": {"kind": "knock", "card": "KS", "melds": []}},
    {"type": "played", "player": 1, "action": {"kind": "draw", "source": "stock"}},
    {"type": "played", "player": 1, "action": {"kind": "discard", "card": "KS"}},
    {"type": "hand_end", "end": "drawn", "points": 0, "doubled": False, "scores": [0, 0]},
    {"type": "hand_end", "end": "gin", "winner": 0, "points": 62, "doubled": True,
     "scores": [62, 0]},
    {"type": "game_end", "scores": [0, 0], "reason": "normal"},
    {"type": "game_end", "winner": 0, "scores": [12, 30], "reason": "crash"},
    {"type": "hello", "protocol": "gin-arena", "versions": [1, 2], "seat": 1, "rules": {},
     "time": {"move_ms": 1, "bank_ms": 0, "grace_ms": 0, "startup_ms": 1}},
    {"type": "request", "id": 1, "phase": "first_upcard",
     "legal": [{"kind": "draw", "source": "discard"}, {"kind": "pass"}],
     "observation": {**{k: v for k, v in OBSERVATION.items() if k != "taken_card"},
                     "phase": "first_upcard", "turn": 0},
     "clock": {"move_ms": 1000, "bank_ms": 0}},
]  # fmt: skip
BIG_GIN_SHOW_DOWN = {
    **{k: v for k, v in SAMPLES["show_down"].items() if k != "discard"},
    "knocker_deadwood_cards": [],
    "knocker_deadwood": 0,
    "lay_offs": [],
}


def test_the_samples_cover_every_message_type() -> None:
    assert set(SAMPLES) == set(m.MESSAGE_TYPES)
    assert all(sample["type"] == name for name, sample in SAMPLES.items())


@pytest.mark.parametrize(
    "sample",
    [*SAMPLES.values(), *MORE_SAMPLES],
    ids=lambda s: f"{s['type']}:{s.get('action', s.get('end', ''))}",
)
def test_every_message_round_trips(sample: dict[str, Any]) -> None:
    model = m.MESSAGE_ADAPTER.validate_python(sample)
    assert isinstance(model, m.MESSAGE_TYPES[sample["type"]])
    line = encode(model)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line) == sample, "a canonical message is written back as it was read"
    assert decode(line) == model


def test_a_show_down_without_a_discard_round_trips() -> None:
    model = m.MESSAGE_ADAPTER.validate_python({**BIG_GIN_SHOW_DOWN, "discard": None})
    assert decode(encode(model)) == model


# -- the schema ---------------------------------------------------------------------------------


def _definition(ref: str) -> dict[str, Any]:
    prefix = "#/$defs/"
    assert ref.startswith(prefix)
    definition: dict[str, Any] = SCHEMA["$defs"][ref[len(prefix) :]]
    return definition


def test_type_is_required_for_every_message_in_the_schema() -> None:
    tags = set()
    for branch in SCHEMA["oneOf"]:
        definition = _definition(branch["$ref"])
        tag = definition["properties"]["type"]
        assert "type" in definition["required"], f"{definition['title']}: type is not required"
        assert "default" not in tag, f"{definition['title']}: the type tag has a default"
        tags.add(tag["const"])
    assert tags == set(m.MESSAGE_TYPES)
    assert SCHEMA["discriminator"]["propertyName"] == "type"


def test_kind_is_required_for_every_action_in_the_schema() -> None:
    actions = SCHEMA["$defs"]["Reply"]["properties"]["action"]
    kinds = set()
    for branch in actions["oneOf"]:
        definition = _definition(branch["$ref"])
        assert (
            "kind" in definition["required"] and "default" not in definition["properties"]["kind"]
        )
        kinds.add(definition["properties"]["kind"]["const"])
    assert kinds == {"pass", "draw", "discard", "knock"}


def test_the_committed_schema_is_the_one_the_models_generate() -> None:
    assert committed_schema_text() == schema_text(), (
        "protocol/schema/v1.json is stale: regenerate it with "
        "gin-arena protocol schema > protocol/schema/v1.json"
    )


def test_the_schema_is_draft_2020_12() -> None:
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.fixture(scope="module")
def validator() -> Any:
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    return jsonschema.Draft202012Validator(SCHEMA)


@pytest.mark.parametrize("sample", [*SAMPLES.values(), *MORE_SAMPLES], ids=lambda s: s["type"])
def test_every_sample_validates_against_the_schema(validator: Any, sample: dict[str, Any]) -> None:
    validator.validate(sample)


@pytest.mark.parametrize(
    "broken",
    [
        {k: v for k, v in SAMPLES["reply"].items() if k != "type"},
        {**SAMPLES["reply"], "type": "replies"},
        {**SAMPLES["reply"], "id": "10"},
        {**SAMPLES["reply"], "action": {"kind": "fold"}},
        {**SAMPLES["reply"], "action": {"card": "8C"}},
        {**SAMPLES["hand_end"], "end": "forfeit"},
        {**SAMPLES["played"], "player": 2},
    ],
)
def test_the_schema_rejects_broken_messages(validator: Any, broken: dict[str, Any]) -> None:
    assert not validator.is_valid(broken)


def test_the_schema_rejects_a_bad_card(validator: Any) -> None:
    assert not validator.is_valid({**SAMPLES["played"], "card": "1X"})


# -- docs/PROTOCOL.md ---------------------------------------------------------------------------


def _json_blocks() -> list[str]:
    return re.findall(r"^```json\n(.*?)^```$", DOC, flags=re.MULTILINE | re.DOTALL)


def _as_message(value: dict[str, Any]) -> dict[str, Any]:
    """An example is a message, or an action shown alone (checked inside a reply)."""
    return value if "type" in value else {"type": "reply", "id": 1, "action": value}


def test_the_document_has_json_examples_of_every_message() -> None:
    shown = {_as_message(json.loads(block))["type"] for block in _json_blocks()}
    assert shown == set(m.MESSAGE_TYPES)


@pytest.mark.parametrize("block", _json_blocks(), ids=lambda b: b.split('"')[3])
def test_every_json_example_decodes(block: str) -> None:
    value = json.loads(block)
    assert isinstance(value, dict)
    message = decode(json.dumps(_as_message(value)))
    assert json.loads(encode(message)) == _as_message(value), "examples are in canonical form"


@pytest.mark.parametrize("block", _json_blocks(), ids=lambda b: b.split('"')[3])
def test_every_json_example_validates_against_the_schema(validator: Any, block: str) -> None:
    validator.validate(_as_message(json.loads(block)))


def _load_transcript_module() -> ModuleType:
    path = ROOT / "docs" / "examples" / "transcript.py"
    spec = importlib.util.spec_from_file_location("docs_examples_transcript", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


transcript = _load_transcript_module()
LINE = re.compile(r"^(->|<-) ([01])  (\{.*\})$")


def _transcript_lines() -> list[tuple[str, int, str]]:
    block = transcript.read_block(DOC)
    body = block.split("```text\n", 1)[1].rsplit("\n```", 1)[0]
    lines = []
    for text in body.splitlines():
        match = LINE.match(text)
        assert match, f"not a transcript line: {text!r}"
        lines.append((match[1], int(match[2]), match[3]))
    return lines


def test_the_transcript_is_fresh() -> None:
    assert transcript.read_block(DOC) == transcript.transcript(), (
        "the transcript in docs/PROTOCOL.md is stale: run python docs/examples/transcript.py"
    )


def test_the_transcript_check_mode_reports_and_regeneration_fixes_a_stale_block(
    tmp_path: Path,
) -> None:
    path = tmp_path / "PROTOCOL.md"
    head, block = DOC.split(transcript.BEGIN)
    stale = block.replace('"type":"request","id":', '"type":"request","id":7', 1)
    assert stale != block
    path.write_text(head + transcript.BEGIN + stale, "utf-8")
    assert transcript.main(["--check", "--path", str(path)]) == 1
    assert transcript.main(["--path", str(path)]) == 0
    assert path.read_text(encoding="utf-8") == DOC
    assert transcript.main(["--check", "--path", str(path)]) == 0


def test_the_transcript_shows_a_whole_game_from_both_seats() -> None:
    lines = _transcript_lines()
    seen = {(direction, seat, json.loads(text)["type"]) for direction, seat, text in lines}
    for seat in (0, 1):
        for kind in ("hello", "game_start", "hand_start", "request", "played", "show_down"):
            assert ("->", seat, kind) in seen
        for kind in ("hand_end", "game_end", "quit"):
            assert ("->", seat, kind) in seen
        assert ("<-", seat, "ready") in seen and ("<-", seat, "reply") in seen


def test_the_transcript_shows_what_the_document_says_it_shows() -> None:
    """docs/PROTOCOL.md section 13 describes the hand in words; the words must stay true."""
    messages = [(d, seat, json.loads(text)) for d, seat, text in _transcript_lines()]
    replies = [msg["action"] for d, _, msg in messages if msg["type"] == "reply"]
    assert replies[:2] == [{"kind": "pass"}, {"kind": "pass"}], "both players pass the upcard"
    played = [(seat, msg) for _, seat, msg in messages if msg["type"] == "played"]
    stock = [(seat, msg) for seat, msg in played if msg["action"].get("source") == "stock"]
    assert stock and all(("card" in msg) == (seat == msg["player"]) for seat, msg in stock)
    pile = [msg for _, msg in played if msg["action"].get("source") == "discard"]
    assert pile and all("card" in msg for msg in pile)
    requests = [msg for _, _, msg in messages if msg["type"] == "request"]
    taken = [r for r in requests if "taken_card" in r["observation"]]
    assert taken and all(
        {"kind": "discard", "card": r["observation"]["taken_card"]} not in r["legal"] for r in taken
    ), "the card just taken is left out of the legal discards (R8)"
    assert any(action["kind"] == "knock" for action in replies)
    show_downs = [msg for _, _, msg in messages if msg["type"] == "show_down"]
    assert show_downs and show_downs[0]["lay_offs"], "a show-down with a lay-off"


def test_every_transcript_line_decodes_and_is_canonical() -> None:
    for direction, _, text in _transcript_lines():
        message = decode(text)
        assert encode(message).decode().rstrip("\n") == text
        assert (direction == "<-") == isinstance(message, m.Ready | m.Reply)


def test_every_transcript_line_validates_against_the_schema(validator: Any) -> None:
    for _, _, text in _transcript_lines():
        validator.validate(json.loads(text))


# -- field tables -------------------------------------------------------------------------------

TABLE_MODELS: dict[str, type[BaseModel]] = {
    **{model.__name__: model for model in m.MESSAGE_TYPES.values()},
    **{
        model.__name__: model
        for model in (
            m.TimeControl,
            m.Observation,
            m.Clock,
            m.LayOffModel,
            m.TableResult,
            m.HollywoodGame,
            m.PassAction,
            m.DrawAction,
            m.DiscardAction,
            m.KnockAction,
        )
    },
}


def doc_fields(name: str) -> dict[str, bool]:
    """The field table after ``<!-- fields:NAME -->``: field name to required."""
    marker = f"<!-- fields:{name} -->\n"
    assert DOC.count(marker) == 1, f"docs/PROTOCOL.md needs one {marker.strip()}"
    table = DOC.split(marker, 1)[1].split("\n\n", 1)[0].splitlines()
    assert table[0].startswith("| Field | Type | Required | Meaning |"), table[0]
    fields = {}
    for row in table[2:]:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        name_cell, required = cells[0], cells[2]
        assert re.fullmatch(r"`\w+`", name_cell), row
        assert required in ("yes", "no"), row
        fields[name_cell.strip("`")] = required == "yes"
    return fields


def test_every_field_table_names_a_model() -> None:
    assert set(re.findall(r"<!-- fields:(\w+) -->", DOC)) == set(TABLE_MODELS)


@pytest.mark.parametrize(
    "name",
    sorted(TABLE_MODELS),
)
def test_each_field_table_matches_its_model(name: str) -> None:
    model = TABLE_MODELS[name]
    expected = {field: info.is_required() for field, info in model.model_fields.items()}
    assert doc_fields(name) == expected


def test_the_three_player_transcript_is_fresh_and_shows_the_sit_out_and_seat_zero() -> None:
    block = transcript.read_block(DOC, transcript.THREE_BEGIN, transcript.THREE_END)
    assert block == transcript.three_player_transcript(), "run python docs/examples/transcript.py"
    body = block.split("```text\n", 1)[1].rsplit("\n```", 1)[0]
    messages = []
    for text in body.splitlines():
        match = re.match(r"^(->|<-) ([012])  (\{.*\})$", text)
        assert match, f"not a transcript line: {text!r}"
        messages.append((match[1], int(match[2]), json.loads(match[3])))
    (sat_out,) = [(p, msg) for d, p, msg in messages if msg["type"] == "sit_out"]
    dealer, notice = sat_out
    assert sorted([dealer, *notice["players"]]) == [0, 1, 2]
    for _, player, msg in messages:
        if msg["type"] in ("hand_start", "request", "played", "show_down", "hand_end"):
            assert player != dealer, "the player who sits out is told nothing of the hand"
        if msg["type"] == "request":
            assert msg["observation"]["seat"] == 0, "every hand is shown from seat 0"
        if msg["type"] == "hand_start":
            assert msg["players"][0] == player
    for player in (0, 1, 2):
        kinds = {msg["type"] for d, p, msg in messages if p == player and d == "->"}
        assert {"game_start", "round_end", "game_end"} <= kinds
