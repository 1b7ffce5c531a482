#!/usr/bin/env bash
# test-rpm-attack.sh - a real `debloat test rpm` completes, and a Prometheus-style
# scrape of the exporter gets its metrics, while four attacks run at once against the
# same host: request heads dripped a byte a second from 8 addresses (64 connections
# each: the rpm port's 512 slots), the same from 9 addresses of one IPv6 /64, HPACK
# amplification on HTTP/2, and 80 half-sent heads at the exporter from one address.
#
#	[ ns dbt-rat-$$, lo: 127.0.0.1/8, ::1, 2001:db8:7:1::1 .. ::9/64 ]
#	  debloat server -p 19918 --rpm 14049          debloat exporter 127.0.0.1:19919
#	  drip-heads.py 127.0.1.1 .. 127.0.1.8 x 64    -> 127.0.0.1:14049
#	  drip-heads.py 2001:db8:7:1::1 .. ::9 x 64    -> [::1]:14049
#	  h2-hpack-flood.py, 4 connections             -> 127.0.0.1:14049
#	  drip-heads.py 127.0.3.1 x 80                 -> 127.0.0.1:19919
#	  debloat test rpm http://127.0.0.1:14049/.well-known/nq, curl .../metrics
#
#  - the attacks are real: hundreds of connections to the rpm port are theirs (the
#    server's limits per network, /64 included, are hserver's unit tests');
#  - meanwhile `debloat test rpm` ends with exit 0 and a result: an RPM, goodput
#    both ways, its probes measured;
#  - and curl gets the exporter's metrics within 5 s.
# About 25 s.
# run.sh: timing net
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_netns
require_cmd python3 jq curl
require_debloat

NS=dbt-rat-$$
PORT=19918
RPM=14049
EXP=19919
T=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; wait "${pids[@]}" 2>/dev/null || true; rm -rf "$T"; cleanup' EXIT
netns_add "$NS"
ip -n "$NS" link set lo up
for i in 1 2 3 4 5 6 7 8 9; do
	ip -n "$NS" addr add "2001:db8:7:1::$i/64" dev lo nodad
done
nsrun() { ip netns exec "$NS" "$@"; }
# jq -e on its input, which must not be empty (jq -e passes on no input at all)
jqtrue() {
	local in
	in=$(cat)
	[ -n "$in" ] && jq -e "$@" >/dev/null <<<"$in"
}
listening() { # PORT: wait until something listens there
	for _ in $(seq 50); do
		nsrun ss -Hltn "sport = :$1" | grep -q . && return 0
		sleep 0.1
	done
	return 1
}
bg() { # background, bounded, stopped by the trap
	ip netns exec "$NS" timeout 60 "$@" &
	pids+=($!)
}
# the rpm port's established connections from addresses matching $1
conns_from() {
	nsrun ss -Htn state established "sport = :$RPM" | awk -v m="$1" '$4 ~ m' | wc -l
}

SERVER_TIMEOUT=90 netns_server "$NS" "$PORT" "$T/server.log" --rpm "$RPM"
bg "$DEBLOAT" exporter --listen "127.0.0.1:$EXP" 2>"$T/exporter.log"
listening "$RPM" && listening "$EXP"

dir=$(dirname "$0")
bg python3 "$dir/drip-heads.py" 127.0.0.1 "$RPM" 40 64 127.0.1.{1..8} >"$T/drip4"
bg python3 "$dir/drip-heads.py" ::1 "$RPM" 40 64 2001:db8:7:1::{1..9} >"$T/drip6"
bg python3 "$dir/h2-hpack-flood.py" 127.0.0.1 "$RPM" 40 4 >"$T/flood"
bg python3 "$dir/drip-heads.py" 127.0.0.1 "$EXP" 40 80 127.0.3.1 >"$T/dripexp"
# every attack under way (python starts slowly on a busy machine), then its hold taken
for _ in $(seq 200); do
	grep -q holding "$T/drip4" && grep -q holding "$T/drip6" && grep -q flooding "$T/flood" &&
		grep -q holding "$T/dripexp" && break
	sleep 0.1
done
for _ in $(seq 30); do
	[ "$(conns_from '127\.0\.1\.')" -ge 200 ] && break
	sleep 0.2
done
sleep 1
held4=$(conns_from '127\.0\.1\.')
held6=$(conns_from '2001:db8:7:1:')
echo "    established: $held4 connections from the 8 IPv4 addresses, $held6 from the /64" \
	"(held by the server or waiting in its accept queue)"
assert_true "the dripped heads take hundreds of the rpm port's connections ($held4)" \
	test "$held4" -ge 200

run nsrun timeout 60 "$DEBLOAT" test rpm --id 0.5 --max-time 6 --json \
	"http://127.0.0.1:$RPM/.well-known/nq"
assert_status "debloat test rpm completes during the attacks" 0
echo "    $(jq -c '.rpm.stages[0] | {rpm, download_mbps, upload_mbps, foreign_probes,
	self_probes}' <<<"$OUT" 2>/dev/null || tail -n 2 <<<"$ERR")"
assert_true "with a sane result: an RPM, goodput both ways, probes of both kinds" jqtrue \
	'.rpm.rpm > 0 and (.rpm.stages[0] | .download_mbps > 0 and .upload_mbps > 0 and
	.foreign_probes > 0 and .self_probes > 0)' <<<"$OUT"

start=$(date +%s%N)
run nsrun curl -s -m 5 "http://127.0.0.1:$EXP/metrics"
ms=$((($(date +%s%N) - start) / 1000000))
assert_status "a scrape of the exporter completes during the attacks (${ms} ms)" 0
assert_contains "with its metrics" "$OUT" "debloat_"
held4=$(conns_from '127\.0\.1\.')
echo "    still held at the end: $held4 connections from the 8 IPv4 addresses"
finish
