#!/usr/bin/env bash
# test-fix-knob.sh - every kind of knob `debloat fix` changes, written and read back on
# a real kernel through build/tests/knob-tool (tests/knob-tool.c over src/fix/knob.h),
# with the kernel's own view (tc -j, ip -j, sysfs, /proc/sys, ethtool) as the judge.
#
#	[ ns dbt-knob-$$ ]
#	   v0 <--veth, 4 TX queues--> v1        root qdisc, txqueuelen, offloads, rings
#	   ifbk (ifb, 4 TX queues: mq 0: with  BQL limit_max; mq trees over the
#	         pfifo_fast children, and BQL)  kernel's own mq
#	   the namespace's own sysctls          net.ipv4.tcp_ecn; net.core.default_qdisc
#	                                        (absent outside the initial namespace)
#
# This kernel lacks fq_codel, fq and cake: writing them must fail with ENOENT and the
# kernel's words, and leave the tree that was there (whole: a tree that failed halfway
# is rolled back). Nothing outside the namespace is touched; the host's tcp_ecn is
# checked unchanged at the end.

# run.sh: parallel
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_netns
require_cmd jq

if [ ! -x "$BUILD/tests/knob-tool" ]; then
	fail "no $BUILD/tests/knob-tool (build first)"
	finish || exit 1
fi
# Our own copy: a rebuild of the tree while this runs must not swap the tool under us.
T=$(mktemp -d)
trap 'rm -rf "$T"; cleanup' EXIT
cp "$BUILD/tests/knob-tool" "$T/knob-tool"
TOOL=$T/knob-tool

NS=dbt-knob-$$
netns_add "$NS"
ip -n "$NS" link add v0 numtxqueues 4 numrxqueues 4 type veth peer name v1 \
	numtxqueues 4 numrxqueues 4
ip -n "$NS" link set v0 up
ip -n "$NS" link set v1 up
host_ecn=$(cat /proc/sys/net/ipv4/tcp_ecn)

knob() { run ip netns exec "$NS" "$TOOL" "$@"; }
in_ns() { ip netns exec "$NS" "$@"; }
root_kind() { tc -n "$NS" -j qdisc show dev v0 | jq -r '.[] | select(.root == true) | .kind'; }
root_handle() { tc -n "$NS" -j qdisc show dev v0 | jq -r '.[] | select(.root == true) | .handle'; }
expect_read() { # expect_read DESC WANT ARGS...: knob-tool read ARGS prints WANT
	local desc=$1 want=$2
	shift 2
	knob read "$@"
	assert_eq "$desc" "$want" "$OUT"
}

# --- txqueuelen ----------------------------------------------------------------------
expect_read "txqueuelen of a new veth is 1000" 1000 txqueuelen v0
knob write txqueuelen v0 100
assert_status "txqueuelen 100 is written" 0
expect_read "txqueuelen reads back 100" 100 txqueuelen v0
assert_eq "ip sees txqlen 100" 100 "$(ip -n "$NS" -j link show v0 | jq '.[0].txqlen')"
knob write txqueuelen v0 lots
assert_status "txqueuelen lots is refused" 1
assert_contains "... as EINVAL naming the value" "$ERR" "EINVAL"
assert_contains "... naming the value" "$ERR" "lots"
knob read txqueuelen nosuch0
assert_contains "an unknown interface is ENODEV" "$ERR" "ENODEV"

# --- the root qdisc ------------------------------------------------------------------
expect_read "a new veth's noqueue reads as default" default root-qdisc v0
knob write root-qdisc v0 default
assert_status "default over the kernel's own root is a no-op" 0
assert_eq "... leaving noqueue" noqueue "$(root_kind)"

knob write root-qdisc v0 "pfifo limit 100"
assert_status "pfifo limit 100 is written" 0
expect_read "pfifo limit 100 reads back" "pfifo limit 100" root-qdisc v0
assert_eq "tc sees pfifo at 1:" "pfifo 1:" "$(root_kind) $(root_handle)"
assert_eq "tc sees limit 100" 100 \
	"$(tc -n "$NS" -j qdisc show dev v0 | jq '.[] | select(.root == true) | .options.limit')"

knob write root-qdisc v0 "htb 95mbit pfifo"
assert_status "htb 95mbit pfifo replaces it" 0
knob read root-qdisc v0
htb_spec=$OUT
assert_eq "htb reads back (pfifo's limit is the link's txqueuelen)" \
	"htb 95mbit pfifo limit 100" "$htb_spec"
run "$TOOL" equal root-qdisc "htb 95mbit pfifo" "$htb_spec"
assert_status "... which equals what was written" 0
assert_eq "tc sees htb at 4001: (1: was the tree it replaced)" "htb 4001:" \
	"$(root_kind) $(root_handle)"
# tc 6.1 prints htb classes as text even with -j
classes() {
	tc -n "$NS" class show dev v0 |
		sed -E 's/^class ([^ ]+) ([^ ]+) ([^ ]+) .*rate ([^ ]+) ceil ([^ ]+).*/\1 \2 \3 \4 \5/'
}
assert_eq "one class 4001:1 at the top, rate = ceil = 95 Mbit/s" "htb 4001:1 root 95Mbit 95Mbit" \
	"$(classes)"
assert_eq "pfifo is its leaf" "pfifo 4001:1" \
	"$(tc -n "$NS" -j qdisc show dev v0 | jq -r '.[] | select(.parent == "4001:1") | "\(.kind) \(.parent)"')"

# A kind this kernel lacks: refused whole, the htb tree stays.
knob write root-qdisc v0 fq_codel
assert_status "fq_codel fails here" 1
assert_contains "... with ENOENT" "$ERR" "ENOENT"
assert_contains "... and the kernel's words" "$ERR" "qdisc kind is unknown"
expect_read "the htb tree is still there" "$htb_spec" root-qdisc v0
knob write root-qdisc v0 "htb 50mbit fq_codel"
assert_status "an htb tree with an fq_codel leaf fails at its last step" 1
assert_contains "... with ENOENT" "$ERR" "ENOENT"
expect_read "... and the previous tree is rebuilt" "$htb_spec" root-qdisc v0
assert_contains "... at 95 Mbit/s again" "$(classes)" "root 95Mbit 95Mbit"
knob write root-qdisc v0 "mq fq_codel"
assert_status "mq with fq_codel children fails at its first child" 1
expect_read "... and the htb tree is rebuilt" "$htb_spec" root-qdisc v0

knob write root-qdisc v0 "mq pfifo limit 50"
assert_status "mq with pfifo children is written" 0
expect_read "mq reads back" "mq pfifo limit 50" root-qdisc v0
qd=$(tc -n "$NS" -j qdisc show dev v0)
assert_eq "tc sees mq at the root" mq "$(root_kind)"
assert_eq "... with four pfifo children of limit 50" "pfifo:50 pfifo:50 pfifo:50 pfifo:50" \
	"$(jq -r '[.[] | select(.root != true) | "\(.kind):\(.options.limit)"] | join(" ")' <<<"$qd")"
knob write root-qdisc v0 "mq pfifo limit 50"
assert_status "writing the same tree again works" 0
expect_read "... and reads the same" "mq pfifo limit 50" root-qdisc v0
assert_eq "... with the old tree gone: one root and four children" 5 \
	"$(tc -n "$NS" -j qdisc show dev v0 | jq length)"

knob write root-qdisc v0 pfifo_fast
assert_status "pfifo_fast is written" 0
assert_eq "... tc sees it at the root" pfifo_fast "$(root_kind)"
expect_read "... and reads back as written, though it is also a default" pfifo_fast \
	root-qdisc v0
tc -n "$NS" qdisc replace dev v0 root handle 7: pfifo_fast
# someone's pfifo_fast is theirs (on a veth, deleting it would leave noqueue): a spec
expect_read "someone else's pfifo_fast reads as itself, not as the default" pfifo_fast \
	root-qdisc v0

knob write root-qdisc v0 "bfifo limit 64kb"
assert_status "bfifo is written" 0
expect_read "bfifo reads back" "bfifo limit 64kb" root-qdisc v0

knob write root-qdisc v0 "other: htb 1: with 3 classes"
assert_status "an other: value is refused" 1
assert_contains "... as EINVAL" "$ERR" "EINVAL"
knob write root-qdisc v0 "fq_codel quantom 300"
assert_contains "a misspelt option is EINVAL naming it" "$ERR" "quantom"
expect_read "... nothing changed" "bfifo limit 64kb" root-qdisc v0

# Someone else's tree: read as other, never as a spec.
tc -n "$NS" qdisc replace dev v0 root handle 5: tbf rate 10mbit burst 10kb latency 50ms
expect_read "a tbf is other" "other: tbf 5:" root-qdisc v0
# ... and one built by hand the way debloat builds it, but taking both numberings' roots.
tc -n "$NS" qdisc replace dev v0 root handle 1: htb default 1
tc -n "$NS" class add dev v0 parent 1: classid 1:1 htb rate 10mbit 2>/dev/null
tc -n "$NS" qdisc add dev v0 parent 1:1 handle 4001: pfifo
expect_read "a hand-made htb like ours reads as its spec" "htb 10mbit pfifo limit 100" \
	root-qdisc v0
knob write root-qdisc v0 "pfifo limit 10"
assert_contains "with 1: and 4001: both taken, writing is EBUSY" "$ERR" "EBUSY"
expect_read "... and nothing changed" "htb 10mbit pfifo limit 100" root-qdisc v0

knob write root-qdisc v0 default
assert_status "default deletes the root" 0
assert_eq "... and the kernel puts noqueue back" noqueue "$(root_kind)"
expect_read "... which reads as default" default root-qdisc v0
knob write root-qdisc v0 "mq fq_codel"
assert_status "mq fq_codel over the default fails" 1
assert_eq "... and the root is deleted again: noqueue" noqueue "$(root_kind)"

# A multi-queue device with a queue: the kernel's own mq 0: with pfifo_fast children.
ip -n "$NS" link add ifbk numtxqueues 4 type ifb
ip -n "$NS" link set ifbk up
kernel_tree=$(tc -n "$NS" qdisc show dev ifbk)
expect_read "the kernel's mq 0: reads as default" default root-qdisc ifbk
knob write root-qdisc ifbk "mq pfifo limit 20"
assert_status "mq pfifo limit 20 replaces it" 0
expect_read "... and reads back" "mq pfifo limit 20" root-qdisc ifbk
knob write root-qdisc ifbk "mq fq_codel"
assert_status "mq fq_codel fails at its first child" 1
expect_read "... and mq pfifo limit 20 is rebuilt" "mq pfifo limit 20" root-qdisc ifbk
knob write root-qdisc ifbk default
assert_status "default deletes our mq" 0
assert_eq "... and the kernel's tree is back as it was" "$kernel_tree" \
	"$(tc -n "$NS" qdisc show dev ifbk)"

# --- BQL ------------------------------------------------------------------------------
limit_file=/sys/class/net/ifbk/queues/tx-0/byte_queue_limits/limit_max
if in_ns test -e "$limit_file"; then
	expect_read "BQL limit_max starts at the kernel's max" 1879048192 bql-limit-max ifbk 0
	knob write bql-limit-max ifbk 0 3000
	assert_status "limit_max 3000 is written" 0
	expect_read "... reads back" 3000 bql-limit-max ifbk 0
	assert_eq "... and sysfs says so" 3000 "$(in_ns cat "$limit_file")"
	knob write bql-limit-max ifbk 0 max
	expect_read "max restores the default" 1879048192 bql-limit-max ifbk 0
	knob read bql-limit-max ifbk 9
	assert_contains "a TX queue that does not exist is ENOENT" "$ERR" "ENOENT"
else
	note="(ifb has no byte_queue_limits on this kernel)"
	knob read bql-limit-max ifbk 0
	assert_contains "BQL without the directory is ENOENT $note" "$ERR" "ENOENT"
fi
knob read bql-limit-max v0 0
if [ "$RC" -eq 0 ]; then
	pass "veth has BQL files on this kernel ($OUT)"
else
	assert_contains "veth without BQL files is ENOENT" "$ERR" "ENOENT"
fi

# --- offloads -------------------------------------------------------------------------
expect_read "TSO is on on a veth" on offload v0 tx-tcp-segmentation
knob write offload v0 tx-tcp-segmentation off
assert_status "TSO off is written" 0
expect_read "... reads back off" off offload v0 tx-tcp-segmentation
if command -v ethtool >/dev/null; then
	assert_contains "ethtool sees it off" "$(in_ns ethtool -k v0)" "tx-tcp-segmentation: off"
fi
knob write offload v0 tx-tcp-segmentation on
expect_read "TSO back on" on offload v0 tx-tcp-segmentation
knob write offload v0 rx-lro on
assert_status "LRO on a veth (fixed off) fails" 1
assert_contains "... with EOPNOTSUPP" "$ERR" "EOPNOTSUPP"
knob read offload v0 no-such-feature
assert_contains "an unknown feature is ENOENT" "$ERR" "ENOENT"

# --- rings ----------------------------------------------------------------------------
knob read ring-tx v0
if [ "$RC" -eq 0 ]; then
	old=$OUT
	knob write ring-tx v0 "$old"
	assert_status "rewriting the TX ring size works where the driver has rings" 0
else
	assert_contains "veth has no rings: EOPNOTSUPP" "$ERR" "EOPNOTSUPP"
	knob write ring-tx v0 64
	assert_contains "... and cannot set them: EOPNOTSUPP" "$ERR" "EOPNOTSUPP"
fi

# --- gso_max_size and the download shaper (ingress through an ifb) ---------------------
expect_read "gso_max_size reads the kernel's 65536" 65536 gso-max-size v0
knob write gso-max-size v0 3028
assert_status "gso_max_size 3028 is written" 0
assert_contains "ip sees it" "$(ip -n "$NS" -d link show v0)" "gso_max_size 3028"
knob write gso-max-size v0 65536
knob write gso-max-size v0 0
assert_contains "gso_max_size 0 is refused: EINVAL" "$ERR" "EINVAL"
expect_read "no ingress qdisc reads as default" default ingress v0
knob write ingress v0 "htb 50mbit bfifo limit 196608"
assert_status "an ingress shaper is written" 0
expect_read "... and reads back as written" "htb 50mbit bfifo limit 192kb" ingress v0
assert_contains "v0 has an ingress qdisc" "$(ip netns exec "$NS" tc qdisc show dev v0)" \
	"qdisc ingress ffff:"
assert_contains "its filter redirects to ifb4v0" \
	"$(ip netns exec "$NS" tc filter show dev v0 parent ffff:)" "Egress Redirect to device ifb4v0"
assert_contains "ifb4v0 is up with the shaper" "$(ip netns exec "$NS" tc qdisc show dev ifb4v0)" \
	"qdisc htb 1: root"
knob write ingress v0 "htb 40mbit bfifo limit 196608"
expect_read "rewriting changes the rate only" "htb 40mbit bfifo limit 192kb" ingress v0
assert_eq "... one filter still" 1 \
	"$(ip netns exec "$NS" tc filter show dev v0 parent ffff: | grep -c 'Egress Redirect')"
knob write ingress v0 default
assert_status "default removes it" 0
assert_eq "... no ingress qdisc left" "" "$(ip netns exec "$NS" tc qdisc show dev v0 ingress)"
assert_eq "... no ifb4v0 left" "" "$(ip -n "$NS" -o link show ifb4v0 2>/dev/null)"
ip netns exec "$NS" tc qdisc add dev v0 clsact
expect_read "someone's clsact reads as other" "other: clsact qdisc at v0's ingress" ingress v0
knob write ingress v0 "htb 50mbit bfifo limit 196608"
assert_contains "... and is not replaced: EBUSY" "$ERR" "EBUSY"
assert_eq "... nor ifb4v0 made" "" "$(ip -n "$NS" -o link show ifb4v0 2>/dev/null)"
ip netns exec "$NS" tc qdisc del dev v0 clsact

# --- sysctls (the namespace's own) ------------------------------------------------------
ns_ecn=$(in_ns cat /proc/sys/net/ipv4/tcp_ecn)
expect_read "tcp_ecn reads the namespace's value" "$ns_ecn" sysctl net.ipv4.tcp_ecn
want=1
[ "$ns_ecn" = 1 ] && want=2
knob write sysctl net.ipv4.tcp_ecn "$want"
assert_status "tcp_ecn $want is written" 0
assert_eq "... /proc/sys says so" "$want" "$(in_ns cat /proc/sys/net/ipv4/tcp_ecn)"
knob write sysctl net.ipv4.tcp_ecn "$ns_ecn"
knob read sysctl net.core.default_qdisc
assert_contains "default_qdisc is absent in a namespace: ENOENT" "$ERR" "ENOENT"
knob write sysctl net.core.default_qdisc fq_codel
assert_contains "... and cannot be written: ENOENT" "$ERR" "ENOENT"
assert_eq "the host's tcp_ecn is untouched" "$host_ecn" "$(cat /proc/sys/net/ipv4/tcp_ecn)"

finish
