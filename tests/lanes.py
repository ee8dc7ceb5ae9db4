"""The two lanes, and no test that fails on a busy machine: the pytest hooks and fixtures of the
test suite, shared by ``tests/conftest.py`` and ``benchmarks/conftest.py`` (a plain ``pytest``
collects ``tests/`` and ``benchmarks/`` together; ``tox -e bench`` collects ``benchmarks/`` alone).

Tests marked ``slow`` run only with ``--runslow`` (as ``tox -e slow`` does); the default run, the
fast lane a developer runs between edits, skips them. Hypothesis never judges the wall clock here:
its per-example deadline (200 ms by default) and its too-slow health check fail a correct test when
other processes load the machine, so both are off for every test.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "gin-rummy-arena", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("gin-rummy-arena")

_SLOW_MARKED = pytest.StashKey[bool]()


def pytest_addoption(parser: pytest.Parser) -> None:
    with contextlib.suppress(ValueError):  # the run's other conftest has added it
        parser.addoption(
            "--runslow", action="store_true", default=False, help="also run tests marked slow"
        )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Called once for each conftest that imports it, with every item of the run: mark them once.
    if config.getoption("--runslow") or config.stash.get(_SLOW_MARKED, False):
        return
    config.stash[_SLOW_MARKED] = True
    skip = pytest.mark.skip(reason="slow: run with --runslow (tox -e slow)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def tmp_path(tmp_path: Path) -> Path:
    """pytest's own, readable by all users as a user's directories usually are (pytest makes it
    readable by its owner alone): when the tests run as root, the sandbox runs bots as nobody,
    which must be able to read the bots the tests write there."""
    tmp_path.chmod(0o755)
    return tmp_path
