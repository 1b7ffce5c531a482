#!/usr/bin/env bash
# test-prove-directions.sh - `debloat prove` judges each direction on its own, on the
# home links people have, in namespaces of its own:
#
#	[ dbdc-$$ client ]           [ dbdr-$$ router ]                 [ dbds-$$ server ]
#	  c0 10.78.1.1 <--veth-->  r0 10.78.1.2    r1 10.78.2.1 <--veth-->  s0 10.78.2.2
#	  prove, irtt and          download: htb 100mbit     upload: htb   debloat server,
#	  iperf3 clients run here  + pfifo 1000 on r0        + pfifo 1000   irtt, iperf3
#	                           (when bloated)            on r1          servers; a
#	[ dbdx-$$ client 2 ]                                                lying relay on
#	  c0 10.78.3.1 <--veth-->  r2 10.78.3.2                             10.78.2.3
#
# Three links, each proved by a plain `debloat prove SERVER --cc reno` (reno: cubic is
# not on this kernel, and reno fills a FIFO as cubic does on a real link), each time
# checked by an independent measurement before and after (irtt for the one-way delays,
# iperf3 reno for the goodput, one direction at a time):
#  - bloated both ways: kept, an upload shaper and a download shaper; each direction's
#    induced one-way delay at least 5x lower at goodput at least 0.85 of before;
#  - bloated upload only: kept, no download shaper (no ifb), each direction judged on
#    its own (the upload's change kept, the download unchanged); the upload's goodput
#    under both loads may fall as the freed download's ACKs take their share of it,
#    and prove then judges the upload by its own run alone;
#  - bloated download only: kept, the download shaper only (no shaper at the root);
#  - per direction: the upload-only link proved with --ingress: the download's shaper
#    moved no queue and is put back, the upload's is tried alone again and kept;
#  - undo puts c0 back exactly each time.
# Then:
#  - a lying server (a relay dividing the server's upload counts by 50) on a 20 Mbit/s
#    upload: the shaper runs at the rate this host's own TCP counters saw, never at
#    the lie, and the report names the disagreement;
#  - two proves in two namespaces at once, neither naming a state directory: both
#    finish (their locks and journals are per namespace).
# This kernel has no fq_codel nor cake: fix's fallback is htb over a short FIFO each way.
# Each prove runs up to six tests of 5 to 8 s load; the whole script takes about 6
# minutes. Timing-sensitive: on a machine with other heavy load the goodput bounds may
# miss.
# run.sh: timing prove
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_netns
require_debloat
require_cmd jq irtt iperf3 python3

C=dbdc-$$ X=dbdx-$$ R=dbdr-$$ S=dbds-$$
PORT=9911
T=$(mktemp -d)
ST=$T/state
BG=()
stop_bg() {
	local p
	for p in "${BG[@]+"${BG[@]}"}"; do kill "$p" 2>/dev/null || true; done
	for p in "${BG[@]+"${BG[@]}"}"; do wait "$p" 2>/dev/null || true; done
	BG=()
}
NSDIRS=()
trap 'stop_bg; rm -rf "$T" "${NSDIRS[@]+"${NSDIRS[@]}"}"; cleanup' EXIT

netns_add "$C"
netns_add "$X"
netns_add "$R"
netns_add "$S"
for ns in "$C" "$X" "$R" "$S"; do ip -n "$ns" link set lo up; done
ip link add "dc$$" netns "$C" type veth peer name "dr$$" netns "$R"
ip link add "dx$$" netns "$X" type veth peer name "dy$$" netns "$R"
ip link add "ds$$" netns "$S" type veth peer name "dt$$" netns "$R"
ip -n "$C" link set "dc$$" name c0
ip -n "$X" link set "dx$$" name c0
ip -n "$R" link set "dr$$" name r0
ip -n "$R" link set "dy$$" name r2
ip -n "$R" link set "dt$$" name r1
ip -n "$S" link set "ds$$" name s0
ip -n "$C" addr add 10.78.1.1/24 dev c0
ip -n "$X" addr add 10.78.3.1/24 dev c0
ip -n "$R" addr add 10.78.1.2/24 dev r0
ip -n "$R" addr add 10.78.3.2/24 dev r2
ip -n "$R" addr add 10.78.2.1/24 dev r1
ip -n "$S" addr add 10.78.2.2/24 dev s0
ip -n "$S" addr add 10.78.2.3/24 dev s0
for l in "$C c0" "$X c0" "$R r0" "$R r1" "$R r2" "$S s0"; do
	read -r ns dev <<<"$l"
	ip -n "$ns" link set "$dev" up
done
ip -n "$C" route add default via 10.78.1.2
ip -n "$X" route add default via 10.78.3.2
ip -n "$S" route add default via 10.78.2.1
ip netns exec "$R" sysctl -qw net.ipv4.ip_forward=1

# bloat DEV RATE: the modem's shaper and its 1000-packet FIFO on the router's DEV.
bloat() {
	ip netns exec "$R" tc qdisc replace dev "$1" root handle 1: htb default 1
	ip netns exec "$R" tc class replace dev "$1" parent 1: classid 1:1 htb rate "$2" \
		ceil "$2" 2>/dev/null
	ip netns exec "$R" tc qdisc replace dev "$1" parent 1:1 handle 10: pfifo limit 1000
}
unbloat() { ip netns exec "$R" tc qdisc del dev "$1" root 2>/dev/null || true; }

SERVER_TIMEOUT=900 netns_server "$S" "$PORT" "$T/server.log"
ip netns exec "$S" timeout 900 irtt server -b 10.78.2.2:2112 >/dev/null 2>&1 &
BG+=($!)
ip netns exec "$S" timeout 900 iperf3 -s -B 10.78.2.2 -p 5201 >/dev/null 2>&1 &
BG+=($!)
sleep 1

c0_state() { # c0_state NS: what prove may change there
	ip netns exec "$1" sh -c 'tc qdisc show dev c0; ip -o link show type ifb; ip -d link show dev c0 |
		grep -o "qlen [0-9]*\|gso_max_size [0-9]*"; ethtool -k c0 2>/dev/null |
		grep -E "^(tcp-segmentation-offload|generic-segmentation-offload|generic-receive-offload):";
		cat /proc/sys/net/ipv4/tcp_ecn /proc/sys/net/core/default_qdisc 2>/dev/null; true'
}
num() { jq -r "$1 // \"nan\"" <<<"$OUT"; }
# ge A B: A >= B, as numbers; "nan" or anything not a number is never >= anything.
ge() {
	[[ $1 =~ ^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]] || return 1
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'
}

# measure DIR (up|down): an independent look at one direction from the client: one irtt
# session of 10 s, a probe every 20 ms, with four iperf3 reno flows that way from its
# 2nd second for 7 s (four, as prove's rrul: one reno flow rebuilds the FIFO slowly
# after each loss). Prints "INDUCED_MS GOODPUT_MBPS": the growth of that direction's
# one-way delay (irtt's send or receive delay, the median of the probes sent from 4 s
# to 8.5 s less that of those sent in the first 2 s: the clock offset cancels; one
# session, so no handshake waits behind the queue), and iperf3's goodput (received).
# Runs of 15 s (12 s of load) gave the same figures within a few percent.
measure() {
	local dir=$1 key rev=() induced mbps
	[ "$dir" = up ] && key=send || key=receive
	[ "$dir" = down ] && rev=(-R)
	sleep 1 # what the last run left in flight drains before the idle window
	ip netns exec "$C" timeout 30 irtt client -q -i 20ms -d 10s -o "$T/irtt.json" \
		10.78.2.2:2112 >/dev/null 2>&1 &
	local ir=$!
	sleep 2
	ip netns exec "$C" timeout 30 iperf3 -c 10.78.2.2 -p 5201 -t 7 -P 4 -C reno "${rev[@]}" \
		-J >"$T/iperf.json" 2>/dev/null || true
	wait "$ir" || true
	induced=$( (gzip -dc "$T/irtt.json.gz" 2>/dev/null || cat "$T/irtt.json") | jq -r "
		def median: sort | if length == 0 then null else .[(length - 1) / 2 | floor] end;
		[.round_trips[] | select(.delay.$key != null)] as \$r |
		([\$r[] | select(.seqno < 100) | .delay.$key] | median) as \$idle |
		([\$r[] | select(.seqno >= 200 and .seqno < 425) | .delay.$key] | median) as \$load |
		if \$idle == null or \$load == null then \"nan\" else (\$load - \$idle) / 1e6 end")
	mbps=$(jq '.end.sum_received.bits_per_second / 1e6' "$T/iperf.json" 2>/dev/null)
	rm -f "$T"/irtt.json*
	echo "${induced:-nan} ${mbps:-nan}"
}

# better DIR BEFORE AFTER: the independent check of one direction.
better() {
	local dir=$1 b_ms b_mbps a_ms a_mbps
	read -r b_ms b_mbps <<<"$2"
	read -r a_ms a_mbps <<<"$3"
	echo "# $dir: induced $b_ms -> $a_ms ms, goodput $b_mbps -> $a_mbps Mbit/s"
	# a growth below -1 ms means the idle window was not idle: no measurement at all
	assert_true "  $dir: the idle window was idle (growth $a_ms ms >= -1)" ge "$a_ms" -1
	assert_true "  $dir: induced one-way delay $b_ms -> $a_ms ms: at least 5x lower" \
		ge "$b_ms" "$(awk -v a="$a_ms" 'BEGIN { print 5 * (a < 1 ? 1 : a) }')"
	assert_true "  $dir: goodput $b_mbps -> $a_mbps Mbit/s: at least 0.85 of before" \
		ge "$a_mbps" "$(awk -v b="$b_mbps" 'BEGIN { print 0.85 * b }')"
}

prove() { # prove NS OUTDIR [OPTIONS]: a plain prove, its JSON in OUT
	local ns=$1 out=$2
	shift 2
	run ip netns exec "$ns" timeout 200 "$DEBLOAT" prove 10.78.2.2 --cc reno -l 8 -d 1 \
		-p "$PORT" --state-dir "$ST" -o "$T/$out" --json "$@"
}

# said: what the last prove measured and decided, for the log.
said() {
	echo "# prove: $(num .verdict.outcome): $(num .verdict.why)"
	echo "#   up $(jq -c .capacity_mbps.directions.up <<<"$OUT")"
	echo "#   down $(jq -c .capacity_mbps.directions.down <<<"$OUT")"
	echo "#   ratios: latency $(num .verdict.latency_ratio) up $(num .verdict.upload_ratio)" \
		"down $(num .verdict.download_ratio); plan: $(jq -c '[.plan[] | .kind]' <<<"$OUT")"
	echo "#   verdict up $(jq -c .verdict.directions.up <<<"$OUT")"
	echo "#   verdict down $(jq -c .verdict.directions.down <<<"$OUT")"
}

pristine=$(c0_state "$C")

# ---- bloated both ways ----
bloat r1 100mbit
bloat r0 100mbit
up0=$(measure up)
down0=$(measure down)
prove "$C" both
said
assert_status "both ways bloated: plain prove keeps a change, exit 0" 0
assert_eq "  outcome kept" "kept" "$(num .verdict.outcome)"
assert_eq "  the upload's queue is upstream" upstream \
	"$(num .capacity_mbps.directions.up.where)"
assert_eq "  the download's queue is downstream" downstream \
	"$(num .capacity_mbps.directions.down.where)"
assert_true "  an upload shaper ($(num .capacity_mbps.shape))" \
	ge "$(num .capacity_mbps.shape)" 50
assert_true "  a download shaper ($(num .capacity_mbps.shape_down))" \
	ge "$(num .capacity_mbps.shape_down)" 50
assert_true "  each direction's capacity in its own run" \
	test -s "$T/both/capacity-up.json" -a -s "$T/both/capacity-down.json"
assert_contains "  the kernel's lack of fq_codel and cake is said" \
	"$(num .kernel_qdiscs.cost)" "no flow isolation"
assert_contains "  the undo hint names the state directory" "$(num .undo)" "--state-dir $ST"
assert_eq "  the upload's change kept" kept "$(num .verdict.directions.up.outcome)"
assert_eq "  the download's change kept" kept "$(num .verdict.directions.down.outcome)"
better up "$up0" "$(measure up)"
better down "$down0" "$(measure down)"
run ip netns exec "$C" "$DEBLOAT" undo --state-dir "$ST" c0
assert_status "undo" 0
assert_eq "  c0 exactly as before, both directions" "$pristine" "$(c0_state "$C")"

# ---- bloated upload only ----
# The baseline is the both-ways case's up0: measured one direction at a time, the other
# direction's FIFO carries only ACKs and probes, far below its rate, and holds no queue.
unbloat r0
prove "$C" up
said
assert_status "upload bloated only: plain prove keeps a change, exit 0" 0
assert_eq "  outcome kept" "kept" "$(num .verdict.outcome)"
assert_eq "  the download had no queue" none "$(num .capacity_mbps.directions.down.where)"
assert_eq "  the upload's change kept" kept "$(num .verdict.directions.up.outcome)"
assert_eq "  the download unchanged" unchanged "$(num .verdict.directions.down.outcome)"
assert_eq "  no download shaper" null "$(jq -r .capacity_mbps.shape_down <<<"$OUT")"
assert_true "  no ifb on c0" test -z "$(ip netns exec "$C" ip -o link show type ifb)"
better up "$up0" "$(measure up)"
run ip netns exec "$C" "$DEBLOAT" undo --state-dir "$ST" c0
assert_eq "  undo: c0 exactly as before" "$pristine" "$(c0_state "$C")"

# ---- per direction: the download forced, with no queue to move ----
prove "$C" forced --ingress -l 5 -d 1
said
assert_status "upload bloated, --ingress: kept, exit 0" 0
assert_eq "  the upload's change kept" kept "$(num .verdict.directions.up.outcome)"
assert_eq "  the download's put back" put-back "$(num .verdict.directions.down.outcome)"
assert_contains "  and why: its one-way delay did not fall" \
	"$(num .verdict.directions.down.why)" "less than the"
assert_true "  the upload alone was tried again" test -s "$T/forced/after-retry.json"
assert_true "  no ifb on c0" test -z "$(ip netns exec "$C" ip -o link show type ifb)"
assert_contains "  the upload's shaper stays" "$(ip netns exec "$C" tc qdisc show dev c0 root)" htb
run ip netns exec "$C" "$DEBLOAT" undo --state-dir "$ST" c0
assert_eq "  undo: c0 exactly as before" "$pristine" "$(c0_state "$C")"

# ---- bloated download only ----
unbloat r1
bloat r0 100mbit
# down0 is the both-ways case's, as up0 above
prove "$C" down
said
assert_status "download bloated only: kept, exit 0" 0
assert_eq "  outcome kept" "kept" "$(num .verdict.outcome)"
assert_eq "  no upload shaper" null "$(jq -r .capacity_mbps.shape <<<"$OUT")"
assert_eq "  the upload had no queue" none "$(num .capacity_mbps.directions.up.where)"
assert_true "  a download shaper ($(num .capacity_mbps.shape_down))" \
	ge "$(num .capacity_mbps.shape_down)" 50
assert_contains "  c0's ingress is redirected to its ifb" "$(c0_state "$C")" "ifb4c0"
assert_eq "  no shaper at c0's root" "" "$(ip netns exec "$C" tc qdisc show dev c0 root |
	grep -E 'htb|tbf|cake')"
better down "$down0" "$(measure down)"
run ip netns exec "$C" "$DEBLOAT" undo --state-dir "$ST" c0
assert_eq "  undo: c0 exactly as before, ifb gone" "$pristine" "$(c0_state "$C")"
unbloat r0

# ---- a lying server: the counters set the rate ----
bloat r1 20mbit
ip netns exec "$S" timeout 300 python3 "$TOP/tests/prove-liar.py" 10.78.2.3 9912 10.78.2.2 \
	"$PORT" 50 >"$T/liar.log" 2>&1 &
BG+=($!)
for _ in $(seq 100); do
	ip netns exec "$S" ss -Hltn "sport = :9912" | grep -q . && break
	sleep 0.1
done
run ip netns exec "$C" timeout 200 "$DEBLOAT" prove 10.78.2.3 c0 --test tcp_upload --cc reno \
	-l 8 -d 1 -p 9912 --state-dir "$ST" -o "$T/liar" --json
assert_true "lying server: prove finished (kept or put back; exit $RC): $(tail -c 300 <<<"$ERR")" \
	test "$RC" -eq 0 -o "$RC" -eq 3
own=$(num .capacity_mbps.directions.up.mbps)
said=$(num .capacity_mbps.directions.up.reported_mbps)
shape=$(num .capacity_mbps.shape)
echo "# lying server: reported $said Mbit/s, own counters $own, shaped at $shape"
assert_true "  the lie was told: the server reported under 1 Mbit/s ($said)" ge 1 "$said"
assert_true "  this host's counters saw the link: over 15 Mbit/s ($own)" ge "$own" 15
assert_true "  never shaped below the counters' rate ($shape >= $own)" \
	ge "$shape" "$(awk -v o="$own" 'BEGIN { print o - 0.01 }')"
assert_eq "  the disagreement is flagged" true \
	"$(jq -r .capacity_mbps.directions.up.disagree <<<"$OUT")"
assert_contains "  and said" "$(num .capacity_mbps.why)" "the counters set the rate"
ip netns exec "$C" "$DEBLOAT" undo --state-dir "$ST" c0 >/dev/null 2>&1 || true
assert_eq "  c0 as before" "$pristine" "$(c0_state "$C")"
unbloat r1

# ---- two proves in two namespaces at once, each with its default state directory ----
dirs=()
for ns in "$C" "$X"; do
	dirs+=("/var/lib/debloat/netns-$(stat -L -c %i "/run/netns/$ns")")
done
for d in "${dirs[@]}"; do
	# removed at the end only when this test made it
	[ -e "$d" ] || NSDIRS+=("$d")
	assert_true "  $d is new (nothing of the machine's is touched)" test ! -e "$d"
done
bloat r1 100mbit
ip netns exec "$C" timeout 200 "$DEBLOAT" prove 10.78.2.2 --test tcp_upload --cc reno -l 5 \
	-d 1 -p "$PORT" -o "$T/ns1" --json >"$T/ns1.out" 2>"$T/ns1.err" &
p1=$!
ip netns exec "$X" timeout 200 "$DEBLOAT" prove 10.78.2.2 --test tcp_upload --cc reno -l 5 \
	-d 1 -p "$PORT" -o "$T/ns2" --json >"$T/ns2.out" 2>"$T/ns2.err" &
p2=$!
rcs=(0 0 0)
wait "$p1" || rcs[1]=$?
wait "$p2" || rcs[2]=$?
for i in 1 2; do
	rc=${rcs[$i]}
	assert_true "prove $i of two at once finished (exit $rc: kept or put back)$(
		[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || echo ": $(tail -3 "$T/ns$i.err")")" \
		test "$rc" -eq 0 -o "$rc" -eq 3
	assert_not_contains "  no lock held by the other" "$(cat "$T/ns$i.err")" "lock"
done
assert_true "  each namespace had its own state directory" \
	test -d "${dirs[0]}" -a -d "${dirs[1]}"
for ns in "$C" "$X"; do
	ip netns exec "$ns" "$DEBLOAT" undo c0 >/dev/null 2>&1 || true
done
assert_eq "  c0 as before" "$pristine" "$(c0_state "$C")"
unbloat r1
finish
