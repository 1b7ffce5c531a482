#!/usr/bin/env bash
# test-keyed.sh - a private server (`debloat server --key-file F`) end to end, on the
# loopback of a namespace of its own: the server challenges every connection, so
#  - a client with the key runs uploads and downloads (every flow signed over its own
#    connection's nonce) and gets results;
#  - a client without a key is told the server is private; with another key, refused;
#  - the probes of a keyed test are signed (a keyless probe is dropped, counted).
# A few seconds.
# run.sh: parallel
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_netns
require_debloat
require_cmd jq

NS=dbt-key-$$
PORT=9911
T=$(mktemp -d)
trap 'rm -rf "$T"; cleanup' EXIT
netns_add "$NS"
ip -n "$NS" link set lo up
echo "a shared secret" >"$T/key"
echo "another secret" >"$T/wrong"
netns_server "$NS" "$PORT" "$T/server.log" --key-file "$T/key"
client() { run ip netns exec "$NS" timeout 30 "$DEBLOAT" test "$@" 127.0.0.1 -p "$PORT" -l 2 -d 0.5; }

client rrul_be --key "$T/key" --json
assert_status "with the key: rrul_be runs" 0
assert_true "  uploads measured (signed flows)" \
	awk -v v="$(jq '.summary.upload_mbps // 0' <<<"$OUT")" 'BEGIN { exit !(v > 0) }'
assert_true "  downloads measured" \
	awk -v v="$(jq '.summary.download_mbps // 0' <<<"$OUT")" 'BEGIN { exit !(v > 0) }'
assert_eq "  no probe lost" 0 "$(jq '[.summary.probes[].lost] | add' <<<"$OUT")"
client ping
assert_status "without a key: exit 1" 1
assert_contains "  told the server is private" "$ERR" "is private: it needs its shared key"
client ping --key "$T/wrong"
assert_status "with another key: exit 1" 1
assert_contains "  refused for the key" "$ERR" "key"

finish
