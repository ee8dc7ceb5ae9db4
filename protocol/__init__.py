"""The bot protocol: JSON Lines over stdio, typed with pydantic, published as JSON Schema.

:mod:`protocol.messages` holds the models, :mod:`protocol.codec` the framing and its errors (each a
:class:`ProtocolError`, the package's one error root), :mod:`protocol.convert` the conversions of
cards and actions from and to engine values, :mod:`protocol.views` what each seat is told (the
information boundary), :mod:`protocol.schema` the schema.
"""

from protocol.codec import (
    InvalidJson,
    InvalidMessage,
    LineTooLong,
    ProtocolError,
    UnknownMessage,
    decode,
    encode,
)
from protocol.messages import MAX_LINE_BYTES, MESSAGE_ADAPTER, PROTOCOL_NAME, PROTOCOL_VERSIONS

__all__ = [
    "MAX_LINE_BYTES",
    "MESSAGE_ADAPTER",
    "PROTOCOL_NAME",
    "PROTOCOL_VERSIONS",
    "InvalidJson",
    "InvalidMessage",
    "LineTooLong",
    "ProtocolError",
    "UnknownMessage",
    "decode",
    "encode",
]
