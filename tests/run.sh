#!/usr/bin/env bash
# run.sh - run every test program and script of a build, and print the totals.
#
#   tests/run.sh [--unit] [BUILD_DIR]
#
# Unit tests are $BUILD/tests/test-*; the fuzz corpora replay through
# $BUILD/fuzz/*-replay; end-to-end scripts are tests/test-*.sh (skipped with --unit).
# Each program ends with "N passed, N failed[, N skipped]"; this adds them up, shows
# the output of whatever failed, and ends with the same line for the whole run.
# Exit status 1 if anything failed (including a program that crashed or printed no
# summary), else 0.
set -uo pipefail

unit_only=0
if [ "${1:-}" = "--unit" ]; then
	unit_only=1
	shift
fi
BUILD=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
export BUILD
export DEBLOAT="$top/$BUILD/debloat"

passed=0 failed=0 skipped=0 broken=()
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# Run one program; add its summary line to the totals.
run_one() {
	local name=$1
	shift
	local start=$SECONDS rc line p f s
	timeout 600 "$@" >"$log" 2>&1
	rc=$?
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	if [ -z "$line" ]; then
		printf 'FAIL %-28s exit %d, no summary line\n' "$name" "$rc"
		sed 's/^/    /' "$log" | tail -n 40
		failed=$((failed + 1))
		broken+=("$name")
		return
	fi
	p=$(sed -E 's/^([0-9]+) passed.*/\1/' <<<"$line")
	f=$(sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$line")
	s=$(sed -nE 's/.*, ([0-9]+) skipped.*/\1/p' <<<"$line")
	s=${s:-0}
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	if [ "$f" -ne 0 ] || { [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; }; then
		[ "$f" -eq 0 ] && failed=$((failed + 1))
		printf 'FAIL %-28s %s (exit %d)\n' "$name" "$line" "$rc"
		grep -vE '^(ok|SKIP) ' "$log" | sed 's/^/    /' | tail -n 60
		broken+=("$name")
	else
		printf 'ok   %-28s %s (%ds)\n' "$name" "$line" $((SECONDS - start))
		grep -E '^SKIP ' "$log" | sed 's/^/    /'
	fi
}

[ -d "$BUILD/tests" ] || { echo "run.sh: no build in $BUILD (run make first)" >&2; exit 1; }

for t in "$BUILD"/tests/test-*; do
	[ -x "$t" ] && [ -f "$t" ] || continue
	run_one "$(basename "$t")" "$t"
done
for r in "$BUILD"/fuzz/*-replay; do
	[ -x "$r" ] || continue
	name=$(basename "$r" -replay)
	run_one "corpus $name" "$r" "fuzz/corpus/$name"
done
if [ "$unit_only" -eq 0 ]; then
	for t in tests/test-*.sh; do
		[ -f "$t" ] || continue
		run_one "$(basename "$t")" bash "$t"
	done
fi

echo
if [ ${#broken[@]} -ne 0 ]; then
	echo "failed: ${broken[*]}"
fi
if [ "$skipped" -ne 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
