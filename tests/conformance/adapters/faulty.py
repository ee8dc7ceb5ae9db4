"""A conformance adapter with a fault, for the tests: this project's engine behind the protocol,
but misbehaving as its first argument says.

    faulty.py crash N        exit (code 3) on request N, after writing to stderr
    faulty.py hang N         stop answering at request N
    faulty.py garbage N      answer request N with a line that is not JSON
    faulty.py lenient        accept every action: an illegal one is applied anyway or ignored
    faulty.py no-games       answer "unsupported" to every game request
    faulty.py wrong-legal    leave the first legal action out of every list
"""

from __future__ import annotations

import json
import sys
import time

from arena.conformance.reference import ReferenceEngine


def main() -> int:
    mode = sys.argv[1]
    at = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    engine = ReferenceEngine()
    count = 0
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
        response = engine.call(request)
        op = request.get("op")
        if mode == "lenient" and op == "apply" and not response["ok"]:
            response = {"ok": True}
        if mode == "no-games" and op in ("game", "next_seat", "next_hand", "seating"):
            response = {"ok": False, "error": "unsupported", "message": "no games here"}
        if mode == "wrong-legal" and op == "legal" and response.get("actions"):
            response["actions"] = response["actions"][1:]
        print(json.dumps(response), flush=True)
        if op == "quit":
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
