#!/usr/bin/env bash
# test-exporter.sh - `debloat exporter` end to end, scraped by Debian's Prometheus.
#
#   [ ns dbt-exp-$$ ]                                        [ ns dbt-expb-$$ ]
#     va0 10.77.0.1  htb 1: > class 1:1 (2mbit) > pfifo 10:  <--veth-->  vb0 10.77.0.2
#     va1 10.77.1.1  4 TX queues, mq 1: > pfifo_fast x 4     <--veth-->  vb1 10.77.1.2
#     tun0 10.77.2.1 a tun device, ethtool -s speed 100, a reader attached (python)
#     lo             debloat exporter 127.0.0.1:19911, prometheus 127.0.0.1:9090
#                    (scrapes every second; config and storage in a temp dir)
#
# Bounded traffic: UDP into the 2 Mbit/s class (so its pfifo drops), pings through mq
# and into tun0, each capped in count and in time. Asserted: Prometheus scrapes the
# exporter (up 1); the htb's children reach it with their parent label; a PromQL drop
# rate and backlog return series; with traffic stopped, every counter of va0's, va1's
# and tun0's qdiscs equals tc -s's within 1%; promtool
# check metrics passes; tun0's speed is 100 Mbit/s; an interface added or removed
# between scrapes comes and goes; other paths 404, other methods 405, HEAD has no body,
# an oversized head 431, garbage 400, 16 idle clients of one address hold no scrape out
# and are all dropped (4 a client, 2 s for a head); the Grafana dashboard's queries run;
# --textfile writes whole files (a reader never sees half of one; node_exporter's
# textfile collector serves them) and refuses odd
# targets; bad --listen values exit 2; after `debloat fix tun0` (in the namespace, with
# a journal in the temp dir) the exporter counts tun0's changes, and a malformed
# journal is reported as such. Prometheus and the exporter are stopped and the
# namespaces removed on every exit path.
# run.sh: timing net
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_debloat
require_root
require_netns
require_cmd jq curl ethtool ping python3 pgrep prometheus promtool prometheus-node-exporter

NS=dbt-exp-$$
NSB=dbt-expb-$$
PORT=19911
T=$(mktemp -d)
EXPORTER_PID='' PROM_PID='' WRITER_PID='' TUN_PID='' NODE_PID=''
stop_all() {
	local p
	for p in "$WRITER_PID" "$EXPORTER_PID" "$PROM_PID" "$TUN_PID" "$NODE_PID"; do
		[ -n "$p" ] || continue
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	rm -rf "$T"
	cleanup
}
trap stop_all EXIT

# For commands run in the foreground. One started with & must be `ip netns exec "$NS"
# timeout ...` itself, so that $! is the timeout process (ip execs it): a function would
# put a subshell there, and killing that leaves the command running.
in_ns() { ip netns exec "$NS" "$@"; }
scrape() { in_ns curl -sf --max-time 5 "http://127.0.0.1:$PORT/metrics"; }
# promql QUERY: the API's result array
promql() {
	in_ns curl -sf --max-time 5 "http://127.0.0.1:9090/api/v1/query" \
		--data-urlencode "query=$1" | jq -c '.data.result'
}

netns_add "$NS"
netns_add "$NSB"
in_ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip -n "$NS" link set lo up
ip -n "$NS" link add va0 type veth peer name vb0 netns "$NSB"
ip -n "$NS" link add va1 numtxqueues 4 numrxqueues 4 type veth peer name vb1 netns "$NSB"
ip -n "$NS" addr add 10.77.0.1/24 dev va0
ip -n "$NS" addr add 10.77.1.1/24 dev va1
ip -n "$NSB" addr add 10.77.0.2/24 dev vb0
ip -n "$NSB" addr add 10.77.1.2/24 dev vb1
for l in va0 va1; do ip -n "$NS" link set "$l" up; done
for l in vb0 vb1; do ip -n "$NSB" link set "$l" up; done
tc -n "$NS" qdisc add dev va0 root handle 1: htb default 1
tc -n "$NS" class add dev va0 parent 1: classid 1:1 htb rate 2mbit ceil 2mbit
tc -n "$NS" qdisc add dev va0 parent 1:1 handle 10: pfifo limit 10
tc -n "$NS" qdisc add dev va1 root handle 1: mq
ip -n "$NS" tuntap add dev tun0 mode tun
in_ns ethtool -s tun0 speed 100 duplex full
ip -n "$NS" addr add 10.77.2.1/24 dev tun0
ip -n "$NS" link set tun0 up
# A reader attached to tun0 (carrier on) swallows what is routed into it, for 60 s at
# most: the pings below go through tun0's pfifo_fast.
ip netns exec "$NS" timeout 60 python3 -c '
import fcntl, os, struct, time
fd = os.open("/dev/net/tun", os.O_RDWR)
fcntl.ioctl(fd, 0x400454ca, struct.pack("16sH", b"tun0", 0x0001 | 0x1000))  # TUNSETIFF: IFF_TUN, IFF_NO_PI
os.set_blocking(fd, False)
end = time.monotonic() + 55
while time.monotonic() < end:
    try:
        os.read(fd, 65536)
    except BlockingIOError:
        time.sleep(0.005)
' &
TUN_PID=$!

# ---- command line errors ----
for bad in nope 127.0.0.1 127.0.0.1:0 1.2.3.4:99999 : localhost:80 "[::1]" ::1:80; do
	run "$DEBLOAT" exporter --listen "$bad"
	assert_status "--listen $bad is a usage error" 2
done
assert_contains "a bad --listen is named" "$ERR" "bad --listen"
run "$DEBLOAT" exporter --once --listen 127.0.0.1:1
assert_status "--once with --listen is a usage error" 2
run "$DEBLOAT" exporter --interval 0 --textfile "$T"
assert_status "--interval 0 is a usage error" 2

# ---- the exporter and Prometheus, both on the namespace's loopback ----
ip netns exec "$NS" timeout 110 "$DEBLOAT" exporter --listen "127.0.0.1:$PORT" 2>"$T/exporter.log" &
EXPORTER_PID=$!
cat >"$T/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: debloat
    static_configs:
      - targets: ['127.0.0.1:$PORT']
YML
ip netns exec "$NS" timeout 110 prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/data" \
	--web.listen-address=127.0.0.1:9090 --log.level=warn >"$T/prometheus.log" 2>&1 &
PROM_PID=$!
for _ in $(seq 50); do scrape >/dev/null 2>&1 && break; sleep 0.1; done
run scrape
assert_status "the exporter serves /metrics" 0
first=$OUT

# ---- HTTP behaviour ----
code=$(in_ns curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$PORT/")
assert_eq "another path is 404" 404 "$code"
code=$(in_ns curl -s -o /dev/null -w '%{http_code}' --max-time 5 -X POST \
	"http://127.0.0.1:$PORT/metrics")
assert_eq "another method is 405" 405 "$code"
hdr=$(in_ns curl -s -I --max-time 5 "http://127.0.0.1:$PORT/metrics")
assert_contains "the content type is the text format 0.0.4" "$hdr" "text/plain; version=0.0.4"
body=$(in_ns curl -s --max-time 5 -X HEAD "http://127.0.0.1:$PORT/metrics" 2>/dev/null || true)
assert_eq "HEAD has no body" "" "$body"
code=$(in_ns curl -s -o /dev/null -w '%{http_code}' --max-time 5 \
	-H "X-Long: $(head -c 9000 /dev/zero | tr '\0' a)" "http://127.0.0.1:$PORT/metrics")
assert_eq "a request head over 8 KB is 431" 431 "$code"
reply=$(in_ns timeout 5 bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT; printf 'NOT HTTP\r\n\r\n' >&3; head -n 1 <&3")
assert_eq "a malformed request is 400" "HTTP/1.1 400 Bad Request" "${reply%$'\r'}"

# 16 idle clients from one address try to take every connection: the address holds 4
# (the rest are closed as they come or make room), each for 2 s at most without a
# whole request, and a scrape is served at once meanwhile.
ip netns exec "$NS" timeout 20 python3 -c '
import socket, sys, time
socks = [socket.create_connection(("127.0.0.1", int(sys.argv[1]))) for _ in range(16)]
time.sleep(0.3)  # the server accepts them, one per turn of its loop
open(sys.argv[2], "w").close()
for s in socks:
    s.settimeout(15)
closed = 0
for s in socks:
    try:
        if s.recv(1) == b"":
            closed += 1
    except OSError:
        pass
print(closed)
' "$PORT" "$T/idle.ready" >"$T/idle.out" &
idle=$!
for _ in $(seq 100); do [ -e "$T/idle.ready" ] && break; sleep 0.05; done
code=$(in_ns curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$PORT/metrics" || true)
assert_eq "with 16 idle connections from one address, a scrape is served at once" 200 "$code"
wait "$idle" || true
assert_eq "the server closed all 16 idle connections" 16 "$(cat "$T/idle.out")"

# ---- what the first scrape says ----
assert_contains "tun0's speed is 100 Mbit/s" "$first" \
	'debloat_interface_speed_bytes{device="tun0"} 12500000'
assert_contains "the htb's pfifo child has its parent" "$first" \
	'debloat_qdisc_packets_total{device="va0",kind="pfifo",handle="10:",parent="1:1"}'
assert_contains "mq's children are there, one per TX queue" "$first" \
	'debloat_qdisc_packets_total{device="va1",kind="pfifo_fast",handle="0:",parent="1:4"}'
assert_contains "audit's grade of tun0 (100 Mbit/s)" "$first" 'debloat_audit_grade{device="tun0",grade='
promtool_out=$(scrape | promtool check metrics 2>&1) && rc=0 || rc=$?
assert_eq "promtool check metrics passes: $promtool_out" 0 "$rc"

# ---- interfaces come and go between scrapes ----
ip -n "$NS" link add vz0 type veth peer name vz1
assert_contains "a new interface appears at the next scrape" "$(scrape)" 'device="vz0"'
ip -n "$NS" link del vz0
run scrape
assert_status "the scrape after an interface went away succeeds" 0
assert_not_contains "and the interface is gone from it" "$OUT" 'device="vz0"'

# ---- traffic, bounded: 2000 datagrams or 5 s on va0, 2000 pings or 6 s on va1, 300
# pings or 4 s into tun0 ----
# UDP into the 2 Mbit/s class at about twice its rate (400 datagrams/s of 1400 bytes):
# sendto does not wait for the queue, so the pfifo fills and drops (a ping flood waits
# for its replies and rarely does).
ip netns exec "$NS" timeout 8 python3 -c '
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
end = time.monotonic() + 5
for i in range(2000):
    if time.monotonic() > end:
        break
    try:
        s.sendto(b"x" * 1400, ("10.77.0.2", 9))
    except OSError:
        pass
    time.sleep(0.0025)
' &
p1=$!
ip netns exec "$NS" ping -q -c 300 -i 0.005 -w 4 -s 500 10.77.2.2 >/dev/null 2>&1 &
p2=$!
ip netns exec "$NS" ping -q -f -c 2000 -w 6 -s 1000 10.77.1.2 >/dev/null 2>&1 || true
wait "$p1" || true
wait "$p2" || true

# ---- Prometheus: up, children, the drop rate and the backlog through PromQL ----
up=
for _ in $(seq 60); do
	up=$(promql 'up{job="debloat"}' 2>/dev/null | jq -r '.[0].value[1] // empty' || true)
	[ "$up" = 1 ] && break
	sleep 0.5
done
assert_eq "Prometheus scrapes the exporter: up is 1" 1 "$up"
sleep 2 # a few more scrapes after the traffic, for rate()
res=$(promql 'rate(debloat_qdisc_drops_total{device="va0"}[10s])')
assert_true "a PromQL drop rate returns va0's series" test "$(jq length <<<"$res")" -ge 2
res=$(promql 'sum by (parent) (debloat_qdisc_drops_total{device="va0",parent="1:1"})')
dropped=$(jq -r '.[0].value[1] // 0' <<<"$res")
assert_true "the 2 Mbit/s class's pfifo dropped ($dropped) and Prometheus has it" \
	test "${dropped%.*}" -gt 0
res=$(promql 'debloat_qdisc_backlog_bytes{device="va0"} / on() group_left() debloat_interface_speed_bytes{device="tun0"}')
assert_true "a PromQL backlog query returns series" test "$(jq length <<<"$res")" -ge 2

# The Grafana dashboard's own queries, on this namespace's Prometheus: each is valid
# PromQL over these metrics, and the backlog-as-time and grade panels have data.
dash=$TOP/contrib/grafana/debloat.json
nq=0 badq=
while IFS= read -r expr; do
	q=${expr//\$instance/127.0.0.1:$PORT}
	q=${q//\$device/.*}
	q=${q//\$__rate_interval/10s}
	st=$(in_ns curl -s --max-time 5 "http://127.0.0.1:9090/api/v1/query" \
		--data-urlencode "query=$q" | jq -r .status)
	[ "$st" = success ] || badq+=" [$q]"
	nq=$((nq + 1))
done < <(jq -r '.. | .expr? // empty' "$dash")
assert_eq "all $nq dashboard queries run in Prometheus" "" "$badq"
res=$(promql "$(jq -r '.panels[] | select(.title | startswith("Backlog")) | .targets[0].expr' "$dash" |
	sed "s/\$instance/127.0.0.1:$PORT/g; s/\$device/.*/g")")
assert_true "the backlog-as-time panel has tun0's series" grep -q '"tun0"' <<<"$res"
res=$(promql "debloat_audit_grade{instance=\"127.0.0.1:$PORT\"}")
assert_true "the grade panel has tun0's grade" grep -q '"tun0"' <<<"$res"

# ---- counters equal tc's, taken back to back with the traffic stopped ----
for _ in $(seq 30); do
	q=$(tc -n "$NS" -s -j qdisc show dev va0 | jq '[.[].qlen] | add')
	[ "$q" = 0 ] && break
	sleep 0.1
done
ours=$(scrape)
tcs=$(for d in va0 va1 tun0; do tc -n "$NS" -s -j qdisc show dev "$d" | jq --arg d "$d" '[.[] | .dev = $d]'; done | jq -s 'add')
checked=0 bad=
while read -r dev kind handle parent bytes packets drops overlimits requeues; do
	[ "$parent" = null ] && parent=root
	for m in bytes:$bytes packets:$packets drops:$drops overlimits:$overlimits requeues:$requeues; do
		name=${m%%:*} want=${m#*:}
		got=$(grep -F "debloat_qdisc_${name}_total{device=\"$dev\",kind=\"$kind\",handle=\"$handle\",parent=\"$parent\"} " <<<"$ours" | awk '{print $2}' || true)
		if [ -z "$got" ] || ! awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.01 * (b > 0 ? b : 1)) }'; then
			bad+=" $dev/$handle/$name:ours=${got:-none},tc=$want"
		fi
		checked=$((checked + 1))
	done
done < <(jq -r '.[] | "\(.dev) \(.kind) \(.handle) \(.parent // "null") \(.bytes) \(.packets) \(.drops) \(.overlimits) \(.requeues)"' <<<"$tcs")
assert_eq "every counter of va0's, va1's and tun0's qdiscs is tc's within 1% ($checked compared)" "" "$bad"
assert_true "the comparison covered the htb, its pfifo, mq, mq's four children, tun0's root" \
	test "$checked" -ge 40
pkts=$(grep -F 'debloat_qdisc_packets_total{device="tun0",kind="pfifo_fast",handle="0:",parent="root"} ' <<<"$ours" | awk '{print $2}' || true)
assert_true "traffic went through tun0 ($pkts packets)" test "${pkts:-0}" -ge 300
pkts=$(grep -F 'debloat_qdisc_packets_total{device="va0",kind="pfifo",handle="10:",parent="1:1"} ' <<<"$ours" | awk '{print $2}' || true)
assert_true "traffic went through the pfifo ($pkts packets)" test "${pkts:-0}" -gt 300

# ---- --textfile ----
TF=$T/tf
mkdir "$TF"
run in_ns "$DEBLOAT" exporter --once --textfile "$TF"
assert_status "--once --textfile writes the file" 0
assert_true "the file is there" test -f "$TF/debloat.prom"
assert_eq "and nothing else (no temporary left)" "debloat.prom" "$(ls -A "$TF")"
assert_eq "it is 0644" 644 "$(stat -c %a "$TF/debloat.prom")"
promtool_out=$(promtool check metrics <"$TF/debloat.prom" 2>&1) && rc=0 || rc=$?
assert_eq "promtool check metrics passes on the textfile: $promtool_out" 0 "$rc"
# node_exporter's textfile collector reads it as it is.
ip netns exec "$NS" timeout 30 prometheus-node-exporter --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$TF" --web.listen-address=127.0.0.1:9100 \
	>"$T/node.log" 2>&1 &
NODE_PID=$!
node=
for _ in $(seq 50); do
	node=$(in_ns curl -sf --max-time 5 http://127.0.0.1:9100/metrics 2>/dev/null) && break
	sleep 0.1
done
assert_contains "node_exporter's textfile collector reads the file without error" "$node" \
	"node_textfile_scrape_error 0"
assert_contains "and serves our metrics from it" "$node" \
	'debloat_qdisc_packets_total{device="va0",handle="10:",kind="pfifo",parent="1:1"}'
kill "$NODE_PID" 2>/dev/null || true
wait "$NODE_PID" 2>/dev/null || true
NODE_PID=
# A reader during 3 s of writes every second never sees half a file: the last family is
# always there, ending in a newline.
ip netns exec "$NS" timeout 4 "$DEBLOAT" exporter --textfile "$TF" --interval 1 2>/dev/null &
WRITER_PID=$!
torn=0 reads=0
end=$((SECONDS + 3))
while [ $SECONDS -lt $end ] && [ $reads -lt 3000 ]; do
	c=$(cat "$TF/debloat.prom" 2>/dev/null; echo x)
	reads=$((reads + 1))
	case "$c" in
	*'debloat_exporter_build_info{'*$'\n'x) ;;
	*) torn=$((torn + 1)) ;;
	esac
done
wait "$WRITER_PID" 2>/dev/null || true
WRITER_PID=
assert_eq "no read of $reads saw a partial file" 0 "$torn"
assert_eq "the writer left no temporary behind" "debloat.prom" "$(ls -A "$TF")"

run "$DEBLOAT" exporter --once --textfile "$T/missing"
assert_status "a directory that does not exist is refused" 1
assert_contains "with a clear error" "$ERR" "cannot use --textfile $T/missing: No such file or directory"
run "$DEBLOAT" exporter --once --textfile /dev/null
assert_status "a device node as the directory is refused" 1
assert_contains "with a clear error" "$ERR" "not a directory"
ln -s /dev/null "$T/devlink"
run "$DEBLOAT" exporter --once --textfile "$T/devlink"
assert_status "a symlink to a device node as the directory is refused" 1
mkdir "$T/odd"
ln -s /dev/null "$T/odd/debloat.prom"
run "$DEBLOAT" exporter --once --textfile "$T/odd"
assert_status "debloat.prom as a symlink to /dev/null is refused" 1
assert_contains "with a clear error" "$ERR" "not a regular file; not replacing it"
assert_true "the symlink is left as it was" test -L "$T/odd/debloat.prom"
assert_true "and /dev/null is still a device" test -c /dev/null
rm "$T/odd/debloat.prom"
mknod "$T/odd/debloat.prom" c 1 3
run "$DEBLOAT" exporter --once --textfile "$T/odd"
assert_status "debloat.prom as a device node is refused" 1
assert_true "the node is left as it was" test -c "$T/odd/debloat.prom"

# ---- fix's journal ----
mkdir "$T/state" "$T/badstate"
run in_ns "$DEBLOAT" fix tun0 --state-dir "$T/state"
assert_status "debloat fix tun0 (in this namespace) applies its plan" 0
run in_ns "$DEBLOAT" exporter --once --state-dir "$T/state"
n=$(sed -nE 's/^debloat_fix_journal_changes\{device="tun0"\} ([0-9]+)$/\1/p' <<<"$OUT")
assert_true "the exporter counts fix's changes of tun0 (${n:-none})" test "${n:-0}" -ge 1
assert_contains "and none of va0" "$OUT" 'debloat_fix_journal_changes{device="va0"} 0'
printf 'not a journal\n' >"$T/badstate/journal"
run in_ns "$DEBLOAT" exporter --once --state-dir "$T/badstate"
assert_status "a malformed journal does not fail the scrape" 0
assert_contains "it is reported as not valid" "$OUT" "debloat_fix_journal_valid 0"
assert_not_contains "with no count guessed" "$OUT" "debloat_fix_journal_changes{"

# ---- stopping ----
# The exporter runs under timeout (a bound should this script be killed): signal the
# exporter itself, timeout's one child, and take timeout's status, which is its child's.
kill -TERM "$(pgrep -P "$EXPORTER_PID")"
wait "$EXPORTER_PID" && rc=0 || rc=$?
EXPORTER_PID=
assert_eq "SIGTERM stops the exporter cleanly (exit 0)" 0 "$rc"
finish
