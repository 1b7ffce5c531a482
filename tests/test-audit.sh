#!/usr/bin/env bash
# test-audit.sh - `debloat audit` on links whose queues we set up ourselves, in a
# network namespace of our own (the host's interfaces are never touched):
#
#   netns dbt-audit-$$
#   +------------------------------------------------------------------------------+
#   |  dbt0 (veth) <--------------------------------------------> dbt1 (veth)      |
#   |  root pfifo limit 1000                     root htb 1: default 10            |
#   |  mtu 1400, txqueuelen 500                  class 1:10 rate 10mbit            |
#   |                                            leaf 10: pfifo limit 100          |
#   |                                                                              |
#   |  dbt2 (veth) <--------------------------------------------> dbt3 (veth)      |
#   |  root bfifo limit 30000                    root tbf rate 5mbit               |
#   |                                                                              |
#   |  dbt4 (veth, 4 TX queues) <---------------------------------> dbt5 (veth)    |
#   |  root mq 1: (pfifo_fast on 1:1)            noqueue (the veth default)        |
#   |                                                                              |
#   |  dbt-tun (tun, down: noop)                 lo (noqueue; never graded)        |
#   +------------------------------------------------------------------------------+
#
# Each link's kind, qdisc tree with decoded options, txqueuelen and MTU are checked in
# JSON, the fifo finding and its delay where the drain rate is known, and the text
# report for the same facts; a name the namespace does not have is exit 1.
# run.sh: parallel
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_netns
require_cmd jq
require_debloat

NS=dbt-audit-$$
netns_add "$NS"
nsrun() { ip netns exec "$NS" "$@"; }

nsrun ip link set lo up
nsrun ip link add dbt0 type veth peer name dbt1
nsrun ip link add dbt2 type veth peer name dbt3
nsrun ip link add dbt4 numtxqueues 4 numrxqueues 4 type veth peer name dbt5
for i in 0 1 2 3 4 5; do nsrun ip link set "dbt$i" up; done
nsrun ip link set dbt0 mtu 1400 txqueuelen 500
nsrun tc qdisc add dev dbt0 root pfifo limit 1000
nsrun tc qdisc add dev dbt1 root handle 1: htb default 10
nsrun tc class add dev dbt1 parent 1: classid 1:10 htb rate 10mbit
nsrun tc qdisc add dev dbt1 parent 1:10 handle 10: pfifo limit 100
nsrun tc qdisc add dev dbt2 root bfifo limit 30000
nsrun tc qdisc add dev dbt3 root tbf rate 5mbit burst 10k latency 50ms
nsrun tc qdisc add dev dbt4 root handle 1: mq
have_tun=0
if nsrun ip tuntap add dev dbt-tun mode tun 2>/dev/null; then
	have_tun=1
fi

# --- dbt0: a pfifo of 1000 packets at the root ---
run nsrun "$DEBLOAT" audit dbt0 --json
assert_status "audit dbt0 --json exits 0" 0
j=$OUT
assert_eq "one interface asked, one reported" 1 "$(jq '.interfaces | length' <<<"$j")"
i='.interfaces[0]'
assert_eq "dbt0 name" dbt0 "$(jq -r "$i.name" <<<"$j")"
assert_eq "dbt0 kind is veth" veth "$(jq -r "$i.kind" <<<"$j")"
assert_eq "dbt0 is not physical" false "$(jq -r "$i.physical" <<<"$j")"
assert_eq "dbt0 mtu" 1400 "$(jq -r "$i.mtu" <<<"$j")"
assert_eq "dbt0 txqueuelen" 500 "$(jq -r "$i.txqueuelen" <<<"$j")"
assert_eq "dbt0 ifindex matches the kernel" \
	"$(nsrun cat /sys/class/net/dbt0/ifindex)" "$(jq -r "$i.ifindex" <<<"$j")"
assert_eq "dbt0 driver" veth "$(jq -r "$i.driver" <<<"$j")"
assert_eq "dbt0 qdisc kind" pfifo "$(jq -r "$i.qdisc.kind" <<<"$j")"
assert_eq "dbt0 qdisc is the root" root "$(jq -r "$i.qdisc.parent" <<<"$j")"
assert_eq "dbt0 pfifo limit" 1000 "$(jq -r "$i.qdisc.limit_packets" <<<"$j")"
assert_eq "dbt0 pfifo has no children" 0 "$(jq "$i.qdisc.children | length" <<<"$j")"
assert_eq "dbt0 has the fifo-qdisc finding" 1 \
	"$(jq "[$i.findings[] | select(.code == \"fifo-qdisc\")] | length" <<<"$j")"
assert_eq "the finding's evidence is the pfifo's limit" 1000 \
	"$(jq "$i.findings[] | select(.code == \"fifo-qdisc\") | .evidence.limit_packets" <<<"$j")"
assert_eq "no txqueuelen finding at veth speed" 0 \
	"$(jq "[$i.findings[] | select(.code == \"txqueuelen-long\")] | length" <<<"$j")"
speed=$(jq -r "$i.speed_mbps" <<<"$j")
if [[ "$speed" =~ ^[0-9]+$ ]] && [ "$speed" -gt 0 ]; then
	# 1000 frames of 1400 + 38 bytes at the link's speed, in microseconds ...
	want=$(((1000 * 1438 * 8 + speed / 2) / speed))
	assert_eq "fifo delay at least 1000 x 1438 B at $speed Mbit/s" "$want" \
		"$(jq "$i.findings[] | select(.code == \"fifo-qdisc\") | .delay_min_us" <<<"$j")"
	# ... and at most 1000 GSO packets, as far as 4 flows' TSQ allowance lets them queue.
	gso=$(nsrun ip -d link show dbt0 | grep -o 'gso_max_size [0-9]*' | cut -d' ' -f2)
	tsq=$(nsrun sysctl -n net.ipv4.tcp_limit_output_bytes)
	most=$((1000 * gso < 4 * tsq ? 1000 * gso : 4 * tsq))
	want=$(((most * 8 + speed / 2) / speed))
	assert_eq "fifo delay at most $most B of GSO packets at $speed Mbit/s" "$want" \
		"$(jq "$i.findings[] | select(.code == \"fifo-qdisc\") | .delay_us" <<<"$j")"
	assert_eq "dbt0 is graded" true "$(jq "$i.grade != null" <<<"$j")"
else
	echo "SKIP delay checks: veth reports no speed on this kernel"
fi

# --- the same facts in text ---
run nsrun "$DEBLOAT" audit dbt0
assert_status "audit dbt0 (text) exits 0" 0
assert_contains "text names the link and its kind" "$OUT" "dbt0: kind veth"
assert_contains "text shows mtu and txqueuelen" "$OUT" "mtu 1400 txqueuelen 500"
assert_contains "text shows the decoded qdisc" "$OUT" "qdisc pfifo"
assert_contains "text shows the pfifo limit" "$OUT" "root limit 1000p"
assert_contains "text shows the finding" "$OUT" "fifo-qdisc: pfifo at the root queues up to 1000 packets"
assert_contains "text shows what fix would do" "$OUT" "to fix it, \`debloat fix IFACE\` does this"
want=$(nsrun "$DEBLOAT" fix --dry-run --json dbt0 |
	jq -r '.interfaces[0].steps[] | select(.knob == "root-qdisc") | .after')
assert_contains "  with the root qdisc fix plans ($want)" "$OUT" \
	"tc qdisc replace dev dbt0 root handle 1: $want"
if ! nsrun "$DEBLOAT" audit --json dbt0 | jq -e '.qdisc_available.fq_codel' >/dev/null; then
	assert_not_contains "  and no fq_codel where this kernel has none" \
		"$(sed -n '/^to fix it/,$p' <<<"$OUT")" "fq_codel"
fi

# --- audit's commands have fix's effect: typed into one namespace, fix in another ---
NS2=dbt-audit2-$$
netns_add "$NS2"
for ns in "$NS" "$NS2"; do
	ip -n "$ns" link add dbt8 type veth peer name dbt9
	ip -n "$ns" link set dbt8 up
	ip netns exec "$ns" tc qdisc add dev dbt8 root pfifo limit 1000
done
cmds=$(nsrun "$DEBLOAT" audit --json dbt8 | jq -r '.fix.interfaces[0].commands[]')
assert_true "audit lists commands for dbt8" test -n "$cmds"
while read -r c; do
	# shellcheck disable=SC2086 # each line is one command, split into words
	nsrun $c >/dev/null
done <<<"$cmds"
ip netns exec "$NS2" "$DEBLOAT" fix --state-dir "$(mktemp -d)" dbt8 >/dev/null
look() { # the interface as tc and ip see it, handles aside
	ip netns exec "$1" sh -c 'tc qdisc show dev dbt8; tc class show dev dbt8;
		ip -d link show dev dbt8 | grep -o "qlen [0-9]*\|gso_max_size [0-9]*"'
}
assert_eq "  typed, they leave dbt8 as debloat fix does" "$(look "$NS2")" "$(look "$NS")"

# --- dbt1: htb with a pfifo leaf ---
run nsrun "$DEBLOAT" audit dbt1 --json
j=$OUT
assert_eq "dbt1 qdisc kind" htb "$(jq -r "$i.qdisc.kind" <<<"$j")"
assert_eq "dbt1 htb handle" "1:" "$(jq -r "$i.qdisc.handle" <<<"$j")"
assert_eq "dbt1 htb default class (0x10)" 16 "$(jq -r "$i.qdisc.default_class" <<<"$j")"
assert_eq "dbt1 htb has one leaf" 1 "$(jq "$i.qdisc.children | length" <<<"$j")"
assert_eq "dbt1 leaf kind" pfifo "$(jq -r "$i.qdisc.children[0].kind" <<<"$j")"
assert_eq "dbt1 leaf parent" "1:10" "$(jq -r "$i.qdisc.children[0].parent" <<<"$j")"
assert_eq "dbt1 leaf limit" 100 "$(jq -r "$i.qdisc.children[0].limit_packets" <<<"$j")"
assert_eq "dbt1 leaf: its htb class's rate, read from the class dump" 10000000 \
	"$(jq -r "$i.qdisc.children[0].class_rate_bps" <<<"$j")"
assert_eq "the leaf's FIFO drains at the class's rate" 10000000 \
	"$(jq -r "$i.findings[] | select(.code == \"fifo-qdisc\") | .evidence.rate_bps" <<<"$j")"
assert_eq "... so its delay is known" true \
	"$(jq "$i.findings[] | select(.code == \"fifo-qdisc\") | .delay_us > 100000" <<<"$j")"
assert_eq "so dbt1 is graded (a 100-packet FIFO at 10 Mbit/s)" true \
	"$(jq "$i.grade != null" <<<"$j")"

# --- dbt2 and dbt3: bfifo and tbf ---
run nsrun "$DEBLOAT" audit dbt2 dbt3 --json
j=$OUT
assert_eq "interfaces come in the order named" "dbt2 dbt3" \
	"$(jq -r '[.interfaces[].name] | join(" ")' <<<"$j")"
assert_eq "dbt2 bfifo limit in bytes" 30000 "$(jq -r '.interfaces[0].qdisc.limit_bytes' <<<"$j")"
assert_eq "dbt3 tbf rate" 5000000 "$(jq -r '.interfaces[1].qdisc.rate_bps' <<<"$j")"
assert_eq "dbt3 tbf alone is no FIFO finding" 0 "$(jq '.interfaces[1].findings | length' <<<"$j")"

# --- dbt4: mq and its per-queue children; dbt5: the veth default ---
run nsrun "$DEBLOAT" audit dbt4 dbt5 --json
j=$OUT
assert_eq "dbt4 tx queues" 4 "$(jq -r '.interfaces[0].tx_queues' <<<"$j")"
assert_eq "dbt4 root is mq" mq "$(jq -r '.interfaces[0].qdisc.kind' <<<"$j")"
assert_eq "dbt4 mq's first child sits on queue 1:1" "1:1" \
	"$(jq -r '.interfaces[0].qdisc.children[0].parent' <<<"$j")"
assert_eq "dbt5 has noqueue" noqueue "$(jq -r '.interfaces[1].qdisc.kind' <<<"$j")"
assert_eq "dbt5 has no findings" 0 "$(jq '.interfaces[1].findings | length' <<<"$j")"
assert_eq "dbt5 grades A+" "A+" "$(jq -r '.interfaces[1].grade' <<<"$j")"

# --- tun and loopback ---
if [ "$have_tun" -eq 1 ]; then
	run nsrun "$DEBLOAT" audit dbt-tun --json
	assert_eq "tun kind" tun "$(jq -r '.interfaces[0].kind' <<<"$OUT")"
	assert_eq "a down tun's root is noop" noop "$(jq -r '.interfaces[0].qdisc.kind' <<<"$OUT")"
else
	echo "SKIP tun checks: cannot create a tun device here"
fi
run nsrun "$DEBLOAT" audit --json
assert_status "audit of the whole namespace exits 0" 0
assert_eq "lo is listed" loopback \
	"$(jq -r '.interfaces[] | select(.name == "lo") | .kind' <<<"$OUT")"
assert_eq "lo is never graded" null \
	"$(jq -r '.interfaces[] | select(.name == "lo") | .grade' <<<"$OUT")"
assert_eq "the host's interfaces are not seen from here" 0 \
	"$(jq '[.interfaces[] | select(.name | startswith("dbt") or . == "lo" | not)] | length' <<<"$OUT")"

# --- errors ---
run nsrun "$DEBLOAT" audit dbt0 nosuch9
assert_status "an unknown interface exits 1" 1
assert_contains "and says which and why" "$ERR" \
	"debloat: audit: cannot find interface nosuch9: No such device"
assert_eq "and prints no partial report" "" "$OUT"

# Without root: what a user may read is reported, and the run still succeeds.
if command -v setpriv >/dev/null; then
	run nsrun setpriv --reuid=65534 --regid=65534 --clear-groups "$DEBLOAT" audit dbt0 --json
	assert_status "audit works as an unprivileged user" 0
	assert_eq "and still decodes the qdisc" pfifo "$(jq -r '.interfaces[0].qdisc.kind' <<<"$OUT")"
	assert_eq "and txqueuelen" 500 "$(jq -r '.interfaces[0].txqueuelen' <<<"$OUT")"
fi

finish
