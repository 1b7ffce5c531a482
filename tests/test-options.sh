#!/usr/bin/env bash
# test-options.sh - every short option of every command's --help is in docs/options.md,
# with the same long option and the command named in its row: the letters that differ
# between commands are documented, in one table.
# run.sh: parallel
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_debloat

table=$TOP/docs/options.md
cmds=(audit bql server snapshot rrul test "test rpm" plot compare fix undo prove lab "lab compare" "lab seed" exporter)
for c in "${cmds[@]}"; do
	# shellcheck disable=SC2086 # "lab compare" and "test rpm" are two words
	help=$("$DEBLOAT" $c --help) || { fail "$c --help fails"; continue; }
	while read -r letter long; do
		[ -n "$letter" ] || continue
		row=$(grep -F "| \`$letter\` | \`$long\` |" "$table" || true)
		if [ -z "$row" ]; then
			fail "$c: $letter, $long is not in docs/options.md"
		elif ! grep -qE "(^|[|,] )$c(,| \\|)|every command" <<<"$(cut -d'|' -f4 <<<"$row" | sed 's/^ */| /; s/ *$/ |/')"; then
			fail "$c: the row of $letter, $long does not name $c"
		else
			pass "$c: $letter, $long"
		fi
	done < <(sed -nE 's/^ +(-[a-zA-Z0-9]), (--[a-z][a-z-]*).*/\1 \2/p' <<<"$help")
done

finish
