#!/usr/bin/env bash
# bench-audit.sh - how long `debloat audit` takes on a host with 32 interfaces, next to
# the anchor: `ip -d -s link show` plus `tc -s qdisc show`, the tools people use to read
# the same links and qdisc trees (audit also asks ethtool and sysfs, which they do not).
#
#	[ ns dbt-bench-$$ ]                          [ ns dbt-bench-peer-$$ ]
#	  v0  .. v7    pfifo limit 1000           <->  p0  .. p7
#	  v8  .. v15   htb 1: (class 1:10 100mbit)  <->  p8  .. p15
#	               + pfifo limit 1000 leaf
#	  v16 .. v31   noqueue (veth's default)   <->  p16 .. p31
#
# Every command runs N times inside the namespace (no `ip netns exec` per run); the
# figures are the median and 90th percentile of the wall time, fork and exec included.
#
#	bench/bench-audit.sh [BUILD_DIR] [--json] [--runs N]
#
# Prints a table with the ratio to the anchor, or with --json one
# {"results": [{"name", "value", "unit"}, ...]} document. Needs root (namespaces):
# without it, says so and exits 77.
set -euo pipefail

BUILD=build
json=0
runs=20
while [ $# -gt 0 ]; do
	case "$1" in
	--json) json=1 ;;
	--runs)
		runs=${2:?--runs needs a number}
		shift
		;;
	-h | --help)
		echo "usage: bench/bench-audit.sh [BUILD_DIR] [--json] [--runs N]"
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
	echo "bench-audit: needs root (it builds network namespaces); skipped" >&2
	exit 77
fi
for c in ip tc; do
	command -v "$c" >/dev/null || { echo "bench-audit: needs $c; skipped" >&2; exit 77; }
done
[ -x "$DEBLOAT" ] || { echo "bench-audit: no $DEBLOAT (build first: make)" >&2; exit 1; }
{ [[ "$runs" =~ ^[0-9]+$ ]] && [ "$runs" -ge 3 ]; } || { echo "bench-audit: --runs wants 3 or more" >&2; exit 2; }

NS=dbt-bench-$$
PEER=dbt-bench-peer-$$
cleanup() {
	ip netns del "$NS" 2>/dev/null || true
	ip netns del "$PEER" 2>/dev/null || true
}
trap cleanup EXIT

ip netns add "$NS" || { echo "bench-audit: cannot create network namespaces here; skipped" >&2; exit 77; }
ip netns add "$PEER"
{
	for i in $(seq 0 31); do
		echo "link add v$i type veth peer name p$i netns $PEER"
		echo "link set v$i up"
	done
	echo "link set lo up"
} | ip -n "$NS" -batch -
for i in $(seq 0 31); do echo "link set p$i up"; done | ip -n "$PEER" -batch -
{
	for i in $(seq 0 7); do
		echo "qdisc add dev v$i root handle 1: pfifo limit 1000"
	done
	for i in $(seq 8 15); do
		echo "qdisc add dev v$i root handle 1: htb default 10 r2q 100"
		echo "class add dev v$i parent 1: classid 1:10 htb rate 100mbit"
		echo "qdisc add dev v$i parent 1:10 handle 10: pfifo limit 1000"
	done
} | tc -n "$NS" -batch -

# The audit must see what was built, or the time means nothing.
n=$(ip netns exec "$NS" "$DEBLOAT" audit --json | grep -c '"kind": "veth"' || true)
if [ "$n" -ne 32 ]; then
	echo "bench-audit: audit saw $n veth interfaces, not 32" >&2
	exit 1
fi

# time_runs N CMD...: N wall times in microseconds, one a line ($EPOCHREALTIME: no fork
# for the clock). Runs inside the namespace.
time_runs() {
	local n=$1 i t0 t1
	shift
	for ((i = 0; i < n; i++)); do
		t0=${EPOCHREALTIME/./}
		"$@" >/dev/null
		t1=${EPOCHREALTIME/./}
		echo $((t1 - t0))
	done
}
anchor() {
	ip -d -s link show && tc -s qdisc show
}
inside() {
	ip netns exec "$NS" bash -c "$(declare -f time_runs anchor); $*"
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

inside time_runs 3 "$DEBLOAT" audit >/dev/null # warm caches, as every run after the first
read -r text_med text_p90 < <(inside time_runs "$runs" "$DEBLOAT" audit | stats)
read -r json_med json_p90 < <(inside time_runs "$runs" "$DEBLOAT" audit --json | stats)
read -r anc_med anc_p90 < <(inside time_runs "$runs" anchor | stats)

names=(audit_32_veth_median audit_32_veth_p90 audit_json_32_veth_median audit_json_32_veth_p90
	anchor_ip_tc_32_veth_median anchor_ip_tc_32_veth_p90)
values=("$text_med" "$text_p90" "$json_med" "$json_p90" "$anc_med" "$anc_p90")
anchors=("$anc_med" "$anc_p90" "$anc_med" "$anc_p90" "" "")

if [ "$json" -eq 1 ]; then
	printf '{"results": ['
	for i in "${!names[@]}"; do
		printf '%s\n  {"name": "%s", "value": %s, "unit": "ms"}' "$([ "$i" -gt 0 ] && echo ,)" \
			"${names[$i]}" "${values[$i]}"
	done
	printf '\n]}\n'
	exit 0
fi
printf '%-28s %10s  %-8s %s\n' benchmark value unit "x anchor"
for i in "${!names[@]}"; do
	printf '%-28s %10s  %-8s' "${names[$i]}" "${values[$i]}" ms
	[ -n "${anchors[$i]}" ] && awk -v a="${values[$i]}" -v b="${anchors[$i]}" \
		'BEGIN { if (b > 0) printf " %.2f", a / b }'
	echo
done
echo "($runs runs each; 32 veths, 8 pfifo, 8 htb+pfifo; anchor = ip -d -s link show + tc -s qdisc show)"
