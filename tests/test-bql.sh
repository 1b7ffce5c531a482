#!/usr/bin/env bash
# test-bql.sh - `debloat bql`, the live BQL view, end to end.
#
# (a) over a fake /sys (DEBLOAT_SYSFS, the command's testing aid), whose files the test
#     changes while the view runs:
#
#	$T/class/net/eth0   tx-0, tx-1 with byte_queue_limits (+ stall files), statistics/
#	$T/class/net/veth0  tx-0 without byte_queue_limits
#
# (b) on the real kernel, in a namespace of its own:
#
#	[ ns dbt-bql-$$ ]
#	   va <--veth--> vb --ingress u32 mirred--> ifbt (ifb: has BQL directories)
#
#     veth keeps no BQL directories on this kernel (a queueless device): the view must
#     say so and exit 1. ifb has them: three samples, and with traffic redirected into
#     it, tx packets counted between samples.
#
# Exit statuses: 1 for an unknown interface or one without BQL, 2 for bad options, 0
# after -n samples and after SIGINT or SIGTERM (stopping is how a live view ends).

# run.sh: timing net
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_debloat
require_cmd jq

T=$(mktemp -d)
trap 'rm -rf "$T"; cleanup' EXIT

put() { # put FILE VALUE: writes in place (the view keeps directories open, not files)
	mkdir -p "$(dirname "$T/$1")"
	printf '%s\n' "$2" >"$T/$1"
}
put_queue() { # put_queue IF N LIMIT INFLIGHT
	local d="class/net/$1/queues/tx-$2/byte_queue_limits"
	put "$d/limit" "$3"
	put "$d/inflight" "$4"
	put "$d/limit_min" 0
	put "$d/limit_max" 1879048192
	put "$d/hold_time" 1000
	put "$d/stall_thrs" 0
	put "$d/stall_cnt" 0
	put "$d/stall_max" 0
}
put class/net/eth0/ifindex 2
put_queue eth0 0 1514 0
put_queue eth0 1 3028 1514
put class/net/eth0/statistics/tx_bytes 1000
put class/net/eth0/statistics/tx_packets 10
put class/net/veth0/ifindex 3
put class/net/veth0/queues/tx-0/xps_cpus 0

fake() { DEBLOAT_SYSFS=$T "$@"; }
# In the background, no shell function (its subshell would be $! and ignore SIGINT):
# timeout passes signals on to debloat and kills it should it hang.
BG=(timeout -s KILL 60 env DEBLOAT_SYSFS="$T") # a hang guard only: a busy host is slow

# The samples' own spread, first to last, from their timestamps (ms): the view's pacing,
# without the start-up of a process that a busy host may delay for seconds.
spread_ms() { awk '{ t = $1 * 1000; if (NR == 1 || t < lo) lo = t; if (t > hi) hi = t } END { printf "%d", hi - lo }'; }

# --- (a) fake sysfs -----------------------------------------------------------------
run fake "$DEBLOAT" bql eth0 -n 3 -i 50
elapsed=$(spread_ms <<<"$OUT")
assert_status "3 samples exit 0" 0
assert_eq "one line per queue per sample" 6 "$(wc -l <<<"$OUT")"
assert_eq "tx-1 limit in every sample" "3028 3028 3028" \
	"$(awk '$3 == "tx-1" { printf "%s%s", sep, $5; sep = " " }' <<<"$OUT")"
assert_eq "lines carry the keys in order" \
	"limit limit_min limit_max inflight hold_time_ms stall_thrs_ms stall_cnt stall_max_jiffies tx_bytes_delta tx_packets_delta" \
	"$(head -n 1 <<<"$OUT" | awk '{ for (i = 4; i <= NF; i += 2) printf "%s%s", (i > 4 ? " " : ""), $i }')"
assert_eq "first sample has no delta, later ones 0" "- 0 0" \
	"$(awk '$3 == "tx-0" { printf "%s%s", sep, $(NF-2); sep = " " }' <<<"$OUT")"
if grep -qE '^[0-9]{10}\.[0-9]{3} eth0 tx-[01] ' <<<"$OUT"; then
	pass "timestamp first (Unix seconds.ms)"
else
	fail "timestamp first: $(head -n 1 <<<"$OUT")"
fi
if [ "$elapsed" -lt 1000 ]; then
	pass "3 samples at 50 ms, ${elapsed} ms from first to last"
else
	fail "3 samples at 50 ms spread over ${elapsed} ms (want well under 1 s)"
fi

run fake "$DEBLOAT" bql eth0 -n 3 -i 50 --json
assert_status "--json exit 0" 0
assert_eq "one JSON line per sample" 3 "$(wc -l <<<"$OUT")"
if jq -e . <<<"$OUT" >/dev/null 2>&1; then pass "every line parses"; else fail "JSON lines do not parse: $OUT"; fi
assert_eq "samples numbered" "1 2 3" "$(jq -r .sample <<<"$OUT" | paste -sd' ')"
assert_eq "queue values" "0:1514:0 1:3028:1514" \
	"$(jq -r '.interfaces[0].queues[] | "\(.queue):\(.limit):\(.inflight)"' <<<"$OUT" | head -n 2 | paste -sd' ')"
assert_eq "first elapsed null, then about 50 ms (10 to 250)" "null ok ok" \
	"$(jq -r 'if .elapsed_us == null then "null" elif .elapsed_us > 10000 and .elapsed_us < 250000 then "ok" else .elapsed_us end' <<<"$OUT" | paste -sd' ')"

# Files change while the view runs: later samples show the new values and deltas. The
# view runs until signalled, and is stopped once a sample has seen every change (a busy
# machine may take longer to write the four files than any fixed count of samples; the
# suite runs this at nice 10 beside others, so the bounds are generous: 60 s).
"${BG[@]}" "$DEBLOAT" bql eth0 -i 50 --json >"$T/live" 2>"$T/live.err" &
pid=$!
for _ in $(seq 1000); do [ -s "$T/live" ] && break; sleep 0.01; done # up to 10 s: a busy machine
put class/net/eth0/queues/tx-0/byte_queue_limits/limit 4542
put class/net/eth0/queues/tx-0/byte_queue_limits/inflight 3028
put class/net/eth0/statistics/tx_bytes 7056
put class/net/eth0/statistics/tx_packets 14
seen() { # the last whole line: the new limit and inflight; the deltas since the first
	[ "$(grep -a '}$' "$T/live" | jq -rs 'if length < 2 then "no" else
		(.[-1].interfaces[0].queues[0] | "\(.limit) \(.inflight)") + " " +
		([.[1:][] | .interfaces[0]] | "\(map(.tx_bytes_delta) | add) \(map(.tx_packets_delta) | add)")
		end' 2>/dev/null)" = "4542 3028 6056 4" ]
}
deadline=$((SECONDS + 40))
while [ "$SECONDS" -lt "$deadline" ] && ! seen; do sleep 0.1; done
kill -s TERM "$pid" 2>/dev/null || true
RC=0
wait "$pid" || RC=$?
assert_status "live run exit 0 on SIGTERM" 0
assert_eq "the last sample sees the new limit and inflight" "4542 3028" \
	"$(tail -n 1 "$T/live" | jq -r '.interfaces[0].queues[0] | "\(.limit) \(.inflight)"')"
assert_eq "tx deltas add up to the change" "6056 4" \
	"$(jq -rs '[.[1:][] | .interfaces[0]] | "\(map(.tx_bytes_delta) | add) \(map(.tx_packets_delta) | add)"' "$T/live")"
assert_eq "samples numbered without a gap" "ok" \
	"$(jq -rs 'if [.[].sample] == [range(1; length + 1)] then "ok" else [.[].sample] end' "$T/live")"

# Without IFACE: every interface with BQL (eth0), none without (veth0).
run fake "$DEBLOAT" bql -n 1 -i 10
assert_eq "all interfaces: eth0's two queues only" "eth0 tx-0,eth0 tx-1" \
	"$(awk '{ printf "%s%s %s", sep, $2, $3; sep = "," }' <<<"$OUT")"

# Errors.
run fake "$DEBLOAT" bql nosuch0 -n 1
assert_status "unknown interface exit 1" 1
assert_contains "unknown interface named" "$ERR" "cannot find interface nosuch0"
run fake "$DEBLOAT" bql veth0 -n 1
assert_status "interface without BQL exit 1" 1
assert_contains "no BQL said" "$ERR" "veth0 has no byte queue limits"
for bad in "-i 9" "-i 0" "-i abc" "-i -5" "-i" "-n 0" "-n x" "--nosuch" "eth0 eth1"; do
	# shellcheck disable=SC2086 # split on purpose
	run fake "$DEBLOAT" bql $bad
	assert_status "bad options \"$bad\" exit 2" 2
done
assert_contains "a bad option says where the help is" "$ERR" "see 'debloat bql --help'"

# SIGINT and SIGTERM end the view cleanly, status 0, output flushed.
for s in INT TERM; do
	"${BG[@]}" "$DEBLOAT" bql eth0 -i 20 >"$T/sig" 2>"$T/sig.err" &
	pid=$!
	# Once it is sampling (handlers set, 4 lines out), not after a fixed time: a busy
	# machine may take longer than any sleep to start it. At most 10 s.
	for _ in $(seq 1000); do [ "$(wc -l <"$T/sig")" -ge 4 ] && break; sleep 0.01; done
	kill -s "$s" "$pid"
	RC=0
	wait "$pid" || RC=$?
	ERR=$(cat "$T/sig.err")
	assert_status "SIG$s ends it with 0" 0
	if [ "$(wc -l <"$T/sig")" -ge 4 ]; then pass "SIG$s: samples written before"; else fail "SIG$s: only $(wc -l <"$T/sig") lines"; fi
done

# On a terminal: one table redrawn in place, cursor hidden then given back.
if command -v script >/dev/null 2>&1; then
	out=$(DEBLOAT_SYSFS=$T script -qec "$DEBLOAT bql eth0 -n 2 -i 20" /dev/null | cat -v)
	assert_eq "table: first frame clears, later ones go home" 2 "$(grep -c '\^\[\[H' <<<"$out")"
	assert_contains "table: header" "$out" "LIMIT_MAX"
	assert_contains "table: cursor restored" "$out" '^[[?25h'
	assert_eq "table: no line-format lines" 0 "$(grep -c 'limit_min' <<<"$out")"
fi

# --- (b) a real kernel, in a namespace ------------------------------------------------
[ "$(id -u)" -eq 0 ] || skip "part (b) needs root (network namespaces)"
require_netns
NS=dbt-bql-$$
netns_add "$NS"
ip -n "$NS" link add va type veth peer name vb
for l in lo va vb; do ip -n "$NS" link set "$l" up; done
if ip netns exec "$NS" test -d /sys/class/net/va/queues/tx-0/byte_queue_limits; then
	run ip netns exec "$NS" "$DEBLOAT" bql va -n 3 -i 50
	assert_status "veth with BQL directories: 3 samples" 0
	assert_eq "veth: 3 lines" 3 "$(wc -l <<<"$OUT")"
else
	run ip netns exec "$NS" "$DEBLOAT" bql va -n 3 -i 50
	assert_status "veth without BQL directories: exit 1" 1
	assert_contains "veth: says why" "$ERR" "va has no byte queue limits"
fi

ip -n "$NS" link add ifbt type ifb 2>/dev/null || skip "no ifb in this kernel for part (b)"
ip -n "$NS" link set ifbt up
run ip netns exec "$NS" "$DEBLOAT" bql ifbt -n 3 -i 50
elapsed=$(spread_ms <<<"$OUT")
assert_status "ifb: 3 samples" 0
assert_eq "ifb: 3 lines, one queue" "3 ifbt tx-0" "$(wc -l <<<"$OUT") $(awk 'NR == 1 { print $2, $3 }' <<<"$OUT")"
assert_eq "ifb: limit_max as sysfs says" \
	"$(ip netns exec "$NS" cat /sys/class/net/ifbt/queues/tx-0/byte_queue_limits/limit_max)" \
	"$(awk 'NR == 1 { print $9 }' <<<"$OUT")"
if [ "$elapsed" -lt 1000 ]; then pass "ifb: 3 samples ${elapsed} ms from first to last"; else fail "ifb: 3 samples spread over ${elapsed} ms"; fi

# Traffic into ifbt: vb's ingress redirected to it; a static neighbour so UDP to a
# made-up address leaves va at once.
if tc -n "$NS" qdisc add dev vb ingress 2>/dev/null &&
	tc -n "$NS" filter add dev vb parent ffff: protocol all prio 1 u32 match u32 0 0 \
		action mirred egress redirect dev ifbt 2>/dev/null; then
	ip -n "$NS" addr add 10.77.0.1/24 dev va
	ip -n "$NS" neigh add 10.77.0.9 lladdr 02:00:00:00:00:09 dev va
	# shellcheck disable=SC2016 # the loop runs in the namespace's shell
	ip netns exec "$NS" bash -c 'for i in $(seq 400); do echo x >/dev/udp/10.77.0.9/9; sleep 0.002; done' &
	sender=$!
	run ip netns exec "$NS" "$DEBLOAT" bql ifbt -n 4 -i 100 --json
	wait "$sender" || true
	assert_status "ifb with traffic: exit 0" 0
	sent=$(jq -s '[.[1:][] | .interfaces[0].tx_packets_delta] | add' <<<"$OUT")
	if [ "$sent" -gt 0 ] 2>/dev/null; then
		pass "ifb: tx packets counted between samples ($sent)"
	else
		fail "ifb: no tx packets counted: $OUT"
	fi
else
	echo "SKIP ifb traffic: no u32 classifier or mirred action here"
fi

finish
