#!/usr/bin/env bash
# test-prove.sh - `debloat prove` end to end, on a home link in namespaces of its own:
#
#	[ dbpc-$$ client ]            [ dbpr-$$ router ]                [ dbps-$$ server ]
#	  c0 10.77.1.1  <--veth-->  r0 10.77.1.2   r1 10.77.2.1  <--veth-->  s0 10.77.2.2
#	  prove runs here                          htb 100mbit, pfifo 1000    debloat server
#	                                           (the bloated modem; for the
#	                                           download case, on r0 too)
#
# The client's c0 is a veth at noqueue: nothing queues on this host, the upload's queue
# builds in the router's 1000-packet FIFO. This kernel has no fq_codel, fq or cake, so
# fix's fallback is htb over a short FIFO with gso_max_size capped.
#  - prove on c0 measures the bottleneck, shapes just below it, and keeps the change
#    only with the upload's induced latency >= 5x lower and its goodput >= 85% of
#    before; a second prove recognises its own change and reports nothing left to fix;
#  - --shape far above the bottleneck (too little gain) and far below it (costs
#    goodput): put back each time, exit 3, saying why; c0 exactly as before;
#  - --ingress with the modem's queue on the download: shaped through an ifb, kept with
#    the download's induced latency >= 5x lower and its goodput >= 85%; undo removes it;
#  - the server killed during the second test: put back, exit 1, a clear message;
#  - prove killed by SIGKILL during the second test: its fix child puts everything
#    back by itself; interrupted by SIGTERM (as by Ctrl-C): it puts everything back
#    and says so;
#  - usage errors and an unknown interface change nothing.
# The upload runs reno: at this topology's sub-millisecond base RTT (no netem here for a
# home link's 20 ms), cubic leaves HyStart early and grows so slowly that the modem's
# FIFO holds about 9 ms after 10 s; reno fills it (250 ms), as cubic does on a real link.
# Each prove runs two tests of PROVE_LENGTH s load (default 5) and PROVE_IDLE s idle each
# side (default 1): about 2 minutes.
# run.sh: timing prove
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_netns
require_debloat
require_cmd jq

C=dbpc-$$ R=dbpr-$$ S=dbps-$$
PORT=9911
LEN=${PROVE_LENGTH:-5} IDLE=${PROVE_IDLE:-1}
T=$(mktemp -d)
ST=$T/state
SERVER_PID=
stop_server() { # stop_server [SIGNAL]: all that runs in the server's namespace
	if [ -n "$SERVER_PID" ]; then
		# shellcheck disable=SC2046 # one pid per word
		kill "-${1:-TERM}" $(ip netns pids "$S" 2>/dev/null) 2>/dev/null || true
		wait "$SERVER_PID" 2>/dev/null || true
	fi
	SERVER_PID=
}
trap 'stop_server; rm -rf "$T"; cleanup' EXIT

netns_add "$C"
netns_add "$R"
netns_add "$S"
for ns in "$C" "$R" "$S"; do ip -n "$ns" link set lo up; done
ip link add "pc$$" netns "$C" type veth peer name "pr$$" netns "$R"
ip link add "ps$$" netns "$S" type veth peer name "pt$$" netns "$R"
ip -n "$C" link set "pc$$" name c0
ip -n "$R" link set "pr$$" name r0
ip -n "$R" link set "pt$$" name r1
ip -n "$S" link set "ps$$" name s0
ip -n "$C" addr add 10.77.1.1/24 dev c0
ip -n "$R" addr add 10.77.1.2/24 dev r0
ip -n "$R" addr add 10.77.2.1/24 dev r1
ip -n "$S" addr add 10.77.2.2/24 dev s0
for l in "$C c0" "$R r0" "$R r1" "$S s0"; do
	read -r ns dev <<<"$l"
	ip -n "$ns" link set "$dev" up
done
ip -n "$C" route add default via 10.77.1.2
ip -n "$S" route add default via 10.77.2.1
ip netns exec "$R" sysctl -qw net.ipv4.ip_forward=1
# The bloated modem: 100 Mbit/s towards the server, 1000 packets of FIFO before it.
ip netns exec "$R" tc qdisc add dev r1 root handle 1: htb default 1
ip netns exec "$R" tc class add dev r1 parent 1: classid 1:1 htb rate 100mbit ceil 100mbit
ip netns exec "$R" tc qdisc add dev r1 parent 1:1 handle 10: pfifo limit 1000

start_server() { SERVER_TIMEOUT=400 netns_server "$S" "$PORT" "$T/server.log"; }

# What prove may change on c0, and the sysctls fix plans: compared before and after.
c0_state() {
	ip netns exec "$C" sh -c 'tc qdisc show dev c0; ip -o link show type ifb; ip -d link show dev c0 |
		grep -o "qlen [0-9]*\|gso_max_size [0-9]*"; ethtool -k c0 2>/dev/null |
		grep -E "^(tcp-segmentation-offload|generic-segmentation-offload|generic-receive-offload):";
		cat /proc/sys/net/ipv4/tcp_ecn /proc/sys/net/core/default_qdisc 2>/dev/null; true'
}
prove() { # prove OUTDIR [OPTIONS]: the test's prove, its JSON in OUT
	local out=$1
	shift
	run ip netns exec "$C" timeout 120 "$DEBLOAT" prove 10.77.2.2 c0 --test tcp_upload \
		--cc reno -l "$LEN" -d "$IDLE" -p "$PORT" --state-dir "$ST" -o "$T/$out" --json "$@"
}
num() { jq -r "$1 // \"nan\"" <<<"$OUT"; }
# ge A B: A >= B, as numbers (awk: "nan" compares false).
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 == a && a >= b) }'; }

start_server
pristine=$(c0_state)

# ---- usage errors and bad input change nothing ----
run "$DEBLOAT" prove
assert_status "prove without a server: usage error" 2
run "$DEBLOAT" prove 10.77.2.2 --keep --undo
assert_status "--keep with --undo: usage error" 2
run "$DEBLOAT" prove 10.77.2.2 --max-loss 2
assert_status "--max-loss above 1: usage error" 2
run "$DEBLOAT" prove 10.77.2.2 --test nosuch
assert_status "an unknown test: usage error" 2
run ip netns exec "$C" "$DEBLOAT" prove 10.77.2.2 nosuch0 --state-dir "$ST" -o "$T/bad"
assert_status "an unknown interface: exit 1" 1
assert_contains "names it" "$ERR" "nosuch0"
run ip netns exec "$C" "$DEBLOAT" prove 10.77.2.2 lo --state-dir "$ST" -o "$T/bad"
assert_status "loopback: exit 1" 1
touch "$T/file"
run ip netns exec "$C" "$DEBLOAT" prove 10.77.2.2 c0 --state-dir "$ST" -o "$T/file"
assert_status "-o naming a file, not a directory: exit 1" 1
assert_contains "  says so" "$ERR" "Not a directory"
run ip netns exec "$C" "$DEBLOAT" prove 10.77.2.2 c0 --state-dir "$ST" -o /dev/null
assert_status "-o /dev/null: exit 1" 1
assert_true "  /dev/null is still a character device" test -c /dev/null
if command -v setpriv >/dev/null; then
	asnobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
else
	asnobody=(runuser -u nobody --)
fi
cp "$DEBLOAT" "$T/debloat"
chmod 755 "$T" "$T/debloat"
run ip netns exec "$C" "${asnobody[@]}" "$T/debloat" prove 10.77.2.2 c0 -o /tmp
assert_status "prove as nobody: exit 1" 1
assert_contains "  needs root" "$ERR" "needs root"
assert_eq "bad input changed nothing" "$pristine" "$(c0_state)"

# ---- a change that does not pay: put back, and why ----
# A shaper at 1 Gbit/s never binds; what is left of the change is the GSO cap, which
# shortens the modem's FIFO (it counts packets) by about half: 2x, not the 5x asked.
prove high --shape 1gbit --min-gain 5
assert_status "--shape 1gbit (above the bottleneck): put back, exit 3" 3
assert_eq "  outcome put-back" "put-back" "$(num .verdict.outcome)"
assert_contains "  why: not enough gain" "$(num .verdict.why)" "less than the 5.00x asked"
assert_eq "  the shaper was the one given" "given" "$(num .capacity_mbps.source)"
assert_eq "  c0 exactly as before" "$pristine" "$(c0_state)"
assert_true "  fix's report and both runs are in the directory" \
	test -s "$T/high/fix.json" -a -s "$T/high/before.json" -a -s "$T/high/after.json" \
	-a -s "$T/high/prove.json" -a -s "$T/high/compare.svg" -a -s "$T/high/after.flent.gz"

prove low --shape 20mbit
assert_status "--shape 20mbit (far below): put back, exit 3" 3
assert_contains "  why: goodput lost" "$(num .verdict.why)" "upload goodput fell"
assert_true "  upload ratio below 0.85" ge 0.85 "$(num .verdict.upload_ratio)"
assert_eq "  c0 exactly as before" "$pristine" "$(c0_state)"

# ---- the proof: measured, shaped below the bottleneck, kept ----
prove first
assert_status "prove on the home link: kept, exit 0" 0
assert_eq "  outcome kept" "kept" "$(num .verdict.outcome)"
assert_eq "  the rate was measured" "measured" "$(num .capacity_mbps.source)"
up=$(num .capacity_mbps.up)
assert_true "  the bottleneck measured below 100 Mbit/s ($up)" ge 100 "$up"
assert_true "  and above 50 Mbit/s ($up)" ge "$up" 50
b=$(num .before.induced_ms) a=$(num .after.induced_ms)
assert_true "  upload induced latency $b -> $a ms: at least 5x lower" \
	ge "$b" "$(awk -v a="$a" 'BEGIN { print 5 * (a < 1 ? 1 : a) }')"
assert_true "  upload goodput at least 85% of before ($(num .verdict.upload_ratio))" \
	ge "$(num .verdict.upload_ratio)" 0.85
assert_eq "  c0's counters put the baseline's queue beyond this host" beyond \
	"$(num .before.queue.where)"
assert_eq "  and the second run's in c0's own qdisc" here "$(num .after.queue.where)"
assert_contains "  c0 is shaped with htb" "$(c0_state)" "htb"
assert_contains "  GSO packets capped for the FIFO" "$(c0_state)" "gso_max_size 3028"
assert_true "  the plan is in the report" ge "$(jq '.plan | length' <<<"$OUT")" 2
fixed=$(c0_state)

prove second
assert_status "a second prove: exit 0" 0
assert_eq "  recognises its own change" "already-fixed" "$(num .verdict.outcome)"
assert_contains "  nothing left to fix" "$(num .verdict.why)" "nothing left to fix"
assert_eq "  and shapes nothing more" "$fixed" "$(c0_state)"
run ip netns exec "$C" "$DEBLOAT" undo --state-dir "$ST" c0
assert_status "undo after prove" 0
assert_eq "  c0 exactly as before" "$pristine" "$(c0_state)"

# ---- the download: the modem's queue towards the client, shaped through an ifb ----
ip netns exec "$R" tc qdisc add dev r0 root handle 1: htb default 1
ip netns exec "$R" tc class add dev r0 parent 1: classid 1:1 htb rate 100mbit ceil 100mbit 2>/dev/null
ip netns exec "$R" tc qdisc add dev r0 parent 1:1 handle 10: pfifo limit 1000
prove down --test tcp_download --ingress
assert_status "prove --ingress on a bloated download: kept, exit 0" 0
assert_eq "  outcome kept" "kept" "$(num .verdict.outcome)"
assert_true "  a download shaper at the measured rate ($(num .capacity_mbps.shape_down))" \
	ge "$(num .capacity_mbps.shape_down)" 50
b=$(num .before.induced_ms) a=$(num .after.induced_ms)
assert_true "  download induced latency $b -> $a ms: at least 5x lower" \
	ge "$b" "$(awk -v a="$a" 'BEGIN { print 5 * (a < 1 ? 1 : a) }')"
assert_true "  download goodput at least 85% of before ($(num .verdict.download_ratio))" \
	ge "$(num .verdict.download_ratio)" 0.85
assert_contains "  c0's ingress is redirected" "$(c0_state)" "qdisc ingress ffff:"
assert_contains "  to its ifb" "$(c0_state)" "ifb4c0"
run ip netns exec "$C" "$DEBLOAT" undo --state-dir "$ST" c0
assert_status "undo after prove --ingress" 0
assert_eq "  c0 exactly as before, ifb gone" "$pristine" "$(c0_state)"
ip netns exec "$R" tc qdisc del dev r0 root

# Start a prove in the background ($BG is prove itself: `ip netns exec` execs it), with
# a watchdog of 120 s; wait until its second test runs.
prove_bg() { # prove_bg OUTDIR
	ip netns exec "$C" "$DEBLOAT" prove 10.77.2.2 c0 --test tcp_upload --cc reno -l "$LEN" -d "$IDLE" \
		-p "$PORT" --state-dir "$ST" -o "$T/$1" >"$T/$1.out" 2>"$T/$1.err" &
	BG=$!
	(sleep 120 && kill "$BG") 2>/dev/null &
	WATCHDOG=$!
	for _ in $(seq 400); do
		grep -q "prove: after:" "$T/$1.err" 2>/dev/null && break
		sleep 0.1
	done
	sleep 3
}
prove_bg_end() { # the status of the background prove in rc
	rc=0
	wait "$BG" 2>/dev/null || rc=$?
	kill "$WATCHDOG" 2>/dev/null || true
	wait "$WATCHDOG" 2>/dev/null || true
}

# ---- the server lost during the second test (SIGKILL: on SIGTERM it finishes the test) ----
prove_bg lost
stop_server KILL
prove_bg_end
assert_eq "server killed during the second test: exit 1" 1 "$rc"
assert_contains "  says the second test failed and all was put back" "$(cat "$T/lost.err")" \
	"the second test failed"
assert_contains "  ... put back" "$(cat "$T/lost.err")" "put back"
assert_eq "  c0 exactly as before" "$pristine" "$(c0_state)"

# ---- prove killed outright: the fix on trial puts everything back by itself ----
start_server
prove_bg killed
kill -KILL "$BG"
prove_bg_end
assert_eq "prove killed: status 137" 137 "$rc"
for _ in $(seq 100); do
	[ "$(c0_state)" = "$pristine" ] && break
	sleep 0.1
done
assert_eq "prove killed by SIGKILL: c0 exactly as before" "$pristine" "$(c0_state)"
assert_true "  and no journal left behind" test ! -s "$ST/journal"

# ---- prove interrupted (SIGTERM; Ctrl-C's SIGINT takes the same path) ----
prove_bg termed
kill -TERM "$BG"
prove_bg_end
assert_eq "prove sent SIGTERM: exit 1" 1 "$rc"
assert_contains "  says the change on trial was put back" "$(cat "$T/termed.err")" \
	"interrupted: the change on trial was put back"
assert_eq "  c0 exactly as before" "$pristine" "$(c0_state)"

finish
