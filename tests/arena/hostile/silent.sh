#!/bin/sh
# Never answers the handshake: reads hello, then sleeps (exec: the sleep is the group leader).
[ -z "$HOSTILE_PIDFILE" ] || echo $$ >> "$HOSTILE_PIDFILE"
read -r hello
exec sleep 86400
