"""The two lanes, and no test that fails on a busy machine.

Tests marked ``slow`` run only with ``--runslow`` (as ``tox -e slow`` does); the default run, the
fast lane a developer runs between edits, skips them. Hypothesis never judges the wall clock here:
its per-example deadline (200 ms by default) and its too-slow health check fail a correct test when
other processes load the machine, so both are off for every test.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "gin-rummy-arena", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("gin-rummy-arena")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--runslow", action="store_true", default=False, help="also run tests marked slow"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--runslow"):
        return
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
