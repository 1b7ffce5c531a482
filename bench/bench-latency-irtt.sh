#!/usr/bin/env bash
# bench-latency-irtt.sh - our UDP round-trip times against irtt's, on the same path in
# the same run (issue 4: idle median within 20 us + 10%, loaded within 15%).
#
#   ns A (client)  veth-a 10.77.0.1 ---- 10.77.0.2 veth-b  ns B (servers)
#   debloat test ping, irtt client,          debloat server, irtt server,
#   iperf3 -c (the bulk load)                iperf3 -s
#   each veth egress: htb 100 Mbit/s, pfifo limit 1000 (a bloated bottleneck)
#
# Phase "idle": `debloat test ping` and `irtt client` run at the same time, same
# interval. Phase "loaded": the same while iperf3 uploads over the bottleneck. The
# kernel's own ICMP echo (iputils ping, 10 per second, alongside) is a third reading
# of the same path, to tell which of the two UDP probers is nearer the truth.
# Prints the medians and ours/irtt; --json prints {"results": [{"name", "value",
# "unit"}, ...]} like bench/run.sh. Exits 77 (skipped) without root, irtt or iperf3.
#
#   sudo bench/bench-latency-irtt.sh [BUILD_DIR] [--json] [--seconds N]
set -euo pipefail

BUILD=build
json=0
secs=10
while [ $# -gt 0 ]; do
	case "$1" in
	--json) json=1 ;;
	--seconds) secs=$2; shift ;;
	-h | --help)
		sed -n '2,17p' "$0"
		exit 0
		;;
	*) BUILD=$1 ;;
	esac
	shift
done
DEBLOAT=$BUILD/debloat
[ -x "$DEBLOAT" ] || { echo "bench-latency-irtt: no $DEBLOAT (make first)" >&2; exit 1; }
# What this host cannot do is a skip (77, as bench/run.sh expects), not a failure.
for c in irtt iperf3 jq ip tc ping; do
	command -v "$c" >/dev/null || { echo "bench-latency-irtt: skipped: needs $c (scripts/install-deps.sh test)" >&2; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "bench-latency-irtt: skipped: needs root (network namespaces)" >&2; exit 77; }

A=dbb-irtt-a-$$
B=dbb-irtt-b-$$
tmp=$(mktemp -d)
pids=()
cleanup() {
	local p
	for p in "${pids[@]+"${pids[@]}"}"; do
		kill "$p" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	ip netns del "$A" 2>/dev/null || true
	ip netns del "$B" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

ip netns add "$A" 2>/dev/null || { echo "bench-latency-irtt: skipped: cannot create network namespaces" >&2; exit 77; }
ip netns add "$B"
ip link add veth-a netns "$A" type veth peer name veth-b netns "$B"
ip -n "$A" addr add 10.77.0.1/24 dev veth-a
ip -n "$B" addr add 10.77.0.2/24 dev veth-b
for ns in "$A" "$B"; do
	ip -n "$ns" link set lo up
	dev=veth-a
	[ "$ns" = "$B" ] && dev=veth-b
	ip -n "$ns" link set "$dev" up
	tc -n "$ns" qdisc add dev "$dev" root handle 1: htb default 1 r2q 1000
	tc -n "$ns" class add dev "$dev" parent 1: classid 1:1 htb rate 100mbit
	tc -n "$ns" qdisc add dev "$dev" parent 1:1 handle 10: pfifo limit 1000
done

ip netns exec "$B" "$DEBLOAT" server -b 10.77.0.2 -p 9911 2>"$tmp/server.log" &
pids+=($!)
ip netns exec "$B" irtt server -b 10.77.0.2:2112 >"$tmp/irtt-server.log" 2>&1 &
pids+=($!)
ip netns exec "$B" iperf3 -s -B 10.77.0.2 -p 5201 >/dev/null 2>&1 &
pids+=($!)
sleep 1

interval_ms=50
step=$(awk -v i="$interval_ms" 'BEGIN { printf "%.3f", i / 1000 }')

# One phase: the probers at once, same duration. Sets OURS_MS, IRTT_MS, PING_MS.
phase() {
	local name=$1 irtt_pid ping_pid
	ip netns exec "$A" irtt client -i "${interval_ms}ms" -d "${secs}s" -Q -o "$tmp/irtt-$name.json" \
		10.77.0.2:2112 &
	irtt_pid=$!
	ip netns exec "$A" ping -n -i 0.1 -c $((secs * 10)) 10.77.0.2 >"$tmp/ping-$name.txt" 2>&1 &
	ping_pid=$!
	# ping: no load of its own, so every sample is "idle" in its summary
	ip netns exec "$A" "$DEBLOAT" test ping 10.77.0.2 -p 9911 -l "$secs" -d 0 -s "$step" -j \
		>"$tmp/ours-$name.json" 2>"$tmp/ours-$name.err" || {
		echo "bench-latency-irtt: debloat test ping failed: $(cat "$tmp/ours-$name.err")" >&2
		exit 1
	}
	wait "$irtt_pid"
	wait "$ping_pid" || true
	PING_MS=$(sed -n 's/.* time=\([0-9.]*\) ms.*/\1/p' "$tmp/ping-$name.txt" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "null" }')
	OURS_MS=$(jq -r '[.summary.probes[] | select(.name | test("UDP")) | .latency_idle_ms.p50][0]' \
		"$tmp/ours-$name.json")
	IRTT_MS=$(jq -r '.stats.rtt.median / 1e6' "$tmp/irtt-$name.json")
}

phase idle
idle_ours=$OURS_MS idle_irtt=$IRTT_MS idle_ping=$PING_MS

ip netns exec "$A" iperf3 -c 10.77.0.2 -p 5201 -t $((secs + 4)) -P 4 >/dev/null 2>&1 &
load_pid=$!
pids+=("$load_pid")
sleep 2 # past slow start: the queue is full
phase loaded
loaded_ours=$OURS_MS loaded_irtt=$IRTT_MS loaded_ping=$PING_MS
wait "$load_pid" 2>/dev/null || true

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "null" }'; }
idle_ratio=$(ratio "$idle_ours" "$idle_irtt")
loaded_ratio=$(ratio "$loaded_ours" "$loaded_irtt")

if [ "$json" -eq 1 ]; then
	jq -n --argjson a "$idle_ours" --argjson b "$idle_irtt" --argjson c "$idle_ratio" \
		--argjson d "$loaded_ours" --argjson e "$loaded_irtt" --argjson f "$loaded_ratio" \
		--argjson g "$idle_ping" --argjson h "$loaded_ping" \
		'{results: [
		  {name: "udp_rtt_median_idle_debloat", value: $a, unit: "ms"},
		  {name: "udp_rtt_median_idle_irtt", value: $b, unit: "ms"},
		  {name: "udp_rtt_median_idle_ratio", value: $c, unit: "x"},
		  {name: "udp_rtt_median_loaded_debloat", value: $d, unit: "ms"},
		  {name: "udp_rtt_median_loaded_irtt", value: $e, unit: "ms"},
		  {name: "udp_rtt_median_loaded_ratio", value: $f, unit: "x"},
		  {name: "icmp_rtt_median_idle_ping", value: $g, unit: "ms"},
		  {name: "icmp_rtt_median_loaded_ping", value: $h, unit: "ms"}]}'
else
	printf '%-8s %14s %14s %10s %16s\n' phase "debloat (ms)" "irtt (ms)" "ours/irtt" "kernel ping (ms)"
	printf '%-8s %14.3f %14.3f %10s %16s\n' idle "$idle_ours" "$idle_irtt" "$idle_ratio" "$idle_ping"
	printf '%-8s %14.3f %14.3f %10s %16s\n' loaded "$loaded_ours" "$loaded_irtt" "$loaded_ratio" "$loaded_ping"
	echo "(${secs} s per phase, ${interval_ms} ms interval, htb 100 Mbit/s + pfifo 1000, iperf3 -P 4 upload as load)"
fi
