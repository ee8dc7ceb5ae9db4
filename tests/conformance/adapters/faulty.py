"""A conformance adapter with a fault, for the tests: this project's engine behind the protocol,
but misbehaving as its first argument says.

    faulty.py crash N        exit (code 3) on request N, after writing to stderr
    faulty.py hang N         stop answering at request N
    faulty.py garbage N      answer request N with a line that is not JSON
    faulty.py lenient        accept every action: an illegal one is applied anyway or ignored
    faulty.py no-games       answer "unsupported" to every game request
    faulty.py wrong-legal    leave the first legal action out of every list
    faulty.py declares JSON  declare these capabilities in hello (and a note); answer as declared:
                             results, show-downs and game results lose the keys left out
    faulty.py drops-points   leave points out of every result without declaring it
    faulty.py changes-on-reject  a refused action first plays the first legal action
    faulty.py swapped-deal   deal every hand with the deck's first two cards swapped
    faulty.py only-knocks    when a knock is legal, list the knocks alone (a compulsory knock)
    faulty.py compulsory-gin  gin compulsory, as RLCard has it: where the player to discard can
                             go gin, list the gin knocks alone and refuse every other action
    faulty.py knock-unlaid   a knock's discard is not reported on the pile (state after a knock)
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from arena.conformance.reference import ReferenceEngine

_SHOW_DOWN_KEYS = (
    "knocker_deadwood",
    "knocker_melds",
    "knocker_deadwood_cards",
    "defender_deadwood",
    "defender_melds",
    "defender_deadwood_cards",
    "lay_offs",
)


def _as_declared(response: dict[str, Any], declared: dict[str, Any], op: object) -> None:
    """Remove from a result what the declared capabilities leave out."""
    result = response.get("result")
    if not isinstance(result, dict):
        return
    if op == "game_result" and "game_result_keys" in declared:
        for key in list(result):
            if key not in declared["game_result_keys"] and key != "games":
                del result[key]
    if op in ("result", "showdown") and "result_keys" in declared:
        keys = declared["result_keys"]
        for key in ("points", "doubled"):
            if key not in keys:
                result.pop(key, None)
        show = result.get("show_down")
        if isinstance(show, dict):
            for key in _SHOW_DOWN_KEYS:
                if key not in keys and key != "knocker_melds":
                    show.pop(key, None)


def _gin_knocks(engine: ReferenceEngine) -> list[str]:
    """The knocks that go gin (no deadwood kept) where the reference has the player discard."""
    knocks = [a for a in engine.call({"op": "legal"}).get("actions", []) if a.startswith("knock ")]
    state = engine.call({"op": "state"})["state"]
    hand = state["hands"][state["to_move"]]
    return [
        a
        for a in knocks
        if engine.call({"op": "deadwood", "hand": [c for c in hand if c != a.split()[1]]})[
            "deadwood"
        ]
        == 0
    ]


def main() -> int:
    mode = sys.argv[1]
    at = int(sys.argv[2]) if len(sys.argv) > 2 and mode != "declares" else 0
    declared: dict[str, Any] = json.loads(sys.argv[2]) if mode == "declares" else {}
    engine = ReferenceEngine()
    count = 0
    last = ""  # the last action applied
    for line in sys.stdin:
        count += 1
        request = json.loads(line)
        if count == at and mode == "crash":
            print("faulty adapter: crashing on purpose", file=sys.stderr, flush=True)
            return 3
        if count == at and mode == "hang":
            time.sleep(600)
        if count == at and mode == "garbage":
            print("this is not JSON", flush=True)
            continue
        op = request.get("op")
        if mode == "swapped-deal" and op in ("hand", "game", "next_hand"):
            deck = request["deck"]
            request = {**request, "deck": [deck[1], deck[0], *deck[2:]]}
        if mode == "changes-on-reject" and op == "apply":
            response = engine.call(request)
            legal = engine.call({"op": "legal"}).get("actions")
            if not response["ok"] and legal:
                engine.call({"op": "apply", "action": legal[0]})
            print(json.dumps(response), flush=True)
            continue
        if mode == "compulsory-gin" and op in ("legal", "apply"):
            gins = _gin_knocks(engine)
            if gins and op == "legal":
                print(json.dumps({"ok": True, "actions": gins}), flush=True)
                continue
            if gins and str(request.get("action")).split(" /")[0].strip() not in gins:
                refusal = {"ok": False, "error": "illegal", "message": "gin is compulsory"}
                print(json.dumps(refusal), flush=True)
                continue
        response = engine.call(request)
        if op == "apply" and response["ok"]:
            last = str(request.get("action"))
        elif op in ("hand", "game", "next_hand"):
            last = ""
        if mode == "knock-unlaid" and op == "state" and last.startswith("knock "):
            state = response["state"]
            if state["discard_pile"]:
                state["discard_pile"] = state["discard_pile"][:-1]
                state["discard_top"] = (state["discard_pile"] or [None])[-1]
        if mode == "declares" and op == "hello":
            response = {**response, "capabilities": declared, "notes": ["declared on purpose"]}
        if mode == "declares":
            _as_declared(response, declared, op)
        if mode == "drops-points" and isinstance(response.get("result"), dict):
            response["result"].pop("points", None)
        if mode == "lenient" and op == "apply" and not response["ok"]:
            response = {"ok": True}
        if mode == "no-games" and op in ("game", "next_seat", "next_hand", "seating"):
            response = {"ok": False, "error": "unsupported", "message": "no games here"}
        if mode == "only-knocks" and op == "legal" and response.get("actions"):
            knocks = [a for a in response["actions"] if a.startswith("knock")]
            response["actions"] = knocks or response["actions"]
        if mode == "wrong-legal" and op == "legal" and response.get("actions"):
            response["actions"] = response["actions"][1:]
        print(json.dumps(response), flush=True)
        if op == "quit":
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
