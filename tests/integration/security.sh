#!/usr/bin/env bash
# The attacks of issue 13 through real processes on loopback (synergyd with
# TLS and per-principal credentials, a synergy-node, synergyctl):
#   1. a job runs as its owner's local account (alice -> nobody), its log
#      files are that account's, and it sees neither the node's credential
#      nor anything of the node's environment but the base;
#   2. a user mapped to root is refused on a node that does not allow it;
#   3. another user cannot read a job's command or cancel it;
#   4. names with escape sequences or newlines are refused, nothing stored;
#   5. plain text to a non-loopback address is refused by node and CLI, and
#      synergyd refuses to serve plain text or no auth on one;
#   6. credentials with control characters and non-scalar YAML keys exit 2;
#   7. a TLS failure is named in one line (no CA, another CA, a name the
#      certificate does not carry), without gRPC's raw line.
# Needs root (to switch accounts); exits 77 (skipped) otherwise.
# usage: security.sh BUILD_DIR
BIN=$1
TEST=security
if [[ $(id -u) != 0 ]]; then echo "skip security: needs root to run jobs as another account"; exit 77; fi
id nobody >/dev/null 2>&1 || { echo "skip security: no 'nobody' account"; exit 77; }
source "$(dirname "$0")/lib.sh"

start_daemon
export SYNERGY_NODE_SECRET=node-environment-secret
NODE_AS_NODE_USER=false NODE_ROOT_JOBS=false NODE_ACCOUNTS="alice: nobody, bob: root" NODE_WORK_DIR=/tmp \
  SYNERGY_TOKEN=${NODE_TOKEN[n1]} start_node n1 2
unset SYNERGY_NODE_SECRET
wait_for_nodes 1

as_alice() { SYNERGY_TOKEN=$ALICE_TOKEN ctl "$@"; }
as_bob() { SYNERGY_TOKEN=$BOB_TOKEN ctl "$@"; }

# 1. alice's job runs as nobody and sees no node secret.
cat >"$work/whoami.yaml" <<JOB
name: whoami
gpus: 1
command: ["sh", "-c", "echo uid=\$(id -u); env"]
env: {PRIVATE_SETTING: alice-only}
JOB
a=$(as_alice submit -f "$work/whoami.yaml") || fail "alice's submission refused"
wait_until_done 30 "$a"
[[ $(state_of "$a") == succeeded ]] || { ctl describe job "$a"; fail "alice's job did not succeed"; }
out=$work/logs-n1/$a.1.out
grep -qx "uid=$(id -u nobody)" "$out" || fail "alice's job did not run as nobody: $(head -1 "$out")"
[[ $(stat -c %u "$out") == $(id -u nobody) ]] || fail "the job's log is not nobody's"
grep -q "SYNERGY_AGENT_TOKEN=" "$out" || fail "the job did not get its lease credential"
for secret in "${NODE_TOKEN[n1]}" "$ADMIN_TOKEN" "$ALICE_TOKEN" node-environment-secret; do
  grep -q -- "$secret" "$out" && fail "the job saw a secret of the node or another principal"
done

# 2. bob maps to root: refused, never run.
printf 'name: rootjob\ngpus: 1\ncommand: ["sh", "-c", "touch /tmp/synergy-security-root-%s"]\n' "$$" >"$work/root.yaml"
b=$(as_bob submit -f "$work/root.yaml") || fail "bob's submission refused"
wait_until_done 30 "$b"
[[ $(state_of "$b") == failed ]] || fail "bob's root job is $(state_of "$b"), not failed"
ctl describe job "$b" | grep -q "refused to run it: user .bob. maps to .root., which is root: refused" || { ctl describe job "$b"; fail "no reason for the refusal"; }
[[ $(ctl describe job "$b" | grep -c "launched on") == 1 ]] || fail "a refused launch was retried"
[[ ! -e /tmp/synergy-security-root-$$ ]] || { rm -f "/tmp/synergy-security-root-$$"; fail "bob's job ran as root"; }

# 2b. A command whose name carries a newline (its exec fails) does not wedge
# the node (the exit's reason reaches synergyd escaped), and what a job
# leaves behind outside its process group dies with its lease.
printf 'name: badexec\ngpus: 1\ncommand: ["/nonexistent/x\\ny"]\n' >"$work/badexec.yaml"
x=$(as_alice submit -f "$work/badexec.yaml") || fail "badexec refused at submit"
wait_until_done 30 "$x"
sleep 1
(($(ready_nodes) == 1)) || fail "the node was lost after a job's exec failed"
orphan_script=/tmp/synergy-orphan-$$.sh orphan_pid=/tmp/synergy-orphan-$$.pid
cat >"$orphan_script" <<'SH'
#!/bin/sh
# Leaves the job's process group and ignores SIGTERM: only the cgroup finds it.
setsid sh -c 'trap "" TERM; echo $$ > "$1"; exec sleep 600' sh "$1" &
sleep 1
SH
chmod 755 "$orphan_script"
printf 'name: orphan\ngpus: 1\ncommand: ["%s", "%s"]\n' "$orphan_script" "$orphan_pid" >"$work/orphan.yaml"
o=$(as_alice submit -f "$work/orphan.yaml") || fail "orphan refused at submit"
wait_until_done 30 "$o"
sleep 1
orphan=$(cat "$orphan_pid" 2>/dev/null)
rm -f "$orphan_pid" "$orphan_script"
[[ -n $orphan ]] || fail "the orphan job did not start its detached process"
# Dead or a zombie (whoever adopted it may reap it late): not running.
state=$(awk '/^State:/ { print $2 }' "/proc/$orphan/status" 2>/dev/null)
if [[ -n $state && $state != Z ]]; then kill -9 "$orphan"; fail "a detached process outlived its job's lease ($state)"; fi

# 3. bob cannot see alice's command or environment, nor cancel her jobs.
as_bob describe job "$a" -o json | grep -q "alice-only\|id -u" && fail "bob read alice's command or environment"
as_alice describe job "$a" -o json | grep -q "alice-only" || fail "alice cannot read her own environment"
printf 'name: long\ngpus: 1\ncommand: ["sleep", "60"]\n' >"$work/long.yaml"
l=$(as_alice submit -f "$work/long.yaml")
out=$(as_bob cancel "$l" 2>&1); rc=$?
[[ $rc == 1 && $out == *"belongs to another user"* ]] || fail "bob cancelling alice's job: exit $rc ($out)"
as_alice cancel "$l" >/dev/null || fail "alice cannot cancel her own job"

# 4. A name with an escape sequence or a newline (a forged row) is refused.
before=$(ctl get jobs | wc -l)
printf 'name: "x\\e[2J\\nj-999999  forged  running"\ngpus: 1\ncommand: [true]\n' >"$work/forged.yaml"
out=$(as_alice submit -f "$work/forged.yaml" 2>&1); rc=$?
[[ $rc == 2 ]] || fail "a name with escapes: exit $rc ($out)"
[[ $out != *$'\e'* ]] || fail "the refusal echoed an escape sequence"
[[ $(ctl get jobs | wc -l) == "$before" ]] || fail "a refused job was stored"
ctl get jobs | grep -q "forged" && fail "a forged row appears"

# 5. Plain text only on loopback.
printf 'name: far\nscheduler: 10.255.255.1:50051\nplaintext: true\ntoken: abcdefghijklmnop\ngpus: 1\ncpus: [0]\nmemory_gb: 1\n' >"$work/far.yaml"
out=$("$BIN/synergy-node" --config "$work/far.yaml" 2>&1); rc=$?
[[ $rc == 2 && $out == *"clear text"* ]] || fail "node plain text to a remote scheduler: exit $rc ($out)"
out=$(ctl --plaintext --server 10.255.255.1:50051 get jobs 2>&1); rc=$?
[[ $rc == 2 && $out == *"clear text"* ]] || fail "synergyctl plain text to a remote scheduler: exit $rc ($out)"
printf 'listen: 0.0.0.0:0\nstate_db: %s/x.db\ntls: {plaintext: true}\n' "$work" >"$work/open.yaml"
out=$("$BIN/synergyd" --config "$work/open.yaml" 2>&1); rc=$?
[[ $rc == 2 && $out == *"tls.plaintext"* ]] || fail "synergyd plain text on 0.0.0.0: exit $rc ($out)"
printf 'listen: 0.0.0.0:0\nstate_db: %s/x.db\ntls: {cert: a, key: b}\nauth: {mode: none}\n' "$work" >"$work/noauth.yaml"
out=$("$BIN/synergyd" --config "$work/noauth.yaml" 2>&1); rc=$?
[[ $rc == 2 && $out == *"auth.mode: none"* ]] || fail "synergyd without auth on 0.0.0.0: exit $rc ($out)"

# 6. Hostile credentials and YAML end with exit 2, not an abort.
out=$(ctl --token $'abc\rdef' get jobs 2>&1); rc=$?
[[ $rc == 2 ]] || fail "a token with CR: exit $rc ($out)"
out=$(ctl --token $'t\xc3\xa9st' get jobs 2>&1); rc=$?
[[ $rc == 2 ]] || fail "a non-ASCII token: exit $rc ($out)"
printf 'name: n9\ntoken: "abc\\rdefghijklmnopq"\nscheduler: 127.0.0.1:1\n' >"$work/crnode.yaml"
out=$("$BIN/synergy-node" --config "$work/crnode.yaml" 2>&1); rc=$?
[[ $rc == 2 ]] || fail "a node token with CR: exit $rc ($out)"
printf '? [a, b]\n: 1\n' >"$work/key.yaml"
for prog in synergyd synergy-node; do
  out=$("$BIN/$prog" --config "$work/key.yaml" 2>&1); rc=$?
  [[ $rc == 2 ]] || fail "$prog with a non-scalar key: exit $rc ($out)"
done

# 7. TLS failures named.
"$(dirname "$0")/../../scripts/make-dev-pki" "$work/pki2" >/dev/null 2>&1
expect_tls() {
  local want=$1
  shift
  out=$("$@" get jobs 2>&1); rc=$?
  [[ $rc == 1 && $out == *"$want"* && $out != *ssl_transport_security* && $(wc -l <<<"$out") == 1 ]] ||
    fail "TLS failure: want '$want', got exit $rc ($(wc -l <<<"$out") lines): $out"
}
expect_tls "no CA given" env SYNERGY_CA= "$BIN/synergyctl"
expect_tls "is not signed by the CA in $work/pki2/ca.crt" "$BIN/synergyctl" --ca "$work/pki2/ca.crt"
expect_tls "name mismatch: expected elsewhere.example.org" "$BIN/synergyctl" --server-name elsewhere.example.org
echo "ok security"
