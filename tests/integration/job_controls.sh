#!/usr/bin/env bash
# synergyctl's controls of jobs and nodes, through a real synergyd, a node
# and an agent job on loopback:
#  1. hold (by its owner): the running job checkpoints, stays off across
#     rounds and is listed as held; another user may not hold or release it;
#  2. release: it runs again from its checkpoint under a new lease;
#  3. requeue (by an admin): a new lease, no crash counted;
#  4. update --priority: the owner lowers it, only an admin raises it;
#  5. drain --reason: shown by get nodes -o wide and describe node, and the
#     job's lease ends; undrain;
#  6. -o yaml parses to the same job as -o json;
#  7. several jobs at once: cancel A B, hold by selector (refused without
#     --yes beyond one job), get jobs A MISSING (A shown, exit 1), submit
#     -f - from stdin, "did you mean" for a mistyped command or flag, and
#     get -w showing only rows that changed (--full: every listing);
#  8. time_limit: a job that would run on is stopped at its limit, timed out;
# and the job ends with exactly the state of an uninterrupted run.
# usage: job_controls.sh BUILD_DIR
BIN=$1
TEST=job_controls
source "$(dirname "$0")/lib.sh"
POLICY=fifo
METRICS_PORT=$(free_port)
start_daemon
start_node n1 1
wait_for_nodes 1

as_alice() { SYNERGY_TOKEN=$ALICE_TOKEN ctl "$@"; }
as_bob() { SYNERGY_TOKEN=$BOB_TOKEN ctl "$@"; }
# field ID KEY: a top-level field of the job as -o json shows it ("" if unset)
field() {
  ctl get job "$1" -o json | python3 -c "import json, sys; print(json.load(sys.stdin)['jobs'][0].get('$2', ''))"
}
epoch_of() {
  ctl get job "$1" -o json |
    python3 -c "import json, sys; print(json.load(sys.stdin)['jobs'][0].get('lease', {}).get('epoch', ''))"
}
running_with_progress() { [[ $(state_of "$1") == running && $(field "$1" iterations_done) -gt 0 ]]; }

iterations=1500
id=$(SYNERGY_TOKEN=$ALICE_TOKEN submit controlled 1 res18 $iterations)
wait_for 20 "$id running" running_with_progress "$id"
first_epoch=$(epoch_of "$id")

# ---- 1. hold
out=$(as_bob hold "$id" 2>&1) && fail "bob held alice's job: $out"
grep -q "belongs to another user" <<<"$out" || fail "bob's hold was refused for another reason: $out"
[[ $(as_alice hold "$id") == "$id held" ]] || fail "alice could not hold her job"
# get jobs lists its state as "suspended,held".
wait_for 15 "$id suspended and held after the hold" eval '[[ $(state_of "$id") == suspended,held ]]'
ctl get jobs --state suspended -o name | grep -qx "$id" || fail "--state suspended does not select the held job"
ctl describe job "$id" | grep -q "^Held: *by alice" || fail "describe job does not say who held it"
held_at=$(field "$id" checkpoint_iteration)
((held_at > 0)) || fail "the held job did not checkpoint (checkpoint_iteration '$held_at')"
wait_for_metric_rise synergy_rounds_total 2 30 "two rounds after the hold"
[[ $(state_of "$id") == suspended,held && -z $(epoch_of "$id") ]] || fail "a round placed the held job"
out=$(as_bob release "$id" 2>&1) && fail "bob released alice's job: $out"
echo "ok   hold: $id checkpointed at iteration $held_at and stayed off for two rounds"

# ---- 2. release
[[ $(as_alice release "$id") == "$id released" ]] || fail "alice could not release her job"
wait_for 20 "$id running again after the release" running_with_progress "$id"
second_epoch=$(epoch_of "$id")
((second_epoch > first_epoch)) || fail "released, but no new lease ($first_epoch -> $second_epoch)"
echo "ok   release: lease $first_epoch -> $second_epoch"

# ---- 3. requeue
[[ $(ctl requeue "$id") == "$id requeued" ]] || fail "the admin could not requeue $id"
wait_for 20 "$id running under a third lease" eval '[[ $(epoch_of "$id") -gt $second_epoch ]] && running_with_progress "$id"'
[[ -z $(field "$id" crashes) ]] || fail "the requeue counted a crash: $(field "$id" crashes)"
ctl describe job "$id" | grep -q "requeued by admin" || fail "the requeue is not in the job's events"
echo "ok   requeue: lease $(epoch_of "$id"), no crash"

# ---- 4. update --priority
out=$(as_alice update "$id" --priority 5 2>&1) && fail "alice raised her priority: $out"
grep -q "only an admin raises a priority" <<<"$out" || fail "alice's raise was refused for another reason: $out"
[[ $(ctl update "$id" --priority 5) == "$id priority 5" ]] || fail "the admin could not raise the priority"
[[ $(as_alice update "$id" --priority 2) == "$id priority 2" ]] || fail "alice could not lower her priority"
out=$(ctl update "$id" --priority 1001 2>&1) && fail "priority 1001 was taken: $out"
[[ $(field "$id" spec | python3 -c "import ast, sys; print(ast.literal_eval(sys.stdin.read()).get('priority'))") == 2 ]] ||
  fail "the priority is not 2"
echo "ok   update: 0 -> 5 (admin) -> 2 (alice); alice's raise and 1001 refused"

# ---- 5. drain --reason
ctl drain n1 --reason "fan failing, ticket OPS-1234" >/dev/null || fail "drain --reason"
ctl get nodes -o wide | grep -q "fan failing, ticket OPS-1234" || fail "get nodes -o wide does not show the reason"
ctl describe node n1 | grep -q "^Drained: .*fan failing" || fail "describe node does not show the reason"
wait_for 15 "$id suspended on the drained node" eval '[[ $(state_of "$id") == suspended ]]'
out=$(ctl undrain n1 --reason x 2>&1) && fail "undrain took a reason: $out"
ctl undrain n1 >/dev/null || fail "undrain"
ctl get nodes -o wide | grep -q "fan failing" && fail "the reason outlived the undrain"
echo "ok   drain --reason shown, the job suspended, undrained"

# ---- 6. -o yaml: the same document as -o json read just before and after
# (a round between them may change the job: then again)
same_yaml=0
for _ in $(seq 10); do
  before=$(ctl get job "$id" -o json)
  as_yaml=$(ctl get job "$id" -o yaml)
  after=$(ctl get job "$id" -o json)
  [[ $before == "$after" ]] || continue
  python3 - "$as_yaml" "$before" <<'PY' && { same_yaml=1; break; }
import json, sys, yaml
y, j = yaml.safe_load(sys.argv[1]), json.loads(sys.argv[2])
for doc in (y, j):
    for job in doc["jobs"]:
        job.pop("throughput", None); job.pop("iterations_done", None); job.pop("updated_unix_ms", None)
        job.pop("attained_service_ms", None)
sys.exit(0 if y == j else 1)
PY
done
((same_yaml)) || fail "-o yaml is not -o json's document"
ctl describe job "$id" -o yaml | python3 -c "import sys, yaml; d = yaml.safe_load(sys.stdin); assert d['id'] == '$id'" ||
  fail "describe job -o yaml"
echo "ok   -o yaml"

wait_until_done 90 "$id"
[[ $(state_of "$id") == succeeded ]] || fail "$id ended $(state_of "$id")"
[[ $(cat "$work/ckpt/$id.result") == "$(expected_state $iterations)" ]] ||
  fail "$id's result after hold, requeue and drain is not an uninterrupted run's"
# 7. Several jobs at once.
printf 'name: waits\ngpus: 1\ncommand: ["/bin/sleep", "600"]\n' >"$work/waits.yaml"
w1=$(as_bob submit -f - <"$work/waits.yaml") || fail "submit -f - refused"
w2=$(as_bob submit -f "$work/waits.yaml") || fail "submit refused"
w3=$(as_bob submit -f "$work/waits.yaml") || fail "submit refused"
out=$(ctl hold --user bob 2>&1); rc=$?
[[ $rc == 2 && $out == *"3 jobs match ($w1 $w2 $w3): add --yes to hold them all"* ]] ||
  fail "a selector without --yes: exit $rc: $out"
[[ $(field "$w1" held) == "" ]] || fail "a refused selection held $w1"
out=$(ctl hold --user bob --yes 2>&1) || fail "hold --yes: $out"
for w in "$w1" "$w2" "$w3"; do [[ $(field "$w" held) == True ]] || fail "$w not held by the selection: $out"; done
out=$(ctl get jobs "$w1" j-999999 -o name 2>&1); rc=$?
[[ $rc == 1 && $out == *"$w1"* && $out == *"j-999999"* ]] || fail "get jobs A MISSING: exit $rc: $out"
out=$(as_bob cancel "$w1" j-999999 "$w2" 2>&1); rc=$?
[[ $rc == 1 && $out == *"$w1 cancelled"* && $out == *"$w2 cancelled"* && $out == *"cancel: 2 of 3"* ]] ||
  fail "cancel A MISSING B: exit $rc: $out"
ctl cancel --user bob --state pending,queued --yes >/dev/null 2>&1 || fail "cancel by selector"
[[ $(state_of "$w3") == cancelled ]] || fail "$w3 is $(state_of "$w3") after cancel --user bob --yes"
# get -w: the header once, then only rows that changed: cancelled jobs
# do not, so 2.5 s of watching shows each once; --full shows every listing.
out=$(timeout 2.5 "$BIN/synergyctl" get jobs --state cancelled -w --interval 1)
(($(grep -c '^ID ' <<<"$out") == 1 && $(grep -c "^j-" <<<"$out") == 3)) || fail "get jobs -w repeated rows: $out"
out=$(timeout 2.5 "$BIN/synergyctl" get jobs --state cancelled -w --interval 1 --full)
(($(grep -c '^--- ' <<<"$out") >= 2)) || fail "get jobs -w --full did not list whole: $out"
out=$(ctl cancle "$w3" 2>&1)
[[ $out == *"unknown command 'cancle' (did you mean 'cancel'?)"* ]] || fail "no suggestion for cancle: $out"
out=$(ctl get jobs --stat running 2>&1)
[[ $out == *"unknown flag '--stat' (did you mean '--state'?)"* ]] || fail "no suggestion for --stat: $out"
echo "ok   several jobs at once, selectors with --yes, submit -f -, did you mean"

# 8. A time limit: a plain job of 3 s of run time that would sleep for
# 10 minutes is stopped and ends timed out (shown by get, describe, history).
printf 'name: limited\ngpus: 1\ntime_limit: 3s\ncommand: ["/bin/sleep", "600"]\n' >"$work/limited.yaml"
limited=$(as_alice submit -f "$work/limited.yaml") || fail "submit of a job with a time limit"
for _ in $(seq 300); do [[ $(state_of "$limited") == timed_out ]] && break; sleep 0.1; done
[[ $(state_of "$limited") == timed_out ]] || fail "$limited is $(state_of "$limited"), not timed_out"
ctl describe job "$limited" | grep -q "ran for its time limit of 3s" || fail "describe does not say why $limited ended"
ctl history --state timed_out -o csv | grep -q "^$limited," || fail "history --state timed_out misses $limited"
echo "ok   time_limit: 3s: stopped and timed out"

echo "ok job_controls: $id succeeded with an uninterrupted run's state after hold, release, requeue and a drain"
