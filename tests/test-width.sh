#!/usr/bin/env bash
# test-width.sh - the text people read fits 80 columns: every command's text output
# that runs without root, on the repository's own inputs (the boards' snapshots, the
# recorded runs, the built-in profiles), and the --help of every command. --json is
# exempt (one document, whole). Each output longer than 80 columns fails, quoting
# its longest line.
# run.sh: parallel
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_debloat

WIDTH=80
runs=$TOP/tests/fixtures/runs
results=$TOP/tests/fixtures/result-print

widest() { awk '{ if (length($0) > m) { m = length($0); l = $0 } } END { print m + 0 "\t" l }'; }

check() { # WHAT, then the output on stdin
	local w line
	IFS=$'\t' read -r w line < <(widest)
	if [ "$w" -le "$WIDTH" ]; then
		pass "$1: $w columns"
	else
		fail "$1: $w columns: $line"
	fi
}

check_cmd() { # COMMAND...: its standard output and standard error together
	local out
	out=$("$DEBLOAT" "$@" 2>&1) || fail "debloat $* exits $?"
	check "debloat $*" <<<"$out"
}

for b in "$TOP"/boards/*.json; do
	rel=${b#"$TOP"/}
	check_cmd audit --from "$rel"
	check_cmd fix --dry-run --from "$rel"
done
check_cmd audit --from tests/fixtures/snapshots/htb-fifo-modem.json
# `debloat test` prints what these goldens hold (tests/test-result-print.c)
for f in "$results"/*.txt; do
	check "debloat test's text, as ${f#"$TOP"/}" <"$f"
done
check_cmd compare "$runs/bloated.json"
check_cmd compare "$runs/bloated.json" "$runs/fixed.json"
check_cmd compare "$runs/fixed.flent.gz" "$runs/lab-bbb-bql.json"
check_cmd compare "$runs/bloated.json" "$runs/fixed.json" "$runs/lab-bbb-bql.json"
check_cmd compare "$runs/bloated.json" "$runs/fixed.json" "$runs/lab-bbb-bql.json" \
	"$runs/rpm-sequential.json"
check_cmd lab profiles
check_cmd lab boards
# `lab show` prints a profile file that --profile reads back: long values folded onto
# indented lines, the notes as wrapped comments. Every built-in profile, and every
# board as its snapshot reads and with fix's plan applied. `lab seed`'s table of four
# runs is pinned at 80 columns by tests/test-lab-table.c.
profiles=$("$DEBLOAT" lab profiles | awk '/^[a-z0-9]/ { print $1 }')
assert_true "lab profiles lists the built-in profiles" test -n "$profiles"
for p in $profiles; do
	check_cmd lab show --profile "$p"
done
for b in "$TOP"/boards/*.json; do
	rel=${b#"$TOP"/}
	check_cmd lab show --snapshot "$rel"
	check_cmd lab show --snapshot "$rel" --fixed
done

# --help of every command the top-level help lists, and of the bare program
check_cmd --help
cmds=$("$DEBLOAT" help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
assert_true "help lists the commands" test -n "$cmds"
for c in $cmds; do
	[ "$c" = help ] || check_cmd "$c" --help
done
check_cmd test rpm --help
for sub in profiles boards show compare seed; do
	check_cmd lab "$sub" --help
done

# The check itself: a line of 81 columns is seen as 81.
assert_eq "the check measures a line of 81 columns as 81" 81 \
	"$(printf '%081d\n' 0 | widest | cut -f1)"
finish
