#!/usr/bin/env bash
# test-audit-device.sh - what `debloat audit` reads below the qdisc and about the
# kernel: ethtool offloads by feature name and rings, the kernel release, and which
# qdisc kinds the kernel can make, in a network namespace of our own:
#
#   netns dbt-dev-$$
#   +--------------------------------------------------------------+
#   |  dbd0 (veth) <-------------------------------> dbd1 (veth)   |
#   |  ethtool -K tso off gso off                    defaults:     |
#   |  root pfifo limit 100                          tso/gso on    |
#   +--------------------------------------------------------------+
#
# veth has no ring parameters (EOPNOTSUPP): rings are null and not "unreadable".
# run.sh: parallel
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_netns
require_cmd jq ethtool
require_debloat

NS=dbt-dev-$$
netns_add "$NS"
nsrun() { ip netns exec "$NS" "$@"; }

nsrun ip link add dbd0 type veth peer name dbd1
nsrun ip link set dbd0 up
nsrun ip link set dbd1 up
nsrun ethtool -K dbd0 tso off gso off
nsrun tc qdisc replace dev dbd0 root pfifo limit 100

run nsrun "$DEBLOAT" audit --json dbd0 dbd1
assert_eq "audit exits 0" 0 "$RC"
j=$OUT
assert_eq "tso off where we turned it off" false "$(jq '.interfaces[0].offloads.tso' <<<"$j")"
assert_eq "gso off where we turned it off" false "$(jq '.interfaces[0].offloads.gso' <<<"$j")"
assert_eq "the peer keeps tso on" true "$(jq '.interfaces[1].offloads.tso' <<<"$j")"
assert_eq "the peer keeps gso on" true "$(jq '.interfaces[1].offloads.gso' <<<"$j")"
assert_eq "lro is a known bool" boolean "$(jq -r '.interfaces[1].offloads.lro | type' <<<"$j")"
assert_eq "veth rings are null" "null null null null" \
	"$(jq -r '.interfaces[0].rings | "\(.tx) \(.tx_max) \(.rx) \(.rx_max)"' <<<"$j")"
assert_eq "unsupported rings are not unreadable" 0 \
	"$(jq '[.interfaces[0].unreadable[] | select(.what == "rings")] | length' <<<"$j")"
assert_eq "kernel_release is uname -r" "$(uname -r)" "$(jq -r '.kernel_release' <<<"$j")"
assert_eq "hostname is a string" string "$(jq -r '.hostname | type' <<<"$j")"
assert_eq "eight qdisc kinds judged" \
	"cake codel fq fq_codel htb pfifo pfifo_fast tbf" \
	"$(jq -r '.qdisc_available | keys | join(" ")' <<<"$j")"
assert_eq "pfifo is always there" true "$(jq '.qdisc_available.pfifo' <<<"$j")"
assert_eq "pfifo_fast is always there" true "$(jq '.qdisc_available.pfifo_fast' <<<"$j")"

# Where this kernel says it lacks fq_codel, the fifo's fix comes with a fallback.
fq_codel=$(jq '.qdisc_available.fq_codel' <<<"$j")
unavailable=$(jq '[.interfaces[0].findings[] | select(.code == "qdisc-unavailable")] | length' \
	<<<"$j")
if [ "$fq_codel" = false ]; then
	assert_eq "no fq_codel: qdisc-unavailable on the FIFO link" 1 "$unavailable"
else
	assert_eq "fq_codel $fq_codel: no qdisc-unavailable" 0 "$unavailable"
fi

run nsrun "$DEBLOAT" audit dbd0
# (text wraps at 80 columns: read it with its line breaks as blanks)
flat=$(tr '\n' ' ' <<<"$OUT" | tr -s ' ')
assert_contains "text shows the offloads" "$flat" "offloads tso no gso no"
assert_contains "text shows unknown rings" "$OUT" "ring tx unknown"
assert_contains "text shows the kernel" "$OUT" "kernel $(uname -r)"
assert_contains "text shows qdisc availability" "$OUT" "qdiscs available: fq_codel"
finish
