#!/usr/bin/env bash
# bench-exporter.sh - how long a scrape of `debloat exporter` takes on a host with 64
# interfaces, next to the anchor: node_exporter with only its qdisc and netclass
# collectors (`prometheus-node-exporter --collector.disable-defaults --collector.qdisc
# --collector.netclass`), which read the same qdiscs (roots only) and links.
#
#	[ ns dbt-bexp-$$ ]                                  [ ns dbt-bexp-peer-$$ ]
#	  v0  .. v15   pfifo limit 1000                <->  p0  .. p15
#	  v16 .. v31   htb 1: (class 1:10 100mbit)     <->  p16 .. p31
#	               + pfifo limit 1000 leaf
#	  v32 .. v47   4 TX queues, mq 1: + 4 pfifo_fast <->  p32 .. p47
#	  v48 .. v63   noqueue (veth's default)        <->  p48 .. p63
#	  lo           debloat exporter 127.0.0.1:19911, node_exporter 127.0.0.1:9100
#
# Both run inside the namespace and are scraped N times each over HTTP by one curl
# process per exporter (curl -w time_total per request, so process start-up is not
# counted); figures are the median and 90th percentile in ms, and the samples each
# scrape returns (what the time buys: ours has every child qdisc, BQL, audit).
#
#	bench/bench-exporter.sh [BUILD_DIR] [--json] [--runs N]
#
# Prints a table with the ratio to the anchor, or with --json one
# {"results": [{"name", "value", "unit"}, ...]} document. Needs root (namespaces) and
# prometheus-node-exporter and curl: without them, says so and exits 77.
set -euo pipefail

BUILD=build
json=0
runs=50
while [ $# -gt 0 ]; do
	case "$1" in
	--json) json=1 ;;
	--runs)
		runs=${2:?--runs needs a number}
		shift
		;;
	-h | --help)
		echo "usage: bench/bench-exporter.sh [BUILD_DIR] [--json] [--runs N]"
		exit 0
		;;
	*) BUILD=$1 ;;
	esac
	shift
done
TOP=$(cd "$(dirname "$0")/.." && pwd)
case "$BUILD" in /*) ;; *) BUILD="$TOP/$BUILD" ;; esac
DEBLOAT=$BUILD/debloat

if [ "$(id -u)" -ne 0 ]; then
	echo "bench-exporter: needs root (it builds network namespaces); skipped" >&2
	exit 77
fi
for c in ip tc curl prometheus-node-exporter; do
	command -v "$c" >/dev/null || { echo "bench-exporter: needs $c; skipped" >&2; exit 77; }
done
[ -x "$DEBLOAT" ] || { echo "bench-exporter: no $DEBLOAT (build first: make)" >&2; exit 1; }
if ! [[ "$runs" =~ ^[0-9]+$ ]] || [ "$runs" -lt 3 ] || [ "$runs" -gt 10000 ]; then
	echo "bench-exporter: --runs wants 3 to 10000" >&2
	exit 2
fi

NS=dbt-bexp-$$
PEER=dbt-bexp-peer-$$
OURS_PID='' NODE_PID=''
cleanup() {
	local p
	for p in "$OURS_PID" "$NODE_PID"; do
		[ -n "$p" ] || continue
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	ip netns del "$NS" 2>/dev/null || true
	ip netns del "$PEER" 2>/dev/null || true
}
trap cleanup EXIT

ip netns add "$NS" || { echo "bench-exporter: cannot create network namespaces here; skipped" >&2; exit 77; }
ip netns add "$PEER"
{
	for i in $(seq 0 63); do
		if [ "$i" -ge 32 ] && [ "$i" -lt 48 ]; then
			echo "link add v$i numtxqueues 4 numrxqueues 4 type veth peer name p$i netns $PEER"
		else
			echo "link add v$i type veth peer name p$i netns $PEER"
		fi
		echo "link set v$i up"
	done
	echo "link set lo up"
} | ip -n "$NS" -batch -
for i in $(seq 0 63); do echo "link set p$i up"; done | ip -n "$PEER" -batch -
{
	for i in $(seq 0 15); do
		echo "qdisc add dev v$i root handle 1: pfifo limit 1000"
	done
	for i in $(seq 16 31); do
		echo "qdisc add dev v$i root handle 1: htb default 10 r2q 100"
		echo "class add dev v$i parent 1: classid 1:10 htb rate 100mbit"
		echo "qdisc add dev v$i parent 1:10 handle 10: pfifo limit 1000"
	done
	for i in $(seq 32 47); do
		echo "qdisc add dev v$i root handle 1: mq"
	done
} | tc -n "$NS" -batch -

# Both bounded in time should this script be killed; stopped by cleanup otherwise.
ip netns exec "$NS" timeout 600 "$DEBLOAT" exporter --listen 127.0.0.1:19911 2>/dev/null &
OURS_PID=$!
ip netns exec "$NS" timeout 600 prometheus-node-exporter --collector.disable-defaults \
	--collector.qdisc --collector.netclass --web.listen-address=127.0.0.1:9100 \
	>/dev/null 2>&1 &
NODE_PID=$!
ours_url=http://127.0.0.1:19911/metrics
node_url=http://127.0.0.1:9100/metrics
for url in "$ours_url" "$node_url"; do
	for _ in $(seq 100); do
		ip netns exec "$NS" curl -sf -o /dev/null --max-time 5 "$url" && break
		sleep 0.1
	done
done

# What each saw, or the times mean nothing: our 64 roots (noqueue ones included), 16
# htb leaves and 64 mq children; node_exporter's 64 roots.
ours=$(ip netns exec "$NS" curl -sf --max-time 10 "$ours_url")
node=$(ip netns exec "$NS" curl -sf --max-time 10 "$node_url")
n=$(grep -c '^debloat_qdisc_packets_total{device="v[0-9]*"' <<<"$ours" || true)
[ "$n" -eq $((64 + 16 + 64)) ] ||
	{ echo "bench-exporter: our scrape has $n qdiscs of the veths, not 144" >&2; exit 1; }
n=$(grep -c '^node_qdisc_packets_total{device="v[0-9]*"' <<<"$node" || true)
[ "$n" -eq 64 ] ||
	{ echo "bench-exporter: node_exporter's scrape has $n qdiscs of the veths, not 64" >&2; exit 1; }
ours_samples=$(grep -vc '^#' <<<"$ours")
node_samples=$(grep -vc '^#' <<<"$node")

# time_scrapes URL N: N times of one scrape, microseconds, one curl for all of them.
time_scrapes() {
	local url=$1 n=$2 args=() i
	for ((i = 0; i < n; i++)); do args+=(-o /dev/null -w '%{time_total}\n' "$url"); done
	ip netns exec "$NS" curl -sf --max-time 600 "${args[@]}" | awk '{ printf "%d\n", $1 * 1e6 }'
}
# "median p90" in ms, two decimals, from microsecond samples.
stats() {
	sort -n | awk '{ v[NR] = $1 }
		END {
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			i = int(NR * 0.9 + 0.999999); if (i < 1) i = 1
			printf "%.2f %.2f\n", m / 1000, v[i] / 1000
		}'
}

time_scrapes "$ours_url" 3 >/dev/null # warm both, as every scrape after the first
time_scrapes "$node_url" 3 >/dev/null
read -r ours_med ours_p90 < <(time_scrapes "$ours_url" "$runs" | stats)
read -r node_med node_p90 < <(time_scrapes "$node_url" "$runs" | stats)

names=(exporter_scrape_64_veth_median exporter_scrape_64_veth_p90
	anchor_node_exporter_qdisc_netclass_median anchor_node_exporter_qdisc_netclass_p90
	exporter_samples_per_scrape anchor_node_exporter_samples_per_scrape)
values=("$ours_med" "$ours_p90" "$node_med" "$node_p90" "$ours_samples" "$node_samples")
units=(ms ms ms ms samples samples)
anchors=("$node_med" "$node_p90" "" "" "$node_samples" "")

if [ "$json" -eq 1 ]; then
	printf '{"results": ['
	for i in "${!names[@]}"; do
		printf '%s\n  {"name": "%s", "value": %s, "unit": "%s"}' "$([ "$i" -gt 0 ] && echo ,)" \
			"${names[$i]}" "${values[$i]}" "${units[$i]}"
	done
	printf '\n]}\n'
	exit 0
fi
printf '%-44s %10s  %-8s %s\n' benchmark value unit "x anchor"
for i in "${!names[@]}"; do
	printf '%-44s %10s  %-8s' "${names[$i]}" "${values[$i]}" "${units[$i]}"
	[ -n "${anchors[$i]}" ] && awk -v a="${values[$i]}" -v b="${anchors[$i]}" \
		'BEGIN { if (b > 0) printf " %.2f", a / b }'
	echo
done
echo "($runs scrapes each over HTTP on the namespace's loopback; 64 veths: 16 pfifo, 16 htb+pfifo,"
echo " 16 mq with 4 pfifo_fast each, 16 noqueue; anchor = node_exporter --collector.qdisc"
echo " --collector.netclass, roots only)"
