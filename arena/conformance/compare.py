"""Cards, decks and comparisons: how a conformance case's cards are read, the deck a deal stands
for (R5), and how the engine's answers (states, results, show-downs, game results) are compared
with the case's, with the messages a mismatch fails with.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from arena.conformance.caseformat import CaseFailure
from engine.cards import CARD_NAMES, RANKS, SUITS, parse_card
from engine.hand import Action, ActionError
from protocol.codec import QUOTE_LIMIT

_CANONICAL = [r + s for s in SUITS for r in RANKS]  # AC 2C .. KC AD .. KS: the fill order


def canon(name: object) -> str:
    """A card name in canonical notation (``"10h"`` -> ``"TH"``)."""
    if not isinstance(name, str):
        raise ValueError(f"a card is a string, not {name!r}")
    return CARD_NAMES[parse_card(name)]


def card_set(names: Iterable[object]) -> frozenset[str]:
    return frozenset(canon(name) for name in names)


def full_deal(deal: Mapping[str, Any]) -> tuple[list[str], list[str], str, list[str]]:
    """The two hands, the upcard and the whole stock (top first) of a deal: the listed stock cards,
    then every card not yet placed in canonical order (suits C, D, H, S; ranks A..K)."""
    hands = [list(deal["hands"][0]), list(deal["hands"][1])]
    upcard = deal["upcard"]
    stock = list(deal.get("stock", ()))
    names = [canon(name) for name in [*hands[0], *hands[1], upcard, *stock]]
    if len(hands[0]) != 10 or len(hands[1]) != 10:
        raise ValueError("each hand has exactly ten cards")
    if len(set(names)) != len(names):
        raise ValueError(f"a card is placed twice: {' '.join(names)}")
    placed = set(names)
    stock = names[21:] + [c for c in _CANONICAL if c not in placed]
    return names[:10], names[10:20], names[20], stock


def build_deck(deal: Mapping[str, Any], dealer: int) -> list[str]:
    """The deck order for ``deal`` dealt by ``dealer`` (R5): ``deck[2i]`` is the non-dealer's
    i-th card, ``deck[2i + 1]`` the dealer's, ``deck[20]`` the upcard and ``deck[21:]`` the stock,
    top first."""
    p0, p1, upcard, stock = full_deal(deal)
    non_dealer, dealer_cards = (p1, p0) if dealer == 0 else (p0, p1)
    order: list[str] = []
    for mine, theirs in zip(non_dealer, dealer_cards, strict=True):
        order += [mine, theirs]
    return [*order, upcard, *stock]


def canonical_action(cid: str, where: str, text: object) -> str:
    """An action in the notation's canonical spelling (so that spellings compare by meaning)."""
    try:
        return str(Action.parse(str(text)))
    except ActionError as error:
        raise CaseFailure(cid, where, f"bad action notation {text!r}: {error}") from None


def readable(value: object) -> str:
    """Cards in canonical order, sets of cards (melds) sorted, other values as JSON writes them
    (``null``, ``true``, ``"knock"``), for readable failure messages."""
    if isinstance(value, frozenset):
        if all(isinstance(v, str) for v in value):
            return "{" + " ".join(sorted(value, key=_order)) + "}"
        return "{" + ", ".join(sorted(readable(v) for v in value)) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(readable(v) for v in value) + "]"
    if isinstance(value, tuple) and len(value) == 2:  # a lay-off: (card, the meld it goes onto)
        return f"{value[0]} onto {readable(value[1])}"
    return said(value)


def said(value: object) -> str:
    """A value the engine gave, for a message: as JSON writes it (``null``, not ``None``), cut
    short."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= QUOTE_LIMIT else text[:QUOTE_LIMIT] + "..."


printable_value = said


def state_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> str:
    """What differs between two states of a hand, key by key (cards as sets: what left and what
    came), for the message of a rejected action that changed the hand."""
    changes: list[str] = []
    for key in sorted(set(before) | set(after)):
        old, new = before.get(key), after.get(key)
        if old == new:
            continue
        if key == "hands" and isinstance(old, list) and isinstance(new, list):
            for seat, (was, now) in enumerate(zip(old, new, strict=False)):
                if was != now:
                    changes.append(f"hands[{seat}] {_card_diff(was, now)}")
        elif key in ("stock", "discard_pile") and isinstance(old, list) and isinstance(new, list):
            changes.append(f"{key} {_card_diff(old, new)}")
        else:
            changes.append(f"{key} {readable(old)} -> {readable(new)}")
    return "; ".join(changes)


def _card_diff(old: object, new: object) -> str:
    if not isinstance(old, list) or not isinstance(new, list):
        return f"{said(old)} -> {said(new)}"
    gone = [c for c in old if c not in new]
    came = [c for c in new if c not in old]
    parts = [f"lost {' '.join(map(str, gone))}"] if gone else []
    parts += [f"gained {' '.join(map(str, came))}"] if came else []
    return ", ".join(parts) or "reordered"


def _order(name: str) -> int:
    return _CANONICAL.index(name) if name in _CANONICAL else 99


def observed(cid: str, where: str, state: Mapping[str, Any], key: str) -> object:
    if key not in state:
        raise CaseFailure(cid, where, f"the engine's state has no {key!r}")
    value = state[key]
    try:
        if key == "hands":
            return [card_set(cards) for cards in value]
        if key == "discard_pile":
            return [canon(name) for name in value]
        if key in ("stock_top", "discard_top", "taken_card") and value is not None:
            return canon(value)
    except (TypeError, ValueError) as error:
        raise CaseFailure(cid, where, f"the engine's {key} is not cards: {error}") from None
    return value


def expected_state(key: str, value: object) -> object:
    if key == "hands" and isinstance(value, list):
        return [card_set(cards) for cards in value]
    if key == "discard_pile" and isinstance(value, list):
        return [canon(name) for name in value]
    if key in ("stock_top", "discard_top", "taken_card") and isinstance(value, str):
        return canon(value)
    return value


def lay_off_fits(card: str, meld: set[str]) -> bool:
    """Whether ``card`` can be laid off onto ``meld`` as it stands (R10): the fourth card of a
    set of three, or the card next to either end of a run."""
    index = _CANONICAL.index(card)
    cards = [_CANONICAL.index(c) for c in meld]
    ranks = {c % 13 for c in cards}
    if len(ranks) == 1:  # a set
        return len(cards) == 3 and index % 13 in ranks
    suits = {c // 13 for c in cards}
    if suits != {index // 13}:
        return False
    low, high = min(c % 13 for c in cards), max(c % 13 for c in cards)
    return index % 13 in (low - 1, high + 1)


def compare_show_down(
    cid: str, where: str, key: str, want: object, show: Mapping[str, Any]
) -> tuple[object, object]:
    """The engine's value of a show-down key and the case's, in comparable form."""
    melds = [card_set(m) for m in show["knocker_melds"]]
    if key in ("knocker_deadwood", "defender_deadwood"):
        return show[key], want
    if key in ("knocker_melds", "defender_melds"):
        got = frozenset(card_set(m) for m in show[key])
        return got, frozenset(card_set(m) for m in want)  # type: ignore[attr-defined]
    if key in ("knocker_deadwood_cards", "defender_deadwood_cards"):
        return card_set(show[key]), card_set(want)  # type: ignore[arg-type]
    lay_offs = show["lay_offs"]
    if key == "laid_off":
        return card_set(lo["card"] for lo in lay_offs), card_set(want)  # type: ignore[arg-type]
    # lay_offs: the same (card, meld) pairs, in an order in which each card can be laid off
    extended = [set(m) for m in melds]
    for step, lo in enumerate(lay_offs, 1):
        card, index = canon(lo["card"]), lo["meld"]
        if not isinstance(index, int) or not 0 <= index < len(melds):
            raise CaseFailure(cid, where, f"lay-off {step}: no knocker meld {index!r}")
        if not lay_off_fits(card, extended[index]):
            order = [lo["card"] for lo in lay_offs]
            raise CaseFailure(
                cid,
                where,
                f"lay_offs: {card} cannot go onto {readable(frozenset(extended[index]))} "
                f"when it is laid off (order {order})",
            )
        extended[index].add(card)
    pairs: frozenset[tuple[str, frozenset[str]]] = frozenset(
        (canon(lo["card"]), melds[lo["meld"]]) for lo in lay_offs
    )
    wanted: list[Mapping[str, Any]] = list(want)  # type: ignore[call-overload]
    expected = frozenset((canon(lo["card"]), card_set(lo["meld"])) for lo in wanted)
    return pairs, expected


def mismatches(
    cid: str,
    where: str,
    result: Mapping[str, Any],
    expected: Mapping[str, Any],
    computed: Collection[str],
) -> list[tuple[str, str | None]]:
    """Each key of ``expected`` with how the engine's result compares: ``""`` when it matches,
    a message when it does not, ``None`` when the engine does not compute that key (not in
    ``computed``: a partial result)."""
    show = result.get("show_down")
    compared: list[tuple[str, str | None]] = []
    for key, want in expected.items():
        if key not in computed:
            compared.append((key, None))
            continue
        if key in ("end", "winner", "points", "doubled"):
            if key not in result:
                compared.append((key, f"{key}: the engine's result has no {key}{_DECLARE}"))
                continue
            got: object = result[key]
        elif show is None:
            compared.append((key, f"{key}: expected {readable(want)}, but there was no show-down"))
            continue
        else:
            try:
                got, want = compare_show_down(cid, where, key, want, show)
            except KeyError as error:
                compared.append((key, f"{key}: the engine's show-down has no {error}{_DECLARE}"))
                continue
            except (TypeError, ValueError) as error:
                compared.append((key, f"{key}: the engine's show-down is not cards ({error})"))
                continue
        compared.append(
            (key, f"{key}: expected {readable(want)}, got {readable(got)}" if got != want else "")
        )
    return compared


_DECLARE = " (an engine that does not compute it leaves it out of hello's capabilities.result_keys)"


def brief(result: Mapping[str, Any]) -> str:
    """A hand's result in a few words: ``knock, winner 0, 12 points``."""
    winner = result.get("winner")
    who = "no winner" if winner is None else f"winner {said(winner)}"
    points = f", {said(result['points'])} points" if "points" in result else ""
    return f"{said(result.get('end')).strip(chr(34))}, {who}{points}"
