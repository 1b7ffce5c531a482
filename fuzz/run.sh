#!/usr/bin/env bash
# run.sh - run every libFuzzer harness of a clang build for SECONDS each.
#   fuzz/run.sh BUILD_DIR [SECONDS]
# New interesting inputs land in $BUILD/fuzz/new-NAME (not in the committed corpus);
# copy the ones worth keeping into fuzz/corpus/NAME. Crashes leave crash-* files in
# $BUILD/fuzz and make this script fail.
set -euo pipefail
BUILD=${1:?usage: fuzz/run.sh BUILD_DIR [SECONDS]}
SECONDS_EACH=${2:-60}
top=$(cd "$(dirname "$0")/.." && pwd)
status=0
for f in "$BUILD"/fuzz/fuzz-*; do
	{ [ -f "$f" ] && [ -x "$f" ]; } || continue # skip meson's fuzz-NAME.p directories
	name=$(basename "$f")
	name=${name#fuzz-}
	new="$BUILD/fuzz/new-$name"
	mkdir -p "$new"
	echo "fuzz: $name for ${SECONDS_EACH}s" >&2
	if ! (cd "$BUILD/fuzz" && "./fuzz-$name" -max_total_time="$SECONDS_EACH" -max_len=8192 \
		-print_final_stats=1 "new-$name" "$top/fuzz/corpus/$name" >"fuzz-$name.log" 2>&1); then
		echo "fuzz: $name FAILED, see $BUILD/fuzz/fuzz-$name.log" >&2
		tail -n 30 "$BUILD/fuzz/fuzz-$name.log" >&2
		status=1
	else
		grep -E 'stat::number_of_executed_units|Done' "$BUILD/fuzz/fuzz-$name.log" | head -n 2 >&2
	fi
done
exit $status
