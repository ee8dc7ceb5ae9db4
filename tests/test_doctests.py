"""The examples in the README and in the engine's docstrings run as doctests."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODULES = [
    "engine.cards",
    "engine.hand",
    "engine.game",
    "engine.melds",
    "engine.rules",
    "arena.terminal",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_readme_examples() -> None:
    readme = ROOT / "README.md"
    result = doctest.testfile(
        str(readme), module_relative=False, optionflags=doctest.ELLIPSIS, verbose=False
    )
    assert result.attempted > 5, "the README's Python examples were not found"
    assert result.failed == 0
