#!/usr/bin/env bash
# test-snapshot.sh - `debloat snapshot` then `debloat audit --from` gives the audit a
# live run gives, in a network namespace of our own where nothing moves between the
# reads (no traffic, no changes):
#
#   netns dbt-snap-$$
#   +----------------------------------------------------------------------------+
#   |  sa (veth) <----------------------------------------------------> sb (veth) |
#   |  root htb 1: default 10, class 1:10 rate 50mbit    root tbf rate 10mbit    |
#   |    leaf 10: pfifo limit 1000                                                |
#   |  sc (veth, 4 TX queues) <----------------------------------------> sd (veth)|
#   |  root mq 1: (default leaves)                        root bfifo limit 30000  |
#   |  st (tun, down: noop)                               lo (down)               |
#   +----------------------------------------------------------------------------+
#
# Checked: the JSON and text reports match (but for the snapshot note), -o writes a
# file atomically and leaves no temporary behind, IFACE narrows the snapshot, and a
# name the namespace lacks is exit 1 with nothing written.
# run.sh: parallel
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_netns
require_cmd jq
require_debloat

NS=dbt-snap-$$
netns_add "$NS"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"; cleanup' EXIT
nsrun() { ip netns exec "$NS" "$@"; }

# No IPv6: its router solicitations and DAD would send packets between the reads.
nsrun sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 \
	2>/dev/null || true
nsrun ip link add sa type veth peer name sb
nsrun ip link add sc numtxqueues 4 numrxqueues 4 type veth peer name sd
for l in sa sb sc sd; do nsrun ip link set "$l" up; done
nsrun tc qdisc add dev sa root handle 1: htb default 10
nsrun tc class add dev sa parent 1: classid 1:10 htb rate 50mbit 2>/dev/null
nsrun tc qdisc add dev sa parent 1:10 handle 10: pfifo limit 1000
nsrun tc qdisc add dev sb root tbf rate 10mbit burst 10k latency 50ms
nsrun tc qdisc add dev sc root handle 1: mq
nsrun tc qdisc add dev sd root bfifo limit 30000
nsrun ip tuntap add dev st mode tun 2>/dev/null || true

run nsrun "$DEBLOAT" snapshot -o "$TMP/ns.json" -n "test-snapshot.sh namespace"
assert_status "snapshot -o exits 0" 0
assert_eq "snapshot -o prints nothing" "" "$OUT"
assert_eq "no temporary file left beside it" "ns.json" "$(ls -A "$TMP")"
assert_eq "the format version" 1 "$(jq '.debloat_snapshot' "$TMP/ns.json")"
assert_eq "the note is the source" "test-snapshot.sh namespace" "$(jq -r '.source' "$TMP/ns.json")"
assert_eq "captured, not constructed" false "$(jq '.constructed' "$TMP/ns.json")"
run nsrun "$DEBLOAT" audit --json
assert_status "live audit exits 0" 0
live=$OUT
run "$DEBLOAT" audit --from "$TMP/ns.json" --json
assert_status "audit --from exits 0" 0
from=$OUT
assert_eq "audit --from has every interface" "$(jq -c '[.interfaces[].name]' <<<"$live")" \
	"$(jq -c '[.interfaces[].name]' <<<"$from")"
# Equal, or the first lines that differ.
same_json() {
	local d
	if d=$(diff <(jq -S . <<<"$2") <(jq -S 'del(.snapshot)' <<<"$3")); then
		pass "$1"
	else
		fail "$1: $(head -n 20 <<<"$d")"
	fi
}
same_json "audit --from JSON = live audit JSON (but the snapshot note)" "$live" "$from"
assert_eq "the note says snapshot, captured" "false $TMP/ns.json" \
	"$(jq -r '"\(.snapshot.constructed) \(.snapshot.file)"' <<<"$from")"
run nsrun "$DEBLOAT" audit
live=$OUT
run "$DEBLOAT" audit --from "$TMP/ns.json"
assert_eq "audit --from text = live audit text (after the note)" "$live" \
	"$(tail -n +4 <<<"$OUT")"
assert_contains "the text note" "$(head -n 2 <<<"$OUT")" "source: test-snapshot.sh namespace"

# stdout, narrowed to two interfaces in the order named
run nsrun "$DEBLOAT" snapshot sb sa
assert_status "snapshot sb sa exits 0" 0
assert_eq "snapshot IFACE... keeps those, in order" '["sb","sa"]' \
	"$(jq -c '[.interfaces[].name]' <<<"$OUT")"
printf '%s\n' "$OUT" >"$TMP/two.json"
run "$DEBLOAT" audit --from "$TMP/two.json" --json sa
assert_eq "audit --from FILE IFACE narrows again" '["sa"]' "$(jq -c '[.interfaces[].name]' <<<"$OUT")"
assert_eq "the htb tree came through" "htb pfifo 1000" \
	"$(jq -r '.interfaces[0].qdisc | "\(.kind) \(.children[0].kind) \(.children[0].limit_packets)"' <<<"$OUT")"

run nsrun "$DEBLOAT" snapshot -o "$TMP/bad.json" nosuch0
assert_status "a name the namespace lacks is exit 1" 1
assert_contains "... and says which" "$ERR" "cannot find interface nosuch0"
if [ ! -e "$TMP/bad.json" ]; then pass "... and writes no file"; else fail "... and writes no file"; fi
run nsrun "$DEBLOAT" snapshot -o "$TMP/nosuchdir/x.json"
assert_status "an unwritable -o is exit 1" 1
assert_contains "... naming the file" "$ERR" "cannot write $TMP/nosuchdir/x.json"

finish
