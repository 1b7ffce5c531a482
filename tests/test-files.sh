#!/usr/bin/env bash
# test-files.sh - what commands do with the files they are given, as a new user gives them:
#
#	-o onto a FIFO, a symlink, a character device (made here with mknod)
#	                              -> written in place, each still what it was
#	-o -                          -> standard output, no file named "-"
#	a pipe as input (/dev/stdin, <(...), -)
#	                              -> read like a file (no rewind on a pipe)
#	a 17 kB .flent.gz of 6 million "{}", an 8 MiB snapshot of "{}"
#	                              -> refused, saying why, in bounded memory (ulimit -v)
#	a snapshot naming an interface "$(id>x)" (or "a/b", or 16 characters)
#	                              -> refused, never printed in a command to run
#	undo with nothing to undo     -> creates no state directory, no lock file
#	a gzipped snapshot, a snapshot on a pipe
#	                              -> audited as the plain file is
# One writer serves every command that writes a file (src/base/outfile.c): plot and compare
# (SVG), snapshot (JSON); test's -o and --flent use the same one.
# run.sh: parallel
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

require_debloat
require_cmd jq

runs="$TOP/tests/fixtures/runs"
dir=$(mktemp -d)
trap 'rm -rf "$dir"; cleanup' EXIT

# "$@" writes its output to -o TARGET; check TARGET is still what `stat -c %F` said.
targets() {
	local what=$1
	shift
	# A FIFO, with a reader, so that the writer can open it.
	rm -f "$dir/fifo" "$dir/fifo.out"
	mkfifo "$dir/fifo"
	timeout 20 cat "$dir/fifo" >"$dir/fifo.out" &
	local reader=$!
	run timeout 20 "$@" -o "$dir/fifo"
	wait "$reader" || true
	assert_status "$what -o FIFO" 0
	assert_eq "$what -o FIFO leaves a FIFO" fifo "$(stat -c %F "$dir/fifo")"
	if [ -s "$dir/fifo.out" ]; then pass "$what -o FIFO: the reader got the output"; else fail "$what -o FIFO: the reader got nothing"; fi

	# A symlink to a file: the link stays, its target gets the output.
	rm -f "$dir/link" "$dir/target"
	echo old >"$dir/target"
	ln -s target "$dir/link"
	run "$@" -o "$dir/link"
	assert_status "$what -o symlink" 0
	assert_eq "$what -o symlink leaves a symlink" "symbolic link" "$(stat -c %F "$dir/link")"
	if [ "$(cat "$dir/target")" != old ] && [ -s "$dir/target" ]; then pass "$what -o symlink: its target has the output"; else fail "$what -o symlink: its target was not written"; fi

	# A device node: /dev/null's numbers, in our own directory.
	rm -f "$dir/null"
	if mknod "$dir/null" c 1 3 2>/dev/null; then
		run "$@" -o "$dir/null"
		assert_status "$what -o device" 0
		assert_eq "$what -o device leaves a character device" "character special file" "$(stat -c %F "$dir/null")"
	else
		echo "note: cannot mknod here (not root?): device node not tried"
	fi

	# -o - is standard output.
	(cd "$dir" && run "$@" -o - && printf '%s' "$OUT" >"$dir/stdout.out"; echo "$RC" >"$dir/stdout.rc")
	assert_eq "$what -o - exits 0" 0 "$(cat "$dir/stdout.rc")"
	if [ -s "$dir/stdout.out" ]; then pass "$what -o - writes to standard output"; else fail "$what -o - wrote nothing to standard output"; fi
	if [ -e "$dir/-" ]; then fail "$what -o - made a file named -"; rm -f "$dir/-"; else pass "$what -o - makes no file named -"; fi
}

targets plot "$DEBLOAT" plot "$runs/bloated.json"
targets compare "$DEBLOAT" compare "$runs/bloated.json" "$runs/fixed.json"
targets snapshot "$DEBLOAT" snapshot lo

# Inputs from pipes.
run bash -c "cat '$runs/bloated.json' | '$DEBLOAT' compare --json /dev/stdin '$runs/fixed.json'"
assert_status "compare reads /dev/stdin from a pipe" 0
run bash -c "cat '$runs/bloated.json' | '$DEBLOAT' compare --json - '$runs/fixed.json'"
assert_status "compare reads - from a pipe" 0
run bash -c "'$DEBLOAT' plot <(cat '$runs/bloated.json') -o '$dir/p.svg'"
assert_status "plot reads <(cat r.json)" 0
run bash -c "cat '$runs/bloated.flent.gz' | '$DEBLOAT' plot - -o '$dir/g.svg'"
assert_status "plot reads a gzipped flent file from a pipe" 0

# Snapshots gzipped and piped: the same audit as the plain file.
bbb="$TOP/boards/beaglebone-black.json"
"$DEBLOAT" audit --json --from "$bbb" | jq -S 'del(.snapshot.file)' >"$dir/plain.audit" || true
gzip -c "$bbb" >"$dir/bbb.json.gz"
run "$DEBLOAT" audit --json --from "$dir/bbb.json.gz"
assert_status "audit --from a gzipped snapshot" 0
assert_eq "a gzipped snapshot audits as the plain one" "$(cat "$dir/plain.audit")" "$(jq -S 'del(.snapshot.file)' <<<"$OUT" 2>/dev/null)"
run bash -c "gzip -c '$bbb' | '$DEBLOAT' audit --json --from -"
assert_status "audit --from - reads a gzipped snapshot from a pipe" 0
assert_eq "a piped snapshot audits as the plain one" "$(cat "$dir/plain.audit")" "$(jq -S 'del(.snapshot.file)' <<<"$OUT" 2>/dev/null)"

# undo with nothing to undo leaves the machine's state directory as it was (absent).
if [ "$(id -u)" = 0 ]; then
	run "$DEBLOAT" undo --state-dir "$dir/state"
	assert_status "undo with nothing to undo" 0
	if [ -e "$dir/state" ]; then fail "undo with nothing to undo created $(find "$dir/state" | tr '\n' ' ')"; else pass "undo with nothing to undo creates no state directory or lock"; fi
else
	echo "note: not root: undo not tried"
fi

# Interface names from a file go into commands a user runs as root.
# shellcheck disable=SC2016 # the names are literal: a $(...) must stay unexpanded
for name in '$(id>x)' 'a/b' 'eth0;reboot' 'abcdefghijklmnop' '..'; do
	jq --arg n "$name" '.interfaces[0].name = $n' "$TOP/boards/beaglebone-black.json" >"$dir/evil.json"
	run "$DEBLOAT" audit --from "$dir/evil.json"
	assert_status "audit --from refuses the interface name '$name'" 1
	assert_contains "the refusal of '$name' says why" "$ERR" "interfaces[0]"
	if [[ "$OUT" == *"$name"* ]]; then fail "'$name' was printed"; else pass "'$name' is not printed"; fi
done
jq '.interfaces[0].name = "v.1@x_y-z+1"' "$TOP/boards/beaglebone-black.json" >"$dir/ok.json"
run "$DEBLOAT" audit --from "$dir/ok.json"
assert_contains "a name with . @ _ - + is read" "$OUT" "v.1@x_y-z+1"

# JSON that is small on disk but huge once parsed, under a memory limit that parsing
# it would break (json-c takes about 780 bytes per "{}"). ASan cannot run under
# ulimit -v: the plain build only.
if ldd "$DEBLOAT" 2>/dev/null | grep -q libasan; then
	echo "note: sanitizer build: the memory-bound checks need the plain build"
else
	{ printf '{"x":['; (yes '{},' || true) | head -n 6000000 | tr -d '\n'; printf '{}]}'; } | gzip -9 >"$dir/bomb.flent.gz"
	run bash -c "ulimit -v 600000; '$DEBLOAT' plot '$dir/bomb.flent.gz' -o '$dir/b.svg'"
	assert_status "a gzip bomb of {} is refused" 1
	assert_contains "the gzip bomb's refusal says why" "$ERR" "too many values"
	{ printf '{"interfaces":['; (yes '{},' || true) | head -n 2796000 | tr -d '\n'; printf '{}]}'; } >"$dir/snap.json"
	run bash -c "ulimit -v 600000; '$DEBLOAT' audit --from '$dir/snap.json'"
	assert_status "an 8 MiB snapshot of {} is refused" 1
	assert_contains "the snapshot's refusal says why" "$ERR" "too many values"
fi

finish
