#!/usr/bin/env bash
# test-grafana.sh - contrib/grafana/debloat.json and the exporter cannot drift apart:
# every metric name the dashboard's queries and variables use is one `debloat exporter`
# writes (its --list-metrics table), and that table is what a scrape of this host
# writes (every family of `exporter --once` is in it, with the same type). Also: the
# dashboard is JSON with a `device` variable, and every panel queries something.
# Needs no root (tests/test-exporter.sh runs the same queries through Prometheus).
# run.sh: parallel
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_debloat
require_cmd jq

dash=$TOP/contrib/grafana/debloat.json
run jq -e . "$dash"
assert_status "the dashboard is JSON" 0
assert_eq "it has a device variable" device \
	"$(jq -r '.templating.list[] | select(.name == "device") | .name' "$dash")"
assert_eq "every panel has a query" 0 \
	"$(jq '[.panels[] | select((.targets // []) | length == 0)] | length' "$dash")"

run "$DEBLOAT" exporter --list-metrics
assert_status "exporter --list-metrics exits 0" 0
listed=$OUT
table=$(awk '{ print $1 }' <<<"$listed" | sort -u)
assert_true "the table lists families" test "$(wc -l <<<"$table")" -ge 20

# Every debloat_ name in a query or a variable's query; a Prometheus selector such as
# rate(x[5m]) or x{...} ends the name.
used=$(jq -r '.. | (.expr?, .definition?, (.query? | if type == "object" then .query else . end)) // empty | strings' "$dash" |
	grep -oE 'debloat_[a-zA-Z0-9_]+' | sort -u)
assert_true "the dashboard uses at least 8 metrics" test "$(wc -l <<<"$used")" -ge 8
for m in $used; do
	if grep -qxF "$m" <<<"$table"; then
		pass "the dashboard's $m is a metric the exporter writes"
	else
		fail "the dashboard uses $m, which the exporter does not write"
	fi
done

# The table against a real scrape of this host: each family written is listed, typed alike.
run "$DEBLOAT" exporter --once
assert_status "exporter --once exits 0" 0
while read -r name type; do
	want=$(awk -v n="$name" '$1 == n { print $2 }' <<<"$listed")
	assert_eq "the scrape's $name is in the table as a $type" "$type" "$want"
done < <(sed -nE 's/^# TYPE ([^ ]+) ([a-z]+)$/\1 \2/p' <<<"$OUT")
finish
