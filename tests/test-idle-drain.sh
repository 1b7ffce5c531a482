#!/usr/bin/env bash
# test-idle-drain.sh - idle latency is idle: the queue a load leaves behind drains before
# the probes after the load count as idle (meter/summary.h), on a recorded lab run
# (tests/fixtures/runs/lab-bbb-bql.*: bbb-bql, RRUL 20 s, 3 s idle before and after),
# whose probes after the load wait behind most of a second of queue:
#
#	the JSON (series only: its summary is recomputed from the per-step values, as for
#	an older file) and the flent file (from its raw samples)
#	  -> idle p99 within 5 ms of the p99 before the load
#	  -> drain_s within 0.2 s (one probe step) of the drain the probes show: the end of
#	     the last step after the load whose slowest probe was still queued (> 20 ms)
#	debloat compare and plot show it: a "drain s" row, a shaded drain span
# run.sh: parallel
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

require_debloat
require_cmd jq

runs="$TOP/tests/fixtures/runs"
dir=$(mktemp -d)
trap 'rm -rf "$dir"; cleanup' EXIT

json="$runs/lab-bbb-bql.json"

# What the per-step probe values show, by jq alone: the p99 (nearest rank) of the steps
# before the load, and when the last step after it still held a queued probe.
read -r pre_p99 seen_drain < <(jq -r '
	. as $d | ($d.delay_s + $d.length_s) as $le | $d.step_s as $st
	| [$d.series | to_entries[] | select(.key | startswith("Ping")) | .value.values] as $p
	| ($p[0] | length) as $n
	| [range(0; $n) as $k | (($k - 0.5) * $st) as $mid | select($mid < $d.delay_s)
	   | $p[] | .[$k] | select(. != null)] | sort as $pre
	| ($pre[((($pre | length) * 99 + 99) / 100 | floor) - 1]) as $p99
	| [range(0; $n) as $k | (($k - 0.5) * $st) as $mid | select($mid >= $le)
	   | select([$p[] | .[$k] | select(. != null)] | max > 20) | $k * $st - $le]
	| "\($p99) \(if length == 0 then 0 else max end)"' "$json")
pass "the recording: pre-load p99 $pre_p99 ms, queued probes until $seen_drain s after the load"
if awk -v d="$seen_drain" 'BEGIN { exit !(d >= 0.4) }'; then
	pass "the recording drains over at least 0.4 s (a real drain to find)"
else
	fail "the recording drains in $seen_drain s: not a drain worth testing"
fi

for f in "$json" "$runs/lab-bbb-bql.flent.gz"; do
	name=$(basename "$f")
	run "$DEBLOAT" compare --json "$f"
	assert_status "compare --json $name" 0
	idle_p99=$(jq -r '.runs[0].latency_idle_p99_ms' <<<"$OUT")
	drain=$(jq -r '.runs[0].drain_s' <<<"$OUT")
	if awk -v a="$idle_p99" -v b="$pre_p99" 'BEGIN { d = a - b; exit !(d < 5 && d > -5) }'; then
		pass "$name: idle p99 $idle_p99 ms within 5 ms of the pre-load $pre_p99"
	else
		fail "$name: idle p99 $idle_p99 ms, pre-load $pre_p99: the drain counted as idle"
	fi
	if awk -v a="$drain" -v b="$seen_drain" 'BEGIN { d = a - b; exit !(a != "null" && d <= 0.2 && d >= -0.2) }'; then
		pass "$name: drain_s $drain within 0.2 s of the probes' $seen_drain"
	else
		fail "$name: drain_s $drain, the probes drained at $seen_drain s"
	fi
done

run "$DEBLOAT" compare "$json"
assert_status "compare (text)" 0
assert_contains "the table has the drain row" "$OUT" "drain s"

# A file's own drain (written by debloat test from every probe) is read back as it is.
jq '.summary = {"drain_s": 0.42, "drained": true, "idle_threshold_ms": 2.5}' "$json" >"$dir/own.json"
run "$DEBLOAT" compare --json "$dir/own.json"
assert_eq "a file's own drain_s is read back" "$(jq -r '.runs[0].drain_s' <<<"$OUT")" "0.42"
jq '.summary = {"drain_s": null, "drained": false, "idle_threshold_ms": 2.5}' "$json" >"$dir/never.json"
run "$DEBLOAT" compare --json "$dir/never.json"
assert_eq "a file whose queue never drained has no drain_s" "$(jq -r '.runs[0].drain_s' <<<"$OUT")" "null"
jq '.summary = {"drain_s": "soon", "drained": true}' "$json" >"$dir/bad.json"
run "$DEBLOAT" compare --json "$dir/bad.json"
assert_status "a drain_s of the wrong type is refused" 1

run "$DEBLOAT" plot "$json" -o "$dir/run.svg" --kind latency
assert_status "plot --kind latency" 0
if grep -q 'class="drain"' "$dir/run.svg"; then
	pass "the plot shades the drain apart from the idle periods"
else
	fail "the plot has no drain span"
fi
finish
