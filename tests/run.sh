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
# In parallel, JOBS at a time (default: the number of CPUs, nproc): the unit tests and
# the corpora first, then the scripts that say so with a line "# run.sh: parallel"
# (those whose namespaces, devices and files are named after their PID or made with
# mktemp, and that assert no timing), these at a lower priority (nice POOL_NICE,
# default 10), so that they take only the CPU the timing scripts leave.
#
# The scripts that assert timings (latency, goodput, a trial's deadline, a sampling
# interval) say with a line "# run.sh: timing LANE" which others they must not share
# the machine with: the scripts of one lane run one after another, from the start,
# beside the other lanes and the pool, at run.sh's own priority. Lane "lab": the lab's
# emulator, which keeps real time by spinning a CPU near each deadline; lane "prove":
# test-prove-directions and test-prove (minutes of `debloat prove`), then test-rpm-server
# and test-rrul, which wait on traffic; lane "net": the rest (traffic through
# namespaces at 100 Mbit/s or less, servers on loopback, ansible's plays), waiting most
# of the time. Measured on a fresh clone (wall s): lab 535, net 531, prove 573. The longest
# lane sets the suite's wall time: a new timing script goes to the shortest lane it
# may share. A script without a line runs after all the others, alone; with
# TIMING_ALONE=1 so do all the timing scripts (each with the machine to itself:
# slower, for a machine that is not short of time or a flaky timing to tell apart). A
# program's result is printed when it ends, so the order of the lines may change from
# run to run; the totals do not. JOBS=1 runs the unit tests, corpora and parallel
# scripts one after another.
#
# Each result line ends with the program's wall time and the CPU time (user + system)
# it and the processes it waited for used; the gap is time spent waiting (on timers,
# traffic, other programs, or for a CPU). Before the totals it lists the SLOWEST
# (default 10) programs by wall time, and with TIMES=FILE writes every program's
# "wall cpu name" to FILE, slowest first.
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

pool_nice=${POOL_NICE:-10}
case "$pool_nice" in
'' | *[!0-9]*) echo "run.sh: POOL_NICE must be a number 0 to 19, not '$pool_nice'" >&2; exit 1 ;;
esac
slowest=${SLOWEST:-10}
case "$slowest" in
'' | *[!0-9]*) echo "run.sh: SLOWEST must be a number, not '$slowest'" >&2; exit 1 ;;
esac

passed=0 failed=0 skipped=0 broken=()
logs=$(mktemp -d)
: >"$logs/times"
trap 'rm -rf "$logs"' EXIT

# "WALL CPU" in seconds from the file bash's `time` wrote with TIMEFORMAT below, or
# "0.0 0.0" if it wrote none (a program killed before it ended).
TIMEFORMAT='%R %U %S'
took() {
	local r u s
	if read -r r u s < <(tail -n 1 "$1" 2>/dev/null) && [ -n "${s:-}" ]; then
		awk -v r="$r" -v u="$u" -v s="$s" 'BEGIN { printf "%.1f %.1f\n", r, u + s }'
	else
		echo "0.0 0.0"
	fi
}

# What a program printed and how it ended, added to the totals. $1 name, $2 exit
# status, $3 its output, $4 the file with its times.
report() {
	local name=$1 rc=$2 log=$3 wall cpu line p f s took
	read -r wall cpu < <(took "$4")
	printf '%s %s %s\n' "$wall" "$cpu" "$name" >>"$logs/times"
	took="${wall}s, ${cpu}s cpu"
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	if [ -z "$line" ]; then
		printf 'FAIL %-28s exit %d, no summary line (%s)\n' "$name" "$rc" "$took"
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
		printf 'FAIL %-28s %s (exit %d, %s)\n' "$name" "$line" "$rc" "$took"
		grep -vE '^(ok|SKIP) ' "$log" | sed 's/^/    /' | tail -n 60
		broken+=("$name")
	else
		printf 'ok   %-28s %s (%s)\n' "$name" "$line" "$took"
		grep -E '^SKIP ' "$log" | sed 's/^/    /'
	fi
}

# Programs running now, by PID: name, output file, and the lane of a timing script.
declare -A job_name job_log job_lane
npool=0 seq=0 last=

# Start one program in the background. $1 name, then the command.
launch() {
	local name=$1 log
	shift
	seq=$((seq + 1))
	log="$logs/$seq"
	{ time timeout 600 "$@" >"$log" 2>&1 </dev/null; } 2>"$log.time" &
	job_name[$!]=$name job_log[$!]=$log
	last=$!
}

# The next script of lane $1 (the first word of lane_todo), if any.
lane_next() {
	local todo=${lane_todo[$1]} t
	[ -n "$todo" ] || return 0
	t=${todo%% *}
	lane_todo[$1]=${todo#"$t"}
	lane_todo[$1]=${lane_todo[$1]# }
	launch "$(basename "$t")" bash "$t"
	job_lane[$last]=$1
}

# Wait for one running program to end, report it, and start what its end lets run.
reap() {
	local pid rc lane
	wait -n -p pid
	rc=$?
	[ -n "${pid:-}" ] || return 1
	report "${job_name[$pid]}" "$rc" "${job_log[$pid]}" "${job_log[$pid]}.time"
	lane=${job_lane[$pid]:-}
	unset "job_name[$pid]" "job_log[$pid]" "job_lane[$pid]"
	if [ -n "$lane" ]; then
		lane_next "$lane"
	else
		npool=$((npool - 1))
	fi
}

# One program on its own, in the foreground.
run_alone() {
	local name=$1 rc
	shift
	{ time timeout 600 "$@" >"$logs/alone" 2>&1; } 2>"$logs/alone.time"
	rc=$?
	report "$name" "$rc" "$logs/alone" "$logs/alone.time"
}

[ -d "$BUILD/tests" ] || { echo "run.sh: no build in $BUILD (run make first)" >&2; exit 1; }

# The pool: "unit PATH", "corpus NAME" and "script PATH", in this order.
pool=()
for t in "$BUILD"/tests/test-*; do
	if [ -x "$t" ] && [ -f "$t" ]; then
		pool+=("unit $t")
	fi
done
for r in "$BUILD"/fuzz/*-replay; do
	[ -x "$r" ] || continue
	pool+=("corpus $(basename "$r" -replay)")
done
declare -A lane_todo
alone=()
if [ "$unit_only" -eq 0 ]; then
	for t in tests/test-*.sh; do
		[ -f "$t" ] || continue
		mark=$(sed -n 's/^# run\.sh: //p' "$t" | head -n 1)
		case "$mark" in
		parallel) pool+=("script $t") ;;
		"timing "[a-z]*)
			if [ "${TIMING_ALONE:-0}" = 1 ]; then
				alone+=("$t")
			else
				lane_todo[${mark#timing }]+="$t "
			fi
			;;
		*) alone+=("$t") ;;
		esac
	done
fi

for lane in "${!lane_todo[@]}"; do
	lane_next "$lane"
done
next=0
while :; do
	while [ "$npool" -lt "$jobs_max" ] && [ "$next" -lt ${#pool[@]} ]; do
		item=${pool[$next]}
		next=$((next + 1))
		case "$item" in
		"unit "*) launch "$(basename "${item#unit }")" "${item#unit }" ;;
		"corpus "*) launch "$item" "$BUILD/fuzz/${item#corpus }-replay" "fuzz/corpus/${item#corpus }" ;;
		*) launch "$(basename "${item#script }")" nice -n "$pool_nice" bash "${item#script }" ;;
		esac
		npool=$((npool + 1))
	done
	reap || break
done
for t in "${alone[@]}"; do
	run_alone "$(basename "$t")" bash "$t"
done

sort -rn -o "$logs/times" "$logs/times"
[ -z "${TIMES:-}" ] || cp "$logs/times" "$TIMES"
total=$SECONDS
if [ "$slowest" -gt 0 ] && [ -s "$logs/times" ]; then
	echo
	awk -v total="$total" '{ cpu += $2 }
		END { printf "%d s wall, %.0f s cpu in all; the slowest:\n", total, cpu }' "$logs/times"
	head -n "$slowest" "$logs/times" |
		awk '{ w = $1; c = $2; $1 = $2 = ""; sub(/^ +/, "")
			printf "  %6.1f s wall %6.1f s cpu  %s\n", w, c, $0 }'
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
