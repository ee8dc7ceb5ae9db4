"""Properties of whole hands under random legal play (hypothesis).

Each example draws rules, a seed, a dealer and a list of choice numbers; a small policy turns each
number into one of the legal actions (mostly sensible play, so that knocks, gin and undercuts
happen, sometimes any legal action, sometimes a knock with declared melds). An independent model
of the hand, written from the rules brief, walks along: the engine's state, its legal actions and
its score must agree with the model and with the brute-force solver in ``reference.py``.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass, field

import reference
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from scenarios import deck_for, snapshot

from engine.cards import CARD_NAMES, FULL_DECK
from engine.deck import shuffled_deck
from engine.hand import (
    BIG_GIN,
    DISCARDS,
    DRAW_DISCARD,
    DRAW_STOCK,
    KNOCKS,
    PASS,
    Action,
    ActionKind,
    Hand,
    HandEnd,
    HandResult,
    IllegalAction,
    Phase,
)
from engine.melds import deadwood as engine_deadwood
from engine.rules import Rules

PROFILE = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

rules_strategy = st.builds(
    Rules,
    knock_limit=st.sampled_from([0, 5, 10]),
    gin_bonus=st.sampled_from([20, 25]),
    undercut_bonus=st.sampled_from([10, 25]),
    undercut_on_tie=st.booleans(),
    discard_taken_card=st.booleans(),
    big_gin=st.booleans(),
    oklahoma=st.booleans(),
    oklahoma_spades_double=st.booleans(),
    turn_limit=st.sampled_from([100, 100, 100, 20]),
    stock_exhausted_at=st.sampled_from([0, 2, 5]),
)
seeds = st.integers(0, 2**64 - 1)
choice_lists = st.lists(st.integers(0, 2**16), max_size=120)


def mask(cards: set[int] | list[int]) -> int:
    out = 0
    for card in cards:
        out |= 1 << card
    return out


def value(cards: int) -> int:
    return sum(reference.value(c) for c in reference.cards(cards))


# -- an independent model of one hand ------------------------------------------------------------


@dataclass
class Model:
    """The hand as the rules brief describes it, kept with plain sets and lists."""

    rules: Rules
    dealer: int
    deck: tuple[int, ...]
    hands: list[set[int]] = field(default_factory=lambda: [set(), set()])
    stock: list[int] = field(default_factory=list)  # top first
    pile: list[int] = field(default_factory=list)  # top last
    phase: str = "first"
    to_move: int = 0
    passes: int = 0
    forced: bool = False
    taken: int | None = None
    known: list[set[int]] = field(default_factory=lambda: [set(), set()])
    turn: int = 0
    end: HandEnd | None = None
    knocker_cards: int = 0
    defender_cards: int = 0

    def __post_init__(self) -> None:
        non_dealer = 1 - self.dealer
        self.hands[non_dealer] = set(self.deck[0:20:2])
        self.hands[self.dealer] = set(self.deck[1:20:2])
        self.pile = [self.deck[20]]
        self.stock = list(self.deck[21:])
        self.to_move = non_dealer

    @property
    def limit(self) -> int:
        if self.rules.oklahoma:
            rank = self.deck[20] % 13
            return 0 if rank == 0 else min(rank + 1, 10)
        return self.rules.knock_limit

    def legal(self) -> set[Action]:
        if self.phase == "first":
            return {PASS, DRAW_DISCARD}
        if self.phase == "draw":
            return {DRAW_STOCK} if self.forced else {DRAW_STOCK, DRAW_DISCARD}
        if self.phase == "discard":
            held = self.hands[self.to_move]
            allowed = set(held)
            if self.taken is not None and not self.rules.discard_taken_card:
                allowed.discard(self.taken)
            out = {DISCARDS[c] for c in allowed}
            h = mask(held)
            out |= {KNOCKS[c] for c in allowed if dw(h & ~(1 << c)) <= self.limit}
            if self.rules.big_gin and dw(h) == 0:
                out.add(BIG_GIN)
            return out
        return set()

    def knock_is_legal(self, action: Action) -> bool:
        """Any knock, declared melds included."""
        if self.phase != "discard":
            return False
        held = mask(self.hands[self.to_move])
        if action.card is None:
            kept = held
            if not self.rules.big_gin:
                return False
        else:
            if action.card not in self.hands[self.to_move]:
                return False
            if action.card == self.taken and not self.rules.discard_taken_card:
                return False
            kept = held & ~(1 << action.card)
        if action.melds is None:
            left = dw(kept)
        else:
            used = 0
            for m in action.melds:
                if not reference.is_meld(reference.cards(m)) or m & ~kept or m & used:
                    return False
                used |= m
            left = value(kept & ~used)
        return left == 0 if action.card is None else left <= self.limit

    def apply(self, action: Action) -> None:
        p = self.to_move
        kind = action.kind
        if kind is ActionKind.PASS:
            self.passes += 1
            self.to_move = self.dealer if self.passes == 1 else 1 - self.dealer
            if self.passes == 2:
                self.phase, self.forced = "draw", True
        elif kind is ActionKind.DRAW_STOCK:
            self.hands[p].add(self.stock.pop(0))
            self.phase, self.forced, self.taken = "discard", False, None
            self.turn += 1
        elif kind is ActionKind.DRAW_DISCARD:
            self.taken = self.pile.pop()
            self.hands[p].add(self.taken)
            self.known[p].add(self.taken)  # a card taken from the pile is seen by both
            self.phase = "discard"
            self.turn += 1
        elif kind is ActionKind.DISCARD:
            assert action.card is not None
            self.hands[p].remove(action.card)
            self.known[p].discard(action.card)
            self.pile.append(action.card)
            self.taken = None
            if len(self.stock) <= self.rules.stock_exhausted_at:
                self.phase, self.end = "finished", HandEnd.DRAWN
            elif self.turn >= self.rules.turn_limit:
                self.phase, self.end = "finished", HandEnd.TURN_LIMIT
            else:
                self.phase, self.to_move = "draw", 1 - p
        else:
            if action.card is not None:
                self.hands[p].remove(action.card)
                self.known[p].discard(action.card)
                self.pile.append(action.card)
            self.phase = "finished"
            self.knocker_cards = mask(self.hands[p])
            self.defender_cards = mask(self.hands[1 - p])


_DW: dict[int, int] = {}


def dw(cards: int) -> int:
    """Least deadwood by brute force (reference.py), memoised."""
    if cards not in _DW:
        _DW[cards] = reference.deadwood(cards)
    return _DW[cards]


PHASES = {
    "first": Phase.FIRST_UPCARD,
    "draw": Phase.DRAW,
    "discard": Phase.DISCARD,
    "finished": Phase.FINISHED,
}


def check_against_model(hand: Hand, model: Model) -> None:
    assert hand.phase is PHASES[model.phase]
    if model.phase != "finished":
        assert hand.to_move == model.to_move
    assert hand.hands == [mask(model.hands[0]), mask(model.hands[1])]
    assert hand.pile == model.pile
    assert sorted(hand.stock) == sorted(model.stock)
    assert hand.turn == model.turn
    assert hand.taken_card == (model.taken if model.phase == "discard" else None)
    assert hand.knock_limit == model.limit


def check_observations(hand: Hand, model: Model) -> None:
    """Each player sees their own cards and the public record, as the model keeps them."""
    for p in (0, 1):
        obs = hand.observation(p)
        assert obs.player == p
        assert obs.phase is PHASES[model.phase]
        assert obs.dealer == model.dealer
        assert obs.hand == mask(model.hands[p])
        assert obs.opponent_hand_size == len(model.hands[1 - p])
        assert obs.opponent_known == mask(model.known[1 - p])
        assert obs.discard_pile == tuple(model.pile)
        assert obs.stock_size == len(model.stock)
        assert obs.first_upcard == model.deck[20]
        assert obs.knock_limit == model.limit
        assert obs.turn == model.turn
        mine = model.phase == "discard" and model.to_move == p
        assert obs.taken_card == (model.taken if mine else None)
        if model.phase != "finished":
            assert obs.to_move == model.to_move
            assert obs.result is None
            assert obs.show_down is None


def check_rejections(hand: Hand, model: Model, number: int) -> None:
    """A few actions that are not legal now, chosen around the state: each raises IllegalAction
    and changes nothing."""
    rng = random.Random(number)
    held = list(model.hands[model.to_move])
    elsewhere = [c for c in range(52) if c not in held]
    cards = [rng.choice(held), rng.choice(elsewhere)]
    if model.taken is not None:
        cards.append(model.taken)
    pool = [PASS, DRAW_STOCK, DRAW_DISCARD, BIG_GIN]
    pool += [a for c in cards for a in (DISCARDS[c], KNOCKS[c])]
    legal = model.legal()
    before = snapshot(hand)
    for action in pool:
        if action in legal:
            continue
        trial = hand.copy()
        try:
            trial.apply(action)
        except IllegalAction:
            pass
        else:
            raise AssertionError(f"{action} was accepted")
        assert snapshot(trial) == before, f"{action} changed the state"


def check_invariants(hand: Hand) -> None:
    # R1, R5: the 52 cards are all somewhere, each exactly once.
    sizes = hand.hands[0].bit_count() + hand.hands[1].bit_count() + len(hand.stock)
    assert sizes + len(hand.pile) == 52
    assert hand.cards_in_play() == FULL_DECK
    assert len(set(hand.stock)) == len(hand.stock)
    assert len(set(hand.pile)) == len(hand.pile)
    counts = sorted(h.bit_count() for h in hand.hands)
    if hand.phase is Phase.DISCARD:
        assert hand.hands[hand.to_move].bit_count() == 11
        assert counts == [10, 11]
    elif hand.phase is Phase.FINISHED and hand.result and hand.result.end is HandEnd.BIG_GIN:
        assert counts == [10, 11]
    else:
        assert counts == [10, 10]


# -- the policy ----------------------------------------------------------------------------------


def choose(hand: Hand, model: Model, number: int, patience: int = 10) -> Action:
    """Style ``number % 8``: 0 any legal action; 1 take the discard, knock declaring melds; 2-6
    draw the stock, knock once the deadwood is ``patience`` or less, else discard the card that
    leaves least deadwood; 7 the same without knocking (so that hands also run long)."""
    legal = hand.legal_actions()
    style = number % 8
    pick = number // 8
    if style == 0:
        return legal[pick % len(legal)]
    if hand.phase is not Phase.DISCARD:
        if DRAW_DISCARD in legal and style == 1:
            return DRAW_DISCARD
        return DRAW_STOCK if DRAW_STOCK in legal else legal[pick % len(legal)]
    held = hand.hands[hand.to_move]
    knocks = [a for a in legal if a.kind is ActionKind.KNOCK]
    if style != 1:
        knocks = [a for a in knocks if a.card is None or dw(held & ~(1 << a.card)) <= patience]
    if knocks and style != 7:
        action = knocks[pick % len(knocks)]
        if style == 1 and action.card is not None:
            return declared(model, action.card, pick) or action
        return action
    discards = [a for a in legal if a.kind is ActionKind.DISCARD]
    return min(discards, key=lambda a: (engine_deadwood(held & ~(1 << (a.card or 0))), a.card))


def declared(model: Model, card: int, pick: int) -> Action | None:
    """A knock with ``card`` declaring some arrangement within the limit, if there is one."""
    kept = mask(model.hands[model.to_move]) & ~(1 << card)
    options = [
        a for a in reference.arrangements(kept) if value(reference.leftover(kept, a)) <= model.limit
    ]
    if not options:
        return None
    chosen = sorted(options, key=lambda a: sorted(reference.mask_of(m) for m in a))
    melds = tuple(reference.mask_of(m) for m in chosen[pick % len(chosen)])
    return Action(ActionKind.KNOCK, card, melds)


# -- the score -----------------------------------------------------------------------------------


def check_result(hand: Hand, model: Model, last: Action) -> None:
    result = hand.result
    assert result is not None
    rules = model.rules
    assert result.points >= 0
    if model.end is not None:  # drawn (R11) or turn limit (R17)
        assert (result.end, result.winner, result.points) == (model.end, None, 0)
        assert result.show_down is None
        return
    show = result.show_down
    assert show is not None
    knocker = show.knocker
    defender = 1 - knocker
    kept, held = model.knocker_cards, model.defender_cards
    assert show.discard == last.card
    # The knocker's spread: valid, disjoint melds of the cards kept, and the rest as deadwood.
    used = 0
    for m in show.knocker_melds:
        assert reference.is_meld(reference.cards(m))
        assert not m & used
        assert m & ~kept == 0
        used |= m
    assert show.knocker_deadwood_cards == kept & ~used
    kd = value(kept & ~used)
    assert show.knocker_deadwood == kd <= model.limit
    if last.melds is None:
        assert kd == dw(kept)  # the engine spreads the knocker's hand optimally
    else:
        assert show.knocker_melds == tuple(sorted(last.melds))
    # The defender's spread: lay-offs on the knocker's melds (never against gin), own melds.
    laid = [0] * len(show.knocker_melds)
    for lo in show.lay_offs:
        assert held >> lo.card & 1
        laid[lo.meld_index] |= 1 << lo.card
    all_laid = mask([lo.card for lo in show.lay_offs])
    assert len(show.lay_offs) == all_laid.bit_count()
    for m, extra in zip(show.knocker_melds, laid, strict=True):
        assert reference.is_meld(reference.cards(m | extra))
    own = 0
    for m in show.defender_melds:
        assert reference.is_meld(reference.cards(m))
        assert not m & own
        assert m & ~(held & ~all_laid) == 0
        own |= m
    assert show.defender_deadwood_cards == held & ~all_laid & ~own
    dd = value(show.defender_deadwood_cards)
    assert show.defender_deadwood == dd
    if kd == 0:
        assert show.lay_offs == ()
        assert dd == dw(held)
    else:
        melds = [frozenset(reference.cards(m)) for m in show.knocker_melds]
        assert dd == reference.lay_off_deadwood(held, melds)
    # R12-R14, R18, R19.
    if kd == 0 and last.card is None:
        want = (HandEnd.BIG_GIN, knocker, dd + rules.big_gin_bonus)
    elif kd == 0:
        want = (HandEnd.GIN, knocker, dd + rules.gin_bonus)
    elif kd < dd or (kd == dd and not rules.undercut_on_tie):
        want = (HandEnd.KNOCK, knocker, dd - kd)
    else:
        want = (HandEnd.UNDERCUT, defender, kd - dd + rules.undercut_bonus)
    doubled = rules.oklahoma and rules.oklahoma_spades_double and model.deck[20] // 13 == 3
    end, winner, points = want
    assert (result.end, result.winner, result.points) == (end, winner, points * (1 + doubled))
    assert result.doubled == doubled


# -- the properties ------------------------------------------------------------------------------


def play(
    rules: Rules,
    dealer: int,
    deck: Sequence[int],
    choices: Sequence[int],
    *,
    patience: int = 10,
) -> tuple[Hand, Model]:
    """Play a whole hand by the policy, checking each state; return the finished hand and the
    model."""
    hand = Hand(rules, dealer, deck)
    model = Model(rules, dealer, tuple(deck))
    numbers = iter(choices)
    last = PASS
    while True:
        check_invariants(hand)
        check_against_model(hand, model)
        check_observations(hand, model)
        legal = hand.legal_actions()
        assert len(set(legal)) == len(legal)
        assert set(legal) == model.legal()
        if hand.is_over:
            check_result(hand, model, last)
            return hand, model
        for action in legal:  # every legal action is accepted, the same way by both paths
            checked, unchecked = hand.copy(), hand.copy()
            checked.apply(action)
            unchecked.apply_unchecked(action)
            assert snapshot(checked) == snapshot(unchecked)
        number = next(numbers, 2)
        check_rejections(hand, model, number + len(hand.history))
        last = choose(hand, model, number, patience)
        checked = hand.copy()
        hand.apply_unchecked(last)
        checked.apply(last)
        assert snapshot(checked) == snapshot(hand)
        model.apply(last)


@PROFILE
@given(
    rules=rules_strategy,
    seed=seeds,
    dealer=st.integers(0, 1),
    choices=choice_lists,
    patience=st.integers(0, 10),
)
def test_random_hands_follow_the_rules(
    rules: Rules, seed: int, dealer: int, choices: list[int], patience: int
) -> None:
    hand, _ = play(rules, dealer, shuffled_deck(seed), choices, patience=patience)
    assert hand.result is not None
    event(f"end: {hand.result.end.value}")
    event(f"declared melds: {hand.history[-1].melds is not None}")
    # Deterministic replay: the same seed and actions (written out and read back in the action
    # notation) give the same hand, field by field.
    again = Hand(rules, dealer, seed=seed)
    for action in hand.history:
        again.apply(Action.parse(str(action)))
    assert snapshot(again) == snapshot(hand)
    assert again.result == hand.result
    assert again.observation(0) == hand.observation(0)


def action_pool(hand: Hand, rng: random.Random) -> list[Action]:
    """Every plain action, plus knocks declaring melds: valid arrangements of the hand, melds from
    elsewhere in the deck, broken melds and overlapping ones."""
    pool = [PASS, DRAW_STOCK, DRAW_DISCARD, BIG_GIN, *DISCARDS, *KNOCKS]
    held = hand.hands[hand.to_move]
    cards = reference.cards(held)
    for _ in range(12):
        card = rng.choice([*cards, rng.randrange(52), None])
        kept = held if card is None else held & ~(1 << card)
        arrangements = list(reference.arrangements(kept))
        melds: list[int] = [reference.mask_of(m) for m in rng.choice(arrangements)]
        extra = rng.random()
        if extra < 0.25:
            melds.append(reference.mask_of(rng.choice(reference.EVERY_MELD)))
        elif extra < 0.5 and cards:
            melds.append(mask(rng.sample(cards, min(len(cards), rng.randint(1, 4)))))
        elif extra < 0.6 and melds:
            melds.append(melds[0])
        rng.shuffle(melds)
        pool.append(Action(ActionKind.KNOCK, card, tuple(melds)))
    return pool


@PROFILE
@given(
    rules=rules_strategy,
    seed=seeds,
    dealer=st.integers(0, 1),
    choices=choice_lists,
    steps=st.integers(0, 60),
    pool_seed=st.integers(0, 2**32),
)
def test_illegal_actions_are_rejected_cleanly(
    *, rules: Rules, seed: int, dealer: int, choices: list[int], steps: int, pool_seed: int
) -> None:
    hand = Hand(rules, dealer, seed=seed)
    model = Model(rules, dealer, shuffled_deck(seed))
    numbers = iter(choices)
    for _ in range(steps):
        if hand.is_over:
            break
        action = choose(hand, model, next(numbers, 2), patience=steps % 11)
        hand.apply(action)
        model.apply(action)
    legal = model.legal()
    before = snapshot(hand)
    for action in action_pool(hand, random.Random(pool_seed)):
        is_legal = (
            model.knock_is_legal(action)
            if action.kind is ActionKind.KNOCK and action.melds is not None
            else action in legal
        )
        trial = hand.copy()
        if is_legal:
            trial.apply(action)
            continue
        try:
            trial.apply(action)
        except IllegalAction as error:
            assert error.rule.startswith("R")
        else:
            raise AssertionError(f"{action} was accepted in {before}")
        assert snapshot(trial) == before, f"{action} changed the state"
    assert snapshot(hand) == before


@settings(max_examples=40, deadline=None)
@given(seed=seeds, dealer=st.integers(0, 1), choices=choice_lists, patience=st.integers(0, 10))
def test_hand_results_name_one_winner_or_none(
    seed: int, dealer: int, choices: list[int], patience: int
) -> None:
    hand, _ = play(Rules(), dealer, shuffled_deck(seed), choices, patience=patience)
    result = hand.result
    assert isinstance(result, HandResult)
    if result.end in (HandEnd.DRAWN, HandEnd.TURN_LIMIT):
        assert result.winner is None
        assert result.points == 0
    else:
        assert result.winner in (0, 1)
        assert result.points >= 0
        assert result.show_down is not None


def check_knocks(hand: Hand, model: Model, rng: random.Random) -> None:
    """Every discard and knock, and knocks declaring each arrangement of the cards kept for a few
    discards: accepted exactly when the model allows it, and a rejection changes nothing."""
    held = mask(model.hands[model.to_move])
    pool = [BIG_GIN, *DISCARDS, *KNOCKS]
    for card in rng.sample([*reference.cards(held), None], 3):
        kept = held if card is None else held & ~(1 << card)
        for arrangement in itertools.islice(reference.arrangements(kept), 40):
            melds = tuple(reference.mask_of(m) for m in arrangement)
            pool.append(Action(ActionKind.KNOCK, card, melds))
    legal = model.legal()
    before = snapshot(hand)
    for action in pool:
        trial = hand.copy()
        if (action.melds is not None and model.knock_is_legal(action)) or action in legal:
            trial.apply(action)
            continue
        try:
            trial.apply(action)
        except IllegalAction:
            pass
        else:
            raise AssertionError(f"{action} was accepted")
        assert snapshot(trial) == before, f"{action} changed the state"


def meldy(
    rng: random.Random, size: int, taken: set[int], melded: float = 0.15, near: bool = False
) -> list[int]:
    """``size`` cards not in ``taken``: mostly whole melds, the rest mostly low cards. With
    probability ``melded`` all melds (gin, big gin), sometimes few (big deadwood). With ``near``
    the rest are mostly cards next to ``taken`` ones, for lay-offs and chains of them."""
    if rng.random() < melded:
        for _ in range(50):  # try to fill the hand with melds alone
            cards = []
            for _ in range(20):
                meld = rng.choice(reference.EVERY_MELD)
                if len(cards) + len(meld) <= size and not meld & (taken | set(cards)):
                    cards.extend(sorted(meld))
            if len(cards) == size:
                rng.shuffle(cards)
                return cards
    cards = []
    for _ in range(rng.choice([0, 2, 4, 6, 30])):
        meld = rng.choice(reference.EVERY_MELD)
        if len(cards) + len(meld) <= size and not meld & (taken | set(cards)):
            cards.extend(sorted(meld))
    free = [c for c in range(52) if c not in taken and c not in cards]
    low = [c for c in free if c % 13 < 3]
    if near:
        low = [c for c in free if any(c % 13 == t % 13 or abs(c - t) <= 2 for t in taken)]
    while len(cards) < size:
        card = rng.choice(low if low and rng.random() < 0.7 else free)
        free.remove(card)
        if card in low:
            low.remove(card)
        cards.append(card)
    rng.shuffle(cards)
    return cards


@PROFILE
@given(rules=rules_strategy, deal=seeds, dealer=st.integers(0, 1))
def test_constructed_show_downs_score_by_the_rules(rules: Rules, deal: int, dealer: int) -> None:
    """Knockable hands built from melds meet defenders built the same way: knocks, undercuts,
    ties, gin and big gin all come up, each checked against the brute-force solver."""
    rng = random.Random(deal)
    if rng.random() < 0.2:  # ten melded cards and one more: gin, or big gin's near miss
        knocker = meldy(rng, 10, set(), melded=1.0)
        knocker.insert(rng.randrange(11), rng.choice([c for c in range(52) if c not in knocker]))
    else:
        knocker = meldy(rng, 11, set())
    defender = meldy(rng, 10, set(knocker), near=rng.random() < 0.5)
    upcard = rng.choice([c for c in range(52) if c not in knocker and c not in defender])
    names = [[CARD_NAMES[c] for c in cards] for cards in (knocker, defender)]
    deck = deck_for(" ".join(names[0][:10]), " ".join(names[1]), CARD_NAMES[upcard], names[0][10])
    hand = Hand(rules, dealer, deck)
    model = Model(rules, dealer, tuple(deck))
    for action in (PASS, PASS, DRAW_STOCK):
        hand.apply(action)
        model.apply(action)
    check_against_model(hand, model)
    assert set(hand.legal_actions()) == model.legal()
    check_knocks(hand, model, rng)
    knocks = sorted(model.legal() - set(DISCARDS), key=str)
    assume(knocks)
    last = BIG_GIN if BIG_GIN in knocks and rng.random() < 0.5 else rng.choice(knocks)
    if last.card is not None and rng.random() < 0.3:
        last = declared(model, last.card, rng.randrange(1000)) or last
    event(f"end: {last.kind.value}{'' if last.card is not None else ' (big gin)'}")
    hand.apply(last)
    model.apply(last)
    check_invariants(hand)
    check_result(hand, model, last)
    result = hand.result
    assert result is not None
    assert result.show_down is not None
    tie = result.show_down.knocker_deadwood == result.show_down.defender_deadwood
    event(f"result: {result.end.value}{' (tie)' if tie else ''}")
