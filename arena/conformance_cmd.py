"""``gin-arena conformance``: run the conformance cases against this engine or another one."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from arena.conformance.reference import ReferenceEngine
from arena.conformance.remote import AdapterError, AdapterProcess
from arena.conformance.runner import (
    Outcome,
    Subject,
    coverage,
    known_ids,
    load_cases,
    run_cases,
    select,
    summary,
)

HELP = "run the conformance cases against this engine or another"
DESCRIPTION = """\
Run the conformance cases shipped with gin-arena (every rule R1..R25 and option O1..O17 of
docs/RULES.md pinned by language-neutral JSON cases) against this project's engine, or against
any other through an adapter command that speaks the protocol of docs/CONFORMANCE.md. Prints each
case that fails or is skipped, then a summary per rule ID; exits 1 if any case fails.

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
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--verbose", "-v", action="store_true", help="print passing cases too")
    parser.add_argument(
        "--coverage", action="store_true", help="list the cases covering each ID, run nothing"
    )


def run(args: argparse.Namespace) -> int:
    if not 0 < args.timeout <= 3600:
        raise ValueError(f"--timeout must be more than 0 and at most 3600, not {args.timeout}")
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
            print(f"{rule_id:4} {len(ids):3}  {' '.join(ids)}")
        return 0
    if not chosen and not broken:
        raise ValueError("no case matches the filters given")
    if args.engine is None:
        return _report(ReferenceEngine(), chosen, broken, args)
    with AdapterProcess(args.engine, timeout=args.timeout) as adapter:
        try:
            hello = adapter.call({"op": "hello", "version": 1})
        except AdapterError as error:
            print(f"gin-arena conformance: {error}", file=sys.stderr)
            return 2
        if hello.get("ok") and isinstance(hello.get("name"), str):
            adapter.name = hello["name"] + (f" {hello['version']}" if "version" in hello else "")
        if hello.get("rule_ids") is False:
            adapter.rule_ids = False
            adapter.name += " (no rule IDs: rejections are judged without them)"
        return _report(adapter, chosen, broken, args)


def _report(subject: Subject, chosen: list[Any], broken: list[Outcome], args: Any) -> int:
    outcomes = [*broken, *run_cases(chosen, subject)]
    totals = {
        status: sum(o.status == status for o in outcomes) for status in ("pass", "fail", "skip")
    }
    per_rule = summary(outcomes)
    if args.json:
        report = {
            "engine": subject.name,
            "totals": totals,
            "rules": per_rule,
            "cases": [o.to_json() for o in outcomes],
        }
        print(json.dumps(report, indent=2))
        return 1 if totals["fail"] else 0
    for outcome in outcomes:
        if outcome.status != "pass" or args.verbose:
            where = f" [{outcome.where}]" if outcome.where else ""
            text = f": {outcome.message}" if outcome.message else ""
            print(f"{outcome.status.upper()} {outcome.case.id}{where}{text}")
    if outcomes and (totals["fail"] or totals["skip"] or args.verbose):
        print()
    print(f"{'rule':6} {'pass':>5} {'fail':>5} {'skip':>5}")
    for rule_id, counts in per_rule.items():
        mark = "  <- fails" if counts["fail"] else ""
        print(f"{rule_id:6} {counts['pass']:5} {counts['fail']:5} {counts['skip']:5}{mark}")
    print(
        f"\n{totals['pass']} passed, {totals['fail']} failed, {totals['skip']} skipped of "
        f"{len(outcomes)} cases; engine: {subject.name}"
    )
    return 1 if totals["fail"] else 0
