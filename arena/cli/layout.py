"""Text laid out for the terminal it is printed on: help, check lists and the lines a tournament
prints before and after its games, wrapped by words (never mid-word) to the terminal's width.

The width is the terminal's (``shutil.get_terminal_size``: ``COLUMNS`` if set, else the terminal
of stdout) and 80 columns when the output is piped or redirected, the width argparse uses too.
A line too long for it continues on the next with a hanging indent, so that the start of each item
stays visible in the left margin.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import textwrap
from typing import Final

NARROWEST: Final = 40
"""Below this many columns text is laid out as if for 40: a word per line helps no one."""

_COMMENT: Final = re.compile(r"(?<!\S)#\s")


def columns() -> int:
    """The terminal's width in columns (80 when stdout is not a terminal and COLUMNS is unset)."""
    return max(NARROWEST, shutil.get_terminal_size((80, 24)).columns)


def terminal_columns() -> int | None:
    """The width to fit a command's report to: :func:`columns` when stdout is a terminal, None
    (lines whole, for a program to read) when it is piped or redirected, COLUMNS or not."""
    return columns() if sys.stdout.isatty() else None


def hanging(text: str, width: int, indent: int = 4) -> list[str]:
    """``text`` (one line) wrapped by words to ``width``, every line but the first indented by
    ``indent`` more spaces than the first line's own indentation. A line that holds a ``#``
    comment (a TOML example) continues its comment under its ``#``, still a comment.

    >>> hanging("PASS  exits on quit  exited with code 0", 24, 6)
    ['PASS  exits on quit', '      exited with code 0']
    """
    if len(text) <= width:
        return [text]
    lead = len(text) - len(text.lstrip(" "))
    rest = " " * (lead + indent)
    comment = _COMMENT.search(text, lead)
    if comment and comment.start() + 2 < width - 20:
        rest = " " * comment.start() + "# "
    return textwrap.wrap(
        text.lstrip(" "),
        width,
        initial_indent=" " * lead,
        subsequent_indent=rest,
        break_long_words=False,
        break_on_hyphens=False,
    ) or [text]


def reflow(text: str, width: int, indent: str = "") -> str:
    """A help text laid out for ``width``: each run of lines that start at the margin is a
    paragraph, joined and wrapped again; an indented line (an example command, a file's line, a
    list item) keeps its indentation and its line, wrapped with a hanging indent if too long."""
    out: list[str] = []
    paragraph: list[str] = []
    room = max(NARROWEST, width) - len(indent)

    def flush() -> None:
        if paragraph:
            out.extend(
                textwrap.wrap(
                    " ".join(paragraph), room, break_long_words=False, break_on_hyphens=False
                )
            )
            paragraph.clear()

    for line in text.splitlines():
        if line.strip() and not line.startswith((" ", "\t")):
            paragraph.append(line.strip())
            continue
        flush()
        out.extend(hanging(line.rstrip(), room) if line.strip() else [""])
    flush()
    return "\n".join(indent + line if line else line for line in out)


def fit(text: str, width: int | None) -> str:
    """``text`` with each line wider than ``width`` wrapped by words under a hanging indent of two
    (a table's rows, already fitted, are left as they are): the sentences under the standings.
    With no width (:func:`terminal_columns` of a pipe), ``text`` as it is."""
    if width is None:
        return text
    lines = text.split("\n")
    return "\n".join("\n".join(hanging(line, width, 2)) for line in lines)


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """argparse's help at the terminal's width (:func:`columns`), the descriptions and epilogs
    laid out by :func:`reflow` rather than printed as written or refilled into one paragraph."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        super().__init__(prog, indent_increment, max_help_position, width or columns() - 2)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return reflow(text, width + len(indent), indent) + "\n"


__all__ = ["HelpFormatter", "columns", "fit", "hanging", "reflow", "terminal_columns"]
