"""Tests marked ``slow`` run only with ``--runslow`` (as ``tox -e slow`` does); the default run
skips them."""

from __future__ import annotations

import pytest


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
