"""This project's engine as a conformance adapter process (docs/CONFORMANCE.md):

    gin-arena conformance --engine "python -m arena.conformance.adapter"

reads one JSON request a line on standard input and writes one JSON response a line, until
``quit`` or the end of its input. It is the reference the adapter route is tested with, and an
example for authors of adapters of their own.
"""

from __future__ import annotations

import json
import sys
from typing import IO

from arena.conformance.reference import ReferenceEngine


def serve(reader: IO[bytes], writer: IO[bytes]) -> int:
    engine = ReferenceEngine()
    for line in reader:
        if not line.strip():
            continue
        request: object = None
        try:
            request = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            response = {"ok": False, "error": "bad_request", "message": f"not JSON: {error}"}
        else:
            response = engine.call(request)  # type: ignore[arg-type]  # it checks
        writer.write(json.dumps(response, separators=(",", ":")).encode() + b"\n")
        writer.flush()
        if isinstance(request, dict) and request.get("op") == "quit":
            break
    return 0


def main() -> int:
    return serve(sys.stdin.buffer, sys.stdout.buffer)


if __name__ == "__main__":
    sys.exit(main())
