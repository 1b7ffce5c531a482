#!/usr/bin/env bash
# bench-tcp-cpu.sh - what a byte costs: `debloat test tcp_nup --streams 8` against
# `iperf3 -P 8` on loopback, in the same run (ours should cost no more CPU per
# byte than iperf3).
#
# Both tools are measured the same way: one long-lived server each (ours, iperf3 -s),
# started before the first round; a round runs each client once for SECONDS, in
# alternating order (ours first in odd rounds, iperf3 first in even ones) so that a
# drift in what else the machine does falls on both. Per run: the bytes the receiver
# counted, the client's CPU (user + system, getrusage through GNU time) and the server's
# (utime + stime from /proc/PID/stat, before and after), and CPU seconds per GB (10^9
# bytes) of both ends together. Loopback TCP does the receiver's protocol work in the
# sender's system calls, so only the sum of both ends compares fairly. Each tool runs as
# its users run it: ours sends and reads 512 KB per system call, iperf3 its default 128 KB.
# Prints per tool the median over the rounds and the spread (min-max), the ratio of
# the medians, and the median and spread of the per-round ratios (ours/iperf3 in the
# same round). --pin runs every client on CPU 0 and both servers on CPU 1 (same for
# both tools); the default leaves placement to the scheduler, also the same for both.
# --json prints {"results": [{"name", "value", "unit"}, ...]} like bench/run.sh.
#
#   bench/bench-tcp-cpu.sh [BUILD_DIR] [--json] [--seconds N] [--rounds N] [--pin]
set -euo pipefail

BUILD=build
json=0
secs=5
rounds=5
pin=0
while [ $# -gt 0 ]; do
	case "$1" in
	--json) json=1 ;;
	--seconds) secs=$2; shift ;;
	--rounds) rounds=$2; shift ;;
	--pin) pin=1 ;;
	-h | --help)
		sed -n '2,21p' "$0"
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
cli=()
srv=()
if [ "$pin" -eq 1 ]; then
	if ! command -v taskset >/dev/null || [ "$(nproc)" -lt 2 ]; then
		echo "bench-tcp-cpu: --pin needs taskset and 2 CPUs" >&2
		exit 1
	fi
	cli=(taskset -c 0)
	srv=(taskset -c 1)
fi

# Ports above the defaults so a running server of either tool is not disturbed.
PORT_OURS=$((20000 + $$ % 10000))
PORT_IPERF=$((PORT_OURS + 1))
tmp=$(mktemp -d)
servers=()
cleanup() {
	local p
	for p in "${servers[@]+"${servers[@]}"}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

HZ=$(getconf CLK_TCK)
# utime + stime of a live process, in clock ticks (fields 14 and 15 of /proc/PID/stat,
# counted after the ")" that ends the command name).
ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }

"${srv[@]}" "$DEBLOAT" server -b 127.0.0.1 -p "$PORT_OURS" 2>"$tmp/server.log" &
ours_srv=$!
servers+=("$ours_srv")
"${srv[@]}" iperf3 -s -B 127.0.0.1 -p "$PORT_IPERF" >/dev/null 2>&1 &
iperf_srv=$!
servers+=("$iperf_srv")
sleep 0.5
for p in "$ours_srv" "$iperf_srv"; do
	kill -0 "$p" 2>/dev/null || { echo "bench-tcp-cpu: a server did not start: $(cat "$tmp/server.log")" >&2; exit 1; }
done

# One run of tool $1 ("ours" or "iperf3"); appends "mbps client_s server_s s_per_gb" to
# $tmp/$1.
run() {
	local tool=$1 server s0 s1 bytes mbps
	if [ "$tool" = ours ]; then
		server=$ours_srv
		set -- "$DEBLOAT" test tcp_nup 127.0.0.1 -p "$PORT_OURS" --streams 8 -l "$secs" -d 0 -j
	else
		server=$iperf_srv
		set -- iperf3 -c 127.0.0.1 -p "$PORT_IPERF" -P 8 -t "$secs" -J
	fi
	s0=$(ticks "$server")
	/usr/bin/time -f '%U %S' -o "$tmp/time" "${cli[@]}" "$@" >"$tmp/out" 2>"$tmp/err" || {
		echo "bench-tcp-cpu: $1 failed: $(head -c 400 "$tmp/err")" >&2
		exit 1
	}
	s1=$(ticks "$server")
	if [ "$tool" = ours ]; then
		mbps=$(jq -r '.summary.upload_mbps' "$tmp/out")
		bytes=$(jq -r '.summary.upload_mbps * 1e6 / 8 * .length_s' "$tmp/out")
	else
		mbps=$(jq -r '.end.sum_received.bits_per_second / 1e6' "$tmp/out")
		bytes=$(jq -r '.end.sum_received.bytes' "$tmp/out")
	fi
	awk -v m="$mbps" -v b="$bytes" -v s="$((s1 - s0))" -v hz="$HZ" '
		NR == 1 { c = $1 + $2; sv = s / hz
			printf "%.1f %.3f %.3f %s\n", m, c, sv, (b > 0 ? sprintf("%.4f", (c + sv) / (b / 1e9)) : "null") }' \
		"$tmp/time" >>"$tmp/$tool"
}

for r in $(seq "$rounds"); do
	if [ $((r % 2)) -eq 1 ]; then
		run ours
		run iperf3
	else
		run iperf3
		run ours
	fi
done

# median / min / max of column $2 of file $1
stat() { awk -v c="$2" '{ print $c }' "$1" | sort -g |
	awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%s %s %s\n", m, v[1], v[NR] }'; }
read -r om_mbps om_lo om_hi <<<"$(stat "$tmp/ours" 1)"
read -r im_mbps im_lo im_hi <<<"$(stat "$tmp/iperf3" 1)"
read -r oc _ _ <<<"$(stat "$tmp/ours" 2)"
read -r ic _ _ <<<"$(stat "$tmp/iperf3" 2)"
read -r os _ _ <<<"$(stat "$tmp/ours" 3)"
read -r is _ _ <<<"$(stat "$tmp/iperf3" 3)"
read -r og og_lo og_hi <<<"$(stat "$tmp/ours" 4)"
read -r ig ig_lo ig_hi <<<"$(stat "$tmp/iperf3" 4)"
paste -d' ' "$tmp/ours" "$tmp/iperf3" | awk '{ print $4 / $8 }' >"$tmp/ratios"
read -r pr pr_lo pr_hi <<<"$(stat "$tmp/ratios" 1)"
ratio=$(awk -v a="$og" -v b="$ig" 'BEGIN { printf "%.3f", a / b }')

if [ "$json" -eq 1 ]; then
	jq -n --argjson om "$om_mbps" --argjson im "$im_mbps" --argjson oc "$oc" --argjson os "$os" \
		--argjson ic "$ic" --argjson is "$is" --argjson og "$og" --argjson ig "$ig" \
		--argjson oglo "$og_lo" --argjson oghi "$og_hi" --argjson iglo "$ig_lo" \
		--argjson ighi "$ig_hi" --argjson r "$ratio" --argjson pr "$pr" \
		--argjson prlo "$pr_lo" --argjson prhi "$pr_hi" --argjson n "$rounds" \
		'{results: [
		  {name: "tcp_nup8_debloat_throughput", value: $om, unit: "Mbit/s"},
		  {name: "tcp_p8_iperf3_throughput", value: $im, unit: "Mbit/s"},
		  {name: "tcp_nup8_debloat_cpu_client", value: $oc, unit: "s"},
		  {name: "tcp_nup8_debloat_cpu_server", value: $os, unit: "s"},
		  {name: "tcp_p8_iperf3_cpu_client", value: $ic, unit: "s"},
		  {name: "tcp_p8_iperf3_cpu_server", value: $is, unit: "s"},
		  {name: "tcp_nup8_debloat_cpu_per_gb", value: $og, unit: "s/GB"},
		  {name: "tcp_nup8_debloat_cpu_per_gb_min", value: $oglo, unit: "s/GB"},
		  {name: "tcp_nup8_debloat_cpu_per_gb_max", value: $oghi, unit: "s/GB"},
		  {name: "tcp_p8_iperf3_cpu_per_gb", value: $ig, unit: "s/GB"},
		  {name: "tcp_p8_iperf3_cpu_per_gb_min", value: $iglo, unit: "s/GB"},
		  {name: "tcp_p8_iperf3_cpu_per_gb_max", value: $ighi, unit: "s/GB"},
		  {name: "tcp_cpu_per_gb_ratio", value: $r, unit: "x"},
		  {name: "tcp_cpu_per_gb_ratio_paired_median", value: $pr, unit: "x"},
		  {name: "tcp_cpu_per_gb_ratio_paired_min", value: $prlo, unit: "x"},
		  {name: "tcp_cpu_per_gb_ratio_paired_max", value: $prhi, unit: "x"},
		  {name: "tcp_cpu_rounds", value: $n, unit: "runs"}]}'
else
	printf '%-28s %18s %9s %9s %22s\n' "tool (median of $rounds)" "Mbit/s (min-max)" "client s" "server s" "CPU s/GB (min-max)"
	printf '%-28s %7.0f (%4.0f-%4.0f) %9.2f %9.2f %8.3f (%.3f-%.3f)\n' "debloat tcp_nup --streams 8" \
		"$om_mbps" "$om_lo" "$om_hi" "$oc" "$os" "$og" "$og_lo" "$og_hi"
	printf '%-28s %7.0f (%4.0f-%4.0f) %9.2f %9.2f %8.3f (%.3f-%.3f)\n' "iperf3 -P 8" \
		"$im_mbps" "$im_lo" "$im_hi" "$ic" "$is" "$ig" "$ig_lo" "$ig_hi"
	printf 'ours/iperf3 CPU per byte: %s (medians); per round %.3f (%.3f-%.3f)\n' "$ratio" "$pr" "$pr_lo" "$pr_hi"
	echo "(${secs} s per run, both ends' CPU, loopback, $([ "$pin" -eq 1 ] && echo "clients on CPU 0, servers on CPU 1" || echo "not pinned"))"
fi
