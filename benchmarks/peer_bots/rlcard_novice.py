#!/usr/bin/env python3
"""RLCard's novice Gin Rummy rule agent as a gin-arena bot, speaking docs/PROTOCOL.md directly.

It uses plain ``json`` and ``sys`` for the protocol and ``rlcard`` (with ``numpy``) for the play;
nothing of this repository. Run it with a Python that has ``rlcard`` installed::

    gin-arena match ".tox/bench-peers/bin/python benchmarks/peer_bots/rlcard_novice.py" \
        greedy --games 10

**Design.** ``GinRummyNoviceRuleAgent.step(state)`` reads the state RLCard's ``gin-rummy`` env
extracts: ``state['obs']``, five planes of 52 cards (own hand, top discard, the rest of the
discard pile, the opponent's known cards, the unknown cards; card id ``suit * 13 + rank`` with
the suits in the order S H D C), and ``state['legal_actions']``, RLCard's action ids. Every
request is translated into that state and the agent's id back into one of ``legal``:

- ``draw``: ``draw_card`` (2) is our draw from the stock, ``pick_up_discard`` (3) from the pile.
- ``first_upcard``: RLCard has no such round (its dealer is dealt eleven cards), so the offer is
  shown as a draw phase: ``pick_up_discard`` takes the upcard, ``draw_card`` passes.
- ``discard``: ``discard`` (6 + card) and ``knock`` (58 + card) for the legal discards and knocks;
  when a knock is gin, RLCard offers only ``gin`` (5), as its judge does, which becomes our gin
  knock (on the highest card, or big gin).

The novice agent chooses at random where it has no rule (the draws, ties between discards);
numpy's generator is seeded once, so a match is reproducible. When the agent's choice is not
legal here or the peer code fails, the wrapper plays a safe legal action (first upcard: pass;
draw: stock; discard: a knock if any, else the legal discard of highest value) and writes a line
starting ``fallback:`` on standard error. Errors never end the process.
"""

import json
import os
import sys
import types
from collections import OrderedDict

try:
    from importlib import metadata

    PEER_VERSION = metadata.version("rlcard")
except Exception:  # a build from source, or no metadata
    PEER_VERSION = "unknown"

import numpy as np
import rlcard


def _load_agent_class():
    """RLCard's ``GinRummyNoviceRuleAgent``, imported without ``rlcard/models/__init__.py``.

    That ``__init__`` imports every model of RLCard eagerly; its Dou Dizhu model unpacks a zip
    file into RLCard's own installed directory on first import, which fails on a read-only
    install (the arena's sandbox) and writes into site-packages otherwise. The package module is
    therefore created empty, and only the Gin Rummy modules are imported from it, unchanged.
    """
    if "rlcard.models" not in sys.modules:
        package = types.ModuleType("rlcard.models")
        package.__path__ = [os.path.join(rlcard.__path__[0], "models")]
        package.__package__ = "rlcard.models"
        sys.modules["rlcard.models"] = package
    from rlcard.models.gin_rummy_rule_models import GinRummyNoviceRuleAgent

    return GinRummyNoviceRuleAgent


GinRummyNoviceRuleAgent = _load_agent_class()

SPEAKS = [1]
NAME = "rlcard-novice"
# every decision is made from the request alone: the events are not needed
IGNORES = ["hand_start", "played", "show_down", "hand_end", "sit_out", "round_end"]
SEED = 20200212

RANKS = "A23456789TJQK"
RL_SUITS = "SHDC"  # RLCard's card id is suit * 13 + rank, suits in this order
DRAW_CARD, PICK_UP_DISCARD, GIN = 2, 3, 5
DISCARD_BASE, KNOCK_BASE = 6, 58


def log(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def send(message):
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def rl_id(name):
    """Our card name ("7H") as RLCard's card id."""
    return RL_SUITS.index(name[1]) * 13 + RANKS.index(name[0])


def value(name):
    return min(RANKS.index(name[0]) + 1, 10)


def plane(cards):
    row = np.zeros(52, dtype=int)
    for card in cards:
        row[rl_id(card)] = 1
    return row


def rlcard_state(request):
    """RLCard's extracted state for this request, and RLCard's action id -> our legal action."""
    obs = request["observation"]
    phase = request["phase"]
    legal = request["legal"]
    hand = list(obs["hand"])
    pile = list(obs.get("discard_pile") or [])
    known = list(obs.get("opponent_known") or [])
    top, dead = pile[-1:], pile[:-1]
    unknown = [
        card
        for card in (r + s for s in RL_SUITS for r in RANKS)
        if card not in {*hand, *pile, *known}
    ]
    choices = {}
    if phase in ("first_upcard", "draw"):
        for action in legal:
            if action["kind"] == "draw" and action.get("source") == "stock":
                choices[DRAW_CARD] = action
            elif action["kind"] == "draw" and action.get("source") == "discard":
                choices[PICK_UP_DISCARD] = action
            elif action["kind"] == "pass":
                choices[DRAW_CARD] = action  # declining the upcard: RLCard's draw from the stock
    else:
        gins = [a for a in legal if a["kind"] == "knock" and a.get("gin")]
        if gins:  # RLCard's judge then offers gin alone
            choices[GIN] = max(gins, key=lambda a: value(a["card"]) if a.get("card") else 11)
        else:
            for action in legal:
                if action["kind"] == "discard":
                    choices[DISCARD_BASE + rl_id(action["card"])] = action
                elif action["kind"] == "knock" and action.get("card"):
                    choices[KNOCK_BASE + rl_id(action["card"])] = action
    legal_ids = OrderedDict((action_id, None) for action_id in sorted(choices))  # as RLCard's env
    planes = np.array([plane(hand), plane(top), plane(dead), plane(known), plane(unknown)])
    state = {
        "obs": planes,
        "legal_actions": legal_ids,
        "raw_legal_actions": list(legal_ids),
        "raw_obs": planes,
    }
    return state, choices


def fallback(request):
    """A safe legal action: pass the first upcard, draw from the stock, knock (gin first, then
    the highest card) when possible, else discard the highest card."""
    legal = request["legal"]
    if request["phase"] == "first_upcard":
        return ([a for a in legal if a["kind"] == "pass"] or legal)[0]
    if request["phase"] == "draw":
        return ([a for a in legal if a.get("source") == "stock"] or legal)[0]
    knocks = [a for a in legal if a["kind"] == "knock" and a.get("card")]
    if knocks:
        return max(knocks, key=lambda a: (bool(a.get("gin")), value(a["card"])))
    discards = [a for a in legal if a["kind"] == "discard"]
    if discards:
        return max(discards, key=lambda a: value(a["card"]))  # the first of the highest value
    return legal[0]


def answer(agent, request):
    try:
        state, choices = rlcard_state(request)
        if not choices:
            raise ValueError("no legal action RLCard can express")
        action_id = int(agent.step(state))
        if action_id in choices:
            return choices[action_id]
        action = fallback(request)
        log(f"fallback: RLCard's action {action_id} is not legal; playing {json.dumps(action)}")
    except Exception as error:  # the peer failed: never crash
        action = fallback(request)
        log(f"fallback: {type(error).__name__}: {error}; playing {json.dumps(action)}")
    return action


def main():
    np.random.seed(SEED)
    agent = GinRummyNoviceRuleAgent()
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
            send(
                {
                    "type": "ready",
                    "protocol_version": max(common),
                    "name": NAME,
                    "author": "RLCard (wrapper: gin-rummy-arena)",
                    "bot_version": PEER_VERSION,
                    "ignores": IGNORES,
                }
            )
        elif kind == "request":
            try:
                action = answer(agent, message)
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
