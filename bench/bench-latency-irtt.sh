#!/usr/bin/env bash
# bench-latency-irtt.sh - our UDP round-trip times against irtt's and the kernel's ICMP
# echo, on the same path in the same run. The bounds we hold to: our idle median within
# 20 us + 10% of irtt's, our loaded median within 15% of irtt's; the script says whether
# each holds (it reports, it does not fail: exit 0 either way).
#
#   ns A (client)  veth-a 10.77.0.1 ---- 10.77.0.2 veth-b  ns B (servers)
#   debloat test ping, irtt client,          debloat server, irtt server,
#   ping, iperf3 -c (the bulk load)          iperf3 -s
#   each veth egress: htb 100 Mbit/s, pfifo limit 1000 (a bloated bottleneck)
#
# Phase "idle": `debloat test ping` (its UDP and ICMP probes), `irtt client` and
# iputils ping all run at once, the first two at the same interval. Phase "loaded": the
# same while iperf3 -P 4 uploads over the bottleneck. With --rounds N, both phases run
# N times and each figure is the median of the N per-phase medians.
#
# Who stamps what: ours stamps the request just before send() and the reply with the
# kernel's receive time (SO_TIMESTAMPNS), less the server's hold time (its timestamps
# after recvmsg and before sendmsg). iputils ping also uses the kernel's receive time,
# and the echo is answered in the kernel. irtt (Go) stamps both ends in user space,
# after each read returns, so its RTT also holds the wake-up of the irtt server and of
# the irtt client through the Go runtime: the irtt columns below show where its time
# goes (one-way delays from its wall clocks, valid here: both ends share one clock).
# irtt options tried for its best accuracy (a 2-CPU VM, 5-6 alternating runs each):
# --thread at both ends (worse: one more thread hand-off per packet), GOMAXPROCS=1,
# --timer=busy, --clock=monotonic --stats=none, server --gc=off: none moved irtt's idle
# median out of the run-to-run noise, so the defaults (as flent runs it) are used.
# --irtt-opts and --irtt-server-opts pass others; GOMAXPROCS in the environment reaches
# both ends.
#
# --json prints {"results": [{"name", "value", "unit"}, ...]} like bench/run.sh.
# Exits 77 (skipped) without root, irtt or iperf3.
#
#   sudo bench/bench-latency-irtt.sh [BUILD_DIR] [--json] [--seconds N] [--rounds N]
#        [--irtt-opts "OPTS"] [--irtt-server-opts "OPTS"]
set -euo pipefail

BUILD=build
json=0
secs=10
rounds=1
irtt_opts=
irtt_server_opts=
while [ $# -gt 0 ]; do
	case "$1" in
	--json) json=1 ;;
	--seconds) secs=$2; shift ;;
	--rounds) rounds=$2; shift ;;
	--irtt-opts) irtt_opts=$2; shift ;;
	--irtt-server-opts) irtt_server_opts=$2; shift ;;
	-h | --help)
		sed -n '2,35p' "$0"
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
# shellcheck disable=SC2086 # the options are words
ip netns exec "$B" irtt server -b 10.77.0.2:2112 $irtt_server_opts >"$tmp/irtt-server.log" 2>&1 &
pids+=($!)
ip netns exec "$B" iperf3 -s -B 10.77.0.2 -p 5201 >/dev/null 2>&1 &
pids+=($!)
sleep 1

interval_ms=50
step=$(awk -v i="$interval_ms" 'BEGIN { printf "%.3f", i / 1000 }')

# The median of the numbers on stdin, "null" when there are none.
median() { sort -g | awk '{ v[NR] = $1 }
	END { if (!NR) print "null"; else if (NR % 2) print v[(NR + 1) / 2]
	      else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# One phase: every prober at once, for the same time. Appends one line to
# $tmp/$name.rows: ours_udp ours_icmp irtt ping irtt_server_hold irtt_send_delay
# irtt_receive_delay irtt_send_call_mean (ms; irtt reports only a mean for its send call).
phase() {
	local name=$1 n=$2 irtt_pid ping_pid f
	# shellcheck disable=SC2086 # the options are words
	ip netns exec "$A" irtt client -i "${interval_ms}ms" -d "${secs}s" -Q $irtt_opts \
		-o "$tmp/irtt-$name-$n.json" 10.77.0.2:2112 &
	irtt_pid=$!
	ip netns exec "$A" ping -n -i 0.1 -c $((secs * 10)) 10.77.0.2 >"$tmp/ping-$name-$n.txt" 2>&1 &
	ping_pid=$!
	# ping: no load of its own, so every sample is "idle" in its summary
	ip netns exec "$A" "$DEBLOAT" test ping 10.77.0.2 -p 9911 -l "$secs" -d 0 -s "$step" -j \
		>"$tmp/ours-$name-$n.json" 2>"$tmp/ours-$name-$n.err" || {
		echo "bench-latency-irtt: debloat test ping failed: $(cat "$tmp/ours-$name-$n.err")" >&2
		exit 1
	}
	wait "$irtt_pid" || { echo "bench-latency-irtt: irtt client failed" >&2; exit 1; }
	wait "$ping_pid" || true
	f=$tmp/irtt-$name-$n.json
	{
		jq -r '[.summary.probes[] | select(.name | test("UDP")) | .latency_idle_ms.p50][0]' \
			"$tmp/ours-$name-$n.json"
		jq -r '[.summary.probes[] | select(.name | test("ICMP")) | .latency_idle_ms.p50][0]
			// "null"' "$tmp/ours-$name-$n.json"
		jq -r '.stats.rtt.median / 1e6' "$f"
		sed -n 's/.* time=\([0-9.]*\) ms.*/\1/p' "$tmp/ping-$name-$n.txt" | median
		jq -r '.round_trips[] | select(.lost == "false") | .timestamps.server |
			(.send.monotonic - .receive.monotonic) / 1e6' "$f" | median
		jq -r '.round_trips[] | select(.lost == "false") | .delay.send // empty | . / 1e6' "$f" | median
		jq -r '.round_trips[] | select(.lost == "false") | .delay.receive // empty | . / 1e6' "$f" | median
		jq -r '.stats.send_call.mean / 1e6' "$f"
	} | paste -sd' ' >>"$tmp/$name.rows"
}

for r in $(seq "$rounds"); do
	phase idle "$r"
	ip netns exec "$A" iperf3 -c 10.77.0.2 -p 5201 -t $((secs + 4)) -P 4 >/dev/null 2>&1 &
	load_pid=$!
	pids+=("$load_pid")
	sleep 2 # past slow start: the queue is full
	phase loaded "$r"
	wait "$load_pid" 2>/dev/null || true
done

# medians PHASE: the median over the rounds of each column of $tmp/PHASE.rows
medians() {
	local i
	for i in 1 2 3 4 5 6 7 8; do
		awk -v c="$i" '$c != "null" { print $c }' "$tmp/$1.rows" | median
	done | paste -sd' '
}
read -r idle_ours_udp idle_ours_icmp idle_irtt idle_ping idle_irtt_hold idle_irtt_send \
	idle_irtt_recv idle_irtt_call <<<"$(medians idle)"
read -r loaded_ours_udp loaded_ours_icmp loaded_irtt loaded_ping loaded_irtt_hold \
	loaded_irtt_send loaded_irtt_recv loaded_irtt_call <<<"$(medians loaded)"

# verdict OURS REF ABS_MS REL: "holds" when |ours - ref| <= abs + rel * ref
verdict() { awk -v a="$1" -v b="$2" -v abs="$3" -v rel="$4" 'BEGIN {
	if (a == "null" || b == "null") { print "n/a"; exit }
	d = a - b; if (d < 0) d = -d; print d <= abs + rel * b ? "holds" : "fails" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "null" && b > 0) printf "%.3f", a / b; else print "null" }'; }
idle_vs_irtt=$(verdict "$idle_ours_udp" "$idle_irtt" 0.020 0.10)
loaded_vs_irtt=$(verdict "$loaded_ours_udp" "$loaded_irtt" 0 0.15)
idle_vs_ping=$(verdict "$idle_ours_udp" "$idle_ping" 0.020 0.10)
loaded_vs_ping=$(verdict "$loaded_ours_udp" "$loaded_ping" 0 0.15)
idle_irtt_vs_ping=$(verdict "$idle_irtt" "$idle_ping" 0.020 0.10)
loaded_irtt_vs_ping=$(verdict "$loaded_irtt" "$loaded_ping" 0 0.15)

if [ "$json" -eq 1 ]; then
	b() { if [ "$1" = holds ]; then echo 1; else echo 0; fi; }
	jq -n --argjson idle_ours_udp "$idle_ours_udp" --argjson idle_ours_icmp "$idle_ours_icmp" \
		--argjson idle_irtt "$idle_irtt" --argjson idle_ping "$idle_ping" \
		--argjson idle_irtt_hold "$idle_irtt_hold" --argjson idle_irtt_send "$idle_irtt_send" \
		--argjson idle_irtt_recv "$idle_irtt_recv" --argjson idle_irtt_call "$idle_irtt_call" \
		--argjson loaded_ours_udp "$loaded_ours_udp" --argjson loaded_ours_icmp "$loaded_ours_icmp" \
		--argjson loaded_irtt "$loaded_irtt" --argjson loaded_ping "$loaded_ping" \
		--argjson loaded_irtt_hold "$loaded_irtt_hold" --argjson loaded_irtt_send "$loaded_irtt_send" \
		--argjson loaded_irtt_recv "$loaded_irtt_recv" --argjson loaded_irtt_call "$loaded_irtt_call" \
		--argjson ri "$(ratio "$idle_ours_udp" "$idle_irtt")" \
		--argjson rl "$(ratio "$loaded_ours_udp" "$loaded_irtt")" \
		--argjson bi "$(b "$idle_vs_irtt")" --argjson bl "$(b "$loaded_vs_irtt")" \
		--argjson pi "$(b "$idle_vs_ping")" --argjson pl "$(b "$loaded_vs_ping")" \
		--argjson n "$rounds" \
		'{results: [
		  {name: "udp_rtt_median_idle_debloat", value: $idle_ours_udp, unit: "ms"},
		  {name: "icmp_rtt_median_idle_debloat", value: $idle_ours_icmp, unit: "ms"},
		  {name: "udp_rtt_median_idle_irtt", value: $idle_irtt, unit: "ms"},
		  {name: "icmp_rtt_median_idle_ping", value: $idle_ping, unit: "ms"},
		  {name: "udp_rtt_median_idle_ratio", value: $ri, unit: "x"},
		  {name: "udp_rtt_idle_within_20us_10pct_of_irtt", value: $bi, unit: "bool"},
		  {name: "udp_rtt_idle_within_20us_10pct_of_ping", value: $pi, unit: "bool"},
		  {name: "irtt_server_hold_median_idle", value: $idle_irtt_hold, unit: "ms"},
		  {name: "irtt_send_delay_median_idle", value: $idle_irtt_send, unit: "ms"},
		  {name: "irtt_receive_delay_median_idle", value: $idle_irtt_recv, unit: "ms"},
		  {name: "irtt_send_call_mean_idle", value: $idle_irtt_call, unit: "ms"},
		  {name: "udp_rtt_median_loaded_debloat", value: $loaded_ours_udp, unit: "ms"},
		  {name: "icmp_rtt_median_loaded_debloat", value: $loaded_ours_icmp, unit: "ms"},
		  {name: "udp_rtt_median_loaded_irtt", value: $loaded_irtt, unit: "ms"},
		  {name: "icmp_rtt_median_loaded_ping", value: $loaded_ping, unit: "ms"},
		  {name: "udp_rtt_median_loaded_ratio", value: $rl, unit: "x"},
		  {name: "udp_rtt_loaded_within_15pct_of_irtt", value: $bl, unit: "bool"},
		  {name: "udp_rtt_loaded_within_15pct_of_ping", value: $pl, unit: "bool"},
		  {name: "irtt_server_hold_median_loaded", value: $loaded_irtt_hold, unit: "ms"},
		  {name: "irtt_send_delay_median_loaded", value: $loaded_irtt_send, unit: "ms"},
		  {name: "irtt_receive_delay_median_loaded", value: $loaded_irtt_recv, unit: "ms"},
		  {name: "irtt_send_call_mean_loaded", value: $loaded_irtt_call, unit: "ms"},
		  {name: "latency_rounds", value: $n, unit: "runs"}]}'
else
	f() { awk -v v="$1" 'BEGIN { if (v == "null") print "-"; else printf "%.3f", v }'; }
	printf 'median RTT (ms)  %12s %12s %12s %12s %10s\n' "debloat UDP" "debloat ICMP" irtt "kernel ping" "ours/irtt"
	printf '%-16s %12s %12s %12s %12s %10s\n' idle "$(f "$idle_ours_udp")" "$(f "$idle_ours_icmp")" \
		"$(f "$idle_irtt")" "$(f "$idle_ping")" "$(ratio "$idle_ours_udp" "$idle_irtt")"
	printf '%-16s %12s %12s %12s %12s %10s\n' loaded "$(f "$loaded_ours_udp")" "$(f "$loaded_ours_icmp")" \
		"$(f "$loaded_irtt")" "$(f "$loaded_ping")" "$(ratio "$loaded_ours_udp" "$loaded_irtt")"
	echo
	echo "the bounds, debloat UDP against irtt (and, for reference, against kernel ping):"
	printf '  idle   |ours - irtt| <= 20 us + 10%% of irtt: %-5s   against ping: %-5s   irtt against ping: %s\n' \
		"$idle_vs_irtt" "$idle_vs_ping" "$idle_irtt_vs_ping"
	printf '  loaded |ours - irtt| <= 15%% of irtt:         %-5s   against ping: %-5s   irtt against ping: %s\n' \
		"$loaded_vs_irtt" "$loaded_vs_ping" "$loaded_irtt_vs_ping"
	echo
	echo "where irtt's time goes (medians, ms; one-way delays from its wall clocks, one host):"
	printf '  %-8s client->server %s  server hold %s  server->client %s  (send call mean %s)\n' \
		idle "$(f "$idle_irtt_send")" "$(f "$idle_irtt_hold")" "$(f "$idle_irtt_recv")" "$(f "$idle_irtt_call")"
	printf '  %-8s client->server %s  server hold %s  server->client %s  (send call mean %s)\n' \
		loaded "$(f "$loaded_irtt_send")" "$(f "$loaded_irtt_hold")" "$(f "$loaded_irtt_recv")" "$(f "$loaded_irtt_call")"
	echo "(${secs} s per phase x ${rounds}, ${interval_ms} ms interval, htb 100 Mbit/s + pfifo 1000," \
		"iperf3 -P 4 upload as load${irtt_opts:+, irtt client $irtt_opts}${irtt_server_opts:+, irtt server $irtt_server_opts})"
fi
