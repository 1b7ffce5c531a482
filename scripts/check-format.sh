#!/usr/bin/env bash
# check-format.sh - every C file git tracks (*.c, *.h) against the tree's .clang-format,
# changing nothing (clang-format --dry-run -Werror): exit 1 and the differences when
# a file is not formatted. To format a file: clang-format -i FILE.
#
#   scripts/check-format.sh [FILE...]     (default: every tracked C file)
set -euo pipefail
cd "$(dirname "$0")/.."

command -v clang-format >/dev/null || {
	echo "check-format: needs clang-format (apt-get install clang-format)" >&2
	exit 1
}

files=()
if [ $# -gt 0 ]; then
	files=("$@")
else
	while IFS= read -r -d '' f; do
		files+=("$f")
	done < <(git ls-files -z -- '*.c' '*.h')
fi
[ ${#files[@]} -gt 0 ] || { echo "check-format: no C files found" >&2; exit 1; }
# One clang-format for all of them: its complaints name file:line:col.
out=$(clang-format --dry-run -Werror --style=file "${files[@]}" 2>&1) && rc=0 || rc=$?
bad=$(grep -oE '^[^:]+:[0-9]+:[0-9]+: error' <<<"$out" | cut -d: -f1 | sort -u || true)
if [ "$rc" -ne 0 ]; then
	if [ -n "$bad" ]; then
		while IFS= read -r f; do echo "check-format: not formatted (clang-format -i): $f"; done <<<"$bad"
		echo "check-format: $(wc -l <<<"$bad") of ${#files[@]} C files are not formatted" >&2
	else
		echo "$out" >&2
		echo "check-format: clang-format failed (exit $rc)" >&2
	fi
	exit 1
fi
echo "check-format: ${#files[@]} C files formatted"
