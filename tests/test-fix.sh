#!/usr/bin/env bash
# test-fix.sh - debloat fix and debloat undo end to end, on links of a namespace this
# test creates; fix and undo run inside it (ip netns exec), so the only sysctls they
# touch are that namespace's own (net.ipv4.tcp_ecn is per namespace):
#
#   netns dbt-fix-$$
#     veth0 <-> veth1   veth0: a user's "pfifo limit 10000", txqueuelen 5000, 10 Gbit/s
#     tap0              100 Mbit/s (ethtool -s), pfifo_fast: the kernel's own default
#     veth2 <-> veth3   veth2: a user's htb tree (refused without --force)
#     veth4 <-> veth5   4 TX queues, mq at the root
#     lo
#
# What is checked: the round trip (fix, audit shows findings resolved or the fallback
# explained, undo, recorded state identical), kill -9 at every step boundary then undo,
# --try expiry and confirmation, --dry-run = the plan fix applies, a second fix is a
# no-op, the htb refusal and --force, a refusal rolled back, errors (unknown
# interface, not root, read-only state dir, bad journal), and --persist under --root
# (systemd-analyze verify where available).
# run.sh: timing net
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_netns
require_debloat
require_cmd jq ethtool

NS=dbt-fix-$$
netns_add "$NS"
X=(ip netns exec "$NS")
scratch=$(mktemp -d)
chmod 755 "$scratch" # nobody runs the copy of the binary in it
ro=$scratch/ro
trap 'umount "$ro" 2>/dev/null || true; rm -rf "$scratch"; cleanup' EXIT
ST=$scratch/state
# A copy of the binary: a build running meanwhile must not swap it under the test.
cp "$DEBLOAT" "$scratch/debloat"
DEBLOAT=$scratch/debloat

ip -n "$NS" link set lo up
ip -n "$NS" link add veth0 type veth peer name veth1
ip -n "$NS" link add veth2 type veth peer name veth3
ip -n "$NS" link add veth4 numtxqueues 4 type veth peer name veth5 numtxqueues 4
for d in veth0 veth1 veth2 veth3 veth4 veth5; do ip -n "$NS" link set "$d" up; done
"${X[@]}" tc qdisc add dev veth0 root pfifo limit 10000
ip -n "$NS" link set veth0 txqueuelen 5000
"${X[@]}" tc qdisc add dev veth2 root handle 1: htb default 10
"${X[@]}" tc class add dev veth2 parent 1: classid 1:10 htb rate 10mbit
"${X[@]}" tc class add dev veth2 parent 1: classid 1:20 htb rate 5mbit
"${X[@]}" tc qdisc add dev veth4 root handle 1: mq
have_tap=0
if ip -n "$NS" tuntap add dev tap0 mode tap 2>/dev/null; then
	ip -n "$NS" link set tap0 up
	"${X[@]}" ethtool -s tap0 speed 100 duplex full 2>/dev/null && have_tap=1
fi
devs=(veth0)
[ "$have_tap" -eq 1 ] && devs+=(tap0) || echo "SKIP tap0 parts (no tun device or speed setting here)"

fix() { run "${X[@]}" "$DEBLOAT" fix --state-dir "$ST" "$@"; }
undo() { run "${X[@]}" "$DEBLOAT" undo --state-dir "$ST" "$@"; }

# Everything fix may change on a device, and the namespace's sysctls, read in one
# ip netns exec (each costs ~0.1 s). veth0's root is a user's pfifo: undo rebuilds it
# from its spec under a new handle, so handles are left out there; tap0's root is the
# kernel's own and must come back exactly as it was.
state_in_ns() {
	local d q
	for d in "$@"; do
		echo "== $d"
		if [ "$d" = tap0 ]; then
			tc -j qdisc show dev "$d"
		else
			tc -j qdisc show dev "$d" | sed 's/"handle":"[^"]*",//g'
		fi
		echo "txqueuelen $(cat "/sys/class/net/$d/tx_queue_len") mtu $(cat "/sys/class/net/$d/mtu")"
		ip -d link show dev "$d" | grep -o 'gso_max_size [0-9]*' || true
		ethtool -k "$d" | grep -E '^(tcp-segmentation-offload|generic-segmentation-offload|generic-receive-offload):' || true
		ethtool -g "$d" 2>/dev/null || true
		for q in /sys/class/net/"$d"/queues/tx-*/byte_queue_limits; do
			[ -e "$q/limit_max" ] && echo "$q $(cat "$q/limit_max")"
		done
	done
	echo "== sysctls"
	sysctl -n net.ipv4.tcp_ecn
	cat /proc/sys/net/core/default_qdisc 2>/dev/null || echo absent
}
state() {
	"${X[@]}" bash -c "$(declare -f state_in_ns); state_in_ns \"\$@\"" _ "$@"
}

# knob, interface, queue, name, before, after of the steps with something to do.
plan_of() { jq -c '[(.interfaces[].steps[], .host.steps[]) | select(.status != "same")
	| {knob, ifname, queue, name, before, after}]' <<<"$1"; }

# ---- usage and errors that change nothing ----
run "$DEBLOAT" fix
assert_status "fix without an interface is a usage error" 2
fix nosuch0
assert_status "fix of an unknown interface fails" 1
assert_contains "it names the interface" "$ERR" "cannot find interface nosuch0"
fix lo
assert_status "fix lo is refused" 1
assert_contains "loopback has nothing to fix" "$ERR" "loopback"
if command -v setpriv >/dev/null; then
	asnobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
else
	asnobody=(runuser -u nobody --)
fi
run "${X[@]}" "${asnobody[@]}" "$DEBLOAT" fix --state-dir "$ST" veth0
assert_status "fix as nobody fails" 1
assert_eq "fix as nobody: the message" "debloat: fix: needs root" "$ERR"
run "${X[@]}" "${asnobody[@]}" "$DEBLOAT" undo --state-dir "$ST"
assert_eq "undo as nobody: the message" "debloat: undo: needs root" "$ERR"

before=$(state "${devs[@]}" veth2)

# ---- dry run: the plan, nothing changed ----
fix --dry-run --json "${devs[@]}"
assert_status "dry run exits 0" 0
dry=$OUT
planned=$(plan_of "$dry")
nsteps=$(jq length <<<"$planned")
assert_eq "dry run: result" dry-run "$(jq -r .result <<<"$dry")"
assert_true "dry run plans $nsteps steps (3 or more)" [ "$nsteps" -ge 3 ]
assert_eq "dry run changes nothing" "$before" "$(state "${devs[@]}" veth2)"
assert_eq "dry run writes no journal" "" "$(ls "$ST/journal" 2>/dev/null)"
assert_contains "dry run: veth0's long pfifo goes" "$(jq -c '.interfaces[0].steps[0]' <<<"$dry")" \
	'"before":"pfifo limit 10000"'
assert_contains "dry run: the fallback is explained" "$(jq -r '.interfaces[0].notes[]' <<<"$dry")" \
	"no fq_codel"
fix --dry-run "${devs[@]}"
assert_contains "dry run (text) shows before -> after" "$OUT" "veth0 root qdisc: pfifo limit 10000 ->"
assert_contains "dry run (text) says nothing changed" "$OUT" "dry run: nothing was changed"

# ---- the round trip ----
audit_before=$(ip netns exec "$NS" "$DEBLOAT" audit --json "${devs[@]}")
fix --json "${devs[@]}"
assert_status "fix exits 0" 0
assert_eq "fix: result" applied "$(jq -r .result <<<"$OUT")"
assert_eq "fix applies the plan the dry run printed" "$planned" "$(plan_of "$OUT")"
assert_eq "every step applied" "$nsteps" "$(jq .applied <<<"$OUT")"
assert_eq "the journal is there" "$ST/journal" "$(jq -r .journal <<<"$OUT")"
fixed=$(state "${devs[@]}" veth2)
assert_true "fix changed the state" [ "$fixed" != "$before" ]
assert_eq "fix: tcp_ecn of the namespace is 1" 1 "$("${X[@]}" sysctl -n net.ipv4.tcp_ecn)"
assert_contains "fix: veth0 has the short pfifo" "$("${X[@]}" tc qdisc show dev veth0)" "limit 100p"

# Audit after: each finding resolved, or the fallback explained with what is installed.
audit=$(ip netns exec "$NS" "$DEBLOAT" audit --json "${devs[@]}")
assert_eq "audit: tcp-ecn-off resolved" "" \
	"$(jq -r '.findings[] | select(.code == "tcp-ecn-off") | .code' <<<"$audit")"
for d in "${devs[@]}"; do
	sel=".interfaces[] | select(.name == \"$d\")"
	fifo=$(jq -r "$sel | .findings[] | select(.code == \"fifo-qdisc\") | .code" <<<"$audit")
	why=$(jq -r "$sel | .findings[] | select(.code == \"qdisc-unavailable\") | .recommendation" <<<"$audit")
	if [ -z "$fifo" ]; then
		pass "audit $d: no FIFO finding left"
	else
		lim=$("${X[@]}" tc qdisc show dev "$d" | sed -n 's/.*pfifo.* limit \([0-9]*\)p.*/\1/p' | head -n 1)
		assert_contains "audit $d: the FIFO left is the fallback audit itself recommends" \
			"$why" "root pfifo limit $lim;"
	fi
	was=$(jq "$sel | .worst_delay_us // 0" <<<"$audit_before")
	now=$(jq "$sel | .worst_delay_us // 0" <<<"$audit")
	assert_true "audit $d: worst-case delay $was us -> $now us" [ "$now" -lt "$was" ]
	assert_eq "audit $d: no txqueuelen-long" "" \
		"$(jq -r "$sel | .findings[] | select(.code == \"txqueuelen-long\") | .code" <<<"$audit")"
	assert_eq "audit $d: no gso-at-low-speed" "" \
		"$(jq -r "$sel | .findings[] | select(.code == \"gso-at-low-speed\") | .code" <<<"$audit")"
done

fix "${devs[@]}"
assert_status "a second fix exits 0" 0
assert_contains "a second fix says already fixed" "$OUT" "already fixed"
fix --json "${devs[@]}"
assert_eq "a second fix applies nothing" 0 "$(jq .applied <<<"$OUT")"
assert_eq "a second fix changes nothing" "$fixed" "$(state "${devs[@]}" veth2)"

undo --json
assert_status "undo exits 0" 0
assert_eq "undo restored every step" "$nsteps" "$(jq .restored <<<"$OUT")"
assert_eq "undo: sysctls first" sysctl "$(jq -r '.steps[0].knob' <<<"$OUT")"
assert_eq "undo: the root qdisc last" root-qdisc "$(jq -r '.steps[-1].knob' <<<"$OUT")"
assert_eq "after undo the recorded state is identical" "$before" "$(state "${devs[@]}" veth2)"
assert_eq "undo removes the journal" "" "$(ls "$ST/journal" 2>/dev/null)"
undo
assert_status "undo without a journal exits 0" 0
assert_contains "undo without a journal says so" "$OUT" "nothing to undo"

# ---- kill -9 at each step boundary, then undo ----
for hook in CRASH_AFTER CRASH_BEFORE; do
	for ((k = 1; k <= nsteps; k++)); do
		run "${X[@]}" env "DEBLOAT_FIX_$hook=$k" "$DEBLOAT" fix --state-dir "$ST" "${devs[@]}"
		if [ "$RC" -ne 137 ]; then
			fail "$hook=$k: fix was not killed (exit $RC)"
			continue
		fi
		if [ "$hook" = CRASH_AFTER ] && [ "$k" -eq 1 ]; then
			assert_true "killed after step 1: step 1 had been applied" \
				[ "$(state "${devs[@]}" veth2)" != "$before" ]
		fi
		undo
		if [ "$RC" -eq 0 ] && [ "$(state "${devs[@]}" veth2)" = "$before" ] &&
			[ ! -e "$ST/journal" ]; then
			pass "kill -9 $hook step $k: undo restores the recorded state"
		else
			fail "kill -9 $hook step $k: undo exit $RC: $ERR"
		fi
	done
done
# Killed before step 1's write: undo finds the journal, restores nothing, skips the rest.
run "${X[@]}" env DEBLOAT_FIX_CRASH_BEFORE=1 "$DEBLOAT" fix --state-dir "$ST" "${devs[@]}"
undo --json
assert_eq "killed before step 1: undo leaves step 1 alone and skips the others" \
	"0 1 $((nsteps - 1))" \
	"$(jq -r '[(.steps | map(select(.result == "restored")) | length),
		(.steps | map(select(.result == "unchanged")) | length),
		(.steps | map(select(.result == "skipped")) | length)] | join(" ")' <<<"$OUT")"

# ---- a refusal rolls back what was applied ----
run "${X[@]}" env "DEBLOAT_FIX_FAIL_AT=$nsteps" "$DEBLOAT" fix --state-dir "$ST" "${devs[@]}"
assert_status "a refused step fails the fix" 1
assert_contains "the message names the knob and why" "$ERR" "cannot set"
assert_contains "the message says it rolled back" "$ERR" "rolled back"
assert_eq "after the refusal nothing is changed" "$before" "$(state "${devs[@]}" veth2)"
assert_eq "after the refusal no journal is left" "" "$(ls "$ST/journal" 2>/dev/null)"
# ---- a kind the availability check promised but the kernel cannot load ----
# (the hook makes the plan believe in fq_codel, which this kernel lacks, as a module
# listed in modules.dep but missing from disk would): fix puts everything back and
# plans again without it, along its chain, to the plan this kernel really allows.
run "${X[@]}" env DEBLOAT_FIX_ASSUME_QDISC=fq_codel "$DEBLOAT" fix --state-dir "$ST" --json "${devs[@]}"
assert_status "a kind the kernel cannot load: fix falls back and succeeds" 0
assert_contains "it says which kind and the kernel's words" "$ERR" "lists fq_codel but cannot load it (Specified qdisc kind is unknown)"
assert_eq "the JSON names the kind it fell back from" "fq_codel" "$(jq -r .fell_back_from <<<"$OUT")"
assert_eq "no step of the new plan names fq_codel" "0" \
	"$(jq '[.interfaces[].steps[], .host.steps[] | select(.after // "" | test("fq_codel"))] | length' <<<"$OUT")"
assert_eq "after the fallback the state is the one fix makes without the hook" "$fixed" "$(state "${devs[@]}" veth2)"
undo
assert_status "undo after the fallback exits 0" 0
assert_eq "undo after the fallback restores the recorded state" "$before" "$(state "${devs[@]}" veth2)"
run "${X[@]}" env DEBLOAT_FIX_ASSUME_QDISC=fq_codel "$DEBLOAT" fix --state-dir "$ST" --dry-run --json "${devs[@]}"
assert_eq "a dry run does not fall back (it writes nothing)" "null" "$(jq -r .fell_back_from <<<"$OUT")"

# ---- --try ----
fix --try 1 "${devs[@]}" </dev/null
assert_status "--try without confirmation exits 1" 1
assert_contains "--try says it was put back" "$ERR" "not confirmed within 1 s"
assert_eq "--try expiry restores the recorded state" "$before" "$(state "${devs[@]}" veth2)"
assert_eq "--try expiry leaves no journal" "" "$(ls "$ST/journal" 2>/dev/null)"
"${X[@]}" "$DEBLOAT" fix --state-dir "$ST" --try 30 --json "${devs[@]}" </dev/null >"$scratch/try.json" 2>"$scratch/try.err" &
trypid=$!
for _ in $(seq 100); do
	grep -q "on trial" "$scratch/try.err" 2>/dev/null && break
	sleep 0.1
done
run "${X[@]}" "$DEBLOAT" fix --confirm --state-dir "$ST"
assert_status "--confirm exits 0" 0
RC=0
wait "$trypid" || RC=$?
assert_status "the confirmed --try run exits 0" 0
assert_eq "--try confirmed: kept" true "$(jq .try.confirmed "$scratch/try.json")"
assert_eq "--try confirmed: the state is the fixed one" "$fixed" "$(state "${devs[@]}" veth2)"
run "${X[@]}" "$DEBLOAT" fix --confirm --state-dir "$ST"
assert_status "--confirm with nothing waiting fails" 1
undo >/dev/null
assert_eq "undo after a confirmed --try" "$before" "$(state "${devs[@]}" veth2)"

# A key on the terminal confirms too (script(1) gives fix a pty; a key every second,
# since keys typed before the question do not count).
if command -v script >/dev/null; then
	keys() {
		trap '' PIPE # fix is gone once confirmed: stop at the first failed write
		for _ in $(seq 20); do sleep 1; printf k 2>/dev/null || return 0; done
	}
	RC=0
	OUT=$( (keys) | timeout 40 script -qefc "ip netns exec $NS $DEBLOAT fix --state-dir $ST --try 30 --json ${devs[*]}" /dev/null) || RC=$?
	assert_status "--try on a terminal: a key confirms" 0
	assert_contains "--try on a terminal: kept" "$OUT" '"confirmed": true'
	assert_eq "--try on a terminal: the state is the fixed one" "$fixed" "$(state "${devs[@]}" veth2)"
	undo >/dev/null
else
	echo "SKIP --try with a key (no script(1) here)"
fi

# ---- the user's htb tree ----
fix veth2
assert_status "a user's htb tree is refused" 1
assert_contains "the refusal says why and how" "$ERR" "--force"
assert_contains "veth2 still has its htb" "$("${X[@]}" tc qdisc show dev veth2)" "htb 1:"
assert_eq "the refused fix leaves no journal" "" "$(ls "$ST/journal" 2>/dev/null)"
fix --force --json veth2
assert_status "--force replaces it" 0
assert_contains "the plan says undo cannot rebuild it" \
	"$(jq -r '.interfaces[0].steps[0].message' <<<"$OUT")" "undo restores the kernel's default"
undo
assert_status "undo after --force exits 0" 0
assert_contains "undo says it restores the default" "$OUT" "-> default"
assert_contains "veth2 has the kernel's default (noqueue for a veth)" \
	"$("${X[@]}" tc qdisc show dev veth2)" "noqueue"

# From here on veth2 has the kernel's default root, as --force and undo left it.
before=$(state "${devs[@]}" veth2)

# ---- mq: one child per TX queue ----
fix veth4
assert_status "fix of a 4-queue veth" 0
assert_eq "mq with 4 pfifo children" "mq 1 pfifo 4" \
	"$("${X[@]}" tc -j qdisc show dev veth4 | jq -r 'group_by(.kind) | map("\(.[0].kind) \(length)") | join(" ")')"
undo >/dev/null
assert_contains "undo: veth4 back to the kernel's own root" "$("${X[@]}" tc qdisc show dev veth4)" "noqueue"

# ---- the state directory and the journal ----
mkdir -p "$ro"
if mount -t tmpfs -o ro tmpfs "$ro" 2>/dev/null; then
	fix --state-dir "$ro/state" veth0
	assert_status "a read-only state dir fails the fix" 1
	assert_contains "it says why" "$ERR" "Read-only file system"
	assert_eq "a read-only state dir changes nothing" "$before" "$(state "${devs[@]}" veth2)"
	umount "$ro"
else
	echo "SKIP read-only state dir (cannot mount tmpfs here)"
fi
mkdir -p "$ST"
printf 'debloat-journal 1\nstep 1 applied txqueuelen veth0 - - "5000" "100" ""\nstep two\nend\n' >"$ST/journal"
cp "$ST/journal" "$scratch/bad"
fix veth0
assert_status "fix with a bad journal fails" 1
assert_contains "the message names the line" "$ERR" "$ST/journal:3:"
undo
assert_status "undo with a bad journal fails" 1
assert_contains "undo names the line too" "$ERR" "$ST/journal:3:"
assert_eq "the bad journal is kept as it was" "$(cat "$scratch/bad")" "$(cat "$ST/journal")"
assert_eq "a bad journal changes nothing" "$before" "$(state "${devs[@]}" veth2)"
rm -f "$ST/journal"

# ---- a second fix extends the journal and keeps the oldest before ----
fix veth0 --json
assert_eq "fix veth0 alone: its root, txqueuelen, gso_max_size and tcp_ecn" 4 "$(jq .applied <<<"$OUT")"
fix veth0 --role server --json
assert_eq "fix again with another role: nothing new on this kernel (no fq)" 0 \
	"$(jq .applied <<<"$OUT")"
if [ "$have_tap" -eq 1 ]; then
	fix tap0 --json
	assert_eq "a second fix of another interface applies only its own knobs" \
		"$(jq '[.interfaces[].steps[]] | length' <<<"$OUT")" "$(jq .applied <<<"$OUT")"
	assert_eq "the journal has each knob once" "$nsteps" "$(grep -c '^step ' "$ST/journal")"
fi
undo --json
assert_eq "one undo restores both fixes" "$before" "$(state "${devs[@]}" veth2)"

# ---- --all: physical interfaces only ----
fix --all --dry-run --json
assert_eq "--all skips loopback and virtual links" \
	"$(jq '.interfaces | length' <<<"$OUT")" "$(jq '[.interfaces[] | select(.skipped)] | length' <<<"$OUT")"

# ---- --persist under --root ----
if [ "$have_tap" -eq 1 ]; then
	root=$scratch/root
	mkdir -p "$root/etc/network/if-up.d"
	fix --persist --root "$root" --json tap0
	assert_status "fix --persist exits 0" 0
	assert_eq "--persist lists 4 files" 4 "$(jq '.persisted | length' <<<"$OUT")"
	persisted_state=$(state tap0)
	conf=$root/etc/debloat/tap0.conf
	unit=$root/etc/systemd/system/debloat-fix@.service
	inst=$root/etc/systemd/system/sys-subsystem-net-devices-tap0.device.wants/debloat-fix@tap0.service
	hook=$root/etc/network/if-up.d/debloat
	assert_contains "the conf has the root qdisc" "$(cat "$conf")" 'set root-qdisc tap0 - - "pfifo limit '
	assert_contains "the conf caps GSO packets under the FIFO" "$(cat "$conf")" 'set gso-max-size tap0 - - "3028"'
	assert_contains "the conf has the sysctl" "$(cat "$conf")" 'set sysctl - - net.ipv4.tcp_ecn "1"'
	exe=$(readlink -f "$DEBLOAT")
	assert_eq "the unit is systemd/debloat-fix@.service for this binary" \
		"$(sed "s|/usr/local/bin/debloat|$exe|g" "$TOP/systemd/debloat-fix@.service")" "$(cat "$unit")"
	assert_eq "the hook is scripts/if-up.d/debloat for this binary" \
		"$(sed "s|/usr/local/bin/debloat|$exe|g" "$TOP/scripts/if-up.d/debloat")" "$(cat "$hook")"
	assert_eq "the instance is enabled" "$(cat "$unit")" "$(cat "$inst")"
	assert_true "the hook is executable" [ -x "$hook" ]
	if command -v systemd-analyze >/dev/null; then
		run systemd-analyze verify "$unit" "$inst"
		ours=$(grep -F debloat-fix <<<"$OUT$ERR" || true)
		if [ "$RC" -eq 0 ] && [ -z "$ours" ]; then
			pass "systemd-analyze verify the unit and its instance"
		else
			fail "systemd-analyze verify: exit $RC: $ours"
		fi
	else
		echo "SKIP systemd-analyze verify (not here)"
	fi
	run sh -n "$hook"
	assert_status "the hook parses (sh -n)" 0
	undo >/dev/null
	fix --apply-persisted tap0 --root "$root" --json
	assert_status "--apply-persisted exits 0" 0
	assert_eq "--apply-persisted gives the state fix gave" "$persisted_state" "$(state tap0)"
	undo --persist --root "$root"
	assert_status "undo --persist exits 0" 0
	assert_eq "undo --persist removes every file it wrote" "" "$(find "$root" -type f -o -type l)"
	assert_eq "undo --persist restores the state" "$before" "$(state "${devs[@]}" veth2)"
fi

# ---- someone's explicit pfifo_fast on a veth (whose own default is noqueue) ----
ip -n "$NS" link add vpf0 type veth peer name vpf1
"${X[@]}" tc qdisc add dev vpf0 root pfifo_fast
fix vpf0 --json
assert_eq "a user's pfifo_fast is recorded as itself, not as the default" "pfifo_fast" \
	"$(jq -r '.interfaces[0].steps[] | select(.knob == "root-qdisc") | .before' <<<"$OUT")"
undo vpf0
assert_status "undo vpf0" 0
assert_contains "undo puts pfifo_fast back, not the veth's noqueue" \
	"$("${X[@]}" tc qdisc show dev vpf0)" "qdisc pfifo_fast"
ip -n "$NS" link del vpf0

finish
