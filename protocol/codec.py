"""Framing: one UTF-8 JSON object per line, at most :data:`MAX_LINE_BYTES` long.

Decoding never raises anything but :class:`ProtocolError` subclasses, whatever the bytes, each
naming the problem and quoting the offending text (truncated), so a referee can forfeit a bot with a
message its author understands. A line must be strict JSON in the I-JSON sense (RFC 7493): UTF-8,
no repeated member name, no ``NaN`` or ``Infinity``, no lone surrogate or noncharacter. Inside the
line every dimension is bounded (:data:`MAX_DEPTH`, :data:`MAX_MEMBERS`, :data:`MAX_ITEMS`,
:data:`MAX_INT_DIGITS`, :data:`INT_MIN` to :data:`INT_MAX`, :data:`MAX_NUMBER_CHARS`); a string is
bounded by the line alone. Breaking any of these is :class:`InvalidJson`.
"""

from __future__ import annotations

import json
import math
import re
from itertools import accumulate
from typing import Final, NoReturn

import pydantic

from protocol.messages import MAX_LINE_BYTES, MESSAGE_TYPES, Message

MAX_DEPTH: Final = 16
"""The deepest nesting of objects and arrays, the message itself counting as level 1. The deepest
message of the protocol, a reply or a ``played`` whose knock declares melds, is 4 levels deep."""

MAX_MEMBERS: Final = 256
"""The most members one object may have. The referee's largest object, ``hello.rules``, has one
per rules option, a few dozen at most."""

MAX_ITEMS: Final = 1024
"""The most elements one array may have. The referee's longest arrays are lists of cards, of 52
at most."""

INT_MIN: Final = -(2**63)
"""The smallest integer a line may hold: integers are signed 64-bit."""

INT_MAX: Final = 2**63 - 1
"""The largest integer a line may hold."""

MAX_INT_DIGITS: Final = len(str(INT_MAX))
"""The most digits an integer may have (19, those of :data:`INT_MAX`). A longer one is rejected
before conversion, which costs time quadratic in the digits."""

MAX_NUMBER_CHARS: Final = 32
"""The longest number with a fraction or an exponent, in characters; such a number must also be a
finite double. The protocol's own numbers are integers, so such a number is only ever valid in an
unknown member, and no double needs more than 24 characters (``-2.2250738585072014e-308``)."""

QUOTE_LIMIT: Final = 200
"""How much of an offending line an error quotes."""


class ProtocolError(ValueError):
    """A line or message that breaks the protocol. ``reason`` is a stable short name.

    The root of the protocol package's errors: ``except ProtocolError`` catches every error it
    raises by a type of its own, and, as each is a ``ValueError``, so does ``except ValueError``.
    """

    reason = "protocol"

    def __init__(self, message: str, text: str | bytes = "") -> None:
        self.text = quote(text) if text else ""
        super().__init__(f"{message}: {self.text}" if self.text else message)
        self.detail = message


class LineTooLong(ProtocolError):
    reason = "line_too_long"


class InvalidJson(ProtocolError):
    reason = "invalid_json"


class UnknownMessage(ProtocolError):
    """A message whose ``type`` this side does not know (bots must ignore these)."""

    reason = "unknown_message"


class InvalidMessage(ProtocolError):
    """A message of a known type whose fields are wrong or missing."""

    reason = "invalid_message"


def quote(text: str | bytes, limit: int = QUOTE_LIMIT) -> str:
    """``text`` as a Python-style quoted string, cut to ``limit`` characters."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    cut = text if len(text) <= limit else text[:limit] + "..."
    return repr(cut)


def encode(message: Message) -> bytes:
    """One message as a line of compact JSON, newline included. ``None`` fields are left out."""
    return message.model_dump_json(exclude_none=True).encode() + b"\n"


def decode(line: str | bytes) -> Message:
    """Decode one line (a trailing ``\\n`` or ``\\r\\n`` is allowed) into its message.

    Whatever ``line`` holds, this returns a message or raises one of :class:`LineTooLong`,
    :class:`InvalidJson` (not UTF-8, not strict JSON, or over a bound of this module),
    :class:`UnknownMessage` and :class:`InvalidMessage`, and nothing else; its time is linear in
    the line's length.
    """
    raw = (line.encode("utf-8", "surrogatepass") if isinstance(line, str) else line).rstrip(b"\r\n")
    if len(raw) > MAX_LINE_BYTES:
        raise LineTooLong(
            f"line of {len(raw)} bytes is over the limit of {MAX_LINE_BYTES}", raw[:QUOTE_LIMIT]
        )
    data = parse_json(raw)
    if not isinstance(data, dict):
        raise InvalidJson("a message must be a JSON object", raw)
    if "type" not in data:
        raise InvalidMessage('a message needs a "type" field', raw)
    kind = data["type"]
    if not isinstance(kind, str):
        raise InvalidMessage(f"the message type must be a string, not {_cut(repr(kind))}", raw)
    if kind not in MESSAGE_TYPES:
        raise UnknownMessage(f"unknown message type {quote(kind)}", raw)
    try:  # the type's own model: only the models of the types a process meets are ever built
        return MESSAGE_TYPES[kind].model_validate(data)
    except pydantic.ValidationError as error:
        raise InvalidMessage(f"bad {kind} message: {_explain(error)}", raw) from None


def parse_json(line: bytes) -> object:
    """The one JSON value ``line`` holds (a trailing ``\\n`` or ``\\r\\n`` is allowed), read as
    strictly and within the same bounds as a message (:func:`decode`), but of any shape and of any
    length: a caller that reads lines bounds their length itself.

    Whatever ``line`` holds, this returns a value or raises :class:`InvalidJson`, and nothing
    else; its time is linear in the line's length.
    """
    raw = line.rstrip(b"\r\n")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InvalidJson(f"not UTF-8 ({error.reason} at byte {error.start})", raw) from None
    try:
        escapes = _BACKSLASH in raw
        if raw.count(b"[") + raw.count(b"{") > MAX_DEPTH and _too_deep(raw, escapes):
            raise _Malformed(f"nesting deeper than {MAX_DEPTH} levels")
        data = _parse(text)
        # The hooks checked objects and numbers. Only an escape can write a lone surrogate, and an
        # array over the bound needs twice as many bytes: common lines skip the walk. Without
        # escapes, the text itself shows every character of every string.
        if escapes or len(raw) > 2 * MAX_ITEMS:
            _check_tree(data)
        elif not raw.isascii():
            _check_text(text)
    except json.JSONDecodeError as error:
        raise InvalidJson(f"not valid JSON ({error})", raw) from None
    except _Malformed as error:
        raise InvalidJson(str(error), raw) from None
    return data


def _explain(error: pydantic.ValidationError) -> str:
    parts = []
    for item in error.errors()[:3]:
        where = ".".join(str(p) for p in item["loc"]) or "message"
        msg = item["msg"]
        if item["type"] == "union_tag_invalid":
            msg = (
                f"unknown action kind {item.get('input', {}).get('kind')!r}"
                if isinstance(item.get("input"), dict)
                else msg
            )
        parts.append(_cut(f"{where}: {msg}"))  # a message may repeat a long input: keep it short
    return "; ".join(parts)


def _cut(text: str, limit: int = QUOTE_LIMIT) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


# -- strict JSON with bounds --------------------------------------------------------------------


class _Malformed(Exception):
    """A bound or an I-JSON rule broken, found before, during or after parsing; :func:`decode`
    turns it into :class:`InvalidJson` quoting the line. Not a ValueError, so that it cannot be
    mistaken for the parser's own errors."""


def _object(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """An object's members as a dict: no name repeated, at most :data:`MAX_MEMBERS` of them."""
    obj = dict(pairs)
    if len(obj) == len(pairs) <= MAX_MEMBERS:
        return obj
    if len(pairs) > MAX_MEMBERS:
        raise _Malformed(f"object with {len(pairs)} members (at most {MAX_MEMBERS})")
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise _Malformed(f"member name {quote(key)} repeated in one object")
        seen.add(key)
    raise AssertionError("unreachable: fewer keys than pairs means a repeated key")


def _int(text: str) -> int:
    """An integer of at most :data:`MAX_INT_DIGITS` digits, :data:`INT_MIN` to :data:`INT_MAX`."""
    if len(text) < MAX_INT_DIGITS:
        return int(text)  # at most 18 characters: always in range, the common case
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise _Malformed(f"integer with {digits} digits (at most {MAX_INT_DIGITS})")
    value = int(text)
    if not INT_MIN <= value <= INT_MAX:
        raise _Malformed(f"integer {text} outside the signed 64-bit range {INT_MIN} to {INT_MAX}")
    return value


def _float(text: str) -> float:
    """A number of at most :data:`MAX_NUMBER_CHARS` characters that is a finite double."""
    if len(text) > MAX_NUMBER_CHARS:
        raise _Malformed(f"number with {len(text)} characters (at most {MAX_NUMBER_CHARS})")
    value = float(text)
    if not math.isfinite(value):
        raise _Malformed(f"number {text} is too large for a double")
    return value


def _constant(name: str) -> NoReturn:
    raise _Malformed(f"{name} is not a JSON number")


_DECODER: Final = json.JSONDecoder(
    object_pairs_hook=_object, parse_int=_int, parse_float=_float, parse_constant=_constant
)
"""Python's parser, made strict: it would accept NaN, repeated names and integers of any size."""

_NONCHARACTERS: Final = "\ufdd0-\ufdef" + "".join(
    chr(plane + 0xFFFE) + chr(plane + 0xFFFF) for plane in range(0, 0x110000, 0x10000)
)
_FORBIDDEN_CHAR: Final = re.compile(f"[\ud800-\udfff{_NONCHARACTERS}]")
"""Code points I-JSON forbids in strings: surrogates (once decoded, a surrogate is a lone one:
the parser joins pairs) and noncharacters."""


def _check_text(text: str) -> None:
    found = _FORBIDDEN_CHAR.search(text)
    if found:
        code = ord(found.group())
        what = "lone surrogate" if 0xD800 <= code <= 0xDFFF else "noncharacter"
        raise _Malformed(f"string with a {what} U+{code:04X} (I-JSON forbids it)")


def _check_tree(value: object) -> None:
    """Check every array length and every string (keys too) of a parsed value, whose depth the
    pre-scan has already bounded."""
    if isinstance(value, str):
        _check_text(value)
    elif isinstance(value, list):
        if len(value) > MAX_ITEMS:
            raise _Malformed(f"array with {len(value)} elements (at most {MAX_ITEMS})")
        for item in value:
            _check_tree(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_text(key)
            _check_tree(item)


_BACKSLASH: Final = ord("\\")
_PARENS: Final = bytes.maketrans(b"[{]}", b"(())")
_ALL_BUT_STRUCTURE: Final = bytes(c for c in range(256) if c not in b'"[]{}')
_ALL_BUT_BRACKETS: Final = bytes(c for c in range(256) if c not in b"[]{}")
_STRING: Final = re.compile(rb'"(?:[^"\\]++|\\.)*+(?:"|\\?\Z)', re.DOTALL)
"""A string, or an unterminated one up to the end of the line: it always matches from a quote, and
never backtracks, so removing strings takes time linear in the line."""
_STEP: Final = tuple(1 if c == ord("(") else -1 if c == ord(")") else 0 for c in range(256))


def _too_deep(raw: bytes, escapes: bool) -> bool:
    """Whether objects and arrays in ``raw`` nest deeper than :data:`MAX_DEPTH`, found without
    parsing (the parser recurses once per level); ``escapes`` says whether ``raw`` holds a
    backslash. Exact for valid JSON; for anything else never below the depth the parser would
    reach before failing."""
    if not escapes:
        # Without escapes quotes alternate, opening and closing strings. Dropping adjacent quotes
        # (a string without brackets, or the gap between two strings) keeps that alternation; if
        # no quote is left, what is left is the structure alone.
        shape = raw.translate(_PARENS, _ALL_BUT_STRUCTURE).replace(b'""', b"")
        if b'"' not in shape:
            for _ in range(MAX_DEPTH):
                shape = shape.replace(b"()", b"")  # removes the innermost level everywhere
                if not shape:
                    return False
    # Brackets inside strings, escapes, unbalanced or deep: count exactly, strings removed. Up to
    # where the parser would fail, this reads the line as the parser does.
    shape = _STRING.sub(b"", raw).translate(_PARENS, _ALL_BUT_BRACKETS)
    return max(accumulate(map(_STEP.__getitem__, shape)), default=0) > MAX_DEPTH


_WHITESPACE: Final = " \t\n\r"
"""JSON's whitespace (str.strip would also take other characters)."""


def _parse(text: str) -> object:
    """The one JSON value ``text`` holds, surrounded by whitespace or not."""
    start = len(text) - len(text.lstrip(_WHITESPACE))
    value, end = _DECODER.raw_decode(text, start)
    if end != len(text):
        rest = text[end:]
        extra = len(rest) - len(rest.lstrip(_WHITESPACE))
        if extra != len(rest):
            raise json.JSONDecodeError("Extra data", text, end + extra)
    return value
