#!/usr/bin/env bash
# bench-server-scale.sh - `debloat server` against `irtt server` under many clients,
# and ours under several rrul clients, in one run, on the loopback of a namespace of
# its own:
#
#	[ ns dbb-scale-$$, lo ]
#	  debloat server -p 9911 -c 10100   irtt server -b 127.0.0.1:2112
#	     (each pinned to CPU $SERVER_CPU, one at a time)
#	  server-load (bench/server-load.c, pinned to the other CPU): N ping clients,
#	     client i bound to 127.10.x.y, probes at RATE a second in all
#	  debloat test rrul --local 127.0.0.1x, 10 at once (phase "rrul")
#
# Phase "ping": for N in 1000 4000 10000 (--clients), REPEAT times (--repeat, default
# 3) irtt's (the anchor) then ours, the same load: RATE probes a second spread evenly
# over the N clients (--rate, default 20000: a client every 50 ms at 1000 clients,
# every 500 ms at 10000), for SECONDS (--seconds, default 10). Each figure is the
# median of its REPEAT runs (a shared host moves single runs a lot; the pairs run back
# to back, so a busy minute hits both servers). Per server: its CPU (utime + stime over the load, cores), its RSS at
# the end (MB), loss, RTT p50/p99 (the load generator's kernel receive time less its
# send time), and ours/irtt ratios. Processing time, the server's own work per probe:
# ours from the moment its batch read (recvmmsg) returned to the moment it stamped the
# reply, before the batch's sendmmsg, as the server logs it at exit (`debloat server
# --json`, its "stats":"run" line); irtt's from after its read returned to its send
# timestamp, from its replies (that stamp is inside the reply, so it is taken before
# irtt's send call too): the like-for-like figure. Ours' hold time too (from the
# kernel's receive timestamp to the return of the sendmmsg: the socket queue, the
# wake-up and the send included), which irtt does not measure, and the hold ours'
# replies carry (server_tx_ns - server_rx_ns:
# up to the stamp taken just before sendmmsg). Then whether ours stays flat in the
# number of clients: its processing p99 at the largest count over that at the smallest.
# Phase "rrul": 10 `debloat test rrul` at once (-l 10 -d 2 -s 0.05) against ours,
# pinned the same: the worst UDP and ICMP loaded p99 over the clients, how many results
# say server_overloaded, and the server's CPU.
# The host's CPU steal over the whole run (from /proc/stat) and its load average (1
# minute, /proc/loadavg) at the start and the end are printed: on a shared VM a high
# steal or load makes every figure noisier.
#
# --rt runs both servers at a real-time priority (SCHED_FIFO 10, chrt): on a host whose
# other processes keep the servers' CPU busy, the tail of both is then their own, not
# the scheduler's wait for that CPU (each server uses a fraction of a core, and the
# kernel's real-time throttling bounds what it could take).
# The goals are printed with the ratios: ours' round-trip p99 within 1.5x irtt's and
# its memory within 2x, at every client count.
# Bounded: about 2 x REPEAT x (setup + SECONDS + 3 s) per client count, plus ~20 s of
# rrul (--rrul 0: none): some 5 minutes with the defaults; every process runs under
# `timeout`.
# --json prints {"results": [{"name", "value", "unit"}, ...]} like bench/run.sh.
# Exits 77 (skipped) without root or irtt.
#
#   sudo bench/bench-server-scale.sh [BUILD_DIR] [--json] [--seconds S] [--rate R]
#        [--clients "1000 4000 10000"] [--repeat N] [--rrul N] [--rt]
set -euo pipefail

BUILD=build
json=0
secs=10
rate=20000
sizes="1000 4000 10000"
repeat=3
nrrul=10
rt=()
while [ $# -gt 0 ]; do
	case "$1" in
	--json) json=1 ;;
	--seconds) secs=$2; shift ;;
	--rate) rate=$2; shift ;;
	--clients) sizes=$2; shift ;;
	--rrul) nrrul=$2; shift ;;
	--repeat) repeat=$2; shift ;;
	--rt) rt=(chrt -f 10) ;;
	-h | --help)
		sed -n '2,51p' "$0"
		exit 0
		;;
	*) BUILD=$1 ;;
	esac
	shift
done
DEBLOAT=$BUILD/debloat
LOAD=$BUILD/bench/server-load
if [ ! -x "$DEBLOAT" ] || [ ! -x "$LOAD" ]; then
	echo "bench-server-scale: no $DEBLOAT or $LOAD (make first)" >&2
	exit 1
fi
for c in irtt jq ip taskset; do
	command -v "$c" >/dev/null || { echo "bench-server-scale: skipped: needs $c (scripts/install-deps.sh test)" >&2; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "bench-server-scale: skipped: needs root (a network namespace)" >&2; exit 77; }

# 10000 clients: a TCP and a UDP socket each in the load generator, one or more
# descriptors each in the server. Our own limit only (root may lift the hard one).
ulimit -Hn 65536 2>/dev/null || true
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

NS=dbb-scale-$$
tmp=$(mktemp -d)
pids=()
rpids=()
cleanup() {
	local p
	for p in "${pids[@]+"${pids[@]}"}" "${rpids[@]+"${rpids[@]}"}"; do
		kill "$p" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	ip netns del "$NS" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
ip netns add "$NS"
ip -n "$NS" link set lo up
inns() { ip netns exec "$NS" "$@"; }

# Two CPUs: the server on the last one, everything else on the others.
cpus=$(taskset -pc $$ | sed -E 's/.*: *//')
last=$(nproc)
SERVER_CPU=$((last - 1))
OTHER_CPUS=$([ "$last" -gt 1 ] && echo "0-$((last - 2))" || echo 0)
log() { [ "$json" -eq 1 ] || echo "$@"; }
log "# CPUs allowed $cpus; servers on CPU $SERVER_CPU, load on $OTHER_CPUS"

# utime + stime of a process and its threads, in clock ticks.
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
rss_mb() { awk '/^VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }
# The cpu line of /proc/stat: total ticks and steal ticks.
stat_now() { awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; print t, $9 }' /proc/stat; }
hz=$(getconf CLK_TCK)

start_ours() {
	inns timeout $((secs * 4 + 120)) taskset -c "$SERVER_CPU" "${rt[@]}" "$DEBLOAT" server -p 9911 -c 10100 \
		--json --stats-interval 0 2>"$tmp/ours.log" &
	spid=$!
	pids+=("$spid")
	for _ in $(seq 50); do
		inns ss -Hlun "sport = :9911" | grep -q . && break
		sleep 0.1
	done
	# The server runs under timeout and taskset: its own pid is the deepest child.
	while child=$(pgrep -P "$spid" | head -1) && [ -n "$child" ]; do spid=$child; done
}
start_irtt() {
	inns timeout $((secs * 4 + 120)) taskset -c "$SERVER_CPU" "${rt[@]}" irtt server -b 127.0.0.1:2112 \
		>"$tmp/irtt.log" 2>&1 &
	spid=$!
	pids+=("$spid")
	for _ in $(seq 50); do
		inns ss -Hlun "sport = :2112" | grep -q . && break
		sleep 0.1
	done
	while child=$(pgrep -P "$spid" | head -1) && [ -n "$child" ]; do spid=$child; done
}
stop_server() {
	kill "$spid" 2>/dev/null || true
	wait 2>/dev/null || true
	pids=()
}

# run_load KIND PORT N: the load generator's JSON line plus the server's CPU and RSS.
run_load() {
	local kind=$1 port=$2 n=$3 t0 t1 w0 w1 out
	t0=$(ticks "$spid")
	w0=$(date +%s.%N)
	out=$(inns timeout $((secs + 90)) taskset -c "$OTHER_CPUS" "$LOAD" "$kind" "$port" "$n" "$rate" "$secs")
	t1=$(ticks "$spid")
	w1=$(date +%s.%N)
	jq -c --argjson cpu "$(awk -v a="$t0" -v b="$t1" -v w0="$w0" -v w1="$w1" -v hz="$hz" \
		'BEGIN { printf "%.3f", (b - a) / hz / (w1 - w0) }')" \
		--argjson rss "$(rss_mb "$spid")" '. + {cpu_cores: $cpu, rss_mb: $rss}' <<<"$out"
}

loadavg() { awk '{ print $1 }' /proc/loadavg; }
# The stats line ours logs at exit as {p50, p99} of processing and hold, microseconds.
ours_times() {
	grep '^{' "$1" | jq -c 'select(.stats == "run") |
		{proc_us: {p50: (.proc_p50_ns / 1000), p99: (.proc_p99_ns / 1000)},
		 hold_us: {p50: (.hold_p50_ns / 1000), p99: (.hold_p99_ns / 1000)},
		 server_probes: .probes_answered}'
}

# The median of each figure over runs (one JSON line each), as one line of the same shape.
median_runs() {
	jq -cs 'def med: map(select(. != null)) | sort |
			if length == 0 then null else .[(length - 1) / 2 | floor] end;
		def q(k): {p50: (map(.[k].p50) | med), p99: (map(.[k].p99) | med)};
		{clients: .[0].clients, runs: length, ready: (map(.ready) | med),
		 loss_pct: (map(.loss_pct) | med), cpu_cores: (map(.cpu_cores) | med),
		 rss_mb: (map(.rss_mb) | med), setup_s: (map(.setup_s) | med),
		 rtt_us: q("rtt_us"), proc_us: q("proc_us")} +
		(if .[0].hold_us then {hold_us: q("hold_us"), reply_hold_us: q("reply_hold_us"),
		 server_probes: (map(.server_probes) | med)} else {} end)' "$@"
}

load0=$(loadavg)
read -r st0 steal0 <<<"$(stat_now)"
for n in $sizes; do
	for r in $(seq "$repeat"); do
		start_irtt
		run_load irtt 2112 "$n" >"$tmp/irtt-$n-$r.json"
		stop_server
		start_ours
		run_load debloat 9911 "$n" >"$tmp/ours-load-$n.json"
		stop_server
		times=$(ours_times "$tmp/ours.log")
		[ -n "$times" ] || { echo "bench-server-scale: no stats line from our server ($n clients)" >&2; exit 1; }
		# The load generator's view, with ours' processing and hold times; what its
		# replies' stamps say (server_tx_ns - server_rx_ns: the hold up to the stamp
		# taken just before sendmmsg) kept as reply_hold_us.
		jq -c --argjson t "$times" '. + {reply_hold_us: .proc_us} + $t' "$tmp/ours-load-$n.json" \
			>"$tmp/ours-$n-$r.json"
		for who in irtt ours; do
			log "# $who, $n clients, run $r: $(cat "$tmp/$who-$n-$r.json")"
		done
	done
	for who in irtt ours; do
		median_runs "$tmp/$who-$n-"*.json >"$tmp/$who-$n.json"
	done
done

# rrul: nrrul clients at once against ours.
rpids=()
rrul_cpu=null
if [ "$nrrul" -gt 0 ]; then
	start_ours
	t0=$(ticks "$spid")
	w0=$(date +%s.%N)
	for i in $(seq "$nrrul"); do
		inns timeout 60 taskset -c "$OTHER_CPUS" "$DEBLOAT" test rrul 127.0.0.1 -p 9911 \
			--local "127.0.0.$((10 + i))" -l 10 -d 2 -s 0.05 -o "$tmp/rrul-$i.json" \
			>/dev/null 2>"$tmp/rrul-$i.err" &
		rpids+=($!)
	done
	for p in "${rpids[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	t1=$(ticks "$spid")
	w1=$(date +%s.%N)
	rrul_cpu=$(awk -v a="$t0" -v b="$t1" -v w0="$w0" -v w1="$w1" -v hz="$hz" 'BEGIN { printf "%.3f", (b - a) / hz / (w1 - w0) }')
	stop_server
fi
read -r st1 steal1 <<<"$(stat_now)"
load1=$(loadavg)
steal_pct=$(awk -v a="$st0" -v b="$st1" -v s="$steal0" -v t="$steal1" 'BEGIN { printf "%.2f", (b > a) ? 100 * (t - s) / (b - a) : 0 }')

# The rrul results that were written (none with --rrul 0).
rrul_jq() { find "$tmp" -maxdepth 1 -name 'rrul-*.json' -exec cat {} + | jq -s "$1"; }
rrul_done=$(rrul_jq 'length')
rrul_udp=$(rrul_jq '[.[].summary.probes[] | select(.name | test("UDP")) | .latency_loaded_ms.p99] | max // null')
rrul_icmp=$(rrul_jq '[.[].summary.probes[] | select(.name | test("ICMP")) | .latency_loaded_ms.p99] | max // null')
rrul_flagged=$(rrul_jq '[.[] | select(.server_overloaded)] | length')

# One results document, then the table from it.
{
	for n in $sizes; do
		for who in ours irtt; do
			f=$tmp/$who-$n.json
			jq -c --arg p "ping_${n}_${who}" '
				{name: ($p + "_runs"), value: .runs, unit: "runs"},
				{name: ($p + "_cpu"), value: .cpu_cores, unit: "cores"},
				{name: ($p + "_rss"), value: .rss_mb, unit: "MB"},
				{name: ($p + "_ready"), value: .ready, unit: "clients"},
				{name: ($p + "_loss"), value: .loss_pct, unit: "%"},
				{name: ($p + "_rtt_p50"), value: .rtt_us.p50, unit: "us"},
				{name: ($p + "_rtt_p99"), value: .rtt_us.p99, unit: "us"},
				{name: ($p + "_proc_p50"), value: .proc_us.p50, unit: "us"},
				{name: ($p + "_proc_p99"), value: .proc_us.p99, unit: "us"},
				(select(.hold_us) |
				{name: ($p + "_hold_p50"), value: .hold_us.p50, unit: "us"},
				{name: ($p + "_hold_p99"), value: .hold_us.p99, unit: "us"},
				{name: ($p + "_reply_hold_p50"), value: .reply_hold_us.p50, unit: "us"},
				{name: ($p + "_reply_hold_p99"), value: .reply_hold_us.p99, unit: "us"})' "$f"
		done
		jq -cn --arg p "ping_${n}_ratio" --slurpfile o "$tmp/ours-$n.json" --slurpfile i "$tmp/irtt-$n.json" '
			def r(a; b): if b > 0 then (a / b * 1000 | round / 1000) else null end;
			{name: ($p + "_cpu"), value: r($o[0].cpu_cores; $i[0].cpu_cores), unit: "ours/irtt"},
			{name: ($p + "_rss"), value: r($o[0].rss_mb; $i[0].rss_mb), unit: "ours/irtt"},
			{name: ($p + "_rtt_p50"), value: r($o[0].rtt_us.p50; $i[0].rtt_us.p50), unit: "ours/irtt"},
			{name: ($p + "_rtt_p99"), value: r($o[0].rtt_us.p99; $i[0].rtt_us.p99), unit: "ours/irtt"},
			{name: ($p + "_proc_p50"), value: r($o[0].proc_us.p50; $i[0].proc_us.p50), unit: "ours/irtt"},
			{name: ($p + "_proc_p99"), value: r($o[0].proc_us.p99; $i[0].proc_us.p99), unit: "ours/irtt"}'
	done
	# Flat in the number of clients: p99 at the largest count over that at the smallest.
	lo=$(tr ' ' '\n' <<<"$sizes" | grep . | sort -n | head -1)
	hi=$(tr ' ' '\n' <<<"$sizes" | grep . | sort -n | tail -1)
	jq -cn --arg p "ping_p99_${hi}_over_${lo}" --slurpfile ol "$tmp/ours-$lo.json" \
		--slurpfile oh "$tmp/ours-$hi.json" --slurpfile il "$tmp/irtt-$lo.json" \
		--slurpfile ih "$tmp/irtt-$hi.json" '
		def r(a; b): if b > 0 then (a / b * 1000 | round / 1000) else null end;
		{name: ($p + "_ours_proc"), value: r($oh[0].proc_us.p99; $ol[0].proc_us.p99), unit: "ratio"},
		{name: ($p + "_ours_hold"), value: r($oh[0].hold_us.p99; $ol[0].hold_us.p99), unit: "ratio"},
		{name: ($p + "_irtt_proc"), value: r($ih[0].proc_us.p99; $il[0].proc_us.p99), unit: "ratio"}'
	# The goal's own terms: processing p99 flat within 5 us over the client counts, as
	# irtt's is: the largest p99 less the smallest, microseconds.
	for who in ours irtt; do
		for n in $sizes; do cat "$tmp/$who-$n.json"; done |
			jq -cs --arg w "$who" '[.[].proc_us.p99] |
				{name: ("ping_proc_p99_spread_" + $w), value: ((max - min) * 1000 | round / 1000), unit: "us"}'
	done

	jq -cn --argjson n "$nrrul" --argjson finished "$rrul_done" --argjson u "$rrul_udp" \
		--argjson i "$rrul_icmp" --argjson f "$rrul_flagged" --argjson c "$rrul_cpu" \
		--argjson s "$steal_pct" --argjson l0 "$load0" --argjson l1 "$load1" '
		{name: "rrul_clients", value: $n, unit: "clients"},
		{name: "rrul_results", value: $finished, unit: "results"},
		{name: "rrul_udp_p99_max", value: $u, unit: "ms"},
		{name: "rrul_icmp_p99_max", value: $i, unit: "ms"},
		{name: "rrul_flagged_overloaded", value: $f, unit: "results"},
		{name: "rrul_server_cpu", value: $c, unit: "cores"},
		{name: "host_cpu_steal", value: $s, unit: "%"},
		{name: "host_loadavg_start", value: $l0, unit: "load"},
		{name: "host_loadavg_end", value: $l1, unit: "load"}'
} >"$tmp/results.jsonl"

if [ "$json" -eq 1 ]; then
	jq -s '{results: .}' "$tmp/results.jsonl"
	exit 0
fi
printf '%-34s %12s %12s\n' "ping clients" "value" "unit"
jq -r '"\(.name)\t\(.value)\t\(.unit)"' "$tmp/results.jsonl" |
	awk -F'\t' '{ printf "%-34s %12s %12s\n", $1, $2, $3 }'

# The processing-time table, from the same results.
echo
echo "# processing time per probe (us): ours from when it turned to the request to its"
echo "# reply decided, irtt's from its read to its reply's stamp (both the server's own"
echo "# work, before the send); ours' hold from the kernel's receive timestamp to the"
echo "# return of the sendmmsg (the batch's wait and send included)"
printf '%-8s %24s %24s %21s %21s\n' clients "ours proc p50/p99" "ours hold p50/p99" \
	"irtt proc p50/p99" "ours/irtt p50/p99"
for n in $sizes; do
	jq -rs --arg n "$n" '
		def v(k): (map(select(.name == ("ping_" + $n + "_" + k))) | .[0].value // "-" | tostring);
		[$n, v("ours_proc_p50") + " / " + v("ours_proc_p99"),
		 v("ours_hold_p50") + " / " + v("ours_hold_p99"),
		 v("irtt_proc_p50") + " / " + v("irtt_proc_p99"),
		 v("ratio_proc_p50") + " / " + v("ratio_proc_p99")] | @tsv' "$tmp/results.jsonl" |
		awk -F'\t' '{ printf "%-8s %24s %24s %21s %21s\n", $1, $2, $3, $4, $5 }'
done
jq -r 'select(.name | startswith("ping_p99_")) | "# \(.name): \(.value) (\(.unit); 1 is flat)"' \
	"$tmp/results.jsonl"
jq -r 'select(.name | startswith("ping_proc_p99_spread_")) | "# \(.name): \(.value) \(.unit) (the goal: within 5)"' \
	"$tmp/results.jsonl"
# The goals: ours' round-trip p99 within 1.5x irtt's, its memory (RSS) within 2x.
for n in $sizes; do
	jq -rs --arg n "$n" '
		def v(k): (map(select(.name == ("ping_" + $n + "_ratio_" + k))) | .[0].value);
		def met(x; lim): if x == null then "no figure" elif x <= lim then "met"
			else "NOT met" end;
		"# \($n) clients, ours/irtt: rtt p99 \(v("rtt_p99")) (<= 1.5: " +
		"\(met(v("rtt_p99"); 1.5))), rss \(v("rss")) (<= 2: \(met(v("rss"); 2)))"' \
		"$tmp/results.jsonl"
done
jq -r 'select(.name | startswith("host_")) | "# \(.name): \(.value) \(.unit)"' "$tmp/results.jsonl"
