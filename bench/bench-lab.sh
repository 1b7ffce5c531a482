#!/usr/bin/env bash
# bench-lab.sh - what the lab's emulator costs, in one run:
#
#   1. one TCP flow (iperf3 -R, cubic, 8 s: the board sends) through `debloat lab`
#      with profile gige-noqueue (1 Gbit/s, no added queueing):
#
#	[ ns dbl-PID-client ] lab0 <-tun- emulator -tun-> lab0 [ ns dbl-PID-board ]
#	  iperf3 -c -R                                        iperf3 -s
#
#   2. the same flow between two namespaces in the same roles joined by a veth pair,
#      shaped by the kernel: htb at 1gbit with a pfifo leaf on both ends:
#
#	[ ns dbb-lab-c-$$ ] veth 10.77.0.1 <---> 10.77.0.2 veth [ ns dbb-lab-b-$$ ]
#
#   3. the same flow through profile fifo100 (100 Mbit/s).
#
#   5. two boards at their own rates: profile wandboard (a 470 Mbit/s ceiling shared
#      by both directions, fq_codel, a 512-descriptor ring) against the veth pair of
#      2 with htb at 470mbit, and profile rpi4 (1 Gbit/s, BQL, completions every 10
#      frames or when the ring empties, fq_codel) against the veth pair at 1gbit of 2.
#      Each row: both goodputs, their ratio (goal >= 0.95), and the lab's scheduling
#      error p99 beside cyclictest's wake-up p99 of 4 (goal: within that floor
#      + 25 us).
#
# Prints both goodputs and their ratio (goal: lab / veth >= 0.95), the emulator's CPU
# seconds per Gbit carried (run 1), and its scheduling error p99 (the time a packet
# was written to the tun minus the time the model said it arrives) at 1 Gbit/s (run 1)
# and 100 Mbit/s (run 3), goal <= 50 us. The emulator's numbers come from its
# --json-summary.
#
#   4. the machine's own floor, idle, after the runs: how long a thread that never
#      sleeps waits for its CPU at a random instant ($BUILD/bench/spin-gaps, 4 s at
#      SCHED_FIFO 1, as the emulator's loop runs) and, when rt-tests is installed,
#      cyclictest's timer wake-up latency (SCHED_FIFO 1, every 500 us, 4 s). The
#      ratios of our error's p99 to the spinning thread's say how much of it is ours.
#
# --json prints {"results": [{"name", "value", "unit"}, ...]} like bench/run.sh.
# Exits 77 (skipped) without root, iperf3, jq or /dev/net/tun.
#
#   sudo bench/bench-lab.sh [BUILD_DIR] [--json] [--seconds N]
set -euo pipefail

BUILD=build
json=0
secs=8
while [ $# -gt 0 ]; do
	case "$1" in
	--json) json=1 ;;
	--seconds) secs=$2; shift ;;
	-h | --help)
		sed -n '2,40p' "$0"
		exit 0
		;;
	*) BUILD=$1 ;;
	esac
	shift
done
DEBLOAT=$BUILD/debloat
SPIN=$BUILD/bench/spin-gaps
{ [ -x "$DEBLOAT" ] && [ -x "$SPIN" ]; } || { echo "bench-lab: no $DEBLOAT or $SPIN (make first)" >&2; exit 1; }
for c in iperf3 jq ip tc; do
	command -v "$c" >/dev/null || { echo "bench-lab: skipped: needs $c (scripts/install-deps.sh test)" >&2; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "bench-lab: skipped: needs root (network namespaces)" >&2; exit 77; }
[ -c /dev/net/tun ] || { echo "bench-lab: skipped: needs /dev/net/tun" >&2; exit 77; }

C=dbb-lab-c-$$
B=dbb-lab-b-$$
PORT=5201
tmp=$(mktemp -d)
cleanup() {
	ip netns pids "$B" 2>/dev/null | xargs -r kill 2>/dev/null || true
	ip netns del "$C" 2>/dev/null || true
	ip netns del "$B" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
# A copy, so that a rebuild during the run cannot pull the binary away.
cp "$DEBLOAT" "$tmp/debloat"
DEBLOAT=$tmp/debloat

# The flow, run inside the lab's client namespace: a one-off iperf3 server on the
# board side, then the client (retried until the server listens), its JSON in $1.
# shellcheck disable=SC2016 # expanded by the lab's command shell
flow='ip netns exec "$DEBLOAT_LAB_BOARD_NS" iperf3 -s -1 -p "$2" >/dev/null 2>&1 &
for i in $(seq 50); do
	iperf3 -c "$DEBLOAT_LAB_BOARD" -p "$2" -R -C cubic -t "$3" -J >"$1" 2>/dev/null
	jq -e ".end.sum_received.bits_per_second" "$1" >/dev/null 2>&1 && exit 0
	sleep 0.1
done
exit 1'

# lab PROFILE NAME: run the flow through the emulator; $tmp/NAME.iperf.json, .lab.json
lab() {
	"$DEBLOAT" lab -q --profile "$1" --json-summary "$tmp/$2.lab.json" \
		-- sh -c "$flow" sh "$tmp/$2.iperf.json" "$PORT" "$secs" >"$tmp/$2.log" 2>&1 || {
		echo "bench-lab: the lab run with $1 failed: $(tail -c 400 "$tmp/$2.log")" >&2
		exit 1
	}
}
mbps() { jq -r '.end.sum_received.bits_per_second / 1e6' "$1"; }

lab gige-noqueue gige
lab fifo100 fifo
lab wandboard wand
lab rpi4 rpi4

# The kernel's shaper between two plain namespaces.
ip netns add "$C"
ip netns add "$B"
ip link add v0 netns "$C" type veth peer name v0 netns "$B"
ip -n "$C" addr add 10.77.0.1/24 dev v0
ip -n "$B" addr add 10.77.0.2/24 dev v0
for ns in "$C" "$B"; do
	ip -n "$ns" link set lo up
	ip -n "$ns" link set v0 up
	tc -n "$ns" qdisc add dev v0 root handle 1: htb default 1
	tc -n "$ns" class add dev v0 parent 1: classid 1:1 htb rate 1gbit quantum 60000
	tc -n "$ns" qdisc add dev v0 parent 1:1 handle 10: pfifo
done
# veth_flow NAME: the flow over the veth pair; $tmp/NAME.iperf.json
veth_flow() {
	ip netns exec "$B" iperf3 -s -1 -p "$PORT" >/dev/null 2>&1 &
	for _ in $(seq 50); do
		ip netns exec "$C" iperf3 -c 10.77.0.2 -p "$PORT" -R -C cubic -t "$secs" -J >"$tmp/$1.iperf.json" 2>/dev/null
		jq -e '.end.sum_received.bits_per_second' "$tmp/$1.iperf.json" >/dev/null 2>&1 && break
		sleep 0.1
	done
	wait
}
veth_flow veth
# The Wandboard's rate (5).
for ns in "$C" "$B"; do
	tc -n "$ns" class change dev v0 parent 1: classid 1:1 htb rate 470mbit quantum 60000
done
veth_flow veth470

# The machine's floor, idle (4).
"$SPIN" --seconds 4 --json >"$tmp/spin.json"
spin_p99=$(jq -r '.results[] | select(.name == "spin_residual_wait_p99") | .value' "$tmp/spin.json")
spin_gaps50=$(jq -r '.results[] | select(.name == "spin_gaps_over_50us") | .value' "$tmp/spin.json")
cyc_p99=null
if command -v cyclictest >/dev/null; then
	# -h: a histogram in us, then "# Histogram Overflows: N" for the rest.
	cyclictest -m -p 1 -i 500 -D 4 -q -h 2000 >"$tmp/cyc.txt" 2>/dev/null || true
	cyc_p99=$(awk '/^# Histogram Overflows:/ { ov = $4 + 0 }
		/^[0-9]/ { v[n] = $1 + 0; c[n] = $2 + 0; tot += $2; n++ }
		END { tot += ov; if (!tot) { print "null"; exit }
		      for (i = 0; i < n; i++) { acc += c[i]; if (acc >= 0.99 * tot) { print v[i]; exit } }
		      print 2000 }' "$tmp/cyc.txt")
fi

lab_mbps=$(mbps "$tmp/gige.iperf.json")
veth_mbps=$(mbps "$tmp/veth.iperf.json")
fifo_mbps=$(mbps "$tmp/fifo.iperf.json")
ratio=$(awk -v a="$lab_mbps" -v b="$veth_mbps" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "null" }')
cpu_gbit=$(jq -r '.cpu_s_per_gbit // "null"' "$tmp/gige.lab.json")
cpu_s=$(jq -r '.cpu_s' "$tmp/gige.lab.json")
p99_1g=$(jq -r '.sched_error.p99_us' "$tmp/gige.lab.json")
p99_100m=$(jq -r '.sched_error.p99_us' "$tmp/fifo.lab.json")
p50_1g=$(jq -r '.sched_error.p50_us' "$tmp/gige.lab.json")
p50_100m=$(jq -r '.sched_error.p50_us' "$tmp/fifo.lab.json")
# Where the error comes from: late wake-ups, and deliveries waiting behind a write().
wake_1g=$(jq -r '.wake_late.p99_us' "$tmp/gige.lab.json")
wake_100m=$(jq -r '.wake_late.p99_us' "$tmp/fifo.lab.json")
write_1g=$(jq -r '.tun_write.p99_us' "$tmp/gige.lab.json")
write_100m=$(jq -r '.tun_write.p99_us' "$tmp/fifo.lab.json")
over() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "null" }'; }
x_1g=$(over "$p99_1g" "$spin_p99")
x_100m=$(over "$p99_100m" "$spin_p99")

# The boards at their rates (5).
wand_mbps=$(mbps "$tmp/wand.iperf.json")
veth470_mbps=$(mbps "$tmp/veth470.iperf.json")
rpi4_mbps=$(mbps "$tmp/rpi4.iperf.json")
ratio3() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "null" }'; }
ratio_wand=$(ratio3 "$wand_mbps" "$veth470_mbps")
ratio_rpi4=$(ratio3 "$rpi4_mbps" "$veth_mbps")
p99_wand=$(jq -r '.sched_error.p99_us' "$tmp/wand.lab.json")
p99_rpi4=$(jq -r '.sched_error.p99_us' "$tmp/rpi4.lab.json")
# Our error's p99 above the machine's timer floor (cyclictest), goal <= 25 us.
above() { awk -v a="$1" -v b="$2" 'BEGIN { if (b != "null" && a != "null") printf "%.1f", a - b; else print "null" }'; }
dwand=$(above "$p99_wand" "$cyc_p99")
drpi4=$(above "$p99_rpi4" "$cyc_p99")

if [ "$json" -eq 1 ]; then
	jq -n --argjson lm "$lab_mbps" --argjson vm "$veth_mbps" --argjson r "$ratio" \
		--argjson fm "$fifo_mbps" --argjson cg "$cpu_gbit" --argjson cs "$cpu_s" \
		--argjson s1 "$p99_1g" --argjson s2 "$p99_100m" \
		--argjson w1 "$wake_1g" --argjson w2 "$wake_100m" \
		--argjson t1 "$write_1g" --argjson t2 "$write_100m" \
		--argjson sp "$spin_p99" --argjson sg "$spin_gaps50" --argjson cy "$cyc_p99" \
		--argjson x1 "$x_1g" --argjson x2 "$x_100m" \
		--argjson wm "$wand_mbps" --argjson v4 "$veth470_mbps" --argjson rw "$ratio_wand" \
		--argjson pm "$rpi4_mbps" --argjson rp "$ratio_rpi4" \
		--argjson ew "$p99_wand" --argjson ep "$p99_rpi4" \
		--argjson dw "$dwand" --argjson dp "$drpi4" \
		'{results: [
		  {name: "lab_gige_goodput", value: $lm, unit: "Mbit/s"},
		  {name: "veth_htb_gige_goodput", value: $vm, unit: "Mbit/s"},
		  {name: "lab_vs_veth_goodput_ratio", value: $r, unit: "x"},
		  {name: "lab_fifo100_goodput", value: $fm, unit: "Mbit/s"},
		  {name: "lab_gige_cpu", value: $cs, unit: "s"},
		  {name: "lab_gige_cpu_per_gbit", value: $cg, unit: "s/Gbit"},
		  {name: "lab_sched_error_p99_1gbit", value: $s1, unit: "us"},
		  {name: "lab_sched_error_p99_100mbit", value: $s2, unit: "us"},
		  {name: "lab_wake_late_p99_1gbit", value: $w1, unit: "us"},
		  {name: "lab_wake_late_p99_100mbit", value: $w2, unit: "us"},
		  {name: "lab_tun_write_p99_1gbit", value: $t1, unit: "us"},
		  {name: "lab_tun_write_p99_100mbit", value: $t2, unit: "us"},
		  {name: "machine_spin_residual_wait_p99", value: $sp, unit: "us"},
		  {name: "machine_spin_gaps_over_50us", value: $sg, unit: "1/s"},
		  {name: "machine_cyclictest_p99", value: $cy, unit: "us"},
		  {name: "lab_sched_error_p99_1gbit_vs_spin_floor", value: $x1, unit: "x"},
		  {name: "lab_sched_error_p99_100mbit_vs_spin_floor", value: $x2, unit: "x"},
		  {name: "lab_wandboard_goodput", value: $wm, unit: "Mbit/s"},
		  {name: "veth_htb_470mbit_goodput", value: $v4, unit: "Mbit/s"},
		  {name: "lab_wandboard_vs_veth_goodput_ratio", value: $rw, unit: "x"},
		  {name: "lab_rpi4_goodput", value: $pm, unit: "Mbit/s"},
		  {name: "lab_rpi4_vs_veth_goodput_ratio", value: $rp, unit: "x"},
		  {name: "lab_sched_error_p99_wandboard", value: $ew, unit: "us"},
		  {name: "lab_sched_error_p99_rpi4", value: $ep, unit: "us"},
		  {name: "lab_sched_error_p99_wandboard_over_cyclictest", value: $dw, unit: "us"},
		  {name: "lab_sched_error_p99_rpi4_over_cyclictest", value: $dp, unit: "us"}]}'
else
	printf '%-44s %10s %s\n' "TCP flow, iperf3 -R, cubic, ${secs} s" "Mbit/s" ""
	printf '%-44s %10.1f\n' "debloat lab, gige-noqueue (1 Gbit/s)" "$lab_mbps"
	printf '%-44s %10.1f\n' "veth + htb 1gbit + pfifo, both ends" "$veth_mbps"
	printf '%-44s %10.1f\n' "debloat lab, fifo100 (100 Mbit/s)" "$fifo_mbps"
	echo "lab/veth goodput: $ratio (goal >= 0.95)"
	echo "emulator CPU at 1 Gbit/s: $cpu_s s, $cpu_gbit s per Gbit carried"
	echo "scheduling error p50/p99: 1 Gbit/s $p50_1g/$p99_1g us, 100 Mbit/s $p50_100m/$p99_100m us (goal p99 <= 50 us)"
	echo "  of it, p99: wake-up lateness 1 Gbit/s $wake_1g us, 100 Mbit/s $wake_100m us;" \
		"tun write() time 1 Gbit/s $write_1g us, 100 Mbit/s $write_100m us"
	echo "the machine's floor, idle: a spinning SCHED_FIFO thread waits p99 $spin_p99 us for its CPU" \
		"at a random instant ($spin_gaps50 gaps > 50 us per second);" \
		"cyclictest -p 1 -i 500 wake-up p99 ${cyc_p99/null/n\/a (no rt-tests)} us"
	echo "our error p99 / the spinning thread's: 1 Gbit/s ${x_1g}x, 100 Mbit/s ${x_100m}x"
	echo
	printf '%-44s %10s %10s %7s %9s %s\n' "the boards at their rates" "lab" "veth+htb" "ratio" \
		"err p99" "over cyclictest"
	printf '%-44s %10.1f %10.1f %7s %6s us %s\n' "wandboard (470 Mbit/s shared ceiling)" \
		"$wand_mbps" "$veth470_mbps" "$ratio_wand" "$p99_wand" "${dwand/null/n\/a} us"
	printf '%-44s %10.1f %10.1f %7s %6s us %s\n' "rpi4 (1 Gbit/s, BQL, every 10 or empty)" \
		"$rpi4_mbps" "$veth_mbps" "$ratio_rpi4" "$p99_rpi4" "${drpi4/null/n\/a} us"
	echo "goals: lab/veth >= 0.95; error p99 within cyclictest's p99 ${cyc_p99/null/n\/a} us + 25 us"
fi
