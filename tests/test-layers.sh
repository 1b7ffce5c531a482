#!/usr/bin/env bash
# test-layers.sh - src/'s folders are its layers (docs/design/layout.md):
#  - scripts/check-layers.sh finds no include that reaches up a layer, no include
#    circle and no two files with one name in src/ or in src/ and libdebloat;
#  - and it does find them: in a copy of src/ with an include of fix/ planted in host/,
#    a bare include of a command's header planted in meter/, a second print.c in plot/,
#    a folder in no layer, debloat.c including more than base/, a stray .c file in src/
#    itself, a name of lib/ taken in src/, and two circles (one direct, one through a
#    header), it names each and fails; a command including from every folder is no
#    breach.
# run.sh: parallel
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

check="$TOP/scripts/check-layers.sh"
run bash "$check" "$TOP/src"
assert_status "src/: every include goes down or sideways as the table allows" 0
assert_eq "src/: nothing to report" "" "$OUT"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
S=$T/src # a copy of src/ to plant breaches in
cp -r "$TOP/src" "$S"
sed -i '1a #include "fix/plan.h"' "$S/host/link.c"
echo '#include "cli-not-here.h"' >"$S/meter/planted.c"
: >"$S/cli-not-here.h"
cp "$S/base/print.c" "$S/plot/print.c"
run bash "$check" "$S"
assert_status "a planted breach fails the check" 1
assert_contains "host/ including fix/ is named, with its line" "$OUT" \
	"host/link.c:2: host may not include fix/plan.h"
assert_contains "meter/ including a header of src/ itself is named" "$OUT" \
	"meter/planted.c:1: meter may not include cli-not-here.h"
assert_contains "two files named print.c are named" "$OUT" "two files named print.c"
mkdir "$S/newfolder" && : >"$S/newfolder/x.c"
run bash "$check" "$S"
assert_contains "a folder in no layer is named" "$OUT" "folder newfolder is in no layer"

# src/ itself: the commands may include from anywhere, debloat.c only from base/.
rm -rf "$S" && cp -r "$TOP/src" "$S"
sed -i '1a #include "lab/board.h"' "$S/cmd-fix.c"
run bash "$check" "$S"
assert_status "a command including lab/ is no breach" 0
sed -i '1a #include "fix/plan.h"' "$S/debloat.c"
: >"$S/helpers.c"
run bash "$check" "$S"
assert_status "debloat.c including fix/ fails the check" 1
assert_contains "debloat.c including fix/ is named, with its line" "$OUT" \
	"debloat.c:2: debloat.c (the subcommand table) may include only base/, not fix/plan.h"
assert_contains "a .c file in src/ that is no command is named" "$OUT" \
	"helpers.c: src/ itself holds debloat.c and the commands"

# A name of libdebloat's (lib/ beside src/) taken in src/.
rm -rf "$S" && cp -r "$TOP/src" "$S"
mkdir "$T/lib" && : >"$T/lib/knob.c"
run bash "$check" "$S"
assert_status "a name of lib/ taken in src/ fails the check" 1
assert_contains "both files are named" "$OUT" "two files named knob.c: fix/knob.c ../lib/knob.c"
rm -r "${T:?}/lib"

# Circles: fix/a.c and fix/b.c include each other's header; fix/c.c includes c.h,
# which includes d.h, and fix/d.c includes c.h.
rm -rf "$S" && cp -r "$TOP/src" "$S"
for m in a b c d; do : >"$S/fix/circle-$m.h"; done
echo '#include "fix/circle-b.h"' >"$S/fix/circle-a.c"
echo '#include "fix/circle-a.h"' >"$S/fix/circle-b.c"
echo '#include "fix/circle-c.h"' >"$S/fix/circle-c.c"
echo '#include "fix/circle-d.h"' >"$S/fix/circle-c.h"
echo '#include "fix/circle-c.h"' >"$S/fix/circle-d.c"
run bash "$check" "$S"
assert_status "a circle of includes fails the check" 1
assert_contains "the direct circle is named" "$OUT" "include circle:"
assert_true "the direct circle names both modules" \
	grep -qE '^include circle: fix/circle-(a fix/circle-b|b fix/circle-a)$' <<<"$OUT"
assert_true "the circle through a header names both modules" \
	grep -qE '^include circle: fix/circle-(c fix/circle-d|d fix/circle-c)$' <<<"$OUT"
finish
