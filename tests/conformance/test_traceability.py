"""Every rule and option ID is traceable: defined in docs/RULES.md, pinned by a conformance case,
and (rules) cited in the engine's source or (options) a field of engine.rules.Rules."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from isolation import PLAYLESS, incidental_knock

from arena.conformance import blame, caseformat
from arena.conformance.capabilities import Capabilities
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


# -- isolating fixtures, blame and sources -------------------------------------------------------


def test_every_case_tagged_isolated_isolates_its_rules() -> None:
    """Played through this engine, no player of a case tagged ``isolated`` could knock (or go
    gin) before the knock the case is about: an engine with compulsory gin plays it as meant."""
    tagged = [case for case in caseformat.load_cases()[0] if "isolated" in case.tags]
    assert len(tagged) > 50
    passed = {case.id: incidental_knock(case) for case in tagged}
    assert {cid: why for cid, why in passed.items() if why} == {}


def test_every_rule_played_in_a_case_has_a_case_that_isolates_it() -> None:
    cases = caseformat.load_cases()[0]
    played = {i for case in cases if case.kind not in PLAYLESS for i in case.covers}
    isolating = {
        i for case in cases if case.kind in PLAYLESS or "isolated" in case.tags for i in case.covers
    }
    missing = sorted(played - isolating, key=_sort_key)
    assert not missing, (
        f"IDs whose every case lets a player knock before the case's point: {missing}"
    )


def test_the_isolation_check_sees_an_incidental_knock() -> None:
    """A case whose script discards where a knock was possible is not isolated."""
    case = next(c for c in caseformat.load_cases()[0] if c.id == "knock-never-obliged")
    assert incidental_knock(case) is not None


def test_the_blame_table_of_the_document_is_the_code_s() -> None:
    text = (ROOT / "docs" / "CONFORMANCE.md").read_text(encoding="utf-8")
    block = text.split("<!-- blame:begin -->\n")[1].split("<!-- blame:end -->")[0]
    assert block.strip() == blame.blame_table_markdown()


def test_every_id_has_a_source_and_the_defined_here_ones_match_the_rules_document() -> None:
    assert set(blame.SOURCES) == caseformat.known_ids()
    assert {s.origin for s in blame.SOURCES.values()} == {"hoyle", "001", "here"}
    text = RULES_DOC.read_text(encoding="utf-8")
    section = text.split("## Not in the sources, defined here")[1].split("\n## ")[0]
    named_here = set(
        re.findall(r"^- \*\*(R\d+) [A-Z]", section, re.MULTILINE)
    )  # - **R17 Turn limit**
    assert named_here, "the section lists rules in bold"
    wrong = {i: blame.SOURCES[i].origin for i in named_here if blame.SOURCES[i].origin != "here"}
    assert not wrong, f"RULES.md says these are defined here: {wrong}"


def test_the_capabilities_table_of_the_document_is_the_code_s() -> None:
    text = (ROOT / "docs" / "CONFORMANCE.md").read_text(encoding="utf-8")
    section = text.split("### Capabilities: what the engine has")[1].split("\n### ")[0]
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", section, re.MULTILINE))
    assert documented == {f.name for f in dataclasses.fields(Capabilities)}
