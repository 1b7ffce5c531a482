#!/usr/bin/env bash
# test-local.sh - `debloat test --local ADDR`: every socket of the test (control, flows,
# UDP and ICMP probes) comes from ADDR, on the loopback of a namespace of its own:
#
#	[ ns dbt-loc-$$ ]
#	  debloat test --local 127.0.0.2 ... 127.0.0.1  --lo-->  debloat server (-p 9911)
#
#  - the server's log line names 127.0.0.2 as the client (its token is bound to the
#    address of the control connection, so flows and UDP probes from another source
#    would be refused or dropped: the test's flows and probes all arrive);
#  - an address no interface has, or not an address, or of the other family than -4/-6:
#    exit 2 before anything starts.
# A few seconds; a 1 s load on loopback.
# run.sh: parallel
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_netns
require_cmd jq
require_debloat

NS=dbt-loc-$$
PORT=9911
T=$(mktemp -d)
SERVER_PID=
trap 'if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; fi; rm -rf "$T"; cleanup' EXIT
netns_add "$NS"
ip -n "$NS" link set lo up

ip netns exec "$NS" timeout 60 "$DEBLOAT" server -p "$PORT" --json >"$T/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 50); do
	ip netns exec "$NS" ss -Hltn "sport = :$PORT" | grep -q . && break
	sleep 0.1
done

run ip netns exec "$NS" timeout 30 "$DEBLOAT" test tcp_download 127.0.0.1 -p "$PORT" \
	--local 127.0.0.2 -l 1 -d 0.3 -o "$T/r.json"
assert_status "tcp_download --local 127.0.0.2 runs" 0
kill "$SERVER_PID" 2>/dev/null || true
wait "$SERVER_PID" 2>/dev/null || true
SERVER_PID=
log=$(grep '^{' "$T/server.log" || true)
assert_eq "the server saw the test from 127.0.0.2" "127.0.0.2" "$(jq -r .client <<<"$log" | head -n 1)"
assert_eq "and served its flow" "false" "$(jq -r .flow_refused <<<"$log" | head -n 1)"
if [ -s "$T/r.json" ]; then
	assert_eq "every probe kind could run" "" "$(jq -r '.unavailable // ""' "$T/r.json")"
	assert_eq "every probe stream came back" "true" \
		"$(jq '.summary.probes | length > 0 and all(.sent > 0 and .lost < .sent)' "$T/r.json")"
else
	fail "no result written"
fi

run "$DEBLOAT" test ping 127.0.0.1 -p "$PORT" --local 192.0.2.77
assert_status "--local 192.0.2.77 (no interface has it): a usage error" 2
assert_contains "says so" "$ERR" 'cannot use local address "192.0.2.77": no interface of this host has it'
assert_not_contains "before connecting" "$ERR" "connect"
run "$DEBLOAT" test ping 127.0.0.1 --local nosuchhost
assert_status "--local nosuchhost: a usage error" 2
assert_contains "says so" "$ERR" 'bad local address "nosuchhost"'
run "$DEBLOAT" test ping 127.0.0.1 -6 --local 127.0.0.1
assert_status "-6 --local 127.0.0.1: a usage error" 2

finish
