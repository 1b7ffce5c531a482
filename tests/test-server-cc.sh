#!/usr/bin/env bash
# test-server-cc.sh - which congestion control a client may make `debloat server` use,
# end to end on the loopback of a namespace of its own:
#
#	[ ns dbt-scc-$$ ]
#	  debloat test ping 127.0.0.1 --cc NAME  --lo-->  debloat server (-p 9911)
#
# NAME is a congestion control this host has (tcp_available_congestion_control) but
# does not allow unprivileged sockets (tcp_allowed_congestion_control): the client,
# root, may use it; the server, root too, must not set it for a peer.
#  - the server refuses it: the client exits 1 and prints the server's reason;
#  - `server --allow-cc NAME` accepts it: the test runs;
#  - `server --allow-cc` with a name that is not one: exit 2.
# A few seconds; no traffic but the handshake and the probes.
# run.sh: parallel
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_netns
require_debloat

read -r -a allowed </proc/sys/net/ipv4/tcp_allowed_congestion_control
read -r -a available </proc/sys/net/ipv4/tcp_available_congestion_control
NAME=
for cc in "${available[@]}"; do
	[[ " ${allowed[*]} " == *" $cc "* ]] || { NAME=$cc; break; }
done
[ -n "$NAME" ] || skip "every available congestion control is allowed here (${allowed[*]})"

NS=dbt-scc-$$
PORT=9911
T=$(mktemp -d)
SERVER_PID=
stop_server() {
	if [ -n "$SERVER_PID" ]; then
		kill "$SERVER_PID" 2>/dev/null || true
		wait "$SERVER_PID" 2>/dev/null || true
	fi
	SERVER_PID=
}
trap 'stop_server; rm -rf "$T"; cleanup' EXIT
netns_add "$NS"
ip -n "$NS" link set lo up

start_server() { # start_server [SERVER OPTIONS]
	ip netns exec "$NS" timeout 60 "$DEBLOAT" server -p "$PORT" "$@" >"$T/server.log" 2>&1 &
	SERVER_PID=$!
	for _ in $(seq 50); do
		ip netns exec "$NS" ss -Hltn "sport = :$PORT" | grep -q . && return 0
		sleep 0.1
	done
	fail "the server did not start: $(cat "$T/server.log")"
}
client() { run ip netns exec "$NS" timeout 30 "$DEBLOAT" test ping 127.0.0.1 -p "$PORT" "$@"; }

start_server
client --cc "$NAME" -l 1 -d 0.2
assert_status "--cc $NAME, not allowed on the server: exit 1" 1
assert_contains "the client prints the server's reason" "$ERR" \
	"congestion control \"$NAME\" is not allowed here"
assert_contains "and that the server refused it" "$ERR" "refuses this congestion control"
client --cc reno -l 1 -d 0.2
assert_status "--cc reno, always allowed: the test runs" 0
stop_server

start_server --allow-cc "nosuchcc,$NAME"
client --cc "$NAME" -l 1 -d 0.2
assert_status "server --allow-cc $NAME: the test runs" 0
stop_server

run "$DEBLOAT" server --allow-cc "$NAME,no/such"
assert_status "server --allow-cc with a bad name: a usage error" 2
assert_contains "names it" "$ERR" "bad --allow-cc \"$NAME,no/such\""

finish
