#!/bin/sh
# Answers hello, starts a child that would outlive it (its pid appended to $HOSTILE_CHILDFILE),
# then reads requests forever without answering. Only killing the whole group stops the child.
[ -z "$HOSTILE_PIDFILE" ] || echo $$ >> "$HOSTILE_PIDFILE"
read -r hello
sleep 300 &
echo $! >> "$HOSTILE_CHILDFILE"
echo '{"type": "ready", "protocol_version": 1, "name": "spawner"}'
while read -r line; do :; done
sleep 86400
