#!/usr/bin/env bash
# test-driver-boot.sh - the knob "driver-boot" (fix --driver --persist) against the real
# depmod (kmod's), without root: a made-up module tree for release 6.1.0-50-armmp with
# the kernel's fec under kernel/ and ours in the store (/lib/debloat/RELEASE, host/kmod.h),
# both tiny ELF objects whose .modinfo names them, so depmod takes them for modules.
# Through build/tests/knob-tool with the trees redirected (depmod -b, -C):
#   - before: modules.dep names the kernel's fec (ours is outside depmod's tree)
#   - write bql: the override file and the link; depmod then names ours
#   - write stock: both gone; depmod names the kernel's again
#   - a second folder beside kernel/ without an override may win the tie (the reason the
#     store is outside the tree): printed, not asserted, since it is the file system's order
# About a second.

# run.sh: parallel
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_cmd depmod
require_cmd cc

if [ ! -x "$BUILD/tests/knob-tool" ]; then
	fail "no $BUILD/tests/knob-tool (build first)"
	finish || exit 1
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cp "$BUILD/tests/knob-tool" "$T/knob-tool"
TOOL=$T/knob-tool
REL=6.1.0-50-armmp
R=$T/root
mods=$R/lib/modules

# A module to depmod: an object with a .modinfo section naming it.
printf '%s\n' 'const char modinfo[] __attribute__((section(".modinfo"), used)) =' \
	'    "license=GPL\0name=fec\0vermagic=6.1.0-50-armmp SMP mod_unload ARMv7 p2v8 ";' >"$T/m.c"
if ! cc -c -o "$T/m.o" "$T/m.c" 2>"$T/cc.err"; then
	fail "a module object for depmod: $(head -c 300 "$T/cc.err")"
	finish || exit 1
fi
mkdir -p "$mods/$REL/kernel/drivers/net/ethernet/freescale" "$R/lib/debloat/$REL" "$R/etc"
cp "$T/m.o" "$mods/$REL/kernel/drivers/net/ethernet/freescale/fec.ko"
cp "$T/m.o" "$R/lib/debloat/$REL/fec.ko"
export KNOB_TOOL_MODULES=$mods KNOB_TOOL_ETC=$R/etc KNOB_TOOL_RELEASE=$REL
dep() { grep -o '^[^:]*fec\.ko:' "$mods/$REL/modules.dep" 2>/dev/null; }
depmod -a -b "$R" -C "$R/etc/depmod.d" "$REL" 2>/dev/null
assert_eq "before: depmod names the kernel's fec (ours is in the store, outside its tree)" \
	"kernel/drivers/net/ethernet/freescale/fec.ko:" "$(dep)"

run "$TOOL" read driver-boot eth0 fec
assert_eq "read: stock" "stock" "$OUT"
run "$TOOL" write driver-boot eth0 fec bql
assert_status "write bql" 0
assert_eq "the depmod.d file's override line" "override fec $REL debloat" \
	"$(grep '^override' "$R/etc/depmod.d/debloat-fec.conf" 2>/dev/null)"
assert_eq "the link to the store" "$R/lib/debloat/$REL/fec.ko" \
	"$(readlink "$mods/$REL/debloat/fec.ko")"
assert_eq "depmod (kmod's, reading the override) now names ours" "debloat/fec.ko:" "$(dep)"
run "$TOOL" read driver-boot eth0 fec
assert_eq "read: bql" "bql" "$OUT"

run "$TOOL" write driver-boot eth0 fec stock
assert_status "write stock (undo)" 0
assert_true "the override file removed" test ! -e "$R/etc/depmod.d/debloat-fec.conf"
assert_true "the link and its folder removed" test ! -e "$mods/$REL/debloat"
assert_eq "depmod names the kernel's fec again" \
	"kernel/drivers/net/ethernet/freescale/fec.ko:" "$(dep)"

# Someone's own file of that name: read fails, so fix never overwrites it.
echo "override fec * kernel/drivers" >"$R/etc/depmod.d/debloat-fec.conf"
run "$TOOL" read driver-boot eth0 fec
assert_eq "someone's own debloat-fec.conf: read refuses (EEXIST)" "1 EEXIST" \
	"$RC $(grep -o 'EEXIST' <<<"$ERR" | head -n 1)"
rm "$R/etc/depmod.d/debloat-fec.conf"

# depmod failing: the error names it.
KNOB_TOOL_DEPMOD=false run "$TOOL" write driver-boot eth0 fec bql
assert_contains "a failing depmod: the write fails and says so" "$RC $ERR" "exited with status 1"

# Why the store is outside the tree: without an override, which of two fec.ko depmod
# keeps is the order its directory walk meets them in.
mkdir -p "$mods/$REL/other"
cp "$T/m.o" "$mods/$REL/other/fec.ko"
rm -f "$R/etc/depmod.d/debloat-fec.conf" "$mods/$REL/debloat/fec.ko"
depmod -a -b "$R" -C "$R/etc/depmod.d" "$REL" 2>/dev/null
echo "note: kernel/ and other/ both hold fec.ko, no override: depmod kept $(dep) (the walk's order)"
finish
