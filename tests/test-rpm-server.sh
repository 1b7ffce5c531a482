#!/usr/bin/env bash
# test-rpm-server.sh - `debloat server --rpm`, the responsiveness test's server side,
# fetched by stock clients and by our own, on the loopback of a namespace of its own:
#
#	[ ns dbt-rps-$$ ]
#	  curl (HTTP/1.1), curl --http2-prior-knowledge, nghttp (h2c)   --lo-->
#	  debloat test rpm (h2c, --http1)                               --lo-->
#	      debloat server -p 19911 --rpm 14043 --json   (log lines: "rpm" transfers)
#
#  - /.well-known/nq is JSON with the draft's keys and Apple's *_https_* ones, URLs
#    built from the Host the client sent (a Host that is no authority: the local
#    address); small is 1 byte; large streams for as long as the client reads
#    (curl --max-time 2) and the server is healthy after; a 5 MB upload gets 200 and
#    is counted in the server's log, over both protocols; 404, 405, 431, 400, 411;
#  - limits: a server with --rpm-per-addr 2 refuses a third connection from one
#    address while another address is still served; --rpm-max-time 2 ends an endless
#    download after ~2 s (both protocols); --rpm-idle 1 closes a silent connection;
#  - HTTP/1.1 pipelining, cleartext and TLS: every request answered at once;
#  - a short h2c answer leaves in at most two packets that carry data (tcpdump);
#  - our client against our server: an RPM, h2c and HTTP/1.1; each direction's capacity;
#    the draft named; progress lines on stderr with -v or on a terminal (script(1)),
#    never on stdout;
#  - TLS (--cert, --key: a self-signed certificate made here with openssl): on the same
#    port, curl -k over h2 and HTTP/1.1 (ALPN), nghttp, and our client with -k get the
#    config with https:// URLs, small, large, an upload; cleartext still served.
# About 40 s.
# run.sh: timing prove
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_netns
require_cmd jq curl nghttp openssl tcpdump
require_debloat

jqtrue() { jq -e "$@" >/dev/null; }
assert_num() { # assert_num DESC AWK-CONDITION
	if awk "BEGIN { exit !($2) }"; then pass "$1"; else fail "$1: not ($2)"; fi
}

NS=dbt-rps-$$
PORT=19911
RPM=14043
T=$(mktemp -d)
SERVER2=
stop2() {
	[ -n "$SERVER2" ] || return 0
	kill "$SERVER2" 2>/dev/null || true
	wait "$SERVER2" 2>/dev/null || true
	SERVER2=
}
trap 'stop2; rm -rf "$T"; cleanup' EXIT
netns_add "$NS"
ip -n "$NS" link set lo up
nsrun() { ip netns exec "$NS" "$@"; }
base="http://127.0.0.1:$RPM"

SERVER_TIMEOUT=90 netns_server "$NS" "$PORT" "$T/server.log" --rpm "$RPM" --json
for _ in $(seq 50); do
	nsrun ss -Hltn "sport = :$RPM" | grep -q . && break
	sleep 0.1
done
assert_contains "the server says where the rpm test is" "$(cat "$T/server.log")" \
	"responsiveness test on TCP port $RPM"

# --- the config, over HTTP/1.1, h2c (curl) and h2c (nghttp) ---------------------------
for how in "curl -s" "curl -s --http2-prior-knowledge" "nghttp"; do
	# shellcheck disable=SC2086 # $how is a command and its options
	run nsrun timeout 10 $how "$base/.well-known/nq"
	assert_status "$how: config fetched" 0
	assert_true "$how: config is JSON with the draft's keys and Apple's" jqtrue \
		'.version == 1 and (.urls | .small_download_url and .large_download_url and
		 .upload_url and .small_https_download_url and .large_https_download_url and
		 .https_upload_url) and .test_endpoint == "127.0.0.1"' <<<"$OUT"
	assert_eq "$how: URLs from the Host" "$base/api/v1/large" \
		"$(jq -r .urls.large_download_url <<<"$OUT" 2>/dev/null)"
done
run nsrun curl -s -H "Host: rpm.test:8080" "$base/.well-known/nq"
assert_eq "another Host, other URLs" "http://rpm.test:8080/api/v1/slurp" \
	"$(jq -r .urls.upload_url <<<"$OUT" 2>/dev/null)"
run nsrun curl -s -H 'Host: a"b' "$base/.well-known/nq"
assert_eq "a Host that is no authority: the local address" "$base/api/v1/small" \
	"$(jq -r .urls.small_download_url <<<"$OUT" 2>/dev/null)"

# --- small and large ---------------------------------------------------------------
run nsrun curl -s -o /dev/null -w '%{http_code} %{size_download}' "$base/api/v1/small"
assert_eq "HTTP/1.1: small is 1 byte" "200 1" "$OUT"
run nsrun curl -s --http2-prior-knowledge -o /dev/null \
	-w '%{http_code} %{size_download} %{http_version}' "$base/api/v1/small"
assert_eq "h2c: small is 1 byte" "200 1 2" "$OUT"
run nsrun nghttp -s "$base/api/v1/small"
assert_status "nghttp: small fetched" 0
# A short h2c answer leaves in as few packets as it can: nghttp2 hands out the server's
# SETTINGS, the ack of the client's, HEADERS and DATA one frame at a time, and with
# TCP_NODELAY a send() each is a packet each, four slots in a short FIFO and four chances
# of a loss where one would do. The server's packets that carry data, on the wire:
# the SETTINGS may leave before the request has come, the rest in one.
seg_count() { # seg_count FILE: the server's packets with a payload in a capture
	tcpdump -n -r "$1" "tcp src port $RPM and (ip[2:2] - ((ip[0] & 0xf) << 2) - ((tcp[12] & 0xf0) >> 2)) > 0" \
		2>/dev/null | wc -l
}
nsrun timeout 20 tcpdump -i lo -U -n -w "$T/small.pcap" "tcp port $RPM" 2>"$T/tcpdump.err" &
TCPDUMP=$!
for _ in $(seq 50); do grep -q listening "$T/tcpdump.err" && break; sleep 0.1; done
run nsrun curl -s --http2-prior-knowledge -o /dev/null -w '%{http_code}' "$base/api/v1/small"
sleep 0.3
kill -INT "$TCPDUMP" 2>/dev/null || true
wait "$TCPDUMP" 2>/dev/null || true
n=$(seg_count "$T/small.pcap")
assert_num "h2c: the answer to a GET of small left in at most 2 packets with data ($n)" "${n:-99} >= 1 && ${n:-99} <= 2"
for h in "" --http2-prior-knowledge; do
	run nsrun curl -s $h --max-time 2 -o /dev/null -w '%{http_code} %{size_download}' \
		"$base/api/v1/large"
	assert_eq "large ${h:-HTTP/1.1}: cut by the client's --max-time (curl exit 28)" 28 "$RC"
	read -r code got <<<"$OUT"
	assert_num "large ${h:-HTTP/1.1}: 200 and > 50 MB in 2 s ($got bytes)" \
		"$code == 200 && $got > 50000000"
done
run nsrun curl -s -o /dev/null -w '%{http_code}' "$base/api/v1/small"
assert_eq "healthy after the endless downloads" 200 "$OUT"
# HTTP/1.1 pipelining: requests sent in one write are all answered, in order, at once
# (not one per wakeup: three such requests once got two answers and a stall).
for n in 3 400; do
	read -r got ms < <(nsrun python3 "$(dirname "$0")/h1-pipeline.py" 127.0.0.1 "$RPM" "$n")
	assert_num "HTTP/1.1: $n pipelined requests, $got answered in $ms ms" "${got:-0} == $n && ${ms:-9999} < 3000"
done

# --- upload -------------------------------------------------------------------------
head -c 5000000 /dev/urandom >"$T/up"
run nsrun curl -s -o /dev/null -w '%{http_code} %{size_upload}' --data-binary @"$T/up" \
	"$base/api/v1/slurp"
assert_eq "HTTP/1.1: a 5 MB upload gets 200 (Expect: 100-continue answered)" "200 5000000" "$OUT"
run nsrun curl -s --http2-prior-knowledge -o /dev/null -w '%{http_code} %{size_upload}' \
	--data-binary @"$T/up" "$base/api/v1/slurp"
assert_eq "h2c: a 5 MB upload gets 200" "200 5000000" "$OUT"
run nsrun nghttp -s -d "$T/up" "$base/api/v1/slurp"
assert_status "nghttp: a 5 MB upload" 0
sleep 0.3
assert_eq "the server counted each upload whole" \
	"http/1.1 5000000 complete|h2c 5000000 complete|h2c 5000000 complete" \
	"$(grep '^{' "$T/server.log" | jq -r 'select(.rpm == "upload") | "\(.protocol) \(.bytes) \(.end)"' | paste -sd'|')"

# --- errors ---------------------------------------------------------------------------
code() { nsrun curl -s -o /dev/null -w '%{http_code}' "$@"; }
assert_eq "unknown path: 404" 404 "$(code "$base/nope")"
assert_eq "unknown path, h2c: 404" 404 "$(code --http2-prior-knowledge "$base/nope")"
assert_eq "POST to small: 405" 405 "$(code -d x "$base/api/v1/small")"
assert_eq "GET of the upload URL, h2c: 405" 405 "$(code --http2-prior-knowledge "$base/api/v1/slurp")"
assert_eq "DELETE: 405" 405 "$(code -X DELETE "$base/api/v1/large")"
assert_eq "a 9 KB header: 431" 431 \
	"$(code -H "X-Big: $(head -c 9000 /dev/zero | tr '\0' a)" "$base/api/v1/small")"
assert_eq "a chunked upload: 501 (bodies need a length)" 501 \
	"$(code -H 'Transfer-Encoding: chunked' --data-binary @"$T/up" "$base/api/v1/slurp")"
raw() { # raw BYTES: what the server answers to them, first line
	nsrun bash -c "exec 3<>/dev/tcp/127.0.0.1/$RPM; printf '$1' >&3; timeout 3 head -n 1 <&3" |
		tr -d '\r'
}
assert_eq "garbage: 400" "HTTP/1.1 400 Bad Request" "$(raw 'garbage\r\n\r\n')"
assert_eq "a POST without a length: 411" "HTTP/1.1 411 Length Required" \
	"$(raw 'POST /api/v1/slurp HTTP/1.1\r\nHost: x\r\n\r\n')"
assert_eq "healthy after the errors" 200 "$(code "$base/api/v1/small")"

# --- our client against our server -----------------------------------------------------
run nsrun timeout 30 "$DEBLOAT" test rpm --id 0.3 --max-time 3 --json "$base/.well-known/nq"
assert_status "debloat test rpm (h2c) against it" 0
rpm_h2=$(jq .rpm.rpm <<<"$OUT" 2>/dev/null)
echo "     our client, h2c: $rpm_h2 RPM"
assert_true "h2c: an RPM, both directions moved, probes measured" jqtrue \
	'.rpm.protocol == "h2c" and .rpm.rpm > 0 and .summary.download_mbps > 0 and
	 .summary.upload_mbps > 0 and .rpm.stages[0].foreign_probes > 0 and
	 .rpm.stages[0].self_probes > 0' <<<"$OUT"
assert_true "h2c: each direction's capacity, together the goodput" jqtrue \
	'.rpm.stages[0] | .download_mbps > 0 and .upload_mbps > 0 and
	 .download_connections >= 1 and .upload_connections >= 1 and
	 .download_connections + .upload_connections == .connections and
	 ((.download_mbps + .upload_mbps) / .goodput_mbps - 1 | fabs) < 0.01' <<<"$OUT"
assert_eq "h2c: the result names its draft" draft-ietf-ippm-responsiveness-09 \
	"$(jq -r .rpm.draft <<<"$OUT" 2>/dev/null)"
assert_eq "h2c: no progress lines when stderr is no terminal (only where it connects)" \
	"debloat: test rpm: testing 127.0.0.1 port $RPM (127.0.0.1)" "$ERR"
# -v: a progress line a second on stderr (even off a terminal), stdout still the report
run nsrun timeout 30 "$DEBLOAT" test rpm -v --id 0.5 --max-time 3 "$base/.well-known/nq"
assert_status "-v runs" 0
lines=$(grep -c 'connections [0-9]*+[0-9]*  down [0-9.]*  up [0-9.]* Mbit/s  RPM ' <<<"$ERR")
assert_true "-v: a progress line a second ($lines in 3 s)" test "$lines" -ge 2 -a "$lines" -le 4
assert_not_contains "... none on stdout" "$OUT" "Mbit/s  RPM"
assert_contains "the text has each direction's capacity" "$OUT" " connections, upload "
assert_contains "... and the draft" "$OUT" "following draft-ietf-ippm-responsiveness-09"
# on a terminal (script(1) gives one): each line replaces the last, and --json's stdout
# stays one whole document
if command -v script >/dev/null; then
	nsrun timeout 30 script -qec "$DEBLOAT test rpm --json --id 0.5 --max-time 2 \
		$base/.well-known/nq 2>$T/tty.err >$T/tty.json; $DEBLOAT test rpm --id 0.5 \
		--max-time 2 $base/.well-known/nq" /dev/null >"$T/tty.out" 2>&1 || true
	assert_true "on a terminal: progress, each line over the last" \
		grep -q $'\r\033\\[K  1\\.[0-9]/2 s  connections' "$T/tty.out"
	assert_true "--json with stderr elsewhere: stdout is one JSON document" \
		jqtrue '.rpm.rpm > 0' "$T/tty.json"
	assert_not_contains "... and no progress there (stderr no terminal)" "$(cat "$T/tty.err")" \
		"connections"
else
	echo "SKIP the terminal part (no script(1): package bsdutils)"
fi
run nsrun timeout 30 "$DEBLOAT" test rpm --http1 --id 0.3 --max-time 3 --json "$base/.well-known/nq"
assert_status "debloat test rpm --http1 against it" 0
echo "     our client, http/1.1: $(jq .rpm.rpm <<<"$OUT" 2>/dev/null) RPM"
assert_true "http/1.1: an RPM, both directions moved" jqtrue \
	'.rpm.protocol == "http/1.1" and .rpm.rpm > 0 and .summary.download_mbps > 0 and
	 .summary.upload_mbps > 0' <<<"$OUT"
if kill -0 "$SERVER_PID" 2>/dev/null; then pass "the server is still running"; else fail "the server died"; fi

# --- limits: a second server, tight ---------------------------------------------------------
RPM2=14044
nsrun timeout 60 "$DEBLOAT" server -p 19912 --rpm=$RPM2 --rpm-per-addr 2 --rpm-max-time 2 \
	--rpm-idle 1 --json >"$T/server2.log" 2>&1 &
SERVER2=$!
for _ in $(seq 50); do
	nsrun ss -Hltn "sport = :$RPM2" | grep -q . && break
	sleep 0.1
done
b2="http://127.0.0.1:$RPM2"
# two connections from 127.0.0.1 held by endless downloads (cut at 2 s by the server)
nsrun curl -s -o /dev/null "$b2/api/v1/large" &
h1=$!
nsrun curl -s --http2-prior-knowledge -o /dev/null "$b2/api/v1/large" &
h2=$!
sleep 0.5
run nsrun curl -s -o /dev/null -w '%{http_code}' "$b2/api/v1/small"
assert_true "a third connection from the same address is refused (curl $RC)" \
	test "$RC" -ne 0 -a "$OUT" != 200
run nsrun curl -s --interface 127.0.0.2 -o /dev/null -w '%{http_code}' "$b2/api/v1/small"
assert_eq "another address is still served" 200 "$OUT"
s=$SECONDS
r1=0 r2=0
wait "$h1" || r1=$?
wait "$h2" || r2=$?
assert_eq "--rpm-max-time 2 ends both endless downloads (curl exit 0, 18)" "ok" \
	"$( { [ "$r1" = 0 ] || [ "$r1" = 18 ]; } && { [ "$r2" = 0 ] || [ "$r2" = 18 ]; } && echo ok || echo "$r1 $r2")"
assert_num "... within ~2 s ($((SECONDS - s)) s after the check)" "$((SECONDS - s)) <= 3"
assert_eq "the server logged both as cut at max-time" "h2c max-time|http/1.1 max-time" \
	"$(grep '^{' "$T/server2.log" | jq -r 'select(.rpm == "download") | "\(.protocol) \(.end)"' | sort | paste -sd'|')"
run nsrun curl -s -o /dev/null -w '%{http_code}' "$b2/api/v1/small"
assert_eq "once they are gone, the address is served again" 200 "$OUT"
t=$(nsrun bash -c "exec 3<>/dev/tcp/127.0.0.1/$RPM2; s=\$(date +%s%N); timeout 5 cat <&3 >/dev/null; echo \$(( (\$(date +%s%N) - s) / 1000000 ))")
assert_num "--rpm-idle 1: a silent connection is closed after 1..2.5 s ($t ms)" "$t >= 900 && $t < 2500"
stop2

# --- TLS on the rpm port ------------------------------------------------------------------
if "$DEBLOAT" server --help | grep -q -- --cert &&
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
		-keyout "$T/key.pem" -out "$T/cert.pem" -subj /CN=127.0.0.1 \
		-addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1; then
	RPM3=14045
	nsrun timeout 60 "$DEBLOAT" server -p 19913 --rpm $RPM3 --cert "$T/cert.pem" \
		--key "$T/key.pem" --json >"$T/server3.log" 2>&1 &
	SERVER2=$!
	for _ in $(seq 50); do
		nsrun ss -Hltn "sport = :$RPM3" | grep -q . && break
		sleep 0.1
	done
	b3="https://127.0.0.1:$RPM3"
	run nsrun curl -sk "$b3/.well-known/nq"
	assert_eq "TLS: the config names https:// URLs" "$b3/api/v1/slurp" \
		"$(jq -r .urls.upload_url <<<"$OUT" 2>/dev/null)"
	run nsrun curl -sk -o /dev/null -w '%{http_code} %{size_download} %{http_version}' "$b3/api/v1/small"
	assert_eq "TLS, ALPN h2: small" "200 1 2" "$OUT"
	run nsrun curl -sk --http1.1 -o /dev/null -w '%{http_code} %{size_download} %{http_version}' \
		"$b3/api/v1/small"
	assert_eq "TLS, ALPN http/1.1: small" "200 1 1.1" "$OUT"
	run nsrun curl -sk --max-time 2 -o /dev/null -w '%{http_code} %{size_download}' "$b3/api/v1/large"
	read -r code got <<<"$OUT"
	assert_num "TLS: large streams (> 20 MB in 2 s: $got bytes)" "$code == 200 && $got > 20000000"
	run nsrun curl -sk -o /dev/null -w '%{http_code} %{size_upload}' --data-binary @"$T/up" \
		"$b3/api/v1/slurp"
	assert_eq "TLS: a 5 MB upload gets 200" "200 5000000" "$OUT"
	run nsrun nghttp -s "$b3/api/v1/small"
	assert_status "TLS: nghttp fetches small" 0
	run nsrun curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$RPM3/api/v1/small"
	assert_eq "cleartext on the same port still served" 200 "$OUT"
	read -r got ms < <(nsrun python3 "$(dirname "$0")/h1-pipeline.py" 127.0.0.1 "$RPM3" 2000 tls)
	assert_num "TLS, HTTP/1.1: 2000 pipelined requests (more than the input holds), $got answered in $ms ms" \
		"${got:-0} == 2000 && ${ms:-9999} < 3000"
	run nsrun timeout 30 "$DEBLOAT" test rpm -k --id 0.3 --max-time 3 --json "$b3/.well-known/nq"
	assert_status "debloat test rpm -k https:// against it" 0
	echo "     our client, TLS: $(jq -r '"\(.rpm.protocol) \(.rpm.rpm)"' <<<"$OUT" 2>/dev/null) RPM"
	assert_true "TLS: an RPM with TLS handshakes timed" jqtrue \
		'.rpm.rpm > 0 and .rpm.stages[0].tls_f_ms > 0' <<<"$OUT"
	assert_eq "the server logged the TLS upload" "h2 true 5000000 complete" \
		"$(grep '^{' "$T/server3.log" | jq -r 'select(.rpm == "upload") | "\(.protocol) \(.tls) \(.bytes) \(.end)"' | head -n 1)"
	stop2
	run "$DEBLOAT" server --rpm --cert "$T/cert.pem"
	assert_status "--cert without --key: exit 2" 2
	run "$DEBLOAT" server -p 19914 --rpm 14046 --cert "$T/key.pem" --key "$T/key.pem"
	assert_status "a key given as the certificate: exit 1" 1
	assert_contains "naming the file" "$ERR" "$T/key.pem"
else
	echo "note: this build has no TLS (or openssl made no certificate): TLS cases not run"
fi

run "$DEBLOAT" server --rpm=0
assert_status "a bad rpm port: exit 2" 2
assert_contains "saying so" "$ERR" "bad rpm port"
finish
