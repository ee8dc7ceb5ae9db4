"""Framing: one UTF-8 JSON object per line, at most :data:`MAX_LINE_BYTES` long.

Decoding never raises anything but :class:`ProtocolError` subclasses, each naming the problem and
quoting the offending text (truncated), so a referee can forfeit a bot with a message its author
understands.
"""

from __future__ import annotations

import json
from typing import Final

import pydantic

from protocol.messages import MAX_LINE_BYTES, MESSAGE_ADAPTER, MESSAGE_TYPES, Message

QUOTE_LIMIT: Final = 200
"""How much of an offending line an error quotes."""


class ProtocolError(ValueError):
    """A line or message that breaks the protocol. ``reason`` is a stable short name."""

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
    """Decode one line (a trailing ``\\n`` or ``\\r\\n`` is allowed)."""
    raw = (line.encode() if isinstance(line, str) else line).rstrip(b"\r\n")
    if len(raw) > MAX_LINE_BYTES:
        raise LineTooLong(
            f"line of {len(raw)} bytes is over the limit of {MAX_LINE_BYTES}", raw[:QUOTE_LIMIT]
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InvalidJson(f"not UTF-8 ({error.reason} at byte {error.start})", raw) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InvalidJson(f"not valid JSON ({error})", raw) from None
    if not isinstance(data, dict):
        raise InvalidJson("a message must be a JSON object", raw)
    if "type" not in data:
        raise InvalidMessage('a message needs a "type" field', raw)
    kind = data["type"]
    if not isinstance(kind, str):
        raise InvalidMessage(f"the message type must be a string, not {kind!r}", raw)
    if kind not in MESSAGE_TYPES:
        raise UnknownMessage(f"unknown message type {kind!r}", raw)
    try:
        return MESSAGE_ADAPTER.validate_python(data)
    except pydantic.ValidationError as error:
        raise InvalidMessage(f"bad {kind} message: {_explain(error)}", raw) from None


def _explain(error: pydantic.ValidationError) -> str:
    parts = []
    for item in error.errors()[:3]:
        where = ".".join(str(p) for p in item["loc"][1:]) or "message"
        msg = item["msg"]
        if item["type"] == "union_tag_invalid":
            msg = (
                f"unknown action kind {item.get('input', {}).get('kind')!r}"
                if isinstance(item.get("input"), dict)
                else msg
            )
        parts.append(f"{where}: {msg}")
    return "; ".join(parts)
