#!/usr/bin/env bash
# test-flent.sh - flent itself loads and plots what we write:
# a hand-built rrul result (tests/meter-fixture.h), with EGRESS_INFO and SYSCTLS from a
# read-only audit of the loopback, is written by build/tests/make-flent; then
#	flent -i FILE -f stats             must succeed and print our series
#	flent -i FILE -p all_scaled -o PNG must write a PNG
# Needs Debian's flent (scripts/install-deps.sh test); skipped only when it is missing.
# run.sh: parallel
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

require_cmd flent gzip
# flent runs on the system python (its #! line), not whatever python3 is first on PATH
PY=$(sed -n "1s/^#! *//p" "$(command -v flent)" | cut -d" " -f1)
[ -x "$PY" ] || PY=/usr/bin/python3
MAKE_FLENT="$BUILD/tests/make-flent"
[ -x "$MAKE_FLENT" ] || { fail "no $MAKE_FLENT (build first)"; finish || exit 1; }
"$PY" -c 'import matplotlib' 2>/dev/null || skip "flent needs python3-matplotlib to plot"

dir=$(mktemp -d)
trap 'rm -rf "$dir"; cleanup' EXIT
export MPLBACKEND=Agg HOME="$dir" # flent keeps settings under $HOME; no display here
file="$dir/rrul-fixture.flent.gz"

run "$MAKE_FLENT" "$file" lo
assert_status "make-flent writes the file" 0
if gzip -t "$file" 2>/dev/null; then pass "the file is gzip"; else fail "the file is not gzip"; fi

run flent -i "$file" -f stats
assert_status "flent -f stats loads it" 0
assert_contains "stats show the EF download" "$OUT" "TCP download EF"
assert_contains "stats show the ICMP probe" "$OUT" "Ping (ms) ICMP"
assert_not_contains "flent found data" "$OUT$ERR" "Zero-length"

run flent -i "$file" -p all_scaled -o "$dir/all_scaled.png"
assert_status "flent -p all_scaled plots it" 0
if [ -s "$dir/all_scaled.png" ] && [ "$(head -c 8 "$dir/all_scaled.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
	pass "all_scaled.png is a PNG ($(stat -c %s "$dir/all_scaled.png") bytes)"
else
	fail "no PNG written; stderr: $(head -c 400 <<<"$ERR")"
fi

run flent -i "$file" -p ping_cdf -o "$dir/ping_cdf.png"
assert_status "flent -p ping_cdf plots it" 0

# the metadata flent reads back: EGRESS_INFO from the audit of lo
run "$PY" -c '
import gzip, json, sys
m = json.load(gzip.open(sys.argv[1]))["metadata"]
print(m["EGRESS_INFO"]["iface"], m["FLENT_VERSION"].split("-")[0], "net.core.default_qdisc" in m["SYSCTLS"])
' "$file"
assert_eq "EGRESS_INFO names lo, FLENT_VERSION debloat, SYSCTLS set" "lo debloat True" "$OUT"
finish
