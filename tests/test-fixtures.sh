#!/usr/bin/env bash
# test-fixtures.sh - `debloat audit --from` on the board fixtures of tests/fixtures/
# (constructed from docs/design, not captured) and on broken copies of them:
#
#   boards/beaglebone-black.json  cpsw, 100 Mbit, pfifo_fast 1000, BQL files unused
#   boards/raspberry-pi-3b.json   smsc95xx on usbnet, 100 Mbit, fq_codel (Raspberry Pi OS)
#   boards/raspberry-pi-3bplus.json  lan78xx on USB 2, 1 Gbit PHY, no BQL, fq_codel
#   boards/raspberry-pi-4.json    bcmgenet, 1 Gbit, BQL in use, mq + 5 fq_codel
#   boards/raspberry-pi-5.json    macb on RP1, 1 Gbit, kernel 6.12: no BQL yet
#   boards/wandboard.json         fec on i.MX6Q, 1 Gbit, no BQL, 512 TX descriptors, fq_codel (Debian 12)
#        |
#        v
#   debloat audit --from FILE [--json]  ->  the findings a person would expect
#
# Also: a fixture audits the same twice; unknown keys are ignored; a broken copy
# (wrong type, missing key, out of range, unknown version, truncated, huge, not a
# file) is exit 1 with nothing on stdout and a message naming the file and the fault.
# No root needed: nothing here touches the host.
# run.sh: parallel
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_cmd jq
require_debloat

FIX="$TOP/boards"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"; cleanup' EXIT

audit_json() {
	run "$DEBLOAT" audit --from "$1" --json
	assert_status "audit --from $(basename "$1") --json exits 0" 0
}

# The findings of interface 0 with a code: "code delay_ms recommendation" lines.
finding() {
	jq -r --arg c "$2" '.interfaces[0].findings[] | select(.code == $c) |
		"\(.delay_ms) \(.recommendation)"' <<<"$1"
}

for f in "$FIX"/*.json; do
	name=$(basename "$f")
	audit_json "$f"
	assert_eq "$name: the report says it is a snapshot" "true" \
		"$(jq '.snapshot.constructed' <<<"$OUT")"
	assert_contains "$name: the report carries the source note" \
		"$(jq -r '.snapshot.source' <<<"$OUT")" "docs/design/"
	run "$DEBLOAT" audit --from "$f"
	# (text wraps at 80 columns: compare with its line breaks as blanks)
	assert_contains "$name: text says where the data came from" \
		"$(tr '\n' ' ' <<<"$OUT" | tr -s ' ')" "from snapshot $f (constructed, not captured)"
done

# --- BeagleBone Black: txqueuelen 1000 at 100 Mbit, no BQL, the cpsw ring lever ---
audit_json "$FIX/beaglebone-black.json"
bbb=$OUT
tql=$(finding "$bbb" txqueuelen-long)
assert_contains "BeagleBone: txqueuelen-long" "$tql" "txqueuelen"
delay=${tql%% *}
if [ -n "$delay" ] && [ "$delay" != null ] && [ "$delay" -ge 120 ] && [ "$delay" -le 126 ]; then
	pass "BeagleBone: txqueuelen-long is about 123 ms ($delay)"
else
	fail "BeagleBone: txqueuelen-long is about 123 ms: got '$delay'"
fi
assert_eq "BeagleBone: no-bql" no-bql \
	"$(jq -r '[.interfaces[0].findings[].code] | map(select(. == "no-bql"))[0]' <<<"$bbb")"
assert_eq "BeagleBone: BQL files present but not in use" false \
	"$(jq '.interfaces[0].bql.in_use' <<<"$bbb")"
assert_contains "BeagleBone: the cpsw ring advice" \
	"$(jq -r '.interfaces[0].findings[].recommendation' <<<"$bbb")" "rx 248"
assert_contains "BeagleBone: the cpsw ring advice is big-tx-ring" \
	"$(finding "$bbb" big-tx-ring)" "rx 248"

# --- Raspberry Pi 3B: fq_codel at the root, but a USB driver without BQL under it ---
audit_json "$FIX/raspberry-pi-3b.json"
assert_contains "Pi 3B: fq_codel cannot see usbnet's queue: shape" \
	"$(finding "$OUT" no-bql)" "cake bandwidth 95mbit"
assert_eq "Pi 3B: no txqueuelen finding under fq_codel" "" "$(finding "$OUT" txqueuelen-long)"
assert_eq "Pi 3B: BQL not in use" false "$(jq '.interfaces[0].bql.in_use' <<<"$OUT")"
assert_eq "Pi 3B: the rings could not be read" rings \
	"$(jq -r '.interfaces[0].unreadable[0].what' <<<"$OUT")"

# --- Raspberry Pi 4: BQL and fq_codel under mq: grades well ---
audit_json "$FIX/raspberry-pi-4.json"
pi4=$OUT
grade=$(jq -r '.interfaces[0].grade' <<<"$pi4")
case "$grade" in
A | A+) pass "Pi 4 grades well ($grade)" ;;
*) fail "Pi 4 grades well: got $grade: $(jq -c '[.interfaces[0].findings[].code]' <<<"$pi4")" ;;
esac
assert_eq "Pi 4: BQL in use" true "$(jq '.interfaces[0].bql.in_use' <<<"$pi4")"
assert_eq "Pi 4: mq with 5 fq_codel children" "mq fq_codel fq_codel fq_codel fq_codel fq_codel" \
	"$(jq -r '.interfaces[0].qdisc | [.kind, .children[].kind] | join(" ")' <<<"$pi4")"
assert_eq "Pi 4: fq_codel options read" "10240 5000 true" \
	"$(jq -r '.interfaces[0].qdisc.children[4] | "\(.limit_packets) \(.target_us) \(.ecn)"' <<<"$pi4")"

# --- Wandboard: no BQL: shape below line rate ---
audit_json "$FIX/wandboard.json"
assert_contains "Wandboard: the no-BQL shaper advice" "$(finding "$OUT" no-bql)" "bandwidth"
assert_contains "Wandboard: below fec's i.MX6 ceiling, half for each direction" \
	"$(finding "$OUT" no-bql)" "bandwidth 223250kbit"

# --- Raspberry Pi 3B+: lan78xx behind USB 2 has no BQL: shape below its ~300 Mbit/s ---
audit_json "$FIX/raspberry-pi-3bplus.json"
assert_eq "Pi 3B+: BQL not in use" false "$(jq '.interfaces[0].bql.in_use' <<<"$OUT")"
assert_contains "Pi 3B+: the no-BQL shaper below the USB 2 ceiling" "$(finding "$OUT" no-bql)" \
	"bandwidth 142500kbit"
assert_eq "Pi 3B+: the machine and the USB speed read" "raspberrypi,3-model-b-plus 480" \
	"$(jq -r '"\(.machine_compatible[0]) \(.interfaces[0].usb_speed_mbps)"' <<<"$OUT")"

# --- Raspberry Pi 5: macb's BQL came in 6.15; this 6.12 kernel has none ---
audit_json "$FIX/raspberry-pi-5.json"
assert_eq "Pi 5: BQL not in use" false "$(jq '.interfaces[0].bql.in_use' <<<"$OUT")"
assert_contains "Pi 5: the no-BQL shaper at 95% of line rate" "$(finding "$OUT" no-bql)" \
	"bandwidth 950mbit"

# --- the same file audits the same, twice ---
for f in "$FIX"/*.json; do
	a=$("$DEBLOAT" audit --from "$f" --json)
	b=$("$DEBLOAT" audit --from "$f" --json)
	assert_eq "$(basename "$f"): the same JSON twice" "$a" "$b"
	a=$("$DEBLOAT" audit --from "$f")
	b=$("$DEBLOAT" audit --from "$f")
	assert_eq "$(basename "$f"): the same text twice" "$a" "$b"
done

# --- naming interfaces ---
run "$DEBLOAT" audit --from "$FIX/wandboard.json" --json eth0
assert_status "an interface the snapshot has" 0
run "$DEBLOAT" audit --from "$FIX/wandboard.json" wlan0
assert_status "an interface the snapshot lacks is exit 1" 1
assert_contains "... and says which" "$ERR" "has no interface wlan0"

# --- unknown keys are ignored (a newer debloat's snapshot still reads) ---
jq '.future = {"x": 1} | .interfaces[0].future = [1, 2] |
    .interfaces[0].qdisc.future_option = 7 | .interfaces[0].bql.queues[0].future = "y"' \
	"$FIX/beaglebone-black.json" >"$TMP/extra.json"
assert_eq "unknown keys change nothing" \
	"$("$DEBLOAT" audit --from "$FIX/beaglebone-black.json" --json | jq -c 'del(.snapshot.file)')" \
	"$("$DEBLOAT" audit --from "$TMP/extra.json" --json | jq -c 'del(.snapshot.file)')"

# --- broken copies: exit 1, nothing on stdout, the file and the fault named ---
broken() {
	local desc=$1 file=$2 want=$3
	run "$DEBLOAT" audit --from "$file" --json
	assert_status "$desc: exit 1" 1
	assert_eq "$desc: nothing on stdout" "" "$OUT"
	assert_contains "$desc: the message names the file" "$ERR" "$file"
	assert_contains "$desc: and the fault" "$ERR" "$want"
}
bbb_file="$FIX/beaglebone-black.json"
jq '.interfaces[0].mtu = "1500"' "$bbb_file" >"$TMP/type.json"
broken "mtu as a string" "$TMP/type.json" "interfaces[0].mtu: expected an integer, got a string"
jq 'del(.interfaces)' "$bbb_file" >"$TMP/nointerfaces.json"
broken "no interfaces" "$TMP/nointerfaces.json" "\"interfaces\" is missing"
jq 'del(.interfaces[0].qdisc.kind)' "$bbb_file" >"$TMP/nokind.json"
broken "a qdisc without kind" "$TMP/nokind.json" "interfaces[0].qdisc: the key \"kind\" is missing"
jq '.interfaces[0].speed_mbps = -100' "$bbb_file" >"$TMP/range.json"
broken "a negative speed" "$TMP/range.json" "speed_mbps: -100 is out of range"
jq '.interfaces[0].bql.queues[0].limit = true' "$bbb_file" >"$TMP/bool.json"
broken "a boolean BQL limit" "$TMP/bool.json" "queues[0].limit: expected an integer, got a boolean"
jq '.debloat_snapshot = 2' "$bbb_file" >"$TMP/version.json"
broken "format version 2" "$TMP/version.json" "unknown format version 2"
jq 'del(.debloat_snapshot)' "$bbb_file" >"$TMP/noversion.json"
broken "no format version" "$TMP/noversion.json" "not a debloat snapshot"
head -c 700 "$bbb_file" >"$TMP/truncated.json"
broken "a truncated file" "$TMP/truncated.json" "not JSON"
printf '[1, 2]\n' >"$TMP/array.json"
broken "an array at the top" "$TMP/array.json" "expected an object at the top"
: >"$TMP/empty.json"
broken "an empty file" "$TMP/empty.json" "not JSON"
# 9 MiB: one long string in an otherwise fine document, over the 8 MiB cap.
{
	printf '{"debloat_snapshot": 1, "pad": "'
	head -c 9437184 /dev/zero | tr '\0' a
	printf '", "interfaces": []}\n'
} >"$TMP/huge.json"
broken "a huge file" "$TMP/huge.json" "larger than"
broken "a missing file" "$TMP/nosuch.json" "No such file"
broken "a directory" "$TMP" "directory"
run "$DEBLOAT" audit --from
assert_status "--from without a file is a usage error" 2

finish
