"""RLCard's gin rummy through its conformance adapter (docs/adapters/rlcard_adapter.py, written
from docs/CONFORMANCE.md alone): the run completes, every failure blames one of RLCard's known
departures from the rules (never the adapter's own trouble), and nothing else fails. Needs rlcard
in this Python: ``tox -e conformance-rlcard``."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from support import LEAGUE, gin_arena, installed_env

ROOT = Path(__file__).resolve().parents[2]
ADAPTER = ROOT / "docs" / "adapters" / "rlcard_adapter.py"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("rlcard") is None,
        reason="rlcard is not installed here (tox -e conformance-rlcard installs it)",
    ),
]

KNOWN = {
    "R8": "a knock may discard the card just taken from the discard pile",
    "R9": "gin is compulsory: where gin is possible, it is the only legal action",
    "R10": "no lay-offs: each hand is scored on its own",
    "R11": "at the stock floor the next player may still take the last discard",
    "R13": "no undercut: the knocker is rewarded whatever the deadwoods",
    "R20": "the first of its best meld clusters, with no tie-break of exposed cards",
}
"""The rules RLCard departs from, each with why: the failures must blame exactly these."""


def test_rlcard_fails_exactly_where_it_departs_from_the_rules() -> None:
    done = gin_arena(
        *("conformance", "--engine", f"{sys.executable} {ADAPTER}", "--json"),
        env=installed_env(),
        timeout=LEAGUE,
    )
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["engine"].startswith("RLCard gin_rummy")
    assert report["capabilities"]["first_upcard"] is False
    failed = {c["id"]: c for c in report["cases"] if c["status"] == "fail"}
    unblamed = [c for c in failed.values() if c["blame"] is None]
    assert not unblamed, unblamed  # no adapter trouble, no malformed case
    blamed = {rule for rule, counts in report["rules"].items() if counts["fail"]}
    assert blamed == set(KNOWN), (blamed, KNOWN)
    assert failed["knock-never-obliged"]["blame"] == "R9"
    assert failed["taken-card-may-not-be-knocked-with"]["blame"] == "R8"
    assert failed["stock-exhausted-drawn-isolated"]["blame"] == "R11"
    cases = {c["id"]: c for c in report["cases"]}
    assert cases["turn-limit-drawn-isolated"]["status"] == "pass", "R17 agrees on a gin-free deal"


def test_the_default_output_of_rlcard_fits_one_screen_failures_first() -> None:
    done = gin_arena(
        *("conformance", "--engine", f"{sys.executable} {ADAPTER}"),
        env=installed_env(),
        timeout=LEAGUE,
    )
    lines = done.stdout.splitlines()
    first = next(n for n, line in enumerate(lines) if line.startswith(("FIRST", "FAIL", "SKIP")))
    assert lines[first].startswith("FAIL "), lines[: first + 1]
    assert len(lines) <= 55, done.stdout
