#!/usr/bin/env bash
# test-manpages.sh - the man pages (man/*.scd) against the program: every command in
# `debloat --help` has a page and a line in debloat(1); each page's SYNOPSIS is the
# usage of `debloat CMD --help`, word for word (scdoc's *bold* and _underline_ marks
# removed, white space and line breaks aside); every option of `debloat CMD --help`
# is in its page's OPTIONS; every page is in man/meson.build. Reads the scdoc
# sources, so it needs no scdoc (tests/test-install.sh renders them).
# run.sh: parallel
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_debloat

man=$TOP/man

# The usages of a --help text: "Usage: X" and each following line that starts with
# "debloat " after its indent begin one; other indented lines continue the last.
help_usages() {
	awk '
		/^Usage: / { if (u != "") print u; u = substr($0, 8); on = 1; next }
		on && /^[ \t]+debloat / { print u; sub(/^[ \t]+/, ""); u = $0; next }
		on && /^[ \t]+[^ \t]/ { sub(/^[ \t]+/, ""); u = u " " $0; next }
		on { print u; u = ""; on = 0 }
		END { if (u != "") print u }
	' | tr -s ' '
}

# The SYNOPSIS paragraphs of an scdoc page, one line each, marks removed.
page_synopsis() {
	awk '
		/^# / { on = ($0 == "# SYNOPSIS"); if (p != "") print p; p = ""; next }
		on && /^$/ { if (p != "") print p; p = ""; next }
		on { p = (p == "" ? $0 : p " " $0) }
		END { if (p != "") print p }
	' "$1" | sed -E 's/\\//g; s/[*]//g; s/(^|[^[:alnum:]])_|_([^[:alnum:]]|$)/\1\2/g; s/(^|[^[:alnum:]])_|_([^[:alnum:]]|$)/\1\2/g' |
		sed -E 's/\+\+$//' | tr -s ' '
}

# The long options (and short ones standing alone, like -4) of an option list.
help_options() {
	sed -nE 's/^ +(-[a-zA-Z0-9], )?(--[a-z][a-z-]*)( .*|$)/\2/p; s/^ +(-[a-zA-Z0-9]), (-[a-zA-Z0-9])( .*|$)/\1\n\2/p'
}

mapfile -t commands < <("$DEBLOAT" --help | sed -nE '/^Commands:/,/^$/s/^  ([a-z][a-z-]*) .*/\1/p' |
	grep -vx help)
[ "${#commands[@]}" -gt 0 ] || fail "no commands in debloat --help"

# The top level.
run "$DEBLOAT" --help
assert_eq "debloat(1) synopsis is debloat --help's usage" "$(help_usages <<<"$OUT")" \
	"$(page_synopsis "$man/debloat.1.scd")"
assert_contains "debloat(1) documents --version" "$(cat "$man/debloat.1.scd")" "*--version*"

for c in "${commands[@]}"; do
	page=$man/debloat-$c.1.scd
	if [ ! -f "$page" ]; then
		fail "$c: no man page man/debloat-$c.1.scd"
		continue
	fi
	text=$(cat "$page")
	assert_contains "$c: debloat(1) lists it" "$(cat "$man/debloat.1.scd")" "*debloat-$c*(1)"
	assert_contains "$c: its page is named for it" "$(head -n 1 "$page")" "debloat-$c(1)"
	run "$DEBLOAT" "$c" --help
	assert_status "$c: --help exits 0" 0
	assert_eq "$c: synopsis is --help's usage" "$(help_usages <<<"$OUT")" "$(page_synopsis "$page")"
	while read -r opt; do
		[ -n "$opt" ] || continue
		assert_contains "$c: page documents $opt" "$text" "*$opt*"
	done < <(help_options <<<"$OUT")
done

for page in "$man"/*.scd; do
	name=$(basename "$page" .scd)
	assert_contains "$name is built (man/meson.build)" "$(cat "$man/meson.build")" "'$name'"
	# scdoc joins consecutive indented lines into one paragraph: each example needs a
	# blank line after it to render as a line of its own.
	joined=$(awk '/^# /{on=($0=="# EXAMPLES"); prev=""; next}
		on && /^\t/ && prev ~ /^\t/ {print NR": "$0} {prev=$0}' "$page")
	if [ -z "$joined" ]; then pass "$name: each example is a line of its own"; else fail "$name: examples that scdoc joins into one line: $joined"; fi
	# flent opens only files named *.flent.gz.
	bad=$(grep -nE -- '--flent [^ ]+' "$page" | grep -vE -- '--flent ([^ ]+\.flent\.gz|_[A-Z]+_|\*?FILE)' || true)
	if [ -z "$bad" ]; then pass "$name: --flent examples end in .flent.gz"; else fail "$name: a --flent file without .flent.gz: $bad"; fi
done

finish
