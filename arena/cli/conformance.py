"""``gin-arena conformance``: run the conformance cases against this engine or another one."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from arena.conformance.blame import SOURCES
from arena.conformance.capabilities import Capabilities, CapabilityError
from arena.conformance.caseformat import (
    Case,
    Outcome,
    coverage,
    id_order,
    known_ids,
    load_cases,
    select,
    summary,
)
from arena.conformance.reference import ReferenceEngine
from arena.conformance.remote import AdapterError, AdapterProcess
from arena.conformance.runner import Subject, run_case
from arena.terminal import printable

HELP = "run the conformance cases against this engine or another"
DESCRIPTION = """\
Run the conformance cases shipped with gin-arena (every rule R1..R25 and option O1..O17 of
docs/RULES.md pinned by language-neutral JSON cases) against this project's engine, or against
any other through an adapter command that speaks the protocol of docs/CONFORMANCE.md. Prints the
failures first, each blaming the rule of the check that failed (three a rule; --verbose: all),
the skipped cases grouped by reason, then the rules that fail with their counts (failing,
passing, not reached, skipped) and where each comes from; exits 1 if any case fails, or if the
adapter stops answering (--max-timeouts requests in a row without an answer stop the run).

examples:
  gin-arena conformance
  gin-arena conformance --rule R10 --rule R20 --verbose
  gin-arena conformance --tag showdown --json
  gin-arena conformance --engine "python -m arena.conformance.adapter"
  gin-arena conformance --engine "python3 my_adapter.py" --cases my-cases/
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--engine",
        metavar="COMMAND",
        help="an adapter command for another engine (default: this engine, in this process)",
    )
    parser.add_argument(
        "--rule", action="append", default=[], metavar="ID", help="cases covering this rule ID"
    )
    parser.add_argument(
        "--tag", action="append", default=[], metavar="TAG", help="cases with this tag or kind"
    )
    parser.add_argument(
        "--name", action="append", default=[], metavar="PATTERN", help="case ids (glob)"
    )
    parser.add_argument(
        "--cases",
        action="append",
        default=[],
        type=Path,
        metavar="PATH",
        help="case files or directories instead of the shipped cases",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="how long the adapter may take over one request (default 10)",
    )
    parser.add_argument(
        "--max-timeouts",
        type=int,
        default=3,
        metavar="N",
        help="stop the run when the adapter has not answered N requests in a row in time "
        "(default 3; 0: never stop)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="print every case (passing ones too), every failure and every rule ID",
    )
    parser.add_argument(
        "--coverage", action="store_true", help="list the cases covering each ID, run nothing"
    )


def run(args: argparse.Namespace) -> int:
    if not 0 < args.timeout <= 3600:
        raise ValueError(f"--timeout must be more than 0 and at most 3600, not {args.timeout}")
    if args.max_timeouts < 0:
        raise ValueError(f"--max-timeouts must be 0 (never stop) or more, not {args.max_timeouts}")
    for path in args.cases:
        if not path.exists():
            raise ValueError(f"--cases {path}: no such file or directory")
    unknown = sorted({r.upper() for r in args.rule} - known_ids())
    if unknown:
        raise ValueError(
            f"--rule {', '.join(unknown)}: no such rule or option ID (R1..R25, O1..O17)"
        )
    cases, broken = load_cases(*args.cases)
    chosen = select(cases, rules=args.rule, tags=args.tag, names=args.name)
    # A file that cannot be read has no rules or tags to filter on: only --name drops it.
    broken = [b for b in broken if not args.name or select([b.case], names=args.name)]
    if args.coverage:
        for rule_id, ids in coverage(chosen).items():
            print(printable(f"{rule_id:4} {len(ids):3}  {' '.join(ids)}"))
        return 0
    if not chosen and not broken:
        raise ValueError("no case matches the filters given")
    if args.engine is None:
        return _report(ReferenceEngine(), chosen, broken, args)
    with AdapterProcess(args.engine, timeout=args.timeout) as adapter:
        try:
            hello = adapter.call({"op": "hello", "version": 1})
        except AdapterError as error:
            print(printable(f"gin-arena conformance: {error}"), file=sys.stderr)
            return 2
        if hello.get("ok") and isinstance(hello.get("name"), str):
            adapter.name = hello["name"] + (f" {hello['version']}" if "version" in hello else "")
        try:
            adapter.capabilities = Capabilities.from_hello(hello)
        except CapabilityError as error:
            print(printable(f"gin-arena conformance: {error}"), file=sys.stderr)
            return 2
        notes = hello.get("notes", [])
        adapter.notes = [str(n) for n in notes] if isinstance(notes, list) else [str(notes)]
        return _report(adapter, chosen, broken, args)


def _run(
    subject: Subject, chosen: list[Case], max_timeouts: int
) -> tuple[list[Outcome], list[Case], str]:
    """The outcome of each case run, the cases not run and why (empty when all ran): an adapter
    that has not answered ``max_timeouts`` requests in a row stops the run."""
    outcomes: list[Outcome] = []
    for index, case in enumerate(chosen):
        outcomes.append(run_case(case, subject))
        hung = subject.timeouts_in_a_row if isinstance(subject, AdapterProcess) else 0
        if max_timeouts and hung >= max_timeouts and index + 1 < len(chosen):
            assert isinstance(subject, AdapterProcess)
            not_run = chosen[index + 1 :]
            why = (
                f"the adapter stopped answering: {hung} requests in a row got no answer within "
                f"{subject.timeout:g} s (--timeout). {len(not_run)} cases not run: "
                f"{', '.join(case.id for case in not_run)}. --max-timeouts N sets how many "
                "requests in a row may go unanswered before the run stops (0: never)."
            )
            return outcomes, not_run, why
    return outcomes, [], ""


def _report(subject: Subject, chosen: list[Case], broken: list[Outcome], args: Any) -> int:
    ran, not_run, stopped = _run(subject, chosen, args.max_timeouts)
    outcomes = [*broken, *ran]
    totals = {
        status: sum(o.status == status for o in outcomes) for status in ("pass", "fail", "skip")
    }
    failed = 1 if totals["fail"] or stopped else 0
    per_rule = summary(outcomes)
    notes: list[str] = getattr(subject, "notes", [])
    if args.json:  # json.dumps escapes every control character: the strings stay exact
        rules = {
            rule_id: {**counts, **_source_json(rule_id)} for rule_id, counts in per_rule.items()
        }
        report = {
            "engine": subject.name,
            "capabilities": subject.capabilities.to_json(),
            "notes": notes,
            "totals": totals,
            "rules": rules,
            "cases": [o.to_json() for o in outcomes],
            "stopped": stopped or None,
            "not_run": [case.id for case in not_run],
        }
        print(json.dumps(report, indent=2))
        return failed
    # An adapter writes the engine's name, its messages and its stderr, a case file the ids and
    # steps: escape sequences among them must not reach the terminal.
    lines = [f"engine: {subject.name}"]
    lines += [f"  lacks: {what}" for what in subject.capabilities.missing()]
    lines += [f"  note: {note}" for note in notes]
    cases = [*_first_things(outcomes), *_case_lines(outcomes, verbose=args.verbose)]
    if stopped:
        cases.append(f"STOPPED: {stopped}")
    lines += ["", *cases] if cases else []
    lines += ["", *_rule_lines(per_rule, verbose=args.verbose), ""]
    also = f", {len(not_run)} not run" if not_run else ""
    lines.append(
        f"{totals['pass']} passed, {totals['fail']} failed, {totals['skip']} skipped{also} of "
        f"{len(outcomes) + len(not_run)} cases"
    )
    for line in lines:
        print(printable(line))
    return failed


FAILURES_SHOWN = 3
"""Failing cases printed for each rule they blame (``--verbose``: all)."""
_FOUNDATIONS = {"R5": "the deal (R5)", "R6": "the first upcard (R6)"}


def _first_things(outcomes: list[Outcome]) -> list[str]:
    """A warning, first, when the deal or the first upcard fails: every hand verdict depends on
    them."""
    counts = {rule: sum(o.blame == rule for o in outcomes) for rule in _FOUNDATIONS}
    failing = [
        f"{_FOUNDATIONS[rule]} fails in {n} case{'s' if n > 1 else ''}"
        for rule, n in counts.items()
        if n
    ]
    if not failing:
        return []
    return [
        f"FIRST: {' and '.join(failing)}. Every hand and game case is dealt and most begin with "
        "the first-upcard offer, so the verdicts below depend on these: fix them first.",
        "",
    ]


def _case_lines(outcomes: list[Outcome], *, verbose: bool) -> list[str]:
    """The failures (those blaming R5 or R6 first, then by rule), the skips grouped by reason,
    and with ``verbose`` the passes."""
    lines: list[str] = []
    failures = [o for o in outcomes if o.status == "fail"]
    failures.sort(key=lambda o: (o.blame not in _FOUNDATIONS, id_order(o.blame or "-")))
    shown: dict[str | None, int] = {}
    for outcome in failures:
        blame = outcome.blame or "--"
        shown[outcome.blame] = shown.get(outcome.blame, 0) + 1
        if not verbose and shown[outcome.blame] > FAILURES_SHOWN:
            continue
        where = f" [{outcome.where}]" if outcome.where else ""
        lines.append(f"FAIL {blame:4} {outcome.case.id}{where}: {outcome.message}")
        total = sum(o.blame == outcome.blame for o in failures)
        if not verbose and shown[outcome.blame] == FAILURES_SHOWN and total > FAILURES_SHOWN:
            more = total - FAILURES_SHOWN
            lines.append(
                f"FAIL {blame:4} and {more} more case{'s' if more > 1 else ''} (--verbose)"
            )
    skipped = [o for o in outcomes if o.status == "skip"]
    for reason, group in _grouped(skipped, verbose=verbose):
        count = f"{len(group)} cases" if len(group) > 1 else "1 case"
        lines.append(f"SKIP {count}: {reason}")
        if verbose:
            lines.append(f"     {' '.join(o.case.id for o in group)}")
    partial = [o for o in outcomes if o.status == "pass" and o.skipped]
    if partial:
        what = sorted({_unchecked(reason) for o in partial for _, reason in o.skipped})
        lines.append(
            f"PART {len(partial)} cases passed, their checks of what the engine does not compute "
            f"skipped: {', '.join(what)}"
        )
    if verbose:
        lines += [f"PASS {o.case.id}" for o in outcomes if o.status == "pass"]
    return lines


_OPTION_SKIP = "the engine cannot be set to another "
_OPTIONS = " (capabilities.options)"


def _grouped(skipped: list[Outcome], *, verbose: bool) -> list[tuple[str, list[Outcome]]]:
    """Skipped cases by reason, most first. Without ``verbose``, reasons that differ only after
    their last ``": "`` (an adapter's details: the cards at hand) make one group."""
    exact: dict[str, list[Outcome]] = {}
    for outcome in skipped:
        exact.setdefault(outcome.message, []).append(outcome)
    groups: dict[str, list[Outcome]] = {}
    if verbose:
        groups = exact
    else:
        heads: dict[str, list[str]] = {}
        for reason in exact:
            heads.setdefault(reason.rpartition(": ")[0] or reason, []).append(reason)
        for head, reasons in heads.items():
            key = reasons[0] if len(reasons) == 1 else f"{head} (details differ: --verbose)"
            groups[key] = [o for reason in reasons for o in exact[reason]]
        options = [r for r in groups if r.startswith(_OPTION_SKIP) and r.endswith(_OPTIONS)]
        if len(options) > 1:
            counts = ", ".join(
                f"{r.removeprefix(_OPTION_SKIP).removesuffix(_OPTIONS)} {len(groups[r])}"
                for r in sorted(options, key=lambda r: -len(groups[r]))
            )
            merged = [o for r in options for o in groups.pop(r)]
            groups[f"options the engine cannot be set to {_OPTIONS.strip()}: {counts}"] = merged
    return sorted(groups.items(), key=lambda kv: -len(kv[1]))


def _unchecked(reason: str) -> str:
    """``the engine does not compute the result's points`` -> ``result's points``."""
    for prefix in ("the engine does not compute the ", "the engine does not report the "):
        reason = reason.removeprefix(prefix)
    return reason


def _rule_lines(per_rule: dict[str, dict[str, int]], *, verbose: bool) -> list[str]:
    """The table of the IDs that fail (every ID with ``verbose``), then the others in lines."""
    shown = {rule_id: counts for rule_id, counts in per_rule.items() if verbose or counts["fail"]}
    lines = [f"{'rule':5} {'fail':>4} {'pass':>4} {'not reached':>11} {'skip':>4}  source"]
    for rule_id, counts in shown.items():
        source = SOURCES.get(rule_id)
        origin = f"{source.origin:5} {source.note}" if source else ""
        lines.append(
            f"{rule_id:5} {counts['fail']:4} {counts['pass']:4} {counts['not_reached']:11} "
            f"{counts['skip']:4}  {origin}"
        )
    if not shown:
        lines = ["no rule fails"]
    if verbose:
        return lines
    rest = {k: v for k, v in per_rule.items() if k not in shown}
    groups = (
        ("not reached in a failing case", lambda c: c["not_reached"] > 0),
        ("passing", lambda c: not c["not_reached"] and c["pass"] > 0),
        ("skipped in every case", lambda c: not c["not_reached"] and not c["pass"]),
    )
    for title, test in groups:
        ids = [rule_id for rule_id, counts in rest.items() if test(counts)]
        if ids:
            lines.append(f"{title}: {' '.join(ids)}")
    return lines


def _source_json(rule_id: str) -> dict[str, str]:
    source = SOURCES.get(rule_id)
    return {"source": source.origin, "source_note": source.note} if source else {}
