"""Text that reaches a terminal from places a bot or a file controls, made harmless.

A bot's name (from a file name or a bots file), its ``ready`` fields, the tail of its stderr,
the messages quoting what it sent: any of them may hold escape sequences that retitle, clear or
rewrite a terminal, or bidirectional-text controls that reorder what is shown. :func:`printable`
escapes every such character, so that what is printed is exactly what was sent, made visible.

And Ctrl-C at a terminal, during a command that plays games: :class:`Interrupt`.
"""

from __future__ import annotations

import re
import signal
from typing import Final

_UNSAFE: Final = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)
"""C0 controls but tab and line feed, DEL, C1 controls (CSI is U+009B), the line and paragraph
separators and the bidirectional marks, embeddings, overrides and isolates."""
_UNSAFE_LINES: Final = re.compile(f"[\t\n]|{_UNSAFE.pattern}")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def printable(text: str, *, lines: bool = False) -> str:
    """``text`` with every control character escaped as ``\\xNN`` or ``\\uNNNN`` (a backslash
    itself is left alone). Tabs and line feeds are kept when ``lines`` is true (a log's tail,
    shown as lines), escaped otherwise (a name, a field: one line).

    >>> printable("bot\\x1b]0;pwned\\x07")
    'bot\\\\x1b]0;pwned\\\\x07'
    >>> printable("two\\nlines", lines=True)
    'two\\nlines'
    >>> printable("two\\nlines")
    'two\\\\x0alines'
    """
    return (_UNSAFE if lines else _UNSAFE_LINES).sub(_escape, text)


class Interrupt:
    """Ctrl-C during a match. Python raises KeyboardInterrupt wherever the main thread is, and
    drops it when that is a finaliser ("Exception ignored in ..."); so the handler also notes the
    signal, and :meth:`check`, called after each game, raises it again: a match always stops."""

    def __init__(self) -> None:
        self.seen = False
        self._previous: object = None

    def __enter__(self) -> Interrupt:
        self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        signal.signal(signal.SIGINT, self._previous)  # type: ignore[arg-type]

    def _handle(self, signum: int, frame: object) -> None:
        self.seen = True
        raise KeyboardInterrupt

    def check(self) -> None:
        if self.seen:
            raise KeyboardInterrupt


__all__ = ["Interrupt", "printable"]
