"""The rules object: every option of the game, validated and immutable, with named presets.

Each option carries an ID (``O1`` ...) that leads to its text in ``docs/RULES.md`` and to the
conformance cases that pin it. ``Rules()`` is the ``hoyle`` preset.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, get_args

from engine.errors import EngineError

NextDealer = Literal["winner", "loser", "alternate"]


class RulesError(EngineError, ValueError):
    """An option name or value is not valid."""


def _option(
    default: Any, option_id: str, doc: str, low: int | None = None, high: int | None = None
) -> Any:
    return field(default=default, metadata={"id": option_id, "doc": doc, "low": low, "high": high})


@dataclass(frozen=True, slots=True)
class Rules:
    """The options in force for a game. Defaults are the ``hoyle`` preset."""

    knock_limit: int = _option(
        10, "O1", "Highest deadwood a player may knock with (R9); 0 means gin only.", 0, 10
    )
    gin_bonus: int = _option(25, "O2", "Bonus for going gin (R14).", 0, 1000)
    undercut_bonus: int = _option(10, "O3", "Bonus for undercutting the knocker (R13).", 0, 1000)
    undercut_on_tie: bool = _option(
        True,
        "O4",
        "A tie on deadwood is an undercut (R13). When false, a tie is a knock win worth 0 points.",
    )
    discard_taken_card: bool = _option(
        False,
        "O5",
        "A player may discard the card just taken from the discard pile in the same turn (R8).",
    )
    big_gin: bool = _option(
        False, "O6", "A player whose eleven cards all meld may knock without discarding (R19)."
    )
    big_gin_bonus: int = _option(31, "O7", "Bonus for big gin (R19).", 0, 1000)
    game_target: int = _option(100, "O8", "Cumulative score that wins the game (R15).", 1, 100_000)
    game_bonus: int = _option(0, "O9", "Bonus for winning the game (R16).", 0, 100_000)
    shutout_bonus: int = _option(
        0,
        "O10",
        "Extra game bonus when the loser scored nothing in the game (R16); added to game_bonus.",
        0,
        100_000,
    )
    line_bonus: int = _option(
        0,
        "O11",
        "Points per hand won, added at the end of the game (line or box bonus, R16).",
        0,
        1000,
    )
    next_dealer: NextDealer = _option(
        "winner", "O12", "Who deals the hand after a won hand: winner, loser or alternate (R4)."
    )
    oklahoma: bool = _option(
        False,
        "O13",
        "Oklahoma: the first upcard's value sets the knock limit; an Ace: gin only (R18).",
    )
    oklahoma_spades_double: bool = _option(
        True, "O14", "With oklahoma, a spade first upcard doubles the hand's score (R18)."
    )
    turn_limit: int = _option(
        100,
        "O15",
        "A hand whose turns reach this count with no knock ends drawn (R17).",
        1,
        10_000,
    )
    stock_exhausted_at: int = _option(
        2, "O16", "The hand is drawn when a discard leaves this many stock cards (R11).", 0, 30
    )
    hand_limit: int = _option(
        200,
        "O17",
        "A game still undecided after this many hands, drawn ones included, ends: the player "
        "with more points wins it, or it is drawn if they are level (R22).",
        1,
        1_000_000,
    )

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.type == "bool" or isinstance(f.default, bool):
                if not isinstance(value, bool):
                    raise RulesError(f"option {f.name}: expected true or false, got {value!r}")
            elif f.name == "next_dealer":
                choices = get_args(NextDealer)
                if value not in choices:
                    raise RulesError(
                        f"option next_dealer: expected one of {', '.join(choices)}, got {value!r}"
                    )
            else:
                low, high = f.metadata["low"], f.metadata["high"]
                if not isinstance(value, int) or isinstance(value, bool):
                    raise RulesError(f"option {f.name}: expected an integer, got {value!r}")
                if not low <= value <= high:
                    raise RulesError(
                        f"option {f.name}: {value} is out of range, expected {low}..{high}"
                    )

    @classmethod
    def preset(cls, name: str) -> Rules:
        """The named preset (see :data:`PRESETS`)."""
        try:
            return PRESETS[name]
        except KeyError:
            raise RulesError(
                f"unknown rules preset {name!r}: choose one of {', '.join(PRESETS)}"
            ) from None

    def replace(self, **changes: Any) -> Rules:
        """A copy with some options changed (validated)."""
        unknown = set(changes) - set(option_names())
        if unknown:
            raise RulesError(_unknown_message(sorted(unknown)[0]))
        return dataclasses.replace(self, **changes)

    def with_options(self, options: Mapping[str, str | int | bool]) -> Rules:
        """A copy with options given by name, values as text (``"true"``, ``"25"``) or typed."""
        return self.replace(**{name: _coerce(name, value) for name, value in options.items()})

    def to_dict(self) -> dict[str, int | bool | str]:
        return {name: getattr(self, name) for name in option_names()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        """Rules from a full or partial option mapping; missing options take the hoyle default."""
        return cls().with_options(data)

    def changes_from(self, base: Rules) -> dict[str, int | bool | str]:
        """The options whose values differ from ``base``."""
        return {k: v for k, v in self.to_dict().items() if getattr(base, k) != v}


def option_names() -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(Rules))


def option_ids() -> dict[str, str]:
    """Option name to option ID (``O1`` ...)."""
    return {f.name: f.metadata["id"] for f in dataclasses.fields(Rules)}


def _unknown_message(name: str) -> str:
    return f"unknown rules option {name!r}: the options are {', '.join(option_names())}"


_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


def _coerce(name: str, value: object) -> object:
    fields = {f.name: f for f in dataclasses.fields(Rules)}
    if name not in fields:
        raise RulesError(_unknown_message(name))
    if not isinstance(value, str):
        return value
    default = fields[name].default
    text = value.strip().lower()
    if isinstance(default, bool):
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise RulesError(f"option {name}: expected true or false, got {value!r}")
    if isinstance(default, int):
        try:
            return int(text)
        except ValueError:
            raise RulesError(f"option {name}: expected an integer, got {value!r}") from None
    return text


def parse_option(text: str) -> tuple[str, str]:
    """Split ``"name=value"`` as given to ``--set``."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise RulesError(f"bad option {text!r}: write name=value, e.g. knock_limit=7")
    return name.strip(), value.strip()


HOYLE: Final = Rules()

PRESETS: Final[dict[str, Rules]] = {
    "hoyle": HOYLE,
    "oklahoma": HOYLE.replace(oklahoma=True, oklahoma_spades_double=True),
    "bonus": HOYLE.replace(undercut_bonus=25, game_bonus=100, shutout_bonus=100, line_bonus=20),
    "big-gin": HOYLE.replace(big_gin=True),
}
"""Named presets. ``hoyle``: the Hoyle reading of every rule. ``oklahoma``: Oklahoma Gin with spade
doubling. ``bonus``: the scoring of source 001 (undercut 25, game bonus 100, 200 on a shutout, 20 a
hand won). ``big-gin``: hoyle with big gin (31)."""
