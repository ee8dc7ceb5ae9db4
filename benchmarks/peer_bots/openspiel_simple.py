#!/usr/bin/env python3
"""OpenSpiel's simple Gin Rummy bot as a gin-arena bot, speaking docs/PROTOCOL.md directly.

It uses plain ``json`` and ``sys`` for the protocol and ``pyspiel`` (open-spiel) for the play;
nothing of this repository. Run it with a Python that has ``open-spiel`` installed::

    gin-arena match ".tox/bench-peers/bin/python benchmarks/peer_bots/openspiel_simple.py" \
        greedy --games 10

**Design.** ``pyspiel.make_simple_gin_rummy_bot`` plays from an OpenSpiel ``gin_rummy`` state.
For every request the wrapper builds that state from scratch out of the request's observation
(stateless, so it cannot drift from the referee):

- OpenSpiel's player 0 moves first: it is the non-dealer, player 1 the dealer.
- Our ten cards as dealt are the current hand with the history undone (our discards put back,
  our draws taken out). The opponent's hidden cards are any consistent cards: those it later
  discards without having taken them from the pile (first ten in its deal, the rest given to it
  by its stock draws, in the order it discards them), then cards nobody has seen.
- Every action of ``observation.history`` is applied; a stock draw's chance outcome is the card
  we drew, or the opponent's card chosen as above.
- The bot's action id is mapped back: ``Draw upcard`` / ``Draw stock`` / ``Pass`` / a card (a
  discard); ``Knock`` is followed by asking the bot for the knock's discard, and sent as
  ``{"kind": "knock", "card": ...}`` without ``melds`` (the referee arranges them). At
  OpenSpiel's wall, ``Knock`` means taking the discard.

**Fallbacks.** Where OpenSpiel cannot follow (its rules differ: it may discard the card just
taken, it ends a hand at its 50th upcard draw, its stock ends at two cards) or the bot's choice
is not in ``legal``, the wrapper plays a safe legal action (first upcard: pass; draw: stock;
discard: a knock if the bot wanted one, else the legal discard of highest value) and writes a
line starting ``fallback:`` on standard error. Errors never end the process.
"""

import json
import sys

try:
    from importlib import metadata

    PEER_VERSION = metadata.version("open-spiel")
except Exception:  # a build from source, or no metadata
    PEER_VERSION = "unknown"

import pyspiel

SPEAKS = [1]
NAME = "openspiel-simple"
# every decision is made from the request alone: the events are not needed
IGNORES = ["hand_start", "played", "show_down", "hand_end", "sit_out", "round_end"]

RANKS = "A23456789TJQK"
OS_SUITS = "SCDH"  # OpenSpiel numbers a card suit * 13 + rank, suits in this order
DRAW_UPCARD, DRAW_STOCK, PASS, KNOCK = 52, 53, 54, 55
PHASE = pyspiel.gin_rummy.Phase


class CannotFollow(Exception):
    """The shadow OpenSpiel state cannot reproduce this position."""


def log(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def send(message):
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def os_id(name):
    """Our card name ("7H") as OpenSpiel's card id."""
    return OS_SUITS.index(name[1]) * 13 + RANKS.index(name[0])


def card_name(card_id):
    suit, rank = divmod(card_id, 13)
    return RANKS[rank] + OS_SUITS[suit]


def value(name):
    return min(RANKS.index(name[0]) + 1, 10)


_games = {}


def game_for(knock_limit, rules):
    """OpenSpiel's game with our rules where it has them (knock card as this hand's limit)."""
    params = {
        "knock_card": int(knock_limit),
        "gin_bonus": int(rules.get("gin_bonus", 25)),
        "undercut_bonus": int(rules.get("undercut_bonus", 10)),
        "oklahoma": False,  # the hand's knock limit already says what Oklahoma sets
    }
    key = tuple(sorted(params.items()))
    if key not in _games:
        _games[key] = pyspiel.load_game("gin_rummy", params)
    return _games[key]


def dealt_hand(obs):
    """Our ten cards as dealt: the current hand with our history undone."""
    seat = obs["seat"]
    hand = set(obs["hand"])
    for entry in reversed(obs.get("history") or []):
        if entry.get("player") != seat:
            continue
        action = entry["action"]
        if action["kind"] in ("discard", "knock") and action.get("card"):
            hand.add(action["card"])
        elif action["kind"] == "draw":
            card = entry.get("card")
            if card is None or card not in hand:
                raise CannotFollow("a draw of ours without its card in the history")
            hand.remove(card)
    if len(hand) != 10:
        raise CannotFollow(f"the history gives a deal of {len(hand)} cards")
    return sorted(hand)


def build_state(obs, rules):
    """The OpenSpiel state at our decision, and our OpenSpiel player id."""
    seat, dealer = obs["seat"], obs["dealer"]
    history = obs.get("history") or []
    if obs.get("turn", 0) > 0 and not history:
        raise CannotFollow("no history")
    mine = dealt_hand(obs)
    upcard = obs["first_upcard"]

    # The opponent's cards that must have been hidden in its hand: discards not taken from the
    # pile, in the order they were discarded.
    taken, hidden = set(), []
    for entry in history:
        if entry.get("player") == seat:
            continue
        action = entry["action"]
        if action["kind"] == "draw" and action.get("source") == "discard":
            taken.add(entry.get("card"))
        elif action["kind"] in ("discard", "knock") and action.get("card"):
            card = action["card"]
            if card in taken:
                taken.discard(card)
            else:
                hidden.append(card)
    seen = set(mine) | {upcard} | set(obs["hand"]) | set(obs.get("discard_pile") or [])
    seen |= set(obs.get("opponent_known") or [])
    for entry in history:
        if entry.get("card"):
            seen.add(entry["card"])
        if entry["action"].get("card"):
            seen.add(entry["action"]["card"])
    fillers = [card_name(c) for c in range(52) if card_name(c) not in seen]
    theirs = hidden[:10]
    pending = hidden[10:]
    while len(theirs) < 10:
        theirs.append(fillers.pop(0))

    me = 0 if seat != dealer else 1  # OpenSpiel's player 0 is the non-dealer
    state = game_for(obs["knock_limit"], rules).new_initial_state()
    for card in (mine + theirs if me == 0 else theirs + mine) + [upcard]:
        state.apply_action(os_id(card))

    def play(action):
        if state.is_terminal() or action not in state.legal_actions():
            raise CannotFollow(f"OpenSpiel refuses {state.action_to_string(action)}")
        state.apply_action(action)

    for entry in history:
        action, ours = entry["action"], entry.get("player") == seat
        kind = action["kind"]
        if kind == "pass":
            play(PASS)
        elif kind == "draw" and action.get("source") == "discard":
            play(KNOCK if state.current_phase() == PHASE.WALL else DRAW_UPCARD)
        elif kind == "draw":
            play(DRAW_STOCK)
            if ours:
                card = entry.get("card")
            elif pending:
                card = pending.pop(0)
            elif fillers:
                card = fillers.pop(0)
            else:
                raise CannotFollow("no card left to give the opponent")
            if not state.is_chance_node() or os_id(card) not in state.legal_actions():
                raise CannotFollow(f"OpenSpiel cannot deal {card} from its stock")
            state.apply_action(os_id(card))
        elif kind == "discard":
            play(os_id(action["card"]))
        else:
            raise CannotFollow(f"a {kind} in the history before our turn")
    if state.is_terminal() or state.is_chance_node() or state.current_player() != me:
        raise CannotFollow("OpenSpiel's hand is not at our decision")
    if sorted(card_name(c) for c in state.hands()[me]) != sorted(obs["hand"]):
        raise CannotFollow("OpenSpiel's hand differs from ours")
    if "stock_size" in obs and state.stock_size() != obs["stock_size"]:
        raise CannotFollow(f"OpenSpiel's stock has {state.stock_size()} cards")
    return state, me


def choose(request, rules):
    """The bot's action as one of ``legal`` (or ``None``) and the action it wanted."""
    obs = request["observation"]
    state, me = build_state(obs, rules)
    bot = pyspiel.make_simple_gin_rummy_bot(state.get_game().get_parameters(), me)
    action = bot.step(state)
    phase = state.current_phase()
    if action == DRAW_UPCARD:
        wanted = {"kind": "draw", "source": "discard"}
    elif action == DRAW_STOCK:
        wanted = {"kind": "draw", "source": "stock"}
    elif action == PASS:
        wanted = {"kind": "pass"}
    elif action == KNOCK and phase == PHASE.WALL:
        wanted = {"kind": "draw", "source": "discard"}  # take the discard to knock with it
    elif action == KNOCK:
        after = state.clone()
        after.apply_action(KNOCK)
        card = bot.step(after)  # the same bot: it planned its knock when it chose Knock
        if not 0 <= card < 52:
            raise CannotFollow(f"the bot knocked without a discard ({card})")
        wanted = {"kind": "knock", "card": card_name(card)}
    elif 0 <= action < 52:
        kind = "knock" if phase == PHASE.KNOCK else "discard"
        wanted = {"kind": kind, "card": card_name(action)}
    else:
        raise CannotFollow(f"unexpected action {state.action_to_string(action)}")
    for legal in request["legal"]:
        if all(legal.get(k) == v for k, v in wanted.items()) and legal["kind"] == wanted["kind"]:
            return legal, wanted
    return None, wanted


def fallback(request, wanted=None):
    """A safe legal action: pass the first upcard, draw from the stock, knock if the bot wanted
    to (gin first, then the highest card), else discard the highest card."""
    legal = request["legal"]

    def find(kind, **members):
        out = [a for a in legal if a["kind"] == kind]
        return [a for a in out if all(a.get(k) == v for k, v in members.items())]

    if request["phase"] == "first_upcard":
        return (find("pass") or legal)[0]
    if request["phase"] == "draw":
        return (find("draw", source="stock") or legal)[0]
    knocks = [a for a in find("knock") if a.get("card")]
    if wanted is not None and wanted["kind"] == "knock" and knocks:
        return max(knocks, key=lambda a: (bool(a.get("gin")), value(a["card"])))
    discards = find("discard")
    if discards:
        return max(discards, key=lambda a: value(a["card"]))  # the first of the highest value
    return legal[0]


def answer(request, rules):
    try:
        action, wanted = choose(request, rules)
        if action is None:
            action = fallback(request, wanted)
            log(
                f"fallback: the bot's {json.dumps(wanted)} is illegal; playing {json.dumps(action)}"
            )
    except Exception as error:  # OpenSpiel cannot follow, or the peer failed: never crash
        action = fallback(request)
        log(f"fallback: {type(error).__name__}: {error}; playing {json.dumps(action)}")
    return action


def main():
    rules = {}
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            log("ignoring a line that is not JSON")
            continue
        if not isinstance(message, dict):
            continue
        kind = message.get("type")
        if kind == "hello":
            common = [v for v in message.get("versions", []) if v in SPEAKS]
            if not common:
                log(f"no common protocol version in {message.get('versions')}")
                return 2
            rules = message.get("rules") or {}
            send(
                {
                    "type": "ready",
                    "protocol_version": max(common),
                    "name": NAME,
                    "author": "OpenSpiel (wrapper: gin-rummy-arena)",
                    "bot_version": PEER_VERSION,
                    "ignores": IGNORES,
                }
            )
        elif kind == "request":
            try:
                action = answer(message, rules)
            except Exception as error:  # a malformed request: still answer with something legal
                log(f"fallback: {type(error).__name__}: {error}")
                legal = message.get("legal") or [{"kind": "pass"}]
                action = legal[0]
            send({"type": "reply", "id": message.get("id"), "action": action})
        elif kind == "quit":
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
