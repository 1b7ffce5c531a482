#!/usr/bin/env bash
# bench-tcp-cpu.sh - what a byte costs: `debloat test tcp_nup --streams 8` against
# `iperf3 -P 8`, one after the other on loopback in the same run (issue 4: ours should
# cost no more CPU per byte than iperf3).
#
# For each: throughput (Mbit/s, at the receiver), and CPU seconds (user + system, client
# and server together, from /proc/PID/stat of each process) per GB moved.
# --json prints {"results": [{"name", "value", "unit"}, ...]} like bench/run.sh.
#
#   bench/bench-tcp-cpu.sh [BUILD_DIR] [--json] [--seconds N]
set -euo pipefail

BUILD=build
json=0
secs=10
while [ $# -gt 0 ]; do
	case "$1" in
	--json) json=1 ;;
	--seconds) secs=$2; shift ;;
	-h | --help)
		sed -n '2,10p' "$0"
		exit 0
		;;
	*) BUILD=$1 ;;
	esac
	shift
done
DEBLOAT=$BUILD/debloat
[ -x "$DEBLOAT" ] || { echo "bench-tcp-cpu: no $DEBLOAT (make first)" >&2; exit 1; }
for c in iperf3 jq /usr/bin/time; do
	command -v "$c" >/dev/null || { echo "bench-tcp-cpu: skipped: needs $c (scripts/install-deps.sh test)" >&2; exit 77; }
done

# Ports above the defaults so a running server of either tool is not disturbed.
PORT_OURS=$((20000 + $$ % 10000))
PORT_IPERF=$((PORT_OURS + 1))
tmp=$(mktemp -d)
server=
cleanup() {
	if [ -n "$server" ]; then
		kill "$server" 2>/dev/null || true
		wait "$server" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

HZ=$(getconf CLK_TCK)
# utime + stime of a live process, in clock ticks (fields 14 and 15 of /proc/PID/stat,
# counted after the ")" that ends the command name).
ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }

# Run a client command under the server $server; prints "client_cpu_s server_cpu_s".
measure() {
	local s0 s1 c_ticks
	s0=$(ticks "$server")
	# the client's own CPU: bash's `times` would include other children; use GNU time
	/usr/bin/time -f '%U %S' -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" || {
		echo "bench-tcp-cpu: $1 failed: $(head -c 400 "$tmp/err")" >&2
		exit 1
	}
	s1=$(ticks "$server")
	c_ticks=$(awk '{ print $1 + $2 }' "$tmp/time")
	awk -v c="$c_ticks" -v s="$((s1 - s0))" -v hz="$HZ" 'BEGIN { printf "%.3f %.3f\n", c, s / hz }'
}

# --- ours ---
"$DEBLOAT" server -b 127.0.0.1 -p "$PORT_OURS" 2>"$tmp/server.log" &
server=$!
sleep 0.5
m=$(measure "$DEBLOAT" test tcp_nup 127.0.0.1 -p "$PORT_OURS" --streams 8 -l "$secs" -d 1 -j)
read -r ours_c ours_s <<<"$m"
ours_mbps=$(jq -r '.summary.upload_mbps' "$tmp/out")
kill "$server"
wait "$server" 2>/dev/null || true
server=

# --- iperf3 ---
iperf3 -s -B 127.0.0.1 -p "$PORT_IPERF" >/dev/null 2>&1 &
server=$!
sleep 0.5
m=$(measure iperf3 -c 127.0.0.1 -p "$PORT_IPERF" -P 8 -t "$secs" -J)
read -r iperf_c iperf_s <<<"$m"
iperf_mbps=$(jq -r '.end.sum_received.bits_per_second / 1e6' "$tmp/out")
kill "$server"
wait "$server" 2>/dev/null || true
server=

# CPU seconds per GB (10^9 bytes): both ends' CPU over the bytes of `secs` seconds at
# the measured rate. Ours also spends its idle second before and after on probes only.
per_gb() { awk -v c="$1" -v s="$2" -v m="$3" -v t="$secs" \
	'BEGIN { gb = m * 1e6 / 8 * t / 1e9; if (gb > 0) printf "%.3f", (c + s) / gb; else print "null" }'; }
ours_gb=$(per_gb "$ours_c" "$ours_s" "$ours_mbps")
iperf_gb=$(per_gb "$iperf_c" "$iperf_s" "$iperf_mbps")
ratio=$(awk -v a="$ours_gb" -v b="$iperf_gb" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "null" }')

if [ "$json" -eq 1 ]; then
	jq -n --argjson om "$ours_mbps" --argjson im "$iperf_mbps" --argjson og "$ours_gb" \
		--argjson ig "$iperf_gb" --argjson r "$ratio" --argjson oc "$ours_c" --argjson os "$ours_s" \
		--argjson ic "$iperf_c" --argjson is "$iperf_s" \
		'{results: [
		  {name: "tcp_nup8_debloat_throughput", value: $om, unit: "Mbit/s"},
		  {name: "tcp_p8_iperf3_throughput", value: $im, unit: "Mbit/s"},
		  {name: "tcp_nup8_debloat_cpu_client", value: $oc, unit: "s"},
		  {name: "tcp_nup8_debloat_cpu_server", value: $os, unit: "s"},
		  {name: "tcp_p8_iperf3_cpu_client", value: $ic, unit: "s"},
		  {name: "tcp_p8_iperf3_cpu_server", value: $is, unit: "s"},
		  {name: "tcp_nup8_debloat_cpu_per_gb", value: $og, unit: "s/GB"},
		  {name: "tcp_p8_iperf3_cpu_per_gb", value: $ig, unit: "s/GB"},
		  {name: "tcp_cpu_per_gb_ratio", value: $r, unit: "x"}]}'
else
	printf '%-26s %12s %10s %10s %10s\n' tool "Mbit/s" "client s" "server s" "CPU s/GB"
	printf '%-26s %12.0f %10.2f %10.2f %10s\n' "debloat tcp_nup --streams 8" "$ours_mbps" "$ours_c" "$ours_s" "$ours_gb"
	printf '%-26s %12.0f %10.2f %10.2f %10s\n' "iperf3 -P 8" "$iperf_mbps" "$iperf_c" "$iperf_s" "$iperf_gb"
	echo "ours/iperf3 CPU per byte: $ratio (${secs} s on loopback)"
fi
