#!/usr/bin/env bash
# test-rpm-nghttpd.sh - `debloat test rpm` against a stock HTTP/2 server, Debian's
# nghttpd (nghttp2-server), on the loopback of a namespace of its own:
#
#	[ ns dbt-rpm-$$ ]
#	  debloat test rpm http://127.0.0.1:PORT/.well-known/nq  --lo, h2c-->  nghttpd --no-tls
#	                                                                       -d $T/www
#	  www/.well-known/nq    the config JSON (the draft's three URLs)
#	  www/api/v1/small      1 byte
#	  www/api/v1/large      8 GiB, sparse (truncate)
#	  www/api/v1/slurp      empty: nghttpd answers a POST to it with 200 at once and
#	                        then reads and discards the whole body (checked below with
#	                        curl), so it is an upload sink
#
#  - concurrent (the default): an RPM, both directions loaded, probes of both kinds,
#    the protocol named, the draft's rpm object and rpm_ietf in our JSON, within
#    --max-time; debloat plot draws it, debloat compare shows it;
#  - sequential: a download and an upload stage, each with its RPM;
#  - a config whose URLs name a host no resolver knows, with test_endpoint 127.0.0.1;
#  - bad input: an https:// URL to this cleartext server (TLS: tests/test-rpm-tls.sh), a
#    config URL that is 404, a server
#    that is not HTTP/2 with --http1: exit 1 with a clear message.
#  - --http1 against nghttpd fails clearly: nghttpd speaks no HTTP/1.1 at all (no
#    upgrade-less HTTP/1.1), so --http1 is run against Python's http.server instead
#    (HTTP/1.0 responses, GET only: --download), self probes from TCP_INFO.
# Short intervals (--id 0.3, --max-time 3 or less): about 15 s in all.
# run.sh: timing net
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_netns
require_cmd jq curl nghttpd python3
require_debloat

jqtrue() { jq -e "$@" >/dev/null; }

NS=dbt-rpm-$$
PORT=18080
T=$(mktemp -d)
SERVER_PID=
PY_PID=
stop() {
	local pid
	for pid in "$SERVER_PID" "$PY_PID"; do
		[ -n "$pid" ] || continue
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
}
# A namespace another process's mount namespace still sees cannot be deleted for a
# moment (EBUSY): try a few times before cleanup's own try.
drop_ns() {
	for _ in 1 2 3 4 5; do
		ip netns del "$NS" 2>/dev/null && return 0
		ip netns list | grep -qw "$NS" || return 0
		sleep 0.2
	done
}
trap 'stop; drop_ns; rm -rf "$T"; cleanup' EXIT
netns_add "$NS"
ip -n "$NS" link set lo up

base="http://127.0.0.1:$PORT"
mkdir -p "$T/www/.well-known" "$T/www/api/v1"
printf x >"$T/www/api/v1/small"
truncate -s 8G "$T/www/api/v1/large"
: >"$T/www/api/v1/slurp"
cat >"$T/www/.well-known/nq" <<JSON
{"version": 1,
 "urls": {"small_download_url": "$base/api/v1/small",
          "large_download_url": "$base/api/v1/large",
          "upload_url": "$base/api/v1/slurp"}}
JSON

ip netns exec "$NS" timeout 110 nghttpd --no-tls -d "$T/www" "$PORT" >"$T/nghttpd.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 50); do
	ip netns exec "$NS" ss -Hltn "sport = :$PORT" | grep -q . && break
	sleep 0.1
done

# What nghttpd does with a POST: 200 before the body ends, and the whole body read.
code=$( (head -c 300000 /dev/zero; sleep 1; head -c 300000 /dev/zero) |
	ip netns exec "$NS" timeout 10 curl -s --http2-prior-knowledge -o /dev/null \
		-w '%{http_code} %{size_upload}' -T - "$base/api/v1/slurp" || true)
assert_eq "nghttpd takes a 600 kB POST to the upload URL with 200" "200 600000" "$code"

run ip netns exec "$NS" timeout 30 "$DEBLOAT" test rpm --id 0.3 --max-time 3 \
	-o "$T/conc.json" "$base/.well-known/nq"
assert_status "test rpm (concurrent, h2c) runs" 0
assert_contains "the summary gives an RPM" "$OUT" "responsiveness"
assert_contains "and the protocol" "$OUT" "h2c"
if [ -s "$T/conc.json" ]; then
	j=$T/conc.json
	assert_eq "the result is a test rpm" "rpm h2c concurrent" \
		"$(jq -r '"\(.test) \(.rpm.protocol) \(.rpm.mode)"' "$j")"
	assert_true "an RPM above 0" jqtrue '.rpm.rpm > 0' "$j"
	assert_eq "summary.rpm_ietf is the draft's RPM" "true" \
		"$(jq '.summary.rpm_ietf == .rpm.rpm' "$j")"
	assert_true "both directions loaded, one connection each at least" \
		jqtrue '.rpm.stages[0].direction == "both" and .rpm.stages[0].connections >= 2' "$j"
	assert_true "foreign and self probes measured" \
		jqtrue '.rpm.stages[0] | .foreign_probes > 0 and .self_probes > 0 and
			.tcp_f_ms > 0 and .http_f_ms > 0 and .http_l_ms > 0 and .self_probe == "http"' "$j"
	assert_true "goodput moved both ways" \
		jqtrue '.summary.download_mbps > 0 and .summary.upload_mbps > 0' "$j"
	assert_true "the stage kept within --max-time" jqtrue '.rpm.stages[0].duration_s <= 3.5' "$j"
	assert_true "the parameters as run" \
		jqtrue '.rpm.parameters | .mad == 4 and .id_s == 0.3 and .tmp_pct == 95 and .mnp == 16' "$j"
	run "$DEBLOAT" plot "$j" -o "$T/conc.svg"
	assert_status "debloat plot draws it" 0
	assert_contains "with the self probes" "$(cat "$T/conc.svg" 2>/dev/null)" "Ping (ms) RPM self HTTP"
else
	fail "no result written"
fi

run ip netns exec "$NS" timeout 30 "$DEBLOAT" test rpm --sequential --id 0.3 --max-time 2 \
	--json "$base/.well-known/nq"
assert_status "test rpm --sequential runs" 0
printf '%s\n' "$OUT" >"$T/seq.json"
assert_eq "a download stage, then an upload stage" "download upload" \
	"$(jq -r '[.rpm.stages[].direction] | join(" ")' "$T/seq.json")"
assert_true "each with its RPM" jqtrue '[.rpm.stages[].rpm > 0] | all' "$T/seq.json"
assert_eq "the headline is the worse direction" "true" \
	"$(jq '.rpm.rpm == ([.rpm.stages[].rpm] | min)' "$T/seq.json")"
if [ -s "$T/conc.json" ]; then
	run "$DEBLOAT" compare "$T/conc.json" "$T/seq.json" --json
	assert_status "debloat compare reads both" 0
	assert_true "compare shows the draft's RPM of each" \
		jqtrue '[.runs[].rpm_ietf > 0] | all' <<<"$OUT"
fi

# test_endpoint: the URLs name a host no resolver knows; the config says where it is.
sed -e "s|127.0.0.1:$PORT|rpm-test.invalid:$PORT|g" -e 's|^ "urls"| "test_endpoint": "127.0.0.1",\n "urls"|' \
	"$T/www/.well-known/nq" >"$T/www/.well-known/nq-endpoint"
run ip netns exec "$NS" timeout 20 "$DEBLOAT" test rpm --download --id 0.3 --max-time 1 --json \
	"$base/.well-known/nq-endpoint"
assert_status "test_endpoint stands in for the URLs' host" 0
assert_true "and the test ran there" jqtrue '.rpm.rpm > 0' <<<"$OUT"

run ip netns exec "$NS" timeout 10 "$DEBLOAT" test rpm "https://127.0.0.1:$PORT/.well-known/nq"
assert_status "an https:// URL to a cleartext server fails" 1
assert_contains "clearly" "$ERR" "cannot read the config"
run ip netns exec "$NS" timeout 10 "$DEBLOAT" test rpm "$base/.well-known/none"
assert_status "a config URL that is not there" 1
assert_contains "names the status" "$ERR" "HTTP status 404"
run ip netns exec "$NS" timeout 20 "$DEBLOAT" test rpm --http1 "$base/.well-known/nq"
assert_status "--http1 against nghttpd (which has no HTTP/1.1)" 1
assert_contains "cannot read the config" "$ERR" "cannot read the config"
echo "note: nghttpd serves no HTTP/1.1, so --http1 is tried below on another server"

# HTTP/1.1 on a real HTTP/1.x server: Python's http.server (HTTP/1.0 responses with
# Content-Length, GET only, so the download direction only).
PORT1=18081
base1="http://127.0.0.1:$PORT1"
mkdir -p "$T/www1/.well-known"
ln -s "$T/www/api" "$T/www1/api"
sed "s|$base|$base1|g" "$T/www/.well-known/nq" >"$T/www1/.well-known/nq"
(cd "$T/www1" && exec ip netns exec "$NS" timeout 60 python3 -m http.server "$PORT1" \
	--bind 127.0.0.1 >"$T/http.log" 2>&1) &
PY_PID=$!
for _ in $(seq 50); do
	ip netns exec "$NS" ss -Hltn "sport = :$PORT1" | grep -q . && break
	sleep 0.1
done
run ip netns exec "$NS" timeout 30 "$DEBLOAT" test rpm --http1 --download --id 0.3 \
	--max-time 2 --json "$base1/.well-known/nq"
kill "$PY_PID" 2>/dev/null || true
wait "$PY_PID" 2>/dev/null || true
PY_PID=
assert_status "test rpm --http1 --download against an HTTP/1.x server" 0
printf '%s\n' "$OUT" >"$T/h1.json"
assert_eq "names its protocol and its self probe" "http/1.1 tcp_info download" \
	"$(jq -r '.rpm | "\(.protocol) \(.stages[0].self_probe) \(.stages[0].direction)"' \
		"$T/h1.json")"
assert_true "an RPM from HTTP/1.1 foreign probes and the load's TCP RTT" \
	jqtrue '.rpm.rpm > 0 and .rpm.stages[0].http_f_ms > 0 and .rpm.stages[0].http_l_ms > 0
		and .series["Ping (ms) RPM self TCP_INFO"] != null' "$T/h1.json"
finish
