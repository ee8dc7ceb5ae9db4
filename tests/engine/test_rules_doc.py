"""docs/RULES.md agrees with the code: its generated blocks are fresh and its IDs are unique."""

from __future__ import annotations

import dataclasses
import importlib.util
import re
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

from engine.rules import Rules

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "RULES.md"
RULE_IDS = [f"R{n}" for n in range(1, 26)]


def _load_generate() -> ModuleType:
    """docs/generate.py, imported from its path (docs/ is not a package)."""
    spec = importlib.util.spec_from_file_location("docs_generate", ROOT / "docs" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


generate = _load_generate()


@pytest.fixture(scope="module")
def doc() -> str:
    return DOC.read_text(encoding="utf-8")


def _duplicates(ids: list[str]) -> list[str]:
    return sorted(i for i, n in Counter(ids).items() if n > 1)


@pytest.mark.parametrize("name", sorted(generate.BLOCKS))
def test_generated_block_is_fresh(doc: str, name: str) -> None:
    assert generate.read_block(doc, name) == generate.BLOCKS[name](), (
        f"the {name} block of docs/RULES.md is stale: run python docs/generate.py"
    )


def test_check_mode_reports_and_regeneration_fixes_a_stale_block(tmp_path: Path, doc: str) -> None:
    row = "| O1 | `knock_limit` |"
    assert row in doc
    path = tmp_path / "RULES.md"
    path.write_text(doc.replace(row, "| O1 | `knock_limt` |"), encoding="utf-8")
    assert generate.main(["--check", "--path", str(path)]) == 1
    assert generate.main(["--path", str(path)]) == 0
    assert path.read_text(encoding="utf-8") == doc
    assert generate.main(["--check", "--path", str(path)]) == 0


def test_missing_markers_are_an_error(tmp_path: Path, doc: str) -> None:
    path = tmp_path / "RULES.md"
    path.write_text(doc.replace("<!-- presets:end -->", ""), encoding="utf-8")
    assert generate.main(["--check", "--path", str(path)]) == 1


def test_rule_headings_are_unique_and_complete(doc: str) -> None:
    ids = re.findall(r"^### (R\d+) \S", doc, flags=re.MULTILINE)
    assert not _duplicates(ids), f"rule IDs with two sections: {_duplicates(ids)}"
    assert ids == RULE_IDS


def test_option_ids_are_unique(doc: str) -> None:
    in_code = [f.metadata["id"] for f in dataclasses.fields(Rules)]
    assert not _duplicates(in_code), f"option IDs used twice in Rules: {_duplicates(in_code)}"
    in_doc = re.findall(r"^\| (O\d+) \|", doc, flags=re.MULTILINE)
    assert not _duplicates(in_doc), f"option IDs listed twice: {_duplicates(in_doc)}"
    assert in_doc == in_code


def test_every_rule_id_cited_by_the_engine_has_a_section(doc: str) -> None:
    documented = set(re.findall(r"^### (R\d+) ", doc, flags=re.MULTILINE))
    for source in sorted((ROOT / "engine").glob("*.py")):
        cited = set(re.findall(r"\bR\d+\b", source.read_text(encoding="utf-8")))
        assert cited <= documented, f"{source.name} cites {sorted(cited - documented)}"


def _slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_internal_links_reach_a_heading(doc: str) -> None:
    anchors = {_slug(h) for h in re.findall(r"^#+ (.+)$", doc, flags=re.MULTILINE)}
    links = set(re.findall(r"\]\(#([^)]+)\)", doc))
    assert links <= anchors, f"links to no heading: {sorted(links - anchors)}"
