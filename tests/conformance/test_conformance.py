"""One test per conformance case (shipped in ``arena/conformance/cases``), run against the
reference engine, plus checks of the case files themselves and of the runner's deck convention."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from arena.conformance import caseformat, compare, runner
from arena.conformance.reference import ReferenceEngine
from engine.cards import parse_card

CASES, BROKEN = caseformat.load_cases()
CASES_DIR = caseformat.shipped_cases_dir()
ENGINE = ReferenceEngine()


def run_case(case: caseformat.Case) -> None:
    """Run ``case`` on the reference engine; raise :class:`caseformat.CaseFailure` if it fails."""
    outcome = runner.run_case(case, ENGINE)
    assert outcome.status != "skip", f"the reference engine skipped {case.id}: {outcome.message}"
    if outcome.status == "fail":
        raise caseformat.CaseFailure(case.id, outcome.where, outcome.message)


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_case(case: caseformat.Case) -> None:
    try:
        run_case(case)
    except caseformat.CaseFailure as failure:
        pytest.fail(f"{failure}\n  ({Path(case.path).name}: {case.title})", pytrace=False)


def test_every_shipped_file_reads() -> None:
    assert not BROKEN


def test_case_ids_are_unique_and_name_their_files() -> None:
    counts = Counter(case.id for case in CASES)
    assert not [cid for cid, n in counts.items() if n > 1], "duplicate case ids"
    misnamed = [case.id for case in CASES if Path(case.path).stem != case.id]
    assert not misnamed, f"a one-case file is named after its id: {misnamed}"


def test_case_files_are_two_space_json() -> None:
    for path in sorted(CASES_DIR.glob("*.json")):
        text = path.read_text(encoding="utf-8")
        assert text.endswith("\n"), path.name
        json.loads(text)
        indents = {len(line) - len(line.lstrip(" ")) for line in text.splitlines()}
        assert all(n % 2 == 0 for n in indents), f"{path.name}: indent by two spaces"


def test_enough_cases_of_every_kind() -> None:
    kinds = Counter(case.kind for case in CASES)
    assert len(CASES) >= 70
    assert set(kinds) == set(caseformat.KINDS), kinds


def test_deck_convention() -> None:
    """deck[0] to the non-dealer, alternating; deck[20] the upcard; then the listed stock, then
    the rest in canonical order (AC 2C .. KC AD .. KS)."""
    p0 = ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC"]
    p1 = ["AD", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD"]
    deal = {"hands": [p0, p1], "upcard": "KS", "stock": ["QS", "JC"]}
    names = compare.build_deck(deal, dealer=0)
    assert names[:4] == ["AD", "AC", "2D", "2C"]
    assert names[18:24] == ["TD", "TC", "KS", "QS", "JC", "QC"]
    assert names[-1] == "JS" and len({parse_card(n) for n in names}) == 52
    names = compare.build_deck(deal, dealer=1)
    assert names[:4] == ["AC", "AD", "2C", "2D"]


def test_a_malformed_case_is_reported() -> None:
    case = caseformat.Case(
        {"id": "Bad Id", "title": "x", "covers": ["R1"], "kind": "meld"}, "x.json"
    )
    with pytest.raises(caseformat.CaseFailure, match="bad or no id"):
        run_case(case)
    case = caseformat.Case({"id": "x", "title": "x", "covers": ["R99"], "kind": "meld"}, "x.json")
    with pytest.raises(caseformat.CaseFailure, match="unknown IDs"):
        run_case(case)


def test_every_mode_has_game_cases() -> None:
    games = [case for case in CASES if case.kind == "game"]
    modes = Counter(str(case.data.get("mode", "two-player")) for case in games)
    assert set(modes) == set(caseformat.MODES), modes
    assert all(n >= 3 for n in modes.values()), modes


def test_the_first_dealing_seat_of_each_mode() -> None:
    assert [runner.first_seat("two-player", p) for p in (0, 1)] == [0, 1]
    assert [runner.first_seat("hollywood", p) for p in (0, 1)] == [0, 1]
    assert [runner.first_seat("three-player", p) for p in (0, 1, 2)] == [1, 1, 1]
    assert [runner.first_seat("partnership", team) for team in (0, 1)] == [0, 1]


def _game_case(**changes: object) -> caseformat.Case:
    """A copy of a format case (``case_id``, default partnership-sum-rule-shutout) with top-level
    fields, or the first deal's ``expect_*`` keys, changed."""
    case_id = changes.pop("case_id", "partnership-sum-rule-shutout")
    base = next(case for case in CASES if case.id == case_id)
    data = json.loads(json.dumps(base.data))
    first_deal = data["hands"][0]["deal"]
    for key, value in changes.items():
        target = first_deal if key.startswith("expect_") else data
        target[key] = value
    return caseformat.Case(data, base.path)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"mode": "four-player"}, "mode must be one of"),
        ({"first_dealer": 2}, "first_dealer must be 0..1 in partnership"),
        ({"mode": "three-player", "first_dealer": 3}, "first_dealer must be 0..2"),
        ({"expect_players": [0, 0]}, "expect_players is two different players"),
        ({"expect_players": [0, 4]}, "expect_players is two different players"),
        ({"expect_table": 2}, "expect_table is 0 or 1"),
        ({"expect_dealer": 2}, "expect_dealer is a seat"),
        ({"expect_seat": 0}, "unknown deal keys"),
        ({"game_result": {"games": []}}, "unknown keys \\['games'\\] for partnership"),
        ({"game_result": {"total": 1}}, "unknown keys \\['total'\\]"),
        (
            {"case_id": "hollywood-win-entries", "game_result": {"games": [{}]}},
            "a list of 3 game results",
        ),
        (
            {"case_id": "hollywood-win-entries", "game_result": {"games": [{}, {}, {"bonus": 0}]}},
            "a list of 3 game results",
        ),
        (
            {
                "case_id": "three-player-shutout",
                "rules": {"preset": "bonus", "options": {"next_dealer": "loser"}},
            },
            "does not apply to three-player",
        ),
    ],
)
def test_a_malformed_format_case_is_reported(changes: dict[str, object], message: str) -> None:
    with pytest.raises(caseformat.CaseFailure, match=message):
        run_case(_game_case(**changes))


def test_only_a_game_names_a_mode() -> None:
    case = caseformat.Case(
        {"id": "x", "title": "x", "covers": ["R1"], "kind": "meld", "mode": "hollywood"},
        "x.json",
    )
    with pytest.raises(caseformat.CaseFailure, match="only a game names a mode"):
        run_case(case)


def test_a_format_case_checks_the_seating() -> None:
    with pytest.raises(caseformat.CaseFailure, match="hand 1: players: expected \\[2, 3\\]"):
        run_case(_game_case(expect_players=[2, 3]))
    with pytest.raises(caseformat.CaseFailure, match="hand 1: table: expected 1, got 0"):
        run_case(_game_case(expect_table=1))


@pytest.mark.slow
def test_the_generated_show_down_cases_are_what_the_generator_writes() -> None:
    """The ``showdown-gen-*`` cases come from an independent brute force (about 20 s)."""
    script = Path(__file__).resolve().parents[2] / "tools" / "generate_showdowns.py"
    done = subprocess.run(
        [sys.executable, str(script), "--check"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_show_down_cases_cover_what_the_issue_asks() -> None:
    showdowns = [case for case in CASES if case.kind == "showdown"]
    assert len(showdowns) >= 60
    assert sum("one_of" in case.data["result"] for case in showdowns) >= 8, "ties"
    assert sum("knocker_melds" not in case.data for case in showdowns) >= 8, "R20 undeclared"
