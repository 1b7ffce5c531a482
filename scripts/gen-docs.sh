#!/usr/bin/env bash
# gen-docs.sh - regenerate the command outputs quoted in docs/ and README.md, so that
# they cannot go stale.
#
#   scripts/gen-docs.sh [--check] [--top DIR] [--build DIR]
#
# A quoted output is the fenced block right after a line
#
#   <!-- output of: COMMAND -->
#
# COMMAND runs with bash in the top directory, `debloat` meaning the build's program
# ($DEBLOAT, else BUILD/debloat), on deterministic inputs only: boards/*.json,
# tests/fixtures/, --help. Its standard output becomes the block's body. With --check
# nothing is written: each block that differs is named with a diff, and the exit
# status is 1 (tests/test-docs-output.sh).
#
# Measured figures (a lab run, a test against a server) differ from run to run and
# are not compared byte for byte. They follow a line
#
#   <!-- figure: COMMAND (measured YYYY-MM-DD) -->
#
# naming the command that made them and the day it ran; --check fails on such a
# line without both (tests/test-docs.sh checks that a table follows). To refresh
# one, run COMMAND (root, minutes), paste its output under the marker and date it.
set -euo pipefail

check=0
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
while [ $# -gt 0 ]; do
	case $1 in
	--check) check=1 ;;
	--top)
		top=$(cd "$2" && pwd)
		shift
		;;
	--build)
		build=$2
		shift
		;;
	-h | --help)
		sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "gen-docs.sh: unknown option: $1" >&2
		exit 2
		;;
	esac
	shift
done
case $build in /*) ;; *) build=$(cd "$(dirname "$0")/.." && pwd)/$build ;; esac
DEBLOAT=${DEBLOAT:-$build/debloat}
if [ ! -x "$DEBLOAT" ]; then
	echo "gen-docs.sh: no program at $DEBLOAT (run make first)" >&2
	exit 1
fi
export DEBLOAT

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The output of one marker's command, as the doc should quote it.
run_command() { # COMMAND OUTFILE
	(
		cd "$top"
		# shellcheck disable=SC2317 # called by the command, through export -f
		debloat() { "$DEBLOAT" "$@"; }
		export -f debloat
		COLUMNS=80 LC_ALL=C.UTF-8 TZ=UTC bash -c "$1" </dev/null >"$2" 2>"$tmp/stderr"
	) || {
		echo "gen-docs.sh: the command failed: $1" >&2
		sed 's/^/    /' "$tmp/stderr" >&2
		return 1
	}
}

stale=0 blocks=0 measured=0
# One document: rewrite it (or, with --check, compare it) block by block.
do_file() { # FILE
	local f=$1 rel=${1#"$top"/} out=$tmp/doc line cmd n=0 body fence
	local measured_re='^<!-- figure: (.+) \(measured [0-9]{4}-[0-9]{2}-[0-9]{2}\) -->$'
	: >"$out"
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		printf '%s\n' "$line" >>"$out"
		if [[ $line == '<!-- figure:'* ]]; then
			if [[ ! $line =~ $measured_re ]]; then
				echo "$rel:$n: a measured figure must name its command and date:" \
					"<!-- figure: COMMAND (measured YYYY-MM-DD) -->" >&2
				stale=$((stale + 1))
			fi
			measured=$((measured + 1))
			continue
		fi
		[[ $line =~ ^'<!-- output of: '(.+)' -->'$ ]] || continue
		cmd=${BASH_REMATCH[1]}
		blocks=$((blocks + 1))
		IFS= read -r fence || fence=
		n=$((n + 1))
		if [[ ! $fence =~ ^\`\`\` ]]; then
			echo "$rel:$n: no fenced block after the marker of: $cmd" >&2
			stale=$((stale + 1))
			printf '%s\n' "$fence" >>"$out"
			continue
		fi
		printf '%s\n' "$fence" >>"$out"
		body=$tmp/body
		: >"$body"
		while IFS= read -r line; do
			n=$((n + 1))
			[ "$line" = '```' ] && break
			printf '%s\n' "$line" >>"$body"
		done
		run_command "$cmd" "$tmp/new" || {
			stale=$((stale + 1))
			cp "$body" "$tmp/new"
		}
		if ! cmp -s "$body" "$tmp/new"; then
			if [ "$check" = 1 ]; then
				echo "$rel: the output of \`$cmd\` is not what the doc quotes:" >&2
				diff -u --label "$rel (quoted)" --label "$cmd" "$body" "$tmp/new" |
					sed 's/^/    /' >&2 || true
				stale=$((stale + 1))
			fi
		fi
		cat "$tmp/new" >>"$out"
		printf '```\n' >>"$out"
	done <"$f"
	if [ "$check" = 0 ] && ! cmp -s "$f" "$out"; then
		cat "$out" >"$f"
		echo "gen-docs.sh: rewrote $rel"
	fi
}

shopt -s nullglob globstar
for f in "$top"/README.md "$top"/docs/**/*.md; do
	grep -q '^<!-- \(output of\|figure\):' "$f" || continue
	do_file "$f"
done
echo "gen-docs.sh: $blocks quoted outputs, $measured measured figures, $stale stale"
[ "$stale" -eq 0 ]
