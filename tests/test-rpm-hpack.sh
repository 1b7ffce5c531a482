#!/usr/bin/env bash
# test-rpm-hpack.sh - the latency test's probes keep their tail while the rpm port of
# the same `debloat server` is flooded with HPACK amplification.
#
#	[ ns dbt-hpk-$$, lo ]
#	  debloat server -p 19917 --rpm 14047
#	  server-load (bench/server-load.c): 50 ping clients, 500 probes a second in all
#	      (10 a second each: a client that stalls and then catches up stays within
#	      the burst the server allows a test)
#	  h2-hpack-flood.py: 4 HTTP/2 connections at once sending header blocks that name
#	      a 4000-byte field 16000 times, reconnecting as the server closes them;
#	      at nice 19, as an attacker elsewhere whose CPU is not the server's (the
#	      server's work for it is the same; only the two cores are not shared with it)
#	  irtt server on 2112 and nghttpd on 14048 (the anchor, when both are installed)
#
# The same probes, first without (the baseline), then during the flood:
#  - no probe is lost during the flood;
#  - their round-trip p99 stays within 1 ms of the baseline's;
#  - the flood's HTTP work is done off the thread that answers the probes: of the
#    server's CPU during the flood beyond the baseline's, at most a quarter is the
#    probes' thread's (when one thread does both, all of it is);
#  - the flood was real: the server closed many of its connections.
# The anchor, printed and not asserted: irtt's server answering the same probes while
# nghttpd takes the same flood, so that a tail the host's scheduling makes can be told
# from one the server makes. Timing on a shared machine is noisy: the load average is
# printed with the figures.
# About 25 s (15 s of probes and floods, the rest start-up; 40 s with a second
# attempt). No "run.sh:" line on purpose: a tail within 1 ms needs the machine to
# itself, so run.sh runs it alone, after the rest.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_netns
require_cmd python3 jq
require_debloat
LOAD=$BUILD/bench/server-load
[ -x "$LOAD" ] || skip "needs $LOAD (make)"

NS=dbt-hpk-$$
PORT=19917
RPM=14047
CLIENTS=50
RATE=500
SECS=2
T=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; wait "${pids[@]}" 2>/dev/null || true; rm -rf "$T"; cleanup' EXIT
netns_add "$NS"
ip -n "$NS" link set lo up
nsrun() { ip netns exec "$NS" "$@"; }
flood() { # PORT: the flood, in the background until unflood; once it has begun
	ip netns exec "$NS" nice -n 19 timeout 60 python3 "$(dirname "$0")/h2-hpack-flood.py" 127.0.0.1 \
		"$1" 60 4 >"$T/flood" &
	FLOOD=$!
	pids+=("$FLOOD")
	for _ in $(seq 100); do
		grep -qs flooding "$T/flood" && break
		sleep 0.1
	done
	sleep 0.3
}
unflood() { # stop it; its counts in CONNS and BLOCKS
	kill "$FLOOD" 2>/dev/null || true
	wait "$FLOOD" || true
	read -r _ CONNS _ BLOCKS < <(tail -n 1 "$T/flood")
}
probes() { # KIND PORT: loss and round-trip p99 (us) of SECS of probes
	nsrun timeout $((SECS + 20)) "$LOAD" "$1" "$2" "$CLIENTS" "$RATE" "$SECS" |
		jq -r '"\(.loss_pct) \(.rtt_us.p99 | floor) \(.received)"'
}
# the server process's CPU (all threads) and its main thread's, in us
cpu() {
	local all=0 t v
	for t in /proc/"$SPID"/task/*/schedstat; do
		read -r v _ <"$t" && all=$((all + v / 1000))
	done
	read -r v _ <"/proc/$SPID/task/$SPID/schedstat"
	echo "$all $((v / 1000))"
}
load() { cut -d' ' -f1 /proc/loadavg; }

SERVER_TIMEOUT=60 netns_server "$NS" "$PORT" "$T/server.log" --rpm "$RPM"
for _ in $(seq 50); do
	nsrun ss -Hltn "sport = :$RPM" | grep -q . && break
	sleep 0.1
done
SPID=$SERVER_PID
while child=$(pgrep -P "$SPID" | head -1) && [ -n "$child" ]; do SPID=$child; done

# At most two attempts, the second only when the first missed the loss or tail bound:
# a tail within 1 ms is a measurement, and another process waking on a 2-core host
# for a few ms can spoil one. A server whose probes wait behind the flood misses both.
for attempt in 1 2; do
	read -r all0 main0 < <(cpu)
	read -r bloss bp99 bgot < <(probes debloat "$PORT")
	read -r all1 main1 < <(cpu)
	flood "$RPM"
	read -r all2 main2 < <(cpu)
	read -r aloss ap99 agot < <(probes debloat "$PORT")
	read -r all3 main3 < <(cpu)
	unflood
	echo "    ours, attempt $attempt: baseline p99 ${bp99} us (loss ${bloss} %, $bgot probes)," \
		"during the flood p99 ${ap99} us (loss ${aloss} %, $agot probes); load $(load)"
	[ "$(awk -v l="$aloss" 'BEGIN { print (l > 0) }')" = 0 ] && [ "$ap99" -le $((bp99 + 1000)) ] && break
done
extra_all=$(((all3 - all2) - (all1 - all0)))
extra_main=$(((main3 - main2) - (main1 - main0)))
echo "    ours: CPU beyond the baseline's ${extra_all} us, of it on the probes' thread" \
	"${extra_main} us; the flood: ${CONNS:-0} connections, ${BLOCKS:-0} blocks"

assert_eq "no probe lost during the flood" 0 "$(awk -v l="$aloss" 'BEGIN { print (l > 0) }')"
assert_true "the probes' p99 during the flood (${ap99} us) is within 1 ms of the baseline's (${bp99} us)" \
	test "$ap99" -le $((bp99 + 1000))
assert_true "the flood's work is not the probes' thread's (${extra_main} of ${extra_all} us)" \
	test $((extra_main * 4)) -le $((extra_all + 20000))
assert_true "the flood was real: the server closed ${CONNS:-0} of its connections" \
	test "${CONNS:-0}" -ge 50

# the anchor: irtt's server beside nghttpd under the same flood
if command -v irtt >/dev/null && command -v nghttpd >/dev/null; then
	mkdir "$T/www"
	echo x >"$T/www/x"
	ip netns exec "$NS" timeout 60 irtt server -b 127.0.0.1:2112 >/dev/null 2>&1 &
	pids+=($!)
	ip netns exec "$NS" timeout 60 nghttpd --no-tls -d "$T/www" 14048 >/dev/null 2>&1 &
	pids+=($!)
	for _ in $(seq 50); do
		nsrun ss -Hltn "sport = :14048" | grep -q . && break
		sleep 0.1
	done
	read -r bloss bp99 bgot < <(probes irtt 2112)
	flood 14048
	read -r aloss ap99 agot < <(probes irtt 2112)
	unflood
	echo "    anchor (irtt, nghttpd flooded): baseline p99 ${bp99} us (loss ${bloss} %)," \
		"during the flood p99 ${ap99} us (loss ${aloss} %); load $(load)"
fi
finish
