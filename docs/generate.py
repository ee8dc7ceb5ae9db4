"""Regenerate the tables of docs/RULES.md from the code, so that the spec cannot drift from it.

The blocks between ``<!-- NAME:begin -->`` and ``<!-- NAME:end -->`` are generated: ``options``
from the fields of :class:`engine.rules.Rules` (their ``id``, ``doc``, ``low`` and ``high``
metadata), ``presets`` from :data:`engine.rules.PRESETS` (each preset's differences from hoyle) and
``vectors`` from :mod:`engine.deck` and :mod:`engine.game` (seeded deals another implementation
can check itself against). Everything outside the markers is written by hand.

    python docs/generate.py           rewrite the blocks in docs/RULES.md in place
    python docs/generate.py --check   exit 1 if any block is stale, changing nothing
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import typing
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `python docs/generate.py` from a checkout: find `engine` here
    sys.path.append(str(ROOT))

from engine.cards import CARD_NAMES  # noqa: E402
from engine.deck import SplitMix64  # noqa: E402
from engine.game import Game  # noqa: E402
from engine.hand import Hand  # noqa: E402
from engine.rules import HOYLE, PRESETS, Rules  # noqa: E402

RULES_MD = ROOT / "docs" / "RULES.md"
VECTOR_SEEDS = (0, 1, 2**64 - 1)


class StaleError(ValueError):
    """docs/RULES.md lacks a block's markers or has them more than once."""


def _text(value: object) -> str:
    """An option value as it is written in ``--set name=value``: ``true``, ``25``, ``winner``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def options_table() -> str:
    """The options of :class:`~engine.rules.Rules` as a Markdown table, in field order."""
    hints = typing.get_type_hints(Rules)
    rows = [
        "| ID | Option | Type | Hoyle default | Range or choices | Meaning |",
        "|----|--------|------|---------------|------------------|---------|",
    ]
    for f in dataclasses.fields(Rules):
        hint = hints[f.name]
        choices = typing.get_args(hint) if typing.get_origin(hint) is typing.Literal else ()
        if choices:
            kind, allowed = "choice", ", ".join(f"`{c}`" for c in choices)
        elif hint is bool:
            kind, allowed = "bool", "`true`, `false`"
        else:
            kind = getattr(hint, "__name__", str(hint))
            allowed = f"{f.metadata['low']}..{f.metadata['high']}"
        default = _text(getattr(HOYLE, f.name))
        rows.append(
            f"| {f.metadata['id']} | `{f.name}` | {kind} | `{default}` | {allowed} "
            f"| {_cell(f.metadata['doc'])} |"
        )
    return "\n".join(rows)


def presets_table() -> str:
    """Each preset of :data:`~engine.rules.PRESETS` and the options where it differs from hoyle."""
    ids = {f.name: f.metadata["id"] for f in dataclasses.fields(Rules)}
    rows = ["| Preset | Differs from `hoyle` in |", "|--------|------------------------|"]
    for name, rules in PRESETS.items():
        changes = rules.changes_from(HOYLE)
        if changes:
            text = "; ".join(f"{ids[k]} `{k}={_text(v)}`" for k, v in changes.items())
        else:
            text = "nothing: every option at its default"
        rows.append(f"| `{name}` | {text} |")
    return "\n".join(rows)


def _cards(order: Sequence[int]) -> str:
    return " ".join(CARD_NAMES[c] for c in order)


def deal_vectors() -> str:
    """Seeded deals as the engine makes them (R4, R21): a check for other implementations."""
    lines = []
    for seed in VECTOR_SEEDS:
        rng = SplitMix64(seed)
        outputs = ", ".join(f"0x{rng.next():016x}" for _ in range(3))
        game = Game(seed=seed)
        lines += [
            f"Seed `{seed}`:",
            "",
            f"- first three outputs of SplitMix64: `{outputs}`",
            f"- `Game(seed={seed})`: first dealer player {game.dealer}, first deck order "
            f"`{_cards(game.hand.deck)}`",
            f"- `Hand(seed={seed})` (no dealer number drawn): `{_cards(Hand(seed=seed).deck)}`",
            "",
        ]
    return "\n".join(lines).rstrip("\n")


BLOCKS: dict[str, Callable[[], str]] = {
    "options": options_table,
    "presets": presets_table,
    "vectors": deal_vectors,
}
"""Block name to the function that generates its content."""


def _span(text: str, name: str) -> tuple[int, int]:
    """Start and end offsets of block ``name``'s content (between its markers)."""
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    if text.count(begin) != 1 or text.count(end) != 1:
        raise StaleError(f"docs/RULES.md needs exactly one {begin} and one {end}")
    start, stop = text.index(begin) + len(begin), text.index(end)
    if stop < start:
        raise StaleError(f"docs/RULES.md: {end} comes before {begin}")
    return start, stop


def read_block(text: str, name: str) -> str:
    """The content of block ``name`` in ``text``, without the newlines next to its markers."""
    start, stop = _span(text, name)
    return text[start:stop].strip("\n")


def render(text: str) -> str:
    """``text`` with every generated block replaced by its current content."""
    for name, make in BLOCKS.items():
        start, stop = _span(text, name)
        text = f"{text[:start]}\n{make()}\n{text[stop:]}"
    return text


def stale_blocks(text: str) -> list[str]:
    """Names of the blocks whose content differs from what the code generates."""
    return [name for name, make in BLOCKS.items() if read_block(text, name) != make()]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Regenerate the tables of docs/RULES.md.")
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if a block is stale; change nothing"
    )
    parser.add_argument("--path", type=Path, default=RULES_MD, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    path: Path = args.path
    text = path.read_text(encoding="utf-8")
    try:
        stale = stale_blocks(text)
    except StaleError as error:
        print(error, file=sys.stderr)
        return 1
    if args.check:
        if stale:
            print(
                f"{path}: stale generated blocks: {', '.join(stale)}; run python docs/generate.py",
                file=sys.stderr,
            )
            return 1
        return 0
    if stale:
        path.write_text(render(text), encoding="utf-8")
        print(f"{path}: regenerated {', '.join(stale)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
