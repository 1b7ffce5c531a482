#!/usr/bin/env bash
# test-fix-emit.sh - `debloat fix --emit networkd|udev|nm`: fix's plan written as the
# configuration fleets keep, for the board snapshots, checked three ways:
#
#   boards/*.json, tests/fixtures/emit/*.json  (board snapshots)
#        |
#        v
#   debloat fix --emit F --from SNAPSHOT -o DIR   ==  tests/fixtures/emit/BOARD/F/
#        |                                            (byte for byte; F.warnings too)
#        +-- every key of every .link / .network drop-in is documented in its section
#        |   by the installed systemd.link(5) / systemd.network(5) (Debian 12: 252)
#        +-- every nm property parsed by NetworkManager's libnm 1.42 (python3-gi)
#        +-- the udev rules run by `udevadm test` (systemd 252 has no `udevadm verify`)
#            in a network namespace of their own, on an ifb device named as the
#            board's NIC (ifb has BQL, veth has none), or renamed to it by a rule
#            before ours as 80-net-setup-link.rules does: limit_max must read back
#
# `systemd-analyze verify` of 252 refuses .link and .network files ("Failed to prepare
# filename"), so it cannot check them. Also: -o never replaces a file, --emit needs no
# root, usage errors, and on this host (in the namespace) it changes nothing. The udevadm part needs root; the rest does not.
# Goldens: tests/fixtures/emit/regen.sh rewrites them after a deliberate change.
# run.sh: parallel
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_debloat
require_cmd man diff

GOLD="$TOP/tests/fixtures/emit"
TMP=$(mktemp -d)
NS=dbt-emit-$$
trap 'rm -rf "$TMP"; cleanup' EXIT
cd "$TOP"

snapshots=(boards/*.json tests/fixtures/emit/*.json)
assert_eq "six board snapshots and two derived ones" 8 "${#snapshots[@]}"

# --- goldens: the files, the warnings, and standard output's form of the same ---
for snap in "${snapshots[@]}"; do
	board=$(basename "$snap" .json)
	for f in networkd udev nm; do
		out=$TMP/$board/$f
		mkdir -p "$out"
		run "$DEBLOAT" fix --emit "$f" --from "$snap" -o "$out"
		assert_status "$board $f: exits 0" 0
		if diff -r "$GOLD/$board/$f" "$out" >"$TMP/diff" 2>&1; then
			pass "$board $f: the files equal the goldens"
		else
			fail "$board $f: the files differ from the goldens: $(head -c 600 "$TMP/diff")"
		fi
		assert_eq "$board $f: the warnings equal the golden" "$(cat "$GOLD/$board/$f.warnings")" "$ERR"
		first=1
		for file in "$GOLD/$board/$f"/*; do
			[ $first -eq 1 ] || echo
			echo "==> $(basename "$file") <=="
			cat "$file"
			first=0
		done >"$TMP/want"
		"$DEBLOAT" fix --emit "$f" --from "$snap" >"$TMP/got" 2>/dev/null || true
		assert_true "$board $f: standard output is the same files under headers" \
			cmp -s "$TMP/want" "$TMP/got"
	done
done
assert_contains "a step networkd cannot say is a comment in its file" \
	"$(cat "$GOLD/raspberry-pi-4/networkd/90-debloat-eth0.network.conf")" \
	'# debloat: cannot set eth0 root qdisc to "mq fq_codel limit 1200 ecn" here'
assert_contains "... and a warning" "$(cat "$GOLD/raspberry-pi-4/networkd.warnings")" \
	'warning: networkd cannot set eth0 root qdisc to "mq fq_codel limit 1200 ecn"'
assert_contains "the BQL steps become udev rules" \
	"$(cat "$GOLD/raspberry-pi-4-at-100mbit/udev/90-debloat-eth0.rules")" \
	'ACTION=="add", SUBSYSTEM=="net", KERNEL=="eth0", ATTR{queues/tx-4/byte_queue_limits/limit_max}="3000"'
# A board whose whole fix is a cake shaper: nmcli has no property for it, so the
# dispatcher script holds it, and no warning says it is lost.
assert_contains "nm: a cake shaper goes into a dispatcher script" \
	"$(cat "$GOLD/raspberry-pi-5/nm/90-debloat-eth0")" \
	"tc qdisc replace dev eth0 root handle 1: cake bandwidth 950mbit || rc=1"
assert_contains "... which nmcli's file names" "$(cat "$GOLD/raspberry-pi-5/nm/debloat-eth0.nmcli")" \
	"no property to set: all of it is in 90-debloat-eth0"
assert_not_contains "... and no warning calls it lost" "$(cat "$GOLD/raspberry-pi-5/nm.warnings")" "root qdisc"
assert_contains "nm: an htb shaper too" "$(cat "$GOLD/beaglebone-black-without-cake/nm/90-debloat-eth0")" \
	"tc qdisc replace dev eth0 root handle 1: htb default 1"
for file in "$GOLD"/*/nm/90-debloat-*; do
	assert_true "a dispatcher script is sh: ${file#"$GOLD"/}" sh -n "$file"
done

# --- every networkd key against the man pages of the installed systemd ---
# man_keys PAGE: "SECTION KEY" per documented key, sections upper-cased as the page
# prints its headings ("[LINK] SECTION OPTIONS"); one key list per line (wide MANWIDTH).
man_keys() {
	MANWIDTH=1000 man -P cat 5 "$1" 2>/dev/null | awk '
		/^\[[A-Z0-9-]+\] SECTION OPTIONS/ { sec = substr($1, 2, length($1) - 2); next }
		sec != "" && /^       [A-Z][A-Za-z0-9]*=(, [A-Z][A-Za-z0-9]*=)*$/ {
			n = split($0, keys, ",")
			for (i = 1; i <= n; i++) { k = keys[i]; gsub(/[ =]/, "", k); print sec, k }
		}' | sort -u
}
# check_keys FILE KEYS: every "Key=" under "[Section]" of FILE is in KEYS; prints each
# one that is not.
check_keys() {
	awk -v keys="$2" '
		BEGIN { while ((getline l < keys) > 0) ok[l] = 1 }
		/^[ \t]*(#|;|$)/ { next }
		/^\[.*\]$/ { sec = toupper(substr($0, 2, length($0) - 2)); next }
		{ k = $0; sub(/=.*/, "", k)
		  if (!((sec " " k) in ok)) print FILENAME ": [" sec "] " k " is not documented" }' "$1"
}
man_keys systemd.link >"$TMP/link.keys"
man_keys systemd.network >"$TMP/network.keys"
[ -s "$TMP/link.keys" ] || skip "no systemd.link(5) here (scripts/install-deps.sh test installs udev)"
[ -s "$TMP/network.keys" ] || skip "no systemd.network(5) here (package systemd)"
assert_contains "systemd.link(5) read: [Link] TransmitQueueLength=" "$(cat "$TMP/link.keys")" \
	"LINK TransmitQueueLength"
assert_contains "systemd.network(5) read: [CAKE] Bandwidth=" "$(cat "$TMP/network.keys")" \
	"CAKE Bandwidth"
# The check itself can fail: a misspelt key, and a real key in another section.
printf '[Link]\nTransmitQueueLenght=5\n' >"$TMP/bad.link"
assert_contains "the key check rejects a misspelt key" "$(check_keys "$TMP/bad.link" "$TMP/link.keys")" \
	"[LINK] TransmitQueueLenght is not documented"
printf '[CAKE]\nPacketLimit=5\n' >"$TMP/bad.network"
assert_contains "the key check rejects a key of another section" \
	"$(check_keys "$TMP/bad.network" "$TMP/network.keys")" "[CAKE] PacketLimit is not documented"
nfiles=0
for file in "$GOLD"/*/networkd/*.link "$GOLD"/*/networkd/*.network.conf; do
	case $file in
	*.link) keys=$TMP/link.keys ;;
	*) keys=$TMP/network.keys ;;
	esac
	assert_eq "every key documented: ${file#"$GOLD"/}" "" "$(check_keys "$file" "$keys")"
	nfiles=$((nfiles + 1))
done
assert_eq "the .link and .network files checked" 13 "$nfiles"

# --- every nm property against NetworkManager's own library (libnm 1.42, through
# python3-gi: nmcli itself needs a running NetworkManager) ---
# check_nm FILE...: each tc.qdiscs entry must parse in libnm with every option kept (libnm
# drops options of kinds it has none for, cake's bandwidth among them, in silence), each
# ethtool.* property must be a feature or ring libnm knows. Prints what is not.
check_nm() {
	/usr/bin/python3 - "$@" <<'PY'
import re, sys
import gi
gi.require_version("NM", "1.0")
from gi.repository import NM
for path in sys.argv[1:]:
    for line in open(path):
        m = re.search(r"tc\.qdiscs '([^']*)'", line)
        for part in (m.group(1).split(", ") if m else []):
            words = part.split()
            kind = next(i for i, w in enumerate(words) if w not in ("root", "parent", "handle")
                        and not w.endswith(":") and not re.fullmatch(r"[0-9a-f]+:[0-9a-f]*", w))
            want = sorted(w for w in words[kind + 1:] if not w[0].isdigit())
            try:
                got = sorted(NM.utils_tc_qdisc_from_str(part).get_attribute_names())
            except Exception as e:
                print(f"{path}: libnm refuses '{part}': {e}")
                continue
            if got != want:
                print(f"{path}: libnm keeps {got} of {want} in '{part}'")
        m = re.search(r"ethtool\.([a-z0-9-]+) ", line)
        if m and not (NM.ethtool_optname_is_feature(m.group(1)) or NM.ethtool_optname_is_ring(m.group(1))):
            print(f"{path}: libnm has no ethtool.{m.group(1)}")
PY
}
if /usr/bin/python3 -c 'import gi; gi.require_version("NM", "1.0")' 2>/dev/null; then
	printf "nmcli connection modify x tc.qdiscs 'root cake bandwidth 95mbit' \\\n\tethtool.feature-bogus off\n" >"$TMP/bad.nmcli"
	assert_contains "the nm check catches an option libnm drops" "$(check_nm "$TMP/bad.nmcli")" \
		"libnm keeps [] of ['bandwidth'] in 'root cake bandwidth 95mbit'"
	assert_contains "... and a property libnm lacks" "$(check_nm "$TMP/bad.nmcli")" \
		"libnm has no ethtool.feature-bogus"
	for file in "$GOLD"/*/nm/*.nmcli; do
		assert_eq "libnm takes every property: ${file#"$GOLD"/}" "" "$(check_nm "$file")"
	done
	assert_contains "a golden with an mq tree was among them" \
		"$(cat "$GOLD"/raspberry-pi-4/nm/debloat-eth0.nmcli)" "tc.qdiscs 'root handle 1: mq, parent 1:1 handle 2: fq_codel limit 1200 ecn"
else
	echo "SKIP the libnm check (no python3-gi and gir1.2-nm-1.0: scripts/install-deps.sh test)"
fi

# --- -o: all or nothing, never replacing ---
mkdir "$TMP/o"
echo keep >"$TMP/o/90-debloat-eth0.network.conf"
run "$DEBLOAT" fix --emit networkd --from boards/wandboard.json -o "$TMP/o"
assert_status "-o refuses a file that exists" 1
assert_contains "... naming it" "$ERR" "$TMP/o/90-debloat-eth0.network.conf exists: nothing was written"
assert_eq "... and writes nothing (the other files neither)" "90-debloat-eth0.network.conf keep" \
	"$(cd "$TMP/o" && echo * "$(cat 90-debloat-eth0.network.conf)")"
rm "$TMP/o/90-debloat-eth0.network.conf"
ln -s "$TMP/elsewhere" "$TMP/o/10-debloat-eth0.link"
run "$DEBLOAT" fix --emit networkd --from boards/wandboard.json -o "$TMP/o"
assert_status "-o refuses a symlink where a file would go" 1
assert_true "... and follows none" test ! -e "$TMP/elsewhere"
rm "$TMP/o/10-debloat-eth0.link"
run "$DEBLOAT" fix --emit networkd --from boards/wandboard.json -o "$TMP/nodir"
assert_status "-o into a directory that does not exist fails" 1
assert_contains "... saying so" "$ERR" "cannot write into $TMP/nodir"
run "$DEBLOAT" fix --emit networkd --from boards/wandboard.json -o "$TMP/o"
assert_status "-o into an empty directory works" 0
assert_eq "... printing what it wrote" \
	"wrote $TMP/o/10-debloat-eth0.link wrote $TMP/o/90-debloat-eth0.network.conf wrote $TMP/o/90-debloat.sysctl.conf" \
	"$(tr '\n' ' ' <<<"$OUT" | sed 's/ $//')"
# shellcheck disable=SC2012 # the names are ours (no blanks), in ls's order
assert_eq "... no temporary file left" "10-debloat-eth0.link 90-debloat-eth0.network.conf 90-debloat.sysctl.conf" \
	"$(cd "$TMP/o" && ls -A | tr '\n' ' ' | sed 's/ $//')"
assert_eq "... files 0644" 644 "$(stat -c %a "$TMP/o/10-debloat-eth0.link")"

run "$DEBLOAT" fix --emit networkd --from boards/wandboard.json -o -
assert_status "-o - exits 0" 0
assert_eq "-o - is standard output, as without -o" \
	"$("$DEBLOAT" fix --emit networkd --from boards/wandboard.json 2>/dev/null)" "$OUT"
assert_contains "... the files in it" "$OUT" "==> 10-debloat-eth0.link <=="

# --- usage ---
run "$DEBLOAT" fix --emit yaml --from boards/wandboard.json
assert_status "--emit yaml is a usage error" 2
assert_contains "... naming the formats" "$ERR" "--emit takes networkd, udev or nm, not \"yaml\""
run "$DEBLOAT" fix --emit nm --json --from boards/wandboard.json
assert_status "--emit with --json is a usage error" 2
run "$DEBLOAT" fix -o "$TMP/o" --from boards/wandboard.json --dry-run
assert_status "-o without --emit is a usage error" 2
run "$DEBLOAT" fix --emit nm --from boards/wandboard.json eth9
assert_status "an interface the snapshot lacks is an error" 1
assert_contains "... naming it" "$ERR" "has no interface eth9"
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	# Copies in a directory anyone may enter: the checkout may sit in a private one
	# (a clone in a mktemp -d directory is 0700).
	chmod 755 "$TMP"
	cp "$DEBLOAT" "$TMP/debloat-nobody"
	install -m 644 "$TOP/boards/wandboard.json" "$TMP/wandboard-nobody.json"
	run setpriv --reuid=65534 --regid=65534 --clear-groups "$TMP/debloat-nobody" fix \
		--emit udev --from "$TMP/wandboard-nobody.json"
	assert_status "--emit --from needs no root" 0
fi

# --- the udev rules, run by udev itself on a device with BQL ---
if [ "$(id -u)" -ne 0 ] || ! command -v udevadm >/dev/null || ! command -v unshare >/dev/null; then
	[ "$_failed" -eq 0 ] || finish
	skip "the udevadm part needs root, udevadm (package udev) and unshare"
fi
require_netns
netns_add "$NS"
rules=$GOLD/raspberry-pi-4-at-100mbit/udev/90-debloat-eth0.rules
# udev_test DEV [RULES...]: `udevadm test` of DEV's "add" in the namespace, in a mount
# namespace of its own whose /run and rules directories are empty tmpfs with only RULES
# (and the board's rules) in them, so that udev reads these rules only and nothing of
# the machine's /run or /etc is written. The log in $TMP/udev.log; prints DEV's
# limit_max values (under its name after the test, should udev have renamed it).
udev_test() {
	local dev=$1
	shift
	# shellcheck disable=SC2016 # the script expands its own arguments
	ip netns exec "$NS" unshare -m sh -c '
		log=$1 dev=$2; shift 2
		mount --make-rprivate / && mount -t tmpfs tmpfs /run &&
			mkdir -p /run/udev/rules.d && cp "$@" /run/udev/rules.d/ || exit 1
		for d in /etc/udev/rules.d /usr/lib/udev/rules.d /lib/udev/rules.d; do
			[ ! -d "$d" ] || mount -t tmpfs tmpfs "$d" || exit 1
		done
		timeout 60 udevadm test --action=add "/sys/class/net/$dev" >/dev/null 2>"$log"
		[ -d "/sys/class/net/$dev" ] || dev=eth0
		cat /sys/class/net/"$dev"/queues/tx-*/byte_queue_limits/limit_max' sh \
		"$TMP/udev.log" "$dev" "$@" "$rules" | tr '\n' ' ' | sed 's/ $//'
}
ip -n "$NS" link add eth0 numtxqueues 5 type ifb
limits=$(udev_test eth0)
assert_contains "udevadm read the rules file" "$(cat "$TMP/udev.log")" "Reading rules file: /run/udev/rules.d/90-debloat-eth0.rules"
assert_not_contains "... without a complaint about its syntax" "$(cat "$TMP/udev.log")" "Invalid"
assert_eq "udev set limit_max of all five TX queues" "3000 3000 3000 3000 3000" "$limits"
# The same board, its NIC renamed by udev in the same event (as 80-net-setup-link.rules
# does, "eth0" -> "end0"; here the other way round, to the plan's name): NAME== matches.
ip -n "$NS" link del eth0
ip -n "$NS" link add dbk$$ numtxqueues 5 type ifb
printf 'SUBSYSTEM=="net", ACTION=="add", KERNEL=="dbk%s", NAME="eth0"\n' $$ >"$TMP/10-rename.rules"
limits=$(udev_test dbk$$ "$TMP/10-rename.rules")
assert_eq "udev set limit_max on a NIC it renames to the plan's name" "3000 3000 3000 3000 3000" "$limits"
ip -n "$NS" link del dbk$$ 2>/dev/null || ip -n "$NS" link del eth0
ip -n "$NS" link add dbk$$ numtxqueues 5 type ifb
limits=$(udev_test dbk$$)
assert_eq "... and not on one of another name" "1879048192 1879048192 1879048192 1879048192 1879048192" "$limits"

# --- the dispatcher scripts, run as NetworkManager's dispatcher runs them (interface,
# action) on an interface of the board's name in the namespace. A kernel without
# fq_codel (or cake) runs the script with pfifo as the leaf: the htb, its class and
# the starting over are what is tested ---
ip -n "$NS" link del dbk$$
ip -n "$NS" link add eth0 type veth peer name dbd$$
ip -n "$NS" link set eth0 up
has_kind() { ip netns exec "$NS" tc qdisc replace dev dbd$$ root "$@" 2>/dev/null; }
root_kind() { ip netns exec "$NS" tc qdisc show dev eth0 root | awk '{print $2; exit}'; }
script=$TMP/90-debloat-eth0
cp "$GOLD/beaglebone-black-without-cake/nm/90-debloat-eth0" "$script"
leaf="fq_codel limit 800"
if ! has_kind fq_codel; then
	echo "     (no fq_codel in this kernel: the leaf is pfifo)"
	sed -i 's/fq_codel limit 800 ecn || rc=1$/pfifo limit 800 || rc=1/' "$script"
	leaf="pfifo limit 800"
fi
dispatch() { ip netns exec "$NS" sh "$1" "$2" "$3"; }
start=$(root_kind)
dispatch "$script" eth1 up
assert_eq "dispatcher: another interface's event changes nothing" "$start" "$(root_kind)"
dispatch "$script" eth0 down
assert_eq "dispatcher: eth0 going down changes nothing" "$start" "$(root_kind)"
for action in up reapply reapply; do
	run dispatch "$script" eth0 $action
	assert_status "dispatcher: eth0 $action sets the htb shaper, exit 0" 0
	assert_eq "... its root is htb" htb "$(root_kind)"
	got=$(ip netns exec "$NS" tc class show dev eth0; ip netns exec "$NS" tc qdisc show dev eth0)
	assert_contains "... one class at the plan's rate" "$got" "class htb 1:1 root leaf 10: prio 0 rate 95Mbit ceil 95Mbit"
	assert_contains "... the leaf under it" "$got" "${leaf%% *} 10: parent 1:1 limit 800"
done
sed -i 's/ rate 95mbit / rate bogus /' "$script"
run dispatch "$script" eth0 up
assert_status "dispatcher: a command that fails makes the script fail" 1
if has_kind cake; then
	run dispatch "$GOLD/raspberry-pi-5/nm/90-debloat-eth0" eth0 up
	assert_status "dispatcher: the Pi 5's cake shaper" 0
	assert_contains "... in place" "$(ip netns exec "$NS" tc qdisc show dev eth0 root)" \
		"bandwidth 950Mbit"
else
	echo "     (no cake in this kernel: the Pi 5's script is not run)"
fi
ip -n "$NS" link del eth0

# --- this host's plan (in the namespace): a step already in place goes in too, and
# nothing changes ---
ip -n "$NS" link add dbe$$a type veth peer name dbe$$b
ip -n "$NS" link set dbe$$a up
ip -n "$NS" link set dbe$$a txqueuelen 100
ip netns exec "$NS" tc qdisc add dev dbe$$a root pfifo limit 10000
before=$(ip netns exec "$NS" tc qdisc show dev dbe$$a; ip -n "$NS" -d link show dbe$$a)
run ip netns exec "$NS" "$DEBLOAT" fix --emit networkd dbe$$a
assert_status "this host: --emit exits 0" 0
assert_contains "this host: txqueuelen, already 100, is in the .link file" "$OUT" "TransmitQueueLength=100"
assert_eq "this host: nothing changed" "$before" \
	"$(ip netns exec "$NS" tc qdisc show dev dbe$$a; ip -n "$NS" -d link show dbe$$a)"
finish
