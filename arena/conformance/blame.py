"""Which rule a failing check blames, and where each rule and option ID comes from.

A conformance case is a sequence of checks (its steps, the keys of each state and result, a
game's seatings and result); each check tests one rule or option. The case may name it (``rule``
on a step, ``result_rules``, ``game_result_rules``); otherwise the functions here give the default
of docs/CONFORMANCE.md's table "Verdicts: which rule a failure blames" (the table between the
``blame`` markers there is :data:`BLAME_TABLE`, checked equal by a test).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

DEAL: Final = "R5"
FIRST_UPCARD: Final = "R6"
TURN: Final = "R7"

_END_RULES: Final = {
    "knock": "R12",
    "undercut": "R13",
    "gin": "R14",
    "big_gin": "R19",
    "drawn": "R11",
    "turn_limit": "R17",
}
"""The rule of each way a hand ends."""
_FORMAT_RULES: Final = {"hollywood": "R23", "three-player": "R24", "partnership": "R25"}
_SHOW_DOWN_RULES: Final = {
    "knocker_deadwood": "R20",
    "knocker_melds": "R20",
    "knocker_deadwood_cards": "R20",
    "defender_deadwood": "R10",
    "defender_melds": "R10",
    "defender_deadwood_cards": "R10",
    "laid_off": "R10",
    "lay_offs": "R10",
}
_GAME_BONUS_KEYS: Final = frozenset({"hands_won", "game_bonus", "line_bonus"})

BLAME_TABLE: Final = (
    ("dealing a hand or a game (`hand`, `game`, `next_hand` refused)", "R5"),
    ("`do A` (must be accepted) in the first-upcard offer: `pass`, or the hand's first draw", "R6"),
    (
        "`do A` (must be accepted), later: discarding or knocking with the card just taken "
        "from the discard pile",
        "O5",
    ),
    ("`do A` (must be accepted), later: a draw or a discard", "R7"),
    ("`do A` (must be accepted), later: `knock C` / `knock` (big gin)", "R9 / R19"),
    (
        "`do A` refused: the engine's legal actions there compared with A (legal by these rules)",
        "the rule the difference explains, as for `legal...` below (e.g. R9 when only knocks "
        "are offered where A discards: a compulsory gin or knock)",
    ),
    (
        "`do A` refused by an engine that names the rule it applied, the difference explaining "
        "nothing more than a turn",
        "that rule, when it is an ID of this kit",
    ),
    ("`do A` with `error: ID` (must be refused, the hand unchanged)", "ID"),
    ("`legal`, `legal_includes`, `legal_excludes` in the first-upcard offer", "R6"),
    (
        "`legal...`, later, when the actions in dispute discard the card just taken",
        "R8",
    ),
    ("`legal...`, later, when the engine allows only knocks where a discard is due", "R9"),
    ("`legal...`, later, when the actions in dispute include a knock / big gin", "R9 / R19"),
    ("`legal...`, later, otherwise", "R7"),
    (
        "state `phase: finished`",
        "the rule of the end the case's result expects (below), else as the next row",
    ),
    (
        "state `discard_top`, `discard_pile` just after a knock (`knock C` lays C on the pile)",
        "R9",
    ),
    (
        "state `phase`, `to_move`, `discard_top`, `discard_pile`",
        "R6 in the first-upcard offer, else R7",
    ),
    ("state `stock_size`, `stock_top`, `hands`", "R5 before the first action, else R7"),
    ("state `dealer` / `turn` / `taken_card`", "R4 / R17 / R8"),
    ("state `knock_limit`", "R18 under Oklahoma, else R9"),
    (
        "result `end`, `winner`, and the hand being over or not",
        "the rule of the end expected: "
        + ", ".join(f"`{end}` {rule}" for end, rule in _END_RULES.items())
        + " (for a hand that should go on: the rule of the end the engine gave)",
    ),
    ("result `points`", "the same, and R18 when `doubled` is expected true"),
    ("result `doubled`", "R18"),
    ("result `knocker_deadwood`, `knocker_melds`, `knocker_deadwood_cards`", "R20"),
    (
        "result `defender_deadwood`, `defender_melds`, `defender_deadwood_cards`, `laid_off`, "
        "`lay_offs`",
        "R10",
    ),
    (
        "game seating: `expect_dealer`; `expect_players`, `expect_table`",
        "R4, or the format's rule (R23, R24, R25)",
    ),
    ("game over too early or not over at the end", "R15, or the format's rule"),
    (
        "`game_result` `winner`, `scores`, `hand_points`, `end`",
        "R15 (`end: hand_limit`: R22), or the format's rule",
    ),
    ("`game_result` `hands_won`, `game_bonus`, `line_bonus`", "R16, or the format's rule"),
    ("`solver` deadwood and discards, `meld` validity", "the case's first covered ID"),
    ("`deal` outputs, deck and first dealer", "R21"),
)
"""The default blame of each kind of check, as docs/CONFORMANCE.md prints it."""


def blame_table_markdown() -> str:
    """:data:`BLAME_TABLE` as the Markdown table of docs/CONFORMANCE.md."""
    rows = ["| Check | Rule blamed |", "|-------|-------------|"]
    rows += [f"| {check} | {rule} |" for check, rule in BLAME_TABLE]
    return "\n".join(rows)


@dataclass(slots=True)
class HandProgress:
    """Where a hand's script has got to, read from the case alone (not from the engine), which
    some defaults depend on: whether the first-upcard offer is still open (no draw yet), whether
    any action was taken, the discard pile and the card just taken from it."""

    pile: list[str]
    offer: bool = True
    acted: bool = False
    taken: str | None = None
    end: str | None = None
    """How the case expects the hand to end (its result's ``end``), if it says."""
    last: str | None = None
    """The last action accepted (canonical notation)."""

    @classmethod
    def dealt(cls, upcard: str, result: object = None) -> HandProgress:
        end = result.get("end") if isinstance(result, Mapping) else None
        if isinstance(result, Mapping) and "one_of" in result:
            ends = {choice.get("end") for choice in result["one_of"]}
            end = ends.pop() if len(ends) == 1 else None
        return cls(pile=[upcard], end=end if isinstance(end, str) else None)

    def done(self, action: str) -> None:
        """Note that ``action`` (canonical notation) was accepted."""
        self.acted = True
        self.last = action
        if action.startswith("draw"):
            self.offer = False
            self.taken = self.pile.pop() if action == "draw discard" and self.pile else None
        elif action.startswith(("discard ", "knock ")) and not action.startswith("knock /"):
            self.pile.append(action.split()[1])
            self.taken = None

    def takes_back(self, action: str) -> bool:
        """Whether ``action`` discards (or knocks with) the card just taken (R8)."""
        words = action.split()
        return (
            self.taken is not None
            and len(words) > 1
            and words[0] in ("discard", "knock")
            and words[1] == self.taken
        )


def action_rule(action: str, progress: HandProgress) -> str:
    """The rule an action the case expects to be accepted tests."""
    if action == "pass" or (action.startswith("draw") and progress.offer):
        return FIRST_UPCARD
    if progress.takes_back(action):
        return "O5"
    if action == "knock" or action.startswith("knock /"):
        return "R19"
    if action.startswith("knock"):
        return "R9"
    return TURN


def refusal_rule(
    action: str, progress: HandProgress, listed: Iterable[str] | None, cited: str | None
) -> str:
    """The rule a refused ``do A`` blames: A is legal by these rules, so the engine's legal set
    there (``listed``; None if it did not answer) lacks it, and what else that set holds says
    why (:func:`legal_rule`: only knocks offered where A discards is R9, a compulsory gin or
    knock, not a turn); when the difference explains no more than a turn, the rule the engine
    ``cited`` (an ID of this kit), else the rule A tests (:func:`action_rule`)."""
    if listed is not None:
        listed = list(listed)
        explained = legal_rule([action], progress, listed) if action not in listed else TURN
        if explained not in (TURN, FIRST_UPCARD):
            return explained
    return cited or action_rule(action, progress)


def legal_rule(disputed: Iterable[str], progress: HandProgress, listed: Iterable[str] = ()) -> str:
    """The rule a ``legal...`` step tests, from the actions in dispute (those missing or extra)
    and those the engine ``listed``: an engine that allows only knocks where a discard is due
    obliges a knock, which R9 says never happens."""
    if progress.offer:
        return FIRST_UPCARD
    disputed = list(disputed)
    listed = list(listed)
    if (
        listed
        and all(a.startswith("knock") for a in listed)
        and any(a.startswith("discard") for a in disputed)
    ):
        return "R9"
    if any(progress.takes_back(a) for a in disputed):
        return "R8"
    if any(a == "knock" or a.startswith("knock /") for a in disputed):
        return "R19"
    if any(a.startswith("knock") for a in disputed):
        return "R9"
    return TURN


def state_rule(
    key: str, progress: HandProgress, rules: Mapping[str, Any], value: object = None
) -> str:
    """The rule a state key tests (``value``: the one the case expects)."""
    if key == "phase" and value == "finished" and progress.end is not None:
        return end_rule(progress.end) or TURN
    if key in ("discard_top", "discard_pile") and (progress.last or "").startswith("knock "):
        return "R9"  # knock C lays C on the pile: a difference there is the knock's
    if key in ("phase", "to_move", "discard_top", "discard_pile"):
        return FIRST_UPCARD if progress.offer else TURN
    if key in ("stock_size", "stock_top", "hands"):
        return TURN if progress.acted else DEAL
    if key == "knock_limit":
        return "R18" if oklahoma(rules) else "R9"
    return {"dealer": "R4", "turn": "R17", "taken_card": "R8"}.get(key, TURN)


def oklahoma(rules: Mapping[str, Any]) -> bool:
    options = rules.get("options") or {}
    return bool(options.get("oklahoma", rules.get("preset") == "oklahoma"))


def end_rule(end: object) -> str | None:
    """The rule of a way a hand ends (``None`` for a value that is none)."""
    return _END_RULES.get(end) if isinstance(end, str) else None


def result_rule(key: str, expected: Mapping[str, Any]) -> str | None:
    """The rule a result key tests, given the whole expected result (``None``: no default, the
    end is not expected)."""
    if key in _SHOW_DOWN_RULES:
        return _SHOW_DOWN_RULES[key]
    if key == "doubled" or (key == "points" and expected.get("doubled") is True):
        return "R18"
    return end_rule(expected.get("end"))


def game_rule(mode: str, default: str) -> str:
    """A game check's rule: the format's own rule, or ``default`` in two-player."""
    return _FORMAT_RULES.get(mode, default)


def game_result_rule(key: str, want: object, mode: str) -> str:
    if key == "end" and want == "hand_limit":
        return game_rule(mode, "R22")
    return game_rule(mode, "R16" if key in _GAME_BONUS_KEYS else "R15")


# ---------------------------------------------------------------------------------------------
# Where each ID comes from.


@dataclass(frozen=True, slots=True)
class Source:
    """Where a rule or option comes from: ``hoyle`` (the four Hoyle texts), ``001`` (the
    non-Hoyle text's reading), or ``here`` (defined by this project), and why."""

    origin: str
    note: str


_HOYLE = "the four Hoyle texts agree"
SOURCES: Final[dict[str, Source]] = {
    "R1": Source("hoyle", _HOYLE),
    "R2": Source("hoyle", _HOYLE),
    "R3": Source("hoyle", _HOYLE),
    "R4": Source("hoyle", "the winner deals; the first dealer from a seed is defined here"),
    "R5": Source("hoyle", "ten each and an upcard; the deck-order convention is defined here"),
    "R6": Source("hoyle", "the Hoyle procedure; 001 does not describe it"),
    "R7": Source("hoyle", _HOYLE),
    "R8": Source("001", "only 001 has it; the Hoyle texts are silent"),
    "R9": Source("hoyle", _HOYLE),
    "R10": Source("hoyle", "lay-offs as all texts; automatic optimal lay-offs defined here"),
    "R11": Source("hoyle", "two cards left is a draw; the floor as an option is defined here"),
    "R12": Source("hoyle", _HOYLE),
    "R13": Source("hoyle", "ties undercut in all five; bonus 10 (001: 25)"),
    "R14": Source("hoyle", "25 in all five"),
    "R15": Source("hoyle", _HOYLE),
    "R16": Source("001", "only 001 has game bonuses; off by default"),
    "R17": Source("here", "the texts have no turn limit; bounds a hand bots could stall"),
    "R18": Source("here", "the texts only name Oklahoma; the commonly played rules"),
    "R19": Source("here", "in no text; common in modern play"),
    "R20": Source("here", "the texts only say the knocker spreads the hand"),
    "R21": Source("here", "reproducible deals from a seed"),
    "R22": Source("here", "the texts have no hand limit; bounds a game"),
    "R23": Source("here", "the texts only name Hollywood; its three-game sheet"),
    "R24": Source("001", "001's three-player game; who sits where is defined here"),
    "R25": Source("001", "001's partnership; the table pairings are defined here"),
    "O1": Source("hoyle", "knock at 10 or less"),
    "O2": Source("hoyle", "25; some say 20"),
    "O3": Source("hoyle", "10; 001 gives 25"),
    "O4": Source("hoyle", "ties undercut in all five"),
    "O5": Source("001", "the R8 restriction of 001, on by default"),
    "O6": Source("here", "big gin (R19)"),
    "O7": Source("here", "big gin's bonus (R19)"),
    "O8": Source("hoyle", "100"),
    "O9": Source("001", "001's game bonus; 0 by default"),
    "O10": Source("001", "001's shutout bonus; 0 by default"),
    "O11": Source("001", "001's line bonus; 0 by default"),
    "O12": Source("hoyle", "the winner deals; loser (001's three-player) and alternate as options"),
    "O13": Source("here", "Oklahoma (R18)"),
    "O14": Source("here", "Oklahoma's spade doubling (R18)"),
    "O15": Source("here", "the turn limit (R17)"),
    "O16": Source("here", "the floor of two cards, as an option"),
    "O17": Source("here", "the hand limit (R22)"),
}
"""Every rule and option ID's source (docs/RULES.md's "Sources" lines and its section "Not in
the sources, defined here")."""
