"""OpenSpiel's ``gin_rummy`` through its conformance adapter (docs/adapters/openspiel_adapter.py):
the run completes, every failure is one of OpenSpiel's known rule differences (never the
adapter's own trouble), and the differences the README quotes are there. Needs open-spiel in this
Python: ``tox -e conformance-openspiel``."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from support import LEAGUE, gin_arena, installed_env

ROOT = Path(__file__).resolve().parents[2]
ADAPTER = ROOT / "docs" / "adapters" / "openspiel_adapter.py"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("pyspiel") is None,
        reason="open-spiel is not installed here (tox -e conformance-openspiel installs it)",
    ),
]

KNOWN = {
    "R3": "the eleven-card deadwood taken from the best eleven-card arrangement, not the least "
    "over the eleven discards",
    "R8": "the card just taken from the discard pile may be discarded",
    "R9": "a knock refused when only the exact eleven-card deadwood allows it",
    "R13": "a deadwood tie scores 0 for nobody, not an undercut (O4 hard-wired off)",
    "R20": "melds of at most five cards",
}
"""The rules OpenSpiel departs from, each with why: the failures must blame exactly these."""


def test_openspiel_fails_exactly_where_it_departs_from_the_rules() -> None:
    done = gin_arena(
        *("conformance", "--engine", f"{sys.executable} {ADAPTER}", "--json"),
        env=installed_env(),
        timeout=LEAGUE,
    )
    assert done.returncode == 1, done.stderr  # OpenSpiel fails some cases
    report = json.loads(done.stdout)
    assert report["engine"].startswith("OpenSpiel gin_rummy")
    failed = {c["id"]: c for c in report["cases"] if c["status"] == "fail"}
    unblamed = [c for c in failed.values() if c["blame"] is None]
    assert not unblamed, unblamed  # no adapter trouble, no malformed case
    assert report["totals"]["pass"] > report["totals"]["fail"]
    blamed = {rule for rule, counts in report["rules"].items() if counts["fail"]}
    assert blamed == set(KNOWN), (blamed, KNOWN)
    assert failed["undercut-on-tie"]["blame"] == "R13"
    assert 'got "knock"' in failed["undercut-on-tie"]["message"]
    assert failed["taken-card-may-not-be-discarded"]["blame"] == "R8"
    assert failed["knock-legal-by-exact-eleven-card-deadwood"]["blame"] == "R9"
    drawn = {c["id"]: c for c in report["cases"]}["stock-exhausted-drawn-isolated"]
    assert drawn["status"] == "pass", "R11 at the wall: OpenSpiel agrees on a gin-free deal"
