#!/bin/sh
# Exits at once, before the handshake, saying why on stderr.
[ -z "$HOSTILE_PIDFILE" ] || echo $$ >> "$HOSTILE_PIDFILE"
echo "exit_at_once: giving up before hello" >&2
exit 7
