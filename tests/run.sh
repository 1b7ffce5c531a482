#!/usr/bin/env bash
# run.sh - run every test program and script of a build, and print the totals.
#
#   tests/run.sh [--unit] [BUILD_DIR]
#
# Unit tests are $BUILD/tests/test-*; the fuzz corpora replay through
# $BUILD/fuzz/*-replay; end-to-end scripts are tests/test-*.sh (skipped with --unit).
# Each program ends with "N passed, N failed[, N skipped]"; this adds them up, shows
# the output of whatever failed, and ends with the same line for the whole run.
# Exit status 1 if anything failed (including a program that crashed, was killed or
# printed no summary), else 0.
#
# In parallel, JOBS at a time (default: the number of CPUs, nproc): the unit tests,
# the corpora, and the scripts that say so with a line "# run.sh: parallel" (those
# whose namespaces, devices and files are named after their PID or made with mktemp,
# and that assert no timing). The other scripts assert timings (latency, a trial's
# deadline, a sampling interval) or load the machine themselves: they run after the
# rest, one at a time, with the machine to themselves. A program's result is printed
# when it ends, so the order of the lines may change from run to run; the totals do
# not. JOBS=1 runs everything one after another.
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
jobs_max=${JOBS:-$(nproc 2>/dev/null || echo 1)}
case "$jobs_max" in
'' | *[!0-9]* | 0) echo "run.sh: JOBS must be a positive number, not '$jobs_max'" >&2; exit 1 ;;
esac

passed=0 failed=0 skipped=0 broken=()
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# What a program printed and how it ended, added to the totals. $1 name, $2 exit
# status, $3 its output, $4 seconds it took.
report() {
	local name=$1 rc=$2 log=$3 took=$4 line p f s
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
		printf 'ok   %-28s %s (%ds)\n' "$name" "$line" "$took"
		grep -E '^SKIP ' "$log" | sed 's/^/    /'
	fi
}

# Programs running now, by PID: name, output file, start time.
declare -A job_name job_log job_start
njobs=0 seq=0

# Wait for one running program to end and report it.
reap() {
	local pid rc
	wait -n -p pid
	rc=$?
	[ -n "${pid:-}" ] || return 0
	report "${job_name[$pid]}" "$rc" "${job_log[$pid]}" $((SECONDS - job_start[$pid]))
	unset "job_name[$pid]" "job_log[$pid]" "job_start[$pid]"
	njobs=$((njobs - 1))
}

# Start one program in the background once fewer than JOBS run. $1 name, then the
# command.
start() {
	local name=$1 log
	shift
	while [ "$njobs" -ge "$jobs_max" ]; do
		reap
	done
	seq=$((seq + 1))
	log="$logs/$seq"
	timeout 600 "$@" >"$log" 2>&1 </dev/null &
	job_name[$!]=$name job_log[$!]=$log job_start[$!]=$SECONDS
	njobs=$((njobs + 1))
}

drain() {
	while [ "$njobs" -gt 0 ]; do
		reap
	done
}

# One program on its own, in the foreground.
run_alone() {
	local name=$1 start=$SECONDS rc
	shift
	timeout 600 "$@" >"$logs/alone" 2>&1
	rc=$?
	report "$name" "$rc" "$logs/alone" $((SECONDS - start))
}

[ -d "$BUILD/tests" ] || { echo "run.sh: no build in $BUILD (run make first)" >&2; exit 1; }

alone=()
for t in "$BUILD"/tests/test-*; do
	if [ -x "$t" ] && [ -f "$t" ]; then
		start "$(basename "$t")" "$t"
	fi
done
for r in "$BUILD"/fuzz/*-replay; do
	[ -x "$r" ] || continue
	name=$(basename "$r" -replay)
	start "corpus $name" "$r" "fuzz/corpus/$name"
done
if [ "$unit_only" -eq 0 ]; then
	for t in tests/test-*.sh; do
		[ -f "$t" ] || continue
		if grep -qx '# run.sh: parallel' "$t"; then
			start "$(basename "$t")" bash "$t"
		else
			alone+=("$t")
		fi
	done
fi
drain
for t in "${alone[@]}"; do
	run_alone "$(basename "$t")" bash "$t"
done

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
