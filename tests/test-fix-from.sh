#!/usr/bin/env bash
# test-fix-from.sh - `debloat fix --from FILE --dry-run`: fix's plan for a board's
# snapshot (tests/fixtures/), made on any machine, changing nothing here. What the
# shaper's rate is and where it came from, board by board:
#
#   wandboard.json            fec on i.MX6 (fsl,imx6q), GigE PHY    -> 95% x 470/2 Mbit/s
#   raspberry-pi-3bplus.json  lan78xx on USB 2 (480), GigE PHY      -> 95% x 300/2 Mbit/s
#   raspberry-pi-4.json       bcmgenet, BQL                         -> no shaper
#   raspberry-pi-5.json       macb, kernel 6.12 (BQL only from 6.15) -> 95% x line rate
#        |
#        v
#   debloat fix --from FILE --dry-run [--json] [--shape RATE] [IFACE]
#
# Where the ceiling is shared (Wandboard, Pi 3B+) the download is shaped too, at the same
# rate through an ifb (the ingress step); --ingress RATE overrides it, --no-ingress drops
# it, and a board whose ceiling is not shared gets none. The TX ring step counts ~1 ms at
# the ceiling per direction, not the line rate.
# Also: --shape overrides with source "--shape"; --from without --dry-run is a usage
# error; a snapshot without the machine and USB fields (an older debloat's) still plans,
# at line rate; audit --from's fix section says the same. No root needed.
# run.sh: parallel
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_cmd jq
require_debloat

FIX="$TOP/boards"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"; cleanup' EXIT

# fix --from FILE --dry-run --json [ARGS...]: the JSON in $OUT, exit 0 checked.
plan_json() {
	local file=$1
	shift
	run "$DEBLOAT" fix --from "$file" --dry-run --json "$@"
	assert_status "fix --from $(basename "$file") --dry-run --json $* exits 0" 0
}

# The root-qdisc step's "after" of interface 0.
root_after() {
	jq -r '.interfaces[0].steps[] | select(.knob == "root-qdisc") | .after' <<<"$1"
}

# The "after" of interface 0's step of knob $2 ("" when there is none).
step_after() {
	jq -r --arg k "$2" '[.interfaces[0].steps[] | select(.knob == $k) | .after] | join(" ")' <<<"$1"
}

# "ok" when $1 (bits/s) is > 0 and at most $2 (bits/s).
at_most() {
	if [ -n "$1" ] && [ "$1" != null ] && [ "$1" -gt 0 ] && [ "$1" -le "$2" ]; then
		echo ok
	else
		echo "$1 is not in (0, $2]"
	fi
}

# --- Wandboard: fec on an i.MX6 moves ~470 Mbit/s, both directions together ---
plan_json "$FIX/wandboard.json"
wb=$OUT
rate=$(jq '.interfaces[0].shape_rate_bps' <<<"$wb")
# 0.95 x 470 / 2 Mbit/s = 223.25 Mbit/s
assert_eq "Wandboard: shaped at or below 0.95 x 470/2 Mbit/s" ok "$(at_most "$rate" 223250000)"
assert_eq "Wandboard: at 95% of half the ceiling, not less" 223250000 "$rate"
assert_eq "Wandboard: the drivers table is the source" \
	"drivers table: fec on i.MX6, 470 Mbit/s shared by transmit and receive" \
	"$(jq -r '.interfaces[0].rate_source' <<<"$wb")"
assert_eq "Wandboard: halved for each direction" true "$(jq '.interfaces[0].rate_halved' <<<"$wb")"
assert_eq "Wandboard: the ceiling and that it is shared" "470 true" \
	"$(jq -r '.interfaces[0] | "\(.ceiling_mbps) \(.ceiling_shared)"' <<<"$wb")"
assert_eq "Wandboard: cake at that rate" "cake bandwidth 223250kbit" "$(root_after "$wb")"
assert_eq "Wandboard: the JSON says which file" "$FIX/wandboard.json" "$(jq -r .from <<<"$wb")"
assert_eq "Wandboard: a dry run" "true dry-run" "$(jq -r '"\(.dry_run) \(.result)"' <<<"$wb")"
assert_eq "Wandboard: befores from the snapshot (the ring's), unknown where it has none" \
	"512 unknown unknown" \
	"$(jq -r '[.interfaces[0].steps[] | .before] | sort | join(" ")' <<<"$wb")"
# What the snapshot shows done already is left out: Debian's default_qdisc is fq_codel.
hs() { jq -r ".host.steps[] | select(.name == \"$1\") | \"\(.before) \(.status)\"" <<<"$wb"; }
# (fix plans no step for a sysctl the host already has at the planned value)
assert_eq "Wandboard: default_qdisc already fq_codel in the snapshot: left out" "" \
	"$(hs net.core.default_qdisc)"
assert_eq "Wandboard: tcp_ecn 2 in the snapshot: planned, with that before" "2 planned" \
	"$(hs net.ipv4.tcp_ecn)"
jq '.sysctls["net.ipv4.tcp_ecn"] = 1' "$FIX/wandboard.json" >"$TMP/wandboard-ecn.json"
plan_json "$TMP/wandboard-ecn.json"
wb=$OUT
assert_eq "  a snapshot with tcp_ecn 1: that step left out too" "" "$(hs net.ipv4.tcp_ecn)"
assert_eq "Wandboard: the download shaped at the same rate" "cake bandwidth 223250kbit" \
	"$(step_after "$wb" ingress)"
assert_contains "Wandboard: the download shaper says why" \
	"$(jq -r '.interfaces[0].steps[] | select(.knob == "ingress") | .why' <<<"$wb")" \
	"a transmit-only shaper cannot hold while the board also receives"
assert_eq "Wandboard: the TX ring cut to ~1 ms at 235 Mbit/s" 19 "$(step_after "$wb" ring-tx)"
run "$DEBLOAT" fix --from "$FIX/wandboard.json" --dry-run
assert_status "Wandboard: text exits 0" 0
text=$(tr '\n' ' ' <<<"$OUT" | tr -s ' ')
assert_contains "Wandboard: text names the rate" "$text" "shaper at 223250kbit"
assert_contains "Wandboard: text says half for each direction" "$text" "half for each direction"
assert_contains "Wandboard: text says what the split costs one direction" "$text" \
	"cost: one direction alone (a file server sending, a backup arriving) still gets 223 of the 470 Mbit/s"
given=$("$DEBLOAT" fix --from "$FIX/wandboard.json" --dry-run --shape 400mbit --ingress 50mbit |
	tr '\n' ' ' | tr -s ' ')
assert_contains "Wandboard --shape: the reason is the shared ceiling" "$given" \
	"shape at 400mbit as given (--shape), under the 470 Mbit/s fec on i.MX6 moves for transmit and receive together"
assert_not_contains "... not a bottleneck beyond it" "$given" "bottleneck measured beyond"
assert_not_contains "Wandboard --shape: no cost line for a split the user chose" "$given" \
	"cost: one direction"
assert_contains "Wandboard: text names the source" "$text" \
	"rate source: drivers table: fec on i.MX6, 470 Mbit/s shared by transmit and receive"
assert_contains "Wandboard: text says nothing here is touched" "$text" \
	"planned for snapshot $FIX/wandboard.json"
assert_contains "Wandboard: text ends as a dry run" "$text" "dry run: nothing was changed"

# --- Raspberry Pi 3B+: lan78xx behind USB 2, ~300 Mbit/s both directions together ---
plan_json "$FIX/raspberry-pi-3bplus.json"
pi3p=$OUT
rate=$(jq '.interfaces[0].shape_rate_bps' <<<"$pi3p")
assert_eq "Pi 3B+: shaped at or below 0.95 x 300/2 Mbit/s" ok "$(at_most "$rate" 142500000)"
assert_eq "Pi 3B+: the drivers table is the source" \
	"drivers table: lan78xx on USB 2, 300 Mbit/s shared by transmit and receive" \
	"$(jq -r '.interfaces[0].rate_source' <<<"$pi3p")"
assert_eq "Pi 3B+: cake at that rate" "cake bandwidth 142500kbit" "$(root_after "$pi3p")"
assert_eq "Pi 3B+: BQL not in use" false "$(jq '.interfaces[0].bql_in_use' <<<"$pi3p")"
assert_eq "Pi 3B+: the download shaped at the same rate" "cake bandwidth 142500kbit" \
	"$(step_after "$pi3p" ingress)"
plan_json "$FIX/raspberry-pi-3bplus.json" --no-ingress
assert_eq "Pi 3B+ --no-ingress: no download shaper" "" "$(step_after "$OUT" ingress)"
assert_eq "Pi 3B+ --no-ingress: the root shaper stays" "cake bandwidth 142500kbit" "$(root_after "$OUT")"
plan_json "$FIX/raspberry-pi-3bplus.json" --ingress 100mbit
assert_eq "Pi 3B+ --ingress: the rate given wins" "cake bandwidth 100mbit" \
	"$(step_after "$OUT" ingress)"
run "$DEBLOAT" fix --from "$FIX/raspberry-pi-3bplus.json" --dry-run --ingress 100mbit --no-ingress
assert_status "--ingress with --no-ingress is a usage error" 2
assert_contains "... saying so" "$ERR" "not both"

# The same lan78xx on a USB 3 port has no ceiling: the line rate.
jq '.interfaces[0].usb_speed_mbps = 5000' "$FIX/raspberry-pi-3bplus.json" >"$TMP/usb3.json"
plan_json "$TMP/usb3.json"
assert_eq "lan78xx on USB 3: line rate" "line rate 950000000" \
	"$(jq -r '.interfaces[0] | "\(.rate_source) \(.shape_rate_bps)"' <<<"$OUT")"

# --- Raspberry Pi 4: bcmgenet has BQL: no shaper ---
plan_json "$FIX/raspberry-pi-4.json"
pi4=$OUT
assert_eq "Pi 4: BQL in use" true "$(jq '.interfaces[0].bql_in_use' <<<"$pi4")"
assert_eq "Pi 4: no shaper rate, no source" "null null" \
	"$(jq -r '.interfaces[0] | "\(.shape_rate_bps) \(.rate_source)"' <<<"$pi4")"
assert_not_contains "Pi 4: no cake or htb at the root" "$(root_after "$pi4")" "bandwidth"
assert_not_contains "Pi 4: no htb at the root" "$(root_after "$pi4")" "htb"

# --- Raspberry Pi 5: macb, kernel 6.12: BQL only from 6.15, so the line rate ---
plan_json "$FIX/raspberry-pi-5.json"
pi5=$OUT
assert_eq "Pi 5: BQL not in use" false "$(jq '.interfaces[0].bql_in_use' <<<"$pi5")"
assert_eq "Pi 5: 0.95 x line rate, source line rate" "950000000 line rate" \
	"$(jq -r '.interfaces[0] | "\(.shape_rate_bps) \(.rate_source)"' <<<"$pi5")"
assert_eq "Pi 5: cake at 950mbit" "cake bandwidth 950mbit" "$(root_after "$pi5")"
assert_eq "Pi 5: no ceiling shared, no download shaper" "" "$(step_after "$pi5" ingress)"
# Before any traffic only the kernel's release can tell: 6.12 has no macb BQL, 6.15 has.
jq '.interfaces[0].tx_packets = 0 | .interfaces[0].tx_bytes = 0' \
	"$FIX/raspberry-pi-5.json" >"$TMP/pi5-idle.json"
plan_json "$TMP/pi5-idle.json"
assert_eq "Pi 5 idle, 6.12: no BQL by the release" false \
	"$(jq '.interfaces[0].bql_in_use' <<<"$OUT")"
assert_eq "Pi 5 idle, 6.12: shaped at line rate" "line rate" \
	"$(jq -r '.interfaces[0].rate_source' <<<"$OUT")"
jq '.kernel_release = "6.15.2"' "$TMP/pi5-idle.json" >"$TMP/pi5-615.json"
plan_json "$TMP/pi5-615.json"
assert_eq "Pi 5 idle, 6.15: BQL by the release, no shaper" "true null" \
	"$(jq -r '.interfaces[0] | "\(.bql_in_use) \(.shape_rate_bps)"' <<<"$OUT")"

# --- --shape overrides the table, used as given ---
plan_json "$FIX/wandboard.json" --shape 50mbit eth0
assert_eq "--shape: the rate given" 50000000 "$(jq '.interfaces[0].shape_rate_bps' <<<"$OUT")"
assert_eq "--shape: the source" "--shape" "$(jq -r '.interfaces[0].rate_source' <<<"$OUT")"
assert_eq "--shape: not halved" false "$(jq '.interfaces[0].rate_halved' <<<"$OUT")"
assert_eq "--shape: cake at it" "cake bandwidth 50mbit" "$(root_after "$OUT")"
assert_eq "--shape on a shared ceiling: the download at it too" "cake bandwidth 50mbit" \
	"$(step_after "$OUT" ingress)"

# --- a snapshot from before the machine and USB speed were recorded: line rate ---
jq 'del(.machine_compatible) | del(.interfaces[].usb_speed_mbps)' \
	"$FIX/wandboard.json" >"$TMP/old-wandboard.json"
jq 'del(.machine_compatible) | del(.interfaces[].usb_speed_mbps)' \
	"$FIX/raspberry-pi-3bplus.json" >"$TMP/old-3bplus.json"
plan_json "$TMP/old-wandboard.json"
assert_eq "old Wandboard snapshot: plans at line rate" "950000000 line rate" \
	"$(jq -r '.interfaces[0] | "\(.shape_rate_bps) \(.rate_source)"' <<<"$OUT")"
plan_json "$TMP/old-3bplus.json"
assert_eq "old Pi 3B+ snapshot: plans at line rate" "950000000 line rate" \
	"$(jq -r '.interfaces[0] | "\(.shape_rate_bps) \(.rate_source)"' <<<"$OUT")"

# --- audit --from's fix section shares the plan ---
run "$DEBLOAT" audit --from "$FIX/wandboard.json" --json
assert_status "audit --from wandboard.json exits 0" 0
assert_eq "audit: the same rate and source as fix" \
	"223250000 drivers table: fec on i.MX6, 470 Mbit/s shared by transmit and receive" \
	"$(jq -r '.fix.interfaces[0] | "\(.shape_rate_bps) \(.rate_source)"' <<<"$OUT")"
assert_contains "audit: the command at that rate" \
	"$(jq -r '.fix.interfaces[0].commands[]' <<<"$OUT")" "cake bandwidth 223250kbit"
assert_contains "audit: the no-bql advice at that rate" \
	"$(jq -r '.interfaces[0].findings[] | select(.code == "no-bql") | .recommendation' <<<"$OUT")" \
	"bandwidth 223250kbit"
assert_contains "audit: the no-bql advice shapes the download too" \
	"$(jq -r '.interfaces[0].findings[] | select(.code == "no-bql") | .recommendation' <<<"$OUT")" \
	"a transmit-only shaper cannot hold while the board also receives"
assert_contains "audit: the fix section's commands make the ifb" \
	"$(jq -r '.fix.interfaces[0].commands[]' <<<"$OUT")" "ifb"
assert_eq "audit: the machine it read" '["wand,imx6q-wandboard","fsl,imx6q"]' \
	"$(jq -c .machine_compatible <<<"$OUT")"
run "$DEBLOAT" audit --from "$FIX/raspberry-pi-3bplus.json" --json
assert_eq "audit: the Pi 3B+'s USB speed" 480 "$(jq '.interfaces[0].usb_speed_mbps' <<<"$OUT")"
run "$DEBLOAT" audit --from "$FIX/raspberry-pi-3bplus.json"
assert_contains "audit text: the Pi 3B+'s rate source" "$(tr '\n' ' ' <<<"$OUT" | tr -s ' ')" \
	"rate source: drivers table: lan78xx on USB 2, 300 Mbit/s shared by transmit and receive"

# --- usage ---
run "$DEBLOAT" fix --from "$FIX/wandboard.json"
assert_status "--from without --dry-run is a usage error" 2
assert_contains "... saying why" "$ERR" "give --dry-run"
assert_eq "... and printing no plan" "" "$OUT"
run "$DEBLOAT" fix --from "$FIX/wandboard.json" --dry-run --persist
assert_status "--from with --persist is a usage error" 2
run "$DEBLOAT" fix --dry-run --from
assert_status "--from without a file is a usage error" 2
run "$DEBLOAT" fix --from "$FIX/wandboard.json" --dry-run wlan0
assert_status "an interface the snapshot lacks is exit 1" 1
assert_contains "... and says which" "$ERR" "has no interface wlan0"
run "$DEBLOAT" fix --from "$TMP/nosuch.json" --dry-run
assert_status "a missing snapshot is exit 1" 1
assert_contains "... naming it" "$ERR" "cannot read snapshot $TMP/nosuch.json"

finish
