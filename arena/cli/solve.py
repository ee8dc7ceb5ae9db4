"""``gin-arena solve``: a hand's best melds and deadwood and, for eleven cards (a hand after the
draw), the best discards and whether the player may knock, goes gin or has big gin.

The answers come from the engine's meld solver (:mod:`engine.melds`) and the rules object
(:class:`engine.rules.Rules`: knock limit, big gin, the card just taken from the discard pile).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import IO, Any

from arena.errors import ArenaError
from engine.cards import (
    CARD_NAMES,
    CardError,
    card_names,
    cards_of,
    format_cards,
    parse_card,
    parse_cards,
)
from engine.melds import MAX_CARDS, Arrangement, best_discards, knock_arrangement
from engine.rules import HOYLE, Rules, RulesError

HELP = "a hand's melds and deadwood; for 11 cards the best discards and knock, gin, big gin"
DESCRIPTION = """\
Show a hand's best melds and its deadwood. For eleven cards (a hand after the draw) also show the
best discards and whether the player may knock, has gin after the discard, or has big gin.

examples:
  gin-arena solve AS 2S 3S 4S 7H 7D 7C KD QH 9C
  gin-arena solve "AS 2S 3S 4S 7H 7D 7C KD QH 9C 5S" --taken 5S
  gin-arena solve AS 2S 3S 4S 7H 7D 7C KD QH 9C 8C --json
  printf '{"hand": ["AS", "2S", "3S"]}\\nKD QH 9C\\n' | gin-arena solve --jsonl

Cards are a rank from A23456789TJQK (or 10) and a suit from CDHS (or cdhs): AS, TD, 10d, 7h.
A hand has 1 to 11 cards; fewer than ten is a partial hand. With --jsonl each input line is a JSON
object {"hand": [...], "taken": "KD"} ("taken" optional), a JSON list of cards or a plain line of
cards; each output line is one JSON object with the input's "line" number, or {"line": N,
"error": "..."} for a line that could not be solved. Exit status: 0 all lines solved, 1 some line
had an error, 2 bad arguments.
"""


class SolveError(ArenaError, ValueError):
    """A hand or option that ``solve`` cannot work with."""


@dataclass(frozen=True, slots=True)
class Discarding:
    """The eleven-card part of a solution: the discard and what it leads to."""

    discards: int
    """Every best discard (a mask); the card just taken is never among them unless allowed."""
    discard: int
    """The discard that :attr:`Solution.arrangement` assumes: the lowest of :attr:`discards`."""
    taken: int | None
    """The card just taken from the discard pile, if given."""
    without_discard: Arrangement
    """All eleven cards arranged, nothing discarded (big gin if its deadwood is 0)."""
    can_knock: bool
    """The player may knock: deadwood within the knock limit after the discard, or big gin (R9)."""
    gin: bool
    """No deadwood after the discard (R14)."""
    big_gin: bool
    """Big gin is played and all eleven cards meld (R19)."""


@dataclass(frozen=True, slots=True)
class Solution:
    """What ``gin-arena solve`` reports about one hand."""

    hand: int
    arrangement: Arrangement
    """The whole hand arranged; for eleven cards, the ten kept after :attr:`Discarding.discard`."""
    rules: Rules
    eleven: Discarding | None = None

    @property
    def deadwood(self) -> int:
        return self.arrangement.deadwood


def solve(hand: int, rules: Rules = HOYLE, taken: int | None = None) -> Solution:
    """Solve a hand of 1 to 11 cards under ``rules``. ``taken`` (eleven cards only) is the card
    just taken from the discard pile, which may not be discarded unless the rules allow it (R8)."""
    size = hand.bit_count()
    if not 1 <= size <= MAX_CARDS:
        shown = f": {format_cards(hand)}" if hand else ""
        raise SolveError(f"a hand has 1 to {MAX_CARDS} cards, got {size}{shown}")
    if taken is not None:
        if size != MAX_CARDS:
            raise SolveError(
                f"the taken card {CARD_NAMES[taken]} needs an 11-card hand (it is one of the "
                f"eleven), got {size} cards"
            )
        if not hand >> taken & 1:
            raise SolveError(f"the taken card {CARD_NAMES[taken]} is not in the hand")
    if size < MAX_CARDS:
        return Solution(hand, knock_arrangement(hand), rules)
    forbidden = 0 if taken is None or rules.discard_taken_card else 1 << taken
    least, discards = best_discards(hand, forbidden)
    discard = cards_of(discards)[0]
    kept = knock_arrangement(hand & ~(1 << discard))
    whole = knock_arrangement(hand)
    big_gin = rules.big_gin and whole.deadwood == 0
    eleven = Discarding(
        discards=discards,
        discard=discard,
        taken=taken,
        without_discard=whole,
        can_knock=big_gin or least <= rules.knock_limit,
        gin=least == 0,
        big_gin=big_gin,
    )
    return Solution(hand, kept, rules, eleven)


# ---------------------------------------------------------------------------------------------
# Output.


def to_json(solution: Solution) -> dict[str, Any]:
    """The solution as a JSON object: ``deadwood``, ``melds``, ``deadwood_cards`` and, for eleven
    cards, ``discards``, ``discard``, ``taken``, ``can_knock``, ``gin``, ``big_gin``,
    ``knock_limit`` and ``without_discard`` (the eleven cards arranged)."""
    out: dict[str, Any] = {
        "hand": card_names(solution.hand),
        "size": solution.hand.bit_count(),
        **_arrangement_json(solution.arrangement),
    }
    eleven = solution.eleven
    if eleven is not None:
        out.update(
            discards=card_names(eleven.discards),
            discard=CARD_NAMES[eleven.discard],
            taken=None if eleven.taken is None else CARD_NAMES[eleven.taken],
            can_knock=eleven.can_knock,
            gin=eleven.gin,
            big_gin=eleven.big_gin,
            knock_limit=solution.rules.knock_limit,
            without_discard=_arrangement_json(eleven.without_discard),
        )
    return out


def _arrangement_json(arrangement: Arrangement) -> dict[str, Any]:
    return {
        "deadwood": arrangement.deadwood,
        "melds": [card_names(meld) for meld in arrangement.melds],
        "deadwood_cards": card_names(arrangement.deadwood_cards),
    }


def _melds_text(arrangement: Arrangement) -> str:
    return " ".join(f"[{format_cards(meld)}]" for meld in arrangement.melds) or "none"


def _deadwood_text(arrangement: Arrangement) -> str:
    if not arrangement.deadwood_cards:
        return "0"
    return f"{arrangement.deadwood}: {format_cards(arrangement.deadwood_cards)}"


def to_text(solution: Solution) -> str:
    """The solution for people, one fact per line."""
    size = solution.hand.bit_count()
    note = "" if size >= 10 else ", a partial hand"
    lines = [("hand", f"{format_cards(solution.hand)}  ({size} cards{note})")]
    eleven = solution.eleven
    if eleven is None:
        lines.append(("melds", _melds_text(solution.arrangement)))
        lines.append(("deadwood", _deadwood_text(solution.arrangement)))
        return _aligned(lines)
    rules = solution.rules
    count = eleven.discards.bit_count()
    each = "each leaves" if count > 1 else "leaves"
    lines.append(
        (
            "discard" if count == 1 else "discards",
            f"{format_cards(eleven.discards)}  ({each} deadwood {solution.deadwood})",
        )
    )
    if eleven.taken is not None:
        may = "may" if rules.discard_taken_card else "may not"
        lines.append(("taken", f"{CARD_NAMES[eleven.taken]}, which {may} be discarded (R8)"))
    after = f"  (after discarding {CARD_NAMES[eleven.discard]})"
    lines.append(("melds", _melds_text(solution.arrangement) + after))
    lines.append(("deadwood", _deadwood_text(solution.arrangement)))
    limit = rules.knock_limit
    if eleven.big_gin:
        knock = "yes: big gin, all eleven cards meld"
    elif eleven.gin:
        knock = "yes: gin"
    elif eleven.can_knock:
        knock = f"yes: deadwood {solution.deadwood} is within the knock limit {limit}"
    else:
        knock = f"no: deadwood {solution.deadwood} is over the knock limit {limit}"
    lines.append(("knock", knock))
    lines.append(("gin", f"yes, discarding {CARD_NAMES[eleven.discard]}" if eleven.gin else "no"))
    whole = eleven.without_discard
    if eleven.big_gin:
        big = f"yes: {_melds_text(whole)}"
    elif whole.deadwood == 0:
        big = f"no: all eleven cards meld ({_melds_text(whole)}), but big gin is off (--big-gin)"
    else:
        big = f"no: without a discard the deadwood is {_deadwood_text(whole)}"
    lines.append(("big gin", big))
    return _aligned(lines)


def _aligned(lines: list[tuple[str, str]]) -> str:
    width = max(len(label) for label, _ in lines)
    return "\n".join(f"{label:<{width}}  {text}" for label, text in lines)


# ---------------------------------------------------------------------------------------------
# The command.


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "cards",
        nargs="*",
        metavar="CARD",
        help="the hand, 1 to 11 cards, as separate arguments or one quoted argument",
    )
    parser.add_argument(
        "--knock-limit",
        type=_knock_limit,
        default=HOYLE.knock_limit,
        metavar="N",
        help=f"highest deadwood a player may knock with, 0..10 (default {HOYLE.knock_limit}; R9)",
    )
    parser.add_argument(
        "--taken",
        metavar="CARD",
        help="the card just taken from the discard pile: it may not be discarded (11 cards; R8)",
    )
    parser.add_argument(
        "--big-gin",
        action="store_true",
        help="play with big gin: all eleven cards melded, without a discard (R19)",
    )
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print one JSON object")
    output.add_argument(
        "--jsonl",
        action="store_true",
        help="read hands from stdin, one per line; write one JSON object per line",
    )


def _knock_limit(text: str) -> int:
    try:
        limit = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    try:  # the rules object knows the range
        return HOYLE.replace(knock_limit=limit).knock_limit
    except RulesError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def run(args: argparse.Namespace) -> int:
    rules = HOYLE.replace(knock_limit=args.knock_limit, big_gin=args.big_gin)
    if args.jsonl:
        if args.cards:
            raise SolveError("with --jsonl the hands are read from stdin: give no cards")
        if args.taken is not None:
            raise SolveError('with --jsonl give the taken card on each line: {"taken": "KD"}')
        return solve_lines(sys.stdin, sys.stdout, rules)
    if not args.cards:
        raise SolveError("no cards: give a hand such as AS 2S 3S 4S 7H 7D 7C KD QH 9C")
    hand = int(parse_cards(" ".join(args.cards)))
    taken = None if args.taken is None else parse_card(args.taken)
    solution = solve(hand, rules, taken)
    if args.json:
        print(json.dumps(to_json(solution)))
    else:
        print(to_text(solution))
    return 0


def solve_lines(lines: Iterable[str], out: IO[str], rules: Rules) -> int:
    """Solve one hand per input line (see ``DESCRIPTION``); blank lines are skipped. Return 0 if
    every line was solved, 1 if some line had an error."""
    errors = 0
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            hand, taken = parse_line(line)
            result = {"line": number, **to_json(solve(hand, rules, taken))}
        except ValueError as error:
            errors += 1
            result = {"line": number, "error": str(error)}
        out.write(json.dumps(result) + "\n")
        out.flush()
    return 1 if errors else 0


def parse_line(line: str) -> tuple[int, int | None]:
    """A hand and the taken card (or None) from one ``--jsonl`` input line."""
    text = line.strip()
    if not text.startswith(("{", "[")):
        return int(parse_cards(text)), None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise SolveError(f"bad JSON: {error}") from None
    if isinstance(data, list):
        return _parse_hand(data), None
    if not isinstance(data, dict):
        raise SolveError(f'expected a JSON object such as {{"hand": [...]}}, got {text!r}')
    unknown = sorted(set(data) - {"hand", "taken"})
    if unknown:
        raise SolveError(f'unknown key {unknown[0]!r}: a line has "hand" and maybe "taken"')
    if "hand" not in data:
        raise SolveError('missing "hand": write {"hand": ["AS", "2S", ...]}')
    taken = data.get("taken")
    if taken is not None and not isinstance(taken, str):
        raise SolveError(f'"taken" must be a card such as "KD", got {taken!r}')
    return _parse_hand(data["hand"]), None if taken is None else parse_card(taken)


def _parse_hand(hand: object) -> int:
    if isinstance(hand, str):
        return int(parse_cards(hand))
    if isinstance(hand, list) and all(isinstance(card, str) for card in hand):
        return int(parse_cards(hand))
    raise CardError(f'"hand" must be a list of cards such as ["AS", "2S"], got {hand!r}')
