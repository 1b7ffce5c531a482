#!/usr/bin/env bash
# test-rpm-path.sh - the responsiveness test end to end over a bloated and then a short
# FIFO: our client against `debloat server --rpm` across a 100 Mbit/s bottleneck, and
# against Debian's nghttpd on the same path as the anchor.
#
#	[ ns dbt-rpc-$$ ]          [ ns dbt-rpr-$$ ]            [ ns dbt-rps-$$ ]
#	  debloat test rpm           forwards                     debloat server --rpm 4043
#	  vc 10.98.1.1 <--veth--> rc 10.98.1.2  rs 10.98.2.2 <--veth--> vs 10.98.2.1
#	                          egress of rc and rs:          nghttpd --no-tls 4080
#	                          htb 100mbit + pfifo limit 20 (then 1000)
#
# As in test-rrul.sh: the shapers sit in the router, GSO, TSO and GRO are off so a
# pfifo limit counts wire-sized packets (1000 at 100 Mbit/s: ~120 ms of queue; 20:
# ~2.4 ms), and the client's and servers' namespaces run reno (net.ipv4.
# tcp_congestion_control there, a per-namespace sysctl): this kernel's default, BBR,
# keeps queues short by itself and would hide the FIFO's size.
#
# Asserts (figures printed; orderings with margins, never exact timings):
#  - the path itself: ICMP through the loaded queues (ping meanwhile) is >= 10x slower at
#    pfifo 1000 than at pfifo 20 (measured ~79 ms against ~1.6 ms);
#  - our client against our server (h2c): RPM at pfifo 20 >= 5x RPM at pfifo 1000
#    (measured 23x to 28x: ~17000 to 21000 RPM against ~740), and the load at pfifo 20
#    really works the path: goodput both ways together >= 130 of its 200 Mbit/s (nghttpd
#    with the docs' recipe, the anchor, measured 131 and 131 in the same runs where ours
#    had 139.1 and 139.6: 140 was tighter than the anchor itself meets; a run that falls
#    short is made once more, as a busy host can take a core from it, and on a host too
#    busy for either server to reach 130, ours must load it at least as the anchor does;
#    at pfifo 1000, RPMs that miss each other's 25 % are measured once more each and
#    their means compared)
#    (163 to 173 when first measured). The client loads with one connection a direction
#    (--mnp 1): at 100 Mbit/s and 1.6 ms the path holds ~13 packets, so one reno flow
#    each way fills it, and every flow added raises the loss at a 20-packet FIFO
#    (N reno flows sharing a buffer each get 1/N of it, and the loss rate grows about
#    as N squared). Loss is what a short FIFO costs: a probe that loses its SYN waits
#    1 s, one that loses a segment 200 ms or more. With 2 connections a direction the
#    ratio was 5x to 12x, with 4 about 2x, for nghttpd as for ours. (Our GET on a new
#    connection took 39 to 51 ms here against nghttpd's 13 to 22 while the server sent
#    each HTTP/2 frame in a packet of its own; it gathers them now, test-rpm-server.sh);
#  - at pfifo 1000, the RPM against nghttpd serving a static tree (the anchor, as
#    test-rpm-nghttpd.sh builds it) is within 25 % of the one against our server
#    (measured 13 to 16 %). The servers' namespace sets net.ipv4.tcp_notsent_lowat to
#    the 16 KB our server sets on its sockets, and nghttpd gets the stream and
#    connection windows ours has (-w 22 -W 24): without them nghttpd's self probes
#    wait behind its whole socket buffer (GET on the load 450 to 510 ms against ours'
#    120) and its uploads stall at 20 Mbit/s, which compares the servers' buffering,
#    not the path.
# Intervals of 1 s (--id 1: the trimmed means then cover the last 4 s; at 0.3 s the figures at pfifo 1000 varied by 1.8x from run to run) and at most
# 10 s a run: about 40 s.
# run.sh: timing net
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_netns
require_cmd jq ethtool nghttpd
grep -qw reno /proc/sys/net/ipv4/tcp_available_congestion_control || skip "needs reno"
require_debloat

C=dbt-rpc-$$
R=dbt-rpr-$$
S=dbt-rps-$$
PORT=9911
RPM=4043
NGPORT=4080
T=$(mktemp -d)
NG_PID=
stop_ng() {
	[ -n "$NG_PID" ] || return 0
	kill "$NG_PID" 2>/dev/null || true
	wait "$NG_PID" 2>/dev/null || true
	NG_PID=
}
trap 'stop_ng; rm -rf "$T"; cleanup' EXIT

netns_add "$C"
netns_add "$R"
netns_add "$S"
ip link add vc netns "$C" type veth peer name rc netns "$R"
ip link add vs netns "$S" type veth peer name rs netns "$R"
ip -n "$C" addr add 10.98.1.1/24 dev vc
ip -n "$R" addr add 10.98.1.2/24 dev rc
ip -n "$R" addr add 10.98.2.2/24 dev rs
ip -n "$S" addr add 10.98.2.1/24 dev vs
link_up() { # link_up NS DEV: wire-sized packets only
	ip netns exec "$1" ethtool -K "$2" tso off gso off gro off >/dev/null 2>&1 || true
	ip -n "$1" link set lo up
	ip -n "$1" link set "$2" up
}
link_up "$C" vc
link_up "$R" rc
link_up "$R" rs
link_up "$S" vs
ip -n "$C" route add default via 10.98.1.2
ip -n "$S" route add default via 10.98.2.2
ip netns exec "$R" sysctl -qw net.ipv4.ip_forward=1
ip netns exec "$C" sysctl -qw net.ipv4.tcp_congestion_control=reno
ip netns exec "$S" sysctl -qw net.ipv4.tcp_congestion_control=reno
ip netns exec "$S" sysctl -qw net.ipv4.tcp_notsent_lowat=16384

shape() { # shape DEV: the 100 Mbit/s bottleneck in the router
	tc -n "$R" qdisc add dev "$1" root handle 1: htb default 1
	tc -n "$R" class add dev "$1" parent 1: classid 1:1 htb rate 100mbit quantum 15140
	tc -n "$R" qdisc add dev "$1" parent 1:1 handle 10: pfifo limit 1000
}
limit() { # limit LIMIT: both directions
	tc -n "$R" qdisc change dev rc parent 1:1 handle 10: pfifo limit "$1"
	tc -n "$R" qdisc change dev rs parent 1:1 handle 10: pfifo limit "$1"
}
shape rc
shape rs

SERVER_TIMEOUT=150 netns_server "$S" "$PORT" "$T/server.log" --rpm "$RPM"

# The anchor: nghttpd serving the static tree of test-rpm-nghttpd.sh.
ng="http://10.98.2.1:$NGPORT"
mkdir -p "$T/www/.well-known" "$T/www/api/v1"
printf x >"$T/www/api/v1/small"
truncate -s 8G "$T/www/api/v1/large"
: >"$T/www/api/v1/slurp"
cat >"$T/www/.well-known/nq" <<JSON
{"version": 1,
 "urls": {"small_download_url": "$ng/api/v1/small",
          "large_download_url": "$ng/api/v1/large",
          "upload_url": "$ng/api/v1/slurp"}}
JSON
ip netns exec "$S" timeout 150 nghttpd --no-tls -w 22 -W 24 -d "$T/www" "$NGPORT" >"$T/nghttpd.log" 2>&1 &
NG_PID=$!
for _ in $(seq 50); do
	ip netns exec "$S" ss -Hltn "sport = :$NGPORT" | grep -q . && break
	sleep 0.1
done

assert_num() { # assert_num DESC AWK-CONDITION
	if awk "BEGIN { exit !($2) }"; then pass "$1"; else fail "$1: not ($2)"; fi
}
goodput() { # goodput NAME: Mbit/s both ways together in $T/NAME.json (empty if none)
	jq -r '.summary | (.download_mbps + .upload_mbps)' "$T/$1.json" 2>/dev/null || true
}
rpm() { # rpm NAME URL -> $T/NAME.json, prints the RPM; $T/NAME.ping: ICMP meanwhile
	ip netns exec "$C" ping -q -n -i 0.1 -c 80 -w 10 10.98.2.1 >"$T/$1.ping" 2>&1 &
	local ping=$!
	ip netns exec "$C" timeout 60 "$DEBLOAT" test rpm --id 1 --max-time 10 --mnp 1 \
		-o "$T/$1.json" "$2" >"$T/$1.out" 2>&1 || true
	wait "$ping" 2>/dev/null || true
	jq -r '.rpm.rpm // "null"' "$T/$1.json" 2>/dev/null || echo null
}
ours="http://10.98.2.1:$RPM/.well-known/nq"

limit 20
short=$(rpm ours-20 "$ours")
# A second run only when the first moved less than the bound below: 200 Mbit/s through
# four namespaces takes both cores, and a busy host's other work can take one.
gp20=$(goodput ours-20)
if ! awk "BEGIN { exit !(${gp20:-0} >= 130) }"; then
	echo "     ours-20: $(jq -r '.summary | "down \(.download_mbps | floor) up \(.upload_mbps | floor)"' "$T/ours-20.json" 2>/dev/null) Mbit/s in a first run; once more"
	short=$(rpm ours-20 "$ours")
fi
rpm nghttpd-20 "$ng/.well-known/nq" >/dev/null # printed below, beside ours
limit 1000
deep=$(rpm ours-1000 "$ours")
anchor=$(rpm nghttpd-1000 "$ng/.well-known/nq")
for f in ours-20 nghttpd-20 ours-1000 nghttpd-1000; do
	printf '     %-13s %s\n' "$f:" "$(jq -r '.rpm.stages[0] as $s | "\(.rpm.rpm | floor) RPM: TCP handshake \($s.tcp_f_ms | floor) ms, GET \($s.http_f_ms | floor) ms, GET on the load \($s.http_l_ms | floor) ms; down \(.summary.download_mbps | floor) up \(.summary.upload_mbps | floor) Mbit/s"' "$T/$f.json" 2>/dev/null || tail -n 3 "$T/$f.out")"
	# the path's own delay meanwhile: ICMP through the same queues
	printf '     %-13s ICMP %s\n' "" "$(grep -E 'packet loss|rtt' "$T/$f.ping" | tr '\n' ' ')"
done
for v in "$short" "$deep" "$anchor"; do
	[ "$v" != null ] || { fail "a run gave no RPM"; finish; }
done
icmp() { sed -nE 's|.*rtt min/avg/max/mdev = [0-9.]+/([0-9.]+)/.*|\1|p' "$T/$1.ping"; }
i20=$(icmp ours-20)
i1000=$(icmp ours-1000)
assert_num "the path: ICMP under load at pfifo 1000 (${i1000:-?} ms) >= 10x pfifo 20 (${i20:-?} ms)" \
	"${i1000:-0} >= 10 * ${i20:-1000}"
assert_num "pfifo 20 ($short RPM) >= 5x pfifo 1000 ($deep RPM)" "$short >= 5 * $deep"
gp20=$(goodput ours-20)
ng20=$(goodput nghttpd-20)
# 130, or on a host too busy for anyone to reach it, at least the anchor's own goodput
# on the same path in the same minute (the load works the path as well as nghttpd's).
assert_num "pfifo 20: the load works the path, ${gp20:-?} Mbit/s both ways together >= 130 or >= the anchor's ${ng20:-?}" \
	"${gp20:-0} >= 130 || ${gp20:-0} >= ${ng20:-1000}"
# One run each is one draw from a noisy figure (a run's split of the load between the
# directions moves its queues): when the two miss each other, a second run each, and
# the means compared.
if ! awk "BEGIN { exit !($anchor >= 0.75 * $deep && $anchor <= 1.25 * $deep) }"; then
	echo "     pfifo 1000: nghttpd ${anchor%.*} RPM against ours ${deep%.*} in a first run each; once more"
	deep2=$(rpm ours-1000b "$ours")
	anchor2=$(rpm nghttpd-1000b "$ng/.well-known/nq")
	if [ "$deep2" != null ] && [ "$anchor2" != null ]; then
		echo "     pfifo 1000: then nghttpd ${anchor2%.*} RPM against ours ${deep2%.*}"
		deep=$(awk "BEGIN { print ($deep + $deep2) / 2 }")
		anchor=$(awk "BEGIN { print ($anchor + $anchor2) / 2 }")
	fi
fi
assert_num "pfifo 1000: nghttpd ($anchor RPM) within 25 % of our server ($deep RPM)" \
	"$anchor >= 0.75 * $deep && $anchor <= 1.25 * $deep"
if kill -0 "$SERVER_PID" 2>/dev/null; then pass "our server is still running"; else fail "our server died"; fi
finish
