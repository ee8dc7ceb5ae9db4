"""A hostile conformance adapter, for the tests: it answers ``hello``, then attacks the kit on every
later request as its first argument says (where an attack needs a right answer to spoil, this
project's engine gives it). It imports no more than it needs, to start fast.

    hostile.py deep           a line of 100,000 nested arrays
    hostile.py huge           a line of 100 MB
    hostile.py not-utf8       a line that is not UTF-8
    hostile.py nan            a line with NaN in it
    hostile.py big-number     a line with an integer of 100,000 digits
    hostile.py no-newline     an answer with no newline, then silence
    hostile.py extra-line     the right answer, then a second line
    hostile.py corrupt K V    the right answer with its key K set to the JSON value V
    hostile.py setsid MARKER  at start, a child in a session of its own that holds the adapter's
                              output open (its command line ends with MARKER); then exit at once
    hostile.py hang           never answer
    hostile.py escapes        a name, refusals, stderr and answers full of terminal escapes
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x9b31m\u202e"
"""A window title, a screen clear, a C1 CSI and a bidirectional override."""


def main() -> int:
    mode = sys.argv[1]
    out = sys.stdout.buffer
    if mode == "setsid":
        subprocess.Popen(  # the attack: a child that leaves the adapter's session
            [sys.executable, "-c", "import time; time.sleep(120)", sys.argv[2]],
            start_new_session=True,
            stdout=out,
        )
    count = 0
    for line in sys.stdin.buffer:
        count += 1
        request = json.loads(line)
        if request.get("op") == "quit":  # the kit asks after a failure: no need to wait
            return 0
        if request.get("op") == "hello":
            name = f"evil{ESCAPES}" if mode == "escapes" else "hostile"
            out.write(json.dumps({"ok": True, "name": name}).encode() + b"\n")
            out.flush()
            continue
        if mode == "setsid":
            return 3
        if mode == "hang":
            time.sleep(120)
        answer = attack(mode, request, count)
        out.write(answer)
        out.flush()
        if mode == "no-newline":
            time.sleep(120)
    return 0


def attack(mode: str, request: dict[str, object], count: int) -> bytes:
    if mode == "deep":
        return b"[" * 100_000 + b"]" * 100_000 + b"\n"
    if mode == "huge":
        chunk = b"x" * (1 << 20)
        for _ in range(100):
            sys.stdout.buffer.write(chunk)
        return b"\n"
    if mode == "not-utf8":
        return b'{"ok": true, "deadwood": "\xff\xfe"}\n'
    if mode == "nan":
        return b'{"ok": true, "deadwood": NaN}\n'
    if mode == "big-number":
        return b'{"ok": true, "deadwood": ' + b"9" * 100_000 + b"}\n"
    if mode == "no-newline":
        return json.dumps(right(request)).encode()
    if mode == "extra-line":
        return json.dumps(right(request)).encode() + b'\n{"ok": true}\n'
    if mode == "corrupt":
        response = right(request)
        key, value = sys.argv[2], json.loads(sys.argv[3])
        if key in response:
            response[key] = value
        return json.dumps(response).encode() + b"\n"
    if mode == "escapes":
        if count % 2:
            refusal = {"ok": False, "error": f"bad_request{ESCAPES}", "message": ESCAPES}
            return json.dumps(refusal).encode() + b"\n"
        sys.stderr.write(f"stderr{ESCAPES}\n")
        sys.stderr.flush()
        return f"garbage{ESCAPES}\n".encode()
    raise SystemExit(f"hostile.py: no mode {mode!r}")


def right(request: dict[str, object]) -> dict[str, object]:
    from arena.conformance.reference import ReferenceEngine

    return ReferenceEngine().call(request)


if __name__ == "__main__":
    sys.exit(main())
