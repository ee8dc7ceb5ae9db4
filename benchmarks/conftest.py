"""The test suite's lanes (``--runslow``), hypothesis's profile and ``tmp_path`` here too:
``tox -e bench`` collects benchmarks/ alone, without ``tests/conftest.py``; a plain ``pytest``
collects both (``testpaths``), and ``tests/lanes.py`` then adds the option and marks once."""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "tests"
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from lanes import pytest_addoption, pytest_collection_modifyitems, tmp_path  # noqa: E402

__all__ = ["pytest_addoption", "pytest_collection_modifyitems", "tmp_path"]
