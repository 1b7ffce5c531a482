#!/usr/bin/env bash
# test-install.sh - `make install` into a scratch DESTDIR, then what it installed:
#
#   make install DESTDIR=$d PREFIX=/usr/local
#     $d/usr/local/bin/debloat                                  runs
#     $d/usr/local/share/man/man1/debloat*.1                    render, no warnings
#     $d/usr/local/share/bash-completion/completions/debloat    sources, completes
#     $d/usr/local/lib/systemd/system/debloat-server.service    systemd-analyze verify
#   make uninstall                                              leaves no file behind
#
# Uses $BUILD (reconfigured with -Dman=enabled, prefix /usr/local). Needs scdoc and
# man (install-deps.sh test installs both); systemd-analyze is used where present.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_debloat
require_cmd scdoc man make meson ninja

d=$(mktemp -d)
scratch=$(mktemp -d)
trap 'rm -rf "$d" "$scratch"; cleanup' EXIT
prefix=/usr/local
root=$d$prefix

run make -C "$TOP" --no-print-directory install BUILD="$BUILD" DESTDIR="$d" PREFIX="$prefix"
assert_status "make install DESTDIR=... exits 0" 0

# The binary.
if [ -x "$root/bin/debloat" ]; then
	run "$root/bin/debloat" --version
	assert_eq "bin/debloat runs" "$("$DEBLOAT" --version)" "$OUT"
else
	fail "no $root/bin/debloat"
fi

# The man pages: one per scdoc source, each rendered by man without a warning.
for src in "$TOP"/man/*.scd; do
	name=$(basename "$src" .scd)
	page=$root/share/man/man${name##*.}/$name
	if [ ! -f "$page" ]; then
		fail "man page $name not installed"
		continue
	fi
	warnings=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
	assert_eq "man -l $name renders without warnings" "" "$warnings"
	text=$(MANWIDTH=80 man -l "$page" 2>/dev/null)
	assert_contains "man -l $name has a NAME" "$text" "NAME"
	assert_contains "man -l $name has a SYNOPSIS" "$text" "SYNOPSIS"
done

# The systemd units: ExecStart names this prefix's binary; systemd-analyze verify
# accepts them. verify wants ExecStart's binary to exist: a copy of each unit
# points it at the one in DESTDIR. Warnings about the host's other units are not ours.
for unit in "$TOP"/systemd/*.service; do
	name=$(basename "$unit")
	installed=$root/lib/systemd/system/$name
	if [ ! -f "$installed" ]; then
		fail "unit $name not installed"
		continue
	fi
	assert_contains "$name: ExecStart is $prefix/bin/debloat" "$(cat "$installed")" \
		"ExecStart=$prefix/bin/debloat "
	if command -v systemd-analyze >/dev/null; then
		sed "s|^ExecStart=$prefix/bin/debloat|ExecStart=$root/bin/debloat|" "$installed" \
			>"$scratch/$name"
		run systemd-analyze verify "$scratch/$name"
		ours=$(grep -F "$name" <<<"$OUT$ERR" || true)
		if [ "$RC" -eq 0 ] && [ -z "$ours" ]; then
			pass "systemd-analyze verify $name"
		else
			fail "systemd-analyze verify $name: exit $RC: $ours"
		fi
	else
		echo "SKIP systemd-analyze verify $name (no systemd-analyze here)"
	fi
done

# The bash completion: it sources, registers for debloat, and completes commands,
# options and interfaces from the installed binary.
comp=$root/share/bash-completion/completions/debloat
if [ -f "$comp" ]; then
	complete_words() {
		PATH="$root/bin:$PATH" bash -c '
			. "$1"; shift
			COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
			_debloat; printf "%s\n" "${COMPREPLY[@]}"' _ "$comp" "$@" 2>&1
	}
	run bash -c ". '$comp' && complete -p debloat"
	assert_eq "completion registers for debloat" "complete -F _debloat debloat" "$OUT"
	got=$(complete_words debloat "" | tr '\n' ' ')
	for c in $("$DEBLOAT" --help | sed -nE '/^Commands:/,/^$/s/^  ([a-z][a-z-]*) .*/\1/p'); do
		assert_contains "completes command $c" " $got" " $c "
	done
	assert_eq "completes 'au' to audit" "audit" "$(complete_words debloat au)"
	assert_contains "completes audit's options" "$(complete_words debloat audit --)" "--from"
	assert_contains "completes interface names" "$(complete_words debloat audit "")" "lo"
	assert_contains "completes bql's interface after -i MS" \
		"$(complete_words debloat bql -i 100 "")" "lo"
	assert_contains "completes test names" "$(complete_words debloat test "")" "rrul_be"
	assert_contains "completes server options" "$(complete_words debloat server --m)" \
		"--max-clients"
	assert_eq "completes fix --emit's formats" "networkd udev nm" \
		"$(complete_words debloat fix --emit "" | tr '\n' ' ' | sed 's/ $//')"
else
	fail "bash completion not installed"
fi

run make -C "$TOP" --no-print-directory uninstall BUILD="$BUILD"
assert_status "make uninstall exits 0" 0
assert_eq "make uninstall leaves no file" "" "$(find "$d" -type f)"

finish
