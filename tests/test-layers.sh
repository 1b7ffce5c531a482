#!/usr/bin/env bash
# test-layers.sh - src/'s folders are its layers (docs/design/layout.md):
#  - scripts/check-layers.sh finds no include that reaches up a layer and no two files
#    with one name in src/;
#  - and it does find them: in a copy of src/ with an include of fix/ planted in host/,
#    a bare include of a command's header planted in meter/, and a second print.c in
#    plot/, it names all three and fails.
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
finish
