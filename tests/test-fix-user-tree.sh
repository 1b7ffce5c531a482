#!/usr/bin/env bash
# test-fix-user-tree.sh - `debloat fix` and a shaper tree the user built, as
# docs/howto.md says: refused, naming what would be lost, unless --force; with --force
# replaced, and undo rebuilds it. And the state directory's default is per network
# namespace.
#
#	[ ns dbt-utree-$$ ]
#	   v0 <--veth--> v1      v0: root htb 50mbit, one class, pfifo limit 1000 under it
#	[ ns dbt-utree2-$$ ]     (the tree a user types from a forum post)
#	   nothing: only its default state directory is looked at
#
# No traffic; nothing outside the namespaces is touched (the state directory is the
# test's own, --state-dir, but for the default's name, which undo --json prints).
# run.sh: parallel
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_netns
require_debloat
require_cmd jq

NS=dbt-utree-$$ NS2=dbt-utree2-$$
T=$(mktemp -d)
ST=$T/state
trap 'rm -rf "$T"; cleanup' EXIT
netns_add "$NS"
netns_add "$NS2"
ip -n "$NS" link add v0 type veth peer name v1
ip -n "$NS" link set v0 up
ip -n "$NS" link set v1 up
ip netns exec "$NS" tc qdisc add dev v0 root handle 1: htb default 1
ip netns exec "$NS" tc class add dev v0 parent 1: classid 1:1 htb rate 50mbit ceil 50mbit
ip netns exec "$NS" tc qdisc add dev v0 parent 1:1 handle 10: pfifo limit 1000
# The tree without its handles (undo may rebuild it under 4001: as well as 1:) and
# without htb's direct_packets_stat, a counter: the link's own IPv6 packets (DAD,
# router solicitations) pass the user's tree at times of their choosing.
tree() {
	ip netns exec "$NS" sh -c 'tc qdisc show dev v0; tc class show dev v0' |
		sed -E 's/\b[0-9a-f]+:[0-9a-f]*//g; s/ direct_packets_stat [0-9]+//'
}
mine=$(tree)

run ip netns exec "$NS" "$DEBLOAT" fix v0 --shape 40mbit --state-dir "$ST" --json
assert_status "fix over the user's own htb tree: refused, exit 1" 1
assert_eq "  result refused" refused "$(jq -r .result <<<"$OUT")"
assert_contains "  names the shaper that would be lost" "$ERR" "htb 50mbit"
assert_contains "  and its FIFO" "$ERR" "pfifo limit 1000"
assert_contains "  says how to go on" "$ERR" "--force"
assert_eq "  the tree is untouched" "$mine" "$(tree)"
assert_true "  no journal written" test ! -e "$ST/journal"

run ip netns exec "$NS" "$DEBLOAT" fix v0 --shape 40mbit --force --state-dir "$ST" --json
assert_status "with --force: applied, exit 0" 0
assert_contains "  v0 is shaped at 40 Mbit/s now" "$(tree)" "40Mbit"
assert_contains "  the step says what it replaced" \
	"$(jq -r '.interfaces[0].steps[] | select(.knob == "root-qdisc") | .message' <<<"$OUT")" \
	"replaces your own shaper"
run ip netns exec "$NS" "$DEBLOAT" undo v0 --state-dir "$ST"
assert_status "undo" 0
assert_eq "  undo rebuilds the user's tree exactly" "$mine" "$(tree)"

# debloat's own change is no user's tree: fixing it again is not refused.
run ip netns exec "$NS" "$DEBLOAT" fix v0 --shape 40mbit --force --state-dir "$ST" --json
run ip netns exec "$NS" "$DEBLOAT" fix v0 --shape 30mbit --state-dir "$ST" --json
assert_status "fix again over debloat's own shaper (its journal holds it): exit 0" 0
assert_contains "  now at 30 Mbit/s" "$(tree)" "30Mbit"
run ip netns exec "$NS" "$DEBLOAT" undo v0 --state-dir "$ST"
assert_eq "  undo still rebuilds the user's tree" "$mine" "$(tree)"

# The default state directory: one per network namespace.
s1=$(ip netns exec "$NS" "$DEBLOAT" undo --json | jq -r .state_dir)
s2=$(ip netns exec "$NS2" "$DEBLOAT" undo --json | jq -r .state_dir)
assert_eq "a namespace's default state directory is keyed by its inode" \
	"/var/lib/debloat/netns-$(stat -L -c %i "/run/netns/$NS")" "$s1"
assert_true "  two namespaces, two directories ($s1, $s2)" test "$s1" != "$s2"
assert_true "  looking created nothing" test ! -e "$s1" -a ! -e "$s2"
finish
