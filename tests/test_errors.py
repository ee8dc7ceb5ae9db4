"""One error root per package: every exception class defined in engine/, protocol/, bots/ and
arena/ is its package's root (``except EngineError`` catches a whole layer) and a ``ValueError``
or a ``RuntimeError`` (so every ``except ValueError`` written before the roots still catches it).

The walk finds new modules and classes by itself; one walk serves the four packages.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

from arena.errors import ArenaError
from bots import BotsError
from engine import EngineError, GameError, IllegalAction, RulesError
from protocol import ProtocolError

ROOTS: dict[str, type[Exception]] = {
    "engine": EngineError,
    "protocol": ProtocolError,
    "bots": BotsError,
    "arena": ArenaError,
}
PRIVATE = {
    "protocol.codec._Malformed": "never leaves protocol.codec.parse_json, which turns it into "
    "InvalidJson; deliberately not a ValueError, so as not to pass for the JSON parser's own",
    "arena.records.judge._Stop": "the judge's own signal to stop at a disagreement, caught in "
    "arena.records.judge and returned as a verdict",
    "arena.cli.sprt.Decided": "a BaseException on purpose: the SPRT's decision stops the games "
    "through every except Exception of the tournament it runs, and is caught by the command",
    "arena.conformance.caseformat.CaseFailure": "an AssertionError: a conformance case an engine "
    "fails, reported by the runner, never raised out of it",
    "arena.conformance.caseformat.CaseSkipped": "a case the engine does not support, reported by "
    "the runner as skipped, never raised out of it",
}
"""Exception classes exempt from the rule, each with the reason."""


OPTIONAL = frozenset({"gymnasium", "pettingzoo", "numpy", "matplotlib", "ray"})
"""The top-level modules of the optional extras (pyproject.toml)."""


def lacks_an_extra(error: ImportError) -> bool:
    """Whether ``error`` comes of an optional dependency not installed."""
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, ModuleNotFoundError) and cause.name is not None:
            return cause.name.partition(".")[0] in OPTIONAL
        cause = cause.__cause__
    return False


def exception_classes(package: str) -> list[type[BaseException]]:
    """Every exception class defined (not merely imported) in ``package``'s modules; a module
    that needs an optional dependency not installed is left out."""
    root = importlib.import_module(package)
    names = [package] + [m.name for m in pkgutil.walk_packages(root.__path__, f"{package}.")]
    found = []
    for name in names:
        if name.rpartition(".")[2] == "__main__":
            continue
        try:
            module = importlib.import_module(name)
        except ImportError as error:
            if lacks_an_extra(error):  # bots.encoding and bots.policy need numpy (the rl extra)
                continue
            raise
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, BaseException) and value.__module__ == name:
                found.append(value)
    return found


@pytest.mark.parametrize("package", sorted(ROOTS))
def test_every_error_has_its_package_root_and_a_builtin_base(package: str) -> None:
    root = ROOTS[package]
    classes = exception_classes(package)
    assert root in classes, f"{root.__qualname__} is not defined in {package}"
    for cls in classes:
        name = f"{cls.__module__}.{cls.__qualname__}"
        if name in PRIVATE or cls in (EngineError, BotsError, ArenaError):
            continue  # these two roots stand beside the built-ins (the test below)
        assert issubclass(cls, root), f"{name} does not subclass {root.__qualname__}"
        assert issubclass(cls, (ValueError, RuntimeError)), f"{name} is no ValueError/RuntimeError"
    assert len(classes) > 1, f"{package}: the walk found no error but the root"


def test_an_engine_root_is_no_builtin_error_itself() -> None:
    # The root sits beside the built-in bases, so that ValueErrors and RuntimeErrors can share it.
    assert not issubclass(EngineError, (ValueError, RuntimeError))
    assert not issubclass(BotsError, (ValueError, RuntimeError))
    assert not issubclass(ArenaError, (ValueError, RuntimeError))


def test_the_roots_catch_a_layer_and_the_builtins_still_catch_each_error() -> None:
    with pytest.raises(EngineError):
        raise RulesError("bad option")
    with pytest.raises(ValueError):
        raise IllegalAction("R7", "not your card")
    with pytest.raises(RuntimeError):
        raise GameError("the game is over")
    for cls in (RulesError, IllegalAction, GameError):
        assert issubclass(cls, EngineError)
        assert not issubclass(cls, (ProtocolError, BotsError))
