#!/usr/bin/env bash
# test-cli.sh - the command line: help generated from the subcommand table, --version,
# usage errors (exit 2, the bad word quoted), every command's --help, and bare
# `debloat` running the read-only audit. Needs no root and changes nothing.
# run.sh: parallel
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
TMPDIR_CLI_ERR=$(mktemp)
trap 'rm -f "$TMPDIR_CLI_ERR"; cleanup' EXIT
require_debloat

# The table in src/debloat.c is the source of truth: { "audit", cmd_audit, "..." },
mapfile -t commands < <(grep -oE '^[[:space:]]*\{ *"[a-z-]+", *cmd_' "$TOP/src/debloat.c" |
	sed -E 's/.*"([a-z-]+)".*/\1/')
[ "${#commands[@]}" -gt 0 ] || fail "no commands found in src/debloat.c's table"

run "$DEBLOAT" --help
assert_status "--help exits 0" 0
for c in "${commands[@]}"; do
	assert_contains "--help lists $c" "$OUT" "  $c "
done
run "$DEBLOAT" help
assert_status "help exits 0" 0
for c in "${commands[@]}"; do
	assert_contains "help lists $c" "$OUT" "  $c "
done

version=$(sed -nE "s/^[[:space:]]*version[[:space:]]*:[[:space:]]*'([^']+)'.*/\1/p" \
	"$TOP/meson.build" | head -n 1)
run "$DEBLOAT" --version
assert_status "--version exits 0" 0
assert_eq "--version prints the project version" "debloat $version" "$OUT"

run "$DEBLOAT" nosuch
assert_status "unknown command exits 2" 2
assert_contains "unknown command is named, quoted" "$ERR" '"nosuch"'
assert_eq "unknown command: one line and where the help is" "debloat: unknown command \"nosuch\"
see 'debloat --help'" "$ERR"
assert_eq "unknown command prints nothing on stdout" "" "$OUT"

run "$DEBLOAT" --nosuch
assert_status "unknown top-level option exits 2" 2
assert_contains "unknown top-level option is quoted" "$ERR" '"--nosuch"'

run "$DEBLOAT" help nosuch
assert_status "help for an unknown command exits 2" 2
assert_contains "help for an unknown command names it" "$ERR" '"nosuch"'

run "$DEBLOAT" audit --nosuch
assert_status "audit --nosuch exits 2" 2
assert_contains "audit --nosuch is quoted" "$ERR" 'debloat: audit: unknown option "--nosuch"'
assert_eq "audit --nosuch: one line and where the help is" "debloat: audit: unknown option \"--nosuch\"
see 'debloat audit --help'" "$ERR"
assert_eq "audit --nosuch prints nothing on stdout" "" "$OUT"

run "$DEBLOAT" audit -x
assert_status "audit -x exits 2" 2
assert_contains "audit -x is quoted" "$ERR" '"-x"'

for c in "${commands[@]}"; do
	run "$DEBLOAT" "$c" --help
	assert_status "$c --help exits 0" 0
	assert_contains "$c --help shows its usage" "$OUT" "Usage: debloat $c"
	help_out=$OUT
	run "$DEBLOAT" help "$c"
	assert_status "help $c exits 0" 0
	assert_eq "help $c is $c --help" "$help_out" "$OUT"
done

# Bare debloat is the audit: read-only, every interface, loopback included.
run "$DEBLOAT"
assert_status "bare debloat exits 0" 0
assert_contains "bare debloat audits loopback" "$OUT" "lo: kind loopback"
assert_contains "bare debloat reports the sysctls" "$OUT" "sysctls"

run "$DEBLOAT" audit nosuch0
assert_status "an unknown interface exits 1" 1
assert_contains "an unknown interface is a clear error" "$ERR" \
	"debloat: audit: cannot find interface nosuch0: No such device"
assert_eq "an unknown interface prints no report" "" "$OUT"

if command -v jq >/dev/null 2>&1; then
	run "$DEBLOAT" audit --json lo
	assert_status "audit --json lo exits 0" 0
	assert_eq "--json is one document" "1" "$(jq -s 'length' <<<"$OUT")"
	assert_eq "loopback's kind" "loopback" "$(jq -r '.interfaces[0].kind' <<<"$OUT")"
	assert_eq "loopback is not graded" "null" "$(jq -r '.interfaces[0].grade' <<<"$OUT")"
	assert_eq "loopback has no findings" "0" "$(jq '.interfaces[0].findings | length' <<<"$OUT")"
	assert_eq "the four sysctls are keys" "4" "$(jq '.sysctls | length' <<<"$OUT")"
else
	echo "SKIP JSON checks: no jq"
fi

# An option missing its value is named as typed, and no NUL byte reaches the terminal
# (a long option's number above 255 once made strchr() match the string's end).
for args in "test ping 127.0.0.1 --label" "test ping 127.0.0.1 --port" "bql --interval" \
	"lab --profile" "server --port" "server -k" "server --key-file"; do
	opt=${args##* }
	rc=0
	# shellcheck disable=SC2086 # $args is a command and its options
	"$DEBLOAT" $args >/dev/null 2>"$TMPDIR_CLI_ERR" || rc=$?
	assert_eq "debloat $args: a usage error" "2" "$rc"
	# shellcheck disable=SC2094 # both only read the file
	if tr -d '\000' <"$TMPDIR_CLI_ERR" | cmp -s - "$TMPDIR_CLI_ERR"; then
		pass "debloat $args: no NUL byte in the message"
	else
		fail "debloat $args: a NUL byte in the message"
	fi
	assert_contains "debloat $args: names $opt as typed" "$(cat "$TMPDIR_CLI_ERR")" \
		"option \"$opt\" needs a value"
done

# Letters run together: the one missing its value is named alone, in every command.
for args in "bql -ji:-i" "server -jp:-p" "test -jl:-l" "compare -jo:-o" "exporter -1l:-l" \
	"test rpm -vkm:-m" "prove -jp:-p"; do
	opt=${args##*:} args=${args%:*}
	rc=0
	# shellcheck disable=SC2086
	"$DEBLOAT" $args >/dev/null 2>"$TMPDIR_CLI_ERR" || rc=$?
	assert_eq "debloat $args: a usage error" "2" "$rc"
	assert_contains "debloat $args: names $opt alone" "$(head -n 1 "$TMPDIR_CLI_ERR")" \
		"option \"$opt\" needs a value"
done
rc=0
"$DEBLOAT" audit -jf >/dev/null 2>"$TMPDIR_CLI_ERR" || rc=$?
assert_eq "debloat audit -jf: a usage error" "2" "$rc"
assert_contains "debloat audit -jf: what -f needs" "$(cat "$TMPDIR_CLI_ERR")" \
	'option "-f" needs a file'

# A value given to an option that takes none: the word as typed is unknown, in every
# command (not "needs a value").
for args in "audit --json=1" "prove --ingress=1" "exporter --list-metrics=1" \
	"test rpm --http1=1" "fix --confirm=1"; do
	rc=0
	# shellcheck disable=SC2086
	"$DEBLOAT" $args >/dev/null 2>"$TMPDIR_CLI_ERR" || rc=$?
	assert_eq "debloat $args: a usage error" "2" "$rc"
	assert_contains "debloat $args: unknown as typed" "$(head -n 1 "$TMPDIR_CLI_ERR")" \
		"unknown option \"${args##* }\""
done

# An unknown congestion control is refused before anything starts (no connection tried).
rc=0
"$DEBLOAT" test ping 127.0.0.1 --cc nosuchcc >/dev/null 2>"$TMPDIR_CLI_ERR" || rc=$?
assert_eq "test --cc nosuchcc: a usage error" "2" "$rc"
assert_contains "test --cc nosuchcc: names it" "$(cat "$TMPDIR_CLI_ERR")" \
	'cannot use congestion control "nosuchcc"'
assert_not_contains "test --cc nosuchcc: before connecting" "$(cat "$TMPDIR_CLI_ERR")" "connect"

# The lab too: a profile's cc is checked before anything starts (no namespace, no
# emulator; the command would only run `true`). As root or not.
rc=0
timeout 30 "$DEBLOAT" lab --set cc=nosuchcc -q -- true >/dev/null 2>"$TMPDIR_CLI_ERR" || rc=$?
assert_eq "lab --set cc=nosuchcc: a usage error" "2" "$rc"
assert_contains "lab --set cc=nosuchcc: names it" "$(cat "$TMPDIR_CLI_ERR")" \
	'cannot use congestion control "nosuchcc"'
# ... and lab compare checks every profile's before the first run starts.
rc=0
out=$(timeout 30 "$DEBLOAT" lab compare -l 2 -d 1 --set cc=nosuchcc bbb-stock \
	2>"$TMPDIR_CLI_ERR") || rc=$?
assert_eq "lab compare --set cc=nosuchcc: a usage error" "2" "$rc"
assert_contains "  names it" "$(cat "$TMPDIR_CLI_ERR")" 'cannot use congestion control "nosuchcc"'
assert_not_contains "  before any run starts" "$out$(cat "$TMPDIR_CLI_ERR")" "running"

# lab's words are commands of their own, with their options read by the one table:
# each bad value is a usage error that says what was wrong, before anything starts.
while IFS='|' read -r args want; do
	rc=0
	# shellcheck disable=SC2086 # the words split as typed
	"$DEBLOAT" $args >/dev/null 2>"$TMPDIR_CLI_ERR" || rc=$?
	assert_eq "debloat $args: a usage error" "2" "$rc"
	assert_contains "debloat $args: says so" "$(cat "$TMPDIR_CLI_ERR")" "$want"
done <<'EOF_LAB'
lab --json|--json is lab show's; for the run's summary as JSON: --json-summary FILE
lab --role boss -S x --fixed|--role takes host or server, not "boss"
lab show --telemetry x|unknown option "--telemetry"
lab seed -l 0|bad length "0": want seconds, 1 to 86400
lab seed -d 2h|bad delay "2h": want seconds, 0 to 3600
lab seed --board nope|no board "nope" (boards: beaglebone-black,
lab seed extra|unexpected operand "extra"
lab compare --test nope bbb-stock|unknown test "nope"
lab compare --set x bbb-stock|bad --set "x": want KEY=VALUE
lab compare -o|option "-o" needs a value
lab compare|no profiles to compare
EOF_LAB

# A label from a file reaches the terminal escaped: no control character comes out.
if command -v jq >/dev/null; then
	jq '.label = "x\u001b[2Jy"' "$TOP/tests/fixtures/runs/bloated.json" >"$TMPDIR_CLI_ERR.json"
	out=$("$DEBLOAT" compare "$TMPDIR_CLI_ERR.json" | od -An -c)
	assert_not_contains "compare prints a label's ESC escaped" "$out" '033'
	assert_contains "as \\x1b" "$("$DEBLOAT" compare "$TMPDIR_CLI_ERR.json")" 'x\x1b[2Jy'
	rm -f "$TMPDIR_CLI_ERR.json"
fi


# Text fits 80 columns: every --help, and audit's report (a command to type stays whole
# on a line of its own, however long).
wide=
for c in "" audit bql server snapshot rrul test plot compare fix undo prove lab "lab compare" \
	"lab seed" exporter; do
	# shellcheck disable=SC2086 # "lab compare" is two words
	w=$("$DEBLOAT" $c --help | awk 'length > 80' | head -n 1)
	[ -z "$w" ] || wide+=" [$c --help] $w"
done
assert_eq "every --help fits 80 columns" "" "$wide"
wide=
for f in "$TOP"/boards/*.json; do
	w=$("$DEBLOAT" audit --from "$f" | awk 'length > 80 && $1 !~ /^(tc|ip|ethtool|sysctl|echo)$/' |
		head -n 1)
	[ -z "$w" ] || wide+=" [$(basename "$f")] $w"
done
assert_eq "audit's report fits 80 columns (commands aside)" "" "$wide"

finish
