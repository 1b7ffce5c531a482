#!/usr/bin/env bash
# test-ansible.sh - the Ansible role contrib/ansible/roles/debloat, run for real by
# Debian's ansible-playbook (package ansible-core) with a local connection inside a
# network namespace of its own:
#
#   netns dbt-ans-PID
#   +------------------------------------------------------------------+
#   |  ansible-playbook -c local  -->  role debloat                    |
#   |     install: TMP/bin/debloat        fix --try, confirm, persist  |
#   |     --state-dir TMP/state           --root TMP/root              |
#   |  dbaPIDa (root: pfifo limit 10000) <--veth--> dbaPIDb            |
#   +------------------------------------------------------------------+
#
# Check mode first (ansible-playbook --check, nothing installed yet): the play
# succeeds, says what it would install, and changes nothing. First run: the plan has
# steps, so it is applied on trial, confirmed once the host answers again, persisted
# under TMP/root, and the play says changed; the veth's root qdisc is the plan's.
# Second run: nothing to do, changed=0. The audit comes back as the fact
# debloat_audit. With the root qdisc put back, --check plans, says changed and
# changes nothing. Third run, killed once the change is on trial (a host the play
# lost): nothing confirms, and fix puts everything back by itself. Fourth, a fix the
# kernel refuses, 3 s late to start: the play fails at once, nothing changed. A
# namespace does not isolate files: every path the role writes is under TMP, and
# nothing under /etc may change. Root; about two minutes.
# run.sh: timing net
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_netns
require_debloat
require_cmd jq ansible-playbook

NS=dbt-ans-$$
VA=dba$$a
VB=dba$$b
TMP=$(mktemp -d)
chmod 755 "$TMP"
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"; cleanup' EXIT
touch "$TMP/marker"
netns_add "$NS"
ip -n "$NS" link set lo up
ip -n "$NS" link add "$VA" type veth peer name "$VB"
ip -n "$NS" link set "$VA" up
ip -n "$NS" link set "$VB" up
ip netns exec "$NS" tc qdisc add dev "$VA" root pfifo limit 10000
# A copy of the binary: a build running meanwhile must not swap it under the test.
cp "$DEBLOAT" "$TMP/debloat-src"

# Everything ansible keeps (its temporary files, async job results) under TMP too.
export ANSIBLE_HOME=$TMP/ansible ANSIBLE_LOCAL_TEMP=$TMP/ansible/local \
	ANSIBLE_REMOTE_TEMP=$TMP/ansible/remote ANSIBLE_ASYNC_DIR=$TMP/ansible/async \
	ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_NOCOLOR=1 ANSIBLE_CONFIG=$TMP/ansible.cfg \
	ANSIBLE_ROLES_PATH=$TOP/contrib/ansible/roles TMPDIR=$TMP
: >"$TMP/ansible.cfg"
cat >"$TMP/play.yml" <<YAML
- hosts: localhost
  connection: local
  gather_facts: false
  roles:
    - role: debloat
      vars:
        debloat_binary_src: $TMP/debloat-src
        debloat_binary: $TMP/bin/debloat
        debloat_interfaces: [$VA]
        debloat_state_dir: $TMP/state
        debloat_root: $TMP/root
        debloat_try_seconds: ${TRY_SECONDS:-60}
  post_tasks:
    - name: Keep the facts for the test
      ansible.builtin.copy:
        content: "{{ {'audit': debloat_audit | default(None), 'planned': debloat_planned} | to_json }}"
        dest: $TMP/facts.json
      changed_when: false
      check_mode: false # the test's own record, --check or not
YAML
mkdir -p "$TMP/bin"

# changed=N of the recap line, or "none".
recap() { grep -o 'localhost *: ok=[0-9]* *changed=[0-9]*' <<<"$1" | grep -o 'changed=[0-9]*' || echo none; }
root_qdisc() { ip netns exec "$NS" tc -j qdisc show dev "$VA" | jq -r '.[0] | "\(.kind) \(.options.limit)"'; }

assert_eq "before: the veth's root is a long pfifo" "pfifo 10000" "$(root_qdisc)"

# --- --check before anything is installed: nothing to plan with, nothing changes ---
run timeout 180 ip netns exec "$NS" ansible-playbook --check -i localhost, "$TMP/play.yml"
assert_status "check mode, nothing installed: the play succeeds" 0
[ "$RC" -eq 0 ] || echo "$OUT" | tail -40
assert_not_contains "... without the skipped plan's \"Expecting value\"" "$OUT" "Expecting value"
assert_eq "... changed: the binary it would install" changed=1 "$(recap "$OUT")"
assert_contains "... saying why it cannot plan yet" "$OUT" "is not on the host yet"
assert_true "... installed nothing" test ! -e "$TMP/bin/debloat"
assert_eq "... the veth's root qdisc stays" "pfifo 10000" "$(root_qdisc)"
assert_true "... no journal" test ! -e "$TMP/state/journal"
run timeout 180 ip netns exec "$NS" ansible-playbook -i localhost, "$TMP/play.yml"
assert_status "first run: the play succeeds" 0
[ "$RC" -eq 0 ] || echo "$OUT" | tail -40
assert_eq "first run: changed (binary installed, plan applied)" changed=2 "$(recap "$OUT")"
plan_kind=$(jq -r '.planned' "$TMP/facts.json")
assert_true "first run: the plan had steps ($plan_kind)" test "$plan_kind" -gt 0
assert_eq "first run: the veth's root qdisc is the plan's" "pfifo 100" "$(root_qdisc)"
assert_true "first run: persisted under --root" test -f "$TMP/root/etc/debloat/$VA.conf"
assert_true "first run: the journal under --state-dir" test -f "$TMP/state/journal"
assert_eq "first run: the audit is a fact" "$VA" "$(jq -r '.audit.interfaces[0].name' "$TMP/facts.json")"
assert_contains "first run: the trial was confirmed" "$OUT" "Confirm the trial"

run timeout 180 ip netns exec "$NS" ansible-playbook -i localhost, "$TMP/play.yml"
assert_status "second run: the play succeeds" 0
assert_eq "second run: changed=0" changed=0 "$(recap "$OUT")"
assert_eq "second run: the plan had no steps" 0 "$(jq -r '.planned' "$TMP/facts.json")"
assert_eq "second run: the veth's root qdisc stays" "pfifo 100" "$(root_qdisc)"
assert_eq "second run: the audit is still a fact" "$VA" "$(jq -r '.audit.interfaces[0].name' "$TMP/facts.json")"

# --- --check with the binary installed and a plan to apply: it plans, says changed,
# and changes nothing ---
ip netns exec "$NS" tc qdisc replace dev "$VA" root pfifo limit 10000
before=$(cd "$TMP" && find state root -type f -exec md5sum {} + | sort)
run timeout 180 ip netns exec "$NS" ansible-playbook --check -i localhost, "$TMP/play.yml"
assert_status "check mode with a plan: the play succeeds" 0
[ "$RC" -eq 0 ] || echo "$OUT" | tail -40
assert_eq "... changed: the plan it would apply" changed=1 "$(recap "$OUT")"
assert_contains "... saying how many steps" "$OUT" "debloat fix would apply"
assert_true "... the plan had steps" test "$(jq -r '.planned' "$TMP/facts.json")" -gt 0
assert_eq "... the audit is still a fact" "$VA" "$(jq -r '.audit.interfaces[0].name' "$TMP/facts.json")"
assert_eq "... the veth's root qdisc stays" "pfifo 10000" "$(root_qdisc)"
assert_eq "... the journal and the persisted files stay" "$before" \
	"$(cd "$TMP" && find state root -type f -exec md5sum {} + | sort)"
assert_eq "... never went on trial" "skipping: [localhost]" \
	"$(grep -A1 '^TASK \[debloat : Apply the plan on trial' <<<"$OUT" | tail -1)"

# --- a play that loses the host: the controller dies once the change is on trial ---
# (as if the change had cut the host off: nothing confirms it). fix undoes it itself.
sed -e "s|debloat_try_seconds: .*|debloat_try_seconds: 6|" -e "s|$TMP/root|$TMP/root-lost|" \
	"$TMP/play.yml" >"$TMP/lost.yml"
setsid ip netns exec "$NS" ansible-playbook -i localhost, "$TMP/lost.yml" >"$TMP/lost.log" 2>&1 &
play=$!
on_trial=no
for _ in $(seq 600); do # at most 30 s
	if grep -qs '^ready' "$TMP"/ansible.*.debloat/signal; then
		on_trial=yes
		break
	fi
	sleep 0.05
done
kill -KILL -- "-$play" 2>/dev/null || true
wait "$play" 2>/dev/null || true
assert_eq "lost host: the change went on trial" yes "$on_trial"
assert_eq "lost host: the change is in place during the trial" "pfifo 100" "$(root_qdisc)"
assert_not_contains "lost host: the play never confirmed" "$(cat "$TMP/lost.log")" "Confirm the trial"
for _ in $(seq 30); do # the trial is 6 s
	[ "$(root_qdisc)" = "pfifo 10000" ] && break
	sleep 0.5
done
assert_eq "lost host: fix put the old root qdisc back by itself" "pfifo 10000" "$(root_qdisc)"
assert_true "lost host: nothing was persisted" test ! -e "$TMP/root-lost/etc/debloat/$VA.conf"
# Ansible's async watcher of that fix (its path is under TMP: only this test's) ends
# a few seconds after the fix did; let it, before TMP goes.
for _ in $(seq 40); do
	pgrep -f -- "$TMP/ansible/" >/dev/null || break
	sleep 0.5
done

# --- a fix the kernel refuses (the test hook makes step 1 fail): the play says so at
# once, without waiting out the trial, and nothing stays changed. "At once" is the
# wait for the trial's signal, as Ansible timed it (-v prints its "elapsed"): it ends
# on fix's "ended" line, not on its timeout (the trial's 30 s here, so that a busy
# host's slow start of the fix is not taken for a wait run out). Not the play's wall
# time: Ansible's own start-up alone took over 40 s on a busy 2-core CI host. ---
# The lost host's fix holds the state directory's lock until it has exited, a while
# after its old qdisc is back on a busy host: the play's dry run would meet the lock.
for _ in $(seq 120); do # at most 60 s
	pgrep -f -- "$TMP/root-lost" >/dev/null || break
	sleep 0.5
done
# The binary here is a wrapper whose fix starts 3 s late, as on a slow board: the
# role's signal file must never be seen empty meanwhile (Ansible's wait_for crashes
# on an empty file: "cannot mmap an empty file", a traceback instead of the wait).
cat >"$TMP/debloat-slow" <<SH
#!/bin/sh
if [ "\$1" = fix ] && [ "\$2" = --json ]; then sleep 3; fi
exec "$TMP/debloat-src" "\$@"
SH
chmod 755 "$TMP/debloat-slow"
sed -e "s|debloat_try_seconds: .*|debloat_try_seconds: 30|" \
	-e "s|debloat_binary_src: .*|debloat_binary_src: $TMP/debloat-slow|" "$TMP/lost.yml" >"$TMP/refused.yml"
run env DEBLOAT_FIX_FAIL_AT=1 timeout 180 ip netns exec "$NS" ansible-playbook -v -i localhost, "$TMP/refused.yml"
assert_status "refused fix: the play fails" 2
assert_contains "refused fix: saying why" "$OUT" "debloat fix failed: "
assert_contains "refused fix: in fix's own words" "$OUT" "DEBLOAT_FIX_FAIL_AT test hook"
assert_not_contains "refused fix, 3 s late to start: Ansible's wait did not crash" "$OUT" "Traceback"
elapsed=$(awk '/^TASK \[debloat : Wait for the trial to begin/ { f = 1; next }
	f && /=> \{/ { if (match($0, /"elapsed": [0-9]+/)) print substr($0, RSTART + 11, RLENGTH - 11); exit }' <<<"$OUT")
if [ -n "$elapsed" ] && [ "$elapsed" -lt 30 ]; then
	pass "refused fix: seen ${elapsed} s into the wait, before the trial's 30 s ran out"
else
	fail "refused fix: the wait for the trial's signal took '${elapsed}' s (want under 30)"
	grep -E '^TASK|fatal|FAILED|elapsed' <<<"$OUT" | cut -c1-300 >&2
fi
assert_eq "refused fix: the old root qdisc stays" "pfifo 10000" "$(root_qdisc)"

assert_eq "nothing under /etc changed" "" "$(find /etc -xdev -newer "$TMP/marker" 2>/dev/null | head -5)"
assert_true "nothing installed outside TMP" test ! -e /usr/local/sbin/debloat -o /usr/local/sbin/debloat -ot "$TMP/marker"
finish
