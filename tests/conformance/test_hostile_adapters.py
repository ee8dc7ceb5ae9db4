"""``gin-arena conformance`` against adapters that attack it (adapters/hostile.py): whatever an
adapter answers, the case at hand fails with a message that says what was wrong and the run goes
on; what an adapter leaves behind ends with it; an adapter that stops answering stops the run; and
nothing it writes reaches the terminal unescaped. In process, any answer at all is judged."""

from __future__ import annotations

import copy
import json
import os
import shlex
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import bound, gin_arena, installed_env

from arena.conformance import caseformat, runner
from arena.conformance.reference import ReferenceEngine

HOSTILE = Path(__file__).resolve().parent / "adapters" / "hostile.py"
CASES, _ = caseformat.load_cases()
DEALS = [case.id for case in CASES if case.kind == "deal"]
SOLVERS = [case.id for case in CASES if case.kind == "solver"]
ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x9b31m\u202e"  # as hostile.py writes them
RAW = ("\x1b", "\x07", "\x9b", "\u202e")


def hostile(*args: str) -> str:
    return shlex.join([sys.executable, str(HOSTILE), *args])


def conformance(*args: str) -> subprocess.CompletedProcess[str]:
    # The timeout only stops a hung test: the run itself waits on nothing.
    done = gin_arena("conformance", *args, env=installed_env(), timeout=bound(300))
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    return done


def report(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(done.stdout)
    return data


@pytest.mark.parametrize(
    ("attack", "message"),
    [
        (("deep",), "nesting deeper than 16 levels"),
        (("huge",), "wrote a line over 1048576 bytes, starting 'xxxx"),
        (("not-utf8",), "not UTF-8 (invalid start byte at byte 26)"),
        (("nan",), "NaN is not a JSON number"),
        (("big-number",), "integer with 100000 digits (at most 19)"),
        (("extra-line",), "wrote more than one line for one request"),
        (("corrupt", "game", "[]"), "deal answered game []: not an object"),
        (("corrupt", "splitmix64", '"5"'), 'deal answered splitmix64 "5": not a list'),
    ],
)
def test_a_bad_answer_fails_its_case_and_says_what_was_wrong(
    attack: tuple[str, ...], message: str
) -> None:
    done = conformance("--engine", hostile(*attack), "--tag", "deal", "--json")
    assert done.returncode == 1, done.stderr
    cases = report(done)["cases"]
    assert [case["id"] for case in cases] == DEALS, "every case was run"
    for case in cases:
        assert case["status"] == "fail"
        assert message in case["message"], case["message"]
        assert "malformed case" not in case["message"]


def test_an_answer_without_a_newline_is_named() -> None:
    done = conformance("--engine", hostile("no-newline"), "--name", DEALS[0], "--timeout", "2")
    assert done.returncode == 1
    assert 'did not answer within 2 s (it wrote \'{"ok": true' in done.stdout
    assert "and no newline)" in done.stdout


def processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if marker.encode() in argv:
                found.append(int(entry.name))
    return found


@pytest.fixture
def marker() -> Iterator[str]:
    mark = f"hostile-child-{uuid.uuid4().hex}"
    yield mark
    for pid in processes_with(mark):  # what the test would leave behind when it fails
        os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to find processes")
def test_a_child_that_holds_the_adapters_output_ends_with_it(marker: str) -> None:
    # Every adapter process starts a child in a session of its own that holds its output open, and
    # exits at once. Each case fails as soon as the adapter is gone: had the kit waited for the
    # end of the output, the message would be the timeout's.
    done = conformance(
        "--engine", hostile("setsid", marker), "--tag", "deal", "--timeout", "60", "--json"
    )
    assert done.returncode == 1, done.stderr
    cases = report(done)["cases"]
    assert [case["id"] for case in cases] == DEALS
    for case in cases:
        assert case["status"] == "fail"
        assert "the adapter ended (exit code 3) without answering" in case["message"]
    assert processes_with(marker) == []


def test_an_adapter_that_stops_answering_stops_the_run() -> None:
    done = conformance(
        "--engine", hostile("hang"), "--tag", "solver", "--timeout", "2", "--max-timeouts", "2"
    )
    assert done.returncode == 1
    out = done.stdout
    assert out.count("did not answer within 2 s") == 2
    assert "STOPPED: the adapter stopped answering: 2 requests in a row" in out
    assert f"{len(SOLVERS) - 2} cases not run: {', '.join(SOLVERS[2:])}" in out
    assert "--max-timeouts" in out
    last = out.strip().splitlines()[-1]
    not_run = len(SOLVERS) - 2
    assert last.startswith(f"0 passed, 2 failed, 0 skipped, {not_run} not run of {len(SOLVERS)}")


def test_a_negative_limit_is_a_usage_error() -> None:
    done = conformance("--engine", hostile("hang"), "--max-timeouts", "-1")
    assert done.returncode == 2
    assert "--max-timeouts must be 0 (never stop) or more, not -1" in done.stderr


def test_the_json_report_names_the_cases_not_run() -> None:
    limits = ("--timeout", "2", "--max-timeouts", "1")
    done = conformance("--engine", hostile("hang"), "--tag", "solver", *limits, "--json")
    assert done.returncode == 1
    data = report(done)
    assert data["not_run"] == SOLVERS[1:]
    assert "stopped answering" in data["stopped"]
    assert data["totals"] == {"pass": 0, "fail": 1, "skip": 0}


def test_nothing_an_adapter_writes_reaches_the_terminal_raw() -> None:
    done = conformance("--engine", hostile("escapes"), "--tag", "deal")
    assert done.returncode == 1
    for text in (done.stdout, done.stderr):
        assert not any(char in text for char in RAW), text
    assert "engine: evil\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\u202e" in done.stdout
    assert "refused: bad_request\\x1b]0;pwned" in done.stdout
    assert "its stderr ends: stderr\\x1b]0;pwned" in done.stdout


def test_the_json_report_keeps_what_the_adapter_wrote_exactly() -> None:
    done = conformance("--engine", hostile("escapes"), "--tag", "deal", "--json")
    assert done.returncode == 1
    assert not any(char in done.stdout for char in RAW)  # JSON escapes them its own way
    data = report(done)
    assert data["engine"] == f"evil{ESCAPES}"
    messages = [case["message"] for case in data["cases"]]
    assert f"deal refused: bad_request{ESCAPES}: {ESCAPES}" in messages
    assert any(m.endswith(f"its stderr ends: stderr{ESCAPES}") for m in messages), messages


# -- any answer, in process -----------------------------------------------------------------------

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)  # what parse_json lets through
    | st.text(max_size=8)
    | st.sampled_from(["AS", "TD", "10h", "knock", "draw stock", "discard AS", "R8", "gin"])
)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=6) | st.sampled_from(["card", "meld", "end"]), inner)
    ),
    max_leaves=12,
)


def places(value: object, top: bool = True) -> Iterator[tuple[Any, Any]]:
    """Every (container, key) in a response but its ``ok``."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not (top and key == "ok"):
                yield value, key
            yield from places(item, top=False)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield value, index
            yield from places(item, top=False)


class Spoiler:
    """This project's engine, with some of its answers spoiled anywhere: a value replaced by any
    JSON value or a member left out."""

    name = "spoiler"

    def __init__(self, data: st.DataObject) -> None:
        self.engine = ReferenceEngine()
        self.data = data

    def call(self, request: Mapping[str, Any]) -> dict[str, Any]:
        response = copy.deepcopy(self.engine.call(request))
        spots = list(places(response))
        if spots and self.data.draw(st.integers(0, 3)) == 0:
            container, key = self.data.draw(st.sampled_from(spots))
            if isinstance(container, dict) and self.data.draw(st.booleans()):
                del container[key]
            else:
                container[key] = self.data.draw(JSON)
        return response


@pytest.mark.parametrize(
    "case_id",
    [
        "hollywood-bonus-per-game",
        "three-player-first-dealer-from-seed",
        "showdown-gen-01-chain-down-two-up-one",
        "big-gin-declared-melds",
        "taken-card-from-opponent-discard",
        "solver-eleven-cards-best-discards",
        "meld-ace-low-runs",
        "deal-seed-0",
    ],
)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_answer_is_judged_and_blamed_on_the_engine(case_id: str, data: st.DataObject) -> None:
    case = next(case for case in CASES if case.id == case_id)
    outcome = runner.run_case(case, Spoiler(data))
    assert outcome.status in ("pass", "fail", "skip")
    if outcome.status == "fail":
        assert outcome.where != "format", outcome.message
        assert "runner failed" not in outcome.message, outcome.message
