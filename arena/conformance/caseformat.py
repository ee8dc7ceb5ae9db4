"""The case format of docs/CONFORMANCE.md: what a case is, loading the case files, selecting
cases, checking each against the format, and the tables of rule and option IDs a run reports.

How the fields are read when a case is run is in :mod:`arena.conformance.compare` (cards, decks,
comparisons) and :mod:`arena.conformance.runner` (the requests sent to the engine under test).
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Final

from engine.rules import option_ids

RULE_IDS: Final = tuple(f"R{n}" for n in range(1, 26))
"""The rule IDs R1..R25 of docs/RULES.md."""
KINDS: Final = ("hand", "game", "showdown", "solver", "meld", "deal")
MODES: Final = {"two-player": 2, "hollywood": 2, "three-player": 3, "partnership": 4}
"""The formats a ``game`` case may name (``"mode"``), with how many players each seats."""
HOLLYWOOD_GAMES: Final = 3
"""How many games a Hollywood result holds (R23)."""

_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
STATE_KEYS: Final = (
    "phase",
    "to_move",
    "dealer",
    "turn",
    "stock_size",
    "stock_top",
    "discard_top",
    "discard_pile",
    "knock_limit",
    "taken_card",
    "hands",
)
RESULT_KEYS: Final = (
    "end",
    "winner",
    "points",
    "doubled",
    "knocker_deadwood",
    "defender_deadwood",
    "laid_off",
    "knocker_melds",
    "knocker_deadwood_cards",
    "defender_melds",
    "defender_deadwood_cards",
    "lay_offs",
)
GAME_RESULT_KEYS: Final = (
    "winner",
    "scores",
    "hands_won",
    "game_bonus",
    "line_bonus",
    "hand_points",
    "end",
)
_HOLLYWOOD_RESULT_KEYS = (*GAME_RESULT_KEYS, "games")
_DEAL_KEYS = frozenset(
    {"hands", "upcard", "stock", "expect_dealer", "expect_players", "expect_table"}
)
_STEP_KEYS = (
    frozenset({"do"}),
    frozenset({"do", "error"}),
    frozenset({"legal"}),
    frozenset({"legal_includes"}),
    frozenset({"legal_excludes"}),
    frozenset({"state"}),
)
_SHOWDOWN_KEYS = frozenset(
    {
        "rules",
        "knocker_cards",
        "discard",
        "knocker_melds",
        "discard_pile",
        "first_upcard",
        "defender_cards",
        "result",
        "result_rules",
    }
)
_COMMON_KEYS = frozenset({"id", "title", "covers", "kind", "notes", "tags"})


class CaseFailure(AssertionError):
    """A case failed: the engine disagrees with it, or the case itself is malformed.

    ``where`` names the place in the case (``"hand 2, step 5 {'do': 'knock 7H'}"``); ``rule``
    is the rule or option the failing check tests (``None``: a failure that is no rule's, such
    as an adapter that crashed or a malformed case)."""

    def __init__(self, case_id: str, where: str, message: str, rule: str | None = None) -> None:
        text = f"{case_id}: {where}: {message}" if where else f"{case_id}: {message}"
        super().__init__(text)
        self.case_id = case_id
        self.where = where
        self.message = message
        self.rule = rule


class CaseSkipped(Exception):
    """The engine under test does not support what the case needs (``unsupported``)."""


@dataclass(frozen=True, slots=True)
class Case:
    """One case as read from its file."""

    data: Mapping[str, Any]
    path: str

    @property
    def id(self) -> str:
        return str(self.data.get("id", f"<no id in {Path(self.path).name}>"))

    @property
    def kind(self) -> str:
        return str(self.data.get("kind", ""))

    @property
    def covers(self) -> tuple[str, ...]:
        covers = self.data.get("covers", ())
        return tuple(str(c) for c in covers) if isinstance(covers, list) else ()

    @property
    def title(self) -> str:
        return str(self.data.get("title", ""))

    @property
    def tags(self) -> tuple[str, ...]:
        """The case's ``tags`` and its kind (``--tag showdown`` selects every show-down)."""
        tags = self.data.get("tags", ())
        return (self.kind, *(str(t) for t in tags)) if isinstance(tags, list) else (self.kind,)


VERDICTS: Final = ("fail", "pass", "not_reached", "skip")
"""What a case says of each ID it covers: failing (its failure blames it), passing, not reached
(the case failed before proving it) or skipped."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """How one case went: ``status`` is ``pass``, ``fail`` or ``skip``; ``blame`` the rule its
    failure blames (``None`` for a failure that is no rule's); ``skipped`` the checks the engine
    could not make (a partial result), each as ``(rule, reason)``."""

    case: Case
    status: str
    where: str = ""
    message: str = ""
    blame: str | None = None
    skipped: tuple[tuple[str | None, str], ...] = ()
    passed: frozenset[str] = frozenset()
    """The rules of the checks that passed (a partial case keeps these IDs passing)."""

    def verdicts(self) -> dict[str, str]:
        """The verdict on each ID the case covers, and on the rule its failure blames."""
        if self.status == "fail":
            table = {rule_id: "not_reached" for rule_id in self.case.covers}
            if self.blame is not None:
                table[self.blame] = "fail"
            return table
        if self.status == "skip":
            return {rule_id: "skip" for rule_id in self.case.covers}
        unproven = {rule for rule, _ in self.skipped} - self.passed
        return {rule_id: "skip" if rule_id in unproven else "pass" for rule_id in self.case.covers}

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.case.id,
            "kind": self.case.kind,
            "covers": list(self.case.covers),
            "status": self.status,
            "blame": self.blame,
            "verdicts": self.verdicts(),
            "where": self.where,
            "message": self.message,
            "skipped_checks": [{"rule": rule, "reason": why} for rule, why in self.skipped],
        }


# ---------------------------------------------------------------------------------------------
# Loading and checking the format.


def shipped_cases_dir() -> Path:
    """The cases installed with the package."""
    return Path(str(resources.files("arena.conformance").joinpath("cases")))


def load_cases(*paths: Path | str) -> tuple[list[Case], list[Outcome]]:
    """Every case in the given files and directories (default: the shipped cases), sorted by
    id, and a failed outcome for each file that cannot be read as cases."""
    files: list[Path] = []
    for path in map(Path, paths or (shipped_cases_dir(),)):
        files.extend(sorted(path.glob("*.json")) if path.is_dir() else [path])
    cases: list[Case] = []
    broken: list[Outcome] = []
    for file in files:
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            bad = Case({"id": file.stem}, str(file))
            broken.append(Outcome(bad, "fail", "file", f"cannot read {file}: {error}"))
            continue
        items = data["cases"] if isinstance(data, dict) and "cases" in data else [data]
        if not isinstance(items, list):
            bad = Case({"id": file.stem}, str(file))
            broken.append(Outcome(bad, "fail", "file", f"{file}: cases must be a list"))
            continue
        cases.extend(Case(item if isinstance(item, Mapping) else {}, str(file)) for item in items)
    return sorted(cases, key=lambda case: case.id), broken


def known_ids() -> frozenset[str]:
    """The IDs a case may cover: R1..R25 and the option IDs of engine.rules."""
    return frozenset(RULE_IDS) | frozenset(option_ids().values())


def select(
    cases: Iterable[Case],
    *,
    rules: Sequence[str] = (),
    tags: Sequence[str] = (),
    names: Sequence[str] = (),
) -> list[Case]:
    """The cases that cover one of ``rules``, carry one of ``tags`` and whose id matches one of
    the ``names`` patterns (``fnmatch``); an empty filter selects everything."""
    wanted_rules = {r.upper() for r in rules}
    return [
        case
        for case in cases
        if (not wanted_rules or wanted_rules & set(case.covers))
        and (not tags or set(tags) & set(case.tags))
        and (not names or any(fnmatch.fnmatchcase(case.id, pattern) for pattern in names))
    ]


def check_format(case: Case) -> None:
    """Raise :class:`CaseFailure` if the case does not follow docs/CONFORMANCE.md's format."""
    data, cid = case.data, case.id

    def need(condition: bool, message: str) -> None:
        if not condition:
            raise CaseFailure(cid, "format", message)

    need(isinstance(data, Mapping) and bool(data), "a case is a JSON object")
    need(isinstance(data.get("id"), str) and bool(_ID.fullmatch(data["id"])), "bad or no id")
    need(isinstance(data.get("title"), str) and bool(data["title"]), "no title")
    covers = data.get("covers")
    if not isinstance(covers, list) or not covers:
        raise CaseFailure(cid, "format", "covers must be a non-empty list")
    unknown = sorted(set(map(str, covers)) - known_ids())
    need(not unknown, f"covers names unknown IDs {unknown}")
    need(case.kind in KINDS, f"kind must be one of {', '.join(KINDS)}")
    tags = data.get("tags", [])
    need(isinstance(tags, list) and all(isinstance(t, str) for t in tags), "tags is a list")
    if case.kind in ("hand", "game", "showdown"):
        rules = data.get("rules")
        need(isinstance(rules, Mapping) and "preset" in rules, "rules needs a preset")
    if case.kind == "hand":
        need("dealer" in data.get("deal", {}), "a hand's deal needs a dealer")
        _check_steps(cid, "", data.get("steps"))
        _check_result_format(cid, "result", data.get("result"))
        _check_rule_map(cid, "result_rules", data.get("result_rules"), RESULT_KEYS)
    need(case.kind == "game" or "mode" not in data, "only a game names a mode")
    if case.kind == "game":
        _check_game_format(cid, data)
    if case.kind == "showdown":
        unknown = sorted(set(data) - _SHOWDOWN_KEYS - _COMMON_KEYS)
        need(not unknown, f"unknown keys {unknown}")
        for key in ("knocker_cards", "defender_cards", "result"):
            need(key in data, f"a show-down needs {key}")
        need("discard" in data, "a show-down names the discard (null for big gin)")
        _check_result_format(cid, "result", data["result"])
        _check_rule_map(cid, "result_rules", data.get("result_rules"), RESULT_KEYS)


def _check_result_format(cid: str, where: str, result: object) -> None:
    if result is None:
        return
    if not isinstance(result, Mapping):
        raise CaseFailure(cid, "format", f"{where} must be an object")
    if "one_of" in result:
        choices = result["one_of"]
        if set(result) != {"one_of", "criterion"} or not isinstance(result["criterion"], str):
            raise CaseFailure(cid, "format", f"{where}: one_of goes with a criterion, alone")
        if not isinstance(choices, list) or len(choices) < 2:
            raise CaseFailure(cid, "format", f"{where}: one_of lists two results or more")
        for number, choice in enumerate(choices, 1):
            _check_result_format(cid, f"{where}, one_of {number}", choice)
            if "one_of" in choice:
                raise CaseFailure(cid, "format", f"{where}: one_of cannot nest")
        return
    unknown = sorted(set(result) - set(RESULT_KEYS))
    if unknown:
        raise CaseFailure(cid, "format", f"{where}: unknown result keys {unknown}")


def _check_game_format(cid: str, data: Mapping[str, Any]) -> None:
    def need(condition: bool, message: str) -> None:
        if not condition:
            raise CaseFailure(cid, "format", message)

    mode = data.get("mode", "two-player")
    need(mode in MODES, f"mode must be one of {', '.join(MODES)}")
    players = MODES[mode]
    hands = data.get("hands")
    if not isinstance(hands, list) or not hands:
        raise CaseFailure(cid, "format", "a game needs hands")
    need(isinstance(data.get("game_result"), Mapping), "a game needs a game_result")
    first_dealer = data.get("first_dealer")
    dealers = 2 if mode == "partnership" else players  # partnership: the dealing team
    need(
        first_dealer is None or first_dealer in range(dealers),
        f"first_dealer must be 0..{dealers - 1} in {mode}",
    )
    need(
        first_dealer is not None or "expect_dealer" in hands[0].get("deal", {}),
        "without first_dealer the first hand needs expect_dealer",
    )
    for index, spec in enumerate(hands, 1):
        deal = spec.get("deal", {})
        need("dealer" not in deal, f"hand {index}: the game picks the dealer")
        need(
            set(deal) <= _DEAL_KEYS,
            f"hand {index}: unknown deal keys {sorted(set(deal) - _DEAL_KEYS)}",
        )
        need(deal.get("expect_dealer", 0) in (0, 1), f"hand {index}: expect_dealer is a seat")
        need(deal.get("expect_table", 0) in (0, 1), f"hand {index}: expect_table is 0 or 1")
        seated = deal.get("expect_players", [0, 1])
        need(
            isinstance(seated, list)
            and len(seated) == 2
            and all(p in range(players) for p in seated)
            and seated[0] != seated[1],
            f"hand {index}: expect_players is two different players 0..{players - 1}",
        )
        _check_steps(cid, f"hand {index}, ", spec.get("steps"))
        _check_result_format(cid, f"hand {index}, result", spec.get("result"))
        _check_rule_map(cid, f"hand {index}, result_rules", spec.get("result_rules"), RESULT_KEYS)
    keys = _HOLLYWOOD_RESULT_KEYS if mode == "hollywood" else GAME_RESULT_KEYS
    _check_rule_map(cid, "game_result_rules", data.get("game_result_rules"), GAME_RESULT_KEYS)
    unknown = sorted(set(data["game_result"]) - set(keys))
    need(not unknown, f"game_result has unknown keys {unknown} for {mode}")
    games = data["game_result"].get("games", [{}] * HOLLYWOOD_GAMES)
    need(
        isinstance(games, list)
        and len(games) == HOLLYWOOD_GAMES
        and all(isinstance(g, Mapping) and set(g) <= set(GAME_RESULT_KEYS) for g in games),
        f"game_result.games is a list of {HOLLYWOOD_GAMES} game results",
    )


def _check_steps(cid: str, where: str, steps: object) -> None:
    if not isinstance(steps, list):
        raise CaseFailure(cid, "format", f"{where}steps must be a list")
    for index, step in enumerate(steps, 1):
        if not isinstance(step, dict) or frozenset(step) - {"rule"} not in _STEP_KEYS:
            raise CaseFailure(cid, "format", f"{where}step {index}: bad step {step!r}")
        if "rule" in step and step["rule"] not in known_ids():
            raise CaseFailure(
                cid, "format", f"{where}step {index}: rule {step['rule']!r} is no rule or option ID"
            )


def _check_rule_map(cid: str, where: str, rules: object, keys: Sequence[str]) -> None:
    """``result_rules`` or ``game_result_rules``: result keys to rule or option IDs."""
    if rules is None:
        return
    if not isinstance(rules, Mapping):
        raise CaseFailure(cid, "format", f"{where} must be an object")
    for key, rule_id in rules.items():
        if key not in keys:
            raise CaseFailure(cid, "format", f"{where}: {key!r} is no result key")
        if rule_id not in known_ids():
            raise CaseFailure(cid, "format", f"{where}: {rule_id!r} is no rule or option ID")


# ---------------------------------------------------------------------------------------------
# The tables of IDs a run reports.


def coverage(cases: Iterable[Case]) -> dict[str, list[str]]:
    """ID to the ids of the cases that cover it, for every known ID (R1..R25, O1..O17)."""
    table: dict[str, list[str]] = {
        i: [] for i in sorted(known_ids(), key=lambda i: (i[0] == "O", int(i[1:])))
    }
    for case in cases:
        for rule_id in case.covers:
            table.setdefault(rule_id, []).append(case.id)
    return table


def summary(outcomes: Iterable[Outcome]) -> dict[str, dict[str, int]]:
    """Per rule and option ID: in how many cases it is failing, passing, not reached, skipped
    (:meth:`Outcome.verdicts`)."""
    table: dict[str, dict[str, int]] = {}
    for outcome in outcomes:
        verdicts = outcome.verdicts() or {
            "-": "not_reached" if outcome.status == "fail" else outcome.status
        }
        for rule_id, verdict in verdicts.items():
            counts = table.setdefault(rule_id, dict.fromkeys(VERDICTS, 0))
            counts[verdict] += 1
    return dict(sorted(table.items(), key=lambda kv: id_order(kv[0])))


def id_order(rule_id: str) -> tuple[int, int]:
    if len(rule_id) > 1 and rule_id[0] in "RO" and rule_id[1:].isdigit():
        return (0 if rule_id[0] == "R" else 1, int(rule_id[1:]))
    return (2, 0)
