"""gin-rummy-arena's rules engine: two-player Gin Rummy by Hoyle, pure rules, no I/O.

Cards are ints 0..51 and sets of cards 52-bit int masks (:mod:`engine.cards`); the meld solver is in
:mod:`engine.melds`, the options in :mod:`engine.rules`, the formats above the two-player game
(Hollywood, three players, partnership) in :mod:`engine.formats`. Every error the engine raises by
a type of its own is an :class:`EngineError` (:mod:`engine.errors`).
"""

from engine.actions import (
    BIG_GIN,
    DISCARDS,
    DRAW_DISCARD,
    DRAW_STOCK,
    KNOCKS,
    PASS,
    Action,
    ActionError,
    ActionKind,
)
from engine.cards import (
    CARD_NAMES,
    FULL_DECK,
    RANKS,
    SUITS,
    Card,
    CardError,
    CardSet,
    card_name,
    card_names,
    card_value,
    cards_of,
    deadwood_value,
    format_cards,
    parse_card,
    parse_cards,
)
from engine.deck import SplitMix64, shuffled_deck
from engine.errors import EngineError
from engine.formats import (
    FormatResult,
    Hollywood,
    Partnership,
    Session,
    ThreePlayer,
    new_session,
)
from engine.game import Game, GameEnd, GameError, GameResult
from engine.hand import (
    DECISION_PHASES,
    DecisionPhase,
    Hand,
    IllegalAction,
    Observation,
    Phase,
)
from engine.melds import (
    MAX_CARDS,
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
from engine.modes import FormatError, Mode
from engine.rules import PRESETS, Rules, RulesError
from engine.scoring import HandEnd, HandResult, ShowDown, knock_result, score_knock

__version__ = "0.1.0"

__all__ = [
    "BIG_GIN",
    "CARD_NAMES",
    "DECISION_PHASES",
    "DISCARDS",
    "DRAW_DISCARD",
    "DRAW_STOCK",
    "FULL_DECK",
    "KNOCKS",
    "MAX_CARDS",
    "PASS",
    "PRESETS",
    "RANKS",
    "SUITS",
    "Action",
    "ActionError",
    "ActionKind",
    "Arrangement",
    "Card",
    "CardError",
    "CardSet",
    "DecisionPhase",
    "EngineError",
    "FormatError",
    "FormatResult",
    "Game",
    "GameEnd",
    "GameError",
    "GameResult",
    "Hand",
    "HandEnd",
    "HandResult",
    "Hollywood",
    "IllegalAction",
    "LayOff",
    "LayOffResult",
    "MeldError",
    "Mode",
    "Observation",
    "Partnership",
    "Phase",
    "Rules",
    "RulesError",
    "Session",
    "ShowDown",
    "SplitMix64",
    "ThreePlayer",
    "all_arrangements",
    "best_arrangement",
    "best_discards",
    "card_name",
    "card_names",
    "card_value",
    "cards_of",
    "check_arrangement",
    "deadwood",
    "deadwood_value",
    "discard_deadwoods",
    "format_cards",
    "is_meld",
    "knock_arrangement",
    "knock_result",
    "lay_off",
    "min_deadwood",
    "new_session",
    "parse_card",
    "parse_cards",
    "score_knock",
    "shuffled_deck",
]
