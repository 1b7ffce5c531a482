#!/usr/bin/env bash
# test-rpm-steer.sh - `debloat test rpm` follows a stranger's config only where the
# stranger is: a config served from elsewhere that names this host's loopback (or a
# link-local address) is refused before any connection there.
#
#	[ ns dbt-rst-$$ ]
#	  lo 127.0.0.1, 192.0.2.1/32 (stands for a server elsewhere)
#	  debloat server --rpm 14045 --json     on every address   (the victim: it logs
#	                                                            every transfer)
#	  python3 -m http.server on 192.0.2.1:18080   serves hostile.json, whose URLs
#	                                              name 127.0.0.1:14045
#
#  - the hostile config is refused: exit 1, the message names the address, the port
#    and the config, and the server on 127.0.0.1 saw no transfer;
#  - a config served from 127.0.0.1 itself may name 127.0.0.1: the test runs, and the
#    client says where it connects.
# About 10 s.
# run.sh: timing net
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_netns
require_cmd python3 jq
require_debloat

NS=dbt-rst-$$
PORT=19915
RPM=14045
T=$(mktemp -d)
WEB=
trap '[ -n "$WEB" ] && kill "$WEB" 2>/dev/null; rm -rf "$T"; cleanup' EXIT
netns_add "$NS"
ip -n "$NS" link set lo up
ip -n "$NS" addr add 192.0.2.1/32 dev lo
nsrun() { ip netns exec "$NS" "$@"; }
jqtrue() { jq -e "$@" >/dev/null; }

SERVER_TIMEOUT=60 netns_server "$NS" "$PORT" "$T/server.log" --rpm "$RPM" --json
for _ in $(seq 50); do
	nsrun ss -Hltn "sport = :$RPM" | grep -q . && break
	sleep 0.1
done
mkdir "$T/www"
u="http://127.0.0.1:$RPM/api/v1"
printf '{"version": 1, "urls": {"small_download_url": "%s/small", "large_download_url": "%s/large", "upload_url": "%s/slurp"}}\n' \
	"$u" "$u" "$u" >"$T/www/hostile.json"
nsrun timeout 60 python3 -m http.server --bind 192.0.2.1 --directory "$T/www" 18080 \
	>/dev/null 2>&1 &
WEB=$!
for _ in $(seq 50); do
	nsrun ss -Hltn "sport = :18080" | grep -q . && break
	sleep 0.1
done

run nsrun timeout 20 "$DEBLOAT" test rpm --http1 --max-time 3 --id 0.3 http://192.0.2.1:18080/hostile.json
assert_status "a config from 192.0.2.1 naming 127.0.0.1 is refused" 1
assert_contains "the message names the address and port" "$ERR" "refusing 127.0.0.1 port $RPM"
assert_contains "and the config" "$ERR" "the config at http://192.0.2.1:18080/hostile.json"
assert_contains "and why" "$ERR" "sends the test to this host"
sleep 0.3
assert_eq "the server on 127.0.0.1 saw no transfer" 0 \
	"$(grep -c '"rpm":' "$T/server.log" || true)"

run nsrun timeout 30 "$DEBLOAT" test rpm --max-time 3 --id 0.3 --json \
	"http://127.0.0.1:$RPM/.well-known/nq"
assert_status "a config from 127.0.0.1 may name 127.0.0.1" 0
assert_contains "the client says where it connects" "$ERR" "testing 127.0.0.1 port $RPM"
assert_true "its JSON is whole" jqtrue .rpm.rpm <<<"$OUT"
finish
