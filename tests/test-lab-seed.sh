#!/usr/bin/env bash
# test-lab-seed.sh - `debloat lab seed` reproduces the 2014 BeagleBone result.
#
#   client ns (debloat test rrul) <-tun-> emulator (bbb-* profile) <-tun-> board ns (server)
#   four times: bbb-stock, bbb-bql, bbb-bql-fq, bbb-bql-fq_codel
#
# With a short load (LAB_SEED_LENGTH seconds, default 15; under 2 minutes in all) it
# checks what the seed email reported:
#   - loaded latency (p50, all probes) of bbb-stock over that of bbb-bql-fq_codel >= 4
#     (the seed saw 4 to 10);
#   - the BQL limit bbb-bql settles at is a few full-size frames: 1514 to 6100 bytes
#     (the seed: "two full size packets");
#   - "an enormous improvement in bidirectional throughput": BQL with fq and with
#     fq_codel carry at least 1.5x stock's download + upload (stock's uploads starve
#     behind its downloads' queue: 8-19 Mbit/s against ~94 down);
#   - and neither of their directions starves: each at least 0.75x stock's download.
#     Not "within 5% of stock": their uploads fill the tail-drop switch port towards
#     the board, which drops the downloads' ACKs too, and costs the downloads 1-10%
#     from run to run (2014: "a tail dropping switch in the way" cost the fq run
#     throughput in one direction);
#   - BQL alone keeps its download (the board's transmit path, the one BQL acts on)
#     within 10% of stock's;
#   - every run says whether the emulator kept time (sched_error p99 against its
#     bound) in its JSON, and the table has a row for it;
# and the command's contract: the JSON keys (docs/json.md), each run's files, the
# comparison plot as well-formed XML, usage errors before any run, and a failing run
# named with its reason while the others are still shown (exit status 1).
# Needs root, network namespaces and /dev/net/tun.
# run.sh: timing lab
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_debloat
require_root
require_netns
require_cmd jq xmllint
[ -c /dev/net/tun ] || skip "needs /dev/net/tun"

length=${LAB_SEED_LENGTH:-15}
dir=$(mktemp -d)
# lib.sh's cleanup reads $? first: hand it the status set -e stopped us with.
trap 'rc=$?; set +e; rm -rf "$dir"; (exit $rc); cleanup' EXIT

# Usage errors come before any run, and cost nothing.
run "$DEBLOAT" lab compare -l 5 nosuch-profile
assert_status "an unknown profile is a usage error" 2
assert_contains "the error names the profile" "$ERR" "nosuch-profile"
run "$DEBLOAT" lab compare -l 5 --set nosuchkey=1 bbb-stock
assert_status "an unknown --set key is a usage error" 2
assert_contains "the error names the key" "$ERR" "nosuchkey"
run "$DEBLOAT" lab seed bbb-stock
assert_status "seed takes no profiles" 2
run "$DEBLOAT" lab seed --set tsq=3028
assert_status "seed takes no --set" 2
run "$DEBLOAT" lab compare bbb-stock -l 0.5
assert_status "a load under a second is refused" 2
run "$DEBLOAT" lab seed --help
assert_contains "its help speaks of the 2014 email" "$OUT" "2014 email"
assert_not_contains "and not of \"the seed\"" "$OUT" "the seed"

# The seed itself.
run "$DEBLOAT" lab seed -l "$length" -d 2 -o "$dir/seed" --json
assert_status "lab seed exits 0" 0
json=$OUT
if ! jq -e . >/dev/null 2>&1 <<<"$json"; then
	fail "lab seed --json prints JSON: $(head -c 300 <<<"$json")"
	finish
	exit 1
fi
pass "lab seed --json prints JSON"

q() { jq -r "$1" <<<"$json"; }

assert_eq "four runs, in the seed's order" "bbb-stock bbb-bql bbb-bql-fq bbb-bql-fq_codel" \
	"$(q '[.runs[].profile] | join(" ")')"
assert_eq "every run worked" "true true true true" "$(q '[.runs[].ok | tostring] | join(" ")')"
assert_eq "top-level keys" "command delay_s dir length_s plot runs seed sending_test test" \
	"$(q 'keys_unsorted | sort | join(" ")')"
assert_eq "run keys" \
	"bql_limit_bytes bql_limit_max_bytes describe drops elapsed_s error files kept_time marks ok profile ratio ring_max_descriptors sched_error_p99_us sending summary" \
	"$(q '.runs[0] | keys | join(" ")')"
# The summary is `debloat rrul`'s, key for key (docs/json.md).
assert_eq "summary keys are rrul's" \
	"download_fairness download_flows download_mbps drain_s drained flows grade idle_threshold_ms induced_latency_ms latency_idle_ms latency_loaded_ms loss_pct probes rpm upload_fairness upload_flows upload_mbps" \
	"$(q '.runs[0].summary | keys | join(" ")')"
assert_eq "summary = the run's own JSON file's" \
	"$(jq -cS .summary "$dir/seed/bbb-bql.json")" "$(q '.runs[1].summary' | jq -cS .)"
assert_eq "files of a run" "flent json lab_summary log plot telemetry" \
	"$(q '.runs[0].files | keys | join(" ")')"
assert_eq "drops per stage" "board_ingress board_port board_rx client_qdisc input qdisc switch tsq" \
	"$(q '.runs[0].drops | keys | join(" ")')"
assert_eq "no BQL, no limit (bbb-stock)" "null" "$(q '.runs[0].bql_limit_bytes')"
assert_eq "the first run's ratios are 1" "1" "$(q '.runs[0].ratio.latency_loaded_p50_ms')"
assert_eq "no sending-only runs without --sending" "null null" \
	"$(q '[.sending_test, .runs[0].sending] | map(tostring) | join(" ")')"

for p in bbb-stock bbb-bql bbb-bql-fq bbb-bql-fq_codel; do
	for f in json flent.gz svg lab.json telemetry.json log; do
		[ -s "$dir/seed/$p.$f" ] || fail "$p.$f written"
	done
done
pass "each run's files written"
if xmllint --noout "$dir/seed/compare.svg" 2>"$dir/xml.err"; then
	pass "compare.svg is well-formed XML"
else
	fail "compare.svg is well-formed XML: $(head -c 300 "$dir/xml.err")"
fi
assert_eq "the plot is where the JSON says" "$dir/seed/compare.svg" "$(q .plot)"
assert_contains "the plot draws every run" "$(cat "$dir/seed/compare.svg")" "bbb-bql-fq_codel"

# What the seed saw. awk does the arithmetic; each check prints its numbers.
check() { # DESC AWK-CONDITION VALUES...
	local desc=$1 cond=$2
	shift 2
	if awk -v a="$1" -v b="${2:-0}" -v c="${3:-0}" "BEGIN { exit !($cond) }"; then
		pass "$desc ($*)"
	else
		fail "$desc: $*"
	fi
}
stock=$(q '.runs[0].summary.latency_loaded_ms.p50')
fqc=$(q '.runs[3].summary.latency_loaded_ms.p50')
check "loaded p50 bbb-stock / bbb-bql-fq_codel >= 4" "b > 0 && a / b >= 4" "$stock" "$fqc"
check "the footer's ratio is the table's" "a - b / c < 0.01 && b / c - a < 0.01" \
	"$(q .seed.loaded_p50_ratio)" "$stock" "$fqc"
limit=$(q '.runs[1].bql_limit_bytes')
check "bbb-bql's BQL limit is a few full-size frames (1514..6100 bytes)" \
	"a >= 1514 && a <= 6100" "$limit"
down0=$(q '.runs[0].summary.download_mbps')
up0=$(q '.runs[0].summary.upload_mbps')
check "bbb-bql download (the board's transmit path) within 10% of stock or better" \
	"a >= 0.90 * b" "$(q '.runs[1].summary.download_mbps')" "$down0"
worst=1e9
for i in 2 3; do
	p=$(q ".runs[$i].profile")
	down=$(q ".runs[$i].summary.download_mbps")
	up=$(q ".runs[$i].summary.upload_mbps")
	check "$p: download + upload at least 1.5x stock's" "a + b >= 1.5 * (c + $up0)" \
		"$down" "$up" "$down0"
	check "$p: download not starved (>= 0.75x stock's download)" "a >= 0.75 * b" \
		"$down" "$down0"
	check "$p: upload not starved (>= 0.75x stock's download)" "a >= 0.75 * b" "$up" "$down0"
	worst=$(awk -v w="$worst" -v r="$(awk -v a="$down" -v b="$up" -v c="$down0" -v d="$up0" \
		'BEGIN { print (a + b) / (c + d) }')" 'BEGIN { print (r < w ? r : w) }')
done
check "the footer's both-directions ratio is the table's" "a - b < 0.01 && b - a < 0.01" \
	"$(q .seed.worst_total_ratio)" "$worst"
# Every run says how well the emulator kept time, consistently with its bound.
for i in 0 1 2 3; do
	p=$(q ".runs[$i].profile")
	p99=$(q ".runs[$i].sched_error_p99_us")
	bound=$(jq -r .sched_error_bound_us "$dir/seed/$p.lab.json")
	kept=$(q ".runs[$i].kept_time")
	check "$p: kept_time ($kept) is the p99 against the bound" \
		"(a <= b) == (c == \"true\")" "$p99" "$bound" "$kept"
done
# The same in the text table: a row for the error, and a note for each run over its bound.
run "$DEBLOAT" lab compare -l 2 -d 0 --test tcp_download -o "$dir/text" bbb-bql
assert_status "a short text run works" 0
assert_contains "the table has the emulator's error" "$OUT" "emulator error p99 ms"
if [ "$(jq -r .kept_time "$dir/text/bbb-bql.lab.json")" = false ]; then
	assert_contains "a run that fell behind is named" "$OUT" "the emulator fell behind"
else
	assert_not_contains "a run that kept time is not flagged" "$OUT" "fell behind"
fi
# Throughput is what a busy machine disturbs first: when the emulator is starved of
# CPU its wire stalls. Its own scheduling error says how well it kept time.
for p in bbb-stock bbb-bql bbb-bql-fq bbb-bql-fq_codel; do
	echo "note $p: emulator scheduling error p99 $(jq -r .sched_error.p99_us "$dir/seed/$p.lab.json") us," \
		"max $(jq -r .sched_error.max_us "$dir/seed/$p.lab.json") us"
done

# A failing run is named with its reason; the others are still shown; exit 1. The
# second run cannot write its summary (a directory stands where its file goes), which
# the lab finds before it starts.
mkdir -p "$dir/fail/bbb-stock.lab.json"
run "$DEBLOAT" lab compare -l 2 -d 0 --test tcp_upload -o "$dir/fail" bbb-bql-fq bbb-stock
assert_status "a failing run makes the exit status 1" 1
assert_contains "the failure is named" "$OUT" "bbb-stock FAILED"
assert_contains "with its reason" "$OUT" "Is a directory"
assert_contains "the other run is still shown" "$OUT" "bbb-bql-fq"
assert_contains "and where its log is" "$OUT" "bbb-stock.log"
assert_true "the other run's files are there" [ -s "$dir/fail/bbb-bql-fq.json" ]
# --sending: a second run per profile, the board sending only; a failing one is named
# the same way, and its profile's first run still shown.
mkdir -p "$dir/send/bbb-stock.send.lab.json"
run "$DEBLOAT" lab compare -l 2 -d 0 --sending -o "$dir/send" bbb-stock
assert_status "a failing sending-only run makes the exit status 1" 1
assert_contains "the sending-only failure is named" "$OUT" "bbb-stock.send FAILED"
assert_contains "the table has the sending-only rows" "$OUT" "sending only Mbit/s"
assert_true "the first run's files are there" [ -s "$dir/send/bbb-stock.json" ]
run "$DEBLOAT" lab compare -l 2 -d 0 --sending --json -o "$dir/send2" bbb-stock
assert_status "lab compare --sending exits 0" 0
assert_eq "--sending: the test, and the run's sending-only goodput as a number" \
	"tcp_ndown true number" \
	"$(jq -r '"\(.sending_test) \(.runs[0].sending.ok) \(.runs[0].sending.download_mbps | type)"' <<<"$OUT")"
assert_true "its files are P.send.*" [ -s "$dir/send2/bbb-stock.send.json" ]

finish
