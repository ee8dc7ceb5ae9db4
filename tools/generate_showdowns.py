"""Generate the ``showdown`` conformance cases ``arena/conformance/cases/showdown-gen-*.json``.

Each case is a show-down on its own (docs/CONFORMANCE.md, kind ``showdown``): the knocker's cards
and melds, the defender's ten cards, the rules, and the result the rules give (R10, R12-R14,
R18-R20). The expectations come from an **independent brute force** written in this file; nothing
of ``engine`` is used to compute them (``engine`` is imported only by ``--verify``, below).

Method:

- **Melds and deadwood (R1-R3).** Every meld of a card set is listed (every three or four cards of
  a rank, every run of three or more consecutive cards of a suit, the Ace low and no wrap from the
  King), and every collection of pairwise disjoint melds is enumerated (each exactly once, by
  deciding for the lowest card left whether it is deadwood or which meld holds it). The deadwood
  of a hand is the least value (A=1, 2-10 their pips, J/Q/K=10, R2) of the unmelded cards over
  all of them; every arrangement that reaches it is kept.
- **The knocker (R20).** Declared melds are taken as they are. Without them, every least-deadwood
  arrangement of the kept cards is ranked by R20's order: fewest exposed cards (the fourth card
  of each set of three, the card below and above each run within A..K, counted once, not counting
  the knocker's cards, the discard pile or the knock's discard), then fewest melds, then the
  smallest deadwood mask (card ``c`` weighs ``2**c``), then the smallest sorted tuple of meld
  masks.
- **The defender (R10).** Against gin or big gin (knocker deadwood 0, R14, R19) nothing is laid
  off and the defender counts the least deadwood of the ten cards. Otherwise, for each knocker
  meld every way to lay off is listed (nothing, or the fourth card of a set of three; ``i`` cards
  chained below a run and ``j`` chained above it, each adjacent to the run as already extended);
  every combination over the melds that uses each card at most once is weighed together with
  the least-deadwood arrangements of the defender's remaining cards. The least deadwood ``D`` and
  **every** combination that reaches it are recorded: one gives ``lay_offs`` (in laying order),
  several give a ``one_of`` result.
- **Scoring (R12-R14, R18, R19)** from the preset and options of each case (``hoyle``: gin 25,
  undercut 10, a tie is an undercut; ``bonus``: undercut 25; ``big-gin``: big gin 31;
  ``oklahoma``: a spade first upcard doubles everything).

Cases are found by searching seeded random deals: knocker hands built from random melds plus
deadwood within the knock limit, defenders drawn with extra weight on the cards that fit the
knocker's melds. Each category has a list of slots, each a predicate on the brute force's
findings (a chain at both ends of a run, a tie between lay-off choices, an R20 choice decided by
its third criterion, ...); the first deal that fills a slot becomes that case. Everything is
seeded, so the output is the same on every run.

Run from the repository root::

    python tools/generate_showdowns.py           # (re)write the case files
    python tools/generate_showdowns.py --check   # exit 1 if a file would change
    python tools/generate_showdowns.py --verify  # cross-check the files with engine

``--verify`` (only after generating) replays every written case through the project's engine
(``engine.melds.lay_off``, ``knock_arrangement``, ``best_arrangement``, ``engine.hand.score_knock``)
and reports every disagreement; it never changes a case.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CASES_DIR = ROOT / "arena" / "conformance" / "cases"
PREFIX = "showdown-gen-"

# ---------------------------------------------------------------------------------------------
# Cards: ``suit * 13 + rank``, ranks A..K as 0..12, suits C D H S as 0..3; a set is a bit mask.

RANKS = "A23456789TJQK"
SUITS = "CDHS"
SPADES = 3
ACE_CLUBS = 0


def name(card: int) -> str:
    return RANKS[card % 13] + SUITS[card // 13]


def parse(text: str) -> int:
    return SUITS.index(text[1]) * 13 + RANKS.index(text[0])


def value(card: int) -> int:
    """The deadwood value of a card (R2)."""
    return min(card % 13 + 1, 10)


def cards(mask: int) -> list[int]:
    """The cards of a mask, in canonical order."""
    return [c for c in range(52) if mask >> c & 1]


def mask_of(items: Iterable[int]) -> int:
    m = 0
    for c in items:
        m |= 1 << c
    return m


def total(mask: int) -> int:
    return sum(value(c) for c in cards(mask))


def names(mask: int) -> list[str]:
    return [name(c) for c in cards(mask)]


def text(mask: int) -> str:
    return " ".join(names(mask)) if mask else "nothing"


def meld_text(meld: int) -> str:
    return "[" + " ".join(names(meld)) + "]"


def is_set(meld: int) -> bool:
    return len({c % 13 for c in cards(meld)}) == 1


# ---------------------------------------------------------------------------------------------
# The brute force: melds, arrangements, the knocker's arrangement, the defender's lay-offs.

Arrangement = tuple[tuple[int, ...], int]
"""An arrangement: its melds (masks, ascending) and the mask of its deadwood cards."""


def melds_of(hand: int) -> list[int]:
    """Every meld in ``hand``: three or four cards of a rank, three or more in sequence in a suit
    (A low, K high, no wrap)."""
    out: list[int] = []
    for rank in range(13):
        group = [rank + 13 * suit for suit in range(4) if hand >> (rank + 13 * suit) & 1]
        for size in (3, 4):
            out.extend(mask_of(combo) for combo in itertools.combinations(group, size))
    for suit in range(4):
        for low in range(13):
            high = low
            while high < 13 and hand >> (13 * suit + high) & 1:
                if high - low >= 2:
                    out.append(mask_of(13 * suit + r for r in range(low, high + 1)))
                high += 1
    return out


@cache
def arrangements(hand: int) -> tuple[int, tuple[Arrangement, ...]]:
    """The least deadwood of ``hand`` and every arrangement (set of disjoint melds) reaching it."""
    melds = melds_of(hand)
    found: list[Arrangement] = []

    def search(rest: int, chosen: tuple[int, ...], dead: int) -> None:
        if not rest:
            found.append((tuple(sorted(chosen)), dead))
            return
        low = rest & -rest
        search(rest ^ low, chosen, dead | low)  # the lowest card left stays unmelded
        for meld in melds:  # or goes into one of the melds that hold it
            if meld & low and meld & rest == meld:
                search(rest ^ meld, (*chosen, meld), dead)

    search(hand, (), 0)
    least = min(total(dead) for _, dead in found)
    return least, tuple(sorted(a for a in found if total(a[1]) == least))


def least_deadwood(hand: int) -> int:
    return arrangements(hand)[0]


def exposure(melds: Sequence[int], unavailable: int) -> int:
    """R20: the cards a defender could lay off directly on ``melds``, except ``unavailable``."""
    exposed = 0
    for meld in melds:
        members = cards(meld)
        if is_set(meld):
            if len(members) == 3:
                rank = members[0] % 13
                exposed |= mask_of(rank + 13 * s for s in range(4)) & ~meld
        else:
            low, high = members[0], members[-1]
            if low % 13 != 0:
                exposed |= 1 << (low - 1)
            if high % 13 != 12:
                exposed |= 1 << (high + 1)
    return exposed & ~unavailable


@dataclass(frozen=True)
class KnockerChoice:
    """R20 for an undeclared knock: the candidates in order and which criterion decided."""

    ranked: tuple[tuple[tuple[int, int, int, tuple[int, ...]], Arrangement], ...]
    step: int  # 1..4: the first criterion that tells the chosen one from the runner-up; 0: alone


def r20_key(arr: Arrangement, unavailable: int) -> tuple[int, int, int, tuple[int, ...]]:
    melds, dead = arr
    return (exposure(melds, unavailable).bit_count(), len(melds), dead, melds)


def knocker_choice(kept: int, dead_cards: int) -> KnockerChoice:
    """R20's order over every least-deadwood arrangement of the knocker's kept cards."""
    _, candidates = arrangements(kept)
    unavailable = kept | dead_cards
    ranked = tuple(sorted(((r20_key(a, unavailable), a) for a in candidates), key=lambda x: x[0]))
    step = 0
    if len(ranked) > 1:
        first, second = ranked[0][0], ranked[1][0]
        step = next(i + 1 for i in range(4) if first[i] != second[i])
    return KnockerChoice(ranked, step)


def lay_off_options(meld: int, defender: int) -> list[tuple[int, ...]]:
    """Every way to lay off onto one knocker meld: the cards in laying order (R10)."""
    members = cards(meld)
    if is_set(meld):
        if len(members) == 4:
            return [()]
        rank = members[0] % 13
        fourth = [rank + 13 * s for s in range(4) if not meld >> (rank + 13 * s) & 1]
        return [()] + [(c,) for c in fourth if defender >> c & 1]
    low, high = members[0], members[-1]
    suit_low, suit_high = 13 * (low // 13), 13 * (low // 13) + 12
    below: list[int] = []
    card = low - 1
    while card >= suit_low and defender >> card & 1:
        below.append(card)
        card -= 1
    above: list[int] = []
    card = high + 1
    while card <= suit_high and defender >> card & 1:
        above.append(card)
        card += 1
    return [
        tuple(below[:i]) + tuple(above[:j])
        for i in range(len(below) + 1)
        for j in range(len(above) + 1)
    ]


@dataclass(frozen=True)
class Choice:
    """One set of lay-offs and the defender's best arrangements of what is left."""

    pairs: tuple[tuple[int, int], ...]  # (card, index of the knocker's meld), in laying order
    laid: int
    deadwood: int
    arrangements: tuple[Arrangement, ...]


def all_choices(defender: int, melds: Sequence[int]) -> list[Choice]:
    """Every combination of lay-offs (each card laid at most once) with its best rest."""
    per_meld = [lay_off_options(m, defender) for m in melds]
    out: list[Choice] = []
    for combo in itertools.product(*per_meld):
        laid = 0
        pairs: list[tuple[int, int]] = []
        clash = False
        for index, option in enumerate(combo):
            for card in option:
                clash = clash or bool(laid >> card & 1)
                laid |= 1 << card
                pairs.append((card, index))
        if clash:
            continue
        least, arrs = arrangements(defender & ~laid)
        out.append(Choice(tuple(pairs), laid, least, arrs))
    return out


@dataclass(frozen=True)
class Spec:
    """A show-down to generate: everything a case states, before its result."""

    category: str
    preset: str
    kept: int
    discard: int | None
    declared: tuple[int, ...] | None
    defender: int
    pile: tuple[int, ...] = ()
    upcard: int | None = None
    options: tuple[tuple[str, bool | int], ...] = ()


@dataclass(frozen=True)
class Scoring:
    gin_bonus: int = 25
    undercut_bonus: int = 10
    undercut_on_tie: bool = True
    big_gin: bool = False
    big_gin_bonus: int = 31
    oklahoma: bool = False
    oklahoma_spades_double: bool = True


PRESETS: dict[str, dict[str, bool | int]] = {
    "hoyle": {},
    "oklahoma": {"oklahoma": True},
    "bonus": {"undercut_bonus": 25},
    "big-gin": {"big_gin": True},
}


def scoring_of(spec: Spec) -> Scoring:
    changes: dict[str, Any] = {**PRESETS[spec.preset], **dict(spec.options)}
    return Scoring(**changes)


@dataclass(frozen=True)
class Showdown:
    """The brute force's findings for one spec."""

    melds: tuple[int, ...]  # the knocker's melds as shown
    knocker_dead: int
    kd: int
    r20: KnockerChoice | None
    bare: tuple[int, tuple[Arrangement, ...]]  # the defender without lay-offs
    combos: int  # lay-off combinations weighed (0 against gin)
    could_lay: int  # the least deadwood had lay-offs been allowed
    dd: int
    best: tuple[Choice, ...]  # every choice reaching dd, fewest cards first
    end: str
    winner: int
    points: int
    doubled: bool
    score_note: str


def score(s: Scoring, spec: Spec, kd: int, dd: int) -> tuple[str, int, int, bool, str]:
    """R12-R14, R18, R19: end, winner seat, points, doubled and the arithmetic in words."""
    if spec.discard is None:
        end, winner, points = "big_gin", 0, dd + s.big_gin_bonus
        note = f"big gin (R19): D + {s.big_gin_bonus} = {dd} + {s.big_gin_bonus} = {points}"
    elif kd == 0:
        end, winner, points = "gin", 0, dd + s.gin_bonus
        note = f"gin (R14): D + {s.gin_bonus} = {dd} + {s.gin_bonus} = {points}"
        if dd == 0:
            note += ", gin is never undercut"
    elif kd < dd or (kd == dd and not s.undercut_on_tie):
        end, winner, points = "knock", 0, dd - kd
        if kd == dd:
            note = f"K = D = {kd} with undercut_on_tie false (O4): a knock win worth 0 (R12)"
        else:
            note = f"K {kd} < D {dd}: knock (R12), D - K = {dd} - {kd} = {points}"
    else:
        end, winner, points = "undercut", 1, kd - dd + s.undercut_bonus
        how = (
            f"D = K = {kd}: a tie is an undercut (R13, O4)"
            if kd == dd
            else (f"D {dd} < K {kd}: undercut (R13)")
        )
        note = f"{how}, K - D + {s.undercut_bonus} = {kd} - {dd} + {s.undercut_bonus} = {points}"
    upcard = ACE_CLUBS if spec.upcard is None else spec.upcard
    doubled = s.oklahoma and s.oklahoma_spades_double and upcard // 13 == SPADES
    if doubled:
        points *= 2
        note += f"; the first upcard {name(upcard)} is a spade: doubled to {points} (R18)"
    return end, winner, points, doubled, note


def analyse(spec: Spec) -> Showdown:
    r20: KnockerChoice | None = None
    if spec.declared is not None:
        melds = spec.declared
    else:
        dead_cards = mask_of(spec.pile) | (0 if spec.discard is None else 1 << spec.discard)
        r20 = knocker_choice(spec.kept, dead_cards)
        melds = r20.ranked[0][1][0]
    knocker_dead = spec.kept & ~mask_of(c for m in melds for c in cards(m))
    kd = total(knocker_dead)
    bare = arrangements(spec.defender)
    choices = all_choices(spec.defender, melds)
    could_lay = min(ch.deadwood for ch in choices)
    best: tuple[Choice, ...]
    if kd == 0:  # R14, R19: no lay-offs against gin
        best = (Choice((), 0, bare[0], bare[1]),)
        combos = 0
    else:
        best = tuple(
            sorted(
                (ch for ch in choices if ch.deadwood == could_lay),
                key=lambda ch: (ch.laid.bit_count(), ch.pairs),
            )
        )
        combos = len(choices)
    dd = best[0].deadwood
    end, winner, points, doubled, note = score(scoring_of(spec), spec, kd, dd)
    return Showdown(
        melds,
        knocker_dead,
        kd,
        r20,
        bare,
        combos,
        could_lay,
        dd,
        best,
        end,
        winner,
        points,
        doubled,
        note,
    )


# ---------------------------------------------------------------------------------------------
# Turning findings into a case.


def unique(values: Iterable[Any]) -> Any | None:
    distinct = set(values)
    return next(iter(distinct)) if len(distinct) == 1 else None


def melds_json(melds: Iterable[int]) -> list[list[str]]:
    return [names(m) for m in melds]


def lay_offs_json(ch: Choice, melds: Sequence[int]) -> list[dict[str, Any]]:
    return [{"card": name(card), "meld": names(melds[index])} for card, index in ch.pairs]


def describe_choice(ch: Choice, melds: Sequence[int]) -> str:
    if not ch.pairs:
        laid = "laying off nothing"
    else:
        parts = []
        for index, meld in enumerate(melds):
            onto = [name(card) for card, i in ch.pairs if i == index]
            if onto:
                parts.append(f"{' then '.join(onto)} onto {meld_text(meld)}")
        laid = "laying off " + "; ".join(parts)
    return f"{laid}, leaving {describe_arrangements(ch.arrangements)}"


def describe_arrangements(arrs: Sequence[Arrangement]) -> str:
    melds = unique(a[0] for a in arrs)
    dead = unique(a[1] for a in arrs)
    if melds is not None:
        own = " ".join(meld_text(m) for m in melds) if melds else "no meld"
    else:
        own = " or ".join(" ".join(meld_text(m) for m in a[0]) or "no meld" for a in arrs)
    if dead is not None:
        return f"{own}, deadwood {text(dead)} = {total(dead)}"
    deads = " or ".join(f"{text(a[1])}" for a in arrs)
    return f"{own}, deadwood {deads} = {total(arrs[0][1])}"


def result_for(spec: Spec, sd: Showdown, ch: Choice) -> dict[str, Any]:
    out: dict[str, Any] = {"end": sd.end, "winner": sd.winner, "points": sd.points}
    if spec.preset == "oklahoma" or dict(spec.options).get("oklahoma"):
        out["doubled"] = sd.doubled
    out["knocker_deadwood"] = sd.kd
    out["defender_deadwood"] = sd.dd
    if spec.declared is None:
        out["knocker_melds"] = melds_json(sd.melds)
    out["knocker_deadwood_cards"] = names(sd.knocker_dead)
    if len(sd.best) > 1:
        out["laid_off"] = names(ch.laid)
    out["lay_offs"] = lay_offs_json(ch, sd.melds)
    own = unique(a[0] for a in ch.arrangements)
    if own is not None:
        out["defender_melds"] = melds_json(own)
    dead = unique(a[1] for a in ch.arrangements)
    if dead is not None:
        out["defender_deadwood_cards"] = names(dead)
    return out


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def arrangement_text(melds: Sequence[int]) -> str:
    return " ".join(meld_text(m) for m in melds) if melds else "no meld"


def r20_reason(spec: Spec, r20: KnockerChoice, unavailable: int) -> str:
    """Why R20's first candidate beats the runner-up, in words."""
    (k1, (m1, d1)), (k2, (m2, d2)) = r20.ranked[0], r20.ranked[1]
    if r20.step == 1:
        return f"it exposes the fewest cards ({k1[0]} against {k2[0]})"
    if r20.step == 2:
        return f"exposure is equal ({k1[0]}) and it has the fewest melds ({k1[1]} against {k2[1]})"
    if r20.step == 3:
        top = (d1 ^ d2).bit_length() - 1
        return (
            f"exposure ({k1[0]}) and meld count ({k1[1]}) are equal and its deadwood mask is the "
            f"smaller: {text(d1)} against {text(d2)}, whose highest differing card {name(top)} "
            f"is in the latter"
        )
    first = next(i for i in range(min(len(m1), len(m2))) if m1[i] != m2[i])
    return (
        f"exposure ({k1[0]}), meld count ({k1[1]}) and deadwood ({text(d1)}) are equal and its "
        f"ascending meld masks come first: {meld_text(m1[first])} is a smaller mask than "
        f"{meld_text(m2[first])}"
    )


def notes_for(spec: Spec, sd: Showdown) -> str:
    """The derivation of the expectation, sentence by sentence."""
    parts: list[str] = []
    melds = arrangement_text(sd.melds)
    if spec.declared is not None:
        parts.append(f"The knocker declares {melds}")
        least = least_deadwood(spec.kept)
        if least < sd.kd:
            could = "all meld (gin)" if least == 0 else f"be arranged with deadwood {least}"
            parts.append(
                f"The kept cards could {could}, but the melds shown count (R20), and gin is "
                f"judged on them (R14)"
            )
    else:
        assert sd.r20 is not None
        dead_cards = mask_of(spec.pile) | (0 if spec.discard is None else 1 << spec.discard)
        unavailable = spec.kept | dead_cards
        dead_what = "discard pile" if spec.discard is None else "discard pile and the discard"
        n = len(sd.r20.ranked)
        if n == 1:
            parts.append(
                f"Undeclared: one arrangement of the kept cards has least deadwood, {melds}"
            )
        else:
            listing = "; ".join(
                f"{arrangement_text(arr[0])} (exposes "
                f"{text(exposure(arr[0], unavailable))}, {plural(len(arr[0]), 'meld')}, "
                f"deadwood {text(arr[1])})"
                for _, arr in sd.r20.ranked
            )
            parts.append(
                f"Undeclared (R20): {n} arrangements reach the least deadwood {sd.kd}: {listing}. "
                f"Not exposed, as the defender cannot hold them: the {dead_what}, "
                f"{text(dead_cards)}. R20 shows {melds}: "
                f"{r20_reason(spec, sd.r20, unavailable)}"
            )
            alone = knocker_choice(spec.kept, 0).ranked[0][1]
            if dead_cards and alone != sd.r20.ranked[0][1]:
                parts.append(
                    f"Were the {dead_what} counted as exposed, R20 would show "
                    f"{arrangement_text(alone[0])} instead"
                )
            for _, arr in sd.r20.ranked[1:]:
                other = deadwood_if_shown(spec, arr[0])
                if other != sd.dd:
                    parts.append(
                        f"Shown as {arrangement_text(arr[0])}, the defender would count {other}"
                    )
    if sd.kd:
        parts.append(f"Knocker deadwood {text(sd.knocker_dead)} = {sd.kd}")
    else:
        parts.append("No knocker deadwood")
    bare_text = f"the defender's ten alone: {describe_arrangements(sd.bare[1])}"
    if sd.kd == 0:
        reason, rule = ("big gin", "R19") if spec.discard is None else ("gin", "R14")
        parts.append(f"Against {reason} nothing is laid off (R10, {rule}); {bare_text}")
        if sd.could_lay < sd.bare[0]:
            parts.append(f"With lay-offs the defender could have reached {sd.could_lay}")
    else:
        parts.append(
            f"Without lay-offs, {bare_text}. Brute force over "
            f"{plural(sd.combos, 'lay-off combination')}, each with the best arrangement of the "
            f"rest: the least defender deadwood is {sd.dd}"
        )
        if len(sd.best) == 1:
            parts.append(f"Only one choice reaches it: {describe_choice(sd.best[0], sd.melds)}")
        else:
            alternatives = "; or ".join(describe_choice(ch, sd.melds) for ch in sd.best)
            parts.append(f"{len(sd.best)} lay-off choices reach it: {alternatives}")
    if spec.preset == "oklahoma" and spec.upcard is not None:
        limit = 0 if spec.upcard % 13 == 0 else value(spec.upcard)
        parts.append(
            f"Oklahoma: the first upcard {name(spec.upcard)} sets the knock limit to {limit} "
            f"(R18), and K = {sd.kd} is within it"
        )
    parts.append(sd.score_note)
    return ". ".join(p[0].upper() + p[1:] for p in parts) + "."


def covers_for(spec: Spec, sd: Showdown, extra: Sequence[str]) -> list[str]:
    ids: list[str] = []
    ids.append("R10")
    if sd.kd == 0:
        ids.append("R19" if spec.discard is None else "R14")
    ids.append({"knock": "R12", "undercut": "R13", "gin": "R14", "big_gin": "R19"}[sd.end])
    if sd.end == "undercut":
        ids.append("O3")
        if sd.kd == sd.dd:
            ids.append("O4")
    if sd.end == "knock" and sd.kd == sd.dd:
        ids.extend(["O4", "R13"])
    if sd.end == "gin":
        ids.append("O2")
    if sd.end == "big_gin":
        ids.extend(["O6", "O7"])
    if spec.preset == "oklahoma":
        ids.extend(["R18", "O13", "O14"])
    if spec.declared is None:
        ids.append("R20")
    every_dead = sd.knocker_dead | mask_of(
        c for ch in sd.best for a in ch.arrangements for c in cards(a[1])
    )
    if any(c % 13 in (0, 9, 10, 11, 12) for c in cards(every_dead)):
        ids.append("R2")
    if any(a[0] for ch in sd.best for a in ch.arrangements):
        ids.append("R3")
    ids.extend(extra)
    return list(dict.fromkeys(ids))


@dataclass(frozen=True)
class Case:
    topic: str
    title: str
    spec: Spec
    covers: tuple[str, ...] = ()


def case_json(number: int, case: Case) -> dict[str, Any]:
    spec = case.spec
    sd = analyse(spec)
    data: dict[str, Any] = {
        "id": f"{PREFIX}{number:02d}-{case.topic}",
        "title": case.title,
        "covers": covers_for(spec, sd, case.covers),
        "kind": "showdown",
        "notes": notes_for(spec, sd),
        "rules": {"preset": spec.preset, "options": dict(spec.options)},
    }
    if spec.upcard is not None:
        data["first_upcard"] = name(spec.upcard)
    data["knocker_cards"] = names(spec.kept)
    data["discard"] = None if spec.discard is None else name(spec.discard)
    if spec.declared is not None:
        data["knocker_melds"] = melds_json(spec.declared)
    if spec.pile or spec.declared is None:
        data["discard_pile"] = [name(c) for c in spec.pile]
    data["defender_cards"] = names(spec.defender)
    if len(sd.best) == 1:
        data["result"] = result_for(spec, sd, sd.best[0])
    else:
        data["result"] = {
            "one_of": [result_for(spec, sd, ch) for ch in sd.best],
            "criterion": "the least defender deadwood; any set of lay-offs that reaches it",
        }
    return data


# ---------------------------------------------------------------------------------------------
# Random deals.


def pick_meld(rng: random.Random, free: int, size: int, set_share: float = 0.4) -> int | None:
    """A random meld of ``size`` cards from ``free`` (a set for 3 or 4 with some probability)."""
    for _ in range(40):
        if size <= 4 and rng.random() < set_share:
            rank = rng.randrange(13)
            group = [rank + 13 * s for s in range(4) if free >> (rank + 13 * s) & 1]
            if len(group) >= size:
                return mask_of(rng.sample(group, size))
        else:
            suit, start = rng.randrange(4), rng.randrange(14 - size)
            meld = mask_of(13 * suit + start + i for i in range(size))
            if meld & free == meld:
                return meld
    return None


def pick_dead(rng: random.Random, free: int, count: int, limit: int) -> int | None:
    """``count`` random cards from ``free`` worth ``limit`` at most in all."""
    for _ in range(40):
        budget, chosen = limit, 0
        for _ in range(count):
            pool = [c for c in cards(free & ~chosen) if value(c) <= budget - (count - 1)]
            if not pool:
                break
            card = rng.choice(pool)
            chosen |= 1 << card
            budget -= value(card)
        if chosen.bit_count() == count and total(chosen) <= limit:
            return chosen
    return None


GIN_SHAPES = [(3, 3, 4), (3, 7), (4, 6), (5, 5), (3, 3, 4), (4, 3, 3), (3, 4, 3), (3, 3, 4)]
BIG_GIN_SHAPES = [(3, 4, 4), (3, 3, 5), (4, 7), (5, 6), (3, 8), (4, 3, 4), (3, 3, 5)]
KNOCK_SHAPES = [(3, 3), (3, 4), (4, 4), (3, 3, 3), (3, 5), (4, 5), (3, 3), (3, 4), (3, 3, 3)]


def build_knocker(
    rng: random.Random, free: int, shape: Sequence[int], n_cards: int, limit: int
) -> tuple[int, tuple[int, ...]] | None:
    """Kept cards made of melds of the given sizes plus deadwood worth at most ``limit``, whose
    melds are a least-deadwood arrangement of them."""
    melds: list[int] = []
    used = 0
    for size in shape:
        meld = pick_meld(rng, free & ~used, size)
        if meld is None:
            return None
        melds.append(meld)
        used |= meld
    n_dead = n_cards - used.bit_count()
    dead = 0
    if n_dead:
        picked = pick_dead(rng, free & ~used, n_dead, limit)
        if picked is None:
            return None
        dead = picked
    kept = used | dead
    if least_deadwood(kept) != total(dead):
        return None
    return kept, tuple(sorted(melds))


def hot_cards(melds: Sequence[int], reach: int = 3) -> int:
    """Cards that fit the melds: the fourth card of a set of three, up to ``reach`` cards beyond
    each end of a run."""
    hot = 0
    for meld in melds:
        members = cards(meld)
        if is_set(meld):
            rank = members[0] % 13
            hot |= mask_of(rank + 13 * s for s in range(4)) & ~meld
            continue
        suit = members[0] // 13
        for r in range(members[0] % 13 - reach, members[-1] % 13 + reach + 1):
            if 0 <= r < 13:
                hot |= 1 << (13 * suit + r)
        hot &= ~meld
    return hot


def meld_through(rng: random.Random, card: int, free: int) -> int | None:
    """A random meld of three or four cards of ``free`` that holds ``card``."""
    rank, suit = card % 13, card // 13
    options: list[int] = []
    group = [rank + 13 * s for s in range(4) if s != suit and free >> (rank + 13 * s) & 1]
    options.extend(mask_of((card, *combo)) for combo in itertools.combinations(group, 2))
    for length in (3, 4):
        for start in range(rank - length + 1, rank + 1):
            if start >= 0 and start + length <= 13:
                run = mask_of(13 * suit + start + i for i in range(length))
                if run & (free | 1 << card) == run:
                    options.append(run)
    return rng.choice(options) if options else None


def build_defender(
    rng: random.Random, free: int, melds: Sequence[int], *, weight: int, own: int, through: float
) -> int:
    """Ten cards from ``free``: ``own`` melds (a share of them through a card that fits the
    knocker's melds), the rest drawn with ``weight`` times the chance for such cards."""
    hot = hot_cards(melds) & free
    chosen = 0
    for _ in range(own):
        room = free & ~chosen
        if hot & room and rng.random() < through:
            meld = meld_through(rng, rng.choice(cards(hot & room)), room)
        else:
            meld = pick_meld(rng, room, rng.choice((3, 3, 4)))
        if meld is not None and (chosen | meld).bit_count() <= 10:
            chosen |= meld
    while chosen.bit_count() < 10:
        pool = cards(free & ~chosen)
        weights = [weight if hot >> c & 1 else 1 for c in pool]
        chosen |= 1 << rng.choices(pool, weights)[0]
    return chosen


def random_card(rng: random.Random, free: int, prefer: int = 0, share: float = 0.0) -> int:
    if prefer & free and rng.random() < share:
        return rng.choice(cards(prefer & free))
    return rng.choice(cards(free))


FULL = (1 << 52) - 1


def declared_deal(
    rng: random.Random,
    category: str,
    *,
    gin: bool = False,
    weight: int = 8,
    own: Sequence[int] = (0, 1),
    through: float = 0.5,
    preset: str = "hoyle",
    limit: int = 10,
    upcard: int | None = None,
    options: tuple[tuple[str, bool | int], ...] = (),
) -> Spec | None:
    """A random show-down with declared knocker melds."""
    free = FULL
    pile: tuple[int, ...] = ()
    if upcard is not None:
        free &= ~(1 << upcard)
        pile = (upcard,)
    shape = rng.choice(GIN_SHAPES if gin else KNOCK_SHAPES)
    built = build_knocker(rng, free, shape, 10, limit)
    if built is None:
        return None
    kept, melds = built
    free &= ~kept
    discard = random_card(rng, free)
    free &= ~(1 << discard)
    defender = build_defender(rng, free, melds, weight=weight, own=rng.choice(own), through=through)
    return Spec(category, preset, kept, discard, melds, defender, pile, upcard, options)


# ---------------------------------------------------------------------------------------------
# Predicates on the findings.


def only(sd: Showdown) -> Choice | None:
    return sd.best[0] if len(sd.best) == 1 else None


def definite(sd: Showdown) -> bool:
    """One optimal choice, whose rest has one set of deadwood cards."""
    ch = only(sd)
    return ch is not None and unique(a[1] for a in ch.arrangements) is not None


def run_ends_laid(sd: Showdown, ch: Choice) -> list[tuple[int, int, int]]:
    """For each knocker run: (index, cards laid below, cards laid above)."""
    out = []
    for index, meld in enumerate(sd.melds):
        if is_set(meld):
            continue
        low = cards(meld)[0]
        onto = [card for card, i in ch.pairs if i == index]
        out.append((index, sum(c < low for c in onto), sum(c > low for c in onto)))
    return out


def both_ends(sd: Showdown, below: int, above: int) -> bool:
    ch = only(sd)
    if ch is None or not definite(sd) or sd.kd == 0:
        return False
    return any(b >= below and a >= above for _, b, a in run_ends_laid(sd, ch))


def chain_reaches(sd: Showdown, rank: int) -> bool:
    ch = only(sd)
    if ch is None:
        return False
    return any(
        b and a and any(c % 13 == rank and i == index for c, i in ch.pairs)
        for index, b, a in run_ends_laid(sd, ch)
    )


def set_and_run_cards(sd: Showdown, defender: int) -> list[tuple[int, int, int]]:
    """Defender cards that are both the fourth card of a knocker set of three and next to an
    end of a knocker run: (card, set index, run index)."""
    out = []
    for si, s in enumerate(sd.melds):
        if not is_set(s) or s.bit_count() != 3:
            continue
        rank = cards(s)[0] % 13
        fourth = mask_of(rank + 13 * x for x in range(4)) & ~s & defender
        for card in cards(fourth):
            for ri, run in enumerate(sd.melds):
                if is_set(run):
                    continue
                members = cards(run)
                low, high = members[0], members[-1]
                if (card == low - 1 and low % 13) or (card == high + 1 and high % 13 != 12):
                    out.append((card, si, ri))
    return out


def fits_both_used(sd: Showdown, spec: Spec, on_run: bool) -> bool:
    found = set_and_run_cards(sd, spec.defender)
    ch = only(sd)
    if not found or ch is None or not definite(sd):
        return False
    return any((card, ri if on_run else si) in ch.pairs for card, si, ri in found)


def fits_both_tied(sd: Showdown, spec: Spec) -> bool:
    found = set_and_run_cards(sd, spec.defender)
    if not found or len(sd.best) < 2 or len(sd.best) > 4:
        return False
    return any(
        any((card, si) in ch.pairs for ch in sd.best)
        and any((card, ri) in ch.pairs for ch in sd.best)
        for card, si, ri in found
    )


def tie_kind(sd: Showdown) -> str:
    """How the optimal choices differ: "same-cards" (only the melds they go onto), "sizes"
    (different numbers of cards laid off) or "swap" (different cards, same number); "" unless
    several choices tie, each leaving one set of deadwood cards."""
    if len(sd.best) < 2 or sd.kd == 0:
        return ""
    if any(unique(a[1] for a in ch.arrangements) is None for ch in sd.best):
        return ""
    laid = {ch.laid for ch in sd.best}
    if len(laid) == 1:
        return "same-cards"
    if len({m.bit_count() for m in laid}) > 1:
        return "sizes"
    return "swap"


def own_meld_fate(sd: Showdown, spec: Spec) -> tuple[str, bool] | None:
    """For a definite choice: ("break" or "keep", whether the meld is a set) when the defender's
    own meld (in every best arrangement of its ten) holds a card that could be laid off, and it
    is broken (a card laid off, another left unmelded) or kept whole; else None."""
    ch = only(sd)
    if ch is None or not definite(sd) or sd.kd == 0:
        return None
    layable = mask_of(c for m in sd.melds for opt in lay_off_options(m, spec.defender) for c in opt)
    common = set(sd.bare[1][0][0])
    for arr in sd.bare[1][1:]:
        common &= set(arr[0])
    final_melded = mask_of(c for m in ch.arrangements[0][0] for c in cards(m))
    for meld in sorted(common):
        if not meld & layable:
            continue
        if meld & ch.laid and meld & ~ch.laid & ~final_melded:
            return "break", is_set(meld)
        if not meld & ch.laid and meld in ch.arrangements[0][0] and len(ch.arrangements) == 1:
            return "keep", is_set(meld)
    return None


Accept = Callable[[Spec, Showdown], bool]


@dataclass(frozen=True)
class Slot:
    """Cases to find: their id topic, their title prefix, the predicate a deal must meet and
    how many distinct deals to take."""

    topic: str
    title: str
    accept: Accept
    count: int = 1


@dataclass(frozen=True)
class Category:
    name: str
    seed: int
    make: Callable[[random.Random], Spec | None]
    slots: tuple[Slot, ...]
    covers: tuple[str, ...] = ()
    budget: int = 200_000


def search(cat: Category) -> list[Case]:
    """Fill each slot with the first random deals that meet it; the cases come out in slot
    order."""
    rng = random.Random(cat.seed)
    wanted = [slot for slot in cat.slots for _ in range(slot.count)]
    found: list[Case | None] = [None] * len(wanted)
    seen: set[tuple[int, int]] = set()
    for _ in range(cat.budget):
        if all(found):
            break
        spec = cat.make(rng)
        if spec is None or (spec.kept, spec.defender) in seen:
            continue
        sd = analyse(spec)
        for i, slot in enumerate(wanted):
            if found[i] is None and slot.accept(spec, sd):
                seen.add((spec.kept, spec.defender))
                found[i] = Case(slot.topic, f"{slot.title}: {summary(sd)}", spec, cat.covers)
                break
    missing = sorted({wanted[i].topic for i, case in enumerate(found) if case is None})
    if missing:
        raise SystemExit(f"category {cat.name}: no deal found for {', '.join(missing)}")
    return [case for case in found if case is not None]


def summary(sd: Showdown) -> str:
    """The end of a title: the lay-offs in short, and who wins what."""
    if sd.kd == 0:
        tail = "no lay-offs"
    elif len(sd.best) > 1:
        tail = f"{len(sd.best)} tied lay-off choices"
    elif sd.best[0].pairs:
        tail = "lays off " + " ".join(name(c) for c, _ in sd.best[0].pairs)
    else:
        tail = "lays off nothing"
    return f"{tail}, {sd.end.replace('_', ' ')} for {sd.points}"


# ---------------------------------------------------------------------------------------------
# The categories.


def cat_chains() -> Category:
    def make(rng: random.Random) -> Spec | None:
        return declared_deal(rng, "chains", weight=14, own=(0, 0, 1), through=0.2)

    def chain(below: int, above: int) -> Accept:
        return lambda spec, sd: both_ends(sd, below, above)

    def reaches(rank: int) -> Accept:
        return lambda spec, sd: both_ends(sd, 1, 1) and chain_reaches(sd, rank)

    def with_set(spec: Spec, sd: Showdown) -> bool:
        pairs = sd.best[0].pairs
        return both_ends(sd, 1, 1) and any(is_set(sd.melds[i]) for _, i in pairs)

    def keeps_meld(spec: Spec, sd: Showdown) -> bool:
        return both_ends(sd, 1, 1) and bool(sd.best[0].arrangements[0][0])

    def longest(spec: Spec, sd: Showdown) -> bool:
        return both_ends(sd, 1, 1) and len(sd.best[0].pairs) >= 5

    both = "Lay-off chain at both ends of a run"
    return Category(
        "chains",
        101,
        make,
        (
            Slot("chain-down-two-up-one", f"{both}, two below", chain(2, 1)),
            Slot("chain-down-one-up-two", f"{both}, two above", chain(1, 2)),
            Slot("chain-two-each-end", f"{both}, two at each end", chain(2, 2)),
            Slot("chain-down-to-ace", f"{both}, down to the Ace", reaches(0)),
            Slot("chain-up-to-king", f"{both}, up to the King", reaches(12)),
            Slot("chain-and-fourth-card", f"{both}, and a set's fourth card", with_set),
            Slot("chain-defender-keeps-meld", f"{both}, the defender's own meld kept", keeps_meld),
            Slot("chain-five-cards", f"{both}, five or more cards laid off", longest),
        ),
        budget=60_000,
    )


def cat_set_or_run() -> Category:
    def make(rng: random.Random) -> Spec | None:
        return declared_deal(rng, "set-or-run", weight=16, own=(0, 1), through=0.3)

    def on_run(spec: Spec, sd: Showdown) -> bool:
        return fits_both_used(sd, spec, on_run=True)

    def on_run_undercut(spec: Spec, sd: Showdown) -> bool:
        return on_run(spec, sd) and sd.end == "undercut"

    def tied(spec: Spec, sd: Showdown) -> bool:
        return fits_both_tied(sd, spec)

    on_the_run = "A card that fits a set and a run goes on the run, where a chain follows"
    either = "A card that fits a set and a run: either meld, the same deadwood"
    return Category(
        "set-or-run",
        202,
        make,
        (
            Slot("set-or-run-chain-wins", on_the_run, on_run, 3),
            Slot("set-or-run-chain-undercut", on_the_run, on_run_undercut),
            Slot("set-or-run-tie", either, tied, 4),
        ),
    )


def cat_ties() -> Category:
    def make(rng: random.Random) -> Spec | None:
        return declared_deal(rng, "ties", weight=10, own=(1, 1, 2), through=0.7)

    def kind(k: str, most: int = 4) -> Accept:
        return lambda spec, sd: tie_kind(sd) == k and len(sd.best) <= most

    def three(spec: Spec, sd: Showdown) -> bool:
        return tie_kind(sd) != "" and 3 <= len(sd.best) <= 4

    def undercut(spec: Spec, sd: Showdown) -> bool:
        return tie_kind(sd) != "" and len(sd.best) <= 4 and sd.end == "undercut"

    keep = "Tied lay-offs: laying off cards or keeping them melded"
    return Category(
        "ties",
        303,
        make,
        (
            Slot("tie-lay-off-or-keep", keep, kind("sizes", 2), 2),
            Slot("tie-lay-off-or-keep", keep, kind("sizes", 3)),
            Slot(
                "tie-same-cards-two-melds",
                "Tied lay-offs: the same cards onto different melds",
                kind("same-cards"),
                2,
            ),
            Slot(
                "tie-different-cards",
                "Tied lay-offs: different cards, the same deadwood",
                kind("swap"),
            ),
            Slot("tie-three-or-more", "Three or more lay-off choices tie", three),
            Slot("tie-undercut", "Tied lay-offs on an undercut", undercut),
        ),
    )


def cat_own_melds() -> Category:
    def make(rng: random.Random) -> Spec | None:
        return declared_deal(rng, "own-melds", weight=8, own=(1, 2), through=0.9)

    def fate(k: str, is_set_meld: bool) -> Accept:
        return lambda spec, sd: own_meld_fate(sd, spec) == (k, is_set_meld)

    keeps = "The defender keeps its own {} rather than lay off from it"
    return Category(
        "own-melds",
        404,
        make,
        (
            Slot(
                "breaks-own-run",
                "The defender breaks its own run to lay off",
                fate("break", False),
                2,
            ),
            Slot(
                "breaks-own-set",
                "The defender breaks its own set to lay off",
                fate("break", True),
                2,
            ),
            Slot("keeps-own-run", keeps.format("run"), fate("keep", False), 2),
            Slot("keeps-own-set", keeps.format("set"), fate("keep", True), 2),
        ),
        covers=("R3",),
    )


def cat_gin() -> Category:
    def make(rng: random.Random) -> Spec | None:
        return declared_deal(rng, "gin", gin=True, weight=10, own=(0, 1, 2, 3), through=0.5)

    def blocked(spec: Spec, sd: Showdown) -> bool:
        return sd.kd == 0 and sd.could_lay < sd.bare[0] and len(sd.bare[1]) == 1

    def blocked_by(least: int) -> Accept:
        return lambda spec, sd: blocked(spec, sd) and sd.bare[0] - sd.could_lay >= least

    def zero(spec: Spec, sd: Showdown) -> bool:
        return sd.kd == 0 and sd.dd == 0

    def own(spec: Spec, sd: Showdown) -> bool:
        return blocked(spec, sd) and bool(sd.bare[1][0][0])

    title = "Gin: the defender lays nothing off"
    return Category(
        "gin",
        505,
        make,
        (
            Slot("gin-no-lay-offs", title, blocked, 2),
            Slot("gin-no-lay-offs", title, blocked_by(10)),
            Slot("gin-no-lay-offs", title, blocked_by(15)),
            Slot("gin-no-lay-offs", title, blocked_by(20)),
            Slot("gin-no-lay-offs-own-meld", f"{title}, own melds count", own, 2),
            Slot(
                "gin-against-no-deadwood",
                "Gin against a defender with no deadwood: never undercut",
                zero,
            ),
        ),
    )


def cat_not_gin() -> Category:
    def make(rng: random.Random) -> Spec | None:
        spec = declared_deal(rng, "not-gin", gin=True, weight=12, own=(0, 1), through=0.3)
        if spec is None or spec.declared is None:
            return None
        # Declare less than everything: drop an end card of a run of four or more, a card of a
        # set of four, or a whole meld worth at most 10.
        options: list[tuple[int, ...]] = []
        for i, meld in enumerate(spec.declared):
            rest = spec.declared[:i] + spec.declared[i + 1 :]
            members = cards(meld)
            if total(meld) <= 10:
                options.append(rest)
            if len(members) >= 4:
                drops = members if is_set(meld) else [members[0], members[-1]]
                options.extend(tuple(sorted((*rest, meld & ~(1 << c)))) for c in drops)
        if not options:
            return None
        return replace(spec, declared=rng.choice(options))

    def accept(spec: Spec, sd: Showdown) -> bool:
        return 0 < sd.kd <= 10 and definite(sd) and bool(sd.best[0].pairs)

    title = "Declared melds leave deadwood though every card could meld: no gin, lay-offs"
    return Category(
        "not-gin",
        506,
        make,
        (Slot("declared-not-gin", title, accept, 2),),
        covers=("R14", "R20"),
        budget=60_000,
    )


def cat_undercuts() -> Category:
    def make(rng: random.Random) -> Spec | None:
        return declared_deal(rng, "undercuts", weight=10, own=(1, 2, 2), through=0.5)

    def undercut(spec: Spec, sd: Showdown) -> bool:
        return sd.end == "undercut" and definite(sd)

    def tie(spec: Spec, sd: Showdown) -> bool:
        return undercut(spec, sd) and sd.kd == sd.dd

    def needed(spec: Spec, sd: Showdown) -> bool:
        return undercut(spec, sd) and sd.bare[0] > sd.kd

    def tie_needed(spec: Spec, sd: Showdown) -> bool:
        return tie(spec, sd) and needed(spec, sd)

    def zero(spec: Spec, sd: Showdown) -> bool:
        return undercut(spec, sd) and sd.dd == 0

    return Category(
        "undercuts",
        606,
        make,
        (
            Slot("undercut-tie", "Undercut on a deadwood tie", tie, 2),
            Slot(
                "undercut-tie-after-lay-offs", "Undercut on a tie reached by lay-offs", tie_needed
            ),
            Slot("undercut-by-lay-offs", "Undercut only thanks to lay-offs", needed, 3),
            Slot("undercut-lower-deadwood", "Undercut: the defender counts less", undercut),
            Slot("undercut-no-deadwood", "Undercut by a defender left with no deadwood", zero),
        ),
        covers=("R13",),
    )


def cat_undercut_options() -> Category:
    def make(rng: random.Random) -> Spec | None:
        if rng.random() < 0.5:
            tie_off = (("undercut_on_tie", False),)
            return declared_deal(rng, "options", weight=10, own=(1, 2, 2), options=tie_off)
        return declared_deal(rng, "options", weight=10, own=(1, 2, 2), preset="bonus")

    def tie_knock(spec: Spec, sd: Showdown) -> bool:
        tied = bool(spec.options) and sd.kd == sd.dd > 0
        return tied and definite(sd) and bool(sd.best[0].pairs)

    def bonus(spec: Spec, sd: Showdown) -> bool:
        undercut = spec.preset == "bonus" and sd.end == "undercut"
        return undercut and definite(sd) and bool(sd.best[0].pairs)

    return Category(
        "undercut-options",
        607,
        make,
        (
            Slot(
                "tie-knock-win-undercut-on-tie-off",
                "A deadwood tie after lay-offs is a 0-point knock win with undercut_on_tie off",
                tie_knock,
            ),
            Slot("undercut-bonus-preset", "Undercut after lay-offs, bonus preset (25)", bonus),
        ),
    )


def cat_oklahoma() -> Category:
    def make(rng: random.Random) -> Spec | None:
        upcard = rng.randrange(52)
        limit = 0 if upcard % 13 == 0 else value(upcard)
        return declared_deal(
            rng,
            "oklahoma",
            gin=limit == 0 or rng.random() < 0.25,
            weight=10,
            own=(1, 2) if rng.random() < 0.5 else (0, 1),
            preset="oklahoma",
            limit=limit,
            upcard=upcard,
        )

    def ends(end: str, spade: bool, low: bool = False) -> Accept:
        def accept(spec: Spec, sd: Showdown) -> bool:
            assert spec.upcard is not None
            rank = spec.upcard % 13
            if (low and not 1 <= rank <= 5) or (spade and end == "gin" and rank == 0):
                return False  # (the ace of spades has its own slot)
            return (
                sd.end == end
                and (spec.upcard // 13 == SPADES) == spade
                and definite(sd)
                and (end == "gin" or bool(sd.best[0].pairs))
            )

        return accept

    def ace(spec: Spec, sd: Showdown) -> bool:
        return spec.upcard == parse("AS") and sd.end == "gin" and definite(sd)

    spade, other = "Oklahoma, spade upcard", "Oklahoma, upcard not a spade"
    return Category(
        "oklahoma",
        707,
        make,
        (
            Slot(
                "oklahoma-spade-knock-doubled",
                f"{spade}: knock after lay-offs doubled",
                ends("knock", True),
            ),
            Slot(
                "oklahoma-spade-low-limit",
                f"{spade}, low limit: knock after lay-offs doubled",
                ends("knock", True, low=True),
            ),
            Slot(
                "oklahoma-spade-undercut-doubled",
                f"{spade}: undercut doubled",
                ends("undercut", True),
            ),
            Slot("oklahoma-spade-gin-doubled", f"{spade}: gin doubled", ends("gin", True)),
            Slot("oklahoma-ace-of-spades-gin", "Oklahoma, ace of spades: gin only, doubled", ace),
            Slot("oklahoma-knock-not-doubled", f"{other}: knock not doubled", ends("knock", False)),
            Slot(
                "oklahoma-undercut-not-doubled",
                f"{other}: undercut not doubled",
                ends("undercut", False),
            ),
            Slot("oklahoma-gin-not-doubled", f"{other}: gin not doubled", ends("gin", False)),
        ),
        covers=("R18",),
        budget=300_000,
    )


def overlap_knocker(rng: random.Random, free: int, n_cards: int) -> int | None:
    """Kept cards from melds that may share cards, so that several arrangements tie (R20)."""
    kept = 0
    for _ in range(rng.choice((2, 3, 3))):
        meld = pick_meld(rng, free, rng.choice((3, 3, 4)), set_share=0.5)
        if meld is None:
            return None
        if kept and not meld & kept and rng.random() < 0.8:
            # Prefer melds that touch the cards so far: same rank or next to them in a suit.
            near = mask_of(
                other
                for c in cards(kept)
                for other in (c - 1, c + 1, *(c % 13 + 13 * s for s in range(4)))
                if 0 <= other < 52 and (other // 13 == c // 13 or other % 13 == c % 13)
            )
            if not meld & near:
                continue
        if (kept | meld).bit_count() > n_cards:
            continue
        kept |= meld
    n_dead = n_cards - kept.bit_count()
    if n_dead:
        dead = pick_dead(rng, free & ~kept, n_dead, 10)
        if dead is None:
            return None
        kept |= dead
    return kept if least_deadwood(kept) <= 10 else None


def deadwood_if_shown(spec: Spec, melds: tuple[int, ...]) -> int:
    """The defender's deadwood had the knocker shown ``melds`` (does R20's choice matter?)."""
    return analyse(replace(spec, declared=melds)).dd


def cat_undeclared() -> Category:
    def make(rng: random.Random) -> Spec | None:
        kept = overlap_knocker(rng, FULL, 10)
        if kept is None:
            return None
        _, arrs = arrangements(kept)
        if len(arrs) < 2:
            return None
        exposed = mask_of(c for a in arrs for c in cards(exposure(a[0], kept)))
        free = FULL & ~kept
        discard = random_card(rng, free, exposed, 0.4)
        free &= ~(1 << discard)
        pile: list[int] = []
        for _ in range(rng.choice((0, 1, 2, 3, 4, 5))):
            card = random_card(rng, free, exposed, 0.5)
            pile.append(card)
            free &= ~(1 << card)
        melds = [m for a in arrs for m in a[0]]
        defender = build_defender(rng, free, melds, weight=10, own=0, through=0.0)
        return Spec("undeclared", "hoyle", kept, discard, None, defender, tuple(pile))

    def matters(spec: Spec, sd: Showdown) -> bool:
        assert sd.r20 is not None
        return any(deadwood_if_shown(spec, a[0]) != sd.dd for _, a in sd.r20.ranked[1:])

    def step(n: int, must_matter: bool) -> Accept:
        def accept(spec: Spec, sd: Showdown) -> bool:
            assert sd.r20 is not None
            ok = sd.r20.step == n and sd.kd > 0 and definite(sd)
            return ok and (not must_matter or matters(spec, sd))

        return accept

    def dead_cards_decide(spec: Spec, sd: Showdown) -> bool:
        assert sd.r20 is not None
        if not spec.pile or not step(1, True)(spec, sd):
            return False
        return knocker_choice(spec.kept, 0).ranked[0][1] != sd.r20.ranked[0][1]

    undeclared = "Undeclared knock: R20"
    return Category(
        "undeclared",
        808,
        make,
        (
            Slot(
                "undeclared-fewest-exposed",
                f"{undeclared} shows the fewest exposed cards",
                step(1, True),
                2,
            ),
            Slot(
                "undeclared-discard-pile-not-exposed",
                f"{undeclared}'s fewest exposed cards, the discard pile deciding",
                dead_cards_decide,
                2,
            ),
            Slot(
                "undeclared-fewest-melds", f"{undeclared} shows the fewest melds", step(2, False), 2
            ),
            Slot(
                "undeclared-deadwood-mask",
                f"{undeclared} breaks a tie by the deadwood mask",
                step(3, False),
            ),
            Slot(
                "undeclared-meld-masks",
                f"{undeclared} breaks a tie by the meld masks",
                step(4, False),
            ),
        ),
        covers=("R20",),
        budget=400_000,
    )


def cat_big_gin() -> Category:
    def make(rng: random.Random) -> Spec | None:
        built = build_knocker(rng, FULL, rng.choice(BIG_GIN_SHAPES), 11, 0)
        if built is None:
            return None
        kept, melds = built
        free = FULL & ~kept
        own = rng.choice((0, 1, 2))
        defender = build_defender(rng, free, melds, weight=10, own=own, through=0.4)
        declared = melds if rng.random() < 0.6 else None
        pile: tuple[int, ...] = ()
        if declared is None:
            pile = tuple(rng.sample(cards(free & ~defender), rng.choice((0, 2, 4))))
        return Spec("big-gin", "big-gin", kept, None, declared, defender, pile)

    def blocked(declared: bool) -> Accept:
        def accept(spec: Spec, sd: Showdown) -> bool:
            shown = (spec.declared is not None) == declared
            return shown and sd.could_lay < sd.bare[0] and len(sd.bare[1]) == 1

        return accept

    def own(spec: Spec, sd: Showdown) -> bool:
        return blocked(True)(spec, sd) and bool(sd.bare[1][0][0])

    def r20(spec: Spec, sd: Showdown) -> bool:
        return blocked(False)(spec, sd) and sd.r20 is not None and sd.r20.step == 1

    title = "Big gin: eleven cards melded, no discard, nothing laid off"
    return Category(
        "big-gin",
        909,
        make,
        (
            Slot("big-gin-no-lay-offs", title, blocked(True), 2),
            Slot("big-gin-no-lay-offs-own-meld", f"{title}, own melds count", own),
            Slot("big-gin-undeclared", f"{title}, melds arranged by R20", blocked(False)),
            Slot("big-gin-undeclared-r20-choice", f"{title}, R20's fewest exposed cards", r20),
        ),
        covers=("R19", "O6", "O7"),
        budget=300_000,
    )


CATEGORIES: tuple[Callable[[], Category], ...] = (
    cat_chains,
    cat_set_or_run,
    cat_ties,
    cat_own_melds,
    cat_gin,
    cat_not_gin,
    cat_undercuts,
    cat_undercut_options,
    cat_oklahoma,
    cat_undeclared,
    cat_big_gin,
)


# ---------------------------------------------------------------------------------------------
# Output.


def dumps(data: Any, indent: int = 0, key_width: int = 0) -> str:
    """JSON with two-space indent, short lists and lay-off entries on one line."""
    pad = " " * indent
    if isinstance(data, dict):
        if not data or set(data) == {"card", "meld"}:
            return json.dumps(data, separators=(", ", ": "))
        items = [
            f"{pad}  {json.dumps(k)}: {dumps(v, indent + 2, len(json.dumps(k)) + 2)}"
            for k, v in data.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(data, list):
        flat = json.dumps(data, separators=(", ", ": "))
        simple = all(not isinstance(x, dict) or set(x) == {"card", "meld"} for x in data)
        if simple and indent + key_width + len(flat) <= 100:
            return flat
        items = [f"{pad}  {dumps(x, indent + 2)}" for x in data]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(data)


def generate() -> dict[str, str]:
    """Every case file: name -> text."""
    cases: list[tuple[str, Case]] = []
    for make in CATEGORIES:
        cat = make()
        cases.extend((cat.name, case) for case in search(cat))
    out: dict[str, str] = {}
    for number, (_, case) in enumerate(cases, start=1):
        data = case_json(number, case)
        out[f"{data['id']}.json"] = dumps(data) + "\n"
    return out


def write(files: dict[str, str], check: bool) -> int:
    stale = {p.name for p in CASES_DIR.glob(f"{PREFIX}*.json")} - set(files)
    changed = [
        n
        for n, t in files.items()
        if not (CASES_DIR / n).is_file() or (CASES_DIR / n).read_text(encoding="utf-8") != t
    ]
    if check:
        for n in sorted(changed):
            print(f"would change: {n}")
        for n in sorted(stale):
            print(f"would remove: {n}")
        return 1 if changed or stale else 0
    for n in sorted(stale):
        (CASES_DIR / n).unlink()
    for n in changed:
        (CASES_DIR / n).write_text(files[n], encoding="utf-8")
    print(f"{len(files)} cases, {len(changed)} written, {len(stale)} removed")
    return 0


# ---------------------------------------------------------------------------------------------
# --verify: the engine against the written expectations.


def chain_order_ok(pairs: Sequence[tuple[int, int]], melds: Sequence[int]) -> bool:
    """Whether each lay-off, in this order, fits its meld as extended so far (R10)."""
    grown = list(melds)
    used = 0
    for card, index in pairs:
        if used >> card & 1:
            return False
        meld = grown[index]
        members = cards(meld)
        if is_set(meld):
            ok = len(members) == 3 and card % 13 == members[0] % 13
        else:
            low, high = members[0], members[-1]
            ok = (card == low - 1 and low % 13 != 0) or (card == high + 1 and high % 13 != 12)
        if not ok:
            return False
        grown[index] |= 1 << card
        used |= 1 << card
    return True


def verify() -> int:
    sys.path.insert(0, str(ROOT))
    from engine.cards import CARD_NAMES, parse_card
    from engine.hand import score_knock
    from engine.melds import best_arrangement, knock_arrangement, lay_off
    from engine.rules import Rules

    def m(items: Iterable[str]) -> int:
        return mask_of(parse_card(x) for x in items)

    def cardset(mask: int) -> frozenset[str]:
        return frozenset(CARD_NAMES[c] for c in range(52) if mask >> c & 1)

    paths = sorted(CASES_DIR.glob(f"{PREFIX}*.json"))
    problems: list[str] = []
    for path in paths:
        case = json.loads(path.read_text(encoding="utf-8"))
        rules = Rules.preset(case["rules"]["preset"]).with_options(case["rules"]["options"])
        kept = m(case["knocker_cards"])
        defender = m(case["defender_cards"])
        discard = None if case["discard"] is None else parse_card(case["discard"])
        upcard = parse_card(case.get("first_upcard", "AC"))
        if "knocker_melds" in case:
            melds = tuple(sorted(m(x) for x in case["knocker_melds"]))
        else:
            dead = m(case.get("discard_pile", [])) | (0 if discard is None else 1 << discard)
            melds = tuple(sorted(knock_arrangement(kept, dead).melds))
        melded = mask_of(c for x in melds for c in cards(x))
        kd = total(kept & ~melded)
        if kd == 0:
            arr = best_arrangement(defender)
            lay: list[tuple[int, int]] = []
        else:
            shown = lay_off(defender, melds)
            arr = shown.arrangement
            lay = [(lo.card, lo.meld_index) for lo in shown.lay_offs]
        end, points, doubled = score_knock(
            rules, kd, arr.deadwood, first_upcard=upcard, big_gin=discard is None
        )
        got: dict[str, Any] = {
            "end": str(end),
            "winner": 1 if str(end) == "undercut" else 0,
            "points": points,
            "doubled": doubled,
            "knocker_deadwood": kd,
            "defender_deadwood": arr.deadwood,
            "knocker_melds": frozenset(cardset(x) for x in melds),
            "knocker_deadwood_cards": cardset(kept & ~melded),
            "defender_melds": frozenset(cardset(x) for x in arr.melds),
            "defender_deadwood_cards": cardset(arr.deadwood_cards),
            "laid_off": frozenset(CARD_NAMES[c] for c, _ in lay),
            "lay_offs": frozenset((CARD_NAMES[c], cardset(melds[i])) for c, i in lay),
        }

        def normal(key: str, want: Any) -> Any:
            if key in ("knocker_melds", "defender_melds"):
                return frozenset(frozenset(x) for x in want)
            if key in ("knocker_deadwood_cards", "defender_deadwood_cards", "laid_off"):
                return frozenset(want)
            if key == "lay_offs":
                return frozenset((x["card"], frozenset(x["meld"])) for x in want)
            return want

        result = case["result"]
        alternatives = result.get("one_of", [result])
        misses = []
        for alt in alternatives:
            wrong = [k for k, v in alt.items() if normal(k, v) != got[k]]
            if not wrong:
                break
            misses.append(wrong)
        else:
            detail = "; ".join(
                ", ".join(f"{k}: expected {alt[k]}, engine {sorted_repr(got[k])}" for k in wrong)
                for alt, wrong in zip(alternatives, misses, strict=True)
            )
            problems.append(f"{case['id']}: {detail}")
        if not chain_order_ok(lay, melds):
            problems.append(f"{case['id']}: the engine's lay-off order is not a valid chain: {lay}")
        own = analyse_file(case)
        if own is not None:
            problems.append(f"{case['id']}: {own}")
    for p in problems:
        print(f"DISAGREE {p}")
    print(f"verify: {len(paths)} cases, {len(problems)} disagreements with the engine")
    return 1 if problems else 0


def sorted_repr(v: Any) -> Any:
    if isinstance(v, frozenset):
        return sorted(sorted_repr(x) for x in v)
    if isinstance(v, tuple):
        return [sorted_repr(x) for x in v]
    return v


def analyse_file(case: dict[str, Any]) -> str | None:
    """Self-check of a written case: its lay_offs are in a valid laying order (R10)."""
    melds_given = case.get("knocker_melds") or case["result"].get("knocker_melds")
    result = case["result"]
    alternatives = result.get("one_of", [result])
    for alt in alternatives:
        shown = alt.get("knocker_melds", melds_given)
        melds = [mask_of(parse(x) for x in meld) for meld in shown]
        pairs = [
            (parse(x["card"]), melds.index(mask_of(parse(y) for y in x["meld"])))
            for x in alt["lay_offs"]
        ]
        if not chain_order_ok(pairs, melds):
            return f"the case's own lay_offs are not in a valid order: {alt['lay_offs']}"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 if any case file would change")
    mode.add_argument("--verify", action="store_true", help="cross-check the cases with engine")
    args = parser.parse_args(argv)
    if args.verify:
        return verify()
    return write(generate(), check=args.check)


if __name__ == "__main__":
    sys.exit(main())
