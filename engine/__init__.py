"""gin-rummy-arena's rules engine: two-player Gin Rummy by Hoyle, pure rules, no I/O.

Cards are ints 0..51 and sets of cards 52-bit int masks (:mod:`engine.cards`); the meld solver is in
:mod:`engine.melds`, the options in :mod:`engine.rules`.
"""

from engine.cards import (
    CARD_NAMES,
    FULL_DECK,
    RANKS,
    SUITS,
    Card,
    CardError,
    CardSet,
    card_name,
    card_value,
    cards_of,
    deadwood_value,
    format_cards,
    parse_card,
    parse_cards,
)
from engine.melds import (
    Arrangement,
    LayOff,
    LayOffResult,
    MeldError,
    all_arrangements,
    best_arrangement,
    best_discards,
    check_arrangement,
    deadwood,
    discard_deadwoods,
    is_meld,
    knock_arrangement,
    lay_off,
    min_deadwood,
)
from engine.rules import PRESETS, Rules, RulesError

__version__ = "0.1.0"

__all__ = [
    "CARD_NAMES",
    "FULL_DECK",
    "PRESETS",
    "RANKS",
    "SUITS",
    "Arrangement",
    "Card",
    "CardError",
    "CardSet",
    "LayOff",
    "LayOffResult",
    "MeldError",
    "Rules",
    "RulesError",
    "all_arrangements",
    "best_arrangement",
    "best_discards",
    "card_name",
    "card_value",
    "cards_of",
    "check_arrangement",
    "deadwood",
    "deadwood_value",
    "discard_deadwoods",
    "format_cards",
    "is_meld",
    "knock_arrangement",
    "lay_off",
    "min_deadwood",
    "parse_card",
    "parse_cards",
]
