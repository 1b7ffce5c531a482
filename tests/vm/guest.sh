#!/bin/sh
# guest.sh - /init of every guest (tests/vm/image.sh puts it there): the real NICs of
# one of Debian's kernels, checked with our static binary. Each NIC it finds:
#   e1000e      10.0.2.15/24, its peer 10.0.2.2 (amd64 guests: one TX queue, BQL);
#   virtio-net  10.0.3.15/24, its peer 10.0.3.2 (two queue pairs, so mq; 100 Mbit/s
#               as QEMU reports it; BQL only from 6.11).
# Both peers are tap devices in a network namespace the host made, where a
# `debloat server` listens; nothing else is reachable.
#
# The guest only runs commands and prints what they print, each between
# "VMOUT-BEGIN NAME" and "VMOUT-END NAME STATUS" on the serial console, NAME being
# IFACE/STEP for the steps of one NIC; tests/vm/vm-check.sh judges them. Every NIC
# starts from the bloated state a board ships with: pfifo_fast as the default qdisc
# (set before the drivers load, so the NICs get it) and txqueuelen 1000.
#
# Per NIC (check_nic): audit, bql under load, fix, a second fix, undo. On the e1000e
# and the fec also check_recovery: `fix --try 2` left unconfirmed, then a fix killed
# (SIGKILL, tests/test-fix.sh's DEBLOAT_FIX_CRASH_AFTER/_BEFORE hooks) at each step of
# its plan and undone, printed as one line per step. The modes are the words of
# dbvm=WORD,... on the kernel's command line (MODE in tests/vm/kernels.txt):
#   fec       the board's machine and its fec NIC only (below);
#   fallback  only fix's fallback on the virtio-net NIC (below);
#   reboot    also `fix --persist` and a tar of /etc/debloat (base64) for the host,
#             which boots the kernel again with those files and adds
#   persist   (boot 2): starting bloated again, `fix --apply-persisted IFACE` as the
#             boot unit runs it, the state it made, then undo.
#   prove     with "up" or "both": only `debloat prove` as the client of a server
#             behind the host's router namespace, the guest's own tests before and
#             after, then undo (below).
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mkdir -p /var/lib
dmesg -n 1
echo "VMGUEST-BEGIN $(uname -r)"

out() { # NAME COMMAND...
	name=$1
	shift
	echo "VMOUT-BEGIN $name"
	"$@" 2>&1
	st=$?
	echo # the output may not end its last line
	echo "VMOUT-END $name $st"
}
# out, with the command's standard output alone (JSON) in NAME and its standard error
# (its messages; not a terminal, so no progress lines) in NAME.err.
outj() { # NAME COMMAND...
	name=$1
	shift
	echo "VMOUT-BEGIN $name"
	"$@" 2>/tmp/stderr
	st=$?
	echo
	echo "VMOUT-END $name $st"
	echo "VMOUT-BEGIN $name.err"
	cat /tmp/stderr
	echo "VMOUT-END $name.err 0"
}
# What undo must restore and audit does not show, one line per knob.
state() { # IFACE
	echo "txqueuelen $(cat "/sys/class/net/$1/tx_queue_len")"
	for q in /sys/class/net/"$1"/queues/tx-*; do
		echo "limit_max $(basename "$q") $(cat "$q/byte_queue_limits/limit_max" 2>/dev/null)"
	done
	echo "default_qdisc $(sysctl -n net.core.default_qdisc)"
	echo "tcp_ecn $(sysctl -n net.ipv4.tcp_ecn)"
	tc qdisc show dev "$1" | sed 's/^/qdisc /'
}
# Six seconds of TCP upload to the peer's server, with `debloat bql` sampling the
# queues meanwhile: completions move BQL's limit and bytes are in flight.
loaded_bql() { # IFACE PEER
	debloat test tcp_upload "$2" -l 6 -d 1 -s 0.5 --json >/tmp/load.json 2>&1 &
	# The load starts after the test's idle second and its set-up, which under TCG
	# can take seconds more: sample once packets flow (waiting at most 15 s).
	p0=$(cat "/sys/class/net/$1/statistics/tx_packets")
	for _ in $(seq 150); do
		[ $(($(cat "/sys/class/net/$1/statistics/tx_packets") - p0)) -ge 200 ] && break
		sleep 0.1
	done
	debloat bql -n 20 -i 100 --json "$1" # 2 s of samples: an emulated NIC drains fast
	st=$?
	wait
	return $st
}

check_nic() { # IFACE PEER
	out "$1/state0" state "$1"
	out "$1/audit0" debloat audit --json "$1"
	out "$1/snapshot" debloat snapshot
	out "$1/bql" loaded_bql "$1" "$2"
	out "$1/audit1" debloat audit --json "$1"
	out "$1/plan" debloat fix --dry-run --json "$1"
	out "$1/fix" debloat fix --json "$1"
	out "$1/state1" state "$1"
	out "$1/audit2" debloat audit --json "$1"
	out "$1/fix2" debloat fix --json "$1"
	out "$1/server-plan" debloat fix --dry-run --role server --json "$1"
	out "$1/undo" debloat undo --json
	out "$1/state2" state "$1"
	out "$1/audit3" debloat audit --json "$1"
}

# What undo and --try must restore, and --apply-persisted must reproduce, with what
# audit sees of the rings and offloads (fix's other knobs), on one line each.
state_full() { # IFACE
	state "$1"
	debloat audit --json "$1" | awk '/^      "(rings|offloads)": \{/ { on = 1; l = "" }
		on { gsub(/^ +/, ""); l = l $0 } on && /^}/ { print l; on = 0 }'
}
# What prove may change and undo must restore: state_full and the ingress side (the
# ingress qdisc lives beside the root one; the ifb device is a link of its own).
prove_state() { # IFACE
	state_full "$1"
	# ifb0 and ifb1 come with the ifb module the first time it loads (its numifbs):
	# the kernel's, not prove's, and they stay when it is done with its own ifb4IFACE.
	links=
	for l in /sys/class/net/*; do
		case ${l##*/} in
		ifb[0-9] | ifb[0-9][0-9]) ;;
		*) links="$links${l##*/} " ;;
		esac
	done
	echo "links $links"
}
journal_left() { [ -e /var/lib/debloat/journal ] && echo 1 || echo 0; }

# --try expiry, and SIGKILL at every step of fix followed by undo (the hooks of
# tests/test-fix.sh): each leaves the state the NIC started from, and no journal.
check_recovery() { # IFACE
	out "$1/try-state0" state_full "$1"
	out "$1/try" debloat fix --try 2 "$1" </dev/null
	out "$1/try-state1" state_full "$1"
	out "$1/try-journal" journal_left
	out "$1/crash-plan" debloat fix --dry-run --json "$1"
	out "$1/crash" crash_each "$1"
}
# One line per hook and step k: "HOOK K fix=RC changed=0|1 undo=RC same=0|1 journal=0|1"
# (changed: the state after the kill differs from the start; same: it equals the start
# after undo).
crash_each() { # IFACE
	s0=$(state_full "$1")
	n=$(debloat fix --dry-run --json "$1" | grep -c '"status": "planned"')
	for hook in CRASH_AFTER CRASH_BEFORE; do
		k=1
		while [ "$k" -le "$n" ]; do
			env "DEBLOAT_FIX_$hook=$k" debloat fix "$1" >/dev/null 2>&1
			rc=$?
			[ "$(state_full "$1")" = "$s0" ] && changed=0 || changed=1
			debloat undo >/dev/null 2>&1
			urc=$?
			[ "$(state_full "$1")" = "$s0" ] && same=1 || same=0
			echo "$hook $k fix=$rc changed=$changed undo=$urc same=$same journal=$(journal_left)"
			k=$((k + 1))
		done
	done
}
# Boot 1 of a kernel with MODE "reboot": fix --persist, the state it made and the
# files it wrote (a tar, base64) for the host to put in boot 2's initramfs; then undo.
persist_boot1() { # IFACE
	out "$1/persist-fix" debloat fix --persist --json "$1"
	out "$1/persist-state" state_full "$1"
	out "$1/persist-files" sh -c 'cd / && tar c etc/debloat | base64'
	out "$1/persist-undo" debloat undo --persist --json
	out "$1/persist-left" persist_left
}
persist_left() { ls /etc/debloat; echo "journal $(journal_left)"; }
# Boot 2 (dbvm=...,persist): the bloated start again, then what the boot unit runs.
persist_boot2() { # IFACE
	out "$1/persisted-conf" cat "/etc/debloat/$1.conf"
	out "$1/persisted-state0" state_full "$1"
	out "$1/persisted-apply" debloat fix --apply-persisted --json "$1"
	out "$1/persisted-state1" state_full "$1"
	out "$1/persisted-undo" debloat undo --json
	out "$1/persisted-state2" state_full "$1"
}
# The guest's modes: the words of dbvm=WORD,WORD... on the command line.
modes=$(sed -n 's/.*dbvm=\([^ ]*\).*/\1/p' /proc/cmdline)
has_mode() { case ",$modes," in *",$1,"*) return 0 ;; esac; return 1; }

sysctl -w net.core.default_qdisc=pfifo_fast >/dev/null
ip link set lo up

# A board machine's one NIC: the interface bound to DRIVER (or another name given),
# waited for up to TENTHS tenths of a second, brought up as 10.0.2.15/24 (its peer
# 10.0.2.2) with its carrier awaited; prints "VMINFO nic IFACE DRIVER carrier N" and
# leaves the name in $nic. Fails when no such interface came.
board_nic() { # TENTHS DRIVER [DRIVER...]
	tenths=$1 label=$2
	shift
	nic=
	for _ in $(seq "$tenths"); do
		for d in /sys/class/net/*; do
			bound=$(basename "$(readlink "$d/device/driver" 2>/dev/null)")
			for want in "$@"; do [ "$bound" = "$want" ] && nic=$(basename "$d"); done
		done
		[ -n "$nic" ] && break
		sleep 0.1
	done
	[ -n "$nic" ] || return 1
	ip link set "$nic" up
	ip addr add 10.0.2.15/24 dev "$nic"
	for _ in $(seq 100); do [ "$(cat "/sys/class/net/$nic/carrier" 2>/dev/null)" = 1 ] && break; sleep 0.1; done
	echo "VMINFO nic $nic $label carrier $(cat "/sys/class/net/$nic/carrier")"
}

# dbvm=fec (tests/vm/kernels.txt): the Wandboard's i.MX6 under -M sabrelite, its own fec
# NIC. fec's probe waits for the GPIO controller and the anatop regulator, modules in
# Debian's armmp: load them first. QEMU does not end on poweroff on this machine: the
# host ends it once the end marker is out.
if has_mode fec; then
	modprobe gpio-mxc
	modprobe anatop-regulator
	modprobe fec
	if board_nic 200 fec fec-imx6q; then
		fec=$nic
		if has_mode persist; then
			persist_boot2 "$fec"
		else
			check_nic "$fec" 10.0.2.2
			check_recovery "$fec"
			has_mode reboot && persist_boot1 "$fec"
		fi
	fi
	echo "VMGUEST-END"
	sync
	poweroff -f
fi

# dbvm=usbnet (tests/vm/kernels.txt): a Raspberry Pi 3B under -M raspi3b, Debian's arm64
# kernel with the board's device tree: its USB host controller (dwc2) with QEMU's
# usb-net behind it, a CDC Ethernet device on usbnet, the layer the Pi 1-3's smsc95xx
# sits on. No speed is known on such a link: fix is told the rate (--shape). QEMU does
# not end on poweroff on this machine either.
if has_mode usbnet; then
	modprobe dwc2
	modprobe cdc_ether
	if board_nic 300 cdc_ether; then
		usb=$nic
		out "$usb/state0" state "$usb"
		out "$usb/audit0" debloat audit --json "$usb"
		out "$usb/bql" loaded_bql "$usb" 10.0.2.2
		out "$usb/audit1" debloat audit --json "$usb"
		out "$usb/plan" debloat fix --dry-run --json "$usb"
		out "$usb/fix" debloat fix --shape 8mbit --json "$usb"
		out "$usb/state1" state "$usb"
		out "$usb/audit2" debloat audit --json "$usb"
		out "$usb/undo" debloat undo --json
		out "$usb/state2" state "$usb"
	fi
	echo "VMGUEST-END"
	sync
	poweroff -f
fi

modprobe e1000e 2>/dev/null # amd64 guests only
modprobe virtio_pci 2>/dev/null # built in on some kernels
modprobe virtio_net
want=0 # the NICs QEMU gave: e1000e (82574L), virtio-net (transitional or modern)
for d in /sys/bus/pci/devices/*; do
	case "$(cat "$d/vendor" 2>/dev/null):$(cat "$d/device" 2>/dev/null)" in
	0x8086:0x10d3 | 0x1af4:0x1000 | 0x1af4:0x1041) want=$((want + 1)) ;;
	esac
done
nics_up() { # the eth* devices there are
	n=0
	for d in /sys/class/net/eth*; do [ -e "$d" ] && n=$((n + 1)); done
	echo "$n"
}
for _ in $(seq 100); do [ "$(nics_up)" -ge "$want" ] && break; sleep 0.1; done
e1000e='' virtio=''
for d in /sys/class/net/eth*; do # virtio-net's device is the virtio device, not PCI
	case $(basename "$(readlink "$d/device/driver")") in
	e1000e) e1000e=$(basename "$d") ;;
	virtio_net) virtio=$(basename "$d") ;;
	esac
done
for pair in "$e1000e 10.0.2.15" "$virtio 10.0.3.15"; do
	# shellcheck disable=SC2086 # the pair splits into a device and an address
	set -- $pair
	[ $# -eq 2 ] || continue
	ip link set "$1" up
	ip addr add "$2/24" dev "$1"
done
for n in $e1000e $virtio; do
	for _ in $(seq 100); do [ "$(cat "/sys/class/net/$n/carrier" 2>/dev/null)" = 1 ] && break; sleep 0.1; done
	echo "VMINFO nic $n $(basename "$(readlink "/sys/class/net/$n/device/driver")") carrier $(cat "/sys/class/net/$n/carrier")"
done

# The kernel's one-time key of flow hashing is flipped (its code patched) after the
# first flow hash, which would otherwise be a qdisc's (fq_codel's, cake's) under full
# load: with a TCG thread per CPU, the other CPU then sometimes ran its translation of
# the code being patched and died of it ("Oops: int3" in flow_hash_from_keys; see
# docs/vm-check.md). RPS hashes every packet it receives: on for two pings, while the
# guest is idle, it makes that first hash now, and the second of idle gives the
# kernel's deferred patch time to run before RPS is off again.
hash_once() { # IFACE PEER
	q=/sys/class/net/$1/queues/rx-0/rps_cpus
	[ -w "$q" ] || return 0
	echo 1 >"$q"
	ping -c 2 -W 1 "$2" >/dev/null 2>&1
	sleep 1
	echo 0 >"$q"
}
if [ -n "$virtio" ]; then hash_once "$virtio" 10.0.3.2; elif [ -n "$e1000e" ]; then hash_once "$e1000e" 10.0.2.2; fi

# dbvm=fallback (tests/vm/kernels.txt): the image lists sch_cake in modules.dep without
# its file, so the shaper fix plans for virtio-net (no BQL on 6.1) cannot be loaded.
if has_mode fallback; then
	ping -c 3 -W 1 10.0.3.2 >/dev/null 2>&1 # packets sent: BQL's verdict can be made
	out "$virtio/state0" state "$virtio"
	out "$virtio/fallback" sh -c "debloat fix --json $virtio 2>/tmp/fix.err"
	out "$virtio/fallback-stderr" cat /tmp/fix.err
	out "$virtio/state1" state "$virtio"
	out "$virtio/undo" debloat undo --json
	out "$virtio/state2" state "$virtio"
	echo "VMGUEST-END"
	sync
	poweroff -f
fi

# dbvm=prove,up and dbvm=prove,both (vm-check.sh boots a kernel whose MODE has "prove"
# once per scenario): the guest is the client of `debloat prove` behind the host's
# router namespace, whose tap (the virtio-net's peer, 10.0.3.2) forwards to a server
# namespace (10.0.5.2) with htb and a 1000-packet FIFO in the upload direction ("up")
# or in both ("both"). Before and after prove, the guest's own independent `debloat
# test` of each bloated direction; then undo, and the state it must restore.
if has_mode prove; then
	ip route add default via 10.0.3.2
	for _ in $(seq 50); do ping -c 1 -W 1 10.0.5.2 >/dev/null 2>&1 && break; done
	prove_tests() { # WHEN
		outj "prove/test-up$1" debloat test tcp_upload 10.0.5.2 -l 8 -d 2 --cc cubic --json
		has_mode both &&
			outj "prove/test-down$1" debloat test tcp_download 10.0.5.2 -l 8 -d 2 --cc cubic --json
	}
	# TCG translates the guest's code on its first run: a short load each way first, so
	# that the measurements below do not see a guest slower than it will be.
	debloat test tcp_upload 10.0.5.2 -l 4 -d 1 --cc cubic >/dev/null 2>&1
	debloat test tcp_download 10.0.5.2 -l 4 -d 1 --cc cubic >/dev/null 2>&1
	out prove/idle ping -c 20 -i 0.2 10.0.5.2
	out prove/state0 prove_state "$virtio"
	prove_tests 0
	outj prove/prove debloat prove 10.0.5.2 --cc cubic -l 10 -d 2 -o /tmp/prove --json
	out prove/state1 prove_state "$virtio"
	prove_tests 1
	outj prove/undo debloat undo --json
	out prove/state2 prove_state "$virtio"
	echo "VMGUEST-END"
	sync
	poweroff -f
fi

# dbvm=...,persist: boot 2 of a kernel with MODE "reboot" (its e1000e only).
if has_mode persist; then
	[ -n "$e1000e" ] && persist_boot2 "$e1000e"
	echo "VMGUEST-END"
	sync
	poweroff -f
fi

if [ -n "$e1000e" ]; then
	check_nic "$e1000e" 10.0.2.2
	check_recovery "$e1000e"
	has_mode reboot && persist_boot1 "$e1000e"
fi
[ -n "$virtio" ] && check_nic "$virtio" 10.0.3.2

# RRUL through the e1000e to the host side's server: function, not timing (TCG).
if [ -n "$e1000e" ]; then
	out rrul debloat rrul 10.0.2.2 -l 5 -d 1 -o /tmp/rrul.json --flent /tmp/rrul.flent.gz
	out rrul-json cat /tmp/rrul.json
	out rrul-flent gzip -dc /tmp/rrul.flent.gz
fi

echo "VMGUEST-END"
sync
poweroff -f
