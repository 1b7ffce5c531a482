#!/usr/bin/env bash
# run.sh - every benchmark of a build: tables for people, or with --json one
# {"results": [{"name", "value", "unit"}, ...]} document for scripts (the results of
# all benchmarks merged, in order).
#   bench/run.sh [BUILD_DIR] [--json]
# A script benchmark that cannot run here (bench-audit without root) exits 77: it is
# left out, and says so on stderr.
set -euo pipefail
BUILD=build
json=
for a in "$@"; do
	case "$a" in
	--json) json=--json ;;
	-h | --help)
		echo "usage: bench/run.sh [BUILD_DIR] [--json]"
		exit 0
		;;
	*) BUILD=$a ;;
	esac
done
here=$(dirname "$0")
[ -x "$BUILD/bench/bench-model" ] || { echo "bench/run.sh: build first (make)" >&2; exit 1; }

# The script benchmarks, each called as SCRIPT BUILD_DIR [--json].
scripts=(bench-audit.sh bench-exporter.sh bench-latency-irtt.sh bench-tcp-cpu.sh bench-lab.sh bench-lab-rrul.sh
	bench-server-scale.sh bench-rpm-anchor.sh)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$BUILD/bench/bench-model" $json >"$tmp/0.out"
[ -n "$json" ] || cat "$tmp/0.out"
for i in "${!scripts[@]}"; do
	out="$tmp/$((i + 1)).out"
	rc=0
	# shellcheck disable=SC2086 # $json is empty or one word
	"$here/${scripts[$i]}" "$BUILD" $json >"$out" || rc=$?
	[ "$rc" -eq 0 ] || [ "$rc" -eq 77 ] || exit "$rc"
	[ "$rc" -eq 0 ] || : >"$out" # skipped: nothing to show or merge
	[ -n "$json" ] || { echo; cat "$out"; }
done
[ -n "$json" ] || exit 0

# One document: every result object of every benchmark, in order.
if command -v jq >/dev/null 2>&1; then
	jq -s '{results: (map(.results) | add // [])}' "$tmp"/*.out
else
	# Our benchmarks print one result object a line.
	grep -hoE '\{"name": [^}]*\}' "$tmp"/*.out |
		awk 'BEGIN { printf "{\"results\": [" }
			{ printf "%s\n  %s", (NR > 1 ? "," : ""), $0 }
			END { printf "\n]}\n" }'
fi
