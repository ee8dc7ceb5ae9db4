"""The codec: one JSON object per line; every malformed line gets a typed error (a
:class:`ProtocolError` subclass with a stable ``reason``) whose message quotes the offending
part."""

from __future__ import annotations

import json

import pytest

from protocol import messages as m
from protocol.codec import (
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

REPLY = '{{"type":"reply","id":7,"action":{action}}}'


def reply_line(action: str) -> str:
    return REPLY.format(action=action)


def failure(line: str | bytes) -> ProtocolError:
    with pytest.raises(ProtocolError) as caught:
        decode(line)
    return caught.value


@pytest.mark.parametrize(
    ("line", "error", "quoted"),
    [
        ('{"type":"reply",', InvalidJson, "not valid JSON"),
        ("{'type': 'quit'}", InvalidJson, "not valid JSON"),
        ("", InvalidJson, "not valid JSON"),
        (b'{"type":"quit","name":"\xff"}', InvalidJson, "not UTF-8"),
        ('["reply", 7]', InvalidJson, "must be a JSON object"),
        ('"quit"', InvalidJson, "must be a JSON object"),
        ("null", InvalidJson, "must be a JSON object"),
    ],
)
def test_lines_that_are_not_a_json_object(
    line: str | bytes, error: type[ProtocolError], quoted: str
) -> None:
    caught = failure(line)
    assert type(caught) is error and caught.reason == "invalid_json"
    assert quoted in str(caught)
    if line:
        assert caught.text == quote(line) and caught.text in str(caught)


@pytest.mark.parametrize("kind", ['"referee_says_hi"', '"Reply"'])
def test_an_unknown_message_type_is_an_unknown_message(kind: str) -> None:
    line = f'{{"type":{kind},"id":1}}'
    caught = failure(line)
    assert type(caught) is UnknownMessage and caught.reason == "unknown_message"
    assert repr(json.loads(kind)) in str(caught) and quote(line) in str(caught)


def test_a_message_without_a_type_is_rejected_naming_the_type() -> None:
    caught = failure('{"id": 7, "action": {"kind": "pass"}}')
    assert isinstance(caught, ProtocolError) and "type" in caught.detail


@pytest.mark.parametrize("kind", ["[]", "{}", "5", "null", "true"])
def test_a_type_that_is_not_a_string_is_an_invalid_message(kind: str) -> None:
    caught = failure(f'{{"type":{kind}}}')
    assert type(caught) is InvalidMessage and "must be a string" in caught.detail


# -- line length --------------------------------------------------------------------------------


def padded_quit(size: int) -> bytes:
    """A valid quit message of exactly ``size`` bytes (an unknown field carries the padding)."""
    head = b'{"type":"quit","padding":"'
    line = head + b"x" * (size - len(head) - 2) + b'"}'
    assert len(line) == size
    return line


@pytest.mark.parametrize("end", [b"", b"\n", b"\r\n"])
def test_a_line_exactly_at_the_limit_is_accepted(end: bytes) -> None:
    assert decode(padded_quit(m.MAX_LINE_BYTES) + end) == m.Quit(type="quit")


def test_a_line_one_byte_over_the_limit_is_too_long() -> None:
    line = padded_quit(m.MAX_LINE_BYTES + 1) + b"\n"
    caught = failure(line)
    assert type(caught) is LineTooLong and caught.reason == "line_too_long"
    assert str(m.MAX_LINE_BYTES) in str(caught)
    assert caught.text.startswith('\'{"type":"quit","padding":"xxx')
    assert len(caught.text) < QUOTE_LIMIT + 10, "the quote is cut, not the whole line"


def test_the_limit_is_at_least_64_kib() -> None:
    assert m.MAX_LINE_BYTES >= 64 * 1024


# -- ids ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ('{"type":"reply","action":{"kind":"pass"}}', "id: Field required"),
        ('{"type":"reply","id":"seven","action":{"kind":"pass"}}', "id: Input should be"),
        ('{"type":"reply","id":null,"action":{"kind":"pass"}}', "id: Input should be"),
        ('{"type":"reply","id":[7],"action":{"kind":"pass"}}', "id: Input should be"),
        ('{"type":"reply","id":7.5,"action":{"kind":"pass"}}', "id: Input should be"),
    ],
)
def test_a_missing_or_mistyped_id_is_an_invalid_message(line: str, field: str) -> None:
    caught = failure(line)
    assert type(caught) is InvalidMessage and caught.reason == "invalid_message"
    assert caught.detail.startswith("bad reply message: ") and field in caught.detail
    assert quote(line) in str(caught)


@pytest.mark.parametrize("value", ["true", '"7"'])
def test_an_id_of_another_json_type_is_rejected(value: str) -> None:
    assert type(failure(f'{{"type":"reply","id":{value},"action":{{"kind":"pass"}}}}')) is (
        InvalidMessage
    )


# -- actions and cards --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "explained"),
    [
        ('{"kind":"fold"}', "action: unknown action kind 'fold'"),
        ('{"kind":"PASS"}', "action: unknown action kind 'PASS'"),
        ('{"card":"7H"}', "action: Unable to extract tag using discriminator 'kind'"),
        ('"pass"', "action: Input should be a valid dictionary"),
        ('{"kind":"draw","source":"deck"}', "action.draw.source: Input should be 'stock' or"),
        ('{"kind":"discard"}', "action.discard.card: Field required"),
    ],
)
def test_an_unknown_or_incomplete_action_is_an_invalid_message(action: str, explained: str) -> None:
    line = reply_line(action)
    caught = failure(line)
    assert type(caught) is InvalidMessage
    assert explained in caught.detail, caught.detail
    assert quote(line) in str(caught)


@pytest.mark.parametrize("card", ["1H", "7X", "11S", "T", "AS7", "", "7H,", "as"])
def test_a_bad_card_is_an_invalid_message_quoting_the_card(card: str) -> None:
    line = reply_line(f'{{"kind":"discard","card":"{card}"}}')
    caught = failure(line)
    assert type(caught) is InvalidMessage
    assert "action.discard.card" in caught.detail and f"bad card {card!r}" in caught.detail


def test_a_card_that_is_not_a_string_is_an_invalid_message() -> None:
    caught = failure(reply_line('{"kind":"discard","card":7}'))
    assert type(caught) is InvalidMessage
    assert "action.discard.card: Input should be a valid string" in caught.detail


@pytest.mark.parametrize(
    ("melds", "explained"),
    [
        ('[["7C","7D"]]', "action.knock.melds.0: List should have at least 3 items"),
        ('[["7C","7D","7Z"]]', "bad card '7Z'"),
        ('"7C 7D 7H"', "action.knock.melds: Input should be a valid list"),
    ],
)
def test_a_malformed_meld_is_an_invalid_message(melds: str, explained: str) -> None:
    caught = failure(reply_line(f'{{"kind":"knock","card":"KS","melds":{melds}}}'))
    assert type(caught) is InvalidMessage and explained in caught.detail, caught.detail


@pytest.mark.parametrize(
    ("written", "canonical"),
    [("TD", "TD"), ("10D", "TD"), ("10d", "TD"), ("Td", "TD"), ("7h", "7H"), ("As", "AS")],
)
def test_replies_may_write_ten_as_10_and_suits_in_lower_case(written: str, canonical: str) -> None:
    melds = f'[["{written}","JD","QD"]]'
    message = decode(reply_line(f'{{"kind":"knock","card":"{written}","melds":{melds}}}'))
    assert message == m.Reply(
        type="reply",
        id=7,
        action=m.KnockAction(kind="knock", card=canonical, melds=[[canonical, "JD", "QD"]]),
    )
    assert f'"{canonical}"' in encode(message).decode()


# -- framing and growth -------------------------------------------------------------------------


@pytest.mark.parametrize("end", ["", "\n", "\r\n"])
def test_line_ends_are_tolerated(end: str) -> None:
    assert decode('{"type":"reply","id":3,"action":{"kind":"pass"}}' + end) == m.Reply(
        type="reply", id=3, action=m.PassAction(kind="pass")
    )


def test_unknown_fields_are_ignored_at_every_level() -> None:
    line = (
        '{"type":"reply","id":3,"comment":"hi","action":'
        '{"kind":"discard","card":"7H","confidence":0.9,"why":{"deadwood":12}}}'
    )
    message = decode(line)
    assert message == m.Reply(type="reply", id=3, action=m.DiscardAction(kind="discard", card="7H"))
    assert b"comment" not in encode(message) and b"confidence" not in encode(message)


def test_encode_writes_one_compact_line_without_absent_fields() -> None:
    line = encode(
        m.Played(type="played", player=1, action=m.DrawAction(kind="draw", source="stock"))
    )
    assert line == b'{"type":"played","player":1,"action":{"kind":"draw","source":"stock"}}\n'
    assert line.count(b"\n") == 1


def test_a_long_offending_line_is_quoted_cut() -> None:
    line = '{"type":"reply","id":1,"action":{"kind":"discard","card":"' + "Z" * 1000 + '"}}'
    caught = failure(line)
    assert caught.text.endswith("...'") and len(caught.text) == QUOTE_LIMIT + 5
