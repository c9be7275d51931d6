#!/usr/bin/env bash
# The Slurm that synergyd's Slurm executor will drive (issue 19), started as
# the executor's tests will start it (slurm_lib.sh), and checked for what
# the executor relies on: a job runs on the node it names with the CPUs it
# asks for bound, its GPUs and memory counted; `scancel --signal --batch`
# reaches the job's own trap (the lease's end); squeue --json reports how
# it ended; a job for a full node waits; a slurmd killed is marked
# down within SlurmdTimeout. Skipped (77) without root or without the
# packages (scripts/install-slurm needs Debian's archive).
# usage: slurm_cluster.sh BUILD_DIR
BIN=$1
TEST=slurm_cluster
if [[ $(id -u) != 0 ]]; then echo "skip slurm_cluster: slurmd runs jobs as their owner, which needs root"; exit 77; fi
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/slurm_lib.sh"
trap 'slurm_cleanup; cleanup' EXIT
slurm_available || { echo "skip slurm_cluster: Slurm and munge are not installed and could not be"; exit 77; }
start_slurm_cluster sn1 sn2
sinfo

# Field $2 (job_state, exit_code) of job $1, from squeue --json (which, in
# 22.05, lists every job whatever -j says).
job_field() {
  timeout 10 squeue --json | python3 -c "
import json, sys
jobs = [j for j in json.load(sys.stdin)['jobs'] if j['job_id'] == $1]
print(jobs[0].get('$2', '') if jobs else '')
"
}
wait_state() {  # ID STATE SECONDS
  local deadline=$((SECONDS + ${3:-10}))
  while ((SECONDS < deadline)); do [[ $(job_field "$1" job_state) == "$2" ]] && return 0; sleep 0.2; done
  fail "job $1 is $(job_field "$1" job_state), not $2"
}

# On the named node, one CPU bound, one GPU and 500 MB.
out=$work/slurm/bound.out
id=$(sbatch --parsable -p synergy -w sn2 --gres=gpu:1 --cpus-per-task=1 --mem=500 -o "$out" \
  --wrap 'grep Cpus_allowed_list /proc/self/status; echo "node=$SLURMD_NODENAME"') || fail "sbatch refused"
wait_state "$id" COMPLETED 20
echo "bound job: $(tr '\n' ' ' <"$out")"
grep -q "node=sn2" "$out" || fail "the job did not run on sn2: $(cat "$out")"
cpus=$(awk '/Cpus_allowed_list/ { print $2 }' "$out")
[[ $cpus =~ ^[0-9]+$ ]] || fail "the job was not bound to one CPU: '$cpus'"
[[ $(job_field "$id" exit_code) == 0 ]] || fail "exit code $(job_field "$id" exit_code)"

# The lease's end: a signal to the batch script's own trap.
cat >"$work/slurm/trap.sh" <<'JOB'
#!/bin/bash
trap 'echo "stopping at the lease end"; exit 0' USR1
echo started
for i in $(seq 300); do sleep 0.1; done
echo "never signalled"
exit 3
JOB
chmod +x "$work/slurm/trap.sh"
id=$(sbatch --parsable -p synergy -w sn1 --cpus-per-task=1 --mem=100 -o "$work/slurm/trap.out" "$work/slurm/trap.sh")
wait_state "$id" RUNNING 10
deadline=$((SECONDS + 10))
until grep -q started "$work/slurm/trap.out" 2>/dev/null; do
  ((SECONDS < deadline)) || fail "the batch script did not start (its trap would not be set)"
  sleep 0.1
done
scancel --signal=USR1 --batch "$id" || fail "scancel --signal refused"
wait_state "$id" COMPLETED 10
grep -q "stopping at the lease end" "$work/slurm/trap.out" || fail "the trap did not run: $(cat "$work/slurm/trap.out")"

# A crash is read back: its exit status (22.05 gives the wait status: the
# code is its high byte).
id=$(sbatch --parsable -p synergy -w sn1 --cpus-per-task=1 --mem=100 -o /dev/null --wrap 'exit 7')
wait_state "$id" FAILED 10
status=$(job_field "$id" exit_code)
[[ $((status >> 8)) == 7 ]] || fail "a crash shows wait status $status, not exit code 7"

# A job for a full node waits (synergyd submits only what its plan fits,
# so that this never happens to its jobs; docs/slurm.md). Whether a later
# job that fits elsewhere passes it is sched/builtin's timing: not relied on.
hold=$(sbatch --parsable -p synergy -w sn1 --cpus-per-task=2 --mem=100 -o /dev/null --wrap 'sleep 300')
wait_state "$hold" RUNNING 10
big=$(sbatch --parsable -p synergy -w sn1 --cpus-per-task=2 --mem=100 -o /dev/null --wrap 'true')
small=$(sbatch --parsable -p synergy -w sn2 --cpus-per-task=1 --mem=100 -o /dev/null --wrap 'sleep 1')
sleep 1
echo "queued behind a full node: $big $(job_field "$big" job_state), $small $(job_field "$small" job_state)"
[[ $(job_field "$big" job_state) == PENDING ]] || fail "job $big did not wait for sn1"

scancel "$hold" "$big" "$small" 2>/dev/null

# A lease's launch as SbatchFor builds it (tests/integration/
# slurm_sbatch_for.cc), run as the executor will: sbatch with only its
# fixed environment, the script on its standard input. The job gets the
# lease's variables and words as they were, its CPU bound, and nothing of
# the environment sbatch was started from.
mkdir -p "$work/slurm/call" "$work/slurm/root/sn1"
"$BIN/tests/slurm_sbatch_for" "$work/slurm/call" sn1 synergy "$work/slurm" "$SLURM_CONF" || fail "SbatchFor refused"
mapfile -d '' -t call_argv <"$work/slurm/call/argv"
mapfile -d '' -t call_env <"$work/slurm/call/env"
id=$(SYNERGY_TEST_SECRET=leaked env -i "${call_env[@]}" "${call_argv[@]}" <"$work/slurm/call/script") ||
  fail "sbatch refused what SbatchFor built: ${call_argv[*]}"
wait_state "$id" COMPLETED 30
out=$work/slurm/root/sn1/j-000042.3.out
echo "SbatchFor's job: $(tr '\n' ' ' <"$out")"
grep -q "uid=0 job=j-000042 data=a b,'c' secret=none" "$out" || fail "the job's environment: $(cat "$out")"
grep -qF "arg=it's \"one\" \$word" "$out" || fail "the job's words: $(cat "$out")"
[[ $(awk '/Cpus_allowed_list/ { print $2 }' "$out") =~ ^[0-9]+$ ]] || fail "not bound to one CPU: $(cat "$out")"
[[ $(job_field "$id" name) == synergy-j-000042-3 ]] || fail "named $(job_field "$id" name)"

# The partition takes synergyd's jobs only (packaging/slurm/job_submit.lua,
# as docs/slurm.md installs it): a user's sbatch to it is refused with the
# reason, while synergyd's (root's) sbatch --uid of that user runs, not
# held PENDING as RootOnly=YES held it (Reason=PartitionConfig).
chmod o+x "$work" "$work/slurm"  # sbatch as nobody reaches slurm.conf and munge's socket
if out=$(runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" sbatch -p synergy -w sn1 -o /dev/null --chdir=/tmp \
  --wrap true 2>&1); then
  fail "a user's sbatch to the synergy partition was accepted: $out"
fi
[[ $out == *"takes jobs from synergyd only"* ]] || fail "a user's sbatch was refused, but not by job_submit.lua: $out"
id=$(sbatch --parsable -p synergy -w sn1 --uid="$(id -u nobody)" --gid="$(id -g nobody)" --cpus-per-task=1 \
  --mem=100 -o /dev/null --chdir=/tmp --wrap 'exit 0') || fail "root's sbatch --uid=nobody was refused"
wait_state "$id" COMPLETED 30
[[ $(job_field "$id" user_id) == "$(id -u nobody)" && $(job_field "$id" group_id) == "$(id -g nobody)" ]] ||
  fail "job $id ran as uid $(job_field "$id" user_id) gid $(job_field "$id" group_id), not nobody's"
echo "ok   the partition refuses a user's sbatch and runs synergyd's --uid of that user"

# A slurmd that dies is marked down within SlurmdTimeout (6 s).
kill -9 "$slurmd_pid_sn2"
deadline=$((SECONDS + 30))
while ((SECONDS < deadline)); do
  state=$(slurm_node_state sn2)
  [[ $state == *DOWN* || $state == *NOT_RESPONDING* || $state == *down* ]] && break
  sleep 0.2
done
echo "sn2 after its slurmd was killed: $state"
[[ $state == *DOWN* || $state == *NOT_RESPONDING* || $state == *down* ]] || fail "sn2 is '$state' 30 s after its slurmd died"
echo "PASS"
