#!/usr/bin/env bash
# Job arrays, dependencies and time limits together, through a real
# synergyd and a node on loopback (issue 44):
#  1. an array of 4 with a cap of 1 (--array 0-3%1): one submission, 4 jobs
#     each told its index (SYNERGY_ARRAY_INDEX), never two running at once
#     though 2 GPUs are free; folded into one row by get jobs, one row each
#     with -o wide; a job of it named as ID_2 and ID[2];
#  2. a job after_ok the array starts only once all 4 succeeded, and says
#     what it waits for meanwhile;
#  3. a job with a 2 s time limit times out; the job after_ok it is
#     cancelled naming it, the job after_any it runs;
#  4. cancel given an array's id cancels all its jobs;
#  5. usage counts the jobs and the GPU-hours they held; history shows GPUs;
#  6. every synergyctl command of docs/operations.md's "Coming from Slurm"
#     table runs.
# usage: arrays_dependencies.sh BUILD_DIR
BIN=$1
TEST=arrays_dependencies
source "$(dirname "$0")/lib.sh"
POLICY=fifo
start_daemon
start_node n1 2
wait_for_nodes 1

state_is() {
  [[ $(ctl get job "$1" -o json | python3 -c "import json, sys; print(json.load(sys.stdin)['jobs'][0]['state'])") == "JOB_STATE_${2^^}" ]]
}
reason_of() { ctl get job "$1" -o json | python3 -c "import json, sys; print(json.load(sys.stdin)['jobs'][0].get('reason', ''))"; }

# ---- 1. the array
log=$work/array.log
cat >"$work/array.yaml" <<JOB
name: sweep
gpus: 1
time_limit: 5m
command: ["/bin/sh", "-c", "echo start \$SYNERGY_ARRAY_INDEX \$SYNERGY_ARRAY_JOB_ID >> $log; sleep 0.7; echo end \$SYNERGY_ARRAY_INDEX >> $log"]
JOB
array=$(ctl submit -f "$work/array.yaml" --array 0-3%1 2>"$work/submit.err") || fail "submit --array refused"
grep -q "array $array of 4 jobs" "$work/submit.err" || fail "submit did not say the array's size: $(cat "$work/submit.err")"
[[ $(ctl get jobs -o name | wc -l) == 4 ]] || fail "the array made $(ctl get jobs -o name | wc -l) jobs, not 4"

# ---- 2. after_ok the whole array
printf 'name: after-sweep\ngpus: 1\ncommand: ["/bin/sh", "-c", "echo after >> %s"]\n' "$log" >"$work/after.yaml"
after=$(ctl submit -f "$work/after.yaml" --after-ok "$array") || fail "submit --after-ok refused"
wait_for 10 "$after says it waits for the array" eval '[[ $(reason_of "$after") == "waiting for "*" of array $array to succeed (after_ok; "* ]]'
ctl get jobs | grep -q "^$array\[0-3\] *sweep" || fail "get jobs does not fold the array: $(ctl get jobs)"
[[ $(ctl get jobs -o wide | grep -c "^${array}_[0-3] ") == 4 ]] || fail "get jobs -o wide does not list the 4 jobs"
ctl get job "${array}_2" -o name | grep -qx "j-[0-9]*" || fail "get job ${array}_2 does not find the array's job"
ctl describe job "${array}[2]" | grep -q "index 2 of array $array" || fail "describe job ${array}[2] does not say its index"

wait_for 40 "$after succeeded" state_is "$after" succeeded
[[ $(grep -c '^start' "$log") == 4 && $(grep -c '^end' "$log") == 4 ]] || fail "the array's jobs did not all run once: $(cat "$log")"
[[ $(sort -u <(grep '^start' "$log" | cut -d' ' -f2)) == $'0\n1\n2\n3' ]] || fail "indices were not 0-3: $(cat "$log")"
grep '^start' "$log" | cut -d' ' -f3 | sort -u | grep -qx "$array" || fail "SYNERGY_ARRAY_JOB_ID was not $array"
# Never two at once: each start follows the previous job's end.
awk '/^start/ { if (open) bad = 1; open = 1 } /^end/ { open = 0 } END { exit bad }' "$log" ||
  fail "two of the array's jobs ran at once despite %1: $(cat "$log")"
[[ $(tail -1 "$log") == after ]] || fail "the after_ok job ran before the array ended: $(cat "$log")"
echo "ok   array: 4 jobs, one at a time, each with its index; after_ok ran after all 4"

# ---- 3. a time limit and the jobs that depend on it
printf 'name: limited\ngpus: 1\ntime_limit: 2s\ncommand: ["/bin/sleep", "600"]\n' >"$work/limited.yaml"
limited=$(ctl submit -f "$work/limited.yaml") || fail "submit limited refused"
ok_job=$(ctl submit -f "$work/after.yaml" --after-ok "$limited") || fail "submit after_ok limited refused"
any_job=$(ctl submit -f "$work/after.yaml" --after-any "$limited") || fail "submit after_any limited refused"
wait_for 30 "$limited timed out" state_is "$limited" timed_out
wait_for 10 "$ok_job cancelled" state_is "$ok_job" cancelled
[[ $(reason_of "$ok_job") == "dependency $limited (after_ok) ended timed_out: it can never be met" ]] ||
  fail "$ok_job's reason: $(reason_of "$ok_job")"
wait_for 20 "$any_job succeeded" state_is "$any_job" succeeded
out=$(ctl submit -f "$work/after.yaml" --after-ok "$limited" 2>&1) && fail "after_ok a timed-out job was accepted: $out"
grep -q "ended timed_out: it can never be met" <<<"$out" || fail "the refusal does not say why: $out"
out=$(ctl submit -f "$work/after.yaml" --after-ok j-999999 2>&1) && fail "after_ok an unknown job was accepted: $out"
grep -q "'j-999999' is not a job synergyd knows" <<<"$out" || fail "the refusal does not name the job: $out"
echo "ok   time limit: $limited timed out; after_ok cancelled naming it, after_any ran; bad dependencies refused"

# ---- 4. cancel by the array's id
printf 'name: long\ngpus: 1\ncommand: ["/bin/sleep", "600"]\n' >"$work/long.yaml"
long=$(ctl submit -f "$work/long.yaml" --array 0-2 2>/dev/null) || fail "submit of the long array refused"
out=$(ctl cancel "$long" 2>&1) && fail "cancel of 3 jobs by the array's id went ahead without --yes: $out"
ctl cancel "$long" --yes >/dev/null 2>&1 || fail "cancel of the array refused"
for j in $(ctl get job "$long" -o name); do state_is "$j" cancelled || fail "$j of array $long is not cancelled"; done
[[ $(ctl get job "$long" -o name | wc -l) == 3 ]] || fail "get job $long does not list the array's 3 jobs"

# ---- 5. usage: the admin's jobs, and GPU time held (the array's 4 jobs
# held a GPU for 0.7 s each at least)
usage=$(ctl usage --by user -o csv) || fail "usage refused"
total=$(ctl get jobs -o name | wc -l)
grep -q "^admin,$total," <<<"$usage" || fail "usage does not count the admin's $total jobs: $usage"
gpu_h=$(awk -F, '$1 == "admin" { print $3 }' <<<"$usage")
python3 -c "import sys; sys.exit(0 if 4 * 0.7 / 3600 <= float('$gpu_h') < 0.1 else 1)" ||
  fail "usage's GPU-hours $gpu_h are not what the jobs held"
ctl usage --by tenant | grep -q "^total " || fail "usage --by tenant has no total row"
ctl history | head -1 | grep -q "GPUS *GPU-H" || fail "history has no GPUS and GPU-H columns"
echo "ok   usage: $total jobs, $gpu_h GPU-hours"

# ---- 6. docs/operations.md's "Coming from Slurm": every synergyctl command
# of the table, run here. j-000123 is a job that holds a GPU (requeue needs
# one), except for cancel, hold and release (each its own queued job);
# j-000100 an array; job.yaml a short job; n1 the node.
printf 'name: short\ngpus: 1\ncommand: ["/bin/true"]\n' >"$work/job.yaml"
running=$(ctl submit -f "$work/long.yaml") || fail "submit of the long job refused"
wait_for 20 "$running running" state_is "$running" running
for verb in cancel hold; do
  declare "job_$verb=$(ctl submit -f "$work/long.yaml")" || fail "submit for $verb refused"
done
slurm_array=$(ctl submit -f "$work/long.yaml" --array 0-1 2>/dev/null) || fail "submit of an array refused"
rows=$(python3 - "$(dirname "$0")/../../docs/operations.md" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
table = text.split("## Coming from Slurm", 1)[1].split("\n## ", 1)[0]
for line in table.splitlines():
    cells = line.split("|")
    if len(cells) < 3:
        continue
    for command in re.findall(r"`(synergyctl [^`]*)`", cells[2]):
        print(command)
PY
)
[[ $(wc -l <<<"$rows") -ge 20 ]] || fail "the Slurm table has only $(wc -l <<<"$rows") synergyctl commands"
while IFS= read -r command; do
  id=$running
  [[ $command == "synergyctl cancel j-000123" ]] && id=$job_cancel
  [[ $command == "synergyctl hold j-000123" || $command == "synergyctl release j-000123" ]] && id=$job_hold
  line=${command//j-000123/$id}
  line=${line//j-000100/$slurm_array}
  line=${line//job.yaml/$work\/job.yaml}
  line="$BIN/${line/synergyctl/synergyctl}"
  rc=0
  if [[ $line == *" -w"* ]]; then
    timeout 3 bash -c "$line" >/dev/null 2>&1 || rc=$?
    [[ $rc == 124 ]] || fail "'$command' (as '$line') ended with $rc before it was stopped"
  else
    bash -c "$line" >"$work/row.out" 2>&1 || fail "'$command' (as '$line') failed: $(cat "$work/row.out")"
  fi
done <<<"$rows"
echo "ok   every synergyctl command of docs/operations.md's Slurm table ran ($(wc -l <<<"$rows"))"
echo "ok arrays_dependencies: arrays, caps, dependencies and time limits through synergyd and a node"
