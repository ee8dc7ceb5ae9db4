#!/usr/bin/env bash
# An honest bot in bash, as people write them: every debug line `> /dev/stderr`, every answer
# `> /dev/stdout`, both opened by name. It plays the first legal action.
while IFS= read -r line; do
    case $line in
    *'"type":"hello"'* | *'"type": "hello"'*)
        echo "honest: hello" > /dev/stderr
        echo '{"type":"ready","protocol_version":1,"name":"honest-bash"}' > /dev/stdout
        ;;
    *'"type":"request"'* | *'"type": "request"'*)
        echo "honest: request" > /dev/stderr
        [[ $line =~ \"id\":\ ?([0-9]+) ]] && id=${BASH_REMATCH[1]}
        [[ $line =~ \"legal\":\ ?\[(\{[^\}]*\}) ]] && action=${BASH_REMATCH[1]}
        echo "{\"type\":\"reply\",\"id\":$id,\"action\":$action}" > /dev/stdout
        ;;
    *'"type":"quit"'* | *'"type": "quit"'*) exit 0 ;;
    esac
done
