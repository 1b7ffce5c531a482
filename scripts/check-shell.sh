#!/usr/bin/env bash
# check-shell.sh - shellcheck every shell script git tracks: *.sh, *.bash, and any file
# whose first line runs sh, bash or dash (.ci/run, the ifupdown hook, the nmcli
# scripts fix --emit writes, as their goldens in tests/fixtures show them). Sourced
# files are followed (-x) from the top of the tree, where the scripts' "shellcheck
# source=" directives point. A finding that is meant stays, with a
# "# shellcheck disable=SCnnnn # why" beside it. Exit 1 when shellcheck finds anything.
#
#   scripts/check-shell.sh [FILE...]     (default: every tracked shell script)
set -euo pipefail
cd "$(dirname "$0")/.."

command -v shellcheck >/dev/null || {
	echo "check-shell: needs shellcheck (apt-get install shellcheck)" >&2
	exit 1
}

files=()
if [ $# -gt 0 ]; then
	files=("$@")
else
	while IFS= read -r -d '' f; do
		case $f in
		*.sh | *.bash) files+=("$f") ;;
		*)
			[ -f "$f" ] || continue
			IFS= read -r first <"$f" || true
			case $first in
			'#!'*/sh | '#!'*/bash | '#!'*/dash | '#!'*'env bash' | '#!'*'env sh') files+=("$f") ;;
			esac
			;;
		esac
	done < <(git ls-files -z)
fi
[ ${#files[@]} -gt 0 ] || { echo "check-shell: no shell scripts found" >&2; exit 1; }
if shellcheck -x -f gcc "${files[@]}"; then
	echo "check-shell: ${#files[@]} scripts clean"
else
	echo "check-shell: shellcheck found the above in ${#files[@]} scripts" >&2
	exit 1
fi
