"""The examples in the README and in every module's docstrings run as doctests.

Every module of the four packages is found by walking them, so a new module's examples run without
an edit here. A module that needs an optional dependency (the ``rl``, ``report`` or ``ray`` extras)
is skipped, saying which, where that dependency is not installed.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "protocol", "bots", "arena")
OPTIONAL = frozenset({"gymnasium", "pettingzoo", "numpy", "matplotlib", "ray"})
"""The top-level modules of the optional extras (pyproject.toml)."""


def modules(package: str) -> list[str]:
    """``package`` and every module under it, by name; ``__main__`` modules run a program when
    imported, so they are left out. A sub-package that cannot be imported is listed without its
    modules: its own test then says why."""
    root = importlib.import_module(package)
    found = [package]
    for info in pkgutil.walk_packages(root.__path__, f"{package}.", onerror=lambda name: None):
        if info.name.rpartition(".")[2] != "__main__":
            found.append(info.name)
    return found


def import_or_skip(name: str) -> ModuleType:
    """The module ``name``, or a skip naming the optional dependency it lacks."""
    try:
        return importlib.import_module(name)
    except ImportError as error:
        cause: BaseException | None = error
        while cause is not None:  # bots.encoding re-raises numpy's error with advice
            if isinstance(cause, ModuleNotFoundError) and cause.name is not None:
                missing = cause.name.partition(".")[0]
                if missing in OPTIONAL:
                    pytest.skip(f"{name} needs {missing}, an optional dependency not installed")
            cause = cause.__cause__
        raise


MODULES = [name for package in PACKAGES for name in modules(package)]


def test_every_package_is_walked() -> None:
    for package in PACKAGES:
        assert len([m for m in MODULES if m.startswith(f"{package}.")]) >= 3, package


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(import_or_skip(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_readme_examples() -> None:
    readme = ROOT / "README.md"
    result = doctest.testfile(
        str(readme), module_relative=False, optionflags=doctest.ELLIPSIS, verbose=False
    )
    assert result.attempted > 5, "the README's Python examples were not found"
    assert result.failed == 0
