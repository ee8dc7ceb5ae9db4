"""An honest bot in Python that answers through ``open("/dev/stdout")`` and writes its debug
lines to ``/proc/self/fd/2``, both opened by name. It plays the first legal action."""

import json
import sys

out = open("/dev/stdout", "w")  # noqa: SIM115 - for the whole run
err = open("/proc/self/fd/2", "w")  # noqa: SIM115

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print("honest: hello", file=err, flush=True)
        reply = {"type": "ready", "protocol_version": 1, "name": "honest-python"}
    elif message["type"] == "request":
        print("honest: request", file=err, flush=True)
        reply = {"type": "reply", "id": message["id"], "action": message["legal"][0]}
    elif message["type"] == "quit":
        break
    else:
        continue
    out.write(json.dumps(reply) + "\n")
    out.flush()
