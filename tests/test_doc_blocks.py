"""Every TOML and JSON block of the README and docs/ parses: a reader copies them into files and
onto the wire, so a block that lost a character (a comment's ``# ``, a comma) fails there first.

A JSON block is one document or, as on the wire, one document a line (JSON lines); a block that
shows a shape rather than a value says so by its fence (```text)."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from support import ROOT

DOCUMENTS = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
FENCE = re.compile(r"^```(toml|json)[ \t]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def blocks() -> list[tuple[str, str, str]]:
    found = []
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        for block in FENCE.finditer(text):
            line = text.count("\n", 0, block.start()) + 1
            found.append((f"{document.relative_to(ROOT)}:{line}", block.group(1), block.group(2)))
    return found


def parse(language: str, text: str) -> None:
    if language == "toml":
        tomllib.loads(text)
        return
    try:
        json.loads(text)
    except json.JSONDecodeError:  # JSON lines: every non-blank line a document
        for line in text.splitlines():
            if line.strip():
                json.loads(line)


def test_the_documents_have_blocks_to_check() -> None:
    languages = {language for _, language, _ in blocks()}
    assert languages == {"toml", "json"}


@pytest.mark.parametrize(("where", "language", "text"), blocks(), ids=lambda v: str(v)[:40])
def test_every_toml_and_json_block_parses(where: str, language: str, text: str) -> None:
    try:
        parse(language, text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as error:
        pytest.fail(f"{where}: the {language} block does not parse: {error}")


def test_a_block_that_lost_its_comment_mark_is_caught() -> None:
    with pytest.raises(tomllib.TOMLDecodeError):
        parse("toml", "[[bot]] table a bot, the keys name\n")


def test_the_readme_bots_file_is_a_file_a_user_can_copy(tmp_path: Path) -> None:
    readme = [text for where, language, text in blocks() if where.startswith("README.md")]
    assert any("[[bot]]" in text for text in readme)
    for text in readme:
        (tmp_path / "bots.toml").write_text(text, encoding="utf-8")
        tomllib.loads((tmp_path / "bots.toml").read_text(encoding="utf-8"))
