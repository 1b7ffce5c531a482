#!/usr/bin/env bash
# bench-lab-rrul.sh - how well the lab's emulator keeps time under the RRUL load that
# `make demo` and `debloat lab seed` run, against the machine's own floor, in one run:
#
#   1. `debloat test rrul` (4 TCP flows each way + UDP/ICMP probes, SECONDS long)
#      through `debloat lab --profile P` for each profile P (default: bbb-stock and
#      bbb-bql-fq_codel), as the lab runs by default ("loop"): its loop writes the
#      deliveries, the frames of one flow due together as one GSO packet (the
#      receiver's GRO);
#   2. "threads": the same with --writer-threads, each direction's deliveries
#      written by a thread of its own (a slow write delays neither the other
#      direction nor the model, but every hand-off wakes a thread);
#   3. "nogro": the loop with --no-gro, one tun write per frame;
#   4. the anchor, during each run of 1: cyclictest (rt-tests), one thread at
#      SCHED_FIFO 1, the emulator's priority, woken every 500 us: how late this
#      machine wakes a real-time thread under the same load. No emulator that
#      sleeps can deliver on time more reliably than this.
#
# Prints, per profile, the emulator's scheduling error p99 and max (a delivery's write
# time minus the model's due time), its CPU time and the machine's steal in each
# variant, tun writes per delivered frame, cyclictest's p99 and max, and the ratios
# threads / loop, loop / cyclictest and GRO / no GRO; and the bound the lab holds a
# run to (two full frames at the profile's rate: 246 us at 100 Mbit/s).
#
# --json prints {"results": [{"name", "value", "unit"}, ...]} like bench/run.sh.
# Exits 77 (skipped) without root, jq, cyclictest or /dev/net/tun.
#
#   sudo bench/bench-lab-rrul.sh [BUILD_DIR] [--json] [--seconds N] [--profile P]...
set -euo pipefail

BUILD=build
json=0
secs=20
profiles=()
while [ $# -gt 0 ]; do
	case "$1" in
	--json) json=1 ;;
	--seconds) secs=$2; shift ;;
	--profile) profiles+=("$2"); shift ;;
	-h | --help)
		sed -n '2,28p' "$0"
		exit 0
		;;
	*) BUILD=$1 ;;
	esac
	shift
done
[ ${#profiles[@]} -gt 0 ] || profiles=(bbb-stock bbb-bql-fq_codel)
DEBLOAT=$BUILD/debloat
[ -x "$DEBLOAT" ] || { echo "bench-lab-rrul: no $DEBLOAT (make first)" >&2; exit 1; }
for c in jq cyclictest; do
	command -v "$c" >/dev/null || { echo "bench-lab-rrul: skipped: needs $c (scripts/install-deps.sh test)" >&2; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "bench-lab-rrul: skipped: needs root (network namespaces)" >&2; exit 77; }
[ -c /dev/net/tun ] || { echo "bench-lab-rrul: skipped: needs /dev/net/tun" >&2; exit 77; }

tmp=$(mktemp -d)
cyc_pid=
cleanup() {
	[ -z "$cyc_pid" ] || kill "$cyc_pid" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
# A copy, so that a rebuild during the run cannot pull the binary away.
cp "$DEBLOAT" "$tmp/debloat"
DEBLOAT=$tmp/debloat

# The RRUL test, run in the lab's client namespace against its server.
# shellcheck disable=SC2016 # expanded by the lab's command shell
rrul='exec "$0" test -l "$1" -d 1 -o /dev/null rrul "$DEBLOAT_LAB_BOARD"'

# steal: the percentage of CPU time the hypervisor took, over the run (0 on bare metal).
cpu_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9, $9 }' /proc/stat; }
steal_pct() { # BEFORE AFTER ("total steal")
	awk -v a="$1" -v b="$2" 'BEGIN { split(a, x, " "); split(b, y, " ");
		t = y[1] - x[1]; printf "%.1f", (t > 0 ? 100 * (y[2] - x[2]) / t : 0) }'
}
# cyclictest's histogram (-h, in us) -> "p99 max".
cyc_stats() {
	awk '/^# Histogram Overflows:/ { ov = $4 + 0 } /^# Max Latencies:/ { mx = $4 + 0 }
		/^[0-9]/ { v[n] = $1 + 0; c[n] = $2 + 0; tot += $2; n++ }
		END { tot += ov; p = "null"
		      for (i = 0; i < n && tot; i++) { acc += c[i]; if (acc >= 0.99 * tot) { p = v[i]; break } }
		      if (tot && p == "null") p = 20000
		      print p, (tot ? mx : "null") }' "$1"
}

# run NAME PROFILE [OPTION]: $tmp/NAME.lab.json; with cyclictest beside when no OPTION.
run() {
	local name=$1 profile=$2 before after
	shift 2
	before=$(cpu_ticks)
	if [ $# -eq 0 ]; then
		cyclictest -m -p 1 -i 500 -D "$((secs + 2))" -q -h 20000 >"$tmp/$name.cyc" 2>/dev/null &
		cyc_pid=$!
	fi
	"$DEBLOAT" lab -q --profile "$profile" "$@" --json-summary "$tmp/$name.lab.json" \
		-- sh -c "$rrul" "$DEBLOAT" "$secs" >"$tmp/$name.log" 2>&1 || {
		echo "bench-lab-rrul: the lab run with $profile $* failed: $(tail -c 400 "$tmp/$name.log")" >&2
		exit 1
	}
	if [ -n "$cyc_pid" ]; then
		wait "$cyc_pid" 2>/dev/null || true
		cyc_pid=
	fi
	after=$(cpu_ticks)
	steal_pct "$before" "$after" >"$tmp/$name.steal"
}

results=()
add() { # NAME VALUE UNIT; a value that is not a number is null
	[[ $2 =~ ^-?[0-9.]+([eE][-+]?[0-9]+)?$ ]] || set -- "$1" null "$3"
	results+=("$(jq -cn --arg n "$1" --argjson v "$2" --arg u "$3" '{name: $n, value: $v, unit: $u}')"); }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "null" && b != "null" && b > 0) printf "%.2f", a / b; else print "null" }'; }

# The variants, each a lab run: NAME and its lab options.
variants=("loop" "threads --writer-threads" "nogro --no-gro")
for p in "${profiles[@]}"; do
	for v in "${variants[@]}"; do
		read -r name opts <<<"$v"
		if [ "$json" -eq 0 ]; then
			if [ -n "$opts" ]; then
				echo "bench-lab-rrul: $p, RRUL ${secs} s, $opts ..." >&2
			else
				echo "bench-lab-rrul: $p, RRUL ${secs} s, $name, cyclictest beside ..." >&2
			fi
		fi
		# shellcheck disable=SC2086 # opts is one option or none
		run "$p-$name" "$p" $opts
	done
	g=$tmp/$p-loop.lab.json
	read -r cyc99 cycmax < <(cyc_stats "$tmp/$p-loop.cyc")
	l99=$(jq -r .sched_error.p99_us "$g")
	t99=$(jq -r .sched_error.p99_us "$tmp/$p-threads.lab.json")
	n99=$(jq -r .sched_error.p99_us "$tmp/$p-nogro.lab.json")
	bound=$(jq -r .sched_error_bound_us "$g")
	wpf=$(jq -r '(.board_to_client.tun_writes + .client_to_board.tun_writes) /
		((.board_to_client.packets + .client_to_board.packets) | if . == 0 then 1 else . end)' "$g")
	for v in "${variants[@]}"; do
		read -r name _ <<<"$v"
		f=$tmp/$p-$name.lab.json
		add "${p}_${name}_sched_error_p99" "$(jq -r .sched_error.p99_us "$f")" us
		add "${p}_${name}_sched_error_max" "$(jq -r .sched_error.max_us "$f")" us
		add "${p}_${name}_cpu" "$(jq -r .cpu_s "$f")" s
		add "${p}_${name}_steal" "$(cat "$tmp/$p-$name.steal")" "%"
	done
	add "${p}_tun_writes_per_frame" "$wpf" x
	add "${p}_cyclictest_p99" "$cyc99" us
	add "${p}_cyclictest_max" "$cycmax" us
	add "${p}_sched_error_p99_vs_cyclictest" "$(ratio "$l99" "$cyc99")" x
	add "${p}_sched_error_p99_threads_vs_loop" "$(ratio "$t99" "$l99")" x
	add "${p}_sched_error_p99_gro_vs_no_gro" "$(ratio "$l99" "$n99")" x
	add "${p}_bound" "$bound" us
	if [ "$json" -eq 0 ]; then
		printf '%s, RRUL %s s (load %s):\n' "$p" "$secs" "$(cut -d' ' -f1 /proc/loadavg)"
		printf '  %-28s %9s %10s %8s %6s\n' "emulator scheduling error" "p99 us" "max us" "CPU s" "steal"
		for v in "${variants[@]}"; do
			read -r name opts <<<"$v"
			f=$tmp/$p-$name.lab.json
			printf '  %-28s %9s %10s %8.2f %5s%%\n' "$name${opts:+ ($opts)}" \
				"$(jq -r .sched_error.p99_us "$f")" "$(jq -r .sched_error.max_us "$f")" \
				"$(jq -r .cpu_s "$f")" "$(cat "$tmp/$p-$name.steal")"
		done
		printf '  cyclictest -p 1 -i 500, beside the first %9s %10s\n' "$cyc99" "$cycmax"
		printf '  threads/loop %sx, loop/cyclictest %sx, GRO/no GRO %sx; %s writes per frame\n' \
			"$(ratio "$t99" "$l99")" "$(ratio "$l99" "$cyc99")" "$(ratio "$l99" "$n99")" "$wpf"
		printf '  the lab'"'"'s bound for this profile %s us: kept time %s\n' "$bound" "$(jq -r .kept_time "$g")"
	fi
done
if [ "$json" -eq 1 ]; then
	printf '%s\n' "${results[@]}" | jq -s '{results: .}'
fi
