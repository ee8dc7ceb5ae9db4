"""Every rule and option ID is traceable: defined in docs/RULES.md, pinned by a conformance case,
and (rules) cited in the engine's source or (options) a field of engine.rules.Rules."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena.conformance import caseformat
from engine.rules import option_ids

ROOT = Path(__file__).resolve().parents[2]
RULES_DOC = ROOT / "docs" / "RULES.md"
ENGINE_DIR = ROOT / "engine"

_ID = r"(?:R|O)\d+"
_DEFINITIONS = (
    re.compile(rf"^#{{1,6}}\s+({_ID})\b", re.MULTILINE),  # ### R8 The card just taken ...
    re.compile(rf"^\|\s*(?:\*\*|`)?({_ID})(?:\*\*|`)?\s*\|", re.MULTILINE),  # | O5 | ... |
    re.compile(rf"^\|\s*\[({_ID})\]\(", re.MULTILINE),  # | [R1](#r1-...) | ... |
)


def _sort_key(rule_id: str) -> tuple[str, int]:
    return rule_id[0], int(rule_id[1:])


def document_ids() -> set[str]:
    """IDs defined in docs/RULES.md: as a heading, or as the first cell of a table row."""
    if not RULES_DOC.exists():
        return set()
    text = RULES_DOC.read_text(encoding="utf-8")
    return {m.group(1) for pattern in _DEFINITIONS for m in pattern.finditer(text)}


def all_ids() -> set[str]:
    """The document's IDs with R1..R22 and the engine's option IDs, so that the checks below mean
    something even before the document exists."""
    return document_ids() | set(caseformat.RULE_IDS) | set(option_ids().values())


def covered_ids() -> set[str]:
    return {rule_id for case in caseformat.load_cases()[0] for rule_id in case.covers}


def test_rules_document_exists() -> None:
    if not RULES_DOC.exists():
        pytest.fail(
            f"{RULES_DOC.relative_to(ROOT)} is missing: it must define every rule (### R1 ...) and "
            "option (| O1 | ...) ID",
            pytrace=False,
        )
    missing = sorted(set(caseformat.RULE_IDS) - document_ids(), key=_sort_key)
    assert not missing, f"rule IDs not defined in docs/RULES.md: {missing}"


def test_every_id_is_covered_by_a_case() -> None:
    uncovered = sorted(all_ids() - covered_ids(), key=_sort_key)
    assert not uncovered, f"IDs no conformance case covers: {uncovered}"


def test_every_covered_id_is_defined() -> None:
    undefined = sorted(covered_ids() - all_ids(), key=_sort_key)
    assert not undefined, f"cases cover IDs defined nowhere: {undefined}"


def test_every_rule_id_is_cited_in_the_engine() -> None:
    source = "\n".join(p.read_text(encoding="utf-8") for p in sorted(ENGINE_DIR.glob("*.py")))
    rules = sorted((i for i in all_ids() if i.startswith("R")), key=_sort_key)
    uncited = [i for i in rules if not re.search(rf"\b{i}\b", source)]
    assert not uncited, f"rule IDs not mentioned in engine/*.py: {uncited}"


def test_every_option_id_is_an_engine_option() -> None:
    options = sorted((i for i in all_ids() if i.startswith("O")), key=_sort_key)
    unknown = [i for i in options if i not in option_ids().values()]
    assert not unknown, f"option IDs that are not fields of engine.rules.Rules: {unknown}"
