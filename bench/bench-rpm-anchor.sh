#!/usr/bin/env bash
# bench-rpm-anchor.sh - `debloat test rpm` against `debloat server --rpm` and against
# Debian's nghttpd, on the same bloated path in the same run: does a stock HTTP/2
# server started as docs/rpm.md says load the path as ours does, and so give the same
# RPM? And what does nghttpd started with its defaults measure instead?
#
#	[ ns dbb-rpmq-c-$$ ]       [ ns dbb-rpmq-r-$$ ]          [ ns dbb-rpmq-s-$$ ]
#	  debloat test rpm           forwards                      debloat server --rpm 4043
#	  ping (ICMP meanwhile)      egress of both veths:         nghttpd --no-tls -w 22 -W 24
#	  c$$ 10.97.1.1 <--veth--> 10.97.1.2   10.97.2.2 <--veth--> s$$ 10.97.2.1
#	                           htb RATE + pfifo limit LIMIT     nghttpd --no-tls (defaults)
#	                           (tc -s sampled here)
#
# The servers:
#   ours      `debloat server --rpm` (TCP_NOTSENT_LOWAT 16 KiB on each socket, HTTP/2
#             windows 4 MiB a stream and 16 MiB a connection);
#   nghttpd   docs/rpm.md's recipe: `nghttpd --no-tls -w 22 -W 24`, with the servers'
#             namespace's net.ipv4.tcp_notsent_lowat at 16384 while it runs;
#   nghttpd-defaults  the recipe as it was first written: `nghttpd --no-tls`
#             (64 KiB windows), the sysctl at the kernel's default (no limit).
# The sysctl is set in the servers' namespace only, before each run (the kernel reads
# it at every write, so it holds for that run's sockets); our server sets its own.
# All three serve the same static config and objects (nghttpd from a tree like the
# docs' one: an 8 GiB sparse file, a 1-byte file, an empty upload target).
#
# The path: the shapers sit in the router, GSO, TSO and GRO are off everywhere so a
# pfifo limit counts wire-sized packets (1000 at 100 Mbit/s is ~120 ms of queue each
# way), and the client's and servers' namespaces run --cc (default reno: a loss-based
# CC fills a FIFO for sure, BBR keeps its own queue short and hides the FIFO's size;
# `--cc bbr` runs this kernel's default).
#
# Rounds: --runs N (default 3) times each server, interleaved (ours, nghttpd,
# nghttpd-defaults, ours, ...) so that a drift of the machine touches all three alike.
# Each run is a default `debloat test rpm URL` (concurrent, ID 5 s, MNP 16, at most
# 60 s: --id, --max-time, --mnp pass others). Per run, from its JSON: the RPM, its
# foreign and loaded parts, the TCP handshake, the GET on a new connection and the GET
# on a load connection (trimmed means), goodput and connections each way; and from
# the path meanwhile: the pfifo backlog each way (tc -s qdisc in the router every
# 0.25 s: median and 90th percentile of the samples of the run's second half, when the
# load has ramped up), its drops each way, the median ICMP RTT through it and the
# echoes lost; the SYNs and SYN-ACKs the client's and servers' TCP sent again, per
# foreign probe (a lost one costs the probe the 1 s initial retransmission timeout);
# the server's CPU. Per server the median over the runs of each figure, and its ratio
# to ours. The path is symmetric unless --rate-up gives the upload its own rate.
#
# --json prints {"results": [{"name", "value", "unit"}, ...]} like bench/run.sh;
# --keep DIR keeps each run's JSON, backlog samples and ping output there.
# Bounded: every process under `timeout`; with the defaults 9 runs of at most 60 s
# (35 to 60 s each), 7 to 10 minutes. SIGINT or SIGTERM stops it at once, cleaned up.
# Exits 77 (skipped) without root, network namespaces, nghttpd or the CC asked for.
#
#   sudo bench/bench-rpm-anchor.sh [BUILD_DIR] [--json] [--runs N] [--cc reno|bbr]
#        [--rate RATE] [--rate-up RATE] [--limit PACKETS] [--id S] [--max-time S]
#        [--mnp N] [--servers "ours nghttpd nghttpd-defaults"] [--keep DIR]
set -euo pipefail

BUILD=build
json=0
runs=3
cc=reno
rate=100mbit
rate_up=
limit=1000
id=5
maxtime=60
mnp=16
servers="ours nghttpd nghttpd-defaults"
keep=
while [ $# -gt 0 ]; do
	case "$1" in
	--json) json=1 ;;
	--runs) runs=$2; shift ;;
	--cc) cc=$2; shift ;;
	--rate) rate=$2; shift ;;
	--rate-up) rate_up=$2; shift ;;
	--limit) limit=$2; shift ;;
	--id) id=$2; shift ;;
	--max-time) maxtime=$2; shift ;;
	--mnp) mnp=$2; shift ;;
	--servers) servers=$2; shift ;;
	--keep) keep=$2; shift ;;
	-h | --help)
		sed -n '2,54p' "$0"
		exit 0
		;;
	-*) echo "bench-rpm-anchor: unknown option $1 (--help)" >&2; exit 2 ;;
	*) BUILD=$1 ;;
	esac
	shift
done
rate_up=${rate_up:-$rate}
DEBLOAT=$BUILD/debloat
[ -x "$DEBLOAT" ] || { echo "bench-rpm-anchor: no $DEBLOAT (make first)" >&2; exit 1; }
for s in $servers; do
	case "$s" in
	ours | nghttpd | nghttpd-defaults) ;;
	*) echo "bench-rpm-anchor: unknown server \`$s' (ours, nghttpd, nghttpd-defaults)" >&2; exit 2 ;;
	esac
done
# What this host cannot do is a skip (77, as bench/run.sh expects), not a failure.
skip() { echo "bench-rpm-anchor: skipped: $*" >&2; exit 77; }
for c in nghttpd jq ip tc ping ethtool; do
	command -v "$c" >/dev/null || skip "needs $c (scripts/install-deps.sh test)"
done
[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces)"
grep -qw "$cc" /proc/sys/net/ipv4/tcp_available_congestion_control ||
	skip "this kernel has no $cc congestion control loaded"

C=dbb-rpmq-c-$$
R=dbb-rpmq-r-$$
S=dbb-rpmq-s-$$
DC=c$$ # the client's veth, and its peer in the router
DR=rc$$
SR=rs$$ # the router's veth toward the servers, and its peer there
DS=s$$
RPM_PORT=4043
NG_PORT=4080
NGD_PORT=4081
tmp=$(mktemp -d)
pids=()     # the servers, for the whole bench
run_pids=() # the current run's client, ping and sampler
cleanup() {
	local p
	for p in "${run_pids[@]+"${run_pids[@]}"}" "${pids[@]+"${pids[@]}"}"; do
		kill "$p" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	ip netns del "$C" 2>/dev/null || true
	ip netns del "$R" 2>/dev/null || true
	ip netns del "$S" 2>/dev/null || true
	if [ -n "$keep" ]; then
		mkdir -p "$keep"
		cp -r "$tmp"/. "$keep"/ || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
# A signal ends the bench at once (the EXIT trap then cleans up): the runs are
# waited for with `wait`, which a trapped signal interrupts.
trap 'exit 143' TERM
trap 'exit 130' INT

load0=$(cut -d' ' -f1 /proc/loadavg)
ip netns add "$C" 2>/dev/null || skip "cannot create network namespaces"
ip netns add "$R"
ip netns add "$S"
ip link add "$DC" netns "$C" type veth peer name "$DR" netns "$R"
ip link add "$DS" netns "$S" type veth peer name "$SR" netns "$R"
ip -n "$C" addr add 10.97.1.1/24 dev "$DC"
ip -n "$R" addr add 10.97.1.2/24 dev "$DR"
ip -n "$R" addr add 10.97.2.2/24 dev "$SR"
ip -n "$S" addr add 10.97.2.1/24 dev "$DS"
for nd in "$C $DC" "$R $DR" "$R $SR" "$S $DS"; do
	read -r ns dev <<<"$nd"
	ip netns exec "$ns" ethtool -K "$dev" tso off gso off gro off >/dev/null 2>&1 || true
	ip -n "$ns" link set lo up
	ip -n "$ns" link set "$dev" up
done
ip -n "$C" route add default via 10.97.1.2
ip -n "$S" route add default via 10.97.2.2
ip netns exec "$R" sysctl -qw net.ipv4.ip_forward=1
for ns in "$C" "$S"; do
	ip netns exec "$ns" sysctl -qw net.ipv4.tcp_congestion_control="$cc"
done
# The bottleneck, both ways: toward the client (download, --rate) and toward the
# servers (upload, --rate-up).
for dr in "$DR $rate" "$SR $rate_up"; do
	read -r dev r <<<"$dr"
	tc -n "$R" qdisc add dev "$dev" root handle 1: htb default 1
	tc -n "$R" class add dev "$dev" parent 1: classid 1:1 htb rate "$r" quantum 15140
	tc -n "$R" qdisc add dev "$dev" parent 1:1 handle 10: pfifo limit "$limit"
done
lowat_default=$(ip netns exec "$S" sysctl -n net.ipv4.tcp_notsent_lowat)

# The servers, all at once, for the whole bench.
bound=$((runs * 3 * (maxtime + 30) + 60))
ip netns exec "$S" timeout "$bound" "$DEBLOAT" server -b 10.97.2.1 -p 9911 \
	--rpm "$RPM_PORT" >"$tmp/server.log" 2>&1 &
pids+=($!)
declare -A server_pid=([ours]=$!)
www=$tmp/www
mkdir -p "$www/.well-known" "$www/api/v1"
printf x >"$www/api/v1/small"
truncate -s 8G "$www/api/v1/large"
: >"$www/api/v1/slurp"
# One tree serves both nghttpd, each its own config (the URLs name its port).
for port in "$NG_PORT" "$NGD_PORT"; do
	base="http://10.97.2.1:$port"
	cat >"$www/.well-known/nq-$port" <<JSON
{"version": 1, "urls": {
  "small_download_url": "$base/api/v1/small",
  "large_download_url": "$base/api/v1/large",
  "upload_url": "$base/api/v1/slurp"}}
JSON
done
ip netns exec "$S" timeout "$bound" nghttpd --no-tls -w 22 -W 24 -a 10.97.2.1 -d "$www" \
	"$NG_PORT" >"$tmp/nghttpd.log" 2>&1 &
pids+=($!)
server_pid[nghttpd]=$!
ip netns exec "$S" timeout "$bound" nghttpd --no-tls -a 10.97.2.1 -d "$www" \
	"$NGD_PORT" >"$tmp/nghttpd-defaults.log" 2>&1 &
pids+=($!)
server_pid[nghttpd-defaults]=$!
for port in "$RPM_PORT" "$NG_PORT" "$NGD_PORT"; do
	for _ in $(seq 50); do
		ip netns exec "$S" ss -Hltn "sport = :$port" | grep -q . && break
		sleep 0.1
	done
	ip netns exec "$S" ss -Hltn "sport = :$port" | grep -q . ||
		{ echo "bench-rpm-anchor: no server on port $port" >&2; cat "$tmp"/*.log >&2; exit 1; }
done

# Each server's own process: `ip netns exec` execs `timeout`, which forks it.
for who in "${!server_pid[@]}"; do
	server_pid[$who]=$(pgrep -P "${server_pid[$who]}" | head -n 1)
done

url() {
	case "$1" in
	ours) echo "http://10.97.2.1:$RPM_PORT/.well-known/nq" ;;
	nghttpd) echo "http://10.97.2.1:$NG_PORT/.well-known/nq-$NG_PORT" ;;
	nghttpd-defaults) echo "http://10.97.2.1:$NGD_PORT/.well-known/nq-$NGD_PORT" ;;
	esac
}
lowat() { # the servers' namespace's sysctl for SERVER's run
	case "$1" in
	nghttpd) echo 16384 ;;
	*) echo "$lowat_default" ;;
	esac
}

# qstats: "down_backlog down_dropped up_backlog up_dropped" (packets) of the two
# pfifos in the router, from one dump
qstats() {
	tc -s -n "$R" qdisc show | awk -v down="$DR" -v up="$SR" '
		$1 == "qdisc" { dev = ""; if ($2 == "pfifo") for (i = 3; i < NF; i++) if ($i == "dev") dev = $(i + 1) }
		dev != "" && /dropped/ { for (i = 1; i < NF; i++) if ($i == "(dropped") d[dev] = $(i + 1) + 0 }
		dev != "" && /backlog/ { for (i = 1; i < NF; i++) if ($i == "backlog") b[dev] = $(i + 2) + 0 }
		END { print b[down] + 0, d[down] + 0, b[up] + 0, d[up] + 0 }'
}
# sampler OUT: one line "seconds down_backlog up_backlog" every 0.25 s until killed
# (one tc a sample; the clock is bash's own, no fork)
sampler() {
	local t0=$EPOCHREALTIME down up
	while :; do
		read -r down _ up _ <<<"$(qstats)"
		echo "$(((${EPOCHREALTIME/./} - ${t0/./}) / 1000)) $down $up"
		sleep 0.25
	done >"$1"
}
# synretrans NS: SYNs and SYN-ACKs the namespace's TCP has sent again so far
synretrans() {
	# shellcheck disable=SC2016 # an awk program, run in the namespace
	ip netns exec "$1" awk '$1 == "TcpExt:" {
		if (!h) { for (i = 2; i <= NF; i++) name[i] = $i; h = 1; next }
		for (i = 2; i <= NF; i++) if (name[i] == "TCPSynRetrans") print $i }' /proc/net/netstat
}
# cpu PID: user + system seconds PID has used so far (0 when it is gone)
cpu() {
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); print ($12 + $13) / hz }' \
		"/proc/$1/stat" 2>/dev/null || echo 0
}
# The median and the 90th percentile (nearest rank) of the numbers on stdin.
pct() { sort -g | awk -v p="$1" '{ v[NR] = $1 } END {
	if (!NR) { print "null"; exit } r = int((p * NR + 99) / 100); if (r < 1) r = 1; print v[r] }'; }

one_run() { # one_run SERVER N: appends one JSON object to $tmp/runs.jsonl
	local who=$1 n=$2 tag=$1-$2 d0 u0 d1 u1 y0 y1 c0 c1 w0 w1 rc=0
	ip netns exec "$S" sysctl -qw net.ipv4.tcp_notsent_lowat="$(lowat "$who")"
	sleep 2 # the last run's queues drain
	read -r _ d0 _ u0 <<<"$(qstats)"
	y0=$(($(synretrans "$C") + $(synretrans "$S")))
	c0=$(cpu "${server_pid[$who]}")
	w0=$EPOCHREALTIME
	sampler "$tmp/$tag.q" &
	run_pids=($!)
	ip netns exec "$C" timeout $((maxtime + 20)) ping -n -i 0.2 -w $((maxtime + 10)) \
		10.97.2.1 >"$tmp/$tag.ping" 2>&1 &
	run_pids+=($!)
	ip netns exec "$C" timeout $((maxtime + 30)) "$DEBLOAT" test rpm --id "$id" \
		--max-time "$maxtime" --mnp "$mnp" -o "$tmp/$tag.json" "$(url "$who")" \
		>"$tmp/$tag.out" 2>&1 &
	run_pids+=($!)
	wait "${run_pids[2]}" || rc=$?
	kill "${run_pids[0]}" "${run_pids[1]}" 2>/dev/null || true
	wait "${run_pids[0]}" "${run_pids[1]}" 2>/dev/null || true
	run_pids=()
	read -r _ d1 _ u1 <<<"$(qstats)"
	y1=$(($(synretrans "$C") + $(synretrans "$S")))
	c1=$(cpu "${server_pid[$who]}")
	w1=$EPOCHREALTIME
	# A stage the draft aborts (a load connection failed) still reports what it had,
	# with the reason: counted, and named; a run without an RPM is left out.
	if ! jq -e '.rpm.rpm != null' "$tmp/$tag.json" >/dev/null 2>&1; then
		echo "bench-rpm-anchor: $tag: no RPM (exit $rc): $(tail -n 2 "$tmp/$tag.out")" >&2
		return 0
	fi
	[ "$rc" -eq 0 ] || echo "bench-rpm-anchor: $tag: cut short: $(jq -r \
		'.rpm.stages[0].error // "exit status \($rc)"' --argjson rc "$rc" "$tmp/$tag.json")" >&2
	local half qd90 qu90 qd50 qu50 icmp icmp_loss
	half=$(awk 'END { print $1 / 2 }' "$tmp/$tag.q")
	qd50=$(awk -v h="$half" '$1 >= h { print $2 }' "$tmp/$tag.q" | pct 50)
	qd90=$(awk -v h="$half" '$1 >= h { print $2 }' "$tmp/$tag.q" | pct 90)
	qu50=$(awk -v h="$half" '$1 >= h { print $3 }' "$tmp/$tag.q" | pct 50)
	qu90=$(awk -v h="$half" '$1 >= h { print $3 }' "$tmp/$tag.q" | pct 90)
	icmp=$(sed -n 's/.* time=\([0-9.]*\) ms.*/\1/p' "$tmp/$tag.ping" | pct 50)
	# ping is stopped with the run, before its summary: the echoes up to the last one
	# answered that got no answer
	icmp_loss=$(sed -nE 's/.* icmp_seq=([0-9]+) .*time=.*/\1/p' "$tmp/$tag.ping" |
		awk '{ n++; if ($1 > m) m = $1 } END { if (m) printf "%.1f", (m - n) / m * 100 }')
	jq -c --arg who "$who" --argjson n "$n" --argjson qd50 "$qd50" --argjson qd90 "$qd90" \
		--argjson qu50 "$qu50" --argjson qu90 "$qu90" --argjson dd $((d1 - d0)) \
		--argjson du $((u1 - u0)) --argjson icmp "$icmp" --argjson icmp_loss "${icmp_loss:-null}" \
		--argjson syn $((y1 - y0)) \
		--argjson cpu "$(awk -v a="$c0" -v b="$c1" -v s="$w0" -v e="$w1" \
			'BEGIN { printf "%.0f", (b - a) / (e - s) * 100 }')" '
		.rpm.stages[0] as $s | {server: $who, run: $n, rpm: .rpm.rpm,
		 foreign_rpm: $s.foreign_rpm, loaded_rpm: $s.loaded_rpm, tcp_f_ms: $s.tcp_f_ms,
		 http_f_ms: $s.http_f_ms, http_l_ms: $s.http_l_ms,
		 download_mbps: $s.download_mbps, upload_mbps: $s.upload_mbps,
		 download_connections: $s.download_connections,
		 upload_connections: $s.upload_connections, duration_s: $s.duration_s,
		 confidence: $s.confidence, cut_short: ($s.error != null),
		 backlog_down_p50: $qd50, backlog_down_p90: $qd90,
		 backlog_up_p50: $qu50, backlog_up_p90: $qu90,
		 drops_down: $dd, drops_up: $du, icmp_ms: $icmp, icmp_loss_pct: $icmp_loss,
		 foreign_probes: $s.foreign_probes, syn_retrans: $syn,
		 syn_retrans_pct: (if $s.foreign_probes > 0
			then ($syn / $s.foreign_probes * 1000 | round / 10) else null end),
		 server_cpu_pct: $cpu}' "$tmp/$tag.json" >>"$tmp/runs.jsonl"
}

: >"$tmp/runs.jsonl"
for n in $(seq "$runs"); do
	for who in $servers; do
		one_run "$who" "$n"
	done
done
load1=$(cut -d' ' -f1 /proc/loadavg)
ip netns exec "$S" sysctl -qw net.ipv4.tcp_notsent_lowat="$lowat_default"

# The figures, per server the median over its runs (null when no run gave one).
keys="rpm foreign_rpm loaded_rpm tcp_f_ms http_f_ms http_l_ms download_mbps upload_mbps
download_connections upload_connections backlog_down_p50 backlog_down_p90 backlog_up_p50
backlog_up_p90 drops_down drops_up icmp_ms icmp_loss_pct foreign_probes syn_retrans
syn_retrans_pct server_cpu_pct"
unit() {
	case "$1" in
	*rpm) echo RPM ;;
	*_ms) echo ms ;;
	*_mbps) echo Mbit/s ;;
	*connections) echo connections ;;
	backlog*) echo packets ;;
	drops*) echo packets ;;
	*pct) echo % ;;
	foreign_probes) echo probes ;;
	syn_retrans) echo packets ;;
	esac
}
{
	for who in $servers; do
		jq -c --arg who "$who" 'select(.server == $who)' "$tmp/runs.jsonl" |
			jq -cs --arg who "$who" '{name: ("runs_" + ($who | gsub("-"; "_"))),
				value: length, unit: "runs"},
				{name: ("runs_cut_short_" + ($who | gsub("-"; "_"))),
				value: map(select(.cut_short)) | length, unit: "runs"}'
		for k in $keys; do
			jq -c --arg who "$who" --arg k "$k" 'select(.server == $who) | .[$k] // empty' \
				"$tmp/runs.jsonl" | pct 50 |
				jq -c --arg n "${k}_$(tr - _ <<<"$who")" --arg u "$(unit "$k")" \
					'{name: $n, value: ., unit: $u}'
		done
	done
	for who in $servers; do
		[ "$who" != ours ] || continue
		for k in rpm tcp_f_ms http_f_ms http_l_ms download_mbps upload_mbps; do
			echo "${k}_$(tr - _ <<<"$who") ${k}_ours ${k}_$(tr - _ <<<"$who")_over_ours"
		done
	done >"$tmp/ratios"
	jq -cn --argjson l0 "$load0" --argjson l1 "$load1" '
		{name: "host_loadavg_start", value: $l0, unit: "load"},
		{name: "host_loadavg_end", value: $l1, unit: "load"}'
} >"$tmp/results.jsonl"
while read -r a b name; do
	jq -cs --arg a "$a" --arg b "$b" --arg n "$name" '
		(map(select(.name == $a)) | .[0].value) as $x |
		(map(select(.name == $b)) | .[0].value) as $y |
		{name: $n, value: (if $x != null and $y != null and $y > 0
			then ($x / $y * 100 | round / 100) else null end), unit: "ratio"}' \
		"$tmp/results.jsonl"
done <"$tmp/ratios" >"$tmp/ratios.jsonl"
cat "$tmp/ratios.jsonl" >>"$tmp/results.jsonl"

if [ "$json" -eq 1 ]; then
	jq -s '{results: .}' "$tmp/results.jsonl"
	exit 0
fi

echo "# debloat test rpm (concurrent, --id $id, --mnp $mnp, --max-time $maxtime) over"
if [ "$rate_up" = "$rate" ]; then
	echo "# htb $rate + pfifo limit $limit both ways, CC $cc; median of $runs runs each"
else
	echo "# htb $rate down, $rate_up up, each + pfifo limit $limit, CC $cc; median of $runs"
	echo "# runs each"
fi
echo "# (load average $load0 at the start, $load1 at the end)"
v() { # v NAME [SCALE]: the value of result NAME, rounded to 1 / SCALE (10)
	jq -rs --arg n "$1" --argjson k "${2:-10}" 'map(select(.name == $n)) |
	.[0].value // "-" | if type == "number" then (. * $k | round / $k | tostring) else . end' \
	"$tmp/results.jsonl"; }
printf '%-22s' ""
for who in $servers; do printf '%18s' "$who"; done
echo
row() { # row LABEL KEY [ratio]
	local who x r
	printf '%-22s' "$1"
	for who in $servers; do
		x=$(v "${2}_$(tr - _ <<<"$who")")
		r=
		if [ "${3:-}" = ratio ] && [ "$who" != ours ]; then
			r=" ($(v "${2}_$(tr - _ <<<"$who")_over_ours" 100)x)"
		fi
		printf '%18s' "$x$r"
	done
	echo
}
printf '%-22s' "runs (cut short)"
for who in $servers; do
	printf '%18s' "$(v "runs_$(tr - _ <<<"$who")") ($(v "runs_cut_short_$(tr - _ <<<"$who")"))"
done
echo
row "RPM" rpm ratio
row "  foreign RPM" foreign_rpm
row "  loaded RPM" loaded_rpm
row "TCP handshake ms" tcp_f_ms ratio
row "GET, new conn ms" http_f_ms ratio
row "GET on the load ms" http_l_ms ratio
row "down Mbit/s" download_mbps ratio
row "up Mbit/s" upload_mbps ratio
row "conns down" download_connections
row "conns up" upload_connections
row "backlog down p50 pkt" backlog_down_p50
row "backlog down p90 pkt" backlog_down_p90
row "backlog up p50 pkt" backlog_up_p50
row "backlog up p90 pkt" backlog_up_p90
row "drops down pkt" drops_down
row "drops up pkt" drops_up
row "ICMP meanwhile ms" icmp_ms
row "  ICMP lost %" icmp_loss_pct
row "foreign probes" foreign_probes
row "SYN(-ACK)s resent %" syn_retrans_pct
row "server CPU %" server_cpu_pct
