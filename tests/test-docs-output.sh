#!/usr/bin/env bash
# test-docs-output.sh - every command output quoted in docs/ is what the command
# prints today for the same input, and every measured figure names its command and
# the day it ran (scripts/gen-docs.sh, which also rewrites them).
#
#   docs/*.md:  <!-- output of: debloat audit --from boards/wandboard.json eth0 -->
#               ```text
#               ...what it prints...
#               ```
#
# Also checked on a scratch copy: a quoted output that differs, a command that fails
# and a figure without a date each make the check fail, naming the block.
# run.sh: parallel
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_debloat

gen=$TOP/scripts/gen-docs.sh

run "$gen" --check
assert_status "the docs' quoted outputs are what the commands print" 0
assert_contains "... and it looked at some" "$OUT" "quoted outputs"
[ "$RC" -eq 0 ] || printf '%s\n' "$ERR" | head -n 40

scratch=$(mktemp -d)
trap 'rc=$?; set +e; rm -rf "$scratch"; (exit $rc); cleanup' EXIT
mkdir -p "$scratch/docs"
good() {
	cat >"$scratch/docs/NAME.md" <<'MD'
# a

<!-- output of: debloat audit --from boards/wandboard.json eth0 | grep -c grade -->
```text
1
```

<!-- figure: debloat lab seed -l 20 -d 3 (measured 2026-12-06) -->
```text
a table
```
MD
	ln -sfn "$TOP/boards" "$scratch/boards"
}
good
run "$gen" --check --top "$scratch"
assert_status "a scratch doc that quotes the output right passes" 0

sed -i 's/^1$/2/' "$scratch/docs/NAME.md"
run "$gen" --check --top "$scratch"
assert_status "a quoted output that differs fails the check" 1
assert_contains "... naming the doc and the command" "$ERR" \
	"docs/NAME.md: the output of \`debloat audit --from boards/wandboard.json eth0 | grep -c grade\`"
run "$gen" --top "$scratch"
assert_status "gen-docs.sh rewrites it" 0
assert_eq "... with the command's output" 1 "$(sed -n '5p' "$scratch/docs/NAME.md")"
run "$gen" --check --top "$scratch"
assert_status "... after which the check passes" 0

good
sed -i 's/measured 2026-12-06/measured recently/' "$scratch/docs/NAME.md"
run "$gen" --check --top "$scratch"
assert_status "a figure without a date fails the check" 1
assert_contains "... saying what the marker needs" "$ERR" "(measured YYYY-MM-DD)"

good
sed -i 's/eth0 | grep -c grade/--no-such-option/' "$scratch/docs/NAME.md"
cp "$scratch/docs/NAME.md" "$scratch/before"
run "$gen" --top "$scratch"
assert_status "a command that fails fails the run" 1
assert_contains "... naming it" "$ERR" "the command failed: debloat audit --from"
assert_eq "... and the doc keeps what it quoted" "" "$(diff "$scratch/before" "$scratch/docs/NAME.md")"
finish
