"""The rules object: hoyle defaults, presets, immutability, validation and (de)serialisation."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from engine.rules import (
    HOYLE,
    PRESETS,
    Rules,
    RulesError,
    option_ids,
    option_names,
    parse_option,
)

INT_OPTIONS = {
    f.name: (f.metadata["low"], f.metadata["high"])
    for f in dataclasses.fields(Rules)
    if isinstance(f.default, int) and not isinstance(f.default, bool)
}
BOOL_OPTIONS = [f.name for f in dataclasses.fields(Rules) if isinstance(f.default, bool)]


def test_defaults_are_the_hoyle_reading() -> None:
    rules = Rules()
    assert rules.knock_limit == 10
    assert rules.gin_bonus == 25
    assert rules.undercut_bonus == 10
    assert rules.undercut_on_tie is True
    assert rules.game_target == 100
    assert rules.next_dealer == "winner"
    assert rules.stock_exhausted_at == 2
    assert rules.discard_taken_card is False  # R8 restriction on by default
    assert rules.big_gin is False
    assert rules.big_gin_bonus == 31
    assert rules.oklahoma is False
    assert rules.game_bonus == 0
    assert rules.shutout_bonus == 0
    assert rules.line_bonus == 0
    assert rules == HOYLE == PRESETS["hoyle"] == Rules.preset("hoyle")


def test_the_option_kinds_cover_every_option() -> None:
    names = set(option_names())
    assert names == set(INT_OPTIONS) | set(BOOL_OPTIONS) | {"next_dealer"}
    assert len(names) == len(option_names())
    ids = option_ids()
    assert set(ids) == names
    assert len(set(ids.values())) == len(ids)


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_is_valid(name: str) -> None:
    preset = Rules.preset(name)
    assert preset is PRESETS[name]
    assert Rules(**preset.to_dict()) == preset  # runs the validation again


def test_preset_contents() -> None:
    assert PRESETS["oklahoma"].oklahoma
    assert PRESETS["oklahoma"].oklahoma_spades_double
    bonus = PRESETS["bonus"]
    assert (bonus.undercut_bonus, bonus.game_bonus, bonus.shutout_bonus, bonus.line_bonus) == (
        25,
        100,
        100,
        20,
    )
    assert PRESETS["big-gin"].changes_from(HOYLE) == {"big_gin": True}
    assert PRESETS["big-gin"].big_gin_bonus == 31


def test_unknown_preset_is_named() -> None:
    with pytest.raises(RulesError, match="'casino'"):
        Rules.preset("casino")


# -- immutability ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", option_names())
def test_rules_are_frozen(name: str) -> None:
    rules = Rules()
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(rules, name, getattr(rules, name))
    assert rules == HOYLE


def test_rules_take_no_new_attributes_and_hash() -> None:
    rules = Rules()
    with pytest.raises((AttributeError, TypeError)):
        rules.colour = "red"  # type: ignore[attr-defined]
    assert hash(Rules()) == hash(HOYLE)
    assert {Rules(), Rules(knock_limit=7)} == {HOYLE, HOYLE.replace(knock_limit=7)}


def test_replace_and_with_options_leave_the_original_alone() -> None:
    rules = Rules()
    changed = rules.replace(knock_limit=7)
    texted = rules.with_options({"gin_bonus": "20"})
    assert rules == HOYLE
    assert changed.knock_limit == 7
    assert texted.gin_bonus == 20


# -- validation --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(INT_OPTIONS))
def test_int_option_range_is_inclusive_and_checked(name: str) -> None:
    low, high = INT_OPTIONS[name]
    assert getattr(Rules(**{name: low}), name) == low
    assert getattr(Rules(**{name: high}), name) == high
    for bad in (low - 1, high + 1):
        with pytest.raises(RulesError, match="out of range") as info:
            Rules(**{name: bad})
        assert name in str(info.value)
        assert str(bad) in str(info.value)


@pytest.mark.parametrize("name", list(INT_OPTIONS))
@pytest.mark.parametrize("bad", ["7", 7.0, True, None, [7]])
def test_int_option_rejects_other_types(name: str, bad: Any) -> None:
    with pytest.raises(RulesError, match="expected an integer") as info:
        Rules(**{name: bad})
    assert f"option {name}" in str(info.value)
    with pytest.raises(RulesError, match=name):
        HOYLE.replace(**{name: bad})


@pytest.mark.parametrize("name", BOOL_OPTIONS)
@pytest.mark.parametrize("bad", ["true", "false", 1, 0, None])
def test_bool_option_rejects_other_types(name: str, bad: Any) -> None:
    with pytest.raises(RulesError, match="expected true or false") as info:
        Rules(**{name: bad})
    assert f"option {name}" in str(info.value)


@pytest.mark.parametrize("name", BOOL_OPTIONS)
@pytest.mark.parametrize("text", ["maybe", "", "2", "t"])
def test_bool_option_text_that_is_not_a_boolean_is_named(name: str, text: str) -> None:
    with pytest.raises(RulesError, match="expected true or false") as info:
        HOYLE.with_options({name: text})
    assert f"option {name}" in str(info.value)
    assert repr(text) in str(info.value)


@pytest.mark.parametrize("name", list(INT_OPTIONS))
@pytest.mark.parametrize("text", ["seven", "7.5", "", "1e3"])
def test_int_option_text_that_is_not_an_integer_is_named(name: str, text: str) -> None:
    with pytest.raises(RulesError, match="expected an integer") as info:
        HOYLE.with_options({name: text})
    assert f"option {name}" in str(info.value)


@pytest.mark.parametrize("bad", ["dealer", "Winner", "", 0, None, True])
def test_next_dealer_lists_its_choices(bad: Any) -> None:
    with pytest.raises(RulesError, match="next_dealer") as info:
        Rules(next_dealer=bad)
    for choice in ("winner", "loser", "alternate"):
        assert choice in str(info.value)


@pytest.mark.parametrize("choice", ["winner", "loser", "alternate"])
def test_next_dealer_choices_are_accepted(choice: str) -> None:
    assert Rules(next_dealer=choice).next_dealer == choice  # type: ignore[arg-type]
    assert HOYLE.with_options({"next_dealer": choice.upper()}).next_dealer == choice


def test_unknown_option_is_named_everywhere() -> None:
    with pytest.raises(RulesError, match="'knock_limt'") as info:
        HOYLE.replace(knock_limt=7)
    assert "knock_limit" in str(info.value)  # the message lists the real options
    with pytest.raises(RulesError, match="'knock_limt'"):
        HOYLE.with_options({"knock_limt": "7"})
    with pytest.raises(RulesError, match="'colour'"):
        Rules.from_dict({"knock_limit": 7, "colour": "red"})


def test_rules_error_is_a_value_error() -> None:
    assert issubclass(RulesError, ValueError)


# -- text coercion and round trips -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("true", True),
        ("TRUE", True),
        (" yes ", True),
        ("on", True),
        ("1", True),
        ("false", False),
        ("No", False),
        ("off", False),
        ("0", False),
    ],
)
def test_with_options_reads_boolean_text(text: str, value: bool) -> None:
    for name in BOOL_OPTIONS:
        assert getattr(HOYLE.with_options({name: text}), name) is value


def test_with_options_reads_integer_text_and_keeps_typed_values() -> None:
    rules = HOYLE.with_options(
        {"knock_limit": " 7 ", "gin_bonus": "20", "big_gin": True, "turn_limit": 50}
    )
    assert (rules.knock_limit, rules.gin_bonus, rules.big_gin, rules.turn_limit) == (
        7,
        20,
        True,
        50,
    )
    with pytest.raises(RulesError, match="knock_limit"):
        HOYLE.with_options({"knock_limit": "11"})  # coerced, then range-checked


def test_to_dict_lists_every_option_typed() -> None:
    data = Rules(knock_limit=7, next_dealer="loser").to_dict()
    assert tuple(data) == option_names()
    assert data["knock_limit"] == 7
    assert data["next_dealer"] == "loser"
    assert data["big_gin"] is False


@pytest.mark.parametrize("name", list(PRESETS))
def test_to_dict_from_dict_round_trip(name: str) -> None:
    rules = PRESETS[name].replace(knock_limit=3, next_dealer="alternate", turn_limit=77)
    assert Rules.from_dict(rules.to_dict()) == rules
    assert Rules.from_dict(json.loads(json.dumps(rules.to_dict()))) == rules
    as_text = {k: str(v).lower() for k, v in rules.to_dict().items()}
    assert Rules.from_dict(as_text) == rules


def test_from_dict_fills_missing_options_with_hoyle() -> None:
    rules = Rules.from_dict({"gin_bonus": 20})
    assert rules == HOYLE.replace(gin_bonus=20)
    assert rules.changes_from(HOYLE) == {"gin_bonus": 20}
    assert Rules.from_dict({}) == HOYLE
    assert HOYLE.changes_from(HOYLE) == {}


@pytest.mark.parametrize(
    ("text", "pair"),
    [
        ("knock_limit=7", ("knock_limit", "7")),
        (" knock_limit = 7 ", ("knock_limit", "7")),
        ("next_dealer=loser", ("next_dealer", "loser")),
        ("a=b=c", ("a", "b=c")),
        ("big_gin=", ("big_gin", "")),
    ],
)
def test_parse_option(text: str, pair: tuple[str, str]) -> None:
    assert parse_option(text) == pair


@pytest.mark.parametrize("text", ["knock_limit", "=7", " = 7", ""])
def test_parse_option_rejects_text_without_name_and_value(text: str) -> None:
    with pytest.raises(RulesError, match="name=value") as info:
        parse_option(text)
    assert repr(text) in str(info.value)


def test_parse_option_feeds_with_options() -> None:
    name, value = parse_option("undercut_bonus=25")
    assert HOYLE.with_options({name: value}).undercut_bonus == 25
    name, value = parse_option("big_gin=")
    with pytest.raises(RulesError, match="big_gin"):
        HOYLE.with_options({name: value})
