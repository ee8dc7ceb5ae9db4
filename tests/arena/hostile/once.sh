#!/bin/sh
# Starts properly only once: the first run answers hello and crashes at its first request; any
# later run (a restart: it remembers in a file beside $HOSTILE_PIDFILE, as a bot's own working
# directory is new at every start) exits at once.
[ -z "$HOSTILE_PIDFILE" ] || echo $$ >> "$HOSTILE_PIDFILE"
marker=${HOSTILE_PIDFILE:+$HOSTILE_PIDFILE.started-once}
marker=${marker:-started-once}
if [ -e "$marker" ]; then
    echo "once: I do not start twice" >&2
    exit 5
fi
: > "$marker"
read -r hello
echo '{"type": "ready", "protocol_version": 1, "name": "once"}'
while read -r line; do
    case $line in *'"type":"request"'*) exit 3 ;; esac
done
