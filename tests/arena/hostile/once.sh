#!/bin/sh
# Starts properly only once: the first run answers hello and crashes at its first request; any
# later run (a restart, in the same working directory) exits at once.
[ -z "$HOSTILE_PIDFILE" ] || echo $$ >> "$HOSTILE_PIDFILE"
if [ -e started-once ]; then
    echo "once: I do not start twice" >&2
    exit 5
fi
: > started-once
read -r hello
echo '{"type": "ready", "protocol_version": 1, "name": "once"}'
while read -r line; do
    case $line in *'"type":"request"'*) exit 3 ;; esac
done
