"""The codec's bounds and its strict JSON (I-JSON, RFC 7493).

Every bound accepts a line exactly at it and rejects one past it, as :class:`InvalidJson` naming
the problem; every I-JSON rule is enforced; docs/PROTOCOL.md states the constants of the code; the
referee's own messages keep far inside the bounds. Then fuzzing: no bytes at all make ``decode``,
or a referee reading a bot's replies, raise anything but a protocol error or end in anything but a
normal game or a bot's failure.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.play.referee import Clock, Referee
from arena.seats.connection import (
    FAILURE_REASONS,
    Connection,
    InProcessConnection,
    MalformedMessage,
    check_ready,
    check_reply,
    decode_bot_line,
)
from bots.greedy import GreedyBot
from engine.rules import HOYLE
from protocol import codec
from protocol import messages as m
from protocol.codec import (
    INT_MAX,
    INT_MIN,
    MAX_DEPTH,
    MAX_INT_DIGITS,
    MAX_ITEMS,
    MAX_MEMBERS,
    MAX_NUMBER_CHARS,
    QUOTE_LIMIT,
    InvalidJson,
    InvalidMessage,
    LineTooLong,
    ProtocolError,
    UnknownMessage,
    decode,
    encode,
    quote,
)
from protocol.messages import HISTORY_LIMIT

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")

PASS = '{"type":"reply","id":7,"action":{"kind":"pass"}}'
PASSED = m.Reply(type="reply", id=7, action=m.PassAction(kind="pass"))


def with_extra(value: str) -> str:
    """A valid reply carrying the JSON text ``value`` in an unknown member, at nesting level 2:
    the member is ignored, but the codec checks it like any other."""
    return '{"type":"reply","id":7,"extra":' + value + ',"action":{"kind":"pass"}}'


def rejected(line: str | bytes, *fragments: str) -> InvalidJson:
    """The error decoding ``line``: an InvalidJson whose message holds every fragment and quotes
    the line."""
    with pytest.raises(ProtocolError) as caught:
        decode(line)
    error = caught.value
    assert type(error) is InvalidJson and error.reason == "invalid_json", repr(error)
    for fragment in fragments:
        assert fragment in error.detail, error.detail
    assert error.text == quote(as_bytes(line)) and str(error).endswith(error.text)
    return error


def as_bytes(line: str | bytes) -> bytes:
    """The bytes ``decode`` reads for ``line``: a ``str`` as UTF-8 (lone surrogates kept, so that
    they show as bad UTF-8), its line end dropped."""
    raw = line.encode("utf-8", "surrogatepass") if isinstance(line, str) else line
    return raw.rstrip(b"\r\n")


def depth(value: object) -> int:
    """How deep objects and arrays nest in a parsed JSON value (a scalar is 0)."""
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    return 0


# -- nesting ------------------------------------------------------------------------------------


def nested(levels: int, style: str) -> str:
    """A JSON value ``levels`` deep, written so as to take each path of the depth pre-scan."""
    if style == "arrays":
        return "[" * levels + "]" * levels
    if style == "objects":
        return '{"a":' * levels + "0" + "}" * levels
    if style == "brackets in strings":  # each level holds a string with a closing bracket
        return '["]}",' * levels + "0" + "]" * levels
    if style == "escapes":  # escaped quotes and brackets in strings
        return '["\\"[{",' * levels + "0" + "]" * levels
    raise AssertionError(style)


STYLES = ["arrays", "objects", "brackets in strings", "escapes"]


@pytest.mark.parametrize("style", STYLES)
def test_nesting_up_to_the_limit_is_accepted(style: str) -> None:
    value = nested(MAX_DEPTH - 1, style)  # the message itself is level 1
    assert depth(json.loads(with_extra(value))) == MAX_DEPTH
    assert decode(with_extra(value)) == PASSED


@pytest.mark.parametrize("style", STYLES)
def test_nesting_one_level_deeper_is_invalid_json(style: str) -> None:
    line = with_extra(nested(MAX_DEPTH, style))
    assert depth(json.loads(line)) == MAX_DEPTH + 1
    rejected(line, f"nesting deeper than {MAX_DEPTH} levels")


@pytest.mark.parametrize("style", STYLES)
def test_brackets_inside_strings_do_not_count(style: str) -> None:
    text = '"' + "[{" * 40 + '"' if style != "escapes" else '"\\"' + "[{" * 40 + '"'
    assert decode(with_extra(f"[{text},{text}]")) == PASSED


@pytest.mark.parametrize(
    "line",
    [
        "[" * (m.MAX_LINE_BYTES // 2) + "]" * (m.MAX_LINE_BYTES // 2),
        "[" * m.MAX_LINE_BYTES,
        '{"a":' * (m.MAX_LINE_BYTES // 5),
        '["' + '\\"' * 20000 + '"' + "[" * 20000,
    ],
    ids=["balanced", "only-openers", "objects", "after-escapes"],
)
def test_nesting_tens_of_thousands_deep_is_rejected_at_once(line: str) -> None:
    # CPU time of this thread, not the wall clock: other processes on a loaded machine do not
    # count, a quadratic scan (seconds of CPU) still does.
    started = time.thread_time()
    rejected(line, f"nesting deeper than {MAX_DEPTH} levels")
    assert time.thread_time() - started < 1.0


@pytest.mark.parametrize(
    "line",
    [
        '{"a":"' + "[" * 40 + "\\",
        '{"a":"' + '\\"' * 20000 + "[" * 40,
        "[" * 10 + '"' + "[" * 40 + '"' + "]" * 10 + "]",
    ],
    ids=["unterminated-string", "unterminated-escapes", "extra-closer"],
)
def test_brackets_in_a_broken_string_are_not_nesting(line: str) -> None:
    error = rejected(line, "not valid JSON")
    assert "nesting" not in error.detail


# -- members, elements --------------------------------------------------------------------------


def members(count: int) -> str:
    return "{" + ",".join(f'"m{i}":0' for i in range(count)) + "}"


def test_an_object_with_the_most_members_is_accepted() -> None:
    assert decode(with_extra(members(MAX_MEMBERS))) == PASSED
    whole = PASS[:-1] + "," + members(MAX_MEMBERS - 3)[1:]  # the message's own 3, and padding
    assert len(json.loads(whole)) == MAX_MEMBERS and decode(whole) == PASSED


def test_an_object_with_one_member_more_is_invalid_json() -> None:
    rejected(
        with_extra(members(MAX_MEMBERS + 1)),
        f"object with {MAX_MEMBERS + 1} members (at most {MAX_MEMBERS})",
    )
    rejected(PASS[:-1] + "," + members(MAX_MEMBERS - 2)[1:], f"object with {MAX_MEMBERS + 1}")


@pytest.mark.parametrize("element", ["0", '"7H"', '"\\u0041"', "{}"])
def test_an_array_with_the_most_elements_is_accepted(element: str) -> None:
    assert decode(with_extra("[" + ",".join([element] * MAX_ITEMS) + "]")) == PASSED


@pytest.mark.parametrize("element", ["0", '"7H"', '"\\u0041"', "{}"])
def test_an_array_with_one_element_more_is_invalid_json(element: str) -> None:
    line = with_extra("[" + ",".join([element] * (MAX_ITEMS + 1)) + "]")
    rejected(line, f"array with {MAX_ITEMS + 1} elements (at most {MAX_ITEMS})")


def test_a_long_array_of_cards_in_a_real_field_is_rejected_before_validation() -> None:
    melds = json.dumps([["7C", "7D", "7H"]] * (MAX_ITEMS + 1), separators=(",", ":"))
    line = f'{{"type":"reply","id":7,"action":{{"kind":"knock","card":"KS","melds":{melds}}}}}'
    rejected(line, f"array with {MAX_ITEMS + 1} elements")


# -- numbers ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value", [0, -0, 7, 10**18 - 1, -(10**18) + 1, 10**18, INT_MAX, INT_MIN, -(10**18)]
)
def test_every_signed_64_bit_integer_is_accepted(value: int) -> None:
    assert decode(with_extra(str(value))) == PASSED
    reply = decode(PASS.replace('"id":7', f'"id":{value}'))
    assert isinstance(reply, m.Reply) and reply.id == value


def test_the_digit_limit_is_that_of_the_largest_integer() -> None:
    assert len(str(INT_MAX)) == MAX_INT_DIGITS == len(str(INT_MIN)) - 1
    assert (INT_MIN, INT_MAX) == (-(2**63), 2**63 - 1)


@pytest.mark.parametrize("value", [INT_MAX + 1, INT_MIN - 1, 10**MAX_INT_DIGITS - 1])
def test_an_integer_outside_64_bits_is_invalid_json(value: int) -> None:
    rejected(with_extra(str(value)), f"integer {value} outside the signed 64-bit range")


@pytest.mark.parametrize("digits", [MAX_INT_DIGITS + 1, 400, 4300, 5000, 60000])
@pytest.mark.parametrize("sign", ["", "-"])
def test_an_integer_with_too_many_digits_is_invalid_json_at_once(digits: int, sign: str) -> None:
    started = time.thread_time()  # CPU time, as above
    rejected(
        with_extra(sign + "9" * digits),
        f"integer with {digits} digits (at most {MAX_INT_DIGITS})",
    )
    assert time.thread_time() - started < 0.5


def test_a_reply_whose_id_has_thousands_of_digits_is_invalid_json() -> None:
    """It used to escape as a plain ValueError from int() and stop the whole run."""
    rejected(PASS.replace('"id":7', '"id":' + "1" * 5000), "integer with 5000 digits")


@pytest.mark.parametrize("number", ["0.5", "-1.25e-7", "1e308", "1E+2", "0." + "1" * 30])
def test_a_finite_number_with_a_fraction_or_exponent_is_accepted(number: str) -> None:
    assert len(number) <= MAX_NUMBER_CHARS
    assert decode(with_extra(number)) == PASSED


def test_a_number_with_a_fraction_of_the_most_characters_is_accepted() -> None:
    number = "0." + "1" * (MAX_NUMBER_CHARS - 2)
    assert len(number) == MAX_NUMBER_CHARS and decode(with_extra(number)) == PASSED


@pytest.mark.parametrize("length", [MAX_NUMBER_CHARS + 1, 5000, 60000])
def test_a_number_with_a_fraction_of_more_characters_is_invalid_json(length: int) -> None:
    number = "0." + "1" * (length - 2)
    rejected(with_extra(number), f"number with {length} characters (at most {MAX_NUMBER_CHARS})")


@pytest.mark.parametrize("number", ["1e309", "-1e309", "1.5E400"])
def test_a_number_beyond_a_double_is_invalid_json(number: str) -> None:
    rejected(with_extra(number), f"number {number} is too large for a double")


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_invalid_json(constant: str) -> None:
    rejected(with_extra(constant), f"{constant} is not a JSON number")
    rejected(PASS.replace('"id":7', f'"id":{constant}'), f"{constant} is not a JSON number")


# -- I-JSON: member names, characters, UTF-8 ----------------------------------------------------


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ('{"type":"reply","id":7,"id":8,"action":{"kind":"pass"}}', "id"),
        ('{"type":"reply","id":7,"id":7,"action":{"kind":"pass"}}', "id"),
        ('{"type":"quit","type":"reply","id":7,"action":{"kind":"pass"}}', "type"),
        ('{"type":"reply","id":7,"action":{"kind":"pass","kind":"pass"}}', "kind"),
        (with_extra('{"a":1,"b":2,"a":{}}'), "a"),
        (with_extra('[{"a":1},{"b":1,"b":1}]'), "b"),
        (with_extra('{"a":1,"\\u0061":2}'), "a"),  # the same name once unescaped
    ],
)
def test_a_repeated_member_name_is_invalid_json(line: str, name: str) -> None:
    rejected(line, f"member name {name!r} repeated in one object")


def test_one_name_in_different_objects_is_accepted() -> None:
    assert decode(with_extra('{"kind":1,"id":{"id":2,"type":[{"type":3}]}}')) == PASSED


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ('"\\ud800"', "D800"),
        ('"\\uDBFF"', "DBFF"),
        ('"\\udc00"', "DC00"),
        ('"x\\ud800y"', "D800"),
        ('"\\udc00\\ud800"', "DC00"),  # a pair the wrong way round
        ('"\\ud800\\u0041"', "D800"),
        ('["ok","\\ud800"]', "D800"),
        ('{"\\ud800":1}', "D800"),
        ('[[{"a":["\\udfff"]}]]', "DFFF"),
    ],
)
def test_a_lone_surrogate_is_invalid_json(text: str, code: str) -> None:
    rejected(with_extra(text), f"string with a lone surrogate U+{code} (I-JSON forbids it)")


def test_a_lone_surrogate_in_a_real_field_is_invalid_json() -> None:
    rejected('{"type":"ready","protocol_version":1,"name":"bot\\ud800"}', "lone surrogate U+D800")


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ('"\ufffe"', "FFFE"),
        ('"\\uffff"', "FFFF"),
        ('"\ufdd0"', "FDD0"),
        ('"\\ufdef"', "FDEF"),
        ('"\U0001fffe"', "1FFFE"),
        ('"\\udbff\\udfff"', "10FFFF"),  # a valid pair, for a noncharacter
        ('{"\U0010ffff":1}', "10FFFF"),
    ],
)
def test_a_noncharacter_is_invalid_json(text: str, code: str) -> None:
    rejected(with_extra(text), f"string with a noncharacter U+{code} (I-JSON forbids it)")


@pytest.mark.parametrize(
    "text",
    [
        '"\\ud83d\\ude00"',  # a surrogate pair: one character
        '"\U0001f600"',
        '"\\\\ud800"',  # an escaped backslash, then the letters "ud800"
        '"caf\u00e9 \\u00e9 \ufffd \ufdcf \ufdf0 \ufffd"',
        '"\\u0000\\n\\"\\\\"',
    ],
)
def test_any_other_character_is_accepted(text: str) -> None:
    assert decode(with_extra(text)) == PASSED


@pytest.mark.parametrize(
    "bad",
    [b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82", b"\x80"],
    ids=["ff", "overlong", "encoded-surrogate", "above-10ffff", "truncated", "continuation"],
)
def test_bytes_that_are_not_utf8_are_invalid_json(bad: bytes) -> None:
    rejected(with_extra('"a' + "\x00" + '"').encode().replace(b"\x00", bad), "not UTF-8")


def test_a_str_line_with_a_lone_surrogate_is_not_utf8() -> None:
    rejected(with_extra('"\ud800"'), "not UTF-8")


# -- whitespace and error messages --------------------------------------------------------------


def test_json_whitespace_around_the_object_is_accepted() -> None:
    assert decode(" \t" + PASS + " \t\r\n") == PASSED


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (PASS + " x", "Extra data: line 1 column 50 (char 49)"),
        (PASS + PASS, "Extra data"),
        ("   ", "Expecting value"),
        ("\u00a0" + PASS, "Expecting value"),  # not JSON whitespace
    ],
)
def test_anything_else_around_the_object_is_invalid_json(line: str, problem: str) -> None:
    rejected(line, "not valid JSON", problem)


@pytest.mark.parametrize(
    "line",
    [
        '{"type":"reply","id":7,"action":{"kind":"discard","card":"' + "Z" * 60000 + '"}}',
        '{"type":"' + "x" * 60000 + '"}',
        '{"type":[' + ",".join(['"' + "x" * 50 + '"'] * 1000) + "]}",
        '{"type":"hello","rules":{"' + "k" * 60000 + '":[]}}',
        '{"type":"reply","id":7,"action":{"kind":"' + "q" * 60000 + '"}}',
    ],
    ids=["card", "type", "type-list", "rules-key", "kind"],
)
def test_an_error_message_stays_short_whatever_the_line(line: str) -> None:
    with pytest.raises((InvalidMessage, UnknownMessage)) as caught:
        decode(line)
    assert len(str(caught.value)) < 5 * QUOTE_LIMIT, len(str(caught.value))


# -- docs/PROTOCOL.md and real messages ---------------------------------------------------------

DOCUMENTED = {
    "MAX_DEPTH": MAX_DEPTH,
    "MAX_MEMBERS": MAX_MEMBERS,
    "MAX_ITEMS": MAX_ITEMS,
    "MAX_INT_DIGITS": MAX_INT_DIGITS,
    "INT_MIN": INT_MIN,
    "INT_MAX": INT_MAX,
    "MAX_NUMBER_CHARS": MAX_NUMBER_CHARS,
}


def limits_text() -> str:
    """The "Limits inside a line" part of docs/PROTOCOL.md section 1, item 3, on one line."""
    start = DOC.index("**Limits inside a line.**")
    return " ".join(DOC[start : DOC.index("\n4. ", start)].split())


def test_every_bound_of_the_codec_is_documented() -> None:
    public = {name for name in vars(codec)["__annotations__"] if not name.startswith("_")}
    assert public - {"QUOTE_LIMIT"} == set(DOCUMENTED)


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_the_documented_bounds_are_the_constants(name: str) -> None:
    text = limits_text()
    value = f"**{DOCUMENTED[name]:,}**"
    assert re.search(rf"{re.escape(value)}[^*;]*\(`{name}`\)", text), (
        f"docs/PROTOCOL.md should give {name} as {value}"
    )


def test_no_other_number_is_documented_as_a_bound() -> None:
    shown = set(re.findall(r"\*\*(-?[\d,]+)\*\*", limits_text()))
    assert shown == {f"{value:,}" for value in DOCUMENTED.values()}


def knock_with_melds() -> m.KnockAction:
    return m.KnockAction(kind="knock", card="KS", melds=[["7C", "7D", "7H"], ["2S", "3S", "4S"]])


def test_the_deepest_message_is_as_documented() -> None:
    deepest = max(
        depth(json.loads(encode(message)))
        for message in (
            m.Reply(type="reply", id=7, action=knock_with_melds()),
            m.Played(type="played", player=0, action=knock_with_melds()),
        )
    )
    assert f"is {deepest} levels deep" in limits_text()
    assert deepest <= MAX_DEPTH // 4, "the limit is far above what the protocol needs"


class RecordingBot(GreedyBot):
    """A greedy bot that keeps every line it reads and writes."""

    def __init__(self, lines: list[bytes]) -> None:
        super().__init__()
        self.lines = lines

    def handle(self, message: m.Message) -> m.Message | None:
        self.lines.append(encode(message))
        reply = super().handle(message)
        if reply is not None:
            self.lines.append(encode(reply))
        return reply


def game_lines(games: int = 3) -> list[bytes]:
    """Every line of a few whole games between two greedy bots, both directions (every one went
    through the codec on its way)."""
    lines: list[bytes] = []
    referee = Referee(HOYLE, Clock(move=60.0, startup=60.0))
    connections = [
        InProcessConnection(f"recorder{seat}", lambda: RecordingBot(lines)) for seat in (0, 1)
    ]
    try:
        for seat, connection in enumerate(connections):
            connection.start(referee.hello(seat, "the other recorder"), 60.0)
        for seed in range(games):
            outcome = referee.play_game(connections, seed)
            assert outcome.failure is None and outcome.reason in ("normal", "hand_limit")
    finally:
        for connection in connections:
            connection.close()
    return lines


GAME_LINES = game_lines()


def sizes(value: object) -> Iterator[tuple[str, int]]:
    """Every measure a bound applies to, throughout a parsed value."""
    if isinstance(value, dict):
        yield "members", len(value)
        for item in value.values():
            yield from sizes(item)
    elif isinstance(value, list):
        yield "items", len(value)
        for item in value:
            yield from sizes(item)
    elif isinstance(value, int) and not isinstance(value, bool):
        yield "digits", len(str(abs(value)))


def test_the_referees_messages_keep_far_inside_the_bounds() -> None:
    kinds = {json.loads(line)["type"] for line in GAME_LINES}
    assert {"hello", "request", "played", "show_down", "hand_end", "game_end"} <= kinds
    most: dict[str, int] = {}
    for line in GAME_LINES:
        assert decode(line) is not None
        value = json.loads(line)
        most["depth"] = max(most.get("depth", 0), depth(value))
        for measure, size in sizes(value):
            most[measure] = max(most.get(measure, 0), size)
    assert most["depth"] <= MAX_DEPTH // 3  # request, observation, history, entry, action
    assert most["members"] <= MAX_MEMBERS // 4
    assert most["items"] <= HISTORY_LIMIT <= MAX_ITEMS // 2
    assert most["digits"] <= 10 < MAX_INT_DIGITS  # ids are below 2^31


# -- fuzzing the codec --------------------------------------------------------------------------


class Pairs(list[tuple[str, object]]):
    """A JSON object as its list of members, so that a name can be repeated."""


class Raw(str):
    """JSON text to write as it is."""


def parse_pairs(line: bytes) -> object:
    return json.loads(line, object_pairs_hook=Pairs)


def dump(value: object) -> str:
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, Pairs):
        return "{" + ",".join(f"{json.dumps(k)}:{dump(v)}" for k, v in value) + "}"
    if isinstance(value, list):
        return "[" + ",".join(dump(item) for item in value) + "]"
    return json.dumps(value)


def paths(value: object, prefix: tuple[int, ...] = ()) -> Iterator[tuple[int, ...]]:
    """Every node of a parsed line, as the indices leading to it (into members or elements)."""
    yield prefix
    if isinstance(value, list):  # Pairs included
        for index, item in enumerate(value):
            yield from paths(item[1] if isinstance(value, Pairs) else item, (*prefix, index))


def replace(value: object, path: tuple[int, ...], new: Callable[[object], object]) -> object:
    """A copy of ``value`` with the node at ``path`` replaced by ``new(node)``."""
    if not path:
        return new(value)
    assert isinstance(value, list)
    head, rest = path[0], path[1:]
    if isinstance(value, Pairs):
        copy = Pairs(value)
        name, item = copy[head]
        copy[head] = (name, replace(item, rest, new))
        return copy
    items = list(value)
    items[head] = replace(items[head], rest, new)
    return items


HOSTILE = [
    "NaN",
    "Infinity",
    "-Infinity",
    "1e999",
    "1" * 5000,
    "-" + "9" * 4400,
    str(INT_MAX + 1),
    str(INT_MIN),
    "0." + "5" * 100,
    '"\\ud800"',
    '"\\udc00\\ud800"',
    '"\ufffe"',
    '"\\uffff"',
    '{"a":1,"a":2}',
    '{"kind":"pass","kind":"draw"}',
    "[" * 40 + "]" * 40,
    '{"a":' * 40 + "0" + "}" * 40,
    '["]",' * 30 + "0" + "]" * 30,
    "[" + ",".join(["0"] * (MAX_ITEMS + 1)) + "]",
    members(MAX_MEMBERS + 1),
    '"' + "x" * m.MAX_LINE_BYTES + '"',
    '"' + "Z" * 5000 + '"',
    "null",
    "true",
    "[]",
    "{}",
    '""',
    '"7H"',
    '"10d"',
    '"pass"',
    "7",
    "-7",
    "7.0",
    "[[]]",
    '[["7C","7D","7H"]]',
]
"""Values to put anywhere in a line: broken, over a bound, or of another type."""

CHARACTERS = (
    st.characters(exclude_categories=())
    | st.integers(0xD800, 0xDFFF).map(chr)
    | st.sampled_from(["\ufffe", "\ufdd0", "\U0010ffff", "\ufffd", "\\", '"', "\x00"])
)
"""Any character, surrogates and noncharacters often."""

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**25), max_value=10**25)
    | st.floats()
    | st.text(CHARACTERS, max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=12,
)


def values() -> st.SearchStrategy[Raw]:
    """JSON text (or nearly) for one value."""
    return st.one_of(
        st.sampled_from(HOSTILE),
        json_values.map(lambda v: json.dumps(v, ensure_ascii=False)),  # floats: NaN, Infinity
        json_values.map(json.dumps),  # characters as escapes, lone surrogates included
        st.integers(1, 6000).map(lambda n: "9" * n),  # 4,300 digits and more broke int()
        st.integers(1, 60).map(lambda n: "[" * n + "]" * n),
        st.text(CHARACTERS, max_size=10),  # most likely not JSON at all
    ).map(Raw)


@st.composite
def perturbed(draw: st.DrawFn, line: bytes) -> bytes | str:
    """``line`` with one of its nodes changed, a member repeated, or its bytes mangled."""
    tree = parse_pairs(line)
    path = draw(st.sampled_from(list(paths(tree))))
    how = draw(st.sampled_from(["value", "repeat", "drop", "rename", "wrap", "bytes"]))
    if how == "value":
        value = draw(values())
        return dump(replace(tree, path, lambda _: value))
    if how == "wrap":
        levels = draw(st.integers(1, 20))
        return dump(replace(tree, path, lambda node: Raw("[" * levels + dump(node) + "]" * levels)))
    if how in ("repeat", "drop", "rename"):
        objects = [p for p in paths(tree) if isinstance(node_at(tree, p), Pairs)]
        where = draw(st.sampled_from(objects))
        obj = node_at(tree, where)
        assert isinstance(obj, Pairs)
        if not obj:
            return dump(tree)
        index = draw(st.integers(0, len(obj) - 1))
        name, item = obj[index]
        if how == "repeat":
            again = item if draw(st.booleans()) else draw(values())
            changed = Pairs([*obj, (name, again)])
        elif how == "drop":
            changed = Pairs(obj[:index] + obj[index + 1 :])
        else:
            changed = Pairs(obj)
            changed[index] = (draw(st.sampled_from(["type", "id", "kind", "", "\ud800"])), item)
        return dump(replace(tree, where, lambda _: changed))
    return draw(mangled(line))


def node_at(value: object, path: tuple[int, ...]) -> object:
    for index in path:
        assert isinstance(value, list)
        value = value[index][1] if isinstance(value, Pairs) else value[index]
    return value


@st.composite
def mangled(draw: st.DrawFn, line: bytes) -> bytes:
    """``line`` cut short, with bytes inserted, overwritten or dropped, or replaced outright."""
    how = draw(st.sampled_from(["cut", "insert", "overwrite", "drop", "random", "append"]))
    # A position drawn independently of the line: the referee's request ids, and so the lengths
    # of the replies, differ from one run of an example to the next.
    at = draw(st.integers(0, m.MAX_LINE_BYTES)) % (len(line) + 1)
    junk = draw(
        st.binary(max_size=12)
        | st.sampled_from(
            [b'"', b"\\", b"\\u", b"[", b"{", b"}", b"]", b",", b":", b"\xff", b"\xed\xa0\x80"]
        )
        | st.sampled_from(HOSTILE).map(str.encode)
    )
    if how == "cut":
        return line[:at]
    if how == "insert":
        return line[:at] + junk + line[at:]
    if how == "overwrite":
        return line[:at] + junk + line[at + len(junk) :]
    if how == "drop":
        return line[:at] + line[at + draw(st.integers(1, 8)) :]
    if how == "append":
        return line + draw(st.sampled_from([b"\n", b"\r\n", b" ", b"\n\n", b"x"])) + junk
    return draw(st.binary(max_size=200))


BOT_LINES = [
    encode(PASSED),
    encode(m.Reply(type="reply", id=2**31 - 1, action=m.DrawAction(kind="draw", source="stock"))),
    encode(m.Reply(type="reply", id=12, action=m.DiscardAction(kind="discard", card="TD"))),
    encode(m.Reply(type="reply", id=99, action=knock_with_melds())),
    encode(m.Ready(type="ready", protocol_version=1, name="fuzz", author="me", bot_version="1")),
]
REFEREE_LINES = sorted(
    {
        json.loads(line)["type"]: line
        for line in GAME_LINES
        if json.loads(line)["type"] not in ("ready", "reply")
    }.values()
)
"""One line of each message type the referee sent in the recorded games."""


def check_decoding(line: bytes | str) -> m.Message | ProtocolError:
    """Decode ``line``, which may only give a message or a protocol error, never anything else."""
    try:
        message = decode(line)
    except (LineTooLong, InvalidJson, UnknownMessage, InvalidMessage) as error:
        assert error.detail and len(str(error)) < 3000, str(error)[:500]
        return error
    assert decode(encode(message)) == message, "what decodes encodes and decodes the same"
    return message


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.sampled_from(BOT_LINES + REFEREE_LINES).flatmap(perturbed))
def test_decode_gives_a_message_or_a_protocol_error_for_any_perturbed_line(
    line: bytes | str,
) -> None:
    check_decoding(line)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300) | st.text(CHARACTERS, max_size=100))
def test_decode_gives_a_message_or_a_protocol_error_for_any_bytes(line: bytes | str) -> None:
    check_decoding(line)


# -- fuzzing the referee ------------------------------------------------------------------------


class FuzzedBot(Connection):
    """A greedy bot whose replies pass through ``mutate`` on their way to the referee, which
    reads them exactly as it reads a subprocess bot's lines."""

    def __init__(self, name: str, mutate: Callable[[bytes], bytes | str]) -> None:
        self.name = name
        self.mutate = mutate
        self.sent: list[bytes] = []
        self._bot = GreedyBot()

    def _handle(self, message: m.Message) -> m.Message | None:
        return self._bot.handle(decode(encode(message)))

    def start(self, hello: m.Hello, timeout: float) -> m.Ready:
        ready = self._handle(hello)
        assert ready is not None
        return check_ready(decode_bot_line(encode(ready), self.name), hello, self.name)

    def send(self, message: m.Message) -> None:
        assert self._handle(message) is None

    def ask(self, request: m.Request, timeout: float) -> tuple[m.Reply, float]:
        reply = self._handle(request)
        assert reply is not None
        line = as_bytes(self.mutate(encode(reply))) + b"\n"
        self.sent.append(line)
        return check_reply(decode_bot_line(line, self.name), request.id, self.name), 0.0

    def close(self) -> None:
        pass


NORMAL_ENDS = ("normal", "hand_limit")


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.data(), st.integers(0, 2**32), st.sampled_from([0, 1]), st.integers(0, 12))
def test_the_referee_ends_any_game_normally_or_with_a_bot_failure(
    data: st.DataObject, seed: int, seat: int, move: int
) -> None:
    """The ``move``-th reply of the bot in ``seat`` is perturbed; whatever it becomes, the game
    ends normally or that bot fails with a known reason, a malformed line as ``malformed``."""
    moves = 0

    def mutate(line: bytes) -> bytes | str:
        nonlocal moves
        moves += 1
        return data.draw(perturbed(line.rstrip(b"\n"))) if moves == move + 1 else line

    bots = [FuzzedBot("fuzzed", mutate), FuzzedBot("steady", lambda line: line)]
    if seat == 1:
        bots.reverse()
    referee = Referee(HOYLE, Clock(move=60.0, startup=60.0))
    for index, bot in enumerate(bots):
        bot.start(referee.hello(index), 60.0)
    outcome = referee.play_game(bots, seed, single_hand=True)

    assert outcome.reason in (*NORMAL_ENDS, *FAILURE_REASONS), outcome
    failure = outcome.failure
    if failure is None:
        assert outcome.reason in NORMAL_ENDS
        return
    assert failure.seat == seat and failure.reason in FAILURE_REASONS
    decoded = check_decoding(bots[seat].sent[-1])
    if isinstance(decoded, ProtocolError):
        assert failure.reason == MalformedMessage.reason and str(decoded) in failure.message
