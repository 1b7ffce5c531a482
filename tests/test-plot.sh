#!/usr/bin/env bash
# test-plot.sh - `debloat plot` and `debloat compare` end to end, on two real
# runs over a 20 Mbit/s shaper between two namespaces (tests/fixtures/runs/README.md):
#
#	bloated.json / bloated.flent.gz   tbf 20mbit, a 1000-packet pfifo behind it
#	fixed.json   / fixed.flent.gz     the same shaper, a 12-packet pfifo
#
#	plot every kind from each    -> valid XML, rsvg-convert renders it to PNG
#	plot JSON vs flent, same run -> the same panels and series
#	compare --json               -> ratios are the JSON files' numbers divided
#	malformed input              -> exit 1, the file named, nothing written
#	--telemetry (a hand-written lab telemetry file, tests/fixtures/telemetry/)
#	                             -> its panels under the latency, from JSON and flent
#	                                alike; malformed or unrelated telemetry: exit 1
# (pixels per panel and the 300 KB limit of a 70 s rrul: tests/test-plot.c)
# run.sh: parallel
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

require_debloat
require_cmd jq xmllint rsvg-convert

runs="$TOP/tests/fixtures/runs"
dir=$(mktemp -d)
trap 'rm -rf "$dir"; cleanup' EXIT

# The panel ids and series titles of an SVG, one per line.
outline() {
	grep -oE 'class="panel" id="[^"]*"|<title>[^<]*</title>' "$1"
}

for kind in all latency throughput cdf box; do
	for f in bloated.json bloated.flent.gz; do
		out="$dir/$kind-$f.svg"
		run "$DEBLOAT" plot "$runs/$f" -o "$out" --kind "$kind"
		assert_status "plot --kind $kind $f" 0
		if xmllint --noout "$out" 2>"$dir/xml.err"; then
			pass "$kind from $f is well-formed XML"
		else
			fail "$kind from $f: $(head -c 300 "$dir/xml.err")"
		fi
		if rsvg-convert -f png -o "$out.png" "$out" 2>"$dir/rsvg.err" && [ -s "$out.png" ] &&
			[ ! -s "$dir/rsvg.err" ]; then
			pass "$kind from $f renders ($(stat -c %s "$out.png") bytes of PNG)"
		else
			fail "$kind from $f does not render: $(head -c 300 "$dir/rsvg.err")"
		fi
	done
	assert_eq "$kind: JSON and flent draw the same panels and series" \
		"$(outline "$dir/$kind-bloated.json.svg")" "$(outline "$dir/$kind-bloated.flent.gz.svg")"
done
assert_eq "all: three panels" 3 "$(grep -c 'class="panel"' "$dir/all-bloated.json.svg")"
assert_contains "all: the download EF flow is drawn" "$(cat "$dir/all-bloated.json.svg")" \
	"<title>TCP download EF</title>"
assert_contains "all: idle periods are shaded" "$(cat "$dir/all-bloated.json.svg")" 'class="idle"'
assert_contains "the title names the label and host" "$(cat "$dir/all-bloated.json.svg")" \
	"bloated: rrul to"
assert_not_contains "no scripts" "$(cat "$dir"/*.svg)" "<script"

run "$DEBLOAT" plot "$runs/bloated.json" -o "$dir/titled.svg" --title 'A & <B>'
assert_contains "--title is escaped" "$(cat "$dir/titled.svg")" "A &amp; &lt;B&gt;"

# compare: the table and its ratios against the files' own numbers
run "$DEBLOAT" compare "$runs/bloated.json" "$runs/fixed.json" --json
assert_status "compare --json" 0
for key in download_mbps upload_mbps induced_latency_ms; do
	want=$(jq -n --slurpfile a "$runs/bloated.json" --slurpfile b "$runs/fixed.json" \
		"\$b[0].summary.$key / \$a[0].summary.$key * 1000 | round")
	got=$(jq ".runs[1].ratio.$key * 1000 | round" <<<"$OUT")
	assert_eq "ratio of $key is fixed / bloated" "$want" "$got"
done
want=$(jq '.summary.latency_loaded_ms.p99' "$runs/fixed.json")
assert_eq "loaded p99 is the file's" "$want" "$(jq '.runs[1].latency_loaded_p99_ms' <<<"$OUT")"
# The file says A (graded before loss counted); its 35.78% probe loss caps it at C now.
assert_eq "the grade is the file's numbers under today's rule" C \
	"$(jq -r '.runs[1].grade' <<<"$OUT")"
assert_eq "the first run's ratios are 1" 1 "$(jq '.runs[0].ratio.download_mbps' <<<"$OUT")"

run "$DEBLOAT" compare "$runs/bloated.json" "$runs/fixed.flent.gz" -o "$dir/cmp.svg"
assert_status "compare -o" 0
assert_contains "the text table shows both runs" "$OUT" "bloated"
assert_contains "the text table shows ratios" "$OUT" "(x"
if xmllint --noout "$dir/cmp.svg" && rsvg-convert -f png -o "$dir/cmp.png" "$dir/cmp.svg"; then
	pass "compare's drawing is XML and renders"
else
	fail "compare's drawing does not render"
fi
flent_row=$("$DEBLOAT" compare "$runs/fixed.flent.gz" --json | jq -c '.runs[0] | [.download_mbps, .grade]')
json_row=$("$DEBLOAT" compare "$runs/fixed.json" --json | jq -c '.runs[0] | [.download_mbps, .grade]')
assert_eq "a flent file's numbers are its JSON twin's" "$json_row" "$flent_row"

# a sequential test rpm result: each direction's goodput over its own stage (the file,
# as written before, averaged it over both stages: 22.84 and 24.67)
seq="$runs/rpm-sequential.json"
for how in "as written before" "with each stage's start"; do
	if [ "$how" = "as written before" ]; then
		f=$seq
	else
		f=$dir/rpm-seq-start.json
		jq '.rpm.stages[0].start_s = 0 | .rpm.stages[1].start_s = 3.04' "$seq" >"$f"
	fi
	run "$DEBLOAT" compare "$f" --json
	assert_status "compare of a sequential rpm result ($how)" 0
	assert_eq "its goodput each way is its stage's ($how)" "[47.2,47.8]" \
		"$(jq -c '.runs[0] | [.download_mbps, .upload_mbps] | map(. * 100 | round / 100)' <<<"$OUT")"
done
run "$DEBLOAT" plot "$seq" -o "$dir/rpm.svg"
assert_status "plot of the rpm result" 0
legend=$(grep -o 'class="legend"[^>]*>[^<]*' "$dir/rpm.svg" | sed 's/.*>//')
assert_contains "its probe series are named by what they time" "$legend" "HTTP GET on the load (self)"
assert_not_contains "... not as RPM" "$legend" "RPM"

# long run names: the legend grows to hold them, titles wrap, nothing is cut with "..."
names=(bbb-pfifo_fast-no-bql bbb-bql-fq_codel-ecn bbb-bql-fq_codel-1000 bbb-bql-cake-shaped-95mbit)
for n in "${names[@]}"; do
	jq --arg l "$n" '.label = $l' "$runs/fixed.json" >"$dir/$n.json"
done
files=()
for n in "${names[@]}"; do files+=("$dir/$n.json"); done
run "$DEBLOAT" compare "${files[@]}" --json -o "$dir/long.svg"
assert_status "compare of four long-named runs" 0
texts=$(grep -o '<text[^>]*>[^<]*' "$dir/long.svg" | sed 's/.*>//')
assert_not_contains "no legend, title or label is cut short" "$texts" "..."
for n in "${names[@]}"; do
	assert_true "$n: whole in the legend and under the bars" test "$(grep -cx -- "$n" <<<"$texts")" -ge 2
done
width=$(grep -o '<svg [^>]*width="[0-9]*"' "$dir/long.svg" | grep -o '[0-9]*"$' | tr -d '"')
assert_true "the page grew for the legend ($width px)" test "$width" -gt 1000
if xmllint --noout "$dir/long.svg" && rsvg-convert -f png -o "$dir/long.png" "$dir/long.svg"; then
	pass "the long-named drawing is XML and renders"
else
	fail "the long-named drawing does not render"
fi

# malformed inputs: exit 1, the file named, nothing written
printf 'not a result' >"$dir/garbage.json"
head -c 200 "$runs/bloated.flent.gz" >"$dir/truncated.flent.gz"
echo '{"test": "rrul"}' >"$dir/empty.json"
for bad in garbage.json truncated.flent.gz empty.json missing.json; do
	run "$DEBLOAT" plot "$runs/bloated.json" "$dir/$bad" -o "$dir/bad.svg"
	assert_status "plot of $bad fails" 1
	assert_contains "the error names $bad" "$ERR" "$dir/$bad"
	if [ -e "$dir/bad.svg" ] || ls "$dir"/bad.svg.* >/dev/null 2>&1; then
		fail "plot of $bad wrote a file"
	else
		pass "plot of $bad wrote nothing"
	fi
	run "$DEBLOAT" compare "$dir/$bad" --json
	assert_status "compare of $bad fails" 1
	assert_eq "compare of $bad prints nothing" "" "$OUT"
done

# --telemetry: the lab's queues under the latency of the run they belong to
tele="$TOP/tests/fixtures/telemetry/bloated.json"
for f in bloated.json bloated.flent.gz; do
	for kind in all latency; do
		out="$dir/tele-$kind-$f.svg"
		run "$DEBLOAT" plot "$runs/$f" --telemetry "$tele" --kind "$kind" -o "$out"
		assert_status "plot --telemetry --kind $kind $f" 0
		if xmllint --noout "$out" 2>"$dir/xml.err"; then
			pass "telemetry $kind from $f is well-formed XML"
		else
			fail "telemetry $kind from $f: $(head -c 300 "$dir/xml.err")"
		fi
		if rsvg-convert -f png -o "$out.png" "$out" 2>"$dir/rsvg.err" && [ -s "$out.png" ] &&
			[ ! -s "$dir/rsvg.err" ]; then
			pass "telemetry $kind from $f renders"
		else
			fail "telemetry $kind from $f does not render: $(head -c 300 "$dir/rsvg.err")"
		fi
	done
done
svg=$(cat "$dir/tele-all-bloated.json.svg")
assert_eq "telemetry: three more panels" 6 "$(grep -c 'class="panel"' "$dir/tele-all-bloated.json.svg")"
assert_eq "telemetry: the panels follow the latency" \
	"panel-download-1 panel-upload-1 panel-latency-1 panel-backlog-1 panel-ring-1 panel-bql-1" \
	"$(grep -oE 'class="panel" id="[^"]*"' "$dir/tele-all-bloated.json.svg" | cut -d'"' -f4 | xargs)"
for series in qdisc_backlog_bytes client_qdisc_backlog_bytes ring_descs bql_limit_bytes \
	bql_inflight_bytes; do
	assert_contains "telemetry: $series is drawn" "$svg" "<title>$series</title>"
done
# the fixture's qdisc counter goes 0 -> 118 during the run, the switch's 0 -> 2
assert_contains "telemetry: the qdisc's drops over the run" "$svg" "qdisc: 118 drops"
assert_contains "telemetry: the switch's drops over the run" "$svg" "switch: 2 drops"
assert_contains "telemetry: the lab profile is named" "$svg" "lab profile: hand-bloated"
assert_eq "telemetry: JSON and flent draw the same" \
	"$(outline "$dir/tele-all-bloated.json.svg")" "$(outline "$dir/tele-all-bloated.flent.gz.svg")"
# with the run beside another, the telemetry goes under the run it overlaps
run "$DEBLOAT" plot "$runs/fixed.json" "$runs/bloated.json" --telemetry "$tele" -o "$dir/two.svg"
assert_status "two runs, telemetry of the second" 0
assert_contains "telemetry goes under the run it overlaps" "$(cat "$dir/two.svg")" 'id="panel-backlog-2"'
assert_not_contains "and not under the other" "$(cat "$dir/two.svg")" 'id="panel-backlog-1"'
# a file the lab did not finish (killed): read up to its last complete sample, said so
head -n 20 "$tele" >"$dir/cut.json"
run "$DEBLOAT" plot "$runs/bloated.json" --telemetry "$dir/cut.json" -o "$dir/cut.svg"
assert_status "telemetry cut short still draws" 0
assert_contains "it says the file was cut short" "$ERR" "was cut short: read up to its last complete sample (t_s 4.50)"
gzip -c "$tele" >"$dir/tele.json.gz"
run "$DEBLOAT" plot "$runs/bloated.json" --telemetry "$dir/tele.json.gz" -o "$dir/gz.svg"
assert_status "gzipped telemetry reads" 0

# malformed or unrelated telemetry: exit 1, the file and the reason named, nothing written
printf 'not json' >"$dir/t-garbage.json"
jq 'del(.start_unix_s)' "$tele" >"$dir/t-nostart.json"
jq '.samples[3].t_s = "soon"' "$tele" >"$dir/t-badtime.json"
jq '.samples[7].ring_descs = -1' "$tele" >"$dir/t-negative.json"
jq '.samples[9].t_s = 0.5' "$tele" >"$dir/t-backwards.json"
jq '.start_unix_s -= 86400' "$tele" >"$dir/t-yesterday.json"
for bad in "t-garbage.json:not JSON" "t-nostart.json:no \"start_unix_s\"" \
	"t-badtime.json:sample 3: \"t_s\" is not a time" \
	"t-negative.json:sample 7: \"ring_descs\" is not a number >= 0" \
	"t-backwards.json:sample 9: \"t_s\" 0.5 is before the previous sample's 2" \
	"t-yesterday.json:belongs to none of the runs: it covers 2026-12-01 17:47:22 to 2026-12-01 17:47:33 UTC" \
	"t-missing.json:No such file"; do
	file=${bad%%:*}
	why=${bad#*:}
	run "$DEBLOAT" plot "$runs/bloated.json" --telemetry "$dir/$file" -o "$dir/bad.svg"
	assert_status "telemetry $file fails" 1
	assert_contains "telemetry $file: the file is named" "$ERR" "$dir/$file"
	assert_contains "telemetry $file: says why" "$ERR" "$why"
	if [ -e "$dir/bad.svg" ]; then
		fail "telemetry $file: a file was written"
	else
		pass "telemetry $file: nothing written"
	fi
done
run "$DEBLOAT" plot "$runs/bloated.json" --telemetry "$tele" --telemetry "$tele" -o "$dir/bad.svg"
assert_status "the same run's telemetry twice fails" 1
assert_contains "it says so" "$ERR" "already has telemetry"
run "$DEBLOAT" plot "$runs/bloated.json" --telemetry "$tele" --kind cdf -o "$dir/bad.svg"
assert_status "--telemetry with --kind cdf is a usage error" 2
assert_contains "it says which kinds" "$ERR" "--kind all or latency"

run "$DEBLOAT" plot "$runs/bloated.json"
assert_status "plot without -o is a usage error" 2
run "$DEBLOAT" plot "$runs/bloated.json" -o "$dir/x.svg" --kind pie
assert_status "an unknown kind is a usage error" 2
assert_contains "it names the kind" "$ERR" '"pie"'
finish
