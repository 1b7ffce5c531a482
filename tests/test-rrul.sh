#!/usr/bin/env bash
# test-rrul.sh - `debloat test` / `debloat rrul` against `debloat server`, end to end,
# over a 100 Mbit/s bottleneck with a deep and then a short FIFO in each direction:
#
#	[ ns dbt-rrc-$$ ]          [ ns dbt-rrr-$$ ]            [ ns dbt-rrs-$$ ]
#	  debloat rrul               forwards                     debloat server
#	  vc 10.99.1.1 <--veth--> rc 10.99.1.2  rs 10.99.2.2 <--veth--> vs 10.99.2.1
#	                          egress of rc and rs:
#	                          htb 100mbit + pfifo limit 1000 (then 20)
#
# The shapers sit in a router namespace, as on a real path: a qdisc on the sender's
# own interface holds little, because TCP small queues cap what each socket may keep
# queued below it (about 1 ms of its rate), so a local pfifo never fills. GSO, TSO
# and GRO are off so the pfifo limit counts wire-sized packets: 1000 full packets at
# 100 Mbit/s are ~120 ms of queue, 20 are ~2.4 ms. The flows run reno (--cc, at both
# ends), loss-based like cubic, the default of most hosts: BBR, this kernel's default,
# keeps queues short by itself and would hide the FIFO's size, and cubic's early exit
# from slow start (HyStart) leaves an 8 s rrul's uploads short of the link rate.
#
# Asserts orderings with margins, never exact timings (two cores, other jobs):
#  - ping (no load): idle RTT measured, small; as nobody, ICMP is reported unavailable;
#  - rrul -l 8 -d 2, pfifo 1000: loaded latency >= 10x idle, both directions loaded
#    (60..100 Mbit/s: two-way TCP, see below), no upload step without a value;
#    pfifo 20: loaded latency falls >= 3x;
#  - tcp_nup / tcp_ndown --streams 2: goodput at least 0.85 of iperf3's on the same
#    path in the same run (2 reno flows; 85..95 Mbit/s on a quiet machine), series named
#    "TCP upload::1", "TCP upload::2";
#  - -o writes the JSON contract's keys;
#  - a refused connection, an unknown host, an unknown congestion control, a server
#    that stops answering midway (SIGSTOP): exit 1 and a clear message, and what was
#    measured before is still written; bad options: exit 2;
#  - a live server is not given up: its REPORTs held 5.8 s while the probes are
#    answered, or everything from it held 6.5 s on a path whose round trip is 1.8 s
#    (the bound is six round trips, at least 5 s).

# run.sh: timing prove
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_netns
require_cmd jq ethtool
grep -qw reno /proc/sys/net/ipv4/tcp_available_congestion_control || skip "needs reno"
require_debloat

C=dbt-rrc-$$
R=dbt-rrr-$$
S=dbt-rrs-$$
PORT=9911
T=$(mktemp -d)
SERVER_PID=
trap 'if [ -n "$SERVER_PID" ]; then kill -CONT "$SERVER_PID" 2>/dev/null; kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; fi; rm -rf "$T"; cleanup' EXIT

netns_add "$C"
netns_add "$R"
netns_add "$S"
ip link add vc netns "$C" type veth peer name rc netns "$R"
ip link add vs netns "$S" type veth peer name rs netns "$R"
ip -n "$C" addr add 10.99.1.1/24 dev vc
ip -n "$R" addr add 10.99.1.2/24 dev rc
ip -n "$R" addr add 10.99.2.2/24 dev rs
ip -n "$S" addr add 10.99.2.1/24 dev vs
link_up() { # link_up NS DEV: wire-sized packets only
	ip netns exec "$1" ethtool -K "$2" tso off gso off gro off >/dev/null 2>&1 || true
	ip -n "$1" link set lo up
	ip -n "$1" link set "$2" up
}
link_up "$C" vc
link_up "$R" rc
link_up "$R" rs
link_up "$S" vs
ip -n "$C" route add default via 10.99.1.2
ip -n "$S" route add default via 10.99.2.2
ip netns exec "$R" sysctl -qw net.ipv4.ip_forward=1

shape() { # shape DEV: the 100 Mbit/s bottleneck in the router, pfifo limit 1000
	tc -n "$R" qdisc add dev "$1" root handle 1: htb default 1
	tc -n "$R" class add dev "$1" parent 1: classid 1:1 htb rate 100mbit quantum 15140
	tc -n "$R" qdisc add dev "$1" parent 1:1 handle 10: pfifo limit 1000
}
limit() { # limit DEV LIMIT
	tc -n "$R" qdisc change dev "$1" parent 1:1 handle 10: pfifo limit "$2"
}
rate() { # rate DEV RATE QUANTUM: the bottleneck's rate
	tc -n "$R" class change dev "$1" parent 1: classid 1:1 htb rate "$2" quantum "$3"
}
# hold AFTER SECS U32-MATCH...: in the background, AFTER s from now, the packets from
# the server that match are dropped for SECS s (redirected from rc to an ifb that is
# down); `wait $!` for its end. The ifb goes with the router's namespace.
hold() {
	local after=$1 secs=$2 ifb=dbth$$
	shift 2
	ip -n "$R" link show "$ifb" >/dev/null 2>&1 || ip -n "$R" link add "$ifb" type ifb
	(
		sleep "$after"
		tc -n "$R" filter add dev rc parent 1: protocol ip prio 1 u32 "$@" \
			action mirred egress redirect dev "$ifb"
		sleep "$secs"
		tc -n "$R" filter del dev rc parent 1: prio 1
	) &
}
shape rc
shape rs

ip netns exec "$S" "$DEBLOAT" server -p "$PORT" >"$T/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 50); do
	ip netns exec "$S" ss -Hltn "sport = :$PORT" | grep -q . && break
	sleep 0.1
done

client() { run ip netns exec "$C" "$DEBLOAT" "$@"; }
num() { jq -r "$1" "$2"; }
# awk 'BEGIN{exit !(cond)}' as an assertion on numbers.
assert_num() { # assert_num DESC AWK-CONDITION
	if awk "BEGIN { exit !($2) }"; then pass "$1"; else fail "$1: not ($2)"; fi
}

# The anchor on the same path, now: iperf3 with 2 reno flows for 4 s (ARGS: -R for the
# download). Its goodput in Mbit/s; the bounds below are relative to it, so a slower
# machine (the path has no offloads: its rate is CPU-bound on two cores) moves both.
anchor() {
	ip netns exec "$S" iperf3 -s -1 -B 10.99.2.1 -p 5299 >/dev/null 2>&1 &
	local srv=$!
	sleep 0.5
	ip netns exec "$C" timeout 20 iperf3 -c 10.99.2.1 -p 5299 -P 2 -C reno -t 4 --json "$@" |
		jq '.end.sum_received.bits_per_second / 1e6'
	wait "$srv" 2>/dev/null || true
}
require_cmd iperf3

# --- ping: no load, idle RTT ------------------------------------------------------
client test ping 10.99.2.1 -l 1 -d 0.5 -o "$T/ping.json"
assert_status "ping test runs" 0
idle=$(num .summary.latency_idle_ms.p50 "$T/ping.json")
echo "     ping: idle p50 $idle ms"
assert_num "ping: idle RTT measured and small ($idle ms)" "\"$idle\" != \"null\" && $idle > 0 && $idle < 20"
assert_eq "ping: no flows" 0 "$(jq '[.series[] | select(.kind == "upload" or .kind == "download")] | length' "$T/ping.json")"

# Without root, and with net.ipv4.ping_group_range closed (a new namespace's default),
# ICMP cannot run: the result says so, and no other probe takes its place.
if command -v setpriv >/dev/null; then
	run ip netns exec "$C" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$DEBLOAT" test ping 10.99.2.1 -l 0.6 -d 0.2 --json
	assert_status "ping as nobody runs" 0
	assert_contains "ICMP unavailable, said so" "$(jq -r .unavailable <<<"$OUT")" "ICMP: no permission"
	assert_eq "ICMP unavailable: UDP only" "Ping (ms) UDP BE" "$(jq -r '.series | keys | join(",")' <<<"$OUT")"
fi

# --- rrul over a deep FIFO, then a short one ----------------------------------------
rrul() { # rrul LIMIT -> $T/rrul-LIMIT.json
	limit rc "$1"
	limit rs "$1"
	client rrul 10.99.2.1 -l 8 -d 2 --cc reno -o "$T/rrul-$1.json"
	assert_status "rrul with pfifo limit $1 runs" 0
	[ "$RC" -eq 0 ] || echo "$ERR"
}
rrul 1000
f=$T/rrul-1000.json
down=$(num .summary.download_mbps "$f")
up=$(num .summary.upload_mbps "$f")
idle=$(num .summary.latency_idle_ms.p50 "$f")
deep=$(num .summary.latency_loaded_ms.p50 "$f")
echo "     pfifo 1000: download $down Mbit/s, upload $up Mbit/s, idle p50 $idle ms, loaded p50 $deep ms"
assert_num "pfifo 1000: loaded latency >= 10x idle ($idle -> $deep ms)" "$deep >= 10 * $idle"
# Not the 85..100 Mbit/s that one-way loads reach (tcp_nup, tcp_ndown below): with TCP
# both ways, each direction's ACKs wait behind the other direction's ~100 ms of data
# in the same FIFOs (two-way traffic: ACKs arrive in bursts, the senders burst, both
# queues drop), and reno with 4 flows at ~200 ms of RTT regrows one packet per RTT
# per flow. It is the path, not the meter: iperf3 --bidir -P 4 -t 8 -C reno here gets
# 75..93 Mbit/s per direction (rrul: 76..92), 84..87 over 30 s, and leaving out the
# first and last second does not lift it (77..93). The meter's upload is the
# server's own byte count within 1% (the rest arrives after the load ends).
anchor_up=$(anchor)
anchor_down=$(anchor -R)
echo "     iperf3 on the same path now: upload $anchor_up Mbit/s, download $anchor_down Mbit/s"
assert_num "rrul: both directions loaded (>= 0.35 of iperf3's one-way: neither starved), at most the bottleneck ($down, $up)" \
	"$down >= 0.35 * $anchor_down && $down <= 100 && $up >= 0.35 * $anchor_up && $up <= 100"
# Upload goodput comes from the server's REPORTs, placed by the server's clock: the
# REPORTs that queue behind the downloads and arrive bunched leave no step empty.
missing=$(jq '. as $r | [.series[] | select(.kind == "upload") | .values | to_entries[] |
	select((.key - 0.5) * $r.step_s >= $r.delay_s and
		(.key - 0.5) * $r.step_s < $r.delay_s + $r.length_s and .value == null)] | length' "$f")
assert_eq "rrul: every upload flow has a value at every step of the load" 0 "$missing"

for k in test host length_s step_s series; do
	assert_eq "JSON has \"$k\"" true "$(jq "has(\"$k\")" "$f")"
done
for k in download_mbps upload_mbps latency_idle_ms latency_loaded_ms induced_latency_ms \
	loss_pct rpm grade; do
	assert_eq "JSON summary has \"$k\"" true "$(jq ".summary | has(\"$k\")" "$f")"
done
for k in p50 p90 p99; do
	assert_eq "latency_loaded_ms has $k" number "$(jq -r ".summary.latency_loaded_ms.$k | type" "$f")"
done
assert_eq "rrul series names" \
	"Ping (ms) ICMP,Ping (ms) UDP BE,Ping (ms) UDP BK,Ping (ms) UDP EF,TCP download BE,TCP download BK,TCP download CS5,TCP download EF,TCP upload BE,TCP upload BK,TCP upload CS5,TCP upload EF" \
	"$(jq -r '[.series | keys[] | select(contains("::") | not)] | sort | join(",")' "$f")"
assert_eq "a flow's TCP RTT sub-series" true "$(jq '.series | has("TCP upload EF::tcp_rtt")' "$f")"

rrul 20
f=$T/rrul-20.json
short=$(num .summary.latency_loaded_ms.p50 "$f")
echo "     pfifo 20: download $(num .summary.download_mbps "$f") Mbit/s, upload $(num .summary.upload_mbps "$f") Mbit/s, loaded p50 $short ms"
assert_num "pfifo 20: loaded latency falls >= 3x ($deep -> $short ms)" "$short * 3 <= $deep"

# --- one-way loads: goodput at the bottleneck rate, measured at each end ------------
# Upload goodput comes from the server's REPORTs, download from our own reads; 100
# Mbit/s of 1514-byte frames carry at most 95.6 Mbit/s of TCP payload.
limit rc 1000
limit rs 1000
client test tcp_nup 10.99.2.1 --streams 2 -l 4 -d 0.5 --cc reno --json
assert_status "tcp_nup --streams 2 runs" 0
assert_eq "tcp_nup series" "TCP upload::1,TCP upload::2" \
	"$(jq -r '[.series | keys[] | select(startswith("TCP upload::")) | select(endswith("tcp_rtt") | not)] | sort | join(",")' <<<"$OUT")"
up=$(jq .summary.upload_mbps <<<"$OUT")
client test tcp_ndown 10.99.2.1 --streams 2 -l 4 -d 0.5 --cc reno --json
assert_status "tcp_ndown --streams 2 runs" 0
down=$(jq .summary.download_mbps <<<"$OUT")
echo "     one-way loads: upload $up Mbit/s, download $down Mbit/s"
assert_num "upload at least 0.85 of iperf3's ($up vs $anchor_up Mbit/s), at most 100" \
	"$up >= 0.85 * $anchor_up && $up <= 100"
assert_num "download at least 0.85 of iperf3's ($down vs $anchor_down Mbit/s), at most 100" \
	"$down >= 0.85 * $anchor_down && $down <= 100"

# --- errors ---------------------------------------------------------------------------
client rrul 10.99.2.1 -p 9 -l 1 -d 0
assert_status "connection refused: exit 1" 1
assert_contains "connection refused: says so" "$ERR" "Connection refused"
client rrul nosuch.invalid -l 1 -d 0
assert_status "unknown host: exit 1" 1
assert_contains "unknown host: says so" "$ERR" "cannot resolve nosuch.invalid"
client rrul 10.99.2.1 -l nope
assert_status "bad length: exit 2" 2
client test nosuch 10.99.2.1
assert_status "unknown test: exit 2" 2
client rrul
assert_status "missing host: exit 2" 2

client test tcp_ndown 10.99.2.1 -l 1 -d 0 --cc nosuchcc
assert_status "unknown congestion control: a usage error before anything starts" 2
assert_contains "unknown congestion control: says so" "$ERR" 'congestion control "nosuchcc"'

# --- REPORTs held up, probes answered: the server is there, and the test runs on ----
# Every TCP segment from the server dropped for 5.8 s (redirected to an ifb that is
# down), as a retransmission backoff on a lossy, bloated path holds the control
# connection, while the UDP probes are answered; TCP's next retransmission (6.2 s after
# its first loss) gets through. A client that counted REPORTs alone gave up after 5 s.
hold 3 5.8 match ip protocol 6 0xff
client rrul 10.99.2.1 -l 12 -d 1 -o "$T/held.json"
wait $!
assert_status "REPORTs held 5.8 s, probes answered: exit 0" 0
assert_not_contains "REPORTs held 5.8 s, probes answered: the server is not taken as gone" \
	"$ERR" "stopped answering"

# --- a long path's silence: the bound follows the round trip ------------------------
# The upload through 2 Mbit/s and a 300-packet FIFO, about 1.8 s of queue, which a
# reno flow fills. Then every packet from the server is dropped for 6.5 s: no REPORT
# and no probe answer for longer than 5 s, but for fewer than six of this path's round
# trips. A client with a fixed 5 s bound gave the live server up.
rate rs 2mbit 1514
limit rs 300
hold 8 6.5 match u32 0 0
client test tcp_upload 10.99.2.1 -l 16 -d 1 --cc reno -o "$T/long.json"
wait $!
assert_status "all held 6.5 s on a 1.8 s path: exit 0" 0
assert_not_contains "all held 6.5 s on a 1.8 s path: the server is not taken as gone" \
	"$ERR" "stopped answering"
assert_num "all held 6.5 s on a 1.8 s path: the round trip reached 1.4 s (the premise)" \
	"$(jq '[.series["TCP upload::tcp_rtt"].values[] | numbers] | max // 0' "$T/long.json") >= 1400"
rate rs 100mbit 15140
limit rs 1000

# --- a server that stops answering: exit 1, and what was measured is still written --
( sleep 2; kill -STOP "$SERVER_PID" ) &
client rrul 10.99.2.1 -l 4 -d 1 -o "$T/cut.json"
wait $!
kill -CONT "$SERVER_PID"
assert_status "silent server: exit 1" 1
assert_contains "silent server: says so" "$ERR" "the server stopped answering after"
assert_num "silent server: the idle latency before it is written" \
	"$(jq '.summary.latency_idle_ms.samples' "$T/cut.json") > 0"

kill "$SERVER_PID" 2>/dev/null || true
wait "$SERVER_PID" 2>/dev/null || true
SERVER_PID=
finish
