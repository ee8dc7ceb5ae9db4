"""The conformance kit as its users run it: ``gin-arena conformance`` on this engine, on this engine
behind the adapter protocol in a subprocess, on adapters that crash, hang, answer nonsense or get
rules wrong, on malformed case files; and the two JSON Schemas of docs/CONFORMANCE.md held against
the shipped cases and the protocol's real traffic."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from support import LEAGUE, ROOT, gin_arena, installed_env

from arena.conformance import caseformat, runner
from arena.conformance.reference import ReferenceEngine
from arena.conformance.remote import AdapterError, AdapterProcess, adapter_command

HERE = Path(__file__).resolve().parent
FAULTY = HERE / "adapters" / "faulty.py"
SCHEMAS = Path(caseformat.shipped_cases_dir()).parent
CASES, _ = caseformat.load_cases()


def conformance(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return gin_arena("conformance", *args, cwd=cwd, env=installed_env(), timeout=LEAGUE)


def faulty(mode: str, *more: str) -> str:
    return shlex.join([sys.executable, str(FAULTY), mode, *more])


# -- the command ---------------------------------------------------------------------------------


def test_every_shipped_case_passes_on_this_engine() -> None:
    done = conformance()
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0] == "engine: gin-rummy-arena"
    assert lines[-1] == f"{len(CASES)} passed, 0 failed, 0 skipped of {len(CASES)} cases"
    assert "no rule fails" in lines
    passing = next(line for line in lines if line.startswith("passing: ")).split()[1:]
    assert set(passing) == caseformat.known_ids(), "every rule and option ID passes"
    verbose = conformance("--verbose").stdout
    assert "\nR10 " in verbose and "\nO17 " in verbose, "--verbose: a row per rule ID"


def test_the_adapter_route_passes_every_case_in_a_subprocess() -> None:
    done = conformance("--engine", " ".join(adapter_command(sys.executable)), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["engine"].startswith("gin-rummy-arena ")
    assert report["totals"] == {"pass": len(CASES), "fail": 0, "skip": 0}
    assert {case["status"] for case in report["cases"]} == {"pass"}
    assert report["rules"]["R10"]["pass"] >= 5


@pytest.mark.parametrize(
    ("args", "check"),
    [
        (("--rule", "R8"), lambda c: "R8" in c["covers"]),
        (("--rule", "r8"), lambda c: "R8" in c["covers"]),
        (("--tag", "solver"), lambda c: c["kind"] == "solver"),
        (("--name", "big-gin*"), lambda c: c["id"].startswith("big-gin")),
        (
            ("--rule", "O17", "--tag", "game"),
            lambda c: "O17" in c["covers"] and c["kind"] == "game",
        ),
    ],
)
def test_the_filters_choose_cases(args: tuple[str, ...], check: Any) -> None:
    done = conformance(*args, "--json")
    assert done.returncode == 0, done.stderr
    chosen = json.loads(done.stdout)["cases"]
    assert chosen and all(check(case) for case in chosen)
    assert len(chosen) < len(CASES)


def test_no_case_matching_is_a_usage_error() -> None:
    done = conformance("--name", "no-such-case-*")
    assert done.returncode == 2
    assert "no case matches the filters given" in done.stderr
    done = conformance("--rule", "R99")
    assert done.returncode == 2
    assert "--rule R99: no such rule or option ID" in done.stderr


def test_a_failing_engine_exits_1_and_the_summary_names_the_rules() -> None:
    done = conformance("--engine", faulty("lenient"), "--rule", "R8")
    assert done.returncode == 1
    assert "FAIL " in done.stdout and "accepted, expected rejection with R8" in done.stdout
    row = next(line for line in done.stdout.splitlines() if line.startswith("R8 "))
    assert int(row.split()[1]) > 0, row  # failing cases blame R8
    assert row.split()[5:7] == ["001", "only"], "and the table says where R8 comes from"
    assert " 0 failed" not in done.stdout.splitlines()[-1]


def test_an_engine_that_supports_less_is_skipped_not_failed() -> None:
    done = conformance("--engine", faulty("no-games"), "--json")
    assert done.returncode == 0, done.stdout
    report = json.loads(done.stdout)
    games = [c for c in report["cases"] if c["kind"] == "game"]
    assert games and {c["status"] for c in games} == {"skip"}
    assert report["totals"]["skip"] == len(games)
    assert "no games here" in games[0]["message"]


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        (("crash", "3"), "the adapter closed its output (exit code 3); its stderr ends: faulty"),
        (
            ("garbage", "3"),
            "the adapter answered 'this is not JSON': not valid JSON (Expecting value",
        ),
        pytest.param(  # a second's wait and more: the slow lane
            ("hang", "3"), "the adapter did not answer within 1 s", marks=pytest.mark.slow
        ),
    ],
)
def test_a_broken_adapter_fails_the_case_at_hand_and_the_run_goes_on(
    mode: tuple[str, ...], message: str
) -> None:
    done = conformance("--engine", faulty(*mode), "--name", "deal-*", "--timeout", "1", "--json")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    statuses = [c["status"] for c in report["cases"]]
    assert len(statuses) >= 3
    failed = [c for c in report["cases"] if c["status"] == "fail"]
    assert failed and message in failed[0]["message"]
    assert report["totals"]["fail"] == len(failed)
    assert "pass" in statuses, "a fresh adapter took the later cases"


def test_an_adapter_that_cannot_start_is_reported_once() -> None:
    done = conformance("--engine", "/no/such/adapter --x")
    assert done.returncode == 2
    assert "cannot run the adapter '/no/such/adapter --x'" in done.stderr
    assert "Traceback" not in done.stderr


def test_wrong_legal_actions_are_named() -> None:
    done = conformance("--engine", faulty("wrong-legal"), "--name", "first-upcard-*")
    assert done.returncode == 1
    assert "legal actions: missing" in done.stdout


def test_malformed_case_files_fail_by_name_and_the_rest_run(tmp_path: Path) -> None:
    (tmp_path / "broken.json").write_text("{ not json", encoding="utf-8")
    good = next(c for c in CASES if c.kind == "meld")
    (tmp_path / f"{good.id}.json").write_text(json.dumps(dict(good.data)), encoding="utf-8")
    bad = {**dict(good.data), "id": "bad-kind", "kind": "poker"}
    (tmp_path / "bad-kind.json").write_text(json.dumps(bad), encoding="utf-8")
    done = conformance("--cases", str(tmp_path), "--json")
    assert done.returncode == 1
    report = {c["id"]: c for c in json.loads(done.stdout)["cases"]}
    assert report[good.id]["status"] == "pass"
    assert report["broken"]["status"] == "fail" and "cannot read" in report["broken"]["message"]
    assert "kind must be one of" in report["bad-kind"]["message"]


def test_a_missing_cases_path_is_a_usage_error(tmp_path: Path) -> None:
    done = conformance("--cases", str(tmp_path / "nothing"))
    assert done.returncode == 2 and "no such file or directory" in done.stderr


def test_coverage_lists_every_rule_id() -> None:
    done = conformance("--coverage")
    assert done.returncode == 0
    rows = {line.split()[0] for line in done.stdout.splitlines()}
    assert {f"R{n}" for n in range(1, 26)} <= rows


# -- the adapter process -------------------------------------------------------------------------


def test_the_adapter_process_restarts_after_a_failure() -> None:
    with AdapterProcess(faulty("crash", "2"), timeout=5) as adapter:
        assert adapter.call({"op": "hello", "version": 1})["ok"]
        with pytest.raises(AdapterError, match="closed its output"):
            adapter.call({"op": "legal"})
        assert adapter.call({"op": "hello", "version": 1})["name"] == "gin-rummy-arena"


def test_the_reference_engine_answers_bad_requests_without_raising() -> None:
    engine = ReferenceEngine()
    assert engine.call({"op": "nope"})["error"] == "bad_request"
    assert engine.call({"op": "legal"})["error"] == "bad_request"  # no hand yet
    answer = engine.call({"op": "hand", "rules": {"preset": "hoyle"}, "dealer": 0, "deck": []})
    assert answer["error"] == "bad_request"
    answer = engine.call({"op": "meld", "cards": ["AS", "AS", "AH"]})
    assert answer == {"ok": False, "error": "bad_request", "message": "meld: card AS given twice"}


# -- the schemas ---------------------------------------------------------------------------------


def validator(name: str, part: str | None = None) -> jsonschema.Draft202012Validator:
    schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    if part is not None:
        schema = {**schema, "oneOf": [{"$ref": f"#/$defs/{part}"}]}
    return jsonschema.Draft202012Validator(schema)


def test_every_shipped_case_follows_the_case_schema() -> None:
    check = validator("case.schema.json")
    for case in CASES:
        errors = [e.message for e in check.iter_errors(dict(case.data))]
        assert not errors, (case.id, errors[:3])


@pytest.mark.parametrize(
    "change",
    [
        {"kind": "poker"},
        {"covers": []},
        {"id": "Not An Id"},
        {"result": {"one_of": [{"end": "gin"}], "criterion": "x"}},
        {"result": {"points": -1}},
        {"colour": "red"},
    ],
)
def test_the_case_schema_rejects_what_the_runner_rejects(change: dict[str, Any]) -> None:
    base = next(c for c in CASES if c.kind == "showdown")
    data = {**dict(base.data), **change}
    assert not validator("case.schema.json").is_valid(data)
    assert runner.run_case(caseformat.Case(data, "x.json"), ReferenceEngine()).status == "fail"


class Recorder:
    """The reference engine, keeping every request and response."""

    name = "recorder"

    def __init__(self) -> None:
        self.engine = ReferenceEngine()
        self.traffic: list[tuple[Mapping[str, Any], dict[str, Any]]] = []

    def call(self, request: Mapping[str, Any]) -> dict[str, Any]:
        response = self.engine.call(request)
        self.traffic.append((request, response))
        return response


def test_the_protocol_traffic_of_every_case_follows_the_adapter_schema() -> None:
    recorder = Recorder()
    outcomes = list(runner.run_cases(CASES, recorder))
    assert {o.status for o in outcomes} == {"pass"}
    requests, responses = (
        validator("adapter.schema.json", "request"),
        validator("adapter.schema.json", "response"),
    )
    ops = set()
    for request, response in recorder.traffic:
        ops.add(request["op"])
        assert requests.is_valid(request), request
        assert responses.is_valid(response), (request, response)
    assert ops >= {"hand", "apply", "legal", "state", "result", "game", "seating", "next_seat"}
    assert ops >= {"next_hand", "game_result", "deadwood", "meld", "deal", "showdown"}


# -- verdicts by cause, capabilities, partial results, messages --------------------------------


def test_a_failure_blames_the_rule_of_its_check_and_the_case_s_other_ids_are_not_reached() -> None:
    done = conformance(
        "--engine", faulty("lenient"), "--name", "taken-card-may-not-be-discarded", "--json"
    )
    report = json.loads(done.stdout)
    cases = {c["id"]: c for c in report["cases"]}
    taken = cases["taken-card-may-not-be-discarded"]  # covers R8 R9 R6 R12; its R8 step fails
    assert taken["status"] == "fail" and taken["blame"] == "R8"
    assert taken["verdicts"] == {
        "R8": "fail",
        "R9": "not_reached",
        "R6": "not_reached",
        "R12": "not_reached",
    }
    assert report["rules"]["R12"]["fail"] == 0, "R12 is never blamed: no score differs"
    assert report["rules"]["R12"]["not_reached"] >= 1
    assert report["rules"]["R8"]["source"] == "001"


def test_the_default_output_puts_failures_first_and_fits_a_screen() -> None:
    done = conformance("--engine", faulty("lenient"))
    lines = done.stdout.splitlines()
    assert lines[0].startswith("engine: ")
    assert lines[2].startswith(("FIRST: ", "FAIL ")), lines[:3]
    table = lines.index(next(line for line in lines if line.startswith("rule ")))
    assert all(not line.startswith(("FAIL", "SKIP")) for line in lines[table:])
    assert len(lines) < 50, done.stdout


def test_a_failing_deal_is_said_first() -> None:
    done = conformance("--engine", faulty("swapped-deal"))
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[2].startswith("FIRST: the deal (R5) fails in "), lines[:3]
    assert lines[4].startswith("FAIL R5 "), lines[:5]


def test_what_a_refused_action_changed_is_named() -> None:
    done = conformance("--engine", faulty("changes-on-reject"), "--rule", "R6")
    assert done.returncode == 1
    assert "the rejected action changed the hand: hands[1] gained " in done.stdout
    assert "stock_size 31 -> 30" in done.stdout
    assert "None" not in done.stdout


def test_every_mismatching_key_is_named_and_a_missing_key_names_the_capability() -> None:
    done = conformance("--engine", faulty("drops-points"), "--tag", "hand")
    assert done.returncode == 1
    assert "points: the engine's result has no points" in done.stdout
    assert "capabilities.result_keys" in done.stdout
    assert "None" not in done.stdout


def test_capabilities_skip_whole_families_in_one_line_and_partial_results_pass() -> None:
    declared = {
        "modes": ["two-player"],
        "result_keys": ["end", "winner"],
        "first_upcard": False,
    }
    done = conformance("--engine", faulty("declares", json.dumps(declared)))
    assert done.returncode == 0, done.stdout
    lines = done.stdout.splitlines()
    assert "  lacks: modes hollywood, three-player, partnership" in lines
    assert "  lacks: a first upcard (R6)" in lines
    assert "  note: declared on purpose" in lines
    skips = [line for line in lines if line.startswith("SKIP ")]
    assert len(skips) == 5, skips  # R6, one line a format, partial results
    assert any("plays no three-player games" in line for line in skips)
    part = next(line for line in lines if line.startswith("PART "))
    assert "result's points" in part and "result's end" not in part
    report = json.loads(
        conformance("--engine", faulty("declares", json.dumps(declared)), "--json").stdout
    )
    assert report["capabilities"]["first_upcard"] is False
    cases = {c["id"]: c for c in report["cases"]}
    # a show-down case whose every check was of an uncomputed key is skipped, not passed
    lay_offs = cases["showdown-gen-01-chain-down-two-up-one"]
    assert lay_offs["status"] == "pass" or lay_offs["status"] == "skip"
    assert all(v in ("pass", "skip") for c in cases.values() for v in c["verdicts"].values())
    undercut = cases["undercut-on-tie"]  # end and winner are checked: R13 passes
    assert undercut["status"] == "pass" and undercut["verdicts"]["R13"] == "pass"


@pytest.mark.parametrize(
    ("capabilities", "message"),
    [
        ('{"modes": ["five-player"]}', "capabilities.modes names ['five-player']"),
        ('{"rule_ids": "no"}', "capabilities.rule_ids must be true or false"),
        ('{"colour": true}', "hello declares unknown capabilities ['colour']"),
    ],
)
def test_capabilities_the_kit_cannot_read_stop_the_run_with_the_reason(
    capabilities: str, message: str
) -> None:
    done = conformance("--engine", faulty("declares", capabilities))
    assert done.returncode == 2
    assert message in done.stderr


def test_an_unsupported_option_skips_the_cases_that_change_it() -> None:
    declared = {"options": ["knock_limit"]}
    report = json.loads(
        conformance(
            *("--engine", faulty("declares", json.dumps(declared)), "--json"),
            *("--name", "undercut-bonus-option", "--name", "knock-limit-option"),
        ).stdout
    )
    cases = {c["id"]: c for c in report["cases"]}
    assert cases["undercut-bonus-option"]["status"] == "skip"
    assert "O3 undercut_bonus" in cases["undercut-bonus-option"]["message"]
    assert cases["knock-limit-option"]["status"] == "pass"


def test_a_check_that_names_its_rule_blames_that_rule(tmp_path: Path) -> None:
    data = json.loads((SCHEMAS / "cases" / "knock-rejected-above-limit.json").read_text())
    step = next(s for s in data["steps"] if "legal" in s)
    step["rule"] = "O1"  # the engine below leaves an action out of every list
    data["result_rules"] = {"end": "O1"}
    assert not list(validator("case.schema.json").iter_errors(data))
    (tmp_path / "named.json").write_text(json.dumps(data))
    done = conformance("--engine", faulty("wrong-legal"), "--cases", str(tmp_path), "--json")
    (case,) = json.loads(done.stdout)["cases"]
    assert case["status"] == "fail" and case["blame"] == "O1", case
    del step["rule"]
    (tmp_path / "named.json").write_text(json.dumps(data))
    done = conformance("--engine", faulty("wrong-legal"), "--cases", str(tmp_path), "--json")
    (case,) = json.loads(done.stdout)["cases"]
    assert case["blame"] == "R7", "by default a missing discard blames R7 (a turn)"


def test_the_adapter_template_runs_as_shipped() -> None:
    """docs/adapters/template_adapter.py: its meld op passes, the rest is declared absent and
    skipped in a line a kind of case."""
    template = ROOT / "docs" / "adapters" / "template_adapter.py"
    done = conformance("--engine", shlex.join([sys.executable, str(template)]))
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "engine: template 0"
    assert any(line.startswith("  lacks: ops hand, apply") for line in lines)
    skips = [line for line in lines if line.startswith("SKIP ")]
    assert skips and len(skips) <= 6, skips
    hands = sum(case.kind == "hand" for case in CASES)
    assert f"SKIP {hands} cases: the engine has no hand op (capabilities.ops)" in skips
    melds = sum(case.kind == "meld" for case in CASES)
    assert lines[-1].startswith(f"{melds} passed, 0 failed, ")


def test_an_engine_that_forces_the_knock_is_blamed_on_r9() -> None:
    done = conformance("--engine", faulty("only-knocks"), "--name", "knock-never-obliged", "--json")
    (case,) = json.loads(done.stdout)["cases"]
    assert case["status"] == "fail" and case["blame"] == "R9", case


def test_an_engine_whose_knocker_cannot_declare_skips_those_cases_in_one_line() -> None:
    done = conformance("--engine", faulty("declares", '{"declared_melds": false}'), "--json")
    report = json.loads(done.stdout)
    declaring = {
        c.id
        for c in CASES
        if c.kind in ("hand", "game")
        and any("/" in str(s.get("do", "")) for s in c.data.get("steps", []))
    }
    skipped = {c["id"] for c in report["cases"] if c["status"] == "skip"}
    assert declaring and skipped == declaring
    reasons = {c["message"] for c in report["cases"] if c["status"] == "skip"}
    assert reasons == {"the knocker cannot declare melds (capabilities.declared_melds)"}


def test_three_failures_a_rule_are_shown_and_the_rest_counted() -> None:
    lines = conformance("--engine", faulty("wrong-legal"), "--tag", "hand").stdout.splitlines()
    failing = [line for line in lines if line.startswith("FAIL ")]
    by_rule: dict[str, list[str]] = {}
    for line in failing:
        by_rule.setdefault(line.split()[1], []).append(line)
    assert any(len(rows) == 4 for rows in by_rule.values()), failing
    for rows in by_rule.values():
        assert len(rows) <= 4
        if len(rows) == 4:
            assert rows[3].endswith("more cases (--verbose)") or rows[3].endswith(
                "more case (--verbose)"
            )
    verbose = conformance("--engine", faulty("wrong-legal"), "--tag", "hand", "--verbose").stdout
    assert verbose.count("\nFAIL ") > len(failing)
    assert "(--verbose)" not in verbose


def test_a_compulsory_gin_is_blamed_on_r9_never_on_the_turn() -> None:
    """An engine that makes gin compulsory (RLCard's) refuses every plain discard where gin is
    possible: the refusal's difference (only knocks offered where the case discards) is R9's,
    not R7's, whichever step of the case it comes at."""
    done = conformance("--engine", faulty("compulsory-gin"), "--tag", "hand", "--json")
    report = json.loads(done.stdout)
    failed = {c["id"]: c for c in report["cases"] if c["status"] == "fail"}
    assert failed, "no case reaches a gin-possible discard"
    refused = {
        i: c
        for i, c in failed.items()
        if "gin is compulsory" in c["message"] and '{"do": "discard' in c["where"]
    }
    assert len(refused) >= 5 and {c["blame"] for c in refused.values()} == {"R9"}, refused
    assert "R7" not in {c["blame"] for c in failed.values()}, failed


def test_a_knock_whose_discard_is_not_laid_is_blamed_on_the_knock() -> None:
    done = conformance("--engine", faulty("knock-unlaid"), "--tag", "hand", "--json")
    failed = [c for c in json.loads(done.stdout)["cases"] if c["status"] == "fail"]
    on_pile = [c for c in failed if "discard_top" in c["message"] or "discard_pile" in c["message"]]
    assert on_pile and {c["blame"] for c in on_pile} == {"R9"}, on_pile


def test_the_refusal_rule_reads_the_difference() -> None:
    from arena.conformance.blame import HandProgress, refusal_rule

    progress = HandProgress.dealt("9S")
    progress.done("draw stock")
    assert refusal_rule("discard 9S", progress, ["knock 2C", "knock 3C"], None) == "R9"
    assert refusal_rule("discard 9S", progress, ["discard 2C"], None) == "R7"
    assert refusal_rule("discard 9S", progress, ["discard 2C"], "R11") == "R11"
    assert refusal_rule("discard 9S", progress, None, None) == "R7"
