"""bots.encoding: every action has one id and back, observations hold exactly the player's view
(decoded back to the engine's values) and nothing hidden, masks are the legal actions."""

from __future__ import annotations

import random

import pytest

np = pytest.importorskip("numpy")

from bots.encoding import (  # noqa: E402 - after the skip
    ACTION_COUNT,
    ACTIONS,
    DEALER,
    HAND,
    KNOCK_LIMIT,
    OBSERVATION_SIZE,
    OPPONENT_KNOWN,
    PHASE,
    PILE,
    SCORES,
    STOCK,
    TAKEN,
    TOP,
    TURN,
    EncodingError,
    action_id,
    action_mask,
    action_of,
    describe,
    encode,
)
from engine import PRESETS, Action, Hand, Phase, cards_of  # noqa: E402
from engine.hand import BIG_GIN, DRAW_DISCARD, DRAW_STOCK, KNOCKS, PASS  # noqa: E402


def test_every_id_names_one_action_and_back() -> None:
    assert len(ACTIONS) == ACTION_COUNT == 108
    assert len(set(ACTIONS)) == ACTION_COUNT
    for index, action in enumerate(ACTIONS):
        assert action_id(action) == index
        assert action_of(index) is action
        assert action_of(np.int64(index)) is action
    assert action_id(Action.parse("knock 7H / AS 2S 3S")) == action_id(
        KNOCKS[action_id(Action.parse("discard 7H"))]
    )
    assert (action_id(DRAW_STOCK), action_id(DRAW_DISCARD), action_id(PASS)) == (104, 105, 106)
    assert action_id(BIG_GIN) == 107
    assert describe(52 + 19) == "71: knock 7D"


@pytest.mark.parametrize("bad", [-1, 108, 1.5, "3", None, np.float32(2.5)])
def test_bad_ids_are_refused_with_the_range(bad: object) -> None:
    with pytest.raises(EncodingError, match="action id"):
        action_of(bad)  # type: ignore[arg-type]


def states(count: int, seed: int) -> list[Hand]:
    """Hands at random points of random play, in every preset."""
    rng = random.Random(seed)
    found = []
    presets = list(PRESETS.values())
    while len(found) < count:
        hand = Hand(rng.choice(presets), dealer=rng.randrange(2), seed=rng.randrange(2**63))
        stop = rng.randrange(60)
        while not hand.is_over and hand.turn < stop:
            hand.apply_unchecked(rng.choice(hand.legal_actions()))
        if not hand.is_over:
            found.append(hand)
    return found


def decode_pile(vector: object) -> list[int]:
    plane = np.asarray(vector)[PILE:TOP]
    cards = np.flatnonzero(plane)
    return [int(c) for c in cards[np.argsort(plane[cards])]]


def test_observations_decode_to_the_players_view_and_hold_nothing_hidden() -> None:
    for hand in states(300, seed=1):
        scores = (random.Random(hand.turn).randrange(150), 37)
        for player in (0, 1):
            seen = hand.observation(player)
            vector = encode(seen, scores, 150)
            assert vector.shape == (OBSERVATION_SIZE,) and vector.dtype == np.float32
            assert ((vector >= 0) & (vector <= 1)).all()
            assert list(np.flatnonzero(vector[HAND:OPPONENT_KNOWN])) == cards_of(seen.hand)
            assert list(np.flatnonzero(vector[OPPONENT_KNOWN:PILE])) == cards_of(
                seen.opponent_known
            )
            assert decode_pile(vector) == list(seen.discard_pile)
            top = [seen.discard_pile[-1]] if seen.discard_pile else []  # empty once taken
            assert list(np.flatnonzero(vector[TOP:TAKEN])) == top
            taken = list(np.flatnonzero(vector[TAKEN:STOCK]))
            assert taken == ([] if seen.taken_card is None else [seen.taken_card])
            assert vector[STOCK] == pytest.approx(seen.stock_size / 32)
            phase = [Phase.FIRST_UPCARD, Phase.DRAW, Phase.DISCARD].index(seen.phase)
            assert list(np.flatnonzero(vector[PHASE : PHASE + 3])) == [phase]
            assert vector[KNOCK_LIMIT] == pytest.approx(seen.knock_limit / 10)
            assert vector[SCORES] == pytest.approx(min(scores[player] / 150, 1))
            assert vector[SCORES + 1] == pytest.approx(scores[1 - player] / 150)
            assert vector[DEALER] == (1.0 if hand.dealer == player else 0.0)
            assert vector[TURN] == pytest.approx(min(hand.turn / 100, 1))
            # The opponent's cards that it did not take from the pile appear nowhere.
            hidden = hand.hands[1 - player] & ~hand.known[1 - player]
            for card in cards_of(hidden):
                assert not vector[card : TAKEN + 52 : 52].any()


def test_the_encoding_is_a_function_of_the_players_view_alone() -> None:
    """Two deals that differ only in the opponent's hidden cards encode the same."""
    for hand in states(100, seed=2):
        player = hand.to_move
        other = hand.copy()
        hidden = cards_of(hand.hands[1 - player] & ~hand.known[1 - player])
        if not hidden or not other.stock:
            continue
        swap_in, swap_out = other.stock[0], hidden[0]
        other.stock[0] = swap_out
        other.hands[1 - player] ^= (1 << swap_out) | (1 << swap_in)
        assert (
            encode(hand.observation(player), (3, 4), 100)
            == encode(other.observation(player), (3, 4), 100)
        ).all()


def test_masks_are_the_legal_actions() -> None:
    for hand in states(300, seed=3):
        legal = hand.legal_actions()
        mask = action_mask(legal)
        assert mask.dtype == np.int8 and mask.shape == (ACTION_COUNT,)
        assert {ACTIONS[i] for i in np.flatnonzero(mask)} == set(legal)


def test_encode_fills_a_given_array() -> None:
    hand = states(1, seed=4)[0]
    out = np.full(OBSERVATION_SIZE, 7.0, dtype=np.float32)
    result = encode(hand.observation(0), (0, 0), 100, out=out)
    assert result is out
    assert (out == encode(hand.observation(0), (0, 0), 100)).all()
