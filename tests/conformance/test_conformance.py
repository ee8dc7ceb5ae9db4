"""One test per conformance case (``cases/*.json``), run against the reference engine, plus checks
of the case files themselves and of the runner's deck convention."""

from __future__ import annotations

import json
from collections import Counter

import pytest
import runner

from engine.cards import CARD_NAMES

CASES = runner.load_cases()


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_case(case: runner.Case) -> None:
    try:
        runner.run_case(case)
    except runner.CaseFailure as failure:
        pytest.fail(f"{failure}\n  ({case.path.name}: {case.title})", pytrace=False)


def test_case_ids_are_unique_and_name_their_files() -> None:
    counts = Counter(case.id for case in CASES)
    assert not [cid for cid, n in counts.items() if n > 1], "duplicate case ids"
    misnamed = [case.id for case in CASES if case.path.stem != case.id]
    assert not misnamed, f"a one-case file is named after its id: {misnamed}"


def test_case_files_are_two_space_json() -> None:
    for path in sorted(runner.CASES_DIR.glob("*.json")):
        text = path.read_text(encoding="utf-8")
        assert text.endswith("\n"), path.name
        json.loads(text)
        indents = {len(line) - len(line.lstrip(" ")) for line in text.splitlines()}
        assert all(n % 2 == 0 for n in indents), f"{path.name}: indent by two spaces"


def test_enough_cases_of_every_kind() -> None:
    kinds = Counter(case.kind for case in CASES)
    assert len(CASES) >= 70
    assert set(kinds) == set(runner.KINDS), kinds


def test_deck_convention() -> None:
    """deck[0] to the non-dealer, alternating; deck[20] the upcard; then the listed stock, then
    the rest in canonical order (AC 2C .. KC AD .. KS)."""
    p0 = ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC"]
    p1 = ["AD", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD"]
    deal = {"hands": [p0, p1], "upcard": "KS", "stock": ["QS", "JC"]}
    names = [CARD_NAMES[c] for c in runner.build_deck(deal, dealer=0)]
    assert names[:4] == ["AD", "AC", "2D", "2C"]
    assert names[18:24] == ["TD", "TC", "KS", "QS", "JC", "QC"]
    assert names[-1] == "JS" and len(set(names)) == 52
    names = [CARD_NAMES[c] for c in runner.build_deck(deal, dealer=1)]
    assert names[:4] == ["AC", "AD", "2C", "2D"]


def test_a_malformed_case_is_reported() -> None:
    case = runner.Case(
        {"id": "Bad Id", "title": "x", "covers": ["R1"], "kind": "meld"}, runner.CASES_DIR
    )
    with pytest.raises(runner.CaseFailure, match="bad or no id"):
        runner.run_case(case)
    case = runner.Case(
        {"id": "x", "title": "x", "covers": ["R99"], "kind": "meld"}, runner.CASES_DIR
    )
    with pytest.raises(runner.CaseFailure, match="unknown IDs"):
        runner.run_case(case)
