"""The test suite's pytest configuration: the lanes (``--runslow``), hypothesis's profile and a
``tmp_path`` the sandbox's user can read, from ``lanes.py`` (which ``benchmarks/conftest.py``
shares). pytest puts this directory on ``sys.path`` (there is no ``__init__.py``), so every test
folder imports ``lanes`` and ``support`` (running the command line, timeouts) by name.
"""

from __future__ import annotations

from lanes import pytest_addoption, pytest_collection_modifyitems, tmp_path

__all__ = ["pytest_addoption", "pytest_collection_modifyitems", "tmp_path"]
