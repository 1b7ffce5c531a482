#!/usr/bin/env bash
# test-rpm-tls.sh - `debloat test rpm https://...` against a stock HTTP/2 server over
# TLS, Debian's nghttpd (nghttp2-server) with a self-signed certificate made here by
# the openssl CLI, on the loopback of a namespace of its own:
#
#	[ ns dbt-rtls-$$ ]
#	  debloat test rpm https://127.0.0.1:PORT/.well-known/nq  --lo, TLS, ALPN h2-->
#	                                               nghttpd PORT key.pem cert.pem -d $T/www
#	  cert.pem, key.pem   self-signed EC P-256, for localhost and 127.0.0.1, one day
#	  www/.well-known/nq  the config JSON (https:// URLs)
#	  www/api/v1/small    1 byte
#	  www/api/v1/large    8 GiB, sparse (truncate)
#	  www/api/v1/slurp    empty: the upload sink (tests/test-rpm-nghttpd.sh shows that
#	                      nghttpd reads and discards a POST's body)
#
#  - -k: an RPM over h2 with TLS, the TLS handshake of the foreign probes in the
#    summary, the JSON (tls_f_ms, protocol h2, tls true) and its own series, and a
#    foreign RPM that is 60000 over the mean of the three foreign components; the same
#    in both stages of --sequential;
#  - without -k the self-signed certificate fails verification: exit 1, saying so
#    and naming -k; trusted (SSL_CERT_FILE, OpenSSL's own variable for the default
#    store) it verifies by name (https://localhost) and the test runs; trusted but for
#    another name (127.0.0.2 is not in the certificate) it fails again;
#  - --http1 offers http/1.1 alone, which nghttpd does not speak: exit 1, clearly.
# Short intervals (--id 0.3, --max-time 2 or less): about 10 s in all.
# run.sh: timing net
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_netns
require_cmd jq nghttpd openssl
require_debloat

jqtrue() { jq -e "$@" >/dev/null; }

notls=$("$DEBLOAT" test rpm -k https://127.0.0.1:1/ 2>&1 || true)
if [[ "$notls" == *"this build has no TLS"* ]]; then
	skip "this debloat was built without TLS (-Dtls=disabled or no libssl-dev)"
fi

NS=dbt-rtls-$$
PORT=18443
T=$(mktemp -d)
SERVER_PID=
stop() {
	[ -n "$SERVER_PID" ] || return 0
	kill "$SERVER_PID" 2>/dev/null || true
	wait "$SERVER_PID" 2>/dev/null || true
}
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

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
	-keyout "$T/key.pem" -out "$T/cert.pem" -subj /CN=localhost \
	-addext "subjectAltName=DNS:localhost,IP:127.0.0.1" >"$T/openssl.log" 2>&1 ||
	{ cat "$T/openssl.log" >&2; fail "openssl req made no certificate"; finish; }

mkdir -p "$T/www/.well-known" "$T/www/api/v1"
printf x >"$T/www/api/v1/small"
truncate -s 8G "$T/www/api/v1/large"
: >"$T/www/api/v1/slurp"
config() { # host: the config with https:// URLs to host:PORT
	local base="https://$1:$PORT"
	printf '{"version": 1, "urls": {"small_download_url": "%s/api/v1/small",
 "large_download_url": "%s/api/v1/large", "upload_url": "%s/api/v1/slurp"}}\n' \
		"$base" "$base" "$base"
}
config 127.0.0.1 >"$T/www/.well-known/nq"
config localhost >"$T/www/.well-known/nq-localhost"
config 127.0.0.2 >"$T/www/.well-known/nq-other"

ip netns exec "$NS" timeout 60 nghttpd -d "$T/www" "$PORT" "$T/key.pem" "$T/cert.pem" \
	>"$T/nghttpd.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 50); do
	ip netns exec "$NS" ss -Hltn "sport = :$PORT" | grep -q . && break
	sleep 0.1
done
url="https://127.0.0.1:$PORT/.well-known/nq"

run ip netns exec "$NS" timeout 30 "$DEBLOAT" test rpm -k -v --id 0.3 --max-time 2 \
	-o "$T/tls.json" "$url"
assert_status "test rpm -k over TLS runs" 0
assert_contains "the summary names h2 over TLS" "$OUT" "h2 over TLS"
assert_contains "and the foreign probes' TLS handshake" "$OUT" "TLS handshake"
if [ -s "$T/tls.json" ]; then
	j=$T/tls.json
	assert_eq "the result says h2 over TLS" "h2 true" "$(jq -r '"\(.rpm.protocol) \(.rpm.tls)"' "$j")"
	assert_true "an RPM above 0" jqtrue '.rpm.rpm > 0' "$j"
	assert_true "TCP, TLS and HTTP foreign components and self probes measured" \
		jqtrue '.rpm.stages[0] | .foreign_probes > 0 and .self_probes > 0 and
			.tcp_f_ms > 0 and .tls_f_ms > 0 and .http_f_ms > 0 and .http_l_ms > 0' "$j"
	assert_true "foreign RPM = 60000 / mean(tcp_f, tls_f, http_f)" \
		jqtrue '.rpm.stages[0] | (.foreign_rpm - 60000 / ((.tcp_f_ms + .tls_f_ms + .http_f_ms) / 3)) | fabs < 0.01' "$j"
	assert_true "the TLS handshakes have their own series" \
		jqtrue '.series["Ping (ms) RPM foreign TLS"] != null' "$j"
	assert_true "goodput moved both ways" \
		jqtrue '.summary.download_mbps > 0 and .summary.upload_mbps > 0' "$j"
else
	fail "no result written"
fi

# 2 s a stage: a busy host may finish no foreign TLS handshake within 1 s.
run ip netns exec "$NS" timeout 30 "$DEBLOAT" test rpm -k --sequential --id 0.3 --max-time 2 \
	--json "$url"
assert_status "test rpm -k --sequential over TLS runs" 0
assert_true "a download and an upload stage, each with TLS handshakes and an RPM" \
	jqtrue '[.rpm.stages[] | .direction] == ["download", "upload"] and
		([.rpm.stages[] | .tls_f_ms > 0 and .rpm > 0] | all)' <<<"$OUT"

run ip netns exec "$NS" timeout 10 "$DEBLOAT" test rpm --id 0.3 --max-time 1 "$url"
assert_status "without -k a self-signed certificate is refused" 1
assert_contains "saying verification failed" "$ERR" "certificate verification failed"
assert_contains "and why" "$ERR" "self-signed certificate"
assert_contains "and naming -k" "$ERR" "--insecure"
assert_not_contains "before any test ran" "$OUT" "responsiveness"

run ip netns exec "$NS" env SSL_CERT_FILE="$T/cert.pem" timeout 20 "$DEBLOAT" test rpm -4 \
	--download --id 0.3 --max-time 1 --json "https://localhost:$PORT/.well-known/nq-localhost"
assert_status "trusted, the certificate verifies for its name" 0
assert_true "and the test runs over TLS" jqtrue '.rpm.tls and .rpm.rpm > 0' <<<"$OUT"

run ip netns exec "$NS" env SSL_CERT_FILE="$T/cert.pem" timeout 20 "$DEBLOAT" test rpm \
	--download --id 0.3 --max-time 1 "https://127.0.0.2:$PORT/.well-known/nq-other"
assert_status "trusted, but not for 127.0.0.2" 1
assert_contains "is a verification failure" "$ERR" "certificate verification failed"

run ip netns exec "$NS" timeout 10 "$DEBLOAT" test rpm -k --http1 --id 0.3 --max-time 1 "$url"
assert_status "--http1 against nghttpd (h2 only)" 1
assert_contains "cannot read the config" "$ERR" "cannot read the config"
finish
