#!/bin/sh
# guest.sh - /init of the driver-module check (tests/kmod/kmod-check.sh): Debian's armmp
# kernel on the Wandboard's i.MX6 (QEMU -M sabrelite), its fec NIC driven first by
# Debian's own fec module and then by ours (kmod/patches/6.1/fec.patch), both loaded
# the same way in the same boot; then our cpsw, lan78xx and r8152 modules loaded in
# place of Debian's (QEMU has none of those NICs: the load proves the module links against this very
# kernel). The NIC is 10.0.2.15/24; its peer 10.0.2.2 is a tap in a namespace on the
# host, where `bqlprobe sink 5001` discards what it is sent.
#
# Like tests/vm/guest.sh it only prints, each step between "VMOUT-BEGIN NAME" and
# "VMOUT-END NAME STATUS"; the host judges. /kmod holds our modules, /bin/bqlprobe the
# load and sampler (a shell reads sysfs far too slowly to see bytes in flight here).
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
	echo
	echo "VMOUT-END $name $st"
}
bql() { # IFACE FILE
	cat "/sys/class/net/$1/queues/tx-0/byte_queue_limits/$2"
}
# The fec interface, waited for up to 20 s, up with its address and carrier.
fec_up() {
	nic=
	for _ in $(seq 200); do
		for d in /sys/class/net/*; do
			[ "$(basename "$(readlink "$d/device/driver" 2>/dev/null)")" = fec ] && nic=$(basename "$d")
		done
		[ -n "$nic" ] && break
		sleep 0.1
	done
	[ -n "$nic" ] || return 1
	ip link set "$nic" up
	ip addr add 10.0.2.15/24 dev "$nic"
	for _ in $(seq 100); do [ "$(cat "/sys/class/net/$nic/carrier")" = 1 ] && break; sleep 0.1; done
	echo "VMINFO nic $nic carrier $(cat "/sys/class/net/$nic/carrier")"
}
# down and up again: the driver must reset its queue (limit and inflight back to 0)
# before anything is sent. IPv6 is off, so nothing is sent on its own.
down_up() { # IFACE
	echo "before limit $(bql "$1" limit) inflight $(bql "$1" inflight)"
	ip link set "$1" down
	ip link set "$1" up
	echo "after limit $(bql "$1" limit) inflight $(bql "$1" inflight)"
}
# The loaded fec's build-id note in hex: which of the two files it was loaded from.
build_id() {
	od -An -tx1 /sys/module/fec/notes/.note.gnu.build-id | tr -d ' \n'
}
# One driver's run: NAME is stock or kmod, the rest loads it.
phase() { # NAME LOAD... (busybox sh has no locals: out() owns $name)
	ph=$1
	shift
	out "$ph/load" "$@"
	if ! fec_up; then
		echo "VMINFO nic none"
		return
	fi
	out "$ph/taint" cat /sys/module/fec/taint
	out "$ph/build-id" build_id
	out "$ph/ping" ping -c 3 -W 2 10.0.2.2
	# 6 s of TCP in 64 KB writes (GSO skbs: the TSO path), sampled every 200 us.
	out "$ph/probe" bqlprobe run "$nic" 10.0.2.2 5001 6 65536 200
	out "$ph/audit" debloat audit --json "$nic"
	out "$ph/reset" down_up "$nic"
	ip link set "$nic" down
	rmmod fec
}

echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6
echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6
ip link set lo up
modprobe gpio-mxc
modprobe anatop-regulator
# Debian's module first (modprobe also loads what fec needs), then ours in its place.
phase stock modprobe fec
phase kmod insmod /kmod/fec.ko

# debloat fix --driver: ours installed where `make -C kmod install` puts it (the store,
# which depmod does not read: modprobe loads Debian's), Debian's loaded and configured
# by hand with a default
# route, then the swap (the gateway is the peer), audit after a short load, undo; a
# swap whose peer never answers, and a --try nobody confirms, must each put Debian's
# module back by themselves. Each step prints what the host compares: the module's
# build-id and taint, the carrier, the addresses and routes, a ping.
drv_state() { # IFACE
	echo "build-id $(build_id 2>/dev/null)"
	echo "taint $(cat /sys/module/fec/taint 2>/dev/null)"
	echo "carrier $(cat "/sys/class/net/$1/carrier" 2>/dev/null)"
	ip -4 addr show dev "$1" | sed -n 's/^ *inet \([^ ]*\).*/addr \1/p'
	ip -4 route show dev "$1" | sed -n 's/^default via \([^ ]*\).*/default \1/p'
	ping -c 1 -W 2 10.0.2.2 >/dev/null 2>&1 && echo "ping ok" || echo "ping lost"
}
try_alone() { debloat fix --driver --try 2 --json "$1" </dev/null; }
persist_files() {
	echo "conf $(grep '^override' /etc/depmod.d/debloat-fec.conf 2>/dev/null)"
	echo "link $(readlink "/lib/modules/$(uname -r)/debloat/fec.ko" 2>/dev/null)"
	echo "dep $(grep -o '[^ ]*fec\.ko:' "/lib/modules/$(uname -r)/modules.dep" | tr '\n' ' ')"
}
mkdir -p "/lib/debloat/$(uname -r)"
cp /kmod/fec.ko "/lib/debloat/$(uname -r)/fec.ko"
modprobe fec
if fec_up; then
	ip route add default via 10.0.2.2
	out drv/before drv_state "$nic"
	out drv/dry debloat fix --driver --dry-run --json "$nic"
	out drv/fix debloat fix --driver --json "$nic"
	out drv/after drv_state "$nic"
	bqlprobe run "$nic" 10.0.2.2 5001 2 65536 200 >/dev/null 2>&1
	out drv/audit debloat audit --json "$nic"
	out drv/again debloat fix --driver "$nic"
	out drv/undo debloat undo --json
	out drv/undone drv_state "$nic"
	# --persist: the depmod.d override and the link, depmod run (busybox's here, which
	# reads no depmod.d: what modprobe would pick at boot is not shown), undo's removal.
	out drv/persist debloat fix --driver --persist --json "$nic"
	out drv/persist-files persist_files
	out drv/persist-undo debloat undo --json
	out drv/persist-gone persist_files
	out drv/persist-state drv_state "$nic"
	out drv/nopeer debloat fix --driver --peer 10.0.2.99 --json "$nic"
	out drv/nopeer-state drv_state "$nic"
	# no terminal: the trial waits for a confirmation that never comes
	out drv/try try_alone "$nic"
	out drv/try-state drv_state "$nic"
	out drv/journal ls /var/lib/debloat
fi
ip link set "$nic" down 2>/dev/null
rmmod fec 2>/dev/null

# cpsw, lan78xx and r8152: Debian's module loads what it needs, ours replaces it.
for m in ti_cpsw ti_cpsw_new lan78xx r8152; do
	[ -f "/kmod/$m.ko" ] || continue
	out "$m/load" sh -c "modprobe $m && rmmod $m && insmod /kmod/$m.ko && cat /sys/module/$m/taint"
done
out dmesg dmesg
echo "VMGUEST-END"
sync
poweroff -f
