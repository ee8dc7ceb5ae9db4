"""What an engine under test has, as its adapter declares in ``hello`` (docs/CONFORMANCE.md,
"Capabilities: what the engine has"), and which cases and checks that rules out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from arena.conformance.caseformat import (
    GAME_RESULT_KEYS,
    MODES,
    RESULT_KEYS,
    STATE_KEYS,
    Case,
)
from arena.errors import ArenaError
from engine.rules import Rules, RulesError, option_ids, option_names

OPS: Final = (
    "hand",
    "apply",
    "legal",
    "state",
    "result",
    "game",
    "seating",
    "next_seat",
    "next_hand",
    "game_result",
    "deadwood",
    "meld",
    "deal",
    "showdown",
)
"""The ops a case may need (``hello`` and ``quit`` are always answered)."""
_KIND_OPS: Final = {  # each kind's own op first
    "hand": ("hand", "result"),
    "game": ("game", "seating", "game_result", "result"),
    "showdown": ("showdown",),
    "solver": ("deadwood",),
    "meld": ("meld",),
    "deal": ("deal",),
}
_LIST_KEYS: Final = {
    "ops": OPS,
    "modes": tuple(MODES),
    "options": option_names(),
    "state_keys": STATE_KEYS,
    "result_keys": RESULT_KEYS,
    "game_result_keys": GAME_RESULT_KEYS,
}
_ALSO_ACCEPTED: Final = {"ops": ("hello", "quit"), "state_keys": ("stock",)}
"""Names an adapter may list that declare nothing: the ops every adapter answers, and the
``stock`` every state gives."""
_BOOL_KEYS: Final = ("first_upcard", "rule_ids", "declared_melds")


class CapabilityError(ArenaError, ValueError):
    """An adapter's ``hello`` declares its capabilities in a form the kit cannot read."""


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What the engine has; every field's default is "all of it"."""

    ops: frozenset[str] = frozenset(OPS)
    modes: frozenset[str] = frozenset(MODES)
    options: frozenset[str] = frozenset(option_names())
    first_upcard: bool = True
    rule_ids: bool = True
    declared_melds: bool = True
    state_keys: frozenset[str] = frozenset(STATE_KEYS)
    result_keys: frozenset[str] = frozenset(RESULT_KEYS)
    game_result_keys: frozenset[str] = frozenset(GAME_RESULT_KEYS)

    @classmethod
    def from_hello(cls, hello: Mapping[str, Any]) -> Capabilities:
        """The capabilities a ``hello`` response declares (with version 1's top-level
        ``rule_ids``); raises :class:`CapabilityError` naming what is wrong."""
        declared = hello.get("capabilities", {})
        if not isinstance(declared, Mapping):
            raise CapabilityError(f"hello's capabilities must be an object, not {declared!r}")
        known = (*_LIST_KEYS, *_BOOL_KEYS)
        unknown = sorted(set(declared) - set(known))
        if unknown:
            raise CapabilityError(
                f"hello declares unknown capabilities {unknown}; the kit knows {', '.join(known)}"
            )
        changes: dict[str, Any] = {}
        for key, allowed in _LIST_KEYS.items():
            if key not in declared:
                continue
            values = declared[key]
            if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
                raise CapabilityError(f"capabilities.{key} must be a list of names, not {values!r}")
            strange = sorted(set(values) - set(allowed) - set(_ALSO_ACCEPTED.get(key, ())))
            if strange:
                raise CapabilityError(
                    f"capabilities.{key} names {strange}, which the kit does not know; "
                    f"choose among {', '.join(allowed)}"
                )
            changes[key] = frozenset(values) & frozenset(allowed)
        flags = {"rule_ids": hello["rule_ids"]} if "rule_ids" in hello else {}
        flags.update({key: declared[key] for key in _BOOL_KEYS if key in declared})
        for key, value in flags.items():
            if not isinstance(value, bool):
                raise CapabilityError(f"capabilities.{key} must be true or false, not {value!r}")
            changes[key] = value
        return dataclasses.replace(cls(), **changes)

    def missing(self) -> list[str]:
        """What the engine declared it lacks, one phrase each, for the report's header (``lacks:
        PHRASE``)."""
        lines = []
        for key, allowed in _LIST_KEYS.items():
            lacking = sorted(set(allowed) - getattr(self, key), key=allowed.index)
            if lacking:
                lines.append(f"{key.replace('_', ' ')} {', '.join(lacking)}")
        if not self.first_upcard:
            lines.append("a first upcard (R6)")
        if not self.rule_ids:
            lines.append("rule IDs in its rejections (judged on being rejections alone)")
        if not self.declared_melds:
            lines.append("melds declared by the knocker (R20)")
        return lines

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {key: sorted(getattr(self, key)) for key in _LIST_KEYS}
        data.update({key: getattr(self, key) for key in _BOOL_KEYS})
        return data

    def skip_reason(self, case: Case) -> str | None:
        """Why the engine cannot run ``case`` at all, or ``None``."""
        lacking = [op for op in needed_ops(case) if op not in self.ops]
        if lacking:  # the first: the kind's own op when it is missing, so reasons group by kind
            return f"the engine has no {lacking[0]} op (capabilities.ops)"
        mode = case.data.get("mode", "two-player") if case.kind == "game" else None
        if not self.declared_melds and declares_melds(case):
            return "the knocker cannot declare melds (capabilities.declared_melds)"
        if mode is not None and mode not in self.modes:
            return f"the engine plays no {mode} games (capabilities.modes)"
        if not self.first_upcard and "R6" in case.covers:
            return "the engine has no first upcard (capabilities.first_upcard), which R6 is about"
        changed = [name for name in changed_options(case) if name not in self.options]
        if changed:  # the first, so that reasons group
            name = changed[0]
            return (
                f"the engine cannot be set to another {option_ids()[name]} {name} "
                "(capabilities.options)"
            )
        return None


def needed_ops(case: Case) -> tuple[str, ...]:
    """The ops a case cannot be run without (``state`` for a refused action is optional)."""
    ops = list(_KIND_OPS.get(case.kind, ()))
    data = case.data
    if case.kind == "game":
        specs = data.get("hands", [])
        if isinstance(specs, list) and len(specs) > 1:
            ops += ["next_seat", "next_hand"]
        steps = [s for spec in specs if isinstance(spec, Mapping) for s in spec.get("steps", [])]
    else:
        steps = list(data.get("steps", [])) if case.kind == "hand" else []
    for step in steps:
        if not isinstance(step, Mapping):
            continue
        if "do" in step:
            ops.append("apply")
        elif "state" in step:
            ops.append("state")
        else:
            ops.append("legal")
    return tuple(dict.fromkeys(ops))


def declares_melds(case: Case) -> bool:
    """Whether a player of a case declares melds with a knock (``knock C / ...``). A show-down
    case's ``knocker_melds`` fix the arrangement it is about and are sent all the same."""
    specs = case.data.get("hands", []) if case.kind == "game" else [case.data]
    return any(
        isinstance(step, Mapping) and "/" in str(step.get("do", ""))
        for spec in specs
        if isinstance(spec, Mapping)
        for step in spec.get("steps", [])
    )


def changed_options(case: Case) -> tuple[str, ...]:
    """The options a case's rules set to another value than the default (none for a case with
    no rules, or rules the kit cannot read: the run reports those)."""
    spec = case.data.get("rules")
    if not isinstance(spec, Mapping):
        return ()
    try:
        rules = Rules.preset(str(spec.get("preset"))).with_options(spec.get("options", {}))
    except (RulesError, TypeError, ValueError):
        return ()
    default = Rules()
    return tuple(name for name in option_names() if getattr(rules, name) != getattr(default, name))
