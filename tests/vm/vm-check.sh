#!/usr/bin/env bash
# vm-check.sh - debloat on Debian's own kernels and real NIC drivers, under QEMU (TCG,
# no KVM needed): `make vm-check`.
#
#   tests/vm/vm-check.sh [--json] [--kernel NAME]... [STATIC_DEBLOAT]
#
# For each kernel of tests/vm/kernels.txt (or those named): tests/vm/image.sh makes a
# boot image (the kernel package and busybox-static from Debian, cached in
# $DEBLOAT_VM_CACHE; our static binary for the kernel's architecture,
# build-static-ARCH/bin/debloat (native for amd64, or STATIC_DEBLOAT), and
# tests/vm/guest.sh as /init); an amd64 kernel boots under qemu-system-x86_64 -M q35,
# an arm64 one under qemu-system-aarch64 -M virt (Cortex-A57), an armhf one under
# qemu-system-arm -M virt (Cortex-A15); the guest boots with an e1000e and a two-queue
# virtio-net NIC whose other ends are tap devices in a network namespace made here,
# where a `debloat server` listens (nothing else is reachable, and the host's own
# interfaces are never touched). The guest prints every command's output between
# markers on its serial console; this script judges them with jq, one pass/fail line
# per check (the suite's format, closing "N passed, N failed, N skipped"), then one
# table (kernel, driver, check, result) or, with --json, {"results": [{"kernel",
# "driver", "check", "result", "detail"}], "seconds"}.
#
# Beyond audit, bql, fix and undo on every NIC: on the e1000e and the fec, `fix --try 2`
# left unconfirmed (exit 1, everything put back, no journal) and a fix killed with
# SIGKILL after, then before, each step of its plan and undone (the exact start each
# time, no journal); on the fec, its TX ring (a skip row when the driver has no ring to
# set). A kernel whose MODE has "reboot" boots twice: boot 1 runs `fix --persist` and
# prints /etc/debloat; this script packs those files as a second newc cpio appended to
# the initrd (the initramfs is RAM: this is the disk that survives), and boot 2
# (dbvm=MODE,persist) starts bloated, runs `fix --apply-persisted IFACE` as the boot
# unit would, and must reach boot 1's fixed state (qdisc tree, txqueuelen, limit_max,
# sysctls, rings, offloads); undo then restores boot 2's start. A kernel whose MODE has
# "usbnet" boots the Raspberry Pi 3B's machine (qemu-system-aarch64 -M raspi3b, the
# kernel's bcm2837-rpi-3-b.dtb) with QEMU's usb-net on its USB: cdc_ether on usbnet, no
# BQL, fix told the rate (--shape), undo exact. A kernel whose MODE has "prove" boots
# once per scenario with its virtio-net alone, as the client of `debloat prove` behind
# a home link of the host's namespaces (a router on the tap, htb at VM_PROVE_RATE,
# default 4mbit, and a 1000-packet FIFO in each bloated direction, then a server
# namespace): bloated upload only, then both ways; each must be kept with induced
# latency at least 4x lower, the guest's own tests before and after must agree, and
# undo must restore the guest's qdiscs. When QEMU waited longer for a CPU than it ran
# (a busy host), the checks that depend on timing are skip rows saying so.
#
# VM_LOGS=DIR keeps each guest's serial log there (serial-KERNEL.log, and
# serial-KERNEL-persist.log for a second boot, serial-KERNEL-SCENARIO.log for prove's),
# and the servers' logs (server.log, prove-server.log: each test's end and its reason).
# Each boot is bounded (VM_TIMEOUT seconds, default 300; a prove boot VM_PROVE_TIMEOUT,
# default 480); the namespaces, their taps and every QEMU and server process are
# removed on exit, also on failure. Needs root (namespaces, taps), qemu-system-x86 (and
# qemu-system-arm for the ARM kernels, which are skipped without it or without their
# static binary), busybox-static, cpio, kmod, jq and apt-get (scripts/install-deps.sh
# vm installs them); exits 77 (skipped) without them.
# shellcheck disable=SC2054 # qemu's options are words with commas in them (-M virt,highmem=off)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

json=0
skipped=
kernels=()
debloat=$top/build-static-native/bin/debloat
while [ $# -gt 0 ]; do
	case $1 in
	--json) json=1 ;;
	--kernel) kernels+=("$2"); shift ;;
	-h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
	-*) echo "vm-check: unknown option $1" >&2; exit 2 ;;
	*) debloat=$1 ;;
	esac
	shift
done
[ ${#kernels[@]} -gt 0 ] || mapfile -t kernels < <(awk '!/^#/ && NF { print $1 }' "$here/kernels.txt")
timeout_s=${VM_TIMEOUT:-300}

skip() { echo "SKIP: $*"; echo "0 passed, 0 failed, 1 skipped"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root (a network namespace and tap devices)"
for c in qemu-system-x86_64 busybox cpio depmod jq apt-get ip base64 tar; do
	command -v "$c" >/dev/null || skip "needs $c (scripts/install-deps.sh vm)"
done
[ -c /dev/net/tun ] || skip "needs /dev/net/tun"
[ -x "$debloat" ] || { echo "vm-check: no static binary $debloat (make static)" >&2; exit 1; }

ns=dbvm-$$
work=$(mktemp -d)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
	ip netns del "$ns" 2>/dev/null || true
	ip netns pids "dbvs-$$" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
	ip netns del "dbvs-$$" 2>/dev/null || true
	[ -z "${VM_LOGS:-}" ] || cp "$work"/*server.log "$VM_LOGS"/ 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

rows=() passed=0 failed=0
start=$SECONDS
# record KERNEL DRIVER CHECK pass|fail|skip DETAIL
record() {
	local line
	line=$(jq -cn --arg k "$1" --arg d "$2" --arg c "$3" --arg r "$4" --arg x "$5" \
		'{kernel: $k, driver: $d, check: $c, result: $r, detail: $x}')
	rows+=("$line")
	case $4 in
	pass) passed=$((passed + 1)); [ $json = 1 ] || echo "ok   $1 $2: $3" ;;
	fail) failed=$((failed + 1)); [ $json = 1 ] || echo "FAIL $1 $2: $3 ($5)" ;;
	*) skipped=$((skipped + 1)); [ $json = 1 ] || echo "SKIP $1 $2: $3 ($5)" ;;
	esac
}

# The output of step NAME in the serial log LOG (without the markers), and its status.
section() { awk -v n="$2" '$0 == "VMOUT-BEGIN " n { on = 1; next }
	on && index($0, "VMOUT-END " n " ") == 1 { exit } on' "$1"; }
status() { awk -v n="$2" 'index($0, "VMOUT-END " n " ") == 1 { print $3; exit }' "$1"; }
# check K D NAME JQ_FILTER STEP_JSON...: pass when the filter gives true
jqcheck() {
	local k=$1 d=$2 name=$3 filter=$4 input=$5 got
	if got=$(jq -e "$filter" <<<"$input" 2>&1) && [ "$got" = true ]; then
		record "$k" "$d" "$name" pass ""
	else
		record "$k" "$d" "$name" fail "jq: $filter -> ${got:0:200}"
	fi
}

# The host side: a namespace with one tap per NIC and a server in it.
ip netns add "$ns"
ip -n "$ns" link set lo up
ip -n "$ns" tuntap add dev tape mode tap
ip -n "$ns" tuntap add dev tapv mode tap multi_queue
ip -n "$ns" addr add 10.0.2.2/24 dev tape
ip -n "$ns" addr add 10.0.3.2/24 dev tapv
ip -n "$ns" link set tape up
ip -n "$ns" link set tapv up
ip netns exec "$ns" "$debloat" server -4 >"$work/server.log" 2>&1 &
pids+=($!)

judge_nic() { # KERNEL LOG IFACE DRIVER BQL_EXPECTED(yes|no)
	local k=$1 log=$2 i=$3 d=$4 bql=$5 a0 a1 a3 fix fix2 bqlout s0 s1 s2 sp
	a0=$(section "$log" "$i/audit0") a1=$(section "$log" "$i/audit1") a3=$(section "$log" "$i/audit3")
	fix=$(section "$log" "$i/fix") fix2=$(section "$log" "$i/fix2")
	bqlout=$(section "$log" "$i/bql") sp=$(section "$log" "$i/server-plan")
	s0=$(section "$log" "$i/state0") s1=$(section "$log" "$i/state1") s2=$(section "$log" "$i/state2")

	if [ "$d" = fec ]; then # fec tells ethtool no ring sizes: the drivers table knows 512
		jqcheck "$k" "$d" "audit sees the driver, a speed and its 512-frame TX ring" \
			".interfaces[0].driver == \"fec\" and .interfaces[0].speed_mbps > 0 and
			 ([.interfaces[0].findings[] | select(.code == \"big-tx-ring\") |
			   .evidence.ring_tx] == [512])" "$a0"
	else
		jqcheck "$k" "$d" "audit sees the driver, a speed and a TX ring" \
			".interfaces[0].driver == \"$d\" and .interfaces[0].speed_mbps > 0 and .interfaces[0].rings.tx > 0" "$a0"
	fi
	jqcheck "$k" "$d" "audit finds the FIFO (pfifo_fast) it starts from" \
		'[.interfaces[0].findings[].code] | index("fifo-qdisc") != null' "$a1"
	if [ "$d" = virtio_net ]; then
		jqcheck "$k" "$d" "audit shows mq with a child per TX queue" \
			'.interfaces[0].qdisc.kind == "mq" and (.interfaces[0].qdisc.children | length) == .interfaces[0].tx_queues and .interfaces[0].tx_queues == 2' "$a0"
	fi
	if [ "$bql" = yes ]; then
		jqcheck "$k" "$d" "BQL in use after traffic" '.interfaces[0].bql.in_use == true' "$a1"
		# An emulated NIC often completes a frame within the tick it was sent in, so 20
		# samples may all see 0 bytes in flight (armhf's e1000e: about one run in two).
		# BQL raises a queue's limit only when the bytes in flight reached it: a limit
		# rising between samples shows them too.
		jqcheck "$k" "$d" "debloat bql under load: bytes in flight (or a limit raised by them), the limit off its floor" \
			'[.[] | .interfaces[0].queues[]] | (([.[].inflight] | max) > 0 or
			 (group_by(.queue) | any(([.[].limit] | max) > .[0].limit))) and ([.[].limit] | max) > 0' \
			"$(jq -s . <<<"$bqlout" 2>&1)"
	else
		jqcheck "$k" "$d" "BQL not in use: this kernel's driver has none" \
			'.interfaces[0].bql.in_use != true' "$a1"
	fi
	jqcheck "$k" "$d" "fix applies every step it planned" \
		'.result == "applied" and .refused_steps == 0 and .error == null' "$fix"
	local root
	root=$(jq -r '[.interfaces[0].steps[] | select(.knob == "root-qdisc") | .after][0] // ""' <<<"$fix" 2>/dev/null || true)
	if [ "$bql" = yes ]; then
		case $root in
		fq_codel* | mq*) record "$k" "$d" "fix puts fq_codel at the root (or under mq)" pass "" ;;
		*) record "$k" "$d" "fix puts fq_codel at the root (or under mq)" fail "root step: \"$root\"" ;;
		esac
	else
		case $root in
		cake* | htb*) record "$k" "$d" "fix shapes (no BQL): $root" pass "" ;;
		*) record "$k" "$d" "fix shapes a driver without BQL" fail "root step: \"$root\"" ;;
		esac
	fi
	if grep -q '^qdisc qdisc pfifo_fast' <<<"$s1"; then
		record "$k" "$d" "the kernel's qdisc tree after fix has no pfifo_fast" fail "$(grep '^qdisc' <<<"$s1" | head -n 3)"
	else
		record "$k" "$d" "the kernel's qdisc tree after fix has no pfifo_fast" pass ""
	fi
	jqcheck "$k" "$d" "audit after fix: no FIFO finding" \
		'[.interfaces[0].findings[].code] | index("fifo-qdisc") == null' "$(section "$log" "$i/audit2")"
	jqcheck "$k" "$d" "a second fix changes nothing" \
		'.applied == 0 and .error == null' "$fix2"
	if [ "$bql" = yes ]; then
		jqcheck "$k" "$d" "--role server plans fq" \
			'[.interfaces[0].steps[] | select(.knob == "root-qdisc") | .after | test("fq( |$)")] | any' "$sp"
	else
		jqcheck "$k" "$d" "--role server still shapes (no BQL)" \
			'[.interfaces[0].steps[] | select(.knob == "root-qdisc") | .after | test("^(cake|htb)")] | any' "$sp"
	fi
	if [ "$(status "$log" "$i/undo")" = 0 ] && [ -n "$s0" ] && [ "$s0" = "$s2" ]; then
		record "$k" "$d" "undo restores the qdisc tree, txqueuelen, limit_max and sysctls exactly" pass ""
	else
		record "$k" "$d" "undo restores the qdisc tree, txqueuelen, limit_max and sysctls exactly" fail \
			"$(diff <(echo "$s0") <(echo "$s2") | head -n 6 | tr '\n' ' ')"
	fi
	jqcheck "$k" "$d" "undo restores rings and offloads exactly" \
		"(.interfaces[0] | {rings, offloads, txqueuelen}) == ($(jq -c '.interfaces[0] | {rings, offloads, txqueuelen}' <<<"$a0" 2>/dev/null || echo null))" "$a3"
	# The knobs beyond the root qdisc that fix changed, each back as it was.
	local knobs
	knobs=$(jq -r '[.interfaces[0].steps[] | select(.status == "applied") | .knob] | unique | join(",")' <<<"$fix" 2>/dev/null || true)
	if grep -q bql <<<"$knobs"; then
		if [ "$(grep '^limit_max' <<<"$s1")" != "$(grep '^limit_max' <<<"$s0")" ] &&
			[ "$(grep '^limit_max' <<<"$s2")" = "$(grep '^limit_max' <<<"$s0")" ]; then
			record "$k" "$d" "BQL limit_max changed by fix and restored by undo" pass ""
		else
			record "$k" "$d" "BQL limit_max changed by fix and restored by undo" fail "$(grep '^limit_max' <<<"$s1" | tr '\n' ' ')"
		fi
	fi
	if grep -q ring <<<"$knobs"; then
		local r0 r3
		r0=$(jq -c '.interfaces[0].rings' <<<"$a0") r3=$(jq -c '.interfaces[0].rings' <<<"$a3")
		if [ "$r0" = "$r3" ]; then
			record "$k" "$d" "TX ring changed by fix and restored by undo" pass ""
		else
			record "$k" "$d" "TX ring changed by fix and restored by undo" fail "$r0 -> $r3"
		fi
	fi
	[ $json = 1 ] || echo "     ($k $d: fix changed: ${knobs:-nothing})"
}

judge_fallback() { # KERNEL LOG
	local k=$1 log=$2 i fb s0 s1 s2
	i=$(grep '^VMINFO nic ' "$log" | awk '$4 == "virtio_net" { print $3; exit }')
	fb=$(section "$log" "$i/fallback") s0=$(section "$log" "$i/state0")
	s1=$(section "$log" "$i/state1") s2=$(section "$log" "$i/state2")
	jqcheck "$k" virtio_net "cake listed but not loadable: fix falls back and applies" \
		'.result == "applied" and .fell_back_from == "cake" and .error == null' "$fb"
	jqcheck "$k" virtio_net "the fallback shapes with htb and fq_codel under it" \
		'[.interfaces[0].steps[] | select(.knob == "root-qdisc") | .after | test("^htb .*fq_codel")] | any' "$fb"
	if grep -q "lists cake but cannot load it" <<<"$(section "$log" "$i/fallback-stderr")"; then
		record "$k" virtio_net "fix says which kind it could not load" pass ""
	else
		record "$k" virtio_net "fix says which kind it could not load" fail "$(section "$log" "$i/fallback-stderr" | head -n 2 | tr '\n' ' ')"
	fi
	if grep -q '^qdisc qdisc htb' <<<"$s1" && grep -q '^qdisc qdisc fq_codel' <<<"$s1"; then
		record "$k" virtio_net "the kernel's tree after the fallback is htb with fq_codel" pass ""
	else
		record "$k" virtio_net "the kernel's tree after the fallback is htb with fq_codel" fail "$(grep '^qdisc' <<<"$s1" | head -n 3 | tr '\n' ' ')"
	fi
	if [ -n "$s0" ] && [ "$s0" = "$s2" ]; then
		record "$k" virtio_net "undo after the fallback restores everything" pass ""
	else
		record "$k" virtio_net "undo after the fallback restores everything" fail "$(diff <(echo "$s0") <(echo "$s2") | head -n 6 | tr '\n' ' ')"
	fi
}

# fec's TX ring, shrunk "where the driver allows it": audit's 512 for fec comes from the
# drivers table when the driver reports no ring sizes to ethtool (6.1's fec under
# sabrelite: rings null), and then fix has no ring to set: a skip row says so. A fec
# that reports its ring must get a ring step (judge_nic checks that undo restores it).
judge_fec_ring() { # KERNEL LOG IFACE
	local tx steps
	tx=$(jq -c '.interfaces[0].rings.tx' <<<"$(section "$2" "$3/audit0")" 2>/dev/null || echo error)
	steps=$(jq '[.interfaces[0].steps[] | select(.knob | test("^ring-"))] | length' \
		<<<"$(section "$2" "$3/plan")" 2>/dev/null || echo error)
	tx=${tx:-error} steps=${steps:-error}
	if [ "$tx" = null ] && [ "$steps" = 0 ]; then
		record "$1" fec "fix shrinks the TX ring" skip \
			"this kernel's fec has no ethtool ring operations (audit: rings.tx null): no ring to set, fix shapes instead"
	elif [ "$tx" != null ] && [ "$tx" != error ] && [ "$steps" != error ] && [ "$steps" -gt 0 ]; then
		record "$1" fec "fix plans a ring step for the TX ring the driver reports ($tx)" pass ""
	else
		record "$1" fec "fix plans a ring step exactly when the driver reports its ring" fail "rings.tx $tx, ring steps $steps"
	fi
}

# --try expiry and kill -9 at every step of fix, each followed by its rollback or undo.
judge_recovery() { # KERNEL LOG IFACE DRIVER
	local k=$1 log=$2 i=$3 d=$4 s0 s1 try n lines got bad hook when
	s0=$(section "$log" "$i/try-state0") s1=$(section "$log" "$i/try-state1")
	try=$(section "$log" "$i/try")
	if [ "$(status "$log" "$i/try")" = 1 ] && grep -q "on trial" <<<"$try" &&
		grep -q "not confirmed within 2 s" <<<"$try"; then
		record "$k" "$d" "fix --try 2 unconfirmed: on trial, then exit 1, \"not confirmed within 2 s\"" pass ""
	else
		record "$k" "$d" "fix --try 2 unconfirmed: on trial, then exit 1, \"not confirmed within 2 s\"" fail \
			"exit $(status "$log" "$i/try"): $(tr '\n' ' ' <<<"$try" | cut -c1-200)"
	fi
	if [ -n "$s0" ] && [ "$s0" = "$s1" ] && [ "$(section "$log" "$i/try-journal")" = 0 ]; then
		record "$k" "$d" "--try expiry restores the state exactly (tree, txqueuelen, limit_max, sysctls, rings, offloads), no journal" pass ""
	else
		record "$k" "$d" "--try expiry restores the state exactly (tree, txqueuelen, limit_max, sysctls, rings, offloads), no journal" fail \
			"journal left: $(section "$log" "$i/try-journal"); $(diff <(echo "$s0") <(echo "$s1") | head -n 6 | tr '\n' ' ')"
	fi
	# One line per hook and step from the guest: "HOOK K fix=RC changed=C undo=RC same=S
	# journal=J"; every step killed (137), its change in place (none yet when killed before
	# step 1's write), then undo exits 0 to the exact start and no journal.
	n=$(jq '[.interfaces[].steps[], .host.steps[] | select(.status == "planned")] | length' \
		<<<"$(section "$log" "$i/crash-plan")" 2>/dev/null || echo 0)
	n=${n:-0}
	lines=$(section "$log" "$i/crash")
	for hook in CRASH_AFTER CRASH_BEFORE; do
		got=$(grep -c "^$hook " <<<"$lines" || true)
		bad=$(awk -v h="$hook" '$1 == h && !($3 == "fix=137" && $5 == "undo=0" && $6 == "same=1" &&
			$7 == "journal=0" && $4 == ((h == "CRASH_BEFORE" && $2 == 1) ? "changed=0" : "changed=1"))' <<<"$lines")
		when=${hook#CRASH_}
		if [ "$n" -ge 1 ] && [ "$got" = "$n" ] && [ -z "$bad" ]; then
			record "$k" "$d" "kill -9 ${when,,} each of fix's $n steps (DEBLOAT_FIX_$hook=1..$n), then undo: the exact start, no journal" pass ""
		else
			record "$k" "$d" "kill -9 at each of fix's steps (DEBLOAT_FIX_$hook), then undo: the exact start, no journal" fail \
				"$n steps planned, $got killed; $(tr '\n' ';' <<<"${bad:-$lines}" | cut -c1-240)"
		fi
	done
}

# qemu_cpu PID: "RUN_NS WAIT_NS", the time QEMU's threads (PID is the timeout that runs
# it) have run on a CPU and waited in the run queue for one (schedstat), so far.
qemu_cpu() {
	local q
	q=$(pgrep -P "$1" | head -n 1)
	[ -n "$q" ] || return 1
	cat /proc/"$q"/task/*/schedstat 2>/dev/null | awk '{ r += $1; w += $2 } END { if (NR) printf "%.0f %.0f\n", r, w; else exit 1 }'
}

# What a guest that printed no end marker said last (LOG is its serial log): when its
# kernel died of an oops, the oops's first line, where it was, the calls that led there
# (the unreliable "? " frames left out) and the panic line; else its last 8 lines.
last_words() { # LOG
	if grep -aqE 'Oops:|BUG:|Kernel panic' "$1"; then
		grep -aE 'Oops:|BUG:|RIP:|Kernel panic|^\[ *[0-9.]+\]  [A-Za-z_][A-Za-z0-9_.]*\+0x' "$1" |
			sed 's/^\[ *[0-9.]*\] *//' | head -n 24 | tr '\n' ' '
	else
		tail -n 8 "$1" | tr '\n' ' '
	fi
}

# Boot the kernel once: boot IMG INITRD MODES LOG (the guest's dbvm=MODES). QEMU ends when
# the guest powers off, or (sabrelite, which does not) when the guest printed its end
# marker; at the latest at the timeout.
boot() {
	local img=$1 initrd=$2 modes=$3 log=$4 qpid
	: >"$log.raw"
	ip netns exec "$ns" timeout "$timeout_s" "${qemu[@]}" "${out[@]}" -no-reboot -monitor none \
		-kernel "$img/vmlinuz" -initrd "$initrd" \
		-append "console=$console panic=-1 quiet loglevel=1${modes:+ dbvm=$modes}" \
		"${nics[@]}" </dev/null >"$log.raw" 2>&1 &
	qpid=$!
	pids+=("$qpid")
	rm -f "$log.cpu"
	while kill -0 "$qpid" 2>/dev/null; do
		qemu_cpu "$qpid" >"$log.cpu.new" && mv "$log.cpu.new" "$log.cpu"
		if grep -aq '^VMGUEST-END' "$log.raw"; then
			sleep 1
			kill "$qpid" 2>/dev/null || true
			break
		fi
		sleep 1
	done
	wait "$qpid" 2>/dev/null || true
	tr -d '\r' <"$log.raw" >"$log"
	[ -z "${VM_LOGS:-}" ] || { mkdir -p "$VM_LOGS" && cp "$log" "$VM_LOGS/$(basename "$log")"; }
}

# MODE "reboot": `fix --persist` in boot 1, then a second boot of the same kernel with the
# files it wrote. The initramfs is RAM, so the "disk" is a second newc cpio of boot 1's
# /etc/debloat (printed as a base64 tar), appended to the image's initrd (the kernel
# unpacks concatenated archives in turn); boot 2 (dbvm=MODE,persist) starts bloated
# again and runs `debloat fix --apply-persisted IFACE`, as the boot unit would.
persist_reboot() { # KERNEL IMG LOG IFACE DRIVER
	local k=$1 img=$2 log=$3 i=$4 d=$5 dir log2 s
	jqcheck "$k" "$d" "fix --persist applies and writes /etc/debloat/$i.conf" \
		".result == \"applied\" and ([.persisted[] | select(. == \"/etc/debloat/$i.conf\")] | length) == 1" \
		"$(section "$log" "$i/persist-fix")"
	s=$(section "$log" "$i/persist-left")
	if [ "$(status "$log" "$i/persist-undo")" = 0 ] && ! grep -q "^$i.conf$" <<<"$s" && grep -q '^journal 0$' <<<"$s"; then
		record "$k" "$d" "undo --persist restores and removes the saved setup" pass ""
	else
		record "$k" "$d" "undo --persist restores and removes the saved setup" fail "$(tr '\n' ' ' <<<"$s")"
	fi
	dir=$work/persist-$k
	rm -rf "$dir" && mkdir -p "$dir"
	if ! section "$log" "$i/persist-files" | base64 -d 2>/dev/null | tar -x -C "$dir" 2>/dev/null ||
		[ ! -s "$dir/etc/debloat/$i.conf" ]; then
		record "$k" "$d" "boot 1's persisted files for boot 2" fail "no $i.conf in the guest's tar of /etc/debloat"
		return
	fi
	(cd "$dir" && find etc | cpio -o -H newc --quiet | gzip -1) >"$work/persist-$k.cpio.gz"
	cat "$img/initrd.gz" "$work/persist-$k.cpio.gz" >"$img/initrd-persist.gz"
	log2=$work/serial-$k-persist.log
	local t0=$SECONDS
	boot "$img" "$img/initrd-persist.gz" "${mode:+$mode,}persist" "$log2"
	[ $json = 1 ] || echo "     ($k: boot 2 with boot 1's /etc/debloat, booted and checked in $((SECONDS - t0)) s)"
	if ! grep -q '^VMGUEST-END' "$log2"; then
		record "$k" - "boot 2 ran to its end" fail "no end marker within ${timeout_s}s; last words: $(last_words "$log2")"
		return
	fi
	record "$k" - "boot 2 ran to its end" pass ""
	if [ "$(section "$log2" "$i/persisted-conf")" = "$(cat "$dir/etc/debloat/$i.conf")" ]; then
		record "$k" "$d" "boot 2 finds boot 1's /etc/debloat/$i.conf" pass ""
	else
		record "$k" "$d" "boot 2 finds boot 1's /etc/debloat/$i.conf" fail "$(section "$log2" "$i/persisted-conf" | head -n 2 | tr '\n' ' ')"
	fi
	local b0 b1 f1 a0 a2
	b0=$(section "$log" "$i/try-state0") f1=$(section "$log" "$i/persist-state")
	a0=$(section "$log2" "$i/persisted-state0") b1=$(section "$log2" "$i/persisted-state1")
	a2=$(section "$log2" "$i/persisted-state2")
	if [ -n "$a0" ] && [ "$a0" = "$b0" ] && [ "$a0" != "$f1" ]; then
		record "$k" "$d" "boot 2 starts from the bloated state again" pass ""
	else
		record "$k" "$d" "boot 2 starts from the bloated state again" fail "$(diff <(echo "$b0") <(echo "$a0") | head -n 6 | tr '\n' ' ')"
	fi
	jqcheck "$k" "$d" "fix --apply-persisted (the boot unit's command) applies the saved setup" \
		'.result == "applied" and .error == null and .refused_steps == 0' "$(section "$log2" "$i/persisted-apply")"
	if [ -n "$b1" ] && [ "$b1" = "$f1" ]; then
		record "$k" "$d" "after the reboot the state is boot 1's fixed one (tree, txqueuelen, limit_max, sysctls, rings, offloads)" pass ""
	else
		record "$k" "$d" "after the reboot the state is boot 1's fixed one (tree, txqueuelen, limit_max, sysctls, rings, offloads)" fail \
			"$(diff <(echo "$f1") <(echo "$b1") | head -n 6 | tr '\n' ' ')"
	fi
	if [ "$(status "$log2" "$i/persisted-undo")" = 0 ] && [ -n "$a2" ] && [ "$a2" = "$a0" ]; then
		record "$k" "$d" "undo after --apply-persisted restores the boot's start" pass ""
	else
		record "$k" "$d" "undo after --apply-persisted restores the boot's start" fail "$(diff <(echo "$a0") <(echo "$a2") | head -n 6 | tr '\n' ' ')"
	fi
}

# usbnet under the Raspberry Pi 3B's machine: the driver, no BQL used (its files there,
# never moved), fix with the rate given (no speed is known on a USB link), undo exact.
judge_usbnet() { # KERNEL LOG IFACE
	local k=$1 log=$2 i=$3 d=cdc_ether s0 s1 s2 fix
	s0=$(section "$log" "$i/state0") s1=$(section "$log" "$i/state1") s2=$(section "$log" "$i/state2")
	fix=$(section "$log" "$i/fix")
	jqcheck "$k" "$d" "audit sees usbnet's cdc_ether behind the board's USB host controller" \
		'.interfaces[0].driver == "cdc_ether" and (.interfaces[0].bus | test("usb"))' "$(section "$log" "$i/audit0")"
	jqcheck "$k" "$d" "BQL not in use after traffic: usbnet has none before 6.19" \
		'.interfaces[0].bql.in_use != true' "$(section "$log" "$i/audit1")"
	jqcheck "$k" "$d" "debloat bql under load: the BQL files are there and never move" \
		'[.[] | .interfaces[0].queues[]] | length > 0 and ([.[].limit] | max) == 0 and ([.[].inflight] | max) == 0' \
		"$(jq -s . <<<"$(section "$log" "$i/bql")" 2>&1)"
	jqcheck "$k" "$d" "fix --shape 8mbit applies a shaper at 8 Mbit/s" \
		'.result == "applied" and .error == null and
		 ([.interfaces[0].steps[] | select(.knob == "root-qdisc") | .after |
		   test("^(cake bandwidth 8mbit|htb .*rate 8mbit)"; "i")] | any)' "$fix"
	if grep -Eq '^qdisc qdisc (cake|htb)' <<<"$s1"; then
		record "$k" "$d" "the kernel's tree after fix is the shaper" pass ""
	else
		record "$k" "$d" "the kernel's tree after fix is the shaper" fail "$(grep '^qdisc' <<<"$s1" | head -n 3 | tr '\n' ' ')"
	fi
	jqcheck "$k" "$d" "audit after fix: no FIFO finding" \
		'[.interfaces[0].findings[].code] | index("fifo-qdisc") == null' "$(section "$log" "$i/audit2")"
	if [ "$(status "$log" "$i/undo")" = 0 ] && [ -n "$s0" ] && [ "$s0" = "$s2" ]; then
		record "$k" "$d" "undo restores the qdisc tree, txqueuelen and sysctls exactly" pass ""
	else
		record "$k" "$d" "undo restores the qdisc tree, txqueuelen and sysctls exactly" fail \
			"$(diff <(echo "$s0") <(echo "$s2") | head -n 6 | tr '\n' ' ')"
	fi
	[ $json = 1 ] || echo "     ($k $d: fix without a rate plans: $(jq -r '[.interfaces[0].steps[] | select(.knob == "root-qdisc") | .after][0] // .error // "nothing"' <<<"$(section "$log" "$i/plan")" 2>/dev/null))"
}

# MODE "prove": the guest is prove's client behind a home link made of the host's
# namespaces. The virtio-net's tap (tapv, 10.0.3.2, in $ns) is the router, which
# forwards to a server namespace (10.0.5.2, a `debloat server`) over a veth; the link
# is htb at $prove_rate with a 1000-packet FIFO under it on the router's side of each
# bloated direction: the veth to the server for the upload, the tap for the download.
# One boot per scenario: "up" (bloated upload only) and "both".
prove_rate=${VM_PROVE_RATE:-4mbit} # in mbit
prove_ns=
prove_link() { # once: the server namespace and its veth to the router
	[ -z "$prove_ns" ] || return 0
	prove_ns=dbvs-$$
	ip netns add "$prove_ns"
	ip -n "$prove_ns" link set lo up
	ip link add "dbvr$$" netns "$ns" type veth peer name "dbvs$$" netns "$prove_ns"
	ip -n "$ns" link set "dbvr$$" name rs0
	ip -n "$prove_ns" link set "dbvs$$" name s0
	ip -n "$ns" addr add 10.0.5.1/24 dev rs0
	ip -n "$prove_ns" addr add 10.0.5.2/24 dev s0
	ip -n "$ns" link set rs0 up
	ip -n "$prove_ns" link set s0 up
	ip -n "$prove_ns" route add default via 10.0.5.1
	ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=1
	ip netns exec "$prove_ns" "$debloat" server -4 --allow-cc cubic >"$work/prove-server.log" 2>&1 &
	pids+=($!)
}
# prove_bloat DEV[:short]...|-: the modem's shaper and its 1000-packet FIFO on the
# router's DEV, or with ":short" a link that is not bloated: three times the rate (an
# asymmetric line's download) over a 5-packet FIFO (5 ms at 12 Mbit/s); "-": none
# left. A direction left unshaped would be a 10 Gbit/s veth that the TCG guest's CPU,
# not the link, limits: the download's flood would starve the guest's upload.
prove_bloat() {
	local d rate limit
	for d in rs0 tapv; do ip netns exec "$ns" tc qdisc del dev "$d" root 2>/dev/null || true; done
	for d in "$@"; do
		[ "$d" != - ] || continue
		rate=$prove_rate limit=1000
		if [ "${d%:short}" != "$d" ]; then
			d=${d%:short} limit=5
			rate=$((3 * ${prove_rate%mbit}))mbit
		fi
		ip netns exec "$ns" tc qdisc add dev "$d" root handle 1: htb default 1
		ip netns exec "$ns" tc class add dev "$d" parent 1: classid 1:1 htb rate "$rate" ceil "$rate" \
			quantum 1514
		ip netns exec "$ns" tc qdisc add dev "$d" parent 1:1 handle 10: pfifo limit "$limit"
	done
}
# jnum JSON FILTER: a number from JSON, "nan" when it is not there
jnum() { jq -r "($2) // \"nan\"" <<<"$1" 2>/dev/null || echo nan; }
# ratio_ge BEFORE AFTER X: BEFORE / AFTER (each floored at 1 ms) is at least X
ratio_ge() {
	[[ $1 =~ ^[0-9.]+$ && $2 =~ ^-?[0-9.]+$ ]] &&
		awk -v b="$1" -v a="$2" -v x="$3" 'BEGIN { if (a < 1) a = 1; if (b < 1) b = 1; exit !(b / a >= x) }'
}
# timed K D SC NAME FILTER JSON: a check of the figures, a skip row when the guest was
# starved (its timing then says how busy the host was, not what prove did).
timed() {
	if [ -n "$starved" ]; then
		record "$1" "$2" "$3: $4" skip "$starved"
	else
		jqcheck "$1" "$2" "$3: $4" "$5" "$6"
	fi
}
timed_plan() { record "$1" "$2" "$3" skip "$starved"; } # K D NAME ...: a skip row
judge_prove() { # KERNEL LOG SCENARIO(up|both)
	local k=$1 log=$2 sc=$3 d=virtio_net p rc s0 s2 dir t0 t1 b a run=0 wait=0
	p=$(section "$log" prove/prove) rc=$(status "$log" prove/prove)
	# QEMU's threads under TCG: the time they ran and waited for a CPU. A guest that
	# waited longer than it ran is too slow to judge goodput or delays by: its figures
	# are printed, its timing checks are skip rows that say so.
	read -r run wait <"$log.cpu" 2>/dev/null || true
	starved=
	if [ "${wait:-0}" -gt "${run:-0}" ]; then
		starved="the TCG guest was starved: QEMU ran $((run / 1000000000)) s and waited $((wait / 1000000000)) s for a CPU (load $(cut -d' ' -f1-3 /proc/loadavg))"
	fi
	[ $json = 1 ] || {
		echo "     ($k $sc: QEMU ran $((${run:-0} / 1000000000)) s on a CPU and waited $((${wait:-0} / 1000000000)) s for one; load average $(cut -d' ' -f1-3 /proc/loadavg))"
		echo "     ($k $sc: idle RTT to the server through the emulated NIC, 20 pings:" \
			"$(section "$log" prove/idle | grep -o 'min/avg/max = .*' || echo none))"
		echo "     ($k $sc: prove: $(jnum "$p" .verdict.outcome), induced" \
			"$(jnum "$p" .before.induced_ms) -> $(jnum "$p" .after.induced_ms) ms" \
			"(x$(jnum "$p" .verdict.latency_ratio)); idle p50 $(jnum "$p" .before.idle_p50_ms) ms;" \
			"one-way up $(jnum "$p" .before.owd_up_induced_ms) -> $(jnum "$p" .after.owd_up_induced_ms)," \
			"down $(jnum "$p" .before.owd_down_induced_ms) -> $(jnum "$p" .after.owd_down_induced_ms) ms;" \
			"goodput by this host's counters up $(jnum "$p" .before.own_upload_mbps) ->" \
			"$(jnum "$p" .after.own_upload_mbps), down $(jnum "$p" .before.own_download_mbps) ->" \
			"$(jnum "$p" .after.own_download_mbps) Mbit/s; $(jnum "$p" .verdict.why))"
		echo "     ($k $sc: prove's plan: $(jq -r '[.plan[] | "\(.kind) \(.after)"] | join("; ")' <<<"$p" 2>/dev/null))"
	}
	timed "$k" "$d" "$sc" "prove keeps its change (exit $rc), induced latency at least 4x lower" \
		'.verdict.outcome == "kept" and .verdict.latency_ratio >= 4' "$p"
	# A starved guest's clock lags the host's: the server may end a flow before the
	# guest thinks the load is over, and prove fails with nothing planned.
	local plan=jqcheck
	if [ -n "$starved" ] && [ "$rc" = 1 ]; then
		plan=timed_plan
		starved="prove could not run ($(jnum "$p" .verdict.why)); $starved"
	fi
	$plan "$k" "$d" "$sc: this kernel has cake: prove shapes the upload with cake" \
		'.kernel_qdiscs.cake == "yes" and ([.plan[] | select(.kind == "root-qdisc") | .after | test("^cake ")] | any)' "$p"
	if [ "$sc" = both ]; then
		$plan "$k" "$d" "$sc: the download's queue is downstream: cake on the ifb" \
			'.capacity_mbps.directions.down.where == "downstream" and
			 ([.plan[] | select(.kind == "ingress") | .after | test("^cake ")] | any)' "$p"
	else
		timed "$k" "$d" "$sc" "no queue downstream, no ingress step" \
			'.capacity_mbps.directions.down.where == "none" and
			 ([.plan[] | select(.kind == "ingress")] | length) == 0' "$p"
	fi
	# The independent check: the guest's own test of each bloated direction, before
	# prove and with its change kept.
	for dir in up down; do
		[ "$dir" = up ] || [ "$sc" = both ] || continue
		t0=$(section "$log" "prove/test-${dir}0") t1=$(section "$log" "prove/test-${dir}1")
		b=$(jnum "$t0" .summary.induced_latency_ms) a=$(jnum "$t1" .summary.induced_latency_ms)
		local mb=${dir/up/upload} msg
		mb=${mb/down/download}_mbps
		msg="induced $b -> $a ms, goodput $(jnum "$t0" ".summary.$mb") -> $(jnum "$t1" ".summary.$mb") Mbit/s, idle p50/p99 $(jnum "$t1" .summary.latency_idle_ms.p50)/$(jnum "$t1" .summary.latency_idle_ms.p99) ms"
		[ $json = 1 ] || echo "     ($k $sc: debloat test tcp_${mb%_mbps}: $msg)"
		if [ -n "$starved" ]; then
			record "$k" "$d" "$sc: the guest's own test of the ${dir}load afterwards: at least 4x lower" skip "$msg; $starved"
		elif ratio_ge "$b" "$a" 4; then
			record "$k" "$d" "$sc: the guest's own test of the ${dir}load afterwards: at least 4x lower" pass "$msg"
		else
			record "$k" "$d" "$sc: the guest's own test of the ${dir}load afterwards: at least 4x lower" fail "$msg"
		fi
	done
	s0=$(section "$log" prove/state0) s2=$(section "$log" prove/state2)
	if [ "$(status "$log" prove/undo)" = 0 ] && [ -n "$s0" ] && [ "$s0" = "$s2" ]; then
		record "$k" "$d" "$sc: undo restores the guest's qdiscs (root and ingress), links, sysctls, offloads" pass ""
	else
		record "$k" "$d" "$sc: undo restores the guest's qdiscs (root and ingress), links, sysctls, offloads" fail \
			"$(diff <(echo "$s0") <(echo "$s2") | head -n 6 | tr '\n' ' ')"
	fi
}

has() { [[ ,$mode, == *,$1,* ]]; } # HAS WORD: WORD is a word of this kernel's MODE

# A board machine's one NIC (guest.sh's board_nic): true, with its name in $iface, when
# the guest found it and its link came up; else the failure is recorded.
board_nic_up() { # KERNEL LOG DRIVER
	local carrier=
	iface=
	read -r _ iface _ _ carrier < <(grep '^VMINFO nic ' "$2" | cut -d' ' -f2-) || true
	if [ -z "$iface" ]; then
		record "$1" "$3" "the NIC is there" fail "the guest found no $3 interface"
	elif [ "$carrier" != 1 ]; then
		record "$1" "$3" "link up" fail "carrier $carrier"
	else
		return 0
	fi
	return 1
}

for k in "${kernels[@]}"; do
	img=$work/$k
	mode=$(awk -v n="$k" '$1 == n { print $5 }' "$here/kernels.txt")
	# The machine, console and static binary of the kernel's architecture.
	case ${k%%-*} in
	amd64) qemu=(qemu-system-x86_64 -M q35) console=ttyS0 bin=$debloat ;;
	arm64) qemu=(qemu-system-aarch64 -M virt -cpu cortex-a57) console=ttyAMA0 ;;
	armhf) qemu=(qemu-system-arm -M virt,highmem=off -cpu cortex-a15) console=ttyAMA0 ;;
	*) record "$k" - "an architecture vm-check knows" fail "${k%%-*}"; continue ;;
	esac
	[ "${k%%-*}" = amd64 ] || bin=$top/build-static-${k%%-*}/bin/debloat
	if has fec; then
		qemu=(qemu-system-arm -M sabrelite) console=ttymxc1
	elif has usbnet; then
		qemu=(qemu-system-aarch64 -M raspi3b) console=ttyAMA0
	fi
	if ! command -v "${qemu[0]}" >/dev/null || [ ! -x "$bin" ]; then
		echo "SKIP $k: needs ${qemu[0]} and $bin (make static ARCH=${k%%-*})"
		skipped=$((skipped + 1))
		continue
	fi
	if ! "$here/image.sh" "$k" "$bin" "$here/guest.sh" "$img" >"$work/image-$k.log" 2>&1; then
		record "$k" - "boot image" fail "$(tail -n 3 "$work/image-$k.log" | tr '\n' ' ')"
		continue
	fi
	log=$work/serial-$k.log
	t0=$SECONDS
	# The NICs: an e1000e and a two-queue virtio-net on a PCI machine; the board's own
	# fec (its first NIC) on sabrelite, whose console is its second UART.
	if has prove; then # the virtio-net alone, behind the router namespace
		nics=(-netdev tap,id=n1,ifname=tapv,script=no,downscript=no,queues=2
			-device virtio-net-pci,netdev=n1,mq=on,vectors=6,speed=1000,duplex=full,mac=52:54:00:12:34:57)
		# One CPU: a TCG thread per CPU lets one CPU run code the other is patching
		# (a static key's int3): a kernel Oops in emulation only (docs/vm-check.md).
		out=(-nographic -m 768 -smp 1)
		prove_link
		for sc in up both; do
			log=$work/serial-$k-$sc.log
			t0=$SECONDS
			if [ $sc = up ]; then prove_bloat rs0 tapv:short; else prove_bloat rs0 tapv; fi
			timeout_s=${VM_PROVE_TIMEOUT:-480} boot "$img" "$img/initrd.gz" "$mode,$sc" "$log"
			prove_bloat -
			[ $json = 1 ] || echo "     ($k $sc: $(cat "$img/kernel"), booted and proved in $((SECONDS - t0)) s)"
			if ! grep -q '^VMGUEST-END' "$log"; then
				record "$k" - "$sc: the guest ran to its end" fail "no end marker after $((SECONDS - t0)) s (limit ${VM_PROVE_TIMEOUT:-480} s); last words: $(last_words "$log")"
				continue
			fi
			record "$k" - "$sc: the guest ran to its end" pass ""
			judge_prove "$k" "$log" "$sc"
		done
		continue
	fi
	if has fec; then
		nics=(-nic tap,ifname=tape,script=no,downscript=no,mac=52:54:00:12:34:56)
		out=(-display none -serial null -serial stdio -dtb "$img/board.dtb")
	elif has usbnet; then # the Pi 3B's USB, QEMU's usb-net on it; 1 GB, as the board has
		nics=(-netdev tap,id=n0,ifname=tape,script=no,downscript=no
			-device usb-net,netdev=n0,mac=52:54:00:12:34:56)
		out=(-display none -serial stdio -dtb "$img/board.dtb")
	else
		nics=(-netdev tap,id=n0,ifname=tape,script=no,downscript=no
			-device e1000e,netdev=n0,mac=52:54:00:12:34:56
			-netdev tap,id=n1,ifname=tapv,script=no,downscript=no,queues=2
			-device virtio-net-pci,netdev=n1,mq=on,vectors=6,speed=100,duplex=full,mac=52:54:00:12:34:57)
		out=(-nographic -m 768 -smp 2)
	fi
	boot "$img" "$img/initrd.gz" "$mode" "$log"
	[ $json = 1 ] || echo "     ($k: $(cat "$img/kernel"), booted and checked in $((SECONDS - t0)) s)"
	kver=$(grep -ao 'VMGUEST-BEGIN [^ ]*' "$log" | head -n 1 | cut -d' ' -f2 || true)
	if ! grep -q '^VMGUEST-END' "$log"; then
		# QEMU's own errors are in the log too (it writes them to the same file).
		record "$k" - "the guest ran to its end" fail "no end marker after $((SECONDS - t0)) s (limit ${timeout_s} s); last words: $(last_words "$log")"
		continue
	fi
	record "$k" - "the guest ran to its end ($kver)" pass ""
	major=${kver%%.*} rest=${kver#*.} minor=${rest%%.*}
	if has fallback; then
		judge_fallback "$k" "$log"
		continue
	fi
	if has usbnet; then
		! board_nic_up "$k" "$log" cdc_ether || judge_usbnet "$k" "$log" "$iface"
		continue
	fi
	if has fec; then
		if board_nic_up "$k" "$log" fec; then
			judge_nic "$k" "$log" "$iface" fec no
			judge_fec_ring "$k" "$log" "$iface"
			judge_recovery "$k" "$log" "$iface" fec
			! has reboot || persist_reboot "$k" "$img" "$log" "$iface" fec
		fi
		continue
	fi
	for drv in e1000e virtio_net; do
		grep -q "^VMINFO nic [^ ]* $drv " "$log" ||
			record "$k" "$drv" "the NIC is there" fail "the guest found no $drv interface"
	done
	while read -r _ iface drv _ carrier; do
		if [ "$carrier" != 1 ]; then
			record "$k" "$drv" "link up" fail "carrier $carrier"
			continue
		fi
		case $drv in
		e1000e)
			judge_nic "$k" "$log" "$iface" e1000e yes
			judge_recovery "$k" "$log" "$iface" e1000e
			! has reboot || persist_reboot "$k" "$img" "$log" "$iface" e1000e
			;;
		virtio_net)
			# virtio_net has BQL from Linux 6.11.
			if [ "$major" -gt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -ge 11 ]; }; then
				judge_nic "$k" "$log" "$iface" virtio_net yes
			else
				judge_nic "$k" "$log" "$iface" virtio_net no
			fi
			;;
		esac
	done < <(grep '^VMINFO nic ' "$log" | cut -d' ' -f2-)
	jqcheck "$k" e1000e "rrul through the NIC to the host side's server: JSON results" \
		'.test == "rrul" and (.summary | type) == "object"' "$(section "$log" rrul-json)"
	jqcheck "$k" e1000e "rrul: a flent file flent can read" \
		'.metadata.NAME == "rrul" and (.x_values | length) > 0' "$(section "$log" rrul-flent)"
done

secs=$((SECONDS - start))
if [ $json = 1 ]; then
	printf '%s\n' "${rows[@]}" | jq -s --argjson s "$secs" '{results: ., seconds: $s}'
else
	echo
	printf '%-17s %-11s %-6s %s\n' KERNEL DRIVER RESULT CHECK
	printf '%s\n' "${rows[@]}" | jq -r '[.kernel, .driver, .result, .check] | @tsv' |
		awk -F'\t' '{ printf "%-17s %-11s %-6s %s\n", $1, $2, $3, $4 }'
	echo "vm-check: ${#kernels[@]} kernel(s) in $secs s"
fi
echo "$passed passed, $failed failed${skipped:+, $skipped skipped}"
[ "$failed" -eq 0 ]
